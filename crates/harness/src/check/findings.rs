//! What the checks record: the kinds of verdict, one comparison's answer
//! ([`Direction`]), one engine's answers both ways ([`EngineRun`]), failed checks
//! ([`Finding`]) and check (g)'s answer ([`SpinCheck`]).

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tamarin::Engine;

/// The kind of a verdict, or a crash of the engine (in summary files, by
/// [`Kind::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Disequivalent,
    Equivalent,
    PossiblyEquivalent,
    /// `compare` panicked or refused its task (no verdict came back).
    Crash,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Disequivalent,
        Kind::Equivalent,
        Kind::PossiblyEquivalent,
        Kind::Crash,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Disequivalent => "disequivalent",
            Kind::Equivalent => "equivalent",
            Kind::PossiblyEquivalent => "possibly-equivalent",
            Kind::Crash => "crash",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one `compare` said.
#[derive(Clone, Debug)]
pub struct Direction {
    pub kind: Kind,
    /// The counterexample's input values in the layout's order (`$1`, `$2`, or the
    /// array's length and elements; disequivalent only).
    pub inputs: Option<Vec<u32>>,
    /// The counterexample shows a difference when replayed here (disequivalent only).
    pub replayed: bool,
    /// The engine whose proof it is (equivalent only; auto's proofs are concolic's or
    /// bmc's).
    pub proof: Option<Engine>,
    /// Short names of the reasons for incompleteness (possibly-equivalent only).
    pub incomplete: Vec<String>,
    /// The readable reasons, or the panic message or error of a crash.
    pub detail: String,
    pub runs: u64,
    pub time: Duration,
    /// It ran past its time limit by more than one solver query's limit (not a wrong
    /// verdict; a limit that does not hold).
    pub over_limit: bool,
}

/// The kinds of failed check (in summary files, by [`FindingKind::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// (a) A disequivalent verdict whose counterexample shows no difference here.
    CounterexampleDoesNotReplay,
    /// (a) The counterexample replays, but not to the outcomes it reports.
    CounterexampleMisreported,
    /// (b) An equivalent verdict contradicted by a concrete input.
    EquivalentButDiffers,
    /// (c) A program disequivalent to itself.
    SelfDisequivalent,
    /// (d) Disequivalent one way round and equivalent the other.
    AsymmetricVerdict,
    /// (f) Equivalent by this engine, while another engine has a counterexample that
    /// replays.
    EnginesContradict,
    /// (g) A comparison with a huge fuel ran far past its time limit.
    TimeLimitIgnored,
    /// (g) Equivalent with a huge fuel, while a counterexample found with the ordinary
    /// fuel replays.
    MoreFuelEquivalent,
    /// `compare` panicked or refused its task (no verdict came back).
    Crash,
    /// A compiler pair equal by construction (one program compiled twice, neither
    /// compilation with a planted bug) disequivalent, or different on a concrete input:
    /// a bug of a code generator (or, where the counterexample does not replay, also
    /// of the engine).
    SameSourceDiffers,
}

impl FindingKind {
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::CounterexampleDoesNotReplay => "counterexample-does-not-replay",
            FindingKind::CounterexampleMisreported => "counterexample-misreported",
            FindingKind::EquivalentButDiffers => "equivalent-but-differs",
            FindingKind::SelfDisequivalent => "self-disequivalent",
            FindingKind::AsymmetricVerdict => "asymmetric-verdict",
            FindingKind::EnginesContradict => "engines-contradict",
            FindingKind::TimeLimitIgnored => "time-limit-ignored",
            FindingKind::MoreFuelEquivalent => "more-fuel-equivalent",
            FindingKind::Crash => "crash",
            FindingKind::SameSourceDiffers => "same-source-differs",
        }
    }
}

/// One failed check.
#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: FindingKind,
    /// The engine whose verdict is wrong (or that crashed).
    pub engine: Engine,
    pub detail: String,
    /// Input values in the layout's order.
    pub inputs: Option<Vec<u32>>,
}

/// What one engine said about a pair, both ways round, and what was found of it.
#[derive(Clone, Debug)]
pub struct EngineRun {
    pub engine: Engine,
    /// Left-right.
    pub forward: Direction,
    /// Right-left (absent for identical pairs or without `symmetric`).
    pub backward: Option<Direction>,
    /// Equivalent one way and possibly-equivalent the other.
    pub warnings: Vec<String>,
    /// Disequivalent one way and possibly-equivalent the other (the reasons).
    pub asymmetric_incomplete: Option<String>,
    /// Possibly-equivalent (and never equivalent), yet a concrete input differs (the
    /// pair's `missed`).
    pub missed: bool,
}

impl EngineRun {
    /// Both directions that ran.
    pub fn directions(&self) -> impl Iterator<Item = &Direction> {
        std::iter::once(&self.forward).chain(&self.backward)
    }

    /// Both directions that ran, with their names (`left-right`, `right-left`).
    pub fn named(&self) -> impl Iterator<Item = (&'static str, &Direction)> {
        std::iter::once(("left-right", &self.forward))
            .chain(self.backward.as_ref().map(|b| ("right-left", b)))
    }

    /// Whether some direction says `kind`.
    pub fn says(&self, kind: Kind) -> bool {
        self.directions().any(|d| d.kind == kind)
    }

    /// The engine's answer for the pair: disequivalent if either way round is,
    /// else equivalent if either way round is, else a crash if either crashed, else
    /// possibly-equivalent.
    pub fn pair_verdict(&self) -> Kind {
        [Kind::Disequivalent, Kind::Equivalent, Kind::Crash]
            .into_iter()
            .find(|&k| self.says(k))
            .unwrap_or(Kind::PossiblyEquivalent)
    }

    /// Time in `compare`, both ways.
    pub fn time(&self) -> Duration {
        self.directions().map(|d| d.time).sum()
    }

    pub(super) fn verdicts(&self) -> String {
        match &self.backward {
            Some(b) => format!("{}/{}", self.forward.kind, b.kind),
            None => self.forward.kind.to_string(),
        }
    }
}

/// What check (g) saw: auto's left-right verdict with a huge fuel, and its time.
#[derive(Clone, Debug)]
pub struct SpinCheck {
    pub kind: Kind,
    pub time: Duration,
}
