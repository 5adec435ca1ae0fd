//! CS241 programs compared for runs of any length ([`crate::Options::unbounded`]).
//!
//! First the loop proof ([`crate::mips32::induct`], run on the CS241 machine), with at
//! most half of the time left; then the bounded comparison, which finds differences
//! and proves programs whose every run ends within the fuel. The verdict:
//! - `equivalent` when the loop proof holds (both run forever or both end alike, on
//!   every input the preconditions allow), or when the bounded proof followed every
//!   run to its end (no path ran out of fuel);
//! - `disequivalent` where a state at which the loop proof saw a fact broken leads to
//!   inputs on which both programs end differently, after more steps than the fuel
//!   ([`crate::mips32::needle`]: a difference after millions of trips), or as the
//!   bounded comparison found it; replayed either way;
//! - otherwise `possibly-equivalent`, with `termination` when only "equal whenever
//!   both end" was proved, or `invariant` and why no loop proof was found.

use std::time::Instant;

use tamarin_mips::Program;

use crate::equiv;
use crate::error::Error;
use crate::io::{InputLayout, InputSpec, Observable};
use crate::mips32::compare::{probes, write_certificate, PROBES};
use crate::mips32::explore::{Code, Cs241Code, Limits, Side};
use crate::mips32::induct::{self, Outcome};
use crate::mips32::needle;
use crate::mips32::UnboundedProof;
use crate::options::Options;
use crate::report::{Observer, Report, Stats};
use crate::solver::{build_chain, Answer, Solver, SolverStats};
use crate::term::TermStore;
use crate::verdict::{
    self, results_differ, run_observed, Counterexample, Engine, FuelPolicy, Incomplete, Proof,
    Verdict,
};
use tamarin_mips::cpu::Status;

/// Most paths of one trip of a loop (or of the way to the first loop head).
const MAX_PATHS: usize = 20_000;
/// Most values of one input-dependent address or jump target.
const MAX_TARGETS: usize = 64;

/// Compares `left` and `right` for runs of any length (see the module's
/// documentation).
///
/// # Errors
///
/// [`Error::Certificate`] when [`Options::certificate`] cannot be written.
pub fn compare(
    left: &Program,
    right: &Program,
    opts: &Options,
    observer: &mut dyn Observer,
) -> Result<Report, Error> {
    let started = Instant::now();
    let budget = opts.budget();
    // The loop proof may take half of the time left; the bounded comparison the rest.
    let half = budget.deadline().map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) / 2
    });
    let attempt = match refusal(opts) {
        Some(why) => Attempt::Failed(Incomplete::Invariant { why }),
        None => attempt(left, right, opts, half)?,
    };
    let reason = match attempt {
        Attempt::Decided {
            verdict,
            solver_name,
            solver,
            input_names,
        } => {
            let stats = Stats {
                total: started.elapsed(),
                solver_name,
                solver,
                ..Stats::default()
            };
            return Ok(Report {
                verdict: *verdict,
                stats,
                input_names,
                paths: Default::default(),
                notes: Vec::new(),
            });
        }
        Attempt::Failed(reason) => reason,
    };
    let mut report = equiv::compare(left, right, opts, observer);
    report.verdict = match report.verdict {
        v @ Verdict::Disequivalent(_) => v,
        // Every path enumerated ended within the fuel. (The merged encoding's count
        // of runs out of fuel leaves out those joined with shorter ones: it asks the
        // solver instead, below.)
        Verdict::Equivalent(mut p) if p.engine == Engine::Concolic && p.out_of_fuel == (0, 0) => {
            p.unbounded = Some(Box::new(UnboundedProof::every_run_ends()));
            Verdict::Equivalent(p)
        }
        // The merged encoding asked whether any run outlasts the fuel, and none does
        // (`bmc::Checker::every_run_ends`).
        v @ Verdict::Equivalent(Proof {
            unbounded: Some(_), ..
        }) => v,
        // Some runs were longer than the fuel: what the loop proof is for.
        Verdict::Equivalent(_) => Verdict::PossiblyEquivalent(vec![reason]),
        Verdict::PossiblyEquivalent(mut reasons) => {
            reasons.push(reason);
            Verdict::PossiblyEquivalent(reasons)
        }
    };
    Ok(report)
}

/// What the loop proof came to: a verdict, or the reason it gives for the runs longer
/// than the fuel that it did not cover.
enum Attempt {
    /// `equivalent` by the proof, or `disequivalent` on inputs found from the states
    /// where the proof saw a fact broken (replayed with [`needle::NEEDLE_FUEL`]); with
    /// the solver chain that decided it, what it asked, and the inputs' names.
    Decided {
        verdict: Box<Verdict>,
        solver_name: String,
        solver: SolverStats,
        input_names: Vec<String>,
    },
    Failed(Incomplete),
}

/// Why the loop proof does not apply to this task, if it does not: it follows
/// register inputs with no standard input, and compares registers (and standard
/// output, which it then must not see written).
fn refusal(opts: &Options) -> Option<String> {
    if matches!(opts.inputs, InputSpec::Array { .. }) {
        return Some("loop proofs take register inputs, not an array".into());
    }
    if opts.stdin_len > 0 {
        return Some("loop proofs take no standard input".into());
    }
    if opts.assume_program.is_some() {
        return Some("loop proofs take preconditions, not a domain program".into());
    }
    if opts
        .observe
        .iter()
        .any(|o| !matches!(o, Observable::Reg(_) | Observable::Output))
    {
        return Some("loop proofs compare registers and standard output only".into());
    }
    None
}

/// The loop proof, within `until`; its certificate written where asked.
fn attempt(
    left: &Program,
    right: &Program,
    opts: &Options,
    until: Option<Instant>,
) -> Result<Attempt, Error> {
    let budget = opts.budget();
    let stop = budget.stop();
    let mut s = TermStore::new();
    let mut layout = InputLayout::declare(&mut s, &opts.inputs, 0);
    for p in &opts.assume {
        if let Err(e) = p.lower(&mut s, &layout) {
            return Ok(failed(format!(
                "the precondition `{}` could not be read: {}",
                p.text(),
                e.message
            )));
        }
    }
    let _ = layout.assume(&mut s, &opts.assume);
    let args = layout.vars().to_vec();
    let domain = layout.domain(&mut s);
    let mut solver = build_chain(&opts.solver, stop, domain.clone());
    if !domain.is_empty() && matches!(solver.check(&mut s, &[]), Answer::Unsat) {
        return Ok(failed("no input satisfies the preconditions".into()));
    }
    let InputSpec::Registers(inputs) = &opts.inputs else {
        return Ok(failed("no register inputs".into()));
    };
    let observe_output = opts.observe.contains(&Observable::Output);
    let observe: Vec<_> = opts
        .observe
        .iter()
        .filter_map(|o| match o {
            Observable::Reg(r) => Some(*r),
            _ => None,
        })
        .collect();
    let code = |program: &Program| Cs241Code {
        program: program.clone(),
        inputs: inputs.clone(),
        termination: opts.termination,
        observe_output,
    };
    let (l, r) = (code(left), code(right));
    let side = |c| Side {
        code: Code::Cs241(c),
        entry: 0,
    };
    let admitted: Vec<Vec<u32>> = probes(args.len(), PROBES)
        .into_iter()
        .filter(|p| layout.admits(p))
        .collect();
    let limits = Limits {
        fuel: opts.fuel,
        max_paths: MAX_PATHS,
        max_targets: MAX_TARGETS,
    };
    let until_stop = || stop.reached() || until.is_some_and(|h| Instant::now() >= h);
    let mut suspects = induct::Suspects::new();
    let outcome = induct::prove(
        &mut s,
        &mut solver,
        side(&l),
        side(&r),
        &args,
        &admitted,
        &observe,
        &limits,
        &until_stop,
        opts.certificate.is_some(),
        &mut suspects,
    );
    match outcome {
        Outcome::Proved(c) => {
            let mut proof = Some(UnboundedProof::induction(c, true));
            write_certificate(
                &mut s,
                &domain,
                opts.certificate.as_deref(),
                "programs",
                &mut proof,
            )?;
            Ok(match proof {
                Some(proof) => Attempt::Decided {
                    verdict: Box::new(Verdict::Equivalent(Proof {
                        engine: opts.engine,
                        paths: (0, 0),
                        out_of_fuel: (0, 0),
                        encoding: None,
                        queries: 0,
                        fuel: opts.fuel,
                        unbounded: Some(Box::new(proof)),
                    })),
                    solver_name: solver.describe(),
                    solver: solver.stats.clone(),
                    input_names: layout.names().to_vec(),
                },
                None => failed("the proof was not kept".into()),
            })
        }
        outcome => {
            // A state where the proof saw a fact broken may be the one just before a
            // difference after many trips, which the bounded comparison that follows
            // cannot reach (the programs take only register inputs here: `refusal`).
            // (None where "equal whenever both end" was proved: `prove` keeps no
            // suspects then.)
            let found = (!suspects.is_empty() && !until_stop()).then(|| {
                difference_after_many_trips(
                    &mut s,
                    &mut solver,
                    &suspects,
                    &layout,
                    [left, right],
                    opts,
                    &until_stop,
                )
            });
            if let Some(cx) = found.flatten() {
                return Ok(Attempt::Decided {
                    verdict: Box::new(Verdict::Disequivalent(Box::new(cx))),
                    solver_name: solver.describe(),
                    solver: solver.stats.clone(),
                    input_names: layout.names().to_vec(),
                });
            }
            Ok(match outcome {
                Outcome::Partial(_) => Attempt::Failed(Incomplete::Termination),
                Outcome::Unknown(why) => failed(why),
                Outcome::Proved(_) => failed("the proof was not kept".into()),
            })
        }
    }
}

/// Inputs on which both programs end differently after more steps than the fuel,
/// looked for from the states where the loop proof saw a fact broken
/// ([`needle::search`]), each run with [`needle::NEEDLE_FUEL`]; the counterexample
/// is [`verdict::replay`]'s, as every CS241 counterexample is.
fn difference_after_many_trips(
    s: &mut TermStore,
    solver: &mut dyn Solver,
    suspects: &induct::Suspects,
    layout: &InputLayout,
    [left, right]: [&Program; 2],
    opts: &Options,
    stop: &dyn Fn() -> bool,
) -> Option<Counterexample> {
    let what = &opts.observe;
    let mut config = opts.machine_config();
    config.fuel = needle::NEEDLE_FUEL;
    let run = |p: &Program, a: &[u32]| run_observed(p, config, layout, a, what);
    let mut replay = |a: &[u32]| {
        let Some((l, lobs)) = run(left, a) else {
            return (false, 0);
        };
        if l.status == Status::OutOfFuel {
            return (false, l.steps);
        }
        let Some((r, robs)) = run(right, a) else {
            return (false, l.steps);
        };
        // Under `Same` only runs that both end can differ: a difference under either
        // fuel policy.
        let differs = results_differ(FuelPolicy::Same, &l, &lobs, &r, &robs);
        (differs, l.steps + r.steps)
    };
    let args = layout.vars().to_vec();
    let found = needle::search(
        s,
        solver,
        suspects,
        &args,
        &|a| layout.admits(a),
        &mut replay,
        stop,
    )?;
    verdict::replay(left, right, config, layout, &found, what, FuelPolicy::Same)
}

fn failed(why: String) -> Attempt {
    Attempt::Failed(Incomplete::Invariant { why })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use tamarin_mips::cpu::{Config, Frontend, Machine, NoTrace, Status};
    use tamarin_mips::Program;

    use crate::compare;
    use crate::mips32::explore::{self, Code, Cs241Code, End, Function, Limits, CS241_FAULT};
    use crate::mips32::induct::planted;
    use crate::options::Options;
    use crate::report::Quiet;
    use crate::solver::{build_chain, SolverConfig};
    use crate::term::{Evaluator, TermStore};
    use crate::verdict::Verdict;

    fn example(dir: &str, name: &str) -> Program {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(dir)
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        tamarin_mips::asm::assemble(name, &text).unwrap()
    }

    fn options() -> Options {
        Options {
            unbounded: true,
            fuel: 2_000,
            solver: SolverConfig {
                timeout: std::time::Duration::from_secs(1),
                ..SolverConfig::default()
            },
            ..Options::default()
        }
    }

    /// The verdict on two loop examples for runs of any length, with `bugs` planted
    /// in the checker.
    fn verdict(l: &str, r: &str, bugs: u32) -> Verdict {
        verdict_with(l, r, bugs, &options())
    }

    fn verdict_with(l: &str, r: &str, bugs: u32, opts: &Options) -> Verdict {
        let (l, r) = (example("loops", l), example("loops", r));
        planted::plant(bugs);
        let v = compare(&l, &r, opts, &mut Quiet).unwrap().verdict;
        planted::plant(0);
        v
    }

    #[test]
    fn counters_in_opposite_directions_are_proved_for_runs_of_any_length() {
        check_long_runs("up.asm", "down.asm");
        let Verdict::Equivalent(p) = verdict("up.asm", "down.asm", 0) else {
            panic!("not proved");
        };
        let u = p.unbounded.unwrap();
        assert_eq!(
            (u.method, u.termination),
            ("lockstep-induction", "lockstep")
        );
    }

    /// The two programs' results on long runs at edge trip counts (a proof that the
    /// emulator contradicts is unsound).
    fn check_long_runs(l: &str, r: &str) {
        let (l, r) = (example("loops", l), example("loops", r));
        for n in [0u32, 1, 2, 3, 4, 5, 299_999, 300_000, 300_001] {
            let run = |p: &Program| {
                let mut m = Machine::new(p, Config::with_fuel(10_000_000));
                m.set_reg(tamarin_mips::Reg::from_bits(1), n);
                let status = m.run(&mut NoTrace);
                (status, m.regs().get(tamarin_mips::Reg::from_bits(3)))
            };
            let (a, b) = (run(&l), run(&r));
            assert_eq!(a.0, Status::Done, "n = {n}");
            assert_eq!(a, b, "n = {n}");
        }
    }

    #[test]
    #[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
    fn nested_loops_counting_the_other_way_are_proved_head_by_head() {
        // The outer counters meet only through `i = -j + $1 - 1` at the inner heads.
        let (l, r) = (
            example("loops", "nested.asm"),
            example("loops", "nested-down.asm"),
        );
        for (n, m) in [
            (0u32, 0u32),
            (0, 9),
            (9, 0),
            (1, 1),
            (3, 7),
            (700, 900),
            (2, 2_000_000),
        ] {
            let run = |p: &Program| {
                let mut machine = Machine::new(p, Config::with_fuel(20_000_000));
                machine.set_reg(tamarin_mips::Reg::from_bits(1), n);
                machine.set_reg(tamarin_mips::Reg::from_bits(2), m);
                let status = machine.run(&mut NoTrace);
                (status, machine.regs().get(tamarin_mips::Reg::from_bits(3)))
            };
            let (a, b) = (run(&l), run(&r));
            assert_eq!(a, (Status::Done, n.wrapping_mul(m)), "n = {n}, m = {m}");
            assert_eq!(a, b, "n = {n}, m = {m}");
        }
        let Verdict::Equivalent(p) = verdict("nested.asm", "nested-down.asm", 0) else {
            panic!("not proved");
        };
        let c = p.unbounded.unwrap().certificate.unwrap();
        assert_eq!((c.heads[0].len(), c.heads[1].len()), (2, 2));
        let inner = &c
            .invariant
            .iter()
            .find(|(place, _)| place == "head2/head2")
            .unwrap()
            .1;
        assert!(inner.iter().any(|f| f.ends_with("+ $1 + -1")), "{inner:?}");
    }

    #[test]
    fn a_loop_against_itself_unrolled_by_two_is_proved() {
        check_long_runs("up.asm", "unrolled.asm");
        let Verdict::Equivalent(p) = verdict("up.asm", "unrolled.asm", 0) else {
            panic!("not proved");
        };
        let u = p.unbounded.unwrap();
        assert_eq!(u.method, "lockstep-induction");
        // The right's counter steps by two and stays even: what keeps it from
        // stepping over its bound.
        let c = u.certificate.unwrap();
        let facts = &c.invariant[0].1;
        assert!(facts.iter().any(|f| f == "right.$4 is even"), "{facts:?}");
    }

    #[test]
    #[ignore = "seconds of search and runs: the long tier of .ci/run runs it (--ignored)"]
    fn a_needle_past_three_million_trips_is_found_and_never_proved() {
        // The CLI's `a_needle_past_three_million_trips_is_found_with_its_fuel` does the
        // same comparison in the default suite.
        found_and_never_proved("needle.asm");
    }

    #[test]
    fn a_needle_past_three_million_trips_is_proved_with_the_pruning_planted_away() {
        // Keep every fact the samples show (none reaches trip 3,000,000): the needle
        // is then "proved", which `found_and_never_proved` catches.
        let opts = Options {
            fuel: 300,
            ..options()
        };
        let planted = verdict_with("up.asm", "needle.asm", planted::NO_PRUNING, &opts);
        assert!(matches!(planted, Verdict::Equivalent(_)), "{planted:?}");
    }

    #[test]
    #[ignore = "seconds of solving in a debug build: the long tier of .ci/run runs it (--ignored)"]
    fn an_unrolled_needle_past_three_million_trips_is_found_and_never_proved() {
        found_and_never_proved("unrolled-needle.asm");
    }

    /// `needle` against `up.asm` is `disequivalent` on an input past 3,000,000 trips,
    /// found from the facts the loop proof saw broken (the bounded search stops at
    /// 300 steps), and is "proved" with the pruning planted away.
    fn found_and_never_proved(needle: &str) {
        // The default per-query time: the queries' work limits decide what is
        // found, not the machine's load.
        let opts = Options {
            fuel: 300,
            solver: SolverConfig::default(),
            ..options()
        };
        let honest = verdict_with("up.asm", needle, 0, &opts);
        let Verdict::Disequivalent(cx) = &honest else {
            panic!("{needle}: {honest:?}");
        };
        assert!(cx.inputs[0].1 > 3_000_000, "{cx:?}");
        assert_eq!(
            (cx.left.status, cx.right.status),
            (Status::Done, Status::Done)
        );
        assert!(cx.right.steps > 3_000_000, "{cx:?}");
        // A fresh run of each, far past the comparison's fuel, shows it.
        let result = |name: &str| {
            let program = example("loops", name);
            let mut m = Machine::new(&program, Config::with_fuel(200_000_000));
            m.apply(&Frontend::TwoInts(cx.inputs[0].1, cx.inputs[1].1))
                .unwrap();
            let outcome = m.run_to_outcome(&mut NoTrace);
            assert_eq!(outcome.status, Status::Done);
            outcome.regs.result()
        };
        assert_ne!(result("up.asm"), result(needle), "{cx:?}");
        // Keep every fact the samples show (none reaches trip 3,000,000): the needle
        // is then "proved", which the assertions above catch.
        let planted = verdict_with("up.asm", needle, planted::NO_PRUNING, &opts);
        assert!(
            matches!(planted, Verdict::Equivalent(_)),
            "{needle}: {planted:?}"
        );
    }

    /// Options for an array of up to 8 words with `len >= 1` and elements in
    /// `[lo, 1000]`, under the merged encoding.
    fn array_options(lo: i32, fuel: u64) -> Options {
        let mut opts = Options {
            inputs: crate::io::InputSpec::Array {
                max_len: 8,
                base: None,
            },
            engine: crate::verdict::Engine::Bmc,
            fuel,
            ..options()
        };
        opts.assume = ["len >= 1".to_string(), format!("all x: {lo} <= x <= 1000")]
            .iter()
            .map(|a| crate::Precondition::parse(a).unwrap())
            .collect();
        opts
    }

    #[test]
    fn an_array_pair_whose_every_run_ends_within_the_fuel_is_proved_by_the_encoding() {
        let (fwd, bwd) = (
            example("proofs", "amax-fwd.asm"),
            example("proofs", "amax-bwd.asm"),
        );
        let v = compare(&fwd, &bwd, &array_options(-1000, 1_000), &mut Quiet)
            .unwrap()
            .verdict;
        let Verdict::Equivalent(p) = v else {
            panic!("{v:?}");
        };
        assert_eq!(p.engine, crate::verdict::Engine::Bmc);
        let u = p.unbounded.unwrap();
        assert_eq!((u.method, u.termination), ("paths", "every-run-ends"));
    }

    #[test]
    fn an_array_pair_that_differs_past_the_fuel_is_not_proved_for_runs_of_any_length() {
        // Both count down from a[0], three steps a trip: past a[0] of about 330 both
        // run out of 1,000 steps of fuel, so they agree within it. The right returns
        // 2 where a[0] is over 900.
        let count = "lw $4, 0($1)\nlis $5\n.word 1\nlis $7\n.word 900\nslt $6, $7, $4\n\
                     loop:\nbeq $4, $0, done\nsub $4, $4, $5\nbeq $0, $0, loop\ndone:\n\
                     lis $3\n.word 1\n";
        let left = tamarin_mips::asm::assemble("l.asm", &format!("{count}jr $31\n")).unwrap();
        let right =
            tamarin_mips::asm::assemble("r.asm", &format!("{count}add $3, $3, $6\njr $31\n"))
                .unwrap();
        let opts = array_options(0, 1_000);
        let honest = compare(&left, &right, &opts, &mut Quiet).unwrap().verdict;
        assert!(
            matches!(honest, Verdict::PossiblyEquivalent(_)),
            "{honest:?}"
        );
        // Taking the proof within the fuel for one of any length, as the planted bug
        // does, would be wrong: a long enough run shows the difference.
        crate::bmc::planted::plant(crate::bmc::planted::ENDS_UNCHECKED);
        let planted = compare(&left, &right, &opts, &mut Quiet).unwrap().verdict;
        crate::bmc::planted::plant(0);
        assert!(matches!(planted, Verdict::Equivalent(_)), "{planted:?}");
        let run = |p: &Program| {
            let mut m = Machine::new(p, Config::with_fuel(100_000));
            let base = p.byte_len();
            m.write_word(base, 1000);
            m.set_reg(tamarin_mips::Reg::from_bits(1), base);
            m.set_reg(tamarin_mips::Reg::from_bits(2), 1);
            assert_eq!(m.run(&mut NoTrace), Status::Done);
            m.regs().get(tamarin_mips::Reg::from_bits(3))
        };
        assert_eq!((run(&left), run(&right)), (1, 2));
    }

    #[test]
    fn without_unbounded_nothing_changes() {
        let (l, r) = (example("loops", "up.asm"), example("loops", "down.asm"));
        let opts = Options {
            unbounded: false,
            ..options()
        };
        let v = compare(&l, &r, &opts, &mut Quiet).unwrap().verdict;
        if let Verdict::Equivalent(p) = &v {
            assert!(p.unbounded.is_none());
        }
    }

    /// The explorer on a CS241 program means what the CS241 emulator does: on
    /// every input tried, exactly one path's guard holds, and it ends as the run
    /// does (the same `$3` when it returns, a fault when it faults, out of fuel when
    /// it runs out).
    #[test]
    fn the_explorer_runs_cs241_programs_as_the_emulator_does() {
        // The slowest to explore in a debug build (arrays read at symbolic addresses,
        // deep recursion) run in the test below.
        let slow = [
            "stirling-rec",
            "amax-",
            "aneg-",
            "asum-",
            "print-iter",
            "print-rec",
            "print5-rec",
        ];
        explorer_agrees_with_the_emulator(&slow, 150);
    }

    /// Every path of `program` with its inputs in `inputs` (each a fresh variable, in
    /// order) within `fuel`, `$3` observed: the store the paths' terms live in, and
    /// the paths.
    fn explore_cs241(
        program: &Program,
        inputs: &[tamarin_mips::Reg],
        fuel: u64,
        max_paths: usize,
    ) -> (TermStore, explore::Paths) {
        let code = Cs241Code {
            program: program.clone(),
            inputs: inputs.to_vec(),
            termination: tamarin_mips::cpu::DEFAULT_TERMINATION,
            observe_output: false,
        };
        let mut s = TermStore::new();
        let args: Vec<_> = inputs
            .iter()
            .map(|r| s.new_var(&r.to_string(), 32))
            .collect();
        let config = SolverConfig {
            timeout: std::time::Duration::from_secs(1),
            portfolio: Vec::new(),
            ..SolverConfig::default()
        };
        let mut solver = build_chain(&config, Default::default(), Vec::new());
        let func = Function {
            code: Code::Cs241(&code),
            entry: 0,
            args: &args,
            observe: &[RESULT],
            zero_allowed: true,
            cuts: &[],
        };
        let limits = Limits {
            fuel,
            max_paths,
            max_targets: 64,
        };
        let paths = explore::explore(&mut s, &mut solver, &func, &limits, &|| false);
        (s, paths)
    }

    const RESULT: tamarin_mips::Reg = tamarin_mips::Reg::from_bits(3);

    /// An input may arrive in `$30`: it wins over the stack pointer's initial value,
    /// in the explorer as in the emulator.
    #[test]
    fn an_input_in_the_stack_register_wins_as_in_the_emulator() {
        let program = tamarin_mips::asm::assemble("t.asm", "add $3, $30, $0\njr $31\n").unwrap();
        let thirty = tamarin_mips::Reg::from_bits(30);
        let (s, paths) =
            explore_cs241(&program, &[tamarin_mips::Reg::from_bits(1), thirty], 10, 10);
        let [end] = &paths.ends[..] else {
            panic!("{:?}", paths.ends)
        };
        let End::Returned(obs) = &end.end else {
            panic!("{end:?}")
        };
        let values = [0u64, 77];
        let mut m = Machine::new(&program, Config::with_fuel(10));
        m.set_reg(thirty, 77);
        assert_eq!(m.run(&mut NoTrace), Status::Done);
        let want = m.regs().get(RESULT);
        assert_eq!(want, 77);
        assert_eq!(Evaluator::new(&s, &values).eval(obs[0]) as u32, want);
    }

    #[test]
    #[ignore = "minutes in a debug build: run with --ignored"]
    fn the_explorer_runs_every_cs241_example_as_the_emulator_does() {
        explorer_agrees_with_the_emulator(&[], 300);
    }

    fn explorer_agrees_with_the_emulator(skip: &[&str], at_least: usize) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/proofs");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".asm"))
            .collect();
        names.retain(|n| !skip.iter().any(|k| n.starts_with(k)));
        names.sort();
        names.extend(
            ["up.asm", "down.asm", "needle.asm", "unrolled.asm"].map(|n| format!("../loops/{n}")),
        );
        let inputs: [[u32; 2]; 9] = [
            [0, 0],
            [1, 2],
            [5, 3],
            [7, u32::MAX],
            [0x8000_0000, 1],
            [12, 0],
            [100, 9],
            [u32::MAX, 7],
            [3, 3],
        ];
        const FUEL: u64 = 300;
        let mut checked = 0;
        for name in names {
            let program = example("proofs", &name);
            let regs = [
                tamarin_mips::Reg::from_bits(1),
                tamarin_mips::Reg::from_bits(2),
            ];
            let (s, paths) = explore_cs241(&program, &regs, FUEL, 400);
            if paths
                .ends
                .iter()
                .any(|e| matches!(e.end, End::Uncovered(_)))
            {
                continue;
            }
            for input in inputs {
                let mut m = Machine::new(&program, Config::with_fuel(FUEL));
                m.set_reg(tamarin_mips::Reg::from_bits(1), input[0]);
                m.set_reg(tamarin_mips::Reg::from_bits(2), input[1]);
                let status = m.run(&mut NoTrace);
                let values = [input[0] as u64, input[1] as u64];
                let mut ev = Evaluator::new(&s, &values);
                let taken: Vec<&End> = paths
                    .ends
                    .iter()
                    .filter(|e| ev.holds(e.guard))
                    .map(|e| &e.end)
                    .collect();
                assert_eq!(taken.len(), 1, "{name} on {input:?}: {taken:?}");
                match (status, taken[0]) {
                    (Status::Done, End::Returned(obs)) => {
                        assert_eq!(
                            ev.eval(obs[0]) as u32,
                            m.regs().get(RESULT),
                            "{name} {input:?}"
                        )
                    }
                    (Status::Error(_), End::Fault(k)) => assert_eq!(*k, CS241_FAULT),
                    // The explorer counts a step less for a run that ends at the
                    // termination address right at the fuel.
                    (Status::OutOfFuel, End::OutOfFuel) => {}
                    (st, end) => {
                        panic!("{name} on {input:?}: the emulator {st:?}, the explorer {end:?}")
                    }
                }
                checked += 1;
            }
        }
        assert!(checked >= at_least, "only {checked} runs checked");
    }
}
