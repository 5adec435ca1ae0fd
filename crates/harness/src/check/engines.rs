//! Running the engines: one `compare` with its counterexample replayed (check (a)),
//! the checks on one engine's verdicts both ways round ((c) and (d)), and the
//! contradictions between engines (check (f)).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use tamarin::compare;
use tamarin::InputLayout;
use tamarin::{results_differ, run_observed, Engine, Incomplete, Verdict};
use tamarin::{Options, Quiet};
use tamarin_mips::cpu::{Config, Status, Stop};
use tamarin_mips::Program;

use super::concrete::{show, show_observed};
use super::findings::{Direction, EngineRun, Finding, FindingKind, Kind};
use crate::pair::PairKind;

/// A reason's variant name in kebab case (`DepthCut` → `depth-cut`), taken from its
/// `Debug` form so that reasons the engine adds later are counted too.
fn incomplete_name(i: &Incomplete) -> String {
    if let Incomplete::Encoding { what } = i {
        return format!("encoding ({})", what.describe());
    }
    let debug = format!("{i:?}");
    let head = debug.split([' ', '{', '(']).next().unwrap_or("");
    let mut name = String::new();
    for (n, c) in head.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if n > 0 {
                name.push('-');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    name
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".into()
    }
}

/// One `compare` by the engine of `opts`, with its counterexample checked by replay
/// (check (a)), each replayed run stopped after `replay_limit` if there is one (a run
/// stopped there is a counterexample that does not replay: its runs ended within the
/// comparison's time limit).
pub(super) fn run_compare(
    left: &Program,
    right: &Program,
    opts: &Options,
    layout: &InputLayout,
    what: &str,
    replay_limit: Option<Duration>,
    findings: &mut Vec<Finding>,
) -> Direction {
    let engine = opts.engine;
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| compare(left, right, opts, &mut Quiet)));
    let time = start.elapsed();
    let over_limit = opts
        .timeout
        .is_some_and(|t| time > t + opts.solver.timeout + Duration::from_millis(250));
    // A task the engine refuses is the harness's own mistake (it builds only tasks that
    // can be carried out), counted with the crashes: no verdict came back.
    let failed = match result {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(("refused its task", e.to_string())),
        Err(p) => Err(("panicked", panic_message(&*p))),
    };
    let report = match failed {
        Ok(r) => r,
        Err((how, msg)) => {
            findings.push(Finding {
                kind: FindingKind::Crash,
                engine,
                detail: format!("compare {what} {how}: {msg}"),
                inputs: None,
            });
            return Direction {
                kind: Kind::Crash,
                inputs: None,
                replayed: false,
                proof: None,
                incomplete: Vec::new(),
                detail: msg,
                runs: 0,
                time,
                over_limit,
            };
        }
    };
    let runs = report.stats.runs;
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            let vals: Vec<u32> = cx.inputs.iter().map(|(_, v)| *v).collect();
            let config = |limit: Option<Duration>| {
                let mut c = Config::with_fuel(opts.fuel);
                c.stop = Stop::at(limit.map(|d| Instant::now() + d));
                c
            };
            let l = run_observed(left, config(replay_limit), layout, &vals, &opts.observe);
            let r = run_observed(right, config(replay_limit), layout, &vals, &opts.observe);
            let mut replayed = false;
            match (l, r) {
                (Some((l, lobs)), Some((r, robs))) => {
                    replayed = results_differ(tamarin::FuelPolicy::Same, &l, &lobs, &r, &robs);
                    if [l.status, r.status].contains(&Status::Stopped) {
                        findings.push(Finding {
                            kind: FindingKind::CounterexampleDoesNotReplay,
                            engine,
                            detail: format!(
                                "{what}: disequivalent, but a replayed run did not end within {:.0} s: left {}, right {}",
                                replay_limit.unwrap_or_default().as_secs_f64(),
                                show_observed(&l, &lobs),
                                show_observed(&r, &robs)
                            ),
                            inputs: Some(vals.clone()),
                        });
                    } else if !replayed {
                        findings.push(Finding {
                            kind: FindingKind::CounterexampleDoesNotReplay,
                            engine,
                            detail: format!(
                                "{what}: disequivalent, but the counterexample shows no difference: left {}, right {}",
                                show_observed(&l, &lobs),
                                show_observed(&r, &robs)
                            ),
                            inputs: Some(vals.clone()),
                        });
                    } else if vals.len() != layout.vars().len()
                        || l.status != cx.left.status
                        || r.status != cx.right.status
                        || cx.observed.len() != opts.observe.len()
                        || cx
                            .observed
                            .iter()
                            .zip(lobs.iter().zip(&robs))
                            .any(|((_, cl, cr), (l, r))| cl != l || cr != r)
                    {
                        findings.push(Finding {
                            kind: FindingKind::CounterexampleMisreported,
                            engine,
                            detail: format!(
                                "{what}: counterexample {:?} reports left {}, right {} ({:?}); replayed left {}, right {}",
                                cx.inputs,
                                show(&cx.left),
                                show(&cx.right),
                                cx.observed,
                                show_observed(&l, &lobs),
                                show_observed(&r, &robs)
                            ),
                            inputs: Some(vals.clone()),
                        });
                    }
                }
                _ => findings.push(Finding {
                    kind: FindingKind::CounterexampleDoesNotReplay,
                    engine,
                    detail: format!(
                        "{what}: disequivalent, but the counterexample's inputs cannot be set up: {:?}",
                        cx.inputs
                    ),
                    inputs: Some(vals.clone()),
                }),
            }
            Direction {
                kind: Kind::Disequivalent,
                inputs: Some(vals),
                replayed,
                proof: None,
                incomplete: Vec::new(),
                detail: String::new(),
                runs,
                time,
                over_limit,
            }
        }
        Verdict::Equivalent(p) => Direction {
            kind: Kind::Equivalent,
            inputs: None,
            replayed: false,
            proof: Some(p.engine),
            incomplete: Vec::new(),
            detail: String::new(),
            runs,
            time,
            over_limit,
        },
        Verdict::PossiblyEquivalent(why) => Direction {
            kind: Kind::PossiblyEquivalent,
            inputs: None,
            replayed: false,
            proof: None,
            incomplete: why.iter().map(incomplete_name).collect(),
            detail: why
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
                .join("; "),
            runs,
            time,
            over_limit,
        },
    }
}

/// Checks (c) and (d) on one engine's verdicts.
pub(super) fn one_engine_checks(
    pair_kind: PairKind,
    engine: Engine,
    forward: Direction,
    backward: Option<Direction>,
    findings: &mut Vec<Finding>,
) -> EngineRun {
    // (c)
    if pair_kind == PairKind::Identical && forward.kind == Kind::Disequivalent {
        findings.push(Finding {
            kind: FindingKind::SelfDisequivalent,
            engine,
            detail: "a program compared with itself is disequivalent".into(),
            inputs: forward.inputs.clone(),
        });
    }
    // (d)
    let mut warnings = Vec::new();
    let mut asymmetric_incomplete = None;
    if let Some(b) = &backward {
        let (fd, bd) = (
            forward.kind == Kind::Disequivalent,
            b.kind == Kind::Disequivalent,
        );
        let other = if fd { b } else { &forward };
        if fd != bd && other.kind == Kind::PossiblyEquivalent {
            asymmetric_incomplete = Some(format!(
                "left-right says {}, right-left says {}: {}",
                forward.kind, b.kind, other.detail
            ));
        } else if fd != bd && other.kind == Kind::Equivalent {
            findings.push(Finding {
                kind: FindingKind::AsymmetricVerdict,
                engine,
                detail: format!(
                    "left-right says {}, right-left says {}",
                    forward.kind, b.kind
                ),
                inputs: forward.inputs.clone().or_else(|| b.inputs.clone()),
            });
        } else if forward.kind != b.kind && !fd && !bd {
            warnings.push(format!(
                "left-right says {}, right-left says {}",
                forward.kind, b.kind
            ));
        }
    }
    EngineRun {
        engine,
        forward,
        backward,
        warnings,
        asymmetric_incomplete,
        missed: false,
    }
}

/// Check (f): an engine that says equivalent (either way round) while another engine
/// has a counterexample that replays is wrong; one finding per such pair of engines,
/// against the engine that said equivalent.
pub fn contradictions(runs: &[EngineRun]) -> Vec<Finding> {
    let mut out = Vec::new();
    for a in runs {
        let Some((eq_way, _)) = a.named().find(|(_, d)| d.kind == Kind::Equivalent) else {
            continue;
        };
        for b in runs.iter().filter(|b| b.engine != a.engine) {
            if let Some((cx_way, d)) = b
                .named()
                .find(|(_, d)| d.kind == Kind::Disequivalent && d.replayed)
            {
                out.push(Finding {
                    kind: FindingKind::EnginesContradict,
                    engine: a.engine,
                    detail: format!(
                        "{} says equivalent ({eq_way}), but {} has a counterexample that replays ({cx_way})",
                        a.engine.name(),
                        b.engine.name()
                    ),
                    inputs: d.inputs.clone(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{direction, run};
    use super::*;

    #[test]
    fn an_equivalent_verdict_against_a_replayed_counterexample_is_a_finding() {
        let concolic = run(
            Engine::Concolic,
            direction(Kind::Disequivalent, true),
            Some(direction(Kind::PossiblyEquivalent, false)),
        );
        let bmc = run(
            Engine::Bmc,
            direction(Kind::PossiblyEquivalent, false),
            Some(direction(Kind::Equivalent, false)),
        );
        let found = contradictions(&[concolic.clone(), bmc.clone()]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, FindingKind::EnginesContradict);
        assert_eq!(found[0].engine, Engine::Bmc);
        assert_eq!(found[0].inputs, Some(vec![7, 9]));
        // Either order of the engines.
        assert_eq!(contradictions(&[bmc, concolic]).len(), 1);
    }

    #[test]
    fn answers_that_do_not_contradict_are_no_finding() {
        // A counterexample that did not replay is a finding of its own engine (check
        // (a)), not a contradiction.
        let unreplayed = run(
            Engine::Concolic,
            direction(Kind::Disequivalent, false),
            None,
        );
        let eq = run(Engine::Bmc, direction(Kind::Equivalent, false), None);
        assert!(contradictions(&[unreplayed, eq.clone()]).is_empty());
        // Equivalent against possibly-equivalent, and agreement.
        let possibly = run(
            Engine::Concolic,
            direction(Kind::PossiblyEquivalent, false),
            None,
        );
        assert!(contradictions(&[possibly, eq.clone()]).is_empty());
        let auto = run(Engine::Auto, direction(Kind::Equivalent, false), None);
        assert!(contradictions(&[eq, auto]).is_empty());
        // Disequivalent both.
        let a = run(Engine::Concolic, direction(Kind::Disequivalent, true), None);
        let b = run(Engine::Bmc, direction(Kind::Disequivalent, true), None);
        assert!(contradictions(&[a, b]).is_empty());
    }

    #[test]
    fn pair_verdicts() {
        let r = run(
            Engine::Bmc,
            direction(Kind::PossiblyEquivalent, false),
            Some(direction(Kind::Equivalent, false)),
        );
        assert_eq!(r.pair_verdict(), Kind::Equivalent);
        assert_eq!(r.warnings.len(), 1);
        let r = run(
            Engine::Bmc,
            direction(Kind::Disequivalent, true),
            Some(direction(Kind::PossiblyEquivalent, false)),
        );
        assert_eq!(r.pair_verdict(), Kind::Disequivalent);
        assert!(r.asymmetric_incomplete.is_some());
        let mut findings = Vec::new();
        let r = one_engine_checks(
            PairKind::Mutant,
            Engine::Bmc,
            direction(Kind::Disequivalent, true),
            Some(direction(Kind::Equivalent, false)),
            &mut findings,
        );
        assert_eq!(r.pair_verdict(), Kind::Disequivalent);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].kind, FindingKind::AsymmetricVerdict);
        assert_eq!(findings[0].engine, Engine::Bmc);
    }
}
