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

mod calls;
mod dump;

pub use calls::{CallSlack, Calls, Procedure};

pub use dump::{render, Dest, TraceStep};

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use tamarin_mips::cpu::{
    Event, Fault, FaultKind, Machine, Position, Registers, Stop, Tracer, INPUT_ADDR, OUTPUT_ADDR,
};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::{Instr, Reg};

use crate::io::Observable;
use crate::semantics::machine::{self, address_checks, initial_memory, initial_word};
use crate::semantics::{alu, Cs241, Domain, Effect, Isa, Regs, Shadow, SymMemory, Target};
use crate::term::{BinOp, Evaluator, Term, TermStore};

pub use crate::semantics::Val;

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
    /// The deadline passed, or the work was interrupted.
    Deadline,
    /// The run's trace would have held more bytes than its share of the search's
    /// trace memory ([`TraceLimits::max_bytes`]).
    Memory,
    /// The run read a register or word that a call to a shared procedure left unknown,
    /// or called one where the call could not be recorded as an event.
    CallEffects,
}

/// Bounds on what one traced run may cost; past them the tracer gives up on the run
/// (its path then counts as unexplored, never as covered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceLimits {
    /// Path conditions one run may record. A run records at most a few a step, so the
    /// fuel bounds them too; this bound is as high as the term budget, since a path's
    /// conditions are shared with its checkpoints and never copied (a loop of n trips
    /// costs the search O(n), and a proof bounded by a large fuel must follow it).
    pub max_conds: usize,
    /// New terms one run may add to the store.
    pub max_new_terms: usize,
    /// Bytes that what the traced runs record may hold: new terms, conditions (with
    /// their nodes in the search's path tree) and checkpoints, counted at the sizes
    /// `TERM_BYTES`, `COND_BYTES` and `CHECKPOINT_BYTES` (measured, so that the
    /// count follows the process's peak memory). The search gives each run what its
    /// earlier runs left of it, so the bound holds for a whole comparison (default
    /// `DEFAULT_TRACE_BYTES`; `grade` divides its total among its parallel jobs).
    pub max_bytes: usize,
    /// When to give up: the budget's deadline and interrupt flag (default none).
    pub stop: Stop,
}

/// The default bound on what a comparison's traces may hold: 512 MiB of estimated
/// trace, about 1 GiB of peak memory for the process (BENCHMARKS.md, "Limits that
/// hold").
pub const DEFAULT_TRACE_BYTES: usize = 512 << 20;

/// What one new term costs, as [`TraceLimits::max_bytes`] counts it (its node, width
/// and hash-consing entry, with the tables' spare room).
pub const TERM_BYTES: usize = 160;

/// What one recorded path condition costs (its entry in the persistent vector and set,
/// and its node in the search's path tree).
pub const COND_BYTES: usize = 400;

/// What one checkpoint costs beyond its conditions (the copied state, and the
/// persistent structures' nodes that the next conditions copy on write).
pub const CHECKPOINT_BYTES: usize = 5120;

/// What the traces of all the comparisons that run at once may hold together, by
/// default: [`TraceLimits::for_jobs`] divides it among them.
pub const TOTAL_TRACE_BYTES: usize = 2 << 30;

/// The least trace memory a comparison gets however many run at once.
pub const MIN_TRACE_BYTES: usize = 64 << 20;

impl TraceLimits {
    /// These limits for one of `jobs` comparisons that run at once (`grade --jobs`):
    /// the trace memory is `TOTAL_TRACE_BYTES` shared among them, at least
    /// `MIN_TRACE_BYTES` and at most `DEFAULT_TRACE_BYTES` each, so that the jobs
    /// together stay within a few GiB.
    pub fn for_jobs(self, jobs: usize) -> TraceLimits {
        TraceLimits {
            max_bytes: (TOTAL_TRACE_BYTES / jobs.max(1))
                .clamp(MIN_TRACE_BYTES, DEFAULT_TRACE_BYTES),
            ..self
        }
    }
}

impl Default for TraceLimits {
    fn default() -> Self {
        TraceLimits {
            max_conds: 1_000_000,
            max_new_terms: 1_000_000,
            max_bytes: DEFAULT_TRACE_BYTES,
            stop: Stop::default(),
        }
    }
}

/// The tracer's memory: `base` (the memory array as of the last access at an
/// input-dependent address; `None`: the initial memory) overlaid with `overlay`, the
/// words stored at concrete addresses since.
///
/// `region`, while it is set, confines every access at an input-dependent address to
/// `[lo, hi)` (the input array's words): the path conditions say so for each such
/// access, so the array term stands for those words alone and the words outside (the
/// stack frames that generated code addresses at fixed offsets) stay in the overlay,
/// concrete where they were. The first input-dependent access outside it clears it.
#[derive(Clone)]
struct TraceMemory {
    base: Option<Term>,
    overlay: FxHashMap<u32, Val>,
    image: Arc<[u32]>,
    region: Option<(u32, u32)>,
}

impl TraceMemory {
    /// Whether the array term may hold the word at `addr`.
    fn in_scope(&self, addr: u32) -> bool {
        self.region.is_none_or(|(lo, hi)| addr >= lo && addr < hi)
    }
}

impl SymMemory<Shadow<'_>> for TraceMemory {
    fn read(&mut self, d: &mut Shadow<'_>, addr: u32) -> Val {
        if let Some(&v) = self.overlay.get(&addr) {
            return v;
        }
        match self.base {
            Some(m) if self.in_scope(addr) => {
                let k = d.0.word(addr);
                let t = d.0.select(m, k);
                d.value(t)
            }
            _ => Val::Conc(initial_word(&self.image, addr)),
        }
    }

    fn write(&mut self, _: &mut Shadow<'_>, addr: u32, v: Val) {
        self.overlay.insert(addr, v);
    }

    fn array(&mut self, d: &mut Shadow<'_>) -> Term {
        let mut m = match self.base {
            Some(m) => m,
            None => initial_memory(d.0, &self.image),
        };
        let mut stores: Vec<(u32, Val)> = match self.region {
            None => self.overlay.drain().collect(),
            Some((lo, hi)) => {
                let inside: Vec<(u32, Val)> = self
                    .overlay
                    .iter()
                    .filter(|&(&a, _)| a >= lo && a < hi)
                    .map(|(&a, &v)| (a, v))
                    .collect();
                for (a, _) in &inside {
                    self.overlay.remove(a);
                }
                inside
            }
        };
        stores.sort_unstable_by_key(|&(a, _)| a);
        for (a, v) in stores {
            let (a, v) = (d.0.word(a), d.term(v));
            m = d.0.store(m, a, v);
        }
        self.base = Some(m);
        m
    }

    fn set_array(&mut self, m: Term) {
        self.base = Some(m);
    }
}

/// A persistent set of terms.
type TermSet =
    imbl::GenericHashSet<Term, rustc_hash::FxBuildHasher, imbl::shared_ptr::DefaultSharedPtr>;

/// What a run has done so far, as the tracer shadows it: registers, memory, the
/// conditions recorded and the input and output so far.
#[derive(Clone)]
struct RunState {
    regs: [Val; 32],
    hi: Val,
    lo: Val,
    mem: TraceMemory,
    /// Whether some word of memory may depend on the inputs through a store at an
    /// input-dependent address.
    sym_stores: bool,
    /// Whether some stored word depends on the inputs (then fetched code and literals
    /// are checked against memory).
    sym_words: bool,
    /// Every address stored to outside the program image (a jump there may find code).
    written: FxHashSet<u32>,
    /// The conditions, and the set of their terms. Both are persistent (a copy shares
    /// them): checkpoints and the runs resumed from them copy the state of a run whose
    /// path may be thousands of conditions long, at a cost that must not grow with it.
    conds: imbl::Vector<PathCond>,
    seen: TermSet,
    /// Jump classes already built, by (target term, concrete target): loops that jump
    /// through a register rebuild the same condition every iteration.
    jumps: FxHashMap<(Term, u32), Term>,
    /// Symbolic standard input bytes (8-bit terms); reads past them give -1.
    stdin: Vec<Term>,
    reads: usize,
    /// Every byte written to the output address, as an 8-bit term; a call to a
    /// shared procedure as its number (a 16-bit constant) and its arguments' terms.
    outputs: imbl::Vector<Term>,
    /// What calls to shared procedures left unknown.
    unknown: calls::Unknown,
}

/// The tracer's state after some instruction of a run: another run on inputs that
/// satisfy the conditions recorded so far takes the same first `steps` steps (every
/// input-dependent fact of them is pinned), so it can run them untraced and go on
/// from here ([`SymTracer::resume`]) instead of tracing its path from the start.
#[derive(Clone)]
pub struct Checkpoint {
    /// Where the machine stood.
    at: Position,
    run: RunState,
}

impl Checkpoint {
    /// Steps the run had executed.
    pub fn steps(&self) -> u64 {
        self.at.steps
    }

    /// How many conditions were recorded up to it.
    pub fn conds(&self) -> usize {
        self.run.conds.len()
    }

    /// The conditions recorded up to it.
    pub fn conditions(&self) -> Vec<PathCond> {
        self.run.conds.iter().copied().collect()
    }

    /// Puts `machine`, reset and loaded with the inputs `values` (as the store
    /// numbers its inputs), where a run on those inputs stands at this checkpoint: its
    /// registers, the words it stored and its output are the checkpoint's terms
    /// evaluated at `values`. The cost is the state's size, not the steps run to get
    /// here. `false` (the machine untouched) when some word of memory is known only as
    /// a memory term (after an access at an input-dependent address): then replay.
    ///
    /// Inputs that do not satisfy the checkpoint's conditions give a state no run
    /// reaches; a run traced on from it records a path whose conditions exclude its
    /// inputs, never a wrong one (the terms hold for every input that satisfies them).
    pub fn place(&self, store: &TermStore, values: &[u64], machine: &mut Machine) -> bool {
        let run = &self.run;
        if run.mem.base.is_some() {
            return false;
        }
        let mut ev = Evaluator::new(store, values);
        let mut value = |v: Val| match v {
            Val::Conc(k) => k,
            Val::Sym(t) => ev.eval(t) as u32,
        };
        let regs = Registers {
            gpr: run.regs.map(&mut value),
            hi: value(run.hi),
            lo: value(run.lo),
        };
        for (&addr, &v) in &run.mem.overlay {
            let w = value(v);
            machine.write_word(addr, w);
        }
        let output: Vec<u8> = run.outputs.iter().map(|&t| ev.eval(t) as u8).collect();
        machine.place(self.at, regs, &output);
        true
    }

    /// Whether the concrete registers it holds are the machine's (a run resumed from
    /// it must be where it was).
    pub fn matches(&self, regs: &Registers) -> bool {
        let same = |v: Val, c: u32| !matches!(v, Val::Conc(k) if k != c);
        let run = &self.run;
        run.regs.iter().zip(regs.gpr).all(|(&v, c)| same(v, c))
            && same(run.hi, regs.hi)
            && same(run.lo, regs.lo)
    }
}

/// The shadow state and the conditions of one run.
pub struct SymTracer<'s> {
    store: &'s mut TermStore,
    run: RunState,
    image_end: u32,
    termination: u32,
    steps: Option<Vec<TraceStep>>,
    limits: TraceLimits,
    term_budget_end: usize,
    /// The store's size and the conditions when the tracer began, and the checkpoints
    /// taken since: what the run has recorded ([`SymTracer::bytes_used`]).
    terms_at_start: usize,
    conds_at_start: usize,
    checkpoints_taken: usize,
    executed: u64,
    gave_up: Option<GaveUp>,
    /// Take a [`Checkpoint`] each time the conditions reach a multiple of `.0`, from
    /// `.1` conditions on.
    checkpoint_every: Option<(usize, usize)>,
    checkpoints: Vec<Checkpoint>,
    calls: calls::CallTracking,
}

impl<'s> SymTracer<'s> {
    /// A tracer that goes on from `at`, for a machine that has run the checkpoint's
    /// steps (untraced) on inputs that satisfy its conditions.
    pub fn resume(
        store: &'s mut TermStore,
        at: &Checkpoint,
        termination: u32,
        limits: TraceLimits,
    ) -> Self {
        let image_end = (at.run.mem.image.len() as u32).saturating_mul(4);
        let terms_at_start = store.len();
        let end = store_len_plus(terms_at_start, limits.max_new_terms);
        SymTracer {
            store,
            run: at.run.clone(),
            image_end,
            termination,
            steps: None,
            limits,
            term_budget_end: end,
            terms_at_start,
            conds_at_start: at.run.conds.len(),
            checkpoints_taken: 0,
            executed: at.steps(),
            gave_up: None,
            checkpoint_every: None,
            checkpoints: Vec::new(),
            calls: calls::CallTracking::default(),
        }
    }

    /// Takes a checkpoint each time the conditions reach a multiple of `every`, from
    /// `from` conditions on (a run that followed a known prefix need not take them
    /// again where earlier runs did).
    pub fn with_checkpoints(mut self, every: usize, from: usize) -> Self {
        self.checkpoint_every = Some((every.max(1), from));
        self
    }

    /// The checkpoints taken.
    pub fn take_checkpoints(&mut self) -> Vec<Checkpoint> {
        std::mem::take(&mut self.checkpoints)
    }

    /// Takes a checkpoint where one is due, after `instr` at `pc` did `event`.
    fn checkpoint(&mut self, pc: u32, instr: Instr, event: Event) {
        let n = self.run.conds.len();
        let Some((every, from)) = self.checkpoint_every else {
            return;
        };
        let taken = self.checkpoints.last().map_or(0, |c| c.conds());
        // A run after a call event cannot be placed from its terms (its output holds
        // the call, not the bytes): it takes no checkpoints.
        if n == 0
            || n < from
            || !n.is_multiple_of(every)
            || n == taken
            || self.gave_up.is_some()
            || self.run.unknown.calls > 0
        {
            return;
        }
        let next = match event {
            Event::Literal(_) => pc.wrapping_add(8),
            Event::Branch { taken: true } => Cs241::static_target(pc, instr).unwrap_or(pc),
            Event::Jump { target, .. } => target,
            _ => pc.wrapping_add(4),
        };
        self.checkpoints_taken += 1;
        self.checkpoints.push(Checkpoint {
            at: Position {
                pc: next,
                last_pc: pc,
                steps: self.executed,
                input_pos: self.run.reads,
            },
            run: self.run.clone(),
        });
    }

    /// A tracer for a machine in state `initial` running the program `image`, where
    /// the registers in `inputs` hold the given input terms. `record_steps` keeps a
    /// readable log for `--dump-trace`.
    pub fn new(
        store: &'s mut TermStore,
        initial: &Registers,
        inputs: &[(Reg, Term)],
        image: Arc<[u32]>,
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
        let image_end = (image.len() as u32).saturating_mul(4);
        SymTracer {
            store,
            run: RunState {
                regs,
                hi: Val::Conc(initial.hi),
                lo: Val::Conc(initial.lo),
                mem: TraceMemory {
                    base: None,
                    overlay: FxHashMap::default(),
                    image,
                    region: None,
                },
                sym_stores: false,
                sym_words: false,
                written: FxHashSet::default(),
                conds: imbl::Vector::new(),
                seen: TermSet::with_hasher(rustc_hash::FxBuildHasher),
                jumps: FxHashMap::default(),
                stdin: Vec::new(),
                reads: 0,
                outputs: imbl::Vector::new(),
                unknown: calls::Unknown::default(),
            },
            image_end,
            termination,
            term_budget_end: store_len_plus(base, TraceLimits::default().max_new_terms),
            terms_at_start: base,
            conds_at_start: 0,
            checkpoints_taken: 0,
            steps: record_steps.then(Vec::new),
            limits: TraceLimits::default(),
            executed: 0,
            gave_up: None,
            checkpoint_every: None,
            checkpoints: Vec::new(),
            calls: calls::CallTracking::default(),
        }
    }

    /// Words of memory that hold input terms at the start (an array input).
    pub fn with_memory(mut self, words: Vec<(u32, Term)>) -> Self {
        for (addr, t) in words {
            let v = Shadow(self.store).value(t);
            if matches!(v, Val::Sym(_)) {
                self.run.sym_words = true;
            }
            self.run.mem.overlay.insert(addr, v);
            if addr >= self.image_end {
                self.run.written.insert(addr);
            }
        }
        self
    }

    /// Standard input bytes that are inputs (8-bit terms), read in order.
    pub fn with_stdin(mut self, bytes: Vec<Term>) -> Self {
        self.run.stdin = bytes;
        self
    }

    /// The terms of an observable at this point of the run (after it ends: its result).
    pub fn observe(&mut self, what: &Observable) -> Vec<Term> {
        let regs = Regs {
            gpr: &self.run.regs,
            hi: self.run.hi,
            lo: self.run.lo,
        };
        crate::semantics::observe(
            &mut Shadow(self.store),
            regs,
            &mut self.run.mem,
            &self.run.outputs.iter().copied().collect::<Vec<_>>(),
            what,
        )
    }

    /// Bounds what tracing this run may cost.
    pub fn with_limits(mut self, limits: TraceLimits) -> Self {
        self.term_budget_end = store_len_plus(self.store.len(), limits.max_new_terms);
        self.limits = limits;
        self
    }

    /// The bytes this run has recorded, as [`TraceLimits::max_bytes`] counts them: its
    /// new terms, its conditions and its checkpoints.
    pub fn bytes_used(&self) -> usize {
        let terms = self.store.len().saturating_sub(self.terms_at_start);
        let conds = self.run.conds.len().saturating_sub(self.conds_at_start);
        terms
            .saturating_mul(TERM_BYTES)
            .saturating_add(conds.saturating_mul(COND_BYTES))
            .saturating_add(self.checkpoints_taken.saturating_mul(CHECKPOINT_BYTES))
    }

    /// Why the tracer stopped following the run, if it did: then its conditions are a
    /// prefix of the path and its registers are stale.
    pub fn gave_up(&self) -> Option<GaveUp> {
        self.gave_up
    }

    /// How many path conditions have been recorded.
    pub fn cond_count(&self) -> usize {
        self.run.conds.len()
    }

    /// The last path condition recorded.
    pub fn last_cond(&self) -> Option<PathCond> {
        self.run.conds.last().copied()
    }

    /// Consumes the tracer, giving its conditions and readable log.
    pub fn finish(self) -> (Vec<PathCond>, Vec<TraceStep>, [Val; 32]) {
        self.finish_from(0)
    }

    /// [`SymTracer::finish`], giving the conditions from the `first` on: a run resumed
    /// at a checkpoint knows those before, and copying them would cost it the length
    /// of its whole path.
    pub fn finish_from(self, first: usize) -> (Vec<PathCond>, Vec<TraceStep>, [Val; 32]) {
        let conds = &self.run.conds;
        (
            (first..conds.len()).map(|i| conds[i]).collect(),
            self.steps.unwrap_or_default(),
            self.run.regs,
        )
    }

    /// The shadow of register `r`.
    pub fn reg(&self, r: Reg) -> Val {
        self.run.regs[r.index() & 31]
    }

    /// The term for a shadow value.
    pub fn term(&mut self, v: Val) -> Term {
        Shadow(self.store).term(v)
    }

    /// The store the tracer builds in.
    pub fn store(&mut self) -> &mut TermStore {
        self.store
    }

    fn set(&mut self, pc: u32, instr: Instr, d: Reg, v: Val) {
        if d != Reg::ZERO {
            self.run.regs[d.index() & 31] = v;
            if let Val::Sym(t) = v {
                self.log(pc, instr, dump::Dest::Reg(d), t);
            }
        }
    }

    fn set_hilo(&mut self, pc: u32, instr: Instr, hi: Val, lo: Val) {
        self.run.hi = hi;
        self.run.lo = lo;
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
        if self.store.as_const(cond).is_some() || self.run.seen.insert(cond).is_some() {
            return;
        }
        if self.run.conds.len() >= self.limits.max_conds {
            self.gave_up = Some(GaveUp::Conditions);
            return;
        }
        self.run.conds.push_back(PathCond { pc, cond, kind });
        if let Some(steps) = &mut self.steps {
            steps.push(TraceStep::Cond(PathCond { pc, cond, kind }));
        }
    }

    /// Pins a symbolic access address to the concrete one the run used.
    fn pin_address(&mut self, pc: u32, a: Val, addr: u32) {
        if let Val::Sym(a) = a {
            let k = self.store.word(addr);
            let c = self.store.eq(a, k);
            self.cond(pc, c, CondKind::Address);
        }
    }

    /// The condition that a successful access at symbolic address `a` went where it did:
    /// the I/O address it used, or any valid word of memory.
    fn access_class(&mut self, a: Term, addr: u32) -> Term {
        if addr >= MEM_SIZE {
            let k = self.store.word(addr);
            return self.store.eq(a, k);
        }
        let (aligned, in_range) = address_checks(self.store, a);
        let general = self.store.and(aligned, in_range);
        let Some((lo, hi)) = self.run.mem.region else {
            return general;
        };
        // Inside the input array or not: two classes that part the inputs (the run's
        // prefix fixes which region state a later access sees). Inside, the memory
        // model keeps the words outside the array concrete.
        let (l, h) = (self.store.word(lo), self.store.word(hi));
        let below = self.store.bin(BinOp::Ult, a, l);
        let above_lo = self.store.not(below);
        let below_hi = self.store.bin(BinOp::Ult, a, h);
        let inside = self.store.and(above_lo, below_hi);
        if addr >= lo && addr < hi {
            return self.store.and(aligned, inside);
        }
        self.run.mem.region = None;
        let outside = self.store.not(inside);
        self.store.and(general, outside)
    }

    /// Confines the run's input-dependent accesses to `[lo, hi)` (the input array's
    /// words) while they stay there (see [`TraceMemory`]).
    pub fn with_array_region(mut self, region: Option<(u32, u32)>) -> Self {
        if self.run.mem.base.is_none() {
            self.run.mem.region = region.filter(|(lo, hi)| lo < hi);
        }
        self
    }

    /// The value a load from `addr` (at `a` symbolically) gave; `value` is the word
    /// the machine read.
    fn load(&mut self, pc: u32, a: Val, addr: u32, value: u32) -> Val {
        if let Val::Sym(t) = a {
            let c = self.access_class(t, addr);
            self.cond(pc, c, CondKind::Address);
        }
        // A word a call left unknown, or (memory unconfined) any word at an
        // input-dependent address.
        let words = &self.run.unknown.words;
        let unconfined = self.run.mem.region.is_none();
        if !words.is_empty() && ((matches!(a, Val::Sym(_)) && unconfined) || words.contains(&addr))
        {
            self.gave_up = Some(GaveUp::CallEffects);
        }
        let v = crate::semantics::load(&mut Shadow(self.store), &mut self.run.mem, a);
        debug_assert!(
            !matches!(v, Val::Conc(c) if c != value),
            "the shadow of {addr:#x} is {v:?}, the machine read {value:#x}"
        );
        v
    }

    /// Records a store of `v` to `addr` (at `a` symbolically).
    fn store_word(&mut self, pc: u32, instr: Instr, a: Val, v: Val, addr: u32) {
        if let Val::Conc(_) = a {
            self.run.unknown.words.remove(&addr);
        }
        if addr >= self.image_end {
            self.run.written.insert(addr);
        }
        if let Val::Sym(t) = a {
            let c = self.access_class(t, addr);
            self.cond(pc, c, CondKind::Address);
            self.run.sym_stores = true;
            self.run.sym_words = true;
        } else if let Val::Sym(tv) = v {
            self.run.sym_words = true;
            self.log(pc, instr, dump::Dest::Mem(addr), tv);
        }
        crate::semantics::store(&mut Shadow(self.store), &mut self.run.mem, a, v);
        if let (Val::Sym(_), Some(m)) = (a, self.run.mem.base) {
            self.log(pc, instr, dump::Dest::Memory, m);
        }
    }

    /// Once a stored word depends on the inputs, the word fetched at `addr` (code or a
    /// literal) may too; pins it to the value the run fetched.
    fn pin_fetched(&mut self, pc: u32, addr: u32, value: u32) {
        if !self.run.sym_words {
            return;
        }
        let word = match (self.run.mem.overlay.get(&addr), self.run.mem.base) {
            (Some(&Val::Sym(t)), _) => t,
            (Some(&Val::Conc(_)), _) | (None, None) => return,
            (None, Some(_)) if !self.run.mem.in_scope(addr) => return,
            (None, Some(m)) => {
                let k = self.store.word(addr);
                self.store.select(m, k)
            }
        };
        let c = if Cs241::decode(value).is_some() || addr != pc {
            let k = self.store.word(value);
            self.store.eq(word, k)
        } else {
            // Every word that is not an instruction fails alike: one class.
            let valid = Cs241::is_instruction(self.store, word);
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
            && (target < self.image_end
                || self.run.written.contains(&target)
                || self.run.sym_stores);
        if exact {
            let k = s.word(target);
            return s.eq(t, k);
        }
        let not_term = s.not(is_term);
        if !target.is_multiple_of(4) || target >= MEM_SIZE {
            // Any bad address fails the same way: one class.
            let bad = machine::bad_address(s, t);
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
        let mut written: Vec<u32> = self.run.written.iter().copied().collect();
        written.sort_unstable();
        for w in written {
            let k = s.word(w);
            let ne = s.ne(t, k);
            c = s.and(c, ne);
        }
        c
    }

    /// Follows one effect along the run, which did `event`: the concrete facts the run
    /// fixed and that depend on the inputs become path conditions.
    fn apply(&mut self, pc: u32, instr: Instr, effect: Effect<Val, Term>, event: Event) {
        match effect {
            // Not effects of CS241 instructions, the tracer's only target.
            Effect::Nothing | Effect::Trap { .. } | Effect::Part { .. } => {}
            Effect::Set(d, v) => self.set(pc, instr, d, v),
            Effect::SetHiLo { hi, lo } => self.set_hilo(pc, instr, hi, lo),
            Effect::Divide { divisor, hi, lo } => {
                if let Val::Sym(_) = divisor {
                    let z = alu::is_zero(&mut Shadow(self.store), divisor);
                    let nz = self.store.not(z);
                    self.cond(pc, nz, CondKind::Divisor);
                }
                self.set_hilo(pc, instr, hi, lo);
            }
            Effect::Literal(d) => {
                let v = match event {
                    Event::Literal(v) => v,
                    _ => 0,
                };
                self.pin_fetched(pc, pc.wrapping_add(4), v);
                self.set(pc, instr, d, Val::Conc(v));
            }
            Effect::Load { dest, addr: a, .. } => match event {
                Event::Load { addr, value } => {
                    let v = self.load(pc, a, addr, value);
                    self.set(pc, instr, dest, v);
                }
                Event::Input(byte) => {
                    self.pin_address(pc, a, INPUT_ADDR);
                    let symbolic = byte.and(self.run.stdin.get(self.run.reads).copied());
                    let v = match symbolic {
                        Some(b) => alu::input_word(&mut Shadow(self.store), Some(b)),
                        None => Val::Conc(byte.map_or(u32::MAX, u32::from)),
                    };
                    if byte.is_some() {
                        self.run.reads += 1;
                    }
                    self.set(pc, instr, dest, v);
                }
                _ => {}
            },
            Effect::Store { addr: a, value, .. } => match event {
                Event::Store { addr, .. } => self.store_word(pc, instr, a, value, addr),
                Event::Output(_) => {
                    self.pin_address(pc, a, OUTPUT_ADDR);
                    let byte = alu::output_byte(&mut Shadow(self.store), value);
                    self.run.outputs.push_back(byte);
                }
                _ => {}
            },
            Effect::Branch { cond, .. } => {
                if self.store.as_const(cond).is_some() {
                    return;
                }
                let taken = matches!(event, Event::Branch { taken: true });
                let holds = if taken { cond } else { self.store.not(cond) };
                self.cond(pc, holds, CondKind::Branch);
            }
            Effect::Jump {
                target: t, link, ..
            } => {
                let (target, next) = match event {
                    Event::Jump { target, link } => (target, link),
                    _ => return,
                };
                if let Val::Sym(t) = t {
                    // The class of a zero-memory target depends on what was written
                    // since, so only exact classes are remembered.
                    let c = match self.run.jumps.get(&(t, target)) {
                        Some(&c) => c,
                        None => {
                            let c = self.jump_class(t, target);
                            if target < self.image_end || target == self.termination {
                                self.run.jumps.insert((t, target), c);
                            }
                            c
                        }
                    };
                    self.cond(pc, c, CondKind::JumpTarget);
                }
                if let (Some((r, _)), Some(l)) = (link, next) {
                    self.set(pc, instr, r, Val::Conc(l));
                }
            }
        }
    }
}

/// The glue between the CS241 emulator's hooks and the semantics: the tracer proper
/// ([`SymTracer::apply`]) never looks at an instruction.
impl Tracer for SymTracer<'_> {
    fn exec(&mut self, pc: u32, instr: Instr, event: Event) {
        if self.gave_up.is_some() {
            return;
        }
        self.executed += 1;
        if self.store.len() > self.term_budget_end {
            self.gave_up = Some(GaveUp::Terms);
            return;
        }
        if self.bytes_used() > self.limits.max_bytes {
            self.gave_up = Some(GaveUp::Memory);
            return;
        }
        if self.executed.is_multiple_of(4096) && self.limits.stop.reached() {
            self.gave_up = Some(GaveUp::Deadline);
            return;
        }
        if !self.in_call(pc, event) || self.gave_up.is_some() {
            return;
        }
        if self.run.unknown.read_by(instr) {
            self.gave_up = Some(GaveUp::CallEffects);
            return;
        }
        if self.run.sym_words {
            self.pin_fetched(pc, pc, Cs241::encode(instr));
        }
        let regs = Regs {
            gpr: &self.run.regs,
            hi: self.run.hi,
            lo: self.run.lo,
        };
        let effect = Cs241::effect(&mut Shadow(self.store), regs, pc, instr);
        self.apply(pc, instr, effect, event);
        self.run.unknown.written_by(instr);
        if let (
            Instr::Jalr { .. },
            Event::Jump {
                target,
                link: Some(l),
            },
        ) = (instr, event)
        {
            self.maybe_call(target, l);
        }
        self.checkpoint(pc, instr, event);
    }

    fn fault(&mut self, instr: Option<Instr>, fault: Fault) {
        if self.gave_up.is_some() {
            return;
        }
        // A fault at the return address is the caller's: the call ended before it.
        if !self.in_call(fault.pc, Event::None)
            || self.gave_up.is_some()
            || instr.is_some_and(|i| self.run.unknown.read_by(i))
        {
            self.gave_up = Some(GaveUp::CallEffects);
            return;
        }
        // The failing word (an instruction that faults, or a word that is not one) may
        // itself depend on the inputs.
        match instr {
            Some(i) => self.pin_fetched(fault.pc, fault.pc, Cs241::encode(i)),
            None if fault.kind == FaultKind::InvalidInstruction => {
                self.pin_fetched(fault.pc, fault.pc, fault.value)
            }
            None => {}
        }
        let Some(instr) = instr else { return };
        let pc = fault.pc;
        let regs = Regs {
            gpr: &self.run.regs,
            hi: self.run.hi,
            lo: self.run.lo,
        };
        let effect = Cs241::effect(&mut Shadow(self.store), regs, pc, instr);
        match (effect, fault.kind) {
            (Effect::Divide { divisor, .. }, FaultKind::DivisionByZero) => {
                if let Val::Sym(_) = divisor {
                    let z = alu::is_zero(&mut Shadow(self.store), divisor);
                    self.cond(pc, z, CondKind::Divisor);
                }
            }
            (
                Effect::Load {
                    addr: Val::Sym(a), ..
                },
                k,
            ) => {
                let c = machine::access_fault(
                    self.store,
                    a,
                    k == FaultKind::UnalignedAccess,
                    INPUT_ADDR,
                );
                self.cond(pc, c, CondKind::Address);
            }
            (
                Effect::Store {
                    addr: Val::Sym(a), ..
                },
                k,
            ) => {
                let c = machine::access_fault(
                    self.store,
                    a,
                    k == FaultKind::UnalignedAccess,
                    OUTPUT_ADDR,
                );
                self.cond(pc, c, CondKind::Address);
            }
            _ => {}
        }
    }
}

fn store_len_plus(len: usize, extra: usize) -> usize {
    len.saturating_add(extra)
}
