//! The compiler-pair campaign: random WLP4-style programs, each compiled twice (naive
//! and register-allocating code, sometimes with a planted bug), linked with the
//! runtime's print, compared on output and `$3`, and checked as `soundness` checks
//! its pairs; two compilations of one program without a bug must never differ.
//!
//! ```text
//! cargo run --release -p tamarin-harness --bin compiler-pairs -- --pairs 2000 --seed 1 \
//!     [--engine auto] [--minutes M] [--jobs N] [--shard K/N] [--summary FILE] [--dump DIR]
//! ```
//!
//! `--dump DIR` writes each pair as `DIR/NNNNN/{left.asm,right.asm,meta.json}` (the
//! unlinked assembly, and what made the pair, with its verdict); `meta.json`'s
//! `compare` field is the `tamarin compare` command that repeats it from that folder's
//! parent's parent (the repository root) with `.` replaced by the folder.
//!
//! `--course` checks the course corpus instead of random pairs: each hand-written
//! program of `compiler::course` compiled naively against register-allocating code,
//! and against register-allocating code with each of two planted bugs (fixed, so every
//! run checks the same pairs); one line per pair (program, kind, bug, verdicts,
//! seconds) and a summary (decided pairs, the largest and median times, findings).
//! With `--dump DIR` its pairs go to `DIR/NN-program-{regalloc,bug-KIND-SITE}/`.
//!
//! Exits 1 if any check failed, 2 on a usage error or a file that cannot be written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Parser;
use tamarin::Engine;
use tamarin_harness::campaign::{self, RunSettings, Selection, Shard, SummaryFile};
use tamarin_harness::check::{parse_engines, CheckConfig, Kind, PairResult};
use tamarin_harness::compiler::course::{course_pairs, CoursePair};
use tamarin_harness::compiler::{
    check_compiler_pair, make_compiler_pair, CompilerKind, CompilerPair,
};

#[derive(Parser, Debug)]
#[command(
    name = "compiler-pairs",
    about = "Checks tamarin's verdicts on WLP4-style programs compiled two ways and linked with print"
)]
struct Args {
    /// Pairs to check (with --minutes, the most to check).
    #[arg(long, default_value_t = 2000)]
    pairs: u64,
    /// Names the stream of pairs: the same seed makes the same pairs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Index of the first pair.
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// The engines that compare each pair: concolic, bmc, auto, all, or several
    /// separated by commas.
    #[arg(long, default_value = "auto", value_parser = engine_names)]
    engine: Engines,
    /// Concrete inputs per equivalent or possibly-equivalent pair.
    #[arg(long, default_value_t = 20_000)]
    inputs: usize,
    /// Stop starting new pairs after this many minutes.
    #[arg(long, value_parser = non_negative)]
    minutes: Option<f64>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Steps per run, in compare and in the concrete runs (print alone takes about 200
    /// steps a number).
    #[arg(long, default_value_t = 20_000)]
    fuel: u64,
    /// Time limit of one compare, in seconds (0: none).
    #[arg(long, default_value_t = 5.0, value_parser = non_negative)]
    compare_timeout: f64,
    /// Time limit of one solver query, in seconds (0: the engine's default).
    #[arg(long, default_value_t = 1.0, value_parser = non_negative)]
    solver_timeout: f64,
    /// Compare left-right only.
    #[arg(long)]
    no_symmetric: bool,
    /// Failed pairs and missed differences to print in full.
    #[arg(long, default_value_t = 5)]
    show: usize,
    /// Seconds between progress lines (0: none).
    #[arg(long, default_value_t = 30)]
    progress: u64,
    /// Print one line per pair checked.
    #[arg(long)]
    verbose: bool,
    /// Check only pair INDEX and print it in full, with its source.
    #[arg(long, value_name = "INDEX", conflicts_with_all = ["shard", "summary"])]
    only: Option<u64>,
    /// Check only shard K of N (1 <= K <= N) of the run's pairs.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Write a summary of the run to FILE, as JSON (soundness's summary, with the
    /// counts by compiler-pair kind added as `compiler_kinds`).
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// Write each pair checked to DIR/NNNNN/{left.asm,right.asm,meta.json}.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// Check the course corpus (hand-written programs, each compiled naive against
    /// register-allocating, and against it with two fixed planted bugs) instead of
    /// random pairs.
    #[arg(long, conflicts_with_all = ["only", "shard", "summary", "minutes"])]
    course: bool,
}

#[derive(Clone, Debug)]
struct Engines(Vec<Engine>);

fn engine_names(s: &str) -> Result<Engines, String> {
    parse_engines(s).map(Engines)
}

fn non_negative(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if x.is_finite() && (0.0..=525_600.0 * 60.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s} is not a number from 0 to 31536000"))
    }
}

/// Counts of one compiler-pair kind: left-right verdicts of the first engine.
#[derive(Clone, Debug, Default, serde::Serialize)]
struct KindCounts {
    pairs: u64,
    disequivalent: u64,
    equivalent: u64,
    possibly_equivalent: u64,
    crash: u64,
    failed: u64,
    /// Pairs that stayed possibly-equivalent (indices).
    undecided: Vec<u64>,
}

impl KindCounts {
    fn add(&mut self, index: u64, r: &PairResult) {
        self.pairs += 1;
        self.failed += u64::from(r.failed());
        match r.runs.first().map(|run| run.forward.kind) {
            Some(Kind::Disequivalent) => self.disequivalent += 1,
            Some(Kind::Equivalent) => self.equivalent += 1,
            Some(Kind::PossiblyEquivalent) => {
                self.possibly_equivalent += 1;
                self.undecided.push(index);
            }
            Some(Kind::Crash) | None => self.crash += 1,
        }
    }

    fn decided(&self) -> u64 {
        self.disequivalent + self.equivalent
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let cfg = CheckConfig {
        fuel: args.fuel,
        inputs: args.inputs,
        compare_timeout: (args.compare_timeout > 0.0)
            .then(|| Duration::from_secs_f64(args.compare_timeout)),
        solver_timeout: (args.solver_timeout > 0.0)
            .then(|| Duration::from_secs_f64(args.solver_timeout)),
        depth: None,
        symmetric: !args.no_symmetric,
        engines: args.engine.0.clone(),
        spin_checks: false,
    };
    if let Some(dir) = &args.dump {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("compiler-pairs: cannot create {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }

    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    if args.course {
        return run_course(&args, &cfg, jobs);
    }

    if let Some(i) = args.only {
        let cp = make_compiler_pair(args.seed, i);
        let r = check_compiler_pair(&cp, &cfg);
        println!("--- source ---\n{}", cp.source.text());
        println!("{}", r.reproducer());
        println!("{}", r.line());
        if let Some(dir) = &args.dump {
            if let Err(e) = dump(&dir.join(format!("{:05}", cp.index)), &cp, &r, None) {
                eprintln!("compiler-pairs: cannot write the pair: {e}");
                return ExitCode::from(2);
            }
        }
        return if r.failed() {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }

    if !campaign::summary_writable("compiler-pairs", args.summary.as_deref()) {
        return ExitCode::from(2);
    }
    let sel = Selection {
        start: args.start,
        pairs: args.pairs,
        shapes: Vec::new(),
        shard: args.shard.unwrap_or(Shard::WHOLE),
    };
    let settings = RunSettings {
        jobs,
        deadline: args
            .minutes
            .map(|m| Instant::now() + Duration::from_secs_f64(m * 60.0)),
        progress: (args.progress > 0).then(|| Duration::from_secs(args.progress)),
        verbose: args.verbose,
        show: args.show,
    };
    println!(
        "compiler-pairs: engine {}, seed {}, pairs {}..{}{}, {} inputs per non-disequivalent pair, fuel {}, compare timeout {}, {} job(s)",
        cfg.engines.iter().map(|e| e.name()).collect::<Vec<_>>().join(","),
        args.seed,
        args.start,
        args.start.saturating_add(args.pairs),
        if sel.shard == Shard::WHOLE {
            String::new()
        } else {
            format!(", shard {} ({} pairs)", sel.shard, sel.share())
        },
        cfg.inputs,
        cfg.fuel,
        cfg.compare_timeout
            .map_or("none".to_string(), |t| format!("{:.1} s", t.as_secs_f64())),
        jobs,
    );

    let by_kind: Mutex<BTreeMap<CompilerKind, KindCounts>> = Mutex::new(BTreeMap::new());
    let dump_errors = Mutex::new(Vec::new());
    let outcome = campaign::run(&sel, &settings, |index| {
        let cp = make_compiler_pair(args.seed, index);
        let r = check_compiler_pair(&cp, &cfg);
        if let Ok(mut m) = by_kind.lock() {
            m.entry(cp.kind).or_default().add(index, &r);
        }
        if let Some(dir) = &args.dump {
            if let Err(e) = dump(&dir.join(format!("{:05}", index)), &cp, &r, None) {
                if let Ok(mut errs) = dump_errors.lock() {
                    errs.push(format!("pair {index}: {e}"));
                }
            }
        }
        r
    });
    let by_kind = by_kind.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut by_kind = by_kind;
    for counts in by_kind.values_mut() {
        counts.undecided.sort_unstable();
    }
    let file = SummaryFile::of_run(args.seed, &sel, &cfg, &outcome);
    print!("{}", file.report());
    println!(
        "by compiler-pair kind (left-right verdicts of {}):",
        cfg.engines().first().map_or("auto", |e| e.name())
    );
    for (kind, c) in &by_kind {
        println!(
            "  {:<22} {:>6} pairs: {} disequivalent, {} equivalent, {} possibly-equivalent, {} crash; decided {}; {} failed",
            kind.name(),
            c.pairs,
            c.disequivalent,
            c.equivalent,
            c.possibly_equivalent,
            c.crash,
            c.decided(),
            c.failed
        );
    }
    let pairs = outcome.summary.pairs.max(1);
    println!(
        "{} pairs in {:.1} s ({:.2} s a pair, {} job(s)); {} finding(s)",
        outcome.summary.pairs,
        outcome.elapsed.as_secs_f64(),
        outcome.elapsed.as_secs_f64() * jobs as f64 / pairs as f64,
        jobs,
        file.failed_checks
    );
    let errs = dump_errors.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut status = ExitCode::SUCCESS;
    if !errs.is_empty() {
        eprintln!(
            "compiler-pairs: {} pair(s) not dumped, first: {}",
            errs.len(),
            errs[0]
        );
        status = ExitCode::from(2);
    }
    if let Some(path) = &args.summary {
        if let Err(e) = write_summary(path, &file, &by_kind) {
            eprintln!(
                "compiler-pairs: cannot write the summary {}: {e}",
                path.display()
            );
            status = ExitCode::from(2);
        }
    }
    if file.failed_checks > 0 {
        ExitCode::FAILURE
    } else {
        status
    }
}

fn write_summary(
    path: &Path,
    file: &SummaryFile,
    by_kind: &BTreeMap<CompilerKind, KindCounts>,
) -> Result<(), String> {
    let mut v: serde_json::Value =
        serde_json::from_str(&file.to_json()).map_err(|e| e.to_string())?;
    let kinds: serde_json::Map<String, serde_json::Value> = by_kind
        .iter()
        .map(|(k, c)| {
            (
                k.name().to_string(),
                serde_json::to_value(c).unwrap_or_default(),
            )
        })
        .collect();
    if let Some(obj) = v.as_object_mut() {
        obj.insert("compiler_kinds".into(), serde_json::Value::Object(kinds));
    }
    let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| e.to_string())
}

/// Writes the pair to the folder `d`: the unlinked sides and `meta.json` (with the
/// verdicts, the reasons of a possibly-equivalent one, and the course program's name).
fn dump(d: &Path, cp: &CompilerPair, r: &PairResult, program: Option<&str>) -> std::io::Result<()> {
    let fuel = r.fuel;
    std::fs::create_dir_all(d)?;
    std::fs::write(d.join("left.asm"), cp.left.text())?;
    std::fs::write(d.join("right.asm"), cp.right.text())?;
    let mut meta = cp.meta();
    let verdicts: serde_json::Map<String, serde_json::Value> = r
        .runs
        .iter()
        .map(|run| {
            (
                run.engine.name().to_string(),
                serde_json::json!({
                    "forward": run.forward.kind.name(),
                    "backward": run.backward.as_ref().map(|b| b.kind.name()),
                    "incomplete": run.forward.incomplete,
                    "reasons": (run.forward.kind == Kind::PossiblyEquivalent)
                        .then(|| run.forward.detail.clone()),
                    "seconds": run.time().as_secs_f64(),
                }),
            )
        })
        .collect();
    if let Some(obj) = meta.as_object_mut() {
        obj.insert("verdicts".into(), serde_json::Value::Object(verdicts));
        obj.insert("failed".into(), r.failed().into());
        if let Some(name) = program {
            obj.insert("program".into(), name.into());
        }
        obj.insert(
            "compare".into(),
            format!(
                "{} --fuel {fuel}",
                cp.compare_command(&d.display().to_string())
            )
            .into(),
        );
    }
    let text = serde_json::to_string_pretty(&meta).map_err(std::io::Error::other)?;
    std::fs::write(d.join("meta.json"), text + "\n")
}

/// One course pair's outcome.
struct CourseOutcome {
    result: PairResult,
    seconds: f64,
}

/// `--course`: checks every course pair (`jobs` at a time), a line for each as it
/// ends, then the table in order and a summary.
fn run_course(args: &Args, cfg: &CheckConfig, jobs: usize) -> ExitCode {
    let pairs = course_pairs();
    println!(
        "compiler-pairs --course: {} pairs, engine {}, {} inputs per non-disequivalent pair, fuel {}, compare timeout {}, {} job(s)",
        pairs.len(),
        cfg.engines.iter().map(|e| e.name()).collect::<Vec<_>>().join(","),
        cfg.inputs,
        cfg.fuel,
        cfg.compare_timeout
            .map_or("none".to_string(), |t| format!("{:.1} s", t.as_secs_f64())),
        jobs,
    );
    let start = Instant::now();
    let outcomes: Vec<Mutex<Option<CourseOutcome>>> =
        pairs.iter().map(|_| Mutex::new(None)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let dump_errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(pairs.len()).max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(cp) = pairs.get(i) else { break };
                let t = Instant::now();
                let result = check_compiler_pair(&cp.pair, cfg);
                let seconds = t.elapsed().as_secs_f64();
                println!("{}", course_line(cp, &result, seconds));
                if let Some(dir) = &args.dump {
                    let d = dir.join(course_folder(cp));
                    if let Err(e) = dump(&d, &cp.pair, &result, Some(cp.name)) {
                        if let Ok(mut errs) = dump_errors.lock() {
                            errs.push(format!("{}: {e}", d.display()));
                        }
                    }
                }
                if let Ok(mut slot) = outcomes[i].lock() {
                    *slot = Some(CourseOutcome { result, seconds });
                }
            });
        }
    });
    let outcomes: Vec<CourseOutcome> = outcomes
        .into_iter()
        .filter_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect();

    println!("--- course pairs, in order ---");
    for (cp, o) in pairs.iter().zip(&outcomes) {
        println!("{}", course_line(cp, &o.result, o.seconds));
    }
    let undecided: Vec<(&CoursePair, &CourseOutcome)> = pairs
        .iter()
        .zip(&outcomes)
        .filter(|(_, o)| !decided(&o.result))
        .collect();
    if !undecided.is_empty() {
        println!("--- not decided: the reasons ---");
        for (cp, o) in &undecided {
            for run in &o.result.runs {
                for (dir, d) in run.named() {
                    if d.kind == Kind::PossiblyEquivalent || d.kind == Kind::Crash {
                        println!(
                            "{:<16} {:<28} {} {dir} {}: [{}] {}",
                            cp.name,
                            bug_name(cp),
                            run.engine.name(),
                            d.kind,
                            d.incomplete.join(", "),
                            d.detail.replace('\n', " ")
                        );
                    }
                }
            }
        }
    }
    let failed: Vec<&CourseOutcome> = outcomes.iter().filter(|o| o.result.failed()).collect();
    for o in failed.iter().take(args.show) {
        println!("{}", o.result.reproducer());
    }
    let mut times: Vec<f64> = outcomes.iter().map(|o| o.seconds).collect();
    times.sort_by(f64::total_cmp);
    let median = match times.len() {
        0 => 0.0,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2.0,
    };
    let findings: usize = outcomes.iter().map(|o| o.result.findings.len()).sum();
    let by = |kind: CompilerKind| {
        let of: Vec<&CourseOutcome> = pairs
            .iter()
            .zip(&outcomes)
            .filter(|(cp, _)| cp.pair.kind == kind)
            .map(|(_, o)| o)
            .collect();
        (of.iter().filter(|o| decided(&o.result)).count(), of.len())
    };
    let (eq_decided, eq_total) = by(CompilerKind::NaiveRegalloc);
    let (bug_decided, bug_total) = by(CompilerKind::BuggyRegalloc);
    println!(
        "decided {} of {} pairs ({eq_decided} of {eq_total} naive-regalloc, {bug_decided} of {bug_total} buggy); seconds a pair: max {:.1}, median {:.1}; {:.1} s in all; {findings} finding(s) in {} pair(s)",
        eq_decided + bug_decided,
        outcomes.len(),
        times.last().copied().unwrap_or(0.0),
        median,
        start.elapsed().as_secs_f64(),
        failed.len(),
    );
    let errs = dump_errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if !failed.is_empty() {
        ExitCode::FAILURE
    } else if !errs.is_empty() {
        eprintln!(
            "compiler-pairs: {} pair(s) not dumped, first: {}",
            errs.len(),
            errs[0]
        );
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// Whether the first engine decided the pair left-right.
fn decided(r: &PairResult) -> bool {
    matches!(
        r.runs.first().map(|run| run.forward.kind),
        Some(Kind::Equivalent | Kind::Disequivalent)
    )
}

fn bug_name(cp: &CoursePair) -> String {
    cp.pair.bug().map_or("-".to_string(), |b| b.to_string())
}

/// `NN-program-regalloc` or `NN-program-bug-KIND-SITE`.
fn course_folder(cp: &CoursePair) -> String {
    let what = match cp.pair.bug() {
        Some(b) => format!("bug-{}-{}", b.kind.name(), b.site),
        None => "regalloc".to_string(),
    };
    format!("{:02}-{}-{what}", cp.pair.index, cp.name)
}

fn course_line(cp: &CoursePair, r: &PairResult, seconds: f64) -> String {
    let verdicts: Vec<String> = r
        .runs
        .iter()
        .map(|run| {
            let back = run
                .backward
                .as_ref()
                .map_or(String::new(), |b| format!("/{}", b.kind));
            format!("{} {}{back}", run.engine.name(), run.forward.kind)
        })
        .collect();
    format!(
        "{:<16} {:<22} {:<28} {:<45} {:>6.1} s{}{}",
        cp.name,
        cp.pair.kind.name(),
        bug_name(cp),
        verdicts.join(", "),
        seconds,
        if r.missed.is_some() { " MISSED" } else { "" },
        if r.failed() { " FAILED" } else { "" },
    )
}
