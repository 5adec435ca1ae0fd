//! The long soundness run: random pairs, compared and checked concretely, in parallel.
//!
//! ```text
//! cargo run --release -p tamarin-harness --bin soundness -- --pairs 20000 --seed 1 \
//!     [--engine concolic|bmc|auto|all] [--inputs 100000] [--minutes M] [--jobs N] \
//!     [--shapes array,output] [--no-spin-checks] [--shard K/N] [--summary FILE]
//! soundness --merge FILE... [--summary FILE]
//! ```
//!
//! `--shard K/N` checks the K-th of N interleaved parts of the run's pairs (see
//! `tamarin_harness::campaign`), `--summary` writes the counts as JSON, and `--merge`
//! sums the summaries of a run's shards into the report of the whole run.
//!
//! Exits 1 if any check failed (an unsound verdict or a crash of the engine), 2 on a
//! usage error or a summary file that cannot be written or merged, 3 if `--merge` finds
//! shards missing (and no failed check), 0 if not.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use tamarin::Engine;
use tamarin_harness::campaign::{self, RunSettings, Selection, Shard, SummaryFile};
use tamarin_harness::check::{check_pair, parse_engines, CheckConfig};
use tamarin_harness::{make_pair, Shape};

#[derive(Parser, Debug)]
#[command(
    name = "soundness",
    about = "Checks tamarin's verdicts on random CS241 program pairs against concrete runs"
)]
struct Args {
    /// Pairs to check (with --minutes, the most to check).
    #[arg(long, default_value_t = 20_000)]
    pairs: u64,
    /// Names the stream of pairs: the same seed makes the same pairs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Index of the first pair (with --shapes: the first of the chosen shapes' pairs).
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// Check only pairs of these shapes (comma-separated names, e.g. array,output);
    /// the pairs are those of the full stream with these shapes, in order.
    #[arg(long, value_delimiter = ',', value_parser = shape_name)]
    shapes: Vec<Shape>,
    /// The engines that compare each pair: concolic, bmc, auto (concolic, then bmc
    /// where it ends possibly-equivalent, as `tamarin compare` does by default), all
    /// (each pair under all three, and their verdicts checked against each other), or
    /// several of them separated by commas.
    #[arg(long, default_value = "auto", value_parser = engine_names)]
    engine: Engines,
    /// Concrete inputs per equivalent or possibly-equivalent pair.
    #[arg(long, default_value_t = 100_000)]
    inputs: usize,
    /// Stop starting new pairs after this many minutes (the pairs checked are then the
    /// first of the run, or of its shard: each shard stops on its own).
    #[arg(long, value_parser = non_negative)]
    minutes: Option<f64>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Steps per run, in compare and in the concrete runs.
    #[arg(long, default_value_t = 2000)]
    fuel: u64,
    /// Path conditions per query (default: the engine's).
    #[arg(long)]
    depth: Option<usize>,
    /// Time limit of one compare, in seconds (0: none).
    #[arg(long, default_value_t = 5.0, value_parser = non_negative)]
    compare_timeout: f64,
    /// Time limit of one solver query, in seconds (0: the engine's default).
    #[arg(long, default_value_t = 1.0, value_parser = non_negative)]
    solver_timeout: f64,
    /// Compare left-right only (skips check (d)).
    #[arg(long)]
    no_symmetric: bool,
    /// Skip check (g): the extra comparison with a huge fuel and a one-second time
    /// limit on every other loop pair.
    #[arg(long)]
    no_spin_checks: bool,
    /// Failed pairs and missed differences to print in full.
    #[arg(long, default_value_t = 5)]
    show: usize,
    /// Seconds between progress lines (0: none).
    #[arg(long, default_value_t = 30)]
    progress: u64,
    /// Print one line per pair checked.
    #[arg(long)]
    verbose: bool,
    /// Check only pair INDEX and print it in full (to reproduce a finding).
    #[arg(long, value_name = "INDEX", conflicts_with_all = ["shard", "summary"])]
    only: Option<u64>,
    /// Check only shard K of N (1 <= K <= N): the positions (0 at --start) are dealt
    /// out in blocks of one pair of each chosen shape, block b to the shard with
    /// b % N == K - 1. The N shards check every pair of the run once, and each gets
    /// its share of every shape.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Write a summary of the run (its counts and failed pairs) to FILE, as JSON, at
    /// the end (also when --minutes stops it); with --merge, the sum.
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// Sum the summary files of a run's shards and print the run's report: exit 1 if a
    /// check failed, 3 if shards are missing.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 1..,
        conflicts_with_all = [
            "pairs", "seed", "start", "shapes", "engine", "inputs", "minutes", "jobs",
            "fuel", "depth", "compare_timeout", "solver_timeout", "no_symmetric",
            "no_spin_checks", "progress", "verbose", "shard",
        ]
    )]
    merge: Vec<PathBuf>,
}

/// The engines chosen with `--engine`.
#[derive(Clone, Debug)]
struct Engines(Vec<Engine>);

fn engine_names(s: &str) -> Result<Engines, String> {
    parse_engines(s).map(Engines)
}

fn engine_list(engines: &[Engine]) -> String {
    engines
        .iter()
        .map(|e| e.name())
        .collect::<Vec<_>>()
        .join(",")
}

fn shape_name(s: &str) -> Result<Shape, String> {
    Shape::from_name(s.trim()).ok_or_else(|| {
        let names: Vec<&str> = Shape::ALL.iter().map(|s| s.name()).collect();
        format!("`{s}` is not a shape; expected one of {}", names.join(", "))
    })
}

/// A finite number of seconds or minutes, at least 0 and at most a year's worth.
fn non_negative(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if x.is_finite() && (0.0..=525_600.0 * 60.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s} is not a number from 0 to 31536000"))
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.merge.is_empty() {
        return merge(&args);
    }
    let cfg = CheckConfig {
        fuel: args.fuel,
        inputs: args.inputs,
        compare_timeout: (args.compare_timeout > 0.0)
            .then(|| Duration::from_secs_f64(args.compare_timeout)),
        solver_timeout: (args.solver_timeout > 0.0)
            .then(|| Duration::from_secs_f64(args.solver_timeout)),
        depth: args.depth,
        symmetric: !args.no_symmetric,
        engines: args.engine.0.clone(),
        spin_checks: !args.no_spin_checks,
    };

    if let Some(i) = args.only {
        let r = check_pair(&make_pair(args.seed, i), &cfg);
        println!("{}", r.reproducer());
        println!("{}", r.line());
        println!("concrete inputs run: {}", r.inputs_run);
        return if r.failed() {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }

    if !campaign::summary_writable("soundness", args.summary.as_deref()) {
        return ExitCode::from(2);
    }
    let sel = Selection {
        start: args.start,
        pairs: args.pairs,
        shapes: args.shapes.clone(),
        shard: args.shard.unwrap_or(Shard::WHOLE),
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
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
        "soundness: engine {}, seed {}, pairs {}..{}{}{}, {} inputs per non-disequivalent pair, fuel {}, compare timeout {}, solver timeout {}, {} job(s){}",
        engine_list(&cfg.engines),
        args.seed,
        args.start,
        args.start.saturating_add(args.pairs),
        if args.shapes.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = args.shapes.iter().map(|s| s.name()).collect();
            format!(" of shapes {}", names.join(","))
        },
        if sel.shard == Shard::WHOLE {
            String::new()
        } else {
            format!(", shard {} ({} pairs)", sel.shard, sel.share())
        },
        cfg.inputs,
        cfg.fuel,
        cfg.compare_timeout
            .map_or("none".to_string(), |t| format!("{:.1} s", t.as_secs_f64())),
        cfg.solver_timeout
            .map_or("default".to_string(), |t| format!("{:.1} s", t.as_secs_f64())),
        jobs,
        args.minutes
            .map_or(String::new(), |m| format!(", at most {m} minute(s)"))
    );

    let outcome = campaign::run(&sel, &settings, |index| {
        check_pair(&make_pair(args.seed, index), &cfg)
    });
    let file = SummaryFile::of_run(args.seed, &sel, &cfg, &outcome);
    print!("{}", file.report());
    let written = write_summary(args.summary.as_ref(), &file);
    if file.failed_checks > 0 {
        ExitCode::FAILURE
    } else {
        written
    }
}

/// Writes `file` to `path` if a path was given: exit status 2 if it cannot.
fn write_summary(path: Option<&PathBuf>, file: &SummaryFile) -> ExitCode {
    match path.map(|p| (p, file.write(p))) {
        Some((p, Err(e))) => {
            eprintln!("soundness: cannot write the summary {}: {e}", p.display());
            ExitCode::from(2)
        }
        _ => ExitCode::SUCCESS,
    }
}

/// `--merge`: the report of the shards' sum.
fn merge(args: &Args) -> ExitCode {
    let mut files = Vec::new();
    for path in &args.merge {
        match SummaryFile::read(path) {
            Ok(f) => files.push((path.display().to_string(), f)),
            Err(e) => {
                eprintln!("soundness: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let sum = match campaign::merge(&files, args.show) {
        Ok(sum) => sum,
        Err(e) => {
            eprintln!("soundness: {e}");
            return ExitCode::from(2);
        }
    };
    let mut shards: Vec<_> = files.iter().collect();
    shards.sort_by_key(|(_, f)| f.shard.map(|s| s.k));
    for (name, f) in shards {
        println!(
            "shard {}: {} of {} pairs{}, {:.1} s, {} failed check(s) ({name})",
            f.shard.unwrap_or(Shard::WHOLE),
            f.pairs_checked,
            f.pairs_to_check,
            if f.stopped_by_time_limit {
                " (stopped by its time limit)"
            } else {
                ""
            },
            f.elapsed_seconds,
            f.failed_checks,
        );
    }
    let missing = sum.merged.as_ref().map_or(&[][..], |m| &m.missing[..]);
    if !missing.is_empty() {
        let n = sum.merged.as_ref().map_or(0, |m| m.n);
        let names: Vec<String> = missing.iter().map(|k| format!("{k}/{n}")).collect();
        println!("MISSING shards: {}", names.join(", "));
    }
    print!("{}", sum.report());
    let written = write_summary(args.summary.as_ref(), &sum);
    if sum.failed_checks > 0 {
        ExitCode::FAILURE
    } else if !missing.is_empty() {
        ExitCode::from(3)
    } else {
        written
    }
}
