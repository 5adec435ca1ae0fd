//! The engines behind `compare`, and how `auto` chains them.
//!
//! `concolic` finds differences fast and proves by enumerating every path; `bmc`
//! proves with one merged encoding per program, which stays small where paths
//! multiply (input-dependent loop bounds, branches in sequence). `auto` runs the
//! concolic search first and, when it ends without a verdict, hands what is left of
//! the time to the merged encoding.

use std::time::Instant;

use tamarin_mips::Program;

use crate::bmc;
use crate::concolic::{self, Observer, Options, Report};
use crate::verdict::{Engine, Verdict};

/// Compares two programs with the engine that `opts.engine` names.
pub fn compare(
    left: &Program,
    right: &Program,
    opts: &Options,
    observer: &mut dyn Observer,
) -> Report {
    match opts.engine {
        Engine::Concolic => concolic::compare(left, right, opts, observer),
        Engine::Bmc => bmc::compare(left, right, opts, observer),
        Engine::Auto => auto(left, right, opts, observer),
    }
}

fn auto(left: &Program, right: &Program, opts: &Options, observer: &mut dyn Observer) -> Report {
    let start = Instant::now();
    let first = concolic::compare(left, right, opts, observer);
    let Verdict::PossiblyEquivalent(reasons) = &first.verdict else {
        return first;
    };
    let mut rest = opts.clone();
    if let Some(limit) = opts.timeout {
        match limit.checked_sub(start.elapsed()) {
            Some(left_over) if !left_over.is_zero() => rest.timeout = Some(left_over),
            _ => return first,
        }
    }
    let second = bmc::compare(left, right, &rest, observer);
    let mut stats = second.stats.clone();
    let s = &first.stats;
    stats.runs += s.runs;
    stats.difference_queries += s.difference_queries;
    stats.restarts += s.restarts;
    stats.partial_runs += s.partial_runs;
    stats.jump_targets += s.jump_targets;
    stats.solver.queries += s.solver.queries;
    stats.solver.cache_hits += s.solver.cache_hits;
    stats.solver.sat += s.solver.sat;
    stats.solver.unsat += s.solver.unsat;
    stats.solver.unknown += s.solver.unknown;
    stats.solver.time += s.solver.time;
    stats.paths = s.paths;
    stats.warnings.extend(s.warnings.iter().cloned());
    stats.total = start.elapsed();
    let verdict = match second.verdict {
        Verdict::PossiblyEquivalent(more) => {
            let mut all = reasons.clone();
            all.extend(more);
            Verdict::PossiblyEquivalent(all)
        }
        decided => decided,
    };
    Report {
        verdict,
        stats,
        input_names: first.input_names,
    }
}
