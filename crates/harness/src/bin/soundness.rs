//! The long soundness run: random pairs, compared and checked concretely, in parallel.
//!
//! ```text
//! cargo run --release -p tamarin-harness --bin soundness -- --pairs 20000 --seed 1 \
//!     [--engine concolic|bmc|auto|all] [--inputs 100000] [--minutes M] [--jobs N] \
//!     [--shapes array,output] [--no-spin-checks]
//! ```
//!
//! Exits 1 if any check failed (an unsound verdict or a crash of the engine), 0 if not.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Parser;
use tamarin::Engine;
use tamarin_harness::check::{check_pair, parse_engines, CheckConfig, Kind, Summary};
use tamarin_harness::pair::nth_index;
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
    /// Stop starting new pairs after this many minutes.
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
    #[arg(long, value_name = "INDEX")]
    only: Option<u64>,
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

    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let deadline = args
        .minutes
        .map(|m| Instant::now() + Duration::from_secs_f64(m * 60.0));
    println!(
        "soundness: engine {}, seed {}, pairs {}..{}{}, {} inputs per non-disequivalent pair, fuel {}, compare timeout {}, solver timeout {}, {} job(s){}",
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

    let summary = Mutex::new(Summary::new(args.show));
    let done = AtomicU64::new(0);
    let next = AtomicU64::new(args.start);
    let end = args.start.saturating_add(args.pairs);
    let finished = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|scope| {
        if args.progress > 0 {
            scope.spawn(|| {
                let every = Duration::from_secs(args.progress);
                let mut last = Instant::now();
                while !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    if last.elapsed() < every {
                        continue;
                    }
                    last = Instant::now();
                    let s = match summary.lock() {
                        Ok(s) => s,
                        Err(p) => p.into_inner(),
                    };
                    let engines: Vec<String> = s
                        .engines
                        .iter()
                        .map(|(e, es)| {
                            format!(
                                "{} {} diseq, {} eq, {} possibly, {} crash",
                                e.name(),
                                es.verdicts(Kind::Disequivalent),
                                es.verdicts(Kind::Equivalent),
                                es.verdicts(Kind::PossiblyEquivalent),
                                es.verdicts(Kind::Crash),
                            )
                        })
                        .collect();
                    eprintln!(
                        "[{:>7.0} s] {} pairs (verdicts both ways): {}; unsound {}, missed {}",
                        start.elapsed().as_secs_f64(),
                        done.load(Ordering::Relaxed),
                        engines.join("; "),
                        s.unsound(),
                        s.missed
                    );
                }
            });
        }
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= end || deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    let index = nth_index(&args.shapes, i);
                    let r = check_pair(&make_pair(args.seed, index), &cfg);
                    if r.failed() {
                        eprintln!("FAILED CHECK\n{}", r.reproducer());
                    }
                    if args.verbose {
                        eprintln!("{}", r.line());
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                    match summary.lock() {
                        Ok(mut s) => s.add(&r),
                        Err(p) => p.into_inner().add(&r),
                    }
                })
            })
            .collect();
        for w in workers {
            if w.join().is_err() {
                eprintln!("soundness: a worker panicked (a bug of the harness)");
            }
        }
        finished.store(true, Ordering::Relaxed);
    });

    let s = match summary.into_inner() {
        Ok(s) => s,
        Err(p) => p.into_inner(),
    };
    println!(
        "\n==== summary (seed {}, engine {}) ====",
        args.seed,
        engine_list(&cfg.engines)
    );
    print!("{s}");
    println!("wall time: {:.1} s", start.elapsed().as_secs_f64());
    for r in &s.reproducers {
        println!("\n---- failed pair ----\n{r}");
    }
    for r in &s.asymmetric_examples {
        println!("\n---- incomplete asymmetry (not unsound) ----\n{r}");
    }
    for r in &s.missed_examples {
        println!("\n---- missed difference (not unsound) ----\n{r}");
    }
    if s.failures() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
