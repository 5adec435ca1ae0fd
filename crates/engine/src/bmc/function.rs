//! The merged encoding of one MIPS32 function: every way it can end within the fuel,
//! as guarded terms over its arguments, built on the same states, merging and
//! scheduling as CS241's ([`super::state`], [`super::frontier`]) and the same
//! semantics as the emulator ([`tamarin_mips::target::mips32`] through [`Mips32`]).
//!
//! What is MIPS32's own here is only how effects are carried out: a branch runs its
//! delay slot first as one step; memory is big-endian bytes kept as aligned words
//! (a byte or halfword access reads or splices its word), mapped by the image's
//! sections and the stack, with every fault the emulator raises (misaligned, unmapped,
//! read-only, traps, division by zero, reserved and undefined code) kept apart by
//! kind; an input-dependent address is a `select`/`store` on the memory array, its
//! faults conditions on the address. A run ends when it returns to the return address.

use tamarin_mips::cpu::Stop;
use tamarin_mips::mips32::abi::{INITIAL_SP, RA, RETURN_ADDRESS, SP, STACK_SIZE, STACK_TOP};
use tamarin_mips::mips32::cpu::FaultKind;
use tamarin_mips::mips32::isa::Instr;
use tamarin_mips::mips32::memory::Memory;
use tamarin_mips::mips32::Image;
use tamarin_mips::target::{mips32 as sem, Abi, Mips32, PartOp, Target};
use tamarin_mips::Reg;

use super::frontier::{list_values, Frontier, Initial};
use super::state::{self, Mem, State};
use super::unroll::{leaf_targets, MAX_JUMP_TARGETS};
use crate::semantics::{Effect, Regs, Width};
use crate::solver::Answer;
use crate::term::{BinOp, Term, TermStore};
use crate::verdict::{Uncovered, UnrollStats};

/// One function to unroll and how far.
pub struct FunctionSetup<'a> {
    pub image: &'a Image,
    pub entry: u32,
    /// The arguments' terms, given to `$a0`.. in order.
    pub args: &'a [Term],
    /// The registers observed at the return.
    pub observe: &'a [Reg],
    pub fuel: u64,
    /// Stop when the encoding holds this many terms, or when `stop` is reached.
    pub max_terms: usize,
    pub stop: Stop,
}

/// Every way one function ends within the fuel.
#[derive(Clone, Debug)]
pub struct FunctionSummary {
    /// The inputs on which it returns, and the observed registers' terms there.
    pub returned: Term,
    pub observed: Vec<Term>,
    /// The inputs on which it faults, by kind.
    pub faults: Vec<(FaultKind, Term)>,
    /// Inputs the encoding does not follow exactly, and why.
    pub uncovered: Vec<(Uncovered, Term)>,
    /// The inputs on which it runs out of fuel: none of the above.
    pub out_of_fuel: Term,
    pub stats: UnrollStats,
}

/// Unrolls `setup`'s function; `ask` decides side queries (the targets of
/// input-dependent jumps, the feasibility of a loop's sides).
pub fn unroll_function(
    s: &mut TermStore,
    setup: &FunctionSetup<'_>,
    ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
) -> FunctionSummary {
    let mut u = Unroller::new(s, setup);
    u.run(ask);
    let mut sum = u.summary;
    let ends = std::iter::once(sum.returned)
        .chain(sum.faults.iter().map(|&(_, g)| g))
        .chain(sum.uncovered.iter().map(|&(_, g)| g))
        .collect::<Vec<_>>();
    let some_end = s.or_all(ends);
    sum.out_of_fuel = s.not(some_end);
    sum
}

/// A mapped range of memory: `[base, base + len)`, writable or not.
#[derive(Clone, Copy, Debug)]
struct Region {
    base: u32,
    len: u32,
    writable: bool,
}

struct Unroller<'s, 'a> {
    s: &'s mut TermStore,
    setup: &'a FunctionSetup<'a>,
    /// The image's memory, never written: tells mapped from writable at a concrete
    /// address as the emulator does.
    memory: Memory,
    regions: Vec<Region>,
    /// The initial memory as an array, built when an input-dependent access first
    /// needs it.
    initial_array: Option<Term>,
    /// What merges are given as the initial array until then: a state's memory has a
    /// base array only once `initial_array` was built, so no merge reads this one.
    stand_in: Term,
    fuel_term: Term,
    frontier: Frontier,
    forks: rustc_hash::FxHashMap<u32, u32>,
    /// Terms in the store before the encoding, and those side queries added.
    base_terms: usize,
    asked_terms: usize,
    summary: FunctionSummary,
}

impl<'s, 'a> Unroller<'s, 'a> {
    fn new(s: &'s mut TermStore, setup: &'a FunctionSetup<'a>) -> Self {
        let image = setup.image;
        let mut branches = Vec::new();
        for sec in image.sections.iter().filter(|sec| sec.executable) {
            for (k, w) in sec.bytes.chunks_exact(4).enumerate() {
                let pc = sec.addr.wrapping_add(4 * k as u32);
                let word = u32::from_be_bytes([w[0], w[1], w[2], w[3]]);
                if let Some(t) = Mips32::decode(word).and_then(|i| Mips32::static_target(pc, i)) {
                    branches.push((pc, t));
                }
            }
        }
        let mut regions: Vec<Region> = image
            .sections
            .iter()
            .filter(|sec| !sec.bytes.is_empty())
            .map(|sec| Region {
                base: sec.addr,
                len: sec.bytes.len().min(u32::MAX as usize) as u32,
                writable: sec.writable,
            })
            .collect();
        regions.push(Region {
            base: STACK_TOP - STACK_SIZE,
            len: STACK_SIZE,
            writable: true,
        });
        let zero = s.word(0);
        let t = s.bool(true);
        let f = s.bool(false);
        let mut regs = [zero; 32];
        for (r, &a) in <Mips32 as Abi>::INPUTS.iter().zip(setup.args) {
            regs[r.index() & 31] = a;
        }
        regs[SP.index()] = s.word(INITIAL_SP);
        regs[RA.index()] = s.word(RETURN_ADDRESS);
        let first = State {
            pc: setup.entry,
            path: t,
            fuel_ok: None,
            steps: s.constant(64, 0),
            min_steps: 0,
            max_steps: 0,
            regs,
            hi: zero,
            lo: zero,
            mem: Mem {
                base: None,
                overlay: Default::default(),
            },
            reads: 0,
            output: Vec::new(),
            known: Vec::new(),
            wave: 0,
        };
        let mut frontier = Frontier::new(branches, SP.index());
        frontier.put_back(s, first);
        let fuel_term = s.constant(64, setup.fuel);
        let stand_in = s.const_array(zero);
        let base_terms = s.len();
        Unroller {
            s,
            setup,
            memory: Memory::new(image),
            regions,
            initial_array: None,
            stand_in,
            fuel_term,
            frontier,
            forks: Default::default(),
            base_terms,
            asked_terms: 0,
            summary: FunctionSummary {
                returned: f,
                observed: Vec::new(),
                faults: Vec::new(),
                uncovered: Vec::new(),
                out_of_fuel: f,
                stats: UnrollStats::default(),
            },
        }
    }

    fn run(&mut self, ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer) {
        let mut pops = 0u64;
        while let Some(st) = self.frontier.take_next() {
            pops += 1;
            let grown = self.s.len() - self.base_terms - self.asked_terms;
            let over_terms = grown > self.setup.max_terms;
            let over_time = pops.is_multiple_of(256) && self.setup.stop.reached();
            if over_terms || over_time {
                self.frontier.put_back(self.s, st);
                for st in self.frontier.drain() {
                    let g = st.guard(self.s);
                    self.uncover(Uncovered::Budget, g);
                }
                return;
            }
            self.step(st, ask);
        }
    }

    /// The word at aligned `addr` of the initial memory (0 where unmapped: never read,
    /// since every access checks the address first).
    fn initial_word(image: &Image, addr: u32) -> u32 {
        image.word(addr).unwrap_or(0)
    }

    /// The initial memory as an array term: the image's words, zero elsewhere.
    fn initial_array(&mut self) -> Term {
        if let Some(m) = self.initial_array {
            return m;
        }
        let zero = self.s.word(0);
        let mut m = self.s.const_array(zero);
        for sec in &self.setup.image.sections {
            for (k, w) in sec.bytes.chunks(4).enumerate() {
                let mut b = [0u8; 4];
                b[..w.len()].copy_from_slice(w);
                let v = u32::from_be_bytes(b);
                if v != 0 {
                    let a = self.s.word(sec.addr.wrapping_add(4 * k as u32));
                    let v = self.s.word(v);
                    m = self.s.store(m, a, v);
                }
            }
        }
        self.initial_array = Some(m);
        m
    }

    fn push(&mut self, st: State) {
        let array = self.initial_array.unwrap_or(self.stand_in);
        let image = self.setup.image;
        let initial = Initial {
            word: &|a: u32| Self::initial_word(image, a),
            array,
        };
        self.frontier
            .push(self.s, st, &initial, &mut self.summary.stats);
    }

    fn uncover(&mut self, why: Uncovered, cond: Term) {
        if self.s.as_const(cond) == Some(0) {
            return;
        }
        match self.summary.uncovered.iter_mut().find(|(w, _)| *w == why) {
            Some((_, c)) => *c = self.s.or(*c, cond),
            None => self.summary.uncovered.push((why, cond)),
        }
    }

    /// Ends the inputs of `cond` with fault `kind`.
    fn end_fault(&mut self, kind: FaultKind, cond: Term) {
        if self.s.as_const(cond) == Some(0) {
            return;
        }
        self.summary.stats.ends += 1;
        match self.summary.faults.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, c)) => *c = self.s.or(*c, cond),
            None => self.summary.faults.push((kind, cond)),
        }
    }

    /// Ends all of `st` with fault `kind`.
    fn fault(&mut self, st: &State, kind: FaultKind) {
        let g = st.guard(self.s);
        self.end_fault(kind, g);
    }

    /// Splits off the inputs of `st` satisfying `cond` as fault `kind`; `st` keeps the
    /// rest.
    fn fail_if(&mut self, st: &mut State, cond: Term, kind: FaultKind) {
        if let Some(bad) = st.split(self.s, cond) {
            self.fault(&bad, kind);
        }
    }

    fn end_returned(&mut self, st: State) {
        let g = st.guard(self.s);
        self.summary.stats.ends += 1;
        let observed: Vec<Term> = self
            .setup
            .observe
            .iter()
            .map(|r| st.regs[r.index() & 31])
            .collect();
        if self.summary.observed.is_empty() {
            self.summary.observed = observed;
        } else {
            for (old, new) in self.summary.observed.iter_mut().zip(observed) {
                *old = self.s.ite(g, new, *old);
            }
        }
        self.summary.returned = self.s.or(self.summary.returned, g);
    }

    /// Confines `st` to the runs that still have fuel for a step; false when none has.
    fn has_fuel(&mut self, st: &mut State) -> bool {
        let fuel = self.setup.fuel;
        if st.min_steps >= fuel {
            self.summary.stats.out_of_fuel += 1;
            return false;
        }
        if st.max_steps >= fuel {
            let ok = self.s.bin(BinOp::Ult, st.steps, self.fuel_term);
            st.fuel_ok = Some(ok);
            st.max_steps = fuel - 1;
            if st.is_dead(self.s) {
                return false;
            }
        }
        true
    }

    fn count_step(&mut self, st: &mut State) {
        let one = self.s.constant(64, 1);
        st.steps = self.s.bin(BinOp::Add, st.steps, one);
        st.min_steps += 1;
        st.max_steps += 1;
        self.summary.stats.steps += 1;
    }

    /// The instruction at `pc`, or the fault of fetching it (as the emulator fetches).
    fn fetch(&self, pc: u32) -> Result<Instr, FaultKind> {
        crate::semantics::machine::mips32_fetch(self.setup.image, pc)
    }

    fn effect(&mut self, st: &State, pc: u32, instr: Instr) -> Effect<Term, Term> {
        let regs = Regs {
            gpr: &st.regs,
            hi: st.hi,
            lo: st.lo,
        };
        Mips32::effect(&mut *self.s, regs, pc, instr)
    }

    fn set(st: &mut State, r: Reg, v: Term) {
        if r.index() != 0 {
            st.regs[r.index() & 31] = v;
        }
    }

    /// One step of `st`: an instruction, or a branch with its delay slot.
    fn step(&mut self, mut st: State, ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer) {
        // As the emulator: the fuel first, then the return.
        if !self.has_fuel(&mut st) {
            return;
        }
        let pc = st.pc;
        if pc == RETURN_ADDRESS {
            return self.end_returned(st);
        }
        self.count_step(&mut st);
        let instr = match self.fetch(pc) {
            Ok(i) => i,
            Err(kind) => return self.fault(&st, kind),
        };
        let (taken, target, link) = match self.effect(&st, pc, instr) {
            Effect::Branch {
                cond, target, link, ..
            } => (cond, self.s.word(target), link),
            Effect::Jump { target, link, .. } => (self.s.bool(true), target, link),
            other => {
                st.pc = pc.wrapping_add(4);
                if self.execute(&mut st, other) {
                    self.push(st);
                }
                return;
            }
        };
        if let Some((r, v)) = link {
            let v = self.s.word(v);
            Self::set(&mut st, r, v);
        }
        let slot_pc = pc.wrapping_add(4);
        let slot = match self.fetch(slot_pc) {
            Ok(i) => i,
            Err(kind) => return self.fault(&st, kind),
        };
        if slot.has_delay_slot() {
            return self.fault(&st, FaultKind::BranchInDelaySlot);
        }
        self.count_step(&mut st);
        let slot_effect = self.effect(&st, slot_pc, slot);
        if !self.execute(&mut st, slot_effect) {
            return;
        }
        let forks = st.decide(self.s, taken).is_none();
        let Some(mut jumping) = st.split(self.s, taken) else {
            st.pc = pc.wrapping_add(8);
            return self.push(st);
        };
        st.pc = pc.wrapping_add(8);
        // A branch that forks again (a loop's test) may have run out of feasible
        // inputs on one side: without this, a loop bounded by a guard on its
        // arguments would be unrolled up to the fuel.
        if forks && Frontier::check_fork(&mut self.forks, pc) {
            if !self.feasible(&jumping, ask) {
                jumping.path = self.s.bool(false);
            }
            if !self.feasible(&st, ask) {
                st.path = self.s.bool(false);
            }
        }
        self.push(st);
        self.jump(jumping, target, ask);
    }

    /// Carries out a non-control effect in `st`; false when no input of it goes on.
    fn execute(&mut self, st: &mut State, effect: Effect<Term, Term>) -> bool {
        match effect {
            Effect::Nothing | Effect::Branch { .. } | Effect::Jump { .. } => {}
            Effect::Set(r, v) => Self::set(st, r, v),
            Effect::SetHiLo { hi, lo } => {
                st.hi = hi;
                st.lo = lo;
            }
            Effect::Divide { divisor, hi, lo } => {
                let zero = self.s.word(0);
                let by_zero = self.s.eq(divisor, zero);
                self.fail_if(st, by_zero, FaultKind::DivisionByZero);
                st.hi = hi;
                st.lo = lo;
            }
            Effect::Trap { cond, ending, then } => {
                self.fail_if(st, cond, FaultKind::of(ending).0);
                if let Some((r, v)) = then {
                    Self::set(st, r, v);
                }
            }
            // Not an effect of this target.
            Effect::Literal(_) => {
                self.fault(st, FaultKind::Reserved);
                return false;
            }
            Effect::Load {
                dest,
                addr,
                width,
                signed,
            } => {
                self.check_access(st, addr, width.bytes(), false);
                if st.is_dead(self.s) {
                    return false;
                }
                let v = self.load(st, addr, width);
                let v = match (width, signed) {
                    (Width::Word, _) => v,
                    (_, true) => self.s.sign_ext(32 - width.bits(), v),
                    (_, false) => self.s.zero_ext(32 - width.bits(), v),
                };
                Self::set(st, dest, v);
            }
            Effect::Store { addr, value, width } => {
                self.check_access(st, addr, width.bytes(), true);
                if st.is_dead(self.s) {
                    return false;
                }
                self.store(st, addr, value, width);
            }
            Effect::Part { op, reg, addr } => {
                let three = self.s.word(!3);
                let aligned = self.s.bin(BinOp::BvAnd, addr, three);
                self.check_access(st, aligned, 4, op.stores());
                if st.is_dead(self.s) {
                    return false;
                }
                self.part(st, op, reg, addr, aligned);
            }
        }
        !st.is_dead(self.s)
    }

    /// Splits off the inputs of `st` on which an access of `n` bytes at `a` faults,
    /// in the emulator's order: misaligned, then unmapped, then (a store) read-only.
    fn check_access(&mut self, st: &mut State, a: Term, n: u32, stores: bool) {
        if let Some(k) = self.s.as_const(a) {
            let k = k as u32;
            let fault = if k & (n - 1) != 0 {
                Some(FaultKind::AddressError)
            } else if !self.memory.holds(k, n) {
                Some(FaultKind::Unmapped)
            } else if stores && !self.memory.is_writable(k) {
                Some(FaultKind::ReadOnly)
            } else {
                None
            };
            if let Some(kind) = fault {
                self.fault(st, kind);
                st.path = self.s.bool(false);
            }
            return;
        }
        let mask = self.s.word(n - 1);
        let low = self.s.bin(BinOp::BvAnd, a, mask);
        let zero = self.s.word(0);
        let misaligned = self.s.ne(low, zero);
        self.fail_if(st, misaligned, FaultKind::AddressError);
        let mut in_any = Vec::new();
        let mut in_writable = Vec::new();
        for k in 0..self.regions.len() {
            let r = self.regions[k];
            if r.len < n {
                continue;
            }
            let base = self.s.word(r.base);
            let off = self.s.bin(BinOp::Sub, a, base);
            let last = self.s.word(r.len - n);
            let past = self.s.bin(BinOp::Ult, last, off);
            let inside = self.s.not(past);
            in_any.push(inside);
            if r.writable {
                in_writable.push(inside);
            }
        }
        let mapped = self.s.or_all(in_any);
        let unmapped = self.s.not(mapped);
        self.fail_if(st, unmapped, FaultKind::Unmapped);
        if stores {
            let writable = self.s.or_all(in_writable);
            let read_only = self.s.not(writable);
            self.fail_if(st, read_only, FaultKind::ReadOnly);
        }
    }

    fn read_word(&mut self, st: &State, aligned: u32) -> Term {
        let image = self.setup.image;
        state::read(self.s, &st.mem, aligned, &|a| Self::initial_word(image, a))
    }

    /// The whole memory of `st` as one array term.
    fn array(&mut self, st: &mut State) -> Term {
        let initial = self.initial_array();
        state::materialize(self.s, &mut st.mem, initial)
    }

    /// The `width` at the (checked) address `a`, in the low bits of a term of its width.
    fn load(&mut self, st: &mut State, a: Term, width: Width) -> Term {
        let n = width.bytes();
        let bits = width.bits();
        if let Some(k) = self.s.as_const(a) {
            let k = k as u32;
            let w = self.read_word(st, k & !3);
            if n == 4 {
                return w;
            }
            let hi = 31 - 8 * (k & 3) as u8;
            return self.s.extract(hi, hi + 1 - bits, w);
        }
        let three = self.s.word(!3);
        let aligned = self.s.bin(BinOp::BvAnd, a, three);
        let m = self.array(st);
        let w = self.s.select(m, aligned);
        if n == 4 {
            return w;
        }
        let shift = self.shift_of(a, n);
        let moved = self.s.bin(BinOp::LShr, w, shift);
        self.s.extract(bits - 1, 0, moved)
    }

    /// How far right the `n` bytes at `a` sit in their big-endian word, in bits.
    fn shift_of(&mut self, a: Term, n: u32) -> Term {
        let three = self.s.word(3);
        let off = self.s.bin(BinOp::BvAnd, a, three);
        let eight_off = self.s.bin(BinOp::Shl, off, three);
        let top = self.s.word(8 * (4 - n));
        self.s.bin(BinOp::Sub, top, eight_off)
    }

    /// Stores the low `width` of `v` at the (checked) address `a`.
    fn store(&mut self, st: &mut State, a: Term, v: Term, width: Width) {
        let n = width.bytes();
        if let Some(k) = self.s.as_const(a) {
            let k = k as u32;
            let aligned = k & !3;
            let new = if n == 4 {
                v
            } else {
                let w = self.read_word(st, aligned);
                let off = (k & 3) as u8;
                let bits = width.bits();
                let mut parts = Vec::new();
                if off > 0 {
                    parts.push(self.s.extract(31, 32 - 8 * off, w));
                }
                parts.push(self.s.extract(bits - 1, 0, v));
                let end = 8 * off + bits;
                if end < 32 {
                    parts.push(self.s.extract(31 - end, 0, w));
                }
                let mut t = parts[0];
                for &p in &parts[1..] {
                    t = self.s.bin(BinOp::Concat, t, p);
                }
                t
            };
            st.mem.overlay.insert(aligned, new);
            return;
        }
        let three = self.s.word(!3);
        let aligned = self.s.bin(BinOp::BvAnd, a, three);
        let m = self.array(st);
        let new = if n == 4 {
            v
        } else {
            let w = self.s.select(m, aligned);
            let shift = self.shift_of(a, n);
            let ones = self.s.word(if n == 1 { 0xff } else { 0xffff });
            let mask = self.s.bin(BinOp::Shl, ones, shift);
            let all = self.s.word(u32::MAX);
            let keep = self.s.bin(BinOp::BvXor, mask, all);
            let kept = self.s.bin(BinOp::BvAnd, w, keep);
            let low = self.s.bin(BinOp::BvAnd, v, ones);
            let moved = self.s.bin(BinOp::Shl, low, shift);
            self.s.bin(BinOp::BvOr, kept, moved)
        };
        let m = self.s.store(m, aligned, new);
        st.mem.base = Some(m);
    }

    /// `lwl`, `lwr`, `swl`, `swr` at `a` (its aligned word at `aligned`, checked): the
    /// shared semantics for each byte offset, chosen by the offset where it depends
    /// on the inputs.
    fn part(&mut self, st: &mut State, op: PartOp, reg: Reg, a: Term, aligned: Term) {
        let word = self.load(st, aligned, Width::Word);
        let old = st.regs[reg.index() & 31];
        let choose = |u: &mut Self, k: u32| sem::part(&mut *u.s, op, k, old, word);
        let (value, stored) = match self.s.as_const(a) {
            Some(k) => choose(self, k as u32),
            None => {
                let three = self.s.word(3);
                let off = self.s.bin(BinOp::BvAnd, a, three);
                let (mut v, mut w) = choose(self, 3);
                for k in (0..3).rev() {
                    let (vk, wk) = choose(self, k);
                    let kt = self.s.word(k);
                    let is = self.s.eq(off, kt);
                    v = self.s.ite(is, vk, v);
                    w = self.s.ite(is, wk, w);
                }
                (v, w)
            }
        };
        if op.stores() {
            self.store(st, aligned, stored, Width::Word);
        } else {
            Self::set(st, reg, value);
        }
    }

    /// Whether some input may be in `st` (an unknown answer counts as yes).
    fn feasible(
        &mut self,
        st: &State,
        ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
    ) -> bool {
        if st.is_dead(self.s) {
            return false;
        }
        let g = st.guard(self.s);
        self.summary.stats.pruning_queries += 1;
        !matches!(self.ask(ask, &[g]), Answer::Unsat)
    }

    fn ask(
        &mut self,
        ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
        query: &[Term],
    ) -> Answer {
        let before = self.s.len();
        let answer = ask(self.s, query);
        self.asked_terms += self.s.len() - before;
        answer
    }

    /// Continues `st` at every target `target` takes.
    fn jump(
        &mut self,
        st: State,
        target: Term,
        ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
    ) {
        if let Some(k) = self.s.as_const(target) {
            let t = self.s.bool(true);
            return self.go_to(&st, vec![(t, k as u32)]);
        }
        let known = st.values(target).map(|vs| {
            vs.iter()
                .map(|&k| {
                    let kt = self.s.word(k as u32);
                    (self.s.eq(target, kt), k as u32)
                })
                .collect::<Vec<_>>()
        });
        if let Some(cases) = known.or_else(|| leaf_targets(self.s, target)) {
            return self.go_to(&st, cases);
        }
        let cases = self.enumerate_targets(&st, target, ask);
        self.go_to(&st, cases);
    }

    /// Continues `st` at target `k` for the inputs satisfying `cond`, for each case; a
    /// misaligned target faults there, as the emulator's jump does.
    fn go_to(&mut self, st: &State, cases: Vec<(Term, u32)>) {
        for (cond, k) in cases {
            let mut next = st.clone();
            next.assume(self.s, cond);
            if next.is_dead(self.s) {
                continue;
            }
            if k & 3 != 0 && k != RETURN_ADDRESS {
                self.fault(&next, FaultKind::AddressError);
                continue;
            }
            next.pc = k;
            self.push(next);
        }
    }

    /// Lists the values `target` takes in `st` with the solver, one query per value;
    /// the inputs left when there are too many (or the solver cannot tell) are
    /// uncovered.
    fn enumerate_targets(
        &mut self,
        st: &State,
        target: Term,
        ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
    ) -> Vec<(Term, u32)> {
        let g = st.guard(self.s);
        let asked = &mut self.asked_terms;
        let mut counted = |s: &mut TermStore, q: &[Term]| {
            let before = s.len();
            let answer = ask(s, q);
            *asked += s.len() - before;
            answer
        };
        let (cases, rest) = list_values(self.s, g, target, MAX_JUMP_TARGETS, &mut counted);
        if let Some(rest) = rest {
            self.uncover(Uncovered::JumpTargets, rest);
        }
        cases
    }
}

#[cfg(test)]
mod tests {
    //! The encoding against the emulator: every function of the gcc objects in
    //! `examples/mips32`, on edge and pseudo-random arguments, must end in the summary
    //! exactly as it ends when run (returned with the same values, the same fault, or
    //! out of fuel), unless the summary says those arguments are uncovered.

    use super::*;
    use crate::solver::{build_chain, Solver, SolverConfig};
    use crate::term::Evaluator;
    use tamarin_mips::mips32::{Machine, Status};

    fn load(name: &str) -> Image {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/mips32")
            .join(name);
        let bytes = std::fs::read(&path).expect("example object");
        tamarin_mips::mips32::elf::read(name, &bytes).expect("an ELF object")
    }

    fn arguments(n: usize) -> Vec<[u32; 4]> {
        let edges = [
            0u32,
            1,
            2,
            3,
            7,
            10,
            100,
            u32::MAX,
            0x8000_0000,
            0x7fff_ffff,
        ];
        let mut out: Vec<[u32; 4]> = edges.iter().map(|&e| [e, 1, 2, 3]).collect();
        out.extend(edges.iter().map(|&e| [5, e, e, 1]));
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        while out.len() < n {
            let mut a = [0u32; 4];
            for v in &mut a {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *v = if x & 1 == 0 {
                    (x >> 8) as u32 % 40
                } else {
                    (x >> 16) as u32
                };
            }
            out.push(a);
        }
        out
    }

    /// Checks one function; returns how many runs the summary covered.
    fn check(image: &Image, name: &str, entry: u32, fuel: u64) -> usize {
        let mut s = TermStore::new();
        let args: Vec<Term> = (0..4).map(|k| s.new_var(&format!("a{k}"), 32)).collect();
        let observe = [tamarin_mips::mips32::abi::V0, tamarin_mips::mips32::abi::V1];
        let setup = FunctionSetup {
            image,
            entry,
            args: &args,
            observe: &observe,
            fuel,
            max_terms: 2_000_000,
            stop: Stop::at(None),
        };
        let mut solver = build_chain(&SolverConfig::default(), Stop::at(None), Vec::new());
        let mut ask = |s: &mut TermStore, q: &[Term]| solver.check(s, q);
        let sum = unroll_function(&mut s, &setup, &mut ask);
        let mut covered = 0;
        for a in arguments(60) {
            let vals: Vec<u64> = a.iter().map(|&v| v as u64).collect();
            let mut ev = Evaluator::new(&s, &vals);
            if sum.uncovered.iter().any(|&(_, g)| ev.holds(g)) {
                continue;
            }
            let mut m = Machine::new(image, fuel);
            m.call(entry, &a);
            let status = m.run();
            let what = format!("{name}{a:?}: emulator {status:?}");
            match status {
                Status::Returned => {
                    assert!(ev.holds(sum.returned), "{what}, summary does not return");
                    for (k, r) in observe.iter().enumerate() {
                        assert_eq!(ev.eval(sum.observed[k]) as u32, m.regs().get(*r), "{what}");
                    }
                }
                Status::Error(f) => {
                    let kinds: Vec<FaultKind> = sum
                        .faults
                        .iter()
                        .filter(|&&(_, g)| ev.holds(g))
                        .map(|&(k, _)| k)
                        .collect();
                    assert_eq!(kinds, vec![f.kind], "{what}");
                }
                Status::OutOfFuel => assert!(ev.holds(sum.out_of_fuel), "{what}"),
                Status::Stopped => unreachable!("no stop was set"),
            }
            covered += 1;
        }
        covered
    }

    #[test]
    fn every_example_function_ends_as_the_emulator_ends() {
        every_example_function_agrees(150, 60);
    }

    /// The same at the fuel that lets every example loop run to its end on most of
    /// the arguments.
    #[test]
    #[ignore = "half a minute in a debug build: the long tier of .ci/run runs it (--ignored)"]
    fn every_example_function_ends_as_the_emulator_ends_at_a_longer_fuel() {
        every_example_function_agrees(600, 150);
    }

    /// Every function of every example object, unrolled with `fuel` steps (`nested_fuel`
    /// for the nested loops), against the emulator.
    fn every_example_function_agrees(fuel: u64, nested_fuel: u64) {
        for object in [
            "popcount-O0.o",
            "popcount-O2.o",
            "divmod-O0.o",
            "divmod-O2.o",
            "loops-O0.o",
            "loops-O2.o",
            "grade-O0.o",
            "grade-O2.o",
            "needle-O0.o",
            "needle-O2.o",
            "extern-O0.o",
            "extern-O2.o",
            "bytes-O0.o",
            "bytes-O2.o",
        ] {
            let image = load(object);
            for (name, sym) in image.functions() {
                // Loops inside loops that -O2 runs through one head merge into
                // terms that grow fast with the fuel: fewer steps tell as much.
                let fuel = if name.starts_with("nested") {
                    nested_fuel
                } else {
                    fuel
                };
                let covered = check(&image, name, sym.addr, fuel);
                assert!(covered > 0, "{object} {name}: no run covered");
            }
        }
    }
}
