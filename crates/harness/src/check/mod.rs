//! Soundness checks of one pair, and a summary of many.
//!
//! For each pair and each engine of the settings (concolic, bmc, auto), `compare`
//! runs left-right and (unless the sides are the same program) right-left; then:
//! - (a) every `disequivalent` counterexample is replayed here, on fresh machines, and
//!   must show a difference under `outcomes_differ`, with the outcomes it reports;
//! - (b) every `equivalent` must agree with many concrete inputs (edge values in all
//!   pairs, the programs' own constants and their neighbours, uniform and small random
//!   values, and any counterexample another direction or engine found): a difference
//!   is an unsound verdict;
//! - (c) a program compared with itself is never disequivalent;
//! - (d) swapping the sides never changes disequivalent into equivalent (a failed
//!   check); disequivalent against possibly-equivalent is counted apart as an
//!   incomplete asymmetry (one search order found the difference, the other ran into
//!   a limit: not a wrong verdict), and equivalent against possibly-equivalent is a
//!   warning;
//! - (e) a `possibly-equivalent` pair gets the same inputs, and a difference found
//!   there is a missed difference: not unsound, a measure of completeness;
//! - (f) when several engines run, no engine says `equivalent` (either way round)
//!   where another has a counterexample that replays: the one that said equivalent
//!   is wrong;
//! - (g) on a share of the loop pairs ([`spins`]), one more left-right comparison by
//!   auto with a huge fuel ([`HUGE_FUEL`]) and a one-second time limit must end soon
//!   after its limit (however long the programs spin), must not say `equivalent`
//!   where a counterexample found with the ordinary fuel replays (runs that end within
//!   a small fuel end the same way with more), and its own counterexample must replay.
//!
//! Concrete runs use the same fuel as the comparison: a run out of fuel is never a
//! difference, exactly as in the verdict's rules. They are run once per pair, for
//! every engine's verdicts together. For an array over the programs' images
//! ([`Placement::OverData`], [`Placement::OverCode`]) the inputs also hold the words of
//! both images, so that array words equal to an instruction or to the data are tried.

mod concrete;
mod engines;
mod findings;
#[cfg(test)]
mod fixtures;
mod inputs;
mod reproduce;
mod spin;
mod summary;

use std::time::{Duration, Instant};

use tamarin::Engine;
use tamarin::Options;
use tamarin::{InputLayout, InputSpec, Observable};
use tamarin_mips::Program;

use crate::generate::Shape;
use crate::pair::{Pair, PairKind, Placement};

pub use concrete::{show, show_observed};
pub use engines::contradictions;
pub use findings::{Direction, EngineRun, Finding, FindingKind, Kind, SpinCheck};
pub use inputs::{array_inputs, concrete_inputs, edge_values, pair_inputs, Overlay, EDGE_INPUTS};
pub use reproduce::describe_inputs;
pub use spin::{spins, HUGE_FUEL, HUGE_FUEL_MAX_TIME, HUGE_FUEL_TIMEOUT};
pub use summary::{EngineSummary, Summary};

use concrete::concrete_checks;
use engines::{one_engine_checks, run_compare};
use spin::spin_check;

/// Every engine, in the order `all` runs them.
pub const ENGINES: [Engine; 3] = [Engine::Concolic, Engine::Bmc, Engine::Auto];

/// Parses `concolic`, `bmc`, `auto` or `all`, or several of them separated by commas,
/// into the engines to run (each once, in the order of [`ENGINES`]).
pub fn parse_engines(s: &str) -> Result<Vec<Engine>, String> {
    let mut chosen = Vec::new();
    for name in s.split(',').map(str::trim) {
        match name {
            "all" => chosen.extend(ENGINES),
            _ => match ENGINES.iter().find(|e| e.name() == name) {
                Some(&e) => chosen.push(e),
                None => {
                    return Err(format!(
                        "`{name}` is not an engine; expected concolic, bmc, auto or all"
                    ))
                }
            },
        }
    }
    Ok(ENGINES.into_iter().filter(|e| chosen.contains(e)).collect())
}

/// Settings of the checks.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// Steps per run, for `compare` and for the concrete runs alike.
    pub fuel: u64,
    /// Concrete inputs per equivalent or possibly-equivalent pair.
    pub inputs: usize,
    /// Time limit of each `compare` (`None`: none).
    pub compare_timeout: Option<Duration>,
    /// Time limit of each solver query (`None`: the engine's default).
    pub solver_timeout: Option<Duration>,
    /// Path conditions per query (`None`: the engine's default).
    pub depth: Option<usize>,
    /// Also compare right-left.
    pub symmetric: bool,
    /// The engines that compare each pair (each checked on its own, and against the
    /// others by check (f)); empty means auto alone.
    pub engines: Vec<Engine>,
    /// Check (g): one more comparison with a huge fuel on the pairs of [`spins`].
    pub spin_checks: bool,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            fuel: 2000,
            inputs: 100_000,
            compare_timeout: Some(Duration::from_secs(5)),
            solver_timeout: Some(Duration::from_secs(1)),
            depth: None,
            symmetric: true,
            engines: vec![Engine::Auto],
            spin_checks: true,
        }
    }
}

impl CheckConfig {
    /// The engines to run: those of the settings, or auto alone.
    pub fn engines(&self) -> Vec<Engine> {
        if self.engines.is_empty() {
            vec![Engine::Auto]
        } else {
            self.engines.clone()
        }
    }

    /// The engine's options for these settings (the engine itself is set per run).
    pub fn options(&self) -> Options {
        let mut o = Options::default();
        o.fuel = self.fuel;
        o.timeout = self.compare_timeout;
        if let Some(d) = self.depth {
            o.depth = d;
        }
        if let Some(t) = self.solver_timeout {
            o.solver.timeout = t;
        }
        o
    }
}

/// Everything checked about one pair.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub seed: u64,
    pub index: u64,
    pub shape: Shape,
    pub pair_kind: PairKind,
    /// Where the array lies (array pairs only).
    pub placement: Option<Placement>,
    /// Check (g), when it ran.
    pub spin: Option<SpinCheck>,
    /// The fuel of the comparisons and concrete runs (for the replay commands).
    pub fuel: u64,
    pub note: String,
    pub left_text: String,
    pub right_text: String,
    /// One per engine of the settings, in their order.
    pub runs: Vec<EngineRun>,
    /// Failed checks: any of these is a bug of the engine it names.
    pub findings: Vec<Finding>,
    /// A concrete difference under some engine's possibly-equivalent verdict (input
    /// values in the layout's order).
    pub missed: Option<Vec<u32>>,
    /// How the inputs entered the programs, and what was observed.
    pub spec: InputSpec,
    pub observe: Vec<Observable>,
    /// Concrete inputs run (each on both programs).
    pub inputs_run: u64,
    /// Some probe input ran out of fuel / ended in an error, on either side.
    pub saw_out_of_fuel: bool,
    pub saw_fault: bool,
    /// Time in `compare`, every engine both ways.
    pub compare_time: Duration,
    pub concrete_time: Duration,
}

impl PairResult {
    /// Whether any check failed.
    pub fn failed(&self) -> bool {
        !self.findings.is_empty()
    }

    /// What `engine` said, if it ran.
    pub fn run(&self, engine: Engine) -> Option<&EngineRun> {
        self.runs.iter().find(|r| r.engine == engine)
    }
}

/// Compares one pair (both ways, with every engine of the settings) and runs every
/// check on it.
pub fn check_pair(pair: &Pair, cfg: &CheckConfig) -> PairResult {
    let left_text = pair.left.text();
    let right_text = pair.right.text();
    let lp = pair.left.assemble().unwrap_or_else(|e| {
        panic!("harness bug: generated program does not assemble:\n{left_text}\n{e}")
    });
    let rp = pair.right.assemble().unwrap_or_else(|e| {
        panic!("harness bug: generated program does not assemble:\n{right_text}\n{e}")
    });
    check_assembled(pair, &lp, &rp, cfg)
}

/// [`check_pair`] on programs already made from the pair's (assembled, or linked with
/// a runtime as the compiler pairs are): `pair.left` and `pair.right` only give the
/// texts and the constants of the concrete inputs.
pub fn check_assembled(pair: &Pair, lp: &Program, rp: &Program, cfg: &CheckConfig) -> PairResult {
    let left_text = pair.left.text();
    let right_text = pair.right.text();
    let mut opts = cfg.options();
    opts.inputs = pair.inputs.clone();
    opts.observe = pair.observe.clone();
    let layout = InputLayout::new(&opts.inputs, opts.stdin_len);
    let mut findings = Vec::new();
    let mut runs: Vec<EngineRun> = cfg
        .engines()
        .into_iter()
        .map(|engine| {
            let mut opts = opts.clone();
            opts.engine = engine;
            let forward = run_compare(lp, rp, &opts, &layout, "left-right", None, &mut findings);
            let backward = (cfg.symmetric && pair.kind != PairKind::Identical)
                .then(|| run_compare(rp, lp, &opts, &layout, "right-left", None, &mut findings));
            one_engine_checks(pair.kind, engine, forward, backward, &mut findings)
        })
        .collect();
    // (f)
    findings.extend(contradictions(&runs));
    let compare_time = runs.iter().map(EngineRun::time).sum();
    // (g)
    let spin = (cfg.spin_checks && spins(pair))
        .then(|| spin_check(lp, rp, &opts, &layout, &runs, &mut findings));

    // (b) and (e), and a probe of the behaviours for every pair.
    let start = Instant::now();
    let probe = concrete_checks(pair, lp, rp, cfg, layout, &mut runs, &mut findings);
    let concrete_time = start.elapsed();

    PairResult {
        seed: pair.seed,
        index: pair.index,
        shape: pair.shape,
        pair_kind: pair.kind,
        placement: pair.placement,
        spin,
        fuel: cfg.fuel,
        note: pair.note.clone(),
        left_text,
        right_text,
        runs,
        findings,
        missed: probe.missed,
        spec: pair.inputs.clone(),
        observe: pair.observe.clone(),
        inputs_run: probe.runs,
        saw_out_of_fuel: probe.saw_out_of_fuel,
        saw_fault: probe.saw_fault,
        compare_time,
        concrete_time,
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{over_code_pair, over_data_pair, small_config};
    use super::*;

    #[test]
    fn engines_parse() {
        assert_eq!(parse_engines("bmc"), Ok(vec![Engine::Bmc]));
        assert_eq!(parse_engines("all"), Ok(ENGINES.to_vec()));
        assert_eq!(
            parse_engines("auto, concolic,auto"),
            Ok(vec![Engine::Concolic, Engine::Auto])
        );
        assert!(parse_engines("smt").is_err());
        assert!(parse_engines("").is_err());
    }

    #[test]
    fn engines_see_the_data_past_the_array() {
        let pair = over_data_pair(true);
        let r = check_pair(&pair, &small_config(ENGINES.to_vec()));
        assert!(!r.failed(), "{}", r.reproducer());
        for run in &r.runs {
            assert_eq!(run.forward.kind, Kind::Disequivalent, "{}", r.reproducer());
            assert_eq!(run.forward.inputs.as_ref().map(|v| v[0]), Some(0));
        }
        let repro = r.reproducer();
        assert!(
            repro
                .contains("--engine bmc --fuel 2000 --frontend array --max-len 4 --array-base 0x8"),
            "{repro}"
        );
        assert!(repro.contains("at 0x8 (over-data)"), "{repro}");
    }

    #[test]
    fn no_engine_proves_equal_what_array_words_run_as_code_tell_apart() {
        // Code fetched from input words is hard to decide (the engines may well leave
        // it possibly-equivalent within these limits); a proof would be wrong.
        let cfg = CheckConfig {
            compare_timeout: Some(Duration::from_millis(1500)),
            solver_timeout: Some(Duration::from_millis(500)),
            ..small_config(vec![Engine::Auto])
        };
        let r = check_pair(&over_code_pair(), &cfg);
        assert!(!r.failed(), "{}", r.reproducer());
        assert!(!r.runs[0].says(Kind::Equivalent), "{}", r.reproducer());
        assert!(
            r.runs[0].says(Kind::Disequivalent) || r.missed.is_some(),
            "{}",
            r.reproducer()
        );
        assert!(r.reproducer().contains("--array-base 0x0"));
    }
}
