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
        .map(|f| (f.kind, f.pc))
        .collect()
}

#[test]
fn division_by_an_input_is_found_with_a_zero_divisor() {
    let p = asm("div $1, $2\nmflo $3\njr $31\n");
    let report = check(&p, &Options::default(), &mut Quiet);
    assert_eq!(report.findings.len(), 1);
    let f = &report.findings[0];
    assert_eq!((f.kind, f.pc), (FaultKind::DivisionByZero, 0));
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
