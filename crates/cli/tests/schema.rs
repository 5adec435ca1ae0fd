//! The JSON reports against their documented layouts (`docs/schema/*.schema.json`):
//! real outputs of every command, in each of their shapes, must validate, and a report
//! with a field the schema does not know must not.

mod common;

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

use common::schema::{assert_valid, validator};

/// Runs tamarin with `args` and `--format json`, expecting `status`; the one object.
fn report(args: &[&str], status: i32) -> Value {
    let out = Command::cargo_bin("tamarin")
        .expect("binary")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(status), "{args:?}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

#[test]
fn every_command_s_reports_follow_their_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    let div = write(&dir, "div.asm", "div $1, $2\nmflo $3\njr $31\n");
    let spin = write(&dir, "spin.asm", "bne $1, $0, 1\njr $31\nbeq $0, $0, -1\n");
    let out = write(
        &dir,
        "out.asm",
        "lis $4\n.word 0xffff000c\nsw $1, 0($4)\njr $31\n",
    );
    let bad = write(&dir, "bad.asm", "add $3, $1\n");
    let no_return = write(&dir, "no-return.asm", "add $3, $1, $2\n");
    let e = "examples/paper/";
    let (l1, r1, l5, r5, l8) = (
        format!("{e}fig1-left.asm"),
        format!("{e}fig1-right.asm"),
        format!("{e}fig5-left.asm"),
        format!("{e}fig5-right.asm"),
        format!("{e}fig8-left.asm"),
    );

    let compare = validator("compare");
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["compare", &l1, &r1], 0),
        (vec!["compare", &l1, &r1, "--engine", "bmc"], 0),
        (vec!["compare", &l5, &r5], 1),
        (vec!["compare", &div, &l1], 1),
        (
            vec![
                "compare",
                &l8,
                &l8,
                "--max-runs",
                "1",
                "--engine",
                "concolic",
            ],
            3,
        ),
        (
            vec![
                "compare",
                &out,
                &l1,
                "--observe",
                "$3,hi,output,mem:0x0..0x4",
            ],
            1,
        ),
        (
            vec![
                "compare",
                &div,
                &div,
                "--frontend",
                "array",
                "--max-len",
                "2",
                "--stdin-len",
                "1",
            ],
            0,
        ),
    ];
    for (args, status) in &cases {
        assert_valid(&compare, &report(args, *status), &args.join(" "));
    }

    let check = validator("check");
    for (args, status) in [
        (vec!["check", div.as_str()], 1),
        (vec!["check", spin.as_str(), "--report-fuel"], 0),
        (vec!["check", spin.as_str(), "--depth", "0"], 3),
    ] {
        assert_valid(&check, &report(&args, status), &args.join(" "));
    }

    let explain = validator("explain");
    for (args, status) in [
        (vec!["explain", l5.as_str(), r5.as_str(), "--r2", "100"], 1),
        (vec!["explain", l5.as_str(), r5.as_str(), "--r2", "7"], 0),
        (
            vec![
                "explain",
                "examples/paper/fig1-left.asm",
                "examples/paper/fig1-literal-right.asm",
            ],
            1,
        ),
    ] {
        assert_valid(&explain, &report(&args, status), &args.join(" "));
    }

    let paths = validator("paths");
    for (args, status) in [
        (vec!["paths", div.as_str()], 0),
        (vec!["paths", spin.as_str(), "--max-paths", "1"], 3),
    ] {
        assert_valid(&paths, &report(&args, status), &args.join(" "));
    }

    let run = validator("run");
    for args in [
        vec!["run", l1.as_str(), "--r1", "-3", "--r2", "4"],
        vec!["run", div.as_str()],
        vec!["run", spin.as_str(), "--r1", "1", "--fuel", "100"],
        vec!["run", out.as_str(), "--r1", "65", "--show-mem", "0x0..0xc"],
        vec!["run", no_return.as_str(), "--show-mem", "0..0"],
    ] {
        let v = report(&args, 0);
        assert_valid(&run, &v, &args.join(" "));
        if args.contains(&"--show-mem") {
            assert!(v.get("memory").is_some(), "{v}");
        }
    }
    let mut v = report(&["run", no_return.as_str(), "--show-mem", "0..4"], 0);
    assert!(v.get("hint").is_some(), "{v}");
    assert_valid(&run, &v, "a run past the end");
    v["memory"]["surprise"] = 1.into();
    assert!(!run.is_valid(&v), "an unknown field in memory");

    let error = validator("error");
    for args in [
        vec!["compare", bad.as_str(), l1.as_str()],
        vec!["run", "no-such.asm"],
        vec!["check", div.as_str(), "--fuel", "x"],
    ] {
        assert_valid(&error, &report(&args, 2), &args.join(" "));
    }
}

#[test]
fn the_schemas_reject_what_they_do_not_describe() {
    let compare = validator("compare");
    let mut v = report(
        &[
            "compare",
            "examples/paper/fig5-left.asm",
            "examples/paper/fig5-right.asm",
        ],
        1,
    );
    assert_valid(&compare, &v, "as printed");
    v["surprise"] = 1.into();
    assert!(!compare.is_valid(&v), "an unknown field");
    let mut v = report(
        &[
            "compare",
            "examples/paper/fig5-left.asm",
            "examples/paper/fig5-right.asm",
        ],
        1,
    );
    v["schema"] = 2.into();
    assert!(!compare.is_valid(&v), "another layout version");
    let mut v = report(
        &[
            "compare",
            "examples/paper/fig5-left.asm",
            "examples/paper/fig5-right.asm",
        ],
        1,
    );
    v["counterexample"]["inputs"]["$1"] = 4_294_967_295u64.into();
    assert!(!compare.is_valid(&v), "an unsigned number");
}
