//! `tamarin explain` on the real binary: every paper pair that differs, explained from
//! compare's own JSON report, parts where it should; `compare` points at it and
//! `--explain` inlines it; a grade report's witness works too; the HTML page.

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

/// Runs `args`, expects `status`, returns stdout.
fn run(args: &[&str], status: i32) -> String {
    let out = tamarin().args(args).output().expect("run tamarin");
    assert_eq!(
        out.status.code(),
        Some(status),
        "{args:?}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn paper(name: &str) -> String {
    format!("examples/paper/{name}.asm")
}

/// The explanation of a paper pair's counterexample, taken from compare's JSON.
fn explain_pair(left: &str, right: &str, dir: &tempfile::TempDir) -> Value {
    let (l, r) = (paper(left), paper(right));
    let report = run(
        &["compare", &l, &r, "--format", "json", "--portfolio", "none"],
        1,
    );
    let path = dir.path().join(format!("{left}-{right}.json"));
    std::fs::write(&path, report).expect("write the report");
    let from = path.display().to_string();
    let text = run(&["explain", &l, &r, "--from", &from, "--format", "json"], 1);
    serde_json::from_str(&text).expect("one JSON object")
}

#[test]
fn every_differing_paper_pair_parts_where_it_should() {
    let dir = tempfile::tempdir().expect("tempdir");
    // P2's store to address 42 fails: the divergence is that store.
    let v = explain_pair("fig1-left", "fig1-literal-right", &dir);
    assert_eq!(v["divergence"]["kind"], "fault", "{v}");
    let rows = v["rows"].as_array().expect("rows");
    let last = rows.last().expect("a row");
    assert_eq!(last["right"]["instruction"], "sw $4, 0($5)", "{v}");
    assert!(last["left"].is_null(), "{v}");
    // The other pairs are alike nowhere that matters: they part at their ends, on $3,
    // after the right program's whole run.
    for (l, r) in [
        ("fig1-left", "fig2-right"),
        ("fig5-left", "fig5-right"),
        ("fig8-left", "fig8-right"),
    ] {
        let v = explain_pair(l, r, &dir);
        assert_eq!(v["divergence"]["kind"], "end", "{l} {r}: {v}");
        assert!(v["differ"].as_bool().unwrap_or(false));
        let observed = v["observed"].as_array().expect("observed");
        assert!(
            observed
                .iter()
                .any(|o| o["name"] == "$3" && o["differs"] == true),
            "{v}"
        );
        let rows = v["rows"].as_array().expect("rows");
        let last = rows.last().expect("a row");
        assert_eq!(last["right"]["instruction"], "jr $31", "{l} {r}: {v}");
    }
    // The paths the witness takes, in words: fig5's right program tests $2 == 100.
    let v = explain_pair("fig5-left", "fig5-right", &dir);
    let right: Vec<&str> = v["conditions"]["right"]
        .as_array()
        .expect("conditions")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(right.contains(&"$2 == 100"), "{v}");
    let left = v["conditions"]["left"].as_array().expect("conditions");
    assert!(
        left.iter()
            .all(|c| !c.as_str().unwrap_or("").contains("zext")),
        "{v}"
    );
}

#[test]
fn a_branch_taken_differently_is_the_divergence_of_alike_programs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let max = dir.path().join("max.asm");
    let maxu = dir.path().join("maxu.asm");
    std::fs::write(
        &max,
        "slt $4, $1, $2\nadd $3, $1, $0\nbeq $4, $0, 1\nadd $3, $2, $0\njr $31\n",
    )
    .expect("write");
    std::fs::write(
        &maxu,
        "sltu $4, $1, $2\nadd $3, $1, $0\nbeq $4, $0, 1\nadd $3, $2, $0\njr $31\n",
    )
    .expect("write");
    let (a, b) = (max.display().to_string(), maxu.display().to_string());
    // compare points at it, and --explain shows it.
    let text = run(&["compare", &a, &b, "--portfolio", "none"], 1);
    let why = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("why: "))
        .expect("a pointer to explain");
    assert!(why.starts_with("tamarin explain "), "{why}");
    let words = shell_words::split(why).expect("a shell command");
    let text = run(
        &words[1..].iter().map(String::as_str).collect::<Vec<_>>(),
        1,
    );
    assert!(
        text.contains("divergence: the same branch `beq $4, $0, 1` goes different ways"),
        "{text}"
    );
    let marked = text
        .lines()
        .find(|l| l.starts_with(">>"))
        .expect("the marked row");
    assert!(marked.contains("3: beq $4, $0, 1"), "{marked}");
    let inline = run(&["compare", &a, &b, "--portfolio", "none", "--explain"], 1);
    assert!(inline.contains("divergence: the same branch"), "{inline}");
    // On inputs where they agree: no divergence, exit 0.
    let v: Value = serde_json::from_str(&run(
        &[
            "explain", &a, &b, "--r1", "3", "--r2", "4", "--format", "json",
        ],
        0,
    ))
    .expect("JSON");
    assert_eq!(v["divergence"]["kind"], "none");
    // The page: both columns, the divergence highlighted.
    let page = dir.path().join("why.html");
    let p = page.display().to_string();
    run(
        &["explain", &a, &b, "--r1", "-1", "--r2", "0", "--html", &p],
        1,
    );
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.contains("<tr class=\"diverge\">"), "{html}");
    assert!(html.contains("sltu $4, $1, $2"));
}

#[test]
fn output_differences_part_at_the_first_differing_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, second: &str| {
        let p = dir.path().join(name);
        std::fs::write(
            &p,
            format!("lis $5\n.word 0xffff000c\nlis $6\n.word 65\nsw $6, 0($5)\nsw {second}, 0($5)\njr $31\n"),
        )
        .expect("write");
        p.display().to_string()
    };
    let (a, b) = (write("a.asm", "$1"), write("b.asm", "$2"));
    let v: Value = serde_json::from_str(&run(
        &[
            "explain",
            &a,
            &b,
            "--r1",
            "66",
            "--r2",
            "67",
            "--observe",
            "output",
            "--format",
            "json",
        ],
        1,
    ))
    .expect("JSON");
    assert_eq!(v["divergence"]["kind"], "output", "{v}");
    assert_eq!(v["divergence"]["left_step"], 3, "{v}");
    assert!(v["divergence"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("output byte 1")));
}

#[test]
fn a_grade_report_gives_the_witness_of_the_submission() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("s.sqlite").display().to_string();
    let report = run(
        &[
            "grade",
            "--task",
            "examples/grading/task.toml",
            "examples/grading/submissions",
            "--format",
            "json",
            "--store",
            &store,
        ],
        1,
    );
    let path = dir.path().join("grade.json");
    std::fs::write(&path, report).expect("write");
    let from = path.display().to_string();
    let v: Value = serde_json::from_str(&run(
        &[
            "explain",
            "examples/grading/reference.asm",
            "examples/grading/submissions/bug_min.asm",
            "--from",
            &from,
            "--fuel",
            "1000",
            "--format",
            "json",
        ],
        1,
    ))
    .expect("JSON");
    assert!(v["differ"].as_bool().unwrap_or(false), "{v}");
    // A submission that does not differ has no witness: a usage error.
    let out = tamarin()
        .args([
            "explain",
            "examples/grading/reference.asm",
            "examples/grading/submissions/correct_mult.asm",
            "--from",
            &from,
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no witness"));
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn the_page_renders_in_a_headless_browser() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(browser) = common::browser::Browser::find(dir.path()) else {
        println!("skipped: chromium is not installed");
        return;
    };
    let page = dir.path().join("why.html");
    let p = page.display().to_string();
    run(
        &[
            "explain",
            "examples/grading/reference.asm",
            "examples/grading/submissions/bug_unsigned.asm",
            "--r1",
            "-1",
            "--r2",
            "0",
            "--html",
            &p,
        ],
        1,
    );
    browser.screenshot(&page, &dir.path().join("shot.png"));
    let dom = browser.dom(&page);
    assert!(dom.contains("class=\"diverge\""), "{dom}");
    assert!(dom.contains("sltu $4, $1, $2"), "{dom}");
    assert!(dom.contains("The paths these inputs take"), "{dom}");
}
