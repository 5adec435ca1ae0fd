//! The `soundness` binary run in shards: two shards of a small run and their sum
//! (`--merge`) count what the unsharded run counts; missing shards, failed checks,
//! other runs' files and bad `--shard` values give their exit statuses.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// A small run that stays fast in a debug build (about a second) and far from its
/// time limits, so that its verdicts do not depend on the machine's load.
const RUN: &[&str] = &[
    "--seed",
    "1",
    "--pairs",
    "16",
    "--shapes",
    "straight,branch,call,jump-table,output",
    "--engine",
    "concolic",
    "--inputs",
    "200",
    "--compare-timeout",
    "60",
    "--solver-timeout",
    "10",
    "--no-spin-checks",
    "--jobs",
    "2",
    "--progress",
    "0",
];

fn soundness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_soundness"))
        .args(args)
        .output()
        .expect("the soundness binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs the small run (one shard of it with `shard`), writing its summary to `file`.
fn run(shard: Option<&str>, file: &Path) -> Value {
    let mut args = RUN.to_vec();
    if let Some(s) = shard {
        args.extend(["--shard", s]);
    }
    args.extend(["--summary", file.to_str().unwrap()]);
    let o = soundness(&args);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    read(file)
}

fn read(file: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

fn merge(files: &[&Path], summary: Option<&Path>) -> Output {
    let mut args = vec!["--merge".to_string()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    if let Some(s) = summary {
        args.extend(["--summary".to_string(), s.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    soundness(&args)
}

/// A summary's counts without the times.
fn counts(summary: &Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for key in [
                    "compare_time",
                    "concrete_time",
                    "slowest",
                    "longest",
                    "spin_slowest",
                ] {
                    m.remove(key);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut c = summary["counts"].clone();
    strip(&mut c);
    c
}

#[test]
fn two_shards_merged_count_what_the_whole_run_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let whole = run(None, &path("whole.json"));
    assert_eq!(whole["shard"], serde_json::json!({"k": 1, "n": 1}));
    assert_eq!(whole["pairs_checked"], 16);
    let one = run(Some("1/2"), &path("shard-1.json"));
    let two = run(Some("2/2"), &path("shard-2.json"));
    assert_eq!(one["shard"], serde_json::json!({"k": 1, "n": 2}));
    // Dealt in blocks of one pair of each of the five shapes: positions 0-4 and
    // 10-14 to the first shard, 5-9 and 15 to the second.
    assert_eq!(one["pairs_checked"], 10);
    assert_eq!(two["pairs_checked"], 6);
    for key in ["seed", "start", "pairs", "shapes", "engines", "settings"] {
        assert_eq!(one[key], whole[key], "{key}");
    }

    // In either order.
    let o = merge(
        &[&path("shard-2.json"), &path("shard-1.json")],
        Some(&path("sum.json")),
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("shard 1/2: 10 of 10 pairs"), "{out}");
    assert!(
        out.contains("==== summary (seed 1, engine concolic, 2 shards merged) ===="),
        "{out}"
    );
    assert!(out.contains("pairs checked: 16"), "{out}");
    let sum = read(&path("sum.json"));
    assert_eq!(counts(&sum), counts(&whole), "{out}");
    for key in [
        "pairs_checked",
        "pairs_to_check",
        "failed_checks",
        "failed_pairs",
        "missed_differences",
    ] {
        assert_eq!(sum[key], whole[key], "{key}");
    }
    assert_eq!(sum["shard"], Value::Null);
    assert_eq!(sum["merged"]["missing"], serde_json::json!([]));

    // A shard missing: exit 3, and which.
    let o = merge(&[&path("shard-2.json")], None);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("MISSING shards: 1/2"), "{}", stdout(&o));

    // A failed check in a shard (planted in its file): exit 1, even with a shard
    // missing, and the pair named.
    let mut failed = two.clone();
    failed["counts"]["findings"] = serde_json::json!({"equivalent-but-differs": 1});
    failed["counts"]["failed_pairs"] = 1.into();
    failed["counts"]["failed_indices"] = serde_json::json!([7]);
    std::fs::write(path("failed.json"), failed.to_string()).unwrap();
    for files in [
        &[&*path("shard-1.json"), &*path("failed.json")][..],
        &[&*path("failed.json")][..],
    ] {
        let o = merge(files, None);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("failed pairs (`--only INDEX` checks one again): 7"),
            "{}",
            stdout(&o)
        );
    }

    // Files of another run, the same shard twice, no such file: exit 2.
    for (files, message) in [
        (
            &[&*path("shard-1.json"), &*path("whole.json")][..],
            "the number of shards differ",
        ),
        (
            &[&*path("shard-1.json"), &*path("shard-1.json")][..],
            "both shard 1/2",
        ),
        (&[&*path("none.json")][..], "none.json"),
        (&[&*path("sum.json")][..], "a sum of shards already"),
    ] {
        let o = merge(files, None);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(stderr(&o).contains(message), "{}", stderr(&o));
    }
}

#[test]
fn bad_shards_are_usage_errors() {
    for bad in ["0/2", "3/2", "1/0", "2", "a/b", "1/2/3", ""] {
        let o = soundness(&["--pairs", "0", "--progress", "0", "--shard", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stdout(&o));
        assert!(stderr(&o).contains("--shard"), "{bad}: {}", stderr(&o));
    }
    // An empty shard of a run with fewer pairs than shards is no error.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    let o = soundness(&[
        "--pairs",
        "2",
        "--shard",
        "3/4",
        "--progress",
        "0",
        "--summary",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let s = read(&file);
    assert_eq!(s["pairs_to_check"], 0);
    assert_eq!(s["pairs_checked"], 0);
    // --merge takes no run options; a summary that cannot be written is refused first.
    let o = soundness(&["--merge", "x.json", "--pairs", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let o = soundness(&["--pairs", "1", "--summary", "/nonexistent/dir/s.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot write the summary"),
        "{}",
        stderr(&o)
    );
}
