//! What a comparison of a submission with the reference gives, as the store keeps it
//! and the reports show it.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tamarin::{Incomplete, Observed, Options, Quiet};
use tamarin_mips::{Outcome, Program, Status};

use crate::json::{CompareSide, FaultJson, ObservedJson, Reason};
use crate::text::{shown, status_line, Searcher};
use crate::Error;

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

impl Witness {
    /// The steps of the longer of its two runs (as the JSON reports give them).
    pub fn longest_run(&self) -> u64 {
        let steps = |side: &WitnessSide| side.json["steps"].as_u64().unwrap_or(0);
        steps(&self.reference).max(steps(&self.submission))
    }
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

/// Compares `program` with `reference` (`path` names `program` in errors): `None`
/// when the comparison was cut short by Ctrl-C (nothing to keep).
pub fn compare_one(
    reference: &Program,
    program: &Program,
    path: &Path,
    opts: &Options,
) -> Result<Option<Record>, Error> {
    Ok(compare_clocked(reference, program, path, opts)?.map(|(record, _)| record))
}

/// [`compare_one`], and whether the wall clock left the comparison undecided (its
/// time limit, or a query that the limit cut short; [`Incomplete::is_time_limit`]):
/// such a result might come out otherwise on another load.
pub fn compare_clocked(
    reference: &Program,
    program: &Program,
    path: &Path,
    opts: &Options,
) -> Result<Option<(Record, bool)>, Error> {
    let start = Instant::now();
    let result = tamarin::compare(reference, program, opts, &mut Quiet);
    let seconds = start.elapsed().as_secs_f64();
    let report = match result {
        Ok(report) => report,
        Err(tamarin::Error::Setup(e)) => {
            return Ok(Some((
                Record {
                    verdict: Verdict::DoesNotAssemble,
                    witness: None,
                    reasons: Vec::new(),
                    seconds,
                    message: Some(format!(
                        "{}: cannot place the input array after it: {e}",
                        path.display()
                    )),
                    diagnostic: None,
                },
                false,
            )))
        }
        Err(error) => {
            return Err(Error::Engine {
                error,
                program: path.to_path_buf(),
            })
        }
    };
    let clocked = matches!(&report.verdict,
        tamarin::Verdict::PossiblyEquivalent(reasons) if reasons.iter().any(Incomplete::is_time_limit));
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
            if opts.interrupted() || reasons.contains(&Incomplete::Interrupted) {
                return Ok(None);
            }
            Record {
                verdict: Verdict::PossiblyEquivalent,
                witness: None,
                reasons: reasons
                    .iter()
                    .map(|r| {
                        serde_json::to_value(Reason::new(r, Searcher::Compare(opts.engine)))
                            .unwrap_or(serde_json::Value::Null)
                    })
                    .collect(),
                seconds,
                message: None,
                diagnostic: None,
            }
        }
    };
    Ok(Some((record, clocked)))
}

/// One side of a counterexample (`pick` 0 the left, 1 the right).
pub fn witness_side(
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

/// A reason of a stored record, in words.
pub fn stored_reason_text(reason: &serde_json::Value) -> String {
    let message = reason["message"].as_str().unwrap_or("").to_string();
    match reason["advice"].as_str() {
        Some(a) => format!("{message} ({a})"),
        None => message,
    }
}
