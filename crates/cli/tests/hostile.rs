//! Hostile input at the command line: empty files, binary garbage, text where a binary
//! is expected, 4 MB files, 100,000 labels, 1 MB lines, bytes that are not UTF-8,
//! numbers out of range, missing, unreadable and special files, bad numbers and unknown
//! flags on the command line, and an unusable `--dump-smt` directory.
//!
//! Every subcommand that reads a program gets the hostile file (`compare` once as LEFT
//! and once as RIGHT). Each case checks the exact exit status, a non-empty stderr that
//! never holds a panic, an empty stdout on errors, a message that names the file (with
//! `file:line:col` for assembly errors), and a bounded wall time: every command runs
//! under a timeout, so a hang fails the test instead of stalling it. The big files are
//! made in temporary directories at test time.
//!
//! Timeouts are about ten times the time each command takes in a debug build on a
//! loaded machine.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

/// The limit for a command on small input.
const QUICK: Duration = Duration::from_secs(20);
/// The limit for a command on a huge input.
const BIG: Duration = Duration::from_secs(60);

fn tamarin() -> Command {
    let mut cmd = Command::cargo_bin("tamarin").expect("the tamarin binary is built");
    cmd.timeout(QUICK);
    cmd
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name)
}

/// A program that loads and ends: `$3 = $1 + $2`.
fn good() -> PathBuf {
    example("fig1-left.asm")
}

fn write(dir: &TempDir, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).expect("write test file");
    path
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// The good program as a binary image, for commands given `--input-format bin`.
fn good_bin(dir: &TempDir) -> PathBuf {
    write(
        dir,
        "good.mips",
        [0x00, 0x22, 0x18, 0x20, 0x03, 0xe0, 0x00, 0x08],
    )
}

/// Every command that reads `prog`: asm, disasm, run, and compare with `prog` as LEFT
/// and as RIGHT (the other side a good program). Each with a label for messages.
fn every_reader(prog: &Path, extra: &[&str]) -> Vec<(String, Command)> {
    every_reader_vs(prog, &good(), extra)
}

/// [`every_reader`], with `other` on the other side of compare.
fn every_reader_vs(prog: &Path, other: &Path, extra: &[&str]) -> Vec<(String, Command)> {
    let mut out = Vec::new();
    for sub in ["asm", "disasm", "run"] {
        let mut cmd = tamarin();
        cmd.arg(sub).arg(prog).args(extra);
        out.push((sub.to_string(), cmd));
    }
    let mut left = tamarin();
    left.arg("compare").arg(prog).arg(other).args(extra);
    out.push(("compare (LEFT)".to_string(), left));
    let mut right = tamarin();
    right.arg("compare").arg(other).arg(prog).args(extra);
    out.push(("compare (RIGHT)".to_string(), right));
    out
}

/// Runs `cmd`, failing the test if it did not end within its timeout.
fn output(what: &str, cmd: &mut Command) -> Output {
    let start = Instant::now();
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: did not end in time or could not run: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{what}: panicked:\n{stderr}"
    );
    // A signal (a crash or the timeout) leaves no exit status.
    assert!(
        out.status.code().is_some(),
        "{what}: killed ({:?}) after {:?}\n{stderr}",
        out.status,
        start.elapsed()
    );
    out
}

/// Expects exit status 2, nothing on stdout, and a message containing every needle.
fn fails(what: &str, cmd: &mut Command, needles: &[&str]) -> String {
    let out = output(what, cmd);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{what}: stderr:\n{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{what}: stdout not empty on an error: {:?}",
        String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(500)])
    );
    assert!(!stderr.trim().is_empty(), "{what}: no message");
    for n in needles {
        assert!(stderr.contains(n), "{what}: stderr lacks {n:?}:\n{stderr}");
    }
    stderr
}

/// Expects `code` (0 or 1) and something on stdout; returns stdout.
fn succeeds(what: &str, cmd: &mut Command, code: i32) -> Vec<u8> {
    let out = output(what, cmd);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Expects `file:line:col` in `stderr` (any line or column where `None`).
fn assert_located(what: &str, stderr: &str, file: &str, line: Option<usize>, col: Option<usize>) {
    let any = || r"\d+".to_string();
    let line = line.map_or_else(any, |l| l.to_string());
    let col = col.map_or_else(any, |c| c.to_string());
    let re = format!(r"{}:{line}:{col}\b", regex_escape(file));
    assert!(
        predicate::str::is_match(&re).unwrap().eval(stderr),
        "{what}: stderr lacks {re}:\n{stderr}"
    );
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

/// Every reader of `prog` fails with exit 2, naming the file at `line:col`.
fn every_reader_fails_at(prog: &Path, line: Option<usize>, col: Option<usize>, needles: &[&str]) {
    let name = file_name(prog);
    for (what, mut cmd) in every_reader(prog, &[]) {
        let what = format!("{what} {name}");
        let stderr = fails(&what, &mut cmd, needles);
        assert_located(&what, &stderr, &name, line, col);
    }
}

/// Every reader of `prog` fails with exit 2, naming the file.
fn every_reader_fails(prog: &Path, extra: &[&str], needles: &[&str]) {
    let name = file_name(prog);
    for (what, mut cmd) in every_reader(prog, extra) {
        let what = format!("{what} {name}");
        let mut all = vec![name.as_str()];
        all.extend_from_slice(needles);
        fails(&what, &mut cmd, &all);
    }
}

/// The number of words in a `disasm` listing: the lines with an address comment (the
/// others are labels).
fn listed_words(listing: &[u8]) -> usize {
    listing
        .split(|&b| b == b'\n')
        .filter(|line| line.windows(4).any(|w| w == b"; 0x"))
        .count()
}

fn json(what: &str, stdout: &[u8]) -> Value {
    serde_json::from_slice(stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: not one JSON object ({e}): {}",
            String::from_utf8_lossy(stdout)
        )
    })
}

/// Bytes from a fixed-seed xorshift generator (reproducible garbage).
fn garbage(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

// ---------------------------------------------------------------- empty files

#[test]
fn empty_files_are_empty_programs() {
    let dir = TempDir::new().unwrap();
    let asm = write(&dir, "empty.asm", "");
    let bin = write(&dir, "empty.mips", "");
    for prog in [&asm, &bin] {
        let name = file_name(prog);
        let out = succeeds(&format!("asm {name}"), tamarin().arg("asm").arg(prog), 0);
        assert!(out.is_empty(), "asm {name}: {out:?}");
        let out = succeeds(
            &format!("disasm {name}"),
            tamarin().arg("disasm").arg(prog),
            0,
        );
        assert!(out.is_empty(), "disasm {name}: {out:?}");

        // Running nothing is an invalid instruction at pc 0: a result, not a failure.
        let what = format!("run {name}");
        let v = json(
            &what,
            &succeeds(
                &what,
                tamarin().arg("run").arg(prog).args(["--format", "json"]),
                0,
            ),
        );
        assert_eq!(v["status"], "error", "{what}: {v}");
        assert_eq!(v["error_kind"], "invalid-instruction", "{what}: {v}");
        assert_eq!(v["pc"], 0, "{what}: {v}");

        // Against itself and against the other empty program: both runs fail, so the
        // programs are the same.
        for other in [&asm, &bin] {
            let what = format!("compare {name} {}", file_name(other));
            let v = json(
                &what,
                &succeeds(
                    &what,
                    tamarin()
                        .arg("compare")
                        .arg(prog)
                        .arg(other)
                        .args(["--format", "json"]),
                    0,
                ),
            );
            assert_ne!(v["verdict"], "disequivalent", "{what}: {v}");
        }

        // Against a program that ends: one run fails, so they differ, on either side.
        succeeds(
            &format!("compare {name} good"),
            tamarin().arg("compare").arg(prog).arg(good()),
            1,
        );
        succeeds(
            &format!("compare good {name}"),
            tamarin().arg("compare").arg(good()).arg(prog),
            1,
        );
    }
}

// ---------------------------------------------------------------- not text, not binary

#[test]
fn binary_garbage_as_assembly() {
    let dir = TempDir::new().unwrap();
    // Two good lines, then random bytes: the error is on line 3.
    let mut bytes = b"add $3, $1, $2\n; fine so far\n".to_vec();
    let mut junk = garbage(64 * 1024, 0x5eed);
    junk[0] = 0x80; // a continuation byte cannot start a character
    junk[1000] = 0;
    bytes.extend_from_slice(&junk);
    let prog = write(&dir, "junk.asm", &bytes);
    every_reader_fails_at(&prog, Some(3), Some(1), &["UTF-8", "--input-format bin"]);

    // NUL bytes in otherwise valid UTF-8: still not text.
    let prog = write(&dir, "nul.asm", b"add $3, $1, $2\njr $31 ; \0\0\0\n");
    every_reader_fails_at(&prog, Some(2), Some(10), &["NUL"]);

    // A binary image given the .asm extension, or forced to be read as assembly.
    let mips = good_bin(&dir);
    for (what, mut cmd) in every_reader(&mips, &["--input-format", "asm"]) {
        let stderr = fails(&what, &mut cmd, &["good.mips", "not a text file"]);
        assert_located(&what, &stderr, "good.mips", Some(1), Some(1));
    }
}

#[test]
fn non_utf8_bytes_inside_comments() {
    let dir = TempDir::new().unwrap();
    // A Latin-1 `é` (0xe9) in a `;` comment, and 0xff in a `#` comment.
    let prog = write(
        &dir,
        "latin1.asm",
        b"add $3, $1, $2 ; caf\xe9\njr $31\n".as_slice(),
    );
    every_reader_fails_at(&prog, Some(1), Some(21), &["0xe9", "UTF-8"]);
    let prog = write(
        &dir,
        "hash.asm",
        b"add $3, $1, $2\n\xc3\xa9t\xc3\xa9: # \xff\xfe\njr $31\n".as_slice(),
    );
    // The column counts characters: `été: # ` is 7 of them.
    every_reader_fails_at(&prog, Some(2), Some(8), &["0xff", "UTF-8"]);
}

#[test]
fn text_as_a_binary_image() {
    let dir = TempDir::new().unwrap();
    // Not a whole number of words.
    for (name, text) in [("five.mips", "hello"), ("asm.bin", "add $3, $1, $2\n")] {
        let prog = write(&dir, name, text);
        every_reader_fails(&prog, &[], &["4-byte", &text.len().to_string()]);
    }
    // Assembly forced to be read as binary.
    let prog = write(&dir, "forced.asm", "jr $31\n");
    for (what, mut cmd) in every_reader_vs(&prog, &good_bin(&dir), &["--input-format", "bin"]) {
        fails(&what, &mut cmd, &["forced.asm", "4-byte"]);
    }

    // A multiple of 4: the text loads as words.
    let text = "hello world!";
    let prog = write(&dir, "twelve.mips", text);
    let out = succeeds("asm", tamarin().arg("asm").arg(&prog), 0);
    assert_eq!(out, text.as_bytes());
    let out = succeeds("disasm", tamarin().arg("disasm").arg(&prog), 0);
    let listing = String::from_utf8(out).unwrap();
    assert_eq!(listing.lines().count(), 3, "{listing}");
    assert!(listing.contains("0x68656c6c"), "{listing}"); // "hell"
    let v = json(
        "run",
        &succeeds(
            "run",
            tamarin().arg("run").arg(&prog).args(["--format", "json"]),
            0,
        ),
    );
    assert_eq!(v["status"], "error", "{v}");
    assert_eq!(v["error_kind"], "invalid-instruction", "{v}");
    // It fails where the good program ends: a difference, on either side.
    succeeds(
        "compare LEFT",
        tamarin().arg("compare").arg(&prog).arg(good()),
        1,
    );
    succeeds(
        "compare RIGHT",
        tamarin().arg("compare").arg(good()).arg(&prog),
        1,
    );
}

// ---------------------------------------------------------------- huge files

/// How big the huge files are: large enough that anything quadratic or a whole copy
/// per line shows (a debug build reads them in seconds), small enough for the default
/// suite's time budget.
const HUGE: usize = 4 << 20;

/// About 4 MB of valid assembly: blocks of labels, arithmetic, memory accesses,
/// branches and data, with comments. Returns the text and the number of `add`s run.
fn megabytes_of_assembly() -> (String, u32) {
    let mut text = String::with_capacity(HUGE + HUGE / 16);
    let mut adds = 0;
    let mut i = 0u32;
    while text.len() < HUGE {
        text.push_str(&format!(
            "block{i}: add $3, $3, $1 ; block {i} of many\n\
             bne $3, $3, block{i}\n\
             lw $4, -4($30)\n\
             sw $4, -8($30)\n\
             beq $0, $0, 1 # skip the data\n\
             .word {i}\n"
        ));
        adds += 1;
        i += 1;
    }
    text.push_str("jr $31\n");
    (text, adds)
}

#[test]
fn megabytes_of_valid_assembly() {
    let dir = TempDir::new().unwrap();
    let (text, adds) = megabytes_of_assembly();
    let words = adds as usize * 6 + 1;
    let prog = write(&dir, "big.asm", &text);

    let out = succeeds("asm", tamarin().arg("asm").arg(&prog).timeout(BIG), 0);
    assert_eq!(out.len(), words * 4);
    let out = succeeds("disasm", tamarin().arg("disasm").arg(&prog).timeout(BIG), 0);
    assert_eq!(listed_words(&out), words);
    let v = json(
        "run",
        &succeeds(
            "run",
            tamarin()
                .arg("run")
                .arg(&prog)
                .args(["--r1", "1", "--format", "json"])
                .timeout(BIG),
            0,
        ),
    );
    assert_eq!(v["status"], "done", "{v}");
    assert_eq!(v["registers"]["$3"], adds, "{v}");

    // Within the default fuel the big program never ends, and a run out of fuel is
    // never a difference.
    for (what, mut cmd) in every_reader(&prog, &["--format", "json"]) {
        if !what.starts_with("compare") {
            continue;
        }
        let v = json(&what, &succeeds(&what, cmd.timeout(BIG), 0));
        assert_ne!(v["verdict"], "disequivalent", "{what}: {v}");
    }
}

#[test]
fn megabytes_of_garbage() {
    let dir = TempDir::new().unwrap();
    let mut bytes = garbage(HUGE, 0xdead_beef);
    bytes[0] = 0xff; // never UTF-8

    // As assembly: not text, reported at once.
    let prog = write(&dir, "garbage.asm", &bytes);
    let start = Instant::now();
    every_reader_fails_at(&prog, Some(1), Some(1), &["UTF-8"]);
    assert!(start.elapsed() < BIG, "{:?}", start.elapsed());

    // Text, but nonsense: every bad line is an error, the first 100 are shown.
    let alphabet: &[u8] = b"abcxyz$,():;#0123456789 \t-.\n";
    let text: Vec<u8> = bytes
        .iter()
        .map(|b| alphabet[*b as usize % alphabet.len()])
        .collect();
    let prog = write(&dir, "nonsense.asm", &text);
    for (what, mut cmd) in every_reader(&prog, &[]) {
        let stderr = fails(&what, cmd.timeout(BIG), &["nonsense.asm", "not shown"]);
        assert_located(&what, &stderr, "nonsense.asm", None, None);
        // Only the first errors are drawn: the message stays small.
        assert!(stderr.len() < 256 * 1024, "{what}: {} bytes", stderr.len());
    }

    // As a binary image (a whole number of words): it loads.
    let prog = write(&dir, "garbage.mips", &bytes);
    let out = succeeds("asm", tamarin().arg("asm").arg(&prog).timeout(BIG), 0);
    assert!(out == bytes, "asm of a binary image copies it");
    let out = succeeds("disasm", tamarin().arg("disasm").arg(&prog).timeout(BIG), 0);
    assert_eq!(listed_words(&out), bytes.len() / 4);
    let fuel = ["--fuel", "1000000"];
    succeeds(
        "run",
        tamarin().arg("run").arg(&prog).args(fuel).timeout(BIG),
        0,
    );
    for (what, mut cmd) in every_reader(&prog, &fuel) {
        if what.starts_with("compare") {
            let out = output(&what, cmd.timeout(BIG));
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{what}: {:?}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn programs_larger_than_memory() {
    let dir = TempDir::new().unwrap();
    // Exactly the 16 MiB memory: loads (and runs into an invalid instruction).
    let full = write(&dir, "full.mips", vec![0u8; 16 << 20]);
    let v = json(
        "run",
        &succeeds(
            "run",
            tamarin()
                .arg("run")
                .arg(&full)
                .args(["--format", "json"])
                .timeout(BIG),
            0,
        ),
    );
    assert_eq!(v["error_kind"], "invalid-instruction", "{v}");
    // One word more: too large, said without reading it all.
    let over = write(&dir, "over.mips", vec![0u8; (16 << 20) + 4]);
    every_reader_fails(&over, &[], &["16 MiB"]);
    // An assembly file over 256 MiB (a sparse file: nothing is written).
    let huge = dir.path().join("huge.asm");
    std::fs::File::create(&huge)
        .and_then(|f| f.set_len((256 << 20) + 1))
        .unwrap();
    every_reader_fails(&huge, &[], &["256 MiB"]);
}

// ---------------------------------------------------------------- many labels, long lines

#[test]
fn a_hundred_thousand_labels() {
    let dir = TempDir::new().unwrap();
    const N: usize = 100_000;
    // A chain: each label's branch jumps to the next one; every label also a `.word`.
    let mut text = String::new();
    for i in 0..N {
        text.push_str(&format!(
            "l{i}: add $3, $3, $1\nbeq $0, $0, l{}\n.word l{i}\n",
            i + 1
        ));
    }
    text.push_str(&format!("l{N}: jr $31\n"));
    let prog = write(&dir, "labels.asm", &text);
    let out = succeeds("asm", tamarin().arg("asm").arg(&prog).timeout(BIG), 0);
    assert_eq!(out.len(), (3 * N + 1) * 4);
    let v = json(
        "run",
        &succeeds(
            "run",
            tamarin()
                .arg("run")
                .arg(&prog)
                .args(["--r1", "2", "--format", "json"])
                .timeout(BIG),
            0,
        ),
    );
    assert_eq!(v["status"], "done", "{v}");
    assert_eq!(v["registers"]["$3"], 2 * N as u64, "{v}");

    // All on one line, all at the same address.
    let mut line: String = (0..N).map(|i| format!("m{i}: ")).collect();
    line.push_str("jr $31\n.word m99999\n");
    let prog = write(&dir, "oneline.asm", &line);
    let out = succeeds("asm", tamarin().arg("asm").arg(&prog).timeout(BIG), 0);
    assert_eq!(out, [0x03, 0xe0, 0x00, 0x08, 0, 0, 0, 0]);

    // The same label 100,000 times, and 100,000 undefined ones: the first errors are
    // shown, the rest counted.
    let dup = write(&dir, "dup.asm", "x: jr $31\n".repeat(N));
    for (what, mut cmd) in every_reader(&dup, &[]) {
        let stderr = fails(&what, cmd.timeout(BIG), &["dup.asm", "already defined"]);
        assert_located(&what, &stderr, "dup.asm", Some(2), Some(1));
        assert!(stderr.contains(&format!("({} errors)", N - 1)), "{stderr}");
        assert!(stderr.len() < 256 * 1024, "{what}: {} bytes", stderr.len());
    }
    let undefined: String = (0..N).map(|i| format!(".word u{i}\n")).collect();
    let prog = write(&dir, "undefined.asm", undefined);
    let stderr = fails(
        "asm",
        tamarin().arg("asm").arg(&prog).timeout(BIG),
        &["undefined label", "not shown", &format!("({N} errors)")],
    );
    assert_located("asm", &stderr, "undefined.asm", Some(1), Some(7));
}

#[test]
fn a_line_of_a_megabyte() {
    let dir = TempDir::new().unwrap();
    const MB: usize = 1 << 20;

    // In a comment: fine.
    let prog = write(
        &dir,
        "comment.asm",
        format!("add $3, $1, $2 ; {}\njr $31\n", "z".repeat(MB)),
    );
    for (what, mut cmd) in every_reader(&prog, &[]) {
        succeeds(&what, &mut cmd, 0);
    }

    // A 1 MB label: fine too.
    let label = "L".repeat(MB);
    let prog = write(
        &dir,
        "label.asm",
        format!("beq $0, $0, {label}\n{label}: jr $31\n"),
    );
    succeeds("run", tamarin().arg("run").arg(&prog), 0);

    // A 1 MB operand, a 1 MB run of instructions on one line, a 1 MB line of commas,
    // a 1 MB mnemonic: one error each, located, and shown as a short window.
    let cases = [
        (
            "operand.asm",
            format!("add $3, $1, {}\n", "x".repeat(MB)),
            13,
            "register",
        ),
        (
            "run-on.asm",
            format!("{}\n", "add $3, $1, $2 ".repeat(MB / 15)),
            16,
            "end of line",
        ),
        ("commas.asm", format!("{}\n", ",".repeat(MB)), 1, "`,`"),
        (
            "mnemonic.asm",
            format!("{}\n", "a".repeat(MB)),
            1,
            "unknown mnemonic",
        ),
    ];
    for (name, text, col, needle) in cases {
        let prog = write(&dir, name, format!("jr $31\n{text}"));
        for (what, mut cmd) in every_reader(&prog, &[]) {
            let what = format!("{what} {name}");
            let stderr = fails(&what, &mut cmd, &[name, needle]);
            assert_located(&what, &stderr, name, Some(2), Some(col));
            assert!(stderr.len() < 16 * 1024, "{what}: {} bytes", stderr.len());
        }
    }
}

// ---------------------------------------------------------------- numbers out of range

#[test]
fn numbers_out_of_range_in_assembly() {
    let dir = TempDir::new().unwrap();
    // (line 2 of the file, column of the error, words in the message)
    let cases: &[(&str, usize, &[&str])] = &[
        (".word 4294967296", 7, &["out of range", "4294967296"]),
        (".word -2147483649", 7, &["out of range", "-2147483649"]),
        (".word 0x100000000", 7, &["out of range"]),
        (".word 99999999999999999999999999", 7, &["out of range"]),
        ("lw $1, 32768($2)", 8, &["offset out of range", "32768"]),
        ("lw $1, -32769($2)", 8, &["offset out of range", "-32769"]),
        ("sw $1, 0x10000($2)", 8, &["offset out of range"]),
        ("beq $1, $2, 32768", 13, &["branch offset out of range"]),
        ("bne $1, $2, -32769", 13, &["branch offset out of range"]),
        ("add $32, $1, $2", 5, &["$32", "$0 to $31"]),
        ("jr $-1", 4, &["$-1", "$0 to $31"]),
        ("mult $1, $4294967296", 10, &["$0 to $31"]),
        (".word -0x1", 7, &["cannot be negative"]),
    ];
    for (k, (line, col, needles)) in cases.iter().enumerate() {
        let name = format!("range{k}.asm");
        let prog = write(&dir, &name, format!("add $3, $1, $2\n{line}\njr $31\n"));
        for (what, mut cmd) in every_reader(&prog, &[]) {
            let what = format!("{what} `{line}`");
            let mut all = vec![name.as_str()];
            all.extend_from_slice(needles);
            let stderr = fails(&what, &mut cmd, &all);
            assert_located(&what, &stderr, &name, Some(2), Some(*col));
        }
    }

    // A branch to a label 40,000 words away.
    let far = write(
        &dir,
        "far.asm",
        format!(
            "beq $0, $0, far\n{}far: jr $31\n",
            ".word 0\n".repeat(40_000)
        ),
    );
    every_reader_fails_at(&far, Some(1), Some(13), &["too far"]);

    // The limits themselves are accepted.
    let edges = write(
        &dir,
        "edges.asm",
        ".word 4294967295\n.word -2147483648\n.word 0xffffffff\nlw $1, 32767($2)\n\
         lw $1, -32768($2)\nsw $31, 0xffff($0)\nbeq $1, $2, 32767\nbne $1, $2, -32768\n\
         beq $0, $0, 0xffff\njr $0\n",
    );
    let out = succeeds("asm edges", tamarin().arg("asm").arg(&edges), 0);
    assert_eq!(out.len(), 40);
}

// ---------------------------------------------------------------- files that are not files

#[test]
fn missing_files() {
    let dir = TempDir::new().unwrap();
    for name in ["missing.asm", "missing.mips", "missing"] {
        every_reader_fails(&dir.path().join(name), &[], &["cannot read"]);
    }
    // A dangling symbolic link and a loop of them.
    #[cfg(unix)]
    {
        let dangling = dir.path().join("dangling.asm");
        std::os::unix::fs::symlink(dir.path().join("nowhere.asm"), &dangling).unwrap();
        every_reader_fails(&dangling, &[], &["cannot read"]);
        let a = dir.path().join("loop.asm");
        std::os::unix::fs::symlink(&a, &a).unwrap();
        every_reader_fails(&a, &[], &["cannot read"]);
    }
}

#[test]
fn directories_as_files() {
    let dir = TempDir::new().unwrap();
    for name in ["progs.asm", "progs.mips", "progs"] {
        let sub = dir.path().join(name);
        std::fs::create_dir(&sub).unwrap();
        every_reader_fails(&sub, &[], &["directory"]);
    }
    let sub = dir.path().join("data");
    std::fs::create_dir(&sub).unwrap();
    fails(
        "run --stdin DIR",
        tamarin().arg("run").arg(good()).arg("--stdin").arg(&sub),
        &["data", "directory"],
    );
    fails(
        "asm -o DIR",
        tamarin().arg("asm").arg(good()).arg("-o").arg(&sub),
        &["data", "cannot write"],
    );
}

#[cfg(unix)]
#[test]
fn unreadable_files() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new().unwrap();
    let prog = write(&dir, "locked.asm", "jr $31\n");
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&prog).is_ok() {
        // Root (or a capability) reads whatever the mode says: nothing to test.
        eprintln!("skipped: a file with mode 000 can still be opened here (running as root?)");
        return;
    }
    every_reader_fails(&prog, &[], &["cannot read", "ermission"]);
    fails(
        "run --stdin unreadable",
        tamarin().arg("run").arg(good()).arg("--stdin").arg(&prog),
        &["locked.asm"],
    );
}

/// Makes a FIFO with `mkfifo`, or says why not.
#[cfg(unix)]
fn fifo(dir: &TempDir, name: &str) -> Option<PathBuf> {
    let path = dir.path().join(name);
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .is_ok_and(|s| s.success());
    made.then_some(path)
}

/// Writes `bytes` into the FIFO from a thread, once a reader opens it. The thread is
/// left to itself: if no reader ever comes, it blocks until the test process ends.
#[cfg(unix)]
fn feed(path: &Path, bytes: Vec<u8>) {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&path) {
            // The reader may stop early (too much data): a broken pipe is expected.
            let _ = f.write_all(&bytes);
        }
    });
}

/// A FIFO works like a file when a writer comes (process substitution, `<(…)`, gives
/// a pipe too), and an endless writer is cut off. A FIFO that no one ever writes to
/// is not tested: opening it waits for a writer, as `cat` does.
#[cfg(unix)]
#[test]
fn fifos_with_a_writer() {
    let dir = TempDir::new().unwrap();
    let Some(prog) = fifo(&dir, "fifo.asm") else {
        eprintln!("skipped: mkfifo is not available");
        return;
    };
    for (what, mut cmd) in every_reader(&prog, &[]) {
        feed(&prog, b"add $3, $1, $2\njr $31\n".to_vec());
        // The same program as the good one: compare finds them equivalent.
        succeeds(&format!("{what} FIFO"), &mut cmd, 0);
    }
    // Garbage through a FIFO: reported as for a file.
    for (what, mut cmd) in every_reader(&prog, &[]) {
        feed(&prog, b"jr $31\nfrob\n".to_vec());
        let stderr = fails(&format!("{what} FIFO"), &mut cmd, &["fifo.asm", "frob"]);
        assert_located(&what, &stderr, "fifo.asm", Some(2), Some(1));
    }
    // More than any program: cut off with an error, not read until memory runs out.
    let Some(big) = fifo(&dir, "fifo.mips") else {
        return;
    };
    for (what, mut cmd) in every_reader(&big, &[]) {
        feed(&big, vec![0u8; 17 << 20]);
        fails(&format!("{what} FIFO"), &mut cmd, &["fifo.mips", "16 MiB"]);
    }
}

/// `/dev/zero` never ends: reading it is cut off at the largest program. `/dev/null`
/// is an empty program.
#[cfg(unix)]
#[test]
fn devices_as_programs() {
    let zero = Path::new("/dev/zero");
    let null = Path::new("/dev/null");
    if !zero.exists() || !null.exists() {
        eprintln!("skipped: no /dev/zero or /dev/null");
        return;
    }
    let dir = TempDir::new().unwrap();
    let zero_mips = dir.path().join("zero.mips");
    let zero_asm = dir.path().join("zero.asm");
    std::os::unix::fs::symlink(zero, &zero_mips).unwrap();
    std::os::unix::fs::symlink(zero, &zero_asm).unwrap();
    every_reader_fails(&zero_mips, &[], &["16 MiB"]);
    // As assembly, it stops at the first byte: a NUL is never text.
    for (what, mut cmd) in every_reader(&zero_asm, &[]) {
        let stderr = fails(&what, &mut cmd, &["zero.asm", "NUL"]);
        assert_located(&what, &stderr, "zero.asm", Some(1), Some(1));
    }
    let good_bin = good_bin(&dir);
    for format in ["bin", "asm"] {
        let other = if format == "bin" {
            good_bin.clone()
        } else {
            good()
        };
        for (what, mut cmd) in every_reader_vs(zero, &other, &["--input-format", format]) {
            let needle = if format == "bin" { "16 MiB" } else { "NUL" };
            fails(
                &format!("{what} /dev/zero"),
                &mut cmd,
                &["/dev/zero", needle],
            );
        }
        let v = json(
            "run /dev/null",
            &succeeds(
                "run /dev/null",
                tamarin()
                    .arg("run")
                    .arg(null)
                    .args(["--input-format", format, "--format", "json"]),
                0,
            ),
        );
        assert_eq!(v["error_kind"], "invalid-instruction", "{v}");
    }

    // As the program's input: a run reads at most a byte a step, so only that much
    // is read. Two steps of set-up, then three a byte.
    let echo = write(
        &dir,
        "echo.asm",
        "lis $5\n.word 0xffff0004\nlis $6\n.word 0xffff000c\nloop: lw $1, 0($5)\n\
         sw $1, 0($6)\nbeq $0, $0, loop\n",
    );
    let v = json(
        "run --stdin /dev/zero",
        &succeeds(
            "run --stdin /dev/zero",
            tamarin().arg("run").arg(&echo).args([
                "--stdin",
                "/dev/zero",
                "--fuel",
                "3000",
                "--format",
                "json",
            ]),
            0,
        ),
    );
    assert_eq!(v["status"], "out-of-fuel", "{v}");
    assert_eq!(v["output"].as_str().map(str::len), Some(999), "{v}");
}

#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new().unwrap();
    let path = dir.path().join(OsStr::from_bytes(b"bad\xffname.asm"));
    if std::fs::write(&path, "add $3, $1\n").is_err() {
        eprintln!("skipped: the file system refuses the name");
        return;
    }
    for (what, mut cmd) in every_reader(&path, &[]) {
        let stderr = fails(&what, &mut cmd, &["bad", "name.asm"]);
        assert!(
            predicate::str::is_match(r"bad.name\.asm:1:11\b")
                .unwrap()
                .eval(&stderr),
            "{what}: {stderr}"
        );
    }
}

// ---------------------------------------------------------------- the command line

#[test]
fn bad_numbers_on_the_command_line() {
    let prog = good();
    let run: &[(&[&str], &[&str])] = &[
        (&["--r1", "abc"], &["--r1", "`abc`"]),
        (&["--r2", "4294967296"], &["--r2", "32 bits"]),
        (&["--r1", "-2147483649"], &["--r1", "32 bits"]),
        (&["--r1", "1.5"], &["--r1", "`1.5`"]),
        (&["--r1", ""], &["--r1"]),
        (&["--fuel", "-1"], &["--fuel", "`-1`", "non-negative"]),
        (&["--fuel", "abc"], &["--fuel", "`abc`"]),
        (
            &["--fuel", "99999999999999999999999"],
            &["--fuel", "64 bits"],
        ),
        (&["--array", "1,,2"], &["--array", "element 2"]),
        (&["--array", ","], &["--array", "element 1"]),
        (&["--array", "1,x"], &["--array", "element 2", "`x`"]),
        (&["--array", "1", "--array-base", "3"], &["multiple of 4"]),
        (&["--array", "1", "--array-base", "-1"], &["0xffffffff"]),
        (
            &["--termination", "0x100000000"],
            &["--termination", "32 bits"],
        ),
        (&["--format", "yaml"], &["--format", "yaml"]),
        (&["--input-format", "elf"], &["--input-format", "elf"]),
    ];
    for (args, needles) in run {
        fails(
            &format!("run {args:?}"),
            tamarin().arg("run").arg(&prog).args(*args),
            needles,
        );
    }
    let compare: &[(&[&str], &[&str])] = &[
        (
            &["--init-inputs", "1"],
            &["--init-inputs", "input register"],
        ),
        (
            &["--init-inputs", "1,2,3"],
            &["--init-inputs", "input register"],
        ),
        (&["--init-inputs", "1,,"], &["--init-inputs", "element 2"]),
        (&["--init-inputs", "a,b"], &["--init-inputs", "`a`"]),
        (&["--fuel", "-1"], &["--fuel", "`-1`"]),
        (&["--depth", "-1"], &["--depth", "`-1`"]),
        (&["--solver-timeout", "-5"], &["--solver-timeout", "`-5`"]),
        (&["--max-runs", "many"], &["--max-runs", "`many`"]),
        (&["--timeout", "-1"], &["--timeout", "`-1`"]),
        (&["--timeout", "1s"], &["--timeout", "`1s`"]),
    ];
    for (args, needles) in compare {
        fails(
            &format!("compare {args:?}"),
            tamarin().arg("compare").arg(&prog).arg(&prog).args(*args),
            needles,
        );
    }
}

#[test]
fn unknown_flags_and_bad_usage() {
    let prog = good();
    for (what, mut cmd) in every_reader(&prog, &["--frobnicate"]) {
        fails(&what, &mut cmd, &["--frobnicate"]);
    }
    for (what, mut cmd) in every_reader(&prog, &["-Z"]) {
        fails(&what, &mut cmd, &["-Z"]);
    }
    fails("no subcommand", &mut tamarin(), &["Usage"]);
    fails("unknown subcommand", tamarin().arg("frob"), &["frob"]);
    fails("run without a program", tamarin().arg("run"), &["PROG"]);
    fails(
        "compare with one program",
        tamarin().arg("compare").arg(&prog),
        &["RIGHT"],
    );
    fails(
        "compare with three programs",
        tamarin().arg("compare").arg(&prog).arg(&prog).arg(&prog),
        &["unexpected argument"],
    );
    fails(
        "--r1 with --array",
        tamarin()
            .arg("run")
            .arg(&prog)
            .args(["--array", "1", "--r1", "2"]),
        &["--array", "--r1"],
    );
    fails(
        "--array-base without --array",
        tamarin().arg("run").arg(&prog).args(["--array-base", "4"]),
        &["--array"],
    );
}

// ---------------------------------------------------------------- output files

#[test]
fn dump_smt_at_a_regular_file() {
    let dir = TempDir::new().unwrap();
    let file = write(&dir, "queries.txt", "keep me\n");
    let (left, right) = (
        example("../needle/left.asm"),
        example("../needle/right.asm"),
    );
    fails(
        "--dump-smt FILE",
        tamarin()
            .arg("compare")
            .arg(&left)
            .arg(&right)
            .arg("--dump-smt")
            .arg(&file),
        &["queries.txt", "--dump-smt", "not a directory"],
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me\n");
    // A directory below a regular file cannot be made either.
    fails(
        "--dump-smt FILE/sub",
        tamarin()
            .arg("compare")
            .arg(&left)
            .arg(&right)
            .arg("--dump-smt")
            .arg(file.join("sub")),
        &["queries.txt/sub", "--dump-smt"],
    );
    // A path that does not exist yet is made, parents included.
    let fresh = dir.path().join("a").join("b");
    succeeds(
        "--dump-smt new dir",
        tamarin()
            .arg("compare")
            .arg(&left)
            .arg(&right)
            .arg("--dump-smt")
            .arg(&fresh),
        1,
    );
    assert!(fresh.join("query-00001.smt2").is_file());
}

#[test]
fn dump_smt_into_a_directory_in_use_is_refused() {
    let dir = TempDir::new().unwrap();
    let dump = dir.path().join("dump");
    // A directory where the first query file goes: the folder is not empty, so it is
    // refused before anything is written (writing there would fail, even as root).
    std::fs::create_dir_all(dump.join("query-00001.smt2")).unwrap();
    let out = output(
        "compare --dump-smt",
        tamarin()
            .arg("compare")
            .arg(example("fig5-left.asm"))
            .arg(example("fig5-right.asm"))
            .arg("--dump-smt")
            .arg(&dump),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("not empty"), "stderr:\n{stderr}");
    assert!(stderr.contains("--force"), "stderr:\n{stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn unwritable_outputs() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    fails(
        "asm -o /dev/full",
        tamarin().arg("asm").arg(good()).arg("-o").arg(full),
        &["/dev/full", "cannot write"],
    );
    // Standard output that cannot be written: trouble (2), like any I/O error.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tamarin"))
        .arg("disasm")
        .arg(good())
        .stdout(std::fs::OpenOptions::new().write(true).open(full).unwrap())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + QUICK;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("disasm > /dev/full did not end in time");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("standard output"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

// ---------------------------------------------------------------- time limits

/// Two 180,000-instruction straight-line programs that differ in their last
/// instruction, compared with enough fuel to finish both: one difference query over
/// very deep terms.
#[test]
fn compare_respects_its_time_limit_on_deep_terms() {
    let dir = TempDir::new().unwrap();
    let body = "add $3, $3, $1\nsltu $4, $3, $2\nadd $3, $3, $4\n".repeat(60_000);
    let left = write(&dir, "left.asm", format!("{body}jr $31\n"));
    let right = write(&dir, "right.asm", format!("{body}add $3, $3, $3\njr $31\n"));
    let start = Instant::now();
    let out = output(
        "compare deep",
        tamarin()
            .arg("compare")
            .arg(&left)
            .arg(&right)
            .args(["--fuel", "1000000", "--timeout", "2"])
            .args(["--solver-timeout", "500"])
            .timeout(BIG),
    );
    let took = start.elapsed();
    assert!(matches!(out.status.code(), Some(1 | 3)), "{:?}", out.status);
    assert!(
        took < Duration::from_secs(10),
        "took {took:?} with --timeout 2"
    );
}
