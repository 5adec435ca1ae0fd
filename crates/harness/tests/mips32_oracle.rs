//! The MIPS32 oracle on a small campaign: random C functions compiled by
//! `mips-linux-gnu-gcc`, run under `qemu-mips` and under our emulator, must agree; and
//! the check must be able to fail (a mutant's outputs, which differ from the
//! original's under qemu, are found as disagreements).
//!
//! Needs `mips-linux-gnu-gcc` and `qemu-mips` (Debian: gcc-mips-linux-gnu,
//! qemu-user); the tests fail with that message when they are missing. The
//! undefined-behaviour check also uses the host's `gcc` with UBSan, and is skipped
//! (with a message) without it.

use std::process::Command;
use std::time::Instant;

use tamarin_harness::cgen::oracle::{compare, run_ours, Level, Oracle, Outcome};
use tamarin_harness::cgen::{generate, inputs, mutate};

/// An oracle in a temporary folder, or a failure that says what to install.
fn oracle() -> Oracle {
    Oracle::new(None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_small_campaign_agrees_with_qemu() {
    let o = oracle();
    let start = Instant::now();
    let levels = [Level::O0, Level::O2];
    let (mut runs, mut agree, mut traps) = (0, 0, 0);
    for index in 0..3 {
        let func = generate(1, index);
        let ins = inputs(1, index, 20);
        let check = o.check(&func, &levels, &ins, false);
        let findings: Vec<String> = check.findings().iter().map(|f| f.to_string()).collect();
        assert!(
            findings.is_empty(),
            "function {index}:\n{}\nfindings:\n{}",
            func.source(),
            findings.join("\n")
        );
        runs += check.runs();
        agree += check.agreements();
        traps += check.traps();
    }
    assert_eq!(runs, 3 * 2 * 20);
    assert_eq!(agree, runs);
    assert!(traps < runs);
    eprintln!(
        "3 functions x 2 levels x 20 inputs: {agree} agree ({traps} traps) in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

/// The original's outputs under qemu held against our emulator on a mutant's
/// object: on every input where the mutant prints something else under qemu, the
/// check must report a disagreement, and nowhere else.
#[test]
fn a_mutant_against_the_original_is_found() {
    let o = oracle();
    let level = Level::O1;
    for index in 1..6 {
        let func = generate(1, index);
        let ins = inputs(1, index, 24);
        let original = o.build("orig", &func.source(), level).unwrap();
        let want = o.run_qemu(&original.exe, &ins).unwrap();
        for seed in 0..10 {
            let m = mutate(&func, seed);
            let mutant = o.build(&format!("mut{seed}"), &m.source(), level).unwrap();
            let theirs = o.run_qemu(&mutant.exe, &ins).unwrap();
            mutant.remove_files();
            let differs: Vec<[i32; 4]> = ins
                .iter()
                .zip(want.iter().zip(&theirs))
                .filter(|(_, (a, b))| !a.agrees(b))
                .map(|(i, _)| *i)
                .collect();
            if differs.is_empty() {
                continue;
            }
            let (ours, _) = run_ours(&mutant.image, &ins, o.fuel).unwrap();
            // Our emulator agrees with qemu on the mutant itself...
            assert!(compare(level, &ins, &theirs, &ours).is_empty());
            // ...and the original's outputs against it are exactly the differences.
            let found: Vec<[i32; 4]> = compare(level, &ins, &want, &ours)
                .iter()
                .filter_map(|f| f.input)
                .collect();
            assert_eq!(found, differs, "mutant {seed}: {:?}", m.mutation);
            return;
        }
    }
    panic!("no mutant of functions 1 to 5 differs from its original under qemu");
}

#[test]
fn generated_sources_compile_and_load_without_library_calls() {
    let o = oracle();
    // -Os is where gcc once made an array's initialisation (all elements equal) a
    // call of memset; `cgen::tests` checks the shape that prevents it.
    for index in 10..16 {
        let func = generate(1, index);
        for level in [Level::O0, Level::Os] {
            let b = o
                .build(&format!("g{index}"), &func.source(), level)
                .unwrap_or_else(|e| panic!("function {index} at {level}: {e}"));
            assert!(
                b.image.undefined.is_empty(),
                "function {index} at {level} calls {:?}",
                b.image.undefined
            );
            assert!(b.image.function("f").is_some_and(|s| s.size > 0));
            b.remove_files();
        }
    }
}

/// Compiled for the host with UBSan (and `-fwrapv`, as for MIPS), the generated
/// functions never report undefined behaviour; unguarded divisions by zero stop the
/// program with SIGFPE (x86) rather than a report.
#[test]
fn generated_functions_have_no_undefined_behaviour() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.c");
    std::fs::write(&main, tamarin_harness::cgen::oracle::MAIN).unwrap();
    let host = Command::new("gcc").arg("--version").output();
    if !host.is_ok_and(|h| h.status.success()) {
        eprintln!("skipped: no host gcc");
        return;
    }
    let mut checked = 0;
    for index in 0..8 {
        let func = generate(6, index);
        let c = dir.path().join(format!("f{index}.c"));
        let exe = dir.path().join(format!("f{index}"));
        std::fs::write(&c, func.source()).unwrap();
        let mut cmd = Command::new("gcc");
        cmd.args(["-O1", "-w", "-fwrapv", "-fsanitize=undefined"]);
        if func.trapping {
            cmd.arg("-fno-sanitize=integer-divide-by-zero");
        }
        let built = cmd
            .args(["-fno-sanitize-recover=all", "-o"])
            .arg(&exe)
            .arg(&main)
            .arg(&c)
            .output()
            .unwrap();
        if !built.status.success() {
            let err = String::from_utf8_lossy(&built.stderr);
            if err.contains("ubsan") {
                eprintln!("skipped: the host gcc has no UBSan runtime");
                return;
            }
            panic!("function {index} does not compile on the host: {err}");
        }
        // One input a process: a division by zero ends the process.
        for input in inputs(6, index, 12) {
            let out = Command::new(&exe)
                .args(input.iter().map(|v| v.to_string()))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !err.contains("runtime error"),
                "function {index} on {input:?}: {err}\n{}",
                func.source()
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 8 * 12);
}

#[test]
fn a_trap_is_a_trap_on_both_sides() {
    let o = oracle();
    let src = "int f(int a, int b, int c, int d) { return a / (b & 3) + c % (unsigned)d; }\n";
    let ins = [
        [7, 2, 9, 4],
        [7, 4, 9, 4],
        [7, 1, 9, 0],
        [i32::MIN, 1, 0, 1],
    ];
    let b = o.build("trap", src, Level::O2).unwrap();
    let q = o.run_qemu(&b.exe, &ins).unwrap();
    assert_eq!(
        q,
        [
            Outcome::Value(4),
            Outcome::Trap,
            Outcome::Trap,
            Outcome::Value(i32::MIN)
        ]
    );
    let (ours, _) = run_ours(&b.image, &ins, o.fuel).unwrap();
    assert!(compare(Level::O2, &ins, &q, &ours).is_empty(), "{ours:?}");
}
