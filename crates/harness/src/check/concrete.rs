//! Concrete runs: both programs on reusable machines, checks (b) and (e) against the
//! engines' verdicts, and outcomes in words.

use tamarin::{observe, InputLayout, Observable, Observed};
use tamarin::{results_differ, Engine};
use tamarin_mips::cpu::{Config, Machine, NoTrace, Outcome, Status};
use tamarin_mips::Program;

use super::findings::{EngineRun, Finding, FindingKind, Kind};
use super::inputs::pair_inputs;
use super::CheckConfig;
use crate::pair::Pair;
use crate::rng::mix;

/// An outcome in a few words.
pub fn show(o: &Outcome) -> String {
    match o.status {
        Status::Done => format!(
            "done with $3 = {} ({:#x})",
            o.regs.result() as i32,
            o.regs.result()
        ),
        Status::OutOfFuel => format!("out of fuel after {} steps", o.steps),
        Status::Error(f) => format!("error {} at pc {:#x}", f.kind, f.pc),
        Status::Stopped => format!("stopped from outside after {} steps", o.steps),
    }
}

/// An outcome and, when it wrote any, its output bytes.
pub fn show_observed(o: &Outcome, obs: &[Observed]) -> String {
    let out = obs.iter().find_map(|x| match x {
        Observed::Bytes(b) => Some(b),
        _ => None,
    });
    match out {
        Some(b) => format!("{}, output {:?}", show(o), b),
        None => show(o),
    }
}

/// Both programs on reusable machines.
struct Runner {
    left: Machine,
    right: Machine,
    layout: InputLayout,
    observe: Vec<Observable>,
    saw_out_of_fuel: bool,
    saw_fault: bool,
    runs: u64,
}

/// One run's outcome and what it observed.
type Observation = (Outcome, Vec<Observed>);

impl Runner {
    fn new(
        left: &Program,
        right: &Program,
        fuel: u64,
        layout: InputLayout,
        observe: Vec<Observable>,
    ) -> Runner {
        let config = Config::with_fuel(fuel);
        Runner {
            left: Machine::new(left, config),
            right: Machine::new(right, config),
            layout,
            observe,
            saw_out_of_fuel: false,
            saw_fault: false,
            runs: 0,
        }
    }

    /// One run on `values`, as `run_observed` does it but on a reused machine; `None`
    /// if the inputs cannot be set up (an array that does not fit).
    fn one(
        m: &mut Machine,
        layout: &InputLayout,
        observe_what: &[Observable],
        values: &[u32],
    ) -> Option<Observation> {
        m.reset();
        let (frontend, _) = layout.run_inputs(values);
        m.apply(&frontend).ok()?;
        layout.set_registers(m, values);
        let o = m.run_to_outcome(&mut NoTrace);
        let obs = observe_what.iter().map(|w| observe(m, &o, w)).collect();
        Some((o, obs))
    }

    /// Runs both; the outcomes if they differ.
    fn differs(&mut self, values: &[u32]) -> Option<(Observation, Observation)> {
        self.runs += 1;
        let l = Self::one(&mut self.left, &self.layout, &self.observe, values)?;
        let r = Self::one(&mut self.right, &self.layout, &self.observe, values)?;
        for o in [&l.0, &r.0] {
            match o.status {
                Status::OutOfFuel => self.saw_out_of_fuel = true,
                Status::Error(_) => self.saw_fault = true,
                Status::Done | Status::Stopped => {}
            }
        }
        results_differ(tamarin::FuelPolicy::Same, &l.0, &l.1, &r.0, &r.1).then_some((l, r))
    }
}

/// What the concrete runs of a pair saw.
pub(super) struct Probe {
    /// A concrete difference under some engine's possibly-equivalent verdict.
    pub(super) missed: Option<Vec<u32>>,
    pub(super) runs: u64,
    pub(super) saw_out_of_fuel: bool,
    pub(super) saw_fault: bool,
}

/// Checks (b) and (e) on the engines' verdicts `runs` (each marked `missed` where a
/// concrete input differs under its possibly-equivalent verdict), and a probe of the
/// behaviours for every pair: many inputs when some verdict is not disequivalent, a
/// few otherwise.
pub(super) fn concrete_checks(
    pair: &Pair,
    lp: &Program,
    rp: &Program,
    cfg: &CheckConfig,
    layout: InputLayout,
    runs: &mut [EngineRun],
    findings: &mut Vec<Finding>,
) -> Probe {
    let mut runner = Runner::new(lp, rp, cfg.fuel, layout, pair.observe.clone());
    let equivalent: Vec<Engine> = runs
        .iter()
        .filter(|r| r.says(Kind::Equivalent))
        .map(|r| r.engine)
        .collect();
    let wants_inputs = runs
        .iter()
        .any(|r| r.says(Kind::Equivalent) || r.says(Kind::PossiblyEquivalent));
    let mut extra: Vec<Vec<u32>> = Vec::new();
    for v in runs
        .iter()
        .flat_map(EngineRun::directions)
        .filter_map(|d| d.inputs.as_ref())
    {
        if !extra.contains(v) {
            extra.push(v.clone());
        }
    }
    let n = if wants_inputs {
        cfg.inputs
    } else {
        64.min(cfg.inputs)
    };
    let seed = mix(pair.seed ^ mix(pair.index));
    let mut missed = None;
    for values in pair_inputs(pair, lp, rp, n, seed, &extra) {
        if let Some((l, r)) = runner.differs(&values) {
            if !wants_inputs {
                continue;
            }
            for &engine in &equivalent {
                findings.push(Finding {
                    kind: FindingKind::EquivalentButDiffers,
                    engine,
                    detail: format!(
                        "{} says equivalent, but on this input left {} and right {}",
                        engine.name(),
                        show_observed(&l.0, &l.1),
                        show_observed(&r.0, &r.1)
                    ),
                    inputs: Some(values.clone()),
                });
            }
            for run in runs.iter_mut() {
                if run.says(Kind::PossiblyEquivalent) && !run.says(Kind::Equivalent) {
                    run.missed = true;
                    missed = Some(values.clone());
                }
            }
            break;
        }
    }
    Probe {
        missed,
        runs: runner.runs,
        saw_out_of_fuel: runner.saw_out_of_fuel,
        saw_fault: runner.saw_fault,
    }
}

#[cfg(test)]
mod tests {

    use super::super::fixtures::{direction, over_code_pair, over_data_pair, run, small_config};
    use super::*;
    use crate::generate::Shape;
    use crate::pair::Placement;

    /// The concrete checks of `pair` against a planted verdict of `kind` by concolic.
    fn planted(pair: &Pair, kind: Kind) -> (Vec<Finding>, Probe) {
        let (lp, rp) = (
            pair.left.assemble().unwrap(),
            pair.right.assemble().unwrap(),
        );
        let layout = InputLayout::new(&pair.inputs, 0);
        let mut runs = vec![run(Engine::Concolic, direction(kind, false), None)];
        let mut findings = Vec::new();
        let cfg = small_config(vec![Engine::Concolic]);
        let probe = concrete_checks(pair, &lp, &rp, &cfg, layout, &mut runs, &mut findings);
        (findings, probe)
    }

    #[test]
    fn a_false_proof_through_the_data_past_the_array_is_caught() {
        let (findings, _) = planted(&over_data_pair(true), Kind::Equivalent);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].kind, FindingKind::EquivalentButDiffers);
        // The difference is on an empty array: only the data past it tells them apart.
        assert_eq!(findings[0].inputs.as_ref().map(|v| v[0]), Some(0));
        // Without the planted difference the same verdict stands.
        let (findings, probe) = planted(&over_data_pair(false), Kind::Equivalent);
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(probe.runs, 500);
        // A possibly-equivalent verdict there is a missed difference.
        let (findings, probe) = planted(&over_data_pair(true), Kind::PossiblyEquivalent);
        assert!(findings.is_empty());
        assert_eq!(probe.missed.map(|v| v[0]), Some(0));
    }

    #[test]
    fn a_false_proof_through_array_words_run_as_code_is_caught() {
        let (findings, _) = planted(&over_code_pair(), Kind::Equivalent);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].kind, FindingKind::EquivalentButDiffers);
        let v = findings[0].inputs.clone().unwrap();
        assert!(v[0] >= 1, "{v:?}");
        // Placed after the images, the same programs are equal.
        let mut after = over_code_pair();
        after.inputs = Shape::Array.input_spec();
        after.placement = Some(Placement::AfterImage);
        let (findings, _) = planted(&after, Kind::Equivalent);
        assert!(findings.is_empty(), "{findings:?}");
    }
}
