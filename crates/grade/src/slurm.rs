//! `tamarin grade --slurm N`: grades a class on a Slurm cluster with the cluster's own
//! scheduler. It writes two job scripts and submits them with `sbatch`: an array job
//! of N tasks, each `tamarin grade --shard K/N` with a store of its own, and a merge
//! job that waits for the array (`afterany`, so that it also reports shards that
//! failed) and runs `tamarin grade merge`. The scripts stay in the folder, readable
//! and editable, and can be submitted again by hand.
//!
//! Each task's time limit is derived from its share of the class and the limit per
//! submission, its memory from the comparisons it runs at once (see [`Limits`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::run::{ClassEntry, RunRecord};
use crate::words::s;
use crate::{Error, Settings};

/// What `grade --slurm` was asked for.
#[derive(Clone, Debug)]
pub struct Plan<'a> {
    /// The folder of the job scripts, stores, logs and report.
    pub dir: &'a Path,
    /// Options for sbatch, written into both scripts.
    pub sbatch_args: &'a [String],
    /// Write the scripts without submitting them.
    pub no_submit: bool,
    /// Comparisons each task runs at once (`--jobs`).
    pub jobs: Option<usize>,
}

/// What one array task or the merge job asks the scheduler for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub cpus: usize,
    pub seconds: u64,
    pub mem_mib: u64,
}

/// Memory for one comparison at a time (Z3 and the engine), in MiB, and the rest of
/// the process.
const MIB_PER_COMPARISON: u64 = 2048;
const MIB_BASE: u64 = 512;
/// Time for the start, the loading of the class and the store, in seconds.
const START_SECONDS: u64 = 300;

impl Limits {
    /// An array task that grades `per_shard` distinct submissions, `jobs` at once,
    /// each within `timeout` seconds: every one may take its whole limit, plus a
    /// quarter for the time a comparison takes to notice it, plus the start.
    pub fn shard(per_shard: usize, jobs: usize, timeout: u64) -> Limits {
        let rounds = per_shard.div_ceil(jobs.max(1)) as u64;
        Limits {
            cpus: jobs.max(1),
            seconds: rounds * timeout + rounds * timeout / 4 + START_SECONDS,
            mem_mib: MIB_BASE + MIB_PER_COMPARISON * jobs.max(1) as u64,
        }
    }

    /// The merge job of a class of `submissions`: the groups compare wrong
    /// submissions with the representatives that known inputs do not tell apart
    /// (most with one or two), so twice one grading of the class on `jobs` cores.
    pub fn merge(submissions: usize, jobs: usize, timeout: u64) -> Limits {
        let rounds = submissions.div_ceil(jobs.max(1)) as u64;
        Limits {
            cpus: jobs.max(1),
            seconds: 2 * rounds * timeout + 2 * START_SECONDS,
            mem_mib: MIB_BASE + MIB_PER_COMPARISON * jobs.max(1) as u64,
        }
    }

    /// `--time` as sbatch takes it: `D-HH:MM:SS`, rounded up to a minute.
    pub fn time(&self) -> String {
        let minutes = self.seconds.div_ceil(60);
        let (days, rest) = (minutes / (24 * 60), minutes % (24 * 60));
        format!("{days}-{:02}:{:02}:00", rest / 60, rest % 60)
    }
}

/// Writes the job scripts into `--slurm-dir` and submits them.
/// What it says goes to `out`; `tamarin` is the tool's own executable.
pub fn submit(
    plan: &Plan,
    argv: &[String],
    run: &RunRecord,
    settings: &Settings,
    tamarin: &Path,
    out: &mut dyn std::io::Write,
) -> Result<(), Error> {
    let count = run.shard.count;
    let timeout = settings.opts.timeout.map_or(0, |t| t.as_secs());
    if timeout == 0 {
        return Err(Error::Usage(
            "--slurm sizes each task's time limit from the limit per submission: give --timeout (0 means none)".into(),
        ));
    }
    // Distinct contents per shard, as the run dealt them out.
    let mut per: Vec<BTreeSet<String>> = vec![BTreeSet::new(); count];
    for e in &run.submissions {
        if let Some(ids) = per.get_mut(e.shard.saturating_sub(1)) {
            ids.insert(ClassEntry::shard_id(&e.name, e.sha.as_deref()));
        }
    }
    let distinct: usize = per.iter().map(BTreeSet::len).sum();
    let per_shard = per.iter().map(BTreeSet::len).max().unwrap_or(0);
    let jobs = plan.jobs.filter(|&j| j > 0).unwrap_or(1);
    let shard_limits = Limits::shard(per_shard, jobs, timeout);
    let merge_limits = Limits::merge(run.submissions.len(), jobs, timeout);

    let dir = plan.dir;
    for sub in ["stores", "logs"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|source| Error::Read {
            what: "the folder",
            path: dir.join(sub).display().to_string(),
            source,
        })?;
    }
    let dir = std::fs::canonicalize(dir).map_err(|source| Error::Read {
        what: "the folder",
        path: dir.display().to_string(),
        source,
    })?;
    let cwd = std::env::current_dir().map_err(|source| Error::Read {
        what: "the current folder",
        path: ".".into(),
        source,
    })?;
    let scripts = Scripts {
        tamarin,
        dir: &dir,
        cwd: &cwd,
        count,
        jobs,
        extra: plan.sbatch_args,
    };
    let grade_script = dir.join("grade.sbatch");
    let merge_script = dir.join("merge.sbatch");
    write_file(
        &grade_script,
        &scripts.grade(&shard_arguments(argv), shard_limits),
    )?;
    write_file(&merge_script, &scripts.merge(merge_limits))?;

    if distinct < count {
        eprintln!(
            "tamarin: warning: {count} shards for {distinct} distinct submission{}: {} shard{} will have nothing to grade",
            s(distinct),
            count - distinct,
            s(count - distinct)
        );
    }
    let quote = |p: &Path| shell_words::quote(&p.display().to_string()).into_owned();
    if plan.no_submit {
        writeln!(
            out,
            "wrote {} and {}",
            grade_script.display(),
            merge_script.display()
        )
        .map_err(Error::Output)?;
        writeln!(out, "submit them with:").map_err(Error::Output)?;
        writeln!(
            out,
            "  array=$(sbatch --parsable {}) && sbatch --dependency=afterany:${{array%%;*}} {}",
            quote(&grade_script),
            quote(&merge_script)
        )
        .map_err(Error::Output)?;
        return Ok(());
    }
    let array = sbatch(&["--parsable".into(), grade_script.display().to_string()])?;
    writeln!(
        out,
        "array job: {array} ({count} shard{}, each up to {} and {} MiB on {} core{})",
        s(count),
        shard_limits.time(),
        shard_limits.mem_mib,
        jobs,
        s(jobs)
    )
    .map_err(Error::Output)?;
    let merge = sbatch(&[
        "--parsable".into(),
        format!("--dependency=afterany:{array}"),
        merge_script.display().to_string(),
    ])?;
    writeln!(out, "merge job: {merge} (after the array)").map_err(Error::Output)?;
    writeln!(
        out,
        "report: {} (and report.json, html/index.html); merge.done holds its exit status",
        dir.join("report.txt").display()
    )
    .map_err(Error::Output)?;
    Ok(())
}

/// Runs `sbatch ARGS` and returns the job's id.
fn sbatch(args: &[String]) -> Result<String, Error> {
    let output = Command::new("sbatch").args(args).output().map_err(|e| {
        Error::Usage(format!(
            "cannot run sbatch ({e}): is Slurm installed here? (--no-submit writes the job scripts only)"
        ))
    })?;
    if !output.status.success() {
        return Err(Error::Usage(format!(
            "sbatch {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    // `--parsable` prints `ID` or `ID;CLUSTER`.
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(Error::Usage(format!(
            "sbatch printed `{}`, not a job id",
            text.trim()
        )));
    }
    Ok(id)
}

fn write_file(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text).map_err(|source| Error::Write {
        path: path.display().to_string(),
        source,
    })
}

/// `grade`'s arguments (after the program's name) without those of `--slurm` and
/// those each task sets itself (`--jobs`, `--format`): what every shard runs with.
pub fn shard_arguments(argv: &[String]) -> Vec<String> {
    const WITH_VALUE: [&str; 5] = [
        "--slurm",
        "--slurm-dir",
        "--sbatch-arg",
        "--jobs",
        "--format",
    ];
    const FLAGS: [&str; 1] = ["--no-submit"];
    let mut out = Vec::new();
    let mut tokens = argv.iter().skip_while(|t| *t != "grade").skip(1);
    while let Some(token) = tokens.next() {
        if token == "--" {
            out.push(token.clone());
            out.extend(tokens.cloned());
            break;
        }
        if FLAGS.contains(&token.as_str()) {
            continue;
        }
        if WITH_VALUE.contains(&token.as_str()) || token == "-j" {
            tokens.next();
            continue;
        }
        let joined = WITH_VALUE
            .iter()
            .any(|f| token.strip_prefix(f).is_some_and(|r| r.starts_with('=')));
        let short_jobs = token.starts_with("-j") && !token.starts_with("--");
        if joined || short_jobs {
            continue;
        }
        out.push(token.clone());
    }
    out
}

/// What the job scripts are made of.
struct Scripts<'a> {
    tamarin: &'a Path,
    dir: &'a Path,
    cwd: &'a Path,
    count: usize,
    jobs: usize,
    extra: &'a [String],
}

impl Scripts<'_> {
    fn quote(&self, p: &Path) -> String {
        shell_words::quote(&p.display().to_string()).into_owned()
    }

    fn header(&self, name: &str, limits: Limits, log: &str) -> String {
        let mut s = String::from("#!/bin/bash\n");
        let _ = writeln!(s, "# Written by `tamarin grade --slurm {}`.", self.count);
        let _ = writeln!(s, "#SBATCH --job-name={name}");
        let _ = writeln!(s, "#SBATCH --cpus-per-task={}", limits.cpus);
        let _ = writeln!(s, "#SBATCH --mem={}M", limits.mem_mib);
        let _ = writeln!(s, "#SBATCH --time={}", limits.time());
        let _ = writeln!(
            s,
            "#SBATCH --output={}",
            self.dir.join("logs").join(log).display()
        );
        let _ = writeln!(s, "#SBATCH --open-mode=append");
        let _ = writeln!(s, "#SBATCH --chdir={}", self.cwd.display());
        s
    }

    fn extra(&self) -> String {
        self.extra
            .iter()
            .map(|a| format!("#SBATCH {a}\n"))
            .collect()
    }

    /// The array job: one shard per task, each with its store; a task stopped by the
    /// scheduler and queued again resumes from its store.
    fn grade(&self, args: &[String], limits: Limits) -> String {
        let n = self.count;
        let mut s = self.header("tamarin-grade", limits, "shard-%a.log");
        let _ = writeln!(s, "#SBATCH --array=1-{n}");
        s.push_str("#SBATCH --requeue\n");
        s.push_str(&self.extra());
        let _ = write!(
            s,
            "set -u\n\
             k=${{SLURM_ARRAY_TASK_ID:?submit this script with sbatch}}\n\
             echo \"shard $k of {n}, restart ${{SLURM_RESTART_COUNT:-0}}, on $(hostname)\"\n\
             echo \"started $(date +%s)\"\n\
             status=0\n\
             {tamarin} grade --shard \"$k/{n}\" --store {stores}/shard-\"$k\".sqlite --jobs {jobs} {args} || status=$?\n\
             echo \"finished $(date +%s) status $status\"\n\
             # 0, 1 and 3 are grades (all equivalent, some wrong, some undecided); 2 is\n\
             # trouble and 130 a stop, which the task's state shows.\n\
             case $status in 0|1|3) exit 0 ;; *) exit \"$status\" ;; esac\n",
            tamarin = self.quote(self.tamarin),
            stores = self.quote(&self.dir.join("stores")),
            jobs = self.jobs,
            args = shell_words::join(args),
        );
        s
    }

    /// The merge job: joins the shards' stores (those that exist: the report names
    /// the missing ones) and writes the report as JSON, text and a page.
    fn merge(&self, limits: Limits) -> String {
        let n = self.count;
        let mut s = self.header("tamarin-merge", limits, "merge.log");
        s.push_str(&self.extra());
        let dir = |name: &str| self.quote(&self.dir.join(name));
        let _ = write!(
            s,
            "set -u\n\
             echo \"merge started $(date +%s)\"\n\
             rm -f {done}\n\
             stores=()\n\
             for k in $(seq 1 {n}); do\n  \
               f={stores}/shard-$k.sqlite\n  \
               [ -f \"$f\" ] && stores+=(\"$f\")\n\
             done\n\
             status=0\n\
             if [ ${{#stores[@]}} -eq 0 ]; then\n  \
               echo \"no shard wrote its store: see {logs}\" >&2\n  \
               status=2\n\
             else\n  \
               {tamarin} grade merge --store {merged} --jobs {jobs} --format json --html {html} \"${{stores[@]}}\" > {json} || status=$?\n  \
               {tamarin} grade merge --store {merged} --jobs {jobs} --format text \"${{stores[@]}}\" > {text} || true\n\
             fi\n\
             echo \"merge finished $(date +%s) status $status\"\n\
             echo \"$status\" > {done}\n\
             case $status in 0|1|3) exit 0 ;; *) exit \"$status\" ;; esac\n",
            done = dir("merge.done"),
            stores = self.quote(&self.dir.join("stores")),
            logs = self.quote(&self.dir.join("logs")),
            tamarin = self.quote(self.tamarin),
            merged = dir("merged.sqlite"),
            jobs = self.jobs,
            html = dir("html"),
            json = dir("report.json"),
            text = dir("report.txt"),
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_shards_run_without_the_slurm_options() {
        let argv = strings(&[
            "grade",
            "--slurm",
            "4",
            "--slurm-dir=out",
            "--sbatch-arg",
            "--partition=x",
            "--no-submit",
            "-j",
            "2",
            "--jobs=3",
            "-j4",
            "--format",
            "json",
            "--format=csv",
            "--task",
            "t.toml",
            "subs",
            "--timeout",
            "9",
            "--",
            "--odd-name.asm",
        ]);
        assert_eq!(
            shard_arguments(&argv),
            strings(&[
                "--task",
                "t.toml",
                "subs",
                "--timeout",
                "9",
                "--",
                "--odd-name.asm"
            ])
        );
    }

    #[test]
    fn limits_grow_with_the_share_and_the_timeout() {
        let one = Limits::shard(10, 1, 30);
        assert_eq!(one.seconds, 300 + 375);
        assert_eq!(one.time(), "0-00:12:00");
        assert_eq!(one.mem_mib, 2560);
        let two = Limits::shard(10, 2, 30);
        assert!(two.seconds < one.seconds && two.mem_mib > one.mem_mib);
        assert_eq!(two.cpus, 2);
        assert_eq!(Limits::shard(1000, 1, 300).time(), "4-08:15:00");
        assert!(Limits::merge(10, 1, 30).seconds > Limits::shard(10, 1, 30).seconds);
    }
}
