//! Symbolic trace recording: a [`Tracer`] that shadows the emulator with terms.
//!
//! The report's passes happen while recording rather than afterwards: operations on
//! input-independent values are computed concretely and never enter the trace
//! (simplify); `mult`/`div` become 64-bit products and quotient/remainder terms, and
//! `mfhi`/`mflo` copies (desugar); hash-consed terms are SSA values (SSA). Trimming to
//! the depth bound happens in the search, which sees the whole condition list.
//!
//! Soundness rests on one rule: every place where the concrete run fixed a value that
//! depends on the inputs (a branch direction, a jump target, a memory address, a
//! divisor being zero or not) records a path condition that pins it, so that every
//! input satisfying a path's conditions runs exactly that path.

mod dump;

pub use dump::{render, Dest, TraceStep};

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use tamarin_mips::cpu::{Event, Fault, FaultKind, Registers, Tracer, INPUT_ADDR, OUTPUT_ADDR};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::{Instr, Reg};

use crate::io::Observable;
use crate::term::{BinOp, Term, TermStore};

/// A register's shadow: a concrete value, or a term over the inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Conc(u32),
    Sym(Term),
}

/// Why a path condition was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CondKind {
    /// A `beq`/`bne` whose operands depend on the inputs.
    Branch,
    /// A `jr`/`jalr` whose target depends on the inputs.
    JumpTarget,
    /// A `lw`/`sw` whose address depends on the inputs.
    Address,
    /// A `div`/`divu` whose divisor depends on the inputs (zero or not).
    Divisor,
}

impl CondKind {
    pub fn name(self) -> &'static str {
        match self {
            CondKind::Branch => "branch",
            CondKind::JumpTarget => "jump target",
            CondKind::Address => "address",
            CondKind::Divisor => "divisor",
        }
    }
}

/// A condition that held on the recorded run, at the instruction at `pc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathCond {
    pub pc: u32,
    pub cond: Term,
    pub kind: CondKind,
}

/// Why a tracer stopped following a run symbolically (the concrete run goes on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// More path conditions than the limit.
    Conditions,
    /// The run built more new terms than the limit.
    Terms,
    /// The deadline passed.
    Deadline,
}

/// Bounds on what one traced run may cost; past them the tracer gives up on the run
/// (its path then counts as unexplored, never as covered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceLimits {
    pub max_conds: usize,
    /// New terms one run may add to the store.
    pub max_new_terms: usize,
    pub deadline: Option<std::time::Instant>,
}

impl Default for TraceLimits {
    fn default() -> Self {
        TraceLimits {
            max_conds: 10_000,
            max_new_terms: 1_000_000,
            deadline: None,
        }
    }
}

/// The shadow state and the conditions of one run.
pub struct SymTracer<'s> {
    store: &'s mut TermStore,
    regs: [Val; 32],
    hi: Val,
    lo: Val,
    /// Memory is `base` (the memory array as of the last access at an input-dependent
    /// address; `None`: the initial memory) overlaid with `overlay`, the words stored
    /// at concrete addresses since.
    base: Option<Term>,
    overlay: FxHashMap<u32, Val>,
    /// The program image, for the initial memory array (`None`: accesses at
    /// input-dependent addresses are pinned to the address the run used).
    image: Option<Arc<[u32]>>,
    /// Whether some word of memory may depend on the inputs through a store at an
    /// input-dependent address.
    sym_stores: bool,
    /// Whether some stored word depends on the inputs (then fetched code and literals
    /// are checked against memory).
    sym_words: bool,
    /// Every address stored to outside the program image (a jump there may find code).
    written: FxHashSet<u32>,
    image_end: u32,
    termination: u32,
    conds: Vec<PathCond>,
    seen: FxHashSet<Term>,
    /// Jump classes already built, by (target term, concrete target): loops that jump
    /// through a register rebuild the same condition every iteration.
    jumps: FxHashMap<(Term, u32), Term>,
    steps: Option<Vec<TraceStep>>,
    limits: TraceLimits,
    term_budget_end: usize,
    /// Symbolic standard input bytes (8-bit terms); reads past them give -1.
    stdin: Vec<Term>,
    reads: usize,
    /// Every byte written to the output address, as an 8-bit term.
    outputs: Vec<Term>,
    executed: u64,
    gave_up: Option<GaveUp>,
}

impl<'s> SymTracer<'s> {
    /// A tracer for a machine in state `initial`, where the registers in `inputs` hold
    /// the given input terms. `record_steps` keeps a readable log for `--dump-trace`.
    pub fn new(
        store: &'s mut TermStore,
        initial: &Registers,
        inputs: &[(Reg, Term)],
        image_end: u32,
        termination: u32,
        record_steps: bool,
    ) -> Self {
        let base = store.len();
        let mut regs = initial.gpr.map(Val::Conc);
        for &(r, t) in inputs {
            if r != Reg::ZERO {
                regs[r.index()] = Val::Sym(t);
            }
        }
        SymTracer {
            store,
            regs,
            hi: Val::Conc(initial.hi),
            lo: Val::Conc(initial.lo),
            base: None,
            overlay: FxHashMap::default(),
            image: None,
            sym_stores: false,
            sym_words: false,
            written: FxHashSet::default(),
            image_end,
            termination,
            conds: Vec::new(),
            seen: FxHashSet::default(),
            jumps: FxHashMap::default(),
            term_budget_end: store_len_plus(base, TraceLimits::default().max_new_terms),
            steps: record_steps.then(Vec::new),
            limits: TraceLimits::default(),
            executed: 0,
            gave_up: None,
            stdin: Vec::new(),
            reads: 0,
            outputs: Vec::new(),
        }
    }

    /// Gives the tracer the program image, so that loads and stores at
    /// input-dependent addresses are encoded precisely as array reads and writes.
    pub fn with_image(mut self, image: Arc<[u32]>) -> Self {
        self.image = Some(image);
        self
    }

    /// Words of memory that hold input terms at the start (an array input).
    pub fn with_memory(mut self, words: Vec<(u32, Term)>) -> Self {
        for (addr, t) in words {
            let v = self.as_val(t);
            if matches!(v, Val::Sym(_)) {
                self.sym_words = true;
            }
            self.overlay.insert(addr, v);
            if addr >= self.image_end {
                self.written.insert(addr);
            }
        }
        self
    }

    /// Standard input bytes that are inputs (8-bit terms), read in order.
    pub fn with_stdin(mut self, bytes: Vec<Term>) -> Self {
        self.stdin = bytes;
        self
    }

    /// The terms of an observable at this point of the run (after it ends: its result).
    pub fn observe(&mut self, what: &Observable) -> Vec<Term> {
        match *what {
            Observable::Reg(r) => {
                let v = self.reg(r);
                vec![self.term(v)]
            }
            Observable::Hi => vec![self.term(self.hi)],
            Observable::Lo => vec![self.term(self.lo)],
            Observable::Output => self.outputs.clone(),
            Observable::Mem { from, to } => (from..=to)
                .step_by(4)
                .map(|a| {
                    let v = self.read_word(a);
                    self.term(v)
                })
                .collect(),
        }
    }

    /// The shadow of the word at concrete address `addr` (initial memory: the image).
    fn read_word(&mut self, addr: u32) -> Val {
        if let Some(&v) = self.overlay.get(&addr) {
            return v;
        }
        match self.base {
            Some(m) => {
                let k = self.store.word(addr);
                let t = self.store.select(m, k);
                self.as_val(t)
            }
            None => Val::Conc(
                self.image
                    .as_ref()
                    .and_then(|i| i.get((addr / 4) as usize).copied())
                    .unwrap_or(0),
            ),
        }
    }

    /// Bounds what tracing this run may cost.
    pub fn with_limits(mut self, limits: TraceLimits) -> Self {
        self.term_budget_end = store_len_plus(self.store.len(), limits.max_new_terms);
        self.limits = limits;
        self
    }

    /// Why the tracer stopped following the run, if it did: then its conditions are a
    /// prefix of the path and its registers are stale.
    pub fn gave_up(&self) -> Option<GaveUp> {
        self.gave_up
    }

    /// The path conditions recorded, in order.
    pub fn conds(&self) -> &[PathCond] {
        &self.conds
    }

    /// Consumes the tracer, giving its conditions and readable log.
    pub fn finish(self) -> (Vec<PathCond>, Vec<TraceStep>, [Val; 32]) {
        (self.conds, self.steps.unwrap_or_default(), self.regs)
    }

    /// The shadow of register `r`.
    pub fn reg(&self, r: Reg) -> Val {
        self.regs[r.index() & 31]
    }

    /// The term for a shadow value.
    pub fn term(&mut self, v: Val) -> Term {
        match v {
            Val::Conc(c) => self.store.word(c),
            Val::Sym(t) => t,
        }
    }

    /// The store the tracer builds in.
    pub fn store(&mut self) -> &mut TermStore {
        self.store
    }

    fn set(&mut self, pc: u32, instr: Instr, d: Reg, v: Val) {
        if d != Reg::ZERO {
            self.regs[d.index() & 31] = v;
            if let Val::Sym(t) = v {
                self.log(pc, instr, dump::Dest::Reg(d), t);
            }
        }
    }

    fn set_hilo(&mut self, pc: u32, instr: Instr, hi: Val, lo: Val) {
        self.hi = hi;
        self.lo = lo;
        if let Val::Sym(t) = hi {
            self.log(pc, instr, dump::Dest::Hi, t);
        }
        if let Val::Sym(t) = lo {
            self.log(pc, instr, dump::Dest::Lo, t);
        }
    }

    fn log(&mut self, pc: u32, instr: Instr, dest: dump::Dest, value: Term) {
        if let Some(steps) = &mut self.steps {
            steps.push(TraceStep::Assign {
                pc,
                instr,
                dest,
                value,
            });
        }
    }

    /// Records that `cond` held at `pc` (skipped when it is constant or already known).
    fn cond(&mut self, pc: u32, cond: Term, kind: CondKind) {
        if self.store.as_const(cond).is_some() || !self.seen.insert(cond) {
            return;
        }
        if self.conds.len() >= self.limits.max_conds {
            self.gave_up = Some(GaveUp::Conditions);
            return;
        }
        self.conds.push(PathCond { pc, cond, kind });
        if let Some(steps) = &mut self.steps {
            steps.push(TraceStep::Cond(PathCond { pc, cond, kind }));
        }
    }

    fn binary(&mut self, op: BinOp, a: Val, b: Val) -> Val {
        if let (Val::Conc(x), Val::Conc(y)) = (a, b) {
            let r = match op {
                BinOp::Add => x.wrapping_add(y),
                BinOp::Sub => x.wrapping_sub(y),
                _ => {
                    let (tx, ty) = (self.store.word(x), self.store.word(y));
                    let t = self.store.bin(op, tx, ty);
                    return self.as_val(t);
                }
            };
            return Val::Conc(r);
        }
        let (ta, tb) = (self.term(a), self.term(b));
        let t = self.store.bin(op, ta, tb);
        self.as_val(t)
    }

    fn as_val(&mut self, t: Term) -> Val {
        match self.store.as_const(t) {
            Some(c) => Val::Conc(c as u32),
            None => Val::Sym(t),
        }
    }

    /// `1` if `cond`, else `0`, as a word.
    fn flag(&mut self, cond: Term) -> Val {
        let (one, zero) = (self.store.word(1), self.store.word(0));
        let t = self.store.ite(cond, one, zero);
        self.as_val(t)
    }

    fn compare(&mut self, op: BinOp, a: Val, b: Val) -> Val {
        if let (Val::Conc(x), Val::Conc(y)) = (a, b) {
            let r = match op {
                BinOp::Slt => (x as i32) < (y as i32),
                _ => x < y,
            };
            return Val::Conc(r as u32);
        }
        let (ta, tb) = (self.term(a), self.term(b));
        let c = self.store.bin(op, ta, tb);
        self.flag(c)
    }

    fn multiply(&mut self, pc: u32, instr: Instr, s: Val, t: Val, signed: bool) {
        if let (Val::Conc(x), Val::Conc(y)) = (s, t) {
            let p = if signed {
                (x as i32 as i64).wrapping_mul(y as i32 as i64) as u64
            } else {
                x as u64 * y as u64
            };
            self.set_hilo(pc, instr, Val::Conc((p >> 32) as u32), Val::Conc(p as u32));
            return;
        }
        let (a, b) = (self.term(s), self.term(t));
        let (wa, wb) = if signed {
            (self.store.sign_ext(32, a), self.store.sign_ext(32, b))
        } else {
            (self.store.zero_ext(32, a), self.store.zero_ext(32, b))
        };
        let p = self.store.bin(BinOp::Mul, wa, wb);
        let hi = self.store.extract(63, 32, p);
        let lo = self.store.extract(31, 0, p);
        let (hi, lo) = (self.as_val(hi), self.as_val(lo));
        self.set_hilo(pc, instr, hi, lo);
    }

    fn divide(&mut self, pc: u32, instr: Instr, s: Val, t: Val, signed: bool) {
        if let Val::Sym(d) = t {
            let zero = self.store.word(0);
            let nz = self.store.ne(d, zero);
            self.cond(pc, nz, CondKind::Divisor);
        }
        let (q, r) = if signed {
            (BinOp::SDiv, BinOp::SRem)
        } else {
            (BinOp::UDiv, BinOp::URem)
        };
        let lo = self.binary(q, s, t);
        let hi = self.binary(r, s, t);
        self.set_hilo(pc, instr, hi, lo);
    }

    /// The symbolic address `base + i`, if the base depends on the inputs.
    fn address(&mut self, s: Reg, i: i16) -> Option<Term> {
        match self.reg(s) {
            Val::Conc(_) => None,
            Val::Sym(b) => {
                let off = self.store.word(i as i32 as u32);
                Some(self.store.bin(BinOp::Add, b, off))
            }
        }
    }

    /// Pins a symbolic access address to the concrete one the run used.
    fn pin_address(&mut self, pc: u32, a: Term, addr: u32) {
        let k = self.store.word(addr);
        let c = self.store.eq(a, k);
        self.cond(pc, c, CondKind::Address);
    }

    /// The memory as one array term: the base (or the initial memory) with the
    /// overlay's stores applied. Becomes the new base.
    fn memory_term(&mut self, image: &[u32]) -> Term {
        let mut m = match self.base {
            Some(m) => m,
            None => initial_memory(self.store, image),
        };
        let mut stores: Vec<(u32, Val)> = self.overlay.drain().collect();
        stores.sort_unstable_by_key(|&(a, _)| a);
        for (a, v) in stores {
            let (a, v) = (self.store.word(a), self.term(v));
            m = self.store.store(m, a, v);
        }
        self.base = Some(m);
        m
    }

    /// The condition that a successful access at symbolic address `a` went where it did:
    /// the I/O address it used, or any valid word of memory.
    fn access_class(&mut self, a: Term, addr: u32) -> Term {
        if addr >= MEM_SIZE {
            let k = self.store.word(addr);
            return self.store.eq(a, k);
        }
        let (aligned, in_range) = address_checks(self.store, a);
        self.store.and(aligned, in_range)
    }

    /// The value a load from `addr` gave (`value` concretely), for base `s` plus `i`.
    fn load(&mut self, pc: u32, s: Reg, i: i16, addr: u32, value: u32) -> Val {
        match (self.address(s, i), self.image.clone()) {
            (None, _) => match self.overlay.get(&addr) {
                Some(&v) => v,
                None => match self.base {
                    None => Val::Conc(value),
                    Some(m) => {
                        let k = self.store.word(addr);
                        let t = self.store.select(m, k);
                        self.as_val(t)
                    }
                },
            },
            (Some(a), Some(image)) => {
                let c = self.access_class(a, addr);
                self.cond(pc, c, CondKind::Address);
                let m = self.memory_term(&image);
                let t = self.store.select(m, a);
                self.as_val(t)
            }
            (Some(a), None) => {
                self.pin_address(pc, a, addr);
                self.overlay.get(&addr).copied().unwrap_or(Val::Conc(value))
            }
        }
    }

    /// Records a store of register `t` to `addr`, for base `s` plus `i`.
    fn store_word(&mut self, pc: u32, instr: Instr, s: Reg, i: i16, t: Reg, addr: u32) {
        let v = self.reg(t);
        match (self.address(s, i), self.image.clone()) {
            (Some(a), Some(image)) => {
                let c = self.access_class(a, addr);
                self.cond(pc, c, CondKind::Address);
                let m = self.memory_term(&image);
                let tv = self.term(v);
                let m = self.store.store(m, a, tv);
                self.base = Some(m);
                self.sym_stores = true;
                self.sym_words = true;
                self.log(pc, instr, dump::Dest::Memory, m);
            }
            (addr_term, _) => {
                if let Some(a) = addr_term {
                    self.pin_address(pc, a, addr);
                }
                self.overlay.insert(addr, v);
                if let Val::Sym(tv) = v {
                    self.sym_words = true;
                    self.log(pc, instr, dump::Dest::Mem(addr), tv);
                }
            }
        }
    }

    /// Once a stored word depends on the inputs, the word fetched at `addr` (code or a
    /// literal) may too; pins it to the value the run fetched.
    fn pin_fetched(&mut self, pc: u32, addr: u32, value: u32) {
        if !self.sym_words {
            return;
        }
        let word = match (self.overlay.get(&addr), self.base) {
            (Some(&Val::Sym(t)), _) => t,
            (Some(&Val::Conc(_)), _) | (None, None) => return,
            (None, Some(m)) => {
                let k = self.store.word(addr);
                self.store.select(m, k)
            }
        };
        let c = if Instr::decode(value).is_some() || addr != pc {
            let k = self.store.word(value);
            self.store.eq(word, k)
        } else {
            // Every word that is not an instruction fails alike: one class.
            let valid = is_instruction(self.store, word);
            self.store.not(valid)
        };
        self.cond(pc, c, CondKind::Address);
    }

    /// The condition under which a symbolic jump target `t` behaves like `target`.
    fn jump_class(&mut self, t: Term, target: u32) -> Term {
        let (aligned, in_range) = address_checks(self.store, t);
        let s = &mut *self.store;
        let term = s.word(self.termination);
        let is_term = s.eq(t, term);
        if target == self.termination {
            return is_term;
        }
        let exact = target.is_multiple_of(4)
            && target < MEM_SIZE
            && (target < self.image_end || self.written.contains(&target) || self.sym_stores);
        if exact {
            let k = s.word(target);
            return s.eq(t, k);
        }
        let not_term = s.not(is_term);
        if !target.is_multiple_of(4) || target >= MEM_SIZE {
            // Any bad address fails the same way: one class.
            let ok = s.and(aligned, in_range);
            let bad = s.not(ok);
            return s.and(bad, not_term);
        }
        // Aligned, in memory, outside the image and never written: a zero word, so the
        // run stops at once with an invalid instruction, whatever the exact address.
        let end = s.word(self.image_end);
        let below_image = s.bin(BinOp::Ult, t, end);
        let outside = s.not(below_image);
        let mut c = s.and(aligned, in_range);
        c = s.and(c, outside);
        c = s.and(c, not_term);
        let mut written: Vec<u32> = self.written.iter().copied().collect();
        written.sort_unstable();
        for w in written {
            let k = s.word(w);
            let ne = s.ne(t, k);
            c = s.and(c, ne);
        }
        c
    }

    /// The condition under which symbolic access address `a` faults like `fault`.
    fn access_fault_class(&mut self, a: Term, kind: FaultKind, io: u32) -> Term {
        let (aligned, in_range) = address_checks(self.store, a);
        let s = &mut *self.store;
        if kind == FaultKind::UnalignedAccess {
            return s.not(aligned);
        }
        let out = s.not(in_range);
        let io = s.word(io);
        let not_io = s.ne(a, io);
        let c = s.and(aligned, out);
        s.and(c, not_io)
    }
}

impl Tracer for SymTracer<'_> {
    fn exec(&mut self, pc: u32, instr: Instr, event: Event) {
        use Instr::*;
        if self.gave_up.is_some() {
            return;
        }
        self.executed += 1;
        if self.store.len() > self.term_budget_end {
            self.gave_up = Some(GaveUp::Terms);
            return;
        }
        if self.executed.is_multiple_of(4096) {
            if let Some(d) = self.limits.deadline {
                if std::time::Instant::now() >= d {
                    self.gave_up = Some(GaveUp::Deadline);
                    return;
                }
            }
        }
        if self.sym_words {
            self.pin_fetched(pc, pc, instr.encode());
        }
        match instr {
            Add { d, s, t } => {
                let v = self.binary(BinOp::Add, self.reg(s), self.reg(t));
                self.set(pc, instr, d, v);
            }
            Sub { d, s, t } => {
                let v = self.binary(BinOp::Sub, self.reg(s), self.reg(t));
                self.set(pc, instr, d, v);
            }
            Slt { d, s, t } => {
                let v = self.compare(BinOp::Slt, self.reg(s), self.reg(t));
                self.set(pc, instr, d, v);
            }
            Sltu { d, s, t } => {
                let v = self.compare(BinOp::Ult, self.reg(s), self.reg(t));
                self.set(pc, instr, d, v);
            }
            Mult { s, t } => self.multiply(pc, instr, self.reg(s), self.reg(t), true),
            Multu { s, t } => self.multiply(pc, instr, self.reg(s), self.reg(t), false),
            Div { s, t } => self.divide(pc, instr, self.reg(s), self.reg(t), true),
            Divu { s, t } => self.divide(pc, instr, self.reg(s), self.reg(t), false),
            Mfhi { d } => self.set(pc, instr, d, self.hi),
            Mflo { d } => self.set(pc, instr, d, self.lo),
            Lis { d } => {
                let v = match event {
                    Event::Literal(v) => v,
                    _ => 0,
                };
                self.pin_fetched(pc, pc.wrapping_add(4), v);
                self.set(pc, instr, d, Val::Conc(v));
            }
            Lw { t, i, s } => match event {
                Event::Load { addr, value } => {
                    let v = self.load(pc, s, i, addr, value);
                    self.set(pc, instr, t, v);
                }
                Event::Input(byte) => {
                    if let Some(a) = self.address(s, i) {
                        self.pin_address(pc, a, INPUT_ADDR);
                    }
                    let v = match (byte, self.stdin.get(self.reads).copied()) {
                        (Some(_), Some(b)) => {
                            let w = self.store.zero_ext(24, b);
                            self.as_val(w)
                        }
                        _ => Val::Conc(byte.map_or(u32::MAX, u32::from)),
                    };
                    if byte.is_some() {
                        self.reads += 1;
                    }
                    self.set(pc, instr, t, v);
                }
                _ => {}
            },
            Sw { t, i, s } => match event {
                Event::Store { addr, .. } => {
                    if addr >= self.image_end {
                        self.written.insert(addr);
                    }
                    self.store_word(pc, instr, s, i, t, addr);
                }
                Event::Output(_) => {
                    if let Some(a) = self.address(s, i) {
                        self.pin_address(pc, a, OUTPUT_ADDR);
                    }
                    let v = self.reg(t);
                    let byte = match v {
                        Val::Conc(c) => self.store.constant(8, c as u64),
                        Val::Sym(w) => self.store.extract(7, 0, w),
                    };
                    self.outputs.push(byte);
                }
                _ => {}
            },
            Beq { s, t, .. } | Bne { s, t, .. } => {
                if let (Val::Conc(_), Val::Conc(_)) = (self.reg(s), self.reg(t)) {
                    return;
                }
                let taken = matches!(event, Event::Branch { taken: true });
                let (a, b) = (self.reg(s), self.reg(t));
                let (ta, tb) = (self.term(a), self.term(b));
                let equal = self.store.eq(ta, tb);
                let holds = if matches!(instr, Beq { .. }) == taken {
                    equal
                } else {
                    self.store.not(equal)
                };
                self.cond(pc, holds, CondKind::Branch);
            }
            Jr { s } | Jalr { s } => {
                let (target, link) = match event {
                    Event::Jump { target, link } => (target, link),
                    _ => return,
                };
                if let Val::Sym(t) = self.reg(s) {
                    // The class of a zero-memory target depends on what was written
                    // since, so only exact classes are remembered.
                    let c = match self.jumps.get(&(t, target)) {
                        Some(&c) => c,
                        None => {
                            let c = self.jump_class(t, target);
                            if target < self.image_end || target == self.termination {
                                self.jumps.insert((t, target), c);
                            }
                            c
                        }
                    };
                    self.cond(pc, c, CondKind::JumpTarget);
                }
                if let Some(link) = link {
                    self.set(pc, instr, Reg::RA, Val::Conc(link));
                }
            }
        }
    }

    fn fault(&mut self, instr: Option<Instr>, fault: Fault) {
        if self.gave_up.is_some() {
            return;
        }
        // The failing word (an instruction that faults, or a word that is not one) may
        // itself depend on the inputs.
        match instr {
            Some(i) => self.pin_fetched(fault.pc, fault.pc, i.encode()),
            None if fault.kind == FaultKind::InvalidInstruction => {
                self.pin_fetched(fault.pc, fault.pc, fault.value)
            }
            None => {}
        }
        let Some(instr) = instr else { return };
        let pc = fault.pc;
        match (instr, fault.kind) {
            (Instr::Div { t, .. } | Instr::Divu { t, .. }, FaultKind::DivisionByZero) => {
                if let Val::Sym(d) = self.reg(t) {
                    let zero = self.store.word(0);
                    let z = self.store.eq(d, zero);
                    self.cond(pc, z, CondKind::Divisor);
                }
            }
            (Instr::Lw { s, i, .. }, k) | (Instr::Sw { s, i, .. }, k) => {
                let io = if matches!(instr, Instr::Lw { .. }) {
                    INPUT_ADDR
                } else {
                    OUTPUT_ADDR
                };
                if let Some(a) = self.address(s, i) {
                    let c = self.access_fault_class(a, k, io);
                    self.cond(pc, c, CondKind::Address);
                }
            }
            _ => {}
        }
    }
}

/// Whether address `a` is word-aligned, and whether it lies inside memory: the two
/// checks the machine makes of every access and every jump target.
pub fn address_checks(s: &mut TermStore, a: Term) -> (Term, Term) {
    let three = s.word(3);
    let zero = s.word(0);
    let low = s.bin(BinOp::BvAnd, a, three);
    let aligned = s.eq(low, zero);
    let mem = s.word(MEM_SIZE);
    let in_range = s.bin(BinOp::Ult, a, mem);
    (aligned, in_range)
}

/// The machine's initial memory as an array term: the image's words from address 0
/// (those inside memory), zero everywhere else. Both engines start from it.
pub fn initial_memory(s: &mut TermStore, image: &[u32]) -> Term {
    let zero = s.word(0);
    let mut m = s.const_array(zero);
    for (k, &w) in image.iter().enumerate() {
        if w != 0 && (k as u64) * 4 < MEM_SIZE as u64 {
            let (a, v) = (s.word(4 * k as u32), s.word(w));
            m = s.store(m, a, v);
        }
    }
    m
}

/// The condition that `word` encodes an instruction (the machine's decoder, as a
/// term).
pub fn is_instruction(s: &mut TermStore, word: Term) -> Term {
    let mut any = s.bool(false);
    for (mask, pattern) in tamarin_mips::isa::PATTERNS {
        let m = s.word(mask);
        let p = s.word(pattern);
        let bits = s.bin(BinOp::BvAnd, word, m);
        let is = s.eq(bits, p);
        any = s.or(any, is);
    }
    any
}

fn store_len_plus(len: usize, extra: usize) -> usize {
    len.saturating_add(extra)
}
