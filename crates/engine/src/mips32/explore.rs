//! Every path of one MIPS32 function, symbolically: the emulator's step
//! (`tamarin_mips::mips32::cpu`) over terms, forking where the inputs decide a branch,
//! a trap, an overflow, a zero divisor or a jump target.
//!
//! Addresses are concrete in a state: an input-dependent one is split into its
//! feasible values (each with `addr == v` in its path), so every fault the emulator
//! raises is decided the way it decides it; the values that did not fault are merged
//! back into one state, each register and byte chosen by `addr == v`. Memory maps byte
//! addresses to what a store left there, over the image's bytes. Each state carries a
//! witness (inputs that take its path) when one is known, so a branch the witness
//! decides needs one query, not two. A query the solver leaves unknown keeps both
//! sides: a path that may be infeasible costs time, never soundness, since its guard
//! goes into every later query.

use imbl::OrdMap;
use tamarin_mips::mips32::abi::{ARG_REGS, INITIAL_SP, RA, RETURN_ADDRESS, SP};
use tamarin_mips::mips32::cpu::FaultKind;
use tamarin_mips::mips32::isa::{decode, AluOp, ImmOp, Instr, MulDivOp, PartOp, TrapOperand, Width};
use tamarin_mips::mips32::memory::Memory;
use tamarin_mips::mips32::Image;
use tamarin_mips::Reg;

use crate::semantics::mips32 as sem;
use crate::solver::{Answer, Solver};
use crate::term::{Evaluator, Term, TermStore};

/// How one path ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The function returned; the observed registers' terms.
    Returned(Vec<Term>),
    Fault(FaultKind),
    OutOfFuel,
    /// Not followed to its end, and why.
    Uncovered(Gap),
}

/// Why part of the inputs was not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Gap {
    /// More paths than the limit.
    Paths,
    /// The time limit or an interrupt.
    Time,
    /// An address or jump target with more values than the limit, or whose values
    /// the solver could not enumerate.
    Addresses,
}

impl Gap {
    /// A stable name, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Gap::Paths => "paths",
            Gap::Time => "time",
            Gap::Addresses => "symbolic-address",
        }
    }
}

/// One path: the inputs that take it (`guard`) and how it ends.
#[derive(Clone, Debug)]
pub struct PathEnd {
    pub guard: Term,
    pub end: End,
    /// Inputs that take the path, when known.
    pub witness: Option<Vec<u64>>,
}

/// What one function's exploration found.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    pub ends: Vec<PathEnd>,
    /// Instructions executed symbolically, over all paths.
    pub steps: u64,
    /// Queries asked.
    pub queries: u64,
}

/// The settings of an exploration.
#[derive(Clone, Debug)]
pub struct Limits {
    pub fuel: u64,
    pub max_paths: usize,
    /// Most values of one input-dependent address or jump target.
    pub max_targets: usize,
}

/// One function to explore: where it starts and which registers it reads and shows.
pub struct Function<'a> {
    pub image: &'a Image,
    pub entry: u32,
    /// The inputs' terms, given to `$a0`.. in order.
    pub args: &'a [Term],
    pub observe: &'a [Reg],
    /// Whether all-zero arguments are allowed (the first state's witness).
    pub zero_allowed: bool,
}

/// One byte of memory as the store that wrote it left it: byte `k` (0 the most
/// significant) of the `count`-byte value `whole`. Kept whole so that a word stored
/// and loaded again is the same term, not a concatenation of its bytes (generated
/// code spills and reloads registers all the time; the two builds of one function
/// then give the solver identical terms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Byte {
    whole: Term,
    count: u8,
    k: u8,
}

#[derive(Clone)]
struct State {
    pc: u32,
    regs: [Term; 32],
    hi: Term,
    lo: Term,
    /// Bytes written so far; the rest read as the image's (or the zeroed stack's).
    bytes: OrdMap<u32, Byte>,
    /// The path condition's conjuncts.
    path: Vec<Term>,
    /// Inputs that satisfy `path`, when known.
    witness: Option<Vec<u64>>,
    steps: u64,
}

struct Explorer<'a, 'f> {
    s: &'a mut TermStore,
    solver: &'a mut dyn Solver,
    func: &'a Function<'f>,
    limits: &'a Limits,
    stop: &'a dyn Fn() -> bool,
    /// The image's memory, never written: for reading initial bytes and telling mapped
    /// from writable.
    memory: Memory,
    out: Paths,
    work: Vec<State>,
}

/// Explores every path of `func` within `limits`, asking `solver` which sides of an
/// input-dependent decision some input takes; `stop` says when time is up.
pub fn explore(
    s: &mut TermStore,
    solver: &mut dyn Solver,
    func: &Function<'_>,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> Paths {
    let zero = s.word(0);
    let mut regs = [zero; 32];
    for (r, &a) in ARG_REGS.iter().zip(func.args) {
        regs[r.index()] = a;
    }
    regs[SP.index()] = s.word(INITIAL_SP);
    regs[RA.index()] = s.word(RETURN_ADDRESS);
    let first = State {
        pc: func.entry,
        regs,
        hi: zero,
        lo: zero,
        bytes: OrdMap::new(),
        path: Vec::new(),
        witness: func.zero_allowed.then(|| vec![0; s.var_count()]),
        steps: 0,
    };
    let mut e = Explorer {
        s,
        solver,
        func,
        limits,
        stop,
        memory: Memory::new(func.image),
        out: Paths::default(),
        work: vec![first],
    };
    e.run();
    e.out
}

impl Explorer<'_, '_> {
    fn run(&mut self) {
        while let Some(mut st) = self.work.pop() {
            let too_many = self.too_many();
            if too_many || (self.stop)() {
                let gap = if too_many { Gap::Paths } else { Gap::Time };
                self.end(&st, End::Uncovered(gap));
                for rest in std::mem::take(&mut self.work) {
                    self.end(&rest, End::Uncovered(gap));
                }
                return;
            }
            // Run this state until it ends or splits; the other sides wait in `work`.
            loop {
                if st.steps >= self.limits.fuel {
                    self.end(&st, End::OutOfFuel);
                    break;
                }
                if st.pc == RETURN_ADDRESS {
                    let observed = self.func.observe.iter().map(|r| st.regs[r.index() & 31]).collect();
                    self.end(&st, End::Returned(observed));
                    break;
                }
                let mut next = self.step(st);
                let Some(first) = next.pop() else { break };
                self.work.extend(next);
                st = first;
                if self.out.steps.is_multiple_of(4096) && ((self.stop)() || self.too_many()) {
                    self.work.push(st);
                    break;
                }
            }
        }
    }

    fn guard(&mut self, st: &State) -> Term {
        self.s.and_all(st.path.iter().copied())
    }

    fn end(&mut self, st: &State, end: End) {
        let guard = self.guard(st);
        self.out.ends.push(PathEnd {
            guard,
            end,
            witness: st.witness.clone(),
        });
    }

    fn too_many(&self) -> bool {
        self.out.ends.len() + self.work.len() + 1 > self.limits.max_paths
    }

    /// Asks whether `path ∧ extra` has a solution: `Some(model)`, `None` when it has
    /// none; an unknown answer counts as a solution without a model.
    fn feasible(&mut self, st: &State, extra: Term) -> Option<Option<Vec<u64>>> {
        if self.s.as_const(extra) == Some(0) {
            return None;
        }
        let mut q = st.path.clone();
        q.push(extra);
        self.out.queries += 1;
        match self.solver.check(self.s, &q) {
            Answer::Sat(m) => Some(Some(m.values)),
            Answer::Unsat => None,
            Answer::Unknown(_) => Some(None),
        }
    }

    fn holds_in_witness(&self, st: &State, cond: Term) -> Option<bool> {
        let w = st.witness.as_ref()?;
        Some(Evaluator::new(self.s, w).holds(cond))
    }

    /// Splits `st` on `cond`: the state where it holds and the one where it does not,
    /// each only if some input may take it.
    fn split(&mut self, st: State, cond: Term) -> (Option<State>, Option<State>) {
        match self.s.as_const(cond) {
            Some(0) => return (None, Some(st)),
            Some(_) => return (Some(st), None),
            None => {}
        }
        let not = self.s.not(cond);
        let by_witness = self.holds_in_witness(&st, cond);
        let with = |mut st: State, c: Term, w: Option<Vec<u64>>| {
            st.path.push(c);
            st.witness = w;
            st
        };
        match by_witness {
            Some(side) => {
                let (known, other) = if side { (cond, not) } else { (not, cond) };
                let w = st.witness.clone();
                let other_state = self
                    .feasible(&st, other)
                    .map(|m| with(st.clone(), other, m));
                let known_state = Some(with(st, known, w));
                if side {
                    (known_state, other_state)
                } else {
                    (other_state, known_state)
                }
            }
            None => {
                let yes = self.feasible(&st, cond).map(|m| with(st.clone(), cond, m));
                let no = self.feasible(&st, not).map(|m| with(st, not, m));
                (yes, no)
            }
        }
    }

    /// The concrete values `t` takes on the inputs of `st`, each with its state (`t`
    /// pinned to the value); the inputs left over when there are more values than
    /// the limit, or the solver cannot tell, end uncovered.
    fn concretize(&mut self, st: State, t: Term) -> Vec<(u32, State)> {
        if let Some(v) = self.s.as_const(t) {
            return vec![(v as u32, st)];
        }
        let mut found: Vec<(u32, State)> = Vec::new();
        let mut others = Vec::new();
        let mut next = st.witness.as_ref().map(|w| (Evaluator::new(self.s, w).eval(t) as u32, st.witness.clone()));
        loop {
            let Some((v, w)) = next.take() else {
                // Ask for a value not found yet.
                let rest = self.s.and_all(others.iter().copied());
                match self.feasible(&st, rest) {
                    None => return found,
                    Some(Some(m)) if found.len() < self.limits.max_targets => {
                        let v = Evaluator::new(self.s, &m).eval(t) as u32;
                        next = Some((v, Some(m)));
                        continue;
                    }
                    Some(_) => {
                        let mut left = st.clone();
                        left.path.push(rest);
                        self.end(&left, End::Uncovered(Gap::Addresses));
                        return found;
                    }
                }
            };
            let k = self.s.word(v);
            let is = self.s.eq(t, k);
            let ne = self.s.not(is);
            others.push(ne);
            let mut one = st.clone();
            one.path.push(is);
            one.witness = w;
            found.push((v, one));
        }
    }

    /// Reads `n` bytes at the concrete `addr` as one big-endian term, or the fault.
    fn read(&mut self, st: &State, addr: u32, n: u32) -> Result<Term, FaultKind> {
        // The emulator checks the whole access against one region: an access that runs
        // off a region's end is unmapped even if the next region starts there.
        if !self.same_region(addr, n) {
            return Err(FaultKind::Unmapped);
        }
        let mut bytes = Vec::with_capacity(n as usize);
        for k in 0..n {
            let a = addr.wrapping_add(k);
            let b = match st.bytes.get(&a) {
                Some(&b) => b,
                None => {
                    let v = self.memory.peek(a).ok_or(FaultKind::Unmapped)?;
                    Byte {
                        whole: self.s.constant(8, v as u64),
                        count: 1,
                        k: 0,
                    }
                }
            };
            bytes.push(b);
        }
        // The value a store left whole, read whole.
        let first = bytes[0];
        if first.count as u32 == n
            && bytes
                .iter()
                .enumerate()
                .all(|(i, b)| b.whole == first.whole && b.k as usize == i)
        {
            return Ok(first.whole);
        }
        let mut out: Option<Term> = None;
        for b in bytes {
            let hi = 8 * (b.count - b.k) - 1;
            let t = self.s.extract(hi, hi - 7, b.whole);
            out = Some(match out {
                None => t,
                Some(high) => self.s.bin(crate::term::BinOp::Concat, high, t),
            });
        }
        out.ok_or(FaultKind::Unmapped)
    }

    /// Whether the `n` bytes at `addr` lie in one region (as the emulator requires).
    fn same_region(&mut self, addr: u32, n: u32) -> bool {
        match n {
            2 => self.memory.read::<2>(addr).is_ok(),
            4 => self.memory.read::<4>(addr).is_ok(),
            _ => self.memory.read::<1>(addr).is_ok(),
        }
    }

    /// Writes `value` (8 × `n` bits) at the concrete `addr`, or the fault.
    fn write(&mut self, st: &mut State, addr: u32, n: u32, value: Term) -> Result<(), FaultKind> {
        if !self.same_region(addr, n) {
            return Err(FaultKind::Unmapped);
        }
        if !self.memory.is_writable(addr) {
            return Err(FaultKind::ReadOnly);
        }
        for k in 0..n {
            let b = Byte {
                whole: value,
                count: n as u8,
                k: k as u8,
            };
            st.bytes.insert(addr.wrapping_add(k), b);
        }
        Ok(())
    }

    fn get(st: &State, r: Reg) -> Term {
        st.regs[r.index() & 31]
    }

    fn set(st: &mut State, r: Reg, v: Term) {
        if r.index() != 0 {
            st.regs[r.index() & 31] = v;
        }
    }

    /// The instruction at `pc`, or the fault of fetching it (as the emulator's
    /// `fetch`).
    fn fetch(&self, pc: u32) -> Result<Instr, FaultKind> {
        if pc & 3 != 0 {
            return Err(FaultKind::AddressError);
        }
        let executable = self
            .func
            .image
            .section_at(pc)
            .is_some_and(|s| s.executable);
        if !executable {
            return Err(if self.func.image.undefined_jump(pc).is_some() {
                FaultKind::UndefinedCall
            } else {
                FaultKind::Unmapped
            });
        }
        match self.func.image.word(pc).map(decode) {
            Some(Some(i)) => Ok(i),
            _ => Err(FaultKind::Reserved),
        }
    }

    /// One step of `st`: an instruction, or a branch with its delay slot. The states
    /// that go on (several where the inputs decided something), the first to run next.
    fn step(&mut self, mut st: State) -> Vec<State> {
        self.out.steps += 1;
        let pc = st.pc;
        let instr = match self.fetch(pc) {
            Ok(i) => i,
            Err(kind) => {
                self.end(&st, End::Fault(kind));
                return Vec::new();
            }
        };
        st.steps += 1;
        if !instr.has_delay_slot() {
            let mut next = self.execute(st, instr);
            for n in &mut next {
                n.pc = pc.wrapping_add(4);
            }
            return next;
        }
        // The branch's decision and link, then its slot, then the transfer.
        let link = self.s.word(pc.wrapping_add(8));
        let (taken, target): (Term, Term) = match instr {
            Instr::Branch { cond, s, t, off, link: links } => {
                let (a, b) = (Self::get(&st, s), Self::get(&st, t));
                let c = sem::branch_cond(self.s, cond, a, b);
                if links {
                    Self::set(&mut st, RA, link);
                }
                let target = tamarin_mips::mips32::isa::branch_target(pc, off);
                (c, self.s.word(target))
            }
            Instr::Jump { index, link: links } => {
                if links {
                    Self::set(&mut st, RA, link);
                }
                let t = tamarin_mips::mips32::isa::jump_target(pc, index);
                (self.s.bool(true), self.s.word(t))
            }
            Instr::JumpReg { s, link: d } => {
                let target = Self::get(&st, s);
                if let Some(d) = d {
                    Self::set(&mut st, d, link);
                }
                (self.s.bool(true), target)
            }
            _ => (self.s.bool(false), self.s.word(0)),
        };
        let slot_pc = pc.wrapping_add(4);
        let slot = match self.fetch(slot_pc) {
            Ok(i) => i,
            Err(kind) => {
                self.end(&st, End::Fault(kind));
                return Vec::new();
            }
        };
        if slot.has_delay_slot() {
            self.end(&st, End::Fault(FaultKind::BranchInDelaySlot));
            return Vec::new();
        }
        st.steps += 1;
        let mut next = Vec::new();
        for st in self.execute(st, slot) {
            let (yes, no) = self.split(st, taken);
            if let Some(mut n) = no {
                n.pc = pc.wrapping_add(8);
                next.push(n);
            }
            let Some(yes) = yes else { continue };
            for (t, mut one) in self.concretize(yes, target) {
                if t & 3 != 0 && t != RETURN_ADDRESS {
                    self.end(&one, End::Fault(FaultKind::AddressError));
                    continue;
                }
                one.pc = t;
                next.push(one);
            }
        }
        next
    }

    /// Executes a non-control instruction of `st`: the states that go on.
    fn execute(&mut self, mut st: State, instr: Instr) -> Vec<State> {
        match instr {
            Instr::Alu { op, d, s, t } => {
                let (a, b) = (Self::get(&st, s), Self::get(&st, t));
                match op {
                    AluOp::Add | AluOp::Sub => {
                        let over = sem::overflows(self.s, op == AluOp::Sub, a, b);
                        let (bad, ok) = self.split(st, over);
                        if let Some(bad) = bad {
                            self.end(&bad, End::Fault(FaultKind::Overflow));
                        }
                        let Some(mut ok) = ok else { return Vec::new() };
                        let v = sem::alu(self.s, op, a, b);
                        Self::set(&mut ok, d, v);
                        return vec![ok];
                    }
                    AluOp::Movn | AluOp::Movz => {
                        let zero = self.s.word(0);
                        let is_zero = self.s.eq(b, zero);
                        let moves = if op == AluOp::Movz { is_zero } else { self.s.not(is_zero) };
                        let old = Self::get(&st, d);
                        let v = self.s.ite(moves, a, old);
                        Self::set(&mut st, d, v);
                    }
                    _ => {
                        let v = sem::alu(self.s, op, a, b);
                        Self::set(&mut st, d, v);
                    }
                }
            }
            Instr::Imm { op, t, s, imm } => {
                let a = Self::get(&st, s);
                if op == ImmOp::Addi {
                    let k = self.s.word(imm);
                    let over = sem::overflows(self.s, false, a, k);
                    let (bad, ok) = self.split(st, over);
                    if let Some(bad) = bad {
                        self.end(&bad, End::Fault(FaultKind::Overflow));
                    }
                    let Some(mut ok) = ok else { return Vec::new() };
                    let v = sem::imm(self.s, op, a, imm);
                    Self::set(&mut ok, t, v);
                    return vec![ok];
                }
                let v = sem::imm(self.s, op, a, imm);
                Self::set(&mut st, t, v);
            }
            Instr::Shift { op, d, t, sa } => {
                let v = sem::shift(self.s, op, Self::get(&st, t), sa as u32);
                Self::set(&mut st, d, v);
            }
            Instr::MulDiv { op, s, t } => {
                let (a, b) = (Self::get(&st, s), Self::get(&st, t));
                if matches!(op, MulDivOp::Div | MulDivOp::Divu) {
                    let zero = self.s.word(0);
                    let by_zero = self.s.eq(b, zero);
                    let (bad, ok) = self.split(st, by_zero);
                    if let Some(bad) = bad {
                        self.end(&bad, End::Fault(FaultKind::DivisionByZero));
                    }
                    let Some(ok) = ok else { return Vec::new() };
                    st = ok;
                }
                let (hi, lo) = sem::mul_div(self.s, op, a, b, st.hi, st.lo);
                st.hi = hi;
                st.lo = lo;
            }
            Instr::Mfhi { d } => {
                let v = st.hi;
                Self::set(&mut st, d, v);
            }
            Instr::Mflo { d } => {
                let v = st.lo;
                Self::set(&mut st, d, v);
            }
            Instr::Mthi { s } => st.hi = Self::get(&st, s),
            Instr::Mtlo { s } => st.lo = Self::get(&st, s),
            Instr::Bit { op, d, src } => {
                let v = sem::bit(self.s, op, Self::get(&st, src));
                Self::set(&mut st, d, v);
            }
            Instr::Ext { t, s, pos, size } => {
                let v = sem::extract_bits(self.s, Self::get(&st, s), pos, size);
                Self::set(&mut st, t, v);
            }
            Instr::Ins { t, s, pos, size } => {
                let v = sem::insert_bits(self.s, Self::get(&st, t), Self::get(&st, s), pos, size);
                Self::set(&mut st, t, v);
            }
            Instr::Load { width, signed, t, s, off } => {
                let k = self.s.word(off as i32 as u32);
                let base = Self::get(&st, s);
                let addr = self.s.bin(crate::term::BinOp::Add, base, k);
                let n = width.bytes();
                return self.each_address(st, addr, move |e, mut st, a| {
                    if a & (n - 1) != 0 {
                        return Err(FaultKind::AddressError);
                    }
                    let v = e.read(&st, a, n)?;
                    let v = match (width, signed) {
                        (Width::Word, _) => v,
                        (_, true) => e.s.sign_ext(32 - 8 * n as u8, v),
                        (_, false) => e.s.zero_ext(32 - 8 * n as u8, v),
                    };
                    Self::set(&mut st, t, v);
                    Ok(st)
                });
            }
            Instr::Store { width, t, s, off } => {
                let k = self.s.word(off as i32 as u32);
                let base = Self::get(&st, s);
                let addr = self.s.bin(crate::term::BinOp::Add, base, k);
                let n = width.bytes();
                let value = Self::get(&st, t);
                return self.each_address(st, addr, move |e, mut st, a| {
                    if a & (n - 1) != 0 {
                        return Err(FaultKind::AddressError);
                    }
                    let v = if n == 4 { value } else { e.s.extract(8 * n as u8 - 1, 0, value) };
                    e.write(&mut st, a, n, v)?;
                    Ok(st)
                });
            }
            Instr::Part { op, t, s, off } => {
                let k = self.s.word(off as i32 as u32);
                let base = Self::get(&st, s);
                let addr = self.s.bin(crate::term::BinOp::Add, base, k);
                return self.each_address(st, addr, move |e, mut st, a| {
                    let aligned = a & !3;
                    let word = e.read(&st, aligned, 4)?;
                    let reg = Self::get(&st, t);
                    let (v, stored) = sem::part(e.s, op, a & 3, reg, word);
                    match op {
                        PartOp::Lwl | PartOp::Lwr => Self::set(&mut st, t, v),
                        PartOp::Swl | PartOp::Swr => e.write(&mut st, aligned, 4, stored)?,
                    }
                    Ok(st)
                });
            }
            Instr::Trap { cond, s, t, .. } => {
                let a = Self::get(&st, s);
                let b = match t {
                    TrapOperand::Reg(t) => Self::get(&st, t),
                    TrapOperand::Imm(i) => self.s.word(i),
                };
                let c = sem::trap_cond(self.s, cond, a, b);
                let (bad, ok) = self.split(st, c);
                if let Some(bad) = bad {
                    self.end(&bad, End::Fault(FaultKind::Trap));
                }
                return ok.into_iter().collect();
            }
            Instr::Break { .. } => {
                self.end(&st, End::Fault(FaultKind::Break));
                return Vec::new();
            }
            Instr::Syscall { .. } => {
                self.end(&st, End::Fault(FaultKind::Syscall));
                return Vec::new();
            }
            Instr::Sync => {}
            Instr::Branch { .. } | Instr::Jump { .. } | Instr::JumpReg { .. } => {}
        }
        vec![st]
    }

    /// Runs `access` once per concrete value of `addr` on the inputs of `st`: a
    /// faulting access ends its state; the others are merged back into one state
    /// (values chosen by `addr`), so an array indexed by an input costs one state,
    /// not one per element.
    fn each_address(
        &mut self,
        st: State,
        addr: Term,
        access: impl Fn(&mut Self, State, u32) -> Result<State, FaultKind>,
    ) -> Vec<State> {
        let prefix = st.path.len();
        let mut next: Vec<(Term, State)> = Vec::new();
        for (a, one) in self.concretize(st, addr) {
            let failed = one.clone();
            match access(self, one, a) {
                Ok(done) => {
                    let k = self.s.word(a);
                    let is = self.s.eq(addr, k);
                    next.push((is, done));
                }
                Err(kind) => self.end(&failed, End::Fault(kind)),
            }
        }
        if next.len() <= 1 {
            return next.into_iter().map(|(_, st)| st).collect();
        }
        self.merge(prefix, next)
    }

    /// One state for the states `forks`, each taken under its condition; they share
    /// the first `prefix` conjuncts of their paths, then each added its condition.
    fn merge(&mut self, prefix: usize, forks: Vec<(Term, State)>) -> Vec<State> {
        let (conds, states): (Vec<Term>, Vec<State>) = forks.into_iter().unzip();
        let mut out = states[0].clone();
        let pick = |s: &mut TermStore, values: &[Term]| -> Term {
            let last = values.len() - 1;
            if values.iter().all(|&v| v == values[0]) {
                return values[0];
            }
            let mut t = values[last];
            for k in (0..last).rev() {
                t = s.ite(conds[k], values[k], t);
            }
            t
        };
        for r in 1..32 {
            let values: Vec<Term> = states.iter().map(|st| st.regs[r]).collect();
            out.regs[r] = pick(self.s, &values);
        }
        let his: Vec<Term> = states.iter().map(|st| st.hi).collect();
        out.hi = pick(self.s, &his);
        let los: Vec<Term> = states.iter().map(|st| st.lo).collect();
        out.lo = pick(self.s, &los);
        // The bytes some fork changed, each chosen by the condition of its fork.
        let mut changed: Vec<u32> = Vec::new();
        for st in &states[1..] {
            for d in states[0].bytes.diff(&st.bytes) {
                let a = match d {
                    imbl::ordmap::DiffItem::Add(a, _) | imbl::ordmap::DiffItem::Remove(a, _) => *a,
                    imbl::ordmap::DiffItem::Update { new: (a, _), .. } => *a,
                };
                changed.push(a);
            }
        }
        changed.sort_unstable();
        changed.dedup();
        for a in changed {
            let mut values = Vec::with_capacity(states.len());
            for st in &states {
                match self.read(st, a, 1) {
                    Ok(v) => values.push(v),
                    // A byte one fork cannot read: keep the forks apart.
                    Err(_) => return states,
                }
            }
            let whole = pick(self.s, &values);
            out.bytes.insert(a, Byte { whole, count: 1, k: 0 });
        }
        out.path.truncate(prefix);
        let any = self.s.or_all(conds.iter().copied());
        out.path.push(any);
        out.witness = states.iter().find_map(|st| st.witness.clone());
        vec![out]
    }
}
