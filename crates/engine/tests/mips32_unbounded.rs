//! Proofs for runs of any length (`FunctionOptions::unbounded`) on the gcc objects of
//! `examples/mips32/loops.c`: loops whose trip counts come from the arguments, up to
//! 2^32 - 1 trips. Every proof is held against long concrete runs, and pairs that
//! differ only after millions of trips, or where one side may run forever, are never
//! proved.

mod common;

use tamarin::mips::mips32::{Image, Machine, Status};
use tamarin::{compare_functions, FunctionGap, FunctionOptions, FunctionSide, FunctionVerdict};

fn load(name: &str) -> Image {
    common::mips32_example(name)
}

fn side<'a>(image: &'a Image, f: &str) -> FunctionSide<'a> {
    FunctionSide {
        image,
        entry: image.function(f).unwrap().addr,
    }
}

/// An unbounded comparison with a small fuel: one trip of these loops is a few
/// instructions, and the bounded search that follows a failed loop proof stays short
/// (no time limit, so that no verdict depends on the machine's load).
fn unbounded(l: FunctionSide<'_>, r: FunctionSide<'_>) -> tamarin::FunctionReport {
    // A query of the bounded search about a needle can take long; one left undecided
    // leaves the verdict undecided, which is all these tests ask of a pair that is
    // not proved.
    let mut solver = tamarin::SolverConfig::default();
    solver.timeout = std::time::Duration::from_secs(1);
    unbounded_with(l, r, solver)
}

/// [`unbounded`] with the solver's settings `solver`.
fn unbounded_with(
    l: FunctionSide<'_>,
    r: FunctionSide<'_>,
    solver: tamarin::SolverConfig,
) -> tamarin::FunctionReport {
    let opts = FunctionOptions {
        args: 2,
        unbounded: true,
        fuel: 5_000,
        solver,
        ..FunctionOptions::default()
    };
    let report = compare_functions(l, r, &opts).unwrap();
    eprintln!(
        "{:?} in {:?}: {:?}",
        report.verdict, report.elapsed, report.unbounded
    );
    report
}

/// Both functions on `args` with `fuel`: `None` when either did not return.
fn outputs(
    l: FunctionSide<'_>,
    r: FunctionSide<'_>,
    args: [u32; 2],
    fuel: u64,
) -> Option<(u32, u32)> {
    let run = |s: FunctionSide<'_>| {
        let mut m = Machine::new(s.image, fuel);
        m.call(s.entry, &args);
        (m.run() == Status::Returned).then(|| m.regs().gpr[2])
    };
    Some((run(l)?, run(r)?))
}

/// Long runs agree wherever both return: trip counts up to a few million, at edge
/// and pseudo-random second arguments.
fn check_long_runs(l: FunctionSide<'_>, r: FunctionSide<'_>) {
    let trips = [
        0u32,
        1,
        2,
        3,
        7,
        100,
        65_537,
        1_000_000,
        0x8000_0000,
        u32::MAX,
    ];
    let seconds = [0u32, 1, u32::MAX, 5, 0x7fff_ffff, 0x8000_0000, 12_345];
    let mut both = 0;
    for &n in &trips {
        // Past a million trips a loop that counts by ones or eights runs out of any
        // fuel a test can afford; loops whose trips shrink the count (halvings) return
        // within a million steps from any `n`.
        let fuel = if n <= 1_000_000 {
            15_000_000
        } else {
            1_000_000
        };
        for &k in &seconds {
            if let Some((a, b)) = outputs(l, r, [n, k], fuel) {
                assert_eq!(a, b, "n = {n}, k = {k}");
                both += 1;
            }
        }
    }
    assert!(both > 20, "only {both} runs returned on both sides");
}

/// The pair is proved, and long runs agree: the proof's report.
fn proved_and_held(l: FunctionSide<'_>, r: FunctionSide<'_>) -> tamarin::FunctionReport {
    let report = unbounded(l, r);
    assert_proved(&report);
    check_long_runs(l, r);
    report
}

/// The pair is not proved, and the machine shows it differs on `args`.
fn never_proved(l: FunctionSide<'_>, r: FunctionSide<'_>, args: [u32; 2]) {
    let report = unbounded(l, r);
    assert!(
        !matches!(report.verdict, FunctionVerdict::Equivalent),
        "{:?}",
        report.verdict
    );
    let (a, b) = outputs(l, r, args, 200_000_000).unwrap();
    assert_ne!(a, b);
}

/// The pair is found to differ, on inputs past `after` trips (by the loop proof's
/// broken facts: the bounded search stops at 5,000 steps) that two long runs show.
fn found_past(l: FunctionSide<'_>, r: FunctionSide<'_>, after: u32) {
    // The default per-query time (20 s), far above what the queries' work limits
    // take: whether the needle is found must not depend on the machine's load.
    let report = unbounded_with(l, r, tamarin::SolverConfig::default());
    let FunctionVerdict::Disequivalent(cx) = &report.verdict else {
        panic!("{:?}", report.verdict)
    };
    assert!(cx.args.iter().any(|&a| a > after), "{cx:?}");
    assert!(cx.left.differs_from(&cx.right), "{cx:?}");
    let (a, b) = outputs(l, r, [cx.args[0], cx.args[1]], 200_000_000).unwrap();
    assert_ne!(a, b, "{cx:?}");
}

/// Every fact of a proof's invariant, at every place.
fn invariant_facts(report: &tamarin::FunctionReport) -> Vec<String> {
    let proof = report.unbounded.as_ref().expect("an unbounded proof");
    let certificate = proof.certificate.as_ref().expect("a certificate");
    certificate
        .invariant
        .iter()
        .flat_map(|(_, f)| f.clone())
        .collect()
}

/// The pair is proved with a fact containing each of `wanted`, and long runs agree.
fn proved_with_facts(l: FunctionSide<'_>, r: FunctionSide<'_>, wanted: &[&str]) {
    let facts = invariant_facts(&proved_and_held(l, r));
    for w in wanted {
        assert!(facts.iter().any(|f| f.contains(w)), "{w}: {facts:?}");
    }
}

fn assert_proved(report: &tamarin::FunctionReport) {
    assert_eq!(report.verdict, FunctionVerdict::Equivalent);
    let proof = report.unbounded.as_ref().expect("an unbounded proof");
    assert_eq!(proof.method, "lockstep-induction");
    assert!(proof.certificate.is_some());
}

#[test]
fn a_strength_reduced_loop_is_proved_for_any_trip_count() {
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_and_held(side(&o0, "affine_sum"), side(&o2, "affine_sum"));
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn counters_in_opposite_directions_are_proved() {
    let o0 = load("loops-O0.o");
    proved_and_held(side(&o0, "count_down"), side(&o0, "count_up"));
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn a_loop_against_its_closed_form_is_proved() {
    // -O2 turns the loop into one multiplication: the left side runs alone, and a
    // measure shows that it ends.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_and_held(side(&o0, "count_up"), side(&o2, "count_up"));
}

#[test]
fn exits_that_agree_only_through_an_order_fact_are_proved() {
    // `i < n` against `p != 3n + b`: the conjunction of all candidate facts is too
    // hard for one query, so the facts are asked about in halves.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_and_held(side(&o0, "lockstep_sum"), side(&o2, "lockstep_sum"));
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn a_jump_back_into_shared_code_is_not_a_loop() {
    // -O2's `unrolled_by_two` jumps backwards once, to the code after its loop: one
    // loop a side, so the proof is tried.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    let (l, r) = (side(&o2, "unrolled_by_two"), side(&o2, "unrolled_by_two"));
    let report = unbounded(l, r);
    assert_proved(&report);
    let (l, r) = (side(&o0, "unrolled_by_two"), side(&o2, "unrolled_by_two"));
    assert_proved(&unbounded(l, r));
    check_long_runs(l, r);
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn a_loop_against_itself_unrolled_by_two_is_proved() {
    // Two trips of the plain loop against one of the unrolled one: the facts of the
    // last, odd trip (`n - (n & ~1) <= 1`, `s' = 3 s + b` where the unrolled side has
    // returned) settle only once the facts at both heads have.
    // The other pairings of levels and sides: `every_other_pairing_…` below.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_and_held(side(&o0, "recurrence"), side(&o2, "unrolled_by_two"));
}

#[test]
fn a_difference_after_three_million_trips_is_found_where_the_invariant_breaks() {
    // A flag set on trip 3,000,000 (the machine shows it from n = 3,000,001): the fact
    // that a trip breaks names the state before the difference, and the least inputs
    // it allows differ. The flag that only the state after that trip tells is found
    // by the CLI's test in this suite, and at other levels in the long tier.
    let o2 = load("loops-O2.o");
    found_past(
        side(&o2, "count_up"),
        side(&o2, "count_up_needle"),
        3_000_000,
    );
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn loops_one_after_the_other_are_proved_head_by_head() {
    // Each side's two loops meet the other's at their heads in turn; the second loop
    // counts down on the right.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    let (l, r) = (side(&o0, "two_loops"), side(&o2, "two_loops_down"));
    let report = unbounded(l, r);
    assert_proved(&report);
    let proof = report.unbounded.as_ref().unwrap();
    let heads = &proof.certificate.as_ref().unwrap().heads;
    assert_eq!((heads[0].len(), heads[1].len()), (2, 2), "{heads:x?}");
    check_long_runs(l, r);
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn nested_loops_are_proved_against_loops_merged_into_one() {
    // -O2 runs both loops of `nested` through one head: the -O0 side's outer head has
    // no partner, and there it takes its trip while the other side waits.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_and_held(side(&o0, "nested"), side(&o2, "nested"));
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn a_difference_in_a_second_loop_after_three_million_trips_is_found() {
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    found_past(
        side(&o0, "two_loops"),
        side(&o2, "two_loops_needle"),
        3_000_000,
    );
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn loops_in_no_fixed_ratio_are_proved_one_after_the_other() {
    // n trips one at a time against n / 8 and n % 8 trips of two loops: no head of
    // one side goes round in step with a head of the other. The left runs to its
    // end first; every loop is shown to end.
    let o0 = load("loops-O0.o");
    let (l, r) = (side(&o0, "by_ones"), side(&o0, "by_eights"));
    let report = unbounded(l, r);
    assert_proved(&report);
    let proof = report.unbounded.as_ref().unwrap();
    assert_eq!(proof.termination, "ranking");
    let certificate = proof.certificate.as_ref().unwrap();
    assert_eq!(certificate.schedule, tamarin::Schedule::OneAfterTheOther);
    let places: Vec<&str> = certificate
        .invariant
        .iter()
        .map(|(p, _)| p.as_str())
        .collect();
    assert!(
        places.contains(&"head/start") && places.contains(&"returned/head2"),
        "{places:?}"
    );
    check_long_runs(l, r);
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn a_division_by_repeated_subtraction_is_proved_against_divu_in_integers() {
    // The invariant `n = q * d + r` holds without wrap-around, which no 32-bit
    // equation says: its checks are asked (and certified) in integers.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_with_facts(
        side(&o0, "div_by_subtraction"),
        side(&o2, "div_by_divu"),
        &["(no wrap-around)", "/u"],
    );
}

#[test]
fn a_sum_against_its_closed_form_is_proved_with_a_degree_two_fact() {
    // `s = b + i * (i - 1) / 2` fitted to the samples, and the same of what the closed
    // form returned; asked in integers, where gcc's 64-bit product shifted across
    // `hi` and `lo` is the triangular number.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_with_facts(
        side(&o0, "sum_of_i"),
        side(&o2, "sum_closed"),
        &["right.$v0 = $a1 + $a0 * ($a0 - 1) / 2"],
    );
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn a_sum_of_two_i_is_proved_with_its_products_opaque() {
    // gcc -O2 keeps the product's low word and clears its low bit: equal to twice
    // the triangle only because n (n - 1) is even, which Z3 does not settle in
    // integers. Asked again with the products opaque, it is bit-level.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_with_facts(
        side(&o0, "sum_of_2i"),
        side(&o2, "sum_2_closed"),
        &["right.$v0 = $a1 + 2 * $a0 * ($a0 - 1) / 2"],
    );
}

#[test]
fn a_closed_form_whose_product_wraps_is_never_proved() {
    // A closed form whose 32-bit product wraps from n = 65,537 on agrees on every
    // sample, and is never proved.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    never_proved(
        side(&o0, "sum_of_i"),
        side(&o2, "sum_closed_wrapped"),
        [65_537, 0],
    );
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn a_sum_of_three_i_is_proved_though_its_closed_form_wraps_twice() {
    // gcc -O2 multiplies the halved product by 3 as `(x << 1) + x`, each step modulo
    // 2^32: the exit check holds only with those remainders merged into one.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    proved_with_facts(
        side(&o0, "sum_of_3i"),
        side(&o2, "sum_3_closed"),
        &["right.$v0 = $a1 + 3 * $a0 * ($a0 - 1) / 2"],
    );
}

#[test]
#[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
fn the_certificate_of_a_degree_two_fact_rechecks_under_cvc5_and_z3() {
    // Sums of i, 3 i and 2 i against their closed forms, either side first: checks
    // with opaque products and the lemmas they assume, every file `unsat` for both
    // solvers.
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    for (l, r) in [
        (side(&o2, "sum_closed"), side(&o0, "sum_of_i")),
        (side(&o0, "sum_of_i"), side(&o2, "sum_closed")),
        (side(&o0, "sum_of_3i"), side(&o2, "sum_3_closed")),
        (side(&o0, "sum_of_2i"), side(&o2, "sum_2_closed")),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = FunctionOptions {
            args: 2,
            unbounded: true,
            fuel: 5_000,
            certificate: Some(dir.path().join("cert")),
            ..FunctionOptions::default()
        };
        opts.solver.timeout = std::time::Duration::from_secs(1);
        let report = compare_functions(l, r, &opts).unwrap();
        assert_proved(&report);
        let answers = recheck(&dir.path().join("cert"));
        for kind in ["initiation", "consecution", "exit", "lemma-next-triangle"] {
            assert!(
                answers.iter().any(|(n, _, _)| n.contains(kind)),
                "{answers:?}"
            );
        }
        for (name, cvc5, z3) in &answers {
            if let Some(cvc5) = cvc5 {
                assert_eq!(cvc5, "unsat", "cvc5 on {name}");
            }
            assert_eq!(*z3, z3::SatResult::Unsat, "Z3 on {name}");
        }
    }
}

/// Every pairing of levels and sides that the tests above leave out: a campaign of
/// its own (minutes in a debug build), run in release by `.ci/run`.
#[test]
#[ignore = "a campaign: the long tier of .ci/run runs it (--ignored)"]
fn every_other_pairing_of_levels_is_proved_or_kept_unproved() {
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    for (l, r) in [
        (side(&o2, "recurrence"), side(&o2, "unrolled_by_two")),
        (side(&o2, "unrolled_by_two"), side(&o0, "recurrence")),
        (side(&o2, "two_loops"), side(&o0, "two_loops_down")),
        (side(&o2, "nested_down"), side(&o0, "nested")),
        (side(&o0, "nested"), side(&o0, "nested_down")),
        (side(&o2, "nested"), side(&o2, "nested_down")),
        (side(&o0, "by_eights"), side(&o0, "by_ones")),
        (side(&o2, "by_eights"), side(&o0, "by_ones")),
        (side(&o2, "div_by_divu"), side(&o0, "div_by_subtraction")),
        (side(&o2, "div_by_subtraction"), side(&o2, "div_by_divu")),
    ] {
        proved_and_held(l, r);
    }
    // A needle in the first of two loops that meet the other side's loop in no fixed
    // ratio: never proved. The machine shows it against by_eights (the same count as
    // by_ones, proved above) in fewer steps than by_ones would take.
    let needle = unbounded(side(&o0, "by_ones"), side(&o0, "by_eights_needle"));
    assert!(
        !matches!(needle.verdict, FunctionVerdict::Equivalent),
        "{:?}",
        needle.verdict
    );
    let (a, b) = outputs(
        side(&o2, "by_eights"),
        side(&o2, "by_eights_needle"),
        [24_000_016, 0],
        200_000_000,
    )
    .unwrap();
    assert_ne!(a, b);
    // The other needles at other levels, each found from the facts a trip broke.
    for (l, r) in [
        (side(&o0, "count_up"), side(&o0, "count_up_needle")),
        (side(&o0, "count_up"), side(&o0, "count_up_late_needle")),
        (side(&o0, "count_up_needle"), side(&o2, "count_up")),
        (side(&o2, "count_up_late_needle"), side(&o0, "count_up")),
        (side(&o2, "two_loops_needle"), side(&o0, "two_loops")),
        (side(&o0, "two_loops_needle"), side(&o0, "two_loops")),
    ] {
        found_past(l, r, 3_000_000);
    }
    // A quotient one more once it passes 3,000,000.
    found_past(
        side(&o2, "div_by_subtraction_needle"),
        side(&o2, "div_by_divu"),
        3_000_000,
    );
    certified(&o0, &o2, "recurrence", "unrolled_by_two", false);
}

#[test]
fn without_unbounded_a_long_loop_stays_bounded() {
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    let opts = FunctionOptions {
        args: 2,
        fuel: 300,
        ..FunctionOptions::default()
    };
    let report =
        compare_functions(side(&o0, "affine_sum"), side(&o2, "affine_sum"), &opts).unwrap();
    assert!(report.unbounded.is_none());
    match report.verdict {
        FunctionVerdict::PossiblyEquivalent(gaps) => assert!(gaps.contains(&FunctionGap::Fuel)),
        other => panic!("{other:?}"),
    }
}

/// The answers of cvc5 (`None` when it is not installed) and of the in-process Z3 to
/// every SMT-LIB file of a certificate folder, by file name.
fn recheck(dir: &std::path::Path) -> Vec<(String, Option<String>, z3::SatResult)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "smt2"))
        .collect();
    files.sort();
    let cvc5 = std::path::Path::new("/usr/bin/cvc5");
    if !cvc5.exists() {
        eprintln!("note: /usr/bin/cvc5 is not installed: the certificate is checked by Z3 only");
    }
    files
        .iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(f).unwrap();
            // A check in integers with the option the certificate's README gives for
            // them; a check in bit-vectors plainly first, then (where bit-blasting
            // leaves it undecided) through cvc5's translation to integers.
            let in_integers = text.contains("(set-logic QF_NIA)");
            let by_cvc5 = cvc5.exists().then(|| {
                let ask = |options: &[&str]| {
                    let o = std::process::Command::new(cvc5)
                        .arg("--tlimit=5000")
                        .args(options)
                        .arg(f)
                        .output()
                        .unwrap();
                    String::from_utf8_lossy(&o.stdout).trim().to_string()
                };
                if in_integers {
                    return ask(&["--nl-ext-split-zero"]);
                }
                let plain = ask(&[]);
                match plain.as_str() {
                    "sat" | "unsat" => plain,
                    _ => ask(&["--solve-bv-as-int=sum"]),
                }
            });
            let solver = z3::Solver::new();
            solver.from_string(text.as_str());
            assert_eq!(
                solver.get_assertions().len(),
                text.matches("(assert ").count(),
                "{name} did not parse in Z3"
            );
            (name, by_cvc5, solver.check())
        })
        .collect()
}

#[test]
#[ignore = "five proofs and cvc5 on each check: the long tier of .ci/run runs it (--ignored)"]
fn a_certificate_of_each_kind_of_proof_is_unsat_for_cvc5_and_z3() {
    let (o0, o2) = (load("loops-O0.o"), load("loops-O2.o"));
    // Lockstep trips (a strength-reduced counter), a side that runs alone to its end
    // (a loop against its closed form: termination is claimed and checked), and a
    // place where one side waits while the other takes a trip of its outer loop
    // (and, where the right returns at once, the left runs alone to its end). Two
    // trips against one (a loop unrolled by two): in the campaign above.
    for (f, g, lone) in [
        ("affine_sum", "affine_sum", false),
        ("count_up", "count_up", true),
        ("nested", "nested", true),
    ] {
        certified(&o0, &o2, f, g, lone);
    }
    // One run after the other (both at -O0: -O2 counts without a loop), where every
    // loop's measure is a check of its own.
    certified(&o0, &o0, "by_ones", "by_eights", true);
    // An invariant without wrap-around: its checks are written in integers.
    certified(&o0, &o2, "div_by_subtraction", "div_by_divu", true);
}

/// Proves `f` of `o0` (-O0) against `g` of `o2` (-O2) with a certificate, and re-checks every file
/// of it; `lone`: whether a side runs alone to its end (a termination check).
fn certified(o0: &Image, o2: &Image, f: &str, g: &str, lone: bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut solver = tamarin::SolverConfig::default();
    solver.timeout = std::time::Duration::from_secs(1);
    let opts = FunctionOptions {
        args: 2,
        unbounded: true,
        fuel: 5_000,
        solver,
        certificate: Some(dir.path().join("cert")),
        ..FunctionOptions::default()
    };
    let report = compare_functions(side(o0, f), side(o2, g), &opts).unwrap();
    assert_proved(&report);
    let written = report.unbounded.as_ref().unwrap().certificate_files.clone();
    let written = written.expect("the certificate was written");
    assert_eq!(written.dir, dir.path().join("cert"));
    let answers = recheck(&written.dir);
    assert_eq!(answers.len(), written.checks, "{answers:?}");
    for kind in ["initiation", "consecution", "exit"] {
        assert!(
            answers.iter().any(|(n, _, _)| n.contains(kind)),
            "{f}: no {kind} check in {answers:?}"
        );
    }
    assert_eq!(
        answers.iter().any(|(n, _, _)| n.contains("termination")),
        lone,
        "{f}: {answers:?}"
    );
    for (name, cvc5, z3) in &answers {
        if let Some(cvc5) = cvc5 {
            assert_eq!(cvc5, "unsat", "{f}: cvc5 on {name}");
        }
        assert_eq!(*z3, z3::SatResult::Unsat, "{f}: Z3 on {name}");
    }
    let index = std::fs::read_to_string(written.dir.join("certificate.json")).unwrap();
    let schedule = report
        .unbounded
        .as_ref()
        .unwrap()
        .certificate
        .as_ref()
        .unwrap()
        .schedule;
    assert!(
        index.contains(&format!("\"schedule\": \"{}\"", schedule.name())),
        "{index}"
    );
    for (name, _, _) in &answers {
        assert!(
            index.contains(name.as_str()),
            "{name} not in the index: {index}"
        );
    }
    assert!(written.dir.join("README").exists());
}
