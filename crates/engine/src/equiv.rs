//! The engines behind `compare`, and how `auto` chains them.
//!
//! `concolic` finds differences fast and proves by enumerating every path; `bmc`
//! proves with one merged encoding per program, which stays small where paths
//! multiply (input-dependent loop bounds, branches in sequence). `auto` runs the
//! concolic search first, with at most [`AUTO_PATHS`] paths per side unless the caller
//! set a path budget; when that ends without a verdict, the merged encoding gets the
//! time that is left; and if that ends without one too while the path budget was what
//! stopped the search, the search runs again without it.

use std::time::Instant;

use tamarin_mips::Program;

use crate::bmc;
use crate::concolic;
use crate::options::Options;
use crate::report::{Observer, PathReport, Report, Stats};
use crate::verdict::{Engine, Incomplete, Verdict};

/// Paths per side that `auto`'s first concolic search may enumerate: beyond them,
/// paths are multiplying and the merged encoding is the better bet.
pub const AUTO_PATHS: u64 = 256;

/// When the path search was stopped by [`AUTO_PATHS`] alone, `auto` lets it go on
/// uncapped for 1/`AUTO_SEARCH_SHARE` of the time left before the merged encoding gets
/// the rest: a loop of a few thousand trips finishes there, while its encoding spent
/// all the time it was given (30 s of 50 on a fuel-bounded loop that the path search
/// proves in 19; BENCHMARKS.md).
pub const AUTO_SEARCH_SHARE: u32 = 2;

/// Compares two programs with the engine that `opts.engine` names. The crate root's
/// `compare`, the front door, checks the task first and turns a solver failure into an
/// error.
pub fn compare(
    left: &Program,
    right: &Program,
    opts: &Options,
    observer: &mut dyn Observer,
) -> Report {
    comparer(opts.engine).compare(left, right, opts, observer)
}

/// What every engine does, whatever its method: compare two programs under the
/// options and report. A new engine (or one for a second instruction set) is one more
/// implementation, picked in [`comparer`].
pub(crate) trait Comparer {
    fn compare(
        &self,
        left: &Program,
        right: &Program,
        opts: &Options,
        observer: &mut dyn Observer,
    ) -> Report;
}

/// Path enumeration ([`concolic`]).
struct PathSearch;
/// The merged bounded encoding ([`bmc`]).
struct MergedEncoding;
/// The path search first, then the merged encoding (see the module's documentation).
struct Chained;

impl Comparer for PathSearch {
    fn compare(&self, l: &Program, r: &Program, o: &Options, obs: &mut dyn Observer) -> Report {
        concolic::compare(l, r, o, obs)
    }
}

impl Comparer for MergedEncoding {
    fn compare(&self, l: &Program, r: &Program, o: &Options, obs: &mut dyn Observer) -> Report {
        bmc::compare(l, r, o, obs)
    }
}

impl Comparer for Chained {
    fn compare(&self, l: &Program, r: &Program, o: &Options, obs: &mut dyn Observer) -> Report {
        auto(l, r, o, obs)
    }
}

/// The engine behind each [`Engine`] name.
pub(crate) fn comparer(engine: Engine) -> &'static dyn Comparer {
    match engine {
        Engine::Concolic => &PathSearch,
        Engine::Bmc => &MergedEncoding,
        Engine::Auto => &Chained,
    }
}

fn auto(left: &Program, right: &Program, opts: &Options, observer: &mut dyn Observer) -> Report {
    let start = Instant::now();
    // Every phase draws from the one budget (anchored here if the caller did not).
    let opts = &opts.started();
    let capped = opts.max_paths.is_none();
    let mut first_opts = opts.clone();
    if capped {
        first_opts.max_paths = Some(AUTO_PATHS);
    }
    let first = comparer(Engine::Concolic).compare(left, right, &first_opts, observer);
    let Verdict::PossiblyEquivalent(reasons) = &first.verdict else {
        return first;
    };
    let cut_by_cap = capped
        && reasons
            .iter()
            .any(|r| matches!(r, Incomplete::PathBudget { .. }));
    let mut stats = first.stats.clone();
    let mut concolic_reasons = reasons.clone();
    // The paths of the latest path search (kept with `Options::keep_paths`).
    let mut paths = first.paths.clone();
    // With a time limit, a search stopped only by the cap goes on first, uncapped, for
    // a share of the time: a loop of a few thousand trips finishes there (the
    // encoding of such a loop is what times out). Without a limit it would never
    // hand over, so the encoding goes first.
    let search_first = cut_by_cap && opts.budget().deadline().is_some();
    if search_first {
        if let Some(mut rest) = remaining(opts, start) {
            rest.budget = rest.budget.map(|b| b.share(AUTO_SEARCH_SHARE));
            let second = comparer(Engine::Concolic).compare(left, right, &rest, observer);
            stats = add(&stats, &second.stats);
            stats.paths = second.stats.paths;
            paths = second.paths;
            match second.verdict {
                Verdict::PossiblyEquivalent(mut r) => {
                    // Its share of the time ran out, not the comparison's.
                    r.retain(|r| !r.is_time_limit());
                    concolic_reasons = r;
                }
                decided => return finish(decided, stats, first.input_names, paths, start),
            }
        }
    }
    let Some(rest) = remaining(opts, start) else {
        return finish(
            Verdict::PossiblyEquivalent(concolic_reasons),
            stats,
            first.input_names,
            paths,
            start,
        );
    };
    let merged = comparer(Engine::Bmc).compare(left, right, &rest, observer);
    stats = add(&stats, &merged.stats);
    let Verdict::PossiblyEquivalent(more) = &merged.verdict else {
        return finish(merged.verdict, stats, first.input_names, merged.paths, start);
    };
    if cut_by_cap && !search_first {
        if let Some(rest) = remaining(opts, start) {
            let third = comparer(Engine::Concolic).compare(left, right, &rest, observer);
            stats = add(&stats, &third.stats);
            stats.paths = third.stats.paths;
            paths = third.paths;
            match third.verdict {
                Verdict::PossiblyEquivalent(r) => concolic_reasons = r,
                decided => return finish(decided, stats, first.input_names, paths, start),
            }
        }
    }
    concolic_reasons.extend(more.iter().cloned());
    finish(
        Verdict::PossiblyEquivalent(concolic_reasons),
        stats,
        first.input_names,
        paths,
        start,
    )
}

/// `opts` for the next phase, drawing from the same budget (`None` when it is spent:
/// past its deadline or interrupted).
fn remaining(opts: &Options, _start: Instant) -> Option<Options> {
    let budget = opts.budget();
    if budget.exhausted() {
        return None;
    }
    let mut rest = opts.clone();
    rest.budget = Some(budget);
    Some(rest)
}

/// The work of two engine runs together (the paths are the first run's).
fn add(a: &Stats, b: &Stats) -> Stats {
    let mut s = b.clone();
    s.runs += a.runs;
    s.difference_queries += a.difference_queries;
    s.restarts += a.restarts;
    s.partial_runs += a.partial_runs;
    s.stopped_runs += a.stopped_runs;
    s.out_of_fuel_paths = (
        s.out_of_fuel_paths.0.max(a.out_of_fuel_paths.0),
        s.out_of_fuel_paths.1.max(a.out_of_fuel_paths.1),
    );
    s.jump_targets += a.jump_targets;
    s.shrink_steps += a.shrink_steps;
    s.shrink_replays += a.shrink_replays;
    s.solver.queries += a.solver.queries;
    s.solver.cache_hits += a.solver.cache_hits;
    s.solver.sat += a.solver.sat;
    s.solver.unsat += a.solver.unsat;
    s.solver.unknown += a.solver.unknown;
    s.solver.time += a.solver.time;
    s.paths = a.paths;
    s.warnings.extend(a.warnings.iter().cloned());
    if s.solver_failure.is_none() {
        s.solver_failure = a.solver_failure.clone();
    }
    s
}

fn finish(
    verdict: Verdict,
    mut stats: Stats,
    input_names: Vec<String>,
    paths: (Vec<PathReport>, Vec<PathReport>),
    start: Instant,
) -> Report {
    stats.total = start.elapsed();
    Report {
        verdict,
        stats,
        input_names,
        paths,
    }
}
