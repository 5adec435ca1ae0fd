//! One program alone: `check` finds the inputs that make it fail, `explore` lists one
//! input per path.

use tamarin::check::check;
use tamarin::concolic::{explore, Options, Quiet};
use tamarin::verdict::Incomplete;
use tamarin_mips::asm::assemble;
use tamarin_mips::cpu::FaultKind;
use tamarin_mips::Program;

fn asm(text: &str) -> Program {
    assemble("test.asm", text).unwrap_or_else(|e| panic!("{e}"))
}

fn kinds(p: &Program) -> Vec<(FaultKind, u32)> {
    check(p, &Options::default(), &mut Quiet)
        .findings
        .iter()
        .map(|f| match f.kind {
            tamarin::FindingKind::Fault(k) => (k, f.pc),
            other => panic!("not a fault: {other:?}"),
        })
        .collect()
}

#[test]
fn division_by_an_input_is_found_with_a_zero_divisor() {
    let p = asm("div $1, $2\nmflo $3\njr $31\n");
    let report = check(&p, &Options::default(), &mut Quiet);
    assert_eq!(report.findings.len(), 1);
    let f = &report.findings[0];
    assert_eq!(
        (f.kind, f.pc),
        (tamarin::FindingKind::Fault(FaultKind::DivisionByZero), 0)
    );
    assert_eq!(f.inputs[1].1, 0);
    assert!(report.incomplete().is_empty());
}

#[test]
fn a_guarded_division_has_no_finding() {
    let p = asm("beq $2, $0, out\ndiv $1, $2\nmflo $3\nout:\njr $31\n");
    let report = check(&p, &Options::default(), &mut Quiet);
    assert!(report.findings.is_empty());
    assert!(report.incomplete().is_empty(), "{:?}", report.incomplete());
}

#[test]
fn an_unchecked_table_index_fails_two_ways() {
    // $3 = table[$1] with no bounds check: unaligned for odd offsets, out of range far away.
    let p = asm("lis $4\n.word table\nadd $5, $1, $4\nlw $3, 0($5)\njr $31\ntable: .word 1\n");
    let k = kinds(&p);
    assert!(k.contains(&(FaultKind::UnalignedAccess, 12)), "{k:?}");
    assert!(k.contains(&(FaultKind::OutOfRangeAccess, 12)), "{k:?}");
}

#[test]
fn a_computed_jump_can_go_anywhere() {
    let p = asm("jr $1\n");
    let k = kinds(&p);
    assert!(k.contains(&(FaultKind::BadPc, 0)), "{k:?}");
    // Jumping into the zeros past the program.
    assert!(
        k.iter()
            .any(|&(kind, _)| kind == FaultKind::InvalidInstruction),
        "{k:?}"
    );
}

#[test]
fn running_off_the_end_is_found_without_inputs() {
    let p = asm("add $3, $1, $2\n");
    assert_eq!(kinds(&p), vec![(FaultKind::InvalidInstruction, 4)]);
}

#[test]
fn runs_out_of_fuel_are_reported_apart() {
    let p = asm("bne $1, $0, spin\njr $31\nspin:\nbeq $0, $0, spin\n");
    let report = check(&p, &Options::default(), &mut Quiet);
    assert!(report.findings.is_empty());
    assert_eq!(report.out_of_fuel.len(), 1);
    assert_ne!(report.out_of_fuel[0].inputs[0].1, 0);
}

#[test]
fn paths_come_with_inputs_and_readable_conditions() {
    let p = asm("lis $4\n.word 100\nbne $2, $4, end\nadd $3, $3, $2\nend:\njr $31\n");
    let e = explore(&p, &Options::default(), &mut Quiet);
    assert_eq!(e.paths.len(), 2);
    assert!(e.incomplete.is_empty());
    let mut conds: Vec<String> = e.paths.iter().flat_map(|p| p.conditions.clone()).collect();
    conds.sort();
    assert_eq!(
        conds,
        vec!["$2 != 100".to_string(), "$2 == 100".to_string()]
    );
    for path in &e.paths {
        let taken = path.inputs[1].1 == 100;
        assert_eq!(path.outcome.regs.gpr[3], if taken { 100 } else { 0 });
    }
}

#[test]
fn the_path_budget_stops_and_says_so() {
    let p = asm("lis $5\n.word 1\nloop:\nadd $4, $4, $5\nbne $4, $1, loop\njr $31\n");
    let mut opts = Options::default();
    opts.max_paths = Some(3);
    let e = explore(&p, &opts, &mut Quiet);
    assert!(e.paths.len() <= 4);
    assert!(e
        .incomplete
        .iter()
        .any(|i| matches!(i, Incomplete::PathBudget { .. })));
}

#[test]
fn a_needle_divisor_is_found() {
    // The divisor is zero for exactly one input: $1 == 123456789.
    let p = asm("lis $4\n.word 123456789\nsub $5, $1, $4\ndiv $2, $5\nmflo $3\njr $31\n");
    let report = check(&p, &Options::default(), &mut Quiet);
    assert_eq!(report.findings.len(), 1);
    assert_eq!(report.findings[0].inputs[0].1, 123_456_789);
    assert!(report.incomplete().is_empty());
}

/// `$3 = table[$1]` for a four-word table, with or without a bounds check.
fn table(checked: bool) -> Program {
    let check = if checked {
        "lis $6\n.word 4\nsltu $7, $1, $6\nbeq $7, $0, out\n"
    } else {
        ""
    };
    asm(&format!(
        "{check}lis $4\n.word table\nadd $5, $1, $1\nadd $5, $5, $5\nadd $5, $5, $4\nlw $3, 0($5)\nout:\njr $31\ntable: .word 1\n.word 2\n.word 3\n.word 4\n"
    ))
}

#[test]
fn a_table_lookup_fails_only_without_its_bounds_check() {
    let unchecked = check(&table(false), &Options::default(), &mut Quiet);
    assert!(unchecked
        .findings
        .iter()
        .any(|f| f.kind == tamarin::FindingKind::Fault(FaultKind::OutOfRangeAccess)));
    let checked = check(&table(true), &Options::default(), &mut Quiet);
    assert!(checked.findings.is_empty(), "{:?}", checked.findings);
    assert!(
        checked.incomplete().is_empty(),
        "{:?}",
        checked.incomplete()
    );
}

#[test]
fn an_error_on_a_late_loop_iteration_is_found() {
    // Counts $4 from 0 up to $1 (at most 40), dividing 100 by (20 - $4) on the way:
    // only runs that reach iteration 20 fail.
    let p = asm(
        "lis $5\n.word 1\nlis $6\n.word 20\nlis $7\n.word 100\nlis $8\n.word 41\n\
         sltu $9, $1, $8\nbeq $9, $0, out\n\
         loop:\nbeq $4, $1, out\nsub $10, $6, $4\ndiv $7, $10\nadd $4, $4, $5\nbeq $0, $0, loop\n\
         out:\njr $31\n",
    );
    let report = check(&p, &Options::default(), &mut Quiet);
    assert_eq!(report.findings.len(), 1, "{:?}", report.findings);
    assert_eq!(
        report.findings[0].kind,
        tamarin::FindingKind::Fault(FaultKind::DivisionByZero)
    );
    assert!(report.findings[0].inputs[0].1 > 20);
}

#[test]
fn path_counts_match_a_hand_count_and_inputs_replay_to_distinct_paths() {
    // Two independent conditions, then a third nested under the second ($2 == -7 is
    // possible only when $2 < 0): 2 * 3 = 6 paths.
    let p = asm(
        "slt $4, $1, $0\nbeq $4, $0, a\nlis $3\n.word 1\na:\n\
         slt $4, $2, $0\nbeq $4, $0, b\nlis $5\n.word -7\nbne $2, $5, b\nlis $6\n.word 2\nadd $3, $3, $6\nb:\njr $31\n",
    );
    let e = explore(&p, &Options::default(), &mut Quiet);
    assert_eq!(
        e.paths.len(),
        6,
        "{:#?}",
        e.paths.iter().map(|p| &p.conditions).collect::<Vec<_>>()
    );
    assert!(e.incomplete.is_empty());
    let mut seen: Vec<Vec<String>> = e.paths.iter().map(|p| p.conditions.clone()).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 6, "every input takes a different path");
    // With the nested test on $1 == 7 instead, the path with $1 < 0 and $1 == 7 is
    // infeasible: one path fewer.
    let q = asm(
        "slt $4, $1, $0\nbeq $4, $0, a\nlis $3\n.word 1\na:\n\
         slt $4, $2, $0\nbeq $4, $0, b\nlis $5\n.word 7\nbne $1, $5, b\nlis $6\n.word 2\nadd $3, $3, $6\nb:\njr $31\n",
    );
    let e = explore(&q, &Options::default(), &mut Quiet);
    assert_eq!(e.paths.len(), 5);
    assert!(e.incomplete.is_empty());
}
