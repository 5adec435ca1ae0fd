//! The cases the report's evaluation (its Figure 13) names, as program pairs written
//! from scratch: each with its verdict, and for differences, counterexample inputs
//! checked against the property that separates the programs and replayed on the
//! emulator.

mod common;

use common::*;
use tamarin::verdict::Verdict;
use tamarin_mips::cpu::FaultKind;
use tamarin_mips::Status;

// (a) Stack pushes and pops.

#[test]
fn stack_temporaries_are_equivalent_to_registers() {
    let (l, r) = (named("STACK_LEFT"), named("STACK_RIGHT"));
    // The programs really compute 2*$1 + $2, and really use the stack.
    let o = exec(&l, 5, 9);
    assert_eq!((o.status, o.regs.gpr[3]), (Status::Done, 19));
    assert_eq!(o.regs.gpr[1], 0, "the left program clobbers $1");
    assert_equivalent(&check(&l, &r));
}

#[test]
fn popping_the_wrong_slot_is_found() {
    let (l, r) = (named("STACK_WRONG_SLOT"), named("STACK_RIGHT"));
    let report = check(&l, &r);
    let (a, b) = assert_counterexample(&l, &r, &report);
    // 3*$1 against 2*$1 + $2: they differ exactly when $1 != $2.
    assert_ne!(a, b);
    let cx = counterexample(&report);
    assert_eq!(cx.left.regs.gpr[3], a.wrapping_mul(3));
    assert_eq!(cx.right.regs.gpr[3], a.wrapping_mul(2).wrapping_add(b));
}

// (b) A counterexample across a procedure call.

#[test]
fn counterexample_inside_a_procedure() {
    let (l, r) = (named("CALL_LEFT"), named("CALL_RIGHT"));
    // Away from $1 == 7 the call returns, restores $31 and ends normally.
    let o = exec(&l, 3, 4);
    assert_eq!((o.status, o.regs.gpr[3]), (Status::Done, 7));
    let report = check(&l, &r);
    let (a, b) = assert_counterexample(&l, &r, &report);
    assert_eq!(a, 7, "only $1 == 7 separates the procedures");
    let cx = counterexample(&report);
    assert_eq!(cx.left.status, Status::Done);
    assert_eq!(cx.right.status, Status::Done);
    assert_eq!(cx.left.regs.gpr[3], 8u32.wrapping_add(b));
    assert_eq!(cx.right.regs.gpr[3], 7u32.wrapping_add(b));
}

#[test]
fn procedure_call_against_inline_code() {
    // CALL_LEFT returns $1 + $2 (+1 at $1 == 7); STACK_RIGHT returns 2*$1 + $2:
    // they differ whenever $1 + [$1 == 7] != 0.
    let (l, r) = (named("CALL_LEFT"), named("STACK_RIGHT"));
    let report = check(&l, &r);
    let (a, _) = assert_counterexample(&l, &r, &report);
    assert!(a != 0, "$1 = 0 gives the same result");
}

// (c) Loops that iterate fewer times than the depth bound.

#[test]
fn clamped_loop_matches_closed_form() {
    let (l, r) = (named("LOOP_SUM"), named("LOOP_CLOSED"));
    for (n, sum) in [
        (0u32, 0u32),
        (1, 1),
        (4, 10),
        (10, 55),
        (11, 55),
        (1000, 55),
        (u32::MAX, 0),
    ] {
        assert_eq!(exec(&l, n, 0).regs.gpr[3], sum, "loop at {n}");
        assert_eq!(exec(&r, n, 0).regs.gpr[3], sum, "closed form at {n}");
    }
    let report = check(&l, &r);
    match &report.verdict {
        // Twelve loop paths (0..=10 iterations, and the clamped run) and more on the left.
        Verdict::Equivalent(p) => {
            assert!(p.paths.0 >= 12, "{p:?}");
            assert_eq!(p.out_of_fuel, (0, 0));
        }
        v => panic!("expected equivalent, got {v:?}"),
    }
}

#[test]
fn loop_off_by_one_only_at_five() {
    let (l, r) = (named("LOOP_SUM"), named("LOOP_OFF_BY_ONE"));
    let report = check(&l, &r);
    let (a, _) = assert_counterexample(&l, &r, &report);
    assert_eq!(a, 5);
    let cx = counterexample(&report);
    assert_eq!((cx.left.regs.gpr[3], cx.right.regs.gpr[3]), (15, 10));
}

// (d) Infinite loops are treated conservatively.

#[test]
fn loop_forever_on_negative_inputs_is_no_difference() {
    let (l, r) = (named("SPIN_NEGATIVE"), named("RETURN_ONE"));
    assert_eq!(exec(&l, u32::MAX, 0).status, Status::OutOfFuel);
    assert_eq!(exec(&l, 12, 0).regs.gpr[3], 12);
    let report = check(&l, &r);
    assert_not_disequivalent(&report);
    match &report.verdict {
        // Out of fuel on the negative inputs; the others agree.
        Verdict::Equivalent(p) => assert_eq!(p.out_of_fuel, (1, 0), "{p:?}"),
        v => panic!("expected equivalent within the fuel, got {v:?}"),
    }
}

#[test]
fn loop_forever_always_is_never_different() {
    let l = named("SPIN_ALWAYS");
    for other in ["RETURN_ONE", "DIV_PLAIN", "STACK_WRONG_SLOT", "CALL_LEFT"] {
        let r = named(other);
        let report = check(&l, &r);
        assert_not_disequivalent(&report);
        assert!(
            matches!(report.verdict, Verdict::Equivalent(_)),
            "against {other}: {:?}",
            report.verdict
        );
    }
}

// (e) Division by zero.

#[test]
fn unchecked_division_fails_where_checked_one_returns() {
    let (l, r) = (named("DIV_PLAIN"), named("DIV_CHECKED"));
    let report = check(&l, &r);
    let (_, b) = assert_counterexample(&l, &r, &report);
    assert_eq!(b, 0);
    let cx = counterexample(&report);
    match cx.left.status {
        Status::Error(f) => {
            assert_eq!(f.kind, FaultKind::DivisionByZero);
            assert_eq!(f.pc, 0);
        }
        s => panic!("left should fail, got {s:?}"),
    }
    assert_eq!((cx.right.status, cx.right.regs.gpr[3]), (Status::Done, 0));
}

#[test]
fn the_same_division_is_equivalent() {
    let (l, r) = (named("DIV_PLAIN"), named("DIV_PLAIN_TOO"));
    assert_equivalent(&check(&l, &r));
    // Including the overflowing quotient.
    assert_eq!(exec(&l, 0x8000_0000, u32::MAX).regs.gpr[3], 0x8000_0000);
}

// (f) Nested conditions with slt.

fn reaches_the_slip(a: u32, b: u32) -> bool {
    let (a, b) = (a as i32, b as i32);
    let c = a.wrapping_sub(b);
    a < b && b < c && c < 0
}

#[test]
fn nested_slt_difference_in_the_innermost_branch() {
    let (l, r) = (named("MAX_NESTED"), named("MAX_NESTED_SLIP"));
    assert!(reaches_the_slip(-15i32 as u32, -10i32 as u32));
    let report = check(&l, &r);
    let (a, b) = assert_counterexample(&l, &r, &report);
    assert!(
        reaches_the_slip(a, b),
        "({a}, {b}) does not reach the innermost branch"
    );
    let cx = counterexample(&report);
    assert_eq!((cx.left.regs.gpr[3], cx.right.regs.gpr[3]), (0, u32::MAX));
}

#[test]
fn nested_slt_restructured_is_equivalent() {
    let (l, r) = (named("MAX_NESTED"), named("MAX_SEQUENTIAL"));
    for (a, b) in [
        (3u32, 9u32),
        (9, 3),
        (-15i32 as u32, -10i32 as u32),
        (0x8000_0000, 1),
    ] {
        assert_eq!(
            exec(&l, a, b).regs.gpr[3],
            exec(&r, a, b).regs.gpr[3],
            "({a}, {b})"
        );
    }
    assert_equivalent(&check(&l, &r));
}

// mult/multu with mfhi/mflo.

#[test]
fn low_halves_of_signed_and_unsigned_products_agree() {
    let (l, r) = (named("MULT_LO"), named("MULTU_LO"));
    assert_equivalent(&check(&l, &r));
}

#[test]
fn high_halves_differ_with_a_negative_operand() {
    let (l, r) = (named("MULT_HI"), named("MULTU_HI"));
    let report = check(&l, &r);
    let (a, b) = assert_counterexample(&l, &r, &report);
    assert!(
        (a as i32) < 0 || (b as i32) < 0,
        "({a:#x}, {b:#x}) has no negative operand"
    );
    let signed = ((a as i32 as i64 * b as i32 as i64) >> 32) as u32;
    let unsigned = ((a as u64 * b as u64) >> 32) as u32;
    assert_ne!(signed, unsigned);
    let cx = counterexample(&report);
    assert_eq!(
        (cx.left.regs.gpr[3], cx.right.regs.gpr[3]),
        (signed, unsigned)
    );
}
