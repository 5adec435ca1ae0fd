//! `tamarin grade REFERENCE SUBMISSION…`: compares every submission of a class with the
//! reference solution, in parallel, keeps each result in a store as soon as it is
//! known, groups the wrong submissions by their bug and reports the class as text,
//! JSON, CSV or an HTML page.
//!
//! The pieces: `collect` finds the submissions, `task` reads task files, `store` keeps
//! results (SQLite), `groups` forms the groups of wrong submissions, `report` prints
//! the text, JSON and CSV reports and `html` writes the page.

mod functions;
mod merge;
mod slurm;

use std::collections::{BTreeMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use tamarin_grade::class::{
    form_groups, grade_all, run_record, subs_view, thread_pool, Loaded, Progress, Reference,
    Submission,
};
use tamarin_grade::groups::Formed;
use tamarin_grade::parse::{parse_observables, ObservableList};
use tamarin_grade::settings::{group_timeout, Line, Settings};
use tamarin_grade::shard::Shard;
use tamarin_grade::store::{Journal, Store};
use tamarin_grade::{collect, html, report, run};
use tamarin_grade::{Diagnostic, Record, Task, Verdict};
use tamarin_mips::{InputFormat, LoadError};

use super::search::{EngineArg, SearchArgs};
use crate::diag::{CliError, EXIT_FOUND, EXIT_INCOMPLETE, EXIT_OK};

/// The default `--timeout` of `grade`, in seconds per submission (compare's is longer:
/// a class should not stall on one submission).
pub const DEFAULT_GRADE_TIMEOUT: &str = "30";

/// The help text of `grade`'s exit statuses.
pub const GRADE_EXIT_HELP: &str = "Exit status: 130 when stopped by Ctrl-C (after printing \
what was done); otherwise 2 on trouble (bad usage, a reference that does not assemble, a \
store that cannot be used); otherwise 3 when some submission is possibly-equivalent; \
otherwise 1 when some submission is disequivalent or does not assemble; otherwise 0 (every \
submission equivalent).";

/// Grade a class: compare every submission with the reference solution, keep the
/// results in a store (a rerun does only what changed), group the wrong submissions
/// by their bug and report.
///
/// Each submission gets a verdict: `equivalent` (proved within the bounds),
/// `disequivalent` (with inputs on which it differs from the reference, replayed on
/// both), `possibly-equivalent` (no difference found, with the reasons the search was
/// incomplete) or `does-not-assemble` (with the diagnostic). Wrong submissions are
/// grouped: two are in one group when the tool proves them equivalent to each other,
/// or (a heuristic) when their witnesses take the same path through the reference
/// and each witness shows the other's difference too.
#[derive(Debug, ClapArgs)]
#[command(
    override_usage = "tamarin grade [OPTIONS] REFERENCE SUBMISSION...\n       \
                      tamarin grade [OPTIONS] --task TASK.toml SUBMISSION...\n       \
                      tamarin grade [OPTIONS] --shard K/N --store SHARD.sqlite …\n       \
                      tamarin grade [OPTIONS] --slurm N …\n       \
                      tamarin grade merge [OPTIONS] STORE...",
    mut_arg("timeout", |a| a
        .help("Time limit per submission, in seconds (each comparison has its own, and so has each proof between two wrong submissions for the groups, there a safety net behind its budgets); 0 means none. A submission that meets it is possibly-equivalent")
        .default_value(DEFAULT_GRADE_TIMEOUT)),
    // For one comparison at a time only: refused by grade.
    mut_arg("portfolio", |a| a
        .help("Solvers that a query Z3 left unknown is put to in parallel (comma-separated: yices, cvc5, z3 or command lines). None by default in grade: the race is bounded by the clock, and grades must come out the same on a rerun")
        .default_value("none")),
    mut_arg("fuel", |a| a
        .help("Steps per run: a number, or `auto` (as `fuel = \"auto\"` in a task file): the reference's most steps on a fixed sample of the domain (edge, small and seeded random inputs that the preconditions admit; every array length up to --max-len), times 4, at least 10000; the report states the fuel and how it was sized. A submission whose witness is a run out of fuel that ends within 4 times the fuel gets a fuel-too-small warning")),
    mut_arg("out_of_fuel", |a| a
        .help("Whether a submission that runs out of fuel where the reference ends (or the other way round) differs: `different` (the default in grade: a submission that does not end where the reference does is wrong) or `same` (the report's rule)")),
    mut_arg("dump_trace", |a| a.hide(true)),
    mut_arg("dump_smt", |a| a.hide(true)),
    mut_arg("force", |a| a.hide(true)),
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<GradeCommand>,
    /// The reference solution, then the submissions: files, folders (every .asm, .s,
    /// .mips and .bin file inside, recursively; other files are listed as skipped) or
    /// quoted glob patterns ('subs/*.asm'). When the --task file names the reference,
    /// every path is a submission.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
    /// A task file (TOML) with the settings of the assignment, its keys: reference
    /// (relative to the file), frontend, inputs, observe, engine, unbounded, fuel, depth, max-len,
    /// array-base, stdin-len, init-inputs, timeout, group-timeout, max-runs, solver,
    /// solver-timeout, solver-rlimit, solver-work, portfolio, out-of-fuel, assume,
    /// assume-program, assume-fuel, input-format, link, termination,
    /// dump-trace, dump-smt and force (each as the option of that name takes it).
    /// Options on the command line win over it; an unknown key is an error. `compare
    /// --task` takes the same file.
    #[arg(long, value_name = "FILE")]
    pub task: Option<PathBuf>,
    /// What is compared when both runs end, comma-separated: $N, hi, lo, output and
    /// mem:A..B (as in compare) [default: $3].
    #[arg(long, value_name = "LIST", value_parser = parse_observables)]
    pub observe: Option<ObservableList>,
    /// How to decide each comparison: concolic, bmc or auto (as in compare)
    /// [default: auto].
    #[arg(long, value_enum, value_name = "ENGINE")]
    pub engine: Option<EngineArg>,
    /// Comparisons run at once [default: the number of cores].
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// The results store (SQLite): results already in it are not computed again, so a
    /// rerun after an interruption or a change of some files does only what is left.
    #[arg(long, value_name = "FILE", default_value = "tamarin-grade.sqlite")]
    pub store: PathBuf,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Grade only the K-th of N slices of the class (1 <= K <= N), for N machines
    /// grading one class together; `tamarin grade merge` joins their stores. The
    /// slices depend on the files' contents only, so they are the same on every
    /// rerun and whatever the order of the files. Each shard needs a store of its
    /// own [default store: tamarin-grade.shard-K-of-N.sqlite]; groups are formed by
    /// the merge.
    #[arg(long, value_name = "K/N", value_parser = parse_shard, conflicts_with = "count")]
    pub shard: Option<Shard>,
    #[command(flatten)]
    pub slurm: slurm::SlurmArgs,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub functions: functions::FunctionGradeArgs,
}

/// What `grade` does besides grading.
#[derive(Debug, clap::Subcommand)]
pub enum GradeCommand {
    /// Join the stores of a sharded run (`grade --shard K/N`) into one report of the
    /// whole class: the groups of wrong submissions are formed over all of them, and
    /// the report says which shards are missing or incomplete (exit status 3).
    #[command(after_help = merge::MERGE_EXIT_HELP)]
    Merge(merge::Args),
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    text.parse()
}

/// Where the report of `grade` and `grade merge` goes.
#[derive(Debug, ClapArgs)]
pub struct ReportArgs {
    /// How to print the report on standard output.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = GradeFormat::Text)]
    pub format: GradeFormat,
    /// Also write the report as one standalone page, DIR/index.html.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Do not group the wrong submissions (no comparisons of wrong submissions with
    /// each other): every wrong submission is reported with its own witness alone.
    #[arg(long)]
    pub no_groups: bool,
    /// A wall-clock limit on grouping the wrong submissions, in seconds; 0 means none
    /// [default: 120, or the task's group-timeout]. A safety net: each proof between
    /// two wrong submissions is bounded by counts (solver work, runs), so the groups
    /// come out the same on any load. When it passes, the pairs not yet compared stay
    /// apart (never joined by a guess) and the report says so (JSON
    /// summary.grouping_cut_by_wall_clock).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub group_timeout: Option<f64>,
}

/// `--group-timeout`: a number of seconds, 0 or more.
fn parse_seconds(text: &str) -> Result<f64, String> {
    let s: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds, not `{text}`"))?;
    tamarin_grade::settings::seconds(s)?;
    Ok(s)
}

/// How `grade` prints its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GradeFormat {
    /// A summary, the groups and one line per submission.
    Text,
    /// One JSON object: summary, groups, submissions, skipped.
    Json,
    /// One row per submission.
    Csv,
}

pub fn execute(mut args: Args) -> Result<ExitCode, CliError> {
    if let Some(GradeCommand::Merge(merge_args)) = args.command.take() {
        return merge::execute(merge_args);
    }
    let elf_reference = args.task.is_none()
        && args
            .paths
            .first()
            .is_some_and(|p| super::function::is_elf_file(p));
    if elf_reference || args.functions.function.is_some() {
        return functions::execute(&args);
    }
    let started = Instant::now();
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let given = given_on_command_line();
    let task = args.task.as_deref().map(Task::read).transpose()?;
    let mut settings = resolve(&args, task.as_ref(), &given)?;
    let group_limit = group_timeout(args.report.group_timeout, task.as_ref())?;

    // The reference: from the task file, or the first path.
    let mut paths = args.paths.clone();
    let reference_path = match task.as_ref().and_then(Task::reference) {
        Some(r) => r,
        None => {
            if paths.len() < 2 {
                return Err(CliError::Usage(
                    "give the reference and at least one submission (or a --task file that names the reference)".into(),
                ));
            }
            paths.remove(0)
        }
    };
    let format = settings.search.input_format;
    let (bytes, ref_format, program) = super::read_program(&reference_path, format)?;
    let reference = Reference {
        path: reference_path,
        bytes,
        format: ref_format,
        program,
    };
    settings
        .opts
        .validate(&[&reference.program])
        .map_err(|e| CliError::engine(e, &reference.path))?;
    // `fuel = "auto"`: sized before any key is made, since the fuel is part of them.
    settings.size_fuel(&reference.program);

    let found = collect::collect(&paths, &reference.path)?;
    if found.submissions.is_empty() {
        return Err(CliError::Usage("no submissions found".into()));
    }
    let shard = match args.slurm.count {
        // The class dealt out as the array's tasks will deal it.
        Some(count) => Shard { index: 1, count },
        None => args.shard.unwrap_or(Shard::WHOLE),
    };
    let all: Vec<Submission> = found
        .submissions
        .iter()
        .map(|path| read_submission(path, format, &reference, &settings.canonical))
        .collect();
    let mut run = run_record(
        &argv,
        task.as_ref(),
        &reference,
        &all,
        &found,
        &settings,
        shard,
    );
    if args.slurm.count.is_some() {
        return slurm::submit(&args, &argv, &run, &settings);
    }
    let store_path = match (&args.shard, given.contains("store")) {
        (Some(s), false) if !s.is_whole() => PathBuf::from(format!(
            "tamarin-grade.shard-{}-of-{}.sqlite",
            s.index, s.count
        )),
        _ => args.store.clone(),
    };
    // A shard's store has one writer, and may lie on a cluster's network file system.
    let journal = if shard.is_whole() {
        Journal::Wal
    } else {
        Journal::Rollback
    };
    let mut store = Store::open_with(&store_path, journal)?;
    store.put_run(&run)?;
    // This shard's submissions, and their bytes kept for the merge.
    let (mut subs, entries): (Vec<Submission>, Vec<&run::ClassEntry>) = all
        .into_iter()
        .zip(&run.submissions)
        .filter(|(_, entry)| entry.shard == shard.index)
        .unzip();
    let mine = subs
        .iter()
        .zip(&entries)
        .filter_map(|(sub, entry)| Some((entry.sha.as_deref()?, sub.source()?.0)));
    store.put_programs(
        std::iter::once((run.reference.sha.as_str(), &reference.bytes[..])).chain(mine),
    )?;
    for sub in &mut subs {
        if let Some(loaded) = &sub.loaded {
            if let Some(record) = store.get(&loaded.key)? {
                sub.record = Some(record);
                sub.from_store = true;
            }
        }
    }

    let pool = thread_pool(args.jobs)?;
    let mut progress = Bars::default();
    grade_all(
        &pool,
        &mut subs,
        &reference,
        &settings.opts,
        &mut store,
        &mut progress,
    )?;
    if !crate::interrupt::raised() && subs.iter().all(|s| s.record.is_some()) {
        run.finished = Some(run::now());
        store.put_run(&run)?;
    }

    // The groups of wrong submissions: over the whole class only (a shard's are
    // formed when the shards are merged).
    let grouping = Instant::now();
    let grouped = shard.is_whole() && !args.report.no_groups;
    let formed = if grouped {
        form_groups(
            &pool,
            &subs,
            &reference.program,
            &settings,
            group_limit,
            &mut store,
            &mut progress,
        )?
    } else {
        Formed::default()
    };
    let grouping = grouped.then(|| grouping.elapsed().as_secs_f64());
    let mut model = report::Model::new(
        &reference.path,
        &subs_view(&subs),
        &formed.groups,
        found.skipped,
        &settings.search,
        &settings.layout,
        started.elapsed(),
        crate::interrupt::raised(),
    );
    finish_model(&mut model, &subs, &reference, &settings);
    model.grouping_seconds = grouping;
    model.grouping_cut_by_wall_clock = formed.cut_by_wall_clock;
    if !shard.is_whole() {
        model.shard = Some(report::ShardModel {
            index: shard.index,
            count: shard.count,
            store: store_path.display().to_string(),
        });
    }
    print_report(&model, &args.report)
}

/// What the report adds to the verdicts: the task's rules (with how the fuel was
/// sized, and the notes about the reference), and the warnings about witnesses that
/// may be the fuel's fault.
fn finish_model(
    model: &mut report::Model,
    subs: &[Submission],
    reference: &Reference,
    settings: &Settings,
) {
    model.task = tamarin_grade::json::TaskModel::with_notes(&settings.opts, &reference.program);
    model.task.fuel_auto = settings.fuel_sizing.clone();
    tamarin_grade::class::warn_fuel(model, subs, &reference.program, settings);
}

/// Resolves the settings of a run of grade (and of `grade merge`, which resolves a
/// run's again): the task file first, the command line (`given`) on top.
fn resolve(
    args: &Args,
    task: Option<&Task>,
    given: &HashSet<String>,
) -> Result<Settings, CliError> {
    let mut search = args.search.search();
    search.force = false;
    search.unbounded = args.functions.unbounded;
    let line = Line {
        search,
        observe: args.observe.as_ref().map(|o| o.0.clone()),
        engine: args.engine.map(EngineArg::engine),
    };
    let mut settings = Settings::resolve(
        line,
        task,
        &|id| given.contains(id),
        true,
        crate::interrupt::flag(),
    )?;
    crate::cmd::search::attach_domain_program(&mut settings)?;
    crate::cmd::search::attach_link(&mut settings)?;
    crate::cmd::search::attach_procedure_cache(&mut settings);
    // The comparisons that run at once share the trace memory.
    let jobs = tamarin_grade::class::job_count(args.jobs);
    settings.opts.trace_limits = settings.opts.trace_limits.for_jobs(jobs);
    if settings.search.dump_smt.is_some() || settings.search.dump_trace {
        return Err(CliError::Usage(
            "--dump-smt and --dump-trace are for one comparison: use `tamarin compare`".into(),
        ));
    }
    Ok(settings)
}

/// Prints `model` as `to` says (on standard output, and the page), and says the exit
/// status.
fn print_report(model: &report::Model, to: &ReportArgs) -> Result<ExitCode, CliError> {
    let mut out = super::stdout();
    match to.format {
        GradeFormat::Text => report::write_text(&mut out, model),
        GradeFormat::Json => report::write_json(&mut out, model),
        GradeFormat::Csv => report::write_csv(&mut out, model),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    if let Some(dir) = &to.html {
        html::write(dir, model)?;
    }
    let has = |v: Verdict| model.rows.iter().any(|r| r.verdict == v);
    let shards_left = model
        .shards
        .as_ref()
        .is_some_and(|s| !s.missing.is_empty() || !s.incomplete.is_empty());
    Ok(ExitCode::from(
        if has(Verdict::PossiblyEquivalent) || shards_left {
            EXIT_INCOMPLETE
        } else if has(Verdict::Disequivalent) || has(Verdict::DoesNotAssemble) {
            EXIT_FOUND
        } else {
            EXIT_OK
        },
    ))
}

/// The ids of the arguments given on the command line itself (not defaults), so that
/// a task file fills in the others.
fn given_on_command_line() -> HashSet<String> {
    crate::cmd::search::given_on_command_line("grade")
}

/// Reads and loads one submission; one that cannot be is `does-not-assemble` at once.
fn read_submission(
    path: &Path,
    format: Option<InputFormat>,
    reference: &Reference,
    canonical: &str,
) -> Submission {
    let name = path.display().to_string();
    match super::read_program_bytes(path, format) {
        Ok((bytes, format)) => load_submission(name, bytes, format, reference, canonical),
        Err(e) => Submission {
            path: path.to_path_buf(),
            name,
            loaded: None,
            unloaded: None,
            record: Some(does_not_assemble(&e)),
            from_store: false,
        },
    }
}

/// Loads a submission named `name` from its bytes (read from its file, or kept by a
/// store).
fn load_submission(
    name: String,
    bytes: Vec<u8>,
    format: InputFormat,
    reference: &Reference,
    canonical: &str,
) -> Submission {
    let path = PathBuf::from(&name);
    match super::parse_bytes(&name, &bytes, format) {
        Ok(program) => Submission {
            path,
            name,
            loaded: Some(Loaded::new(bytes, format, program, reference, canonical)),
            unloaded: None,
            record: None,
            from_store: false,
        },
        Err(e) => Submission {
            path,
            name,
            loaded: None,
            unloaded: Some((bytes, format)),
            record: Some(does_not_assemble(&e)),
            from_store: false,
        },
    }
}

/// The record of a submission that cannot be loaded.
fn does_not_assemble(e: &CliError) -> Record {
    let json = e.to_json().error;
    let message = match e {
        // `file:line:column: message`, as compilers say it.
        CliError::Load(LoadError::Asm { errors }) => match errors.errors.first() {
            Some(first) => {
                let more = errors.errors.len() + errors.more - 1;
                format!(
                    "{}:{}:{}: {}{}",
                    errors.path,
                    first.line,
                    first.column,
                    first.message,
                    if more > 0 {
                        format!(
                            " (and {more} more error{})",
                            if more == 1 { "" } else { "s" }
                        )
                    } else {
                        String::new()
                    }
                )
            }
            None => json.message.clone(),
        },
        _ => json.message.clone(),
    };
    let text = match e {
        CliError::Load(LoadError::Asm { errors }) => {
            let mut buf = Vec::new();
            crate::diag::render_asm_errors(&mut buf, errors, false);
            String::from_utf8_lossy(&buf).into_owned()
        }
        other => other.to_string(),
    };
    Record {
        verdict: Verdict::DoesNotAssemble,
        witness: None,
        reasons: Vec::new(),
        seconds: 0.0,
        message: Some(message),
        diagnostic: Some(Diagnostic {
            line: json.line,
            column: json.column,
            text,
        }),
    }
}

/// The progress bar of the comparisons and the spinner of the groups, on a terminal
/// only.
#[derive(Default)]
pub(super) struct Bars {
    bar: Option<ProgressBar>,
}

impl Progress for Bars {
    fn grading(&mut self, total: usize, counts: &BTreeMap<Verdict, usize>) {
        let bar = progress_bar(total);
        bar.set_message(counts_message(counts));
        self.bar = Some(bar);
    }

    fn graded(&mut self, counts: &BTreeMap<Verdict, usize>) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(counts_message(counts));
        }
    }

    fn graded_all(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn grouping(&mut self, wrong: usize) {
        self.bar = Some(spinner(&format!(
            "grouping {wrong} wrong submission{}",
            if wrong == 1 { "" } else { "s" }
        )));
    }

    fn grouped(&mut self) {
        self.graded_all();
    }
}

/// The progress bar, on a terminal only.
fn progress_bar(total: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("[{bar:30}] {pos}/{len} graded, ETA {eta}: {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// A spinner with `message`, on a terminal only.
fn spinner(message: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

fn counts_message(counts: &BTreeMap<Verdict, usize>) -> String {
    let parts: Vec<String> = Verdict::ALL
        .iter()
        .filter_map(|v| counts.get(v).map(|n| format!("{n} {}", v.name())))
        .collect();
    parts.join(", ")
}
