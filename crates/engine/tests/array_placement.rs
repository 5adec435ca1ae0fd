//! The array frontend wherever the array lies: over the program's data, over its code,
//! with slots past the length keeping the image's words. Every pair here once got a
//! false `equivalent` from some engine; now each difference is found by every engine
//! (and every solver at hand) and replays, and what is equal stays provable.

mod common;

use std::time::{Duration, Instant};

use tamarin::check::check;
use tamarin::concolic::{explore, Options, Quiet, Report};
use tamarin::io::InputSpec;
use tamarin::solver::SolverConfig;
use tamarin::verdict::{Engine, Verdict};
use tamarin_mips::cpu::{run_program, Config, FaultKind, Frontend, Status};
use tamarin_mips::Program;

/// If `len >= 1` and `a[0] == 0x5eed`, `$3 = a[1]` (the word after `a[0]`), else 0.
const READS_PAST: &str = "
      add $3, $0, $0
      beq $2, $0, done
      lw $11, 0($1)
      lis $12
      .word 0x5eed
      bne $11, $12, done
      lw $3, 4($1)
done: jr $31
";

/// The same code, then data: `.word 99` at 0x44, where `a[1]` lies for base 0x40.
fn reads_past_with_data() -> String {
    let mut t = READS_PAST.to_string();
    for _ in 0..9 {
        t.push_str(".word 0\n");
    }
    t.push_str(".word 99\n");
    t
}

/// `beq` over seven zero words to an `add` at 0x20, which the array covers at 0x20.
const DETOUR_OVER_ZEROS: &str = "
      beq $0, $0, 7
      .word 0
      .word 0
      .word 0
      .word 0
      .word 0
      .word 0
      .word 0
      add $3, $0, $0
      jr $31
";

const ZERO: &str = "
      add $3, $0, $0
      jr $31
";

const SUM: &str = "
      add $3, $0, $0
      add $5, $1, $0
      add $6, $2, $0
      lis $7
      .word 1
      lis $8
      .word 4
loop: beq $6, $0, done
      lw $9, 0($5)
      add $3, $3, $9
      add $5, $5, $8
      sub $6, $6, $7
      beq $0, $0, loop
done: jr $31
";

/// [`SUM`] with a detour on each iteration through the word at `detour`, three zero
/// words after the program.
fn sum_with_detour() -> String {
    SUM.replace(
        "      beq $0, $0, loop\n",
        "      beq $0, $0, detour\nback: beq $0, $0, loop\n",
    ) + "      .word 0\n      .word 0\n      .word 0\ndetour: beq $0, $0, back\n"
}

/// Address of `detour` in [`sum_with_detour`] (its 19th word, after three zeros).
const DETOUR_AT: u32 = 18 * 4;

fn array(max_len: u32, base: u32) -> Options {
    let mut o = Options::default();
    o.inputs = InputSpec::Array {
        max_len,
        base: Some(base),
    };
    o.timeout = Some(Duration::from_secs(60));
    o
}

fn asm(text: &str) -> Program {
    common::asm("test.asm", text)
}

/// Every engine with every solver at hand (z3 in process, and cvc5 and Yices when
/// installed).
fn settings(base: &Options) -> Vec<(String, Options)> {
    let mut solvers = vec![("z3".to_string(), SolverConfig::default())];
    for name in ["cvc5", "yices"] {
        let mut c = SolverConfig::default();
        let usable = tamarin::solver::ProcessSolver::from_name(name, c.timeout)
            .is_ok_and(|p| p.probe().is_ok());
        if usable {
            c.external = Some(name.to_string());
            solvers.push((name.to_string(), c));
        }
    }
    let mut out = Vec::new();
    for (sname, solver) in &solvers {
        for engine in [Engine::Concolic, Engine::Bmc, Engine::Auto] {
            let mut o = base.clone();
            o.engine = engine;
            o.solver = solver.clone();
            if solver.external.is_some() {
                // A process per query: where the array runs as code, path enumeration
                // asks thousands. The differences here show within the first runs, and
                // an unfinished search is never `equivalent`.
                o.timeout = Some(Duration::from_secs(3));
            }
            out.push((format!("{engine:?} with {sname}"), o));
        }
    }
    out
}

fn compare(l: &Program, r: &Program, o: &Options) -> Report {
    tamarin::equiv::compare(l, r, o, &mut Quiet)
}

/// Runs a counterexample's array on both programs from scratch: they must differ.
fn assert_witness_replays(
    l: &Program,
    r: &Program,
    o: &Options,
    cx: &tamarin::verdict::Counterexample,
    name: &str,
) {
    let elems = cx.values.array.clone().expect("an array witness");
    let InputSpec::Array { base, .. } = o.inputs else {
        unreachable!("array options")
    };
    let f = Frontend::Array { elems, base };
    let config = Config::with_fuel(o.fuel);
    let lo = run_program(l, config, &f, &[]).expect("the witness fits");
    let ro = run_program(r, config, &f, &[]).expect("the witness fits");
    assert!(
        tamarin::verdict::outcomes_differ(&lo, &ro),
        "{name}: the witness does not replay: {lo:?} / {ro:?}"
    );
}

/// Every engine and solver finds a difference, and its witness differs when run.
fn assert_differs_everywhere(l: &Program, r: &Program, opts: &Options) {
    for (name, o) in settings(opts) {
        let report = compare(l, r, &o);
        let Verdict::Disequivalent(cx) = &report.verdict else {
            panic!("{name}: expected disequivalent, got {:?}", report.verdict);
        };
        assert_witness_replays(l, r, &o, cx, &name);
    }
}

/// No engine or solver says `equivalent`; a difference any of them reports replays.
/// (Any verdict but `equivalent` passes, so the process solvers get a short time.)
fn assert_never_equivalent(l: &Program, r: &Program, opts: &Options) {
    for (name, mut o) in settings(opts) {
        if o.solver.external.is_some() {
            o.timeout = Some(Duration::from_secs(1));
        }
        let report = compare(l, r, &o);
        match &report.verdict {
            Verdict::Equivalent(_) => panic!("{name}: a false equivalent"),
            Verdict::Disequivalent(cx) => assert_witness_replays(l, r, &o, cx, &name),
            Verdict::PossiblyEquivalent(_) => {}
        }
    }
}

#[test]
fn a_slot_past_the_length_keeps_the_data_of_the_image() {
    let (l, r) = (asm(&reads_past_with_data()), asm(READS_PAST));
    assert_differs_everywhere(&l, &r, &array(16, 0x40));
    // The same with the array longer than the data it lies over, and shorter.
    assert_differs_everywhere(&l, &r, &array(1, 0x40));
    assert_differs_everywhere(&l, &r, &array(40, 0x40));
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn an_array_word_over_the_code_is_fetched_as_code() {
    let (l, r) = (asm(DETOUR_OVER_ZEROS), asm(ZERO));
    assert_differs_everywhere(&l, &r, &array(2, 0x20));
    // Over the first instruction of both programs: they differ only where a[0] is an
    // instruction that sets $3 (or jumps), which path enumeration finds and the merged
    // encoding reports as not followed.
    let two_adds = asm("add $3, $0, $0\nadd $3, $0, $0\njr $31\n");
    assert_never_equivalent(&asm(ZERO), &two_adds, &array(1, 0));
    let mut concolic = array(1, 0);
    concolic.engine = Engine::Concolic;
    let report = compare(&asm(ZERO), &two_adds, &concolic);
    assert!(
        matches!(report.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        report.verdict
    );
}

#[test]
fn a_loop_through_a_word_the_array_covers_from_length_four() {
    let (l, r) = (asm(&sum_with_detour()), asm(SUM));
    // a[3] lies over `detour` and replaces it once the array has four words.
    assert_never_equivalent(&l, &r, &array(6, DETOUR_AT - 12));
    // An array of four zeros reaches an invalid instruction at `detour` on the left.
    let four = Frontend::Array {
        elems: vec![0; 4],
        base: Some(DETOUR_AT - 12),
    };
    let lo = run_program(&l, Config::default(), &four, &[]).expect("fits");
    assert!(matches!(lo.status, Status::Error(_)), "{lo:?}");
    for engine in [Engine::Bmc, Engine::Auto] {
        let mut o = array(6, DETOUR_AT - 12);
        o.engine = engine;
        let report = compare(&l, &r, &o);
        assert!(
            matches!(report.verdict, Verdict::Disequivalent(_)),
            "{engine:?}: {:?}",
            report.verdict
        );
    }
}

#[test]
fn an_array_over_code_that_is_never_executed_still_allows_a_proof() {
    // The array lies over the detour of a loop that never takes it: equal programs.
    let never = sum_with_detour().replace("beq $0, $0, detour", "beq $0, $0, back");
    let (l, r) = (asm(&never), asm(SUM));
    // Z3 in process: the other solvers' verdicts on this pair are the subject of the
    // tests above (never a false `equivalent`), not their speed at proofs.
    for engine in [Engine::Concolic, Engine::Bmc, Engine::Auto] {
        let mut o = array(5, DETOUR_AT - 12);
        o.engine = engine;
        let name = format!("{engine:?}");
        let report = compare(&l, &r, &o);
        assert!(
            matches!(report.verdict, Verdict::Equivalent(_)),
            "{name}: {:?}",
            report.verdict
        );
    }
}

#[test]
fn reads_past_the_length_over_equal_data_are_proved_equal() {
    // Both images hold 99 where a[1] lies: reading past the length gives 99 in both.
    let (l, r) = (asm(&reads_past_with_data()), asm(&reads_past_with_data()));
    let (c, b) = common::compare_all(&l, &r, &array(3, 0x40));
    for report in [c, b] {
        assert!(
            matches!(report.verdict, Verdict::Equivalent(_)),
            "{:?}",
            report.verdict
        );
    }
}

#[test]
fn check_and_paths_see_the_image_past_the_length() {
    // 100 / (the word after a[0]): the image has 5 there, so only an array of two or
    // more words with a[1] == 0 divides by zero.
    let p = asm("lw $4, 4($1)\nlis $5\n.word 100\ndiv $5, $4\nmflo $3\njr $31\n.word 0\n.word 5\n");
    let opts = array(3, 0x18);
    let report = check(&p, &opts, &mut Quiet);
    assert_eq!(report.findings.len(), 1, "{:?}", report.findings);
    let f = &report.findings[0];
    assert_eq!(
        f.kind,
        tamarin::FindingKind::Fault(FaultKind::DivisionByZero)
    );
    let a = f.values.array.as_ref().expect("array");
    assert!(a.len() >= 2 && a[1] == 0, "{a:?}");
    assert!(report.incomplete().is_empty(), "{:?}", report.incomplete());
    // Two paths: the divisor is zero or not.
    let paths = explore(&p, &opts, &mut Quiet);
    assert_eq!(paths.paths.len(), 2);
    assert!(paths.incomplete.is_empty());
}

/// `lis $5; .word 1; top: add $4, $4, $5; beq $0, $0, top`: never ends.
const SPIN: &str = "lis $5\n.word 1\ntop: add $4, $4, $5\nbeq $0, $0, top\n";

#[test]
fn the_time_limit_holds_while_a_run_spins_with_a_huge_fuel() {
    let (l, r) = (asm(SPIN), asm("add $3, $1, $2\njr $31\n"));
    for engine in [Engine::Concolic, Engine::Bmc, Engine::Auto] {
        let mut o = Options::default();
        o.engine = engine;
        o.fuel = 10_000_000_000;
        o.timeout = Some(Duration::from_millis(300));
        let start = Instant::now();
        let report = compare(&l, &r, &o);
        let took = start.elapsed();
        // Without the stop watch a single run takes tens of seconds; a generous bound
        // keeps this independent of the machine's load.
        assert!(took < Duration::from_secs(10), "{engine:?} took {took:?}");
        assert!(
            matches!(report.verdict, Verdict::PossiblyEquivalent(_)),
            "{engine:?}: {:?}",
            report.verdict
        );
    }
    // The stopped run is reported as such, never as a result.
    let mut config = Config::with_fuel(u64::MAX);
    config.stop = tamarin_mips::Stop::at(Some(Instant::now()));
    let o = run_program(&l, config, &Frontend::TwoInts(0, 0), &[]).expect("runs");
    assert_eq!(o.status, Status::Stopped);
}
