//! The MIPS32 comparison campaign on a tiny run: generated functions compared with
//! themselves across levels and with a mutant, every verdict checked under qemu; and
//! the checker must be able to fail (fabricated verdicts on pairs whose behaviour
//! under qemu is known are reported as unsound).
//!
//! Needs `mips-linux-gnu-gcc` and `qemu-mips` (Debian: gcc-mips-linux-gnu,
//! qemu-user); the tests fail with that message when they are missing.

use std::time::{Duration, Instant};

use tamarin::mips::mips32::{Fault, FaultKind, Status};
use tamarin::{FunctionCounterexample, FunctionGap, FunctionRun, FunctionVerdict};
use tamarin_harness::cgen::oracle::{Level, Oracle};
use tamarin_harness::cgen::pairs::{
    check_function, check_verdict, compare_pair, FindingClass, PairKind, Settings, Totals,
    VerdictKind,
};

fn oracle() -> Oracle {
    Oracle::new(None).unwrap_or_else(|e| panic!("{e}"))
}

fn settings() -> Settings {
    Settings {
        timeout: Duration::from_millis(1500),
        inputs: 40,
        random: 8,
        ..Settings::default()
    }
}

/// Functions 20, 66 and 68 of seed 1 are small enough to be decided within the
/// timeout: function 20's and 66's mutants differ and are found to (and the witness
/// differs under qemu), 68's mutant is proved equal (and agrees on every input).
#[test]
fn a_tiny_run_is_sound_and_finds_a_mutant() {
    let o = oracle();
    let s = settings();
    let start = Instant::now();
    let mut totals = Totals::default();
    let mut found = 0;
    for index in [20, 66, 68] {
        let r = check_function(&o, 1, index, &s, None);
        assert_eq!(r.pairs.len(), 2);
        let unsound: Vec<String> = r
            .findings()
            .filter(|(_, f)| f.class.fails())
            .map(|(p, f)| format!("{} {}: {f}", p.index, p.kind))
            .collect();
        assert!(
            unsound.is_empty(),
            "function {index}:\n{}\n{}",
            r.source,
            unsound.join("\n")
        );
        for p in &r.pairs {
            eprintln!(
                "function {index} {}: {} in {:.2} s",
                p.kind, p.verdict_text, p.seconds
            );
            if p.kind == PairKind::Mutant && p.verdict == Some(VerdictKind::Disequivalent) {
                // Checked under qemu: both programs ran on the witness and differed.
                assert_eq!(p.qemu_runs, 2);
                found += 1;
            }
        }
        totals.add(&r);
    }
    assert!(found >= 1, "no mutant was found to differ");
    assert_eq!(totals.funcs, 3);
    assert_eq!(totals.failing(), 0);
    let report = totals.report();
    assert!(report.contains("same-source: 3 pairs"), "{report}");
    assert!(report.contains("unsound-proof 0"), "{report}");
    let json = totals.to_json();
    assert_eq!(json["kinds"]["mutant"]["pairs"], 2 + 1);
    eprintln!("{report}in {:.1} s", start.elapsed().as_secs_f64());
}

/// The same functions through the merged encoding alone: no verdict that qemu
/// contradicts, and the mutant of function 20 found to differ.
#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn the_merged_encoding_is_sound_on_the_same_functions() {
    let o = oracle();
    let s = Settings {
        engine: tamarin::Engine::Bmc,
        ..settings()
    };
    let mut found = 0;
    for index in [20, 66, 68] {
        let r = check_function(&o, 1, index, &s, None);
        let unsound: Vec<String> = r
            .findings()
            .filter(|(_, f)| f.class.fails())
            .map(|(p, f)| format!("{} {}: {f}", p.index, p.kind))
            .collect();
        assert!(
            unsound.is_empty(),
            "function {index}:\n{}\n{}",
            r.source,
            unsound.join("\n")
        );
        for p in &r.pairs {
            eprintln!(
                "function {index} {} (bmc): {} in {:.2} s",
                p.kind, p.verdict_text, p.seconds
            );
            if p.kind == PairKind::Mutant && p.verdict == Some(VerdictKind::Disequivalent) {
                assert_eq!(p.qemu_runs, 2);
                found += 1;
            }
        }
    }
    assert!(found >= 1, "no mutant was found to differ");
}

const ADD: &str = "int f(int a, int b, int c, int d) { return a + b * c; }\n";
const SUB: &str = "int f(int a, int b, int c, int d) { return a - b * c; }\n";
const DIV: &str = "int f(int a, int b, int c, int d) { return a / (b & 3) + d; }\n";

fn run(status: Status, v0: u32) -> FunctionRun {
    FunctionRun {
        status,
        observed: vec![v0],
        steps: 10,
    }
}

/// `a + b*c` against `a - b*c`: they differ whenever `b*c != 0` (and agree when it
/// is 0). Fabricated verdicts must be caught: a proof is unsound, a witness on which
/// they agree is unsound, a replay that does not match qemu is a mismatch, and a
/// possible proof is a missed difference.
#[test]
fn fabricated_verdicts_are_reported() {
    let o = oracle();
    let l = o.build("plant-add", ADD, Level::O0).unwrap();
    let r = o.build("plant-sub", SUB, Level::O2).unwrap();
    let ins = vec![[1, 2, 3, 4], [5, 0, 7, 0], [-1, 9, -9, 3]];

    let c = check_verdict(&o, &l, &r, &FunctionVerdict::Equivalent, &ins, 100_000);
    let classes: Vec<FindingClass> = c.findings.iter().map(|f| f.class).collect();
    assert_eq!(classes, [FindingClass::UnsoundProof], "{:?}", c.findings);
    assert_eq!(c.findings[0].input, Some([1, 2, 3, 4]));
    assert_eq!(c.differing, 2);
    assert!(
        c.findings[0]
            .detail
            .contains("left (-O0) 7, right (-O2) -5"),
        "{}",
        c.findings[0].detail
    );

    let possibly = FunctionVerdict::PossiblyEquivalent(vec![FunctionGap::Time]);
    let c = check_verdict(&o, &l, &r, &possibly, &ins, 100_000);
    assert_eq!(c.findings.len(), 1);
    assert_eq!(c.findings[0].class, FindingClass::MissedDifference);
    assert!(!c.findings[0].class.fails());

    // On inputs where they agree, neither is a finding.
    let same = [[5, 0, 7, 0], [3, 4, 0, 1]];
    for v in [FunctionVerdict::Equivalent, possibly] {
        assert!(check_verdict(&o, &l, &r, &v, &same, 100_000)
            .findings
            .is_empty());
    }

    // A true witness, replayed right: nothing to report.
    let cx = |args: [i32; 4], left: FunctionRun, right: FunctionRun| {
        FunctionVerdict::Disequivalent(FunctionCounterexample {
            args: args.map(|a| a as u32).to_vec(),
            left,
            right,
        })
    };
    let good = cx(
        [1, 2, 3, 4],
        run(Status::Returned, 7),
        run(Status::Returned, -5i32 as u32),
    );
    assert!(check_verdict(&o, &l, &r, &good, &[], 100_000)
        .findings
        .is_empty());
    // A witness on which both print 5: unsound.
    let bad = cx(
        [5, 0, 7, 0],
        run(Status::Returned, 5),
        run(Status::Returned, 6),
    );
    let c = check_verdict(&o, &l, &r, &bad, &[], 100_000);
    let classes: Vec<FindingClass> = c.findings.iter().map(|f| f.class).collect();
    assert_eq!(
        classes,
        [
            FindingClass::ReplayMismatch,
            FindingClass::UnsoundDifference
        ],
        "{:?}",
        c.findings
    );
    assert!(c.findings.iter().all(|f| f.class.fails()));
    // A true witness whose left replay is wrong: a mismatch only.
    let trap = Status::Error(Fault {
        kind: FaultKind::Trap,
        pc: 0,
        value: 0,
    });
    let c = check_verdict(
        &o,
        &l,
        &r,
        &cx(
            [1, 2, 3, 4],
            run(trap, 0),
            run(Status::Returned, -5i32 as u32),
        ),
        &[],
        100_000,
    );
    assert_eq!(c.findings.len(), 1);
    assert_eq!(c.findings[0].class, FindingClass::ReplayMismatch);
    assert!(c.findings[0].detail.contains("qemu 7, our replay trap"));
    l.remove_files();
    r.remove_files();
}

/// A trap under qemu is a trap: `a / (b & 3)` traps when `b & 3 == 0`, at both
/// levels, so the two agree there; against `ADD` the trap is a difference.
#[test]
fn traps_are_outcomes_on_both_sides() {
    let o = oracle();
    let d0 = o.build("plant-div", DIV, Level::O0).unwrap();
    let d2 = o.build("plant-div", DIV, Level::O2).unwrap();
    let add = o.build("plant-add2", ADD, Level::O2).unwrap();
    let ins = vec![[7, 4, 0, 1], [7, 1, 0, 1], [i32::MIN, 3, 0, 0]];
    let eq = FunctionVerdict::Equivalent;
    assert!(check_verdict(&o, &d0, &d2, &eq, &ins, 100_000)
        .findings
        .is_empty());
    let c = check_verdict(&o, &d0, &add, &eq, &ins, 100_000);
    assert_eq!(c.findings[0].class, FindingClass::UnsoundProof);
    assert_eq!(c.findings[0].input, Some([7, 4, 0, 1]));
    assert!(c.findings[0]
        .detail
        .contains("left (-O0) trap, right (-O2) 7"));
    assert_eq!(c.differing_traps, 1);

    // compare_pair end to end: the division against the sum is a difference the
    // engine finds, a trap on one side, and qemu agrees.
    let s = settings();
    let p = compare_pair(&o, 0, PairKind::Mutant, &d0, &add, None, &ins, &s);
    assert_eq!(
        p.verdict,
        Some(VerdictKind::Disequivalent),
        "{}",
        p.verdict_text
    );
    assert!(p.findings.is_empty(), "{:?}", p.findings);
    // And the two levels of the division are proved equal, checked on the inputs.
    let p = compare_pair(&o, 0, PairKind::SameSource, &d0, &d2, None, &ins, &s);
    assert_eq!(
        p.verdict,
        Some(VerdictKind::Equivalent),
        "{}",
        p.verdict_text
    );
    assert!(p.findings.is_empty(), "{:?}", p.findings);
    assert_eq!(p.qemu_runs, 2 * ins.len());
    for b in [d0, d2, add] {
        b.remove_files();
    }
}
