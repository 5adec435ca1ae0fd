//! End-to-end tests of `tamarin compare`: every row of examples/paper/EXPECTED.md through
//! the real binary, the JSON contract, exit statuses, replay commands and the dumps.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn tamarin() -> Command {
    Command::cargo_bin("tamarin").expect("the tamarin binary is built")
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name)
}

/// Runs `compare LEFT RIGHT EXTRA --format json`; returns the exit status and the object.
fn compare_json(left: &str, right: &str, extra: &[&str]) -> (i32, Value) {
    let out = tamarin()
        .arg("compare")
        .arg(example(left))
        .arg(example(right))
        .args(extra)
        .args(["--format", "json"])
        .output()
        .expect("run tamarin");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not exactly one JSON object ({e}): {stdout}"));
    (out.status.code().unwrap_or(-1), v)
}

fn input(v: &Value, name: &str) -> i64 {
    v["counterexample"]["inputs"][name]
        .as_i64()
        .unwrap_or_else(|| panic!("no input {name}: {v}"))
}

#[test]
fn every_expected_row_gets_its_verdict() {
    let rows: &[(&str, &str, &[&str], &[&str])] = &[
        ("fig1-left.asm", "fig1-right.asm", &[], &["equivalent"]),
        (
            "fig1-left.asm",
            "fig1-literal-right.asm",
            &[],
            &["disequivalent"],
        ),
        (
            "fig1-left.asm",
            "fig2-right.asm",
            &["--fuel", "10"],
            &["equivalent", "possibly-equivalent"],
        ),
        ("fig1-left.asm", "fig2-right.asm", &[], &["disequivalent"]),
        ("fig5-left.asm", "fig5-right.asm", &[], &["disequivalent"]),
        ("fig8-left.asm", "fig8-right.asm", &[], &["disequivalent"]),
        ("fig8-left.asm", "fig8-left.asm", &[], &["equivalent"]),
        ("fig12-left.asm", "fig1-left.asm", &[], &["equivalent"]),
    ];
    for (left, right, extra, want) in rows {
        let (code, v) = compare_json(left, right, extra);
        let verdict = v["verdict"].as_str().unwrap_or("?");
        assert!(want.contains(&verdict), "{left} {right} {extra:?}: {v}");
        assert_eq!(code, if verdict == "disequivalent" { 1 } else { 0 }, "{v}");
    }
}

#[test]
fn counterexamples_carry_the_distinguishing_inputs() {
    let (_, v) = compare_json("fig5-left.asm", "fig5-right.asm", &[]);
    assert_eq!(input(&v, "$2"), 100);
    assert_eq!(v["counterexample"]["left"]["status"], "done");
    assert_eq!(v["counterexample"]["left"]["$3"], input(&v, "$1") + 100);
    assert_eq!(v["counterexample"]["right"]["$3"], input(&v, "$1") + 200);

    let (_, v) = compare_json("fig8-left.asm", "fig8-right.asm", &[]);
    let (a, b) = (input(&v, "$1"), input(&v, "$2"));
    assert_eq!((a + b) as i32, 16);
    assert_ne!(a, b);

    let (_, v) = compare_json("fig1-left.asm", "fig2-right.asm", &[]);
    assert_ne!(input(&v, "$1"), input(&v, "$2"));

    let (_, v) = compare_json("fig1-left.asm", "fig1-literal-right.asm", &[]);
    let right = &v["counterexample"]["right"];
    assert_eq!(right["status"], "error");
    assert_eq!(right["error_kind"], "unaligned-access");
    assert_eq!(right["pc"], 12);
    assert!(
        right.get("$3").is_none(),
        "a failed side has no result: {v}"
    );
}

#[test]
fn json_has_the_documented_fields() {
    let (_, v) = compare_json("fig5-left.asm", "fig5-right.asm", &[]);
    let stats = &v["stats"];
    for key in ["runs", "solver_queries", "solver_ms", "total_ms"] {
        assert!(stats[key].is_number(), "stats.{key}: {v}");
    }
    assert!(stats["paths"]["left"].is_u64() && stats["paths"]["right"].is_u64());
    let (_, v) = compare_json("fig12-left.asm", "fig1-left.asm", &[]);
    assert!(v.get("counterexample").is_none());
    assert_eq!(v["proof"]["paths"]["left"], 2);
    assert_eq!(v["proof"]["engine"], "concolic");
    // In a comparison the depth bounds only the hunt: past it, the proof goes on.
    let (_, v) = compare_json(
        "fig8-left.asm",
        "fig8-left.asm",
        &["--depth", "0", "--engine", "concolic"],
    );
    assert_eq!(v["verdict"], "equivalent", "{v}");
    assert_eq!(v["proof"]["engine"], "concolic");
    // Alone, a program's paths stop at it, with the reason and its advice.
    let out = tamarin()
        .arg("paths")
        .arg(example("fig8-left.asm"))
        .args(["--depth", "0", "--format", "json"])
        .output()
        .expect("run tamarin");
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let reasons = v["incomplete"].as_array().expect("incomplete reasons");
    let depth = reasons
        .iter()
        .find(|r| r["kind"] == "depth-bound")
        .expect("a depth-bound reason");
    assert!(
        depth["message"].as_str().unwrap_or("").contains("depth"),
        "{depth}"
    );
    assert_eq!(depth["advice"], "raise --depth");
    assert_eq!(depth["depth"], 0);
    // A proof by the merged encoding says what the encoding took.
    let (_, v) = compare_json("fig8-left.asm", "fig8-left.asm", &["--engine", "bmc"]);
    assert_eq!(v["proof"]["engine"], "bmc", "{v}");
    for side in ["left", "right"] {
        let e = &v["proof"]["encoding"][side];
        for key in ["steps", "merges", "ends", "peak_states"] {
            assert!(e[key].is_u64(), "proof.encoding.{side}.{key}: {v}");
        }
    }
}

#[test]
fn every_engine_gives_the_paper_verdicts() {
    let rows: [(&str, &str, &[&str], &str); 6] = [
        ("fig1-left.asm", "fig1-right.asm", &[], "equivalent"),
        ("fig12-left.asm", "fig1-left.asm", &[], "equivalent"),
        ("fig8-left.asm", "fig8-left.asm", &[], "equivalent"),
        (
            "fig1-left.asm",
            "fig2-right.asm",
            &["--fuel", "10"],
            "equivalent",
        ),
        ("fig5-left.asm", "fig5-right.asm", &[], "disequivalent"),
        ("fig8-left.asm", "fig8-right.asm", &[], "disequivalent"),
    ];
    for engine in ["concolic", "bmc", "auto"] {
        for (l, r, extra, want) in rows {
            let mut args = vec!["--engine", engine];
            args.extend_from_slice(extra);
            let (code, v) = compare_json(l, r, &args);
            assert_eq!(v["verdict"], want, "{engine}: {l} {r}: {v}");
            assert_eq!(code, if want == "disequivalent" { 1 } else { 0 });
        }
    }
    let out = Command::cargo_bin("tamarin")
        .unwrap()
        .args(["compare", "--engine", "smt"])
        .arg(example("fig1-left.asm"))
        .arg(example("fig1-right.asm"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn init_inputs_are_negative_friendly_and_checked() {
    let (code, v) = compare_json(
        "fig5-left.asm",
        "fig5-right.asm",
        &["--init-inputs", "-3,100"],
    );
    assert_eq!(code, 1);
    assert_eq!(input(&v, "$2"), 100);
    let out = tamarin()
        .arg("compare")
        .arg(example("fig5-left.asm"))
        .arg(example("fig5-right.asm"))
        .args(["--init-inputs", "1,2,3"])
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("3 numbers for 2 input registers"));
}

#[test]
fn text_report_replays_on_both_sides() {
    let out = tamarin()
        .arg("compare")
        .arg(example("fig5-left.asm"))
        .arg(example("fig5-right.asm"))
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("disequivalent"), "{text}");
    assert!(text.contains("stats:"), "{text}");
    let replays: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("tamarin run "))
        .collect();
    assert_eq!(replays.len(), 2, "{text}");
    let mut results = Vec::new();
    for line in replays {
        let args: Vec<&str> = line.split_whitespace().skip(1).collect();
        let out = tamarin()
            .args(&args)
            .args(["--format", "json"])
            .output()
            .expect("replay");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        results.push(v["registers"]["$3"].as_i64().expect("$3"));
    }
    assert_ne!(results[0], results[1], "the replay shows the difference");
}

#[test]
fn dumps_write_queries_and_traces() {
    let dir = tempfile::tempdir().expect("tempdir");
    let smt = dir.path().join("queries");
    // A difference only the solver finds: its queries are dumped.
    let out = tamarin()
        .arg("compare")
        .arg(example("../needle/left.asm"))
        .arg(example("../needle/right.asm"))
        .arg("--dump-smt")
        .arg(&smt)
        .arg("--dump-trace")
        .args(["--format", "json"])
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("trace of left on $1 = 0, $2 = 0"),
        "{stderr}"
    );
    assert!(stderr.contains("assume"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout stays one JSON object");
    let files: Vec<_> = std::fs::read_dir(&smt).expect("dump dir").collect();
    assert!(!files.is_empty());
    assert!(files.len() as u64 <= v["stats"]["solver_queries"].as_u64().unwrap_or(0));
    for f in files {
        let text = std::fs::read_to_string(f.expect("entry").path()).expect("read");
        assert!(
            text.contains("(check-sat)") && text.contains("; answer: "),
            "{text}"
        );
    }
}

#[test]
fn bad_input_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.asm");
    std::fs::write(&bad, "add $3, $1\n").expect("write");
    for (left, right) in [
        (bad.clone(), example("fig1-left.asm")),
        (example("fig1-left.asm"), dir.path().join("missing.asm")),
        (example("fig1-left.asm"), dir.path().to_path_buf()),
    ] {
        let out = tamarin()
            .arg("compare")
            .arg(&left)
            .arg(&right)
            .output()
            .expect("run tamarin");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

/// Writes `text` to a file in `dir` and returns its path.
fn program(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// Runs `compare` with `extra` arguments; returns the exit status and the JSON object.
fn compare_files(left: &Path, right: &Path, extra: &[&str]) -> (i32, Value) {
    let out = tamarin()
        .arg("compare")
        .arg(left)
        .arg(right)
        .args(extra)
        .args(["--format", "json"])
        .output()
        .expect("run tamarin");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

/// Runs each `tamarin run …` replay line of a text report (through `sh`, since a
/// line may pipe standard input) and returns each side's JSON.
fn replays(left: &Path, right: &Path, extra: &[&str]) -> Vec<Value> {
    let out = tamarin()
        .arg("compare")
        .arg(left)
        .arg(right)
        .args(extra)
        .output()
        .expect("run tamarin");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let bin = assert_cmd::cargo::cargo_bin("tamarin");
    text.lines()
        .map(str::trim)
        .filter(|l| l.contains("tamarin run "))
        .map(|line| {
            let line = line.replacen("tamarin run", &format!("'{}' run", bin.display()), 1);
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("{line} --format json"))
                .output()
                .expect("sh");
            serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{e}: {line}\n{}", String::from_utf8_lossy(&out.stderr)))
        })
        .collect()
}

#[test]
fn array_inputs_report_and_replay_the_array() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Left returns the third element; right returns it unless it is 9.
    let l = program(&dir, "l.asm", "lw $3, 8($1)\njr $31\n");
    let r = program(
        &dir,
        "r.asm",
        "lw $3, 8($1)\nlis $4\n.word 9\nbne $3, $4, end\nadd $3, $0, $0\nend:\njr $31\n",
    );
    let (code, v) = compare_files(&l, &r, &["--frontend", "array", "--max-len", "4"]);
    assert_eq!(code, 1, "{v}");
    let array = v["counterexample"]["inputs"]["array"]
        .as_array()
        .expect("array");
    assert!(array.len() >= 3 && array[2] == 9, "{v}");
    let runs = replays(&l, &r, &["--frontend", "array", "--max-len", "4"]);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["registers"]["$3"], 9);
    assert_eq!(runs[1]["registers"]["$3"], 0);
}

#[test]
fn chosen_observables_are_named_in_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let l = program(
        &dir,
        "l.asm",
        "lis $4\n.word 0xffff000c\nsw $1, 0($4)\njr $31\n",
    );
    let r = program(
        &dir,
        "r.asm",
        "lis $4\n.word 0xffff000c\nsw $2, 0($4)\njr $31\n",
    );
    let (code, _) = compare_files(&l, &r, &[]);
    assert_eq!(code, 0, "only $3 is observed by default");
    let (code, v) = compare_files(&l, &r, &["--observe", "$3,output,mem:0x100..0x108"]);
    assert_eq!(code, 1);
    let left = &v["counterexample"]["left"];
    assert!(left["output"].is_string(), "{v}");
    assert!(left["$3"].is_number(), "{v}");
    assert_eq!(left["mem:0x100..0x108"].as_array().map(Vec::len), Some(3));
    assert_ne!(left["output"], v["counterexample"]["right"]["output"]);
}

#[test]
fn chosen_input_registers_replay_with_reg() {
    let dir = tempfile::tempdir().expect("tempdir");
    let l = program(
        &dir,
        "l.asm",
        "lis $4\n.word 9\nbne $7, $4, end\nlis $3\n.word 1\nend:\njr $31\n",
    );
    let r = program(&dir, "r.asm", "jr $31\n");
    let (code, v) = compare_files(&l, &r, &["--inputs", "$7"]);
    assert_eq!(code, 1);
    assert_eq!(v["counterexample"]["inputs"]["$7"], 9);
    let runs = replays(&l, &r, &["--inputs", "$7"]);
    assert_eq!(runs[0]["registers"]["$3"], 1);
    assert_eq!(runs[1]["registers"]["$3"], 0);
}

#[test]
fn stdin_bytes_are_inputs_and_replay_through_a_pipe() {
    let dir = tempfile::tempdir().expect("tempdir");
    let read = "lis $4\n.word 0xffff0004\nlw $3, 0($4)\n";
    let l = program(&dir, "l.asm", &format!("{read}jr $31\n"));
    let r = program(
        &dir,
        "r.asm",
        &format!("{read}lis $5\n.word 113\nbne $3, $5, end\nadd $3, $0, $0\nend:\njr $31\n"),
    );
    let (code, v) = compare_files(&l, &r, &["--stdin-len", "1"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["counterexample"]["inputs"]["stdin"][0], 113);
    let runs = replays(&l, &r, &["--stdin-len", "1"]);
    assert_eq!(runs[0]["registers"]["$3"], 113);
    assert_eq!(runs[1]["registers"]["$3"], 0);
}

#[test]
fn bad_precision_options_exit_2() {
    for args in [
        vec!["--observe", "pc"],
        vec!["--observe", "mem:1..8"],
        vec!["--inputs", "$0"],
        vec!["--inputs", "$1,$1"],
        vec!["--frontend", "list"],
        vec!["--max-len", "100000"],
        vec!["--solver", "no-such-solver-here"],
    ] {
        let out = tamarin()
            .arg("compare")
            .arg(example("fig5-left.asm"))
            .arg(example("fig5-right.asm"))
            .args(&args)
            .output()
            .expect("run tamarin");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn an_external_solver_gives_the_same_verdict() {
    let probe = std::process::Command::new("cvc5").arg("--version").output();
    if probe.is_err() {
        eprintln!("skipping: cvc5 is not installed");
        return;
    }
    let (code, v) = compare_json("fig8-left.asm", "fig8-right.asm", &["--solver", "cvc5"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!((input(&v, "$1") + input(&v, "$2")) as i32, 16);
}

#[test]
fn no_progress_display_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Accumulates the inputs forever: every traced step builds a new term, so the
    // comparison runs for over a second (past the tracer's term budget, and on into
    // the merged encoding, so that the time does not hang on how fast one trace is).
    let p = program(
        &dir,
        "grow.asm",
        "loop:\nadd $3, $3, $1\nadd $3, $3, $2\nbeq $0, $0, loop\n",
    );
    let start = std::time::Instant::now();
    let out = tamarin()
        .arg("compare")
        .arg(&p)
        .arg(&p)
        .args(["--fuel", "2000000", "--timeout", "2"])
        .output()
        .expect("run tamarin");
    assert!(
        start.elapsed() > std::time::Duration::from_secs(1),
        "too quick to test"
    );
    // Possibly-equivalent: incomplete.
    assert_eq!(out.status.code(), Some(3));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn progress_shows_on_a_terminal() {
    // `script` gives the command a terminal; skip where it is missing.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipping: no `script` command");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // `script` may fail to give its command a terminal (no pseudo-terminal left):
    // then there is nothing to test here.
    let probe = std::process::Command::new("script")
        .args(["-qefc", "test -t 2"])
        .arg(dir.path().join("probe"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("skipping: `script` gives no terminal here");
        return;
    }
    // A loop whose exit depends on $1 at every iteration: hundreds of paths.
    let p = program(
        &dir,
        "count.asm",
        "lis $5\n.word 1\nloop:\nadd $4, $4, $5\nbne $4, $1, loop\nadd $3, $4, $0\njr $31\n",
    );
    let log = dir.path().join("typescript");
    let bin = assert_cmd::cargo::cargo_bin("tamarin");
    let cmd = format!(
        "'{}' compare '{}' '{}' --fuel 10000000 --depth 2000 --timeout 2 > /dev/null",
        bin.display(),
        p.display(),
        p.display()
    );
    let status = std::process::Command::new("script")
        .args(["-qefc", &cmd])
        .arg(&log)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("script");
    let shown = std::fs::read(&log).unwrap_or_default();
    let shown = String::from_utf8_lossy(&shown);
    // Stopped by its time limit: possibly-equivalent, exit status 3.
    assert_eq!(status.code(), Some(3), "{status:?} {shown}");
    assert!(shown.contains("solver queries"), "{shown}");
}

#[test]
fn the_text_report_says_which_engine_proved_it() {
    let text_of = |engine: &str| {
        let out = tamarin()
            .args(["compare", "--engine", engine])
            .arg(example("fig12-left.asm"))
            .arg(example("fig1-left.asm"))
            .output()
            .expect("run tamarin");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = text_of("bmc");
    assert!(
        text.starts_with("equivalent: for all inputs $1, $2"),
        "{text}"
    );
    assert!(text.contains("proved by bounded model checking"), "{text}");
    let text = text_of("concolic");
    assert!(text.contains("proved by enumerating every path"), "{text}");
}

#[test]
fn an_array_over_the_program_replays_as_the_report_says() {
    let dir = tempfile::tempdir().expect("tempdir");
    let code = "add $3, $0, $0\nbeq $2, $0, done\nlw $11, 0($1)\nlis $12\n.word 0x5eed\n\
                bne $11, $12, done\nlw $3, 4($1)\ndone: jr $31\n";
    let mut with_data = code.to_string();
    with_data.push_str(&".word 0\n".repeat(9));
    with_data.push_str(".word 99\n");
    let l = program(&dir, "l.asm", &with_data);
    let r = program(&dir, "r.asm", code);
    let args = ["--frontend", "array", "--array-base", "0x40"];
    for engine in ["auto", "concolic", "bmc"] {
        let mut a = args.to_vec();
        a.extend(["--engine", engine]);
        let (status, v) = compare_files(&l, &r, &a);
        assert_eq!(status, 1, "{engine}: {v}");
        assert_eq!(v["counterexample"]["inputs"]["array"][0], 0x5eed, "{v}");
        let runs = replays(&l, &r, &a);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0]["registers"]["$3"], 99, "{engine}");
        assert_eq!(runs[1]["registers"]["$3"], 0, "{engine}");
    }
}

#[test]
fn an_array_that_no_length_can_place_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = program(&dir, "p.asm", "jr $31\n");
    for (cmd, base) in [
        ("compare", "6"),
        ("compare", "0x1000004"),
        ("check", "6"),
        ("paths", "0x2"),
    ] {
        let mut c = tamarin();
        c.arg(cmd).arg(&p);
        if cmd == "compare" {
            c.arg(&p);
        }
        let out = c
            .args(["--frontend", "array", "--array-base", base])
            .output()
            .expect("run tamarin");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd} {base}: {stderr}");
        assert!(stderr.contains("--array-base"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A program that never ends (it counts in `$4` for ever), and `$3 = $1 + $2`.
fn spin_and_add(dir: &tempfile::TempDir) -> (PathBuf, PathBuf) {
    let spin = program(
        dir,
        "spin.asm",
        "lis $5\n.word 1\ntop: add $4, $4, $5\nbeq $0, $0, top\n",
    );
    (spin, program(dir, "add.asm", "add $3, $1, $2\njr $31\n"))
}

#[test]
fn the_time_limit_holds_while_a_run_spins_with_a_huge_fuel() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (spin, add) = spin_and_add(&dir);
    let start = std::time::Instant::now();
    let (_, v) = compare_files(&spin, &add, &["--fuel", "10000000000", "--timeout", "2"]);
    let took = start.elapsed();
    assert_eq!(v["verdict"], "possibly-equivalent", "{v}");
    // One run alone would take tens of seconds; the margin absorbs a loaded machine.
    assert!(took < std::time::Duration::from_secs(12), "took {took:?}");
}

/// Starts `tamarin ARGS`, presses Ctrl-C after `after`, and returns the exit status,
/// standard output and standard error (the process must end within a minute).
fn interrupted(args: &[&std::ffi::OsStr], after: std::time::Duration) -> (i32, String, String) {
    use std::io::Read;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tamarin"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn tamarin");
    std::thread::sleep(after);
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still running a minute after Ctrl-C");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("read");
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    (status.code().unwrap_or(-1), out, err)
}

#[test]
fn ctrl_c_stops_a_spinning_comparison_and_reports_what_was_covered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (spin, add) = spin_and_add(&dir);
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    let (code, out, err) = interrupted(
        &[
            os("compare"),
            spin.as_os_str(),
            add.as_os_str(),
            os("--fuel"),
            os("10000000000"),
            os("--format"),
            os("json"),
        ],
        std::time::Duration::from_millis(1500),
    );
    assert_eq!(code, 130, "{out}\n{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("one JSON report");
    assert_eq!(v["verdict"], "possibly-equivalent", "{v}");
    assert!(v.to_string().contains("interrupted"), "{v}");
    assert!(err.contains("interrupted"), "{err}");
    // `run` shows where the program was when it was stopped.
    // The report is on stderr (stdout has the program's output, here none).
    let (code, out, err) = interrupted(
        &[os("run"), spin.as_os_str(), os("--fuel"), os("10000000000")],
        std::time::Duration::from_millis(500),
    );
    assert_eq!(code, 130, "{out}\n{err}");
    assert!(err.contains("status: stopped after"), "{err}");
    assert!(out.is_empty(), "{out}");
}

/// `--deterministic` decides by counts: no portfolio unless asked for (then exit 2),
/// a solver work budget sized by the time limit, both stated in the task; every
/// reason says whether the wall clock caused it.
#[test]
fn deterministic_comparisons_state_their_budget_and_refuse_a_race() {
    let (code, v) = compare_json(
        "fig1-left.asm",
        "fig1-right.asm",
        &["--deterministic", "--timeout", "45"],
    );
    assert_ne!(code, 2, "{v}");
    common::schema::assert_valid(&common::schema::validator("compare"), &v, "deterministic");
    assert_eq!(v["task"]["deterministic"], true, "{v}");
    assert_eq!(v["task"]["portfolio"], serde_json::json!([]), "{v}");
    assert_eq!(v["task"]["solver_work"], 45_000_000, "{v}");
    let (_, plain) = compare_json("fig1-left.asm", "fig1-right.asm", &[]);
    assert_eq!(plain["task"]["deterministic"], false, "{plain}");
    assert_eq!(plain["task"]["solver_work"], 0, "{plain}");

    let out = tamarin()
        .arg("compare")
        .arg(example("fig1-left.asm"))
        .arg(example("fig1-right.asm"))
        .args(["--deterministic", "--portfolio", "yices"])
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--deterministic cannot be used with --portfolio yices"),
        "{err}"
    );

    // Its work budget stops it: a count, not the clock's doing, with the advice
    // that names the budget.
    let proofs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/proofs");
    let out = tamarin()
        .arg("compare")
        .arg(proofs.join("print-rec.asm"))
        .arg(proofs.join("print-iter.asm"))
        .args([
            "--observe",
            "output",
            "--deterministic",
            "--engine",
            "concolic",
        ])
        .args(["--solver-work", "1", "--format", "json"])
        .output()
        .expect("run tamarin");
    let code = out.status.code().unwrap_or(-1);
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    common::schema::assert_valid(&common::schema::validator("compare"), &v, "work spent");
    assert_eq!(code, 3, "{v}");
    let reasons = v["incomplete"].as_array().expect("reasons");
    assert!(
        reasons.iter().all(|r| r["cut_by_wall_clock"] == false),
        "{v}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r["advice"] == "raise --solver-work (or --timeout, which sizes it)"),
        "{v}"
    );
}

/// `--assume-program`: the witness is one the domain program accepts, the report
/// names it, and a domain program that cannot be read, does not assemble or cannot
/// be encoded exactly is an error (exit 2) that names the file.
#[test]
fn a_domain_program_keeps_witnesses_inside_and_bad_ones_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p
    };
    // Accepts $1 in 5..=7 only, by a loop that counts from 5 to 7.
    let seven = write(
        "seven.asm",
        "lis $4\n.word 1\nlis $5\n.word 7\nlis $6\n.word 5\nloop: beq $6, $1, found\n\
         beq $6, $5, done\nadd $6, $6, $4\nbeq $0, $0, loop\nfound: add $3, $4, $0\ndone: jr $31\n",
    );
    let left = write("left.asm", "add $3, $1, $0\njr $31\n");
    let right = write("right.asm", "sub $3, $0, $1\njr $31\n");
    let run = |extra: &[&std::ffi::OsStr]| {
        tamarin()
            .arg("compare")
            .arg(&left)
            .arg(&right)
            .args(extra)
            .output()
            .expect("run tamarin")
    };
    let out = run(&[
        "--assume-program".as_ref(),
        seven.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    common::schema::assert_valid(
        &common::schema::validator("compare"),
        &v,
        "compare with a domain program",
    );
    let x = v["counterexample"]["inputs"]["$1"].as_i64().expect("$1");
    assert!((5..=7).contains(&x), "{v}");
    assert!(
        v["task"]["assume_program"]
            .as_str()
            .is_some_and(|p| p.ends_with("seven.asm")),
        "{v}"
    );
    assert_eq!(v["task"]["assume_fuel"], 100_000, "{v}");

    let out = run(&["--assume-program".as_ref(), "-".as_ref()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes a file"));
    let missing = dir.path().join("missing.asm");
    let bad = write("bad.asm", "add $3, $1\njr $31\n");
    let unfollowed = write("writes.asm", "lis $3\n.word 1\nsw $1, 0($2)\njr $31\n");
    for (checker, says) in [
        (&missing, "missing.asm"),
        (&bad, "bad.asm:1:"),
        (&unfollowed, "cannot be used"),
    ] {
        let out = run(&["--assume-program".as_ref(), checker.as_os_str()]);
        assert_eq!(out.status.code(), Some(2), "{}", checker.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
}
