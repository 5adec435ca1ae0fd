//! CS241 programs compared and graded for runs of any length (`--unbounded`, a
//! task's `unbounded = true`), on the loops of `examples/loops`: the claim's text and
//! JSON, the certificate re-checked by cvc5, the needle left unproved, and the
//! usage errors.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use common::schema::{assert_valid, validator};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut c = Command::cargo_bin("tamarin").expect("the tamarin binary is built");
    c.current_dir(dir);
    c.args(args).output().expect("run tamarin")
}

fn run(args: &[&str]) -> Output {
    run_in(&root(), args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

const UP: &str = "examples/loops/up.asm";
const DOWN: &str = "examples/loops/down.asm";
const NEEDLE: &str = "examples/loops/needle.asm";

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn compare_unbounded_proves_counters_in_opposite_directions() {
    let o = run(&["compare", UP, DOWN, "--unbounded"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("equivalent: for every input $1, $2, runs of any length"),
        "{text}"
    );
    // The counters are tied: i + j = n.
    assert!(text.contains("left.$4 = -1 * right.$7 + $1"), "{text}");
    let o = run(&["compare", UP, DOWN, "--unbounded", "--format", "json"]);
    let report = json(&o);
    assert_valid(&validator("compare"), &report, "compare --unbounded");
    let proof = &report["proof"];
    assert_eq!(proof["fuel"], Value::Null);
    assert_eq!(proof["engine"], "induction");
    assert_eq!(proof["method"], "lockstep-induction");
    assert_eq!(proof["termination"], "lockstep");
    assert!(proof["invariant"]["head/head"].is_array());
    assert_eq!(report["task"]["unbounded"], true);
    // Without --unbounded nothing changes: a claim bounded by the fuel.
    let o = run(&["compare", UP, DOWN, "--fuel", "300", "--format", "json"]);
    let report = json(&o);
    assert_ne!(report["proof"]["method"], "lockstep-induction", "{report}");
    assert_eq!(report["task"]["unbounded"], false);
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn loops_in_no_fixed_ratio_are_proved_one_run_after_the_other() {
    // One loop of $1 trips against two of $1 / 8 and $1 % 8 trips.
    let (ones, eights) = ("examples/loops/by-ones.asm", "examples/loops/by-eights.asm");
    let o = run(&["compare", ones, eights, "--unbounded"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(text.contains("one run after the other"), "{text}");
    // What the left returned, tied to the inputs while the right runs.
    assert!(
        text.contains("at returned/head2: left.$3 = 1 * $1 + $2"),
        "{text}"
    );
    let o = run(&["compare", eights, ones, "--unbounded", "--format", "json"]);
    let report = json(&o);
    assert_valid(&validator("compare"), &report, "compare --unbounded");
    assert_eq!(report["verdict"], "equivalent", "{report}");
    assert_eq!(report["proof"]["termination"], "ranking");
    assert!(
        report["proof"]["invariant"]["head2/start"].is_array(),
        "{report}"
    );
}

#[test]
fn a_loop_free_pair_is_proved_by_its_paths() {
    let a = root().join("examples/grading/reference.asm");
    let a = a.to_str().unwrap();
    let o = run(&["compare", a, a, "--unbounded", "--format", "json"]);
    let report = json(&o);
    assert_valid(&validator("compare"), &report, "compare --unbounded");
    assert_eq!(report["verdict"], "equivalent", "{report}");
    assert_eq!(report["proof"]["method"], "paths");
    assert_eq!(report["proof"]["termination"], "every-run-ends");
    assert_eq!(report["proof"]["fuel"], Value::Null);
}

#[test]
fn a_needle_past_three_million_trips_is_found_with_its_fuel() {
    // The loop proof fails where a trip breaks a fact; the state before that trip
    // gives the inputs, past the fuel of 500, replayed before they are printed. The
    // commands that show the difference again carry the fuel it needs.
    let o = run(&["compare", UP, NEEDLE, "--unbounded", "--fuel", "500"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    let first = text.lines().next().unwrap();
    let n: u32 = first
        .split("$1 = ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(n > 3_000_000, "{text}");
    assert_eq!(text.matches("done after").count(), 2, "{text}");
    assert_eq!(text.matches("--fuel 100000000").count(), 3, "{text}");
    // The suggested replay of the needle, executed as printed, ends as shown.
    let replay = text
        .lines()
        .find(|l| l.contains("tamarin run") && l.contains("needle.asm"))
        .unwrap();
    let words = shell_words::split(replay.trim()).unwrap();
    let o = run(&words[1..].iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shown = text
        .lines()
        .find(|l| l.trim_start().starts_with("right"))
        .and_then(|l| l.split("$3 = ").nth(1))
        .and_then(|v| v.split(' ').next())
        .unwrap();
    // (`run` reports on standard error; standard output is the program's.)
    assert!(
        stderr(&o).contains(&format!("$3 = {shown}")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_certificate_of_a_cs241_loop_proof_rechecks_under_cvc5() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cert");
    let d = dir.to_str().unwrap();
    let o = run(&["compare", UP, DOWN, "--unbounded", "--certificate", d]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("certificate: "), "{}", stdout(&o));
    assert!(dir.join("certificate.json").exists());
    let cvc5 = Path::new("/usr/bin/cvc5");
    if !cvc5.exists() {
        eprintln!("note: /usr/bin/cvc5 is not installed: the certificate is not re-checked");
        return;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "smt2"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    for f in &files {
        let o = std::process::Command::new(cvc5)
            .arg("--tlimit=60000")
            .arg(f)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).trim(),
            "unsat",
            "{}",
            f.display()
        );
    }
}

#[test]
fn a_quotient_by_subtraction_is_proved_in_integers_and_its_certificate_rechecks() {
    let (sub, divu) = (
        "examples/loops/div-subtract.asm",
        "examples/loops/div-divu.asm",
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cert");
    let d = dir.to_str().unwrap();
    let o = run(&["compare", sub, divu, "--unbounded", "--certificate", d]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(
        text.contains("$1 = left.$3 * $2 + left.$4 (no wrap-around)"),
        "{text}"
    );
    assert!(text.contains("right.$3 = $1 /u $2"), "{text}");
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("certificate.json")).unwrap())
            .unwrap();
    assert_eq!(index["logic"], "mixed", "{index}");
    let checks = index["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["logic"] == "QF_NIA"), "{index}");
    let cvc5 = Path::new("/usr/bin/cvc5");
    if !cvc5.exists() {
        eprintln!("note: /usr/bin/cvc5 is not installed: the certificate is not re-checked");
        return;
    }
    for c in checks {
        let f = dir.join(c["file"].as_str().unwrap());
        // As the certificate's README says: checks in integers split on zero first.
        let options: &[&str] = if c["logic"] == "QF_NIA" {
            &["--nl-ext-split-zero"]
        } else {
            &[]
        };
        let o = std::process::Command::new(cvc5)
            .arg("--tlimit=60000")
            .args(options)
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).trim(),
            "unsat",
            "{}",
            f.display()
        );
    }
}

#[test]
fn certificate_without_unbounded_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("cert");
    let o = run(&["compare", UP, DOWN, "--certificate", d.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
}

#[test]
fn grade_with_a_task_that_says_unbounded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::copy(root().join(UP), dir.join("reference.asm")).unwrap();
    std::fs::create_dir(dir.join("subs")).unwrap();
    std::fs::copy(root().join(DOWN), dir.join("subs/down.asm")).unwrap();
    std::fs::copy(root().join(NEEDLE), dir.join("subs/needle.asm")).unwrap();
    std::fs::write(
        dir.join("task.toml"),
        "reference = \"reference.asm\"\nunbounded = true\nfuel = 500\n",
    )
    .unwrap();
    let o = run_in(dir, &["grade", "--task", "task.toml", "subs"]);
    let text = stdout(&o);
    assert!(text.contains("runs of any length"), "{text}");
    assert!(
        text.contains("equivalent") && text.contains("down.asm"),
        "{text}"
    );
    // The needle differs past 3,000,000 trips: its replays carry the fuel they need.
    assert_eq!(text.matches("--fuel 100000000").count(), 2, "{text}");
    let o = run_in(
        dir,
        &["grade", "--task", "task.toml", "subs", "--format", "json"],
    );
    let report = json(&o);
    assert_eq!(report["summary"]["task"]["unbounded"], true, "{report}");
    assert_eq!(report["summary"]["counts"]["equivalent"], 1, "{report}");
    // Found from the facts the loop proof saw broken, past the bounded search's fuel.
    assert_eq!(report["summary"]["counts"]["disequivalent"], 1, "{report}");
}

#[test]
fn an_array_task_whose_every_run_ends_is_proved_for_runs_of_any_length() {
    // The array maximum class: the loop proof takes no array, but the merged
    // encoding shows that no run of either program outlasts the fuel.
    let dir = root().join("examples/classes/amax");
    let args = [
        "compare",
        "--task",
        "task.toml",
        "submissions/correct_backward.asm",
        "--unbounded",
    ];
    let o = run_in(&dir, &args);
    let text = stdout(&o);
    assert!(
        text.starts_with("equivalent: for every array of up to 8 words"),
        "{text}"
    );
    assert!(text.contains("runs of any length"), "{text}");
    let o = run_in(&dir, &[&args[..], &["--format", "json"]].concat());
    let v = json(&o);
    assert_eq!(v["verdict"], "equivalent", "{v}");
    let proof = &v["proof"];
    assert_eq!(
        (
            &proof["engine"],
            &proof["method"],
            &proof["termination"],
            &proof["fuel"]
        ),
        (
            &Value::from("bmc"),
            &Value::from("paths"),
            &Value::from("every-run-ends"),
            &Value::Null
        ),
        "{v}"
    );
}
