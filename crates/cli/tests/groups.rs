//! Groups of wrong submissions: a member joined because its witness takes the same
//! path through the reference shows its own witness, in text, JSON and HTML.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn grade(store: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let out = Command::cargo_bin("tamarin")
        .expect("the tamarin binary is built")
        .current_dir(root())
        .args([
            "grade",
            "--task",
            "examples/grading/task.toml",
            "examples/grading/submissions",
            "--portfolio",
            "none",
            "--store",
        ])
        .arg(store)
        .args(extra)
        .output()
        .expect("run tamarin");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_member_joined_by_the_reference_path_shows_its_own_witness() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("s.sqlite");
    let html = dir.path().join("html");
    let (status, out) = grade(
        &store,
        &["--format", "json", "--html", html.to_str().expect("utf-8")],
    );
    assert_eq!(status, Some(1), "{out}");
    let report: Value = serde_json::from_str(out.trim()).expect("JSON");
    common::schema::assert_valid(&common::schema::validator("grade"), &report, "grade");
    let own = |name: &str| -> Value {
        report["submissions"]
            .as_array()
            .expect("submissions")
            .iter()
            .find(|s| s["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .map(|s| s["witness"].clone())
            .expect("the submission")
    };
    let mut seen = 0;
    let mut joined_by_path = String::new();
    for group in report["groups"].as_array().expect("groups") {
        for member in group["members"].as_array().expect("members") {
            let path = member["path"].as_str().expect("a path");
            let name = path.rsplit('/').next().expect("a name");
            if member["joined"] == "same-reference-path" {
                seen += 1;
                joined_by_path = name.to_string();
                assert_eq!(member["witness"], own(name), "{group}");
                assert_ne!(member["witness"], group["witness"], "{group}");
            } else {
                assert!(member.get("witness").is_none(), "{group}");
            }
        }
    }
    assert!(
        seen > 0,
        "the example class has a member joined by its path: {report}"
    );
    let page = std::fs::read_to_string(html.join("index.html")).expect("the page");
    assert!(
        page.contains("(same reference path) on its own witness"),
        "{page}"
    );

    // The text report, from the store.
    let (_, text) = grade(&store, &[]);
    let witness = own(&joined_by_path);
    let start = format!("examples/grading/submissions/{joined_by_path} differs on");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&start))
        .unwrap_or_else(|| panic!("{text}"));
    for (reg, value) in witness["inputs"].as_object().expect("inputs") {
        assert!(
            line.contains(&format!("{reg} = {value} ")),
            "{line}: {witness}"
        );
    }
}
