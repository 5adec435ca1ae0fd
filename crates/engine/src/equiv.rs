//! The engines behind `compare`, and how `auto` chains them.
//!
//! `concolic` finds differences fast and proves by enumerating every path; `bmc`
//! proves with one merged encoding per program, which stays small where paths
//! multiply (loops over an array, branches in sequence). `auto` runs them in three
//! phases, each but the last bounded by counts, never by the clock, so which phase
//! answers, and what, is the same on any load:
//!
//! 1. **search**: the path search with a small budget ([`search_options`]). Most
//!    differences show on the first inputs and the edge values. With an array input
//!    it stops after [`AUTO_PROBE_RUNS`] runs: loops over the array multiply paths (a
//!    correct maximum of 8 elements has 255 a side, tens of seconds of queries under
//!    preconditions), which the encoding takes together. With register inputs it goes
//!    on up to [`AUTO_SEARCH_PATHS`] paths a side while its queries stay cheap: a loop
//!    of a few thousand trips is proved here, and its encoding would be too large;
//! 2. **merged encoding**, within [`AUTO_ENCODING_TERMS`] terms and
//!    [`AUTO_ENCODING_WORK`] units of solver work (and at most half of the time left, a
//!    safety net that keeps time for the last phase): what does not fit fails in
//!    seconds;
//! 3. **full search**: the path search with the caller's budgets, for the time left.
//!
//! The time limit bounds the whole as a safety net; where it cuts a phase, the reasons
//! say so.

use std::time::Instant;

use tamarin_mips::Program;

use crate::bmc;
use crate::concolic;
use crate::io::InputSpec;
use crate::options::Options;
use crate::report::{Observer, PathReport, Report, Stats};
use crate::shared;
use crate::verdict::{Engine, Incomplete, Verdict};

/// Paths per side that `auto`'s first search may enumerate with an array input.
pub const AUTO_PATHS: u64 = 256;

/// Runs (each runs both programs on one input) of `auto`'s first search with an array
/// input: the first inputs, the edge values and the first paths' inputs.
pub const AUTO_PROBE_RUNS: u64 = 32;

/// Paths per side that `auto`'s first search may enumerate with register inputs: a
/// loop whose trip count comes from an input has a path per count.
pub const AUTO_SEARCH_PATHS: u64 = 4096;

/// Solver work (the backend's resource units, [`crate::SolverConfig::work_budget`])
/// of `auto`'s first search: two first tries at the default resource limit. Where
/// queries cost more, the encoding is the better bet.
pub const AUTO_PROBE_WORK: u64 = 2 * crate::solver::DEFAULT_RESOURCE_LIMIT as u64;

/// Solver work of `auto`'s merged encoding: eight first tries at the default resource
/// limit. The encoding proofs of our corpus take at most 10.7 million (division by
/// repeated subtraction), those of a generated array class about 8 million; an
/// encoding that fails spends it in a few seconds (BENCHMARKS.md).
pub const AUTO_ENCODING_WORK: u64 = 8 * crate::solver::DEFAULT_RESOURCE_LIMIT as u64;

/// Terms of `auto`'s merged encoding (both programs): the encoding proofs of our corpus
/// fit in a tenth of this; unrolling deep recursion meets it within seconds.
pub const AUTO_ENCODING_TERMS: usize = 100_000;

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
        // Procedures both programs contain, compared by their calls where they pass
        // the check of them alone (`shared`).
        let calls = if o.shared_calls {
            shared::find(l, r, o.interrupt, o.procedure_cache.as_deref())
        } else {
            Default::default()
        };
        concolic::compare_calling(l, r, calls, o, obs)
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
    let first = comparer(Engine::Concolic).compare(left, right, &search_options(opts), observer);
    let Verdict::PossiblyEquivalent(_) = &first.verdict else {
        return first;
    };
    let input_names = first.input_names.clone();
    let mut stats = first.stats.clone();
    let Some(rest) = remaining(opts) else {
        return cut_short(opts, first, stats, start);
    };
    // The merged encoding follows every call: where the path search compared calls
    // to shared procedures as events, it would derive them again (print's division
    // chains) and spend its budget there, so the full search gets it instead.
    let encoding_reasons = if first.stats.call_events > 0 {
        Vec::new()
    } else {
        let merged = comparer(Engine::Bmc).compare(left, right, &encoding_options(&rest), observer);
        stats = add(&stats, &merged.stats);
        match merged.verdict {
            Verdict::PossiblyEquivalent(reasons) => reasons,
            decided => return finish(decided, stats, input_names, merged.paths, start),
        }
    };
    let encoding_reasons = &encoding_reasons;
    let Some(rest) = remaining(opts) else {
        let mut reasons = first_reasons(&first, opts, start);
        reasons.extend(encoding_reasons.iter().cloned());
        return finish(
            Verdict::PossiblyEquivalent(reasons),
            stats,
            input_names,
            first.paths,
            start,
        );
    };
    let fo = full_options(&rest, &stats);
    let full = comparer(Engine::Concolic).compare(left, right, &fo, observer);
    stats = add(&stats, &full.stats);
    stats.paths = full.stats.paths;
    match full.verdict {
        Verdict::PossiblyEquivalent(reasons) => {
            let mut reasons: Vec<Incomplete> = reasons.into_iter().map(whole_work).collect();
            for r in encoding_reasons {
                // One time limit is enough, whichever phase met it first.
                if !(r.kind() == "time-limit" && reasons.iter().any(|x| x.kind() == r.kind())) {
                    reasons.push(r.clone());
                }
            }
            finish(
                Verdict::PossiblyEquivalent(reasons),
                stats,
                input_names,
                full.paths,
                start,
            )
        }
        decided => finish(decided, stats, input_names, full.paths, start),
    }
}

/// The first search's options: the caller's, with the first search's budgets where
/// the caller's are larger (see the module's documentation).
pub fn search_options(opts: &Options) -> Options {
    let mut o = opts.clone();
    let paths = match opts.inputs {
        InputSpec::Array { .. } => {
            o.max_runs = o.max_runs.min(AUTO_PROBE_RUNS);
            AUTO_PATHS
        }
        InputSpec::Registers(_) => AUTO_SEARCH_PATHS,
    };
    o.max_paths = Some(o.max_paths.map_or(paths, |m| m.min(paths)));
    o.solver.work_budget = Some(budget_within(opts, AUTO_PROBE_WORK));
    o
}

/// The merged encoding's options in `auto`: bounded by terms and solver work, and as a
/// safety net by half of the time left, which the full search keeps whatever happens
/// to the encoding on a busy machine.
fn encoding_options(rest: &Options) -> Options {
    let mut o = rest.clone();
    if !rest.deterministic {
        o.budget = Some(rest.budget().share(2));
    }
    o.max_encoding_terms = o.max_encoding_terms.min(AUTO_ENCODING_TERMS);
    o.solver.work_budget = Some(budget_within(rest, AUTO_ENCODING_WORK));
    o
}

/// The full search's options: the caller's, with what is left of a work budget for
/// the whole comparison (a deterministic one always has one) after the first two
/// phases spent theirs.
fn full_options(rest: &Options, spent: &Stats) -> Options {
    let mut o = rest.clone();
    o.solver.work_budget = rest
        .solver
        .work_budget
        .map(|w| w.saturating_sub(spent.solver.work));
    o
}

/// The full search's spent work budget is the comparison's, not a phase's: named so,
/// the front end advises raising it rather than another engine.
fn whole_work(reason: Incomplete) -> Incomplete {
    match reason {
        Incomplete::SolverUnknown { queries, reason }
            if reason == crate::solver::WORK_BUDGET_SPENT =>
        {
            Incomplete::SolverUnknown {
                queries,
                reason: crate::solver::COMPARISON_WORK_SPENT.into(),
            }
        }
        other => other,
    }
}

/// A phase's work budget, within the caller's own if it set one.
fn budget_within(opts: &Options, phase: u64) -> u64 {
    opts.solver.work_budget.map_or(phase, |w| w.min(phase))
}

/// The first search's reasons when no later phase ran for lack of time: its own
/// budgets are not what stopped the comparison, the time limit (or an interrupt) is.
fn first_reasons(first: &Report, opts: &Options, start: Instant) -> Vec<Incomplete> {
    let Verdict::PossiblyEquivalent(reasons) = &first.verdict else {
        return Vec::new();
    };
    let mut kept: Vec<Incomplete> = reasons
        .iter()
        .filter(|r| {
            !matches!(
                r,
                Incomplete::RunBudget { .. } | Incomplete::PathBudget { .. }
            ) && !matches!(r, Incomplete::SolverUnknown { reason, .. }
                    if reason == crate::solver::WORK_BUDGET_SPENT)
        })
        .cloned()
        .collect();
    let stopped = if opts.interrupted() {
        Incomplete::Interrupted
    } else {
        Incomplete::Timeout {
            millis: start.elapsed().as_millis() as u64,
        }
    };
    if !kept.iter().any(|r| r.kind() == stopped.kind()) {
        kept.push(stopped);
    }
    kept
}

/// The report when the time ran out (or Ctrl-C came) after the first search.
fn cut_short(opts: &Options, first: Report, stats: Stats, start: Instant) -> Report {
    let reasons = first_reasons(&first, opts, start);
    finish(
        Verdict::PossiblyEquivalent(reasons),
        stats,
        first.input_names,
        first.paths,
        start,
    )
}

/// `opts` for the next phase, drawing from the same budget (`None` when it is spent:
/// past its deadline or interrupted).
fn remaining(opts: &Options) -> Option<Options> {
    (!opts.budget().exhausted()).then(|| opts.clone())
}

/// The work of two engine runs together (the paths are the first run's).
fn add(a: &Stats, b: &Stats) -> Stats {
    let mut s = b.clone();
    s.runs += a.runs;
    s.difference_queries += a.difference_queries;
    s.restarts += a.restarts;
    s.partial_runs += a.partial_runs;
    s.call_partial_runs += a.call_partial_runs;
    s.call_events += a.call_events;
    s.stopped_runs += a.stopped_runs;
    s.wrote_output = (
        s.wrote_output.0 || a.wrote_output.0,
        s.wrote_output.1 || a.wrote_output.1,
    );
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
    s.solver.work += a.solver.work;
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
        notes: Vec::new(),
    }
}
