//! Loads and stores at addresses that depend on the inputs, encoded as array reads and
//! writes: differences that only a precise memory model can find.

mod common;

use tamarin::concolic::{Options, Report};
use tamarin::verdict::Verdict;
use tamarin_mips::asm::assemble;
use tamarin_mips::cpu::{run_program, Config, Frontend};
use tamarin_mips::Program;

fn asm(text: &str) -> Program {
    assemble("test.asm", text).unwrap_or_else(|e| panic!("{e}"))
}

fn cmp(l: &str, r: &str) -> (Program, Program, Report) {
    let (l, r) = (asm(l), asm(r));
    let (report, _) = common::compare_all(&l, &r, &Options::default());
    (l, r, report)
}

fn witness(report: &Report) -> (u32, u32) {
    match &report.verdict {
        Verdict::Disequivalent(cx) => (cx.inputs[0].1, cx.inputs[1].1),
        v => panic!("expected disequivalent, got {v:?}"),
    }
}

/// Stores $2 at 0x1000 + 4 * ($1 mod 16) (always a valid address), then reads the word
/// at 0x100c: the two alias exactly when $1 mod 16 == 3.
const ALIAS: &str = "
    lis $4
    .word 16
    divu $1, $4
    mfhi $5
    add $5, $5, $5
    add $5, $5, $5
    lis $6
    .word 0x1000
    add $5, $5, $6
    sw $2, 0($5)
    lis $7
    .word 0x100c
    lw $3, 0($7)
    jr $31
";

const NO_ALIAS: &str = "
    lis $3
    .word 0
    jr $31
";

#[test]
fn a_store_and_a_load_at_different_addresses_can_alias() {
    let (l, r, report) = cmp(ALIAS, NO_ALIAS);
    let (a, b) = witness(&report);
    assert_eq!(a % 16, 3);
    assert_ne!(b, 0);
    let f = Frontend::TwoInts(a, b);
    let lo = run_program(&l, Config::default(), &f, &[]).expect("runs");
    let ro = run_program(&r, Config::default(), &f, &[]).expect("runs");
    assert_eq!(lo.regs.gpr[3], b);
    assert_eq!(ro.regs.gpr[3], 0);
}

#[test]
fn a_table_lookup_is_read_precisely() {
    // $3 = table[$1] for a four-entry table; the right table differs in entry 2.
    let table = |third: u32| {
        format!(
            "
            lis $4
            .word table
            add $5, $1, $1
            add $5, $5, $5
            add $5, $5, $4
            lw $3, 0($5)
            jr $31
            table: .word 10
            .word 20
            .word {third}
            .word 40
            "
        )
    };
    let (_, _, report) = cmp(&table(30), &table(31));
    let (a, _) = witness(&report);
    assert_eq!(a, 2, "only entry 2 differs");
    let (_, _, same) = cmp(&table(30), &table(30));
    assert!(!matches!(same.verdict, Verdict::Disequivalent(_)));
}

#[test]
fn an_input_dependent_access_can_be_steered_into_an_error() {
    // The left program loads from $1 (most values are unaligned or out of range, an
    // error); the right one returns 0. They differ on any $1 that loads a non-zero word
    // or that fails.
    let (_, _, report) = cmp("lw $3, 0($1)\njr $31\n", "lis $3\n.word 0\njr $31\n");
    let _ = witness(&report);
}

#[test]
fn the_stack_with_an_input_dependent_slot() {
    // Writes $2 to one of two stack slots chosen by $1 & 4, reads the first slot.
    let l = "
        lis $4
        .word -8
        add $30, $30, $4
        lis $5
        .word 4
        slt $6, $1, $0      ; $6 = $1 < 0
        add $6, $6, $6
        add $6, $6, $6      ; $6 = 0 or 4
        add $7, $30, $6
        sw $2, 0($7)
        lw $3, 0($30)
        jr $31
    ";
    let r = "
        slt $6, $1, $0
        bne $6, $0, neg
        add $3, $2, $0
        jr $31
        neg:
        lis $3
        .word 0
        jr $31
    ";
    let (_, _, report) = cmp(l, r);
    assert!(
        matches!(report.verdict, Verdict::Equivalent(_)),
        "{:?}",
        report.verdict
    );
}
