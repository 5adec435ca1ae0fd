//! The solver layer: one small trait, a Z3 backend, and wrappers that add caching,
//! query dumps and accounting, composed into a chain as KLEE does.
//!
//! Architecture invariant: `Unknown` (a timeout, a resource limit, a backend failure)
//! is never turned into `Unsat`. Callers treat it as "this region was not covered".

mod cache;
mod deadline;
mod dump;
pub mod eliminate;
mod process;
mod z3;

pub use self::cache::CachingSolver;
pub use self::deadline::{DeadlineSolver, TIME_LIMIT_PASSED};
pub use self::dump::DumpingSolver;
pub use self::process::ProcessSolver;
pub use self::z3::{Z3Mode, Z3Solver};

use std::time::{Duration, Instant};

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
    /// input of the store (inputs the query does not mention get 0).
    fn check(&mut self, store: &TermStore, assertions: &[Term]) -> Answer;

    /// A short description of the backend and chain, for reports.
    fn describe(&self) -> String;

    /// The next query may take at most `left` (what is left of the comparison's time
    /// limit): a backend clamps its own per-query limit to it; wrappers pass it on.
    fn limit_time(&mut self, _left: Duration) {}

    /// Queries answered by caches in this link or the links after it.
    fn cache_hits(&self) -> u64 {
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
}

impl<S: Solver + ?Sized> Solver for Box<S> {
    fn check(&mut self, store: &TermStore, assertions: &[Term]) -> Answer {
        (**self).check(store, assertions)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn limit_time(&mut self, left: Duration) {
        (**self).limit_time(left)
    }
    fn cache_hits(&self) -> u64 {
        (**self).cache_hits()
    }
    fn warnings(&self) -> Vec<String> {
        (**self).warnings()
    }
    fn failure(&self) -> Option<String> {
        (**self).failure()
    }
}

/// Counts of what reached the solver chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolverStats {
    /// Queries asked of the chain.
    pub queries: u64,
    /// Of those, answered by a cache without the backend.
    pub cache_hits: u64,
    pub sat: u64,
    pub unsat: u64,
    pub unknown: u64,
    /// Time spent in the chain.
    pub time: Duration,
}

/// The outermost link: counts queries and time.
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
    fn check(&mut self, store: &TermStore, assertions: &[Term]) -> Answer {
        let start = Instant::now();
        let answer = self.inner.check(store, assertions);
        self.stats.time += start.elapsed();
        self.stats.queries += 1;
        match answer {
            Answer::Sat(_) => self.stats.sat += 1,
            Answer::Unsat => self.stats.unsat += 1,
            Answer::Unknown(_) => self.stats.unknown += 1,
        }
        self.stats.cache_hits = self.inner.cache_hits();
        answer
    }
    fn limit_time(&mut self, left: Duration) {
        self.inner.limit_time(left)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn failure(&self) -> Option<String> {
        self.inner.failure()
    }
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }
}

/// Which solver chain to build.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SolverConfig {
    /// Per-query time limit.
    pub timeout: Duration,
    /// How Z3 is driven.
    pub z3_mode: Z3Mode,
    /// Whether to put the caches in front of the backend (default off: the depth-first
    /// search never repeats a query and its earlier models never satisfy a new one, so
    /// on every benchmark case they answered nothing; see BENCHMARKS.md).
    pub caching: bool,
    /// Write every query that reaches the backend as an SMT-LIB file here.
    pub dump_dir: Option<std::path::PathBuf>,
    /// The backend: `None` for Z3 in process, or a solver command (see
    /// [`ProcessSolver::from_name`]).
    pub external: Option<String>,
    /// Z3's deterministic resource limit per query (`rlimit`; default none): unlike a
    /// timeout, the same query meets it the same way however loaded the machine is.
    pub resource_limit: Option<u32>,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            timeout: Duration::from_secs(5),
            z3_mode: Z3Mode::Auto,
            caching: false,
            dump_dir: None,
            external: None,
            resource_limit: None,
        }
    }
}

/// A backend that cannot answer (its command did not parse): every query is unknown,
/// so the search stays honest. Front ends check [`ProcessSolver::probe`] first.
struct Unavailable(String);

impl Solver for Unavailable {
    fn check(&mut self, _: &TermStore, _: &[Term]) -> Answer {
        Answer::Unknown(self.0.clone())
    }
    fn describe(&self) -> String {
        format!("no solver ({})", self.0)
    }
}

/// Composes the whole chain in one place: counting → deadline → caches → dumping →
/// backend. Every query is counted (the engines read the counts), gets at most the time
/// left before `deadline` (the comparison's time limit), and none is asked after it.
pub fn build_chain(
    config: &SolverConfig,
    deadline: Option<Instant>,
) -> CountingSolver<Box<dyn Solver>> {
    let backend: Box<dyn Solver> = match &config.external {
        None => Box::new(
            Z3Solver::new(config.z3_mode, config.timeout)
                .with_resource_limit(config.resource_limit),
        ),
        Some(cmd) => match ProcessSolver::from_name(cmd, config.timeout) {
            Ok(p) => Box::new(p),
            Err(e) => Box::new(Unavailable(e)),
        },
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
    CountingSolver::new(Box::new(DeadlineSolver::new(cached, deadline)))
}
