//! Linking on the command line: `asm -o x.merl`, `tamarin link`, `--link` in the
//! commands that run programs, a task's `link` in grade, and the errors (exit 2) for
//! unresolved imports, labels exported twice and bad MERL files.

use std::path::{Path, PathBuf};
use std::process::Output;

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

fn run(args: &[&str]) -> Output {
    tamarin().args(args).output().expect("run tamarin")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

const WAIN: &str = "examples/compiler/wain.asm";
const HAND: &str = "examples/compiler/hand_linked.asm";
const PRINT: &str = "examples/runtime/print.asm";

#[test]
fn asm_writes_merl_for_a_merl_name_and_the_shipped_runtime_is_current() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["print", "alloc"] {
        let out = dir.path().join(format!("{name}.merl"));
        let o = tamarin()
            .args(["asm", &format!("examples/runtime/{name}.asm"), "-o"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(&bytes[..4], &[0x10, 0, 0, 2], "the MERL cookie");
        let shipped = std::fs::read(root().join(format!("examples/runtime/{name}.merl"))).unwrap();
        assert_eq!(
            bytes, shipped,
            "examples/runtime/{name}.merl is out of date"
        );
    }
    // --merl to standard output; without it, the binary image (no header).
    let merl = run(&["asm", PRINT, "--merl", "-o", "-"]);
    assert_eq!(&merl.stdout[..4], &[0x10, 0, 0, 2]);
    let flat = run(&["asm", PRINT, "-o", "-"]);
    assert!(merl.stdout.len() > flat.stdout.len() + 12);
    assert_ne!(&flat.stdout[..4], &[0x10, 0, 0, 2]);
}

#[test]
fn link_then_run_prints_as_the_course_runtime_does() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("wain.merl");
    let o = tamarin()
        .args(["link", WAIN, "examples/runtime/print.merl", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = tamarin()
        .arg("run")
        .arg(&out)
        .args(["--r1=-2147483648", "--r2=5", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let text = v.to_string();
    assert!(text.contains("-2147483648\\n-2147483643\\n"), "{text}");
    // The same with --link, and into a binary image.
    let o = run(&["run", WAIN, "--link", PRINT, "--r1=7", "--r2=9"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with("7\n2\n"), "{}", stdout(&o));
    let bin = dir.path().join("wain.mips");
    let o = tamarin()
        .args(["link", WAIN, PRINT, "-o"])
        .arg(&bin)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&bin).unwrap(),
        run(&["asm", HAND, "-o", "-"]).stdout,
        "linking gives the hand-linked program's words"
    );
}

#[test]
fn compare_with_link_agrees_with_the_hand_linked_program() {
    // For every input: print, linked into both, is compared by its calls.
    let o = run(&[
        "compare",
        "--link",
        PRINT,
        WAIN,
        HAND,
        "--observe",
        "output,$3",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).starts_with("equivalent"), "{}", stdout(&o));
    // The task says the same, and a wrong compiler output is told apart.
    let o = run(&["compare", "--task", "examples/compiler/task.toml", WAIN]);
    assert!(
        stdout(&o).starts_with("equivalent"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong.asm");
    let text = std::fs::read_to_string(root().join(WAIN)).unwrap();
    std::fs::write(&wrong, text.replace("sub $3, $5, $3", "add $3, $5, $3")).unwrap();
    let o = tamarin()
        .args(["compare", "--task", "examples/compiler/task.toml"])
        .arg(&wrong)
        .output()
        .unwrap();
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).starts_with("disequivalent"), "{}", stdout(&o));
    // Its replay commands link the runtime too.
    assert!(
        stdout(&o).contains("--link examples/runtime/print.asm"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn unresolved_imports_are_usage_errors_naming_label_and_file() {
    for args in [
        vec!["run", WAIN, "--r1=1", "--r2=2"],
        vec!["compare", WAIN, HAND],
        vec!["asm", WAIN, "-o", "-"],
        vec!["link", WAIN, "-o", "x.mips"],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        let e = stderr(&o);
        assert!(e.contains("unresolved import: `print`"), "{args:?}: {e}");
        assert!(e.contains(WAIN), "{args:?}: {e}");
    }
    // A linked MERL file may keep them.
    let o = run(&["link", WAIN, "-o", "-"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn a_label_exported_twice_is_a_usage_error_naming_both_files() {
    let o = run(&[
        "link",
        WAIN,
        PRINT,
        "examples/runtime/print.merl",
        "-o",
        "-",
    ]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(e.contains("`print`"), "{e}");
    assert!(
        e.contains(PRINT) && e.contains("examples/runtime/print.merl"),
        "{e}"
    );
    let o = run(&[
        "run", WAIN, "--link", PRINT, "--link", PRINT, "--r1=1", "--r2=2",
    ]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(
        e.contains("`print` is exported twice") && e.contains(PRINT),
        "{e}"
    );
}

#[test]
fn bad_merl_files_say_where() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.merl");
    std::fs::write(&bad, [0x10, 0, 0, 3, 0, 0, 0, 12, 0, 0, 0, 12]).unwrap();
    let o = tamarin().arg("run").arg(&bad).output().unwrap();
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("at byte offset 0"), "{}", stderr(&o));
    assert!(stderr(&o).contains("cookie"), "{}", stderr(&o));
    // A binary cannot be linked after a program.
    let o = run(&["link", WAIN, "examples/grading/reference.asm"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mips = dir.path().join("p.mips");
    std::fs::write(&mips, [0, 0, 0, 0]).unwrap();
    let o = tamarin()
        .args(["run", WAIN, "--link"])
        .arg(&mips)
        .output()
        .unwrap();
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("cannot be linked"), "{}", stderr(&o));
}

#[test]
fn the_allocator_hands_out_fresh_words() {
    let dir = tempfile::tempdir().unwrap();
    let prog = dir.path().join("alloc_use.asm");
    // init with no array, new(3) twice, new(0), new(huge): $3 = first, $4 = second,
    // $6 = new(0), $7 = new(2^21).
    std::fs::write(
        &prog,
        ".import init\n.import new\n.import delete\nadd $20, $31, $0\nadd $2, $0, $0\n\
         lis $5\n.word init\njalr $5\nlis $1\n.word 3\nlis $5\n.word new\njalr $5\n\
         add $10, $3, $0\njalr $5\nadd $4, $3, $0\nadd $1, $0, $0\njalr $5\nadd $6, $3, $0\n\
         lis $1\n.word 0x200000\njalr $5\nadd $7, $3, $0\nadd $1, $10, $0\nlis $5\n\
         .word delete\njalr $5\nadd $3, $10, $0\njr $20\n",
    )
    .unwrap();
    let o = tamarin()
        .arg("run")
        .arg(&prog)
        .args(["--link", "examples/runtime/alloc.merl", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let text = v.to_string();
    let reg = |n: usize| -> i64 {
        let regs = &v["registers"];
        regs.get(n)
            .or_else(|| regs.get(format!("${n}")))
            .and_then(Value::as_i64)
            .unwrap_or_else(|| panic!("${n} in {text}"))
    };
    assert_eq!(reg(3), 0x0080_0000, "{text}");
    assert_eq!(reg(4), 0x0080_000c, "{text}");
    assert_eq!(reg(6), 0, "{text}");
    assert_eq!(reg(7), 0, "{text}");
}

#[test]
fn grade_links_the_task_modules_and_keys_the_store_by_their_content() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("runtime")).unwrap();
    std::fs::create_dir_all(d.join("class")).unwrap();
    std::fs::copy(root().join(PRINT), d.join("runtime/print.asm")).unwrap();
    std::fs::copy(root().join(HAND), d.join("hand_linked.asm")).unwrap();
    let text = std::fs::read_to_string(root().join(WAIN)).unwrap();
    std::fs::write(d.join("class/right.asm"), &text).unwrap();
    std::fs::write(
        d.join("class/wrong.asm"),
        text.replace("sub $3, $5, $3", "add $3, $5, $3"),
    )
    .unwrap();
    std::fs::write(
        d.join("task.toml"),
        "reference = \"hand_linked.asm\"\nlink = [\"runtime/print.asm\"]\n\
         observe = [\"output\", \"$3\"]\nassume = [\"-20 <= $1 <= 20\", \"-20 <= $2 <= 20\"]\n",
    )
    .unwrap();
    let grade = || {
        let o = tamarin()
            .arg("grade")
            .arg("--task")
            .arg(d.join("task.toml"))
            .arg(d.join("class"))
            .args(["--portfolio", "none", "--format", "json", "--store"])
            .arg(d.join("s.sqlite"))
            .output()
            .unwrap();
        let v: Value = serde_json::from_str(stdout(&o).trim())
            .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&o), stderr(&o)));
        (code(&o), v)
    };
    let (status, v) = grade();
    assert_eq!(status, 1, "{v}");
    let verdict = |v: &Value, name: &str| {
        v["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s.to_string().contains(name))
            .map(|s| s["verdict"].as_str().unwrap_or("").to_string())
            .unwrap_or_default()
    };
    assert_eq!(verdict(&v, "right.asm"), "equivalent", "{v}");
    assert_eq!(verdict(&v, "wrong.asm"), "disequivalent", "{v}");
    assert_eq!(v["summary"]["from_store"], 0);
    let (_, again) = grade();
    assert_eq!(again["summary"]["from_store"], 2, "{again}");
    // A change to the runtime's content is a new key.
    let mut print = std::fs::read_to_string(d.join("runtime/print.asm")).unwrap();
    print.push_str("; changed\n");
    std::fs::write(d.join("runtime/print.asm"), print).unwrap();
    let (_, changed) = grade();
    assert_eq!(changed["summary"]["from_store"], 0, "{changed}");
    // Without the task's link, the compiler output does not assemble into a program.
    std::fs::write(
        d.join("task.toml"),
        "reference = \"hand_linked.asm\"\nobserve = [\"output\", \"$3\"]\n",
    )
    .unwrap();
    let (_, unlinked) = grade();
    assert_eq!(
        verdict(&unlinked, "right.asm"),
        "does-not-assemble",
        "{unlinked}"
    );
}

#[test]
fn course_programs_compiled_two_ways_are_decided_through_print_s_calls() {
    let dir = "examples/compiler/course";
    for (name, right, frontend, verdict) in [
        ("arith", "regalloc.asm", None, "equivalent"),
        ("array-reverse", "regalloc.asm", Some("array"), "equivalent"),
        ("fact-rec", "regalloc_buggy.asm", None, "disequivalent"),
    ] {
        let (l, r) = (
            format!("{dir}/{name}/naive.asm"),
            format!("{dir}/{name}/{right}"),
        );
        let mut args = vec![
            "compare",
            "--link",
            PRINT,
            &l,
            &r,
            "--observe",
            "output,$3",
            "--fuel",
            "20000",
        ];
        if let Some(f) = frontend {
            args.extend(["--frontend", f, "--max-len", "4"]);
        }
        let o = run(&args);
        assert!(
            stdout(&o).starts_with(&format!("{verdict}:")),
            "{name}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn the_check_of_print_is_kept_in_the_cache_directory() {
    let dir = tempfile::tempdir().unwrap();
    let o = tamarin()
        .env("TAMARIN_CACHE_DIR", dir.path())
        .args([
            "compare",
            "--link",
            PRINT,
            WAIN,
            HAND,
            "--observe",
            "output,$3",
        ])
        .output()
        .unwrap();
    assert!(
        stdout(&o).starts_with("equivalent"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    // The JSON counts the calls compared as events, and the runs they cut short.
    let o = tamarin()
        .env("TAMARIN_CACHE_DIR", dir.path())
        .args([
            "compare",
            "--link",
            PRINT,
            WAIN,
            HAND,
            "--observe",
            "output,$3",
        ])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert!(v["stats"]["call_events"].as_u64().unwrap_or(0) > 0, "{v}");
    assert_eq!(v["stats"]["call_partial_runs"].as_u64(), Some(0), "{v}");
    // Empty: nowhere.
    let none = tempfile::tempdir().unwrap();
    let o = tamarin()
        .env("TAMARIN_CACHE_DIR", "")
        .env("HOME", none.path())
        .env_remove("XDG_CACHE_HOME")
        .args([
            "compare",
            "--link",
            PRINT,
            WAIN,
            HAND,
            "--observe",
            "output,$3",
        ])
        .output()
        .unwrap();
    assert!(stdout(&o).starts_with("equivalent"), "{}", stdout(&o));
    assert_eq!(std::fs::read_dir(none.path()).unwrap().count(), 0);
}
