//! Two MIPS32 functions compared through the merged encoding ([`crate::bmc::function`]):
//! one summary per side over the same arguments, one query for a difference, then one
//! query per reason the summaries may not cover every run.

use tamarin_mips::cpu::Stop;
use tamarin_mips::mips32::cpu::FaultKind;
use tamarin_mips::Reg;

use super::explore::FunctionSide;
use super::gap::FunctionGap;
use crate::bmc::function::{unroll_function, FunctionSetup, FunctionSummary};
use crate::solver::{Answer, Solver};
use crate::term::{Term, TermStore};
use crate::verdict::Uncovered;

/// What the merged encoding decided: an answer to "some input ends the two sides
/// differently" (a model to replay, or none), the reasons its "none" may not cover
/// every run, and the queries asked.
pub struct Merged {
    pub answer: Answer,
    pub gaps: Vec<FunctionGap>,
    pub queries: u64,
}

/// The settings of one merged comparison.
pub struct MergedSettings<'a> {
    pub args: &'a [Term],
    pub observe: &'a [Reg],
    pub fuel: u64,
    /// Most terms each side's encoding may build.
    pub max_terms: usize,
    pub stop: Stop,
}

/// Compares `left` and `right` with one summary each.
pub fn compare_merged(
    s: &mut TermStore,
    solver: &mut dyn Solver,
    left: FunctionSide<'_>,
    right: FunctionSide<'_>,
    settings: &MergedSettings<'_>,
) -> Merged {
    let mut queries = 0u64;
    let mut summarize = |s: &mut TermStore, side: FunctionSide<'_>| {
        let setup = FunctionSetup {
            image: side.image,
            entry: side.entry,
            args: settings.args,
            observe: settings.observe,
            fuel: settings.fuel,
            max_terms: settings.max_terms,
            stop: settings.stop,
        };
        let mut ask = |s: &mut TermStore, q: &[Term]| {
            queries += 1;
            solver.check(s, q)
        };
        unroll_function(s, &setup, &mut ask)
    };
    let l = summarize(s, left);
    let r = summarize(s, right);
    let differ = difference(s, &l, &r);
    queries += 1;
    let answer = solver.check(s, &[differ]);
    let mut gaps = Vec::new();
    if !matches!(answer, Answer::Sat(_)) {
        let mut ask_gap = |s: &mut TermStore, cond: Term, gap: FunctionGap| {
            if s.as_const(cond) == Some(0) {
                return;
            }
            queries += 1;
            if !matches!(solver.check(s, &[cond]), Answer::Unsat) {
                gaps.push(gap);
            }
        };
        for (why, cond) in l.uncovered.iter().chain(&r.uncovered) {
            let gap = match why {
                Uncovered::JumpTargets => FunctionGap::Addresses,
                Uncovered::Budget if settings.stop.reached() => FunctionGap::Time,
                _ => FunctionGap::Paths,
            };
            ask_gap(s, *cond, gap);
        }
        let out = s.or(l.out_of_fuel, r.out_of_fuel);
        ask_gap(s, out, FunctionGap::Fuel);
    }
    Merged {
        answer,
        gaps,
        queries,
    }
}

/// The condition that the two sides end differently: both return with some observed
/// register different, one returns and the other faults, or both fault differently.
/// Runs out of fuel or uncovered differ from nothing.
fn difference(s: &mut TermStore, l: &FunctionSummary, r: &FunctionSummary) -> Term {
    let ne: Vec<Term> = l
        .observed
        .iter()
        .zip(&r.observed)
        .map(|(&a, &b)| s.ne(a, b))
        .collect();
    let values = s.or_all(ne);
    let both = s.and(l.returned, r.returned);
    let mut cases = vec![s.and(both, values)];
    let any_fault = |s: &mut TermStore, f: &[(FaultKind, Term)]| {
        let all: Vec<Term> = f.iter().map(|&(_, g)| g).collect();
        s.or_all(all)
    };
    let lf = any_fault(s, &l.faults);
    let rf = any_fault(s, &r.faults);
    cases.push(s.and(l.returned, rf));
    cases.push(s.and(lf, r.returned));
    for &(kl, gl) in &l.faults {
        for &(kr, gr) in &r.faults {
            if kl != kr {
                cases.push(s.and(gl, gr));
            }
        }
    }
    s.or_all(cases)
}
