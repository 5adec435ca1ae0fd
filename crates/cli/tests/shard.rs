//! End-to-end tests of grading in shards on the real binary: `grade --shard K/N`,
//! `grade merge` (equal to one grade of the class; missing, incomplete and foreign
//! stores) and `grade --slurm` (its job scripts run as the scheduler would run them,
//! and submitted through a stand-in `sbatch`). The test on a real Slurm cluster is
//! `scripts/slurm/test-grade.sh`.
//!
//! Every run passes `--portfolio none` so that verdicts do not depend on the
//! machine's load.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// Runs tamarin with `args`: the exit status and standard output (and error).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = tamarin().args(args).output().expect("run tamarin");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const CLASS: [&str; 4] = [
    "grade",
    "--task",
    "examples/grading/task.toml",
    "examples/grading/submissions",
];

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not exactly one JSON object ({e}): {stdout}"))
}

/// Grades the example class into `store` as JSON, with `extra` options.
fn grade_json(store: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = CLASS.to_vec();
    args.extend([
        "--portfolio",
        "none",
        "--format",
        "json",
        "--store",
        path(store),
    ]);
    args.extend(extra);
    run(&args)
}

/// Grades the example class whole; its JSON report.
fn whole(dir: &Path) -> (i32, Value) {
    let (status, out, err) = grade_json(&dir.join("whole.sqlite"), &[]);
    assert!(status == 1, "{err}");
    (status, json(&out))
}

/// Grades shard `k` of `n` of the example class into `dir/shard-k.sqlite`.
fn shard(dir: &Path, k: usize, n: usize) -> (i32, Value, PathBuf) {
    let store = dir.join(format!("shard-{k}.sqlite"));
    let spec = format!("{k}/{n}");
    let (status, out, err) = grade_json(&store, &["--shard", &spec]);
    assert!([0, 1].contains(&status), "shard {spec}: {status} {err}");
    (status, json(&out), store)
}

fn merge(stores: &[&Path], output: &Path, format: &str) -> (i32, String, String) {
    let mut args = vec![
        "grade",
        "merge",
        "--format",
        format,
        "--store",
        path(output),
    ];
    args.extend(stores.iter().map(|s| path(s)));
    run(&args)
}

/// Each submission's verdict and witness inputs, and the groups as sets of files.
type Essence = (
    BTreeMap<String, (String, Value)>,
    BTreeSet<BTreeSet<String>>,
);

/// What must be equal between two reports of one class: each submission's verdict
/// and witness, and the groups as sets of files.
fn essence(report: &Value) -> Essence {
    let subs = report["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|s| {
            (
                s["path"].as_str().expect("path").to_string(),
                (
                    s["verdict"].as_str().expect("verdict").to_string(),
                    s["witness"]["inputs"].clone(),
                ),
            )
        })
        .collect();
    let groups = report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| {
            g["members"]
                .as_array()
                .expect("members")
                .iter()
                .map(|m| m["path"].as_str().expect("path").to_string())
                .collect()
        })
        .collect();
    (subs, groups)
}

fn paths_of(report: &Value) -> BTreeSet<String> {
    report["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|s| s["path"].as_str().expect("path").to_string())
        .collect()
}

#[test]
fn three_shards_merged_are_one_grade_of_the_class() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (whole_status, whole) = whole(dir.path());
    let schema = common::schema::validator("grade");

    let mut stores = Vec::new();
    let mut seen = BTreeSet::new();
    for k in 1..=3 {
        let (_, report, store) = shard(dir.path(), k, 3);
        common::schema::assert_valid(&schema, &report, "a shard's report");
        assert_eq!(report["shard"]["index"], k, "{report}");
        assert_eq!(report["shard"]["count"], 3);
        // A shard forms no groups: the merge does, over the whole class.
        assert_eq!(report["groups"].as_array().map(Vec::len), Some(0));
        let mine = paths_of(&report);
        assert!(
            !mine.is_empty(),
            "ten submissions leave no shard of three empty"
        );
        assert!(
            seen.is_disjoint(&mine),
            "a submission in two shards: {mine:?}"
        );
        seen.extend(mine);
        stores.push(store);
    }
    assert_eq!(seen, paths_of(&whole), "the shards cover the class");

    let merged_store = dir.path().join("merged.sqlite");
    let refs: Vec<&Path> = stores.iter().map(PathBuf::as_path).collect();
    let (status, out, err) = merge(&refs, &merged_store, "json");
    assert_eq!(status, whole_status, "{err}");
    let merged = json(&out);
    common::schema::assert_valid(&schema, &merged, "a merged report");
    assert_eq!(essence(&merged), essence(&whole));
    assert_eq!(merged["shards"]["total"], 3);
    assert_eq!(merged["shards"]["present"], serde_json::json!([1, 2, 3]));
    assert_eq!(merged["shards"]["missing"], serde_json::json!([]));
    assert_eq!(merged["shards"]["incomplete"], serde_json::json!([]));
    // The report lists the class in the order one grade found it.
    let order = |r: &Value| -> Vec<String> {
        r["submissions"]
            .as_array()
            .expect("submissions")
            .iter()
            .map(|s| s["path"].as_str().expect("path").to_string())
            .collect()
    };
    assert_eq!(order(&merged), order(&whole));

    // The text and CSV reports of a merge, again from the merged store.
    let (status, text, _) = merge(&refs, &merged_store, "text");
    assert_eq!(status, whole_status);
    assert!(text.contains("shards: 3 of 3 present"), "{text}");
    assert!(text.contains("4 groups of wrong submissions"), "{text}");
    let (_, csv, _) = merge(&refs, &merged_store, "csv");
    assert_eq!(csv.lines().count(), 11, "a header and ten rows: {csv}");

    // The merged store is an ordinary store: a grade of the class on one machine
    // takes every result from it.
    let (_, out, _) = grade_json(&merged_store, &[]);
    let again = json(&out);
    assert_eq!(essence(&again), essence(&whole));
    assert_eq!(
        again["summary"]["from_store"], 9,
        "all but the one that does not assemble"
    );
}

#[test]
fn slices_depend_on_the_contents_not_the_order_of_the_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files: Vec<String> = std::fs::read_dir(root().join("examples/grading/submissions"))
        .expect("the example class")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .map(|p| p.display().to_string())
        .collect();
    let slice = |files: &[String], store: &str| -> BTreeSet<String> {
        let store = dir.path().join(store);
        let mut args = vec!["grade", "examples/grading/reference.asm", "--shard", "2/3"];
        args.extend([
            "--portfolio",
            "none",
            "--format",
            "json",
            "--store",
            path(&store),
        ]);
        args.extend(files.iter().map(String::as_str));
        let (_, out, err) = run(&args);
        assert!(!out.is_empty(), "{err}");
        paths_of(&json(&out))
    };
    let mut reversed = files.clone();
    reversed.reverse();
    let forward = slice(&files, "a.sqlite");
    assert!(!forward.is_empty());
    assert_eq!(forward, slice(&reversed, "b.sqlite"));
}

/// Deletes the stored result of `file` from the store at `store`; true if there was
/// one.
fn forget(store: &Path, file: &str) -> bool {
    let conn = rusqlite::Connection::open(store).expect("open the store");
    let n = conn
        .execute(
            "DELETE FROM results WHERE role = 'submission' AND path LIKE ?1",
            [format!("%{file}")],
        )
        .expect("delete");
    n > 0
}

#[test]
fn missing_and_incomplete_shards_are_named_and_a_rerun_completes_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, whole) = whole(dir.path());
    let (_, one, s1) = shard(dir.path(), 1, 3);
    let (_, two, s2) = shard(dir.path(), 2, 3);
    let (_, _, s3) = shard(dir.path(), 3, 3);
    let out_store = dir.path().join("merged.sqlite");

    // Shard 2 missing: its submissions are not graded, and the merge exits 3.
    let (status, out, err) = merge(&[&s1, &s3], &out_store, "json");
    assert_eq!(status, 3, "{err}");
    let merged = json(&out);
    assert_eq!(merged["shards"]["missing"], serde_json::json!([2]));
    let not_graded: BTreeSet<String> = merged["summary"]["not_graded"]
        .as_array()
        .expect("not graded")
        .iter()
        .map(|p| p.as_str().expect("path").to_string())
        .collect();
    assert_eq!(not_graded, paths_of(&two));

    // Shard 1 lost a result (as a job stopped before the end does): incomplete.
    let victim = paths_of(&one)
        .into_iter()
        .find(|p| !p.ends_with("broken.asm"))
        .expect("a submission that assembles");
    let file = victim.rsplit('/').next().expect("a name").to_string();
    assert!(forget(&s1, &file));
    let fresh = dir.path().join("fresh.sqlite");
    let (status, text, _) = merge(&[&s1, &s2, &s3], &fresh, "text");
    assert_eq!(status, 3, "{text}");
    assert!(text.contains("incomplete: 1 (rerun them"), "{text}");
    assert!(text.contains("1 not graded"), "{text}");

    // The rerun of shard 1 grades only what is missing, and the merge is whole.
    let (_, rerun, _) = shard(dir.path(), 1, 3);
    let stored: Vec<(String, bool)> = rerun["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|s| {
            (
                s["path"].as_str().expect("path").to_string(),
                s["from_store"].as_bool().expect("from_store"),
            )
        })
        .collect();
    for (p, from_store) in &stored {
        let expected = !(p == &victim || p.ends_with("broken.asm"));
        assert_eq!(*from_store, expected, "{p}: {stored:?}");
    }
    let fresh = dir.path().join("fresh2.sqlite");
    let (status, out, _) = merge(&[&s1, &s2, &s3], &fresh, "json");
    assert_eq!(status, 1);
    assert_eq!(essence(&json(&out)), essence(&whole));
}

#[test]
fn stores_of_other_runs_and_bad_shards_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, _, s1) = shard(dir.path(), 1, 2);
    let other = dir.path().join("other");
    std::fs::create_dir(&other).expect("mkdir");
    let (_, _, t1) = shard(&other, 1, 3);
    let out_store = dir.path().join("m.sqlite");
    let (status, _, err) = merge(&[&s1, &t1], &out_store, "text");
    assert_eq!(status, 2);
    assert!(err.contains("stores of different runs"), "{err}");
    let (status, _, err) = merge(&[&s1], &s1, "text");
    assert_eq!(status, 2);
    assert!(err.contains("give the merge another --store"), "{err}");
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, "not a database at all, just some text").expect("write");
    let (status, _, err) = merge(&[&junk], &out_store, "text");
    assert_eq!(status, 2, "{err}");
    let (status, _, err) = merge(&[&dir.path().join("none.sqlite")], &out_store, "text");
    assert_eq!(status, 2);
    assert!(err.contains("no such file"), "{err}");
    for bad in ["0/2", "3/2", "2", "a/b"] {
        let mut args = CLASS.to_vec();
        args.extend(["--shard", bad]);
        let (status, _, err) = run(&args);
        assert_eq!(status, 2, "{bad}");
        assert!(err.contains("expected K/N"), "{err}");
    }
    let mut args = CLASS.to_vec();
    args.extend(["--shard", "1/2", "--slurm", "2"]);
    assert_eq!(run(&args).0, 2, "--shard and --slurm together");
}

/// `grade --slurm 2` of the example class, its scripts in `dir`.
fn slurm_args(dir: &Path) -> Vec<&str> {
    let mut args = CLASS.to_vec();
    args.extend([
        "--portfolio",
        "none",
        "--slurm",
        "2",
        "--slurm-dir",
        path(dir),
    ]);
    args
}

/// The job scripts of `grade --slurm` for the example class in `dir`.
fn slurm_scripts(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = slurm_args(dir);
    args.extend(extra);
    run(&args)
}

#[test]
fn the_slurm_job_scripts_grade_and_merge_as_the_scheduler_runs_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, whole) = whole(dir.path());
    let slurm = dir.path().join("slurm");
    let (status, out, err) = slurm_scripts(
        &slurm,
        &[
            "--no-submit",
            "--sbatch-arg=--partition=short",
            "--jobs",
            "1",
        ],
    );
    assert_eq!(status, 0, "{err}");
    assert!(out.contains("sbatch --dependency=afterany:"), "{out}");
    let grade = std::fs::read_to_string(slurm.join("grade.sbatch")).expect("grade.sbatch");
    for line in [
        "#SBATCH --array=1-2",
        "#SBATCH --requeue",
        "#SBATCH --partition=short",
        "#SBATCH --cpus-per-task=1",
        "#SBATCH --mem=2560M",
    ] {
        assert!(grade.contains(line), "{line} in {grade}");
    }
    // The limit per submission is 20 s (the task file): 5 distinct submissions in
    // each shard may take 125 s, and the start 300 s.
    assert!(grade.contains("#SBATCH --time=0-00:08:00"), "{grade}");
    let command = grade
        .lines()
        .find(|l| l.contains(" grade --shard "))
        .expect("the shard's command");
    assert!(
        !command.contains("--slurm"),
        "the tasks do not submit again: {command}"
    );
    assert!(!command.contains("--partition"), "{command}");

    // Run the array's tasks and then the merge as Slurm would: with the task's id
    // in the environment, from any folder.
    for k in 1..=2 {
        let status = std::process::Command::new("bash")
            .arg(slurm.join("grade.sbatch"))
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .current_dir(root())
            .output()
            .expect("bash");
        assert!(status.status.success(), "{status:?}");
    }
    let status = std::process::Command::new("bash")
        .arg(slurm.join("merge.sbatch"))
        .current_dir(root())
        .output()
        .expect("bash");
    assert!(status.status.success(), "{status:?}");
    let done = std::fs::read_to_string(slurm.join("merge.done")).expect("merge.done");
    assert_eq!(
        done.trim(),
        "1",
        "the merge's exit status: some submissions are wrong"
    );
    let report = std::fs::read_to_string(slurm.join("report.json")).expect("report.json");
    assert_eq!(essence(&json(&report)), essence(&whole));
    assert!(slurm.join("html/index.html").is_file());
    let text = std::fs::read_to_string(slurm.join("report.txt")).expect("report.txt");
    assert!(text.contains("shards: 2 of 2 present"), "{text}");
}

#[cfg(unix)]
#[test]
fn grade_slurm_submits_the_array_and_the_merge_after_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    // A stand-in sbatch that records its arguments and answers job ids 41, 42.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let log = dir.path().join("sbatch.log");
    let fake = bin.join("sbatch");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{log}'\nn=$(wc -l < '{log}')\necho $((40 + n))\n",
            log = log.display()
        ),
    )
    .expect("write sbatch");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let slurm = dir.path().join("slurm");
    let args = slurm_args(&slurm);
    let path_var = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = tamarin()
        .args(&args)
        .env("PATH", path_var)
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("array job: 41 (2 shards"), "{stdout}");
    assert!(stdout.contains("merge job: 42"), "{stdout}");
    let calls = std::fs::read_to_string(&log).expect("sbatch was run");
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[0].ends_with("grade.sbatch"), "{calls:?}");
    assert!(calls[1].contains("--dependency=afterany:41"), "{calls:?}");
    assert!(calls[1].ends_with("merge.sbatch"), "{calls:?}");

    // Without a limit per submission the tasks cannot be sized; a missing sbatch is
    // trouble, said as such.
    let (status, _, err) = slurm_scripts(&slurm, &["--timeout", "0", "--no-submit"]);
    assert_eq!(status, 2);
    assert!(err.contains("give --timeout"), "{err}");
    let out = tamarin()
        .args(&args)
        .env("PATH", dir.path().join("nowhere"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run sbatch"));
    let (status, _, err) = slurm_scripts(&slurm, &["--store", "x.sqlite"]);
    assert_eq!(status, 2, "--store and --slurm together: {err}");
}
