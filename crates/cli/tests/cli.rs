//! End-to-end tests of the `tamarin` binary: each subcommand's happy path, and every
//! kind of bad input giving a clear message and exit status 2 (never a panic).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

fn tamarin() -> Command {
    Command::cargo_bin("tamarin").expect("the tamarin binary is built")
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name)
}

fn write(dir: &TempDir, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).expect("write test file");
    path
}

/// Runs `tamarin run ARGS --format json`, expects success and parses the one object.
fn run_json(args: &[&str]) -> Value {
    let out = tamarin()
        .arg("run")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run tamarin");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not one JSON object ({e}): {stdout}"))
}

/// Expects exit status 2, a message on stderr containing every one of `needles`, and
/// nothing on stdout.
fn fails_with(cmd: &mut Command, needles: &[&str]) -> String {
    let out = cmd.output().expect("run tamarin");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "stderr lacks {n:?}:\n{stderr}");
    }
    stderr
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

const SUM_ARRAY: &str = "\
; $3 = sum of the array at $1 of $2 words
add $3, $0, $0
lis $4
.word 4
lis $5
.word 1
loop:
beq $2, $0, end
lw $6, 0($1)
add $3, $3, $6
add $1, $1, $4
sub $2, $2, $5
beq $0, $0, loop
end:
jr $31
";

const ECHO: &str = "\
; copies standard input to standard output
lis $5
.word 0xffff0004
lis $6
.word 0xffff000c
lis $7
.word -1
loop: lw $1, 0($5)
beq $1, $7, end
sw $1, 0($6)
beq $0, $0, loop
end: jr $31
";

const DIV_BY_ZERO: &str = "\
add $3, $1, $2
div $1, $0
jr $31
";

// ---------------------------------------------------------------- run

#[test]
fn run_text_reports_status_and_registers() {
    tamarin()
        .arg("run")
        .arg(example("fig1-left.asm"))
        .args(["--r1", "3", "--r2", "4"])
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("status: done after 2 steps"))
        .stderr(predicate::str::contains("$3 = 7 (0x00000007)"))
        .stderr(predicate::str::contains("$1 = 3 (0x00000003)"))
        .stderr(predicate::str::contains("$2 = 4 (0x00000004)"))
        .stderr(predicate::str::contains("output").not());
    // --report: the same report, on stdout.
    tamarin()
        .arg("run")
        .arg(example("fig1-left.asm"))
        .args(["--r1", "3", "--r2", "4", "--report"])
        .assert()
        .success()
        .stderr("")
        .stdout(predicate::str::contains("status: done after 2 steps"))
        .stdout(predicate::str::contains("$3 = 7 (0x00000007)"));
}

#[test]
fn run_json_has_every_field() {
    let v = run_json(&[s(&example("fig1-left.asm")), "--r1", "3", "--r2", "4"]);
    assert_eq!(v["status"], "done");
    assert_eq!(v["steps"], 2);
    assert_eq!(v["output"], "");
    let regs = v["registers"].as_object().expect("registers object");
    assert_eq!(regs.len(), 33);
    for r in 1..32 {
        assert!(regs.contains_key(&format!("${r}")), "${r} missing");
    }
    assert_eq!(regs["$1"], 3);
    assert_eq!(regs["$2"], 4);
    assert_eq!(regs["$3"], 7);
    assert_eq!(regs["$30"], 0x0100_0000);
    assert_eq!(regs["$31"], 0x8123_456Cu32 as i32);
    assert_eq!(regs["hi"], 0);
    assert_eq!(regs["lo"], 0);
    assert!(v.get("error").is_none());
    assert!(v.get("error_kind").is_none());
    assert!(v.get("pc").is_none());
}

#[test]
fn run_accepts_hex_and_negative_numbers() {
    let fig1 = example("fig1-left.asm");
    let v = run_json(&[s(&fig1), "--r1", "-5", "--r2", "0x10"]);
    assert_eq!(v["registers"]["$3"], 11);
    let v = run_json(&[s(&fig1), "--r1=-2147483648", "--r2", "0xffffffff"]);
    assert_eq!(v["registers"]["$3"], i32::MAX);
    tamarin()
        .arg("run")
        .arg(&fig1)
        .args(["--r1", "-1", "--r2", "-1"])
        .assert()
        .success()
        .stderr(predicate::str::contains("$3 = -2 (0xfffffffe)"));
}

#[test]
fn run_with_an_array() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "sum.asm", SUM_ARRAY);
    let v = run_json(&[s(&prog), "--array", "1,2,-3,0x10"]);
    assert_eq!(v["status"], "done");
    assert_eq!(v["registers"]["$3"], 16);
    let v = run_json(&[s(&prog), "--array", ""]);
    assert_eq!(v["registers"]["$3"], 0);

    // $1 holds the array's address: right after the program, or where asked.
    let addr = write(&dir, "addr.asm", "add $3, $1, $0\nadd $4, $2, $0\njr $31\n");
    let v = run_json(&[s(&addr), "--array", "5,6"]);
    assert_eq!(v["registers"]["$3"], 12);
    assert_eq!(v["registers"]["$4"], 2);
    let v = run_json(&[s(&addr), "--array", "5", "--array-base", "0x100"]);
    assert_eq!(v["registers"]["$3"], 0x100);

    fails_with(
        tamarin()
            .arg("run")
            .arg(&addr)
            .args(["--array", "5", "--array-base", "0x101"]),
        &["not a multiple of 4"],
    );
}

#[test]
fn run_feeds_stdin_and_reports_output() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "echo.asm", ECHO);
    let input = write(&dir, "input.bin", b"hi there\n\xff!");
    let v = run_json(&[s(&prog), "--stdin", s(&input)]);
    assert_eq!(v["status"], "done");
    assert_eq!(v["output"], "hi there\n\u{fffd}!");

    // The output's bytes, as they are, on stdout; the report on stderr.
    tamarin()
        .arg("run")
        .arg(&prog)
        .args(["--stdin", s(&input)])
        .assert()
        .success()
        .stdout(predicate::eq(&b"hi there\n\xff!"[..]))
        .stderr(predicate::str::contains("status: done"))
        .stderr(predicate::str::contains(
            "output: 11 bytes, on standard output",
        ))
        .stderr(predicate::str::contains("hi there").not());
    // --report: the output inside the report, on stdout.
    tamarin()
        .arg("run")
        .arg(&prog)
        .args(["--stdin", s(&input), "--report"])
        .assert()
        .success()
        .stderr("")
        .stdout(predicate::str::contains(
            "output (11 bytes):\nhi there\n\u{fffd}!\n",
        ));

    // `-` is the tool's own standard input.
    let out = tamarin()
        .arg("run")
        .arg(&prog)
        .args(["--stdin", "-", "--format", "json"])
        .write_stdin("abc")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["output"], "abc");

    // No input at all: the program reads end of input at once.
    let v = run_json(&[s(&prog)]);
    assert_eq!(v["output"], "");
}

#[test]
fn run_reports_a_division_by_zero() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "div.asm", DIV_BY_ZERO);
    let v = run_json(&[s(&prog), "--r1", "7"]);
    assert_eq!(v["status"], "error");
    assert_eq!(v["error_kind"], "division-by-zero");
    assert_eq!(v["pc"], 4);
    assert_eq!(v["steps"], 2);
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()));
    assert_eq!(v["registers"]["$3"], 7);

    tamarin()
        .arg("run")
        .arg(&prog)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "status: error (division-by-zero) after 2 steps: division by zero at pc 0x00000004\n",
        ))
        .stderr(predicate::str::contains("hint:").not());
}

#[test]
fn run_out_of_fuel_and_termination_address() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "spin.asm", "loop: beq $0, $0, loop\n");
    let v = run_json(&[s(&prog), "--fuel", "10"]);
    assert_eq!(v["status"], "out-of-fuel");
    assert_eq!(v["steps"], 10);

    // A jump to the default termination address ends the run only by default.
    let fixed = write(&dir, "fixed.asm", "lis $4\n.word 0x8123456C\njr $4\n");
    let v = run_json(&[s(&fixed)]);
    assert_eq!(v["status"], "done");
    let v = run_json(&[s(&fixed), "--termination", "0xFEE1DEAD"]);
    assert_eq!(v["status"], "error");
    assert_eq!(v["error_kind"], "bad-pc");
    assert_eq!(v["pc"], 8);
    assert_eq!(v["registers"]["$31"], 0xFEE1_DEADu32 as i32);
}

#[test]
fn run_an_empty_program_is_an_invalid_instruction_at_pc_0() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "empty.asm", "");
    let v = run_json(&[s(&prog)]);
    assert_eq!(v["status"], "error");
    assert_eq!(v["error_kind"], "invalid-instruction");
    assert_eq!(v["pc"], 0);
    tamarin()
        .arg("asm")
        .arg(&prog)
        .assert()
        .success()
        .stdout("");
}

// ---------------------------------------------------------------- asm, disasm

const FIG1_BYTES: [u8; 8] = [0x00, 0x22, 0x18, 0x20, 0x03, 0xe0, 0x00, 0x08];

#[test]
fn asm_writes_big_endian_words_to_stdout() {
    tamarin()
        .arg("asm")
        .arg(example("fig1-left.asm"))
        .assert()
        .success()
        .stdout(FIG1_BYTES.to_vec());
}

#[test]
fn asm_writes_to_a_file_with_o() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("fig1.mips");
    tamarin()
        .arg("asm")
        .arg(example("fig1-left.asm"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout("");
    assert_eq!(std::fs::read(&out).unwrap(), FIG1_BYTES);

    // The binary runs like the source.
    let v = run_json(&[s(&out), "--r1", "3", "--r2", "4"]);
    assert_eq!(v["registers"]["$3"], 7);
}

#[test]
fn disasm_then_asm_gives_identical_bytes() {
    let dir = TempDir::new().unwrap();
    let with_data = write(
        &dir,
        "data.asm",
        "lis $4\n.word 0xffffffff\n.word 0\n.word 0x00220818\nbne $1, $2, -3\njalr $4\n",
    );
    let sources = [
        example("fig1-left.asm"),
        example("fig2-right.asm"),
        example("fig5-left.asm"),
        example("fig8-left.asm"),
        with_data,
    ];
    for (k, src) in sources.iter().enumerate() {
        let bin = dir.path().join(format!("p{k}.mips"));
        tamarin()
            .arg("asm")
            .arg(src)
            .arg("-o")
            .arg(&bin)
            .assert()
            .success();
        let original = std::fs::read(&bin).unwrap();
        let out = tamarin().arg("disasm").arg(&bin).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = write(&dir, &format!("p{k}.asm"), &out.stdout);
        let again = tamarin().arg("asm").arg(&text).output().unwrap();
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert_eq!(again.stdout, original, "round trip of {}", src.display());
    }
}

#[test]
fn disasm_reads_assembly_too() {
    tamarin()
        .arg("disasm")
        .arg(example("fig1-left.asm"))
        .assert()
        .success()
        .stdout(predicate::str::contains("add $3, $1, $2"))
        .stdout(predicate::str::contains("jr $31"));
}

#[test]
fn disasm_into_a_closed_pipe_is_not_an_error() {
    let dir = TempDir::new().unwrap();
    let word: u32 = 0x0022_1820; // add $3, $1, $2
    let bytes = word.to_be_bytes().repeat(200_000);
    let big = write(&dir, "big.mips", bytes);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tamarin"))
        .arg("disasm")
        .arg(&big)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    {
        let stdout = child.stdout.take().unwrap();
        BufReader::new(stdout).read_line(&mut first).unwrap();
        // Dropping the reader closes the pipe, as `| head -1` does.
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!first.is_empty());
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn input_format_overrides_the_extension() {
    let dir = TempDir::new().unwrap();
    let text = write(&dir, "prog.txt", "add $3, $1, $2\njr $31\n");
    tamarin()
        .arg("asm")
        .arg(&text)
        .args(["--input-format", "asm"])
        .assert()
        .success()
        .stdout(FIG1_BYTES.to_vec());
    let bin = write(&dir, "prog.dat", FIG1_BYTES);
    let v = run_json(&[s(&bin), "--input-format", "bin", "--r1", "1", "--r2", "2"]);
    assert_eq!(v["registers"]["$3"], 3);
}

// ---------------------------------------------------------------- bad input

#[test]
fn missing_file() {
    let dir = TempDir::new().unwrap();
    for name in ["nope.asm", "nope.mips", "nope"] {
        let path = dir.path().join(name);
        for cmd in ["run", "asm", "disasm"] {
            fails_with(tamarin().arg(cmd).arg(&path), &[name, "cannot read"]);
        }
    }
}

#[test]
fn directory() {
    let dir = TempDir::new().unwrap();
    let sub = dir.path().join("progs.asm");
    std::fs::create_dir(&sub).unwrap();
    fails_with(tamarin().arg("run").arg(&sub), &["progs.asm", "directory"]);
    fails_with(tamarin().arg("disasm").arg(dir.path()), &["directory"]);
}

#[test]
fn binary_garbage_as_assembly() {
    let dir = TempDir::new().unwrap();
    let junk = write(&dir, "junk.asm", [0xff, 0xfe, 0x00, 0x80, 0x12]);
    fails_with(tamarin().arg("run").arg(&junk), &["junk.asm", "UTF-8"]);
}

#[test]
fn ragged_binary() {
    let dir = TempDir::new().unwrap();
    let text = write(&dir, "text.mips", "hello");
    fails_with(tamarin().arg("run").arg(&text), &["text.mips", "4-byte"]);
    fails_with(tamarin().arg("disasm").arg(&text), &["text.mips"]);
}

#[test]
fn unknown_extension() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "prog.txt", "jr $31\n");
    fails_with(
        tamarin().arg("run").arg(&prog),
        &["prog.txt", "--input-format"],
    );
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "bad.asm", "add $3, $1, $2\nfrob $3, $1\njr $31\n");
    for cmd in ["run", "asm", "disasm"] {
        let stderr = fails_with(tamarin().arg(cmd).arg(&prog), &["bad.asm", "frob $3, $1"]);
        assert!(
            predicate::str::is_match(r"bad\.asm:2:\d+")
                .unwrap()
                .eval(&stderr),
            "{stderr}"
        );
    }
}

#[test]
fn every_syntax_error_is_reported() {
    let dir = TempDir::new().unwrap();
    let prog = write(
        &dir,
        "many.asm",
        "add $3, $1\njr $31\nlw $1, 99999($2)\nbeq $1, $2, nowhere\nadd $40, $1, $2\n",
    );
    let stderr = fails_with(tamarin().arg("run").arg(&prog), &["many.asm"]);
    for line in [1, 3, 4, 5] {
        assert!(
            predicate::str::is_match(format!(r"many\.asm:{line}:\d+"))
                .unwrap()
                .eval(&stderr),
            "line {line} not reported:\n{stderr}"
        );
    }
}

#[test]
fn bad_numbers() {
    let fig1 = example("fig1-left.asm");
    fails_with(
        tamarin().arg("run").arg(&fig1).args(["--r1", "abc"]),
        &["abc", "--r1"],
    );
    fails_with(
        tamarin().arg("run").arg(&fig1).args(["--r2", "4294967296"]),
        &["4294967296", "32 bits"],
    );
    fails_with(
        tamarin().arg("run").arg(&fig1).args(["--array", "1,x,3"]),
        &["element 2", "`x`"],
    );
    fails_with(
        tamarin().arg("run").arg(&fig1).args(["--array", "1,,3"]),
        &["element 2"],
    );
    fails_with(
        tamarin().arg("run").arg(&fig1).args(["--fuel", "lots"]),
        &["--fuel", "lots"],
    );
    fails_with(
        tamarin()
            .arg("run")
            .arg(&fig1)
            .args(["--array", "1", "--r1", "2"]),
        &["--array", "--r1"],
    );
}

#[test]
fn bad_stdin_and_output_files() {
    let dir = TempDir::new().unwrap();
    let fig1 = example("fig1-left.asm");
    let missing = dir.path().join("missing-input");
    fails_with(
        tamarin().arg("run").arg(&fig1).arg("--stdin").arg(&missing),
        &["missing-input"],
    );
    let unwritable = dir.path().join("no-such-dir").join("out.mips");
    fails_with(
        tamarin().arg("asm").arg(&fig1).arg("-o").arg(&unwritable),
        &["out.mips", "cannot write"],
    );
}

#[test]
fn usage_errors_exit_2() {
    tamarin().assert().code(2);
    tamarin().arg("frobnicate").assert().code(2);
    tamarin().arg("run").assert().code(2);
    tamarin().arg("--help").assert().success();
    tamarin().arg("--version").assert().success();
}
