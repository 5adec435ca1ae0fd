//! A run of the `soundness` binary: which pairs it checks ([`Selection`]: a range of a
//! seed's stream, maybe only some shapes, maybe one [`Shard`] of them), checking them
//! on worker threads ([`run`]), the summary file it writes ([`SummaryFile`]), and the
//! sum of the files of a run's shards ([`merge`]).
//!
//! The pairs of a run have positions: 0 for the pair at `--start`, then on through the
//! stream (of the chosen shapes' pairs only, with `--shapes`), up to `--pairs`. The
//! positions are dealt out in blocks of one pair of each chosen shape (shapes go round
//! in turn, so any such block holds each once): shard `K/N` checks the blocks `b` with
//! `b % N == K - 1`. So the `N` shards of a run check between them every pair of the
//! unsharded run, each once, whatever their timing; a pair is the same whichever shard
//! checks it; and every shard gets its share of every shape (dealt one position at a
//! time, two shards of ten shapes would split the shapes between them, and one shard
//! would get every slow one).

use std::fmt;
use std::fs;
use std::io;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::check::{CheckConfig, Kind, PairResult, Summary};
use crate::generate::Shape;
use crate::pair::nth_index;

/// One of the `n` parts of a run (`k` from 1 to `n`); `1/1` is the whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Shard {
    pub k: u64,
    pub n: u64,
}

impl Shard {
    /// The whole run.
    pub const WHOLE: Shard = Shard { k: 1, n: 1 };

    /// Shard `k` of `n`, if `1 <= k <= n`.
    pub fn new(k: u64, n: u64) -> Result<Shard, String> {
        if n == 0 {
            Err("a run has at least one shard (N >= 1)".into())
        } else if !(1..=n).contains(&k) {
            Err(format!("shard {k} of {n}: K counts from 1 to N"))
        } else {
            Ok(Shard { k, n })
        }
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N`, both decimal numbers, `1 <= K <= N`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let number = |t: &str| {
            (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<u64>().ok())
                .flatten()
        };
        match s.split_once('/').map(|(k, n)| (number(k), number(n))) {
            Some((Some(k), Some(n))) => Shard::new(k, n),
            _ => Err(format!(
                "`{s}` is not a shard: expected K/N, such as 3/8 (the third of eight)"
            )),
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// The pairs a run checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The position in the stream of the chosen shapes' pairs of the run's first pair.
    pub start: u64,
    /// The pairs of the whole run (all its shards).
    pub pairs: u64,
    /// The shapes of the pairs (all when empty).
    pub shapes: Vec<Shape>,
    pub shard: Shard,
}

impl Selection {
    /// The positions of the whole run: `pairs`, or fewer where the stream ends first.
    pub fn positions(&self) -> u64 {
        self.start.saturating_add(self.pairs) - self.start
    }

    /// The positions dealt out at a time: one pair of each chosen shape.
    fn block(&self) -> u64 {
        let chosen = Shape::ALL
            .iter()
            .filter(|s| self.shapes.is_empty() || self.shapes.contains(s))
            .count();
        chosen.max(1) as u64
    }

    /// How many pairs this shard checks.
    pub fn share(&self) -> u64 {
        let (k, n, b) = (self.shard.k, self.shard.n, self.block());
        let t = self.positions();
        let round = n.saturating_mul(b);
        let (rounds, rest) = (t / round, t % round);
        rounds * b + rest.saturating_sub((k - 1) * b).min(b)
    }

    /// The pair index (for `make_pair`) of this shard's `j`-th pair, from 0, if it has
    /// one.
    pub fn index(&self, j: u64) -> Option<u64> {
        let (k, n, b) = (self.shard.k, self.shard.n, self.block());
        let block = (j / b).checked_mul(n)?.checked_add(k - 1)?;
        let p = block.checked_mul(b)?.checked_add(j % b)?;
        (p < self.positions()).then(|| nth_index(&self.shapes, self.start + p))
    }

    /// The pair indices this shard checks, in order.
    pub fn indices(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.share()).map_while(|j| self.index(j))
    }
}

/// How a run goes about its pairs.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// Worker threads.
    pub jobs: usize,
    /// No pair is started after it.
    pub deadline: Option<Instant>,
    /// Time between progress lines on stderr (none: no progress lines).
    pub progress: Option<Duration>,
    /// One line per pair on stderr.
    pub verbose: bool,
    /// Reproducers to keep.
    pub show: usize,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub summary: Summary,
    /// The deadline passed before every pair of the shard was checked: the pairs
    /// checked are the shard's first `summary.pairs`.
    pub stopped: bool,
    pub elapsed: Duration,
}

/// Checks the pairs of `sel` with `check` (given a pair index), on `settings.jobs`
/// threads, until they are done or the deadline passes. A worker looks at the clock
/// before it takes the next pair, and checks every pair it takes, so that the pairs
/// checked are always the shard's first ones.
pub fn run<F>(sel: &Selection, settings: &RunSettings, check: F) -> Outcome
where
    F: Fn(u64) -> PairResult + Sync,
{
    let summary = Mutex::new(Summary::new(settings.show));
    let done = AtomicU64::new(0);
    let next = AtomicU64::new(0);
    let finished = AtomicBool::new(false);
    let start = Instant::now();
    let past_deadline = || settings.deadline.is_some_and(|d| Instant::now() >= d);
    std::thread::scope(|scope| {
        if let Some(every) = settings.progress {
            let (summary, done, finished) = (&summary, &done, &finished);
            scope.spawn(move || {
                let mut last = Instant::now();
                while !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    if last.elapsed() < every {
                        continue;
                    }
                    last = Instant::now();
                    let line = progress_line(&lock(summary));
                    eprintln!(
                        "[{:>7.0} s] {} pairs (verdicts both ways): {line}",
                        start.elapsed().as_secs_f64(),
                        done.load(Ordering::Relaxed),
                    );
                }
            });
        }
        let workers: Vec<_> = (0..settings.jobs.max(1))
            .map(|_| {
                scope.spawn(|| loop {
                    if past_deadline() {
                        break;
                    }
                    let Some(index) = sel.index(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let r = check(index);
                    if r.failed() {
                        eprintln!("FAILED CHECK\n{}", r.reproducer());
                    }
                    if settings.verbose {
                        eprintln!("{}", r.line());
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                    lock(&summary).add(&r);
                })
            })
            .collect();
        for w in workers {
            if w.join().is_err() {
                eprintln!("soundness: a worker panicked (a bug of the harness)");
            }
        }
        finished.store(true, Ordering::Relaxed);
    });
    let mut summary = match summary.into_inner() {
        Ok(s) => s,
        Err(p) => p.into_inner(),
    };
    summary.sort_indices();
    Outcome {
        stopped: summary.pairs < sel.share() && past_deadline(),
        summary,
        elapsed: start.elapsed(),
    }
}

fn lock(summary: &Mutex<Summary>) -> std::sync::MutexGuard<'_, Summary> {
    match summary.lock() {
        Ok(s) => s,
        Err(p) => p.into_inner(),
    }
}

fn progress_line(s: &Summary) -> String {
    let engines: Vec<String> = s
        .engines
        .iter()
        .map(|(e, es)| {
            format!(
                "{} {} diseq, {} eq, {} possibly, {} crash",
                e.name(),
                es.verdicts(Kind::Disequivalent),
                es.verdicts(Kind::Equivalent),
                es.verdicts(Kind::PossiblyEquivalent),
                es.verdicts(Kind::Crash),
            )
        })
        .collect();
    format!(
        "{}; unsound {}, missed {}",
        engines.join("; "),
        s.unsound(),
        s.missed
    )
}

/// The version of [`SummaryFile`]'s format.
pub const FORMAT: u32 = 1;

/// The check settings of a run, as its summary file records them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub fuel: u64,
    pub inputs: usize,
    pub depth: Option<usize>,
    pub compare_timeout_seconds: Option<f64>,
    pub solver_timeout_seconds: Option<f64>,
    pub symmetric: bool,
    pub spin_checks: bool,
}

impl From<&CheckConfig> for Settings {
    fn from(cfg: &CheckConfig) -> Settings {
        Settings {
            fuel: cfg.fuel,
            inputs: cfg.inputs,
            depth: cfg.depth,
            compare_timeout_seconds: cfg.compare_timeout.map(|t| t.as_secs_f64()),
            solver_timeout_seconds: cfg.solver_timeout.map(|t| t.as_secs_f64()),
            symmetric: cfg.symmetric,
            spin_checks: cfg.spin_checks,
        }
    }
}

/// What a summary file made by [`merge`] holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Merged {
    /// The run's shards.
    pub n: u64,
    /// The shards summed, and those missing.
    pub shards: Vec<u64>,
    pub missing: Vec<u64>,
    /// The shards that their time limit stopped before all their pairs were checked.
    pub stopped: Vec<u64>,
}

/// The summary file of a run (`soundness --summary FILE`), or of the sum of its shards
/// (`soundness --merge`). The counts are in `counts`; the fields before it name the run
/// and repeat its main figures for scripts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SummaryFile {
    /// [`FORMAT`].
    pub format: u32,
    pub seed: u64,
    pub start: u64,
    pub pairs: u64,
    /// The shapes chosen with `--shapes` (empty: all).
    pub shapes: Vec<Shape>,
    /// The engines' names, in the order they ran.
    pub engines: Vec<String>,
    pub settings: Settings,
    /// The shard this file is of (`1/1` for an unsharded run; none for a sum).
    pub shard: Option<Shard>,
    /// For a sum of shards: which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<Merged>,
    /// The pairs of the shard (of the whole run, for a sum), and those checked.
    pub pairs_to_check: u64,
    pub pairs_checked: u64,
    /// The time limit stopped the run (some shard, for a sum) before all its pairs.
    pub stopped_by_time_limit: bool,
    /// Wall time (the longest shard's, for a sum).
    pub elapsed_seconds: f64,
    /// Every failed check (unsound verdicts and crashes), and each kind apart.
    pub failed_checks: u64,
    pub unsound_verdicts: u64,
    pub crashes: u64,
    /// The indices of the pairs with a failed check, in order: `soundness --seed SEED
    /// --only INDEX` checks one again.
    pub failed_pairs: Vec<u64>,
    pub missed_differences: u64,
    pub counts: Summary,
}

impl SummaryFile {
    /// The summary file of a run of `sel` with `seed` and `cfg` that did `outcome`.
    pub fn of_run(seed: u64, sel: &Selection, cfg: &CheckConfig, outcome: &Outcome) -> Self {
        let mut file = SummaryFile {
            format: FORMAT,
            seed,
            start: sel.start,
            pairs: sel.pairs,
            shapes: sel.shapes.clone(),
            engines: cfg.engines().iter().map(|e| e.name().to_string()).collect(),
            settings: Settings::from(cfg),
            shard: Some(sel.shard),
            merged: None,
            pairs_to_check: sel.share(),
            pairs_checked: 0,
            stopped_by_time_limit: outcome.stopped,
            elapsed_seconds: outcome.elapsed.as_secs_f64(),
            failed_checks: 0,
            unsound_verdicts: 0,
            crashes: 0,
            failed_pairs: Vec::new(),
            missed_differences: 0,
            counts: Summary::default(),
        };
        file.set_counts(outcome.summary.clone());
        file
    }

    /// Sets the counts, and the figures repeated from them.
    fn set_counts(&mut self, counts: Summary) {
        self.pairs_checked = counts.pairs;
        self.failed_checks = counts.failures();
        self.unsound_verdicts = counts.unsound();
        self.crashes = counts.failures() - counts.unsound();
        self.failed_pairs = counts.failed_indices.clone();
        self.missed_differences = counts.missed;
        self.counts = counts;
    }

    /// The file as JSON text.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a summary serializes");
        text.push('\n');
        text
    }

    /// A summary file's text, checked for its format.
    pub fn from_json(text: &str) -> Result<SummaryFile, String> {
        #[derive(Deserialize)]
        struct Format {
            format: Option<u32>,
        }
        match serde_json::from_str::<Format>(text)
            .map_err(|e| e.to_string())?
            .format
        {
            Some(FORMAT) => serde_json::from_str(text).map_err(|e| e.to_string()),
            Some(f) => Err(format!("format {f}, expected {FORMAT}")),
            None => Err("no `format`: not a soundness summary".into()),
        }
    }

    /// Writes the file at `path`, whole or not at all: into `PATH.tmp`, then renamed.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let tmp = tmp_path(path);
        fs::write(&tmp, self.to_json())?;
        fs::rename(&tmp, path)
    }

    /// Reads the summary file at `path`.
    pub fn read(path: &Path) -> Result<SummaryFile, String> {
        let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        SummaryFile::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The field that makes `other` another run than `self`, if any: the seed, the
    /// pairs, the engines, the settings, or the number of shards.
    pub fn other_run(&self, other: &SummaryFile) -> Option<&'static str> {
        let n = |f: &SummaryFile| f.shard.map(|s| s.n);
        [
            ("seed", self.seed == other.seed),
            ("start", self.start == other.start),
            ("pairs", self.pairs == other.pairs),
            ("shapes", self.shapes == other.shapes),
            ("engines", self.engines == other.engines),
            ("settings", self.settings == other.settings),
            ("number of shards", n(self) == n(other)),
        ]
        .into_iter()
        .find(|(_, same)| !same)
        .map(|(field, _)| field)
    }

    /// The pairs of shard `shard` of the run.
    fn selection(&self, shard: Shard) -> Selection {
        Selection {
            start: self.start,
            pairs: self.pairs,
            shapes: self.shapes.clone(),
            shard,
        }
    }

    /// The report a run prints at its end: the summary, the wall time, then the
    /// reproducers kept.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let what = match (&self.shard, &self.merged) {
            (Some(s), _) if *s != Shard::WHOLE => format!(", shard {s}"),
            (None, Some(m)) if m.missing.is_empty() => format!(", {} shards merged", m.n),
            (None, Some(m)) => format!(
                ", {} of {} shards merged, missing {}",
                m.shards.len(),
                m.n,
                list(&m.missing)
            ),
            _ => String::new(),
        };
        out.push_str(&format!(
            "\n==== summary (seed {}, engine {}{what}) ====\n",
            self.seed,
            self.engines.join(",")
        ));
        out.push_str(&self.counts.to_string());
        if self.stopped_by_time_limit {
            out.push_str(&format!(
                "stopped by the time limit after {} of {} pairs{}\n",
                self.pairs_checked,
                self.pairs_to_check,
                match &self.merged {
                    Some(m) => format!(" (shards {})", list(&m.stopped)),
                    None => String::new(),
                }
            ));
        }
        out.push_str(&format!(
            "wall time: {:.1} s{}\n",
            self.elapsed_seconds,
            if self.merged.is_some() {
                " (the longest shard)"
            } else {
                ""
            }
        ));
        let s = &self.counts;
        for r in &s.reproducers {
            out.push_str(&format!("\n---- failed pair ----\n{r}\n"));
        }
        for r in &s.asymmetric_examples {
            out.push_str(&format!(
                "\n---- incomplete asymmetry (not unsound) ----\n{r}\n"
            ));
        }
        for r in &s.missed_examples {
            out.push_str(&format!(
                "\n---- missed difference (not unsound) ----\n{r}\n"
            ));
        }
        out
    }
}

fn list(ks: &[u64]) -> String {
    ks.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

fn tmp_path(path: &Path) -> std::path::PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    tmp.into()
}

/// Checks that a summary file can be written at `path` (before a long run rather
/// than after it): creates and removes `PATH.tmp`.
pub fn check_writable(path: &Path) -> io::Result<()> {
    let tmp = tmp_path(path);
    fs::write(&tmp, b"")?;
    fs::remove_file(&tmp)
}

/// [`check_writable`] for a binary named `program`, with the message it prints when
/// the summary cannot be written (then it should exit with status 2).
pub fn summary_writable(program: &str, path: Option<&Path>) -> bool {
    match path.map(check_writable) {
        Some(Err(e)) => {
            eprintln!(
                "{program}: cannot write the summary {}: {e}",
                path.map(|p| p.display().to_string()).unwrap_or_default()
            );
            false
        }
        _ => true,
    }
}

/// Sums the summary files of shards of one run (each named, for messages), keeping
/// `show` reproducers of each list. Errors: a file of a sum rather than of a shard,
/// files of different runs (seed, pairs, shapes, engines, settings or number of
/// shards), and a shard given twice. Missing shards are not an error: the sum says
/// which ([`Merged::missing`]).
pub fn merge(files: &[(String, SummaryFile)], show: usize) -> Result<SummaryFile, String> {
    let Some((first_name, first)) = files.first() else {
        return Err("no summary files to merge".into());
    };
    let mut shards: Vec<(Shard, &str, &SummaryFile)> = Vec::new();
    for (name, file) in files {
        let Some(shard) = file.shard else {
            return Err(format!(
                "{name} is a sum of shards already, not the summary of one shard"
            ));
        };
        Shard::new(shard.k, shard.n).map_err(|e| format!("{name}: {e}"))?;
        if let Some(field) = first.other_run(file) {
            return Err(format!(
                "{name} is not of the same run as {first_name}: the {field} differ"
            ));
        }
        if let Some((_, other, _)) = shards.iter().find(|(s, _, _)| *s == shard) {
            return Err(format!("{other} and {name} are both shard {shard}"));
        }
        shards.push((shard, name, file));
    }
    shards.sort_by_key(|(s, _, _)| s.k);
    let n = shards[0].0.n;
    let mut counts = Summary::new(show);
    let mut elapsed: f64 = 0.0;
    let mut stopped = Vec::new();
    for (shard, _, file) in &shards {
        counts.merge(&file.counts);
        elapsed = elapsed.max(file.elapsed_seconds);
        if file.stopped_by_time_limit {
            stopped.push(shard.k);
        }
    }
    let present: Vec<u64> = shards.iter().map(|(s, _, _)| s.k).collect();
    let missing: Vec<u64> = (1..=n).filter(|k| !present.contains(k)).collect();
    let whole = first.selection(Shard::WHOLE);
    let mut sum = SummaryFile {
        shard: None,
        merged: Some(Merged {
            n,
            shards: present,
            missing,
            stopped: stopped.clone(),
        }),
        pairs_to_check: whole.share(),
        stopped_by_time_limit: !stopped.is_empty(),
        elapsed_seconds: elapsed,
        ..first.clone()
    };
    sum.set_counts(counts);
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde_json::Value;
    use tamarin::Engine;

    use super::*;
    use crate::check::{check_pair, Finding, FindingKind};
    use crate::pair::{make_pair, PairKind, Placement};

    fn selection(start: u64, pairs: u64, shapes: &[Shape], shard: Shard) -> Selection {
        Selection {
            start,
            pairs,
            shapes: shapes.to_vec(),
            shard,
        }
    }

    /// Checks that the shards of `whole` check exactly its pairs, each once, shard
    /// `k` those in the blocks `p / b` (`b` one pair of each chosen shape) with
    /// `(p / b) % n == k - 1`, and that a shard with a whole block has a pair of every
    /// chosen shape.
    fn assert_partition(whole: &Selection, n: u64) {
        let all: Vec<u64> = whole.indices().collect();
        assert_eq!(all.len() as u64, whole.share());
        let mut union = Vec::new();
        for k in 1..=n {
            let shard = Selection {
                shard: Shard::new(k, n).unwrap(),
                ..whole.clone()
            };
            let mine: Vec<u64> = shard.indices().collect();
            assert_eq!(mine.len() as u64, shard.share(), "shard {k}/{n}");
            let b = whole.block();
            let expected: Vec<u64> = all
                .iter()
                .enumerate()
                .filter(|(p, _)| (*p as u64 / b) % n == k - 1)
                .map(|(_, &i)| i)
                .collect();
            assert_eq!(mine, expected, "shard {k}/{n} of {whole:?}");
            if mine.len() as u64 >= b {
                let shapes: std::collections::BTreeSet<usize> = mine
                    .iter()
                    .map(|&i| crate::pair::shape_of(i) as usize)
                    .collect();
                assert_eq!(shapes.len() as u64, b, "every shape in shard {k}/{n}");
            }
            union.extend(mine);
        }
        union.sort_unstable();
        assert_eq!(union, all, "the shards of {whole:?} by {n}");
    }

    proptest! {
        /// The shards of a run check exactly the pairs of the unsharded run, each once,
        /// and the unsharded run checks the pairs it always did: positions `start..`
        /// of the chosen shapes' stream.
        #[test]
        fn shards_partition_the_run(
            start in 0u64..5000,
            pairs in 0u64..400,
            n in 1u64..13,
            shapes in proptest::sample::subsequence(Shape::ALL.to_vec(), 0..=Shape::ALL.len()),
        ) {
            let whole = selection(start, pairs, &shapes, Shard::WHOLE);
            let all: Vec<u64> = whole.indices().collect();
            let before: Vec<u64> = (start..start + pairs).map(|k| nth_index(&shapes, k)).collect();
            prop_assert_eq!(&all, &before);
            for &i in &all {
                prop_assert!(shapes.is_empty() || shapes.contains(&crate::pair::shape_of(i)));
            }
            assert_partition(&whole, n);
        }
    }

    #[test]
    fn shards_at_the_edges() {
        // More shards than blocks: the first has them all, the others nothing.
        assert_partition(&selection(3, 2, &[], Shard::WHOLE), 5);
        assert_eq!(selection(3, 2, &[], Shard::new(1, 5).unwrap()).share(), 2);
        assert_eq!(selection(3, 2, &[], Shard::new(3, 5).unwrap()).share(), 0);
        assert_eq!(
            selection(3, 2, &[], Shard::new(2, 5).unwrap()).index(0),
            None
        );
        // Two shards of 25 pairs of ten shapes: blocks 0 and 2 (and half of the
        // third round) to the first, block 1 to the second.
        let first = selection(0, 25, &[], Shard::new(1, 2).unwrap());
        assert_eq!(first.share(), 15);
        assert_eq!(first.index(10), Some(20));
        let second = selection(0, 25, &[], Shard::new(2, 2).unwrap());
        assert_eq!(
            second.indices().collect::<Vec<_>>(),
            (10..20).collect::<Vec<_>>()
        );
        // No pairs at all.
        assert_partition(&selection(0, 0, &[Shape::Array], Shard::WHOLE), 3);
        // The end of the stream comes first: `start + pairs` saturates.
        let last = selection(u64::MAX - 3, 10, &[], Shard::WHOLE);
        assert_eq!(last.positions(), 3);
        assert_partition(&last, 2);
        assert_partition(&last, 4);
        assert_eq!(
            selection(u64::MAX - 3, 10, &[], Shard::new(1, 2).unwrap())
                .indices()
                .collect::<Vec<_>>(),
            [u64::MAX - 3, u64::MAX - 2, u64::MAX - 1]
        );
        // Every shape alone.
        for shape in Shape::ALL {
            assert_partition(&selection(7, 31, &[shape], Shard::WHOLE), 4);
        }
    }

    #[test]
    fn shard_strings() {
        assert_eq!("3/8".parse::<Shard>(), Ok(Shard { k: 3, n: 8 }));
        assert_eq!("1/1".parse::<Shard>(), Ok(Shard::WHOLE));
        assert_eq!("8/8".parse::<Shard>(), Ok(Shard { k: 8, n: 8 }));
        assert_eq!("007/10".parse::<Shard>(), Ok(Shard { k: 7, n: 10 }));
        assert_eq!(Shard { k: 3, n: 8 }.to_string(), "3/8");
        for bad in [
            "",
            "/",
            "3",
            "3/",
            "/8",
            "0/8",
            "9/8",
            "1/0",
            "0/0",
            "-1/8",
            "+1/8",
            "1/+8",
            " 1/8",
            "1/8 ",
            "1 /8",
            "a/b",
            "1.0/8",
            "1/8/2",
            "3\\8",
            "3:8",
            "1/99999999999999999999",
        ] {
            let e = bad.parse::<Shard>().expect_err(bad);
            assert!(e.contains("shard") || e.contains("K/N"), "{bad}: {e}");
        }
        assert!("0/8".parse::<Shard>().unwrap_err().contains("from 1 to N"));
        assert!("1/0".parse::<Shard>().unwrap_err().contains("at least one"));
    }

    #[test]
    fn summary_files_name_things_as_the_report_does() {
        let name = |v: Value| v.as_str().unwrap().to_string();
        for k in Kind::ALL {
            assert_eq!(name(serde_json::to_value(k).unwrap()), k.name());
        }
        for s in Shape::ALL {
            assert_eq!(name(serde_json::to_value(s).unwrap()), s.name());
        }
        for p in PairKind::ALL {
            assert_eq!(name(serde_json::to_value(p).unwrap()), p.name());
        }
        for p in Placement::ALL {
            assert_eq!(name(serde_json::to_value(p).unwrap()), p.name());
        }
        for f in [
            FindingKind::CounterexampleDoesNotReplay,
            FindingKind::CounterexampleMisreported,
            FindingKind::EquivalentButDiffers,
            FindingKind::SelfDisequivalent,
            FindingKind::AsymmetricVerdict,
            FindingKind::EnginesContradict,
            FindingKind::TimeLimitIgnored,
            FindingKind::MoreFuelEquivalent,
            FindingKind::Crash,
        ] {
            assert_eq!(name(serde_json::to_value(f).unwrap()), f.name());
        }
    }

    /// Settings that keep the tests fast: short limits, few inputs, one engine.
    fn fast_config() -> CheckConfig {
        CheckConfig {
            inputs: 200,
            compare_timeout: Some(Duration::from_millis(500)),
            solver_timeout: Some(Duration::from_millis(250)),
            engines: vec![Engine::Concolic],
            spin_checks: false,
            ..CheckConfig::default()
        }
    }

    fn run_settings(jobs: usize, deadline: Option<Instant>) -> RunSettings {
        RunSettings {
            jobs,
            deadline,
            progress: None,
            verbose: false,
            show: 100,
        }
    }

    /// The counts of a summary file without what depends on timing (times, and the
    /// order in which pairs finished).
    fn counts(file: &SummaryFile) -> Value {
        fn strip(v: &mut Value) {
            match v {
                Value::Object(m) => {
                    for key in ["compare_time", "concrete_time", "slowest", "longest"] {
                        m.remove(key);
                    }
                    m.remove("spin_slowest");
                    for (key, v) in m.iter_mut() {
                        if key.ends_with("examples") || key == "reproducers" {
                            if let Value::Array(a) = v {
                                a.sort_by_key(|x| x.to_string());
                            }
                        }
                        strip(v);
                    }
                }
                Value::Array(a) => a.iter_mut().for_each(strip),
                _ => {}
            }
        }
        let mut v = serde_json::to_value(&file.counts).unwrap();
        strip(&mut v);
        v
    }

    /// Two shards' summary files, written and read back, sum to the unsharded run's:
    /// the pairs of a small run are checked once, and every run (whole and shards)
    /// takes their results from there, two of them with a planted failed check.
    #[test]
    #[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
    fn merged_shards_count_what_the_whole_run_counts() {
        let cfg = fast_config();
        let seed = 1;
        let shapes = [
            Shape::Straight,
            Shape::Loop,
            Shape::MultDiv,
            Shape::JumpTable,
            Shape::Mixed,
            Shape::Array,
            Shape::Output,
        ];
        let whole = selection(3, 40, &shapes, Shard::WHOLE);
        let planted = [whole.index(5).unwrap(), whole.index(30).unwrap()];
        let started = Instant::now();
        let results = Mutex::new(BTreeMap::new());
        run(&whole, &run_settings(2, None), |i| {
            let mut r = check_pair(&make_pair(seed, i), &cfg);
            if planted.contains(&i) {
                r.findings.push(Finding {
                    kind: FindingKind::EquivalentButDiffers,
                    engine: Engine::Concolic,
                    detail: "planted".into(),
                    inputs: None,
                });
            }
            results.lock().unwrap().insert(i, r.clone());
            r
        });
        let results: BTreeMap<u64, PairResult> = results.into_inner().unwrap();
        assert_eq!(results.len(), 40);
        eprintln!("checked in {:.1} s", started.elapsed().as_secs_f64());
        let asked = Mutex::new(Vec::new());
        let replay = |i: u64| {
            asked.lock().unwrap().push(i);
            results[&i].clone()
        };
        let file = |sel: &Selection| {
            let outcome = run(sel, &run_settings(2, None), replay);
            let f = SummaryFile::of_run(seed, sel, &cfg, &outcome);
            SummaryFile::from_json(&f.to_json()).expect("a summary file reads back")
        };
        let unsharded = file(&whole);
        asked.lock().unwrap().clear();
        let shards: Vec<(String, SummaryFile)> = [2, 1]
            .into_iter()
            .map(|k| {
                let sel = Selection {
                    shard: Shard::new(k, 2).unwrap(),
                    ..whole.clone()
                };
                (format!("shard-{k}.json"), file(&sel))
            })
            .collect();
        // Each pair asked for once by the shards.
        let mut asked = asked.into_inner().unwrap();
        asked.sort_unstable();
        assert_eq!(asked, whole.indices().collect::<Vec<_>>());

        let sum = merge(&shards, 100).expect("the shards merge");
        let sum = SummaryFile::from_json(&sum.to_json()).expect("the sum reads back");
        assert_eq!(counts(&sum), counts(&unsharded), "{}", sum.report());
        assert_eq!(sum.pairs_checked, 40);
        assert_eq!(sum.pairs_to_check, 40);
        assert_eq!(sum.failed_checks, 2);
        assert_eq!(sum.unsound_verdicts, 2);
        assert_eq!(sum.failed_pairs, planted);
        assert_eq!(unsharded.failed_pairs, planted);
        assert_eq!(sum.missed_differences, unsharded.missed_differences);
        assert_eq!(
            sum.merged,
            Some(Merged {
                n: 2,
                shards: vec![1, 2],
                missing: vec![],
                stopped: vec![],
            })
        );
        assert!(!sum.stopped_by_time_limit);
        let close = |a: Duration, b: Duration| a.abs_diff(b) < Duration::from_micros(1);
        assert!(close(
            sum.counts.compare_time,
            unsharded.counts.compare_time
        ));
        let slowest = |f: &SummaryFile| f.counts.slowest.unwrap().0;
        assert!(close(slowest(&sum), slowest(&unsharded)));
        // The report reads as a run's.
        let report = sum.report();
        assert!(report.contains("2 shards merged"), "{report}");
        assert!(report.contains("pairs checked: 40"), "{report}");
        assert!(report.contains("failed pairs (`--only INDEX` checks one again): "));

        // One shard alone: the other is missing; its own pairs are counted.
        let part = merge(&shards[..1], 5).unwrap();
        assert_eq!(part.merged.as_ref().unwrap().missing, [1]);
        // Blocks of seven (one of each shape): shard 2 has positions 7-13, 21-27
        // and 35-39.
        assert_eq!(part.pairs_checked, 19);
        assert!(part.report().contains("1 of 2 shards merged, missing 1"));
    }

    #[test]
    fn merge_refuses_files_of_other_runs() {
        let cfg = fast_config();
        let sel = |shard| selection(0, 4, &[], shard);
        let empty = |shard, cfg: &CheckConfig| {
            let outcome = Outcome {
                summary: Summary::new(5),
                stopped: false,
                elapsed: Duration::ZERO,
            };
            SummaryFile::of_run(1, &sel(shard), cfg, &outcome)
        };
        let one = empty(Shard::new(1, 2).unwrap(), &cfg);
        let two = empty(Shard::new(2, 2).unwrap(), &cfg);
        let named = |fs: &[&SummaryFile]| -> Vec<(String, SummaryFile)> {
            fs.iter()
                .enumerate()
                .map(|(i, f)| (format!("f{i}"), (*f).clone()))
                .collect()
        };
        assert!(merge(&named(&[&one, &two]), 5).is_ok());
        assert!(merge(&[], 5).unwrap_err().contains("no summary"));
        let e = merge(&named(&[&one, &one]), 5).unwrap_err();
        assert!(e.contains("both shard 1/2"), "{e}");
        let mut other = two.clone();
        other.seed = 2;
        let e = merge(&named(&[&one, &other]), 5).unwrap_err();
        assert!(e.contains("the seed differ"), "{e}");
        let mut other = two.clone();
        other.engines = vec!["bmc".into()];
        assert!(merge(&named(&[&one, &other]), 5)
            .unwrap_err()
            .contains("engines"));
        let third = empty(Shard::new(3, 3).unwrap(), &cfg);
        assert!(merge(&named(&[&one, &third]), 5)
            .unwrap_err()
            .contains("number of shards"));
        let more_inputs = CheckConfig {
            inputs: 1000,
            ..fast_config()
        };
        assert!(merge(
            &named(&[&one, &empty(Shard::new(2, 2).unwrap(), &more_inputs)]),
            5
        )
        .unwrap_err()
        .contains("settings"));
        let sum = merge(&named(&[&one, &two]), 5).unwrap();
        assert!(merge(&named(&[&sum]), 5)
            .unwrap_err()
            .contains("not the summary of one shard"));
        // Not a summary file, or another format.
        assert!(SummaryFile::from_json("{}").unwrap_err().contains("format"));
        let text = one.to_json().replace("\"format\": 1", "\"format\": 2");
        assert!(SummaryFile::from_json(&text)
            .unwrap_err()
            .contains("format 2"));
    }

    /// A run stopped by its deadline has checked the first pairs of its shard, and
    /// says it stopped.
    #[test]
    fn a_deadline_leaves_the_first_pairs_of_the_shard() {
        let cfg = fast_config();
        let template = check_pair(&make_pair(1, 1), &cfg);
        let sel = selection(
            0,
            1000,
            &[Shape::Branch, Shape::Call],
            Shard::new(2, 3).unwrap(),
        );
        let asked = Mutex::new(Vec::new());
        let outcome = run(
            &sel,
            &run_settings(3, Some(Instant::now() + Duration::from_millis(150))),
            |i| {
                asked.lock().unwrap().push(i);
                std::thread::sleep(Duration::from_millis(10));
                PairResult {
                    index: i,
                    ..template.clone()
                }
            },
        );
        let mut asked = asked.into_inner().unwrap();
        asked.sort_unstable();
        assert!(!asked.is_empty() && (asked.len() as u64) < sel.share());
        let first: Vec<u64> = sel.indices().take(asked.len()).collect();
        assert_eq!(asked, first);
        assert!(outcome.stopped);
        assert_eq!(outcome.summary.pairs, asked.len() as u64);
        let file = SummaryFile::of_run(1, &sel, &cfg, &outcome);
        assert!(file.stopped_by_time_limit);
        assert!(file.report().contains(&format!(
            "stopped by the time limit after {} of {} pairs",
            asked.len(),
            sel.share()
        )));
        // A deadline already past: nothing checked.
        let none = run(&sel, &run_settings(2, Some(Instant::now())), |_| {
            unreachable!("no pair is started after the deadline")
        });
        assert_eq!(none.summary.pairs, 0);
        assert!(none.stopped);
    }
}
