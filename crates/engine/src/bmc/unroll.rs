//! Unrolls one program into a [`Summary`]: every way it can end within the fuel, as
//! guarded terms over the inputs.
//!
//! States wait in a [`Frontier`] keyed by (pc, input consumed, output written) and run
//! one instruction at a time, merged where they meet (see [`super::frontier`]). Forks
//! happen wherever the machine would decide something from the inputs (a branch, a
//! jump target, a faulting address, a zero divisor), and nothing is concretized without
//! its condition. Whatever the encoding cannot follow exactly is recorded as *uncovered*,
//! with the condition under which it happens; a proof asks that no input meets it.

use std::collections::BTreeMap;
use tamarin_mips::cpu::{Stop, INPUT_ADDR, OUTPUT_ADDR};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::{Program, Reg};

use super::frontier::{list_values, Frontier, Initial};
use super::state::{self, Mem, MemView, State};
use crate::io::Observable;
use crate::semantics::machine::{bad_address, initial_memory, initial_word};
use crate::semantics::{self as sem, alu, Cs241, Effect, Isa, Regs};
use crate::solver::Answer;
use crate::term::{BinOp, Node, Term, TermStore};
pub use crate::verdict::{Uncovered, UnrollStats};

/// Most targets of one input-dependent jump that the unroller enumerates.
pub const MAX_JUMP_TARGETS: usize = 64;

/// The runs of one program that end normally with one length of output.
#[derive(Clone, Debug)]
pub struct Ending {
    pub guard: Term,
    /// Each observable's terms (one per word or byte).
    pub observed: Vec<Vec<Term>>,
}

/// Every way one program ends within the fuel.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Normal ends, one per length of output written.
    pub done: Vec<(usize, Ending)>,
    /// The inputs on which the program stops with a run-time error.
    pub error: Term,
    /// Inputs the encoding does not follow exactly, and why.
    pub uncovered: Vec<(Uncovered, Term)>,
    /// The inputs on which the program runs out of fuel: none of the above.
    pub out_of_fuel: Term,
    pub stats: UnrollStats,
}

/// The program and settings of one unrolling.
pub struct Setup<'a> {
    pub program: &'a Program,
    pub fuel: u64,
    pub termination: u32,
    pub observe: &'a [Observable],
    /// Initial registers (concrete) and the registers holding input terms.
    pub registers: [u32; 32],
    pub symbolic_registers: Vec<(Reg, Term)>,
    /// Memory words holding input terms at the start.
    pub symbolic_memory: Vec<(u32, Term)>,
    pub stdin: Vec<Term>,
    /// Stop when the store holds this many terms, or when `stop` is reached.
    pub max_terms: usize,
    pub stop: Stop,
}

/// Unrolls `setup.program`; `ask` decides side queries (the targets of input-dependent
/// jumps).
pub fn unroll(
    store: &mut TermStore,
    setup: &Setup<'_>,
    ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
) -> Summary {
    let mut u = Unroller::<Cs241>::new(store, setup);
    u.run(ask);
    let mut summary = u.summary;
    let ends = summary
        .done
        .iter()
        .map(|(_, e)| e.guard)
        .chain(std::iter::once(summary.error))
        .chain(summary.uncovered.iter().map(|&(_, g)| g))
        .collect::<Vec<_>>();
    let some_end = store.or_all(ends);
    summary.out_of_fuel = store.not(some_end);
    summary
}

/// The unroller proper, for any instruction set: it follows [`Effect`]s and never
/// looks at an instruction.
struct Unroller<'s, 'a, I: Isa> {
    s: &'s mut TermStore,
    setup: &'a Setup<'a>,
    image: std::sync::Arc<[u32]>,
    /// The image decoded.
    ops: Vec<Option<I::Instr>>,
    image_end: u32,
    initial_array: Term,
    fuel_term: Term,
    frontier: Frontier,
    /// Addresses inside the image whose word may differ from the image's: array slots
    /// placed over it and words stored there at constant addresses. Code there is
    /// fetched from memory; elsewhere in the image it is the image's (a store at an
    /// input-dependent address into the image is uncovered).
    volatile_code: rustc_hash::FxHashSet<u32>,
    /// How often each branch instruction forked so far.
    forks: rustc_hash::FxHashMap<u32, u32>,
    /// Terms the side queries added to the store (the solver chain's lowering): not
    /// the encoding's, so not counted against its budget.
    asked_terms: usize,
    summary: Summary,
}

impl<'s, 'a, I: Isa> Unroller<'s, 'a, I> {
    fn new(s: &'s mut TermStore, setup: &'a Setup<'a>) -> Self {
        let image = setup.program.words().clone();
        let ops: Vec<Option<I::Instr>> = image.iter().map(|&w| I::decode(w)).collect();
        let frontier = Frontier::new(static_branches::<I>(&ops), 30);
        let image_end = setup.program.byte_len();
        let zero = s.word(0);
        let initial_array = initial_memory(s, &image);
        let fuel_term = s.constant(64, setup.fuel);
        let f = s.bool(false);
        let t = s.bool(true);
        let regs = setup.registers.map(|v| s.word(v));
        let mut st = State {
            pc: 0,
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
                overlay: BTreeMap::new(),
            },
            reads: 0,
            output: Vec::new(),
            known: Vec::new(),
            wave: 0,
        };
        for &(r, t) in &setup.symbolic_registers {
            if r != Reg::ZERO {
                st.regs[r.index() & 31] = t;
            }
        }
        let mut volatile_code = rustc_hash::FxHashSet::default();
        for &(a, t) in &setup.symbolic_memory {
            st.mem.overlay.insert(a, t);
            if a < image_end {
                volatile_code.insert(a);
            }
        }
        let mut frontier = frontier;
        frontier.put_back(s, st);
        Unroller {
            s,
            setup,
            image,
            ops,
            image_end,
            initial_array,
            fuel_term,
            frontier,
            volatile_code,
            forks: rustc_hash::FxHashMap::default(),
            asked_terms: 0,
            summary: Summary {
                done: Vec::new(),
                error: f,
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
            let over_terms = self.s.len() - self.asked_terms > self.setup.max_terms;
            let over_time = pops.is_multiple_of(256) && self.setup.stop.reached();
            if over_terms || over_time {
                self.frontier.put_back(self.s, st);
                let rest = self.frontier.drain();
                for st in rest {
                    let g = st.guard(self.s);
                    self.uncover(Uncovered::Budget, g);
                }
                return;
            }
            self.step(st, ask);
        }
    }

    fn push(&mut self, st: State) {
        let image = &self.image;
        let initial = Initial {
            word: &|a: u32| initial_word(image, a),
            array: self.initial_array,
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

    fn end_error(&mut self, cond: Term) {
        if self.s.as_const(cond) == Some(0) {
            return;
        }
        self.summary.stats.ends += 1;
        self.summary.error = self.s.or(self.summary.error, cond);
    }

    fn end_done(&mut self, mut st: State) {
        let g = st.guard(self.s);
        let observed: Vec<Vec<Term>> = self
            .setup
            .observe
            .iter()
            .map(|o| self.observe(&mut st, o))
            .collect();
        self.summary.stats.ends += 1;
        let len = st.output.len();
        match self.summary.done.iter().position(|(l, _)| *l == len) {
            Some(i) => {
                let e = &mut self.summary.done[i].1;
                for (old, new) in e.observed.iter_mut().zip(&observed) {
                    for (o, &n) in old.iter_mut().zip(new) {
                        *o = self.s.ite(g, n, *o);
                    }
                }
                e.guard = self.s.or(e.guard, g);
            }
            None => self.summary.done.push((len, Ending { guard: g, observed })),
        }
    }

    fn observe(&mut self, st: &mut State, what: &Observable) -> Vec<Term> {
        let regs = Regs {
            gpr: &st.regs,
            hi: st.hi,
            lo: st.lo,
        };
        let mut mem = MemView {
            mem: &mut st.mem,
            image: &self.image,
            initial_array: self.initial_array,
        };
        sem::observe(self.s, regs, &mut mem, &st.output, what)
    }

    fn read(&mut self, mem: &Mem, addr: u32) -> Term {
        let image = &self.image;
        state::read(self.s, mem, addr, &|a| initial_word(image, a))
    }

    /// Runs one instruction of `st` (or ends it).
    fn step(&mut self, mut st: State, ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer) {
        let pc = st.pc;
        if pc == self.setup.termination {
            return self.end_done(st);
        }
        if pc & 3 != 0 || pc >= MEM_SIZE {
            let g = st.guard(self.s);
            return self.end_error(g);
        }
        let fuel = self.setup.fuel;
        if st.min_steps >= fuel {
            self.summary.stats.out_of_fuel += 1;
            return;
        }
        if st.max_steps >= fuel {
            let ok = self.s.bin(BinOp::Ult, st.steps, self.fuel_term);
            st.fuel_ok = Some(ok);
            st.max_steps = fuel - 1;
            if st.is_dead(self.s) {
                return;
            }
        }
        let one = self.s.constant(64, 1);
        st.steps = self.s.bin(BinOp::Add, st.steps, one);
        st.min_steps += 1;
        st.max_steps += 1;
        self.summary.stats.steps += 1;
        if let Some(i) = self.fetch(&mut st, pc) {
            self.execute(st, pc, i, ask);
        }
    }

    /// The instruction at `pc` for the inputs of `st`. The inputs on which the word
    /// there is not an instruction end as errors; where the word depends on the inputs,
    /// those on which it is another instruction than the image's are uncovered. `None`
    /// when no input of `st` is left to execute it.
    fn fetch(&mut self, st: &mut State, pc: u32) -> Option<I::Instr> {
        let image_op = self.ops.get((pc / 4) as usize).copied().flatten();
        if pc < self.image_end && !self.volatile_code.contains(&pc) {
            if image_op.is_none() {
                let g = st.guard(self.s);
                self.end_error(g);
            }
            return image_op;
        }
        let word = self.read(&st.mem, pc);
        if let Some(v) = self.s.as_const(word) {
            let op = I::decode(v as u32);
            if op.is_none() {
                let g = st.guard(self.s);
                self.end_error(g);
            }
            return op;
        }
        // Code fetched from an input-dependent word (an array over the code, or a
        // store): every word that is not an instruction fails alike; the image's own
        // instruction runs as such; any other instruction is not followed.
        let valid = I::is_instruction(self.s, word);
        let invalid = self.s.not(valid);
        self.fail_if(st, invalid);
        let Some(op) = image_op.filter(|_| !st.is_dead(self.s)) else {
            let g = st.guard(self.s);
            self.uncover(Uncovered::SymbolicCode, g);
            return None;
        };
        let k = self.s.word(I::encode(op));
        let same = self.s.eq(word, k);
        let other = self.s.not(same);
        if let Some(rest) = self.split(st, other) {
            let g = rest.guard(self.s);
            self.uncover(Uncovered::SymbolicCode, g);
        }
        (!st.is_dead(self.s)).then_some(op)
    }

    fn set(st: &mut State, d: Reg, v: Term) {
        if d != Reg::ZERO {
            st.regs[d.index() & 31] = v;
        }
    }

    /// Splits off the inputs of `st` satisfying `cond` as errors; `st` keeps the rest.
    fn fail_if(&mut self, st: &mut State, cond: Term) {
        if st.decide(self.s, cond) == Some(false) {
            return;
        }
        let g = st.guard(self.s);
        let e = self.s.and(g, cond);
        self.end_error(e);
        let n = self.s.not(cond);
        st.assume(self.s, n);
    }

    fn execute(
        &mut self,
        mut st: State,
        pc: u32,
        instr: I::Instr,
        ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
    ) {
        let next = pc.wrapping_add(4);
        st.pc = next;
        let regs = Regs {
            gpr: &st.regs,
            hi: st.hi,
            lo: st.lo,
        };
        match I::effect(self.s, regs, pc, instr) {
            // Not effects of CS241 instructions, the unroller's only target.
            Effect::Nothing | Effect::Trap { .. } | Effect::Part { .. } => {}
            Effect::Set(d, v) => Self::set(&mut st, d, v),
            Effect::SetHiLo { hi, lo } => {
                st.hi = hi;
                st.lo = lo;
            }
            Effect::Divide { divisor, hi, lo } => {
                let is_zero = alu::is_zero(self.s, divisor);
                self.fail_if(&mut st, is_zero);
                if st.is_dead(self.s) {
                    return;
                }
                st.hi = hi;
                st.lo = lo;
            }
            Effect::Literal(d) => {
                if next >= MEM_SIZE {
                    let g = st.guard(self.s);
                    return self.end_error(g);
                }
                let v = self.read(&st.mem, next);
                Self::set(&mut st, d, v);
                st.pc = next.wrapping_add(4);
            }
            Effect::Load { dest, addr: a, .. } => {
                if let Some(mut reading) = self.split_access(&mut st, a, INPUT_ADDR) {
                    let byte = self.setup.stdin.get(reading.reads).copied();
                    if byte.is_some() {
                        reading.reads += 1;
                    }
                    let v = alu::input_word(self.s, byte);
                    Self::set(&mut reading, dest, v);
                    self.push(reading);
                }
                if st.is_dead(self.s) {
                    return;
                }
                let mut mem = MemView {
                    mem: &mut st.mem,
                    image: &self.image,
                    initial_array: self.initial_array,
                };
                let v = sem::load(self.s, &mut mem, a);
                Self::set(&mut st, dest, v);
            }
            Effect::Store {
                addr: a, value: v, ..
            } => {
                if let Some(mut writing) = self.split_access(&mut st, a, OUTPUT_ADDR) {
                    let byte = alu::output_byte(self.s, v);
                    writing.output.push(byte);
                    self.push(writing);
                }
                if st.is_dead(self.s) {
                    return;
                }
                self.store_word(&mut st, a, v);
            }
            Effect::Branch {
                cond: taken,
                target,
                ..
            } => {
                let forks = st.decide(self.s, taken).is_none();
                if let Some(mut jumping) = self.split(&mut st, taken) {
                    jumping.pc = target;
                    // A branch that forks again (a loop's test) may have run out of
                    // feasible inputs on one side: without this, a loop bounded by a
                    // guard on its input would be unrolled up to the fuel.
                    if forks && self.check_fork(pc) {
                        if !self.feasible(&jumping, ask) {
                            jumping.path = self.s.bool(false);
                        }
                        if !self.feasible(&st, ask) {
                            st.path = self.s.bool(false);
                        }
                    }
                    self.push(jumping);
                }
            }
            Effect::Jump { target, link, .. } => {
                if let Some((r, l)) = link {
                    let l = self.s.word(l);
                    Self::set(&mut st, r, l);
                }
                return self.jump(st, target, ask);
            }
        }
        self.push(st);
    }

    /// Asks a side query, keeping the terms it adds out of the encoding's budget.
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

    /// Notes a fork at `pc`; whether to check feasibility there now (see
    /// [`Frontier::check_fork`]).
    fn check_fork(&mut self, pc: u32) -> bool {
        Frontier::check_fork(&mut self.forks, pc)
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

    /// Moves the inputs of `st` satisfying `cond` into a new state (returned unless
    /// none can); `st` keeps the others.
    fn split(&mut self, st: &mut State, cond: Term) -> Option<State> {
        st.split(self.s, cond)
    }

    /// Splits an access at `a` three ways, as the machine checks it: the inputs on which
    /// `a` is the I/O address `io` (returned as a new state), those on which it faults
    /// (ended as errors), and the rest (left in `st`).
    fn split_access(&mut self, st: &mut State, a: Term, io: u32) -> Option<State> {
        let io = self.s.word(io);
        let is_io = self.s.eq(a, io);
        let at_io = self.split(st, is_io);
        if !st.is_dead(self.s) {
            self.check_access(st, a);
        }
        at_io
    }

    /// Splits off the inputs on which an access at `a` (not the I/O address) faults.
    fn check_access(&mut self, st: &mut State, a: Term) {
        let bad = bad_address(self.s, a);
        self.fail_if(st, bad);
    }

    fn store_word(&mut self, st: &mut State, a: Term, v: Term) {
        match self.s.as_const(a) {
            Some(k) if (k as u32) < self.image_end => {
                // From now on code at `k` is fetched from memory.
                self.volatile_code.insert(k as u32);
            }
            Some(_) => {}
            None => {
                let end = self.s.word(self.image_end);
                let in_code = self.s.bin(BinOp::Ult, a, end);
                let g = st.guard(self.s);
                let c = self.s.and(g, in_code);
                self.uncover(Uncovered::CodeWrite, c);
            }
        }
        let mut mem = MemView {
            mem: &mut st.mem,
            image: &self.image,
            initial_array: self.initial_array,
        };
        sem::store(self.s, &mut mem, a, v);
    }

    /// Continues `st` at every target that `target` can take.
    fn jump(
        &mut self,
        st: State,
        target: Term,
        ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
    ) {
        if let Some(k) = self.s.as_const(target) {
            let mut st = st;
            st.pc = k as u32;
            return self.push(st);
        }
        // Targets the path confines to a few constants, or an `ite` tree of constants
        // (what merging makes of return addresses): no solver needed.
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
        self.jump_by_class(st, target, ask);
    }

    /// Continues `st` at target `k` for the inputs satisfying `cond`, for each case.
    fn go_to(&mut self, st: &State, cases: Vec<(Term, u32)>) {
        for (cond, k) in cases {
            let mut next = st.clone();
            next.assume(self.s, cond);
            next.pc = k;
            self.push(next);
        }
    }

    /// An input-dependent jump, split the way the machine tells targets apart: the
    /// termination address; any bad address (one error); each instruction of the image
    /// (listed with the solver); each word written past the image; and the rest of
    /// memory, which holds zeros (an invalid instruction) unless something was stored at
    /// an input-dependent address.
    fn jump_by_class(
        &mut self,
        mut st: State,
        t: Term,
        ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
    ) {
        let term = self.s.word(self.setup.termination);
        let is_term = self.s.eq(t, term);
        if let Some(mut done) = self.split(&mut st, is_term) {
            done.pc = self.setup.termination;
            self.push(done);
        }
        let bad = bad_address(self.s, t);
        self.fail_if(&mut st, bad);
        if st.is_dead(self.s) {
            return;
        }
        // Instructions of the image.
        let end = self.s.word(self.image_end);
        let in_image = self.s.bin(BinOp::Ult, t, end);
        if let Some(code) = self.split(&mut st, in_image) {
            let cases = self.enumerate_targets(&code, t, ask);
            self.go_to(&code, cases);
        }
        if st.is_dead(self.s) {
            return;
        }
        // Words written (or placed) past the image.
        let written: Vec<u32> = st
            .mem
            .overlay
            .keys()
            .copied()
            .filter(|&a| a >= self.image_end)
            .collect();
        for a in written {
            let k = self.s.word(a);
            let is = self.s.eq(t, k);
            if let Some(mut next) = self.split(&mut st, is) {
                next.pc = a;
                self.push(next);
            }
        }
        if st.is_dead(self.s) {
            return;
        }
        if st.mem.base.is_some() {
            let g = st.guard(self.s);
            return self.uncover(Uncovered::SymbolicCode, g);
        }
        // Zero memory: the run stops at once with an invalid instruction, if it still
        // has fuel for one more step.
        let fuel = self.setup.fuel;
        if st.min_steps >= fuel {
            return;
        }
        let mut g = st.guard(self.s);
        if st.max_steps >= fuel {
            let has_fuel = self.s.bin(BinOp::Ult, st.steps, self.fuel_term);
            g = self.s.and(g, has_fuel);
        }
        self.end_error(g);
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

/// Each branch of the image to a constant target, as its pc and target.
fn static_branches<I: Isa>(ops: &[Option<I::Instr>]) -> Vec<(u32, u32)> {
    ops.iter()
        .enumerate()
        .filter_map(|(i, op)| {
            let pc = (i as u32).wrapping_mul(4);
            op.and_then(|op| I::static_target(pc, op)).map(|t| (pc, t))
        })
        .collect()
}

/// The targets of a jump through an `ite` tree with constant leaves (what merging
/// makes of return addresses), each with its condition; `None` for other terms.
pub(super) fn leaf_targets(s: &mut TermStore, t: Term) -> Option<Vec<(Term, u32)>> {
    let mut out = Vec::new();
    let top = s.bool(true);
    let mut stack = vec![(t, top)];
    while let Some((u, cond)) = stack.pop() {
        match s.node(u) {
            Node::Const { value, .. } => out.push((cond, value as u32)),
            Node::Ite(c, a, b) => {
                let nc = s.not(c);
                let ca = s.and(cond, c);
                let cb = s.and(cond, nc);
                stack.push((b, cb));
                stack.push((a, ca));
            }
            _ => return None,
        }
        if out.len() + stack.len() > 4 * MAX_JUMP_TARGETS {
            return None;
        }
    }
    Some(out)
}
