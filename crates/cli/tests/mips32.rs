//! MIPS32 ELF functions on the command line, on the objects in `examples/mips32`:
//! `run --function` with `--a0..--a3`, `disasm --function`, and the usage errors
//! (exit 2) for a missing or unknown function, a call of an undefined function, a
//! broken file, CS241 options given with an ELF file, and commands that take CS241
//! programs only.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::schema::{assert_valid, validator};

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(args: &[&str]) -> Output {
    let mut c = Command::cargo_bin("tamarin").expect("the tamarin binary is built");
    c.current_dir(root());
    c.args(args).output().expect("run tamarin")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

const EX: &str = "examples/mips32";

#[test]
fn run_calls_a_function_with_its_arguments_at_both_levels() {
    for level in ["O0", "O2"] {
        let obj = format!("{EX}/popcount-{level}.o");
        let o = run(&[
            "run",
            &obj,
            "--function",
            "popcount_loop",
            "--a0",
            "-1",
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let j = json(&o);
        assert_eq!(j["status"], "returned");
        assert_eq!(j["v0"], 32);
        assert_eq!(j["args"][0], -1);
        let o = run(&[
            "run",
            &obj,
            "--function",
            "popcount_buggy",
            "--a0",
            "0xffffffff",
        ]);
        assert_eq!(o.status.code(), Some(0));
        assert!(
            stdout(&o).contains("$v0 = 31 (0x0000001f)"),
            "{}",
            stdout(&o)
        );
        // A jump table and a call of a static function.
        let obj = format!("{EX}/grade-{level}.o");
        for (score, late, letter) in [(88, 1, 'A'), (80, 2, 'B'), (40, 9, 'F'), (75, 0, 'B')] {
            let (s, l) = (score.to_string(), late.to_string());
            let o = run(&[
                "run",
                &obj,
                "--function",
                "letter",
                "--a0",
                &s,
                "--a1",
                &l,
                "--format",
                "json",
            ]);
            assert_eq!(
                json(&o)["v0"],
                letter as u32,
                "letter({score}, {late}) at -{level}"
            );
        }
    }
}

#[test]
fn a_taken_trap_is_a_fault_with_exit_status_1() {
    let o = run(&[
        "run",
        &format!("{EX}/divmod-O2.o"),
        "--function",
        "divmod_unguarded",
        "--a0",
        "7",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["status"], "fault");
    assert_eq!(j["fault"]["kind"], "trap");
    assert!(j["fault"]["message"].as_str().unwrap().contains("code 7"));
    // The guarded version returns 0 instead.
    let o = run(&[
        "run",
        &format!("{EX}/divmod-O2.o"),
        "--function",
        "divmod",
        "--a0",
        "7",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("$v0 = 0 "));
}

#[test]
fn running_out_of_fuel_is_exit_status_3() {
    let o = run(&[
        "run",
        &format!("{EX}/popcount-O0.o"),
        "--function",
        "popcount_loop",
        "--a0",
        "-1",
        "--fuel",
        "20",
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stdout(&o).contains("ran out of fuel"), "{}", stdout(&o));
}

#[test]
fn disasm_lists_a_function_in_objdump_syntax() {
    let o = run(&[
        "disasm",
        &format!("{EX}/divmod-O2.o"),
        "--function",
        "divmod_unguarded",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("<divmod_unguarded>:"), "{text}");
    assert!(text.contains("teq\ta1,zero,0x7"), "{text}");
    assert!(text.contains("jr\tra"), "{text}");
    // Every function when none is named.
    let o = run(&["disasm", &format!("{EX}/popcount-O2.o")]);
    let text = stdout(&o);
    for f in ["popcount_loop", "popcount_swar", "popcount_buggy"] {
        assert!(text.contains(&format!("<{f}>:")), "{f}: {text}");
    }
}

#[test]
fn usage_errors_name_what_is_wrong() {
    let obj = format!("{EX}/popcount-O2.o");
    // No function named: the file's functions are listed.
    let o = run(&["run", &obj]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--function NAME"), "{}", stderr(&o));
    assert!(stderr(&o).contains("popcount_swar"), "{}", stderr(&o));
    // An unknown function.
    let o = run(&["run", &obj, "--function", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no function `nope`"), "{}", stderr(&o));
    // A call of a function the file does not define, found before running.
    for level in ["O0", "O2"] {
        let o = run(&[
            "run",
            &format!("{EX}/extern-{level}.o"),
            "--function",
            "scaled_sum",
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("calls `scale`"), "{}", stderr(&o));
    }
    // CS241 options with an ELF file, and ELF options with a CS241 program.
    let o = run(&["run", &obj, "--function", "popcount_swar", "--r1", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is for CS241 programs"),
        "{}",
        stderr(&o)
    );
    let o = run(&["run", "examples/paper/fig1-left.asm", "--function", "f"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is for MIPS32 ELF files"),
        "{}",
        stderr(&o)
    );
    // Commands that take CS241 programs only say so.
    let o = run(&["compare", &obj, &obj]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is a MIPS32 ELF file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_broken_elf_file_is_a_usage_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(root().join(EX).join("popcount-O2.o")).unwrap();
    for cut in [4usize, 40, 200] {
        let path = dir.path().join(format!("cut{cut}.o"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let p = path.display().to_string();
        let o = run(&["run", &p, "--function", "popcount_swar"]);
        assert_eq!(o.status.code(), Some(2), "cut at {cut}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("cut{cut}.o")),
            "{}",
            stderr(&o)
        );
    }
}

/// `--dump-smt` writes the queries of a function comparison as it does for CS241
/// programs (a folder in use is refused); `grade` of functions refuses it, as `grade`
/// of programs does, instead of ignoring it.
#[test]
fn dump_smt_writes_a_function_comparisons_queries() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("queries");
    let out_arg = out.to_str().unwrap();
    let args = |dump: &str| {
        vec![
            "compare".to_string(),
            format!("{EX}/divmod-O0.o"),
            format!("{EX}/divmod-O2.o"),
            "--function".into(),
            "divmod".into(),
            "--args".into(),
            "2".into(),
            "--dump-smt".into(),
            dump.into(),
        ]
    };
    let argv = args(out_arg);
    let o = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let files: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().collect();
    assert!(!files.is_empty(), "no query was written");
    let first = std::fs::read_to_string(files[0].path()).unwrap();
    assert!(first.contains("(check-sat)"), "{first}");
    let again = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(stderr(&again).contains("not empty"), "{}", stderr(&again));

    let graded = run(&[
        "grade",
        &format!("{EX}/class/reference.o"),
        &format!("{EX}/class/submissions/alice.o"),
        "--function",
        "clamp",
        "--dump-smt",
        dir.path().join("graded").to_str().unwrap(),
    ]);
    assert_eq!(graded.status.code(), Some(2), "{}", stderr(&graded));
    assert!(
        stderr(&graded).contains("--dump-smt"),
        "{}",
        stderr(&graded)
    );

    // --dump-trace prints CS241 traces: refused for functions, not ignored.
    let mut traced = args(dir.path().join("traced").to_str().unwrap());
    traced.truncate(7);
    traced.push("--dump-trace".into());
    let o = run(&traced.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--dump-trace"), "{}", stderr(&o));
}

#[test]
fn compare_proves_a_function_equal_across_levels() {
    let o = run(&[
        "compare",
        &format!("{EX}/popcount-O0.o"),
        &format!("{EX}/popcount-O2.o"),
        "--function",
        "popcount_swar",
        "--right-function",
        "popcount_swar",
        "--args",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["verdict"], "equivalent");
    assert_eq!(j["proof"]["fuel"], 10000);
    assert_eq!(j["left"]["function"], "popcount_swar");
    assert_eq!(j["right"]["function"], "popcount_swar");
    assert_eq!(j["observe"][0], "$v0");
}

#[test]
fn the_merged_encoding_compares_functions_on_request() {
    let (o0, o2) = (format!("{EX}/bytes-O0.o"), format!("{EX}/bytes-O2.o"));
    // Bytes and halfwords at input-dependent addresses, -O0 against -O2.
    let o = run(&[
        "compare",
        &o0,
        &o2,
        "--function",
        "scribble",
        "--args",
        "3",
        "--engine",
        "bmc",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("equivalent:"), "{}", stdout(&o));
    assert!(stdout(&o).contains("merged encoding"), "{}", stdout(&o));
    let o = run(&[
        "compare",
        &o0,
        &o2,
        "--function",
        "unaligned",
        "--args",
        "2",
        "--engine",
        "bmc",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["verdict"], "equivalent");
    assert_eq!(j["stats"]["engine"], "bmc");
    // A difference from the merged encoding is replayed like any other.
    let o = run(&[
        "compare",
        &o2,
        &o2,
        "--function",
        "unaligned",
        "--right-function",
        "halves",
        "--args",
        "2",
        "--engine",
        "bmc",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["verdict"], "disequivalent");
    let left = &j["counterexample"]["left"]["observed"][0];
    let right = &j["counterexample"]["right"]["observed"][0];
    assert_ne!(left, right, "{j}");
    // The path search says which engine it is too.
    let o = run(&[
        "compare",
        &o0,
        &o2,
        "--function",
        "pick_byte",
        "--args",
        "1",
        "--engine",
        "concolic",
        "--format",
        "json",
    ]);
    assert_eq!(json(&o)["stats"]["engine"], "concolic");
    // grade takes the engine for functions as well.
    let class = format!("{EX}/class/reference.o");
    let subs = format!("{EX}/class/submissions");
    let o = run(&[
        "grade",
        &class,
        &subs,
        "--function",
        "clamp",
        "--args",
        "3",
        "--engine",
        "bmc",
        "--no-groups",
    ]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("alice"), "{}", stdout(&o));
}

#[test]
fn compare_finds_a_difference_and_prints_the_runs_that_show_it() {
    let obj = format!("{EX}/popcount-O2.o");
    let o = run(&[
        "compare",
        &obj,
        &obj,
        "--function",
        "popcount_loop",
        "--right-function",
        "popcount_buggy",
        "--args",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("disequivalent:"), "{text}");
    let replay = text
        .lines()
        .find(|l| l.trim_start().starts_with("tamarin run") && l.contains("popcount_buggy"))
        .expect("a replay command");
    // The replay command runs as printed.
    let words: Vec<&str> = replay.split_whitespace().skip(1).collect();
    let mut c = Command::cargo_bin("tamarin").unwrap();
    let r = c.current_dir(root()).args(&words).output().unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    // A trap against a return: the fault kind is in the JSON.
    let o = run(&[
        "compare",
        &format!("{EX}/divmod-O2.o"),
        &format!("{EX}/divmod-O0.o"),
        "--function",
        "divmod",
        "--right-function",
        "divmod_unguarded",
        "--args",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let j = json(&o);
    assert_eq!(j["verdict"], "disequivalent");
    assert_eq!(j["counterexample"]["left"]["status"], "returned");
    assert_eq!(j["counterexample"]["right"]["fault"], "trap");
    assert_eq!(j["counterexample"]["args"]["$a1"], 0);
}

#[test]
fn compare_says_what_it_did_not_cover() {
    let obj = format!("{EX}/popcount-O0.o");
    let o = run(&[
        "compare",
        &obj,
        &obj,
        "--function",
        "popcount_loop",
        "--args",
        "1",
        "--fuel",
        "60",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["verdict"], "possibly-equivalent");
    assert_eq!(j["reasons"][0]["kind"], "fuel");
    // Observing v1 too, by its o32 name.
    let o = run(&[
        "compare",
        &obj,
        &obj,
        "--function",
        "popcount_swar",
        "--args",
        "1",
        "--observe",
        "v0,v1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A precondition over the arguments by their o32 names.
    let pop = format!("{EX}/popcount-O2.o");
    let o = run(&[
        "compare",
        &pop,
        &pop,
        "--function",
        "popcount_loop",
        "--right-function",
        "popcount_buggy",
        "--args",
        "1",
        "--assume",
        "$a0 >= 0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("the preconditions allow"),
        "{}",
        stdout(&o)
    );
    let o = run(&[
        "compare",
        &pop,
        &pop,
        "--function",
        "popcount_loop",
        "--args",
        "1",
        "--assume",
        "$a3 > 0",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not an input"), "{}", stderr(&o));
    // What a function cannot show, and CS241 options.
    let o = run(&[
        "compare",
        &obj,
        &obj,
        "--function",
        "popcount_swar",
        "--observe",
        "output",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("registers"), "{}", stderr(&o));
    let o = run(&[
        "compare",
        &obj,
        &obj,
        "--function",
        "popcount_swar",
        "--no-split",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--no-split"), "{}", stderr(&o));
    let o = run(&[
        "compare",
        &obj,
        "examples/paper/fig1-left.asm",
        "--function",
        "popcount_swar",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("CS241 program"), "{}", stderr(&o));
}

#[test]
fn explain_shows_where_each_function_wrote_the_result_that_differs() {
    let obj = format!("{EX}/popcount-O2.o");
    let cmp = [
        "compare",
        obj.as_str(),
        obj.as_str(),
        "--function",
        "popcount_loop",
        "--right-function",
        "popcount_buggy",
        "--args",
        "1",
    ];
    let o = run(&cmp);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // The `why:` line runs as printed and names the step that wrote each `$v0`.
    let text = stdout(&o);
    let why = text
        .lines()
        .find_map(|l| l.strip_prefix("why: tamarin "))
        .expect("a why line");
    let words: Vec<&str> = why.split_whitespace().collect();
    let e = Command::cargo_bin("tamarin")
        .unwrap()
        .current_dir(root())
        .args(&words)
        .output()
        .unwrap();
    assert_eq!(e.status.code(), Some(1), "{}", stderr(&e));
    let shown = stdout(&e);
    assert!(shown.starts_with("they differ"), "{shown}");
    assert!(
        shown.contains("$v0 differs: where each run last wrote it"),
        "{shown}"
    );
    assert!(
        shown.contains("addu v0,") || shown.contains("addu\tv0,"),
        "{shown}"
    );
    // The same from the JSON report, with the trace in JSON.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("cx.json");
    let mut with_json = cmp.to_vec();
    with_json.extend(["--format", "json"]);
    std::fs::write(&report, run(&with_json).stdout).unwrap();
    let o = run(&[
        "explain",
        &obj,
        &obj,
        "--from",
        report.to_str().unwrap(),
        "--format",
        "json",
        "--context",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["differ"], true);
    assert_eq!(j["right"]["function"], "popcount_buggy");
    assert_eq!(j["left"]["observed"][0], 32);
    assert_eq!(j["right"]["observed"][0], 31);
    assert_eq!(j["left"]["trace"].as_array().map(Vec::len), Some(5));
    let writer = &j["right"]["writers"][0];
    assert!(
        writer["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["reg"] == "$v0" && c["after"] == 31),
        "{writer}"
    );
    // Equal runs: exit 0.
    let o = run(&[
        "explain",
        &obj,
        &obj,
        "--function",
        "popcount_loop",
        "--right-function",
        "popcount_swar",
        "--a0",
        "255",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("they do not differ"));
    // CS241 options, an unknown function, a CS241 program: usage errors.
    for bad in [
        vec![
            "explain",
            obj.as_str(),
            obj.as_str(),
            "--function",
            "popcount_loop",
            "--r1",
            "3",
        ],
        vec!["explain", obj.as_str(), obj.as_str(), "--function", "nope"],
        vec![
            "explain",
            "examples/paper/fig5-left.asm",
            "examples/paper/fig5-right.asm",
            "--function",
            "f",
        ],
    ] {
        let o = run(&bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stdout(&o));
    }
}

#[test]
fn grade_grades_a_class_of_functions_and_groups_its_bugs_by_proof() {
    let reference = format!("{EX}/class/reference.o");
    let subs = format!("{EX}/class/submissions");
    let base = [
        "grade",
        reference.as_str(),
        subs.as_str(),
        "--function",
        "clamp",
        "--args",
        "3",
    ];
    let o = run(&base);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("2 equivalent, 4 disequivalent, 0 possibly-equivalent, 0 unusable"),
        "{text}"
    );
    let mut with_json = base.to_vec();
    with_json.extend(["--format", "json"]);
    let j = json(&run(&with_json));
    let subs_json = j["submissions"].as_array().expect("submissions");
    let verdict = |name: &str| {
        subs_json
            .iter()
            .find(|s| s["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .map(|s| s["verdict"].as_str().unwrap_or_default().to_string())
    };
    assert_eq!(verdict("alice.o").as_deref(), Some("equivalent"));
    assert_eq!(verdict("alice-O2.o").as_deref(), Some("equivalent"));
    assert_eq!(verdict("bob.o").as_deref(), Some("disequivalent"));
    // carol and dave forget the same case, in two ways: one group, proved.
    let groups = j["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 3, "{groups:?}");
    let two: Vec<&Value> = groups
        .iter()
        .filter(|g| g["members"].as_array().map(Vec::len) == Some(2))
        .collect();
    assert_eq!(two.len(), 1);
    let members = two[0]["members"].to_string();
    assert!(
        members.contains("carol.o") && members.contains("dave.o"),
        "{members}"
    );
    // Every witness replays: the reference's run and the submission's end differently.
    for s in subs_json.iter().filter(|s| s["verdict"] == "disequivalent") {
        let args = &s["args"];
        let mut cmd = vec![
            "run".to_string(),
            reference.clone(),
            "--function".into(),
            "clamp".into(),
        ];
        for k in 0..3 {
            cmd.push(format!("--a{k}"));
            cmd.push(args[format!("$a{k}")].to_string());
        }
        let r = run(&cmd.iter().map(String::as_str).collect::<Vec<_>>());
        let mine = run(&cmd
            .iter()
            .map(|a| {
                if a == &reference {
                    s["path"].as_str().unwrap()
                } else {
                    a.as_str()
                }
            })
            .collect::<Vec<_>>());
        assert_ne!(
            stdout(&r).lines().nth(1),
            stdout(&mine).lines().nth(1),
            "{s}"
        );
    }
    // CSV: one row per submission under a header.
    let mut with_csv = base.to_vec();
    with_csv.extend(["--format", "csv"]);
    let csv = stdout(&run(&with_csv));
    assert_eq!(csv.lines().count(), 7, "{csv}");
    assert!(csv.starts_with("path,verdict,group,args"), "{csv}");
    // Too little fuel to cover the correct ones: possibly-equivalent, exit status 3.
    let mut short = with_json.clone();
    short.extend(["--fuel", "5"]);
    let o = run(&short);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let j = json(&o);
    assert!(
        j["summary"]["possibly_equivalent"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "{j}"
    );
    let undecided = j["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["verdict"] == "possibly-equivalent");
    assert!(
        undecided.is_some_and(|s| s["reasons"].to_string().contains("fuel")),
        "{j}"
    );
    // A missing function in the reference, CS241 options: usage errors.
    for bad in [
        vec![
            "grade",
            reference.as_str(),
            subs.as_str(),
            "--function",
            "nope",
        ],
        vec![
            "grade",
            reference.as_str(),
            subs.as_str(),
            "--function",
            "clamp",
            "--html",
            "out",
        ],
        vec!["grade", reference.as_str(), subs.as_str()],
    ] {
        let o = run(&bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stdout(&o));
    }
}

#[test]
fn the_function_reports_follow_their_schemas() {
    let pop = format!("{EX}/popcount-O2.o");
    let div = (format!("{EX}/divmod-O2.o"), format!("{EX}/divmod-O0.o"));
    let class = (
        format!("{EX}/class/reference.o"),
        format!("{EX}/class/submissions"),
    );
    let loops = (format!("{EX}/loops-O0.o"), format!("{EX}/loops-O2.o"));
    let bytes = (format!("{EX}/bytes-O0.o"), format!("{EX}/bytes-O2.o"));
    let tmp = tempfile::tempdir().unwrap();
    let certificate = tmp.path().join("cert").to_str().unwrap().to_string();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "run-function",
            vec!["run", &pop, "--function", "popcount_loop", "--a0", "7"],
        ),
        (
            "run-function",
            vec!["run", &div.1, "--function", "divmod", "--a0", "1"],
        ),
        (
            "compare-function",
            vec![
                "compare",
                &pop,
                &pop,
                "--function",
                "popcount_loop",
                "--right-function",
                "popcount_swar",
                "--args",
                "1",
            ],
        ),
        (
            "compare-function",
            vec![
                "compare",
                &div.0,
                &div.1,
                "--function",
                "divmod",
                "--right-function",
                "divmod_unguarded",
                "--args",
                "2",
            ],
        ),
        (
            "compare-function",
            vec![
                "compare",
                &pop,
                &pop,
                "--function",
                "popcount_loop",
                "--args",
                "1",
                "--fuel",
                "20",
            ],
        ),
        (
            "compare-function",
            vec![
                "compare",
                &loops.0,
                &loops.1,
                "--function",
                "affine_sum",
                "--args",
                "2",
                "--unbounded",
            ],
        ),
        (
            "compare-function",
            vec![
                "compare",
                &loops.0,
                &loops.1,
                "--function",
                "count_up",
                "--args",
                "2",
                "--unbounded",
                "--certificate",
                &certificate,
            ],
        ),
        (
            "compare-function",
            vec![
                "compare",
                &loops.0,
                &loops.0,
                "--function",
                "spin_on_seven",
                "--right-function",
                "zero",
                "--args",
                "1",
                "--unbounded",
                "--fuel",
                "2000",
            ],
        ),
        (
            "explain-function",
            vec![
                "explain",
                &pop,
                &pop,
                "--function",
                "popcount_loop",
                "--right-function",
                "popcount_buggy",
                "--a0",
                "-1",
            ],
        ),
        (
            "explain-function",
            vec![
                "explain",
                &div.0,
                &div.1,
                "--function",
                "divmod",
                "--right-function",
                "divmod_unguarded",
            ],
        ),
        (
            "grade-function",
            vec![
                "grade",
                &class.0,
                &class.1,
                "--function",
                "clamp",
                "--args",
                "3",
            ],
        ),
        (
            "grade-function",
            vec![
                "grade",
                &class.0,
                &class.1,
                "--function",
                "clamp",
                "--args",
                "3",
                "--unbounded",
            ],
        ),
        (
            "grade-function",
            vec![
                "grade",
                &class.0,
                &class.1,
                &pop,
                "--function",
                "clamp",
                "--args",
                "3",
                "--no-groups",
            ],
        ),
        (
            "compare-function",
            vec![
                "compare",
                &bytes.0,
                &bytes.1,
                "--function",
                "scribble",
                "--args",
                "3",
                "--engine",
                "bmc",
            ],
        ),
    ];
    for (schema, args) in cases {
        let mut args = args.clone();
        args.extend(["--format", "json"]);
        let o = run(&args);
        assert!(
            matches!(o.status.code(), Some(0 | 1 | 3)),
            "{args:?}: {}",
            stderr(&o)
        );
        let report = json(&o);
        assert_eq!(report["schema"], 1, "{args:?}");
        assert_valid(&validator(schema), &report, &format!("{args:?}"));
        // A field the schema does not know is refused.
        let mut extra = report.clone();
        extra["unknown_field"] = Value::from(1);
        assert!(
            !validator(schema).is_valid(&extra),
            "{schema} takes any field"
        );
    }
}

#[test]
fn loops_in_no_fixed_ratio_report_ranking_termination() {
    // One run after the other: every loop of both ends, which the JSON says.
    let o0 = format!("{EX}/loops-O0.o");
    let o = run(&[
        "compare",
        &o0,
        &o0,
        "--function",
        "by_ones",
        "--right-function",
        "by_eights",
        "--args",
        "2",
        "--unbounded",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = json(&o);
    assert_valid(&validator("compare-function"), &report, "by_ones/by_eights");
    assert_eq!(report["proof"]["termination"], "ranking");
    assert!(
        report["proof"]["invariant"]["head/start"].is_array(),
        "{report}"
    );
}

#[test]
fn compare_unbounded_proves_loops_for_runs_of_any_length() {
    let (o0, o2) = (format!("{EX}/loops-O0.o"), format!("{EX}/loops-O2.o"));
    let o = run(&[
        "compare",
        &o0,
        &o2,
        "--function",
        "affine_sum",
        "--args",
        "2",
        "--unbounded",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("equivalent: for every input, runs of any length"),
        "{text}"
    );
    // The invariant ties the strength-reduced counter to the left's index.
    assert!(text.contains("at head/head:"), "{text}");
    assert!(text.contains("= 5 * "), "{text}");
    let o = run(&[
        "compare",
        &o0,
        &o2,
        "--function",
        "affine_sum",
        "--args",
        "2",
        "--unbounded",
        "--format",
        "json",
    ]);
    let report = json(&o);
    assert_eq!(report["verdict"], "equivalent");
    assert_eq!(report["proof"]["fuel"], Value::Null);
    assert_eq!(report["proof"]["method"], "lockstep-induction");
    assert_eq!(report["proof"]["termination"], "lockstep");
    assert!(report["proof"]["invariant"]["head/head"].is_array());
    // Without --unbounded the same pair is bounded by the fuel.
    let o = run(&[
        "compare",
        &o0,
        &o2,
        "--function",
        "affine_sum",
        "--args",
        "2",
        "--fuel",
        "300",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("more than 300 steps"), "{}", stdout(&o));
}

#[test]
fn compare_unbounded_says_when_only_equal_endings_were_proved() {
    let o0 = format!("{EX}/loops-O0.o");
    let o = run(&[
        "compare",
        &o0,
        &o0,
        "--function",
        "spin_on_seven",
        "--right-function",
        "zero",
        "--args",
        "1",
        "--unbounded",
        "--fuel",
        "2000",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let report = json(&o);
    assert_eq!(report["verdict"], "possibly-equivalent");
    assert_eq!(report["proof"]["termination"], "not-proved");
    assert_eq!(report["reasons"][0]["kind"], "termination");
    // A closed form whose product wraps past n = 65,536: no invariant holds, and the
    // reason says why.
    let o2 = format!("{EX}/loops-O2.o");
    let o = run(&[
        "compare",
        &o0,
        &o2,
        "--function",
        "sum_of_i",
        "--right-function",
        "sum_closed_wrapped",
        "--args",
        "2",
        "--unbounded",
        "--fuel",
        "300",
        "--solver-timeout",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let report = json(&o);
    let reasons = report["reasons"].as_array().unwrap();
    let invariant = reasons.iter().find(|r| r["kind"] == "invariant").unwrap();
    assert!(
        invariant["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{report}"
    );
}

#[test]
fn compare_unbounded_finds_a_difference_after_three_million_trips() {
    // Where the loop proof fails, the state from which a trip broke a fact gives the
    // inputs: 3,000,002 trips, far past the fuel of 300, and replayed before it is
    // printed. The commands it suggests carry the fuel that shows it again. The
    // default per-query time: the queries' work limits decide, not the load.
    let o0 = format!("{EX}/loops-O0.o");
    let args = [
        "compare",
        &o0,
        &o0,
        "--function",
        "count_up",
        "--right-function",
        "count_up_late_needle",
        "--args",
        "2",
        "--unbounded",
        "--fuel",
        "300",
    ];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    // Both returned, differently, on an input past 3,000,000 trips.
    let ending = |side: &str| {
        let line = text.lines().find(|l| l.trim_start().starts_with(side));
        let line = line.unwrap_or_else(|| panic!("no {side} line: {text}"));
        let (call, value) = line.split_once(" returns $v0 = ").expect(&text);
        let a0: u32 = call.split(['(', ',']).nth(1).unwrap().parse().unwrap();
        (a0, value.trim().to_string())
    };
    let (left, right) = (ending("left:"), ending("right:"));
    assert!(left.0 > 3_000_000 && left.0 == right.0, "{text}");
    assert_ne!(left.1, right.1, "{text}");
    // The fuel suggested is the next power of ten above the longer run: tens of
    // millions of steps, past the comparison's 300.
    assert_eq!(text.matches("--fuel 100000000").count(), 3, "{text}");
    // The suggested replay shows the same ending.
    let replay = text
        .lines()
        .find(|l| l.contains("tamarin run") && l.contains("count_up_late_needle"))
        .unwrap();
    let words = shell_words::split(replay.trim()).unwrap();
    let o = run(&words[1..].iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("$v0 = {}", right.1)),
        "{}",
        stdout(&o)
    );
}

#[test]
fn grade_unbounded_says_so_in_its_reports() {
    let (reference, subs) = (
        format!("{EX}/class/reference.o"),
        format!("{EX}/class/submissions"),
    );
    let args = [
        "grade",
        &reference,
        &subs,
        "--function",
        "clamp",
        "--args",
        "3",
        "--unbounded",
    ];
    let o = run(&args);
    assert!(
        stdout(&o).starts_with("grade: 6 submissions") && stdout(&o).contains("runs of any length"),
        "{}",
        stdout(&o)
    );
    let mut with_json = args.to_vec();
    with_json.extend(["--format", "json"]);
    let report = json(&run(&with_json));
    assert_eq!(report["unbounded"], true);
    assert_eq!(report["summary"]["equivalent"], 2);
}

/// The answer of cvc5 to each SMT-LIB file of `dir`, or `None` when it is not
/// installed.
fn cvc5_answers(dir: &Path) -> Option<Vec<(String, String)>> {
    let cvc5 = Path::new("/usr/bin/cvc5");
    if !cvc5.exists() {
        eprintln!("note: /usr/bin/cvc5 is not installed: the certificate is not re-checked");
        return None;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "smt2"))
        .collect();
    files.sort();
    Some(
        files
            .iter()
            .map(|f| {
                let o = std::process::Command::new(cvc5)
                    .arg("--tlimit=60000")
                    .arg(f)
                    .output()
                    .unwrap();
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                (name, String::from_utf8_lossy(&o.stdout).trim().to_string())
            })
            .collect(),
    )
}

#[test]
fn compare_unbounded_writes_a_certificate_that_cvc5_rechecks() {
    let (o0, o2) = (format!("{EX}/loops-O0.o"), format!("{EX}/loops-O2.o"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cert");
    let d = dir.to_str().unwrap();
    let args = [
        "compare",
        &o0,
        &o2,
        "--function",
        "count_up",
        "--args",
        "2",
        "--unbounded",
        "--certificate",
        d,
    ];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".smt2"))
        .collect();
    assert!(
        text.contains(&format!("certificate: {d} ({} checks)", files.len())),
        "{text}"
    );
    // Every kind of check of a loop against its closed form, each in the index.
    let index = std::fs::read_to_string(dir.join("certificate.json")).unwrap();
    let index: Value = serde_json::from_str(&index).unwrap();
    let checks = index["checks"].as_array().unwrap();
    assert_eq!(checks.len(), files.len());
    for kind in ["initiation", "consecution", "exit", "termination"] {
        assert!(checks.iter().any(|c| c["kind"] == kind), "{kind}: {index}");
    }
    for c in checks {
        assert_eq!(c["expected"], "unsat");
        assert!(
            files.contains(&c["file"].as_str().unwrap().to_string()),
            "{c}"
        );
    }
    if let Some(answers) = cvc5_answers(&dir) {
        assert_eq!(answers.len(), files.len());
        for (file, answer) in answers {
            assert_eq!(answer, "unsat", "{file}");
        }
    }
    // Again, in JSON: the folder in the proof, and no file left of the first run.
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let report = json(&run(&json_args));
    assert_eq!(report["proof"]["certificate"], d);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), files.len() + 2);
    // Without --certificate the field is null.
    let mut plain = args[..args.len() - 2].to_vec();
    plain.extend(["--format", "json"]);
    let report = json(&run(&plain));
    assert_eq!(report["proof"]["certificate"], Value::Null);
}

#[test]
fn the_certificate_of_a_sum_against_its_closed_form_rechecks_under_plain_cvc5() {
    // A degree-2 fact: the checks with opaque products, and the lemmas they assume,
    // each file unsat for cvc5 without options.
    let (o0, o2) = (format!("{EX}/loops-O0.o"), format!("{EX}/loops-O2.o"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cert");
    let o = run(&[
        "compare",
        &o2,
        &o0,
        "--function",
        "sum_closed",
        "--right-function",
        "sum_of_i",
        "--args",
        "2",
        "--unbounded",
        "--certificate",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let index = std::fs::read_to_string(dir.join("certificate.json")).unwrap();
    let index: Value = serde_json::from_str(&index).unwrap();
    let checks = index["checks"].as_array().unwrap();
    assert_eq!(index["logic"], "mixed", "{index}");
    let lemmas: Vec<&str> = checks
        .iter()
        .filter(|c| c["kind"] == "lemma")
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    assert_eq!(lemmas.len(), 4, "{index}");
    assert!(
        lemmas.iter().any(|f| f.contains("lemma-next-triangle")),
        "{index}"
    );
    assert!(
        checks
            .iter()
            .any(|c| c["kind"] == "consecution" && c["logic"] == "QF_UFBV"),
        "{index}"
    );
    let readme = std::fs::read_to_string(dir.join("README")).unwrap();
    assert!(readme.contains("mul64"), "{readme}");
    if let Some(answers) = cvc5_answers(&dir) {
        assert_eq!(answers.len(), checks.len());
        for (file, answer) in answers {
            assert_eq!(answer, "unsat", "{file}");
        }
    }
}

#[test]
fn certificate_is_refused_without_a_loop_proof_to_write() {
    let o0 = format!("{EX}/loops-O0.o");
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("cert");
    let d = d.to_str().unwrap();
    let reference = root().join("examples/grading/reference.asm");
    let r = reference.to_str().unwrap();
    let cases: [Vec<&str>; 2] = [
        // Without --unbounded.
        vec![
            "compare",
            &o0,
            &o0,
            "--function",
            "count_up",
            "--certificate",
            d,
        ],
        // CS241 programs.
        vec!["compare", r, r, "--certificate", d],
    ];
    for args in cases {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains("--certificate"), "{}", stderr(&o));
        assert!(stderr(&o).contains("--unbounded"), "{}", stderr(&o));
    }
    assert!(!Path::new(d).exists());
    // A folder that cannot be made: an error that names it, exit status 2.
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let inside = file.join("cert");
    let o = run(&[
        "compare",
        &o0,
        &o0,
        "--function",
        "count_up",
        "--args",
        "2",
        "--unbounded",
        "--certificate",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&format!(
            "cannot write the certificate to {}",
            inside.display()
        )),
        "{}",
        stderr(&o)
    );
}
