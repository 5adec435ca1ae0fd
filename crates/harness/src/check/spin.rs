//! Check (g): a comparison with a huge fuel and a short time limit on a share of the
//! loop pairs.

use std::time::Duration;

use tamarin::Engine;
use tamarin::InputLayout;
use tamarin::Options;
use tamarin_mips::Program;

use super::engines::run_compare;
use super::findings::{EngineRun, Finding, FindingKind, Kind, SpinCheck};
use crate::generate::Shape;
use crate::pair::Pair;

/// The fuel of check (g): far more steps than a run can take within its time limit.
pub const HUGE_FUEL: u64 = 10_000_000_000;
/// The time limit of check (g)'s comparison.
pub const HUGE_FUEL_TIMEOUT: Duration = Duration::from_secs(1);
/// Check (g)'s comparison taking longer than this ignores its time limit (generous,
/// so that a loaded machine does not fail the check).
pub const HUGE_FUEL_MAX_TIME: Duration = Duration::from_secs(10);
/// The longest a replay of check (g)'s counterexample may take: its runs ended within
/// the comparison's second, so this is generous too.
const HUGE_FUEL_REPLAY_LIMIT: Duration = Duration::from_secs(30);

/// Whether check (g) runs on `pair` (with
/// [`CheckConfig::spin_checks`](super::CheckConfig::spin_checks)): every other loop pair,
/// loops being the shape whose programs do not end for some inputs.
pub fn spins(pair: &Pair) -> bool {
    pair.shape == Shape::Loop && pair.index.is_multiple_of(4)
}

/// Check (g): auto compares left-right with [`HUGE_FUEL`] and a time limit of
/// [`HUGE_FUEL_TIMEOUT`]; it must end within [`HUGE_FUEL_MAX_TIME`], must not say
/// equivalent where an ordinary comparison's counterexample replays (both its runs
/// ended within the ordinary fuel, so they end the same way with any more), and its
/// own counterexample must replay (check (a), with the huge fuel).
pub(super) fn spin_check(
    left: &Program,
    right: &Program,
    opts: &Options,
    layout: &InputLayout,
    runs: &[EngineRun],
    findings: &mut Vec<Finding>,
) -> SpinCheck {
    let fuel = opts.fuel;
    let mut opts = opts.clone();
    opts.engine = Engine::Auto;
    opts.fuel = HUGE_FUEL;
    opts.timeout = Some(HUGE_FUEL_TIMEOUT);
    let what = format!("left-right with fuel {HUGE_FUEL}");
    let d = run_compare(
        left,
        right,
        &opts,
        layout,
        &what,
        Some(HUGE_FUEL_REPLAY_LIMIT),
        findings,
    );
    if d.time > HUGE_FUEL_MAX_TIME {
        findings.push(Finding {
            kind: FindingKind::TimeLimitIgnored,
            engine: Engine::Auto,
            detail: format!(
                "{what} and a time limit of {:.0} s took {:.1} s (said {})",
                HUGE_FUEL_TIMEOUT.as_secs_f64(),
                d.time.as_secs_f64(),
                d.kind
            ),
            inputs: None,
        });
    }
    if d.kind == Kind::Equivalent {
        let witness = runs.iter().find_map(|r| {
            r.named()
                .find(|(_, d)| d.kind == Kind::Disequivalent && d.replayed)
                .map(|(way, d)| (r.engine, way, d))
        });
        if let Some((engine, way, w)) = witness {
            findings.push(Finding {
                kind: FindingKind::MoreFuelEquivalent,
                engine: Engine::Auto,
                detail: format!(
                    "auto says equivalent {what}, but {} has a counterexample that replays with fuel {} ({way})",
                    engine.name(),
                    fuel
                ),
                inputs: w.inputs.clone(),
            });
        }
    }
    SpinCheck {
        kind: d.kind,
        time: d.time,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use tamarin::InputSpec;

    use super::super::fixtures::{direction, op, prog, run, small_config};
    use super::*;
    use crate::prog::{Line, Op, Word, R};

    #[test]
    fn a_proof_with_more_fuel_against_a_replayed_counterexample_is_a_finding() {
        // Both sides the same program: auto proves them equal with any fuel.
        let p = prog(vec![op(Op::Add(R(3), R(1), R(2))), op(Op::Jr(R(31)))]);
        let lp = p.assemble().unwrap();
        let mut opts = small_config(vec![Engine::Auto]).options();
        opts.inputs = InputSpec::default();
        let layout = InputLayout::new(&opts.inputs, 0);
        // An ordinary comparison that (wrongly, here) has a counterexample that replays.
        let runs = [run(
            Engine::Concolic,
            direction(Kind::Disequivalent, true),
            None,
        )];
        let mut findings = Vec::new();
        let c = spin_check(&lp, &lp, &opts, &layout, &runs, &mut findings);
        assert_eq!(c.kind, Kind::Equivalent);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].kind, FindingKind::MoreFuelEquivalent);
        assert_eq!(findings[0].inputs, Some(vec![7, 9]));
        // Without that counterexample, nothing.
        let runs = [run(
            Engine::Concolic,
            direction(Kind::PossiblyEquivalent, false),
            None,
        )];
        let mut findings = Vec::new();
        spin_check(&lp, &lp, &opts, &layout, &runs, &mut findings);
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn a_huge_fuel_comparison_of_spinning_programs_ends_at_its_time_limit() {
        // Spins when $1 is odd; the right side also when $2 is 7.
        let spin = |extra: bool| {
            let mut lines = vec![
                op(Op::Lis(R(4), Word::Num(2))),
                op(Op::Divu(R(1), R(4))),
                op(Op::Mfhi(R(5))),
                Line::Label("top".into()),
                op(Op::Bne(R(5), R(0), "top".into())),
            ];
            if extra {
                lines.push(op(Op::Lis(R(6), Word::Num(7))));
                lines.push(Line::Label("again".into()));
                lines.push(op(Op::Beq(R(2), R(6), "again".into())));
            }
            lines.push(op(Op::Add(R(3), R(2), R(0))));
            lines.push(op(Op::Jr(R(31))));
            prog(lines)
        };
        let (lp, rp) = (
            spin(false).assemble().unwrap(),
            spin(true).assemble().unwrap(),
        );
        let opts = small_config(vec![Engine::Auto]).options();
        let layout = InputLayout::new(&opts.inputs, 0);
        let mut findings = Vec::new();
        let start = Instant::now();
        let c = spin_check(&lp, &rp, &opts, &layout, &[], &mut findings);
        assert!(findings.is_empty(), "{findings:?}");
        assert!(
            start.elapsed() < HUGE_FUEL_MAX_TIME,
            "{:?}",
            start.elapsed()
        );
        assert_ne!(c.kind, Kind::Equivalent);
        assert_ne!(c.kind, Kind::Crash);
    }
}
