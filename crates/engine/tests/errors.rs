//! The front door refuses tasks that cannot be carried out, with a typed error: each
//! variant of `tamarin::Error` for the matching bad task, through `compare`, `check`
//! and `explore` alike (the crate root only).

use std::time::Duration;

use tamarin::mips::asm::assemble;
use tamarin::mips::cpu::SetupError;
use tamarin::mips::Program;
use tamarin::{check, compare, explore, Error, InputSpec, Observable, Options, Quiet, Verdict};

fn add() -> Program {
    assemble("add.asm", "add $3, $1, $2\njr $31\n").unwrap()
}

/// A program with two paths: only the solver can tell the second one's inputs (no
/// edge input reaches it, and no single input decides it).
fn branchy() -> Program {
    assemble(
        "branchy.asm",
        "lis $4\n.word 12345\nadd $5, $1, $2\nbeq $5, $4, there\nadd $3, $1, $2\njr $31\nthere:\nsub $3, $1, $2\njr $31\n",
    )
    .unwrap()
}

/// The error of every entry on `program` (against itself for `compare`), which must be
/// the same for all three.
fn refused(program: &Program, opts: &Options) -> Error {
    let by_compare = compare(program, program, opts, &mut Quiet).expect_err("compare refuses");
    let by_check = check(program, opts, &mut Quiet).expect_err("check refuses");
    let by_explore = explore(program, opts, &mut Quiet).expect_err("explore refuses");
    assert_eq!(by_check, by_compare);
    assert_eq!(by_explore, by_compare);
    by_compare
}

fn array_at(base: u32) -> Options {
    let mut opts = Options::default();
    opts.inputs = InputSpec::Array {
        max_len: 2,
        base: Some(base),
    };
    opts
}

#[test]
fn an_array_that_no_length_can_place_is_a_setup_error() {
    assert_eq!(
        refused(&add(), &array_at(6)),
        Error::Setup(SetupError::ArrayUnaligned(6))
    );
    let past_memory = array_at(tamarin::mips::memory::MEM_SIZE + 4);
    assert!(matches!(
        refused(&add(), &past_memory),
        Error::Setup(SetupError::ArrayTooLarge { .. })
    ));
    // A base where some lengths fit is a task: the lengths that do not fit are a
    // property of some inputs, reported as such.
    let report = compare(&add(), &add(), &array_at(0x100), &mut Quiet).expect("a task");
    assert!(matches!(report.verdict, Verdict::Equivalent(_)));
}

#[test]
fn an_observable_out_of_range_is_refused() {
    for (from, to) in [
        (1, 8),
        (8, 4),
        (0, tamarin::mips::memory::MEM_SIZE),
        (0, 1 << 20),
    ] {
        let mut opts = Options::default();
        let observable = Observable::Mem { from, to };
        opts.observe = vec![Observable::Hi, observable];
        match refused(&add(), &opts) {
            Error::Observable {
                observable: o,
                message,
            } => {
                assert_eq!(o, observable);
                assert!(!message.is_empty());
            }
            other => panic!("{from:#x}..{to:#x}: {other:?}"),
        }
    }
}

#[cfg(unix)]
#[test]
fn a_solver_command_that_is_not_a_solver_is_refused_before_the_search() {
    for command in ["no-such-solver-here", "cat", "'unbalanced", " "] {
        let mut opts = Options::default();
        opts.solver.external = Some(command.to_string());
        opts.solver.timeout = Duration::from_secs(2);
        match refused(&branchy(), &opts) {
            Error::Solver {
                command: c,
                message,
            } => {
                assert_eq!(c, command);
                assert!(!message.is_empty());
            }
            other => panic!("{command}: {other:?}"),
        }
    }
}

#[cfg(unix)]
#[test]
fn a_solver_that_stops_answering_like_one_is_a_failure_not_a_verdict() {
    // Answers `sat` to the probe (a query without inputs), then `sat` without the
    // values of the inputs to every real query.
    let command = "sh -c 'cat >/dev/null; echo sat'";
    let mut opts = Options::default();
    opts.solver.external = Some(command.to_string());
    opts.solver.timeout = Duration::from_secs(2);
    for engine in [tamarin::Engine::Concolic, tamarin::Engine::Auto] {
        opts.engine = engine;
        match refused(&branchy(), &opts) {
            Error::SolverFailed {
                command: c,
                message,
            } => {
                assert_eq!(c, command);
                assert!(message.contains("value"), "{message}");
            }
            other => panic!("{engine:?}: {other:?}"),
        }
    }
}

#[test]
fn errors_say_what_is_wrong() {
    let e = refused(&add(), &array_at(6));
    assert_eq!(
        e.to_string(),
        "cannot place the input array: the array address 0x6 is not a multiple of 4"
    );
}
