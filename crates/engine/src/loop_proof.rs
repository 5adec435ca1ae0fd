//! What a claim for runs of any length rests on: how it was reached
//! ([`UnboundedProof`]), and a loop proof's invariant with the queries it rests on
//! ([`Certificate`]). Its own module, below the verdict and the engines, so that a
//! verdict can carry it without knowing how a proof is found.

use crate::term::{Definition, Formula};

/// The invariant that was found: at each place of the product, the facts kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The loop heads of the left and right function, lowest address first.
    pub heads: [Vec<u32>; 2],
    /// How the two runs were put side by side.
    pub schedule: Schedule,
    /// Each place and its facts, written out.
    pub invariant: Vec<(String, Vec<String>)>,
    /// Each place and the facts that tie the two sides together (or a side's
    /// values to each other by a factor): the heart of the proof, for people.
    pub relations: Vec<(String, Vec<String>)>,
    /// Rounds of pruning until the facts were inductive.
    pub rounds: u32,
    /// What the proof rests on, as queries a solver must find unsatisfiable (in terms
    /// of the store the proof ran in; see [`super::certificate`]).
    pub obligations: Obligations,
}

/// How a loop proof puts the two runs side by side (its product program).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Trips of both sides' loops together (a side may wait at a head, or run on
    /// alone once the other has returned).
    Lockstep,
    /// The left runs to its end while the right waits at its entry, then the right
    /// runs: each side's facts are tied to the inputs, the right's also to what the
    /// left returned. Every loop must then be shown to end.
    OneAfterTheOther,
}

impl Schedule {
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Lockstep => "lockstep",
            Schedule::OneAfterTheOther => "one-after-the-other",
        }
    }
}

impl Certificate {
    /// What a full proof says about termination: `lockstep` (both end or neither
    /// does) or, one run after the other, `ranking` (a measure decreases on every
    /// trip of every loop of both sides: both always end).
    pub fn termination(&self) -> &'static str {
        match self.schedule {
            Schedule::Lockstep => "lockstep",
            Schedule::OneAfterTheOther => "ranking",
        }
    }
}

/// The queries whose unsatisfiability a loop proof rests on: those of its last round
/// of pruning (whose facts are the final ones), its endings and its measures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Obligations {
    /// The invariant of each place: a Boolean function of the place's values.
    pub invariants: Vec<Definition>,
    pub checks: Vec<Check>,
}

/// One obligation: the conjunction of `assertions` (and the preconditions) must be
/// unsatisfiable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub kind: CheckKind,
    /// A name for its file: `initiation-head-head`, `consecution-head-head-to-head-returned`.
    pub name: String,
    /// What its unsatisfiability shows, for people.
    pub what: String,
    pub assertions: Vec<Formula>,
    /// Whether the check is written in integers (`QF_NIA`, see
    /// [`crate::term::integer_script`]): where an invariant it uses holds without
    /// wrap-around, which no bit-vector equation of 32 bits says and bit-blasting a
    /// 64-bit product cannot settle.
    pub in_integers: bool,
}

/// What an obligation checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CheckKind {
    /// From the entry, each way to reach a place satisfies its invariant.
    Initiation,
    /// Each trip from a state that satisfies its place's invariant ends in a state
    /// that satisfies the invariant of the place it reaches.
    Consecution,
    /// Each way both can end from a place (or the entry) ends alike.
    Exit,
    /// A measure decreases on each trip of a side that runs alone.
    Termination,
}

impl CheckKind {
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::Initiation => "initiation",
            CheckKind::Consecution => "consecution",
            CheckKind::Exit => "exit",
            CheckKind::Termination => "termination",
        }
    }
}

/// How a comparison for runs of any length went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnboundedProof {
    /// `paths` (every run was followed to its end within the fuel) or
    /// `lockstep-induction` (an inductive invariant at the loop heads).
    pub method: &'static str,
    /// `every-run-ends` (no run is longer than the fuel), `lockstep` (the loops run
    /// the same number of trips: both end or neither does), `ranking` (every loop of
    /// both sides ends: [`Certificate::termination`]) or `not-proved`.
    pub termination: &'static str,
    /// The invariant, for `lockstep-induction` (its obligations, which are in terms
    /// of the comparison's own store, are left out of a report: they are in
    /// `certificate_files`).
    pub certificate: Option<Certificate>,
    /// Where the certificate was written ([`FunctionOptions::certificate`]).
    pub certificate_files: Option<CertificateFiles>,
}

impl UnboundedProof {
    /// A proof within the fuel that no run outlasts: every run ended within it.
    pub fn every_run_ends() -> UnboundedProof {
        UnboundedProof {
            method: "paths",
            termination: "every-run-ends",
            certificate: None,
            certificate_files: None,
        }
    }

    /// A loop proof's claim: full (`termination` as its schedule says) or, where a
    /// side alone may run on, partial (`not-proved`).
    pub fn induction(certificate: Certificate, full: bool) -> UnboundedProof {
        UnboundedProof {
            method: "lockstep-induction",
            termination: if full {
                certificate.termination()
            } else {
                "not-proved"
            },
            certificate: Some(certificate),
            certificate_files: None,
        }
    }
}

/// A certificate written to a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateFiles {
    pub dir: std::path::PathBuf,
    /// How many checks (SMT-LIB files) it holds.
    pub checks: usize,
}
