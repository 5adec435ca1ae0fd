//! Every path of one MIPS32 function, symbolically: the semantics the emulator runs
//! (`tamarin_mips::target::mips32`), over terms, forking where the inputs decide a branch,
//! a trap, an overflow, a zero divisor or a jump target.
//!
//! A CS241 program ([`Code::Cs241`]) runs here too, with its own semantics
//! (`tamarin_mips::target::cs241`) and machine: no delay slots, `lis`, 16 MiB of
//! word memory that reads zero where nothing was loaded or stored, and the I/O
//! addresses. Standard input is empty (a read gives -1); a write to standard output,
//! or running a word that a store changed, is not followed ([`Gap::Output`],
//! [`Gap::Code`]). Every CS241 fault ends a run the same way ([`CS241_FAULT`]), as
//! the comparison rules say (both fail: the same).
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

use std::collections::BTreeMap;

use imbl::OrdMap;
use tamarin_mips::mips32::abi::{ARG_REGS, INITIAL_SP, RA, RETURN_ADDRESS, SP};
use tamarin_mips::mips32::cpu::FaultKind;
use tamarin_mips::mips32::memory::Memory;
use tamarin_mips::mips32::Image;
use tamarin_mips::{Program, Reg};

use tamarin_mips::cpu::{INPUT_ADDR, OUTPUT_ADDR, STACK_TOP};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::target::cs241;
use tamarin_mips::target::mips32 as sem;

use crate::semantics::{Effect, Regs, Width};
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
    /// Reached one of the cut points ([`Function::cuts`]) after at least one step:
    /// the state there.
    Cut(Box<Snapshot>),
}

/// A state at a pc, as terms: the registers, `hi`/`lo`, and every aligned word that
/// some store wrote a byte of (the rest of memory holds the image's bytes). A loop
/// proof starts runs from snapshots whose terms are fresh inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub pc: u32,
    pub regs: [Term; 32],
    pub hi: Term,
    pub lo: Term,
    pub words: BTreeMap<u32, Term>,
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
    /// A CS241 program wrote to standard output.
    Output,
    /// A CS241 program ran a word that a store changed.
    Code,
}

impl Gap {
    /// A stable name, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Gap::Paths => "paths",
            Gap::Time => "time",
            Gap::Addresses => "symbolic-address",
            Gap::Output => "output",
            Gap::Code => "code-write",
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

/// One side of a comparison: a loaded file and the function's entry.
#[derive(Clone, Copy, Debug)]
pub struct FunctionSide<'a> {
    pub image: &'a Image,
    pub entry: u32,
}

/// The code a run executes, and so the machine it runs on.
#[derive(Clone, Copy, Debug)]
pub enum Code<'a> {
    /// A function of a MIPS32 file.
    Mips32(&'a Image),
    /// A whole CS241 program, loaded at 0 as `mips.twoints` loads it.
    Cs241(&'a Cs241Code),
}

/// A CS241 program as a run of it starts: loaded at address 0, the inputs in
/// registers, `$30` at the top of memory, `$31` the termination address, no
/// standard input.
#[derive(Clone, Debug)]
pub struct Cs241Code {
    pub program: Program,
    /// The registers the inputs arrive in, in order (`$1`, `$2`).
    pub inputs: Vec<Reg>,
    /// The address whose reaching ends a run (the initial `$31`).
    pub termination: u32,
    /// Whether standard output is compared: a write to it is then not followed
    /// ([`Gap::Output`]); otherwise it changes nothing a comparison looks at.
    pub observe_output: bool,
}

impl Cs241Code {
    /// The word at `addr` before any store (the program's, or zero).
    pub fn initial_word(&self, addr: u32) -> u32 {
        self.program
            .words()
            .get((addr >> 2) as usize)
            .copied()
            .unwrap_or(0)
    }
}

/// How every CS241 fault ends a run: the comparison rules treat all faults alike.
pub const CS241_FAULT: FaultKind = FaultKind::Reserved;

/// One side of a loop proof: its code and where its run starts.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    pub code: Code<'a>,
    pub entry: u32,
}

impl<'a> From<FunctionSide<'a>> for Side<'a> {
    fn from(f: FunctionSide<'a>) -> Side<'a> {
        Side {
            code: Code::Mips32(f.image),
            entry: f.entry,
        }
    }
}

/// One function to explore: where it starts and which registers it reads and shows.
pub struct Function<'a> {
    pub code: Code<'a>,
    pub entry: u32,
    /// The inputs' terms, given to `$a0`.. in order (`$1`, `$2` for CS241).
    pub args: &'a [Term],
    pub observe: &'a [Reg],
    /// Whether all-zero arguments are allowed (the first state's witness).
    pub zero_allowed: bool,
    /// Where a path stops with [`End::Cut`] (none for a whole run).
    pub cuts: &'a [u32],
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
    /// A MIPS32 image's memory, never written: for reading initial bytes and telling
    /// mapped from writable (`None` for CS241).
    memory: Option<Memory>,
    out: Paths,
    /// The states waiting to run, by pc: the lowest runs next, and the states that
    /// meet at one pc run on as one (see [`Explorer::pop`]).
    work: BTreeMap<u32, Vec<State>>,
    /// How many states wait in `work`.
    waiting: usize,
    /// How many times the branch at each pc forked.
    forks: rustc_hash::FxHashMap<u32, u32>,
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
    match func.code {
        Code::Mips32(_) => {
            for (r, &a) in ARG_REGS.iter().zip(func.args) {
                regs[r.index()] = a;
            }
            regs[SP.index()] = s.word(INITIAL_SP);
            regs[RA.index()] = s.word(RETURN_ADDRESS);
        }
        Code::Cs241(c) => {
            // As the emulator sets a run up: `$30` and `$31` first, then the inputs
            // (which may name them).
            regs[30] = s.word(STACK_TOP);
            regs[31] = s.word(c.termination);
            for (r, &a) in c.inputs.iter().zip(func.args) {
                if r.index() != 0 {
                    regs[r.index() & 31] = a;
                }
            }
        }
    }
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
    run_from(s, solver, func, limits, stop, first)
}

/// Explores every path from `start`, whose terms hold on the inputs where `assume`
/// does (one run of a loop's body from a state that stands for every state an
/// invariant allows, say), until each path returns, faults or reaches a cut point.
pub fn explore_from(
    s: &mut TermStore,
    solver: &mut dyn Solver,
    func: &Function<'_>,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    start: &Snapshot,
    assume: Vec<Term>,
) -> Paths {
    let mut bytes = OrdMap::new();
    for (&a, &whole) in &start.words {
        for k in 0..4u8 {
            bytes.insert(a.wrapping_add(k as u32), Byte { whole, count: 4, k });
        }
    }
    let first = State {
        pc: start.pc,
        regs: start.regs,
        hi: start.hi,
        lo: start.lo,
        bytes,
        path: assume,
        witness: None,
        steps: 0,
    };
    run_from(s, solver, func, limits, stop, first)
}

fn run_from(
    s: &mut TermStore,
    solver: &mut dyn Solver,
    func: &Function<'_>,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    first: State,
) -> Paths {
    let mut e = Explorer {
        s,
        solver,
        func,
        limits,
        stop,
        memory: match func.code {
            Code::Mips32(image) => Some(Memory::new(image)),
            Code::Cs241(_) => None,
        },
        out: Paths::default(),
        work: BTreeMap::new(),
        waiting: 0,
        forks: rustc_hash::FxHashMap::default(),
    };
    e.push(first);
    e.run();
    e.out
}

impl Explorer<'_, '_> {
    fn run(&mut self) {
        while let Some(batch) = self.pop() {
            let mut batch = batch.into_iter();
            while let Some(st) = batch.next() {
                let too_many = self.too_many();
                if too_many || (self.out.steps.is_multiple_of(64) && (self.stop)()) {
                    let gap = if too_many { Gap::Paths } else { Gap::Time };
                    self.end(&st, End::Uncovered(gap));
                    let rest: Vec<State> = batch.by_ref().collect();
                    for st in rest {
                        self.end(&st, End::Uncovered(gap));
                    }
                    for st in std::mem::take(&mut self.work).into_values().flatten() {
                        self.end(&st, End::Uncovered(gap));
                    }
                    self.waiting = 0;
                    return;
                }
                if st.steps >= self.limits.fuel {
                    self.end(&st, End::OutOfFuel);
                    continue;
                }
                if st.steps > 0 && self.func.cuts.contains(&st.pc) {
                    let end = match self.snapshot(&st) {
                        Some(snap) => End::Cut(Box::new(snap)),
                        None => End::Uncovered(Gap::Addresses),
                    };
                    self.end(&st, end);
                    continue;
                }
                if st.pc == self.return_address() {
                    let observed = self
                        .func
                        .observe
                        .iter()
                        .map(|r| st.regs[r.index() & 31])
                        .collect();
                    self.end(&st, End::Returned(observed));
                    continue;
                }
                for next in self.step(st) {
                    self.push(next);
                }
            }
        }
    }

    fn push(&mut self, st: State) {
        self.waiting += 1;
        self.work.entry(st.pc).or_default().push(st);
    }

    /// The states at the lowest waiting pc, joined into one where they can be.
    ///
    /// Running the lowest pc first makes the two sides of a branch meet at their join
    /// before either goes on, the exits of a loop from every iteration meet after it,
    /// and every return meets at the return address: each meeting is one state whose
    /// values are chosen by the sides' path conditions (which are disjoint, since every
    /// fork adds a condition to one side and its negation, or another value of an
    /// address, to the other), so the number of states stays small where the number
    /// of paths grows exponentially.
    fn pop(&mut self) -> Option<Vec<State>> {
        let (_, states) = self.work.pop_first()?;
        self.waiting -= states.len();
        if states.len() == 1 {
            return Some(states);
        }
        let prefix = common_prefix(&states);
        let forks: Vec<(Term, State)> = states
            .into_iter()
            .map(|st| (self.s.and_all(st.path[prefix..].iter().copied()), st))
            .collect();
        Some(self.merge(prefix, forks))
    }

    /// `st` as a [`Snapshot`]; `None` when a written word cannot be read whole.
    fn snapshot(&mut self, st: &State) -> Option<Snapshot> {
        let mut aligned: Vec<u32> = st.bytes.keys().map(|a| a & !3).collect();
        aligned.dedup();
        let mut words = BTreeMap::new();
        for a in aligned {
            words.insert(a, self.read(st, a, 4).ok()?);
        }
        Some(Snapshot {
            pc: st.pc,
            regs: st.regs,
            hi: st.hi,
            lo: st.lo,
            words,
        })
    }

    fn guard(&mut self, st: &State) -> Term {
        self.s.and_all(st.path.iter().copied())
    }

    fn end(&mut self, st: &State, end: End) {
        let end = match (end, self.func.code) {
            (End::Fault(_), Code::Cs241(_)) => End::Fault(CS241_FAULT),
            (end, _) => end,
        };
        let guard = self.guard(st);
        self.out.ends.push(PathEnd {
            guard,
            end,
            witness: st.witness.clone(),
        });
    }

    fn too_many(&self) -> bool {
        self.out.ends.len() + self.waiting + 1 > self.limits.max_paths
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

    /// Splits `st` on the condition of the branch at `pc`, as [`Explorer::split`] does
    /// the first [`PRECISE_FORKS`] times the branch forks; after that (a long loop's
    /// test), the side its witness does not take is kept without asking whether some
    /// input takes it, except at every 32nd fork: a loop bounded by a condition on the
    /// inputs then stops within 32 iterations of its last feasible one, and costs a
    /// query per 32 iterations instead of one per iteration. A side kept that no input
    /// takes costs time, never soundness: its guard goes into every query about it.
    /// (Short loops stay precise: a joined state that carries infeasible iterations of
    /// a loop of divisions makes the final query much harder.)
    fn split_branch(&mut self, st: State, cond: Term, pc: u32) -> (Option<State>, Option<State>) {
        if self.s.as_const(cond).is_some() {
            return self.split(st, cond);
        }
        let n = self.forks.entry(pc).or_insert(0);
        *n += 1;
        let n = *n;
        if n <= PRECISE_FORKS || n.is_multiple_of(32) {
            return self.split(st, cond);
        }
        let not = self.s.not(cond);
        let side = self.holds_in_witness(&st, cond);
        let mut yes = st.clone();
        let mut no = st;
        yes.path.push(cond);
        no.path.push(not);
        match side {
            Some(true) => no.witness = None,
            Some(false) => yes.witness = None,
            None => {}
        }
        (Some(yes), Some(no))
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
        let mut next = st
            .witness
            .as_ref()
            .map(|w| (Evaluator::new(self.s, w).eval(t) as u32, st.witness.clone()));
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

    /// Where a run that returns goes: reaching it ends the run.
    fn return_address(&self) -> u32 {
        match self.func.code {
            Code::Mips32(_) => RETURN_ADDRESS,
            Code::Cs241(c) => c.termination,
        }
    }

    /// The byte at `a` before any store, or `None` where nothing is mapped.
    fn initial_byte(&mut self, a: u32) -> Option<u8> {
        match (&mut self.memory, self.func.code) {
            (Some(m), _) => m.peek(a),
            (None, Code::Cs241(c)) if a < MEM_SIZE => {
                Some(c.initial_word(a & !3).to_be_bytes()[(a & 3) as usize])
            }
            (None, _) => None,
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
                    let v = self.initial_byte(a).ok_or(FaultKind::Unmapped)?;
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

    /// Whether the `n` bytes at `addr` lie in one region (as the emulator requires);
    /// CS241 memory is one region, whose bounds its accesses check first.
    fn same_region(&mut self, addr: u32, n: u32) -> bool {
        match &mut self.memory {
            Some(m) => m.holds(addr, n),
            None => (addr as u64 + n as u64) <= MEM_SIZE as u64,
        }
    }

    /// Writes `value` (8 × `n` bits) at the concrete `addr`, or the fault.
    fn write(&mut self, st: &mut State, addr: u32, n: u32, value: Term) -> Result<(), FaultKind> {
        if !self.same_region(addr, n) {
            return Err(FaultKind::Unmapped);
        }
        if let Some(m) = &mut self.memory {
            if !m.is_writable(addr) {
                return Err(FaultKind::ReadOnly);
            }
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

    /// What the instruction at `pc` does in `st`, and whether it is one that a delay
    /// slot may not hold (a branch or jump); or how fetching it ends the run. The
    /// semantics the emulator runs, over terms.
    fn decode(&mut self, st: &State, pc: u32) -> Result<(Effect<Term, Term>, bool), End> {
        let regs = Regs {
            gpr: &st.regs,
            hi: st.hi,
            lo: st.lo,
        };
        match self.func.code {
            Code::Mips32(image) => {
                let instr =
                    crate::semantics::machine::mips32_fetch(image, pc).map_err(End::Fault)?;
                Ok((
                    sem::effect(&mut *self.s, regs, pc, instr),
                    instr.has_delay_slot(),
                ))
            }
            Code::Cs241(c) => {
                if pc & 3 != 0 || pc >= MEM_SIZE {
                    return Err(End::Fault(CS241_FAULT));
                }
                if (0..4).any(|k| st.bytes.contains_key(&(pc + k))) {
                    return Err(End::Uncovered(Gap::Code));
                }
                // The program's words come decoded; memory past them reads zero.
                let instr = match c.program.ops().get((pc >> 2) as usize) {
                    Some(op) => *op,
                    None => tamarin_mips::isa::Instr::decode(0),
                }
                .ok_or(End::Fault(CS241_FAULT))?;
                Ok((cs241::effect(&mut *self.s, regs, pc, instr), false))
            }
        }
    }

    /// One step of `st`: an instruction, or a branch with its delay slot. The states
    /// that go on (several where the inputs decided something), the first to run next.
    fn step(&mut self, mut st: State) -> Vec<State> {
        self.out.steps += 1;
        let pc = st.pc;
        let effect = match self.decode(&st, pc) {
            Ok((e, _)) => e,
            Err(end) => {
                self.end(&st, end);
                return Vec::new();
            }
        };
        st.steps += 1;
        // The branch's decision, target and link, then its slot, then the transfer.
        let (taken, target, link, delay_slot) = match effect {
            Effect::Branch {
                cond,
                target,
                link,
                delay_slot,
            } => (cond, self.s.word(target), link, delay_slot),
            Effect::Jump {
                target,
                link,
                delay_slot,
            } => (self.s.bool(true), target, link, delay_slot),
            Effect::Literal(d) if matches!(self.func.code, Code::Cs241(_)) => {
                return self.literal(st, pc, d).into_iter().collect();
            }
            other => {
                let mut next = self.execute(st, other);
                for n in &mut next {
                    n.pc = pc.wrapping_add(4);
                }
                return next;
            }
        };
        if let Some((r, v)) = link {
            let v = self.s.word(v);
            Self::set(&mut st, r, v);
        }
        let (states, fall_through) = if delay_slot {
            let slot_pc = pc.wrapping_add(4);
            let slot_effect = match self.decode(&st, slot_pc) {
                Ok((_, true)) => {
                    self.end(&st, End::Fault(FaultKind::BranchInDelaySlot));
                    return Vec::new();
                }
                Ok((e, false)) => e,
                Err(end) => {
                    self.end(&st, end);
                    return Vec::new();
                }
            };
            st.steps += 1;
            (self.execute(st, slot_effect), pc.wrapping_add(8))
        } else {
            (vec![st], pc.wrapping_add(4))
        };
        let ret = self.return_address();
        let mips32 = matches!(self.func.code, Code::Mips32(_));
        let mut next = Vec::new();
        for st in states {
            let (yes, no) = self.split_branch(st, taken, pc);
            if let Some(mut n) = no {
                n.pc = fall_through;
                next.push(n);
            }
            let Some(yes) = yes else { continue };
            for (t, mut one) in self.concretize(yes, target) {
                // (A CS241 machine checks the target when it fetches there.)
                if mips32 && t & 3 != 0 && t != ret {
                    self.end(&one, End::Fault(FaultKind::AddressError));
                    continue;
                }
                one.pc = t;
                next.push(one);
            }
        }
        next
    }

    /// CS241's `lis $d` at `pc`: `$d` gets the word after it, which is skipped.
    fn literal(&mut self, mut st: State, pc: u32, d: Reg) -> Option<State> {
        let at = pc.wrapping_add(4);
        if at >= MEM_SIZE {
            self.end(&st, End::Fault(CS241_FAULT));
            return None;
        }
        match self.read(&st, at, 4) {
            Ok(v) => {
                Self::set(&mut st, d, v);
                st.pc = pc.wrapping_add(8);
                Some(st)
            }
            Err(kind) => {
                self.end(&st, End::Fault(kind));
                None
            }
        }
    }

    /// Carries out the effect of a non-control instruction in `st`: the states that
    /// go on. Every decision the inputs make (an overflow, a trap, a zero divisor, an
    /// address) forks, as the emulator would decide it.
    fn execute(&mut self, mut st: State, effect: Effect<Term, Term>) -> Vec<State> {
        match effect {
            Effect::Nothing | Effect::Branch { .. } | Effect::Jump { .. } => {}
            Effect::Set(r, v) => Self::set(&mut st, r, v),
            Effect::SetHiLo { hi, lo } => {
                st.hi = hi;
                st.lo = lo;
            }
            Effect::Divide { divisor, hi, lo } => {
                let zero = self.s.word(0);
                let by_zero = self.s.eq(divisor, zero);
                let (bad, ok) = self.split(st, by_zero);
                if let Some(bad) = bad {
                    self.end(&bad, End::Fault(FaultKind::DivisionByZero));
                }
                let Some(mut ok) = ok else { return Vec::new() };
                ok.hi = hi;
                ok.lo = lo;
                return vec![ok];
            }
            Effect::Trap { cond, ending, then } => {
                let (bad, ok) = self.split(st, cond);
                if let Some(bad) = bad {
                    self.end(&bad, End::Fault(FaultKind::of(ending).0));
                }
                let Some(mut ok) = ok else { return Vec::new() };
                if let Some((r, v)) = then {
                    Self::set(&mut ok, r, v);
                }
                return vec![ok];
            }
            // Not an effect of this target.
            Effect::Literal(_) => {
                self.end(&st, End::Fault(FaultKind::Reserved));
                return Vec::new();
            }
            Effect::Load { dest, addr, .. } if matches!(self.func.code, Code::Cs241(_)) => {
                return self.each_address(st, addr, move |e, mut st, a| {
                    let v = if a == INPUT_ADDR {
                        // Standard input is empty: every read gives -1.
                        e.s.word(u32::MAX)
                    } else {
                        cs241_access(a)?;
                        e.read(&st, a, 4).map_err(End::Fault)?
                    };
                    Self::set(&mut st, dest, v);
                    Ok(st)
                });
            }
            Effect::Store { addr, value, .. } if matches!(self.func.code, Code::Cs241(_)) => {
                let observed = matches!(self.func.code, Code::Cs241(c) if c.observe_output);
                return self.each_address(st, addr, move |e, mut st, a| {
                    if a == OUTPUT_ADDR {
                        return if observed {
                            Err(End::Uncovered(Gap::Output))
                        } else {
                            Ok(st)
                        };
                    }
                    cs241_access(a)?;
                    e.write(&mut st, a, 4, value).map_err(End::Fault)?;
                    Ok(st)
                });
            }
            Effect::Load {
                dest,
                addr,
                width,
                signed,
            } => {
                let n = width.bytes();
                return self.each_address(st, addr, move |e, mut st, a| {
                    if a & (n - 1) != 0 {
                        return Err(End::Fault(FaultKind::AddressError));
                    }
                    let v = e.read(&st, a, n).map_err(End::Fault)?;
                    let v = match (width, signed) {
                        (Width::Word, _) => v,
                        (_, true) => e.s.sign_ext(32 - width.bits(), v),
                        (_, false) => e.s.zero_ext(32 - width.bits(), v),
                    };
                    Self::set(&mut st, dest, v);
                    Ok(st)
                });
            }
            Effect::Store { addr, value, width } => {
                let n = width.bytes();
                return self.each_address(st, addr, move |e, mut st, a| {
                    if a & (n - 1) != 0 {
                        return Err(End::Fault(FaultKind::AddressError));
                    }
                    let v = if n == 4 {
                        value
                    } else {
                        e.s.extract(width.bits() - 1, 0, value)
                    };
                    e.write(&mut st, a, n, v).map_err(End::Fault)?;
                    Ok(st)
                });
            }
            Effect::Part { op, reg, addr } => {
                return self.each_address(st, addr, move |e, mut st, a| {
                    let aligned = a & !3;
                    let word = e.read(&st, aligned, 4).map_err(End::Fault)?;
                    let old = Self::get(&st, reg);
                    let (v, stored) = sem::part(&mut *e.s, op, a & 3, old, word);
                    if op.stores() {
                        e.write(&mut st, aligned, 4, stored).map_err(End::Fault)?;
                    } else {
                        Self::set(&mut st, reg, v);
                    }
                    Ok(st)
                });
            }
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
        access: impl Fn(&mut Self, State, u32) -> Result<State, End>,
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
                Err(end) => self.end(&failed, end),
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
        let mut i = 0;
        while let Some(&a) = changed.get(i) {
            // A value every fork stored whole here (a spilled register): one choice of
            // the wholes keeps it whole.
            if let Some((wholes, count)) = whole_run(&states, a) {
                let whole = pick(self.s, &wholes);
                for k in 0..count {
                    out.bytes
                        .insert(a.wrapping_add(k as u32), Byte { whole, count, k });
                }
                while changed
                    .get(i)
                    .is_some_and(|&b| b.wrapping_sub(a) < count as u32)
                {
                    i += 1;
                }
                continue;
            }
            let mut values = Vec::with_capacity(states.len());
            for st in &states {
                match self.read(st, a, 1) {
                    Ok(v) => values.push(v),
                    // A byte one fork cannot read: keep the forks apart.
                    Err(_) => return states,
                }
            }
            let whole = pick(self.s, &values);
            out.bytes.insert(
                a,
                Byte {
                    whole,
                    count: 1,
                    k: 0,
                },
            );
            i += 1;
        }
        out.path.truncate(prefix);
        let any = self.s.or_all(conds.iter().copied());
        out.path.push(any);
        out.witness = states.iter().find_map(|st| st.witness.clone());
        // The fewest steps of those joined: a joined state is cut by the fuel only when
        // every run in it has spent the fuel (so the cut is a true out-of-fuel ending);
        // a run that needs more steps than the fuel may be followed past it, which can
        // only show a difference that the emulator's replay then does not confirm.
        out.steps = states.iter().map(|st| st.steps).min().unwrap_or(out.steps);
        vec![out]
    }
}

/// How many times a branch forks with both sides asked about before it is asked only
/// at every 32nd fork.
const PRECISE_FORKS: u32 = 64;

/// How many conjuncts all the states' paths share, from the first.
/// The checks a CS241 machine makes of a data access at `a` (not an I/O address).
fn cs241_access(a: u32) -> Result<(), End> {
    if a & 3 != 0 || a >= MEM_SIZE {
        Err(End::Fault(CS241_FAULT))
    } else {
        Ok(())
    }
}

fn common_prefix(states: &[State]) -> usize {
    let Some((first, rest)) = states.split_first() else {
        return 0;
    };
    let mut n = first.path.len();
    for st in rest {
        n = n.min(
            st.path
                .iter()
                .zip(&first.path)
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    n
}

/// The wholes of a value of more than one byte that every state stored at `a` (its
/// first byte there, the same count everywhere, each byte of it in place), and the
/// count.
fn whole_run(states: &[State], a: u32) -> Option<(Vec<Term>, u8)> {
    let first = *states.first()?.bytes.get(&a)?;
    let count = first.count;
    if count < 2 {
        return None;
    }
    let mut wholes = Vec::with_capacity(states.len());
    for st in states {
        let b = *st.bytes.get(&a)?;
        if b.k != 0 || b.count != count {
            return None;
        }
        for k in 1..count {
            let want = Byte {
                whole: b.whole,
                count,
                k,
            };
            if st.bytes.get(&a.wrapping_add(k as u32)) != Some(&want) {
                return None;
            }
        }
        wholes.push(b.whole);
    }
    Some((wholes, count))
}
