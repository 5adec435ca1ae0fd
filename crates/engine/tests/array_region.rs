//! Accesses at input-dependent addresses inside the input array keep the rest of
//! memory (the stack frames generated code uses) concrete, under a path condition that
//! says so; an access outside the array, which a store through an input value may
//! make, is another path, where memory is one array term again.

use std::time::Duration;

use tamarin::{compare, Engine, InputSpec, Options, Quiet, Verdict};
use tamarin_mips::asm::assemble;
use tamarin_mips::Program;

fn asm(text: &str) -> Program {
    assemble("t.asm", text).unwrap_or_else(|e| panic!("{e}"))
}

fn opts() -> Options {
    let mut o = Options::default();
    o.inputs = InputSpec::Array {
        max_len: 4,
        base: None,
    };
    o.engine = Engine::Concolic;
    o.timeout = Some(Duration::from_secs(60));
    o
}

/// Sets a stack word to 0, stores 7 at `arr + 4 * arr[0]`, then returns the stack
/// word (`ret`) or 0: the two differ only where the store lands on that word.
fn through_element(ret: &str) -> Program {
    asm(&format!(
        "lis $4\n.word 4\nsw $0, -4($30)\nlw $5, 0($1)\nmult $5, $4\nmflo $5\nadd $6, $1, $5\n\
         lis $7\n.word 7\nsw $7, 0($6)\n{ret}\njr $31\n"
    ))
}

#[test]
fn a_store_through_an_element_that_reaches_the_stack_is_found() {
    let left = through_element("lw $3, -4($30)");
    let right = through_element("add $3, $0, $0");
    let r = compare(&left, &right, &opts(), &mut Quiet).unwrap();
    let Verdict::Disequivalent(cx) = r.verdict else {
        panic!("expected a difference, got {:?}", r.verdict);
    };
    assert_eq!(cx.left.regs.gpr[3], 7);
}

/// In-place reverse of the array, then the sum of its first two words, with a stack
/// counter kept in memory the whole time (as a naive code generator does).
const REVERSE: &str = "lis $4\n.word 4\nlis $11\n.word 1\nsw $0, -4($30)\nsub $9, $2, $11\n\
    add $8, $0, $0\nloop:\nslt $10, $8, $9\nbeq $10, $0, done\nmult $8, $4\nmflo $12\n\
    add $12, $12, $1\nmult $9, $4\nmflo $13\nadd $13, $13, $1\nlw $14, 0($12)\nlw $15, 0($13)\n\
    sw $15, 0($12)\nsw $14, 0($13)\nlw $16, -4($30)\nadd $16, $16, $11\nsw $16, -4($30)\n\
    add $8, $8, $11\nsub $9, $9, $11\nbeq $0, $0, loop\ndone:\nlw $3, -4($30)\njr $31\n";

#[test]
fn swaps_through_input_indices_leave_the_stack_concrete() {
    // The number of swaps, len / 2, counted on the stack; against the count computed.
    let left = asm(REVERSE);
    let right = asm("lis $4\n.word 2\ndiv $2, $4\nmflo $3\njr $31\n");
    let r = compare(&left, &right, &opts(), &mut Quiet).unwrap();
    assert!(
        matches!(r.verdict, Verdict::Equivalent(_)),
        "{:?}",
        r.verdict
    );
}

#[test]
fn the_paths_outside_the_array_are_listed() {
    // A store through the element lands inside the array, elsewhere in memory (the
    // stack word), over the code (the next instruction is then 7, no instruction), or
    // outside memory: each is a path of its own.
    let e = tamarin::explore(&through_element("lw $3, -4($30)"), &opts(), &mut Quiet).unwrap();
    assert!(e.incomplete.is_empty(), "{:?}", e.incomplete);
    let kinds: Vec<_> = e
        .paths
        .iter()
        .filter_map(|p| match p.outcome.status {
            tamarin_mips::Status::Error(f) => Some(f.kind),
            _ => None,
        })
        .collect();
    assert!(
        kinds.contains(&tamarin_mips::cpu::FaultKind::InvalidInstruction),
        "no path stores over the code: {kinds:?}"
    );
    assert!(e.paths.len() >= 5, "{}", e.paths.len());
}
