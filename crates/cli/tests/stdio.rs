//! How `tamarin` meets standard input and output the way CS241's tools do: `run` reads
//! its inputs from stdin (`--twoints`, `--array-stdin`, prompts on a terminal), writes
//! the program's output bytes to stdout and the report to stderr; `-` is standard input
//! for every program argument; `asm` does not write binary to a terminal; a run that
//! falls off the end of its program says so.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

fn tamarin() -> Command {
    Command::cargo_bin("tamarin").expect("the tamarin binary is built")
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("tamarin")
}

fn write(dir: &TempDir, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).expect("write test file");
    path
}

fn stdout_json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// $3 = max($1, $2), signed.
const MAX: &str = "\
slt $4, $1, $2
beq $4, $0, 2
add $3, $2, $0
jr $31
add $3, $1, $0
jr $31
";

/// $3 = the sum of the array at $1 of $2 words.
const SUM: &str = "\
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

/// Writes `Hi` and stores $1 and $2 at 0x100 and 0x104; no final `jr $31`.
const NO_RETURN: &str = "\
lis $4
.word 0xffff000c
lis $5
.word 72
sw $5, 0($4)
lis $5
.word 105
sw $5, 0($4)
lis $6
.word 0x100
sw $1, 0($6)
sw $2, 4($6)
";

// ---------------------------------------------------------------- inputs on stdin

#[test]
fn twoints_reads_two_piped_numbers_without_prompts() {
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    tamarin()
        .arg("run")
        .arg(&max)
        .arg("--twoints")
        .write_stdin("3\n4\n")
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("$3 = 4 (0x00000004)"))
        .stderr(predicate::str::contains("$1 = 3 (0x00000003)"))
        .stderr(predicate::str::contains("Enter").not());
    // The number syntax of --r1, on one line or several.
    let out = tamarin()
        .arg("run")
        .arg(&max)
        .args(["--twoints", "--format", "json"])
        .write_stdin("  -5\t0x10 ")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = stdout_json(&out);
    assert_eq!(v["registers"]["$1"], -5);
    assert_eq!(v["registers"]["$3"], 16);
}

#[test]
fn bad_piped_inputs_are_errors() {
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    for (input, needle) in [
        ("3", "ends before the value of $2"),
        ("", "ends before the value of $1"),
        ("3 x", "`x` is not a number"),
        ("3 4 5", "`5` follows the inputs"),
        ("3 4294967296", "does not fit in 32 bits"),
    ] {
        let out = tamarin()
            .arg("run")
            .arg(&max)
            .arg("--twoints")
            .write_stdin(input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{input:?}: {stderr}");
        assert!(stderr.contains(needle), "{input:?}: {stderr}");
        assert!(stderr.contains("standard input"), "{input:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{input:?}");
    }
    // As JSON: one error object of kind `input`.
    let out = tamarin()
        .arg("run")
        .arg(&max)
        .args(["--twoints", "--format", "json"])
        .write_stdin("1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout_json(&out)["error"]["kind"], "input");
}

#[test]
fn piped_stdin_is_not_read_without_a_flag() {
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    let out = tamarin()
        .arg("run")
        .arg(&max)
        .args(["--format", "json"])
        .write_stdin("3 4\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = stdout_json(&out);
    assert_eq!(v["registers"]["$1"], 0);
    assert_eq!(v["registers"]["$3"], 0);
}

#[test]
fn array_stdin_reads_a_length_and_the_elements() {
    let dir = TempDir::new().unwrap();
    let sum = write(&dir, "sum.asm", SUM);
    tamarin()
        .arg("run")
        .arg(&sum)
        .arg("--array-stdin")
        .write_stdin("3\n1 2 0x10\n")
        .assert()
        .success()
        .stderr(predicate::str::contains("$3 = 19 (0x00000013)"))
        .stderr(predicate::str::contains("Enter").not());
    // With --array-base: $1 is that address.
    let out = tamarin()
        .arg("run")
        .arg(&sum)
        .args(["--array-stdin", "--array-base", "0x400", "--format", "json"])
        .write_stdin("2 -1 -2")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = stdout_json(&out);
    assert_eq!(v["registers"]["$3"], -3);
    assert_eq!(v["registers"]["$1"], 0x400 + 8);
    // The empty array.
    let out = tamarin()
        .arg("run")
        .arg(&sum)
        .args(["--array-stdin", "--format", "json"])
        .write_stdin("0")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(stdout_json(&out)["registers"]["$2"], 0);
    for (input, needle) in [
        ("3 1 2", "ends before array element 2"),
        ("-1", "must lie between 0 and"),
        ("1 5 6", "`6` follows the inputs"),
    ] {
        let out = tamarin()
            .arg("run")
            .arg(&sum)
            .arg("--array-stdin")
            .write_stdin(input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{input:?}: {stderr}");
        assert!(stderr.contains(needle), "{input:?}: {stderr}");
    }
}

#[test]
fn input_flags_that_do_not_fit_together_are_refused() {
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    for args in [
        vec!["--twoints", "--r1", "3"],
        vec!["--twoints", "--array", "1,2"],
        vec!["--twoints", "--array-stdin"],
        vec!["--array-stdin", "--array", "1"],
        vec!["--array-stdin", "--r2", "1"],
        vec!["--array-base", "0x100"],
        vec!["--report", "--format", "json"],
    ] {
        let out = tamarin().arg("run").arg(&max).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

// ---------------------------------------------------------------- output and report

#[test]
fn output_bytes_go_to_stdout_and_the_report_to_stderr() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "hi.asm", NO_RETURN);
    tamarin()
        .arg("run")
        .arg(&prog)
        .assert()
        .success()
        .stdout("Hi")
        .stderr(predicate::str::contains("status: error"))
        .stderr(predicate::str::contains(
            "output: 2 bytes, on standard output",
        ));
    tamarin()
        .arg("run")
        .arg(&prog)
        .arg("--report")
        .assert()
        .success()
        .stderr("")
        .stdout(predicate::str::contains("status: error"))
        .stdout(predicate::str::contains("output (2 bytes):\nHi\n"));
    let out = tamarin()
        .arg("run")
        .arg(&prog)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stderr.is_empty());
    assert_eq!(stdout_json(&out)["output"], "Hi");
}

#[test]
fn falling_off_the_end_is_explained() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "hi.asm", NO_RETURN);
    let hint = "ran past the end of the program at pc 0x00000030 (is a final jr $31 missing?)";
    tamarin()
        .arg("run")
        .arg(&prog)
        .assert()
        .success()
        .stderr(predicate::str::contains(format!("hint: {hint}")));
    let out = tamarin()
        .arg("run")
        .arg(&prog)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v = stdout_json(&out);
    assert_eq!(v["error_kind"], "invalid-instruction");
    assert_eq!(v["pc"], 0x30);
    assert_eq!(v["hint"], hint);
    // Other errors, and an invalid word inside the program, get no hint.
    let inside = write(&dir, "inside.asm", ".word 0\njr $31\n");
    let out = tamarin()
        .arg("run")
        .arg(&inside)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v = stdout_json(&out);
    assert_eq!(v["error_kind"], "invalid-instruction");
    assert!(v.get("hint").is_none(), "{v}");
}

#[test]
fn show_mem_reports_words_in_text_and_json() {
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "hi.asm", NO_RETURN);
    tamarin()
        .arg("run")
        .arg(&prog)
        .args(["--r1", "-3", "--r2", "0x10", "--show-mem", "0x100..0x108"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "memory 0x00000100..0x00000108:\n  0x00000100 = -3 (0xfffffffd)\n  \
             0x00000104 = 16 (0x00000010)\n  0x00000108 = 0 (0x00000000)\n",
        ));
    let out = tamarin()
        .arg("run")
        .arg(&prog)
        .args(["--r1", "-3", "--r2", "0x10", "--show-mem", "256..264"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v = stdout_json(&out);
    assert_eq!(
        v["memory"],
        serde_json::json!({"from": 256, "to": 264, "words": [-3, 16, 0]})
    );
    for bad in [
        "0x101..0x108",
        "8..4",
        "0..0x40000",
        "0x100",
        "0..0x1000000",
    ] {
        let out = tamarin()
            .arg("run")
            .arg(&prog)
            .args(["--show-mem", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}

// ---------------------------------------------------------------- `-`

#[test]
fn a_program_can_come_from_stdin() {
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    tamarin()
        .args(["run", "-", "--r1", "7", "--r2", "-3"])
        .write_stdin(MAX)
        .assert()
        .success()
        .stderr(predicate::str::contains("$3 = 7 (0x00000007)"));

    let image = tamarin().arg("asm").arg(&max).output().unwrap();
    assert!(image.status.success());
    assert_eq!(image.stdout.len(), 24);
    tamarin()
        .args(["asm", "-"])
        .write_stdin(MAX)
        .assert()
        .success()
        .stdout(predicate::eq(image.stdout.clone()));

    let listing = tamarin().arg("disasm").arg(&max).output().unwrap();
    assert!(listing.status.success());
    tamarin()
        .args(["disasm", "-", "--input-format", "bin"])
        .write_stdin(image.stdout.clone())
        .assert()
        .success()
        .stdout(predicate::eq(listing.stdout.clone()));
    tamarin()
        .args(["disasm", "-"])
        .write_stdin(MAX)
        .assert()
        .success()
        .stdout(predicate::eq(listing.stdout));

    let swapped = write(
        &dir,
        "max2.asm",
        "slt $4, $2, $1\nbeq $4, $0, 2\nadd $3, $1, $0\njr $31\nadd $3, $2, $0\njr $31\n",
    );
    tamarin()
        .args(["compare", "-"])
        .arg(&swapped)
        .write_stdin(MAX)
        .assert()
        .code(0);
    let out = tamarin()
        .args(["compare", "-"])
        .arg(&swapped)
        .args(["--format", "json"])
        .write_stdin("add $3, $1, $0\njr $31\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));

    tamarin()
        .args(["check", "-"])
        .write_stdin("div $1, $2\njr $31\n")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("<stdin>:1"));
    tamarin()
        .args(["paths", "-"])
        .write_stdin(MAX)
        .assert()
        .success();
}

#[test]
fn errors_in_a_program_from_stdin_name_it_stdin() {
    tamarin()
        .args(["run", "-"])
        .write_stdin("add $3, $1\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<stdin>:1:"))
        .stderr(predicate::str::contains("could not assemble `<stdin>`"));
    tamarin()
        .args(["disasm", "-", "--input-format", "bin"])
        .write_stdin("abc")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<stdin>"));
}

#[test]
fn standard_input_is_read_only_once() {
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    for args in [
        vec!["compare", "-", "-"],
        vec!["run", "-", "--stdin", "-"],
        vec!["run", "-", "--twoints"],
        vec!["run", "-", "--array-stdin"],
    ] {
        tamarin()
            .args(&args)
            .write_stdin(MAX)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "standard input can be read only once",
            ));
    }
    tamarin()
        .arg("run")
        .arg(&max)
        .args(["--twoints", "--stdin", "-"])
        .write_stdin("1 2")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--stdin - and --twoints"));
}

// ---------------------------------------------------------------- terminals

/// Whether `script` (util-linux) is here to give a command a pseudo-terminal.
fn have(tool: &str) -> bool {
    StdCommand::new(tool)
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A shell word for `path`.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

#[test]
fn asm_refuses_to_write_binary_to_a_terminal() {
    if !have("script") {
        eprintln!("skipped: no `script` (util-linux) to run tamarin on a terminal");
        return;
    }
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    let on_terminal = |args: &str| {
        let line = format!("{} asm {} {args}", quoted(&bin()), quoted(&max));
        StdCommand::new("script")
            .args(["-qec", &line, "/dev/null"])
            .output()
            .expect("run script")
    };
    let out = on_terminal("");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("-o FILE"), "{text}");
    assert!(text.contains("terminal"), "{text}");
    // `-o -` writes it anyway; `-o FILE` is fine.
    let out = on_terminal("-o -");
    assert_eq!(out.status.code(), Some(0));
    let out = on_terminal(&format!("-o {}", quoted(&dir.path().join("max.mips"))));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read(dir.path().join("max.mips")).unwrap().len(),
        24
    );
    // Not a terminal: stdout is fine, and `-o -` too (no file named `-`).
    tamarin().arg("asm").arg(&max).assert().success();
    tamarin()
        .current_dir(dir.path())
        .arg("asm")
        .arg(&max)
        .args(["-o", "-"])
        .assert()
        .success()
        .stdout(predicate::function(|b: &[u8]| b.len() == 24));
    assert!(!dir.path().join("-").exists());
}

/// A tmux server of this test's own, killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        StdCommand::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "run"]).stdout).into_owned()
    }

    /// Waits until the screen shows `text`; the screen.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the screen never showed {text:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn send(&self, keys: &str) {
        let out = self.cmd(&["send-keys", "-t", "run", "-l", "--", keys]);
        assert!(out.status.success(), "{out:?}");
        let out = self.cmd(&["send-keys", "-t", "run", "Enter"]);
        assert!(out.status.success(), "{out:?}");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

#[test]
fn run_prompts_for_its_inputs_on_a_terminal() {
    if !have("tmux") {
        eprintln!("skipped: no tmux to run tamarin on a terminal");
        return;
    }
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    let tmux = Tmux {
        socket: format!("tamarin-test-{}", std::process::id()),
    };
    let line = format!(
        "{} run {}; echo exit=$?; sleep 60",
        quoted(&bin()),
        quoted(&max)
    );
    let out = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "run",
        "-x",
        "120",
        "-y",
        "40",
        &line,
    ]);
    assert!(out.status.success(), "{out:?}");
    tmux.wait_for("Enter value for register 1:");
    // A bad number is asked for again, with the reason.
    tmux.send("x");
    tmux.wait_for("`x` is not a number");
    tmux.send("7");
    tmux.wait_for("Enter value for register 2:");
    tmux.send("-3");
    let screen = tmux.wait_for("exit=");
    assert!(screen.contains("$3 = 7 (0x00000007)"), "{screen}");
    assert!(screen.contains("$2 = -3 (0xfffffffd)"), "{screen}");
    assert!(screen.contains("exit=0"), "{screen}");
}

#[test]
fn run_prompts_for_an_array_on_a_terminal() {
    if !have("tmux") {
        eprintln!("skipped: no tmux to run tamarin on a terminal");
        return;
    }
    let dir = TempDir::new().unwrap();
    let sum = write(&dir, "sum.asm", SUM);
    let tmux = Tmux {
        socket: format!("tamarin-test-array-{}", std::process::id()),
    };
    let line = format!(
        "{} run {} --array-stdin; echo exit=$?; sleep 60",
        quoted(&bin()),
        quoted(&sum)
    );
    let out = tmux.cmd(&["new-session", "-d", "-s", "run", &line]);
    assert!(out.status.success(), "{out:?}");
    tmux.wait_for("Enter length of array:");
    tmux.send("2");
    tmux.wait_for("Enter array element 0:");
    tmux.send("0x10");
    tmux.wait_for("Enter array element 1:");
    tmux.send("-1");
    let screen = tmux.wait_for("exit=");
    assert!(screen.contains("$3 = 15 (0x0000000f)"), "{screen}");
    assert!(screen.contains("exit=0"), "{screen}");
}

#[test]
fn run_does_not_prompt_when_inputs_are_given() {
    if !have("tmux") {
        eprintln!("skipped: no tmux to run tamarin on a terminal");
        return;
    }
    let dir = TempDir::new().unwrap();
    let max = write(&dir, "max.asm", MAX);
    let tmux = Tmux {
        socket: format!("tamarin-test-given-{}", std::process::id()),
    };
    let line = format!(
        "{} run {} --r1 5; {} run {} --reg '$7=1'; echo exit=$?; sleep 60",
        quoted(&bin()),
        quoted(&max),
        quoted(&bin()),
        quoted(&max)
    );
    let out = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "run",
        "-x",
        "100",
        "-y",
        "50",
        &line,
    ]);
    assert!(out.status.success(), "{out:?}");
    let screen = tmux.wait_for("exit=");
    assert!(!screen.contains("Enter"), "{screen}");
    assert!(screen.contains("$3 = 5 (0x00000005)"), "{screen}");
    assert!(screen.contains("$7 = 1 (0x00000001)"), "{screen}");
}
