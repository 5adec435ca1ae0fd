//! The MIPS32 oracle campaign: random C functions (`tamarin_harness::cgen`), each
//! compiled by `mips-linux-gnu-gcc` at several levels, run under `qemu-mips` as a
//! static program and under our emulator as the relocatable object, on the same
//! inputs; every disagreement is a finding.
//!
//! ```text
//! cargo run --release -p tamarin-harness --bin mips32-oracle -- --funcs 300 --seed 1 \
//!     [--inputs 64] [--levels O0,O1,O2,Os] [--jobs N] [--minutes M] [--dump DIR] [--only I]
//! ```
//!
//! `--dump DIR` keeps each function as `DIR/NNNNN/{f.c,f-LEVEL.o,result.txt}` (the
//! source, the objects our emulator ran, and the outcomes on every input). `--only I`
//! checks function I alone and prints its source and every outcome.
//!
//! Exits 1 on any finding, 2 when a tool is missing (install gcc-mips-linux-gnu and
//! qemu-user) or on a usage error.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Parser;
use tamarin_harness::cgen::oracle::{FuncCheck, Level, Oracle, DEFAULT_FUEL};
use tamarin_harness::cgen::{generate, inputs, Func};

#[derive(Parser, Debug)]
#[command(
    name = "mips32-oracle",
    about = "Holds the MIPS32 emulator against qemu-mips on random C functions compiled by gcc"
)]
struct Args {
    /// Functions to check (with --minutes, the most to check).
    #[arg(long, default_value_t = 300)]
    funcs: u64,
    /// Names the stream of functions: the same seed makes the same functions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Index of the first function.
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// Inputs per function (the same at every level).
    #[arg(long, default_value_t = 64)]
    inputs: usize,
    /// Optimisation levels, separated by commas.
    #[arg(long, default_value = "O0,O1,O2,Os", value_parser = Level::parse_list)]
    levels: Levels,
    /// Worker threads (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Stop starting new functions after this many minutes.
    #[arg(long, value_parser = non_negative)]
    minutes: Option<f64>,
    /// Instructions per run of our emulator.
    #[arg(long, default_value_t = DEFAULT_FUEL)]
    fuel: u64,
    /// Functions with findings to print in full (with their source).
    #[arg(long, default_value_t = 5)]
    show: usize,
    /// Seconds between progress lines (0: none).
    #[arg(long, default_value_t = 30)]
    progress: u64,
    /// Print one line per function.
    #[arg(long)]
    verbose: bool,
    /// Check only function INDEX, and print its source and every outcome.
    #[arg(long, value_name = "INDEX")]
    only: Option<u64>,
    /// Keep each function in DIR/NNNNN/ (source, objects, outcomes).
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
}

type Levels = Vec<Level>;

fn non_negative(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if x.is_finite() && (0.0..=525_600.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s} is not a number of minutes from 0 to 525600"))
    }
}

/// The sums over the functions checked.
#[derive(Default)]
struct Totals {
    funcs: u64,
    trapping_funcs: u64,
    compilations: u64,
    runs: u64,
    agreements: u64,
    traps: u64,
    steps: u64,
    findings: u64,
    by_kind: [u64; 3],
    failed: Vec<(u64, String)>,
    per_level: Vec<(Level, u64, u64, u64, u64)>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut oracle = match Oracle::new(None) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mips32-oracle: {e}");
            return ExitCode::from(2);
        }
    };
    oracle.fuel = args.fuel;
    if let Some(dir) = &args.dump {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("mips32-oracle: cannot create {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }
    let levels = &args.levels;

    if let Some(i) = args.only {
        let func = generate(args.seed, i);
        let ins = inputs(args.seed, i, args.inputs);
        let check = oracle.check(&func, levels, &ins, args.dump.is_some());
        println!("{}", func.source());
        print!("{}", outcomes(&ins, &check));
        for f in check.findings() {
            println!("finding: {f}");
        }
        if let Some(dir) = &args.dump {
            if let Err(e) = dump(&oracle, dir, &func, &ins, &check) {
                eprintln!("mips32-oracle: cannot dump function {i}: {e}");
                return ExitCode::from(2);
            }
        }
        return if check.findings().is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }

    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    println!(
        "mips32-oracle: seed {}, functions {}..{}, levels {}, {} inputs a function, fuel {}, {} job(s)",
        args.seed,
        args.start,
        args.start.saturating_add(args.funcs),
        levels.iter().map(|l| l.name()).collect::<Vec<_>>().join(","),
        args.inputs,
        args.fuel,
        jobs
    );
    let start = Instant::now();
    let deadline = args
        .minutes
        .map(|m| start + Duration::from_secs_f64(m * 60.0));
    let next = AtomicU64::new(0);
    let totals = Mutex::new(Totals {
        per_level: levels.iter().map(|&l| (l, 0, 0, 0, 0)).collect(),
        ..Totals::default()
    });
    let dump_errors = Mutex::new(Vec::<String>::new());
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
                let func = generate(args.seed, index);
                let ins = inputs(args.seed, index, args.inputs);
                let check = oracle.check(&func, levels, &ins, args.dump.is_some());
                if let Some(dir) = &args.dump {
                    if let Err(e) = dump(&oracle, dir, &func, &ins, &check) {
                        if let Ok(mut errs) = dump_errors.lock() {
                            errs.push(format!("function {index}: {e}"));
                        }
                    }
                }
                let findings = check.findings();
                if args.verbose || !findings.is_empty() {
                    println!(
                        "function {index}{}: {} runs, {} agree ({} traps), {} finding(s)",
                        if func.trapping { " (trapping)" } else { "" },
                        check.runs(),
                        check.agreements(),
                        check.traps(),
                        findings.len()
                    );
                }
                for f in findings.iter().take(8) {
                    println!("  finding, function {index}: {f}");
                }
                let Ok(mut t) = totals.lock() else { break };
                add(&mut t, index, &func, &check, args.show);
                if args.progress > 0 {
                    if let Ok(mut last) = last_progress.lock() {
                        if last.elapsed() >= Duration::from_secs(args.progress) {
                            *last = Instant::now();
                            println!(
                                "... {} functions, {} runs, {} findings, {:.0} s",
                                t.funcs,
                                t.runs,
                                t.findings,
                                start.elapsed().as_secs_f64()
                            );
                        }
                    }
                }
            });
        }
    });
    let t = totals.into_inner().unwrap_or_else(|p| p.into_inner());
    let elapsed = start.elapsed().as_secs_f64();
    for (index, text) in t.failed.iter().take(args.show) {
        println!("--- function {index}, with findings ---\n{text}");
    }
    println!("per level:");
    for (l, compilations, runs, agreements, traps) in &t.per_level {
        println!(
            "  {:<4} {compilations:>6} compilations, {runs:>8} runs, {agreements:>8} agree ({traps} on a trap)",
            l.flag()
        );
    }
    println!(
        "{} functions ({} with unguarded divisions), {} compilations, {} runs (function x level x input): {} agree ({} returned the same value, {} trapped on both), {} finding(s) ({} qemu/ours, {} between levels, {} builds); {:.1} million instructions emulated; {:.1} s, {} job(s)",
        t.funcs,
        t.trapping_funcs,
        t.compilations,
        t.runs,
        t.agreements,
        t.agreements - t.traps,
        t.traps,
        t.findings,
        t.by_kind[0],
        t.by_kind[1],
        t.by_kind[2],
        t.steps as f64 / 1e6,
        elapsed,
        jobs
    );
    let errs = dump_errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if !errs.is_empty() {
        eprintln!(
            "mips32-oracle: {} function(s) not dumped, first: {}",
            errs.len(),
            errs[0]
        );
    }
    if t.findings > 0 {
        ExitCode::FAILURE
    } else if !errs.is_empty() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn add(t: &mut Totals, index: u64, func: &Func, check: &FuncCheck, show: usize) {
    t.funcs += 1;
    t.trapping_funcs += u64::from(func.trapping);
    t.runs += check.runs() as u64;
    t.agreements += check.agreements() as u64;
    t.traps += check.traps() as u64;
    t.steps += check.steps();
    for lc in &check.levels {
        let built = !lc.qemu.is_empty();
        t.compilations += u64::from(built);
        if let Some(p) = t.per_level.iter_mut().find(|p| p.0 == lc.level) {
            p.1 += u64::from(built);
            p.2 += lc.qemu.len() as u64;
            p.3 += lc.agreements() as u64;
            p.4 += lc.traps() as u64;
        }
    }
    let findings = check.findings();
    t.findings += findings.len() as u64;
    for f in &findings {
        let k = match f.kind_name() {
            "disagree" => 0,
            "levels" => 1,
            _ => 2,
        };
        t.by_kind[k] += 1;
    }
    if !findings.is_empty() && t.failed.len() < show {
        let mut text = func.source();
        for f in findings {
            let _ = writeln!(text, "finding: {f}");
        }
        t.failed.push((index, text));
    }
}

/// One line per input: the input, then qemu's outcome and ours at each level.
fn outcomes(ins: &[[i32; 4]], check: &FuncCheck) -> String {
    let mut s = String::new();
    for (k, [a, b, c, d]) in ins.iter().enumerate() {
        let _ = write!(s, "f({a}, {b}, {c}, {d}):");
        for lc in &check.levels {
            let q = lc.qemu.get(k).map_or("-".to_string(), |o| o.to_string());
            let o = lc.ours.get(k).map_or("-".to_string(), |o| o.to_string());
            let mark = if lc
                .qemu
                .get(k)
                .zip(lc.ours.get(k))
                .is_some_and(|(q, o)| q.agrees(o))
            {
                ""
            } else {
                " DIFFERENT"
            };
            let _ = write!(s, " {} qemu {q} ours {o}{mark};", lc.level.name());
        }
        s.push('\n');
    }
    s
}

/// `DIR/NNNNN/`: `f.c`, the objects, and `result.txt` (outcomes and findings).
fn dump(
    oracle: &Oracle,
    dir: &Path,
    func: &Func,
    ins: &[[i32; 4]],
    check: &FuncCheck,
) -> std::io::Result<()> {
    let d = dir.join(format!("{:05}", func.index));
    std::fs::create_dir_all(&d)?;
    let stem = Oracle::stem(func);
    std::fs::write(d.join("f.c"), func.source())?;
    std::fs::remove_file(oracle.dir().join(format!("{stem}.c"))).ok();
    for lc in &check.levels {
        let obj = oracle.dir().join(format!("{stem}-{}.o", lc.level.name()));
        if obj.exists() {
            std::fs::copy(&obj, d.join(format!("f-{}.o", lc.level.name())))?;
            std::fs::remove_file(&obj)?;
        }
    }
    let mut text = outcomes(ins, check);
    for f in check.findings() {
        let _ = writeln!(text, "finding: {f}");
    }
    std::fs::write(d.join("result.txt"), text)
}
