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
//! - [`check`] one program for inputs that make it fail;
//! - [`explore`] one program's paths, one input per path.
//!
//! ```
//! use tamarin::{compare, mips::asm::assemble, Options, Quiet, Verdict};
//!
//! let left = assemble("left.asm", "add $3, $1, $2\njr $31\n").unwrap();
//! let right = assemble("right.asm", "add $3, $2, $1\njr $31\n").unwrap();
//! let report = compare(&left, &right, &Options::default(), &mut Quiet);
//! assert!(matches!(report.verdict, Verdict::Equivalent(_)));
//!
//! let wrong = assemble("wrong.asm", "sub $3, $1, $2\njr $31\n").unwrap();
//! match compare(&left, &wrong, &Options::default(), &mut Quiet).verdict {
//!     Verdict::Disequivalent(cx) => assert_ne!(cx.left.regs.gpr[3], cx.right.regs.gpr[3]),
//!     other => panic!("expected a difference, got {other:?}"),
//! }
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
// user needs is re-exported below.
macro_rules! internal_modules {
    ($($name:ident),* $(,)?) => {
        $(
            #[cfg(feature = "internals")]
            pub mod $name;
            #[cfg(not(feature = "internals"))]
            mod $name;
        )*
    };
}

internal_modules!(
    bmc, check, concolic, equiv, io, options, report, semantics, solver, term, trace, verdict
);

pub use tamarin_mips as mips;

pub use check::{check, CheckReport, Finding};
pub use concolic::{explore, Exploration, PathReport};
pub use equiv::{compare, AUTO_PATHS};
pub use io::{
    image_word, observe, InputLayout, InputSpec, InputValues, Observable, Observed,
    MAX_OBSERVED_WORDS,
};
pub use options::Options;
pub use report::{Observer, Progress, Quiet, Report, Side, Stats};
pub use solver::{ProcessSolver, SolverConfig, SolverStats, Z3Mode, TIME_LIMIT_PASSED};
pub use trace::TraceLimits;
pub use verdict::{
    outcomes_differ, replay, results_differ, rule, run_observed, Counterexample, Ending, Engine,
    Incomplete, Proof, Rule, Uncovered, UnrollStats, Verdict,
};
