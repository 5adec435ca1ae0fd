//! The task's input domain and termination rule on the real binary: `--assume`
//! (verdicts, JSON, diagnostics with a caret) and `--out-of-fuel` (compare, check).

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn tamarin() -> Command {
    Command::cargo_bin("tamarin").expect("the tamarin binary is built")
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// Runs with `--format json` (and no portfolio, so no verdict depends on the
/// machine's load), expects `status`, and parses the one object.
fn json(cmd: &mut Command, status: i32) -> Value {
    let out = cmd
        .args(["--format", "json", "--portfolio", "none"])
        .output()
        .expect("run tamarin");
    assert_eq!(
        out.status.code(),
        Some(status),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

const MAX: &str = "slt $4, $1, $2\nadd $3, $1, $0\nbeq $4, $0, 1\nadd $3, $2, $0\njr $31\n";
const MAX_UNSIGNED: &str =
    "sltu $4, $1, $2\nadd $3, $1, $0\nbeq $4, $0, 1\nadd $3, $2, $0\njr $31\n";
/// The maximum, but it spins when `$1 == $2`.
const MAX_HANGS: &str = "bne $1, $2, 1\nbeq $0, $0, -1\nslt $4, $1, $2\nadd $3, $1, $0\n\
                         beq $4, $0, 1\nadd $3, $2, $0\njr $31\n";

#[test]
fn assume_narrows_compare_to_the_domain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (l, r) = (
        write(&dir, "l.asm", MAX),
        write(&dir, "r.asm", MAX_UNSIGNED),
    );
    for engine in ["concolic", "bmc"] {
        let v = json(
            tamarin()
                .arg("compare")
                .arg(&l)
                .arg(&r)
                .args(["--engine", engine]),
            1,
        );
        assert!(v.get("assume").is_none(), "{v}");
        let v = json(
            tamarin().arg("compare").arg(&l).arg(&r).args([
                "--engine", engine, "--assume", "0 <= $1", "--assume", "$2 >= 0",
            ]),
            0,
        );
        assert_eq!(
            v["assume"],
            serde_json::json!(["0 <= $1", "$2 >= 0"]),
            "{v}"
        );
    }
    // The text of a proof names the preconditions.
    let out = tamarin()
        .arg("compare")
        .arg(&l)
        .arg(&r)
        .args([
            "--assume",
            "0 <= $1 <= 20 && 0 <= $2 <= 20",
            "--portfolio",
            "none",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(
            "equivalent: for all inputs $1, $2 that satisfy `0 <= $1 <= 20 && 0 <= $2 <= 20`,"
        ),
        "{text}"
    );
}

#[test]
fn a_counterexample_respects_the_domain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (l, r) = (
        write(&dir, "l.asm", MAX),
        write(&dir, "r.asm", MAX_UNSIGNED),
    );
    let v = json(
        tamarin().arg("compare").arg(&l).arg(&r).args([
            "--assume",
            "-3 <= $1 <= -1",
            "--assume",
            "5 <= $2 <= 9",
        ]),
        1,
    );
    let regs = &v["counterexample"]["inputs"];
    let one = regs["$1"].as_i64().expect("$1");
    let two = regs["$2"].as_i64().expect("$2");
    assert!((-3..=-1).contains(&one) && (5..=9).contains(&two), "{v}");
}

#[test]
fn bad_preconditions_are_pointed_at() {
    let dir = tempfile::tempdir().expect("tempdir");
    let l = write(&dir, "l.asm", MAX);
    // Not in the language: the caret under `=`.
    let out = tamarin()
        .arg("compare")
        .arg(&l)
        .arg(&l)
        .args(["--assume", "$1 = 3"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("write `==` to compare"), "{err}");
    assert!(err.contains("$1 = 3"), "{err}");
    let caret_line = err
        .lines()
        .find(|l| l.trim_end().ends_with('|') || l.contains('^'));
    assert!(caret_line.is_some(), "{err}");
    // Does not fit the inputs: JSON names the column.
    let v = json(
        tamarin()
            .arg("compare")
            .arg(&l)
            .arg(&l)
            .args(["--assume", "$1 > 0 && len > 2"]),
        2,
    );
    assert_eq!(v["error"]["kind"], "usage");
    assert_eq!(v["error"]["column"], 11, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("--frontend array")),
        "{v}"
    );
    // Allows no input at all.
    let v = json(
        tamarin()
            .arg("check")
            .arg(&l)
            .args(["--assume", "$1 > 5 && $1 < 3"]),
        2,
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no input satisfies")),
        "{v}"
    );
}

#[test]
fn running_out_of_fuel_is_a_difference_only_when_asked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (l, r) = (write(&dir, "l.asm", MAX), write(&dir, "r.asm", MAX_HANGS));
    for engine in ["concolic", "bmc"] {
        let base = ["--engine", engine, "--fuel", "500"];
        let v = json(tamarin().arg("compare").arg(&l).arg(&r).args(base), 0);
        assert_eq!(v["out_of_fuel"], "same");
        let v = json(
            tamarin()
                .arg("compare")
                .arg(&l)
                .arg(&r)
                .args(base)
                .args(["--out-of-fuel", "different"]),
            1,
        );
        assert_eq!(v["out_of_fuel"], "different");
        let cx = &v["counterexample"];
        assert_eq!(cx["left"]["status"], "done", "{v}");
        assert_eq!(cx["right"]["status"], "out-of-fuel", "{v}");
        let regs = &cx["inputs"];
        assert!(regs["$1"].is_i64(), "{v}");
        assert_eq!(regs["$1"], regs["$2"], "{v}");
        // Outside the inputs on which it spins, the two agree under either policy.
        json(
            tamarin().arg("compare").arg(&l).arg(&r).args(base).args([
                "--out-of-fuel",
                "different",
                "--assume",
                "$1 != $2",
            ]),
            0,
        );
    }
}

#[test]
fn check_reports_spinning_as_a_finding_under_the_different_policy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(&dir, "p.asm", MAX_HANGS);
    let v = json(tamarin().arg("check").arg(&p).args(["--fuel", "500"]), 0);
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(0), "{v}");
    let v = json(
        tamarin()
            .arg("check")
            .arg(&p)
            .args(["--fuel", "500", "--out-of-fuel", "different"]),
        1,
    );
    let f = &v["findings"][0];
    assert_eq!(f["kind"], "out-of-fuel", "{v}");
    assert_eq!(f["pc"], 4, "{v}");
    assert!(f["inputs"]["$1"].is_i64(), "{v}");
    assert_eq!(f["inputs"]["$1"], f["inputs"]["$2"]);
    // Under a precondition that keeps the inputs apart, nothing spins.
    json(
        tamarin().arg("check").arg(&p).args([
            "--fuel",
            "500",
            "--out-of-fuel",
            "different",
            "--assume",
            "$1 < $2",
        ]),
        0,
    );
}
