//! The term domain against the emulator's: the MIPS32 semantics
//! (`tamarin_mips::target::mips32`) is written once, so what can still differ is how
//! [`Ops`] is implemented over terms and over words. These property tests run whole
//! instructions on random registers in both and compare every value of the effects.

use proptest::prelude::*;
use tamarin_mips::mips32::isa::{
    AluOp, BitOp, BranchCond, ImmOp, Instr, MulDivOp, ShiftOp, TrapCond, TrapOperand, Width,
};
use tamarin_mips::target::{mips32 as sem, Concrete, Effect, Ops, PartOp, Regs};
use tamarin_mips::Reg;

use crate::term::{Evaluator, Term, TermStore};

fn edge() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        Just(1),
        Just(31),
        Just(32),
        Just(u32::MAX),
        Just(0x8000_0000),
        Just(0x7fff_ffff),
        any::<u32>()
    ]
}

fn reg() -> impl Strategy<Value = Reg> {
    (0u32..32).prop_map(Reg::from_bits)
}

/// Every instruction of the profile, with random operands (by construction rather
/// than by decoding random words, which would rarely hit the rarer ones).
fn instruction() -> impl Strategy<Value = Instr> {
    use AluOp as A;
    let alu = prop::sample::select(vec![
        A::Add,
        A::Addu,
        A::Sub,
        A::Subu,
        A::And,
        A::Or,
        A::Xor,
        A::Nor,
        A::Slt,
        A::Sltu,
        A::Sllv,
        A::Srlv,
        A::Srav,
        A::Rotrv,
        A::Movn,
        A::Movz,
        A::Mul,
    ]);
    let imm = prop::sample::select(vec![
        ImmOp::Addi,
        ImmOp::Addiu,
        ImmOp::Slti,
        ImmOp::Sltiu,
        ImmOp::Andi,
        ImmOp::Ori,
        ImmOp::Xori,
        ImmOp::Lui,
    ]);
    let shift = prop::sample::select(vec![
        ShiftOp::Sll,
        ShiftOp::Srl,
        ShiftOp::Sra,
        ShiftOp::Rotr,
    ]);
    let muldiv = prop::sample::select(vec![
        MulDivOp::Mult,
        MulDivOp::Multu,
        MulDivOp::Div,
        MulDivOp::Divu,
        MulDivOp::Madd,
        MulDivOp::Maddu,
        MulDivOp::Msub,
        MulDivOp::Msubu,
    ]);
    let bit = prop::sample::select(vec![
        BitOp::Clz,
        BitOp::Clo,
        BitOp::Seb,
        BitOp::Seh,
        BitOp::Wsbh,
    ]);
    let width = prop::sample::select(vec![Width::Byte, Width::Half, Width::Word]);
    let bcond = prop::sample::select(vec![
        BranchCond::Eq,
        BranchCond::Ne,
        BranchCond::Lez,
        BranchCond::Gtz,
        BranchCond::Ltz,
        BranchCond::Gez,
    ]);
    let tcond = prop::sample::select(vec![
        TrapCond::Eq,
        TrapCond::Ne,
        TrapCond::Ge,
        TrapCond::Geu,
        TrapCond::Lt,
        TrapCond::Ltu,
    ]);
    prop_oneof![
        (alu, reg(), reg(), reg()).prop_map(|(op, d, s, t)| Instr::Alu { op, d, s, t }),
        (imm, reg(), reg(), edge()).prop_map(|(op, t, s, imm)| Instr::Imm { op, t, s, imm }),
        (shift, reg(), reg(), 0u8..32).prop_map(|(op, d, t, sa)| Instr::Shift { op, d, t, sa }),
        (muldiv, reg(), reg()).prop_map(|(op, s, t)| Instr::MulDiv { op, s, t }),
        (bit, reg(), reg()).prop_map(|(op, d, src)| Instr::Bit { op, d, src }),
        (reg(), reg(), 0u8..32, 1u8..33).prop_map(|(t, s, pos, size)| Instr::Ext {
            t,
            s,
            pos,
            size: size.min(32 - pos)
        }),
        (reg(), reg(), 0u8..32, 1u8..33).prop_map(|(t, s, pos, size)| Instr::Ins {
            t,
            s,
            pos,
            size: size.min(32 - pos)
        }),
        (width.clone(), any::<bool>(), reg(), reg(), any::<i16>()).prop_map(
            |(width, signed, t, s, off)| Instr::Load {
                width,
                signed,
                t,
                s,
                off
            }
        ),
        (width, reg(), reg(), any::<i16>()).prop_map(|(width, t, s, off)| Instr::Store {
            width,
            t,
            s,
            off
        }),
        (bcond, reg(), reg(), any::<i16>(), any::<bool>()).prop_map(|(cond, s, t, off, link)| {
            Instr::Branch {
                cond,
                s,
                t,
                off,
                link,
            }
        }),
        (0u32..1 << 26, any::<bool>()).prop_map(|(index, link)| Instr::Jump { index, link }),
        (reg(), prop::option::of(reg())).prop_map(|(s, link)| Instr::JumpReg { s, link }),
        (
            tcond,
            reg(),
            prop_oneof![
                reg().prop_map(TrapOperand::Reg),
                edge().prop_map(TrapOperand::Imm)
            ],
            any::<u16>()
        )
            .prop_map(|(cond, s, t, code)| Instr::Trap { cond, s, t, code }),
        reg().prop_map(|d| Instr::Mfhi { d }),
        reg().prop_map(|s| Instr::Mthi { s }),
        any::<u32>().prop_map(|code| Instr::Break { code }),
        reg().prop_map(|d| Instr::Mflo { d }),
        reg().prop_map(|s| Instr::Mtlo { s }),
    ]
}

/// The values of a term effect at `vars`, to set beside the concrete effect.
fn evaluate(s: &TermStore, vars: &[u64], e: Effect<Term, Term>) -> Effect<u32, bool> {
    let ev = std::cell::RefCell::new(Evaluator::new(s, vars));
    let w = |t: Term| ev.borrow_mut().eval(t) as u32;
    let b = |t: Term| ev.borrow_mut().eval(t) != 0;
    match e {
        Effect::Nothing => Effect::Nothing,
        Effect::Set(r, v) => Effect::Set(r, w(v)),
        Effect::SetHiLo { hi, lo } => Effect::SetHiLo {
            hi: w(hi),
            lo: w(lo),
        },
        Effect::Divide { divisor, hi, lo } => Effect::Divide {
            divisor: w(divisor),
            hi: w(hi),
            lo: w(lo),
        },
        Effect::Trap { cond, ending, then } => Effect::Trap {
            cond: b(cond),
            ending,
            then: then.map(|(r, v)| (r, w(v))),
        },
        Effect::Literal(r) => Effect::Literal(r),
        Effect::Load {
            dest,
            addr,
            width,
            signed,
        } => Effect::Load {
            dest,
            addr: w(addr),
            width,
            signed,
        },
        Effect::Store { addr, value, width } => Effect::Store {
            addr: w(addr),
            value: w(value),
            width,
        },
        Effect::Part { op, reg, addr } => Effect::Part {
            op,
            reg,
            addr: w(addr),
        },
        Effect::Branch {
            cond,
            target,
            link,
            delay_slot,
        } => Effect::Branch {
            cond: b(cond),
            target,
            link,
            delay_slot,
        },
        Effect::Jump {
            target,
            link,
            delay_slot,
        } => Effect::Jump {
            target: w(target),
            link,
            delay_slot,
        },
    }
}

/// A division by zero leaves the semantics' quotient to the domain (the effect is a
/// fault there): its values are not compared.
fn comparable(e: Effect<u32, bool>) -> Effect<u32, bool> {
    match e {
        Effect::Divide { divisor: 0, .. } => Effect::Divide {
            divisor: 0,
            hi: 0,
            lo: 0,
        },
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn every_instruction_means_the_same_over_terms_and_words(
        instr in instruction(),
        gpr in proptest::array::uniform32(edge()),
        hi in edge(),
        lo in edge(),
        pc in any::<u32>(),
    ) {
        let pc = pc & !3;
        let mut words = gpr;
        words[0] = 0;
        let want = sem::effect(&mut Concrete, Regs { gpr: &words, hi, lo }, pc, instr);

        let mut s = TermStore::new();
        let mut regs = [s.word(0); 32];
        for (k, r) in regs.iter_mut().enumerate().skip(1) {
            *r = s.new_var(&format!("r{k}"), 32);
        }
        let (th, tl) = (s.new_var("hi", 32), s.new_var("lo", 32));
        let got = sem::effect(&mut s, Regs { gpr: &regs, hi: th, lo: tl }, pc, instr);
        let mut vars: Vec<u64> = words[1..].iter().map(|&v| v as u64).collect();
        vars.extend([hi as u64, lo as u64]);
        let got = evaluate(&s, &vars, got);
        prop_assert_eq!(comparable(got), comparable(want), "{:?}", instr);
    }

    #[test]
    fn unaligned_accesses_and_overflow_mean_the_same(x in edge(), y in edge(), k in 0u32..4) {
        let mut s = TermStore::new();
        let (a, b) = (s.new_var("a", 32), s.new_var("b", 32));
        let vars = [x as u64, y as u64];
        for op in [PartOp::Lwl, PartOp::Lwr, PartOp::Swl, PartOp::Swr] {
            let want = sem::part(&mut Concrete, op, k, x, y);
            let (r, w) = sem::part(&mut s, op, k, a, b);
            let mut ev = Evaluator::new(&s, &vars);
            prop_assert_eq!((ev.eval(r) as u32, ev.eval(w) as u32), want, "{:?} at byte {}", op, k);
        }
        for subtract in [false, true] {
            let want = sem::overflows(&mut Concrete, subtract, x, y);
            let c = sem::overflows(&mut s, subtract, a, b);
            prop_assert_eq!(Evaluator::new(&s, &vars).eval(c) != 0, want);
        }
        // Constants fold to what the emulator computes.
        let (kx, ky) = (Ops::word(&mut s, x), Ops::word(&mut s, y));
        let (r, w) = sem::part(&mut s, PartOp::Lwl, k, kx, ky);
        prop_assert_eq!((s.as_const(r), s.as_const(w)),
            (Some(sem::part(&mut Concrete, PartOp::Lwl, k, x, y).0 as u64), Some(y as u64)));
    }
}
