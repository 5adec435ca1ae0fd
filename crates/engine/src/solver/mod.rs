//! The solver layer: one small trait, two backends (Z3 in process, an SMT-LIB solver
//! over a pipe), and links that each add one thing to the query path, composed into a
//! chain as KLEE does (see [`build_chain`]). The engines only ask the chain.
//!
//! Architecture invariant: `Unknown` (a timeout, a resource limit, a backend failure)
//! is never turned into `Unsat`. Callers treat it as "this region was not covered".

/// The methods of [`Solver`] that a link of the chain passes on to the next one
/// (its `inner`) unchanged, written once: `pass_on!(limit_time, describe, …)` inside
/// the link's `impl Solver`.
macro_rules! pass_on {
    ($($method:ident),* $(,)?) => { $(pass_on!(@ $method);)* };
    (@ limit_time) => {
        fn limit_time(&mut self, left: std::time::Duration) {
            self.inner.limit_time(left)
        }
    };
    (@ limit_work) => {
        fn limit_work(&mut self, units: u32) {
            self.inner.limit_work(units)
        }
    };
    (@ failure) => {
        fn failure(&self) -> Option<String> {
            self.inner.failure()
        }
    };
    (@ describe) => {
        fn describe(&self) -> String {
            self.inner.describe()
        }
    };
    (@ cache_hits) => {
        fn cache_hits(&self) -> u64 {
            self.inner.cache_hits()
        }
    };
    (@ backend_work) => {
        fn backend_work(&self) -> u64 {
            self.inner.backend_work()
        }
    };
    (@ warnings) => {
        fn warnings(&self) -> Vec<String> {
            self.inner.warnings()
        }
    };
}

mod cache;
mod deadline;
mod domain;
mod dump;
pub mod eliminate;
mod integer;
mod order;
mod portfolio;
mod process;
mod propagate;
mod split;
mod unary;
mod z3;

pub use self::cache::CachingSolver;
pub use self::deadline::{DeadlineSolver, INTERRUPTED, TIME_LIMIT_PASSED};
pub use self::domain::DomainSolver;
pub use self::dump::DumpingSolver;
pub use self::eliminate::EliminatingSolver;
pub use self::integer::{check_in_integers, check_opaque, IntegerLimits};
pub use self::order::OrderSolver;
pub use self::portfolio::PortfolioSolver;
pub use self::process::ProcessSolver;
pub use self::propagate::PropagatingSolver;
pub use self::split::SplittingSolver;
pub use self::z3::{Z3Mode, Z3Solver, COMPARISON_WORK_SPENT, ESCALATION, WORK_BUDGET_SPENT};

use std::time::{Duration, Instant};

use tamarin_mips::cpu::Stop;

use crate::term::{Term, TermStore};

/// Values of the inputs that satisfy a query, indexed like the store's inputs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Model {
    pub values: Vec<u64>,
}

/// A solver's answer, with the three outcomes kept apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Sat(Model),
    Unsat,
    /// The solver could not decide (the reason, as the backend gave it).
    Unknown(String),
}

impl Answer {
    /// `"sat"`, `"unsat"` or `"unknown"`.
    pub fn name(&self) -> &'static str {
        match self {
            Answer::Sat(_) => "sat",
            Answer::Unsat => "unsat",
            Answer::Unknown(_) => "unknown",
        }
    }
}

/// Decides conjunctions of Boolean terms.
pub trait Solver {
    /// Is the conjunction of `assertions` satisfiable? A model gives a value for every
    /// input of the store (inputs the query does not mention get 0). A link may add
    /// terms to the store on the way (a rewritten query, memory read as `ite` chains);
    /// terms are never changed, so the caller's stay what they were.
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer;

    /// A short description of the backend and chain, for reports.
    fn describe(&self) -> String;

    /// The next query may take at most `left` (what is left of the comparison's time
    /// limit): a backend clamps its own per-query limit to it; wrappers pass it on.
    fn limit_time(&mut self, _left: Duration) {}

    /// The next query may spend at most `units` of the backend's own count of work
    /// (Z3's resource units), is asked of a fresh solver (not one that earlier
    /// queries left state in), is not tried again with more, and is put to no solver
    /// racing on the clock: a limit that meets a query the same way however loaded
    /// the machine is. A backend without such a count keeps to its time limit only.
    fn limit_work(&mut self, _units: u32) {}

    /// Queries answered by caches in this link or the links after it.
    fn cache_hits(&self) -> u64 {
        0
    }

    /// The work the backend has done so far, in a unit that does not depend on the
    /// machine: Z3's resource units (`rlimit`); other backends count
    /// [`NOMINAL_QUERY_WORK`] per query. Where a query's cost lies.
    fn backend_work(&self) -> u64 {
        0
    }

    /// Problems worth telling the user that did not stop the search (such as a query
    /// file that could not be written).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// Why the backend is not working, if it is not (a command that does not answer
    /// like a solver): its answers were unknowns, but the run is the tool's failure,
    /// which a front end reports as such.
    fn failure(&self) -> Option<String> {
        None
    }

    /// Is the conjunction of `assertions` satisfiable, asked of Z3 in another `form`
    /// than the backend's bit-vectors ([`QueryForm`])? Links that own something every
    /// query gets (input bounds, a deadline, an interrupt, a count of queries) apply
    /// it here too; the others leave the query to Z3 as it is.
    fn check_as(
        &mut self,
        form: QueryForm,
        store: &mut TermStore,
        assertions: &[Term],
        limits: IntegerLimits,
    ) -> Answer {
        form.check(store, assertions, limits)
    }

    /// [`Solver::check_as`] in integers ([`check_in_integers`]).
    fn check_in_integers(
        &mut self,
        store: &mut TermStore,
        assertions: &[Term],
        limits: IntegerLimits,
    ) -> Answer {
        self.check_as(QueryForm::Integers, store, assertions, limits)
    }

    /// [`Solver::check_as`] with the products opaque ([`check_opaque`]).
    fn check_opaque(
        &mut self,
        store: &mut TermStore,
        assertions: &[Term],
        limits: IntegerLimits,
    ) -> Answer {
        self.check_as(QueryForm::OpaqueProducts, store, assertions, limits)
    }
}

/// A form in which a query that bit-blasting does not settle is asked of Z3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryForm {
    /// In integers ([`check_in_integers`]).
    Integers,
    /// In bit-vectors with the products opaque ([`check_opaque`]): `unsat` or unknown.
    OpaqueProducts,
}

impl QueryForm {
    fn check(self, store: &mut TermStore, assertions: &[Term], limits: IntegerLimits) -> Answer {
        match self {
            QueryForm::Integers => check_in_integers(store, assertions, limits),
            QueryForm::OpaqueProducts => check_opaque(store, assertions, limits),
        }
    }
}

impl<S: Solver + ?Sized> Solver for Box<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        (**self).check(store, assertions)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn limit_time(&mut self, left: Duration) {
        (**self).limit_time(left)
    }
    fn limit_work(&mut self, units: u32) {
        (**self).limit_work(units)
    }
    fn cache_hits(&self) -> u64 {
        (**self).cache_hits()
    }
    fn backend_work(&self) -> u64 {
        (**self).backend_work()
    }
    fn warnings(&self) -> Vec<String> {
        (**self).warnings()
    }
    fn failure(&self) -> Option<String> {
        (**self).failure()
    }
    fn check_as(
        &mut self,
        form: QueryForm,
        store: &mut TermStore,
        assertions: &[Term],
        limits: IntegerLimits,
    ) -> Answer {
        (**self).check_as(form, store, assertions, limits)
    }
}

/// Counts of what reached the solver chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SolverStats {
    /// Queries asked of the chain.
    pub queries: u64,
    /// Of those, answered by a cache without the backend.
    pub cache_hits: u64,
    pub sat: u64,
    pub unsat: u64,
    pub unknown: u64,
    /// Why the first unknown answer was unknown (`None` while every answer was known).
    pub first_unknown: Option<String>,
    /// Why the first answer that the wall clock left unknown was unknown (a per-query
    /// time limit, the comparison's deadline: [`is_clock_reason`]), if one was.
    pub first_clock_unknown: Option<String>,
    /// Time spent in the chain.
    pub time: Duration,
    /// The backend's work ([`Solver::backend_work`]): Z3's resource units, a count
    /// that does not depend on the machine's load.
    pub work: u64,
}

impl SolverStats {
    /// Counts one answer (not its time, nor cache hits).
    pub fn count(&mut self, answer: &Answer) {
        self.queries += 1;
        match answer {
            Answer::Sat(_) => self.sat += 1,
            Answer::Unsat => self.unsat += 1,
            Answer::Unknown(why) => {
                self.unknown += 1;
                self.first_unknown.get_or_insert_with(|| why.clone());
                if is_clock_reason(why) {
                    self.first_clock_unknown.get_or_insert_with(|| why.clone());
                }
            }
        }
    }

    /// The reason to report for the unknown answers: the first one the wall clock
    /// caused if any did (a result that the clock cut must say so, whatever other
    /// unknowns came first), else the first one.
    pub fn unknown_reason(&self) -> String {
        self.first_clock_unknown
            .clone()
            .or_else(|| self.first_unknown.clone())
            .unwrap_or_default()
    }
}

/// Whether an unknown answer's reason is the wall clock's doing: the comparison's
/// deadline, or a per-query time limit (`timeout`, as Z3 and piped solvers say, and as
/// the Z3 backend names a try that ran to its time limit). Resource limits, work
/// budgets and interrupts are not.
pub fn is_clock_reason(reason: &str) -> bool {
    reason == TIME_LIMIT_PASSED || reason.starts_with("timeout")
}

/// The outermost link: counts queries, answers and time, and keeps the first unknown's
/// reason, so an engine reads what it reports from here.
pub struct CountingSolver<S> {
    inner: S,
    pub stats: SolverStats,
}

impl<S: Solver> CountingSolver<S> {
    pub fn new(inner: S) -> Self {
        CountingSolver {
            inner,
            stats: SolverStats::default(),
        }
    }
}

impl<S: Solver> Solver for CountingSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        let start = Instant::now();
        let answer = self.inner.check(store, assertions);
        self.stats.time += start.elapsed();
        self.stats.count(&answer);
        self.stats.cache_hits = self.inner.cache_hits();
        self.stats.work = self.inner.backend_work();
        answer
    }
    fn check_as(
        &mut self,
        form: QueryForm,
        store: &mut TermStore,
        assertions: &[Term],
        limits: IntegerLimits,
    ) -> Answer {
        let start = Instant::now();
        let answer = self.inner.check_as(form, store, assertions, limits);
        self.stats.time += start.elapsed();
        self.stats.count(&answer);
        answer
    }
    pass_on!(
        limit_time,
        limit_work,
        failure,
        describe,
        warnings,
        backend_work
    );
}

/// What a query to a backend that does not measure its work counts as (a tenth of
/// Z3's default first try).
pub const NOMINAL_QUERY_WORK: u64 = DEFAULT_RESOURCE_LIMIT as u64 / 10;

/// Which solver chain to build.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SolverConfig {
    /// Per-query time limit (wall clock): with a resource limit, a safety net for the
    /// backend's tries; the bound of the portfolio's race.
    pub timeout: Duration,
    /// How Z3 is driven.
    pub z3_mode: Z3Mode,
    /// Whether to put the caches in front of the backend (default off: the depth-first
    /// search never repeats a query and its earlier models never satisfy a new one, so
    /// on every benchmark case they answered nothing; see docs/benchmarks-history.md).
    pub caching: bool,
    /// Write every query that reaches the backend as an SMT-LIB file here.
    pub dump_dir: Option<std::path::PathBuf>,
    /// The backend: `None` for Z3 in process, or a solver command (see
    /// [`ProcessSolver::from_name`]).
    pub external: Option<String>,
    /// Z3's deterministic resource limit of a query's first try (`rlimit`): unlike a
    /// timeout, the same query meets it the same way however loaded the machine is.
    /// The default, [`DEFAULT_RESOURCE_LIMIT`], is about a second of Z3 5's work.
    pub resource_limit: Option<u32>,
    /// Whether Z3 tries a query it left unknown again, in a fresh solver with
    /// [`ESCALATION`] times the resource limit (default on).
    pub escalate: bool,
    /// Solvers (names or command lines, as for `external`) that a query the backend
    /// left unknown is put to in parallel; those not installed are skipped. Default:
    /// Yices 2 and cvc5.
    pub portfolio: Vec<String>,
    /// The most work the backend may do over the chain's whole life, in the unit of
    /// [`Solver::backend_work`] (default none). Past it every query is unknown
    /// ([`WORK_BUDGET_SPENT`]). A count, not a clock, so a search bounded by it ends
    /// the same way on any load: `auto` gives each engine but the last such a budget.
    pub work_budget: Option<u64>,
}

/// The first try's resource limit by default: Z3 5.4 spends about a second on it
/// (docs/benchmarks-history.md, "Escalation and the portfolio").
pub const DEFAULT_RESOURCE_LIMIT: u32 = 2_000_000;

/// The per-query time limit by default: a safety net behind the resource limits.
pub const DEFAULT_QUERY_TIMEOUT: Duration = Duration::from_secs(20);

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            timeout: DEFAULT_QUERY_TIMEOUT,
            z3_mode: Z3Mode::Auto,
            caching: false,
            dump_dir: None,
            external: None,
            resource_limit: Some(DEFAULT_RESOURCE_LIMIT),
            escalate: true,
            portfolio: vec!["yices".into(), "cvc5".into()],
            work_budget: None,
        }
    }
}

/// A backend that cannot answer (its command did not parse): every query is unknown,
/// so the search stays honest. Front ends check [`ProcessSolver::probe`] first.
struct Unavailable(String);

impl Solver for Unavailable {
    fn check(&mut self, _: &mut TermStore, _: &[Term]) -> Answer {
        Answer::Unknown(self.0.clone())
    }
    fn describe(&self) -> String {
        format!("no solver ({})", self.0)
    }
}

/// Composes the whole chain in one place, outermost first:
///
/// 1. [`CountingSolver`]: counts every query, answer and the time spent (the engines
///    read their reports from it);
/// 2. [`DeadlineSolver`]: past `stop`'s deadline or after its interrupt every answer is
///    `Unknown` without asking further; before it, a query gets at most the time left;
/// 3. [`DomainSolver`]: adds `domain`, the terms that bound the inputs (an array's
///    length), to every query;
/// 4. [`SplittingSolver`]: an input that the query alone confines to a few values
///    (an array's length) but that occurs beside other inputs is tried value by value,
///    each case pinned with `x == v` for the next link to fold;
/// 5. [`PropagatingSolver`]: puts the value of every input a query fixes (`x == k`)
///    into its other conjuncts, so that the store folds them; many queries end here
///    (and one-input queries with few values are enumerated);
/// 6. [`OrderSolver`]: a query made only of comparisons between inputs and constants
///    (all signed or all unsigned) and equalities is a set of difference constraints,
///    decided by Bellman-Ford, its model checked by the evaluator;
/// 7. [`EliminatingSolver`]: replaces an input that occurs only in one sum by a fresh
///    input and maps the model back. It sees the domain (an input the domain bounds is
///    not free), and it comes before the caches and the dump, so that they work on the
///    query the backend is asked and a dump shows it;
/// 8. [`CachingSolver`] (with `config.caching`);
/// 9. [`DumpingSolver`] (with `config.dump_dir`): writes what reaches the backend;
/// 10. [`PortfolioSolver`] (with installed `config.portfolio` members other than the
///     backend): what the backend leaves unknown goes to them in parallel;
/// 11. the backend: [`Z3Solver`] in process (a first try bounded by the resource
///     limit, then, with `config.escalate`, a fresh solver with more), or
///     [`ProcessSolver`] with `config.external`. All read memory through the one array
///     lowering ([`crate::term::lower_arrays`]).
pub fn build_chain(
    config: &SolverConfig,
    stop: Stop,
    domain: Vec<Term>,
) -> CountingSolver<Box<dyn Solver>> {
    let backend: Box<dyn Solver> = match &config.external {
        None => Box::new(
            Z3Solver::new(config.z3_mode, config.timeout)
                .with_resource_limit(config.resource_limit)
                .with_escalation(config.escalate)
                .with_work_budget(config.work_budget)
                .with_interrupt(stop.flag),
        ),
        Some(cmd) => match ProcessSolver::from_name(cmd, config.timeout) {
            Ok(p) => Box::new(
                p.with_work_budget(config.work_budget)
                    .with_interrupt(stop.flag),
            ),
            Err(e) => Box::new(Unavailable(e)),
        },
    };
    let members: Vec<ProcessSolver> = config
        .portfolio
        .iter()
        .filter(|m| config.external.as_deref().map(str::trim) != Some(m.trim()))
        .filter_map(|m| ProcessSolver::from_name(m, config.timeout).ok())
        .collect();
    let backend: Box<dyn Solver> = if members.is_empty() {
        backend
    } else {
        Box::new(PortfolioSolver::new(backend, members, config.timeout).with_stop(stop))
    };
    let dumped: Box<dyn Solver> = match &config.dump_dir {
        Some(dir) => Box::new(DumpingSolver::new(backend, dir.clone())),
        None => backend,
    };
    let cached: Box<dyn Solver> = if config.caching {
        Box::new(CachingSolver::new(dumped))
    } else {
        dumped
    };
    let eliminating = EliminatingSolver::new(cached);
    let ordering = OrderSolver::new(eliminating);
    let propagating = PropagatingSolver::new(ordering);
    let splitting = SplittingSolver::new(propagating);
    let bounded = DomainSolver::new(splitting, domain);
    CountingSolver::new(Box::new(DeadlineSolver::new(bounded, stop)))
}

/// The in-process Z3 with a generous limit, for the links' tests.
#[cfg(test)]
pub(crate) fn test_z3() -> Z3Solver {
    Z3Solver::new(Z3Mode::Auto, Duration::from_secs(10))
}

/// A query that takes Z3 many seconds without a limit, in bit-vectors and in
/// integers alike, for the interrupt tests: two 32-bit factors of 2^63 - 1 (the check
/// of `--assume '$1 * $2 == 0x7fffffffffffffff'`).
#[cfg(test)]
pub(crate) fn hard_query(s: &mut TermStore) -> Vec<Term> {
    use crate::term::BinOp;
    let (x, y) = (s.new_var("x", 32), s.new_var("y", 32));
    let zero = s.constant(32, 0);
    let (wx, wy) = (s.bin(BinOp::Concat, zero, x), s.bin(BinOp::Concat, zero, y));
    let xy = s.bin(BinOp::Mul, wx, wy);
    let k = s.constant(64, 0x7fff_ffff_ffff_ffff);
    vec![s.eq(xy, k)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{BinOp, Evaluator};

    #[test]
    fn the_chain_adds_the_domain_eliminates_and_counts() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let eight = s.word(8);
        let domain = vec![s.bin(BinOp::Ult, x, eight)];
        let mut chain = build_chain(&SolverConfig::default(), Stop::default(), domain);
        let nine = s.word(9);
        let outside = s.eq(x, nine);
        assert_eq!(chain.check(&mut s, &[outside]), Answer::Unsat);
        // `$2` occurs only in the sum: eliminated, and recovered.
        let sum = s.bin(BinOp::Add, x, y);
        let k = s.word(5);
        let two = s.word(2);
        let q = [s.eq(sum, k), s.bin(BinOp::Ult, two, x)];
        let Answer::Sat(m) = chain.check(&mut s, &q) else {
            panic!("sat")
        };
        let mut ev = Evaluator::new(&s, &m.values);
        assert!(q.iter().all(|&c| ev.holds(c)));
        assert!(m.values[0] < 8, "within the domain: {:?}", m.values);
        assert_eq!(
            (chain.stats.queries, chain.stats.sat, chain.stats.unsat),
            (2, 1, 1)
        );
        assert_eq!(chain.stats.first_unknown, None);
    }

    #[test]
    fn past_the_deadline_every_answer_is_unknown_and_counted() {
        let mut s = TermStore::new();
        let t = s.bool(true);
        let stop = Stop::at(Some(Instant::now()));
        let mut chain = build_chain(&SolverConfig::default(), stop, Vec::new());
        for _ in 0..2 {
            assert_eq!(
                chain.check(&mut s, &[t]),
                Answer::Unknown(TIME_LIMIT_PASSED.into())
            );
        }
        assert_eq!((chain.stats.queries, chain.stats.unknown), (2, 2));
        assert_eq!(
            chain.stats.first_unknown.as_deref(),
            Some(TIME_LIMIT_PASSED)
        );
    }

    /// The clock's reasons are told from the counts': a per-query time limit and the
    /// comparison's deadline are the clock's, a resource limit, a spent work budget
    /// and an interrupt are not; and a clock's unknown is the one reported, even
    /// after a count's.
    #[test]
    fn unknowns_the_clock_caused_are_told_apart_and_reported_first() {
        for r in [
            TIME_LIMIT_PASSED,
            "timeout",
            "timeout (canceled)",
            "timeout while building the query",
        ] {
            assert!(is_clock_reason(r), "{r}");
        }
        for r in [
            "max. resource limit exceeded",
            "canceled",
            WORK_BUDGET_SPENT,
            INTERRUPTED,
            "unknown",
        ] {
            assert!(!is_clock_reason(r), "{r}");
        }
        let mut stats = SolverStats::default();
        stats.count(&Answer::Unknown("max. resource limit exceeded".into()));
        assert_eq!(stats.unknown_reason(), "max. resource limit exceeded");
        stats.count(&Answer::Unknown("timeout".into()));
        stats.count(&Answer::Unknown(TIME_LIMIT_PASSED.into()));
        assert_eq!(stats.unknown_reason(), "timeout");
        assert_eq!(
            stats.first_unknown.as_deref(),
            Some("max. resource limit exceeded")
        );
    }

    #[test]
    fn the_first_unknown_reason_is_kept() {
        let mut stats = SolverStats::default();
        stats.count(&Answer::Unsat);
        stats.count(&Answer::Unknown("timeout".into()));
        stats.count(&Answer::Unknown("canceled".into()));
        assert_eq!(stats.unknown, 2);
        assert_eq!(stats.first_unknown.as_deref(), Some("timeout"));
    }
}
