//! Resource bounds: runs too long to trace, the whole-search time limit, the run budget.
//! Each must end the search with an honest `possibly-equivalent`, never a wrong verdict.

use std::time::{Duration, Instant};

use tamarin::concolic::{compare, Options, Quiet};
use tamarin::trace::TraceLimits;
use tamarin::verdict::{Incomplete, Verdict};
use tamarin_mips::asm::assemble;
use tamarin_mips::Program;

fn asm(text: &str) -> Program {
    assemble("test.asm", text).unwrap_or_else(|e| panic!("{e}"))
}

/// Accumulates the inputs forever: every step builds a new term.
const GROWING: &str = "loop:\nadd $3, $3, $1\nadd $3, $3, $2\nbeq $0, $0, loop\n";

/// A loop whose exit depends on the inputs at every iteration.
const COUNTING: &str =
    "lis $5\n.word 1\nloop:\nadd $4, $4, $5\nbne $4, $1, loop\nadd $3, $4, $0\njr $31\n";

fn reasons(v: &Verdict) -> &[Incomplete] {
    match v {
        Verdict::PossiblyEquivalent(r) => r,
        other => panic!("expected possibly-equivalent, got {other:?}"),
    }
}

#[test]
fn a_run_that_builds_too_many_terms_is_partial() {
    let p = asm(GROWING);
    let mut opts = Options::default();
    opts.fuel = 200_000;
    opts.trace_limits = TraceLimits {
        max_new_terms: 10_000,
        ..TraceLimits::default()
    };
    let r = compare(&p, &p, &opts, &mut Quiet);
    assert!(reasons(&r.verdict)
        .iter()
        .any(|i| matches!(i, Incomplete::TraceLimit { .. })));
}

#[test]
fn a_run_with_too_many_conditions_is_partial_and_the_search_stays_fast() {
    let p = asm(COUNTING);
    let mut opts = Options::default();
    opts.fuel = 1_000_000;
    opts.trace_limits = TraceLimits {
        max_conds: 1_000,
        ..TraceLimits::default()
    };
    let start = Instant::now();
    let r = compare(&p, &p, &opts, &mut Quiet);
    let rs = reasons(&r.verdict);
    assert!(rs
        .iter()
        .any(|i| matches!(i, Incomplete::TraceLimit { .. })));
    assert!(rs.iter().any(|i| matches!(i, Incomplete::DepthCut { .. })));
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_difference_is_still_found_past_a_trace_limit() {
    // Left differs from right only when $1 == 3, reached after the growing prefix.
    let left = "lis $5\n.word 3\nbne $1, $5, done\nlis $3\n.word 1\ndone:\njr $31\n";
    let right = "jr $31\n";
    let mut opts = Options::default();
    opts.trace_limits = TraceLimits {
        max_conds: 1,
        ..TraceLimits::default()
    };
    let r = compare(&asm(left), &asm(right), &opts, &mut Quiet);
    assert!(
        matches!(r.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        r.verdict
    );
}

#[test]
fn the_time_limit_stops_the_search() {
    let p = asm(COUNTING);
    let mut opts = Options::default();
    opts.fuel = 10_000_000;
    opts.depth = 100_000;
    opts.timeout = Some(Duration::from_millis(300));
    let start = Instant::now();
    let r = compare(&p, &p, &opts, &mut Quiet);
    assert!(start.elapsed() < Duration::from_secs(30));
    assert!(!matches!(
        r.verdict,
        Verdict::Disequivalent(_) | Verdict::Equivalent(_)
    ));
}

#[test]
fn the_run_budget_stops_the_search() {
    let p = asm(COUNTING);
    let mut opts = Options::default();
    opts.max_runs = 5;
    let r = compare(&p, &p, &opts, &mut Quiet);
    assert!(reasons(&r.verdict)
        .iter()
        .any(|i| matches!(i, Incomplete::RunBudget { runs: 5 })));
}

/// The high word of a product against the same word assembled from 16-bit halves:
/// equal, and far too hard for a tiny resource limit.
#[test]
fn a_resource_limit_is_deterministic_and_makes_an_unknown_not_a_verdict() {
    let l = asm("multu $1, $2\nmfhi $3\njr $31\n");
    let r = asm("lis $20\n.word 65536\ndivu $1, $20\nmfhi $4\nmflo $5\ndivu $2, $20\nmfhi $6\nmflo $7\nmultu $4, $6\nmflo $8\nmultu $5, $6\nmflo $9\nmultu $4, $7\nmflo $10\nmultu $5, $7\nmflo $11\ndivu $8, $20\nmflo $12\nadd $13, $9, $12\ndivu $13, $20\nmfhi $14\nmflo $15\nadd $14, $14, $10\ndivu $14, $20\nmflo $16\nadd $3, $11, $15\nadd $3, $3, $16\njr $31\n");
    let mut opts = Options::default();
    opts.solver.timeout = Duration::from_secs(600);
    opts.solver.resource_limit = Some(10_000);
    // The portfolio is bounded by the clock, not by the resource limit.
    opts.solver.portfolio.clear();
    for _ in 0..2 {
        let start = Instant::now();
        let v = compare(&l, &r, &opts, &mut Quiet).verdict;
        let rs = reasons(&v);
        assert!(
            rs.iter()
                .any(|r| matches!(r, Incomplete::SolverUnknown { .. })),
            "{v:?}"
        );
        assert!(start.elapsed() < Duration::from_secs(60));
    }
}

/// Counts `$1` down to 0, adding 1 to `$3` each trip (`$3 = $1`, unsigned); `extra`
/// goes where the loop ends.
fn counting_down(extra: &str) -> Program {
    asm(&format!(
        "lis $4\n.word 1\nadd $6, $1, $0\nloop:\nbeq $1, $0, done\nsub $1, $1, $4\n\
         add $3, $3, $4\nbeq $0, $0, loop\ndone:\n{extra}jr $31\n"
    ))
}

#[test]
fn a_search_whose_traces_fill_their_memory_bound_stops_with_a_trace_limit() {
    let p = counting_down("");
    let mut opts = Options::default();
    opts.fuel = 100_000_000;
    opts.trace_limits = TraceLimits {
        max_bytes: 8 << 20,
        ..TraceLimits::default()
    };
    let start = Instant::now();
    let r = compare(&p, &p, &opts, &mut Quiet);
    assert!(reasons(&r.verdict)
        .iter()
        .any(|i| matches!(i, Incomplete::TraceLimit { .. })));
    // Without the bound, a run here records conditions until its term budget: seconds.
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_difference_is_still_found_after_long_runs_took_their_share_of_the_trace_memory() {
    // The two differ only when $1 == 3 at the start; the edge inputs near 2^32 run
    // long loops first. Each run may take half of the memory left, so short runs
    // still have room after them.
    let left = counting_down("");
    let right = counting_down("lis $5\n.word 3\nbne $6, $5, end\nadd $3, $3, $4\nend:\n");
    let mut opts = Options::default();
    opts.fuel = 10_000_000;
    opts.trace_limits = TraceLimits {
        max_bytes: 64 << 20,
        ..TraceLimits::default()
    };
    let r = compare(&left, &right, &opts, &mut Quiet);
    match &r.verdict {
        Verdict::Disequivalent(cx) => assert_eq!(cx.inputs[0].1, 3, "{cx:?}"),
        other => panic!("expected a difference, got {other:?}"),
    }
}

#[test]
fn a_budget_set_by_the_caller_is_used_as_it_is() {
    // A budget already spent: the comparison draws from it, not from `timeout`.
    let p = counting_down("");
    let mut opts = Options::default();
    opts.timeout = None;
    opts.budget = Some(tamarin::Budget::start(Some(Duration::ZERO)));
    let start = Instant::now();
    let r = tamarin::compare(&p, &p, &opts, &mut Quiet).expect("a task");
    assert!(
        reasons(&r.verdict).iter().any(|i| i.is_time_limit()),
        "{:?}",
        r.verdict
    );
    assert!(start.elapsed() < Duration::from_secs(10));
}
