//! `tamarin compare LEFT RIGHT`: looks for inputs on which two programs differ, and
//! proves bounded equivalence when the search covers every path.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args as ClapArgs;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Map, Value};
use tamarin::concolic::{self, Observer, Options, Progress, Report, Side};
use tamarin::solver::SolverConfig;
use tamarin::verdict::{Counterexample, Verdict};
use tamarin_mips::cpu::DEFAULT_TERMINATION;
use tamarin_mips::{Outcome, Status};

use crate::args::{
    parse_count, parse_word, parse_word_list, InputFormatOpt, OutputFormat, WordList,
};
use crate::diag::CliError;

/// Compare two programs: find inputs on which they differ, or prove that they agree.
///
/// Exit status: 0 when no difference was found (equivalent or possibly-equivalent),
/// 1 when the programs are disequivalent, 2 on bad input or usage.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The first program (.asm/.s assembly or .mips/.bin binary).
    #[arg(value_name = "LEFT")]
    pub left: PathBuf,
    /// The second program.
    #[arg(value_name = "RIGHT")]
    pub right: PathBuf,
    /// Steps per run; a run still going after this many is out of fuel, which is never
    /// a difference.
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = 10_000)]
    pub fuel: u64,
    /// The most path conditions per path that the search explores.
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = 50)]
    pub depth: u64,
    /// Time limit per solver query, in milliseconds.
    #[arg(long, value_name = "MS", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = 5_000)]
    pub solver_timeout: u64,
    /// The first inputs tried, $1 and $2 [default: 0,0].
    #[arg(long, value_name = "N,N", value_parser = parse_pair, allow_hyphen_values = true)]
    pub init_inputs: Option<WordList>,
    /// The most inputs to try before giving up.
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = 10_000)]
    pub max_runs: u64,
    /// Time limit for the whole comparison, in seconds (the result then says what was
    /// covered).
    #[arg(long, value_name = "SECONDS", value_parser = parse_count,
          allow_negative_numbers = true)]
    pub timeout: Option<u64>,
    /// How to print the report.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Print each run's symbolic trace (SSA form) to standard error.
    #[arg(long)]
    pub dump_trace: bool,
    /// Write every solver query to this directory as a standalone SMT-LIB 2 file.
    #[arg(long, value_name = "DIR")]
    pub dump_smt: Option<PathBuf>,
    /// More statistics in the text report.
    #[arg(short, long)]
    pub verbose: bool,
    #[command(flatten)]
    pub input_format: InputFormatOpt,
    /// The address whose jump ends a run normally (the initial $31).
    #[arg(long, value_name = "ADDR", value_parser = parse_word, allow_negative_numbers = true,
          default_value_t = DEFAULT_TERMINATION, hide_default_value = true)]
    pub termination: u32,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    let left = super::load_program(&args.left, args.input_format.format())?;
    let right = super::load_program(&args.right, args.input_format.format())?;
    let opts = options(&args)?;
    let mut observer = CliObserver::new(args.format == OutputFormat::Text);
    let report = concolic::compare(&left, &right, &opts, &mut observer);
    observer.done();
    let mut out = super::stdout();
    match args.format {
        OutputFormat::Text => write_text(&mut out, &args, &report),
        OutputFormat::Json => write_json(&mut out, &report),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    Ok(ExitCode::from(match report.verdict {
        Verdict::Disequivalent(_) => 1,
        _ => 0,
    }))
}

/// Two comma-separated words.
fn parse_pair(text: &str) -> Result<WordList, String> {
    let list = parse_word_list(text)?;
    if list.0.len() != 2 {
        return Err(format!(
            "expected two numbers separated by a comma ($1,$2), such as 0,-5; got {}",
            list.0.len()
        ));
    }
    Ok(list)
}

fn options(args: &Args) -> Result<Options, CliError> {
    let mut opts = Options::default();
    opts.fuel = args.fuel;
    opts.depth = usize::try_from(args.depth).unwrap_or(usize::MAX);
    if let Some(WordList(inputs)) = &args.init_inputs {
        opts.init_inputs = inputs.clone();
    }
    opts.max_runs = args.max_runs;
    opts.timeout = args.timeout.map(Duration::from_secs);
    opts.dump_trace = args.dump_trace;
    opts.termination = args.termination;
    let mut solver = SolverConfig::default();
    solver.timeout = Duration::from_millis(args.solver_timeout.max(1));
    if let Some(dir) = &args.dump_smt {
        let fail = |source| CliError::DumpDir {
            path: dir.display().to_string(),
            source,
        };
        // `create_dir_all` would say only "File exists" for a file in the way.
        if dir.exists() && !dir.is_dir() {
            return Err(fail(std::io::Error::other(
                "it exists and is not a directory",
            )));
        }
        std::fs::create_dir_all(dir).map_err(fail)?;
        solver.dump_dir = Some(dir.clone());
    }
    opts.solver = solver;
    Ok(opts)
}

/// Shows progress on a terminal after the first second, and traces on stderr.
struct CliObserver {
    bar: Option<ProgressBar>,
    interactive: bool,
}

impl CliObserver {
    fn new(text: bool) -> Self {
        CliObserver {
            bar: None,
            interactive: text && std::io::stderr().is_terminal(),
        }
    }

    fn done(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Observer for CliObserver {
    fn trace(&mut self, side: Side, inputs: &[(String, u32)], text: &str) {
        let inputs: Vec<String> = inputs
            .iter()
            .map(|(n, v)| format!("{n} = {}", *v as i32))
            .collect();
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "trace of {} on {}:", side.name(), inputs.join(", "));
        let _ = writeln!(err, "{text}");
    }

    fn progress(&mut self, p: &Progress) {
        if !self.interactive || p.elapsed < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        bar.set_message(format!(
            "{} runs, paths {} left / {} right, {} solver queries",
            p.runs, p.paths.0, p.paths.1, p.queries
        ));
    }
}

fn signed(v: u32) -> i64 {
    v as i32 as i64
}

/// `done after 5 steps, $3 = 7 (0x00000007)` or the error.
fn describe(o: &Outcome) -> String {
    match o.status {
        Status::Done => format!(
            "done after {}, $3 = {} ({:#010x})",
            steps(o.steps),
            signed(o.regs.gpr[3]),
            o.regs.gpr[3]
        ),
        Status::OutOfFuel => format!("out of fuel after {}", steps(o.steps)),
        Status::Error(f) => format!("error after {}: {} ({f})", steps(o.steps), f.kind),
    }
}

/// `1 step`, `5 steps`.
fn steps(n: u64) -> String {
    format!("{n} step{}", if n == 1 { "" } else { "s" })
}

/// Quotes a path for a shell when it needs it.
fn shell_word(p: &Path) -> String {
    let s = p.display().to_string();
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

fn replay_command(args: &Args, prog: &Path, cx: &Counterexample) -> String {
    let mut cmd = format!("tamarin run {}", shell_word(prog));
    for (name, v) in &cx.inputs {
        let flag = name.trim_start_matches('$');
        cmd.push_str(&format!(" --r{flag} {}", signed(*v)));
    }
    cmd.push_str(&format!(" --fuel {}", args.fuel));
    if let Some(f) = args.input_format.input_format {
        let f = match f {
            crate::args::InputFormatArg::Asm => "asm",
            crate::args::InputFormatArg::Bin => "bin",
        };
        cmd.push_str(&format!(" --input-format {f}"));
    }
    if args.termination != DEFAULT_TERMINATION {
        cmd.push_str(&format!(" --termination {:#x}", args.termination));
    }
    cmd
}

fn write_text(out: &mut impl Write, args: &Args, report: &Report) -> std::io::Result<()> {
    let observed = "$3";
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            let inputs: Vec<String> = cx
                .inputs
                .iter()
                .map(|(n, v)| format!("{n} = {} ({v:#010x})", signed(*v)))
                .collect();
            writeln!(
                out,
                "disequivalent: the programs differ on {}",
                inputs.join(", ")
            )?;
            let (l, r) = (args.left.display(), args.right.display());
            let width = l.to_string().len().max(r.to_string().len());
            writeln!(
                out,
                "  left  {:width$}  {}",
                l.to_string(),
                describe(&cx.left)
            )?;
            writeln!(
                out,
                "  right {:width$}  {}",
                r.to_string(),
                describe(&cx.right)
            )?;
            writeln!(out, "  replay:")?;
            writeln!(out, "    {}", replay_command(args, &args.left, cx))?;
            writeln!(out, "    {}", replay_command(args, &args.right, cx))?;
        }
        Verdict::Equivalent(p) => {
            writeln!(
                out,
                "equivalent: for all inputs {}, every run of either program that ends within {} steps agrees on {observed}",
                report.input_names.join(", "),
                p.fuel
            )?;
            writeln!(
                out,
                "  proved by enumerating every path ({} left, {} right) and {} difference quer{} ({})",
                p.paths.0,
                p.paths.1,
                p.queries,
                if p.queries == 1 { "y" } else { "ies" },
                report.stats.solver_name
            )?;
            if p.out_of_fuel != (0, 0) {
                writeln!(
                    out,
                    "  note: {} left and {} right path(s) do not end within {} steps; runs out of fuel are never a difference",
                    p.out_of_fuel.0, p.out_of_fuel.1, p.fuel
                )?;
            }
        }
        Verdict::PossiblyEquivalent(reasons) => {
            writeln!(
                out,
                "possibly-equivalent: no difference found, but the search was incomplete:"
            )?;
            for r in reasons {
                writeln!(out, "  - {r}")?;
            }
        }
    }
    let s = &report.stats;
    writeln!(
        out,
        "stats: {} runs, paths {} left / {} right, {} solver queries in {:.1} ms, total {:.1} ms",
        s.runs,
        s.paths.0,
        s.paths.1,
        s.solver.queries,
        ms(s.solver.time),
        ms(s.total)
    )?;
    if args.verbose {
        writeln!(
            out,
            "  solver: {}; {} sat, {} unsat, {} unknown, {} answered from cache",
            s.solver_name, s.solver.sat, s.solver.unsat, s.solver.unknown, s.solver.cache_hits
        )?;
        writeln!(
            out,
            "  {} difference queries, {} restarts (runs off the predicted path)",
            s.difference_queries, s.restarts
        )?;
    }
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn side_json(o: &Outcome) -> Value {
    let mut m = Map::new();
    m.insert("status".into(), json!(o.status.name()));
    m.insert("steps".into(), json!(o.steps));
    match o.status {
        Status::Done => {
            m.insert("$3".into(), json!(signed(o.regs.gpr[3])));
        }
        Status::Error(f) => {
            m.insert("error".into(), json!(f.to_string()));
            m.insert("error_kind".into(), json!(f.kind.name()));
            m.insert("pc".into(), json!(signed(f.pc)));
        }
        Status::OutOfFuel => {}
    }
    Value::Object(m)
}

fn write_json(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    let s = &report.stats;
    let mut top = Map::new();
    top.insert("verdict".into(), json!(report.verdict.name()));
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            let inputs: Map<String, Value> = cx
                .inputs
                .iter()
                .map(|(n, v)| (n.clone(), json!(signed(*v))))
                .collect();
            top.insert(
                "counterexample".into(),
                json!({
                    "inputs": inputs,
                    "left": side_json(&cx.left),
                    "right": side_json(&cx.right),
                }),
            );
        }
        Verdict::Equivalent(p) => {
            top.insert(
                "proof".into(),
                json!({
                    "engine": "concolic",
                    "paths": {"left": p.paths.0, "right": p.paths.1},
                    "out_of_fuel_paths": {"left": p.out_of_fuel.0, "right": p.out_of_fuel.1},
                    "queries": p.queries,
                    "fuel": p.fuel,
                    "solver": s.solver_name,
                }),
            );
        }
        Verdict::PossiblyEquivalent(reasons) => {
            let reasons: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
            top.insert("incomplete".into(), json!(reasons));
        }
    }
    top.insert(
        "stats".into(),
        json!({
            "runs": s.runs,
            "paths": {"left": s.paths.0, "right": s.paths.1},
            "solver_queries": s.solver.queries,
            "solver_ms": ms(s.solver.time),
            "total_ms": ms(s.total),
            "restarts": s.restarts,
            "difference_queries": s.difference_queries,
            "cache_hits": s.solver.cache_hits,
        }),
    );
    writeln!(out, "{}", Value::Object(top))
}
