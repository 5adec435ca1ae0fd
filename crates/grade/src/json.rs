//! The JSON reports (`--format json`) of every command, as types.
//!
//! Each report is one of these structs, serialized: its fields come out in the order
//! they are declared here, which is the documented order (README.md, and the JSON
//! Schemas in `docs/schema/`, which the tests check real outputs against). An optional
//! field is left out, not `null`. Every report begins with `"schema"`
//! ([`SCHEMA_VERSION`]); every value a program computes or is given (registers, inputs,
//! observed words, addresses) is a signed 32-bit integer.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use tamarin::{Counterexample, Exploration, Incomplete, InputValues, Observed, PathReport, Proof};
use tamarin_mips::cpu::{Fault, Registers};
use tamarin_mips::{Outcome, Status};

use crate::text::{advice, ms, Searcher};
use crate::SCHEMA_VERSION;

/// A value as a signed 32-bit integer.
fn signed(v: u32) -> i32 {
    v as i32
}

/// One value per program of a comparison.
#[derive(Debug, Serialize)]
pub struct PerSide<T> {
    pub left: T,
    pub right: T,
}

impl<T> PerSide<T> {
    fn of((left, right): (T, T)) -> PerSide<T> {
        PerSide { left, right }
    }
}

/// Fields whose names are known only at run time (register names, observables), in
/// order; flattened into the object that holds them. A name given twice keeps its
/// first place and its last value.
#[derive(Debug)]
pub struct Entries<T>(Vec<(String, T)>);

impl<T> FromIterator<(String, T)> for Entries<T> {
    fn from_iter<I: IntoIterator<Item = (String, T)>>(items: I) -> Self {
        let mut entries: Vec<(String, T)> = Vec::new();
        for (name, value) in items {
            match entries.iter_mut().find(|(n, _)| *n == name) {
                Some(entry) => entry.1 = value,
                None => entries.push((name, value)),
            }
        }
        Entries(entries)
    }
}

impl<T: Serialize> Serialize for Entries<T> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut map = ser.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// The inputs of a run: `{"$1": n, …}`, or `{"array": […]}` with the array frontend,
/// then `"stdin"` (its bytes) when standard input bytes are inputs.
#[derive(Debug, Serialize)]
pub struct Inputs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<Vec<i32>>,
    #[serde(flatten)]
    pub registers: Entries<i32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stdin: Vec<u8>,
}

impl Inputs {
    pub fn new(values: &InputValues) -> Inputs {
        let registers = match values.array {
            Some(_) => Entries(Vec::new()),
            None => values
                .registers
                .iter()
                .map(|(name, v)| (name.clone(), signed(*v)))
                .collect(),
        };
        Inputs {
            array: values
                .array
                .as_ref()
                .map(|elems| elems.iter().map(|&e| signed(e)).collect()),
            registers,
            stdin: values.stdin.clone(),
        }
    }
}

/// How a run failed: the fault's message, its stable kind and the failing
/// instruction's address.
#[derive(Debug, Serialize)]
pub struct FaultJson {
    pub error: String,
    pub error_kind: &'static str,
    pub pc: i32,
}

impl FaultJson {
    /// The fault of a run that ended in one.
    pub fn of(status: Status) -> Option<FaultJson> {
        match status {
            Status::Error(f) => Some(FaultJson::new(f)),
            Status::Done | Status::OutOfFuel | Status::Stopped => None,
        }
    }

    fn new(f: Fault) -> FaultJson {
        FaultJson {
            error: f.to_string(),
            error_kind: f.kind.name(),
            pc: signed(f.pc),
        }
    }
}

/// One reason a search was incomplete: its stable `kind`, the words, the advice when an
/// option of the command helps, and the reason's numbers.
#[derive(Debug, Serialize)]
pub struct Reason {
    pub kind: &'static str,
    /// Whether the wall clock caused it (the time limit, or queries it cut short):
    /// then a rerun may come out otherwise, where every other reason is a count.
    pub cut_by_wall_clock: bool,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queries: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paths: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub millis: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pairs: Option<u64>,
}

impl Reason {
    pub fn new(reason: &Incomplete, cmd: Searcher) -> Reason {
        let mut r = Reason {
            kind: reason.kind(),
            cut_by_wall_clock: reason.cut_by_wall_clock(),
            message: reason.to_string(),
            advice: advice(reason, cmd),
            points: None,
            depth: None,
            queries: None,
            runs: None,
            paths: None,
            millis: None,
            pairs: None,
        };
        match reason {
            Incomplete::DepthCut { points, depth } => {
                r.points = Some(*points);
                r.depth = Some(*depth as u64);
            }
            Incomplete::SolverUnknown { queries, .. } => r.queries = Some(*queries),
            Incomplete::Diverged { runs }
            | Incomplete::RunBudget { runs }
            | Incomplete::TraceLimit { runs } => r.runs = Some(*runs),
            Incomplete::PathBudget { paths } => r.paths = Some(*paths),
            Incomplete::Timeout { millis } => r.millis = Some(*millis),
            Incomplete::TooManyPairs { pairs } => r.pairs = Some(*pairs),
            _ => {}
        }
        r
    }

    /// Every reason, in order.
    pub fn list(reasons: &[Incomplete], cmd: Searcher) -> Vec<Reason> {
        reasons.iter().map(|r| Reason::new(r, cmd)).collect()
    }
}

/// A note about the task (not a verdict): its stable `kind`, the words, and the
/// option that takes it into account.
#[derive(Debug, Serialize)]
pub struct NoteJson {
    pub kind: &'static str,
    pub message: String,
    pub advice: String,
}

impl NoteJson {
    pub fn new(note: &tamarin::Note) -> NoteJson {
        NoteJson {
            kind: note.kind(),
            message: note.to_string(),
            advice: crate::text::note_advice(note),
        }
    }

    /// Every note, in order.
    pub fn list(notes: &[tamarin::Note]) -> Vec<NoteJson> {
        notes.iter().map(NoteJson::new).collect()
    }
}

// ---------------------------------------------------------------- compare

/// `compare --format json`: the verdict, then its counterexample, proof or reasons,
/// then the counts of the work done.
#[derive(Debug, Serialize)]
pub struct CompareReport {
    pub schema: u32,
    /// `equivalent`, `disequivalent` or `possibly-equivalent`.
    pub verdict: &'static str,
    /// Disequivalent only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<CounterexampleJson>,
    /// Equivalent only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<ProofJson>,
    /// Possibly-equivalent only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Vec<Reason>>,
    /// The preconditions (`--assume`): the counterexample satisfies them, the proof
    /// covers the inputs that do. Absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assume: Vec<String>,
    /// `same` or `different`: whether one program ending where the other runs out of
    /// fuel is a difference.
    pub out_of_fuel: &'static str,
    /// Advice the facts suggest but do not prove (such as `--frontend array` when a
    /// program reads memory at an address computed from `$1`). Absent when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
    /// Every setting of the comparison (as grade's `summary.task` gives them), so that
    /// `explain --from` the report replays it as the comparison did.
    pub task: TaskModel,
    /// Facts about the task that are no verdict (such as standard output written but
    /// not compared: `output-not-observed`). Absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<NoteJson>,
    pub stats: CompareStats,
}

impl CompareReport {
    pub fn new(report: &tamarin::Report, opts: &tamarin::Options) -> CompareReport {
        use tamarin::Verdict;
        let s = &report.stats;
        let (mut counterexample, mut proof, mut incomplete) = (None, None, None);
        match &report.verdict {
            Verdict::Disequivalent(cx) => counterexample = Some(CounterexampleJson::new(cx)),
            Verdict::Equivalent(p) => proof = Some(ProofJson::new(p, &s.solver_name)),
            Verdict::PossiblyEquivalent(reasons) => {
                incomplete = Some(Reason::list(reasons, Searcher::Compare(opts.engine)))
            }
        }
        CompareReport {
            schema: SCHEMA_VERSION,
            verdict: report.verdict.name(),
            counterexample,
            proof,
            incomplete,
            assume: opts.assume.iter().map(|p| p.text().to_string()).collect(),
            out_of_fuel: opts.out_of_fuel.name(),
            hints: Vec::new(),
            task: TaskModel::of(opts),
            notes: NoteJson::list(report.notes()),
            stats: CompareStats {
                runs: s.runs,
                paths: PerSide::of(s.paths),
                solver_queries: s.solver.queries,
                solver_ms: ms(s.solver.time),
                total_ms: ms(s.total),
                restarts: s.restarts,
                difference_queries: s.difference_queries,
                split_queries: s.split_queries,
                jump_targets: s.jump_targets,
                partial_runs: s.partial_runs,
                call_events: s.call_events,
                call_partial_runs: s.call_partial_runs,
                cache_hits: s.solver.cache_hits,
                shrink_steps: s.shrink_steps,
                shrink_replays: s.shrink_replays,
            },
        }
    }
}

/// Inputs on which the programs differ, and how each run ended on them.
#[derive(Debug, Serialize)]
pub struct CounterexampleJson {
    pub inputs: Inputs,
    pub left: CompareSide,
    pub right: CompareSide,
}

impl CounterexampleJson {
    fn new(cx: &Counterexample) -> CounterexampleJson {
        let side =
            |o: &Outcome, pick: fn(&(String, Observed, Observed)) -> &Observed| CompareSide {
                status: o.status.name(),
                steps: o.steps,
                observed: match o.status {
                    Status::Done => cx
                        .observed
                        .iter()
                        .map(|entry| (entry.0.clone(), ObservedJson::new(pick(entry))))
                        .collect(),
                    _ => Entries(Vec::new()),
                },
                fault: FaultJson::of(o.status),
            };
        CounterexampleJson {
            inputs: Inputs::new(&cx.values),
            left: side(&cx.left, |(_, a, _)| a),
            right: side(&cx.right, |(_, _, b)| b),
        }
    }
}

/// How one program's run on the counterexample ended: each observable by name (`"$3"`,
/// `"output"`, `"mem:0x100..0x10c"`, …) when it ended normally, the fault when it
/// failed.
#[derive(Debug, Serialize)]
pub struct CompareSide {
    pub status: &'static str,
    pub steps: u64,
    #[serde(flatten)]
    pub observed: Entries<ObservedJson>,
    #[serde(flatten)]
    pub fault: Option<FaultJson>,
}

/// An observed value: a word, the output bytes as text, or a list of words.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ObservedJson {
    Word(i32),
    Text(String),
    Words(Vec<i32>),
}

impl ObservedJson {
    fn new(o: &Observed) -> ObservedJson {
        match o {
            Observed::Word(v) => ObservedJson::Word(signed(*v)),
            Observed::Bytes(b) => ObservedJson::Text(String::from_utf8_lossy(b).into_owned()),
            Observed::Words(ws) => ObservedJson::Words(ws.iter().map(|&w| signed(w)).collect()),
        }
    }
}

/// How an equivalence was proved.
#[derive(Debug, Serialize)]
pub struct ProofJson {
    /// `concolic` or `bmc`; `induction` for a loop proof (`--unbounded`).
    pub engine: &'static str,
    pub paths: PerSide<u64>,
    pub out_of_fuel_paths: PerSide<u64>,
    pub queries: u64,
    /// The step bound of the claim; `null` for runs of any length (`--unbounded`).
    pub fuel: Option<u64>,
    /// The solver chain, described.
    pub solver: String,
    /// How each program was unrolled (bmc only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<PerSide<EncodingJson>>,
    /// For runs of any length: `paths` (every run ends within the fuel, and all were
    /// followed) or `lockstep-induction` (an inductive invariant at the loop heads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'static str>,
    /// For runs of any length: `every-run-ends`, `lockstep` or `ranking`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination: Option<&'static str>,
    /// The invariant at each place of the two runs (loop proofs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invariant: Option<serde_json::Map<String, serde_json::Value>>,
    /// The folder the loop proof's certificate was written to (`--certificate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate: Option<String>,
}

impl ProofJson {
    fn new(p: &Proof, solver: &str) -> ProofJson {
        let u = p.unbounded.as_ref();
        let induction = u.is_some_and(|u| u.method == "lockstep-induction");
        ProofJson {
            engine: if induction {
                "induction"
            } else {
                p.engine.name()
            },
            paths: PerSide::of(p.paths),
            out_of_fuel_paths: PerSide::of(p.out_of_fuel),
            queries: p.queries,
            fuel: if u.is_some() { None } else { Some(p.fuel) },
            solver: solver.to_string(),
            encoding: p.encoding.as_ref().map(|(l, r)| PerSide {
                left: EncodingJson::new(l),
                right: EncodingJson::new(r),
            }),
            method: u.map(|u| u.method),
            termination: u.map(|u| u.termination),
            invariant: u.and_then(|u| u.certificate.as_ref()).map(|c| {
                c.invariant
                    .iter()
                    .map(|(place, facts)| (place.clone(), serde_json::Value::from(facts.clone())))
                    .collect()
            }),
            certificate: u
                .and_then(|u| u.certificate_files.as_ref())
                .map(|c| c.dir.display().to_string()),
        }
    }
}

/// The counts of one program's merged encoding.
#[derive(Debug, Serialize)]
pub struct EncodingJson {
    pub steps: u64,
    pub merges: u64,
    pub ends: u64,
    pub peak_states: u64,
    pub pruning_queries: u64,
}

impl EncodingJson {
    fn new(u: &tamarin::UnrollStats) -> EncodingJson {
        EncodingJson {
            steps: u.steps,
            merges: u.merges,
            ends: u.ends,
            peak_states: u.peak_states,
            pruning_queries: u.pruning_queries,
        }
    }
}

/// The counts of a comparison's work.
#[derive(Debug, Serialize)]
pub struct CompareStats {
    pub runs: u64,
    pub paths: PerSide<u64>,
    pub solver_queries: u64,
    pub solver_ms: f64,
    pub total_ms: f64,
    pub restarts: u64,
    pub difference_queries: u64,
    pub split_queries: u64,
    pub jump_targets: u64,
    pub partial_runs: u64,
    /// Calls to shared procedures recorded as events.
    pub call_events: u64,
    /// Runs given up for what a call left unknown (reason `call-effects`).
    pub call_partial_runs: u64,
    pub cache_hits: u64,
    /// Smaller counterexamples the minimiser kept, one after the other.
    pub shrink_steps: u64,
    /// Candidates the minimiser replayed.
    pub shrink_replays: u64,
}

// ---------------------------------------------------------------- check and paths

/// The counts of a search of one program (`check`, `paths`).
#[derive(Debug, Serialize)]
pub struct SearchStats {
    pub paths: u64,
    pub runs: u64,
    pub solver_queries: u64,
    pub solver_ms: f64,
    pub total_ms: f64,
}

impl SearchStats {
    fn new(s: &tamarin::Stats) -> SearchStats {
        SearchStats {
            paths: s.paths.0,
            runs: s.runs,
            solver_queries: s.solver.queries,
            solver_ms: ms(s.solver.time),
            total_ms: ms(s.total),
        }
    }
}

/// `check --format json`.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    pub schema: u32,
    /// One per failing site, in order of address.
    pub findings: Vec<FindingJson>,
    /// Whether every path within the fuel and depth was explored.
    pub complete: bool,
    pub incomplete: Vec<Reason>,
    pub stats: SearchStats,
    /// With `--report-fuel` only: the paths whose runs do not end within the fuel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_of_fuel: Option<Vec<FuelPath>>,
}

impl CheckReport {
    pub fn new(
        program: &tamarin_mips::Program,
        report: &tamarin::CheckReport,
        report_fuel: bool,
    ) -> CheckReport {
        CheckReport {
            schema: SCHEMA_VERSION,
            findings: report
                .findings
                .iter()
                .map(|f| FindingJson {
                    kind: f.kind.name(),
                    pc: signed(f.pc),
                    line: program.line_of(f.pc),
                    message: f.message.clone(),
                    inputs: Inputs::new(&f.values),
                })
                .collect(),
            complete: report.incomplete().is_empty(),
            incomplete: Reason::list(report.incomplete(), Searcher::Check),
            stats: SearchStats::new(&report.exploration.stats),
            out_of_fuel: report_fuel.then(|| {
                report
                    .out_of_fuel
                    .iter()
                    .map(|p| FuelPath {
                        inputs: Inputs::new(&p.values),
                    })
                    .collect()
            }),
        }
    }
}

/// An operation that fails on some input.
#[derive(Debug, Serialize)]
pub struct FindingJson {
    pub kind: &'static str,
    pub pc: i32,
    /// The source line of an assembled program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
    pub inputs: Inputs,
}

/// A path whose runs do not end within the fuel.
#[derive(Debug, Serialize)]
pub struct FuelPath {
    pub inputs: Inputs,
}

/// `paths --format json`.
#[derive(Debug, Serialize)]
pub struct PathsReport {
    pub schema: u32,
    pub paths: Vec<PathJson>,
    /// Whether every path within the fuel and depth is listed.
    pub complete: bool,
    pub incomplete: Vec<Reason>,
    pub stats: SearchStats,
}

impl PathsReport {
    pub fn new(e: &Exploration) -> PathsReport {
        PathsReport {
            schema: SCHEMA_VERSION,
            paths: e
                .paths
                .iter()
                .map(|p| PathJson {
                    result: PathResult::new(p),
                    inputs: Inputs::new(&p.values),
                    conditions: p.conditions.clone(),
                    partial: p.partial,
                })
                .collect(),
            complete: e.incomplete.is_empty(),
            incomplete: Reason::list(&e.incomplete, Searcher::Paths),
            stats: SearchStats::new(&e.stats),
        }
    }
}

/// One path: how its run ended, its inputs and its conditions.
#[derive(Debug, Serialize)]
pub struct PathJson {
    #[serde(flatten)]
    pub result: PathResult,
    pub inputs: Inputs,
    pub conditions: Vec<String>,
    /// Present (and true) only when the run was too long to trace to its end: the
    /// conditions are a prefix.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// How a path's run ended: its status, then `$3` when it ended normally or the fault
/// when it failed.
#[derive(Debug, Serialize)]
pub struct PathResult {
    pub status: &'static str,
    #[serde(rename = "$3", skip_serializing_if = "Option::is_none")]
    pub result: Option<i32>,
    #[serde(flatten)]
    pub fault: Option<FaultJson>,
}

impl PathResult {
    pub fn new(p: &PathReport) -> PathResult {
        let status = p.outcome.status;
        PathResult {
            status: status.name(),
            result: (status == Status::Done).then(|| signed(p.outcome.regs.result())),
            fault: FaultJson::of(status),
        }
    }
}

/// One `case-NNN.json` of `paths --emit-tests` (written pretty-printed): the `tamarin
/// run` command line that replays the path, its inputs, the expected result and the
/// conditions.
#[derive(Debug, Serialize)]
pub struct TestCase {
    pub command: String,
    pub inputs: Inputs,
    pub expected: PathResult,
    pub conditions: Vec<String>,
}

// ---------------------------------------------------------------- run

/// `run --format json`: the layout version, then the outcome.
#[derive(Debug, Serialize)]
pub struct RunReport<'a> {
    pub schema: u32,
    #[serde(flatten)]
    pub outcome: RunOutcome<'a>,
    /// Why the run probably failed, when the tool can tell (it ran past the end of the
    /// program).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The words asked for with `--show-mem`, at the end of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryJson>,
}

impl<'a> RunReport<'a> {
    pub fn new(outcome: &'a Outcome) -> RunReport<'a> {
        RunReport {
            schema: SCHEMA_VERSION,
            outcome: RunOutcome::new(outcome),
            hint: None,
            memory: None,
        }
    }
}

/// Memory words from `from` to `to` (addresses, both included) as signed 32-bit
/// values.
#[derive(Debug, Serialize)]
pub struct MemoryJson {
    pub from: u32,
    pub to: u32,
    pub words: Vec<i32>,
}

impl MemoryJson {
    pub fn new(from: u32, words: &[u32]) -> MemoryJson {
        MemoryJson {
            from,
            to: from + 4 * (words.len().max(1) as u32 - 1),
            words: words.iter().map(|&w| signed(w)).collect(),
        }
    }
}

/// The outcome of one run: status, steps, every register, the output as text, and the
/// fault when it failed.
#[derive(Debug, Serialize)]
pub struct RunOutcome<'a> {
    pub status: &'static str,
    pub steps: u64,
    pub registers: RegistersJson<'a>,
    pub output: String,
    #[serde(flatten)]
    pub fault: Option<FaultJson>,
}

impl<'a> RunOutcome<'a> {
    pub fn new(outcome: &'a Outcome) -> RunOutcome<'a> {
        RunOutcome {
            status: outcome.status.name(),
            steps: outcome.steps,
            registers: RegistersJson(&outcome.regs),
            output: String::from_utf8_lossy(&outcome.output).into_owned(),
            fault: FaultJson::of(outcome.status),
        }
    }
}

/// The registers as a JSON object `{"$1": n, …, "$31": n, "hi": n, "lo": n}` of signed
/// 32-bit values, in that order.
#[derive(Debug)]
pub struct RegistersJson<'a>(pub &'a Registers);

impl Serialize for RegistersJson<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut map = ser.serialize_map(Some(33))?;
        for r in 1..32 {
            map.serialize_entry(&format!("${r}"), &signed(self.0.gpr[r]))?;
        }
        map.serialize_entry("hi", &signed(self.0.hi))?;
        map.serialize_entry("lo", &signed(self.0.lo))?;
        map.end()
    }
}

// ---------------------------------------------------------------- errors

/// The error object printed with `--format json` when a command fails (exit status 2).
#[derive(Debug, Serialize)]
pub struct ErrorReport {
    pub schema: u32,
    pub error: ErrorJson,
}

/// What went wrong: a stable `kind` (`usage`, `syntax`, `read`, `input`, `setup`,
/// `write`, `solver`), the message, and the file and place where they are known.
#[derive(Debug, Serialize)]
pub struct ErrorJson {
    pub kind: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// Every error of an assembly file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<AsmErrorJson>>,
}

impl ErrorReport {
    pub fn new(error: ErrorJson) -> ErrorReport {
        ErrorReport {
            schema: SCHEMA_VERSION,
            error,
        }
    }

    /// A usage error (as clap reports them): a kind and a message only.
    pub fn usage(message: &str) -> ErrorReport {
        ErrorReport::new(ErrorJson {
            kind: "usage",
            message: message.to_string(),
            file: None,
            line: None,
            column: None,
            errors: None,
        })
    }
}

/// One assembler error.
#[derive(Debug, Serialize)]
pub struct AsmErrorJson {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: &impl Serialize) -> String {
        serde_json::to_string(v).expect("serializes")
    }

    #[test]
    fn inputs_are_registers_or_the_array_then_stdin() {
        let registers = InputValues {
            registers: vec![("$1".into(), u32::MAX), ("$2".into(), 2)],
            array: None,
            stdin: Vec::new(),
        };
        assert_eq!(text(&Inputs::new(&registers)), r#"{"$1":-1,"$2":2}"#);
        let array = InputValues {
            registers: Vec::new(),
            array: Some(vec![0x8000_0000, 7]),
            stdin: b"A".to_vec(),
        };
        assert_eq!(
            text(&Inputs::new(&array)),
            r#"{"array":[-2147483648,7],"stdin":[65]}"#
        );
    }

    #[test]
    fn a_name_given_twice_keeps_its_first_place() {
        let e: Entries<i32> = [("a", 1), ("b", 2), ("a", 3)]
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        assert_eq!(text(&e), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn optional_fields_are_left_out_and_the_rest_keep_their_order() {
        let mut error = ErrorReport::usage("bad");
        assert_eq!(
            text(&error),
            r#"{"schema":1,"error":{"kind":"usage","message":"bad"}}"#
        );
        error.error.file = Some("p.asm".into());
        error.error.line = Some(2);
        error.error.column = Some(3);
        error.error.errors = Some(vec![AsmErrorJson {
            line: 2,
            column: 3,
            message: "bad".into(),
        }]);
        assert_eq!(
            text(&error),
            r#"{"schema":1,"error":{"kind":"usage","message":"bad","file":"p.asm","line":2,"column":3,"errors":[{"line":2,"column":3,"message":"bad"}]}}"#
        );
        let failed = PathResult {
            status: "error",
            result: None,
            fault: Some(FaultJson {
                error: "division by zero at pc 0x00000000".into(),
                error_kind: "division-by-zero",
                pc: 0,
            }),
        };
        assert_eq!(
            text(&failed),
            r#"{"status":"error","error":"division by zero at pc 0x00000000","error_kind":"division-by-zero","pc":0}"#
        );
        let done = PathResult {
            status: "done",
            result: Some(-5),
            fault: None,
        };
        assert_eq!(text(&done), r#"{"status":"done","$3":-5}"#);
    }
}

/// The task's rules, as every report states them: what a verdict is about, and every
/// setting it was given under, so that `explain --from` the report replays it as the
/// comparison did.
#[derive(Debug, Default, Serialize)]
pub struct TaskModel {
    /// Steps per run: the fuel every comparison used (sized, under `fuel = "auto"`).
    pub fuel: u64,
    /// Under `fuel = "auto"`: how the fuel was sized from the reference's runs (the
    /// factor, the floor, the reference's most steps, the inputs run, the input of the
    /// most steps, and what went wrong). Absent for a fuel given as a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fuel_auto: Option<crate::fuel::Sizing>,
    /// `same` or `different`.
    pub out_of_fuel: &'static str,
    /// The preconditions, as written.
    pub assume: Vec<String>,
    /// The domain program: an input is in the domain when it ends with `$3 = 1` within
    /// `assume_fuel` steps. Absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assume_program: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assume_fuel: Option<u64>,
    /// What is compared when both runs end.
    pub observe: Vec<String>,
    /// `concolic`, `bmc` or `auto`.
    pub engine: &'static str,
    /// `twoints` or `array`.
    pub frontend: &'static str,
    /// The input registers (twoints only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<String>>,
    /// The longest array (array only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_len: Option<u32>,
    /// Where the array is placed, when the task says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array_base: Option<u32>,
    pub stdin_len: usize,
    /// The address whose jump ends a run.
    pub termination: u32,
    pub depth: usize,
    /// Seconds per comparison; 0 means none.
    pub timeout: u64,
    pub max_runs: u64,
    /// `z3`, or the solver's command.
    pub solver: String,
    /// Milliseconds per solver query.
    pub solver_timeout: u64,
    /// Z3's resource limit for a query's first try; 0 means none.
    pub solver_rlimit: u32,
    /// The solver work (Z3's resource units) of a whole comparison; 0 means none.
    pub solver_work: u64,
    /// Whether verdicts are decided by counts alone (solver resource units, runs,
    /// paths, steps), the time limit only a safety net: then the same task gives the
    /// same verdict on any load, except where a reason says `cut_by_wall_clock`.
    pub deterministic: bool,
    pub portfolio: Vec<String>,
    /// Whether proofs hold for runs of any length (`--unbounded`): an `equivalent`
    /// then means both run forever or both end alike, whatever the fuel.
    pub unbounded: bool,
    /// Notes about the task seen on the reference alone (such as standard output that
    /// it writes but the task does not compare). Absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<crate::json::NoteJson>,
}

impl TaskModel {
    pub fn of(opts: &tamarin::Options) -> TaskModel {
        let (frontend, inputs, max_len, array_base) = match &opts.inputs {
            tamarin::InputSpec::Registers(regs) => (
                "twoints",
                Some(regs.iter().map(|r| r.to_string()).collect()),
                None,
                None,
            ),
            tamarin::InputSpec::Array { max_len, base } => ("array", None, Some(*max_len), *base),
        };
        TaskModel {
            fuel: opts.fuel,
            fuel_auto: None,
            out_of_fuel: opts.out_of_fuel.name(),
            assume: opts.assume.iter().map(|p| p.text().to_string()).collect(),
            assume_program: opts.assume_program.as_ref().map(|p| p.name().to_string()),
            assume_fuel: opts.assume_program.as_ref().map(|p| p.fuel()),
            observe: opts.observe.iter().map(|o| o.to_string()).collect(),
            engine: opts.engine.name(),
            frontend,
            inputs,
            max_len,
            array_base,
            stdin_len: opts.stdin_len,
            termination: opts.termination,
            depth: opts.depth,
            timeout: opts.timeout.map_or(0, |t| t.as_secs()),
            max_runs: opts.max_runs,
            solver: opts
                .solver
                .external
                .clone()
                .unwrap_or_else(|| "z3".to_string()),
            solver_timeout: opts.solver.timeout.as_millis() as u64,
            solver_rlimit: opts.solver.resource_limit.unwrap_or(0),
            solver_work: opts.solver_work().unwrap_or(0),
            deterministic: opts.deterministic,
            portfolio: opts.solver.portfolio.clone(),
            unbounded: opts.unbounded,
            notes: Vec::new(),
        }
    }

    /// The task's rules with the notes about `reference` (see [`tamarin::task_notes`]).
    pub fn with_notes(opts: &tamarin::Options, reference: &tamarin_mips::Program) -> TaskModel {
        let mut task = TaskModel::of(opts);
        task.notes = tamarin::task_notes(&[reference], opts)
            .iter()
            .map(|n| {
                let mut json = NoteJson::new(n);
                json.message = json.message.replacen("the program", "the reference", 1);
                json
            })
            .collect();
        task
    }
}
