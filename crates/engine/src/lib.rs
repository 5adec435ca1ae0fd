//! Equivalence checking of CS241 MIPS programs: whether two programs compute the same
//! function, with inputs that show a difference, a bounded proof that there is none,
//! or an honest account of how far the search got.
//!
//! # The front door
//!
//! Describe the task in [`Options`] (inputs, observables, fuel, engine, solver, time
//! limit; every default is documented there), then call one entry:
//!
//! - [`compare`] two programs: a [`Report`] whose [`Verdict`] is `Equivalent` (with the
//!   [`Proof`]'s bounds), `Disequivalent` (with a [`Counterexample`] that was replayed
//!   on both programs) or `PossiblyEquivalent` (with typed [`Incomplete`] reasons, each
//!   with a stable [`Incomplete::kind`]);
//! - [`check`](check()) one program for inputs that make it fail;
//! - [`explore`] one program's paths, one input per path;
//! - [`path_conditions`] of one run: which of those paths some inputs take.
//!
//! Each entry starts the task's [`Budget`] (unless [`Options::budget`] holds one already):
//! its time limit becomes one deadline there, and the check of the task, every engine,
//! query and run draw from it, with the interrupt flag, the fuel and the bound on what
//! the traces may hold in memory.
//!
//! A comparison's report also carries [`Note`]s: facts about the task that are no
//! verdict, such as standard output written by a program but not compared.
//!
//! Each returns an [`Error`] instead when the task cannot be carried out as given: an
//! input array that cannot be placed, an observable no run can show, or a solver
//! command that is not a solver (or stops answering like one). A search that merely
//! ends without a verdict is not an error: its reasons are in the report.
//!
//! ```
//! use tamarin::{compare, mips::asm::assemble, Error, InputSpec, Options, Quiet, Verdict};
//!
//! let left = assemble("left.asm", "add $3, $1, $2\njr $31\n").unwrap();
//! let right = assemble("right.asm", "add $3, $2, $1\njr $31\n").unwrap();
//! let report = compare(&left, &right, &Options::default(), &mut Quiet)?;
//! assert!(matches!(report.verdict, Verdict::Equivalent(_)));
//!
//! let wrong = assemble("wrong.asm", "sub $3, $1, $2\njr $31\n").unwrap();
//! match compare(&left, &wrong, &Options::default(), &mut Quiet)?.verdict {
//!     Verdict::Disequivalent(cx) => assert_ne!(cx.left.regs.gpr[3], cx.right.regs.gpr[3]),
//!     other => panic!("expected a difference, got {other:?}"),
//! }
//!
//! // An array at an address that is not a multiple of 4 cannot be placed.
//! let mut opts = Options::default();
//! opts.inputs = InputSpec::Array { max_len: 4, base: Some(6) };
//! assert!(matches!(compare(&left, &right, &opts, &mut Quiet), Err(Error::Setup(_))));
//! # Ok::<(), Error>(())
//! ```
//!
//! # Inside
//!
//! The emulator of `tamarin-mips` runs each program while a `trace::SymTracer`
//! records terms (`term`) and path conditions; the path search (`concolic`) turns
//! conditions into queries for the solver chain (`solver`), runs both programs on every
//! answer, and hands what it found to `verdict`, the one place where a verdict is
//! decided. `bmc` is the second engine: one merged bounded encoding per program and one
//! query for both; `equiv` picks or chains the engines. ARCHITECTURE.md in the
//! repository is the map.

// Some internals (printing helpers, counters) are reached only by the crate's own
// tests and benches, through the `internals` feature.
#![cfg_attr(not(feature = "internals"), allow(dead_code, unused_imports))]

// The modules are this crate's inside: public only with the `internals` feature, which
// the crate's own integration tests, benches and fuzz targets turn on. Everything a
// user needs is re-exported below. Each is declared twice, under opposite features,
// rather than by a macro: `cargo fmt` formats only the files it sees declared.
#[cfg(feature = "internals")]
pub mod assume;
#[cfg(not(feature = "internals"))]
mod assume;
#[cfg(feature = "internals")]
pub mod bmc;
#[cfg(not(feature = "internals"))]
mod bmc;
#[cfg(feature = "internals")]
pub mod budget;
#[cfg(not(feature = "internals"))]
mod budget;
#[cfg(feature = "internals")]
pub mod check;
#[cfg(not(feature = "internals"))]
mod check;
#[cfg(feature = "internals")]
pub mod concolic;
#[cfg(not(feature = "internals"))]
mod concolic;
#[cfg(feature = "internals")]
pub mod equiv;
#[cfg(not(feature = "internals"))]
mod equiv;
#[cfg(feature = "internals")]
pub mod error;
#[cfg(not(feature = "internals"))]
mod error;
#[cfg(feature = "internals")]
pub mod explain;
#[cfg(not(feature = "internals"))]
mod explain;
#[cfg(feature = "internals")]
pub mod io;
#[cfg(not(feature = "internals"))]
mod io;
#[cfg(feature = "internals")]
pub mod loop_proof;
#[cfg(not(feature = "internals"))]
mod loop_proof;
#[cfg(feature = "internals")]
pub mod minimise;
#[cfg(not(feature = "internals"))]
mod minimise;
#[cfg(feature = "internals")]
pub mod mips32;
#[cfg(not(feature = "internals"))]
mod mips32;
#[cfg(feature = "internals")]
pub mod notes;
#[cfg(not(feature = "internals"))]
mod notes;
#[cfg(feature = "internals")]
pub mod options;
#[cfg(not(feature = "internals"))]
mod options;
#[cfg(feature = "internals")]
pub mod report;
#[cfg(not(feature = "internals"))]
mod report;
#[cfg(feature = "internals")]
pub mod semantics;
#[cfg(not(feature = "internals"))]
mod semantics;
#[cfg(feature = "internals")]
pub mod shared;
#[cfg(not(feature = "internals"))]
mod shared;
#[cfg(feature = "internals")]
pub mod solver;
#[cfg(not(feature = "internals"))]
mod solver;
#[cfg(feature = "internals")]
pub mod term;
#[cfg(not(feature = "internals"))]
mod term;
#[cfg(feature = "internals")]
pub mod trace;
#[cfg(not(feature = "internals"))]
mod trace;
#[cfg(feature = "internals")]
pub mod unbounded;
#[cfg(not(feature = "internals"))]
mod unbounded;
#[cfg(feature = "internals")]
pub mod verdict;
#[cfg(not(feature = "internals"))]
mod verdict;

#[cfg(test)]
mod planted;

pub use tamarin_mips as mips;

pub use assume::{AssumeError, Precondition};
pub use bmc::domain::DOMAIN_TERMS;
pub use budget::Budget;
pub use check::{CheckReport, Finding, FindingKind};
pub use concolic::Exploration;
pub use equiv::{
    AUTO_ENCODING_TERMS, AUTO_ENCODING_WORK, AUTO_PATHS, AUTO_PROBE_RUNS, AUTO_PROBE_WORK,
    AUTO_SEARCH_PATHS,
};
pub use error::Error;
pub use explain::{
    explain, row_sides, Change, Divergence, Explanation, Row, RunInputs, Step, MAX_EXPLAINED_STEPS,
};
pub use io::{
    image_word, observe, DomainProgram, InputLayout, InputSpec, InputValues, Observable, Observed,
    MAX_OBSERVED_WORDS,
};
pub use mips32::{
    compare_functions, explain_functions, CertificateFiles, FunctionCounterexample,
    FunctionExplanation, FunctionGap, FunctionOptions, FunctionReport, FunctionRun, FunctionSide,
    FunctionTrace, FunctionVerdict, Schedule, TraceStep, UnboundedProof,
};
pub use notes::NOTE_FUEL;
pub use options::{deterministic_work, Options, DETERMINISTIC_WORK_PER_SECOND};
pub use report::{Note, Observer, PathReport, Progress, Quiet, Report, Side, Stats};
pub use solver::{
    ProcessSolver, SolverConfig, SolverStats, Z3Mode, COMPARISON_WORK_SPENT, DEFAULT_QUERY_TIMEOUT,
    DEFAULT_RESOURCE_LIMIT, ESCALATION, TIME_LIMIT_PASSED, WORK_BUDGET_SPENT,
};
pub use trace::TraceLimits;
pub use verdict::{
    outcomes_differ, replay, results_differ, rule, run_observed, Counterexample, Ending, Engine,
    FuelPolicy, Incomplete, Proof, Rule, Uncovered, UnrollStats, Verdict,
};

use tamarin_mips::Program;

/// Compares two programs with the engine that [`Options::engine`] names, under the
/// other options: a [`Report`] whose verdict is `Equivalent`, `Disequivalent` or
/// `PossiblyEquivalent`.
///
/// # Errors
///
/// [`Error::Setup`] when the input array cannot be placed for either program,
/// [`Error::Observable`] for an observable out of range, [`Error::Solver`] when the
/// solver command cannot be used (all checked before the search), and
/// [`Error::SolverFailed`] when the solver stopped answering like one during it.
pub fn compare(
    left: &Program,
    right: &Program,
    opts: &Options,
    observer: &mut dyn Observer,
) -> Result<Report, Error> {
    // The budget starts here (unless the caller anchored it earlier): the check of
    // the task and every engine draw from it.
    let opts = &opts.started();
    opts.validate(&[left, right])?;
    let mut report = if opts.unbounded {
        unbounded::compare(left, right, opts, observer)?
    } else {
        equiv::compare(left, right, opts, observer)
    };
    opts.solver_failure(&report.stats)?;
    let known = report.stats.wrote_output;
    report.notes = notes::notes(&[left, right], opts, &[known.0, known.1]);
    Ok(report)
}

/// The notes (see [`Note`]) about a task on `programs` alone, as [`compare`] gives
/// them about its two: standard output written but not observed, seen on the first
/// inputs or on an edge input (`grade` asks about its reference this way). Concrete
/// runs only, within [`NOTE_FUEL`] steps per program.
pub fn task_notes(programs: &[&Program], opts: &Options) -> Vec<Note> {
    notes::notes(programs, opts, &[])
}

/// Finds inputs that make `program` fail, one [`Finding`] per failing site, each
/// replayed; the report says how complete the search was.
///
/// # Errors
///
/// As [`compare`]'s, for the one program.
pub fn check(
    program: &Program,
    opts: &Options,
    observer: &mut dyn Observer,
) -> Result<CheckReport, Error> {
    let opts = &opts.started();
    opts.validate(&[program])?;
    let report = check::check(program, opts, observer);
    opts.solver_failure(&report.exploration.stats)?;
    Ok(report)
}

/// Enumerates the paths of `program` within the fuel and depth, one replayed input
/// per path; the exploration says how complete the enumeration was.
///
/// # Errors
///
/// As [`compare`]'s, for the one program.
pub fn explore(
    program: &Program,
    opts: &Options,
    observer: &mut dyn Observer,
) -> Result<Exploration, Error> {
    let opts = &opts.started();
    opts.validate(&[program])?;
    let exploration = concolic::explore(program, opts, observer);
    opts.solver_failure(&exploration.stats)?;
    Ok(exploration)
}

/// The readable path conditions of one concrete run of `program` on `values`, traced
/// the way the path search traces its runs: the same conditions, in the same words,
/// that [`explore`] lists for the path these inputs take (a run too long to trace to
/// its end gives a prefix). `values` are in the order of the input variables
/// ([`InputLayout`]: the input registers; or the length, every element up to the
/// maximum length, then the standard input bytes), as a [`Counterexample`]'s or a
/// [`PathReport`]'s inputs are. Preconditions are not checked: any input can be traced.
///
/// # Errors
///
/// [`Error::Setup`] when the input array cannot be placed for `program`.
pub fn path_conditions(
    program: &Program,
    opts: &Options,
    values: &[u32],
) -> Result<Vec<String>, Error> {
    if let Some(e) = opts.inputs.placement_error(program) {
        return Err(Error::Setup(e));
    }
    Ok(concolic::path_conditions(program, opts, values))
}
