//! The MIPS32 comparison campaign: random C functions (`tamarin_harness::cgen`), each
//! compiled by `mips-linux-gnu-gcc` at two levels and compared with itself
//! (`same-source`, which must be equivalent) and with a mutant (`mutant`, which may
//! differ) by `tamarin::compare_functions`; every verdict is then checked under
//! `qemu-mips` (`cgen::pairs::check_verdict`): a witness must differ there and replay
//! as qemu runs it, a proof must hold on every input tried.
//!
//! ```text
//! cargo run --release -p tamarin-harness --bin mips32-pairs -- --funcs 150 --seed 1 \
//!     [--levels O0,O2] [--no-mutants] [--compare-timeout 10] [--inputs 200] [--random 50]
//!     [--jobs N] [--minutes M] [--dump DIR] [--summary FILE] [--only I]
//! ```
//!
//! `--dump DIR` keeps each function as `DIR/NNNNN/{f.c,m.c,f-LEVEL.o,m-LEVEL.o,result.txt}`
//! (`result.txt` has the verdicts, the findings and the `tamarin compare` command that
//! repeats each pair). `--only I` checks function I alone and prints its sources and
//! its pairs. `--summary FILE` writes the totals as JSON.
//!
//! Exits 1 on an unsound verdict (`unsound-difference`, `unsound-proof`), a
//! `replay-mismatch`, an `oracle` finding (qemu neither printed nor trapped), a build
//! or a compare error; a `missed-difference` (possibly equivalent, and qemu shows a
//! difference) is counted, not failed. Exits 2 when a tool is missing (install
//! gcc-mips-linux-gnu and qemu-user), on a usage error, or when a file cannot be
//! written.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Parser;
use tamarin_harness::cgen::oracle::{Level, Oracle};
use tamarin_harness::cgen::pairs::{check_function, describe, FuncResult, Settings, Totals};

#[derive(Parser, Debug)]
#[command(
    name = "mips32-pairs",
    about = "Checks tamarin's MIPS32 function comparisons (gcc levels, mutants) against qemu-mips"
)]
struct Args {
    /// Functions to check (with --minutes, the most to check).
    #[arg(long, default_value_t = 150)]
    funcs: u64,
    /// Names the stream of functions: the same seed makes the same functions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Index of the first function.
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// The left and the right level (O0, O1, O2, Os), separated by a comma.
    #[arg(long, default_value = "O0,O2", value_parser = two_levels)]
    levels: (Level, Level),
    /// Compare each function with a mutant too (the default).
    #[arg(long, overrides_with = "no_mutants")]
    mutants: bool,
    /// Compare each function with itself only.
    #[arg(long, overrides_with = "mutants")]
    no_mutants: bool,
    /// Time limit of one comparison, in seconds.
    #[arg(long, default_value_t = 10.0, value_parser = positive)]
    compare_timeout: f64,
    /// Instructions per run, in the comparison and in our replays.
    #[arg(long, default_value_t = tamarin_harness::cgen::pairs::DEFAULT_FUEL)]
    fuel: u64,
    /// Inputs (edges first) on which an equivalent or possibly-equivalent pair is run
    /// under qemu.
    #[arg(long, default_value_t = 200)]
    inputs: usize,
    /// Uniformly random inputs besides those.
    #[arg(long, default_value_t = 50)]
    random: usize,
    /// Worker threads (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Stop starting new functions after this many minutes.
    #[arg(long, value_parser = non_negative)]
    minutes: Option<f64>,
    /// Compare for runs of any length (loop proofs), as `compare --unbounded` does.
    #[arg(long)]
    unbounded: bool,
    /// The bounded search, as `compare --engine` takes it: concolic (every path),
    /// bmc (the merged encoding) or auto.
    #[arg(long, default_value = "auto", value_parser = engine)]
    engine: tamarin::Engine,
    /// Seconds between progress lines (0: none).
    #[arg(long, default_value_t = 60)]
    progress: u64,
    /// Print each pair's line.
    #[arg(long)]
    verbose: bool,
    /// Check only function INDEX, and print its sources and pairs.
    #[arg(long, value_name = "INDEX")]
    only: Option<u64>,
    /// Keep each function in DIR/NNNNN/ (sources, objects, result.txt).
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// Write the totals to FILE, as JSON.
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
}

fn engine(s: &str) -> Result<tamarin::Engine, String> {
    match s {
        "concolic" => Ok(tamarin::Engine::Concolic),
        "bmc" => Ok(tamarin::Engine::Bmc),
        "auto" => Ok(tamarin::Engine::Auto),
        _ => Err(format!("{s:?}: expected concolic, bmc or auto")),
    }
}

fn two_levels(s: &str) -> Result<(Level, Level), String> {
    let parts: Vec<&str> = s.split(',').collect();
    match parts[..] {
        [l, r] => Ok((Level::parse(l)?, Level::parse(r)?)),
        _ => Err(format!("{s:?}: expected two levels, such as O0,O2")),
    }
}

fn non_negative(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if x.is_finite() && (0.0..=525_600.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s} is not a number of minutes from 0 to 525600"))
    }
}

fn positive(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if x.is_finite() && x > 0.0 && x <= 86_400.0 {
        Ok(x)
    } else {
        Err(format!("{s} is not a number of seconds above 0"))
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let oracle = match Oracle::new(None) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mips32-pairs: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = &args.dump {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("mips32-pairs: cannot create {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }
    let settings = Settings {
        levels: args.levels,
        mutants: !args.no_mutants,
        timeout: Duration::from_secs_f64(args.compare_timeout),
        fuel: args.fuel,
        inputs: args.inputs,
        random: args.random,
        unbounded: args.unbounded,
        engine: args.engine,
    };

    if let Some(i) = args.only {
        let r = check_function(&oracle, args.seed, i, &settings, args.dump.as_deref());
        println!("{}", r.source);
        if let Some(m) = &r.mutant_source {
            println!("{m}");
        }
        print!(
            "{}",
            describe(
                &r,
                args.dump
                    .as_deref()
                    .map(|d| d.join(format!("{i:05}")))
                    .as_deref(),
                &settings
            )
        );
        let mut t = Totals::default();
        t.add(&r);
        return finish(&args, &t, 0.0, 1);
    }

    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    println!(
        "mips32-pairs: seed {}, functions {}..{}, -{} vs -{}{}, compare timeout {} s, fuel {}, {} + {} inputs a check, {} job(s)",
        args.seed,
        args.start,
        args.start.saturating_add(args.funcs),
        settings.levels.0.name(),
        settings.levels.1.name(),
        if settings.mutants { ", with mutants" } else { "" },
        args.compare_timeout,
        settings.fuel,
        settings.inputs,
        settings.random,
        jobs
    );
    let start = Instant::now();
    let deadline = args
        .minutes
        .map(|m| start + Duration::from_secs_f64(m * 60.0));
    let next = AtomicU64::new(0);
    let totals = Mutex::new(Totals::default());
    let failed = Mutex::new(Vec::<FuncResult>::new());
    let last_progress = Mutex::new(Instant::now());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= args.funcs {
                    break;
                }
                let index = args.start + k;
                let r = check_function(&oracle, args.seed, index, &settings, args.dump.as_deref());
                let findings = r.findings().count();
                if args.verbose || findings > 0 {
                    print!(
                        "{}",
                        describe(
                            &r,
                            args.dump
                                .as_deref()
                                .map(|d| d.join(format!("{index:05}")))
                                .as_deref(),
                            &settings
                        )
                    );
                }
                let Ok(mut t) = totals.lock() else { break };
                t.add(&r);
                if r.fails() {
                    if let Ok(mut f) = failed.lock() {
                        if f.len() < 5 {
                            f.push(r);
                        }
                    }
                }
                if args.progress > 0 {
                    if let Ok(mut last) = last_progress.lock() {
                        if last.elapsed() >= Duration::from_secs(args.progress) {
                            *last = Instant::now();
                            println!(
                                "... {} functions, {} findings, {:.0} s",
                                t.funcs,
                                t.findings.values().sum::<u64>(),
                                start.elapsed().as_secs_f64()
                            );
                        }
                    }
                }
            });
        }
    });
    let t = totals.into_inner().unwrap_or_else(|p| p.into_inner());
    for r in failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        println!(
            "--- function {}, with findings ---\n{}{}",
            r.index,
            r.source,
            r.mutant_source.as_deref().unwrap_or("")
        );
    }
    finish(&args, &t, start.elapsed().as_secs_f64(), jobs)
}

/// Prints the totals, writes the summary, and says how the run ends.
fn finish(args: &Args, t: &Totals, elapsed: f64, jobs: usize) -> ExitCode {
    print!("{}", t.report());
    println!(
        "{} functions ({} with unguarded divisions), {} pairs, {} failing finding(s); {:.1} s, {} job(s)",
        t.funcs,
        t.trapping,
        t.kinds.values().map(|k| k.pairs).sum::<u64>(),
        t.failing(),
        elapsed,
        jobs
    );
    let mut status = if t.failing() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    if let Some(path) = &args.summary {
        let mut v = t.to_json();
        if let Some(obj) = v.as_object_mut() {
            obj.insert(
                "settings".into(),
                serde_json::json!({
                    "seed": args.seed,
                    "start": args.start,
                    "funcs": args.funcs,
                    "only": args.only,
                    "levels": [args.levels.0.name(), args.levels.1.name()],
                    "mutants": !args.no_mutants,
                    "compare_timeout_s": args.compare_timeout,
                    "fuel": args.fuel,
                    "inputs": args.inputs,
                    "random": args.random,
                    "jobs": jobs,
                    "minutes": args.minutes,
                }),
            );
            obj.insert("elapsed_s".into(), serde_json::json!(elapsed));
        }
        let text = serde_json::to_string_pretty(&v).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!(
                "mips32-pairs: cannot write the summary {}: {e}",
                path.display()
            );
            if t.failing() == 0 {
                status = ExitCode::from(2);
            }
        }
    }
    status
}
