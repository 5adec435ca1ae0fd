//! What a comparison gives back, whichever engine ran it: the report, the counts of the
//! work done, and the progress an observer sees while it runs.

use std::time::Duration;

use tamarin_mips::cpu::Outcome;

use crate::io::InputValues;
use crate::solver::SolverStats;
use crate::verdict::Verdict;

/// Which program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }
}

/// Where the search stands, for progress displays.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub runs: u64,
    pub paths: (u64, u64),
    pub queries: u64,
    pub elapsed: Duration,
}

/// Receives what the search shows as it goes.
pub trait Observer {
    /// A readable trace of one run (only with [`crate::options::Options::dump_trace`]).
    fn trace(&mut self, _side: Side, _inputs: &[(String, u32)], _text: &str) {}
    /// Called now and then with the search's progress.
    fn progress(&mut self, _progress: &Progress) {}
}

/// An observer that ignores everything.
pub struct Quiet;
impl Observer for Quiet {}

/// Counts of the work done.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Inputs tried (each one runs both programs).
    pub runs: u64,
    /// Distinct paths seen, per side.
    pub paths: (u64, u64),
    /// Runs that did not follow the predicted path.
    pub restarts: u64,
    /// Runs too long or too large to trace to the end.
    pub partial_runs: u64,
    /// Runs given up because of what a call to a shared procedure left unknown.
    pub call_partial_runs: u64,
    /// Calls to shared procedures recorded as events.
    pub call_events: u64,
    /// Runs cut short by the time limit or an interrupt (their paths stay open).
    pub stopped_runs: u64,
    /// Paths found so far, per side, on which every run is out of fuel.
    pub out_of_fuel_paths: (u64, u64),
    /// Distinct jump targets (classes) explored at input-dependent jumps, both sides.
    pub jump_targets: u64,
    /// Difference queries asked (seen pairs and the final proof step).
    pub difference_queries: u64,
    /// Of those, the merged encoding's queries about groups of one program's ends,
    /// asked because the whole difference was too hard (see `bmc`).
    pub split_queries: u64,
    /// Steps the concrete minimiser kept: each one a smaller counterexample (see
    /// [`crate::Options::minimise`]).
    pub shrink_steps: u64,
    /// Candidates the minimiser replayed on both programs (kept or not).
    pub shrink_replays: u64,
    pub solver: SolverStats,
    /// The solver chain, described.
    pub solver_name: String,
    /// Problems that did not stop the search (for the user's attention).
    pub warnings: Vec<String>,
    /// Whether some run this engine made of each program wrote standard output
    /// (the path search's runs; the merged encoding makes none).
    pub wrote_output: (bool, bool),
    /// Why the solver backend did not work, if it did not (its answers then counted
    /// as unknowns): the front door turns it into [`crate::Error::SolverFailed`], so a
    /// report never carries one.
    pub(crate) solver_failure: Option<String>,
    pub total: Duration,
}

/// Something about the task that the user should know, beside the verdict: not a
/// verdict, and it changes none. Each has a stable [`kind`](Note::kind) and a message
/// that names no option (the front end gives the advice).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// Standard output is not among the observables, but some program wrote some on a
    /// run the comparison made or on its first inputs: a program whose output is
    /// wrong can still be `equivalent`. `writers` says which programs wrote (in the
    /// order they were given: left, right); `observed` names what is compared.
    OutputNotObserved {
        writers: Vec<bool>,
        observed: Vec<String>,
    },
}

impl Note {
    /// `output-not-observed`.
    pub fn kind(&self) -> &'static str {
        match self {
            Note::OutputNotObserved { .. } => "output-not-observed",
        }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Note::OutputNotObserved { writers, observed } => {
                let who = match writers.as_slice() {
                    [true] => "the program writes",
                    [true, true] => "both programs write",
                    [true, false] => "the left program writes",
                    [false, true] => "the right program writes",
                    _ => "a program writes",
                };
                let what = if observed.is_empty() {
                    "nothing is".to_string()
                } else {
                    format!(
                        "only {} {}",
                        observed.join(", "),
                        if observed.len() == 1 { "is" } else { "are" }
                    )
                };
                write!(
                    f,
                    "{who} to standard output, but the output is not compared ({what}): \
                     programs whose output differs can still agree"
                )
            }
        }
    }
}

/// The full result of a comparison.
#[derive(Clone, Debug)]
pub struct Report {
    pub verdict: Verdict,
    pub stats: Stats,
    /// Names of the inputs, in order.
    pub input_names: Vec<String>,
    /// Every path the search explored, left and right, as [`crate::explore`] lists
    /// them: kept only with [`crate::Options::keep_paths`], and only by the path
    /// search (empty when the merged encoding gave the verdict).
    pub paths: (Vec<PathReport>, Vec<PathReport>),
    /// What the user should know about the task that is no verdict and changes none
    /// (see [`Note`]); the front door fills it in after the engine.
    pub notes: Vec<Note>,
}

impl Report {
    /// The notes about the task (see [`Note`]).
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }
}

/// A path of a program, as first seen.
#[derive(Clone, Debug)]
pub struct PathReport {
    /// The inputs that first took it (replayed: they take it concretely).
    pub inputs: Vec<(String, u32)>,
    pub values: InputValues,
    pub outcome: Outcome,
    /// Its path conditions, readable.
    pub conditions: Vec<String>,
    /// Whether the run was too long to trace to its end (its conditions are a prefix).
    pub partial: bool,
}
