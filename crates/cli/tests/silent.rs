//! No silent wrong answers: a comparison that does not observe standard output says so
//! when a program writes some (`output-not-observed`, in text and JSON, in `compare`
//! and in `grade`'s task), and `run` warns when piped standard input is not read.

mod common;

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

use common::schema::{assert_valid, validator};

const PRINT: &str = "examples/classes/print/reference.asm";
const NO_NEWLINE: &str = "examples/classes/print/submissions/wrong_no_newline.asm";
/// Writes the byte `{}` and returns `$1` in `$3`.
const WRITER: &str =
    "lis $5\n.word 0xffff000c\nlis $6\n.word {}\nsw $6, 0($5)\nadd $3, $1, $0\njr $31\n";

/// Two programs that agree on `$3` and write different bytes (the print pair's proofs
/// take seconds each; these are decided at once).
fn writers(dir: &tempfile::TempDir) -> (String, String) {
    (
        write(dir, "a.asm", &WRITER.replace("{}", "65")),
        write(dir, "b.asm", &WRITER.replace("{}", "66")),
    )
}

fn tamarin() -> Command {
    let mut cmd = Command::cargo_bin("tamarin").expect("binary");
    cmd.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
    cmd
}

/// Runs tamarin with `args`; the exit status, stdout and stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let out = tamarin().args(args).output().expect("run tamarin");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str], status: i32) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, out, err) = run(&all);
    assert_eq!(code, status, "{args:?}: {out}\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

#[test]
fn a_pair_that_agrees_on_3_says_that_the_output_is_not_compared() {
    // They write different bytes, yet $3 agrees: `equivalent`, with the note that
    // names the option.
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = writers(&dir);
    let (a, b) = (a.as_str(), b.as_str());
    let (code, out, _) = run(&["compare", a, b, "--inputs", "$1"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("equivalent:"), "{out}");
    let note = out
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("note: both programs write to standard output")
        })
        .unwrap_or_else(|| panic!("no note: {out}"));
    assert!(note.contains("--observe '$3,output'"), "{note}");

    let report = json(&["compare", a, b, "--inputs", "$1"], 0);
    assert_valid(&validator("compare"), &report, "compare with a note");
    let notes = report["notes"].as_array().expect("notes");
    assert_eq!(notes.len(), 1, "{report}");
    assert_eq!(notes[0]["kind"], "output-not-observed");
    assert!(notes[0]["message"]
        .as_str()
        .is_some_and(|m| m.contains("both programs")));
    assert!(notes[0]["advice"]
        .as_str()
        .is_some_and(|a| a.contains("--observe")));

    // The merged encoding makes no runs: the note comes from the front door's own.
    let (code, out, _) = run(&["compare", a, b, "--engine", "bmc", "--inputs", "$1"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("note: both programs write"), "{out}");
}

#[test]
fn no_note_when_the_output_is_observed_or_nobody_writes_any() {
    // Observed: the missing newline is the difference, and there is nothing to note.
    let report = json(
        &[
            "compare",
            PRINT,
            NO_NEWLINE,
            "--observe",
            "output",
            "--inputs",
            "$1",
        ],
        1,
    );
    assert_eq!(report["verdict"], "disequivalent");
    assert!(report.get("notes").is_none(), "{report}");
    let dir = tempfile::tempdir().expect("tempdir");
    let (w, _) = writers(&dir);
    let report = json(
        &[
            "compare",
            &w,
            &w,
            "--observe",
            "$3,output",
            "--inputs",
            "$1",
        ],
        0,
    );
    assert!(report.get("notes").is_none(), "{report}");
    let (code, out, _) = run(&["compare", &w, &w, "--observe", "output", "--inputs", "$1"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("note:"), "{out}");

    // Neither program writes output.
    let (l, r) = (
        "examples/paper/fig1-left.asm",
        "examples/paper/fig1-right.asm",
    );
    let report = json(&["compare", l, r], 0);
    assert!(report.get("notes").is_none(), "{report}");
    let (_, out, _) = run(&["compare", l, r]);
    assert!(!out.contains("standard output"), "{out}");
}

#[test]
fn one_program_writing_is_enough_for_the_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quiet = write(&dir, "quiet.asm", "add $3, $1, $2\njr $31\n");
    let loud = write(
        &dir,
        "loud.asm",
        "lis $4\n.word 0xffff000c\nsw $1, 0($4)\nadd $3, $2, $1\njr $31\n",
    );
    let report = json(&["compare", &quiet, &loud], 0);
    let notes = report["notes"].as_array().expect("notes");
    assert!(
        notes[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("the right program writes")),
        "{report}"
    );
    let report = json(&["compare", &loud, &quiet, "--engine", "bmc"], 0);
    assert!(report["notes"][0]["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("the left program writes")));
    // A difference still carries the note in JSON (the text says it only without one).
    let wrong = write(&dir, "wrong.asm", "sub $3, $1, $2\njr $31\n");
    let report = json(&["compare", &loud, &wrong], 1);
    assert_eq!(report["notes"][0]["kind"], "output-not-observed");
}

#[test]
fn grade_notes_a_reference_that_writes_output_the_task_does_not_compare() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("s.sqlite");
    let store = store.to_str().expect("utf-8");
    let task = "examples/classes/print/task.toml";
    let sub = "examples/classes/print/submissions/correct_mult.asm";
    // The note does not wait for the verdict: a proof takes seconds, so the verdict
    // (and the exit status with it) is left to a short time limit and not asked.
    let grade = |extra: &[&str]| {
        let mut args = vec![
            "grade",
            "--task",
            task,
            sub,
            "--store",
            store,
            "--timeout",
            "1",
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args);
        assert!(matches!(code, 0 | 3), "{extra:?}: {code}: {out}\n{err}");
        out
    };
    let out = grade(&["--observe", "$3", "--format", "json"]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_valid(&validator("grade"), &report, "grade with a note");
    let notes = report["summary"]["task"]["notes"]
        .as_array()
        .expect("notes");
    assert_eq!(notes[0]["kind"], "output-not-observed");
    assert!(notes[0]["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("the reference writes")));
    let out = grade(&["--observe", "$3"]);
    assert!(
        out.contains("note: the reference writes to standard output"),
        "{out}"
    );
    // The task as written observes the output: no note.
    let out = grade(&["--format", "json"]);
    let report: Value = serde_json::from_str(&out).expect("one JSON object");
    assert!(report["summary"]["task"].get("notes").is_none(), "{report}");
}

const MAX: &str = "examples/grading/reference.asm";
const WARNING: &str = "warning: standard input is piped but not read";

fn run_piped(args: &[&str], input: &str) -> (i32, String, String) {
    let out = tamarin()
        .args(args)
        .write_stdin(input)
        .output()
        .expect("run tamarin");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn run_warns_when_piped_input_is_ignored() {
    // The piped numbers are not the inputs: the run is on 0, 0, and says so.
    let (code, _, err) = run_piped(&["run", MAX], "3 4");
    assert_eq!(code, 0, "{err}");
    let line = err.lines().find(|l| l.starts_with(WARNING)).expect(&err);
    assert!(line.contains("$1 = 0 and $2 = 0"), "{line}");
    assert!(line.contains("--twoints"), "{line}");
    assert!(err.contains("$3 = 0 "), "{err}");
    let (_, _, err) = run_piped(&["run", MAX, "--r1", "5", "--r2", "6"], "3 4");
    assert!(err.contains(WARNING), "{err}");
    let (_, _, err) = run_piped(&["run", MAX, "--array", "1,2"], "3 4");
    assert!(err.contains("--array"), "{err}");

    // A program that reads its own input found it empty: `--stdin -` comes first.
    let dir = tempfile::tempdir().expect("tempdir");
    let echo = write(
        &dir,
        "echo.asm",
        "lis $4\n.word 0xffff0004\nlw $3, 0($4)\njr $31\n",
    );
    let (_, _, err) = run_piped(&["run", &echo], "A");
    let line = err.lines().find(|l| l.starts_with(WARNING)).expect(&err);
    assert!(line.contains("found it empty (--stdin -"), "{line}");
}

#[test]
fn run_does_not_warn_when_the_piped_input_is_read_or_there_is_none() {
    let (code, _, err) = run_piped(&["run", MAX, "--twoints"], "3 4");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert!(err.contains("$3 = 4 "), "{err}");
    let (_, _, err) = run_piped(&["run", MAX, "--array-stdin"], "2 5 6");
    assert!(!err.contains("warning"), "{err}");
    let dir = tempfile::tempdir().expect("tempdir");
    let echo = write(
        &dir,
        "echo.asm",
        "lis $4\n.word 0xffff0004\nlw $3, 0($4)\njr $31\n",
    );
    let (_, _, err) = run_piped(&["run", &echo, "--stdin", "-"], "A");
    assert!(!err.contains("warning"), "{err}");
    assert!(err.contains("$3 = 65 "), "{err}");
    // The program itself from standard input.
    let (_, _, err) = run_piped(&["run", "-", "--r1", "1"], "add $3, $1, $1\njr $31\n");
    assert!(!err.contains("warning"), "{err}");
    // Nothing piped (standard input is /dev/null).
    let (code, _, err) = run(&["run", MAX, "--r1", "3", "--r2", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
}
