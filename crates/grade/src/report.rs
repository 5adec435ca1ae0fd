//! The report of a class: one model, printed as text, JSON or CSV (and as a page by
//! `html`).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use tamarin::{InputLayout, InputValues};

use crate::collect::Skipped;
use crate::fuel::FuelWarning;
use crate::groups::Group;
use crate::json::{Inputs, TaskModel};
use crate::record::stored_reason_text;
use crate::settings::Search;
use crate::text::{inputs_line, replay_command, search_showing, short_inputs_line};
use crate::{Diagnostic, Record, Verdict, SCHEMA_VERSION};

/// What the report needs of one submission.
pub struct SubmissionView<'a> {
    pub path: &'a Path,
    pub name: &'a str,
    /// `None` when it was not graded (Ctrl-C).
    pub record: Option<&'a Record>,
    pub from_store: bool,
}

/// The report, ready to print.
pub struct Model {
    pub reference: String,
    pub seconds: f64,
    /// Of `seconds`, the time grouping the wrong submissions took; `None` when no
    /// groups were formed (`--no-groups`, or one shard of a class).
    pub grouping_seconds: Option<f64>,
    /// The wall clock (`--group-timeout`, or a proof's time limit) cut the grouping:
    /// some wrong submissions were left apart undecided.
    pub grouping_cut_by_wall_clock: bool,
    pub interrupted: bool,
    /// Submissions left without a verdict by Ctrl-C.
    pub not_graded: Vec<String>,
    pub rows: Vec<Row>,
    pub groups: Vec<GroupModel>,
    pub skipped: Vec<Skipped>,
    /// The rules every verdict was given under.
    pub task: TaskModel,
    /// A run of one shard (`--shard K/N`).
    pub shard: Option<ShardModel>,
    /// A merge of shards (`grade merge`).
    pub shards: Option<ShardsModel>,
}

/// Which shard a run graded.
#[derive(Debug, Serialize)]
pub struct ShardModel {
    pub index: usize,
    pub count: usize,
    /// Its store, which `grade merge` takes.
    pub store: String,
}

/// Which shards a merge found.
#[derive(Debug, Default, Serialize)]
pub struct ShardsModel {
    pub total: usize,
    /// Shards with a store, complete or not.
    pub present: Vec<usize>,
    /// Shards without a store: their submissions are not graded.
    pub missing: Vec<usize>,
    /// Shards with a store that lacks some of their results (stopped before the end):
    /// rerun them, and they resume.
    pub incomplete: Vec<usize>,
    /// The stores merged.
    pub stores: Vec<String>,
}

impl ShardsModel {
    /// The shards in one line for people.
    pub fn line(&self) -> String {
        let list = |v: &[usize]| {
            v.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut line = format!("shards: {} of {} present", self.present.len(), self.total);
        if !self.missing.is_empty() {
            line.push_str(&format!("; missing: {}", list(&self.missing)));
        }
        if !self.incomplete.is_empty() {
            line.push_str(&format!(
                "; incomplete: {} (rerun them: they resume from their stores)",
                list(&self.incomplete)
            ));
        }
        line
    }
}

impl TaskModel {
    /// The rules in one line for people, with the scope every proof holds for: the
    /// inputs (an array's longest length), the preconditions and the fuel.
    pub fn line(&self) -> String {
        let fuel = match self.out_of_fuel {
            "different" => "a submission that runs out of fuel where the reference ends (or the other way round) is wrong",
            _ => "a run out of fuel is never a difference",
        };
        let mut scope = match (self.max_len, &self.inputs) {
            (Some(n), _) => {
                let at = self
                    .array_base
                    .map(|b| format!(" at 0x{b:08x}"))
                    .unwrap_or_default();
                format!("arrays of up to {n} words{at}")
            }
            (None, Some(regs)) => format!("inputs {}", regs.join(", ")),
            (None, None) => "inputs".to_string(),
        };
        if self.stdin_len > 0 {
            scope.push_str(&format!(" with {} bytes of standard input", self.stdin_len));
        }
        let mut inputs = if self.assume.is_empty() {
            format!("all {scope}")
        } else {
            let list: Vec<String> = self.assume.iter().map(|a| format!("`{a}`")).collect();
            format!("the {scope} that satisfy {}", list.join(" and "))
        };
        if let Some(checker) = &self.assume_program {
            if self.assume.is_empty() {
                inputs = format!("the {scope}");
            } else {
                inputs.push_str(" and");
            }
            inputs.push_str(&format!(
                " that {checker} accepts ($3 = 1 within {} steps)",
                self.assume_fuel.unwrap_or(0)
            ));
        }
        let sized = match &self.fuel_auto {
            Some(s) => format!(" ({})", s.phrase()),
            None => String::new(),
        };
        if self.unbounded {
            return format!(
                "task: {inputs}; runs of any length (an equivalence is proved for runs of \
                 any length; bounded searches use {} steps{sized}); {fuel}",
                self.fuel
            );
        }
        format!(
            "task: {inputs}; runs of up to {} steps{sized}; {fuel}",
            self.fuel
        )
    }

    /// What went wrong while the fuel was sized, in words (none for a fuel given).
    pub fn fuel_warnings(&self) -> &[String] {
        self.fuel_auto.as_ref().map_or(&[], |s| &s.warnings[..])
    }
}

/// One graded submission.
pub struct Row {
    pub path: String,
    pub verdict: Verdict,
    /// Its group's number (1 = the largest), for a disequivalent one.
    pub group: Option<usize>,
    pub seconds: f64,
    pub from_store: bool,
    pub witness: Option<WitnessModel>,
    /// Possibly-equivalent: the reasons, as the JSON reports give them.
    pub reasons: Vec<serde_json::Value>,
    pub message: Option<String>,
    pub diagnostic: Option<Diagnostic>,
    /// Warnings about its verdict (its witness may be the fuel's fault).
    pub warnings: Vec<FuelWarning>,
}

impl Row {
    /// The stable kinds of the reasons.
    pub fn reason_kinds(&self) -> Vec<&str> {
        self.reasons
            .iter()
            .filter_map(|r| r["kind"].as_str())
            .collect()
    }

    /// The reasons, in words.
    pub fn reason_texts(&self) -> Vec<String> {
        self.reasons.iter().map(stored_reason_text).collect()
    }

    /// A diagnostic without the file name it starts with (the row names the file):
    /// `line 2, column 11: …`.
    pub fn short_message(&self, message: &str) -> String {
        let Some(rest) = message.strip_prefix(self.path.as_str()) else {
            return message.to_string();
        };
        let rest = rest.trim_start_matches(':').trim_start();
        match self.diagnostic.as_ref().and_then(|d| d.line.zip(d.column)) {
            Some((line, column)) => {
                let place = format!("{line}:{column}:");
                match rest.strip_prefix(&place) {
                    Some(text) => format!("line {line}, column {column}: {}", text.trim_start()),
                    None => rest.to_string(),
                }
            }
            None => rest.to_string(),
        }
    }

    /// An anchor for the row in the page.
    pub fn anchor(&self, index: usize) -> String {
        anchor(index, &self.path)
    }
}

/// An anchor: `s` and the row's number, then the file name's letters and digits.
pub fn anchor(index: usize, path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("s{}-{slug}", index + 1)
}

/// A witness, with everything the reports show of it.
pub struct WitnessModel {
    pub values: InputValues,
    /// The inputs in one line (as compare prints them).
    pub inputs_line: String,
    /// The inputs, signed, short.
    pub inputs_short: String,
    pub reference: String,
    pub submission: String,
    pub reference_json: serde_json::Value,
    pub submission_json: serde_json::Value,
    pub replay_reference: String,
    pub replay_submission: String,
}

/// A group of wrong submissions.
pub struct GroupModel {
    pub id: usize,
    /// (path, how it joined, the submission it is linked to), the representative first.
    pub members: Vec<(String, &'static str, Option<String>)>,
    /// Each member's row, in the order of `members`.
    pub member_rows: Vec<usize>,
    pub formed_by: Vec<&'static str>,
    /// The representative's row.
    pub representative: usize,
}

/// How a member joined by the reference path of its witness is named.
pub const SAME_PATH: &str = "same-reference-path";

impl GroupModel {
    /// The members joined by the reference's path, each with its own witness and
    /// path, in the group's order.
    pub fn own_witnesses<'m>(&self, m: &'m Model) -> Vec<(&'m WitnessModel, &'m str)> {
        self.members
            .iter()
            .zip(&self.member_rows)
            .filter(|((_, how, _), _)| *how == SAME_PATH)
            .filter_map(|(_, &row)| {
                let r = &m.rows[row];
                Some((r.witness.as_ref()?, r.path.as_str()))
            })
            .collect()
    }
}

impl Model {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        reference: &Path,
        subs: &[SubmissionView],
        groups: &[Group],
        skipped: Vec<Skipped>,
        search: &Search,
        layout: &InputLayout,
        elapsed: Duration,
        interrupted: bool,
    ) -> Model {
        let mut group_of = vec![None; subs.len()];
        for (g, group) in groups.iter().enumerate() {
            for &(m, _) in &group.members {
                group_of[m] = Some(g + 1);
            }
        }
        let mut rows = Vec::new();
        let mut row_of = vec![None; subs.len()];
        let mut not_graded = Vec::new();
        for (i, s) in subs.iter().enumerate() {
            let Some(record) = s.record else {
                not_graded.push(s.name.to_string());
                continue;
            };
            let witness = record.witness.as_ref().map(|w| {
                let values = layout.describe(&w.values);
                // A difference after many trips needs more fuel to show again.
                let search = &*search_showing(search, w.longest_run());
                WitnessModel {
                    inputs_line: inputs_line(&values),
                    inputs_short: short_inputs_line(&values),
                    reference: w.reference.text.clone(),
                    submission: w.submission.text.clone(),
                    reference_json: w.reference.json.clone(),
                    submission_json: w.submission.json.clone(),
                    replay_reference: replay_command(search, reference, &values),
                    replay_submission: replay_command(search, s.path, &values),
                    values,
                }
            });
            row_of[i] = Some(rows.len());
            rows.push(Row {
                path: s.name.to_string(),
                verdict: record.verdict,
                group: group_of[i],
                seconds: record.seconds,
                from_store: s.from_store,
                witness,
                reasons: record.reasons.clone(),
                message: record.message.clone(),
                diagnostic: record.diagnostic.clone(),
                warnings: Vec::new(),
            });
        }
        let groups = groups
            .iter()
            .enumerate()
            .map(|(g, group)| GroupModel {
                id: g + 1,
                members: group
                    .members
                    .iter()
                    .map(|&(m, join)| {
                        (
                            subs[m].name.to_string(),
                            join.name(),
                            join.with().map(|w| subs[w].name.to_string()),
                        )
                    })
                    .collect(),
                member_rows: group
                    .members
                    .iter()
                    .map(|&(m, _)| row_of[m].expect("a graded submission"))
                    .collect(),
                formed_by: group.formed_by(),
                representative: row_of[group.representative()].expect("a graded submission"),
            })
            .collect();
        Model {
            reference: reference.display().to_string(),
            seconds: elapsed.as_secs_f64(),
            grouping_seconds: None,
            grouping_cut_by_wall_clock: false,
            interrupted,
            not_graded,
            rows,
            groups,
            skipped,
            task: TaskModel::default(),
            shard: None,
            shards: None,
        }
    }

    pub fn count(&self, v: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == v).count()
    }

    pub fn stored(&self) -> usize {
        self.rows.iter().filter(|r| r.from_store).count()
    }

    /// `10 submissions: 3 equivalent, …` in one line.
    pub fn summary_line(&self) -> String {
        let total = self.rows.len() + self.not_graded.len();
        let counts: Vec<String> = Verdict::ALL
            .iter()
            .map(|&v| format!("{} {}", self.count(v), v.name()))
            .collect();
        let time = match self.grouping_seconds {
            Some(g) => format!(
                "{:.1} s: grading {:.1} s, grouping {g:.1} s",
                self.seconds,
                (self.seconds - g).max(0.0)
            ),
            None => format!("{:.1} s", self.seconds),
        };
        let mut line = format!(
            "{total} submission{} against {}: {}; {} group{} of wrong submissions; {time} ({} from the store)",
            plural(total),
            self.reference,
            counts.join(", "),
            self.groups.len(),
            plural(self.groups.len()),
            self.stored()
        );
        if self.grouping_cut_by_wall_clock {
            line.push_str(&format!("; {GROUPING_CUT}"));
        }
        if self.interrupted {
            line.push_str(&format!(
                "; interrupted: {} not graded",
                self.not_graded.len()
            ));
        } else if !self.not_graded.is_empty() {
            line.push_str(&format!("; {} not graded", self.not_graded.len()));
        }
        line
    }
}

/// What the summary says when the wall clock cut the grouping.
pub const GROUPING_CUT: &str = "grouping cut by its time limit: the wrong submissions it had \
not compared stay apart (a larger --group-timeout compares them)";

pub use crate::words::s as plural;

/// How a member joined, in words.
pub fn join_words(how: &str, with: Option<&str>) -> String {
    match (how, with) {
        ("proved-equivalent", Some(w)) => format!("proved equivalent to {w}"),
        ("same-reference-path", Some(w)) => format!("same reference path as {w}"),
        _ => "representative".into(),
    }
}

/// What a row says after its path, in the text report.
fn detail(row: &Row) -> Option<String> {
    match row.verdict {
        Verdict::Equivalent => None,
        Verdict::Disequivalent => row
            .witness
            .as_ref()
            .map(|w| format!("differs on {}", w.inputs_short)),
        Verdict::PossiblyEquivalent => {
            Some(format!("undecided: {}", row.reason_kinds().join(", ")))
        }
        Verdict::DoesNotAssemble => row.message.as_deref().map(|m| row.short_message(m)),
    }
}

pub fn write_text(out: &mut impl Write, m: &Model) -> std::io::Result<()> {
    writeln!(out, "{}", m.summary_line())?;
    writeln!(out, "{}", m.task.line())?;
    for warning in m.task.fuel_warnings() {
        writeln!(out, "warning: {warning}")?;
    }
    for note in &m.task.notes {
        writeln!(out, "note: {} ({})", note.message, note.advice)?;
    }
    if let Some(shard) = &m.shard {
        writeln!(
            out,
            "shard {} of {} (store {}): the groups are formed when the shards are merged (tamarin grade merge)",
            shard.index, shard.count, shard.store
        )?;
    }
    if let Some(shards) = &m.shards {
        writeln!(out, "{}", shards.line())?;
    }
    for s in &m.skipped {
        writeln!(out, "skipped {}: {}", s.path, s.reason)?;
    }
    for g in &m.groups {
        writeln!(out)?;
        let n = g.members.len();
        let how: Vec<String> = g.formed_by.iter().map(|k| k.replace('-', " ")).collect();
        writeln!(
            out,
            "group {} of {}: {n} submission{}{}",
            g.id,
            m.groups.len(),
            plural(n),
            if how.is_empty() {
                String::new()
            } else {
                format!(" ({})", how.join(", "))
            }
        )?;
        let width = g.members.iter().map(|(p, _, _)| p.len()).max().unwrap_or(0);
        for (path, how, with) in &g.members {
            writeln!(out, "  {path:width$}  {}", join_words(how, with.as_deref()))?;
        }
        if let Some(w) = &m.rows[g.representative].witness {
            writeln!(out, "  differs on {}", w.inputs_line)?;
            writeln!(out, "    reference   {}", w.reference)?;
            writeln!(out, "    submission  {}", w.submission)?;
            writeln!(out, "  replay:")?;
            writeln!(out, "    {}", w.replay_reference)?;
            writeln!(out, "    {}", w.replay_submission)?;
        }
        // A member joined by the path of its witness fails on inputs of its own.
        for (w, path) in g.own_witnesses(m) {
            writeln!(out, "  {path} differs on {}", w.inputs_line)?;
            writeln!(out, "    reference   {}", w.reference)?;
            writeln!(out, "    submission  {}", w.submission)?;
            writeln!(out, "    replay: {}", w.replay_submission)?;
        }
    }
    writeln!(out)?;
    writeln!(out, "submissions:")?;
    for row in &m.rows {
        let group = row.group.map(|g| format!("G{g}")).unwrap_or_default();
        write!(
            out,
            "  {:<19} {group:<4} {:>7.2} s  {}",
            row.verdict.name(),
            row.seconds,
            row.path
        )?;
        if let Some(d) = detail(row) {
            write!(out, ": {d}")?;
        }
        if row.from_store {
            write!(out, " (from the store)")?;
        }
        writeln!(out)?;
        for w in &row.warnings {
            writeln!(out, "      warning: {} ({})", w.message, w.advice)?;
        }
    }
    for path in &m.not_graded {
        writeln!(out, "  {:<19} {:<4} {:>9}  {path}", "not graded", "", "")?;
    }
    // What would decide the undecided ones, once each.
    let mut advice: Vec<&str> = Vec::new();
    for r in m
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::PossiblyEquivalent)
    {
        for a in r.reasons.iter().filter_map(|r| r["advice"].as_str()) {
            if !advice.contains(&a) {
                advice.push(a);
            }
        }
    }
    if !advice.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "to decide the possibly-equivalent ones: {}",
            advice.join("; ")
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------- JSON

/// `grade --format json`.
#[derive(Debug, Serialize)]
pub struct GradeReport<'a> {
    pub schema: u32,
    pub summary: SummaryJson<'a>,
    /// Largest first.
    pub groups: Vec<GroupJson<'a>>,
    /// In the order they were found.
    pub submissions: Vec<SubmissionJson<'a>>,
    /// Files found in folders or glob matches that are not programs.
    pub skipped: &'a [Skipped],
    /// A run of one shard (`--shard K/N`): which, and its store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<&'a ShardModel>,
    /// A merge (`grade merge`): which shards were present, missing or incomplete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards: Option<&'a ShardsModel>,
}

#[derive(Debug, Serialize)]
pub struct SummaryJson<'a> {
    pub reference: &'a str,
    pub submissions: usize,
    pub counts: CountsJson,
    pub groups: usize,
    pub from_store: usize,
    pub seconds: f64,
    /// Of `seconds`: grading (the comparisons with the reference) and grouping (the
    /// wrong submissions compared with each other), the latter absent when no groups
    /// were formed.
    pub grading_seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grouping_seconds: Option<f64>,
    /// Whether the wall clock (`--group-timeout`, or the time limit of a proof between
    /// two wrong submissions) cut the grouping: some were left apart undecided, and
    /// another run may group them otherwise. Always present (false without groups).
    pub grouping_cut_by_wall_clock: bool,
    pub interrupted: bool,
    /// The rules every verdict was given under.
    pub task: &'a TaskModel,
    /// The submissions left without a verdict: by Ctrl-C, or (in a merge) because
    /// their shard is missing or incomplete.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_graded: Vec<&'a str>,
}

/// The number of submissions of each verdict.
#[derive(Debug, Serialize)]
pub struct CountsJson {
    pub equivalent: usize,
    pub disequivalent: usize,
    #[serde(rename = "possibly-equivalent")]
    pub possibly_equivalent: usize,
    #[serde(rename = "does-not-assemble")]
    pub does_not_assemble: usize,
}

#[derive(Debug, Serialize)]
pub struct GroupJson<'a> {
    pub id: usize,
    pub size: usize,
    /// `proved-equivalent` and/or `same-reference-path`: the links in the group.
    pub formed_by: &'a [&'static str],
    pub representative: &'a str,
    pub members: Vec<MemberJson<'a>>,
    /// The representative's witness.
    pub witness: WitnessJson<'a>,
}

#[derive(Debug, Serialize)]
pub struct MemberJson<'a> {
    pub path: &'a str,
    /// `representative`, `proved-equivalent` or `same-reference-path`.
    pub joined: &'static str,
    /// The member it is linked to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub with: Option<&'a str>,
    /// A member joined by the reference's path (`same-reference-path`): its own
    /// witness, inputs on which it differs from the reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<WitnessJson<'a>>,
}

#[derive(Debug, Serialize)]
pub struct SubmissionJson<'a> {
    pub path: &'a str,
    pub verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<usize>,
    pub seconds: f64,
    pub from_store: bool,
    /// Disequivalent only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<WitnessJson<'a>>,
    /// Possibly-equivalent only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<&'a [serde_json::Value]>,
    /// Does-not-assemble only: the diagnostic in one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<&'a Diagnostic>,
    /// Warnings about the verdict, each `{kind, message, advice}`: `fuel-too-small`
    /// when the witness shows a run out of fuel that ends within 4 times the fuel.
    /// Absent when there are none.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub warnings: &'a [FuelWarning],
}

#[derive(Debug, Serialize)]
pub struct WitnessJson<'a> {
    pub inputs: Inputs,
    pub reference: &'a serde_json::Value,
    pub submission: &'a serde_json::Value,
    pub replay: ReplayJson<'a>,
}

#[derive(Debug, Serialize)]
pub struct ReplayJson<'a> {
    pub reference: &'a str,
    pub submission: &'a str,
}

impl<'a> WitnessJson<'a> {
    fn new(w: &'a WitnessModel) -> Self {
        WitnessJson {
            inputs: Inputs::new(&w.values),
            reference: &w.reference_json,
            submission: &w.submission_json,
            replay: ReplayJson {
                reference: &w.replay_reference,
                submission: &w.replay_submission,
            },
        }
    }
}

impl<'a> GradeReport<'a> {
    pub fn new(m: &'a Model) -> Self {
        GradeReport {
            schema: SCHEMA_VERSION,
            summary: SummaryJson {
                reference: &m.reference,
                submissions: m.rows.len() + m.not_graded.len(),
                counts: CountsJson {
                    equivalent: m.count(Verdict::Equivalent),
                    disequivalent: m.count(Verdict::Disequivalent),
                    possibly_equivalent: m.count(Verdict::PossiblyEquivalent),
                    does_not_assemble: m.count(Verdict::DoesNotAssemble),
                },
                groups: m.groups.len(),
                from_store: m.stored(),
                seconds: m.seconds,
                grading_seconds: (m.seconds - m.grouping_seconds.unwrap_or(0.0)).max(0.0),
                grouping_seconds: m.grouping_seconds,
                grouping_cut_by_wall_clock: m.grouping_cut_by_wall_clock,
                interrupted: m.interrupted,
                task: &m.task,
                not_graded: m.not_graded.iter().map(String::as_str).collect(),
            },
            groups: m
                .groups
                .iter()
                .map(|g| {
                    let rep = &m.rows[g.representative];
                    GroupJson {
                        id: g.id,
                        size: g.members.len(),
                        formed_by: &g.formed_by,
                        representative: &rep.path,
                        members: g
                            .members
                            .iter()
                            .zip(&g.member_rows)
                            .map(|((path, joined, with), &row)| MemberJson {
                                path,
                                joined,
                                with: with.as_deref(),
                                witness: (*joined == SAME_PATH)
                                    .then(|| m.rows[row].witness.as_ref().map(WitnessJson::new))
                                    .flatten(),
                            })
                            .collect(),
                        witness: WitnessJson::new(
                            rep.witness
                                .as_ref()
                                .expect("a wrong submission has a witness"),
                        ),
                    }
                })
                .collect(),
            submissions: m
                .rows
                .iter()
                .map(|r| SubmissionJson {
                    path: &r.path,
                    verdict: r.verdict.name(),
                    group: r.group,
                    seconds: r.seconds,
                    from_store: r.from_store,
                    witness: r.witness.as_ref().map(WitnessJson::new),
                    reasons: (r.verdict == Verdict::PossiblyEquivalent).then_some(&r.reasons[..]),
                    message: r.message.as_deref(),
                    diagnostic: r.diagnostic.as_ref(),
                    warnings: &r.warnings,
                })
                .collect(),
            skipped: &m.skipped,
            shard: m.shard.as_ref(),
            shards: m.shards.as_ref(),
        }
    }
}

pub fn write_json(out: &mut impl Write, m: &Model) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, &GradeReport::new(m))?;
    writeln!(out)
}

// ---------------------------------------------------------------- CSV

/// The CSV report's columns.
pub const CSV_HEADER: [&str; 7] = [
    "path", "verdict", "group", "seconds", "inputs", "reasons", "message",
];

pub fn write_csv(out: &mut impl Write, m: &Model) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let io = |e: csv::Error| std::io::Error::other(e.to_string());
    w.write_record(CSV_HEADER).map_err(io)?;
    for r in &m.rows {
        w.write_record([
            r.path.as_str(),
            r.verdict.name(),
            &r.group.map(|g| g.to_string()).unwrap_or_default(),
            &format!("{:.3}", r.seconds),
            &r.witness
                .as_ref()
                .map(|w| w.inputs_short.clone())
                .unwrap_or_default(),
            &r.reason_kinds().join(";"),
            r.message.as_deref().unwrap_or(""),
        ])
        .map_err(io)?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The task line states the scope of every proof: an array's longest length (and
    /// its place), the input registers, standard input, the preconditions, the fuel.
    #[test]
    fn the_task_line_states_the_scope_of_a_proof() {
        let array = TaskModel {
            fuel: 1000,
            out_of_fuel: "different",
            assume: vec!["len >= 1".into()],
            frontend: "array",
            max_len: Some(8),
            array_base: Some(0x100),
            ..TaskModel::default()
        };
        assert_eq!(
            array.line(),
            "task: the arrays of up to 8 words at 0x00000100 that satisfy `len >= 1`; runs of \
             up to 1000 steps; a submission that runs out of fuel where the reference ends (or \
             the other way round) is wrong"
        );
        let registers_model = || TaskModel {
            fuel: 50,
            out_of_fuel: "same",
            frontend: "twoints",
            inputs: Some(vec!["$1".into(), "$4".into()]),
            stdin_len: 2,
            ..TaskModel::default()
        };
        let registers = registers_model();
        let sized = TaskModel {
            fuel: 21_396,
            fuel_auto: Some(crate::fuel::Sizing {
                fuel: 21_396,
                factor: 4,
                floor: 10_000,
                reference_max_steps: 5_349,
                inputs: 13,
                longest: None,
                warnings: Vec::new(),
            }),
            ..registers_model()
        };
        assert!(
            sized.line().contains(
                "runs of up to 21396 steps (fuel = \"auto\": 4 × 5,349, the reference's most \
                 steps on 13 inputs of the domain);"
            ),
            "{}",
            sized.line()
        );
        assert_eq!(
            registers.line(),
            "task: all inputs $1, $4 with 2 bytes of standard input; runs of up to 50 steps; a \
             run out of fuel is never a difference"
        );
    }
}
