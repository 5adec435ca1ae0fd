//! End-to-end tests of `tamarin grade` on the real binary: the example class
//! (examples/grading), every report format against its layout, the store (a run
//! killed with SIGKILL and resumed, a rerun after one file changed, Ctrl-C), broken
//! and foreign files, task files, and the HTML page in a headless browser.
//!
//! Every run passes `--portfolio none` so that verdicts do not depend on the
//! machine's load, and keeps its store in a temporary folder.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

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

/// Grades the example class from the repository root with `extra` options and a store
/// in `store`; the exit status and standard output.
fn grade_example(store: &Path, extra: &[&str]) -> (i32, String) {
    let out = tamarin()
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
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A finished command's exit status, standard output and standard error.
fn outcome(out: &std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not exactly one JSON object ({e}): {stdout}"))
}

/// Each submission's file name and verdict.
fn verdicts(report: &Value) -> BTreeMap<String, String> {
    report["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|s| {
            let path = s["path"].as_str().expect("path");
            let name = path.rsplit('/').next().expect("a name").to_string();
            (name, s["verdict"].as_str().expect("verdict").to_string())
        })
        .collect()
}

fn submission<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .find(|s| s["path"].as_str().is_some_and(|p| p.ends_with(name)))
        .unwrap_or_else(|| panic!("no submission {name}: {report}"))
}

const EXAMPLE_FILES: [&str; 10] = [
    "broken.asm",
    "bug_fallthrough.asm",
    "bug_min.asm",
    "bug_overflow.asm",
    "bug_unsigned.asm",
    "bug_unsigned_default.asm",
    "correct_default.asm",
    "correct_mult.asm",
    "correct_swapped.asm",
    "loops_on_equal.asm",
];

#[test]
fn the_example_class_gets_its_verdicts_and_groups() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("s.sqlite");
    let (status, out) = grade_example(&store, &["--format", "json"]);
    // Some submissions differ or do not assemble, none is undecided.
    assert_eq!(status, 1, "{out}");
    let report = json(&out);
    let v = verdicts(&report);
    assert_eq!(
        v.keys().collect::<Vec<_>>(),
        EXAMPLE_FILES.iter().collect::<Vec<_>>()
    );
    for (file, verdict) in [
        ("broken.asm", "does-not-assemble"),
        ("bug_fallthrough.asm", "disequivalent"),
        ("bug_min.asm", "disequivalent"),
        ("bug_overflow.asm", "disequivalent"),
        ("bug_unsigned.asm", "disequivalent"),
        ("bug_unsigned_default.asm", "disequivalent"),
        ("correct_default.asm", "equivalent"),
        ("correct_mult.asm", "equivalent"),
        ("correct_swapped.asm", "equivalent"),
    ] {
        assert_eq!(v[file], verdict, "{file}");
    }
    // Under grade's termination rule, spinning where the reference ends is wrong, and
    // the witness shows it.
    assert_eq!(v["loops_on_equal.asm"], "disequivalent");
    let spins = &submission(&report, "loops_on_equal.asm")["witness"];
    assert_eq!(spins["reference"]["status"], "done", "{spins}");
    assert_eq!(spins["submission"]["status"], "out-of-fuel", "{spins}");
    let counts = &report["summary"]["counts"];
    assert_eq!(counts["disequivalent"], 6);
    assert_eq!(counts["does-not-assemble"], 1);
    assert_eq!(report["summary"]["submissions"], 10);
    assert_eq!(report["summary"]["from_store"], 0);

    // The diagnostic, with its place.
    let broken = submission(&report, "broken.asm");
    let message = broken["message"].as_str().expect("a message");
    assert!(message.contains("broken.asm:2:11:"), "{message}");
    assert!(message.contains("expected `,`"), "{message}");
    assert_eq!(broken["diagnostic"]["line"], 2);
    assert_eq!(broken["diagnostic"]["column"], 11);
    assert!(broken["diagnostic"]["text"]
        .as_str()
        .is_some_and(|t| t.contains("slt $4, $1")));

    // The skipped file.
    let skipped = report["skipped"].as_array().expect("skipped");
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0]["path"]
        .as_str()
        .is_some_and(|p| p.ends_with("README.txt")));

    // A witness replays as compare prints it.
    let min = submission(&report, "bug_min.asm");
    let w = &min["witness"];
    assert_ne!(w["reference"]["$3"], w["submission"]["$3"], "{w}");
    let replay = w["replay"]["submission"].as_str().expect("replay");
    assert!(
        replay.starts_with("tamarin run examples/grading/submissions/bug_min.asm --r1 "),
        "{replay}"
    );
    assert!(
        replay.ends_with(" --fuel 1000"),
        "the task's fuel: {replay}"
    );

    // Groups: every wrong submission in exactly one, the ids match, largest first,
    // and the two unsigned comparisons in one group (their witnesses take the same
    // path through the reference, so no proof is spent on them).
    let groups = report["groups"].as_array().expect("groups");
    let mut seen = HashSet::new();
    let mut last = usize::MAX;
    for g in groups {
        let members = g["members"].as_array().expect("members");
        assert_eq!(g["size"], members.len());
        assert!(members.len() <= last, "largest first");
        last = members.len();
        assert_eq!(members[0]["joined"], "representative");
        assert_eq!(members[0]["path"], g["representative"]);
        for m in members {
            let path = m["path"].as_str().expect("path");
            assert!(seen.insert(path.to_string()), "{path} in two groups");
            let name = path.rsplit('/').next().expect("name");
            assert_eq!(submission(&report, name)["group"], g["id"], "{path}");
        }
    }
    let wrong: HashSet<String> = report["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .filter(|s| s["verdict"] == "disequivalent")
        .map(|s| s["path"].as_str().expect("path").to_string())
        .collect();
    assert_eq!(seen, wrong);
    let unsigned = submission(&report, "bug_unsigned.asm")["group"].clone();
    assert_eq!(
        submission(&report, "bug_unsigned_default.asm")["group"],
        unsigned
    );
    let g = groups
        .iter()
        .find(|g| g["id"] == unsigned)
        .expect("the unsigned group");
    assert!(g["formed_by"]
        .as_array()
        .expect("formed_by")
        .contains(&"same-reference-path".into()));
    assert_eq!(report["summary"]["grouping_cut_by_wall_clock"], false);
    // The minimum and the overflow differ from the unsigned ones on their witnesses.
    assert_ne!(submission(&report, "bug_min.asm")["group"], unsigned);
    assert_ne!(submission(&report, "bug_overflow.asm")["group"], unsigned);

    // The same class from the store, as text.
    let (status, text) = grade_example(&store, &[]);
    assert_eq!(status, 1);
    let first = text.lines().next().expect("a summary line");
    assert!(
        first.starts_with("10 submissions against examples/grading/reference.asm: 3 equivalent, 6 disequivalent, 0 possibly-equivalent, 1 does-not-assemble;"),
        "{first}"
    );
    assert!(first.contains("(9 from the store)"), "{first}");
    assert!(text.contains("skipped examples/grading/submissions/README.txt: not a program file"));
    assert!(text.contains("group 1 of "), "{text}");
    assert!(text.contains("    tamarin run examples/grading/reference.asm --r1 "));
    let list: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "submissions:")
        .skip(1)
        .collect();
    assert_eq!(list.len(), 10, "{text}");
    for file in EXAMPLE_FILES {
        assert_eq!(
            list.iter().filter(|l| l.contains(file)).count(),
            1,
            "{file}: {text}"
        );
    }
    assert!(list
        .iter()
        .any(|l| l.contains("broken.asm: line 2, column 11: expected `,`")));
}

// ---------------------------------------------------------------- formats

/// Grading and grouping are timed apart, and `--no-groups` leaves the wrong
/// submissions ungrouped (their verdicts the same, each with its own witness).
#[test]
fn grouping_is_timed_apart_and_can_be_left_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (status, out) = grade_example(&dir.path().join("a.sqlite"), &["--format", "json"]);
    assert_eq!(status, 1, "{out}");
    let grouped = json(&out);
    let summary = &grouped["summary"];
    let (total, grading, grouping) = (
        summary["seconds"].as_f64().expect("seconds"),
        summary["grading_seconds"]
            .as_f64()
            .expect("grading_seconds"),
        summary["grouping_seconds"]
            .as_f64()
            .expect("grouping_seconds"),
    );
    assert!((grading + grouping - total).abs() < 1e-6, "{summary}");
    common::schema::assert_valid(&common::schema::validator("grade"), &grouped, "grade");

    let (status, out) = grade_example(
        &dir.path().join("b.sqlite"),
        &["--format", "json", "--no-groups"],
    );
    assert_eq!(status, 1, "{out}");
    let alone = json(&out);
    common::schema::assert_valid(&common::schema::validator("grade"), &alone, "grade");
    assert_eq!(verdicts(&alone), verdicts(&grouped));
    assert_eq!(alone["summary"]["groups"], 0, "{alone}");
    assert!(
        alone["summary"].get("grouping_seconds").is_none(),
        "{alone}"
    );
    assert!(grouped["summary"]["groups"].as_u64() > Some(0), "{grouped}");
    for s in alone["submissions"].as_array().expect("submissions") {
        if s["verdict"] == "disequivalent" {
            assert!(s["witness"].is_object(), "{s}");
        }
    }
    let (_, text) = grade_example(&dir.path().join("b.sqlite"), &["--no-groups"]);
    assert!(text.contains("0 groups of wrong submissions"), "{text}");
    let (_, text) = grade_example(&dir.path().join("a.sqlite"), &[]);
    assert!(text.contains(": grading "), "{text}");
}

/// Each group's members, as file names with how each joined and through whom.
fn group_members(report: &Value) -> Vec<Vec<(String, String, String)>> {
    let name = |v: &Value| {
        v.as_str()
            .unwrap_or("")
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string()
    };
    report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| {
            g["members"]
                .as_array()
                .expect("members")
                .iter()
                .map(|m| (name(&m["path"]), name(&m["joined"]), name(&m["with"])))
                .collect()
        })
        .collect()
}

/// A limit of a nanosecond has passed before grouping starts, on any machine: the
/// grouping is cut, and the report is whole (every wrong submission in a group of its
/// own, no join guessed) and says so.
#[test]
fn a_tiny_group_timeout_cuts_grouping_and_the_report_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("a.sqlite");
    let (status, out) = grade_example(&store, &["--format", "json", "--group-timeout", "1e-9"]);
    assert_eq!(status, 1, "{out}");
    let report = json(&out);
    common::schema::assert_valid(&common::schema::validator("grade"), &report, "grade");
    assert_eq!(
        report["summary"]["grouping_cut_by_wall_clock"], true,
        "{report}"
    );
    let wrong = verdicts(&report)
        .into_iter()
        .filter(|(_, v)| v == "disequivalent")
        .count();
    let groups = group_members(&report);
    assert_eq!(groups.len(), wrong, "{report}");
    assert!(groups.iter().all(|g| g.len() == 1), "{report}");
    let (_, text) = grade_example(&store, &["--group-timeout", "1e-9"]);
    let first = text.lines().next().expect("a summary line");
    assert!(first.contains("grouping cut by its time limit"), "{first}");
    assert!(first.contains("a larger --group-timeout"), "{first}");

    // `grade merge` takes it too (a store of a whole run is one shard of one).
    let out = tamarin()
        .args(["grade", "merge"])
        .arg(&store)
        .arg("--store")
        .arg(dir.path().join("m.sqlite"))
        .args(["--format", "json", "--group-timeout", "1e-9"])
        .output()
        .expect("run tamarin");
    let merged = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        merged["summary"]["grouping_cut_by_wall_clock"], true,
        "{merged}"
    );
    assert_eq!(group_members(&merged), groups);
}

/// `group-timeout` in a task file, the flag winning over it; values that are no
/// number of seconds are refused with exit status 2.
#[test]
fn group_timeout_comes_from_the_flag_or_the_task_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let task_text = std::fs::read_to_string(root().join("examples/grading/task.toml"))
        .expect("the example task");
    let reference = root().join("examples/grading/reference.asm");
    let task_with = |line: &str| -> PathBuf {
        let text = task_text.replace(
            "reference = \"reference.asm\"",
            &format!("reference = {:?}\n{line}", reference.display().to_string()),
        );
        let path = dir.path().join("task.toml");
        std::fs::write(&path, text).expect("write the task");
        path
    };
    let run = |task: &Path, store: &str, extra: &[&str]| {
        let out = tamarin()
            .arg("grade")
            .arg("--task")
            .arg(task)
            .args([
                "examples/grading/submissions",
                "--format",
                "json",
                "--store",
            ])
            .arg(dir.path().join(store))
            .args(extra)
            .output()
            .expect("run tamarin");
        outcome(&out)
    };
    let help = tamarin()
        .args(["grade", "--help"])
        .output()
        .expect("run tamarin");
    let help = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let default = tamarin_grade::groups::DEFAULT_GROUP_TIMEOUT_SECS;
    assert!(
        help.contains(&format!(
            "[default: {default}, or the task's group-timeout]"
        )),
        "{help}"
    );
    let cut = |out: &str| json(out)["summary"]["grouping_cut_by_wall_clock"].clone();
    let task = task_with("group-timeout = 1e-9");
    let (status, out, _) = run(&task, "a.sqlite", &[]);
    assert_eq!(status, 1, "{out}");
    assert_eq!(cut(&out), true, "the task's limit: {out}");
    let (status, out, _) = run(&task, "a.sqlite", &["--group-timeout", "0"]);
    assert_eq!(status, 1, "{out}");
    assert_eq!(cut(&out), false, "the flag wins, 0 is no limit: {out}");
    let task = task_with("group-timeout = 600");
    let (status, out, _) = run(&task, "a.sqlite", &[]);
    assert_eq!((status, cut(&out)), (1, false.into()), "{out}");

    for bad in ["-1", "soon", "NaN", "1e400"] {
        let flag = format!("--group-timeout={bad}");
        let (status, _, err) = run(&task, "b.sqlite", &[&flag]);
        assert_eq!(status, 2, "--group-timeout {bad}: {err}");
        assert!(err.contains("--group-timeout"), "{err}");
    }
    // Each error names the file's line, and the key or the value.
    for (bad, named) in [
        ("group-timeout = -1", "`group-timeout`"),
        ("group-timeout = \"soon\"", "\"soon\""),
    ] {
        let task = task_with(bad);
        let (status, _, err) = run(&task, "b.sqlite", &[]);
        assert_eq!(status, 2, "{bad}: {err}");
        assert!(
            err.contains("task.toml:4:") && err.contains(named),
            "{bad}: {err}"
        );
    }
}

/// The budgets of the proofs between wrong submissions are counts, so a generous
/// limit on the whole changes nothing: the array maximum class gets the same groups
/// with no limit and with an hour.
#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn the_amax_groups_are_the_same_with_and_without_a_generous_group_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |store: &str, limit: &str| -> Value {
        let out = tamarin()
            .args([
                "grade",
                "--task",
                "examples/classes/amax/task.toml",
                "examples/classes/amax/submissions",
                "--portfolio",
                "none",
                "--format",
                "json",
                "--group-timeout",
                limit,
                "--store",
            ])
            .arg(dir.path().join(store))
            .output()
            .expect("run tamarin");
        json(&String::from_utf8_lossy(&out.stdout))
    };
    let unlimited = run("a.sqlite", "0");
    let hour = run("b.sqlite", "3600");
    for report in [&unlimited, &hour] {
        assert_eq!(
            report["summary"]["grouping_cut_by_wall_clock"], false,
            "{report}"
        );
        assert!(report["summary"]["groups"].as_u64() > Some(0), "{report}");
    }
    assert_eq!(verdicts(&unlimited), verdicts(&hour));
    assert_eq!(group_members(&unlimited), group_members(&hour));
}

#[test]
fn json_follows_its_schema_and_csv_and_html_list_every_submission() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("s.sqlite");
    let html = dir.path().join("page");
    let (status, out) = grade_example(
        &store,
        &["--format", "json", "--html", html.to_str().expect("utf-8")],
    );
    assert_eq!(status, 1);
    let report = json(&out);
    let validator = common::schema::validator("grade");
    common::schema::assert_valid(&validator, &report, "grade");
    let mut surprise = report.clone();
    surprise["submissions"][0]["surprise"] = 1.into();
    assert!(!validator.is_valid(&surprise), "an unknown field");
    for key in ["schema", "summary", "groups", "submissions", "skipped"] {
        assert!(report.get(key).is_some(), "{key}");
    }
    for s in report["submissions"].as_array().expect("submissions") {
        for key in ["path", "verdict", "seconds", "from_store"] {
            assert!(s.get(key).is_some(), "{key}: {s}");
        }
    }

    // CSV: the header and one row per submission, quoted where needed.
    let (status, out) = grade_example(&store, &["--format", "csv"]);
    assert_eq!(status, 1);
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(String::from)
        .collect();
    assert_eq!(
        header,
        ["path", "verdict", "group", "seconds", "inputs", "reasons", "message"]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a row")).collect();
    assert_eq!(rows.len(), 10, "{out}");
    let broken = rows
        .iter()
        .find(|r| r[0].ends_with("broken.asm"))
        .expect("broken.asm");
    assert_eq!(&broken[1], "does-not-assemble");
    assert!(
        broken[6].contains("expected `,` after"),
        "a comma inside a field: {out}"
    );
    let min = rows
        .iter()
        .find(|r| r[0].ends_with("bug_min.asm"))
        .expect("bug_min.asm");
    assert!(min[2].parse::<usize>().is_ok() && min[4].contains("$1 = "));

    // HTML: every submission listed, each with an anchor that a link points to.
    let page = std::fs::read_to_string(html.join("index.html")).expect("index.html");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script"));
    for file in EXAMPLE_FILES {
        let stem: String = file
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let id = page
            .split("id=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap_or(""))
            .find(|id| id.ends_with(&stem))
            .unwrap_or_else(|| panic!("no anchor for {file}"));
        assert!(page.contains(&format!("href=\"#{id}\"")), "{file}");
        assert!(page.contains(&format!("examples/grading/submissions/{file}")));
    }
    assert!(page.contains("README.txt"));
}

#[test]
fn undecided_submissions_exit_3_with_their_reasons() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("s.sqlite");
    let args = [
        "grade",
        "examples/grading/reference.asm",
        "examples/grading/submissions/correct_mult.asm",
        "examples/grading/submissions/broken.asm",
        "--engine",
        "concolic",
        "--max-runs",
        "1",
        "--portfolio",
        "none",
        "--store",
        store.to_str().expect("utf-8"),
    ];
    let out = tamarin().args(args).output().expect("run");
    // Undecided wins over does-not-assemble.
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("correct_mult.asm: undecided: run-budget"),
        "{text}"
    );
    assert!(
        text.contains("to decide the possibly-equivalent ones: raise --max-runs"),
        "{text}"
    );
    let out = tamarin()
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(3));
    let report = json(&String::from_utf8_lossy(&out.stdout));
    common::schema::assert_valid(&common::schema::validator("grade"), &report, "grade");
    let mult = submission(&report, "correct_mult.asm");
    assert_eq!(mult["verdict"], "possibly-equivalent");
    assert_eq!(mult["from_store"], true);
    assert_eq!(mult["reasons"][0]["kind"], "run-budget");
    assert_eq!(mult["reasons"][0]["advice"], "raise --max-runs");
}

// ---------------------------------------------------------------- the store

/// A class of `n` distinct submissions that each take a fraction of a second to prove
/// equivalent to the reference (a loop of up to 63 turns).
fn generated_class(dir: &Path, n: usize) -> (PathBuf, PathBuf) {
    let reference = dir.join("ref.asm");
    std::fs::write(
        &reference,
        "; $3 = 1 + 2 + ... + ($1 mod 64)\nlis $5\n.word 64\ndivu $1, $5\nmfhi $4\n\
         add $3, $0, $0\nloop:\nbeq $4, $0, done\nadd $3, $3, $4\nlis $6\n.word 1\n\
         sub $4, $4, $6\nbeq $0, $0, loop\ndone:\njr $31\n",
    )
    .expect("write");
    let subs = dir.join("subs");
    std::fs::create_dir_all(&subs).expect("mkdir");
    for k in 0..n {
        // Each one counts down in another register.
        let r = 7 + k;
        std::fs::write(
            subs.join(format!("s{k:02}.asm")),
            format!(
                "lis $5\n.word 64\ndivu $1, $5\nmfhi ${r}\nadd $3, $0, $0\nlis $6\n.word 1\n\
                 top:\nbeq ${r}, $0, end\nadd $3, ${r}, $3\nsub ${r}, ${r}, $6\n\
                 beq $0, $0, top\nend:\njr $31\n"
            ),
        )
        .expect("write");
    }
    (reference, subs)
}

fn grade_args(reference: &Path, subs: &Path, store: &Path) -> Vec<String> {
    [
        "grade",
        reference.to_str().expect("utf-8"),
        subs.to_str().expect("utf-8"),
        "--store",
        store.to_str().expect("utf-8"),
        "--portfolio",
        "none",
        "--fuel",
        "2000",
        "--jobs",
        "1",
        "--format",
        "json",
    ]
    .map(String::from)
    .to_vec()
}

fn spawn(args: &[String]) -> Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("tamarin"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tamarin")
}

/// The rows of the store of submissions (0 before the table exists), and whether
/// their keys are distinct.
fn stored_rows(store: &Path) -> (usize, bool) {
    let Ok(conn) =
        rusqlite::Connection::open_with_flags(store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return (0, true);
    };
    let count = |sql: &str| -> usize {
        conn.query_row(sql, [], |r| r.get::<_, i64>(0))
            .map_or(0, |n| n as usize)
    };
    let all = count("SELECT COUNT(*) FROM results WHERE role = 'submission'");
    let distinct = count("SELECT COUNT(DISTINCT key) FROM results WHERE role = 'submission'");
    (all, all == distinct)
}

/// Waits until the store holds at least `rows` submissions; false if `child` ended
/// first or it took more than a minute.
fn wait_for_rows(child: &mut Child, store: &Path, rows: usize) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if stored_rows(store).0 >= rows {
            return true;
        }
        if child.try_wait().expect("wait").is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn run_to_end(args: &[String]) -> (i32, Value) {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("tamarin"))
        .args(args)
        .output()
        .expect("run tamarin");
    let stdout = String::from_utf8_lossy(&out.stdout);
    (out.status.code().unwrap_or(-1), json(&stdout))
}

fn from_store(report: &Value) -> Vec<(String, bool)> {
    report["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|s| {
            (
                s["path"].as_str().expect("path").to_string(),
                s["from_store"].as_bool().expect("from_store"),
            )
        })
        .collect()
}

#[test]
fn a_killed_run_resumes_from_the_store_and_a_changed_file_is_graded_again() {
    const N: usize = 12;
    let dir = tempfile::tempdir().expect("tempdir");
    let (reference, subs) = generated_class(dir.path(), N);
    let store = dir.path().join("grades.sqlite");
    let args = grade_args(&reference, &subs, &store);

    let mut child = spawn(&args);
    let started = wait_for_rows(&mut child, &store, 3);
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert!(started, "the run ended before the store had 3 rows");
    let (before, distinct) = stored_rows(&store);
    assert!(distinct);
    assert!(
        (3..N).contains(&before),
        "killed mid-run: {before} of {N} stored"
    );
    {
        let conn = rusqlite::Connection::open(&store).expect("open");
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .expect("integrity check");
        assert_eq!(check, "ok");
    }

    // The rerun takes what is stored and does the rest, each once.
    let (status, report) = run_to_end(&args);
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["summary"]["counts"]["equivalent"], N);
    let flags = from_store(&report);
    assert_eq!(flags.len(), N);
    assert_eq!(flags.iter().filter(|(_, s)| *s).count(), before);
    assert_eq!(report["summary"]["from_store"], before);
    assert_eq!(stored_rows(&store), (N, true));

    // A third run does nothing again; after one file changes, only it is graded.
    let (_, report) = run_to_end(&args);
    assert!(from_store(&report).iter().all(|(_, s)| *s));
    let changed = subs.join("s05.asm");
    let mut text = std::fs::read_to_string(&changed).expect("read");
    text.push_str("; a comment added after the deadline\n");
    std::fs::write(&changed, text).expect("write");
    let (status, report) = run_to_end(&args);
    assert_eq!(status, 0);
    let redone: Vec<String> = from_store(&report)
        .into_iter()
        .filter(|(_, s)| !s)
        .map(|(p, _)| p)
        .collect();
    assert_eq!(redone, [changed.display().to_string()]);
    assert_eq!(stored_rows(&store), (N + 1, true));
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_class_reports_what_was_done_and_stores_no_half_result() {
    const N: usize = 12;
    let dir = tempfile::tempdir().expect("tempdir");
    let (reference, subs) = generated_class(dir.path(), N);
    let store = dir.path().join("grades.sqlite");
    let mut args = grade_args(&reference, &subs, &store);
    args.truncate(args.len() - 2); // as text
    let mut child = spawn(&args);
    assert!(
        wait_for_rows(&mut child, &store, 2),
        "the run ended before the store had 2 rows"
    );
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill -INT");
    assert!(sent.success());
    let out = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    let first = stdout.lines().next().unwrap_or("");
    assert!(first.contains("interrupted:"), "{stdout}");
    assert!(stdout.contains("not graded"), "{stdout}");
    // Only finished comparisons were stored: every one of them a proof.
    let conn = rusqlite::Connection::open(&store).expect("open");
    let undecided: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM results WHERE verdict != 'equivalent'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(undecided, 0);
    let (rows, _) = stored_rows(&store);
    assert!(rows < N, "{rows}");
}

// ---------------------------------------------------------------- odd files

#[test]
fn a_corrupt_binary_and_a_foreign_file_are_reported_not_fatal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("ref.asm"), "add $3, $1, $2\njr $31\n").expect("write");
    let subs = d.join("class");
    std::fs::create_dir_all(subs.join("alice")).expect("mkdir");
    std::fs::write(subs.join("alice/sum.asm"), "add $3, $2, $1\njr $31\n").expect("write");
    std::fs::write(subs.join("bob.mips"), [0u8, 1, 2]).expect("write");
    std::fs::write(
        subs.join("carol.asm"),
        b"add $3, $1, $2 ; caf\xe9\njr $31\n",
    )
    .expect("write");
    std::fs::write(subs.join("notes.pdf"), b"%PDF-1.4").expect("write");
    let out = tamarin()
        .current_dir(d)
        .args([
            "grade",
            "ref.asm",
            "class",
            "--portfolio",
            "none",
            "--format",
            "json",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let report = json(&String::from_utf8_lossy(&out.stdout));
    let v = verdicts(&report);
    assert_eq!(v["sum.asm"], "equivalent");
    assert_eq!(v["bob.mips"], "does-not-assemble");
    assert_eq!(v["carol.asm"], "does-not-assemble");
    let bob = submission(&report, "bob.mips")["message"]
        .as_str()
        .expect("message")
        .to_string();
    assert!(
        bob.contains("4-byte words") && bob.contains("3 bytes"),
        "{bob}"
    );
    let carol = submission(&report, "carol.asm");
    assert_eq!(carol["diagnostic"]["line"], 1, "{carol}");
    assert_eq!(report["skipped"][0]["path"], "class/notes.pdf");
    // The default store lies in the current folder.
    assert!(d.join("tamarin-grade.sqlite").exists());
}

#[test]
fn troubles_exit_2_and_task_files_are_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("ref.asm"), "add $3, $1\njr $31\n").expect("write");
    std::fs::write(d.join("good.asm"), "add $3, $1, $2\njr $31\n").expect("write");
    let run = |args: &[&str]| {
        let out = tamarin().current_dir(d).args(args).output().expect("run");
        outcome(&out)
    };
    // A reference that does not assemble.
    let (status, _, err) = run(&["grade", "ref.asm", "good.asm"]);
    assert_eq!(status, 2);
    assert!(err.contains("ref.asm:1"), "{err}");
    // A pattern that matches nothing; a store that cannot be opened.
    let (status, _, err) = run(&["grade", "good.asm", "*.nothing"]);
    assert_eq!(status, 2);
    assert!(err.contains("no file matches"), "{err}");
    std::fs::write(d.join("sub.asm"), "sub $3, $1, $2\njr $31\n").expect("write");
    std::fs::create_dir_all(d.join("dir.sqlite")).expect("mkdir");
    let (status, out, _) = run(&[
        "grade",
        "good.asm",
        "sub.asm",
        "--store",
        "dir.sqlite",
        "--format",
        "json",
    ]);
    assert_eq!(status, 2);
    assert!(out.contains("\"kind\":\"write\""), "{out}");

    // An unknown key in a task file, with its line.
    std::fs::write(
        d.join("task.toml"),
        "reference = \"good.asm\"\nfuel = 100\nfuell = 3\n",
    )
    .expect("write");
    let (status, _, err) = run(&["grade", "--task", "task.toml", "good.asm"]);
    assert_eq!(status, 2);
    assert!(
        err.contains("task.toml:3:1:") && err.contains("fuell"),
        "{err}"
    );

    // The task's settings apply, the command line wins, and globs are expanded.
    std::fs::write(
        d.join("task.toml"),
        "reference = \"good.asm\"\nfuel = 100\ninputs = \"$1,$2\"\nobserve = [\"$3\"]\n",
    )
    .expect("write");
    let (status, out, _) = run(&[
        "grade",
        "--task",
        "task.toml",
        "s*.asm",
        "--portfolio",
        "none",
        "--format",
        "json",
    ]);
    assert_eq!(status, 1, "{out}");
    let report = json(&out);
    let replay = report["submissions"][0]["witness"]["replay"]["reference"]
        .as_str()
        .expect("replay")
        .to_string();
    assert!(replay.ends_with("--fuel 100"), "{replay}");
    let (_, out, _) = run(&[
        "grade",
        "--task",
        "task.toml",
        "s*.asm",
        "--portfolio",
        "none",
        "--format",
        "json",
        "--fuel",
        "50",
    ]);
    let report = json(&out);
    let replay = report["submissions"][0]["witness"]["replay"]["reference"]
        .as_str()
        .expect("replay")
        .to_string();
    assert!(replay.ends_with("--fuel 50"), "{replay}");
}

// ---------------------------------------------------------------- the page in a browser

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn the_page_renders_in_a_headless_browser() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(browser) = common::browser::Browser::find(dir.path()) else {
        println!("skipped: chromium is not installed");
        return;
    };
    let html = dir.path().join("page");
    let (status, _) = grade_example(
        &dir.path().join("s.sqlite"),
        &["--html", html.to_str().expect("utf-8")],
    );
    assert_eq!(status, 1);
    let page = html.join("index.html");
    browser.screenshot(&page, &dir.path().join("shot.png"));
    let dom = browser.dom(&page);
    for file in EXAMPLE_FILES {
        assert!(
            dom.contains(&format!("examples/grading/submissions/{file}")),
            "{file}"
        );
    }
}

#[test]
fn the_termination_rule_and_the_domain_come_from_the_task_or_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("s.sqlite");
    // The report's rule: the submission that spins when $1 == $2 is not found wrong.
    let (_, out) = grade_example(&store, &["--format", "json", "--out-of-fuel", "same"]);
    let report = json(&out);
    assert_eq!(
        verdicts(&report)["loops_on_equal.asm"],
        "equivalent",
        "{out}"
    );
    assert_eq!(report["summary"]["task"]["out_of_fuel"], "same", "{out}");
    // A task whose domain keeps the inputs apart: nothing spins, and the signed and
    // unsigned comparisons agree on non-negative inputs.
    let task = dir.path().join("task.toml");
    let reference =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/grading/reference.asm");
    std::fs::write(
        &task,
        format!(
            "reference = {:?}\nfuel = 1000\nassume = [\"$1 != $2\", \"$1 >= 0\", \"$2 >= 0\"]\n",
            reference.display().to_string()
        ),
    )
    .expect("write task");
    let out = tamarin()
        .args(["grade", "--task"])
        .arg(&task)
        .args([
            "examples/grading/submissions",
            "--format",
            "json",
            "--store",
        ])
        .arg(&store)
        .output()
        .expect("run tamarin");
    let report = json(&String::from_utf8_lossy(&out.stdout));
    let v = verdicts(&report);
    assert_eq!(v["loops_on_equal.asm"], "equivalent", "{report}");
    assert_eq!(v["bug_unsigned.asm"], "equivalent", "{report}");
    let rules = &report["summary"]["task"];
    assert_eq!(rules["out_of_fuel"], "different", "{report}");
    assert_eq!(
        rules["assume"],
        serde_json::json!(["$1 != $2", "$1 >= 0", "$2 >= 0"])
    );
    assert_eq!(v["bug_min.asm"], "disequivalent", "{report}");
    // A bad precondition in the task file is trouble, not a class of failures.
    std::fs::write(
        &task,
        format!(
            "reference = {:?}\nassume = [\"$1 = 2\"]\n",
            reference.display().to_string()
        ),
    )
    .expect("write task");
    let out = tamarin()
        .args(["grade", "--task"])
        .arg(&task)
        .args(["examples/grading/submissions", "--store"])
        .arg(&store)
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("write `==` to compare"));
}

/// Grades the fib class (examples/classes/fib, whose task says `fuel = "auto"`) with
/// `extra` options: the exit status, the JSON report and the text report.
fn grade_fib(extra: &[&str]) -> (i32, Value, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |format: &str| {
        let out = tamarin()
            .args([
                "grade",
                "--task",
                "examples/classes/fib/task.toml",
                "examples/classes/fib/submissions",
                "--portfolio",
                "none",
                "--timeout",
                "300",
                "--format",
                format,
                "--store",
            ])
            .arg(dir.path().join(format!("{format}.sqlite")))
            .args(extra)
            .output()
            .expect("run tamarin");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (status, out) = run("json");
    let (text_status, text) = run("text");
    assert_eq!(status, text_status, "{text}");
    (status, json(&out), text)
}

/// `fuel = "auto"`: the fuel is the reference's most steps on the domain (5,349, at
/// $1 = 12) times 4, the report says so, and the slower correct submission is proved
/// equivalent, with no warning anywhere.
#[test]
fn fuel_auto_sizes_the_fuel_from_the_reference_and_grades_the_slow_solution_right() {
    let (status, report, text) = grade_fib(&[]);
    assert_eq!(status, 1, "{report}");
    let task = &report["summary"]["task"];
    assert_eq!(task["fuel"], 21_396, "{task}");
    let auto = &task["fuel_auto"];
    assert_eq!(
        (
            auto["factor"].as_u64(),
            auto["reference_max_steps"].as_u64(),
            auto["inputs"].as_u64(),
            auto["fuel"].as_u64()
        ),
        (Some(4), Some(5_349), Some(13), Some(21_396)),
        "{auto}"
    );
    assert_eq!(auto["longest"], "$1 = 12 (0x0000000c)", "{auto}");
    let v = verdicts(&report);
    let want = [
        ("correct_iterative.asm", "equivalent"),
        ("correct_push_each.asm", "equivalent"),
        ("wrong_base.asm", "disequivalent"),
        ("wrong_zero_spins.asm", "disequivalent"),
    ];
    assert_eq!(
        v,
        want.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    );
    // A program that spins at any fuel gets no warning: more fuel would not help.
    for s in report["submissions"].as_array().expect("submissions") {
        assert!(s.get("warnings").is_none(), "{s}");
    }
    assert!(!text.contains("warning:"), "{text}");
    assert!(
        text.contains("runs of up to 21396 steps (fuel = \"auto\": 4 × 5,349, the reference's most steps on 13 inputs of the domain)"),
        "{text}"
    );
    let validator = common::schema::validator("grade");
    common::schema::assert_valid(&validator, &report, "grade with fuel = \"auto\"");
}

/// A fixed fuel below the slow solution's steps: its witness is a run out of fuel
/// that ends within 4 × the fuel, and the report warns about it, naming `auto`.
#[test]
fn a_witness_out_of_fuel_that_ends_with_more_fuel_is_warned_about() {
    let (status, report, text) = grade_fib(&["--fuel", "10000"]);
    assert_eq!(status, 1, "{report}");
    assert_eq!(report["summary"]["task"]["fuel"], 10_000);
    assert!(report["summary"]["task"].get("fuel_auto").is_none());
    let slow = submission(&report, "correct_push_each.asm");
    assert_eq!(slow["verdict"], "disequivalent", "{slow}");
    assert_eq!(
        slow["witness"]["submission"]["status"], "out-of-fuel",
        "{slow}"
    );
    let warnings = slow["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{slow}");
    assert_eq!(warnings[0]["kind"], "fuel-too-small");
    let message = warnings[0]["message"].as_str().expect("a message");
    assert!(message.contains("ends after 10,702 steps"), "{message}");
    let advice = warnings[0]["advice"].as_str().expect("advice");
    assert!(
        advice.contains("--fuel auto") && advice.contains("--fuel 10702"),
        "{advice}"
    );
    // The program that spins (out of fuel at any fuel) gets none.
    assert!(submission(&report, "wrong_zero_spins.asm")
        .get("warnings")
        .is_none());
    assert!(
        text.contains("      warning: the submission runs out of fuel on this witness"),
        "{text}"
    );
    let validator = common::schema::validator("grade");
    common::schema::assert_valid(&validator, &report, "grade with a warning");
    // The page says it too.
    let dir = tempfile::tempdir().expect("tempdir");
    tamarin()
        .args([
            "grade",
            "--task",
            "examples/classes/fib/task.toml",
            "examples/classes/fib/submissions",
            "--portfolio",
            "none",
            "--fuel",
            "10000",
            "--no-groups",
            "--store",
        ])
        .arg(dir.path().join("store.sqlite"))
        .arg("--html")
        .arg(dir.path().join("page"))
        .output()
        .expect("run tamarin");
    let page = std::fs::read_to_string(dir.path().join("page/index.html")).expect("the page");
    assert!(
        page.contains("Warning: the submission runs out of fuel"),
        "{page}"
    );
}

/// `compare --task` sizes the fuel as grade does (and says so on standard error), and
/// with a fuel too small it hints at the fuel; `--fuel auto` without a reference to
/// size it from, and a task fuel that is neither a number nor `auto`, are usage errors.
#[test]
fn compare_sizes_the_fuel_too_and_bad_fuels_are_refused() {
    let compare = |extra: &[&str]| {
        let out = tamarin()
            .args([
                "compare",
                "--task",
                "examples/classes/fib/task.toml",
                "examples/classes/fib/submissions/correct_push_each.asm",
                "--portfolio",
                "none",
                "--timeout",
                "300",
            ])
            .args(extra)
            .output()
            .expect("run tamarin");
        outcome(&out)
    };
    let (status, out, err) = compare(&[]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(err.contains("fuel: 4 × 5,349 = 21,396 (auto)"), "{err}");
    let (status, out, _) = compare(&["--fuel", "10000", "--format", "json"]);
    assert_eq!(status, 1, "{out}");
    let report = json(&out);
    let hints = report["hints"].as_array().expect("hints");
    assert!(
        hints.iter().any(|h| h
            .as_str()
            .is_some_and(|h| h.starts_with("the right program runs out of fuel"))),
        "{report}"
    );
    let (status, out, _) = compare(&["--format", "json"]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(json(&out)["task"]["fuel_auto"]["fuel"], 21_396, "{out}");

    // check has no reference to size the fuel from without a task.
    let out = tamarin()
        .args([
            "check",
            "examples/classes/fib/reference.asm",
            "--fuel",
            "auto",
        ])
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--fuel auto sizes the fuel from the reference's runs"),
        "{err}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let task = dir.path().join("task.toml");
    std::fs::write(&task, "reference = \"r.asm\"\n\nfuel = \"lots\"\n").expect("write");
    std::fs::write(dir.path().join("r.asm"), "jr $31\n").expect("write");
    let out = tamarin()
        .args(["compare", "--task"])
        .arg(&task)
        .arg("examples/classes/fib/reference.asm")
        .output()
        .expect("run tamarin");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(":3:") && err.contains("\"auto\""), "{err}");
}
