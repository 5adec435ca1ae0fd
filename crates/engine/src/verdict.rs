//! The comparison rules and the one place where a verdict is decided.
//!
//! Reading this file is enough to check the soundness argument:
//! - `disequivalent` only with a counterexample that was replayed concretely on both
//!   programs by [`replay`] and showed a difference under [`outcomes_differ`];
//! - `equivalent` only when the search reports full coverage (every path of both
//!   programs within fuel and depth enumerated, every difference query unsat);
//! - everything else is `possibly-equivalent`, with the reasons coverage fell short.

use std::fmt;

use tamarin_mips::cpu::{run_program, Config, Frontend, Outcome, Status};
use tamarin_mips::Program;

/// The comparison rules of the report (its Sections 2 and 4.4.3): both fail = same;
/// one fails = different; both end = compare `$3`; out of fuel = never a difference.
pub fn outcomes_differ(left: &Outcome, right: &Outcome) -> bool {
    match (&left.status, &right.status) {
        (Status::OutOfFuel, _) | (_, Status::OutOfFuel) => false,
        (Status::Error(_), Status::Error(_)) => false,
        (Status::Done, Status::Done) => left.regs.gpr[3] != right.regs.gpr[3],
        (Status::Done, Status::Error(_)) | (Status::Error(_), Status::Done) => true,
    }
}

/// A difference, replayed: the inputs and what each program did on them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    /// Each input's name and value.
    pub inputs: Vec<(String, u32)>,
    pub left: Outcome,
    pub right: Outcome,
}

/// Runs both programs concretely, from scratch, on `frontend`; returns the
/// counterexample only if they differ. Nothing else may build a [`Counterexample`]
/// for a verdict.
pub fn replay(
    left: &Program,
    right: &Program,
    config: Config,
    frontend: &Frontend,
    names: &[String],
) -> Option<Counterexample> {
    let l = run_program(left, config, frontend, &[]).ok()?;
    let r = run_program(right, config, frontend, &[]).ok()?;
    if !outcomes_differ(&l, &r) {
        return None;
    }
    let values: Vec<u32> = match frontend {
        Frontend::TwoInts(a, b) => vec![*a, *b],
        Frontend::Array { elems, .. } => elems.clone(),
    };
    Some(Counterexample {
        inputs: names.iter().cloned().zip(values).collect(),
        left: l,
        right: r,
    })
}

/// A reason why the search could not cover every behaviour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incomplete {
    /// Branch points beyond the depth bound were not explored.
    DepthCut { points: u64, depth: usize },
    /// The solver answered unknown (or timed out) on some queries.
    SolverUnknown { queries: u64, reason: String },
    /// Runs did not follow the path the solver predicted.
    Diverged { runs: u64 },
    /// The run budget was spent before the search finished.
    RunBudget { runs: u64 },
    /// The time budget was spent before the search finished.
    Timeout { millis: u64 },
    /// Runs too long or too large to trace symbolically to their end.
    TraceLimit { runs: u64 },
    /// The number of path pairs to check for differences exceeded the limit.
    TooManyPairs { pairs: u64 },
}

impl fmt::Display for Incomplete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Incomplete::DepthCut { points, depth } => write!(
                f,
                "{points} branch point(s) beyond the depth bound of {depth} path conditions were not explored (raise --depth)"
            ),
            Incomplete::SolverUnknown { queries, reason } => write!(
                f,
                "the solver could not decide {queries} quer{} ({reason}; raise --solver-timeout)",
                if *queries == 1 { "y" } else { "ies" }
            ),
            Incomplete::Diverged { runs } => write!(
                f,
                "{runs} run(s) did not follow the path the solver predicted"
            ),
            Incomplete::RunBudget { runs } => {
                write!(f, "stopped after {runs} runs (raise --max-runs)")
            }
            Incomplete::Timeout { millis } => {
                write!(f, "stopped by the time limit after {:.1} s", *millis as f64 / 1000.0)
            }
            Incomplete::TraceLimit { runs } => write!(
                f,
                "{runs} run(s) were too long to trace symbolically to the end (their paths were only partly explored)"
            ),
            Incomplete::TooManyPairs { pairs } => write!(
                f,
                "{pairs} pairs of paths were too many to check for differences"
            ),
        }
    }
}

/// What the search established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// Every reason coverage fell short; empty means every path of both programs was
    /// enumerated and every difference query was unsatisfiable.
    pub incomplete: Vec<Incomplete>,
}

/// How an equivalence was proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// Paths enumerated on each side.
    pub paths: (u64, u64),
    /// Of those, paths that did not end within the fuel.
    pub out_of_fuel: (u64, u64),
    /// Difference queries discharged for the proof.
    pub queries: u64,
    pub fuel: u64,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Disequivalent(Box<Counterexample>),
    Equivalent(Proof),
    PossiblyEquivalent(Vec<Incomplete>),
}

impl Verdict {
    /// `"disequivalent"`, `"equivalent"` or `"possibly-equivalent"`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Disequivalent(_) => "disequivalent",
            Verdict::Equivalent(_) => "equivalent",
            Verdict::PossiblyEquivalent(_) => "possibly-equivalent",
        }
    }
}

/// Decides the verdict from a replayed counterexample (if any) and the coverage.
pub fn decide(counterexample: Option<Counterexample>, coverage: Coverage, proof: Proof) -> Verdict {
    match counterexample {
        Some(cx) => Verdict::Disequivalent(Box::new(cx)),
        None if coverage.incomplete.is_empty() => Verdict::Equivalent(proof),
        None => Verdict::PossiblyEquivalent(coverage.incomplete),
    }
}
