//! Writes a made-up class for `tamarin grade`: a reference program and `--count`
//! submissions derived from it, for the grading benchmark (`scripts/bench-grade.sh`,
//! BENCHMARKS.md). Real classes cannot be published, and a class made by hand is too
//! small to time; this one is as large as asked and the same for the same seed.
//!
//! ```text
//! grade-class --shape twoints|loop|array --count N --seed S --out DIR
//! ```
//!
//! The reference is a program of the harness's generator of that shape (`twoints` is
//! the straight-line shape; any other shape name of the generator is taken too): the
//! first one from the seed whose function does not depend on its layout, so that
//! rewrites keep it. About 60% of the submissions are equal rewrites of it (1 to 3
//! rewrites in a row), the rest one-change mutants, some of which happen to compute
//! the same function. It writes `DIR/reference.asm` and `DIR/submissions/sNNN.asm`,
//! and `DIR/class.txt`, one line per submission (`sNNN rewrite|mutant: what changed`).

use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tamarin_harness::mutate::{mutate, rewrite_n};
use tamarin_harness::{generate, Rng, Shape};

#[derive(Parser, Debug)]
#[command(
    name = "grade-class",
    about = "Writes a reference and a class of submissions (rewrites and mutants) for tamarin grade"
)]
struct Args {
    /// The task's shape: twoints (straight-line), loop, array, or another generator shape.
    #[arg(long, value_parser = shape_name)]
    shape: Shape,
    /// Submissions to write.
    #[arg(long, default_value_t = 100)]
    count: usize,
    /// Names the class: the same seed writes the same files.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Folder to write into (created; existing submissions of the same names are replaced).
    #[arg(long)]
    out: PathBuf,
}

fn shape_name(s: &str) -> Result<Shape, String> {
    match s {
        "twoints" => Ok(Shape::Straight),
        _ => Shape::from_name(s).ok_or_else(|| format!("unknown shape `{s}`")),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("grade-class: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let mut rng = Rng::new(args.seed);
    let reference = (0..1000)
        .map(|_| generate(args.shape, &mut rng))
        .find(|p| !p.layout_sensitive)
        .ok_or("no layout-independent program of this shape from this seed")?;
    let subs = args.out.join("submissions");
    fs::create_dir_all(&subs).map_err(|e| format!("{}: {e}", subs.display()))?;
    let write = |path: PathBuf, text: String| {
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write(args.out.join("reference.asm"), reference.text())?;
    let mut manifest = String::new();
    for i in 0..args.count {
        let mut rng = Rng::for_item(args.seed, i as u64);
        // A mutant 40% of the time; a rewrite otherwise, or when no mutation applies.
        let mutant = rng
            .chance(0.4)
            .then(|| mutate(&reference, &mut rng))
            .flatten();
        let (prog, kind, what) = match mutant {
            Some((m, what)) => (m, "mutant", what),
            None => {
                let n = rng.range(1, 3) as usize;
                let (r, whats) = rewrite_n(&reference, &mut rng, n);
                (r, "rewrite", whats.join("; "))
            }
        };
        let name = format!("s{i:03}");
        // A header of its own makes every file's bytes differ, as in a real class.
        write(
            subs.join(format!("{name}.asm")),
            format!("; submission {name}\n{}", prog.text()),
        )?;
        manifest.push_str(&format!("{name} {kind}: {what}\n"));
    }
    write(args.out.join("class.txt"), manifest)
}
