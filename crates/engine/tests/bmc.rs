//! The merged encoding's limits: whatever it cannot follow exactly becomes a reason,
//! never a verdict, and `auto` reports both engines' reasons.

mod common;

use tamarin::concolic::{Options, Quiet, Report};
use tamarin::verdict::{Engine, Incomplete, Verdict};
use tamarin_mips::Program;

fn bmc(left: &Program, right: &Program, opts: &Options) -> Report {
    let mut opts = opts.clone();
    opts.engine = Engine::Bmc;
    tamarin::equiv::compare(left, right, &opts, &mut Quiet)
}

fn reasons(report: &Report) -> Vec<Incomplete> {
    match &report.verdict {
        Verdict::PossiblyEquivalent(r) => r.clone(),
        v => panic!("expected possibly-equivalent, got {v:?}"),
    }
}

fn encoding_reason(rs: &[Incomplete], what: &str) -> bool {
    rs.iter()
        .any(|r| matches!(r, Incomplete::Encoding { what: w } if w.describe().contains(what)))
}

#[test]
fn a_store_that_may_change_the_code_is_a_reason() {
    let p = common::asm("smc.asm", "sw $1, 0($2)\nadd $3, $1, $0\njr $31\n");
    let rs = reasons(&bmc(&p, &p, &common::load_proof()));
    assert!(encoding_reason(&rs, "own code"), "{rs:?}");
    // The same store, kept off the code by a guard, is covered.
    let guarded = common::asm(
        "guarded.asm",
        "lis $5\n.word 0x1000\nsltu $6, $2, $5\nbne $6, $0, 1\nsw $1, 0($2)\nadd $3, $1, $0\njr $31\n",
    );
    let report = bmc(&guarded, &guarded, &common::load_proof());
    assert!(
        matches!(report.verdict, Verdict::Equivalent(_)),
        "{:?}",
        report.verdict
    );
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn a_jump_with_too_many_targets_is_a_reason() {
    // jr to 40 + 4 * ($1 / 2^25): every one of the 100 adds is a target. No target
    // lies before the jump, so no choice of models makes the unrolling loop through
    // it (which made this test's time depend on the solver's models).
    let mut text = String::from(
        "lis $5\n.word 33554432\ndivu $1, $5\nmflo $4\nadd $4, $4, $4\nadd $4, $4, $4\n\
         lis $6\n.word 40\nadd $4, $4, $6\njr $4\n",
    );
    for _ in 0..100 {
        text.push_str("add $3, $3, $1\n");
    }
    text.push_str("jr $31\n");
    let p = common::asm("table.asm", &text);
    // Only the reason is asked about: the final query (hard, with the quotient) gets
    // one deterministic try and no portfolio.
    let mut opts = Options::default();
    opts.solver.escalate = false;
    opts.solver.portfolio.clear();
    let rs = reasons(&bmc(&p, &p, &opts));
    assert!(encoding_reason(&rs, "too many targets"), "{rs:?}");
}

#[test]
fn a_small_term_budget_is_a_reason_and_auto_keeps_both_engines_reasons() {
    // A loop on an input-dependent bound: many states before the fuel runs out.
    let text = "lis $5\n.word 1\nloop:\nbeq $1, $0, out\nadd $3, $3, $2\nsub $1, $1, $5\nbeq $0, $0, loop\nout:\njr $31\n";
    let p = common::asm("loop.asm", text);
    let mut opts = common::load_proof();
    // A smaller fuel keeps the default-budget proof below quick (the reasons are the same).
    opts.fuel = 2_000;
    opts.max_encoding_terms = 200;
    let rs = reasons(&bmc(&p, &p, &opts));
    assert!(encoding_reason(&rs, "budget"), "{rs:?}");
    opts.engine = Engine::Auto;
    opts.max_paths = Some(3);
    let report = tamarin::equiv::compare(&p, &p, &opts, &mut Quiet);
    let rs = reasons(&report);
    assert!(
        rs.iter()
            .any(|r| matches!(r, Incomplete::PathBudget { .. })),
        "{rs:?}"
    );
    assert!(encoding_reason(&rs, "budget"), "{rs:?}");
    // With its default budget the merged encoding proves it.
    let mut opts = common::load_proof();
    opts.fuel = 2_000;
    let report = bmc(&p, &p, &opts);
    assert!(
        matches!(report.verdict, Verdict::Equivalent(_)),
        "{:?}",
        report.verdict
    );
}

#[test]
fn a_counterexample_from_the_encoding_is_replayed_and_small() {
    // Differ only when $1 * $2 overflows into the high word.
    let l = common::asm("l.asm", "mult $1, $2\nmflo $3\njr $31\n");
    let r = common::asm(
        "r.asm",
        "mult $1, $2\nmflo $3\nmfhi $4\nbeq $4, $0, 2\nlis $3\n.word 7\njr $31\n",
    );
    let report = bmc(&l, &r, &common::load_proof());
    let Verdict::Disequivalent(cx) = &report.verdict else {
        panic!("{:?}", report.verdict);
    };
    assert_ne!(cx.left.regs.gpr[3], cx.right.regs.gpr[3]);
    assert!(
        cx.inputs
            .iter()
            .all(|&(_, v)| (v as i32).unsigned_abs() <= 65_536),
        "{:?}",
        cx.inputs
    );
}

/// `k` if-then-else blocks in sequence, each on one bit of `$1` (2^k paths), against a
/// copy that starts from the sum of the `else` constants and adds the difference (off
/// by `bump` in the last block).
fn blocks(k: u32, bump: u32) -> (Program, Program) {
    let (mut l, mut r) = (String::from("add $3, $0, $0\n"), String::new());
    let a = |i: u32| 3 * i + 1;
    let b = |i: u32| 7 * i + 2;
    let base: u32 = (0..k).map(b).sum();
    r.push_str(&format!("lis $3\n.word {base}\n"));
    for i in 0..k {
        l.push_str(&format!(
            "slt $4, $1, $0\nbeq $4, $0, e{i}\nlis $5\n.word {}\nbeq $0, $0, j{i}\ne{i}:\nlis $5\n.word {}\nj{i}:\nadd $3, $3, $5\nadd $1, $1, $1\n",
            a(i),
            b(i)
        ));
        r.push_str(&format!(
            "slt $4, $1, $0\nbeq $4, $0, s{i}\nlis $5\n.word {}\nadd $3, $3, $5\ns{i}:\nadd $1, $1, $1\n",
            a(i).wrapping_sub(b(i)).wrapping_add(if i + 1 == k { bump } else { 0 })
        ));
    }
    l.push_str("jr $31\n");
    r.push_str("jr $31\n");
    (common::asm("l.asm", &l), common::asm("r.asm", &r))
}

#[test]
fn auto_hands_multiplying_paths_to_the_merged_encoding() {
    let (l, r) = blocks(9, 0);
    let opts = common::load_proof();
    let report = tamarin::equiv::compare(&l, &r, &opts, &mut Quiet);
    let Verdict::Equivalent(p) = &report.verdict else {
        panic!("{:?}", report.verdict);
    };
    assert_eq!(p.engine, Engine::Bmc);
    // The first search enumerated the 512 paths a side within its budget, and
    // handed the 512 x 512 pairs, too many to check, to the merged encoding.
    let cap = tamarin::equiv::AUTO_SEARCH_PATHS;
    assert!(
        report.stats.paths.0 <= cap && report.stats.paths.1 <= cap,
        "{:?}",
        report.stats.paths
    );
    // A path budget set by the caller is the caller's: auto does not lower it.
    let mut opts = common::load_proof();
    opts.max_paths = Some(2000);
    opts.engine = Engine::Concolic;
    let report = tamarin::equiv::compare(&l, &r, &opts, &mut Quiet);
    assert!(
        matches!(report.verdict, Verdict::PossiblyEquivalent(_)),
        "512 x 512 path pairs exceed the pair limit: {:?}",
        report.verdict
    );
    // One wrong constant in the last block: found, and replayed.
    let (_, wrong) = blocks(9, 1);
    let report = tamarin::equiv::compare(&l, &wrong, &common::load_proof(), &mut Quiet);
    let Verdict::Disequivalent(cx) = &report.verdict else {
        panic!("{:?}", report.verdict);
    };
    assert_ne!(cx.left.regs.gpr[3], cx.right.regs.gpr[3]);
}

/// When the solver cannot decide the merged encoding's difference whole (here under a
/// tiny deterministic resource limit), bmc asks it again in parts, case by case along
/// the paths its merges joined: the parts prove the pair and find the mutant's
/// difference, which the whole query decides neither way.
#[test]
fn an_undecided_difference_is_split_along_the_merged_paths() {
    let load = common::proof_example;
    let (l, r, m) = (
        load("sum10-loop.asm"),
        load("sum10-closed.asm"),
        load("sum10-closed-mutant.asm"),
    );
    let mut opts = common::load_proof();
    opts.engine = Engine::Bmc;
    opts.solver.resource_limit = Some(1000);
    let split = tamarin::equiv::compare(&l, &r, &opts, &mut Quiet);
    assert!(
        matches!(split.verdict, Verdict::Equivalent(_)),
        "{:?}",
        split.verdict
    );
    assert!(split.stats.split_queries > 1, "{:?}", split.stats);
    let found = tamarin::equiv::compare(&l, &m, &opts, &mut Quiet);
    assert!(
        matches!(found.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        found.verdict
    );
    opts.bmc_split = false;
    for right in [&r, &m] {
        let whole = tamarin::equiv::compare(&l, right, &opts, &mut Quiet);
        let Verdict::PossiblyEquivalent(reasons) = &whole.verdict else {
            panic!("{:?}", whole.verdict);
        };
        assert!(
            reasons
                .iter()
                .any(|i| matches!(i, Incomplete::SolverUnknown { .. })),
            "{reasons:?}"
        );
        assert_eq!(whole.stats.split_queries, 0);
    }
}

/// The "maximum of an array" class under preconditions: each correct program has 255
/// paths a side, and each query of their enumeration is slow under the element
/// bounds. `auto`'s first search stops after a few runs and the merged encoding proves
/// the pair; the unsigned mutant is found. Both by counts, never by the clock: the
/// comparison has no time limit.
#[test]
fn auto_proves_an_array_class_by_the_encoding_after_a_short_search() {
    let load = common::proof_example;
    let (fwd, bwd, mutant) = (
        load("amax-fwd.asm"),
        load("amax-bwd.asm"),
        load("amax-bwd-mutant.asm"),
    );
    let mut opts = Options::default();
    opts.solver.portfolio.clear();
    opts.inputs = tamarin::io::InputSpec::Array {
        max_len: 8,
        base: None,
    };
    opts.assume = ["len >= 1", "all x: -1000 <= x <= 1000"]
        .iter()
        .map(|a| tamarin::Precondition::parse(a).expect("a precondition"))
        .collect();
    let report = tamarin::equiv::compare(&fwd, &bwd, &opts, &mut Quiet);
    let Verdict::Equivalent(p) = &report.verdict else {
        panic!("{:?}", report.verdict);
    };
    assert_eq!(p.engine, Engine::Bmc);
    assert!(
        report.stats.runs <= tamarin::equiv::AUTO_PROBE_RUNS,
        "the full search never ran: {} runs",
        report.stats.runs
    );
    let report = tamarin::equiv::compare(&fwd, &mutant, &opts, &mut Quiet);
    assert!(
        matches!(report.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        report.verdict
    );
}

/// With register inputs, `auto`'s first search goes on while its queries are cheap: a
/// loop of up to 1000 trips against its closed form (1002 paths, whose merged encoding
/// would spend seconds and fail) is proved by paths.
#[test]
fn auto_gives_a_long_loop_to_the_path_search() {
    let load = common::proof_example;
    let (l, r) = (load("sum1000-loop.asm"), load("sum1000-closed.asm"));
    let mut opts = Options::default();
    opts.solver.portfolio.clear();
    let report = tamarin::equiv::compare(&l, &r, &opts, &mut Quiet);
    let Verdict::Equivalent(p) = &report.verdict else {
        panic!("{:?}", report.verdict);
    };
    assert_eq!(p.engine, Engine::Concolic);
    assert!(report.stats.paths.0 > 1000, "{:?}", report.stats.paths);
}
