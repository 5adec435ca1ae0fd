//! The comparison rules and the one place where a verdict is decided.
//!
//! Reading this file is enough to check the soundness argument:
//! - `disequivalent` only with a counterexample that was replayed concretely on both
//!   programs by [`replay`] and showed a difference under [`outcomes_differ`];
//! - `equivalent` only when the search reports full coverage (every path of both
//!   programs within fuel and depth enumerated, every difference query unsat);
//! - everything else is `possibly-equivalent`, with the reasons coverage fell short.

use std::fmt;

use tamarin_mips::cpu::{Config, Machine, NoTrace, Outcome, Status};
use tamarin_mips::Program;

use crate::io::{observe, InputLayout, InputValues, Observable, Observed};

/// The comparison rules of the report (its Sections 2 and 4.4.3), with `$3` as the
/// observable: both fail = same; one fails = different; both end = compare `$3`; out
/// of fuel = never a difference.
pub fn outcomes_differ(left: &Outcome, right: &Outcome) -> bool {
    results_differ(
        FuelPolicy::Same,
        left,
        &[Observed::Word(left.regs.result())],
        right,
        &[Observed::Word(right.regs.result())],
    )
}

/// How a run, or every run of a path or of a merged state, ends: what the comparison
/// rules look at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// Jumped to the termination address: its observables are compared.
    Done,
    /// Stopped by a run-time error (of any kind, at any pc).
    Error,
    /// Ran out of fuel.
    OutOfFuel,
    /// Not known: stopped from outside, or traced only in part.
    Unknown,
}

impl Ending {
    /// The ending of a concrete run.
    pub fn of(status: &Status) -> Ending {
        match status {
            Status::Done => Ending::Done,
            Status::Error(_) => Ending::Error,
            Status::OutOfFuel => Ending::OutOfFuel,
            Status::Stopped => Ending::Unknown,
        }
    }
}

/// What running out of fuel means when the other program ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FuelPolicy {
    /// The report's rule: a run out of fuel is never a difference (a proof then says
    /// nothing about inputs on which either program runs that long).
    #[default]
    Same,
    /// One program ends (normally or with an error) and the other runs out of fuel: a
    /// difference. Both out of fuel is still the same. For grading, where a program
    /// that does not end where the reference does is wrong.
    Different,
}

impl FuelPolicy {
    /// `same` or `different`, as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            FuelPolicy::Same => "same",
            FuelPolicy::Different => "different",
        }
    }
}

/// What the rules say of two endings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Never a difference.
    Same,
    /// Always a difference.
    Different,
    /// A difference exactly when some observed value differs.
    CompareObservables,
}

/// The comparison rules, written once: both fail = same; one fails and the other ends
/// = different; both end = compare the observables; unknown on either side = never a
/// difference; out of fuel on either side = never a difference under
/// [`FuelPolicy::Same`], and under [`FuelPolicy::Different`] a difference when the
/// other side stops (both out of fuel stays the same). Concrete replay
/// ([`results_differ`]) and the symbolic difference conditions of both engines
/// (`observed_differ`) all go through it.
pub fn rule(policy: FuelPolicy, left: Ending, right: Ending) -> Rule {
    use Ending::*;
    match (left, right) {
        (Unknown, _) | (_, Unknown) | (OutOfFuel, OutOfFuel) => Rule::Same,
        (OutOfFuel, _) | (_, OutOfFuel) => match policy {
            FuelPolicy::Same => Rule::Same,
            FuelPolicy::Different => Rule::Different,
        },
        (Error, Error) => Rule::Same,
        (Done, Done) => Rule::CompareObservables,
        (Done, Error) | (Error, Done) => Rule::Different,
    }
}

/// The rules with chosen observables, on two concrete runs.
pub fn results_differ(
    policy: FuelPolicy,
    left: &Outcome,
    lobs: &[Observed],
    right: &Outcome,
    robs: &[Observed],
) -> bool {
    match rule(policy, Ending::of(&left.status), Ending::of(&right.status)) {
        Rule::Same => false,
        Rule::Different => true,
        Rule::CompareObservables => lobs != robs,
    }
}

/// The symbolic form of "some observed value differs" for two runs that both end: each
/// observable's terms (one per word or byte), left against right. Observables of
/// different lengths (output of another length) always differ.
pub fn observed_differ(
    store: &mut crate::term::TermStore,
    left: &[Vec<crate::term::Term>],
    right: &[Vec<crate::term::Term>],
) -> crate::term::Term {
    let mut any = store.bool(false);
    for (x, y) in left.iter().zip(right) {
        if x.len() != y.len() {
            return store.bool(true);
        }
        for (&p, &q) in x.iter().zip(y) {
            // A call to a shared procedure (a 16-bit number) never equals a byte.
            if store.width(p) != store.width(q) {
                return store.bool(true);
            }
            let ne = store.ne(p, q);
            any = store.or(any, ne);
        }
    }
    any
}

/// A difference, replayed: the inputs and what each program did on them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    /// Every input variable's name and value, in the layout's order.
    pub inputs: Vec<(String, u32)>,
    /// The inputs as a run takes them (registers, or an array; standard input).
    pub values: InputValues,
    pub left: Outcome,
    pub right: Outcome,
    /// Each observable's name and its value on the left and on the right.
    pub observed: Vec<(String, Observed, Observed)>,
}

/// One concrete run from scratch on `values`, with what it observed.
pub fn run_observed(
    program: &Program,
    config: Config,
    layout: &InputLayout,
    values: &[u32],
    what: &[Observable],
) -> Option<(Outcome, Vec<Observed>)> {
    let mut m = Machine::new(program, config);
    layout.load(&mut m, values).ok()?;
    let outcome = m.run_to_outcome(&mut NoTrace);
    let observed = what.iter().map(|o| observe(&m, &outcome, o)).collect();
    Some((outcome, observed))
}

/// Runs both programs concretely, from scratch, on `values`; returns the
/// counterexample only if they differ. Nothing else may build a [`Counterexample`]
/// for a verdict.
pub fn replay(
    left: &Program,
    right: &Program,
    config: Config,
    layout: &InputLayout,
    values: &[u32],
    what: &[Observable],
    policy: FuelPolicy,
) -> Option<Counterexample> {
    // No counterexample outside the preconditions, whichever engine found it.
    if !layout.admits(values) {
        return None;
    }
    let (l, lobs) = run_observed(left, config, layout, values, what)?;
    let (r, robs) = run_observed(right, config, layout, values, what)?;
    if !results_differ(policy, &l, &lobs, &r, &robs) {
        return None;
    }
    Some(Counterexample {
        inputs: layout
            .names()
            .iter()
            .cloned()
            .zip(values.iter().copied())
            .collect(),
        values: layout.describe(values),
        left: l,
        right: r,
        observed: what
            .iter()
            .zip(lobs.into_iter().zip(robs))
            .map(|(o, (a, b))| (o.to_string(), a, b))
            .collect(),
    })
}

/// What the merged encoding does not follow exactly (each becomes a reason when some
/// input reaches it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Uncovered {
    /// An input-dependent jump with more targets than the unroller lists (64), or whose
    /// targets the solver could not list.
    JumpTargets,
    /// A store that may change the program's own code.
    CodeWrite,
    /// Code fetched from a word that depends on the inputs.
    SymbolicCode,
    /// The array input does not fit in memory for some lengths.
    ArrayFit,
    /// States still running when a budget (terms, time) ran out.
    Budget,
}

impl Uncovered {
    pub const ALL: [Uncovered; 5] = [
        Uncovered::JumpTargets,
        Uncovered::CodeWrite,
        Uncovered::SymbolicCode,
        Uncovered::ArrayFit,
        Uncovered::Budget,
    ];

    /// A stable name, the `kind` of the reason it gives (see `Incomplete::kind`).
    pub fn kind(self) -> &'static str {
        match self {
            Uncovered::JumpTargets => "uncovered-jump",
            Uncovered::CodeWrite => "code-write",
            Uncovered::SymbolicCode => "symbolic-code",
            Uncovered::ArrayFit => "array-fit",
            Uncovered::Budget => "encoding-budget",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Uncovered::JumpTargets => "an input-dependent jump has too many targets to list",
            Uncovered::CodeWrite => "a store may change the program's own code",
            Uncovered::SymbolicCode => "code is fetched from a word that depends on the inputs",
            Uncovered::ArrayFit => "the array input does not fit in memory for some lengths",
            Uncovered::Budget => "the encoding grew past its budget of terms or time",
        }
    }
}

/// Counts of the unrolling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnrollStats {
    /// Instructions executed symbolically (each by one possibly merged state).
    pub steps: u64,
    /// States merged into a waiting one.
    pub merges: u64,
    /// States that reached an end (done or error).
    pub ends: u64,
    /// States dropped because all their runs were out of fuel.
    pub out_of_fuel: u64,
    /// The most states waiting at once.
    pub peak_states: u64,
    /// Queries asked to drop states no input reaches (at branches that fork again).
    pub pruning_queries: u64,
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
    /// The path budget was reached before the search finished.
    PathBudget { paths: u64 },
    /// The run budget was spent before the search finished.
    RunBudget { runs: u64 },
    /// The time budget was spent before the search finished.
    Timeout { millis: u64 },
    /// The comparison was interrupted from outside (Ctrl-C).
    Interrupted,
    /// Runs too long or too large to trace symbolically to their end.
    TraceLimit { runs: u64 },
    /// Runs that read what a call to a shared procedure left unknown, or whose end the
    /// calls' lengths could move (see `tamarin::shared`).
    CallEffects { runs: u64 },
    /// The number of path pairs to check for differences exceeded the limit.
    TooManyPairs { pairs: u64 },
    /// The merged encoding does not follow some inputs exactly (and some input
    /// reaches that part).
    Encoding { what: Uncovered },
    /// A difference the merged encoding predicted did not show when replayed.
    Unconfirmed,
    /// For runs of any length: equal whenever both end was proved, but one program
    /// may run on where the other ends.
    Termination,
    /// For runs of any length: runs longer than the fuel, and no loop invariant that
    /// covers them (why).
    Invariant { why: String },
}

impl Incomplete {
    /// A stable name for the reason, for scripts and for the front end's advice:
    /// `depth-bound`, `solver-unknown`, `diverged`, `path-budget`, `run-budget`,
    /// `time-limit`, `interrupted`, `trace-limit`, `call-effects`, `pair-budget`,
    /// `unconfirmed`, `termination`, `invariant` (runs of any length), and for
    /// the merged encoding's uncovered parts `uncovered-jump`, `code-write`,
    /// `symbolic-code`, `array-fit`, `encoding-budget`.
    pub fn kind(&self) -> &'static str {
        match self {
            Incomplete::DepthCut { .. } => "depth-bound",
            Incomplete::SolverUnknown { .. } => "solver-unknown",
            Incomplete::Diverged { .. } => "diverged",
            Incomplete::PathBudget { .. } => "path-budget",
            Incomplete::RunBudget { .. } => "run-budget",
            Incomplete::Timeout { .. } => "time-limit",
            Incomplete::Interrupted => "interrupted",
            Incomplete::TraceLimit { .. } => "trace-limit",
            Incomplete::CallEffects { .. } => "call-effects",
            Incomplete::TooManyPairs { .. } => "pair-budget",
            Incomplete::Encoding { what } => what.kind(),
            Incomplete::Unconfirmed => "unconfirmed",
            Incomplete::Termination => "termination",
            Incomplete::Invariant { .. } => "invariant",
        }
    }

    /// Whether the wall clock caused this reason: the comparison's time limit, or
    /// queries that it or a per-query time limit cut short. Every other reason comes
    /// from a count (runs, paths, depth, solver resource units, terms), which a busy
    /// machine meets the same way as an idle one; a result with a reason of this kind
    /// may come out otherwise on a rerun.
    pub fn cut_by_wall_clock(&self) -> bool {
        match self {
            Incomplete::Timeout { .. } => true,
            Incomplete::SolverUnknown { reason, .. } => crate::solver::is_clock_reason(reason),
            _ => false,
        }
    }

    /// Whether the reason is the comparison's time limit (directly, or through queries
    /// that the limit cut short).
    pub fn is_time_limit(&self) -> bool {
        match self {
            Incomplete::Timeout { .. } => true,
            Incomplete::SolverUnknown { reason, .. } => reason == crate::solver::TIME_LIMIT_PASSED,
            _ => false,
        }
    }
}

/// `1 run`, `2 runs`: a number with its noun in the right number.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What happened, in words and numbers; what to do about it is the front end's to say
/// (it knows its options).
impl fmt::Display for Incomplete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Incomplete::DepthCut { points, depth } => write!(
                f,
                "{} beyond the depth bound of {} {} not explored",
                count(*points, "branch point", "branch points"),
                count(*depth as u64, "path condition", "path conditions"),
                if *points == 1 { "was" } else { "were" }
            ),
            Incomplete::SolverUnknown { queries, reason } => write!(
                f,
                "the solver could not decide {} ({reason})",
                count(*queries, "query", "queries"),
            ),
            Incomplete::Diverged { runs } => write!(
                f,
                "{} not follow the path the solver predicted",
                count(*runs, "run did", "runs did")
            ),
            Incomplete::PathBudget { paths } => {
                write!(f, "stopped after {}", count(*paths, "path", "paths"))
            }
            Incomplete::RunBudget { runs } => {
                write!(f, "stopped after {}", count(*runs, "run", "runs"))
            }
            Incomplete::Timeout { millis } => {
                write!(
                    f,
                    "stopped by the time limit after {:.1} s",
                    *millis as f64 / 1000.0
                )
            }
            Incomplete::Interrupted => write!(f, "interrupted before the search finished"),
            Incomplete::TraceLimit { runs } => write!(
                f,
                "{} too long to trace symbolically to the end ({} only partly explored)",
                count(*runs, "run was", "runs were"),
                if *runs == 1 {
                    "its path was"
                } else {
                    "their paths were"
                }
            ),
            Incomplete::CallEffects { runs } => write!(
                f,
                "{} a value that a shared procedure's call left unknown, or could end \
                 otherwise with calls of other lengths (only partly explored)",
                count(*runs, "run read", "runs read")
            ),
            Incomplete::TooManyPairs { pairs } => write!(
                f,
                "{} of paths {} too many to check for differences",
                count(*pairs, "pair", "pairs"),
                if *pairs == 1 { "was" } else { "were" }
            ),
            Incomplete::Encoding { what } => {
                write!(f, "bounded model checking: {}", what.describe())
            }
            Incomplete::Unconfirmed => write!(
                f,
                "bounded model checking predicted a difference that did not show when replayed"
            ),
            Incomplete::Termination => write!(
                f,
                "equal whenever both end was proved for runs of any length (an inductive \
                 invariant at the loop heads), but one program may run on where the other ends"
            ),
            Incomplete::Invariant { why } => write!(
                f,
                "runs longer than the fuel were not covered: no loop invariant was proved ({why})"
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

/// Which engine decides: path enumeration, the merged bounded encoding, or the first
/// looking for differences and the second proving what it could not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    Concolic,
    Bmc,
    #[default]
    Auto,
}

impl Engine {
    /// `"concolic"`, `"bmc"` or `"auto"`.
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Concolic => "concolic",
            Engine::Bmc => "bmc",
            Engine::Auto => "auto",
        }
    }
}

/// How an equivalence was proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The engine that proved it (`Concolic` or `Bmc`).
    pub engine: Engine,
    /// Paths enumerated on each side (concolic); states that reached an end, each
    /// standing for the paths merged into it (bmc).
    pub paths: (u64, u64),
    /// Of those, paths that did not end within the fuel (concolic); states dropped
    /// because every run in them was out of fuel (bmc).
    pub out_of_fuel: (u64, u64),
    /// How each program was unrolled (bmc only).
    pub encoding: Option<(UnrollStats, UnrollStats)>,
    /// Difference queries discharged for the proof.
    pub queries: u64,
    pub fuel: u64,
    /// With [`crate::Options::unbounded`]: how the claim for runs of any length was
    /// reached (then `fuel` bounds nothing).
    pub unbounded: Option<Box<crate::loop_proof::UnboundedProof>>,
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

#[cfg(test)]
mod rule_tests {
    use super::*;

    #[test]
    fn the_rule_table() {
        use Ending::*;
        let all = [Done, Error, OutOfFuel, Unknown];
        for a in all {
            for b in all {
                let want = match (a, b) {
                    (Done, Done) => Rule::CompareObservables,
                    (Done, Error) | (Error, Done) => Rule::Different,
                    _ => Rule::Same,
                };
                assert_eq!(rule(FuelPolicy::Same, a, b), want, "{a:?} {b:?}");
                let p = FuelPolicy::Same;
                assert_eq!(rule(p, a, b), rule(p, b, a), "symmetric");
                // Under the other policy only one ending against running out of
                // fuel changes: it becomes a difference.
                let d = FuelPolicy::Different;
                let stops = |e| matches!(e, Done | Error);
                let want = if (a == OutOfFuel && stops(b)) || (b == OutOfFuel && stops(a)) {
                    Rule::Different
                } else {
                    want
                };
                assert_eq!(rule(d, a, b), want, "{a:?} {b:?} under different");
            }
        }
    }

    #[test]
    fn observed_values_of_other_lengths_differ() {
        let mut s = crate::term::TermStore::new();
        let (x, y) = (s.word(1), s.word(1));
        let same = observed_differ(&mut s, &[vec![x]], &[vec![y]]);
        assert_eq!(s.as_const(same), Some(0));
        let t = observed_differ(&mut s, &[vec![x]], &[vec![y, y]]);
        assert_eq!(s.as_const(t), Some(1));
        let z = s.word(2);
        let t = observed_differ(&mut s, &[vec![x], vec![x]], &[vec![y], vec![z]]);
        assert_eq!(s.as_const(t), Some(1));
    }
}
