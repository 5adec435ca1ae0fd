//! The in-process Z3 backend, through the `z3` crate's thread-local context.
//!
//! One context serves a whole comparison: terms are lowered once and the lowered
//! ASTs are kept for later queries (the store only grows, so indices stay valid).
//! Memory is read through the one array lowering ([`ArrayLowering`]) first, so Z3
//! sees bit-vectors only.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use z3::ast::{Bool, BV};
use z3::{Params, SatResult};

use super::{Answer, Model, Solver};
use crate::term::{ArrayLowering, BinOp, Node, Term, TermStore};

/// How queries are put to Z3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Z3Mode {
    /// A fresh `QF_BV` solver per query.
    Fresh,
    /// One `QF_BV` solver shared by successive queries (renewed every few queries);
    /// each query's conjuncts are passed as assumptions (no assertions accumulate,
    /// learned clauses carry over).
    Incremental,
    /// Incremental, except for queries that multiply or divide, which get a fresh
    /// solver: the default, the fastest on every family measured (see docs/benchmarks-history.md).
    Auto,
}

#[derive(Clone)]
enum Lowered {
    Bool(Bool),
    Bv(BV),
    /// Memory arrays are not lowered themselves: [`ArrayLowering`] turns each read
    /// into an `ite` chain over the stores first (Z3 4.8's array solver answers unknown
    /// on constant arrays), so only a malformed term uses a memory as an operand.
    Memory,
    /// A term that reached an operand of the wrong sort (a bug of the term builder):
    /// any query that uses it is answered `Unknown`, never decided on invented values.
    Invalid,
}

/// Why a query with an [`Lowered::Invalid`] term is unknown.
const ILL_SORTED: &str = "internal error: an ill-sorted term reached the Z3 lowering";

/// Z3, in-process.
pub struct Z3Solver {
    /// The solver's own Z3 context (`None` where Z3 could not make one: then the
    /// thread's). Z3's answers, and the work it counts, depend on the terms its
    /// context has seen (their ids order its choices), so a context that lived on
    /// from an earlier comparison on the same thread would make the same query cost
    /// another amount, and a verdict depend on which comparisons a thread ran before.
    context: Option<z3::Context>,
    mode: Z3Mode,
    timeout: Duration,
    /// The next query's limit when the time left is shorter than `timeout`.
    limit: Option<Duration>,
    /// Z3's deterministic resource limit of a query's first try.
    rlimit: Option<u32>,
    /// The next query's only resource limit, with no second try
    /// ([`Solver::limit_work`]).
    work_limit: Option<u32>,
    /// Whether a first try that ends unknown is tried again in a fresh solver with
    /// [`ESCALATION`] times the resource limit.
    escalate: bool,
    /// Queries decided only by the second try.
    escalated: u64,
    /// Set while lowering a node whose operand has the wrong sort.
    invalid: std::cell::Cell<bool>,
    /// Memory reads as `ite` chains, kept for later queries.
    arrays: ArrayLowering,
    lowered: Vec<Option<Lowered>>,
    vars: Vec<Option<BV>>,
    shared: Option<z3::Solver>,
    /// Queries the shared solver has answered since it was made.
    shared_uses: u32,
    /// Resource units (`rlimit`) spent on all queries so far.
    work: u64,
    /// The most resource units all queries together may spend (`None`: no bound).
    work_budget: Option<u64>,
    /// Raised from outside (Ctrl-C): a query in flight is interrupted within
    /// [`WATCH_PERIOD`] ([`InFlight`]).
    interrupt: Option<&'static AtomicBool>,
}

/// How often the watcher looks at the interrupt flags of the queries in flight.
const WATCH_PERIOD: Duration = Duration::from_millis(20);

/// The Z3 contexts (as addresses) solving a query now, each with the flag that
/// interrupts its comparison. A query is listed only while Z3 works on it, so a
/// context listed here is alive.
static IN_FLIGHT: Mutex<Vec<(usize, &'static AtomicBool)>> = Mutex::new(Vec::new());

/// A query listed in [`IN_FLIGHT`] while it lives. Z3 hears of no signal (its own
/// handler is off, so that the tool's Ctrl-C handler gets it) and a query may take
/// seconds within its resource limit, so one watcher thread, started with the first
/// listed query, interrupts every listed query whose flag is raised
/// (`Z3_interrupt`, which Z3 allows from another thread): the query then ends at once
/// as unknown.
pub(super) struct InFlight(usize);

impl InFlight {
    /// Lists this thread's Z3 context, which is about to solve a query, with `flag`.
    pub(super) fn new(flag: &'static AtomicBool) -> InFlight {
        static WATCHER: OnceLock<()> = OnceLock::new();
        WATCHER.get_or_init(|| {
            let _ = std::thread::Builder::new()
                .name("tamarin-z3-interrupt".into())
                .spawn(|| loop {
                    std::thread::sleep(WATCH_PERIOD);
                    let listed = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
                    for &(ctx, flag) in listed.iter() {
                        if flag.load(Ordering::Relaxed) {
                            // SAFETY: the context is solving a query (it is listed
                            // only then, and unlisted under this lock), so it is
                            // alive; Z3_interrupt may be called from any thread.
                            if let Some(c) = std::ptr::NonNull::new(ctx as *mut _) {
                                unsafe { z3_sys::Z3_interrupt(c) };
                            }
                        }
                    }
                });
        });
        let ctx = z3::Context::thread_local().get_z3_context().as_ptr() as usize;
        IN_FLIGHT
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((ctx, flag));
        InFlight(ctx)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut listed = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = listed.iter().position(|&(c, _)| c == self.0) {
            listed.swap_remove(k);
        }
    }
}

/// Turns off Z3's own SIGINT handling for every solver, once, where this Z3 has
/// `ctrl_c` as a global parameter; whether it did. Z3 4.8 knows it only as a parameter
/// of a solver (set per query, [`Z3Solver::params`]), and prints its whole list of
/// global parameters on stderr when asked to set an unknown one.
fn no_ctrl_c_globally() -> bool {
    static GLOBAL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *GLOBAL.get_or_init(|| {
        let global = version_at_least(z3::full_version(), (4, 9));
        if global {
            z3::set_global_param("ctrl_c", "false");
        }
        global
    })
}

/// Whether a version string such as `4.8.12.0` (or `Z3 4.8.12.0`) is at least
/// `major.minor`; an unreadable one counts as older.
fn version_at_least(full: &str, (major, minor): (u32, u32)) -> bool {
    let Some(digits) = full
        .split_whitespace()
        .find(|w| w.contains('.') && w.starts_with(|c: char| c.is_ascii_digit()))
    else {
        return false;
    };
    let mut parts = digits.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}

impl Z3Solver {
    /// A backend with a per-query time limit.
    pub fn new(mode: Z3Mode, timeout: Duration) -> Z3Solver {
        // Z3 otherwise takes SIGINT for itself while it solves (to cancel the query),
        // and the tool's Ctrl-C handler never hears of it. Set once, for every solver,
        // where Z3 has it as a global parameter: as a parameter of each query it cost a
        // third of the time of query-heavy proofs.
        no_ctrl_c_globally();
        Z3Solver {
            mode,
            timeout,
            limit: None,
            rlimit: None,
            work_limit: None,
            escalate: false,
            escalated: 0,
            invalid: std::cell::Cell::new(false),
            arrays: ArrayLowering::new(),
            lowered: Vec::new(),
            vars: Vec::new(),
            shared: None,
            shared_uses: 0,
            work: 0,
            work_budget: None,
            interrupt: None,
            context: fresh_context(),
        }
    }

    /// Also bounds the work of all queries together by `budget` resource units: each
    /// try's limit is clamped to what is left, and once nothing is, every answer is
    /// unknown ([`WORK_BUDGET_SPENT`]) without asking Z3. A count, not a clock: the
    /// same queries meet it the same way on any load.
    pub fn with_work_budget(mut self, budget: Option<u64>) -> Z3Solver {
        self.work_budget = budget;
        self
    }

    /// The resource units left of the work budget (`None`: no budget).
    fn work_left(&self) -> Option<u64> {
        self.work_budget.map(|b| b.saturating_sub(self.work))
    }

    /// A try's resource limit: `rlimit`, clamped to the work budget's rest.
    fn clamped(&self, rlimit: Option<u32>) -> Option<u32> {
        match self.work_left() {
            None => rlimit,
            Some(left) => {
                let left = u32::try_from(left).unwrap_or(u32::MAX).max(1);
                Some(rlimit.map_or(left, |r| r.min(left)))
            }
        }
    }

    /// Whether an unknown answer is the work budget's doing (the try was clamped and
    /// nothing is left).
    fn budget_spent(&self) -> bool {
        self.work_left() == Some(0)
    }

    /// Interrupts a query in flight once `flag` is raised (Ctrl-C).
    pub fn with_interrupt(mut self, flag: Option<&'static AtomicBool>) -> Z3Solver {
        self.interrupt = flag;
        self
    }

    /// Also bounds each query by Z3's deterministic resource count.
    pub fn with_resource_limit(mut self, rlimit: Option<u32>) -> Z3Solver {
        self.rlimit = rlimit;
        self
    }

    /// Tries a query that the first try left unknown again, in a fresh solver (its
    /// formulas simplified as assertions are) with [`ESCALATION`] times the resource
    /// limit, within the same time limit.
    pub fn with_escalation(mut self, escalate: bool) -> Z3Solver {
        self.escalate = escalate;
        self
    }

    /// Queries that only the second, escalated try decided.
    pub fn escalated(&self) -> u64 {
        self.escalated
    }

    /// This query's limit: the per-query timeout, or the time left if shorter.
    fn query_timeout(&self) -> Duration {
        self.limit.map_or(self.timeout, |l| l.min(self.timeout))
    }

    fn params(timeout: Duration, rlimit: Option<u32>) -> Params {
        let mut p = Params::new();
        let ms = timeout.as_millis().clamp(1, u32::MAX as u128) as u32;
        p.set_u32("timeout", ms);
        if let Some(r) = rlimit {
            p.set_u32("rlimit", r);
        }
        if !no_ctrl_c_globally() {
            p.set_bool("ctrl_c", false);
        }
        p
    }

    fn get(&self, t: Term) -> Option<&Lowered> {
        self.lowered.get(t.index()).and_then(|l| l.as_ref())
    }

    /// The bit-vector `t` was lowered to. Anything else marks the node being lowered
    /// invalid (`self.invalid`); the zero returned only keeps Z3's terms well formed
    /// until the node is replaced by [`Lowered::Invalid`].
    fn bv(&self, t: Term) -> BV {
        match self.get(t) {
            Some(Lowered::Bv(b)) => b.clone(),
            _ => {
                self.invalid.set(true);
                BV::from_u64(0, 32)
            }
        }
    }

    /// The Boolean `t` was lowered to (see [`Z3Solver::bv`]).
    fn boolean(&self, t: Term) -> Bool {
        match self.get(t) {
            Some(Lowered::Bool(b)) => b.clone(),
            _ => {
                self.invalid.set(true);
                Bool::from_bool(false)
            }
        }
    }

    /// Lowers `roots` and everything they reach that is not lowered yet; gives up
    /// (returning false) at `deadline`, since building Z3 terms for very deep traces
    /// takes time that the solver's own timeout does not see. What was lowered stays.
    fn lower(&mut self, store: &TermStore, roots: &[Term], deadline: Instant) -> bool {
        if self.lowered.len() < store.len() {
            self.lowered.resize(store.len(), None);
        }
        for (k, t) in store.reachable(roots).into_iter().enumerate() {
            if self.lowered[t.index()].is_some() {
                continue;
            }
            if k % 256 == 255
                && (Instant::now() >= deadline
                    || self.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)))
            {
                return false;
            }
            self.invalid.set(false);
            let l = self.lower_node(store, t);
            let l = if self.invalid.get() {
                Lowered::Invalid
            } else {
                l
            };
            self.lowered[t.index()] = Some(l);
        }
        true
    }

    fn lower_node(&mut self, store: &TermStore, t: Term) -> Lowered {
        use Lowered::{Bool as B, Bv};
        match store.node(t) {
            Node::Bool(b) => B(Bool::from_bool(b)),
            Node::Const { width, value } => Bv(BV::from_u64(value, width as u32)),
            Node::Var { index, width } => {
                let v = BV::new_const(store.var_name(index), width as u32);
                let i = index as usize;
                if self.vars.len() <= i {
                    self.vars.resize(i + 1, None);
                }
                self.vars[i] = Some(v.clone());
                Bv(v)
            }
            Node::Not(a) => B(self.boolean(a).not()),
            Node::Bin(op, a, b) => {
                if store.is_bool(a) {
                    let (x, y) = (self.boolean(a), self.boolean(b));
                    return B(match op {
                        BinOp::And => Bool::and(&[x, y]),
                        BinOp::Or => Bool::or(&[x, y]),
                        // Bit-vector operators over Booleans are ill-sorted (read as
                        // an equality they would mean something else): no value.
                        BinOp::BvOr | BinOp::BvXor | BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                            self.invalid.set(true);
                            Bool::from_bool(false)
                        }
                        _ => x.eq(&y),
                    });
                }
                let (x, y) = (self.bv(a), self.bv(b));
                match op {
                    BinOp::Add => Bv(x.bvadd(&y)),
                    BinOp::Sub => Bv(x.bvsub(&y)),
                    BinOp::Mul => Bv(x.bvmul(&y)),
                    BinOp::UDiv => Bv(x.bvudiv(&y)),
                    BinOp::URem => Bv(x.bvurem(&y)),
                    BinOp::SDiv => Bv(x.bvsdiv(&y)),
                    BinOp::SRem => Bv(x.bvsrem(&y)),
                    BinOp::BvAnd => Bv(x.bvand(&y)),
                    BinOp::BvOr => Bv(x.bvor(&y)),
                    BinOp::BvXor => Bv(x.bvxor(&y)),
                    // A shift by a constant is a product (`x << 2` is `x * 4`), which
                    // Z3's rewriter adds up with the other products of a sum: a
                    // strength-reduced `(x << 2) + x` then meets `x * 5` as the same
                    // term, where bit-blasted adders would take a SAT solver minutes.
                    BinOp::Shl => match store.constant_shift(b) {
                        Some((k, width)) => Bv(x.bvmul(BV::from_u64(1u64 << k, width as u32))),
                        None => Bv(x.bvshl(&y)),
                    },
                    BinOp::LShr => Bv(x.bvlshr(&y)),
                    BinOp::AShr => Bv(x.bvashr(&y)),
                    BinOp::Concat => Bv(x.concat(&y)),
                    BinOp::Eq => B(x.eq(&y)),
                    BinOp::Ult => B(x.bvult(&y)),
                    BinOp::Slt => B(x.bvslt(&y)),
                    BinOp::And | BinOp::Or => B(Bool::from_bool(false)),
                }
            }
            Node::Extract { hi, lo, arg } => Bv(self.bv(arg).extract(hi as u32, lo as u32)),
            Node::SignExt { by, arg } => Bv(self.bv(arg).sign_ext(by as u32)),
            Node::ZeroExt { by, arg } => Bv(self.bv(arg).zero_ext(by as u32)),
            Node::Ite(c, a, b) => Bv(self.boolean(c).ite(&self.bv(a), &self.bv(b))),
            Node::ConstArray(_) | Node::Store(..) => Lowered::Memory,
            // The array lowering leaves a read only where its memory is malformed.
            Node::Select(..) => Lowered::Invalid,
        }
    }

    /// One try: the shared solver with the conjuncts as assumptions (`incremental`), or
    /// a fresh solver that asserts them.
    fn try_once(
        &mut self,
        store: &TermStore,
        conjuncts: &[Bool],
        incremental: bool,
        timeout: Duration,
        rlimit: Option<u32>,
    ) -> Answer {
        if self.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Answer::Unknown(super::INTERRUPTED.into());
        }
        let fresh = || z3::Solver::new_for_logic("QF_BV").unwrap_or_default();
        let solver = if incremental {
            self.shared.take().unwrap_or_else(fresh)
        } else {
            fresh()
        };
        solver.set_params(&Self::params(timeout, rlimit));
        let before = Self::rlimit_count(&solver);
        let tried = Instant::now();
        let watched = self.interrupt.map(InFlight::new);
        let result = if incremental {
            solver.check_assumptions(conjuncts)
        } else {
            for c in conjuncts {
                solver.assert(c);
            }
            solver.check()
        };
        drop(watched);
        self.work += Self::rlimit_count(&solver).saturating_sub(before);
        let answer = match result {
            SatResult::Sat => match solver.get_model() {
                Some(m) => Answer::Sat(self.model(store, &m)),
                None => Answer::Unknown("the solver reported sat without a model".into()),
            },
            SatResult::Unsat => Answer::Unsat,
            SatResult::Unknown => Answer::Unknown(Self::unknown_reason(
                &solver,
                tried.elapsed() >= timeout.mul_f64(0.95),
                self.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)),
            )),
        };
        if incremental {
            // Everything a solver has internalised stays in it; multiplications
            // bit-blast to thousands of clauses that slow every later query, so the
            // shared solver is renewed now and then (see docs/benchmarks-history.md).
            self.shared_uses += 1;
            if self.shared_uses < REUSE_LIMIT {
                self.shared = Some(solver);
            } else {
                self.shared_uses = 0;
            }
        }
        answer
    }

    /// [`Solver::check`] in the context current on this thread (the solver's own).
    fn check_here(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        let start = Instant::now();

        let timeout = self.query_timeout();
        self.limit = None;
        let work_limit = self.work_limit.take();
        if self.budget_spent() {
            return Answer::Unknown(WORK_BUDGET_SPENT.into());
        }
        let lowered = self.arrays.lower(store, assertions);
        let (store, assertions) = (&*store, lowered.as_slice());
        if !self.lower(store, assertions, start + timeout) {
            return Answer::Unknown("timeout while building the query".into());
        }
        let conjuncts: Option<Vec<Bool>> = assertions
            .iter()
            .map(|&a| match self.get(a) {
                Some(Lowered::Bool(b)) => Some(b.clone()),
                _ => None,
            })
            .collect();
        let Some(conjuncts) = conjuncts else {
            debug_assert!(false, "an ill-sorted or unlowered term reached Z3");
            return Answer::Unknown(ILL_SORTED.into());
        };
        // A query held to a count of work is asked of a fresh solver: its answer then
        // depends on the query alone, and the fresh solver's preprocessing settles
        // in milliseconds what the shared one's assumptions may not in seconds.
        let incremental = work_limit.is_none()
            && match self.mode {
                Z3Mode::Fresh => false,
                Z3Mode::Incremental => true,
                Z3Mode::Auto => !store.has_arithmetic(assertions),
            };
        // Without a resource limit the first try is bounded by a quarter of the time,
        // so that the second has some.
        let first_timeout = match (self.escalate, self.rlimit, work_limit) {
            (true, None, None) => timeout / 4,
            _ => timeout,
        };
        let rlimit = self.clamped(work_limit.or(self.rlimit));
        let first = self.try_once(store, &conjuncts, incremental, first_timeout, rlimit);
        if !matches!(first, Answer::Unknown(_)) {
            return first;
        }
        if self.budget_spent() {
            return Answer::Unknown(WORK_BUDGET_SPENT.into());
        }
        let left = timeout.saturating_sub(start.elapsed());
        if !self.escalate || work_limit.is_some() || left < MIN_SECOND_TRY {
            return first;
        }
        let rlimit = self.clamped(self.rlimit.map(|r| r.saturating_mul(ESCALATION)));
        let second = self.try_once(store, &conjuncts, false, left, rlimit);
        if !matches!(second, Answer::Unknown(_)) {
            self.escalated += 1;
        } else if self.budget_spent() {
            return Answer::Unknown(WORK_BUDGET_SPENT.into());
        }
        second
    }

    /// Why a try was left unknown. Z3 says `canceled` both when its resource limit
    /// cuts a tactic and when it is stopped from outside, so a try that ran to its
    /// time limit is named `timeout`, and one stopped by the interrupt flag
    /// [`super::INTERRUPTED`]: a report must tell the clock's cuts from the counts'
    /// ([`super::is_clock_reason`]).
    fn unknown_reason(solver: &z3::Solver, out_of_time: bool, interrupted: bool) -> String {
        let said = solver
            .get_reason_unknown()
            .unwrap_or_else(|| "unknown".to_string());
        if interrupted {
            super::INTERRUPTED.to_string()
        } else if out_of_time && !said.starts_with("timeout") {
            format!("timeout ({said})")
        } else {
            said
        }
    }

    /// The resource units a solver has spent so far (Z3's `rlimit count`).
    fn rlimit_count(solver: &z3::Solver) -> u64 {
        match solver.get_statistics().value("rlimit count") {
            Some(z3::StatisticsValue::UInt(n)) => n as u64,
            Some(z3::StatisticsValue::Double(x)) => x as u64,
            None => 0,
        }
    }

    fn model(&self, store: &TermStore, model: &z3::Model) -> Model {
        let values = (0..store.var_count())
            .map(|i| {
                self.vars
                    .get(i)
                    .and_then(|v| v.as_ref())
                    .and_then(|v| model.eval(v, true))
                    .and_then(|v| v.as_u64())
                    .unwrap_or(0)
            })
            .collect();
        Model { values }
    }
}

impl Solver for Z3Solver {
    fn backend_work(&self) -> u64 {
        self.work
    }
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        match self.context.clone() {
            Some(ctx) => in_context(&ctx, || self.check_here(store, assertions)),
            None => self.check_here(store, assertions),
        }
    }

    fn limit_time(&mut self, left: Duration) {
        // Two limits on one query (a caller's and the deadline's): the shorter holds.
        self.limit = Some(self.limit.map_or(left, |l| l.min(left)));
    }

    fn limit_work(&mut self, units: u32) {
        self.work_limit = Some(self.work_limit.map_or(units, |u| u.min(units)));
    }

    fn describe(&self) -> String {
        let mode = match self.mode {
            Z3Mode::Fresh => "fresh QF_BV solver per query",
            Z3Mode::Incremental => "one incremental QF_BV solver, queries as assumptions",
            Z3Mode::Auto => {
                "incremental QF_BV solver with queries as assumptions, a fresh one for arithmetic"
            }
        };
        let mut d = format!("z3 {}, {mode}", z3::full_version());
        if let Some(r) = self.rlimit {
            d.push_str(&format!(", rlimit {r}"));
        }
        if self.escalate {
            d.push_str(&format!(
                ", unknowns tried again fresh with {ESCALATION}x the limit"
            ));
        }
        d
    }
}

/// A new Z3 context, as the `z3` crate makes its thread-local one.
pub(super) fn fresh_context() -> Option<z3::Context> {
    // SAFETY: the configuration is deleted once the context is made from it, and the
    // new context is handed to `Context`, which owns it from then on (and deletes it
    // when its last user is dropped).
    unsafe {
        let cfg = z3_sys::Z3_mk_config()?;
        let ctx = z3_sys::Z3_mk_context_rc(cfg);
        z3_sys::Z3_del_config(cfg);
        let ctx = ctx?;
        z3_sys::Z3_set_error_handler(ctx, None);
        Some(z3::Context::from_raw(ctx))
    }
}

/// Runs `work` with `ctx` as this thread's Z3 context, then restores the one before.
pub(super) fn in_context<R>(ctx: &z3::Context, work: impl FnOnce() -> R) -> R {
    /// `with_z3_context` asks for a closure it could send to another thread; it runs
    /// it on this one, where everything it touches lives.
    struct SameThread<T>(T);
    // SAFETY: `with_z3_context` calls the closure on the calling thread, before it
    // returns, and hands its result back there; nothing crosses a thread.
    unsafe impl<T> Send for SameThread<T> {}
    unsafe impl<T> Sync for SameThread<T> {}
    impl<T> SameThread<T> {
        fn into_inner(self) -> T {
            self.0
        }
    }
    let work = SameThread(work);
    z3::with_z3_context(ctx, move || SameThread(work.into_inner()())).into_inner()
}

/// How much more resource the second try of an escalated query gets than the first.
pub const ESCALATION: u32 = 8;

/// Why a query was left unknown once the chain's work budget
/// ([`super::SolverConfig::work_budget`]) was spent.
pub const WORK_BUDGET_SPENT: &str = "the solver work budget of this search was spent";

/// Why the last phase of `auto` left a query unknown once the work budget of the
/// whole comparison was spent (the same budget as [`WORK_BUDGET_SPENT`]'s, named for
/// what it bounds).
pub const COMPARISON_WORK_SPENT: &str = "the solver work budget of the comparison was spent";

/// A second try with less time than this left is not started.
const MIN_SECOND_TRY: Duration = Duration::from_millis(20);

/// How many queries one shared solver answers before it is renewed (measured: 8 is
/// about best on the nested family, see docs/benchmarks-history.md).
const REUSE_LIMIT: u32 = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Evaluator;

    #[test]
    fn versions_are_read_from_z3s_version_string() {
        assert!(version_at_least("5.4.1.0", (4, 9)));
        assert!(version_at_least("Z3 4.12.2.0", (4, 9)));
        assert!(!version_at_least("4.8.12.0", (4, 9)));
        assert!(!version_at_least("garbage", (4, 9)));
    }

    /// Two factors of 0xC0FFEE below 2^16: Z3 5.4 needs about 690,000 units of its
    /// resource limit for it, more than a first try of 150,000 and less than 8 times
    /// that.
    fn factoring(s: &mut TermStore) -> Vec<Term> {
        let (x, y) = (s.new_var("x", 32), s.new_var("y", 32));
        let (one, big, k) = (s.word(1), s.word(0x1_0000), s.word(0xC0_FFEE));
        let xy = s.bin(BinOp::Mul, x, y);
        vec![
            s.eq(xy, k),
            s.bin(BinOp::Ult, one, x),
            s.bin(BinOp::Ult, one, y),
            s.bin(BinOp::Ult, x, big),
            s.bin(BinOp::Ult, y, big),
        ]
    }

    /// Each solver has a context of its own, so the work Z3 counts for a query does
    /// not depend on what the thread solved before: with the thread's shared context,
    /// the terms of earlier queries changed how much the same query cost, and a
    /// verdict bounded by work depended on which comparisons a thread ran first.
    #[test]
    fn a_query_costs_the_same_work_whatever_the_thread_solved_before() {
        let cost = |before: bool| {
            if before {
                let mut other = TermStore::new();
                let (a, b) = (other.new_var("a", 32), other.new_var("b", 32));
                let ab = other.bin(BinOp::Mul, a, b);
                let k = other.word(0x7654_3211);
                let q = [other.eq(ab, k), other.eq(a, b)];
                let mut z3 = Z3Solver::new(Z3Mode::Auto, Duration::from_secs(600))
                    .with_resource_limit(Some(3_000_000));
                let _ = z3.check(&mut other, &q);
                assert!(z3.backend_work() > 0);
            }
            let mut s = TermStore::new();
            let q = factoring(&mut s);
            let mut z3 = Z3Solver::new(Z3Mode::Auto, Duration::from_secs(600))
                .with_resource_limit(Some(5_000_000));
            assert!(matches!(z3.check(&mut s, &q), Answer::Sat(_)));
            z3.backend_work()
        };
        let fresh = std::thread::spawn(move || cost(false)).join().unwrap();
        let after = std::thread::spawn(move || cost(true)).join().unwrap();
        assert_eq!(fresh, after);
    }

    #[test]
    fn what_the_first_try_leaves_unknown_the_escalated_one_decides() {
        let mut s = TermStore::new();
        let q = factoring(&mut s);
        let limited = |escalate| {
            Z3Solver::new(Z3Mode::Auto, Duration::from_secs(600))
                .with_resource_limit(Some(150_000))
                .with_escalation(escalate)
        };
        let mut once = limited(false);
        assert!(matches!(once.check(&mut s, &q), Answer::Unknown(_)));
        let mut twice = limited(true);
        let Answer::Sat(m) = twice.check(&mut s, &q) else {
            panic!("the second try decides it")
        };
        let mut ev = Evaluator::new(&s, &m.values);
        assert!(q.iter().all(|&c| ev.holds(c)), "{m:?}");
        assert_eq!(twice.escalated(), 1);
    }

    /// A query held to a count of work gets that count alone, and no second try:
    /// the factoring that an escalated try decides stays unknown under 150,000 units
    /// (with escalation on and a larger resource limit configured), is decided under
    /// 5,000,000, and the limit holds for that one query only.
    #[test]
    fn a_work_limit_holds_for_one_query_without_a_second_try() {
        let mut s = TermStore::new();
        let q = factoring(&mut s);
        let mut z3 = Z3Solver::new(Z3Mode::Auto, Duration::from_secs(600))
            .with_resource_limit(Some(5_000_000))
            .with_escalation(true);
        z3.limit_work(150_000);
        assert!(matches!(z3.check(&mut s, &q), Answer::Unknown(_)));
        assert!(z3.backend_work() <= 150_000, "{}", z3.backend_work());
        assert_eq!(z3.escalated(), 0);
        assert!(matches!(z3.check(&mut s, &q), Answer::Sat(_)));
        z3.limit_work(5_000_000);
        assert!(matches!(z3.check(&mut s, &q), Answer::Sat(_)));
    }

    /// A shift by a constant reaches Z3 as a product; it must mean the same shift:
    /// for every amount, `x << k` is `x * 2^k` on the values tried, and three trips
    /// of a strength-reduced `s = (s << 2) + s + b` are `5 * s' + b` after two, for
    /// every `s` and `b` (which Z3 proves at once by adding up products; as shifts, a
    /// bit-blasted comparison of adders stays undecided for minutes).
    #[test]
    fn a_constant_shift_is_the_product_it_stands_for() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let mut z3 = Z3Solver::new(Z3Mode::Fresh, Duration::from_secs(60));
        for k in 0..40u32 {
            for value in [0u32, 1, 0x8000_0001, 0xDEAD_BEEF, u32::MAX] {
                let (v, by) = (s.word(value), s.word(k));
                let shifted = s.bin(BinOp::Shl, x, by);
                let expected = if k < 32 { value.wrapping_shl(k) } else { 0 };
                let e = s.word(expected);
                let pinned = s.eq(x, v);
                let differs = s.eq(shifted, e);
                let differs = s.not(differs);
                assert_eq!(
                    z3.check(&mut s, &[pinned, differs]),
                    Answer::Unsat,
                    "{value:#x} << {k}"
                );
            }
        }
        let (b, two, five) = (s.new_var("b", 32), s.word(2), s.word(5));
        let trip = |s: &mut TermStore, v: Term| {
            let by_four = s.bin(BinOp::Shl, v, two);
            let sum = s.bin(BinOp::Add, by_four, v);
            s.bin(BinOp::Add, sum, b)
        };
        let second = trip(&mut s, x);
        let second = trip(&mut s, second);
        let third = trip(&mut s, second);
        let five_times = s.bin(BinOp::Mul, five, second);
        let expected = s.bin(BinOp::Add, five_times, b);
        let same = s.eq(third, expected);
        let differs = s.not(same);
        z3.limit_work(1_000_000);
        assert_eq!(z3.check(&mut s, &[differs]), Answer::Unsat);
    }

    /// The work budget clamps each try and then refuses: a query that needs about
    /// 690,000 units is unknown within a budget of 300,000 (whatever the resource
    /// limit), the budget is not overspent, and every later query is unknown at once
    /// with the budget's reason. Within a budget that covers it, it is decided.
    #[test]
    fn the_work_budget_bounds_every_try_and_then_refuses() {
        let mut s = TermStore::new();
        let q = factoring(&mut s);
        let budgeted = |budget| {
            Z3Solver::new(Z3Mode::Auto, Duration::from_secs(600))
                .with_resource_limit(Some(150_000))
                .with_escalation(true)
                .with_work_budget(Some(budget))
        };
        let mut small = budgeted(300_000);
        assert_eq!(
            small.check(&mut s, &q),
            Answer::Unknown(WORK_BUDGET_SPENT.into())
        );
        assert!(small.backend_work() <= 300_000, "{}", small.backend_work());
        let t = s.bool(true);
        assert_eq!(
            small.check(&mut s, &[t]),
            Answer::Unknown(WORK_BUDGET_SPENT.into())
        );
        let mut large = budgeted(5_000_000);
        assert!(matches!(large.check(&mut s, &q), Answer::Sat(_)));
    }

    #[test]
    fn memory_reads_are_lowered_and_malformed_ones_are_invalid() {
        let mut s = TermStore::new();
        let (x, y) = (s.new_var("x", 32), s.new_var("y", 32));
        let (zero, seven) = (s.word(0), s.word(7));
        let m0 = s.const_array(zero);
        let m1 = s.store(m0, x, seven);
        let read = s.select(m1, y);
        let q = [s.eq(read, seven), s.ne(x, y)];
        let mut z3 = Z3Solver::new(Z3Mode::Fresh, Duration::from_secs(5));
        assert_eq!(z3.check(&mut s, &q), Answer::Unsat);
        let q = [s.eq(read, seven)];
        let Answer::Sat(m) = z3.check(&mut s, &q) else {
            panic!("sat")
        };
        assert_eq!(m.values[0], m.values[1]);
        // A read of something that is not memory has no value: its users are invalid.
        let not_memory = s.new_var("m", 32);
        let bad = s.select(not_memory, x);
        let bad = s.eq(bad, seven);
        let lowered = z3.arrays.lower(&mut s, &[bad]);
        assert!(z3.lower(&s, &lowered, Instant::now() + Duration::from_secs(5)));
        assert!(matches!(z3.get(lowered[0]), Some(Lowered::Invalid)));
    }

    #[test]
    fn a_raised_flag_interrupts_a_query_in_flight_and_later_queries_are_answered() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        let mut s = TermStore::new();
        let hard = super::super::hard_query(&mut s);
        let mut z3 = Z3Solver::new(Z3Mode::Auto, Duration::from_secs(600))
            .with_resource_limit(None)
            .with_escalation(false)
            .with_interrupt(Some(&FLAG));
        let raiser = std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            FLAG.store(true, Ordering::SeqCst);
            Instant::now()
        });
        let answer = z3.check(&mut s, &hard);
        let ended = Instant::now();
        let raised = raiser.join().expect("raiser");
        assert!(matches!(answer, Answer::Unknown(_)), "{answer:?}");
        // The watcher looks every 20 ms; the margin absorbs a loaded machine.
        assert!(
            ended.saturating_duration_since(raised) < Duration::from_millis(1500),
            "ended {:?} after the flag",
            ended.saturating_duration_since(raised)
        );
        // While it is raised nothing is asked; lowered again, Z3 answers in this thread.
        let (x, five) = (s.new_var("z", 32), s.word(5));
        let easy = [s.eq(x, five)];
        assert!(matches!(z3.check(&mut s, &easy), Answer::Unknown(_)));
        FLAG.store(false, Ordering::SeqCst);
        assert!(matches!(z3.check(&mut s, &easy), Answer::Sat(_)));
        let mut fresh = Z3Solver::new(Z3Mode::Fresh, Duration::from_secs(60));
        assert!(matches!(fresh.check(&mut s, &easy), Answer::Sat(_)));
    }
}
