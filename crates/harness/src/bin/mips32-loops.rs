//! The campaign for proofs of any length: loop pairs whose trip counts come from an
//! argument (`tamarin_harness::cgen::loops`), compiled at two levels, compared with
//! `--unbounded`, and every verdict checked by long runs (our emulator with at least
//! 10^8 steps of fuel, and qemu-mips).
//!
//! ```text
//! cargo run --release -p tamarin-harness --bin mips32-loops -- --count 40 --seed 1 \
//!     [--levels O0,O2] [--timeout 60] [--fuel 1000000000] [--no-qemu] [--summary FILE] [--work-dir DIR]
//! ```
//!
//! Prints one line per pair and the totals per family. Exits 1 when a verdict is
//! unsound (a proof that a long run contradicts, a needle proved, a witness that does
//! not differ under qemu) or a pair could not be built or compared; 2 when a tool is
//! missing or on a usage error.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use tamarin_harness::cgen::loops::{check_loop_pair, line, loop_pairs, LoopSettings, FAMILIES};
use tamarin_harness::cgen::oracle::{Level, Oracle};

#[derive(Parser)]
#[command(about = "Loop pairs compared for runs of any length, checked by long runs")]
struct Args {
    /// Pairs to check (cycling through the families).
    #[arg(long, default_value_t = 40)]
    count: usize,
    /// Names the stream of pairs: the same seed makes the same pairs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The left and the right level, separated by a comma.
    #[arg(long, default_value = "O0,O2")]
    levels: String,
    /// Time limit of one comparison, in seconds.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Fuel of our long runs (at least 10^8).
    #[arg(long, default_value_t = 1_000_000_000)]
    fuel: u64,
    /// Skip qemu's long runs (ours still run).
    #[arg(long)]
    no_qemu: bool,
    /// Write the totals to FILE, as JSON.
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// Keep the C sources and objects in DIR (to compare a pair again by hand)
    /// instead of a temporary folder.
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
}

#[derive(Default)]
struct Family {
    pairs: usize,
    proved: usize,
    differ: usize,
    undecided: usize,
    failures: usize,
    proved_seconds: Vec<f64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let levels: Vec<&str> = args.levels.split(',').collect();
    let levels = match levels[..] {
        [l, r] => match (Level::parse(l), Level::parse(r)) {
            (Ok(l), Ok(r)) => (l, r),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("mips32-loops: {e}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("mips32-loops: --levels takes two levels, such as O0,O2");
            return ExitCode::from(2);
        }
    };
    if args.fuel < 100_000_000 {
        eprintln!("mips32-loops: --fuel must be at least 100000000");
        return ExitCode::from(2);
    }
    let oracle = match Oracle::new(args.work_dir.as_deref()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mips32-loops: {e}");
            return ExitCode::from(2);
        }
    };
    let settings = LoopSettings {
        levels,
        timeout: Duration::from_secs(args.timeout.max(1)),
        fuel: args.fuel,
        qemu: !args.no_qemu,
    };
    let mut families: BTreeMap<&str, Family> = BTreeMap::new();
    let mut failed = false;
    for (index, pair) in loop_pairs(args.seed, args.count).iter().enumerate() {
        let r = check_loop_pair(&oracle, index, pair, &settings);
        println!("{}", line(&r));
        let f = families.entry(r.family).or_default();
        f.pairs += 1;
        match &r.verdict {
            Some(tamarin::FunctionVerdict::Equivalent) => {
                f.proved += 1;
                f.proved_seconds.push(r.seconds);
            }
            Some(tamarin::FunctionVerdict::Disequivalent(_)) => f.differ += 1,
            _ => f.undecided += 1,
        }
        if !r.failures.is_empty() {
            f.failures += 1;
            failed = true;
        }
    }
    println!("family                    pairs proved differ undecided failing  slowest proof");
    let mut json = serde_json::Map::new();
    for name in FAMILIES {
        let Some(f) = families.get(name) else {
            continue;
        };
        let slowest = f.proved_seconds.iter().copied().fold(0.0, f64::max);
        println!(
            "{name:<25} {:5} {:6} {:6} {:9} {:7}  {slowest:.2} s",
            f.pairs, f.proved, f.differ, f.undecided, f.failures
        );
        json.insert(
            name.to_string(),
            serde_json::json!({
                "pairs": f.pairs, "proved": f.proved, "disequivalent": f.differ,
                "undecided": f.undecided, "failing": f.failures, "slowest_proof_s": slowest,
            }),
        );
    }
    if let Some(path) = &args.summary {
        let text = serde_json::Value::Object(json).to_string();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("mips32-loops: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
