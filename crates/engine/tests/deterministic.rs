//! Verdicts decided by counts: a deterministic task refuses what only the clock
//! bounds, sizes its solver work from its time limit, and marks what the clock cut.

use std::time::Duration;

use tamarin::{Error, Incomplete, Options, Quiet, Verdict};
use tamarin_mips::asm::assemble;
use tamarin_mips::Program;

fn asm(text: &str) -> Program {
    assemble("test.asm", text).unwrap_or_else(|e| panic!("{e}"))
}

/// Sums 1..$1 one at a time against the closed form: a path per trip count, far
/// more than a short budget covers.
const LOOP: &str = "lis $5\n.word 1\nadd $3, $0, $0\nadd $4, $0, $0\nloop:\nbeq $4, $1, done\nadd $4, $4, $5\nadd $3, $3, $4\nbeq $0, $0, loop\ndone:\njr $31\n";
const CLOSED: &str = "lis $5\n.word 1\nadd $4, $1, $5\nmult $1, $4\nmflo $3\nlis $6\n.word 2\ndivu $3, $6\nmflo $3\njr $31\n";

fn deterministic() -> Options {
    let mut o = Options::default();
    o.deterministic = true;
    o.solver.portfolio = Vec::new();
    o.timeout = Some(Duration::from_secs(300));
    o
}

fn reasons(v: &Verdict) -> Vec<Incomplete> {
    match v {
        Verdict::PossiblyEquivalent(r) => r.clone(),
        other => panic!("expected possibly-equivalent, got {}", other.name()),
    }
}

#[test]
fn a_deterministic_task_refuses_what_only_the_clock_bounds() {
    let p = asm("jr $31\n");
    let mut raced = deterministic();
    raced.solver.portfolio = vec!["yices".into()];
    let mut piped = deterministic();
    piped.solver.external = Some("cvc5".into());
    let mut unlimited = deterministic();
    unlimited.solver.resource_limit = None;
    for o in [raced, piped, unlimited] {
        let e = tamarin::compare(&p, &p, &o, &mut Quiet).unwrap_err();
        assert!(matches!(e, Error::NotDeterministic { .. }), "{e:?}");
    }
    assert!(tamarin::compare(&p, &p, &deterministic(), &mut Quiet).is_ok());
}

#[test]
fn the_solver_work_is_sized_by_the_time_limit_unless_set() {
    let mut o = deterministic();
    o.timeout = Some(Duration::from_secs(30));
    assert_eq!(
        o.solver_work(),
        Some(30 * tamarin::DETERMINISTIC_WORK_PER_SECOND)
    );
    o.solver.work_budget = Some(5);
    assert_eq!(o.solver_work(), Some(5));
    o.solver.work_budget = None;
    o.timeout = None;
    assert_eq!(o.solver_work(), None);
    o.timeout = Some(Duration::from_secs(30));
    o.deterministic = false;
    assert_eq!(o.solver_work(), None);
}

/// A search that its counts stop is not marked; one that the time limit stops is,
/// and the same task stopped by counts twice gives the same reasons.
#[test]
fn what_the_clock_cut_is_marked_and_what_counts_cut_is_not() {
    let (l, r) = (asm(LOOP), asm(CLOSED));
    let mut counted = deterministic();
    counted.engine = tamarin::Engine::Concolic;
    counted.max_runs = 40;
    counted.fuel = 100_000;
    let once = reasons(
        &tamarin::compare(&l, &r, &counted, &mut Quiet)
            .unwrap()
            .verdict,
    );
    assert!(
        !once.is_empty() && once.iter().all(|i| !i.cut_by_wall_clock()),
        "{once:?}"
    );
    let twice = reasons(
        &tamarin::compare(&l, &r, &counted, &mut Quiet)
            .unwrap()
            .verdict,
    );
    assert_eq!(once, twice);

    let mut clocked = counted.clone();
    clocked.max_runs = u64::MAX;
    clocked.timeout = Some(Duration::from_millis(1));
    let cut = reasons(
        &tamarin::compare(&l, &r, &clocked, &mut Quiet)
            .unwrap()
            .verdict,
    );
    assert!(cut.iter().any(Incomplete::cut_by_wall_clock), "{cut:?}");
}

/// The merged encoding stopped by the deadline says so: its unrolling's own reason is a
/// count's name (`encoding-budget`), so the time limit is added as a reason of its own.
#[test]
fn an_encoding_the_deadline_stopped_is_marked() {
    let (l, r) = (asm(LOOP), asm(CLOSED));
    let mut o = deterministic();
    o.engine = tamarin::Engine::Bmc;
    o.fuel = 10_000_000;
    o.timeout = Some(Duration::from_millis(1));
    let cut = reasons(&tamarin::compare(&l, &r, &o, &mut Quiet).unwrap().verdict);
    assert!(cut.iter().any(|i| i.kind() == "time-limit"), "{cut:?}");
    assert!(cut.iter().any(Incomplete::cut_by_wall_clock), "{cut:?}");
}
