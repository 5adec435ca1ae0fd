//! The wording of reports (counts, fault messages), numbers that begin with `-`,
//! options that do not apply, hints, shell completions and the man page.

use std::path::PathBuf;

use assert_cmd::Command;

fn tamarin() -> Command {
    Command::cargo_bin("tamarin").expect("the tamarin binary is built")
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// Runs, expects `status`, and gives stdout and stderr.
fn run(cmd: &mut Command, status: i32) -> (String, String) {
    let out = cmd.output().expect("run tamarin");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert_eq!(out.status.code(), Some(status), "{stdout}{stderr}");
    (stdout, stderr)
}

const ADD: &str = "add $3, $1, $2\njr $31\n";
const SUB: &str = "sub $3, $1, $2\njr $31\n";
const DIV: &str = "div $1, $2\nmflo $3\njr $31\n";

#[test]
fn counts_of_one_are_singular_and_a_fault_is_said_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let div = write(&dir, "d.asm", DIV);
    let (out, _) = run(tamarin().arg("check").arg(&div), 1);
    let first = out.lines().next().unwrap_or_default();
    assert_eq!(first, "division-by-zero: division by zero at pc 0x00000000");
    assert!(
        out.contains("stats: 1 finding, 2 paths, 2 runs, 1 solver query in"),
        "{out}"
    );
    let add = write(&dir, "a.asm", ADD);
    let (out, _) = run(tamarin().arg("paths").arg(&add), 0);
    assert!(
        out.contains("stats: 1 path, 1 run, 0 solver queries in"),
        "{out}"
    );
    for text in ["(s)", "1 runs", "1 paths", "1 solver queries"] {
        assert!(!out.contains(text), "{out}");
    }
}

#[test]
fn an_incomplete_search_counts_its_reasons_in_words() {
    let dir = tempfile::tempdir().expect("tempdir");
    // One branch point beyond a depth of 1.
    let p = write(
        &dir,
        "p.asm",
        "beq $1, $0, a\na: beq $2, $0, b\nb: add $3, $1, $2\njr $31\n",
    );
    let (out, _) = run(tamarin().arg("paths").arg(&p).args(["--depth", "1"]), 3);
    assert!(
        out.contains("branch point beyond the depth bound of 1 path condition was not explored")
            || out.contains(
                "branch points beyond the depth bound of 1 path condition were not explored"
            ),
        "{out}"
    );
    assert!(!out.contains("(s)"), "{out}");
}

#[test]
fn negative_hex_numbers_are_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let add = write(&dir, "a.asm", ADD);
    let (out, _) = run(
        tamarin()
            .arg("run")
            .arg(&add)
            .args(["--r1", "-0x2a", "--r2", "-0x1", "--report"]),
        0,
    );
    assert!(out.contains("$3 = -43 (0xffffffd5)"), "{out}");
    let (out, _) = run(
        tamarin()
            .arg("run")
            .arg(&add)
            .args(["--termination", "-0x10", "--fuel", "1", "--report"]),
        0,
    );
    assert!(out.contains("$31 = -16 (0xfffffff0)"), "{out}");
    let sub = write(&dir, "b.asm", SUB);
    run(
        tamarin().arg("compare").arg(&add).arg(&sub).args([
            "--init-inputs",
            "-0x2a,-0x1",
            "--termination",
            "-0x10",
        ]),
        1,
    );
    // Parsed as a value, then refused as an address for the array.
    let (_, err) = run(
        tamarin()
            .arg("check")
            .arg(&add)
            .args(["--frontend", "array", "--array-base", "-0x2"]),
        2,
    );
    assert!(err.contains("--array-base"), "{err}");
    assert!(!err.contains("-- -0"), "{err}");
    let (_, err) = run(
        tamarin()
            .arg("run")
            .arg(&add)
            .args(["--array", "-0x2,3", "--array-base", "-0x100000"]),
        2,
    );
    assert!(!err.contains("-- -0"), "{err}");
    // An option where a number belongs is named as such.
    let (_, err) = run(tamarin().arg("run").arg(&add).args(["--r1", "--r2"]), 2);
    assert!(err.contains("`--r2` is an option, not a number"), "{err}");
}

#[test]
fn options_that_do_not_apply_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let add = write(&dir, "a.asm", ADD);
    let sub = write(&dir, "b.asm", SUB);
    for (cmd, extra, named) in [
        ("compare", &["--max-len", "4"][..], "--max-len"),
        ("check", &["--max-len", "16"][..], "--max-len"),
        ("paths", &["--array-base", "0x100"][..], "--array-base"),
        (
            "compare",
            &["--frontend", "array", "--inputs", "$1"][..],
            "--inputs",
        ),
        (
            "paths",
            &[
                "--frontend",
                "array",
                "--max-len",
                "2",
                "--init-inputs",
                "1,2,3",
            ][..],
            "--init-inputs",
        ),
    ] {
        let mut c = tamarin();
        c.arg(cmd).arg(&add);
        if cmd == "compare" {
            c.arg(&sub);
        }
        let (_, err) = run(c.args(extra), 2);
        assert!(err.contains(named), "{cmd} {extra:?}: {err}");
    }
    // The defaults, and the options where they apply, are fine.
    run(
        tamarin().arg("paths").arg(&add).args([
            "--frontend",
            "array",
            "--max-len",
            "1",
            "--array-base",
            "0x100",
        ]),
        0,
    );
    // grade flattens the same options.
    let (_, err) = run(
        tamarin()
            .arg("grade")
            .arg(&add)
            .arg(&sub)
            .arg("--store")
            .arg(dir.path().join("s.sqlite"))
            .args(["--max-len", "3"]),
        2,
    );
    assert!(
        err.contains("--max-len applies only to --frontend array"),
        "{err}"
    );
}

#[test]
fn completions_and_the_man_page_come_from_the_definition() {
    let (bash, _) = run(tamarin().args(["completions", "bash"]), 0);
    assert!(bash.contains("compare"), "{bash}");
    assert!(bash.contains("--fuel"), "{bash}");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let (out, _) = run(tamarin().args(["completions", shell]), 0);
        assert!(out.contains("compare"), "{shell}");
    }
    run(tamarin().args(["completions", "tcsh"]), 2);
    let (man, _) = run(tamarin().arg("man"), 0);
    assert!(man.contains(".TH"), "{man}");
    assert!(man.contains("compare"), "{man}");
    let dir = tempfile::tempdir().expect("tempdir");
    let pages = dir.path().join("man1");
    run(tamarin().arg("man").arg("--dir").arg(&pages), 0);
    let compare = std::fs::read_to_string(pages.join("tamarin-compare.1")).expect("a page");
    assert!(
        compare.contains(".TH") && compare.contains("fuel"),
        "{compare}"
    );
    assert!(pages.join("tamarin.1").exists());
}

#[test]
fn an_array_base_inside_the_program_is_warned_about() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(&dir, "p.asm", "lw $3, 0($1)\njr $31\n.word 5\n.word 6\n");
    let (_, err) = run(
        tamarin().arg("paths").arg(&p).args([
            "--frontend",
            "array",
            "--array-base",
            "8",
            "--max-len",
            "1",
        ]),
        0,
    );
    assert!(
        err.contains("warning: --array-base 0x8 lies inside"),
        "{err}"
    );
    assert!(err.contains("p.asm") && err.contains("0x10"), "{err}");
    let (_, err) = run(
        tamarin().arg("paths").arg(&p).args([
            "--frontend",
            "array",
            "--array-base",
            "16",
            "--max-len",
            "1",
        ]),
        0,
    );
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn a_difference_in_programs_that_read_from_r1_hints_at_the_array_frontend() {
    let dir = tempfile::tempdir().expect("tempdir");
    let l = write(&dir, "l.asm", "lw $3, 0($1)\njr $31\n");
    let r = write(&dir, "r.asm", "lw $3, 4($1)\njr $31\n");
    let (out, _) = run(tamarin().arg("compare").arg(&l).arg(&r), 1);
    assert!(out.contains("  hint: "), "{out}");
    assert!(out.contains("--frontend array"), "{out}");
    let (out, _) = run(
        tamarin()
            .arg("compare")
            .arg(&l)
            .arg(&r)
            .args(["--format", "json"]),
        1,
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let hints = v["hints"].as_array().expect("hints");
    assert_eq!(hints.len(), 1, "{v}");
    // A table at a fixed address, whatever $1 is: no hint.
    let t = "lis $4\n.word table\nlw $3, 0($4)\nadd $3, $3, $1\njr $31\ntable: .word 7\n";
    let t = write(&dir, "t.asm", t);
    let add = write(&dir, "a.asm", ADD);
    let (out, _) = run(tamarin().arg("compare").arg(&t).arg(&add), 1);
    assert!(!out.contains("hint"), "{out}");
    let (out, _) = run(
        tamarin()
            .arg("compare")
            .arg(&t)
            .arg(&add)
            .args(["--format", "json"]),
        1,
    );
    assert!(!out.contains("hints"), "{out}");
}
