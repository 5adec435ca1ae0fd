//! `tamarin compare LEFT RIGHT`: looks for inputs on which two programs differ, and
//! proves bounded equivalence when the search covers every path.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Map, Value};
use tamarin::concolic::{self, Observer, Options, Progress, Report, Side};
use tamarin::io::{InputSpec, Observable, Observed};
use tamarin::solver::{ProcessSolver, SolverConfig};
use tamarin::verdict::{Counterexample, Verdict};
use tamarin_mips::cpu::DEFAULT_TERMINATION;
use tamarin_mips::{Outcome, Reg, Status};

use crate::args::{
    parse_count, parse_reg, parse_word, parse_word_list, InputFormatOpt, OutputFormat,
    TerminationOpt, WordList,
};

/// The longest array the array frontend explores.
const MAX_ARRAY: u32 = 4096;
/// The most standard input bytes that can be inputs.
const MAX_STDIN: usize = 4096;
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
    /// The first inputs tried: one number per input register (default all 0), or the
    /// first array with --frontend array (default empty).
    #[arg(long, value_name = "N,N,…", value_parser = parse_word_list, allow_hyphen_values = true)]
    pub init_inputs: Option<WordList>,
    /// How inputs enter the programs: registers (`twoints`, see --inputs) or an array
    /// whose address is in $1 and length in $2 (`array`, see --max-len).
    #[arg(long, value_enum, value_name = "KIND", default_value_t = FrontendKind::Twoints)]
    pub frontend: FrontendKind,
    /// The input registers, comma-separated (twoints only).
    #[arg(long, value_name = "$N,…", value_parser = parse_reg_list, default_value = "$1,$2")]
    pub inputs: RegList,
    /// The longest array tried (--frontend array); lengths 0 to N are all explored.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true,
          default_value_t = 16)]
    pub max_len: u64,
    /// Where the array is placed (default: the first word after each program).
    #[arg(long, value_name = "ADDR", value_parser = parse_word, allow_negative_numbers = true)]
    pub array_base: Option<u32>,
    /// What is compared when both runs end, comma-separated: $N, hi, lo, output (the
    /// bytes written to 0xFFFF000C) and mem:A..B (the words from A to B).
    #[arg(long, value_name = "LIST", value_parser = parse_observables, default_value = "$3")]
    pub observe: ObservableList,
    /// Make the first N bytes of standard input inputs (reads past them give -1).
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true,
          default_value_t = 0)]
    pub stdin_len: u64,
    /// The solver: z3 (in process, the default), cvc5, yices (yices-smt2), or any
    /// command that reads SMT-LIB 2 on standard input ("bitwuzla --smt2").
    #[arg(long, value_name = "SOLVER", default_value = "z3")]
    pub solver: String,
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
    #[command(flatten)]
    pub termination: TerminationOpt,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    let left = super::load_program(&args.left, args.input_format.format())?;
    let right = super::load_program(&args.right, args.input_format.format())?;
    let opts = options(&args)?;
    let mut observer = CliObserver::new(args.format == OutputFormat::Text);
    let report = concolic::compare(&left, &right, &opts, &mut observer);
    observer.done();
    for w in &report.stats.warnings {
        eprintln!("warning: {w}");
    }
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

/// How inputs enter the programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FrontendKind {
    /// Input registers ($1 and $2 unless --inputs says otherwise).
    Twoints,
    /// An array: $1 holds its address, $2 its length.
    Array,
}

/// Input registers, as one clap value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegList(pub Vec<Reg>);

fn parse_reg_list(text: &str) -> Result<RegList, String> {
    let regs = text
        .split(',')
        .map(parse_reg)
        .collect::<Result<Vec<Reg>, String>>()?;
    let mut seen = regs.clone();
    seen.sort();
    seen.dedup();
    if seen.len() != regs.len() {
        return Err(format!("`{text}` names a register twice"));
    }
    Ok(RegList(regs))
}

/// Observables, as one clap value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservableList(pub Vec<Observable>);

fn parse_observables(text: &str) -> Result<ObservableList, String> {
    let list = text
        .split(',')
        .map(Observable::parse)
        .collect::<Result<Vec<Observable>, String>>()?;
    Ok(ObservableList(list))
}

fn options(args: &Args) -> Result<Options, CliError> {
    let mut opts = Options::default();
    opts.fuel = args.fuel;
    opts.depth = usize::try_from(args.depth).unwrap_or(usize::MAX);
    let max_len = u32::try_from(args.max_len)
        .ok()
        .filter(|&n| n <= MAX_ARRAY)
        .ok_or_else(|| CliError::Usage(format!("--max-len must be at most {MAX_ARRAY}")))?;
    opts.inputs = match args.frontend {
        FrontendKind::Twoints => InputSpec::Registers(args.inputs.0.clone()),
        FrontendKind::Array => InputSpec::Array {
            max_len,
            base: args.array_base,
        },
    };
    if let Some(WordList(inputs)) = &args.init_inputs {
        opts.init_inputs = match &opts.inputs {
            InputSpec::Registers(regs) => {
                if inputs.len() != regs.len() {
                    return Err(CliError::Usage(format!(
                        "--init-inputs gives {} number(s) for {} input register(s)",
                        inputs.len(),
                        regs.len()
                    )));
                }
                inputs.clone()
            }
            InputSpec::Array { .. } => {
                let mut v = vec![inputs.len() as u32];
                v.extend(inputs);
                v
            }
        };
    }
    opts.stdin_len = usize::try_from(args.stdin_len)
        .ok()
        .filter(|&n| n <= MAX_STDIN)
        .ok_or_else(|| CliError::Usage(format!("--stdin-len must be at most {MAX_STDIN}")))?;
    opts.observe = args.observe.0.clone();
    opts.max_runs = args.max_runs;
    opts.timeout = args.timeout.map(Duration::from_secs);
    opts.dump_trace = args.dump_trace;
    opts.termination = args.termination.termination;
    let mut solver = SolverConfig::default();
    solver.timeout = Duration::from_millis(args.solver_timeout.max(1));
    if args.solver.trim() != "z3" {
        let p = ProcessSolver::from_name(&args.solver, solver.timeout).map_err(CliError::Usage)?;
        p.probe()
            .map_err(|e| CliError::Usage(format!("--solver {}: {e}", args.solver)))?;
        solver.external = Some(args.solver.clone());
    }
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

fn word(v: u32) -> String {
    format!("{} ({v:#010x})", signed(v))
}

/// An observed value for people.
fn shown(o: &Observed) -> String {
    match o {
        Observed::Word(v) => word(*v),
        Observed::Bytes(b) => format!("{:?} ({} bytes)", String::from_utf8_lossy(b), b.len()),
        Observed::Words(ws) => {
            let items: Vec<String> = ws.iter().map(|&w| signed(w).to_string()).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// An observed value in JSON.
fn observed_json(o: &Observed) -> Value {
    match o {
        Observed::Word(v) => json!(signed(*v)),
        Observed::Bytes(b) => json!(String::from_utf8_lossy(b)),
        Observed::Words(ws) => json!(ws.iter().map(|&w| signed(w)).collect::<Vec<_>>()),
    }
}

/// `done after 5 steps` or the error.
fn status_line(o: &Outcome) -> String {
    let steps = if o.steps == 1 { "step" } else { "steps" };
    match o.status {
        Status::Done => format!("done after {} {steps}", o.steps),
        Status::OutOfFuel => format!("out of fuel after {} {steps}", o.steps),
        Status::Error(f) => format!("error after {} {steps}: {} ({f})", o.steps, f.kind),
    }
}

/// Quotes a word for a shell when it needs it.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Standard input bytes as a `printf` format (octal escapes: POSIX printf has no `\x`).
fn printf_bytes(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("\\{b:03o}")).collect()
}

fn replay_command(args: &Args, prog: &Path, cx: &Counterexample) -> String {
    let mut cmd = String::new();
    if !cx.values.stdin.is_empty() {
        cmd.push_str(&format!("printf '{}' | ", printf_bytes(&cx.values.stdin)));
    }
    cmd.push_str(&format!(
        "tamarin run {}",
        shell_word(&prog.display().to_string())
    ));
    match &cx.values.array {
        Some(elems) => {
            let items: Vec<String> = elems.iter().map(|&e| signed(e).to_string()).collect();
            if items.is_empty() {
                cmd.push_str(" --array ''");
            } else {
                cmd.push_str(&format!(" --array {}", items.join(",")));
            }
            if let Some(base) = args.array_base {
                cmd.push_str(&format!(" --array-base {base:#x}"));
            }
        }
        None => {
            for (name, v) in &cx.values.registers {
                match name.as_str() {
                    "$1" => cmd.push_str(&format!(" --r1 {}", signed(*v))),
                    "$2" => cmd.push_str(&format!(" --r2 {}", signed(*v))),
                    _ => cmd.push_str(&format!(
                        " --reg {}",
                        shell_word(&format!("{name}={}", signed(*v)))
                    )),
                }
            }
        }
    }
    if !cx.values.stdin.is_empty() {
        cmd.push_str(" --stdin -");
    }
    cmd.push_str(&format!(" --fuel {}", args.fuel));
    if let Some(f) = args.input_format.input_format {
        let f = match f {
            crate::args::InputFormatArg::Asm => "asm",
            crate::args::InputFormatArg::Bin => "bin",
        };
        cmd.push_str(&format!(" --input-format {f}"));
    }
    if args.termination.termination != DEFAULT_TERMINATION {
        cmd.push_str(&format!(
            " --termination {:#x}",
            args.termination.termination
        ));
    }
    cmd
}

/// The inputs of a counterexample, one line.
fn inputs_line(cx: &Counterexample) -> String {
    let mut parts: Vec<String> = match &cx.values.array {
        Some(elems) => {
            let items: Vec<String> = elems.iter().map(|&e| signed(e).to_string()).collect();
            vec![format!(
                "array = [{}] (length {})",
                items.join(", "),
                elems.len()
            )]
        }
        None => cx
            .values
            .registers
            .iter()
            .map(|(n, v)| format!("{n} = {}", word(*v)))
            .collect(),
    };
    if !cx.values.stdin.is_empty() {
        parts.push(format!(
            "stdin = {:?}",
            String::from_utf8_lossy(&cx.values.stdin)
        ));
    }
    parts.join(", ")
}

fn write_text(out: &mut impl Write, args: &Args, report: &Report) -> std::io::Result<()> {
    let observed: Vec<String> = args.observe.0.iter().map(|o| o.to_string()).collect();
    let observed = observed.join(", ");
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            writeln!(
                out,
                "disequivalent: the programs differ on {}",
                inputs_line(cx)
            )?;
            let (l, r) = (
                args.left.display().to_string(),
                args.right.display().to_string(),
            );
            let width = l.len().max(r.len());
            for (side, name, o, pick) in [("left ", &l, &cx.left, 0), ("right", &r, &cx.right, 1)] {
                write!(out, "  {side} {name:width$}  {}", status_line(o))?;
                if o.status == Status::Done {
                    let items: Vec<String> = cx
                        .observed
                        .iter()
                        .map(|(n, a, b)| format!("{n} = {}", shown(if pick == 0 { a } else { b })))
                        .collect();
                    write!(out, ", {}", items.join(", "))?;
                }
                writeln!(out)?;
            }
            writeln!(out, "  replay:")?;
            writeln!(out, "    {}", replay_command(args, &args.left, cx))?;
            writeln!(out, "    {}", replay_command(args, &args.right, cx))?;
        }
        Verdict::Equivalent(p) => {
            let inputs = match args.frontend {
                FrontendKind::Array => format!("arrays of up to {} words", args.max_len),
                FrontendKind::Twoints => format!("inputs {}", report.input_names.join(", ")),
            };
            writeln!(
                out,
                "equivalent: for all {inputs}{}, every run of either program that ends within {} steps agrees on {observed}",
                if args.stdin_len > 0 {
                    format!(" and {} bytes of standard input", args.stdin_len)
                } else {
                    String::new()
                },
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
            "  {} difference queries, {} restarts (runs off the predicted path), {} jump targets explored, {} runs too long to trace",
            s.difference_queries, s.restarts, s.jump_targets, s.partial_runs
        )?;
    }
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn side_json(o: &Outcome, observed: &[(String, Value)]) -> Value {
    let mut m = Map::new();
    m.insert("status".into(), json!(o.status.name()));
    m.insert("steps".into(), json!(o.steps));
    match o.status {
        Status::Done => {
            for (name, v) in observed {
                m.insert(name.clone(), v.clone());
            }
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
            let mut inputs = Map::new();
            match &cx.values.array {
                Some(elems) => {
                    inputs.insert(
                        "array".into(),
                        json!(elems.iter().map(|&e| signed(e)).collect::<Vec<_>>()),
                    );
                }
                None => {
                    for (n, v) in &cx.values.registers {
                        inputs.insert(n.clone(), json!(signed(*v)));
                    }
                }
            }
            if !cx.values.stdin.is_empty() {
                inputs.insert("stdin".into(), json!(cx.values.stdin));
            }
            let left: Vec<(String, Value)> = cx
                .observed
                .iter()
                .map(|(n, a, _)| (n.clone(), observed_json(a)))
                .collect();
            let right: Vec<(String, Value)> = cx
                .observed
                .iter()
                .map(|(n, _, b)| (n.clone(), observed_json(b)))
                .collect();
            top.insert(
                "counterexample".into(),
                json!({
                    "inputs": inputs,
                    "left": side_json(&cx.left, &left),
                    "right": side_json(&cx.right, &right),
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
            "jump_targets": s.jump_targets,
            "partial_runs": s.partial_runs,
            "cache_hits": s.solver.cache_hits,
        }),
    );
    writeln!(out, "{}", Value::Object(top))
}
