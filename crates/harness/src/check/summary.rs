//! Counts over many checked pairs, per engine and in all, their printing, and their
//! summing over the shards of a run ([`Summary::merge`]). They serialize (serde) for the
//! summary files of the `soundness` binary: kinds, shapes and engines by their names,
//! times in seconds.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tamarin::Engine;

use super::findings::{EngineRun, FindingKind, Kind};
use super::spin::{HUGE_FUEL, HUGE_FUEL_TIMEOUT};
use super::PairResult;
use crate::generate::Shape;
use crate::pair::{PairKind, Placement};

/// Counts of one engine's verdicts over many pairs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EngineSummary {
    /// One answer per pair (see [`EngineRun::pair_verdict`]).
    pub pair_verdicts: BTreeMap<Kind, u64>,
    /// Forward verdicts by shape.
    pub by_shape: BTreeMap<Shape, BTreeMap<Kind, u64>>,
    /// Forward verdicts by pair kind.
    pub by_pair_kind: BTreeMap<PairKind, BTreeMap<Kind, u64>>,
    /// Every verdict (both directions).
    pub verdicts: BTreeMap<Kind, u64>,
    /// Equivalent verdicts (both directions) by the engine whose proof it is.
    #[serde(deserialize_with = "serial::engine_counts")]
    pub proofs: BTreeMap<&'static str, u64>,
    /// Reasons of possibly-equivalent verdicts (both directions).
    pub incomplete: BTreeMap<String, u64>,
    /// Failed checks of this engine's verdicts, by kind.
    pub findings: BTreeMap<FindingKind, u64>,
    /// Equivalent one way, possibly-equivalent the other.
    pub warnings: u64,
    /// Pairs disequivalent one way and possibly-equivalent the other.
    pub asymmetric_incomplete: u64,
    /// Possibly-equivalent pairs on which a concrete input differs.
    pub missed: u64,
    /// Compares (one direction each) that ran past their time limit by more than one
    /// solver query's limit, and the longest of them.
    pub over_limit: u64,
    #[serde(with = "serial::secs")]
    pub longest: Duration,
    #[serde(with = "serial::secs")]
    pub compare_time: Duration,
    #[serde(with = "serial::slowest")]
    pub slowest: Option<(Duration, u64)>,
}

impl EngineSummary {
    fn add(&mut self, r: &PairResult, run: &EngineRun) {
        *self.pair_verdicts.entry(run.pair_verdict()).or_default() += 1;
        *self
            .by_shape
            .entry(r.shape)
            .or_default()
            .entry(run.forward.kind)
            .or_default() += 1;
        *self
            .by_pair_kind
            .entry(r.pair_kind)
            .or_default()
            .entry(run.forward.kind)
            .or_default() += 1;
        for d in run.directions() {
            *self.verdicts.entry(d.kind).or_default() += 1;
            if let Some(e) = d.proof {
                *self.proofs.entry(e.name()).or_default() += 1;
            }
            for i in &d.incomplete {
                *self.incomplete.entry(i.clone()).or_default() += 1;
            }
            self.over_limit += d.over_limit as u64;
            self.longest = self.longest.max(d.time);
        }
        for f in r.findings.iter().filter(|f| f.engine == run.engine) {
            *self.findings.entry(f.kind).or_default() += 1;
        }
        self.warnings += run.warnings.len() as u64;
        self.asymmetric_incomplete += run.asymmetric_incomplete.is_some() as u64;
        self.missed += run.missed as u64;
        let t = run.time();
        self.compare_time += t;
        if self.slowest.is_none_or(|(s, _)| t > s) {
            self.slowest = Some((t, r.index));
        }
    }

    /// Pairs this engine answered `kind` for.
    pub fn pairs(&self, kind: Kind) -> u64 {
        self.pair_verdicts.get(&kind).copied().unwrap_or(0)
    }

    /// Verdicts `kind`, both directions.
    pub fn verdicts(&self, kind: Kind) -> u64 {
        self.verdicts.get(&kind).copied().unwrap_or(0)
    }

    /// Failed checks of this engine's verdicts.
    pub fn failures(&self) -> u64 {
        self.findings.values().sum()
    }

    /// Adds the counts of `other` (pairs of the same run checked elsewhere).
    fn merge(&mut self, other: &EngineSummary) {
        add_counts(&mut self.pair_verdicts, &other.pair_verdicts);
        for (shape, m) in &other.by_shape {
            add_counts(self.by_shape.entry(*shape).or_default(), m);
        }
        for (kind, m) in &other.by_pair_kind {
            add_counts(self.by_pair_kind.entry(*kind).or_default(), m);
        }
        add_counts(&mut self.verdicts, &other.verdicts);
        add_counts(&mut self.proofs, &other.proofs);
        add_counts(&mut self.incomplete, &other.incomplete);
        add_counts(&mut self.findings, &other.findings);
        self.warnings += other.warnings;
        self.asymmetric_incomplete += other.asymmetric_incomplete;
        self.missed += other.missed;
        self.over_limit += other.over_limit;
        self.longest = self.longest.max(other.longest);
        self.compare_time += other.compare_time;
        self.slowest = slower(self.slowest, other.slowest);
    }
}

/// Adds the counts of `from` to those of `to`.
fn add_counts<K: Ord + Clone>(to: &mut BTreeMap<K, u64>, from: &BTreeMap<K, u64>) {
    for (k, n) in from {
        *to.entry(k.clone()).or_default() += n;
    }
}

/// The slower of two (time, pair index), the first on a tie.
fn slower(a: Option<(Duration, u64)>, b: Option<(Duration, u64)>) -> Option<(Duration, u64)> {
    match (a, b) {
        (Some((ta, _)), Some((tb, _))) if tb > ta => b,
        (None, _) => b,
        _ => a,
    }
}

/// Counts over many pairs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Summary {
    pub pairs: u64,
    /// Each engine's counts, in the order the engines ran (in a summary file, an
    /// object from each engine's name to its counts).
    #[serde(with = "serial::per_engine")]
    pub engines: Vec<(Engine, EngineSummary)>,
    /// Pairs on which the engines' answers differ without contradicting each other
    /// (say bmc proves what concolic leaves possibly-equivalent), by the answers.
    pub differing_answers: BTreeMap<String, u64>,
    /// Failed checks by kind, every engine.
    pub findings: BTreeMap<FindingKind, u64>,
    /// Pairs with a failed check, and their indices (`soundness --only INDEX` checks
    /// one again).
    pub failed_pairs: u64,
    pub failed_indices: Vec<u64>,
    /// Reproducers of the first failed pairs.
    pub reproducers: Vec<String>,
    /// Equivalent one way, possibly-equivalent the other (every engine).
    pub warnings: u64,
    /// Pairs some engine found disequivalent one way and possibly-equivalent the other.
    pub asymmetric_incomplete: u64,
    pub asymmetric_examples: Vec<String>,
    /// Pairs some engine left possibly-equivalent while a concrete input differs.
    pub missed: u64,
    pub missed_examples: Vec<String>,
    pub inputs_run: u64,
    /// Concrete inputs run for pairs with an equivalent verdict.
    pub equivalent_inputs: u64,
    /// Pairs with an equivalent verdict (by any engine), each checked on the inputs.
    pub equivalent_pairs: u64,
    pub pairs_out_of_fuel: u64,
    pub pairs_faulting: u64,
    #[serde(with = "serial::secs")]
    pub compare_time: Duration,
    #[serde(with = "serial::secs")]
    pub concrete_time: Duration,
    #[serde(with = "serial::slowest")]
    pub slowest: Option<(Duration, u64)>,
    /// Pairs built to be equal (rewrites; not those with an array over the code, which
    /// a rewrite moves) that were found disequivalent, with a counterexample that
    /// replays: a rewrite of the harness that is not equal.
    pub rewrite_disequivalent: Vec<u64>,
    /// Array pairs by where the array lies.
    pub placements: BTreeMap<Placement, u64>,
    /// Check (g): how many ran, their verdicts, and the slowest (time, pair index).
    pub spin_checks: u64,
    pub spin_verdicts: BTreeMap<Kind, u64>,
    #[serde(with = "serial::slowest")]
    pub spin_slowest: Option<(Duration, u64)>,
    /// How many reproducers to keep (a setting of the run, not written to files).
    #[serde(skip)]
    pub keep: usize,
}

impl Summary {
    pub fn new(keep: usize) -> Summary {
        Summary {
            keep,
            ..Summary::default()
        }
    }

    /// The counts of `engine`, if it ran.
    pub fn engine(&self, engine: Engine) -> Option<&EngineSummary> {
        self.engines
            .iter()
            .find(|(e, _)| *e == engine)
            .map(|(_, s)| s)
    }

    /// Unsound verdicts and crashes: every failed check.
    pub fn failures(&self) -> u64 {
        self.findings.values().sum()
    }

    /// Failed checks that are wrong verdicts (not crashes).
    pub fn unsound(&self) -> u64 {
        self.findings
            .iter()
            .filter(|(k, _)| **k != FindingKind::Crash)
            .map(|(_, n)| n)
            .sum()
    }

    pub fn add(&mut self, r: &PairResult) {
        self.pairs += 1;
        for run in &r.runs {
            let at = match self.engines.iter().position(|(e, _)| *e == run.engine) {
                Some(i) => i,
                None => {
                    self.engines.push((run.engine, EngineSummary::default()));
                    self.engines.len() - 1
                }
            };
            self.engines[at].1.add(r, run);
        }
        let answers: Vec<Kind> = r.runs.iter().map(EngineRun::pair_verdict).collect();
        if answers.windows(2).any(|w| w[0] != w[1]) {
            let key: Vec<String> = r
                .runs
                .iter()
                .zip(&answers)
                .map(|(run, k)| format!("{} {k}", run.engine.name()))
                .collect();
            *self.differing_answers.entry(key.join(", ")).or_default() += 1;
        }
        for f in &r.findings {
            *self.findings.entry(f.kind).or_default() += 1;
        }
        if r.failed() {
            self.failed_pairs += 1;
            self.failed_indices.push(r.index);
            if self.reproducers.len() < self.keep {
                self.reproducers.push(r.reproducer());
            }
        }
        if let Some(p) = r.placement {
            *self.placements.entry(p).or_default() += 1;
        }
        if let Some(c) = &r.spin {
            self.spin_checks += 1;
            *self.spin_verdicts.entry(c.kind).or_default() += 1;
            if self.spin_slowest.is_none_or(|(t, _)| c.time > t) {
                self.spin_slowest = Some((c.time, r.index));
            }
        }
        if r.pair_kind == PairKind::Rewrite
            && r.placement != Some(Placement::OverCode)
            && r.runs
                .iter()
                .any(|run| run.forward.kind == Kind::Disequivalent)
            && !r.failed()
        {
            self.rewrite_disequivalent.push(r.index);
        }
        self.warnings += r
            .runs
            .iter()
            .map(|run| run.warnings.len() as u64)
            .sum::<u64>();
        if r.runs.iter().any(|run| run.asymmetric_incomplete.is_some()) {
            self.asymmetric_incomplete += 1;
            if self.asymmetric_examples.len() < self.keep {
                self.asymmetric_examples.push(r.reproducer());
            }
        }
        if r.missed.is_some() {
            self.missed += 1;
            if self.missed_examples.len() < self.keep {
                self.missed_examples.push(r.reproducer());
            }
        }
        self.inputs_run += r.inputs_run;
        if r.runs.iter().any(|run| run.says(Kind::Equivalent)) {
            self.equivalent_inputs += r.inputs_run;
            self.equivalent_pairs += 1;
        }
        self.pairs_out_of_fuel += r.saw_out_of_fuel as u64;
        self.pairs_faulting += r.saw_fault as u64;
        self.compare_time += r.compare_time;
        self.concrete_time += r.concrete_time;
        if self.slowest.is_none_or(|(t, _)| r.compare_time > t) {
            self.slowest = Some((r.compare_time, r.index));
        }
    }

    /// Adds the counts of `other`, the summary of other pairs of the same run (another
    /// shard): the counts are sums, the slowest and longest the larger, and the
    /// reproducers those of `self`, then those of `other`, up to [`Summary::keep`].
    pub fn merge(&mut self, other: &Summary) {
        self.pairs += other.pairs;
        for (engine, es) in &other.engines {
            match self.engines.iter_mut().find(|(e, _)| e == engine) {
                Some((_, mine)) => mine.merge(es),
                None => {
                    let mut mine = EngineSummary::default();
                    mine.merge(es);
                    self.engines.push((*engine, mine));
                }
            }
        }
        add_counts(&mut self.differing_answers, &other.differing_answers);
        add_counts(&mut self.findings, &other.findings);
        self.failed_pairs += other.failed_pairs;
        self.failed_indices.extend(&other.failed_indices);
        let keep = self.keep;
        let take = |mine: &mut Vec<String>, theirs: &[String]| {
            let room = keep.saturating_sub(mine.len());
            mine.extend(theirs.iter().take(room).cloned());
        };
        take(&mut self.reproducers, &other.reproducers);
        self.warnings += other.warnings;
        self.asymmetric_incomplete += other.asymmetric_incomplete;
        take(&mut self.asymmetric_examples, &other.asymmetric_examples);
        self.missed += other.missed;
        take(&mut self.missed_examples, &other.missed_examples);
        self.inputs_run += other.inputs_run;
        self.equivalent_inputs += other.equivalent_inputs;
        self.equivalent_pairs += other.equivalent_pairs;
        self.pairs_out_of_fuel += other.pairs_out_of_fuel;
        self.pairs_faulting += other.pairs_faulting;
        self.compare_time += other.compare_time;
        self.concrete_time += other.concrete_time;
        self.slowest = slower(self.slowest, other.slowest);
        self.rewrite_disequivalent
            .extend(&other.rewrite_disequivalent);
        add_counts(&mut self.placements, &other.placements);
        self.spin_checks += other.spin_checks;
        add_counts(&mut self.spin_verdicts, &other.spin_verdicts);
        self.spin_slowest = slower(self.spin_slowest, other.spin_slowest);
        self.sort_indices();
    }

    /// Puts the lists of pair indices in order: they are gathered in the order the
    /// pairs finish, which depends on the threads' timing.
    pub fn sort_indices(&mut self) {
        self.failed_indices.sort_unstable();
        self.rewrite_disequivalent.sort_unstable();
    }
}

fn kinds_line(m: &BTreeMap<Kind, u64>) -> String {
    Kind::ALL
        .iter()
        .filter_map(|k| m.get(k).map(|n| format!("{} {n}", k.name())))
        .collect::<Vec<_>>()
        .join(", ")
}

fn counts_line<K: fmt::Display>(m: &BTreeMap<K, u64>) -> String {
    m.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for EngineSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  pairs: {} disequivalent, {} proved equivalent, {} stayed possibly-equivalent{}",
            self.pairs(Kind::Disequivalent),
            self.pairs(Kind::Equivalent),
            self.pairs(Kind::PossiblyEquivalent),
            match self.pairs(Kind::Crash) {
                0 => String::new(),
                n => format!(", {n} crashed"),
            }
        )?;
        writeln!(f, "  forward verdicts by shape:")?;
        for (s, m) in &self.by_shape {
            writeln!(
                f,
                "    {:<11} {:>6}  {}",
                s.name(),
                m.values().sum::<u64>(),
                kinds_line(m)
            )?;
        }
        writeln!(f, "  forward verdicts by pair kind:")?;
        for (k, m) in &self.by_pair_kind {
            writeln!(
                f,
                "    {:<17} {:>6}  {}",
                k.name(),
                m.values().sum::<u64>(),
                kinds_line(m)
            )?;
        }
        writeln!(
            f,
            "  all verdicts (both directions): {}",
            kinds_line(&self.verdicts)
        )?;
        if !self.proofs.is_empty() {
            writeln!(
                f,
                "  equivalent verdicts by the engine that proved them: {}",
                counts_line(&self.proofs)
            )?;
        }
        if !self.incomplete.is_empty() {
            writeln!(
                f,
                "  possibly-equivalent reasons: {}",
                counts_line(&self.incomplete)
            )?;
        }
        writeln!(
            f,
            "  failed checks: {}{}",
            self.failures(),
            if self.findings.is_empty() {
                String::new()
            } else {
                let k: Vec<String> = self
                    .findings
                    .iter()
                    .map(|(k, n)| format!("{} {n}", k.name()))
                    .collect();
                format!(" ({})", k.join(", "))
            }
        )?;
        writeln!(
            f,
            "  warnings {}, incomplete asymmetries {}, missed differences {}",
            self.warnings, self.asymmetric_incomplete, self.missed
        )?;
        write!(
            f,
            "  time in compare: {:.1} s",
            self.compare_time.as_secs_f64()
        )?;
        if let Some((t, i)) = self.slowest {
            write!(f, "; slowest pair: {i} ({:.2} s)", t.as_secs_f64())?;
        }
        writeln!(
            f,
            "; longest compare {:.2} s; compares past their time limit by more than a solver query's: {}",
            self.longest.as_secs_f64(),
            self.over_limit
        )
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "pairs checked: {}", self.pairs)?;
        for (e, s) in &self.engines {
            writeln!(f, "engine {}:", e.name())?;
            write!(f, "{s}")?;
        }
        if self.engines.len() > 1 {
            writeln!(
                f,
                "pairs the engines answer differently (without contradiction): {}",
                self.differing_answers.values().sum::<u64>()
            )?;
            for (k, n) in &self.differing_answers {
                writeln!(f, "  {k}: {n}")?;
            }
        }
        writeln!(
            f,
            "pairs where a probe input ran out of fuel: {}; ended in an error: {}",
            self.pairs_out_of_fuel, self.pairs_faulting
        )?;
        writeln!(
            f,
            "concrete inputs run: {} ({} for the {} pairs with an equivalent verdict)",
            self.inputs_run, self.equivalent_inputs, self.equivalent_pairs
        )?;
        writeln!(
            f,
            "UNSOUND verdicts: {}; crashes: {}; pairs with a failed check: {}",
            self.unsound(),
            self.findings.get(&FindingKind::Crash).copied().unwrap_or(0),
            self.failed_pairs
        )?;
        for (k, n) in &self.findings {
            writeln!(f, "  {}: {n}", k.name())?;
        }
        if !self.failed_indices.is_empty() {
            const SHOWN: usize = 50;
            let shown: Vec<String> = self
                .failed_indices
                .iter()
                .take(SHOWN)
                .map(u64::to_string)
                .collect();
            writeln!(
                f,
                "  failed pairs (`--only INDEX` checks one again): {}{}",
                shown.join(", "),
                match self.failed_indices.len().saturating_sub(SHOWN) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                }
            )?;
        }
        writeln!(
            f,
            "warnings (equivalent one way, possibly-equivalent the other): {}",
            self.warnings
        )?;
        writeln!(
            f,
            "incomplete asymmetries (disequivalent one way, possibly-equivalent the other): {}",
            self.asymmetric_incomplete
        )?;
        writeln!(
            f,
            "missed differences (possibly-equivalent, yet a concrete input differs): {}",
            self.missed
        )?;
        if !self.placements.is_empty() {
            let counts: Vec<String> = Placement::ALL
                .iter()
                .map(|p| format!("{} {}", p.name(), self.placements.get(p).unwrap_or(&0)))
                .collect();
            writeln!(f, "array placements: {}", counts.join(", "))?;
        }
        write!(
            f,
            "huge-fuel checks (auto, fuel {HUGE_FUEL}, time limit {:.0} s): {}",
            HUGE_FUEL_TIMEOUT.as_secs_f64(),
            self.spin_checks
        )?;
        if let Some((t, i)) = self.spin_slowest {
            write!(
                f,
                " ({}); slowest {:.2} s (pair {i})",
                kinds_line(&self.spin_verdicts),
                t.as_secs_f64()
            )?;
        }
        writeln!(f)?;
        if !self.rewrite_disequivalent.is_empty() {
            writeln!(
                f,
                "harness self-check: equal rewrites found disequivalent (a wrong rewrite): {:?}",
                self.rewrite_disequivalent
            )?;
        }
        write!(
            f,
            "time in compare: {:.1} s; in concrete runs: {:.1} s",
            self.compare_time.as_secs_f64(),
            self.concrete_time.as_secs_f64()
        )?;
        if let Some((t, i)) = self.slowest {
            write!(f, "; slowest pair: {i} ({:.2} s)", t.as_secs_f64())?;
        }
        writeln!(f)
    }
}

/// How the counts serialize where serde's defaults do not fit: durations as seconds,
/// the slowest pair as `{"seconds", "pair"}`, engines by name.
mod serial {
    use std::collections::BTreeMap;
    use std::fmt;
    use std::time::Duration;

    use serde::de::{self, MapAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use tamarin::Engine;

    use super::EngineSummary;
    use crate::check::ENGINES;

    fn engine_named<E: de::Error>(name: &str) -> Result<Engine, E> {
        ENGINES
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| E::custom(format!("`{name}` is not an engine")))
    }

    fn duration<E: de::Error>(seconds: f64) -> Result<Duration, E> {
        Duration::try_from_secs_f64(seconds).map_err(E::custom)
    }

    pub mod secs {
        use super::*;

        pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f64(d.as_secs_f64())
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
            duration(f64::deserialize(d)?)
        }
    }

    pub mod slowest {
        use super::*;

        #[derive(Serialize, Deserialize)]
        struct Slowest {
            seconds: f64,
            pair: u64,
        }

        pub fn serialize<S: Serializer>(
            v: &Option<(Duration, u64)>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            v.map(|(t, pair)| Slowest {
                seconds: t.as_secs_f64(),
                pair,
            })
            .serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<(Duration, u64)>, D::Error> {
            Option::<Slowest>::deserialize(d)?
                .map(|s| Ok((duration(s.seconds)?, s.pair)))
                .transpose()
        }
    }

    /// Counts by engine name, each name one of [`ENGINES`]'.
    pub fn engine_counts<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<&'static str, u64>, D::Error> {
        BTreeMap::<String, u64>::deserialize(d)?
            .into_iter()
            .map(|(name, n)| Ok((engine_named(&name)?.name(), n)))
            .collect()
    }

    /// Each engine's counts, as an object from the engine's name to them, in order.
    pub mod per_engine {
        use super::*;

        pub fn serialize<S: Serializer>(
            v: &[(Engine, EngineSummary)],
            s: S,
        ) -> Result<S::Ok, S::Error> {
            s.collect_map(v.iter().map(|(e, es)| (e.name(), es)))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Vec<(Engine, EngineSummary)>, D::Error> {
            struct InOrder;
            impl<'de> Visitor<'de> for InOrder {
                type Value = Vec<(Engine, EngineSummary)>;

                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object from engine names to their counts")
                }

                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut v: Self::Value = Vec::new();
                    while let Some((name, es)) = map.next_entry::<String, EngineSummary>()? {
                        let engine = engine_named(&name)?;
                        if v.iter().any(|(e, _)| *e == engine) {
                            return Err(de::Error::custom(format!("engine `{name}` twice")));
                        }
                        v.push((engine, es));
                    }
                    Ok(v)
                }
            }
            d.deserialize_map(InOrder)
        }
    }
}
