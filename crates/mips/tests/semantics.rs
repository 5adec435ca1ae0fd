//! Semantic tests of the emulator against the CS241 MIPS specification
//! (`docs/cs241-mips.md`). Programs are built from [`Instr`] encodings and raw
//! words only, so these tests do not depend on the assembler.

use std::sync::Arc;

use proptest::prelude::*;
use tamarin_mips::cpu::{run_program, SetupError, DEFAULT_TERMINATION, STACK_TOP};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::{
    Config, Event, Fault, FaultKind, Frontend, Instr, Machine, NoTrace, Outcome, Program, Reg,
    Status, Stop, Tracer,
};

// ---------------------------------------------------------------------------------------
// Building programs

fn r(n: u8) -> Reg {
    Reg::new(n).unwrap()
}
fn add(d: u8, s: u8, t: u8) -> u32 {
    Instr::Add {
        d: r(d),
        s: r(s),
        t: r(t),
    }
    .encode()
}
fn sub(d: u8, s: u8, t: u8) -> u32 {
    Instr::Sub {
        d: r(d),
        s: r(s),
        t: r(t),
    }
    .encode()
}
fn slt(d: u8, s: u8, t: u8) -> u32 {
    Instr::Slt {
        d: r(d),
        s: r(s),
        t: r(t),
    }
    .encode()
}
fn sltu(d: u8, s: u8, t: u8) -> u32 {
    Instr::Sltu {
        d: r(d),
        s: r(s),
        t: r(t),
    }
    .encode()
}
fn mult(s: u8, t: u8) -> u32 {
    Instr::Mult { s: r(s), t: r(t) }.encode()
}
fn multu(s: u8, t: u8) -> u32 {
    Instr::Multu { s: r(s), t: r(t) }.encode()
}
fn div(s: u8, t: u8) -> u32 {
    Instr::Div { s: r(s), t: r(t) }.encode()
}
fn divu(s: u8, t: u8) -> u32 {
    Instr::Divu { s: r(s), t: r(t) }.encode()
}
fn mfhi(d: u8) -> u32 {
    Instr::Mfhi { d: r(d) }.encode()
}
fn mflo(d: u8) -> u32 {
    Instr::Mflo { d: r(d) }.encode()
}
fn lis(d: u8) -> u32 {
    Instr::Lis { d: r(d) }.encode()
}
fn lw(t: u8, i: i16, s: u8) -> u32 {
    Instr::Lw {
        t: r(t),
        i,
        s: r(s),
    }
    .encode()
}
fn sw(t: u8, i: i16, s: u8) -> u32 {
    Instr::Sw {
        t: r(t),
        i,
        s: r(s),
    }
    .encode()
}
fn beq(s: u8, t: u8, i: i16) -> u32 {
    Instr::Beq {
        s: r(s),
        t: r(t),
        i,
    }
    .encode()
}
fn bne(s: u8, t: u8, i: i16) -> u32 {
    Instr::Bne {
        s: r(s),
        t: r(t),
        i,
    }
    .encode()
}
fn jr(s: u8) -> u32 {
    Instr::Jr { s: r(s) }.encode()
}
fn jalr(s: u8) -> u32 {
    Instr::Jalr { s: r(s) }.encode()
}
const JR31: u32 = Instr::Jr { s: Reg::RA }.encode();

/// The branch offset from the branch at word index `at` to word index `to`.
fn off(at: usize, to: usize) -> i16 {
    (to as i64 - at as i64 - 1) as i16
}

fn prog(words: &[u32]) -> Program {
    Program::from_words(words.to_vec())
}

fn run_cfg(words: &[u32], config: Config, frontend: Frontend, input: &[u8]) -> Outcome {
    run_program(&prog(words), config, &frontend, input).expect("setup")
}

/// Runs with `$1 = a`, `$2 = b`, default settings and no input.
fn run2(words: &[u32], a: u32, b: u32) -> Outcome {
    run_cfg(words, Config::default(), Frontend::TwoInts(a, b), b"")
}

fn fuel(n: u64) -> Config {
    Config::with_fuel(n)
}

#[track_caller]
fn done(o: &Outcome) -> &Outcome {
    assert_eq!(o.status, Status::Done, "outcome {o:?}");
    o
}

#[track_caller]
fn fault_of(o: &Outcome) -> Fault {
    match o.status {
        Status::Error(f) => f,
        s => panic!("expected an error, got {s:?} ({o:?})"),
    }
}

#[track_caller]
fn assert_fault(o: &Outcome, kind: FaultKind, pc: u32, value: u32) {
    assert_eq!(fault_of(o), Fault { kind, pc, value }, "outcome {o:?}");
}

fn reg(o: &Outcome, n: usize) -> u32 {
    o.regs.gpr[n]
}

// ---------------------------------------------------------------------------------------
// Arithmetic

#[test]
fn add_and_sub_compute_and_wrap() {
    let p = [add(3, 1, 2), sub(4, 1, 2), sub(5, 2, 1), JR31];
    let cases: &[(u32, u32, u32, u32, u32)] = &[
        (2, 3, 5, 0xFFFF_FFFF, 1),
        (0x7FFF_FFFF, 1, 0x8000_0000, 0x7FFF_FFFE, 0x8000_0002),
        (0xFFFF_FFFF, 1, 0, 0xFFFF_FFFE, 2),
        (0, 1, 1, 0xFFFF_FFFF, 1),
        (0x8000_0000, 1, 0x8000_0001, 0x7FFF_FFFF, 0x8000_0001),
        (0x8000_0000, 0x8000_0000, 0, 0, 0),
    ];
    for &(a, b, sum, d1, d2) in cases {
        let o = run2(&p, a, b);
        done(&o);
        assert_eq!(
            (reg(&o, 3), reg(&o, 4), reg(&o, 5)),
            (sum, d1, d2),
            "{a:#x}, {b:#x}"
        );
        assert_eq!(o.steps, 4);
    }
}

#[test]
fn add_with_the_same_register_everywhere() {
    let o = run2(&[add(1, 1, 1), sub(2, 2, 2), JR31], 21, 99);
    done(&o);
    assert_eq!((reg(&o, 1), reg(&o, 2)), (42, 0));
}

fn hi_lo(p: u32, a: u32, b: u32) -> (u32, u32) {
    let o = run2(&[p, mfhi(3), mflo(4), JR31], a, b);
    done(&o);
    assert_eq!((o.regs.hi, o.regs.lo), (reg(&o, 3), reg(&o, 4)));
    (reg(&o, 3), reg(&o, 4))
}

#[test]
fn mult_is_signed() {
    let m = mult(1, 2);
    assert_eq!(hi_lo(m, 6, 7), (0, 42));
    assert_eq!(hi_lo(m, -1i32 as u32, -1i32 as u32), (0, 1));
    assert_eq!(hi_lo(m, -1i32 as u32, 2), (0xFFFF_FFFF, 0xFFFF_FFFE));
    assert_eq!(hi_lo(m, 2, -1i32 as u32), (0xFFFF_FFFF, 0xFFFF_FFFE));
    assert_eq!(hi_lo(m, 0x1_0000, 0x1_0000), (1, 0));
    assert_eq!(hi_lo(m, 0x8000_0000, 0x8000_0000), (0x4000_0000, 0));
    assert_eq!(
        hi_lo(m, 0x8000_0000, 0x7FFF_FFFF),
        (0xC000_0000, 0x8000_0000)
    );
    assert_eq!(hi_lo(m, 0x8000_0000, 0), (0, 0));
}

#[test]
fn multu_is_unsigned() {
    let m = multu(1, 2);
    assert_eq!(hi_lo(m, 6, 7), (0, 42));
    assert_eq!(hi_lo(m, 0xFFFF_FFFF, 0xFFFF_FFFF), (0xFFFF_FFFE, 1));
    assert_eq!(hi_lo(m, 0xFFFF_FFFF, 2), (1, 0xFFFF_FFFE));
    assert_eq!(hi_lo(m, 0x8000_0000, 0x8000_0000), (0x4000_0000, 0));
    assert_eq!(hi_lo(m, 0x1_0000, 0x1_0000), (1, 0));
}

#[test]
fn div_truncates_toward_zero_and_remainder_has_the_dividends_sign() {
    let d = div(1, 2);
    let n = |x: i32| x as u32;
    // hi_lo returns (hi, lo) = (remainder, quotient)
    assert_eq!(hi_lo(d, 7, 2), (1, 3));
    assert_eq!(hi_lo(d, n(-7), 2), (n(-1), n(-3)));
    assert_eq!(hi_lo(d, 7, n(-2)), (1, n(-3)));
    assert_eq!(hi_lo(d, n(-7), n(-2)), (n(-1), 3));
    assert_eq!(hi_lo(d, 0, 5), (0, 0));
    assert_eq!(hi_lo(d, 3, 5), (3, 0));
    assert_eq!(hi_lo(d, n(-3), 5), (n(-3), 0));
    assert_eq!(hi_lo(d, 0x8000_0000, n(-1)), (0, 0x8000_0000));
    assert_eq!(hi_lo(d, 0x8000_0000, 1), (0, 0x8000_0000));
    assert_eq!(hi_lo(d, 0x8000_0000, 2), (0, 0xC000_0000));
    assert_eq!(hi_lo(d, 0x7FFF_FFFF, 0x8000_0000), (0x7FFF_FFFF, 0));
}

#[test]
fn divu_is_unsigned() {
    let d = divu(1, 2);
    assert_eq!(hi_lo(d, 7, 2), (1, 3));
    assert_eq!(hi_lo(d, 0xFFFF_FFFF, 2), (1, 0x7FFF_FFFF));
    assert_eq!(hi_lo(d, -7i32 as u32, 2), (1, 0x7FFF_FFFC));
    assert_eq!(hi_lo(d, 0x8000_0000, 0xFFFF_FFFF), (0x8000_0000, 0));
    assert_eq!(hi_lo(d, 0xFFFF_FFFF, 0xFFFF_FFFF), (0, 1));
    assert_eq!(hi_lo(d, 0xFFFF_FFFF, 0x1_0000), (0xFFFF, 0xFFFF));
    assert_eq!(hi_lo(d, 0xDEAD_BEEF, 1), (0, 0xDEAD_BEEF));
}

#[test]
fn division_by_zero_is_an_error_at_the_div() {
    for p in [div(1, 2), divu(1, 2), div(1, 0), divu(0, 0)] {
        let o = run2(&[add(3, 1, 1), p, add(4, 1, 1), JR31], 5, 0);
        assert_fault(&o, FaultKind::DivisionByZero, 4, 0);
        assert_eq!(o.steps, 2, "the failing div counts as a step");
        assert_eq!(reg(&o, 3), 10);
        assert_eq!(reg(&o, 4), 0, "nothing runs after the error");
    }
    // A non-zero divisor is fine, even for $0 as dividend.
    done(&run2(&[div(0, 1), divu(0, 1), JR31], 3, 0));
}

#[test]
fn hi_and_lo_start_at_zero() {
    let o = run2(&[mfhi(3), mflo(4), JR31], 1, 2);
    done(&o);
    assert_eq!((reg(&o, 3), reg(&o, 4)), (0, 0));
}

#[test]
fn slt_is_signed_and_sltu_is_unsigned() {
    let p = [slt(3, 1, 2), sltu(4, 1, 2), JR31];
    let m1 = -1i32 as u32;
    let cases: &[(u32, u32, u32, u32)] = &[
        (1, 2, 1, 1),
        (2, 1, 0, 0),
        (5, 5, 0, 0),
        (m1, 1, 1, 0),
        (1, m1, 0, 1),
        (m1, m1, 0, 0),
        (0x8000_0000, 0x7FFF_FFFF, 1, 0),
        (0x7FFF_FFFF, 0x8000_0000, 0, 1),
        (0x8000_0000, 0, 1, 0),
        (0, 0x8000_0000, 0, 1),
        (-5i32 as u32, -3i32 as u32, 1, 1),
    ];
    for &(a, b, s, u) in cases {
        let o = run2(&p, a, b);
        done(&o);
        assert_eq!((reg(&o, 3), reg(&o, 4)), (s, u), "{a:#x} < {b:#x}");
    }
}

// ---------------------------------------------------------------------------------------
// Control flow

#[test]
fn beq_and_bne_forward() {
    // $5 = 5; if $1 == $2 skip the add; so $3 = ($1 == $2) ? 0 : 5.
    let with = |b: u32| [lis(5), 5, b, add(3, 5, 0), JR31];
    let beq_p = with(beq(1, 2, 1));
    let bne_p = with(bne(1, 2, 1));
    let o = run2(&beq_p, 4, 4);
    assert_eq!((done(&o).regs.gpr[3], o.steps), (0, 3));
    let o = run2(&beq_p, 4, 7);
    assert_eq!((done(&o).regs.gpr[3], o.steps), (5, 4));
    let o = run2(&bne_p, 4, 4);
    assert_eq!((done(&o).regs.gpr[3], o.steps), (5, 4));
    let o = run2(&bne_p, 4, 7);
    assert_eq!((done(&o).regs.gpr[3], o.steps), (0, 3));
}

#[test]
fn branch_offsets_count_words_from_the_next_instruction() {
    // beq $0, $0, 2 skips two words; offset 0 is a no-op.
    let p = [
        beq(0, 0, 0),
        beq(0, 0, 2),
        0xFFFF_FFFF, // never executed
        0,           // never executed
        add(3, 1, 2),
        JR31,
    ];
    let o = run2(&p, 20, 22);
    assert_eq!((done(&o).regs.gpr[3], o.steps), (42, 4));
}

#[test]
fn bne_backward_loop() {
    // $3 = $1 + ($1 - 1) + ... + 1
    let p = [
        lis(4),
        1,
        add(3, 3, 1), // 2
        sub(1, 1, 4),
        bne(1, 0, off(4, 2)),
        JR31,
    ];
    assert_eq!(off(4, 2), -3);
    let o = run2(&p, 5, 0);
    assert_eq!((done(&o).regs.gpr[3], o.steps), (15, 1 + 3 * 5 + 1));
}

#[test]
fn beq_backward_loop() {
    // Counts $3 up to $1 using beq for both the exit and the back edge.
    let p = [
        lis(4),
        1,
        beq(3, 1, off(2, 6)), // 2
        add(3, 3, 4),
        beq(0, 0, off(4, 2)),
        0,    // never executed
        JR31, // 6
    ];
    let o = run2(&p, 7, 0);
    assert_eq!((done(&o).regs.gpr[3], o.steps), (7, 1 + 3 * 7 + 1 + 1));
}

#[test]
fn jr_31_ends_the_run_and_counts_as_a_step() {
    let o = run2(&[JR31], 1, 2);
    assert_eq!((done(&o).steps, o.regs.gpr[31]), (1, DEFAULT_TERMINATION));
    let o = run2(&[add(3, 1, 2), add(3, 3, 3), JR31], 1, 2);
    assert_eq!((done(&o).steps, o.regs.gpr[3]), (3, 6));
}

#[test]
fn jr_to_a_computed_address() {
    let p = [lis(5), 16, jr(5), 0xFFFF_FFFF, add(3, 1, 2), JR31];
    let o = run2(&p, 1, 2);
    assert_eq!((done(&o).steps, o.regs.gpr[3]), (4, 3));
}

#[test]
fn jr_to_the_termination_address_in_another_register() {
    let p = [lis(7), DEFAULT_TERMINATION, jr(7)];
    assert_eq!(done(&run2(&p, 0, 0)).steps, 2);
}

#[test]
fn jalr_links_and_returns() {
    let p = [
        add(6, 31, 0), // 0: save $31
        lis(5),        // 4
        24,            // 8
        jalr(5),       // 12: call 24
        add(31, 6, 0), // 16: restore
        JR31,          // 20
        add(3, 31, 0), // 24: $3 = return address
        JR31,          // 28
    ];
    let o = run2(&p, 0, 0);
    done(&o);
    assert_eq!(reg(&o, 3), 16);
    assert_eq!(o.steps, 7);
}

#[test]
fn jalr_31_jumps_to_the_old_31() {
    let o = run2(&[jalr(31)], 0, 0);
    done(&o);
    assert_eq!(o.steps, 1);
    assert_eq!(reg(&o, 31), 4, "$31 = pc + 4 of the jalr");
}

#[test]
fn jalr_31_to_a_function() {
    // jalr $31 with $31 pointing at code: goes there and links back.
    let p = [
        lis(31),
        16,
        jalr(31),      // 8: go to 16, $31 = 12
        JR31,          // 12: $31 now holds the termination address again
        add(3, 31, 0), // 16: $3 = 12
        lis(31),
        DEFAULT_TERMINATION,
        jr(3), // back to 12
    ];
    let o = run2(&p, 0, 0);
    done(&o);
    assert_eq!(reg(&o, 3), 12);
    assert_eq!(o.steps, 6);
}

#[test]
fn recursive_sum_with_the_stack() {
    // main: push $31; jalr sum; pop $31; jr $31
    // sum(n = $1) -> $3, recursive, saving $31 and $1 on the stack.
    let p = [
        lis(4),         // 0
        4,              // 1
        lis(10),        // 2
        48,             // 3: address of sum
        lis(11),        // 4
        1,              // 5
        sw(31, -4, 30), // 6
        sub(30, 30, 4), // 7
        jalr(10),       // 8
        add(30, 30, 4), // 9
        lw(31, -4, 30), // 10
        JR31,           // 11
        // sum (index 12, address 48)
        bne(1, 0, off(12, 15)), // 12
        add(3, 0, 0),           // 13
        JR31,                   // 14
        sw(31, -4, 30),         // 15
        sw(1, -8, 30),          // 16
        lis(5),                 // 17
        8,                      // 18
        sub(30, 30, 5),         // 19
        sub(1, 1, 11),          // 20
        jalr(10),               // 21
        add(30, 30, 5),         // 22
        lw(31, -4, 30),         // 23
        lw(1, -8, 30),          // 24
        add(3, 3, 1),           // 25
        JR31,                   // 26
    ];
    let o = run2(&p, 10, 0);
    done(&o);
    assert_eq!(reg(&o, 3), 55);
    assert_eq!(reg(&o, 1), 10, "$1 restored");
    assert_eq!(reg(&o, 30), STACK_TOP, "stack balanced");
    assert_eq!(reg(&o, 31), DEFAULT_TERMINATION);
}

// ---------------------------------------------------------------------------------------
// lis

#[test]
fn lis_loads_the_next_word_and_skips_it() {
    let o = run2(&[lis(3), 0xFFFF_FFFF, JR31], 0, 0);
    done(&o);
    assert_eq!((reg(&o, 3), o.steps), (0xFFFF_FFFF, 2));
    // The literal is skipped even when it encodes an instruction.
    let o = run2(&[lis(3), JR31, add(4, 1, 2), JR31], 1, 2);
    done(&o);
    assert_eq!((reg(&o, 3), reg(&o, 4), o.steps), (JR31, 3, 3));
}

#[test]
fn lis_as_the_last_instruction_loads_zero_then_runs_into_zero() {
    // add at 0, lis at 4, its literal at 8 (beyond the image), then 12.
    let o = run2(&[add(3, 1, 2), lis(3)], 7, 8);
    assert_fault(&o, FaultKind::InvalidInstruction, 12, 0);
    assert_eq!(reg(&o, 3), 0, "the literal beyond the image is 0");
    assert_eq!(o.steps, 3);
}

// ---------------------------------------------------------------------------------------
// Memory

#[test]
fn sw_then_lw() {
    let p = [lis(5), 0x1000, sw(1, 4, 5), lw(3, 4, 5), JR31];
    let o = run2(&p, 0xCAFE_F00D, 0);
    done(&o);
    assert_eq!(reg(&o, 3), 0xCAFE_F00D);
    assert_eq!(o.steps, 4);
    let mut m = Machine::new(&prog(&p), Config::default());
    m.apply(&Frontend::TwoInts(77, 0)).unwrap();
    assert_eq!(m.run(&mut NoTrace), Status::Done);
    assert_eq!(m.read_word(0x1004), 77);
    assert_eq!(m.read_word(0x1000), 0);
    assert_eq!(m.read_word(0x1008), 0);
}

#[test]
fn lw_reads_the_program_image_and_zero_beyond_it() {
    let p = [
        lw(3, 0, 0),
        lw(4, 4, 0),
        lw(1, 0x100, 0),
        lw(2, -4, 30),
        JR31,
    ];
    let o = run2(&p, 99, 98);
    done(&o);
    assert_eq!(reg(&o, 3), p[0]);
    assert_eq!(reg(&o, 4), p[1]);
    assert_eq!(reg(&o, 1), 0);
    assert_eq!(reg(&o, 2), 0);
}

#[test]
fn the_last_word_of_memory_is_usable() {
    let p = [
        sw(1, -4, 30),
        lw(3, -4, 30),
        lis(5),
        0x00FF_FFFC,
        lw(4, 0, 5),
        JR31,
    ];
    let o = run2(&p, 1234, 0);
    done(&o);
    assert_eq!((reg(&o, 3), reg(&o, 4)), (1234, 1234));
}

#[test]
fn unaligned_accesses_are_errors() {
    let o = run2(&[add(3, 1, 1), lw(3, 1, 0), JR31], 1, 0);
    assert_fault(&o, FaultKind::UnalignedAccess, 4, 1);
    assert_eq!(o.steps, 2);
    let o = run2(&[sw(1, 6, 0), JR31], 1, 0);
    assert_fault(&o, FaultKind::UnalignedAccess, 0, 6);
    // The address is the sum of base and offset.
    let o = run2(&[lw(3, 2, 1), JR31], 0x1001, 0);
    assert_fault(&o, FaultKind::UnalignedAccess, 0, 0x1003);
    let o = run2(&[lw(3, 1, 1), JR31], 0x1003, 0);
    done(&o);
    // Unaligned near the I/O addresses is still unaligned (or at least an error).
    let o = run2(&[lw(3, 0, 1), JR31], 0xFFFF_0005, 0);
    assert!(matches!(
        fault_of(&o).kind,
        FaultKind::UnalignedAccess | FaultKind::OutOfRangeAccess
    ));
    assert_eq!(fault_of(&o).value, 0xFFFF_0005);
    let o = run2(&[sw(1, 0, 2), JR31], 0, 0xFFFF_000D);
    assert!(matches!(
        fault_of(&o).kind,
        FaultKind::UnalignedAccess | FaultKind::OutOfRangeAccess
    ));
}

#[test]
fn out_of_range_accesses_are_errors() {
    let o = run2(&[lw(3, 0, 30), JR31], 0, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 0, MEM_SIZE);
    let o = run2(&[sw(3, 0, 30), JR31], 0, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 0, MEM_SIZE);
    let o = run2(&[lw(3, -4, 0), JR31], 0, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 0, 0xFFFF_FFFC);
    let o = run2(&[lis(5), 0xFFFF_0008, lw(3, 0, 5), JR31], 0, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 8, 0xFFFF_0008);
    let o = run2(&[lis(5), 0xFFFF_0008, sw(3, 0, 5), JR31], 0, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 8, 0xFFFF_0008);
    let o = run2(&[lw(3, 0, 1), JR31], 0x8000_0000, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 0, 0x8000_0000);
    let o = run2(&[sw(3, 0x7FFC, 1), JR31], 0x00FF_8004, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 0, MEM_SIZE);
}

#[test]
fn stack_push_and_pop() {
    let p = [
        lis(4),
        4,
        sub(30, 30, 4),
        sw(1, 0, 30),
        sub(30, 30, 4),
        sw(2, 0, 30),
        lw(3, 0, 30),
        add(30, 30, 4),
        lw(5, 0, 30),
        add(30, 30, 4),
        JR31,
    ];
    let mut m = Machine::new(&prog(&p), Config::default());
    m.apply(&Frontend::TwoInts(11, 22)).unwrap();
    assert_eq!(m.run(&mut NoTrace), Status::Done);
    let g = m.regs().gpr;
    assert_eq!((g[3], g[5], g[30]), (22, 11, STACK_TOP));
    assert_eq!(m.read_word(STACK_TOP - 4), 11);
    assert_eq!(m.read_word(STACK_TOP - 8), 22);
    assert_eq!(m.memory().pages_in_use(), 1);
}

// ---------------------------------------------------------------------------------------
// I/O

#[test]
fn sw_to_the_output_address_writes_the_low_byte() {
    let p = [
        lis(5),
        0xFFFF_000C,
        lis(6),
        0x1234_5641, // 'A'
        sw(6, 0, 5),
        sw(1, 0, 5),
        lis(7),
        0xFFFF_0000,
        sw(2, 12, 7),
        JR31,
    ];
    let o = run2(&p, 0x10A, 0xFFFF_FF0A);
    done(&o);
    assert_eq!(o.output, b"A\n\n");
}

#[test]
fn lw_from_the_input_address_reads_bytes_then_minus_one() {
    let p = [
        lis(5),
        0xFFFF_0004,
        lw(3, 0, 5),
        lw(4, 0, 5),
        lw(6, 0, 5),
        lw(7, 0, 5),
        lw(8, 0, 5),
        JR31,
    ];
    let o = run_cfg(
        &p,
        Config::default(),
        Frontend::TwoInts(0, 0),
        &[b'a', 0xFF, 0],
    );
    done(&o);
    assert_eq!(
        (reg(&o, 3), reg(&o, 4), reg(&o, 6), reg(&o, 7), reg(&o, 8)),
        (0x61, 0xFF, 0, 0xFFFF_FFFF, 0xFFFF_FFFF)
    );
    let o = run2(&p, 0, 0);
    done(&o);
    assert_eq!(reg(&o, 3), 0xFFFF_FFFF, "empty input");
}

#[test]
fn echo_input_to_output() {
    // while ((c = getchar()) != -1) putchar(c)
    let p = [
        lis(5),
        0xFFFF_0000,
        lis(6),
        0xFFFF_FFFF,
        lw(3, 4, 5), // 4
        beq(3, 6, off(5, 8)),
        sw(3, 12, 5),
        beq(0, 0, off(7, 4)),
        JR31, // 8
    ];
    let o = run_cfg(&p, Config::default(), Frontend::TwoInts(0, 0), b"hello\xff");
    done(&o);
    assert_eq!(o.output, b"hello\xff");
}

#[test]
fn io_addresses_work_in_one_direction_only() {
    let o = run2(&[lis(5), 0xFFFF_000C, lw(3, 0, 5), JR31], 0, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 8, 0xFFFF_000C);
    let o = run2(&[lis(5), 0xFFFF_0004, sw(3, 0, 5), JR31], 0, 0);
    assert_fault(&o, FaultKind::OutOfRangeAccess, 8, 0xFFFF_0004);
    assert!(o.output.is_empty());
}

#[test]
fn set_input_on_a_machine() {
    let p = [lis(5), 0xFFFF_0004, lw(3, 0, 5), lw(4, 0, 5), JR31];
    let mut m = Machine::new(&prog(&p), Config::default());
    m.set_input(Arc::from(&b"xy"[..]));
    assert_eq!(m.run(&mut NoTrace), Status::Done);
    assert_eq!(
        (m.regs().gpr[3], m.regs().gpr[4]),
        (b'x' as u32, b'y' as u32)
    );
}

// ---------------------------------------------------------------------------------------
// Invalid instructions and bad pcs

#[test]
fn running_off_the_end_is_an_invalid_instruction_past_the_image() {
    let o = run2(&[add(3, 1, 2), add(4, 1, 1)], 1, 2);
    assert_fault(&o, FaultKind::InvalidInstruction, 8, 0);
    assert_eq!((reg(&o, 3), reg(&o, 4), o.steps), (3, 2, 3));
}

#[test]
fn invalid_words_in_the_image() {
    for w in [
        0x0800_0000,
        0xFFFF_FFFF,
        0x0022_1860,
        0x03e1_0008,
        0x0000_0001,
    ] {
        let o = run2(&[add(3, 1, 2), w, JR31], 1, 2);
        assert_fault(&o, FaultKind::InvalidInstruction, 4, w);
        assert_eq!(o.steps, 2);
    }
}

#[test]
fn the_empty_program_fails_at_zero_after_one_step() {
    let o = run2(&[], 1, 2);
    assert_fault(&o, FaultKind::InvalidInstruction, 0, 0);
    assert_eq!(o.steps, 1);
}

#[test]
fn jumps_to_unaligned_addresses_are_bad_pcs() {
    for target in [6, 1, 2, 3, 0x8123_456D, DEFAULT_TERMINATION - 2] {
        let o = run2(&[lis(5), target, jr(5), JR31], 0, 0);
        assert_fault(&o, FaultKind::BadPc, 8, target);
        assert_eq!(o.steps, 2);
    }
}

#[test]
fn jumps_outside_memory_are_bad_pcs() {
    for target in [
        MEM_SIZE,
        0xFFFF_000C,
        0xFFFF_FFFC,
        DEFAULT_TERMINATION - 4,
        0xFEE1_DEAC,
    ] {
        let o = run2(&[lis(5), target, jr(5), JR31], 0, 0);
        assert_fault(&o, FaultKind::BadPc, 8, target);
        assert_eq!(o.steps, 2);
        let o = run2(&[add(3, 1, 2), jalr(1), JR31], target, 0);
        assert_fault(&o, FaultKind::BadPc, 4, target);
        assert_eq!(reg(&o, 31), 8, "the jalr happened");
    }
}

#[test]
fn a_jump_to_the_last_word_of_memory_is_fine() {
    // Zero there, so it is an invalid instruction at 0xFFFFFC, not a bad pc.
    let o = run2(&[lis(5), 0x00FF_FFFC, jr(5)], 0, 0);
    assert_fault(&o, FaultKind::InvalidInstruction, 0x00FF_FFFC, 0);
    assert_eq!(o.steps, 3);
}

#[test]
fn branches_to_negative_addresses_are_bad_pcs() {
    let o = run2(&[beq(0, 0, -2)], 0, 0);
    assert_fault(&o, FaultKind::BadPc, 0, 0xFFFF_FFFC);
    assert_eq!(o.steps, 1);
    let o = run2(&[add(3, 1, 1), bne(1, 0, i16::MIN)], 1, 0);
    assert_fault(&o, FaultKind::BadPc, 4, 8u32.wrapping_sub(0x2_0000));
    // Not taken: falls through to the zero word.
    let o = run2(&[add(3, 1, 1), bne(1, 0, i16::MIN)], 0, 0);
    assert_fault(&o, FaultKind::InvalidInstruction, 8, 0);
}

#[test]
fn falling_through_the_end_of_memory_is_a_bad_pc() {
    // Store `add $3, $1, $2` into the last word of memory and jump there.
    let p = [
        lis(5),
        add(3, 1, 2),
        sw(5, -4, 30),
        lis(6),
        0x00FF_FFFC,
        jr(6),
    ];
    let o = run2(&p, 1, 2);
    assert_fault(&o, FaultKind::BadPc, 0x00FF_FFFC, MEM_SIZE);
    assert_eq!(reg(&o, 3), 3);
    assert_eq!(o.steps, 5);
}

#[test]
fn lis_at_the_end_of_memory() {
    // lis in the last word: its literal would lie outside memory.
    let p = [lis(5), lis(3), sw(5, -4, 30), lis(6), 0x00FF_FFFC, jr(6)];
    let o = run2(&p, 1, 2);
    let f = fault_of(&o);
    assert_eq!((f.kind, f.pc), (FaultKind::BadPc, 0x00FF_FFFC));
    // lis in the second-to-last word: loads the last word, then pc leaves memory.
    let p = [
        lis(5),
        lis(3),
        sw(5, -8, 30),
        lis(5),
        0x0BAD_F00D,
        sw(5, -4, 30),
        lis(6),
        0x00FF_FFF8,
        jr(6),
    ];
    let o = run2(&p, 1, 2);
    assert_fault(&o, FaultKind::BadPc, 0x00FF_FFF8, MEM_SIZE);
    assert_eq!(reg(&o, 3), 0x0BAD_F00D);
}

// ---------------------------------------------------------------------------------------
// Registers

#[test]
fn writes_to_zero_are_ignored() {
    let p = [
        add(0, 1, 2),
        sub(0, 1, 2),
        slt(0, 0, 1),
        sltu(0, 0, 1),
        mult(1, 2),
        mfhi(0),
        mflo(0),
        lis(0),
        0x1234_5678,
        lw(0, 0, 0),
        lis(5),
        0xFFFF_0004,
        lw(0, 0, 5),
        add(3, 0, 0),
        add(4, 0, 1),
        JR31,
    ];
    let o = run_cfg(
        &p,
        Config::default(),
        Frontend::TwoInts(0x10000, 0x10003),
        b"z",
    );
    done(&o);
    assert_eq!(reg(&o, 0), 0);
    assert_eq!((reg(&o, 3), reg(&o, 4)), (0, 0x10000));
    // jalr $0 still links: $31 = pc + 4, and jumps to 0.
    let o = run_cfg(
        &[add(3, 3, 1), jalr(0)],
        fuel(5),
        Frontend::TwoInts(1, 0),
        b"",
    );
    assert_eq!(
        (o.status, reg(&o, 31), reg(&o, 3)),
        (Status::OutOfFuel, 8, 3)
    );
    // set_reg on $0 is ignored too.
    let mut m = Machine::new(&prog(&[add(3, 0, 0), JR31]), Config::default());
    m.set_reg(Reg::ZERO, 5);
    m.set_reg(r(3), 5);
    assert_eq!(m.regs().gpr[0], 0);
    assert_eq!(m.regs().gpr[3], 5);
    assert_eq!(m.run(&mut NoTrace), Status::Done);
    assert_eq!(m.regs().gpr[3], 0);
}

#[test]
fn initial_registers() {
    let m = Machine::new(&prog(&[JR31]), Config::default());
    let regs = m.regs();
    for (k, &v) in regs.gpr.iter().enumerate() {
        let want = match k {
            30 => 0x0100_0000,
            31 => 0x8123_456C,
            _ => 0,
        };
        assert_eq!(v, want, "${k}");
    }
    assert_eq!((regs.hi, regs.lo), (0, 0));
    let o = run2(&[add(3, 30, 0), add(4, 31, 0), JR31], 1, 2);
    done(&o);
    assert_eq!((reg(&o, 1), reg(&o, 2)), (1, 2));
    assert_eq!((reg(&o, 3), reg(&o, 4)), (0x0100_0000, 0x8123_456C));
    assert_eq!(STACK_TOP, 0x0100_0000);
    assert_eq!(DEFAULT_TERMINATION, 0x8123_456C);
    assert_eq!(Config::default().termination, DEFAULT_TERMINATION);
}

#[test]
fn custom_termination_address() {
    let mut c = Config::default();
    c.termination = 0xFEE1_DEAD;
    let o = run_cfg(&[add(3, 31, 0), JR31], c, Frontend::TwoInts(0, 0), b"");
    done(&o);
    assert_eq!(reg(&o, 3), 0xFEE1_DEAD);
    assert_eq!(o.steps, 2);
    // The default address is now just a bad pc.
    let p = [lis(5), DEFAULT_TERMINATION, jr(5)];
    let o = run_cfg(&p, c, Frontend::TwoInts(0, 0), b"");
    assert_fault(&o, FaultKind::BadPc, 8, DEFAULT_TERMINATION);
    // A termination address inside memory: jumping there ends the run.
    c.termination = 0x40;
    let p = [lis(5), 0x40, jr(5)];
    let o = run_cfg(&p, c, Frontend::TwoInts(0, 0), b"");
    done(&o);
    assert_eq!(o.steps, 2);
}

// ---------------------------------------------------------------------------------------
// Fuel

#[test]
fn an_infinite_loop_runs_out_of_fuel_at_exactly_fuel_steps() {
    for f in [0, 1, 2, 7, 1000] {
        let o = run_cfg(&[beq(0, 0, -1)], fuel(f), Frontend::TwoInts(0, 0), b"");
        assert_eq!((o.status, o.steps), (Status::OutOfFuel, f));
    }
    let o = run_cfg(
        &[add(3, 3, 1), beq(0, 0, -2)],
        fuel(101),
        Frontend::TwoInts(1, 0),
        b"",
    );
    assert_eq!(
        (o.status, o.steps, reg(&o, 3)),
        (Status::OutOfFuel, 101, 51)
    );
}

#[test]
fn default_fuel() {
    let o = run2(&[beq(0, 0, -1)], 0, 0);
    assert_eq!(
        (o.status, o.steps),
        (Status::OutOfFuel, Config::default().fuel)
    );
}

#[test]
fn finishing_at_exactly_the_fuel_is_done() {
    let p = [add(3, 1, 2), add(3, 3, 3), add(3, 3, 3), JR31];
    let o = run_cfg(&p, fuel(4), Frontend::TwoInts(1, 1), b"");
    assert_eq!((o.status, o.steps, reg(&o, 3)), (Status::Done, 4, 8));
    let o = run_cfg(&p, fuel(3), Frontend::TwoInts(1, 1), b"");
    assert_eq!((o.status, o.steps, reg(&o, 3)), (Status::OutOfFuel, 3, 8));
    let o = run_cfg(&[JR31], fuel(1), Frontend::TwoInts(1, 1), b"");
    assert_eq!((o.status, o.steps), (Status::Done, 1));
    let o = run_cfg(&[JR31], fuel(0), Frontend::TwoInts(1, 1), b"");
    assert_eq!((o.status, o.steps), (Status::OutOfFuel, 0));
}

#[test]
fn an_error_at_exactly_the_fuel_is_an_error() {
    let p = [add(3, 1, 2), add(3, 3, 3), div(1, 0), JR31];
    let o = run_cfg(&p, fuel(3), Frontend::TwoInts(1, 1), b"");
    assert_fault(&o, FaultKind::DivisionByZero, 8, 0);
    assert_eq!(o.steps, 3);
    let o = run_cfg(&p, fuel(2), Frontend::TwoInts(1, 1), b"");
    assert_eq!((o.status, o.steps), (Status::OutOfFuel, 2));
    // Invalid instruction as step `fuel`.
    let o = run_cfg(&[add(3, 1, 2)], fuel(2), Frontend::TwoInts(1, 1), b"");
    assert_fault(&o, FaultKind::InvalidInstruction, 4, 0);
    assert_eq!(o.steps, 2);
    let o = run_cfg(&[add(3, 1, 2)], fuel(1), Frontend::TwoInts(1, 1), b"");
    assert_eq!((o.status, o.steps), (Status::OutOfFuel, 1));
    // A jump to a bad pc as step `fuel`.
    let o = run_cfg(&[jr(1)], fuel(1), Frontend::TwoInts(3, 0), b"");
    assert_fault(&o, FaultKind::BadPc, 0, 3);
    assert_eq!(o.steps, 1);
    // The empty program with fuel 1 fails; with fuel 0 it has not started.
    let o = run_cfg(&[], fuel(1), Frontend::TwoInts(0, 0), b"");
    assert_fault(&o, FaultKind::InvalidInstruction, 0, 0);
    let o = run_cfg(&[], fuel(0), Frontend::TwoInts(0, 0), b"");
    assert_eq!((o.status, o.steps), (Status::OutOfFuel, 0));
}

// ---------------------------------------------------------------------------------------
// Frontends

/// Reads three words from the array, plus `$2`.
const ARRAY_PROG: [u32; 5] = [
    Instr::Lw {
        t: Reg::from_bits(3),
        i: 0,
        s: Reg::from_bits(1),
    }
    .encode(),
    Instr::Lw {
        t: Reg::from_bits(4),
        i: 4,
        s: Reg::from_bits(1),
    }
    .encode(),
    Instr::Lw {
        t: Reg::from_bits(5),
        i: 8,
        s: Reg::from_bits(1),
    }
    .encode(),
    Instr::Add {
        d: Reg::from_bits(6),
        s: Reg::from_bits(2),
        t: Reg::ZERO,
    }
    .encode(),
    JR31,
];

#[test]
fn array_frontend_places_words_after_the_image() {
    let fe = Frontend::Array {
        elems: vec![10, 20],
        base: None,
    };
    let o = run_cfg(&ARRAY_PROG, Config::default(), fe, b"");
    done(&o);
    assert_eq!(reg(&o, 1), 20, "right after the 5-word image");
    assert_eq!(reg(&o, 2), 2);
    assert_eq!(
        (reg(&o, 3), reg(&o, 4), reg(&o, 5), reg(&o, 6)),
        (10, 20, 0, 2)
    );
}

#[test]
fn array_frontend_with_a_base_and_empty_arrays() {
    let fe = Frontend::Array {
        elems: vec![7, 8, 9],
        base: Some(0x1000),
    };
    let o = run_cfg(&ARRAY_PROG, Config::default(), fe, b"");
    done(&o);
    assert_eq!((reg(&o, 1), reg(&o, 2)), (0x1000, 3));
    assert_eq!((reg(&o, 3), reg(&o, 4), reg(&o, 5)), (7, 8, 9));
    let fe = Frontend::Array {
        elems: vec![],
        base: None,
    };
    let o = run_cfg(&ARRAY_PROG, Config::default(), fe, b"");
    done(&o);
    assert_eq!((reg(&o, 1), reg(&o, 2), reg(&o, 3)), (20, 0, 0));
    // An array that ends exactly at the top of memory.
    let fe = Frontend::Array {
        elems: vec![1, 2],
        base: Some(MEM_SIZE - 8),
    };
    let mut m = Machine::new(&prog(&ARRAY_PROG), Config::default());
    m.apply(&fe).unwrap();
    assert_eq!(m.read_word(MEM_SIZE - 4), 2);
}

#[test]
fn array_sum() {
    // $3 = sum of the array.
    let p = [
        lis(4),
        4,
        lis(6),
        1,
        beq(2, 0, off(4, 10)), // 4
        lw(5, 0, 1),
        add(3, 3, 5),
        add(1, 1, 4),
        sub(2, 2, 6),
        beq(0, 0, off(9, 4)),
        JR31, // 10
    ];
    let elems: Vec<u32> = (1..=100).collect();
    let fe = Frontend::Array { elems, base: None };
    let o = run_cfg(&p, Config::default(), fe, b"");
    done(&o);
    assert_eq!(reg(&o, 3), 5050);
    assert_eq!(reg(&o, 1), 4 * 11 + 4 * 100, "one past the array");
}

#[test]
fn array_frontend_errors() {
    let p = prog(&ARRAY_PROG);
    let fe = Frontend::Array {
        elems: vec![1, 2],
        base: Some(MEM_SIZE - 4),
    };
    assert_eq!(
        run_program(&p, Config::default(), &fe, b""),
        Err(SetupError::ArrayTooLarge {
            base: MEM_SIZE - 4,
            len: 2
        })
    );
    let fe = Frontend::Array {
        elems: vec![1],
        base: Some(6),
    };
    assert_eq!(
        run_program(&p, Config::default(), &fe, b""),
        Err(SetupError::ArrayUnaligned(6))
    );
    // More words than memory holds after a 5-word image.
    let n = (MEM_SIZE / 4) as usize - 4;
    let fe = Frontend::Array {
        elems: vec![0; n],
        base: None,
    };
    assert_eq!(
        run_program(&p, Config::default(), &fe, b""),
        Err(SetupError::ArrayTooLarge { base: 20, len: n })
    );
    // One fewer fits exactly.
    let fe = Frontend::Array {
        elems: vec![0; n - 1],
        base: None,
    };
    assert!(run_program(&p, Config::default(), &fe, b"").is_ok());
}

// ---------------------------------------------------------------------------------------
// Self-modifying code

#[test]
fn storing_an_instruction_into_the_image_then_running_it() {
    let p = [
        lis(5),
        add(3, 1, 2),
        sw(5, 16, 0), // 8: overwrite word 4
        add(4, 0, 0),
        0, // 16: becomes add $3, $1, $2
        JR31,
    ];
    let o = run2(&p, 30, 12);
    done(&o);
    assert_eq!(reg(&o, 3), 42);
    assert_eq!(o.steps, 5);
}

#[test]
fn overwriting_an_instruction_that_already_ran() {
    let p = [
        lis(5),
        sub(3, 3, 2),
        add(3, 3, 1),         // 8: X, overwritten by `sub $3, $3, $2`
        sw(5, 8, 0),          // 12
        bne(7, 0, off(4, 7)), // 16: second time round, exit
        add(7, 7, 5),         // 20
        beq(0, 0, off(6, 2)), // 24
        JR31,                 // 28
    ];
    let o = run2(&p, 10, 3);
    done(&o);
    assert_eq!(reg(&o, 3), 7, "the second pass runs the new instruction");
}

#[test]
fn overwriting_a_lis_literal() {
    // The lis at 16 loads its literal from memory, after the sw patched it.
    let p = [lis(5), 99, sw(5, 20, 0), beq(0, 0, 0), lis(3), 1, JR31];
    let o = run2(&p, 0, 0);
    done(&o);
    assert_eq!(reg(&o, 3), 99);
}

#[test]
fn storing_code_beyond_the_image_then_jumping_there() {
    let p = [
        lis(5),
        add(3, 1, 2),
        lis(6),
        0x2000,
        sw(5, 0, 6),
        lis(5),
        JR31,
        sw(5, 4, 6),
        jr(6),
    ];
    let o = run2(&p, 40, 2);
    done(&o);
    assert_eq!(reg(&o, 3), 42);
    assert_eq!(o.steps, 8);
    // Code beyond the image can be rewritten and rerun, too.
    let p = [
        lis(5),
        add(3, 3, 1),
        lis(6),
        0x2000,
        sw(5, 0, 6),
        lis(5),
        JR31,
        sw(5, 4, 6),
        add(8, 31, 0), // save $31
        jalr(6),       // runs add $3,$3,$1 then returns
        lis(5),
        sub(3, 3, 2),
        sw(5, 0, 6),
        jalr(6), // runs sub $3,$3,$2 then returns
        add(31, 8, 0),
        JR31,
    ];
    let o = run2(&p, 40, 2);
    done(&o);
    assert_eq!(reg(&o, 3), 38);
}

// ---------------------------------------------------------------------------------------
// Reset

#[test]
fn reset_restores_the_initial_state() {
    let p = [
        lis(5),
        0xFFFF_0000,
        lw(6, 4, 5),   // read a byte
        sw(6, 12, 5),  // echo it
        sw(1, -4, 30), // push
        lis(7),
        add(3, 1, 2),
        sw(7, 0x30, 0), // patch word 12
        mult(1, 2),
        add(1, 1, 1),    // change an input register
        lw(9, 0x100, 0), // a word beyond the image: zero, unless a store survived
        sw(7, 0x100, 0),
        0, // 48 = 0x30: becomes add $3, $1, $2
        JR31,
    ];
    let program = prog(&p);
    let mut m = Machine::new(&program, Config::default());
    m.set_input(Arc::from(&b"Q"[..]));
    let fe = Frontend::TwoInts(5, 6);
    m.apply(&fe).unwrap();
    let first = m.run_to_outcome(&mut NoTrace);
    done(&first);
    assert_eq!(first.output, b"Q");
    assert_eq!(first.regs.gpr[3], 16);
    assert_eq!(first.regs.gpr[9], 0);
    assert_ne!(m.memory().pages_in_use(), 0);

    m.reset();
    let fresh = Machine::new(&program, Config::default());
    assert_eq!(m.regs(), fresh.regs());
    assert_eq!(m.steps(), 0);
    assert!(m.output().is_empty());
    assert_eq!(m.memory().pages_in_use(), 0);
    assert_eq!(m.read_word(0x30), 0);
    assert_eq!(m.read_word(STACK_TOP - 4), 0);
    assert_eq!(m.read_word(0x100), 0);
    m.apply(&fe).unwrap();
    let second = m.run_to_outcome(&mut NoTrace);
    assert_eq!(first, second);
    // And the same as a fresh run.
    let third = run_cfg(&p, Config::default(), fe, b"Q");
    assert_eq!(first, third);
}

#[test]
fn reset_after_an_array_run() {
    let program = prog(&ARRAY_PROG);
    let mut m = Machine::new(&program, Config::default());
    m.apply(&Frontend::Array {
        elems: vec![1, 2, 3],
        base: None,
    })
    .unwrap();
    let a = m.run_to_outcome(&mut NoTrace);
    m.reset();
    m.apply(&Frontend::Array {
        elems: vec![4],
        base: None,
    })
    .unwrap();
    let b = m.run_to_outcome(&mut NoTrace);
    assert_eq!((a.regs.gpr[3], a.regs.gpr[4], a.regs.gpr[5]), (1, 2, 3));
    assert_eq!(
        (b.regs.gpr[3], b.regs.gpr[4], b.regs.gpr[5]),
        (4, 0, 0),
        "no stale array words"
    );
}

// ---------------------------------------------------------------------------------------
// Tracers

#[derive(Default)]
struct Recorder {
    execs: Vec<(u32, Instr, Event)>,
    faults: Vec<(Option<Instr>, Fault)>,
}

impl Tracer for Recorder {
    fn exec(&mut self, pc: u32, instr: Instr, event: Event) {
        self.execs.push((pc, instr, event));
    }
    fn fault(&mut self, instr: Option<Instr>, fault: Fault) {
        self.faults.push((instr, fault));
    }
}

fn trace(words: &[u32], a: u32, b: u32, input: &[u8]) -> (Status, Recorder) {
    let mut m = Machine::new(&prog(words), Config::default());
    m.apply(&Frontend::TwoInts(a, b)).unwrap();
    m.set_input(Arc::from(input));
    let mut rec = Recorder::default();
    let status = m.run(&mut rec);
    (status, rec)
}

#[test]
fn tracer_sees_every_event() {
    let p = [
        lis(5),        // 0
        0xFFFF_0000,   // 4
        add(3, 1, 2),  // 8
        sw(3, -4, 30), // 12
        lw(4, -4, 30), // 16
        lw(6, 4, 5),   // 20: input 'k'
        lw(7, 4, 5),   // 24: end of input
        sw(6, 12, 5),  // 28: output 'k'
        beq(3, 4, 0),  // 32: taken (offset 0)
        bne(3, 4, 5),  // 36: not taken
        lis(8),        // 40
        56,            // 44
        jalr(8),       // 48
        0,             // 52
        div(1, 0),     // 56: division by zero
    ];
    let (status, rec) = trace(&p, 3, 4, b"k");
    let i = |w: u32| Instr::decode(w).unwrap();
    let f = Fault {
        kind: FaultKind::DivisionByZero,
        pc: 56,
        value: 0,
    };
    assert_eq!(status, Status::Error(f));
    let want = vec![
        (0, i(p[0]), Event::Literal(0xFFFF_0000)),
        (8, i(p[2]), Event::None),
        (
            12,
            i(p[3]),
            Event::Store {
                addr: STACK_TOP - 4,
                value: 7,
            },
        ),
        (
            16,
            i(p[4]),
            Event::Load {
                addr: STACK_TOP - 4,
                value: 7,
            },
        ),
        (20, i(p[5]), Event::Input(Some(b'k'))),
        (24, i(p[6]), Event::Input(None)),
        (28, i(p[7]), Event::Output(b'k')),
        (32, i(p[8]), Event::Branch { taken: true }),
        (36, i(p[9]), Event::Branch { taken: false }),
        (40, i(p[10]), Event::Literal(56)),
        (
            48,
            i(p[12]),
            Event::Jump {
                target: 56,
                link: Some(52),
            },
        ),
    ];
    assert_eq!(rec.execs, want);
    assert_eq!(rec.faults, vec![(Some(i(p[14])), f)]);
}

#[test]
fn tracer_sees_jr_and_the_end() {
    let (status, rec) = trace(&[jr(31)], 0, 0, b"");
    assert_eq!(status, Status::Done);
    assert_eq!(
        rec.execs,
        vec![(
            0,
            Instr::Jr { s: Reg::RA },
            Event::Jump {
                target: DEFAULT_TERMINATION,
                link: None
            }
        )]
    );
    assert!(rec.faults.is_empty());
}

#[test]
fn tracer_sees_each_kind_of_fault() {
    let i = |w: u32| Instr::decode(w).unwrap();
    // invalid instruction: no instruction to report
    let (s, rec) = trace(&[add(3, 1, 2), 0xFFFF_FFFF], 0, 0, b"");
    let f = Fault {
        kind: FaultKind::InvalidInstruction,
        pc: 4,
        value: 0xFFFF_FFFF,
    };
    assert_eq!((s, rec.faults), (Status::Error(f), vec![(None, f)]));
    assert_eq!(rec.execs.len(), 1);
    // bad pc: reported once the jump has executed, with no instruction
    let (s, rec) = trace(&[jr(1)], 6, 0, b"");
    let f = Fault {
        kind: FaultKind::BadPc,
        pc: 0,
        value: 6,
    };
    assert_eq!((s, rec.faults), (Status::Error(f), vec![(None, f)]));
    assert_eq!(
        rec.execs,
        vec![(
            0,
            i(jr(1)),
            Event::Jump {
                target: 6,
                link: None
            }
        )]
    );
    // unaligned and out-of-range accesses: the failing instruction is reported, no exec
    let (s, rec) = trace(&[sw(1, 1, 0)], 0, 0, b"");
    let f = Fault {
        kind: FaultKind::UnalignedAccess,
        pc: 0,
        value: 1,
    };
    assert_eq!(
        (s, rec.faults),
        (Status::Error(f), vec![(Some(i(sw(1, 1, 0))), f)])
    );
    assert!(rec.execs.is_empty());
    let (s, rec) = trace(&[lw(1, 0, 30)], 0, 0, b"");
    let f = Fault {
        kind: FaultKind::OutOfRangeAccess,
        pc: 0,
        value: MEM_SIZE,
    };
    assert_eq!(
        (s, rec.faults),
        (Status::Error(f), vec![(Some(i(lw(1, 0, 30))), f)])
    );
    // out of fuel and done: no fault
    let mut m = Machine::new(&prog(&[beq(0, 0, -1)]), fuel(5));
    let mut rec = Recorder::default();
    assert_eq!(m.run(&mut rec), Status::OutOfFuel);
    assert_eq!(rec.execs.len(), 5);
    assert!(rec.faults.is_empty());
}

#[test]
fn fault_names_and_messages() {
    assert_eq!(FaultKind::InvalidInstruction.name(), "invalid-instruction");
    assert_eq!(FaultKind::DivisionByZero.name(), "division-by-zero");
    assert_eq!(FaultKind::UnalignedAccess.name(), "unaligned-access");
    assert_eq!(FaultKind::OutOfRangeAccess.name(), "out-of-range-access");
    assert_eq!(FaultKind::BadPc.name(), "bad-pc");
    let f = Fault {
        kind: FaultKind::BadPc,
        pc: 8,
        value: 6,
    };
    let msg = f.to_string();
    assert!(
        msg.contains("0x00000006") && msg.contains("0x00000008"),
        "{msg}"
    );
    assert_eq!(Status::Done.name(), "done");
    assert_eq!(Status::OutOfFuel.name(), "out-of-fuel");
    assert_eq!(Status::Error(f).name(), "error");
}

// ---------------------------------------------------------------------------------------
// Property: straight-line arithmetic against a reference interpreter

#[derive(Clone, Copy, Debug)]
enum Op {
    Add(u8, u8, u8),
    Sub(u8, u8, u8),
    Slt(u8, u8, u8),
    Sltu(u8, u8, u8),
    Mult(u8, u8),
    Multu(u8, u8),
    Div(u8, u8),
    Divu(u8, u8),
    Mflo(u8),
    Mfhi(u8),
}

impl Op {
    fn encode(self) -> u32 {
        match self {
            Op::Add(d, s, t) => add(d, s, t),
            Op::Sub(d, s, t) => sub(d, s, t),
            Op::Slt(d, s, t) => slt(d, s, t),
            Op::Sltu(d, s, t) => sltu(d, s, t),
            Op::Mult(s, t) => mult(s, t),
            Op::Multu(s, t) => multu(s, t),
            Op::Div(s, t) => div(s, t),
            Op::Divu(s, t) => divu(s, t),
            Op::Mflo(d) => mflo(d),
            Op::Mfhi(d) => mfhi(d),
        }
    }
}

/// The reference: registers, hi, lo, and the index of a division by zero if any.
struct Ref {
    g: [u32; 32],
    hi: u32,
    lo: u32,
}

impl Ref {
    fn new(a: u32, b: u32) -> Ref {
        let mut g = [0; 32];
        g[1] = a;
        g[2] = b;
        g[30] = 0x0100_0000;
        g[31] = 0x8123_456C;
        Ref { g, hi: 0, lo: 0 }
    }

    fn set(&mut self, d: u8, v: u32) {
        if d != 0 {
            self.g[d as usize] = v;
        }
    }

    /// Runs one op; false on division by zero.
    fn step(&mut self, op: Op) -> bool {
        let g = self.g;
        let x = |n: u8| g[n as usize];
        let sx = |n: u8| g[n as usize] as i32 as i128;
        let ux = |n: u8| g[n as usize] as i128;
        match op {
            Op::Add(d, s, t) => self.set(d, ((ux(s) + ux(t)) % (1 << 32)) as u32),
            Op::Sub(d, s, t) => self.set(d, (ux(s) - ux(t)).rem_euclid(1 << 32) as u32),
            Op::Slt(d, s, t) => self.set(d, u32::from(sx(s) < sx(t))),
            Op::Sltu(d, s, t) => self.set(d, u32::from(ux(s) < ux(t))),
            Op::Mult(s, t) | Op::Multu(s, t) => {
                let p = if matches!(op, Op::Mult(..)) {
                    sx(s) * sx(t)
                } else {
                    ux(s) * ux(t)
                };
                let p = p.rem_euclid(1 << 64);
                self.hi = (p >> 32) as u32;
                self.lo = (p & 0xFFFF_FFFF) as u32;
            }
            Op::Div(s, t) | Op::Divu(s, t) => {
                if x(t) == 0 {
                    return false;
                }
                let (a, b) = if matches!(op, Op::Div(..)) {
                    (sx(s), sx(t))
                } else {
                    (ux(s), ux(t))
                };
                // Truncating division on wide integers, then wrapped to 32 bits.
                let q = a / b;
                let rem = a - q * b;
                self.lo = q.rem_euclid(1 << 32) as u32;
                self.hi = rem.rem_euclid(1 << 32) as u32;
            }
            Op::Mflo(d) => self.set(d, self.lo),
            Op::Mfhi(d) => self.set(d, self.hi),
        }
        true
    }
}

fn arb_op(regs: std::ops::RangeInclusive<u8>, with_div: bool) -> BoxedStrategy<Op> {
    let r = move || regs.clone();
    let base = prop_oneof![
        (r(), r(), r()).prop_map(|(d, s, t)| Op::Add(d, s, t)),
        (r(), r(), r()).prop_map(|(d, s, t)| Op::Sub(d, s, t)),
        (r(), r(), r()).prop_map(|(d, s, t)| Op::Slt(d, s, t)),
        (r(), r(), r()).prop_map(|(d, s, t)| Op::Sltu(d, s, t)),
        (r(), r()).prop_map(|(s, t)| Op::Mult(s, t)),
        (r(), r()).prop_map(|(s, t)| Op::Multu(s, t)),
        r().prop_map(Op::Mflo),
        r().prop_map(Op::Mfhi),
    ];
    if with_div {
        prop_oneof![
            8 => base,
            1 => (r(), r()).prop_map(|(s, t)| Op::Div(s, t)),
            1 => (r(), r()).prop_map(|(s, t)| Op::Divu(s, t)),
        ]
        .boxed()
    } else {
        base.boxed()
    }
}

/// Interesting 32-bit values: edges more often than chance would give them.
fn arb_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        prop::sample::select(vec![
            0,
            1,
            2,
            7,
            0x7FFF_FFFF,
            0x8000_0000,
            0x8000_0001,
            0xFFFF_FFFF,
            0xFFFF_FFFE,
            0xFFFF_FFF9,
            0x1_0000,
        ]),
    ]
}

fn check_against_reference(ops: &[Op], a: u32, b: u32) -> Result<(), TestCaseError> {
    let mut words: Vec<u32> = ops.iter().map(|op| op.encode()).collect();
    words.push(JR31);
    let o = run2(&words, a, b);
    let mut rf = Ref::new(a, b);
    let mut failed_at = None;
    for (k, &op) in ops.iter().enumerate() {
        if !rf.step(op) {
            failed_at = Some(k);
            break;
        }
    }
    match failed_at {
        None => {
            prop_assert_eq!(o.status, Status::Done);
            prop_assert_eq!(o.steps, ops.len() as u64 + 1);
        }
        Some(k) => {
            let f = Fault {
                kind: FaultKind::DivisionByZero,
                pc: 4 * k as u32,
                value: 0,
            };
            prop_assert_eq!(o.status, Status::Error(f));
            prop_assert_eq!(o.steps, k as u64 + 1);
        }
    }
    prop_assert_eq!(o.regs.gpr, rf.g);
    prop_assert_eq!((o.regs.hi, o.regs.lo), (rf.hi, rf.lo));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn straight_line_arithmetic_matches_the_reference(
        ops in prop::collection::vec(arb_op(1..=8, false), 0..40),
        a in arb_word(),
        b in arb_word(),
    ) {
        check_against_reference(&ops, a, b)?;
    }

    #[test]
    fn straight_line_with_division_and_zero_matches_the_reference(
        ops in prop::collection::vec(arb_op(0..=8, true), 0..40),
        a in arb_word(),
        b in arb_word(),
    ) {
        check_against_reference(&ops, a, b)?;
    }

    #[test]
    fn reset_then_rerun_is_deterministic(
        ops in prop::collection::vec(arb_op(0..=8, true), 0..20),
        a in arb_word(),
        b in arb_word(),
    ) {
        let mut words: Vec<u32> = ops.iter().map(|op| op.encode()).collect();
        words.push(JR31);
        let mut m = Machine::new(&prog(&words), Config::default());
        m.apply(&Frontend::TwoInts(a, b)).unwrap();
        let first = m.run_to_outcome(&mut NoTrace);
        m.reset();
        m.apply(&Frontend::TwoInts(a, b)).unwrap();
        prop_assert_eq!(first, m.run_to_outcome(&mut NoTrace));
    }
}

#[test]
fn an_image_larger_than_memory_does_not_extend_memory() {
    // Program::from_words accepts any length; memory still ends at 0x01000000.
    let n = (MEM_SIZE / 4) as usize;
    let mut words = vec![0; n + 2];
    words[0] = jr(30); // $30 = 0x01000000: outside memory
    words[n] = JR31;
    let o = run2(&words, 0, 0);
    assert_fault(&o, FaultKind::BadPc, 0, MEM_SIZE);
}

// ---------------------------------------------------------------------------------------
// Stopping a run from outside

/// `top: beq $0, $0, top`: spins until the fuel runs out.
fn spin() -> Vec<u32> {
    vec![beq(0, 0, -1)]
}

#[test]
fn a_passed_deadline_stops_a_spinning_run_long_before_its_fuel() {
    let mut config = fuel(u64::MAX);
    config.stop = Stop::at(Some(std::time::Instant::now()));
    let mut m = Machine::new(&prog(&spin()), config);
    let o = m.run_to_outcome(&mut NoTrace);
    assert_eq!(o.status, Status::Stopped);
    // Stopped at the first look, not after the whole fuel.
    assert_eq!(o.steps, tamarin_mips::cpu::STOP_CHECK_STEPS);
}

#[test]
fn a_raised_flag_stops_a_run_and_a_lowered_one_does_not() {
    static FLAG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let flag = &FLAG;
    let steps = 3 * tamarin_mips::cpu::STOP_CHECK_STEPS + 7;
    let mut config = fuel(steps);
    config.stop = Stop::default().with_flag(Some(flag));
    let mut m = Machine::new(&prog(&spin()), config);
    let o = m.run_to_outcome(&mut NoTrace);
    assert_eq!((o.status, o.steps), (Status::OutOfFuel, steps));
    flag.store(true, std::sync::atomic::Ordering::Relaxed);
    m.reset();
    assert_eq!(m.run_to_outcome(&mut NoTrace).status, Status::Stopped);
}

#[test]
fn a_watched_run_that_ends_is_the_same_as_an_unwatched_one() {
    // A loop of 1,000,000 iterations crosses several looks at the stop condition.
    let words = [
        lis(5),
        1_000_000,
        lis(4),
        1,
        sub(5, 5, 4),
        add(3, 3, 4),
        bne(5, 0, -3),
        jr(31),
    ];
    let plain = run_cfg(&words, fuel(10_000_000), Frontend::TwoInts(0, 0), b"");
    assert_eq!(plain.status, Status::Done);
    let mut config = fuel(10_000_000);
    config.stop = Stop::at(Some(
        std::time::Instant::now() + std::time::Duration::from_secs(3600),
    ));
    let mut m = Machine::new(&prog(&words), config);
    let watched = m.run_to_outcome(&mut NoTrace);
    assert_eq!(watched, plain);
}
