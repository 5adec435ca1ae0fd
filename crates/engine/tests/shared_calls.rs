//! Shared procedures compared by their calls: the runtime's `print`, linked into both
//! programs, decides pairs that deriving its division chains again could not; the
//! verdicts agree with concrete runs and with the comparison that follows the calls;
//! a procedure's arguments, what a call leaves unknown and a procedure on one side
//! only are handled as `tamarin::shared` says.

use std::time::Duration;

use proptest::prelude::*;
use tamarin::{compare, Engine, Incomplete, Observable, Options, Quiet, Verdict};
use tamarin_mips::asm::assemble;
use tamarin_mips::cpu::{Machine, Status};
use tamarin_mips::{Program, Reg};

const PRINT: &str = include_str!("../../../examples/runtime/print.asm");

/// A caller: `body` computes `$1` from `$1` and `$2`, then print is called and `$3`
/// set to `ret`; print is linked after it.
fn caller(body: &str, ret: &str) -> Program {
    let text = format!(
        "{body}\nlis $4\n.word 4\nsw $31, -4($30)\nsub $30, $30, $4\nlis $5\n.word print\n\
         jalr $5\nadd $30, $30, $4\nlw $31, -4($30)\n{ret}\njr $31\n{PRINT}"
    );
    assemble("caller.asm", &text).unwrap_or_else(|e| panic!("{e}"))
}

fn opts(shared: bool) -> Options {
    let mut o = Options::default();
    o.observe = vec![Observable::Output, Observable::Reg(Reg::new(3).unwrap())];
    o.timeout = Some(Duration::from_secs(60));
    o.shared_calls = shared;
    o
}

fn run(p: &Program, a: u32, b: u32) -> (Status, Vec<u8>, u32) {
    let mut m = Machine::new(p, opts(true).machine_config());
    m.set_reg(Reg::new(1).unwrap(), a);
    m.set_reg(Reg::new(2).unwrap(), b);
    let o = m.run_to_outcome(&mut tamarin_mips::NoTrace);
    (o.status, o.output, o.regs.gpr[3])
}

#[test]
fn printing_a_computed_value_is_proved_through_the_calls() {
    // a + b printed, computed two ways.
    let left = caller("add $1, $1, $2", "add $3, $0, $0");
    let right = caller("add $6, $2, $0\nadd $1, $6, $1", "add $3, $0, $0");
    let r = compare(&left, &right, &opts(true), &mut Quiet).unwrap();
    assert!(
        matches!(r.verdict, Verdict::Equivalent(_)),
        "{:?}",
        r.verdict
    );
    assert!(r.stats.call_events >= 2, "{:?}", r.stats.call_events);
}

#[test]
fn a_different_argument_is_a_replayed_difference() {
    let left = caller("add $1, $1, $2", "add $3, $0, $0");
    let right = caller("sub $1, $1, $2", "add $3, $0, $0");
    let r = compare(&left, &right, &opts(true), &mut Quiet).unwrap();
    let Verdict::Disequivalent(cx) = r.verdict else {
        panic!("expected a difference, got {:?}", r.verdict);
    };
    assert_ne!(cx.left.output, cx.right.output);
}

/// A procedure whose output is `$2`'s low byte: its argument is `$2`, not `$1`. Were
/// the arguments read off wrongly (say, none), both calls would look alike.
const SHOW_B: &str = "show:\nlis $4\n.word 0xffff000c\nsw $2, 0($4)\njr $31\n";

#[test]
fn a_procedure_s_argument_is_what_its_output_depends_on() {
    let call = "lis $4\n.word 4\nsw $31, -4($30)\nsub $30, $30, $4\nlis $5\n.word show\njalr $5\n\
                lis $4\n.word 4\nadd $30, $30, $4\nlw $31, -4($30)\n";
    let left = assemble("l.asm", &format!("{call}add $3, $0, $0\njr $31\n{SHOW_B}")).unwrap();
    // $2 + 1 where $2 == 77, without a branch: no path of its own for the search to
    // run, and no edge input shows it; only the call's argument tells the sides apart.
    let only_77 = "lis $6\n.word 78\nslt $7, $2, $6\nlis $6\n.word 77\nslt $8, $2, $6\n\
                   sub $7, $7, $8\nadd $2, $2, $7\n";
    let right = assemble(
        "r.asm",
        &format!("{only_77}{call}add $3, $0, $0\njr $31\n{SHOW_B}"),
    )
    .unwrap();
    let r = compare(&left, &right, &opts(true), &mut Quiet).unwrap();
    let Verdict::Disequivalent(cx) = r.verdict else {
        panic!("expected a difference, got {:?}", r.verdict);
    };
    assert_eq!(cx.left.regs.gpr[2], 77);
}

#[test]
fn reading_what_a_call_left_unknown_gives_the_run_up() {
    // The left program reads the word where print saved $2: equal to $2, but only
    // print's code says so, and the call event does not. (The merged encoding, which
    // follows print, proves the pair: auto would.)
    let left = caller("", "lw $3, -12($30)");
    let right = caller("", "add $3, $2, $0");
    let mut path_search = opts(true);
    path_search.engine = Engine::Concolic;
    let r = compare(&left, &right, &path_search, &mut Quiet).unwrap();
    let Verdict::PossiblyEquivalent(reasons) = &r.verdict else {
        panic!("expected possibly-equivalent, got {:?}", r.verdict);
    };
    assert!(
        reasons
            .iter()
            .any(|x| matches!(x, Incomplete::CallEffects { .. })),
        "{reasons:?}"
    );
}

#[test]
fn a_fault_right_after_a_call_is_the_caller_s() {
    // Division by $2 at print's return address: zero faults there, on both sides.
    let call = |after: &str| {
        let text = format!(
            "lis $4\n.word 4\nsw $31, -4($30)\nsub $30, $30, $4\nlis $5\n.word print\njalr $5\n\
             div $1, $2\n{after}add $30, $30, $4\nlw $31, -4($30)\nmflo $3\njr $31\n{PRINT}"
        );
        assemble("fault.asm", &text).unwrap_or_else(|e| panic!("{e}"))
    };
    let (left, right) = (call(""), call("add $6, $0, $0\n"));
    let mut path_search = opts(true);
    path_search.engine = Engine::Concolic;
    let r = compare(&left, &right, &path_search, &mut Quiet).unwrap();
    assert!(
        matches!(r.verdict, Verdict::Equivalent(_)),
        "{:?}",
        r.verdict
    );
}

/// What `$1` becomes before print, and what `$3` becomes after it.
const BODIES: [&str; 6] = [
    "add $1, $1, $2",
    "sub $1, $1, $2",
    "add $1, $2, $1",
    "slt $1, $1, $2",
    "mult $1, $2\nmflo $1",
    "",
];
const RETURNS: [&str; 3] = ["add $3, $0, $0", "add $3, $1, $0", "add $3, $2, $2"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Verdicts through calls agree with concrete runs.
    #[test]
    fn verdicts_through_calls_agree_with_runs(
        lb in 0usize..6, rb in 0usize..6, lr in 0usize..3, rr in 0usize..3,
        probes in proptest::collection::vec((any::<i8>(), any::<i32>()), 12),
    ) {
        let left = caller(BODIES[lb], RETURNS[lr]);
        let right = caller(BODIES[rb], RETURNS[rr]);
        let r = compare(&left, &right, &opts(true), &mut Quiet).unwrap();
        match &r.verdict {
            Verdict::Equivalent(_) => {
                for &(a, b) in &probes {
                    for (a, b) in [(a as u32, b as u32), (b as u32, a as u32)] {
                        prop_assert_eq!(run(&left, a, b), run(&right, a, b));
                    }
                }
            }
            Verdict::Disequivalent(cx) => {
                prop_assert!(cx.left.output != cx.right.output || cx.left.regs.gpr[3] != cx.right.regs.gpr[3]);
            }
            Verdict::PossiblyEquivalent(_) => {}
        }
    }
}
