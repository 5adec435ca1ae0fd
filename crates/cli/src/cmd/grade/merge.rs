//! `tamarin grade merge STORE…`: joins the stores of a sharded run into the report of
//! the whole class, as one `tamarin grade` of it would give: the same verdicts, and
//! the groups of wrong submissions formed over all of them.
//!
//! Everything comes from the stores: each keeps the run that wrote it (the class,
//! each submission's shard, the command line and task file of the settings) and the
//! bytes of the programs it graded, so a merge needs neither the files nor the
//! options again. Shards without a store, or whose store lacks results (a job that
//! was stopped), are named, and their submissions are reported as not graded.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args as ClapArgs, Parser};

use tamarin_grade::groups::Formed;
use tamarin_grade::report;
use tamarin_grade::run::{parse_format, RunRecord};
use tamarin_grade::settings::group_timeout;
use tamarin_grade::store::{Journal, Store};
use tamarin_grade::{Record, Task, Verdict};

use super::{
    form_groups, load_submission, print_report, resolve, subs_view, thread_pool, Reference,
    ReportArgs, Submission,
};
use crate::diag::CliError;

/// The help text of `grade merge`'s exit statuses.
pub const MERGE_EXIT_HELP: &str = "Exit status: 2 on trouble (a store that cannot be read, \
stores of different runs); otherwise 3 when a shard is missing or incomplete, or some \
submission is possibly-equivalent; otherwise 1 when some submission is disequivalent or \
does not assemble; otherwise 0.";

/// Join the stores of a sharded run into one report of the whole class.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The shards' stores (written by `tamarin grade --shard K/N`; a store of a run
    /// without --shard is one shard of one). Stores of different runs are refused.
    #[arg(value_name = "STORE", required = true)]
    pub stores: Vec<PathBuf>,
    /// Where the merged results go, with the comparisons that form the groups: a
    /// rerun of the merge, or a `tamarin grade --store` of the class on one machine,
    /// takes them from there.
    #[arg(long, value_name = "FILE", default_value = "tamarin-grade.sqlite")]
    pub store: PathBuf,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Comparisons run at once to form the groups [default: the number of cores].
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    let started = Instant::now();
    let (base, runs) = read_runs(&args.stores)?;

    let output = args.store.as_path();
    for input in &args.stores {
        if same_file(input, output) {
            return Err(CliError::Usage(format!(
                "`{}` is a shard's store: give the merge another --store",
                input.display()
            )));
        }
    }
    let mut store = Store::open_with(output, Journal::Wal)?;
    for input in &args.stores {
        store.absorb(input)?;
    }

    // The settings, read again from the run's command line and task file.
    let origin = args.stores[0].display().to_string();
    let argv = std::iter::once("tamarin".to_string()).chain(base.argv.iter().cloned());
    let argv: Vec<String> = argv.collect();
    let grade_args = match crate::Cli::try_parse_from(&argv) {
        Ok(crate::Cli {
            command: crate::Command::Grade(a),
        }) => *a,
        Ok(_) => return Err(unreadable(&origin, "it is not a command line of grade")),
        Err(e) => return Err(unreadable(&origin, e.kind())),
    };
    let given = crate::cmd::search::given_in(&argv, "grade");
    let task = base
        .task
        .as_ref()
        .map(|t| Task::from_text(Path::new(&t.path), t.text.clone()))
        .transpose()?;
    let mut settings = resolve(&grade_args, task.as_ref(), &given)?;
    // The merge's own limit, else the run's (its command line, then its task file).
    let group_limit = group_timeout(
        args.report
            .group_timeout
            .or(grade_args.report.group_timeout),
        task.as_ref(),
    )?;

    let reference = {
        let format = parse_format(&base.reference.format)
            .ok_or_else(|| unreadable(&origin, "the reference's format is not known"))?;
        let bytes = store
            .program(&base.reference.sha)?
            .ok_or_else(|| unreadable(&origin, "it lacks the reference's bytes"))?;
        let (bytes, format, program) =
            super::super::parse_read(base.reference.name.clone(), bytes, format)?;
        Reference {
            path: PathBuf::from(&base.reference.name),
            bytes,
            format,
            program,
        }
    };
    // `fuel = "auto"` sizes the fuel again from the reference the shards graded
    // against: the same sample, so the same fuel.
    settings.size_fuel(&reference.program);
    if settings.canonical != base.canonical {
        return Err(unreadable(
            &origin,
            "this version reads its settings otherwise: merge with the version that graded",
        ));
    }
    settings
        .opts
        .validate(&[&reference.program])
        .map_err(|e| CliError::engine(e, &reference.path))?;

    // The class, with every result the stores have.
    let mut subs: Vec<Submission> = Vec::with_capacity(base.submissions.len());
    for entry in &base.submissions {
        let bytes = match &entry.sha {
            Some(sha) => store.program(sha)?,
            None => None,
        };
        let format = entry.format.as_deref().and_then(parse_format);
        let mut sub = match (bytes, format) {
            (Some(bytes), Some(format)) => load_submission(
                entry.name.clone(),
                bytes,
                format,
                &reference,
                &settings.canonical,
            ),
            _ => Submission {
                path: PathBuf::from(&entry.name),
                name: entry.name.clone(),
                loaded: None,
                unloaded: None,
                record: entry.unread.as_ref().map(|message| unread_record(message)),
                from_store: false,
            },
        };
        if let Some(loaded) = &sub.loaded {
            sub.record = store.get(&loaded.key)?;
            sub.from_store = sub.record.is_some();
        }
        subs.push(sub);
    }

    // Which shards are here, and which lack results.
    let present: BTreeSet<usize> = runs.iter().map(|r| r.shard.index).collect();
    let total = base.shard.count;
    let missing: Vec<usize> = (1..=total).filter(|k| !present.contains(k)).collect();
    let incomplete: BTreeSet<usize> = base
        .submissions
        .iter()
        .zip(&subs)
        .filter(|(entry, sub)| present.contains(&entry.shard) && sub.record.is_none())
        .map(|(entry, _)| entry.shard)
        .collect();

    let pool = thread_pool(args.jobs)?;
    let grouping = std::time::Instant::now();
    let formed = if args.report.no_groups {
        Formed::default()
    } else {
        form_groups(
            &pool,
            &subs,
            &reference.program,
            &settings,
            group_limit,
            &mut store,
            &mut super::Bars::default(),
        )?
    };
    let grouping = (!args.report.no_groups).then(|| grouping.elapsed().as_secs_f64());
    let mut model = report::Model::new(
        &reference.path,
        &subs_view(&subs),
        &formed.groups,
        base.skipped.clone(),
        &settings.search,
        &settings.layout,
        started.elapsed(),
        crate::interrupt::raised(),
    );
    super::finish_model(&mut model, &subs, &reference, &settings);
    model.grouping_seconds = grouping;
    model.grouping_cut_by_wall_clock = formed.cut_by_wall_clock;
    model.shards = Some(report::ShardsModel {
        total,
        present: present.into_iter().collect(),
        missing,
        incomplete: incomplete.into_iter().collect(),
        stores: args
            .stores
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    });
    print_report(&model, &args.report)
}

/// The runs of `stores`, the first one's apart; all must be shards of one run.
fn read_runs(stores: &[PathBuf]) -> Result<(RunRecord, Vec<RunRecord>), CliError> {
    let mut runs: Vec<RunRecord> = Vec::with_capacity(stores.len());
    for path in stores {
        let store = Store::open_existing(path)?;
        let run = store.run()?.ok_or_else(|| CliError::Store {
            path: path.display().to_string(),
            message: "it holds no run of this version of tamarin grade".into(),
        })?;
        if let Some(first) = runs.first() {
            if run.fingerprint != first.fingerprint {
                return Err(CliError::Usage(format!(
                    "`{}` (shard {}) and `{}` (shard {}) are stores of different runs: \
                     another class, other settings, another reference, another count of \
                     shards or another version",
                    stores[0].display(),
                    first.shard,
                    path.display(),
                    run.shard
                )));
            }
        }
        runs.push(run);
    }
    match runs.first() {
        Some(first) => Ok((first.clone(), runs)),
        None => Err(CliError::Usage("give at least one store".into())),
    }
}

/// Whether `a` and `b` name one file (`b` may not exist yet).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn unreadable(store: &str, why: impl std::fmt::Display) -> CliError {
    CliError::Store {
        path: store.to_string(),
        message: format!("cannot read its run's settings: {why}"),
    }
}

/// The record of a submission that could not be read when it was graded.
fn unread_record(message: &str) -> Record {
    Record {
        verdict: Verdict::DoesNotAssemble,
        witness: None,
        reasons: Vec::new(),
        seconds: 0.0,
        message: Some(message.to_string()),
        diagnostic: None,
    }
}
