//! The settings of a comparison (and of `check` and `explore`), shared by every engine:
//! every default is here.

use std::time::Duration;

use tamarin_mips::cpu::Config;

use crate::budget::Budget;

use crate::io::{InputSpec, Observable};
use crate::solver::SolverConfig;
use crate::trace::TraceLimits;
use crate::verdict;

/// Solver work (Z3's resource units) that a deterministic comparison may spend per
/// second of its time limit: half of what Z3 5.4 does in a second on an idle core
/// (its default first try, 2,000,000 units, takes about one), so the count, not the
/// clock, ends the search on a machine up to about twice as busy.
pub const DETERMINISTIC_WORK_PER_SECOND: u64 = 1_000_000;

/// The solver work of a deterministic comparison with time limit `timeout`.
pub fn deterministic_work(timeout: Duration) -> u64 {
    (timeout.as_millis() as u64).saturating_mul(DETERMINISTIC_WORK_PER_SECOND) / 1000
}

/// Settings of a comparison. Every default is here.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Options {
    /// Steps per run (default 10000).
    pub fuel: u64,
    /// Path conditions per path that the bug hunt explores first (default 50). In a
    /// comparison it orders the search and bounds only the hunt: once every path
    /// within it is explored and nothing differs, the proof follows the deeper paths
    /// too, bounded by the fuel, the time limit and the path budget. Exploring one
    /// program alone (`check`, `explore`) stops at it.
    pub depth: usize,
    /// The first inputs, in the order of the input variables (default all 0).
    pub init_inputs: Vec<u32>,
    /// How inputs enter the programs (default `$1`, `$2`).
    pub inputs: InputSpec,
    /// Bytes of standard input that are inputs (default 0: reads give -1).
    pub stdin_len: usize,
    /// What is compared when both runs end (default `$3`).
    pub observe: Vec<Observable>,
    /// The solver chain.
    pub solver: SolverConfig,
    /// Most inputs to try (default 10000).
    pub max_runs: u64,
    /// Time limit for the whole comparison (default none). It becomes a deadline in
    /// one place, [`Budget::start`], when the work begins (see [`Options::budget`]).
    pub timeout: Option<Duration>,
    /// Most path pairs to check in the final proof step (default 100000), not counting
    /// pairs whose conditions pin an input to values with none in common.
    pub max_pairs: u64,
    /// Most paths to enumerate when exploring one program (default none).
    pub max_paths: Option<u64>,
    /// Produce readable traces for the observer.
    pub dump_trace: bool,
    /// The termination address (initial `$31`).
    pub termination: u32,
    /// What tracing may cost (conditions and new terms per run, bytes for the whole
    /// search: [`TraceLimits::max_bytes`]); the stop is the budget's.
    pub trace_limits: TraceLimits,
    /// Which engine a comparison uses (default auto: see the `equiv` module).
    pub engine: verdict::Engine,
    /// Most terms the merged encoding of both programs may build (default 4,000,000).
    pub max_encoding_terms: usize,
    /// Whether a path search resumes a run from a tracer checkpoint when its inputs
    /// are known to follow a traced prefix, replaying the steps before it untraced
    /// (default true; off, every run is traced from its first step: for tests that
    /// compare the two).
    pub trace_resume: bool,
    /// Whether the merged encoding's difference query, when the solver cannot decide it
    /// whole, is asked again in groups of one program's ends (default true).
    pub bmc_split: bool,
    /// Whether one program ending where the other runs out of fuel is a difference
    /// (default: never, the report's rule).
    pub out_of_fuel: verdict::FuelPolicy,
    /// Preconditions on the inputs (default none): a counterexample satisfies them all,
    /// and a proof covers the inputs that do.
    pub assume: Vec<crate::assume::Precondition>,
    /// A program that says which inputs are in the domain (default none): an input is
    /// when it ends normally with `$3 = 1` within its own fuel, run on the same
    /// inputs (see [`crate::DomainProgram`]). Like `assume`, its acceptance joins every
    /// query and every concrete input is checked against it.
    pub assume_program: Option<crate::io::DomainProgram>,
    /// Whether a comparison minimises its counterexample concretely after the engine's
    /// own shrinking (default true): fewer array elements, then inputs nearer 0, each
    /// step replayed (see the `minimise` module). Off, the counterexample is as the
    /// engine's solver-guided shrinking left it: for tests that compare the two.
    pub minimise: bool,
    /// Whether a comparison's report keeps each program's explored paths
    /// ([`crate::Report::paths`], for pictures of the path trees; default false). Only
    /// the path search has paths: the merged encoding leaves them empty.
    pub keep_paths: bool,
    /// Raised from outside (Ctrl-C) to stop the comparison early (default none).
    pub interrupt: Option<&'static std::sync::atomic::AtomicBool>,
    /// Whether the verdict is decided by counts only (default false): solver resource
    /// units, runs, paths, steps, terms. The time limit is then a safety net, and a
    /// result it cut says so ([`crate::Incomplete::cut_by_wall_clock`]), so the same
    /// task gives the same verdict on an idle machine and a busy one. It asks for Z3 in
    /// process with a resource limit and no portfolio (a pipe and a race are bounded
    /// by the clock: [`Options::validate`] refuses them); `auto`'s merged encoding is
    /// bounded by its work alone instead of by half of the time left; and the solver
    /// work of the whole comparison, unless [`SolverConfig::work_budget`] sets it, is
    /// [`DETERMINISTIC_WORK_PER_SECOND`] per second of the time limit.
    pub deterministic: bool,
    /// Compare calls to shared procedures (a procedure both programs contain word for
    /// word, such as a linked runtime's `print`) by their arguments instead of
    /// following them (default on; see `tamarin::shared` for when a procedure
    /// qualifies).
    pub shared_calls: bool,
    /// Where the checks of shared procedures are kept between processes (default none:
    /// each process checks again; the command line names the user's cache directory).
    pub procedure_cache: Option<std::path::PathBuf>,
    /// The budget the work draws from (default none: the front door starts one from
    /// `timeout`, `interrupt`, `fuel` and `trace_limits` when the work begins). A front
    /// end that wants the deadline anchored earlier (when its command starts), or a
    /// caller that splits its own budget ([`Budget::share`]), sets it; it is used as
    /// it is, so its deadline holds whatever `timeout` says.
    pub budget: Option<Budget>,
    /// Prove for runs of any length (`crate::unbounded`): `equivalent` then means
    /// that on every input both programs run forever or both end alike (default off:
    /// proofs hold for runs of up to `fuel` steps).
    pub unbounded: bool,
    /// With [`Options::unbounded`]: a folder to write a loop proof's certificate into.
    pub certificate: Option<std::path::PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            fuel: 10_000,
            depth: 50,
            init_inputs: Vec::new(),
            inputs: InputSpec::default(),
            stdin_len: 0,
            observe: vec![Observable::CS241_RESULT],
            solver: SolverConfig::default(),
            max_runs: 10_000,
            timeout: None,
            max_pairs: 100_000,
            max_paths: None,
            dump_trace: false,
            termination: tamarin_mips::cpu::DEFAULT_TERMINATION,
            trace_limits: TraceLimits::default(),
            engine: verdict::Engine::Auto,
            max_encoding_terms: 4_000_000,
            trace_resume: true,
            bmc_split: true,
            assume: Vec::new(),
            out_of_fuel: verdict::FuelPolicy::Same,
            assume_program: None,
            minimise: true,
            keep_paths: false,
            interrupt: None,
            deterministic: false,
            shared_calls: true,
            procedure_cache: None,
            budget: None,
            unbounded: false,
            certificate: None,
        }
    }
}

impl Options {
    /// The budget of this task: the one set in [`Options::budget`], else one started
    /// now ([`Budget::start`]). An engine reads it once, when it begins.
    pub fn budget(&self) -> Budget {
        self.budget.unwrap_or_else(|| {
            Budget::start(self.timeout)
                .with_interrupt(self.interrupt)
                .with_fuel(self.fuel)
                .with_trace_bytes(self.trace_limits.max_bytes)
        })
    }

    /// These options with their budget anchored now unless one is set already: what
    /// the front door hands the engines, so that every part of the work draws from
    /// one deadline. A deterministic task also gets its solver work budget here
    /// ([`Options::deterministic`]).
    pub fn started(&self) -> Options {
        let mut o = self.clone();
        o.budget = Some(self.budget());
        o.solver.work_budget = self.solver_work();
        o
    }

    /// The solver work the whole task may spend: [`SolverConfig::work_budget`] if set,
    /// else, in a deterministic task, [`deterministic_work`] of its time limit.
    pub fn solver_work(&self) -> Option<u64> {
        self.solver.work_budget.or_else(|| {
            self.deterministic
                .then_some(self.timeout)
                .flatten()
                .map(deterministic_work)
        })
    }

    /// The settings of every concrete run within this task's budget: its fuel and
    /// termination address, and a stop at the deadline or on an interrupt, so that no
    /// run outlives the work ([`Budget::machine_config`]).
    pub fn machine_config(&self) -> Config {
        self.budget().machine_config(self.termination)
    }

    /// Whether the comparison was interrupted from outside.
    pub fn interrupted(&self) -> bool {
        self.interrupt
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
            || self.budget.is_some_and(|b| b.interrupted())
    }
}
