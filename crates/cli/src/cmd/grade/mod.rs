//! `tamarin grade REFERENCE SUBMISSION…`: compares every submission of a class with the
//! reference solution, in parallel, keeps each result in a store as soon as it is
//! known, groups the wrong submissions by their bug and reports the class as text,
//! JSON, CSV or an HTML page.
//!
//! The pieces: `collect` finds the submissions, `task` reads task files, `store` keeps
//! results (SQLite), `groups` forms the groups of wrong submissions, `report` prints
//! the text, JSON and CSV reports and `html` writes the page.

mod collect;
mod groups;
mod html;
/// HTML escaping, shared with the other pages the tool writes.
pub use html::escape as escape_html;
mod merge;
mod report;
mod run;
mod shard;
mod slurm;
mod store;
mod task;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tamarin::{Incomplete, InputLayout, Observed, Options, Quiet};
use tamarin_mips::{InputFormat, LoadError, Outcome, Program, Status};

use super::compare::{parse_observables, shown, EngineArg, ObservableList};
use super::search::{
    parse_reg_list, status_line, FrontendKind, FuelPolicyArg, SearchArgs, Searcher,
};
use crate::diag::{CliError, EXIT_FOUND, EXIT_INCOMPLETE, EXIT_OK};
use crate::json::{CompareSide, FaultJson, ObservedJson, Reason};
use shard::Shard;
use store::{Journal, Role, Store};
use task::Task;

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
        .help("Time limit per submission, in seconds (each comparison, and each comparison of two wrong submissions for the groups, has its own); 0 means none. A submission that meets it is possibly-equivalent")
        .default_value(DEFAULT_GRADE_TIMEOUT)),
    // For one comparison at a time only: refused by grade.
    mut_arg("portfolio", |a| a
        .help("Solvers that a query Z3 left unknown is put to in parallel (comma-separated: yices, cvc5, z3 or command lines). None by default in grade: the race is bounded by the clock, and grades must come out the same on a rerun")
        .default_value("none")),
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
    /// A task file (TOML) with the settings of the assignment: reference (relative to
    /// the file), frontend, inputs, observe, fuel, depth, max-len, stdin-len, timeout,
    /// engine and assume. Options on the command line win over it; an unknown key is
    /// an error.
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

/// A submission's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Equivalent,
    Disequivalent,
    PossiblyEquivalent,
    DoesNotAssemble,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [
        Verdict::Equivalent,
        Verdict::Disequivalent,
        Verdict::PossiblyEquivalent,
        Verdict::DoesNotAssemble,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::Disequivalent => "disequivalent",
            Verdict::PossiblyEquivalent => "possibly-equivalent",
            Verdict::DoesNotAssemble => "does-not-assemble",
        }
    }

    pub fn parse(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// The result of one comparison, as stored.
#[derive(Clone, Debug)]
pub struct Record {
    pub verdict: Verdict,
    /// Disequivalent: the inputs and both runs.
    pub witness: Option<Witness>,
    /// Possibly-equivalent: the reasons, as the JSON reports give them.
    pub reasons: Vec<serde_json::Value>,
    /// How long the comparison took.
    pub seconds: f64,
    /// Does-not-assemble: the diagnostic, in one line.
    pub message: Option<String>,
    /// Does-not-assemble, when found in this run: the diagnostic in full.
    pub diagnostic: Option<Diagnostic>,
}

/// Inputs on which a submission differs from the reference, and both runs on them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Witness {
    /// The input variables' values, in the layout's order.
    pub values: Vec<u32>,
    pub reference: WitnessSide,
    pub submission: WitnessSide,
}

/// One program's run on a witness: in words, and as the JSON reports give it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WitnessSide {
    pub text: String,
    pub json: serde_json::Value,
}

/// Why a submission could not be loaded.
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The assembler's report in full (every error, with its source line).
    pub text: String,
}

/// A submission as this run sees it.
struct Submission {
    path: PathBuf,
    name: String,
    loaded: Option<Loaded>,
    /// The bytes of a submission that was read but does not load.
    unloaded: Option<(Vec<u8>, InputFormat)>,
    record: Option<Record>,
    from_store: bool,
}

impl Submission {
    /// Its bytes and their format, when it could be read.
    fn source(&self) -> Option<(&[u8], InputFormat)> {
        match (&self.loaded, &self.unloaded) {
            (Some(l), _) => Some((&l.bytes, l.format)),
            (None, Some((bytes, format))) => Some((bytes, *format)),
            (None, None) => None,
        }
    }
}

/// A submission that loaded.
struct Loaded {
    bytes: Vec<u8>,
    format: InputFormat,
    program: Program,
    key: String,
}

/// The reference, loaded.
struct Reference {
    path: PathBuf,
    bytes: Vec<u8>,
    format: InputFormat,
    program: Program,
}

pub fn execute(mut args: Args) -> Result<ExitCode, CliError> {
    if let Some(GradeCommand::Merge(merge_args)) = args.command.take() {
        return merge::execute(merge_args);
    }
    let started = Instant::now();
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let given = given_on_command_line();
    let task = args.task.as_deref().map(Task::read).transpose()?;
    let settings = Settings::resolve(&mut args, task.as_ref(), &given)?;

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
    let format = args.search.input_format.format();
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
    grade_all(&pool, &mut subs, &reference, &settings.opts, &mut store)?;
    if !crate::interrupt::raised() && subs.iter().all(|s| s.record.is_some()) {
        run.finished = Some(run::now());
        store.put_run(&run)?;
    }

    // The groups of wrong submissions: over the whole class only (a shard's are
    // formed when the shards are merged).
    let groups = if shard.is_whole() {
        form_groups(&pool, &subs, &reference.program, &settings, &mut store)?
    } else {
        Vec::new()
    };
    let mut model = report::Model::new(
        &reference.path,
        &subs_view(&subs),
        &groups,
        found.skipped,
        &args.search,
        &settings.layout,
        started.elapsed(),
        crate::interrupt::raised(),
    );
    model.task = report::TaskModel::with_notes(&settings.opts, &reference.program);
    if !shard.is_whole() {
        model.shard = Some(report::ShardModel {
            index: shard.index,
            count: shard.count,
            store: store_path.display().to_string(),
        });
    }
    print_report(&model, &args.report)
}

/// Everything that decides verdicts, resolved from the command line and the task
/// file (the same for a run and for `grade merge`, which resolves a run's again).
struct Settings {
    opts: Options,
    /// The settings in one string, as the store's keys take them.
    canonical: String,
    /// The inputs with the task's preconditions, lowered once (the groups check many
    /// inputs against them).
    layout: InputLayout,
}

impl Settings {
    /// Fills `args` in from `task` where the command line (`given`) is silent, checks
    /// them, and resolves the settings.
    fn resolve(
        args: &mut Args,
        task: Option<&Task>,
        given: &HashSet<String>,
    ) -> Result<Settings, CliError> {
        if let Some(task) = task {
            apply_task(args, task, given)?;
        }
        args.search.check_applicable(&|id| {
            if given.contains(id) {
                return Some(format!("--{}", id.replace('_', "-")));
            }
            let task = task?;
            let set = match id {
                "max_len" => task.file.max_len.is_some(),
                "inputs" => task.file.inputs.is_some(),
                _ => false,
            };
            set.then(|| format!("`{}` in {}", id.replace('_', "-"), task.path.display()))
        })?;
        if args.search.dump_smt.is_some() || args.search.dump_trace {
            return Err(CliError::Usage(
                "--dump-smt and --dump-trace are for one comparison: use `tamarin compare`".into(),
            ));
        }
        args.search.force = false;
        let observe = args.observe.clone().unwrap_or_else(|| {
            ObservableList(vec![tamarin::Observable::Reg(
                tamarin_mips::Reg::from_bits(3),
            )])
        });
        let engine = args.engine.unwrap_or(EngineArg::Auto);
        let mut opts = args.search.options()?;
        // A submission that does not end where the reference does is wrong.
        if args.search.out_of_fuel.is_none() {
            opts.out_of_fuel = tamarin::FuelPolicy::Different;
        }
        opts.observe = observe.0.clone();
        opts.engine = engine.engine();
        // Every setting that can change a verdict, in one string: the searching
        // options (all of them, so that an option added later counts too), the
        // observables and the engine.
        let canonical = format!(
            "{:?}|observe={:?}|engine={:?}",
            args.search, observe.0, engine
        );
        let layout = InputLayout::assuming(&opts.inputs, opts.stdin_len, &opts.assume)
            .map_err(|e| CliError::Usage(format!("--assume: {e}")))?;
        Ok(Settings {
            opts,
            canonical,
            layout,
        })
    }
}

/// The record of this run: the class with each submission's shard.
fn run_record(
    argv: &[String],
    task: Option<&Task>,
    reference: &Reference,
    subs: &[Submission],
    found: &collect::Found,
    settings: &Settings,
    shard: Shard,
) -> run::RunRecord {
    let reference_entry = run::ProgramEntry {
        name: reference.path.display().to_string(),
        sha: store::content_id(&reference.bytes),
        format: run::format_name(reference.format).to_string(),
    };
    let shas: Vec<Option<String>> = subs
        .iter()
        .map(|s| s.source().map(|(bytes, _)| store::content_id(bytes)))
        .collect();
    let ids: Vec<String> = subs
        .iter()
        .zip(&shas)
        .map(|(s, sha)| run::ClassEntry::shard_id(&s.name, sha.as_deref()))
        .collect();
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let shards = shard::assign(&id_refs, shard.count);
    let entries: Vec<run::ClassEntry> = subs
        .iter()
        .zip(shas)
        .zip(shards)
        .map(|((s, sha), shard)| run::ClassEntry {
            name: s.name.clone(),
            sha,
            format: s.source().map(|(_, f)| run::format_name(f).to_string()),
            shard,
            unread: match s.source() {
                Some(_) => None,
                None => s.record.as_ref().and_then(|r| r.message.clone()),
            },
        })
        .collect();
    run::RunRecord {
        version: run::RUN_RECORD_VERSION,
        tool: env!("CARGO_PKG_VERSION").to_string(),
        shard,
        fingerprint: run::fingerprint(&settings.canonical, &reference_entry, &entries, shard.count),
        canonical: settings.canonical.clone(),
        argv: argv.to_vec(),
        task: task.map(|t| run::TaskText {
            path: t.path.display().to_string(),
            text: t.text.clone(),
        }),
        reference: reference_entry,
        submissions: entries,
        skipped: found.skipped.clone(),
        started: run::now(),
        finished: None,
    }
}

/// A pool of `jobs` threads (default: one per core).
fn thread_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    let jobs = jobs
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CliError::Usage(format!("cannot start {jobs} threads: {e}")))
}

/// Forms the groups of the wrong submissions among `subs`, comparing pairs of them
/// (and keeping those results in `store`). Nothing is formed after Ctrl-C: groups
/// formed in part are not shown, and a rerun forms them from the store.
fn form_groups(
    pool: &rayon::ThreadPool,
    subs: &[Submission],
    reference: &Program,
    settings: &Settings,
    store: &mut Store,
) -> Result<Vec<groups::Group>, CliError> {
    if crate::interrupt::raised() {
        return Ok(Vec::new());
    }
    let runner = groups::Runner::new(&settings.opts, &settings.layout, reference);
    let items: Vec<groups::Item> = subs
        .iter()
        .enumerate()
        .filter_map(|(index, s)| {
            let loaded = s.loaded.as_ref()?;
            let record = s.record.as_ref()?;
            let witness = record.witness.as_ref()?;
            (record.verdict == Verdict::Disequivalent).then_some(groups::Item {
                index,
                program: &loaded.program,
                bytes: &loaded.bytes,
                witness: &witness.values,
            })
        })
        .collect();
    let mut pair_error = None;
    let mut compare_pairs = |pairs: &[(usize, usize)]| -> Vec<groups::PairOutcome> {
        if pair_error.is_some() {
            return vec![groups::PairOutcome::default(); pairs.len()];
        }
        match compare_pairs(
            pool,
            pairs,
            subs,
            &settings.opts,
            &settings.canonical,
            store,
        ) {
            Ok(v) => v,
            Err(e) => {
                pair_error.get_or_insert(e);
                vec![groups::PairOutcome::default(); pairs.len()]
            }
        }
    };
    let spinner = spinner(&format!(
        "grouping {} wrong submission{}",
        items.len(),
        if items.len() == 1 { "" } else { "s" }
    ));
    let groups = groups::form(&runner, &items, &mut compare_pairs);
    spinner.finish_and_clear();
    if let Some(e) = pair_error {
        return Err(e);
    }
    Ok(if crate::interrupt::raised() {
        Vec::new()
    } else {
        groups
    })
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

/// What the report needs of each submission.
fn subs_view(subs: &[Submission]) -> Vec<report::SubmissionView<'_>> {
    subs.iter()
        .map(|s| report::SubmissionView {
            path: &s.path,
            name: &s.name,
            record: s.record.as_ref(),
            from_store: s.from_store,
        })
        .collect()
}

/// The ids of the arguments given on the command line itself (not defaults), so that
/// a task file fills in the others.
fn given_on_command_line() -> HashSet<String> {
    crate::cmd::search::given_on_command_line("grade")
}

/// Fills in from the task file what the command line did not give.
fn apply_task(args: &mut Args, task: &Task, given: &HashSet<String>) -> Result<(), CliError> {
    let f = &task.file;
    let free = |id: &str| !given.contains(id);
    if let (Some(v), true) = (&f.frontend, free("frontend")) {
        args.search.frontend = FrontendKind::from_str(v, false)
            .map_err(|_| task.bad_value("frontend", "expected \"twoints\" or \"array\""))?;
    }
    if let (Some(v), true) = (&f.inputs, free("inputs")) {
        args.search.inputs =
            parse_reg_list(&v.joined()).map_err(|e| task.bad_value("inputs", e))?;
    }
    if let (Some(v), true) = (&f.observe, free("observe")) {
        args.observe =
            Some(parse_observables(&v.joined()).map_err(|e| task.bad_value("observe", e))?);
    }
    if let (Some(v), true) = (&f.engine, free("engine")) {
        args.engine =
            Some(EngineArg::from_str(v, false).map_err(|_| {
                task.bad_value("engine", "expected \"concolic\", \"bmc\" or \"auto\"")
            })?);
    }
    for (id, value, field) in [
        ("fuel", f.fuel, &mut args.search.fuel),
        ("depth", f.depth, &mut args.search.depth),
        ("max_len", f.max_len, &mut args.search.max_len),
        ("stdin_len", f.stdin_len, &mut args.search.stdin_len),
        ("timeout", f.timeout, &mut args.search.timeout),
    ] {
        if let (Some(v), true) = (value, free(id)) {
            *field = v;
        }
    }
    if let (Some(v), true) = (&f.out_of_fuel, free("out_of_fuel")) {
        args.search.out_of_fuel =
            Some(FuelPolicyArg::from_str(v, false).map_err(|_| {
                task.bad_value("out-of-fuel", "expected \"same\" or \"different\"")
            })?);
    }
    if free("assume") {
        args.search.assume = f.assume.clone();
    }
    Ok(())
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
        Ok(program) => {
            let key = store::key(
                (&reference.bytes, reference.format),
                (&bytes, format),
                canonical,
            );
            Submission {
                path,
                name,
                loaded: Some(Loaded {
                    bytes,
                    format,
                    program,
                    key,
                }),
                unloaded: None,
                record: None,
                from_store: false,
            }
        }
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

/// Compares `program` with `reference`: `None` when the comparison was cut short by
/// Ctrl-C (nothing to keep).
fn compare_one(
    reference: &Program,
    program: &Program,
    path: &Path,
    opts: &Options,
) -> Result<Option<Record>, CliError> {
    let start = Instant::now();
    let result = tamarin::compare(reference, program, opts, &mut Quiet);
    let seconds = start.elapsed().as_secs_f64();
    let report = match result {
        Ok(report) => report,
        Err(tamarin::Error::Setup(e)) => {
            return Ok(Some(Record {
                verdict: Verdict::DoesNotAssemble,
                witness: None,
                reasons: Vec::new(),
                seconds,
                message: Some(format!(
                    "{}: cannot place the input array after it: {e}",
                    path.display()
                )),
                diagnostic: None,
            }))
        }
        Err(e) => return Err(CliError::engine(e, path)),
    };
    let record = match report.verdict {
        tamarin::Verdict::Equivalent(_) => Record {
            verdict: Verdict::Equivalent,
            witness: None,
            reasons: Vec::new(),
            seconds,
            message: None,
            diagnostic: None,
        },
        tamarin::Verdict::Disequivalent(cx) => Record {
            verdict: Verdict::Disequivalent,
            witness: Some(Witness {
                values: cx.inputs.iter().map(|(_, v)| *v).collect(),
                reference: witness_side(&cx.left, &cx.observed, 0),
                submission: witness_side(&cx.right, &cx.observed, 1),
            }),
            reasons: Vec::new(),
            seconds,
            message: None,
            diagnostic: None,
        },
        tamarin::Verdict::PossiblyEquivalent(reasons) => {
            if crate::interrupt::raised() || reasons.contains(&Incomplete::Interrupted) {
                return Ok(None);
            }
            Record {
                verdict: Verdict::PossiblyEquivalent,
                witness: None,
                reasons: reasons
                    .iter()
                    .map(|r| {
                        serde_json::to_value(Reason::new(r, Searcher::Compare))
                            .unwrap_or(serde_json::Value::Null)
                    })
                    .collect(),
                seconds,
                message: None,
                diagnostic: None,
            }
        }
    };
    Ok(Some(record))
}

/// One side of a counterexample (`pick` 0 the left, 1 the right).
fn witness_side(
    o: &Outcome,
    observed: &[(String, Observed, Observed)],
    pick: usize,
) -> WitnessSide {
    let value = |entry: &(String, Observed, Observed)| -> Observed {
        if pick == 0 {
            entry.1.clone()
        } else {
            entry.2.clone()
        }
    };
    let mut text = status_line(o);
    if o.status == Status::Done {
        let items: Vec<String> = observed
            .iter()
            .map(|e| format!("{} = {}", e.0, shown(&value(e))))
            .collect();
        text.push_str(&format!(", {}", items.join(", ")));
    }
    let side = CompareSide {
        status: o.status.name(),
        steps: o.steps,
        observed: match o.status {
            Status::Done => observed
                .iter()
                .map(|e| (e.0.clone(), observed_json(&value(e))))
                .collect(),
            _ => std::iter::empty().collect(),
        },
        fault: FaultJson::of(o.status),
    };
    WitnessSide {
        text,
        json: serde_json::to_value(side).unwrap_or(serde_json::Value::Null),
    }
}

fn observed_json(o: &Observed) -> ObservedJson {
    match o {
        Observed::Word(v) => ObservedJson::Word(*v as i32),
        Observed::Bytes(b) => ObservedJson::Text(String::from_utf8_lossy(b).into_owned()),
        Observed::Words(ws) => ObservedJson::Words(ws.iter().map(|&w| w as i32).collect()),
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

/// Grades every submission without a result, in parallel on `pool`; each result is
/// stored as it comes. Ctrl-C stops the scheduling (the comparisons under way stop
/// too, and are not stored). Fails with the first failure of the tool itself (a
/// solver that stopped working, a store that cannot be written), after which nothing
/// new was started.
fn grade_all(
    pool: &rayon::ThreadPool,
    subs: &mut [Submission],
    reference: &Reference,
    opts: &Options,
    store: &mut Store,
) -> Result<(), CliError> {
    // One comparison per distinct key (the same file handed in twice is graded once).
    let mut first_of_key: HashMap<&str, usize> = HashMap::new();
    let mut same_as: Vec<(usize, usize)> = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    for (i, s) in subs.iter().enumerate() {
        let Some(loaded) = &s.loaded else { continue };
        if s.record.is_some() {
            continue;
        }
        match first_of_key.get(loaded.key.as_str()) {
            Some(&first) => same_as.push((i, first)),
            None => {
                first_of_key.insert(&loaded.key, i);
                pending.push(i);
            }
        }
    }
    let mut counts: BTreeMap<Verdict, usize> = BTreeMap::new();
    for s in subs.iter() {
        if let Some(r) = &s.record {
            *counts.entry(r.verdict).or_default() += 1;
        }
    }
    let bar = progress_bar(pending.len());
    bar.set_message(counts_message(&counts));
    let stop = AtomicBool::new(false);
    let mut fatal = None;
    let (tx, rx) = mpsc::channel::<(usize, Result<Option<Record>, CliError>)>();
    let work: Vec<(usize, &Program, &Path)> = pending
        .iter()
        .map(|&i| {
            let s = &subs[i];
            (
                i,
                &s.loaded.as_ref().expect("pending means loaded").program,
                s.path.as_path(),
            )
        })
        .collect();
    let mut results: Vec<(usize, Record)> = Vec::new();
    std::thread::scope(|scope| {
        let stop = &stop;
        let work = &work;
        scope.spawn(move || {
            pool.install(|| {
                work.par_iter()
                    .with_max_len(1)
                    .for_each_with(tx, |tx, &(i, program, path)| {
                        if stop.load(Ordering::Relaxed) || crate::interrupt::raised() {
                            return;
                        }
                        let result = compare_one(&reference.program, program, path, opts);
                        let _ = tx.send((i, result));
                    });
            });
        });
        for (i, result) in rx {
            match result {
                Ok(Some(record)) => {
                    let s = &subs[i];
                    let loaded = s.loaded.as_ref().expect("loaded");
                    if let Err(e) = store.put(&loaded.key, Role::Submission, &s.name, &record) {
                        stop.store(true, Ordering::Relaxed);
                        fatal.get_or_insert(e);
                    }
                    *counts.entry(record.verdict).or_default() += 1;
                    results.push((i, record));
                    bar.inc(1);
                    bar.set_message(counts_message(&counts));
                }
                Ok(None) => bar.inc(1),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    fatal.get_or_insert(e);
                }
            }
        }
    });
    bar.finish_and_clear();
    for (i, record) in results {
        subs[i].record = Some(record);
    }
    for (i, first) in same_as {
        subs[i].record = subs[first].record.clone();
    }
    fatal.map_or(Ok(()), Err)
}

/// Compares pairs of wrong submissions (`left` the group's representative), taking
/// what the store has and storing what is new: whether each pair is proved
/// equivalent, and the inputs that tell it apart when some were found.
fn compare_pairs(
    pool: &rayon::ThreadPool,
    pairs: &[(usize, usize)],
    subs: &[Submission],
    opts: &Options,
    canonical: &str,
    store: &mut Store,
) -> Result<Vec<groups::PairOutcome>, CliError> {
    let loaded = |i: usize| subs[i].loaded.as_ref().expect("a wrong submission loaded");
    let outcome = |r: &Record| groups::PairOutcome {
        equivalent: r.verdict == Verdict::Equivalent,
        witness: r.witness.as_ref().map(|w| w.values.clone()),
    };
    let keys: Vec<String> = pairs
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (loaded(a), loaded(b));
            store::key((&a.bytes, a.format), (&b.bytes, b.format), canonical)
        })
        .collect();
    let mut answers: Vec<Option<groups::PairOutcome>> = Vec::with_capacity(pairs.len());
    for key in &keys {
        answers.push(store.get(key)?.as_ref().map(outcome));
    }
    let todo: Vec<usize> = (0..pairs.len()).filter(|&k| answers[k].is_none()).collect();
    if !crate::interrupt::raised() {
        let computed: Vec<(usize, Result<Option<Record>, CliError>)> = pool.install(|| {
            todo.par_iter()
                .with_max_len(1)
                .map(|&k| {
                    let (a, b) = pairs[k];
                    let (left, right) = (&loaded(a).program, &loaded(b).program);
                    (k, compare_one(left, right, &subs[b].path, opts))
                })
                .collect()
        });
        for (k, result) in computed {
            if let Some(record) = result? {
                let (a, b) = pairs[k];
                let name = format!("{} | {}", subs[a].name, subs[b].name);
                store.put(&keys[k], Role::Pair, &name, &record)?;
                answers[k] = Some(outcome(&record));
            }
        }
    }
    Ok(answers.into_iter().map(Option::unwrap_or_default).collect())
}

/// A reason of a stored record, in words.
pub fn stored_reason_text(reason: &serde_json::Value) -> String {
    let message = reason["message"].as_str().unwrap_or("").to_string();
    match reason["advice"].as_str() {
        Some(a) => format!("{message} ({a})"),
        None => message,
    }
}
