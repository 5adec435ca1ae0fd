//! A class graded: the submissions as a run sees them, the comparisons run in
//! parallel (each result stored as it comes), the pairs of wrong submissions compared
//! for the groups, and the record of the run. What is shown while it runs is the
//! caller's ([`Progress`]); a Ctrl-C is the engine options' interrupt flag.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use rayon::prelude::*;
use tamarin::Options;
use tamarin_mips::{InputFormat, Program};

use crate::record::{compare_clocked, compare_one};
use crate::settings::Settings;
use crate::shard::Shard;
use crate::store::{self, Role, Store};
use crate::{collect, groups, report, run};
use crate::{Error, Record, Task, Verdict};

/// What a caller shows while a class is graded (a progress bar on a terminal).
pub trait Progress {
    /// `total` comparisons are to be made; `counts` are the verdicts known already.
    fn grading(&mut self, _total: usize, _counts: &BTreeMap<Verdict, usize>) {}
    /// One comparison ended (`counts` with its verdict, unless it was cut short).
    fn graded(&mut self, _counts: &BTreeMap<Verdict, usize>) {}
    /// The comparisons are done.
    fn graded_all(&mut self) {}
    /// The groups of `wrong` submissions are being formed.
    fn grouping(&mut self, _wrong: usize) {}
    /// The groups are formed.
    fn grouped(&mut self) {}
}

/// Shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {}

/// A submission as this run sees it.
pub struct Submission {
    pub path: PathBuf,
    pub name: String,
    pub loaded: Option<Loaded>,
    /// The bytes of a submission that was read but does not load.
    pub unloaded: Option<(Vec<u8>, InputFormat)>,
    pub record: Option<Record>,
    pub from_store: bool,
}

impl Submission {
    /// Its bytes and their format, when it could be read.
    pub fn source(&self) -> Option<(&[u8], InputFormat)> {
        match (&self.loaded, &self.unloaded) {
            (Some(l), _) => Some((&l.bytes, l.format)),
            (None, Some((bytes, format))) => Some((bytes, *format)),
            (None, None) => None,
        }
    }
}

/// A submission that loaded.
pub struct Loaded {
    pub bytes: Vec<u8>,
    pub format: InputFormat,
    pub program: Program,
    pub key: String,
}

/// The reference, loaded.
pub struct Reference {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub format: InputFormat,
    pub program: Program,
}

impl Loaded {
    /// A submission that loaded as `program`, keyed in the store for its comparison
    /// with `reference` under the settings `canonical`.
    pub fn new(
        bytes: Vec<u8>,
        format: InputFormat,
        program: Program,
        reference: &Reference,
        canonical: &str,
    ) -> Loaded {
        let key = store::key(
            (&reference.bytes, reference.format),
            (&bytes, format),
            canonical,
        );
        Loaded {
            bytes,
            format,
            program,
            key,
        }
    }
}

/// The record of this run: the class with each submission's shard.
pub fn run_record(
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
    let shards = crate::shard::assign(&id_refs, shard.count);
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
        tool: crate::VERSION.to_string(),
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

/// How many comparisons `--jobs` runs at once (default: one per core).
pub fn job_count(jobs: Option<usize>) -> usize {
    jobs.filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A pool of `jobs` threads (default: one per core).
pub fn thread_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, Error> {
    let jobs = job_count(jobs);
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Error::Usage(format!("cannot start {jobs} threads: {e}")))
}

/// Forms the groups of the wrong submissions among `subs`, comparing pairs of them
/// (and keeping those results in `store`) within the budgets of `groups::pair_options`,
/// the whole within `limit` (`--group-timeout`; `None`: no limit). Nothing is formed
/// after Ctrl-C: groups formed in part are not shown, and a rerun forms them from the
/// store.
pub fn form_groups(
    pool: &rayon::ThreadPool,
    subs: &[Submission],
    reference: &Program,
    settings: &Settings,
    limit: Option<Duration>,
    store: &mut Store,
    progress: &mut dyn Progress,
) -> Result<groups::Formed, Error> {
    let none = groups::Formed {
        groups: Vec::new(),
        cut_by_wall_clock: false,
    };
    if settings.opts.interrupted() {
        return Ok(none);
    }
    let deadline = groups::Deadline::after(limit);
    let runner = groups::Runner::new(&settings.opts, &settings.layout, reference);
    let items = wrong_items(subs);
    let canonical = groups::pair_canonical(&settings.canonical);
    let mut pair_error = None;
    let mut compare = |pairs: &[(usize, usize)]| -> Vec<groups::PairOutcome> {
        let undecided = |cut_by_wall_clock| groups::PairOutcome {
            cut_by_wall_clock,
            ..groups::PairOutcome::default()
        };
        if pair_error.is_some() {
            return vec![undecided(false); pairs.len()];
        }
        let Some(opts) = groups::pair_options(&settings.opts, deadline) else {
            return vec![undecided(true); pairs.len()];
        };
        match compare_pairs(pool, pairs, subs, &opts, &canonical, store) {
            Ok(v) => v,
            Err(e) => {
                pair_error.get_or_insert(e);
                vec![undecided(false); pairs.len()]
            }
        }
    };
    progress.grouping(items.len());
    let formed = groups::form(&runner, &items, deadline, &mut compare);
    progress.grouped();
    if let Some(e) = pair_error {
        return Err(e);
    }
    Ok(if settings.opts.interrupted() {
        none
    } else {
        formed
    })
}

/// The disequivalent submissions among `subs`, with their witnesses, in order.
fn wrong_items(subs: &[Submission]) -> Vec<groups::Item<'_>> {
    subs.iter()
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
        .collect()
}

/// What the report needs of each submission.
pub fn subs_view(subs: &[Submission]) -> Vec<report::SubmissionView<'_>> {
    subs.iter()
        .map(|s| report::SubmissionView {
            path: &s.path,
            name: &s.name,
            record: s.record.as_ref(),
            from_store: s.from_store,
        })
        .collect()
}

/// Grades every submission without a result, in parallel on `pool`; each result is
/// stored as it comes. Ctrl-C stops the scheduling (the comparisons under way stop
/// too, and are not stored). Fails with the first failure of the tool itself (a
/// solver that stopped working, a store that cannot be written), after which nothing
/// new was started.
pub fn grade_all(
    pool: &rayon::ThreadPool,
    subs: &mut [Submission],
    reference: &Reference,
    opts: &Options,
    store: &mut Store,
    progress: &mut dyn Progress,
) -> Result<(), Error> {
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
    progress.grading(pending.len(), &counts);
    let stop = AtomicBool::new(false);
    let mut fatal = None;
    let (tx, rx) = mpsc::channel::<(usize, Result<Option<Record>, Error>)>();
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
                        if stop.load(Ordering::Relaxed) || opts.interrupted() {
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
                    progress.graded(&counts);
                }
                Ok(None) => progress.graded(&counts),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    fatal.get_or_insert(e);
                }
            }
        }
    });
    progress.graded_all();
    for (i, record) in results {
        subs[i].record = Some(record);
    }
    for (i, first) in same_as {
        subs[i].record = subs[first].record.clone();
    }
    fatal.map_or(Ok(()), Err)
}

/// A comparison's record and whether the wall clock left it undecided (`None`: cut
/// short by Ctrl-C).
type Clocked = Result<Option<(Record, bool)>, Error>;

/// Compares pairs of wrong submissions (`left` the group's representative) under
/// `opts`, taking what the store has (keyed with `canonical`) and storing what is new:
/// whether each pair is proved equivalent, and the inputs that tell it apart when some
/// were found. A result that the wall clock left undecided is not stored: another run
/// may decide it.
pub fn compare_pairs(
    pool: &rayon::ThreadPool,
    pairs: &[(usize, usize)],
    subs: &[Submission],
    opts: &Options,
    canonical: &str,
    store: &mut Store,
) -> Result<Vec<groups::PairOutcome>, Error> {
    let loaded = |i: usize| subs[i].loaded.as_ref().expect("a wrong submission loaded");
    let outcome = |r: &Record, cut_by_wall_clock| groups::PairOutcome {
        equivalent: r.verdict == Verdict::Equivalent,
        witness: r.witness.as_ref().map(|w| w.values.clone()),
        cut_by_wall_clock,
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
        answers.push(store.get(key)?.as_ref().map(|r| outcome(r, false)));
    }
    let todo: Vec<usize> = (0..pairs.len()).filter(|&k| answers[k].is_none()).collect();
    if !opts.interrupted() {
        let computed: Vec<(usize, Clocked)> = pool.install(|| {
            todo.par_iter()
                .with_max_len(1)
                .map(|&k| {
                    let (a, b) = pairs[k];
                    let (left, right) = (&loaded(a).program, &loaded(b).program);
                    (k, compare_clocked(left, right, &subs[b].path, opts))
                })
                .collect()
        });
        for (k, result) in computed {
            if let Some((record, clocked)) = result? {
                if !clocked {
                    let (a, b) = pairs[k];
                    let name = format!("{} | {}", subs[a].name, subs[b].name);
                    store.put(&keys[k], Role::Pair, &name, &record)?;
                }
                answers[k] = Some(outcome(&record, clocked));
            }
        }
    }
    Ok(answers.into_iter().map(Option::unwrap_or_default).collect())
}

/// Attaches the `fuel-too-small` warning (see [`crate::fuel::witness_warning`]) to each
/// row of `model` whose witness shows a run out of fuel that ends within a few times
/// the fuel: its verdict may be the fuel's fault, which nothing else in the report
/// would say. Only witnesses with a side out of fuel are run again.
pub fn warn_fuel(
    model: &mut report::Model,
    subs: &[Submission],
    reference: &Program,
    settings: &Settings,
) {
    for (row, sub) in model
        .rows
        .iter_mut()
        .zip(subs.iter().filter(|s| s.record.is_some()))
    {
        let Some(witness) = sub.record.as_ref().and_then(|r| r.witness.as_ref()) else {
            continue;
        };
        let out_of_fuel = |side: &crate::WitnessSide| side.json["status"] == "out-of-fuel";
        if !(out_of_fuel(&witness.reference) || out_of_fuel(&witness.submission)) {
            continue;
        }
        let Some(loaded) = &sub.loaded else {
            continue;
        };
        row.warnings.extend(crate::fuel::witness_warning(
            reference,
            &loaded.program,
            &settings.opts,
            &settings.layout,
            &witness.values,
        ));
    }
}
