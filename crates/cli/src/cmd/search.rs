//! What the searching commands (`compare`, `check`, `paths`) share: their options, the
//! progress display, and how inputs and replay commands are shown.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use tamarin::{FuelPolicy, Incomplete, Observer, Progress, Side};
use tamarin::{DEFAULT_QUERY_TIMEOUT, DEFAULT_RESOURCE_LIMIT};
pub use tamarin_grade::parse::{parse_reg_list, RegList};
pub use tamarin_grade::settings::DEFAULT_TIMEOUT_SECS;
use tamarin_grade::settings::{Frontend, Line, Search, Settings};
use tamarin_grade::task::Fuel;
pub use tamarin_grade::text::*;
use tamarin_grade::Task;

use crate::args::{
    parse_count, parse_word, parse_word_list, InputFormatOpt, TerminationOpt, WordList,
};
use crate::diag::CliError;
use crate::words::count;

/// Options of every search.
#[derive(Debug, ClapArgs)]
pub struct SearchArgs {
    /// Steps per run; a run still going after this many is out of fuel, which is never
    /// a difference. `auto`: the reference's (LEFT's, the task's) most steps on a fixed
    /// sample of the domain, times 4, at least 10000.
    #[arg(long, value_name = "N|auto", value_parser = Fuel::parse,
          allow_negative_numbers = true, default_value = "10000")]
    pub fuel: Fuel,
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
    /// The solver work a whole comparison may spend, in Z3's resource units (the
    /// default first try is 2,000,000, about a second of an idle core); 0 = the
    /// default: none, or, where verdicts are decided by counts (grade, --task,
    /// --deterministic), 1,000,000 per second of --timeout. A count, not a clock: the
    /// search meets it the same way however busy the machine is.
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = 0)]
    pub solver_work: u64,
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
    /// A domain program, for preconditions no formula states (such as "a valid tree"):
    /// a CS241 program run on the same inputs (in a machine of its own); an input is in
    /// the domain when it ends normally with $3 = 1 within --assume-fuel steps.
    /// Counterexamples are inside it, and a proof covers the inputs it accepts. Its
    /// merged encoding must follow it exactly (fixed jumps, no code written or read
    /// from the inputs).
    #[arg(long, value_name = "FILE")]
    pub assume_program: Option<PathBuf>,
    /// The domain program's own fuel: an input on which it runs longer is outside.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true,
          default_value_t = tamarin_grade::settings::DEFAULT_ASSUME_FUEL)]
    pub assume_fuel: u64,
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

impl SearchArgs {
    /// These options as plain settings.
    pub fn search(&self) -> Search {
        Search {
            fuel: match self.fuel {
                Fuel::Steps(n) => n,
                Fuel::Auto => Search::default().fuel,
            },
            fuel_auto: self.fuel == Fuel::Auto,
            depth: self.depth,
            solver_timeout: self.solver_timeout,
            solver_rlimit: self.solver_rlimit,
            solver_work: self.solver_work,
            deterministic: false,
            portfolio: self.portfolio.clone(),
            init_inputs: self.init_inputs.as_ref().map(|w| w.0.clone()),
            frontend: match self.frontend {
                FrontendKind::Twoints => Frontend::Twoints,
                FrontendKind::Array => Frontend::Array,
            },
            inputs: self.inputs.0.clone(),
            max_len: self.max_len,
            array_base: self.array_base,
            stdin_len: self.stdin_len,
            solver: self.solver.clone(),
            max_runs: self.max_runs,
            timeout: self.timeout,
            out_of_fuel: self.out_of_fuel.map(FuelPolicyArg::policy),
            assume: self.assume.clone(),
            assume_program: self.assume_program.clone(),
            assume_fuel: self.assume_fuel,
            dump_trace: self.dump_trace,
            dump_smt: self.dump_smt.clone(),
            force: self.force,
            input_format: self.input_format.format(),
            link: self.input_format.link.clone(),
            termination: self.termination.termination,
            // Set from `--unbounded` by the commands that take it.
            unbounded: false,
        }
    }
}

impl FuelPolicyArg {
    pub fn policy(self) -> FuelPolicy {
        match self {
            FuelPolicyArg::Same => FuelPolicy::Same,
            FuelPolicyArg::Different => FuelPolicy::Different,
        }
    }
}

/// Resolves the settings of subcommand `name`: the `--task` file first (when given),
/// the command line on top, as `grade` does (`grading`: grade's own defaults).
pub fn resolve(
    name: &str,
    line: Line,
    task: Option<&Path>,
    grading: bool,
) -> Result<(Settings, Option<Task>), CliError> {
    let given = given_on_command_line(name);
    let array_base = line.search.array_base.is_some();
    let task = task.map(Task::read).transpose()?;
    let mut settings = Settings::resolve(
        line,
        task.as_ref(),
        &|id| given.contains(id) || (id == "array_base" && array_base),
        grading,
        crate::interrupt::flag(),
    )?;
    attach_domain_program(&mut settings)?;
    attach_link(&mut settings)?;
    attach_procedure_cache(&mut settings);
    if settings.needs_sizing() {
        let reference = task.as_ref().and_then(Task::reference).ok_or_else(|| {
            CliError::Usage(format!(
                "--fuel auto sizes the fuel from the reference's runs: with `{name}`, give a --task file that names the reference, or a number of steps"
            ))
        })?;
        let program = super::load_program(&reference, settings.search.input_format)?;
        size_fuel(&mut settings, &program, &reference);
    }
    Ok((settings, task))
}

/// Reads the domain program that the settings name (`--assume-program`, a task's
/// `assume-program`) and attaches it (nothing to do without one). A file that cannot be
/// read or does not assemble is an error with its place (exit status 2).
pub fn attach_domain_program(settings: &mut Settings) -> Result<(), CliError> {
    let Some(path) = settings.search.assume_program.clone() else {
        return Ok(());
    };
    if super::is_stdin(&path) {
        // Standard input is the programs' to read (`compare - right.asm`).
        return Err(CliError::Usage(
            "--assume-program takes a file, not `-` (standard input)".into(),
        ));
    }
    let (bytes, _, program) = super::read_program(&path, None)?;
    settings.set_domain_program(path.display().to_string(), &bytes, program);
    Ok(())
}

/// Reads the modules that the settings link after every program (`--link`, a task's
/// `link`), links them into every program loaded from now on, and puts their content
/// in the settings' key (nothing to do without any).
/// Where the checks of shared procedures are kept between commands: `TAMARIN_CACHE_DIR`
/// (empty: nowhere), else `$XDG_CACHE_HOME/tamarin`, else `$HOME/.cache/tamarin`.
pub fn attach_procedure_cache(settings: &mut Settings) {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    settings.opts.procedure_cache = match std::env::var_os("TAMARIN_CACHE_DIR") {
        Some(dir) if dir.is_empty() => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => var("XDG_CACHE_HOME")
            .map(|d| PathBuf::from(d).join("tamarin"))
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache/tamarin"))),
    };
}

pub fn attach_link(settings: &mut Settings) -> Result<(), CliError> {
    if settings.search.link.is_empty() {
        return Ok(());
    }
    let bytes = super::set_link(&settings.search.link)?;
    settings.set_link_digest(bytes.iter().map(Vec::as_slice));
    Ok(())
}

/// Sizes the fuel from `reference`'s runs (`--fuel auto`, `fuel = "auto"`), and says on
/// standard error how, with what went wrong (the reports of compare, check and paths
/// have no task line of their own).
pub fn size_fuel(settings: &mut Settings, reference: &tamarin::mips::Program, path: &Path) {
    if let Some(s) = settings.size_fuel(reference) {
        eprintln!(
            "fuel: {}, from the runs of {} on {}",
            s.derivation(),
            path.display(),
            count(s.inputs, "input")
        );
        for w in &s.warnings {
            eprintln!("warning: {w}");
        }
    }
}

/// Warns when `--array-base` places the array over a program's image: the engines
/// cover that (the array's words replace the program's there, and one executed is
/// code that depends on the inputs), but it is rarely what a task means.
pub fn warn_overlap(search: &Search, programs: &[(&Path, &tamarin::mips::Program)]) {
    let (Frontend::Array, Some(base)) = (search.frontend, search.array_base) else {
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
/// entry's own check is enough: the solver is not started twice); then prepares the
/// `--dump-smt` folder. `first` names the program an error is about.
pub fn prepare(
    search: &Search,
    opts: &tamarin::Options,
    programs: &[&tamarin::mips::Program],
    first: &Path,
    emits: bool,
) -> Result<(), CliError> {
    if emits || search.dump_smt.is_some() {
        opts.validate(programs)
            .map_err(|e| CliError::engine(e, first))?;
    }
    if let Some(dir) = &search.dump_smt {
        prepare_dir(dir, "--dump-smt", search.force)?;
    }
    Ok(())
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

/// The engines, as a clap value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    Concolic,
    Bmc,
    Auto,
}

impl EngineArg {
    pub fn engine(self) -> tamarin::Engine {
        match self {
            EngineArg::Concolic => tamarin::Engine::Concolic,
            EngineArg::Bmc => tamarin::Engine::Bmc,
            EngineArg::Auto => tamarin::Engine::Auto,
        }
    }
}

/// How inputs enter the programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FrontendKind {
    /// Input registers ($1 and $2 unless --inputs says otherwise).
    Twoints,
    /// An array: $1 holds its address, $2 its length.
    Array,
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
            Incomplete::SolverUnknown {
                queries: 1,
                reason: tamarin::WORK_BUDGET_SPENT.into(),
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
        // The three solver-unknown reasons share their kind.
        assert_eq!(distinct.len(), kinds.len() - 2);
    }

    #[test]
    fn advice_names_only_options_the_command_has() {
        use clap::CommandFactory;
        let cli = crate::Cli::command();
        use tamarin::Engine;
        let mut commands = vec![("check", Searcher::Check), ("paths", Searcher::Paths)];
        for engine in [Engine::Auto, Engine::Concolic, Engine::Bmc] {
            commands.push(("compare", Searcher::Compare(engine)));
            commands.push(("grade", Searcher::Compare(engine)));
        }
        for (name, cmd) in commands {
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

    /// The advice names the engine that may help: the other engine when one ran
    /// alone, and bmc when auto's budget for it was spent.
    #[test]
    fn advice_names_the_engine_that_may_help() {
        use tamarin::Engine;
        let spent = Incomplete::SolverUnknown {
            queries: 1,
            reason: tamarin::WORK_BUDGET_SPENT.into(),
        };
        let terms = Incomplete::Encoding {
            what: tamarin::Uncovered::ALL
                .iter()
                .copied()
                .find(|u| u.kind() == "encoding-budget")
                .expect("the encoding budget is an uncovered part"),
        };
        let timeout = Incomplete::Timeout { millis: 1000 };
        let of = |r: &Incomplete, e| advice(r, Searcher::Compare(e)).unwrap_or("");
        assert!(of(&spent, Engine::Auto).contains("--engine bmc"));
        assert!(of(&terms, Engine::Auto).contains("--engine bmc"));
        assert!(of(&terms, Engine::Bmc).contains("--engine concolic"));
        assert!(of(&timeout, Engine::Concolic).contains("--engine auto"));
        assert!(of(&timeout, Engine::Bmc).contains("--engine auto"));
        assert!(!of(&timeout, Engine::Auto).contains("--engine"));
    }

    #[test]
    fn a_time_limit_is_never_advised_as_a_solver_timeout() {
        let r = Incomplete::SolverUnknown {
            queries: 1,
            reason: tamarin::TIME_LIMIT_PASSED.into(),
        };
        let auto = Searcher::Compare(tamarin::Engine::Auto);
        assert_eq!(advice(&r, auto), Some("raise --timeout, or 0 for none"));
        let json = |r: &Incomplete, cmd| {
            serde_json::to_value(crate::json::Reason::new(r, cmd)).expect("a reason serializes")
        };
        let v = json(&r, auto);
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
        assert_eq!(
            keys,
            [
                "kind",
                "cut_by_wall_clock",
                "message",
                "advice",
                "points",
                "depth"
            ]
        );
        assert_eq!(depth["cut_by_wall_clock"], false);
        assert_eq!(v["cut_by_wall_clock"], true);
        assert_eq!(depth["kind"], "depth-bound");
        assert_eq!(
            (depth["points"].clone(), depth["depth"].clone()),
            (3.into(), 50.into())
        );
        assert_eq!(depth["advice"], "raise --depth");
    }

    /// The plain settings start where the options do.
    #[test]
    fn the_settings_default_to_the_options_defaults() {
        use clap::Parser;
        #[derive(Debug, Parser)]
        struct Only {
            #[command(flatten)]
            search: SearchArgs,
        }
        let parsed = Only::try_parse_from(["t"]).expect("the defaults parse");
        assert_eq!(parsed.search.search(), Search::default());
    }

    /// Every search option is a key of task files, of the same name.
    #[test]
    fn every_search_option_is_a_task_key() {
        use clap::CommandFactory;
        let cli = crate::Cli::command();
        for name in ["compare", "check", "paths", "grade"] {
            let sub = cli.find_subcommand(name).expect("subcommand");
            let ids: Vec<String> =
                <SearchArgs as clap::Args>::augment_args(clap::Command::new("x"))
                    .get_arguments()
                    .filter_map(|a| a.get_long().map(str::to_string))
                    .collect();
            for long in ids {
                assert!(
                    tamarin_grade::task::KEYS.contains(&long.as_str()),
                    "{name}: --{long} is not a task key"
                );
                assert!(sub
                    .get_arguments()
                    .any(|a| a.get_long() == Some(long.as_str())));
            }
        }
    }
}
