//! One task for every command: `compare --task` gives the verdict `grade` gives,
//! `explain --from` a report replays the comparison's settings, and a task file holds
//! every search option.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tamarin() -> Command {
    let mut c = Command::cargo_bin("tamarin").expect("the tamarin binary is built");
    c.current_dir(root());
    c
}

fn json(stdout: &[u8]) -> Value {
    let text = String::from_utf8_lossy(stdout);
    serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("not exactly one JSON object ({e}): {text}"))
}

/// Checks a command's exit status, showing its standard output when it differs.
fn assert_status(out: &std::process::Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `tamarin compare --task TASK ARGS…`, run.
fn compare_task(task: &Path, args: &[&str]) -> std::process::Output {
    tamarin()
        .args(["compare", "--task"])
        .arg(task)
        .args(args)
        .output()
        .expect("run tamarin")
}

/// `tamarin explain --from REPORT` on the example class's reference and [`SPINS`],
/// with `extra` options.
fn explain_from(report: &Path, extra: &[&str]) -> std::process::Output {
    tamarin()
        .args(["explain", "--from"])
        .arg(report)
        .args(["examples/grading/reference.asm", SPINS])
        .args(extra)
        .output()
        .expect("run tamarin")
}

const SPINS: &str = "examples/grading/submissions/loops_on_equal.asm";

/// A task for the example class that leaves the out-of-fuel rule to grade's default.
fn task_file(dir: &Path) -> PathBuf {
    let task = dir.join("task.toml");
    let reference = root().join("examples/grading/reference.asm");
    std::fs::write(
        &task,
        format!(
            "reference = {:?}\nfuel = 1000\nobserve = \"$3\"\ntimeout = 20\nportfolio = \"none\"\n",
            reference.display().to_string()
        ),
    )
    .expect("write the task");
    task
}

/// Grades the example class under `task`; the report.
fn grade(task: &Path, store: &Path) -> Value {
    let out = tamarin()
        .args(["grade", "--task"])
        .arg(task)
        .args([
            "examples/grading/submissions",
            "--format",
            "json",
            "--store",
        ])
        .arg(store)
        .output()
        .expect("run tamarin");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

fn verdict_of<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .find(|s| s["path"].as_str().is_some_and(|p| p.ends_with(name)))
        .unwrap_or_else(|| panic!("{name} in {report}"))
}

#[test]
fn compare_with_the_task_agrees_with_grade_on_a_submission_that_spins() {
    let dir = tempfile::tempdir().expect("tempdir");
    let task = task_file(dir.path());
    let report = grade(&task, &dir.path().join("s.sqlite"));
    let graded = verdict_of(&report, "loops_on_equal.asm");
    assert_eq!(graded["verdict"], "disequivalent", "{report}");

    // The student's command: the task's reference, the task's rules.
    let out = compare_task(&task, &[SPINS, "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["verdict"], "disequivalent", "{v}");
    assert_eq!(v["out_of_fuel"], "different", "{v}");
    assert_eq!(v["task"]["fuel"], 1000, "{v}");
    common::schema::assert_valid(&common::schema::validator("compare"), &v, "compare --task");

    // The text report names the task's reference as the left program, and its replay
    // commands carry the task's fuel and rule.
    let out = compare_task(&task, &[SPINS]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("reference.asm"), "{text}");
    assert!(
        text.contains("--fuel 1000 --out-of-fuel different"),
        "{text}"
    );

    // Without the task, compare keeps its own default: a run out of fuel is never a
    // difference.
    let out = tamarin()
        .args([
            "compare",
            "examples/grading/reference.asm",
            SPINS,
            "--fuel",
            "1000",
        ])
        .output()
        .expect("run tamarin");
    assert_status(&out, 0);

    // The command line wins over the task.
    let out = compare_task(&task, &[SPINS, "--out-of-fuel", "same"]);
    assert_status(&out, 0);

    // One program with a task, two without.
    let out = compare_task(&task, &[SPINS, SPINS]);
    assert_eq!(out.status.code(), Some(2));
    let out = tamarin()
        .args(["compare", SPINS])
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn explain_from_a_grade_report_replays_the_comparison() {
    let dir = tempfile::tempdir().expect("tempdir");
    let task = task_file(dir.path());
    let report = grade(&task, &dir.path().join("s.sqlite"));
    let rules = &report["summary"]["task"];
    assert_eq!(rules["fuel"], 1000, "{report}");
    assert_eq!(rules["out_of_fuel"], "different", "{report}");
    assert_eq!(rules["observe"], serde_json::json!(["$3"]), "{report}");
    let path = dir.path().join("report.json");
    std::fs::write(&path, report.to_string()).expect("write the report");
    let out = explain_from(&path, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("out of fuel after 1000 steps"), "{text}");
    assert!(!text.contains("no divergence"), "{text}");
    // The command line still wins.
    let out = explain_from(&path, &["--out-of-fuel", "same"]);
    assert_status(&out, 0);

    // A compare report carries its settings too.
    let out = compare_task(&task, &[SPINS, "--format", "json"]);
    std::fs::write(&path, &out.stdout).expect("write the report");
    let out = explain_from(&path, &[]);
    assert_status(&out, 1);
}

#[test]
fn a_task_file_holds_every_search_option_and_its_values_reach_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reference = root().join("examples/grading/reference.asm");
    let smt = dir.path().join("smt");
    // Every key but those of the array frontend (which twoints refuses).
    let task = dir.path().join("twoints.toml");
    std::fs::write(
        &task,
        format!(
            "reference = {:?}\nfrontend = \"twoints\"\ninputs = [\"$1\", \"$2\"]\n\
             observe = [\"$3\"]\nengine = \"concolic\"\nfuel = 900\ndepth = 40\n\
             stdin-len = 0\ninit-inputs = [3, -4]\ntimeout = 50\nmax-runs = 77\n\
             solver = \"z3\"\nsolver-timeout = 4321\nsolver-rlimit = 1234567\n\
             portfolio = \"none\"\nout-of-fuel = \"same\"\nassume = [\"$1 >= -100\"]\n\
             input-format = \"asm\"\ntermination = \"0x8123456c\"\ndump-trace = false\n\
             dump-smt = \"smt\"\nforce = true\n",
            reference.display().to_string()
        ),
    )
    .expect("write the task");
    let out = compare_task(
        &task,
        &[
            "examples/grading/submissions/correct_swapped.asm",
            "--format",
            "json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let t = &v["task"];
    for (key, want) in [
        ("fuel", serde_json::json!(900)),
        ("depth", serde_json::json!(40)),
        ("timeout", serde_json::json!(50)),
        ("max_runs", serde_json::json!(77)),
        ("solver_timeout", serde_json::json!(4321)),
        ("solver_rlimit", serde_json::json!(1234567)),
        ("portfolio", serde_json::json!([])),
        ("engine", serde_json::json!("concolic")),
        ("out_of_fuel", serde_json::json!("same")),
        ("assume", serde_json::json!(["$1 >= -100"])),
        ("inputs", serde_json::json!(["$1", "$2"])),
        ("termination", serde_json::json!(0x8123456cu32)),
    ] {
        assert_eq!(t[key], want, "{key}: {v}");
    }
    // dump-smt, relative to the task file, got the queries.
    assert!(smt.is_dir(), "{v}");
    // The run budget of the task is the search's: one run allowed, one run made.
    std::fs::write(
        &task,
        format!(
            "reference = {:?}\nmax-runs = 1\nportfolio = \"none\"\n",
            reference.display().to_string()
        ),
    )
    .expect("write the task");
    let out = compare_task(
        &task,
        &[
            "examples/grading/submissions/correct_swapped.asm",
            "--format",
            "json",
        ],
    );
    let v = json(&out.stdout);
    assert_eq!(v["task"]["max_runs"], 1, "{v}");
    assert!(v["stats"]["runs"].as_u64().is_some_and(|r| r <= 2), "{v}");

    // The keys of the array frontend.
    let task = dir.path().join("array.toml");
    std::fs::write(
        &task,
        format!(
            "reference = {:?}\nfrontend = \"array\"\nmax-len = 3\narray-base = \"0x10000\"\n\
             init-inputs = \"5,-1\"\nportfolio = \"none\"\n",
            root()
                .join("examples/proofs/amax-fwd.asm")
                .display()
                .to_string()
        ),
    )
    .expect("write the task");
    let out = compare_task(&task, &["examples/proofs/amax-bwd.asm", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["task"]["frontend"], "array", "{v}");
    assert_eq!(v["task"]["max_len"], 3, "{v}");
    assert_eq!(v["task"]["array_base"], 0x10000, "{v}");
    // The same keys in grade.
    let out = tamarin()
        .args(["grade", "--task"])
        .arg(&task)
        .args([
            "examples/proofs/amax-bwd.asm",
            "--format",
            "json",
            "--store",
        ])
        .arg(dir.path().join("a.sqlite"))
        .output()
        .expect("run tamarin");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["summary"]["task"]["array_base"], 0x10000, "{v}");
    common::schema::assert_valid(&common::schema::validator("grade"), &v, "grade --task");

    // An unknown key is refused with its line.
    std::fs::write(&task, "fuel = 10\nsolver-rlimt = 5\n").expect("write the task");
    let out = compare_task(&task, &[SPINS]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("array.toml:2:"), "{err}");
}

#[test]
fn grade_help_lists_exactly_the_keys_a_task_file_takes() {
    let out = tamarin()
        .args(["grade", "--help"])
        .output()
        .expect("run tamarin");
    let help = String::from_utf8_lossy(&out.stdout);
    let flat: String = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let start = flat
        .find("its keys: ")
        .expect("the --task help lists its keys")
        + "its keys: ".len();
    let end = start
        + flat[start..]
            .find(" (each as")
            .expect("the end of the list");
    let listed: Vec<String> = flat[start..end]
        .replace(" (relative to the file)", "")
        .replace(" and ", ", ")
        .split(", ")
        .map(str::to_string)
        .collect();
    assert_eq!(listed, tamarin_grade::task::KEYS, "{help}");
}

#[test]
fn check_paths_and_run_take_the_task_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let task = task_file(dir.path());
    // Under the task, a run out of fuel where the task's rule says so is a finding.
    let out = tamarin()
        .args(["check", "--task"])
        .arg(&task)
        .args([SPINS, "--format", "json"])
        .output()
        .expect("run tamarin");
    assert_status(&out, 1);
    let v = json(&out.stdout);
    assert_eq!(v["findings"][0]["kind"], "out-of-fuel", "{v}");
    // Without it, check's own default.
    let out = tamarin()
        .args(["check", SPINS])
        .output()
        .expect("run tamarin");
    assert_status(&out, 0);
    // paths runs at the task's fuel.
    let out = tamarin()
        .args(["paths", "--task"])
        .arg(&task)
        .arg(SPINS)
        .output()
        .expect("run tamarin");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1000 steps"), "{text}");
    // run too: it spins to the task's fuel, not run's own.
    let out = tamarin()
        .args(["run", "--task"])
        .arg(&task)
        .args([SPINS, "--r1", "0", "--r2", "0", "--report"])
        .output()
        .expect("run tamarin");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("out-of-fuel after 1000 steps"), "{text}");
}
