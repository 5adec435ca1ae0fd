//! Every instruction, three implementations, the same values.
//!
//! Each row of the table is a tiny program built around one instruction, with `$1`,
//! `$2` and two bytes of standard input as the inputs. For every pair of values from
//! `VALUES` (edges of the arithmetic, I/O addresses, code, data, unaligned and
//! out-of-memory addresses, the termination address):
//!
//! - the emulator runs the program (the reference);
//! - the tracer (`trace::SymTracer`, the semantics driven along a concrete run) must
//!   reproduce the run, its conditions must hold, and its result terms must give the
//!   machine's values at *every* point of the table whose run its conditions admit;
//! - the unroller (`bmc::unroll`, the semantics driven by forking) must say what the
//!   machine did: exactly one normal end with the right output length and values, the
//!   error guard, or nothing when the run is out of fuel (points in a part it declares
//!   uncovered are skipped, and counted: a row may not skip them all).

use std::sync::Arc;

use tamarin::bmc::unroll::{unroll, Setup, Summary};
use tamarin::io::{InputLayout, InputSpec, Observable, Observed};
use tamarin::solver::{build_chain, Solver, SolverConfig};
use tamarin::term::{Evaluator, Term, TermStore};
use tamarin::trace::SymTracer;
use tamarin_mips::cpu::{
    Config, Machine, NoTrace, Outcome, Status, DEFAULT_TERMINATION, INPUT_ADDR, OUTPUT_ADDR,
};
use tamarin_mips::{asm, Program, Reg};

const FUEL: u64 = 12;

/// The values `$1` and `$2` take, pairwise.
const VALUES: [u32; 18] = [
    0,
    1,
    2,
    3,
    7,
    6, // unaligned
    u32::MAX,
    0xFFFF_FFFE,
    0x7FFF_FFFF,
    0x8000_0000,
    0x1000,      // data
    4,           // code
    8,           // code
    INPUT_ADDR,  // standard input
    OUTPUT_ADDR, // standard output
    0xFFFF_0000, // standard input at offset 4
    0x0100_0000, // past the end of memory
    DEFAULT_TERMINATION,
];

/// One program per instruction; the comment names what the row is about.
fn table() -> Vec<(&'static str, String)> {
    let term = DEFAULT_TERMINATION;
    vec![
        ("add", "add $3, $1, $2\njr $31\n".into()),
        ("sub", "sub $3, $1, $2\njr $31\n".into()),
        ("slt", "slt $3, $1, $2\njr $31\n".into()),
        ("sltu", "sltu $3, $1, $2\njr $31\n".into()),
        ("mult", "mult $1, $2\njr $31\n".into()),
        ("multu", "multu $1, $2\njr $31\n".into()),
        ("div", "div $1, $2\njr $31\n".into()),
        ("divu", "divu $1, $2\njr $31\n".into()),
        ("mfhi", "mult $1, $2\nmfhi $3\njr $31\n".into()),
        ("mflo", "divu $1, $2\nmflo $4\njr $31\n".into()),
        (
            "lis",
            "lis $3\n.word 0x12345678\nadd $4, $3, $1\njr $31\n".into(),
        ),
        ("lw", "lw $3, 0($1)\nlw $4, 4($2)\njr $31\n".into()),
        ("sw", "sw $2, 0($1)\nlw $3, 4096($0)\njr $31\n".into()),
        ("beq", "beq $1, $2, 1\nadd $3, $1, $0\njr $31\n".into()),
        ("bne", "bne $1, $2, 1\nadd $3, $1, $0\njr $31\n".into()),
        ("jr", "jr $1\nadd $3, $2, $2\njr $31\n".into()),
        (
            "jalr",
            format!("jalr $1\nadd $3, $31, $0\nlis $31\n.word {term:#x}\njr $31\n"),
        ),
    ]
}

fn observables() -> Vec<Observable> {
    vec![
        Observable::Reg(Reg::new(3).expect("register")),
        Observable::Reg(Reg::new(4).expect("register")),
        Observable::Reg(Reg::RA),
        Observable::Hi,
        Observable::Lo,
        Observable::Output,
        Observable::Mem {
            from: 0x1000,
            to: 0x1004,
        },
    ]
}

/// The inputs of one point: `$1`, `$2` and two input bytes.
fn points() -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for (k, &a) in VALUES.iter().enumerate() {
        for (j, &b) in VALUES.iter().enumerate() {
            let bytes = [(k * 37 + j) as u32 % 256, (j * 11 + 200) as u32 % 256];
            out.push(vec![a, b, bytes[0], bytes[1]]);
        }
    }
    out
}

/// A concrete run and what it observed (one number per word or byte).
struct Run {
    outcome: Outcome,
    observed: Vec<Vec<u64>>,
}

fn machine(program: &Program, layout: &InputLayout, point: &[u32]) -> Machine {
    let mut m = Machine::new(program, Config::with_fuel(FUEL));
    let (frontend, stdin) = layout.run_inputs(point);
    m.apply(&frontend).expect("registers only");
    layout.set_registers(&mut m, point);
    m.set_input(Arc::from(stdin));
    m
}

fn run(program: &Program, layout: &InputLayout, point: &[u32]) -> Run {
    let mut m = machine(program, layout, point);
    let outcome = m.run_to_outcome(&mut NoTrace);
    let observed = observables()
        .iter()
        .map(|o| match tamarin::io::observe(&m, &outcome, o) {
            Observed::Word(w) => vec![w as u64],
            Observed::Bytes(bs) => bs.iter().map(|&b| b as u64).collect(),
            Observed::Words(ws) => ws.iter().map(|&w| w as u64).collect(),
        })
        .collect();
    Run { outcome, observed }
}

fn values(point: &[u32]) -> Vec<u64> {
    point.iter().map(|&v| v as u64).collect()
}

/// Whether the inputs are terms (the symbolic paths of the semantics) or the point's
/// own values as constants (its concrete paths: input-independent work).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Symbolic,
    Concrete,
}

/// The input registers and standard input bytes a driver starts from.
fn inputs(
    store: &mut TermStore,
    layout: &InputLayout,
    point: &[u32],
    mode: Mode,
) -> (Vec<(Reg, Term)>, Vec<Term>) {
    match mode {
        Mode::Symbolic => (
            layout.symbolic_registers(),
            layout.symbolic_stdin().to_vec(),
        ),
        Mode::Concrete => {
            let bytes = point[2..]
                .iter()
                .map(|&b| store.constant(8, b as u64))
                .collect();
            (Vec::new(), bytes)
        }
    }
}

/// What the tracer recorded on the run at one point.
struct Traced {
    point: Vec<u32>,
    status: Status,
    conds: Vec<Term>,
    terms: Vec<Vec<Term>>,
}

/// The tracer on the run at `point`, which must be the machine's run.
fn trace(
    name: &str,
    program: &Program,
    layout: &InputLayout,
    store: &mut TermStore,
    point: &[u32],
    plain: &Run,
    mode: Mode,
) -> Traced {
    let mut m = machine(program, layout, point);
    let (registers, stdin) = inputs(store, layout, point, mode);
    let mut tracer = SymTracer::new(
        store,
        m.regs(),
        &registers,
        program.words().clone(),
        DEFAULT_TERMINATION,
        false,
    )
    .with_stdin(stdin);
    let outcome = m.run_to_outcome(&mut tracer);
    assert!(tracer.gave_up().is_none(), "{name} {point:x?}: gave up");
    let terms: Vec<Vec<Term>> = observables().iter().map(|o| tracer.observe(o)).collect();
    let (conds, _, _) = tracer.finish();
    assert_eq!(outcome, plain.outcome, "{name} {point:x?}: the traced run");
    Traced {
        point: point.to_vec(),
        status: outcome.status,
        conds: conds.iter().map(|c| c.cond).collect(),
        terms,
    }
}

/// Checks every traced run at every point its conditions admit: the run there ends
/// the same way, and where it ends normally, the terms give its values. Returns how
/// many (traced, checked) pairs there were.
fn check_traces(
    name: &str,
    store: &TermStore,
    traced: &[Traced],
    all: &[(Vec<u32>, Run)],
    mode: Mode,
) -> usize {
    let mut checked = 0;
    for (other, there) in all {
        let vals = values(other);
        let mut ev = Evaluator::new(store, &vals);
        for t in traced {
            if mode == Mode::Concrete && &t.point != other {
                continue;
            }
            if !t.conds.iter().all(|&c| ev.holds(c)) {
                assert_ne!(
                    other, &t.point,
                    "{name} {:x?}: a condition is false",
                    t.point
                );
                continue;
            }
            checked += 1;
            let at = format!("{name}: traced at {:x?}, checked at {other:x?}", t.point);
            assert_eq!(
                std::mem::discriminant(&there.outcome.status),
                std::mem::discriminant(&t.status),
                "{at}: the path's conditions admit a run that ends otherwise"
            );
            if t.status == Status::Done {
                for (o, (ts, want)) in observables()
                    .iter()
                    .zip(t.terms.iter().zip(&there.observed))
                {
                    let got: Vec<u64> = ts.iter().map(|&x| ev.eval(x)).collect();
                    assert_eq!(&got, want, "{at}: observable {o}");
                }
            }
        }
    }
    checked
}

/// The unroller's summary of `program` (in concrete mode, of its run at `point`),
/// asking `solver` (one chain for a whole row: building one per point would take
/// most of the row's time).
fn summarize(
    store: &mut TermStore,
    layout: &InputLayout,
    program: &Program,
    point: &[u32],
    mode: Mode,
    solver: &mut dyn Solver,
) -> Summary {
    let observe = observables();
    let m = machine(program, layout, point);
    let (symbolic_registers, stdin) = inputs(store, layout, point, mode);
    let setup = Setup {
        program,
        fuel: FUEL,
        termination: DEFAULT_TERMINATION,
        observe: &observe,
        registers: m.regs().gpr,
        symbolic_registers,
        symbolic_memory: Vec::new(),
        stdin,
        max_terms: 1_000_000,
        stop: Default::default(),
    };
    unroll(store, &setup, &mut |s: &mut TermStore, q| {
        solver.check(s, q)
    })
}

/// The unroller's summary at every point; returns how many points were uncovered.
fn check_unroller(
    name: &str,
    summary: &Summary,
    store: &TermStore,
    all: &[(Vec<u32>, Run)],
) -> usize {
    let mut uncovered = 0;
    for (point, there) in all {
        let vals = values(point);
        let mut ev = Evaluator::new(store, &vals);
        if summary.uncovered.iter().any(|&(_, g)| ev.holds(g)) {
            uncovered += 1;
            continue;
        }
        let at = format!("{name} at {point:x?}, {:?}", there.outcome.status);
        let ends: Vec<usize> = (0..summary.done.len())
            .filter(|&k| ev.holds(summary.done[k].1.guard))
            .collect();
        let failed = ev.holds(summary.error);
        match there.outcome.status {
            Status::Done => {
                assert!(!failed, "{at}: the error guard holds");
                assert_eq!(ends.len(), 1, "{at}: normal ends holding");
                let (len, end) = &summary.done[ends[0]];
                assert_eq!(*len, there.outcome.output.len(), "{at}: output length");
                for (o, (ts, want)) in observables()
                    .iter()
                    .zip(end.observed.iter().zip(&there.observed))
                {
                    let got: Vec<u64> = ts.iter().map(|&t| ev.eval(t)).collect();
                    assert_eq!(&got, want, "{at}: observable {o}");
                }
            }
            Status::Error(_) => {
                assert!(failed, "{at}: the error guard does not hold");
                assert!(ends.is_empty(), "{at}: a normal end holds");
            }
            Status::OutOfFuel | Status::Stopped => {
                assert!(!failed && ends.is_empty(), "{at}: an end holds out of fuel");
            }
        }
    }
    uncovered
}

/// One test per row and mode, so rows run side by side and a failure names its row.
macro_rules! rows {
    ($($name:ident),* $(,)?) => {
        mod symbolic {
            $(#[test] fn $name() { super::agree_on_row(stringify!($name), super::Mode::Symbolic) })*
        }
        mod concrete {
            $(#[test] fn $name() { super::agree_on_row(stringify!($name), super::Mode::Concrete) })*
        }
        const ROW_TESTS: &[&str] = &[$(stringify!($name)),*];
    };
}

rows!(add, sub, slt, sltu, mult, multu, div, divu, mfhi, mflo, lis, lw, sw, beq, bne, jr, jalr);

#[test]
fn the_table_runs_every_instruction_and_every_row_has_its_tests() {
    let table = table();
    let mut seen = std::collections::HashSet::new();
    for (name, text) in &table {
        let program = asm::assemble(&format!("{name}.asm"), text).expect("assembles");
        seen.extend(program.ops().iter().flatten().map(std::mem::discriminant));
    }
    assert_eq!(seen.len(), ALL_INSTRUCTIONS, "every instruction is run");
    let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names, ROW_TESTS,
        "a test for every row, and a row for every instruction"
    );
    assert_eq!(names.len(), ALL_INSTRUCTIONS);
}

/// The machine, the tracer and the unroller on one row, at every point.
fn agree_on_row(name: &str, mode: Mode) {
    let text = table()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t)
        .expect("a row of the table");
    let program = asm::assemble(&format!("{name}.asm"), &text).expect("assembles");
    let mut store = TermStore::new();
    let layout = InputLayout::declare(&mut store, &InputSpec::default(), 2);
    let all: Vec<(Vec<u32>, Run)> = points()
        .into_iter()
        .map(|p| {
            let r = run(&program, &layout, &p);
            (p, r)
        })
        .collect();
    let traced: Vec<Traced> = all
        .iter()
        .map(|(p, r)| trace(name, &program, &layout, &mut store, p, r, mode))
        .collect();
    let checked = check_traces(name, &store, &traced, &all, mode);
    assert!(
        checked >= all.len(),
        "{name}: every traced point checks itself"
    );
    let mut solver = build_chain(&SolverConfig::default(), Default::default(), Vec::new());
    let uncovered = match mode {
        Mode::Symbolic => {
            let summary = summarize(&mut store, &layout, &program, &all[0].0, mode, &mut solver);
            check_unroller(name, &summary, &store, &all)
        }
        Mode::Concrete => all
            .chunks(1)
            .map(|one| {
                let summary =
                    summarize(&mut store, &layout, &program, &one[0].0, mode, &mut solver);
                check_unroller(name, &summary, &store, one)
            })
            .sum(),
    };
    assert!(
        uncovered < all.len() / 4,
        "{name}: {uncovered} points uncovered"
    );
}

/// How many instructions CS241 MIPS has (the decoder's table).
const ALL_INSTRUCTIONS: usize = tamarin_mips::isa::PATTERNS.len();
