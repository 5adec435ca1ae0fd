//! What the searching commands (`compare`, `check`, `paths`) share: their options, the
//! progress display, and how inputs and replay commands are shown.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use tamarin::Incomplete;
use tamarin::{InputSpec, InputValues};
use tamarin::{Observer, Options, Progress, Side};
use tamarin::{SolverConfig, DEFAULT_QUERY_TIMEOUT, DEFAULT_RESOURCE_LIMIT};
use tamarin_mips::cpu::DEFAULT_TERMINATION;
use tamarin_mips::{Outcome, Reg, Status};

use crate::args::{
    parse_count, parse_reg, parse_word, parse_word_list, InputFormatOpt, TerminationOpt, WordList,
};
use crate::diag::CliError;
use crate::words::count;

/// The longest array the array frontend explores.
const MAX_ARRAY: u32 = 4096;
/// The most standard input bytes that can be inputs.
const MAX_STDIN: usize = 4096;

/// Options of every search.
#[derive(Debug, ClapArgs)]
pub struct SearchArgs {
    /// Steps per run; a run still going after this many is out of fuel, which is never
    /// a difference.
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = 10_000)]
    pub fuel: u64,
    /// The most path conditions per path that the bug hunt explores; in `compare` a
    /// proof goes on past it once the hunt found no difference (`check` and `paths`
    /// stop at it).
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = 50)]
    pub depth: u64,
    /// Time limit per solver query, in milliseconds (wall clock): behind the resource
    /// limit a safety net, and the bound of the --portfolio race.
    #[arg(long, value_name = "MS", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = DEFAULT_QUERY_TIMEOUT.as_millis() as u64)]
    pub solver_timeout: u64,
    /// Z3's deterministic resource limit for a query's first try (`rlimit`, 0 = none);
    /// a query left unknown is tried again in a fresh solver with 8 times as much.
    /// Unlike a timeout, a query meets it the same way however busy the machine is, so
    /// the same command gives the same verdict (in-process Z3 only).
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = DEFAULT_RESOURCE_LIMIT as u64)]
    pub solver_rlimit: u64,
    /// Solvers that a query Z3 left unknown is put to in parallel, the first definite
    /// answer winning (comma-separated: yices, cvc5, z3 or command lines; `none` for
    /// none). Those not installed are skipped. Bounded by --solver-timeout, so what it
    /// decides may depend on the machine's load.
    #[arg(long, value_name = "SOLVER,…", default_value = "yices,cvc5")]
    pub portfolio: String,
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
    #[arg(long, value_name = "ADDR", value_parser = parse_word, allow_hyphen_values = true)]
    pub array_base: Option<u32>,
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
    /// Time limit for the whole search, in seconds; 0 means none. When it passes, the
    /// result says what was covered (exit status 3).
    #[arg(long, value_name = "SECONDS", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = DEFAULT_TIMEOUT_SECS)]
    pub timeout: u64,
    /// Whether one program ending (normally or with an error) where the other runs out
    /// of fuel is a difference: `same` (the report's rule: a run out of fuel is never a
    /// difference; the default of compare) or `different` (the default of grade; for
    /// check, a run out of fuel becomes a finding of kind out-of-fuel).
    #[arg(long, value_enum, value_name = "POLICY")]
    pub out_of_fuel: Option<FuelPolicyArg>,
    /// A precondition on the inputs (repeatable; all must hold): counterexamples
    /// satisfy it and a proof covers the inputs it allows. `$1`, `u$1` (unsigned),
    /// `len`, `a[K]`, `in[K]`, numbers and 'c'haracters; + - * (64-bit, no wrap-around),
    /// / and % by constants; == != < <= > >= (chained: `1 <= $1 <= 26`); && || !;
    /// `all x: P` / `some x: P` over the array's elements (`all x, i: …` binds the
    /// index too). Example: --assume '0 <= $1 <= 20' --assume 'all x: x != 0'.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub assume: Vec<String>,
    /// Print each run's symbolic trace (SSA form) to standard error.
    #[arg(long)]
    pub dump_trace: bool,
    /// Write every solver query to this directory as a standalone SMT-LIB 2 file (it
    /// must be empty or new; see --force).
    #[arg(long, value_name = "DIR")]
    pub dump_smt: Option<PathBuf>,
    /// Clear an output directory (--dump-smt, --emit-tests) that is not empty, instead
    /// of refusing it, so no file of an earlier run is left beside the new ones.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub input_format: InputFormatOpt,
    #[command(flatten)]
    pub termination: TerminationOpt,
}

/// `--out-of-fuel`, as a clap value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FuelPolicyArg {
    /// A run out of fuel is never a difference.
    Same,
    /// One program ending where the other runs out of fuel is a difference.
    Different,
}

/// The default `--timeout`: long enough for every proof in our benchmarks, short
/// enough that a class of submissions cannot stall on one.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

impl SearchArgs {
    /// The engine's options these arguments describe.
    pub fn options(&self) -> Result<Options, CliError> {
        let args = self;
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
                            "--init-inputs gives {} for {}",
                            count(inputs.len() as u64, "number"),
                            count(regs.len() as u64, "input register")
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
        opts.max_runs = args.max_runs;
        opts.timeout = (args.timeout > 0).then(|| Duration::from_secs(args.timeout));
        opts.dump_trace = args.dump_trace;
        opts.interrupt = crate::interrupt::flag();
        opts.termination = args.termination.termination;
        let mut solver = SolverConfig::default();
        solver.timeout = Duration::from_millis(args.solver_timeout.max(1));
        solver.resource_limit = match args.solver_rlimit {
            0 => None,
            n => Some(u32::try_from(n).map_err(|_| {
                CliError::Usage(format!("--solver-rlimit must be at most {}", u32::MAX))
            })?),
        };
        solver.portfolio = match args.portfolio.trim() {
            "" | "none" => Vec::new(),
            list => list
                .split(',')
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .collect(),
        };
        // Any other solver is a command, which the engine tries before the search.
        if args.solver.trim() != "z3" {
            solver.external = Some(args.solver.clone());
        }
        solver.dump_dir = args.dump_smt.clone();
        opts.solver = solver;
        opts.out_of_fuel = match args.out_of_fuel {
            Some(FuelPolicyArg::Different) => tamarin::FuelPolicy::Different,
            Some(FuelPolicyArg::Same) | None => tamarin::FuelPolicy::Same,
        };
        opts.assume = args
            .assume
            .iter()
            .map(|text| {
                tamarin::Precondition::parse(text).map_err(|e| CliError::Precondition {
                    text: text.clone(),
                    span: e.span,
                    message: e.message,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(opts)
    }

    /// Refuses options that do not apply to the task: `--max-len` or `--array-base`
    /// without `--frontend array`, `--inputs` with it, and an `--init-inputs` array
    /// longer than `--max-len`. `given` tells, for an argument's id (`max_len`),
    /// whether it was given and how to name it (`--max-len`, or a task file's key);
    /// defaults are never refused.
    pub fn check_applicable(&self, given: &dyn Fn(&str) -> Option<String>) -> Result<(), CliError> {
        let not_array = |id: &str, what: &str| match given(id) {
            Some(name) => Err(CliError::Usage(format!(
                "{name} applies only to --frontend array ({what}); the inputs here are \
                 registers (--frontend twoints)"
            ))),
            None => Ok(()),
        };
        match self.frontend {
            FrontendKind::Twoints => {
                not_array("max_len", "the longest input array")?;
                not_array("array_base", "where the input array is placed")?;
            }
            FrontendKind::Array => {
                if let Some(name) = given("inputs") {
                    return Err(CliError::Usage(format!(
                        "{name} applies only to --frontend twoints: with --frontend array, $1 \
                         holds the array's address and $2 its length"
                    )));
                }
                if let Some(WordList(elems)) = &self.init_inputs {
                    if elems.len() as u64 > self.max_len {
                        return Err(CliError::Usage(format!(
                            "--init-inputs gives an array of {}, longer than the --max-len of {}",
                            count(elems.len() as u64, "word"),
                            self.max_len
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// [`check_applicable`](Self::check_applicable) for the options given on the
    /// command line of subcommand `name`.
    pub fn check_given(&self, name: &str) -> Result<(), CliError> {
        let given = given_on_command_line(name);
        let array_base = self.array_base.is_some();
        self.check_applicable(&|id| {
            let on_line = given.contains(id) || (id == "array_base" && array_base);
            on_line.then(|| format!("--{}", id.replace('_', "-")))
        })
    }

    /// Warns when `--array-base` places the array over a program's image: the engines
    /// cover that (the array's words replace the program's there, and one executed is
    /// code that depends on the inputs), but it is rarely what a task means.
    pub fn warn_overlap(&self, programs: &[(&Path, &tamarin::mips::Program)]) {
        let (FrontendKind::Array, Some(base)) = (self.frontend, self.array_base) else {
            return;
        };
        for (path, program) in programs {
            let end = program.byte_len();
            if base < end {
                let words = (end - base).div_ceil(4);
                eprintln!(
                    "warning: --array-base {base:#x} lies inside {}, whose image ends at \
                     {end:#x}: the array's first {} overwrite the program there",
                    path.display(),
                    count(u64::from(words), "word")
                );
            }
        }
    }

    /// Before a folder is cleared (`--dump-smt`, or `--emit-tests` when `emits`), checks
    /// the task with the engine, so that a refused one changes no file (otherwise the
    /// entry's own check is enough: the solver is not started twice); then prepares
    /// the `--dump-smt` folder. `first` names the program an error is about.
    pub fn prepare(
        &self,
        opts: &tamarin::Options,
        programs: &[&tamarin::mips::Program],
        first: &Path,
        emits: bool,
    ) -> Result<(), CliError> {
        if emits || self.dump_smt.is_some() {
            opts.validate(programs)
                .map_err(|e| CliError::engine(e, first))?;
        }
        if let Some(dir) = &self.dump_smt {
            prepare_dir(dir, "--dump-smt", self.force)?;
        }
        Ok(())
    }
}

/// The ids of the arguments of subcommand `name` given on the command line itself
/// (not defaults): read again from the process's arguments, since the derived
/// arguments do not keep where each value came from.
pub fn given_on_command_line(name: &str) -> std::collections::HashSet<String> {
    given_in(std::env::args_os(), name)
}

/// As [`given_on_command_line`], for the command line `argv` (the program's name
/// first).
pub fn given_in<I, T>(argv: I, name: &str) -> std::collections::HashSet<String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::parser::ValueSource;
    use clap::CommandFactory;
    let Ok(matches) = crate::Cli::command().try_get_matches_from(argv) else {
        return Default::default();
    };
    let Some((found, sub)) = matches.subcommand() else {
        return Default::default();
    };
    if found != name {
        return Default::default();
    }
    sub.ids()
        .filter(|id| sub.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .map(|id| id.to_string())
        .collect()
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

pub fn parse_reg_list(text: &str) -> Result<RegList, String> {
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

/// Shows progress on a terminal after the first second, and traces on stderr.
pub struct CliObserver {
    bar: Option<ProgressBar>,
    interactive: bool,
    /// When the command began: the first second is counted from here, not from the
    /// start of the engine's current phase (`auto` runs several, each with its own
    /// clock, and the bar would otherwise wait for a phase that lasts a second).
    started: std::time::Instant,
}

impl CliObserver {
    pub fn new(text: bool) -> Self {
        CliObserver {
            bar: None,
            interactive: text && std::io::stderr().is_terminal(),
            started: std::time::Instant::now(),
        }
    }

    pub fn done(&mut self) {
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
        if !self.interactive || self.started.elapsed() < Duration::from_secs(1) {
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
            "{}, paths {} left / {} right, {}",
            count(p.runs, "run"),
            p.paths.0,
            p.paths.1,
            count(p.queries, "solver query")
        ));
    }
}

pub fn signed(v: u32) -> i64 {
    v as i32 as i64
}

pub fn word(v: u32) -> String {
    format!("{} ({v:#010x})", signed(v))
}

/// `done after 5 steps` or the error.
pub fn status_line(o: &Outcome) -> String {
    let steps = count(o.steps, "step");
    match o.status {
        Status::Done => format!("done after {steps}"),
        Status::OutOfFuel => format!("out of fuel after {steps}"),
        Status::Error(f) => format!("error after {steps}: {} ({f})", f.kind),
        Status::Stopped => format!("stopped by the time limit after {steps}"),
    }
}

/// Quotes a word for a shell when it needs it.
pub fn shell_word(s: &str) -> String {
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
pub fn printf_bytes(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("\\{b:03o}")).collect()
}

/// The `tamarin run` command line that replays `values` on `prog`.
pub fn replay_command(args: &SearchArgs, prog: &Path, values: &InputValues) -> String {
    let program = shell_word(&prog.display().to_string());
    with_inputs(args, &format!("tamarin run {program}"), values)
}

/// The `tamarin explain` command that shows where `left` and `right` part on `values`.
pub fn explain_command(
    args: &SearchArgs,
    left: &Path,
    right: &Path,
    values: &InputValues,
) -> String {
    let (l, r) = (
        shell_word(&left.display().to_string()),
        shell_word(&right.display().to_string()),
    );
    let mut cmd = with_inputs(args, &format!("tamarin explain {l} {r}"), values);
    if args.out_of_fuel == Some(FuelPolicyArg::Different) {
        cmd.push_str(" --out-of-fuel different");
    }
    cmd
}

/// `command` with the options that give a run `values` (and the search's fuel,
/// input format and termination address), piping standard input where it has some.
fn with_inputs(args: &SearchArgs, command: &str, values: &InputValues) -> String {
    let mut cmd = String::new();
    if !values.stdin.is_empty() {
        cmd.push_str(&format!("printf '{}' | ", printf_bytes(&values.stdin)));
    }
    cmd.push_str(command);
    match &values.array {
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
            for (name, v) in &values.registers {
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
    if !values.stdin.is_empty() {
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

/// The inputs of a counterexample, one line: `$1 = -1 (0xffffffff), …`.
pub fn inputs_line(values: &InputValues) -> String {
    inputs_shown(values, word)
}

/// The same, numbers in decimal only: `$1 = -1, $2 = 0`.
pub fn short_inputs_line(values: &InputValues) -> String {
    inputs_shown(values, |v| signed(v).to_string())
}

/// The inputs in one line, register values shown by `show`.
fn inputs_shown(values: &InputValues, show: fn(u32) -> String) -> String {
    let mut parts: Vec<String> = match &values.array {
        Some(elems) => {
            let items: Vec<String> = elems.iter().map(|&e| signed(e).to_string()).collect();
            vec![format!(
                "array = [{}] (length {})",
                items.join(", "),
                elems.len()
            )]
        }
        None => values
            .registers
            .iter()
            .map(|(n, v)| format!("{n} = {}", show(*v)))
            .collect(),
    };
    if !values.stdin.is_empty() {
        parts.push(format!(
            "stdin = {:?}",
            String::from_utf8_lossy(&values.stdin)
        ));
    }
    parts.join(", ")
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The source line (number and text) of the word at `pc`, for assembled programs.
pub fn source_line<'s>(
    program: &tamarin_mips::Program,
    source: Option<&'s str>,
    pc: u32,
) -> Option<(u32, &'s str)> {
    let line = program.line_of(pc)?;
    let text = source?.lines().nth(line.checked_sub(1)? as usize)?;
    Some((line, text))
}

/// Makes `dir` a directory for output files (a clear error when a file is in the way).
/// Makes `dir` an empty directory for `flag`'s files: created if new; if it holds
/// anything, refused, or cleared first with `force`, so that no file of an earlier run
/// is taken for one of this run.
pub fn prepare_dir(dir: &Path, flag: &'static str, force: bool) -> Result<(), CliError> {
    let fail = |source| CliError::OutputDir {
        flag,
        path: dir.display().to_string(),
        source,
    };
    // `create_dir_all` would say only "File exists" for a file in the way.
    if dir.exists() && !dir.is_dir() {
        return Err(fail(std::io::Error::other(
            "it exists and is not a directory",
        )));
    }
    if dir.is_dir() {
        let mut entries = std::fs::read_dir(dir).map_err(fail)?;
        if entries.next().is_some() {
            if !force {
                return Err(fail(std::io::Error::other(
                    "it is not empty (--force clears it first)",
                )));
            }
            for entry in std::fs::read_dir(dir).map_err(fail)? {
                let path = entry.map_err(fail)?.path();
                let removed = if path.is_dir() && !path.is_symlink() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
                removed.map_err(fail)?;
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(fail)
}

/// Prints the problems a search met that did not stop it.
pub fn print_warnings(stats: &tamarin::Stats) {
    for w in &stats.warnings {
        eprintln!("warning: {w}");
    }
}

/// The searching commands, for advice that names only their own options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Searcher {
    Compare,
    Check,
    Paths,
}

/// What a user of `cmd` can do about `reason`: an option of that command to change,
/// or nothing when no option helps.
pub fn advice(reason: &Incomplete, cmd: Searcher) -> Option<&'static str> {
    if reason.is_time_limit() {
        return Some("raise --timeout, or 0 for none");
    }
    match reason.kind() {
        "depth-bound" => Some("raise --depth"),
        // Z3 says `canceled` when it meets its resource limit.
        "solver-unknown"
            if matches!(reason, Incomplete::SolverUnknown { reason, .. }
                if reason.contains("canceled") || reason.contains("resource")) =>
        {
            Some("raise --solver-rlimit, or 0 for none")
        }
        "solver-unknown" => Some("raise --solver-timeout"),
        "run-budget" => Some("raise --max-runs"),
        "path-budget" if cmd == Searcher::Paths => Some("raise --max-paths"),
        "path-budget" => Some("raise --timeout, or 0 for none"),
        "trace-limit" => Some("if the task's runs are shorter, lower --fuel"),
        "uncovered-jump" | "code-write" | "symbolic-code" | "encoding-budget"
            if cmd == Searcher::Compare =>
        {
            Some("--engine concolic may cover it")
        }
        _ => None,
    }
}

/// What to do about a note ([`tamarin::Note`]): the option that takes it into
/// account (`compare` and `grade` both take `--observe`; grade's task file its
/// `observe` key).
pub fn note_advice(note: &tamarin::Note) -> String {
    match note {
        tamarin::Note::OutputNotObserved { observed, .. } => {
            let mut list = observed.clone();
            list.push("output".into());
            format!(
                "to compare it too: --observe {}",
                shell_word(&list.join(","))
            )
        }
    }
}

/// A note as text: what the user should know and, in parentheses, what to do.
pub fn note_text(note: &tamarin::Note) -> String {
    format!("{note} ({})", note_advice(note))
}

/// One reason as text: what happened and, in parentheses, what to do about it.
pub fn reason_text(reason: &Incomplete, cmd: Searcher) -> String {
    match advice(reason, cmd) {
        Some(a) => format!("{reason} ({a})"),
        None => reason.to_string(),
    }
}

/// `complete: …` or the list of reasons the search was not.
pub fn write_completeness(
    out: &mut impl std::io::Write,
    incomplete: &[Incomplete],
    complete: &str,
    cmd: Searcher,
) -> std::io::Result<()> {
    if incomplete.is_empty() {
        return writeln!(out, "complete: {complete}");
    }
    writeln!(out, "incomplete:")?;
    for r in incomplete {
        writeln!(out, "  - {}", reason_text(r, cmd))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One reason of every kind.
    fn every_reason() -> Vec<Incomplete> {
        let mut all = vec![
            Incomplete::DepthCut {
                points: 3,
                depth: 50,
            },
            Incomplete::SolverUnknown {
                queries: 2,
                reason: "timeout".into(),
            },
            Incomplete::SolverUnknown {
                queries: 1,
                reason: tamarin::TIME_LIMIT_PASSED.into(),
            },
            Incomplete::Diverged { runs: 1 },
            Incomplete::PathBudget { paths: 256 },
            Incomplete::RunBudget { runs: 10_000 },
            Incomplete::Timeout { millis: 5000 },
            Incomplete::Interrupted,
            Incomplete::TraceLimit { runs: 1 },
            Incomplete::TooManyPairs { pairs: 100_000 },
            Incomplete::Unconfirmed,
        ];
        all.extend(
            tamarin::Uncovered::ALL
                .iter()
                .map(|&u| Incomplete::Encoding { what: u }),
        );
        all
    }

    #[test]
    fn every_kind_has_a_stable_name_of_its_own() {
        let kinds: Vec<&str> = every_reason().iter().map(|r| r.kind()).collect();
        for k in &kinds {
            assert!(!k.is_empty() && k.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert_ne!(*k, "encoding", "every uncovered part has its own kind");
        }
        let mut distinct = kinds.clone();
        distinct.sort_unstable();
        distinct.dedup();
        // The two solver-unknown reasons share their kind.
        assert_eq!(distinct.len(), kinds.len() - 1);
    }

    #[test]
    fn advice_names_only_options_the_command_has() {
        use clap::CommandFactory;
        let cli = crate::Cli::command();
        for (name, cmd) in [
            ("compare", Searcher::Compare),
            ("check", Searcher::Check),
            ("paths", Searcher::Paths),
            ("grade", Searcher::Compare),
        ] {
            let sub = cli.find_subcommand(name).expect("subcommand");
            let longs: Vec<String> = sub
                .get_arguments()
                .filter_map(|a| a.get_long())
                .map(|l| format!("--{l}"))
                .collect();
            for reason in every_reason() {
                let Some(text) = advice(&reason, cmd) else {
                    continue;
                };
                let named: Vec<&str> = text
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .filter(|w| w.starts_with("--"))
                    .collect();
                assert!(!named.is_empty(), "{text}");
                for option in named {
                    assert!(
                        longs.iter().any(|l| l == option),
                        "{name}: advice for {} names {option}, which it does not have",
                        reason.kind()
                    );
                }
            }
        }
    }

    #[test]
    fn a_time_limit_is_never_advised_as_a_solver_timeout() {
        let r = Incomplete::SolverUnknown {
            queries: 1,
            reason: tamarin::TIME_LIMIT_PASSED.into(),
        };
        assert_eq!(
            advice(&r, Searcher::Compare),
            Some("raise --timeout, or 0 for none")
        );
        let json = |r: &Incomplete, cmd| {
            serde_json::to_value(crate::json::Reason::new(r, cmd)).expect("a reason serializes")
        };
        let v = json(&r, Searcher::Compare);
        assert_eq!(v["kind"], "solver-unknown");
        assert_eq!(v["queries"], 1);
        let depth = json(
            &Incomplete::DepthCut {
                points: 3,
                depth: 50,
            },
            Searcher::Check,
        );
        let keys: Vec<&String> = depth.as_object().expect("an object").keys().collect();
        assert_eq!(keys, ["kind", "message", "advice", "points", "depth"]);
        assert_eq!(depth["kind"], "depth-bound");
        assert_eq!(
            (depth["points"].clone(), depth["depth"].clone()),
            (3.into(), 50.into())
        );
        assert_eq!(depth["advice"], "raise --depth");
    }
}
