//! `tamarin check` and `tamarin paths` through the real binary: the JSON contracts,
//! source lines, replay commands and `--emit-tests`.

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

fn json(cmd: &mut Command) -> Value {
    json_with_status(cmd, 0)
}

/// Runs with `--format json`, expects `status`, and parses the one object.
fn json_with_status(cmd: &mut Command, status: i32) -> Value {
    let out = cmd
        .args(["--format", "json"])
        .output()
        .expect("run tamarin");
    assert_eq!(
        out.status.code(),
        Some(status),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

const FAILING: &str = "div $1, $2\nmflo $3\nlis $4\n.word table\nadd $5, $1, $4\nlw $6, 0($5)\njr $31\ntable: .word 1\n";

#[test]
fn check_reports_each_failing_site_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(&dir, "p.asm", FAILING);
    let v = json_with_status(tamarin().arg("check").arg(&p), 1);
    assert_eq!(v["complete"], true);
    let findings = v["findings"].as_array().expect("findings");
    let kinds: Vec<(&str, i64, i64)> = findings
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap_or(""),
                f["pc"].as_i64().unwrap_or(-1),
                f["line"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    assert!(kinds.contains(&("division-by-zero", 0, 1)), "{v}");
    assert!(kinds.contains(&("unaligned-access", 20, 6)), "{v}");
    assert!(kinds.contains(&("out-of-range-access", 20, 6)), "{v}");
    let div = &findings[0];
    assert_eq!(div["inputs"]["$2"], 0);
    assert!(v["stats"]["paths"].as_u64().unwrap_or(0) >= 3);
}

#[test]
fn check_text_shows_the_source_and_a_replay_that_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(&dir, "p.asm", FAILING);
    let out = tamarin().arg("check").arg(&p).output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("p.asm:1: div $1, $2"), "{text}");
    let replay = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: tamarin run "))
        .expect("a replay line");
    let args: Vec<&str> = replay.split_whitespace().collect();
    let v = json(tamarin().arg("run").args(&args));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["status"], "error");
    assert_eq!(v["error_kind"], "division-by-zero");
}

#[test]
fn check_finds_nothing_in_a_safe_program() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        &dir,
        "p.asm",
        "beq $2, $0, out\ndiv $1, $2\nmflo $3\nout:\njr $31\n",
    );
    let v = json(tamarin().arg("check").arg(&p));
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["complete"], true);
}

#[test]
fn check_reports_runs_out_of_fuel_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        &dir,
        "p.asm",
        "bne $1, $0, spin\njr $31\nspin:\nbeq $0, $0, spin\n",
    );
    let v = json(tamarin().arg("check").arg(&p).arg("--report-fuel"));
    // A cut search with nothing found says so in its exit status.
    json_with_status(tamarin().arg("check").arg(&p).args(["--depth", "0"]), 3);
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["out_of_fuel"].as_array().map(Vec::len), Some(1), "{v}");
}

#[test]
fn paths_lists_every_path_with_conditions_and_emits_tests() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fig5 =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/paper/fig5-right.asm");
    let cases = dir.path().join("cases");
    let v = json(
        tamarin()
            .arg("paths")
            .arg(&fig5)
            .arg("--emit-tests")
            .arg(&cases),
    );
    let paths = v["paths"].as_array().expect("paths");
    assert_eq!(paths.len(), 2);
    assert_eq!(v["complete"], true);
    for p in paths {
        let taken = p["inputs"]["$2"] == 100;
        let want = if taken { "$2 == 100" } else { "$2 != 100" };
        assert_eq!(p["conditions"][0], want, "{v}");
        assert_eq!(p["status"], "done");
        // fig5-right returns $1 + $2, plus $2 again when $2 == 100.
        let (a, b) = (
            p["inputs"]["$1"].as_i64().unwrap_or(0) as i32,
            p["inputs"]["$2"].as_i64().unwrap_or(0) as i32,
        );
        let want = a.wrapping_add(b).wrapping_add(if taken { b } else { 0 });
        assert_eq!(p["$3"], want, "{v}");
    }
    let mut files: Vec<_> = std::fs::read_dir(&cases)
        .expect("cases")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2);
    for f in files {
        let case: Value =
            serde_json::from_str(&std::fs::read_to_string(f).expect("read")).expect("json");
        let cmd = case["command"].as_str().expect("command");
        let args: Vec<&str> = cmd.split_whitespace().skip(2).collect();
        let run = json(tamarin().arg("run").args(&args));
        assert_eq!(run["status"], case["expected"]["status"]);
        assert_eq!(run["registers"]["$3"], case["expected"]["$3"]);
    }
}

#[test]
fn paths_stops_at_max_paths_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        &dir,
        "p.asm",
        "lis $5\n.word 1\nloop:\nadd $4, $4, $5\nbne $4, $1, loop\njr $31\n",
    );
    // An incomplete list: exit status 3.
    let v = json_with_status(tamarin().arg("paths").arg(&p).args(["--max-paths", "3"]), 3);
    assert_eq!(v["complete"], false);
    let reasons = v["incomplete"].as_array().expect("reasons");
    assert!(
        reasons
            .iter()
            .any(|r| r["kind"] == "path-budget" && r["advice"] == "raise --max-paths"),
        "{v}"
    );
    assert!(v["paths"].as_array().map_or(0, Vec::len) <= 4);
}
