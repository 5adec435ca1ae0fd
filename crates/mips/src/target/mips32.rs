//! The meaning of every MIPS32 instruction of the profile, written once over
//! [`Ops`]: the emulator (`crate::mips32::cpu`) runs it on words, the engine's
//! explorer on terms.

use super::effect::{Effect, Ending, PartOp, Regs};
use super::ops::{complement, flag, Ops};
use crate::isa::Reg;
use crate::mips32::abi::RA;
use crate::mips32::isa::{
    branch_target, jump_target, AluOp, BitOp, BranchCond, ImmOp, Instr, MulDivOp, ShiftOp,
    TrapCond, TrapOperand,
};

/// What `instr` at `pc` does, with values computed in `o` from `regs`.
#[inline(always)]
pub fn effect<O: Ops>(
    o: &mut O,
    regs: Regs<'_, O::V>,
    pc: u32,
    instr: Instr,
) -> Effect<O::V, O::B> {
    use Instr::*;
    let r = |x: Reg| regs.get(x);
    let link = pc.wrapping_add(8);
    match instr {
        Alu { op, d, s, t } => {
            let (a, b) = (r(s), r(t));
            match op {
                AluOp::Add | AluOp::Sub => {
                    let cond = overflows(o, op == AluOp::Sub, a, b);
                    let v = alu(o, op, a, b);
                    Effect::Trap {
                        cond,
                        ending: Ending::Overflow,
                        then: Some((d, v)),
                    }
                }
                AluOp::Movn | AluOp::Movz => {
                    let zero = o.word(0);
                    let is_zero = o.eq(b, zero);
                    let moves = if op == AluOp::Movz {
                        is_zero
                    } else {
                        o.not(is_zero)
                    };
                    Effect::Set(d, o.select(moves, a, r(d)))
                }
                _ => Effect::Set(d, alu(o, op, a, b)),
            }
        }
        Imm { op, t, s, imm: k } => {
            let a = r(s);
            let v = imm(o, op, a, k);
            if op == ImmOp::Addi {
                let kk = o.word(k);
                let cond = overflows(o, false, a, kk);
                return Effect::Trap {
                    cond,
                    ending: Ending::Overflow,
                    then: Some((t, v)),
                };
            }
            Effect::Set(t, v)
        }
        Shift { op, d, t, sa } => Effect::Set(d, shift(o, op, r(t), sa as u32)),
        MulDiv { op, s, t } => {
            let (hi, lo) = mul_div(o, op, r(s), r(t), regs.hi, regs.lo);
            if matches!(op, MulDivOp::Div | MulDivOp::Divu) {
                Effect::Divide {
                    divisor: r(t),
                    hi,
                    lo,
                }
            } else {
                Effect::SetHiLo { hi, lo }
            }
        }
        Mfhi { d } => Effect::Set(d, regs.hi),
        Mflo { d } => Effect::Set(d, regs.lo),
        Mthi { s } => Effect::SetHiLo {
            hi: r(s),
            lo: regs.lo,
        },
        Mtlo { s } => Effect::SetHiLo {
            hi: regs.hi,
            lo: r(s),
        },
        Bit { op, d, src } => Effect::Set(d, bit(o, op, r(src))),
        Ext { t, s, pos, size } => Effect::Set(t, extract_bits(o, r(s), pos, size)),
        Ins { t, s, pos, size } => Effect::Set(t, insert_bits(o, r(t), r(s), pos, size)),
        Load {
            width,
            signed,
            t,
            s,
            off,
        } => Effect::Load {
            dest: t,
            addr: offset(o, r(s), off),
            width,
            signed,
        },
        Store { width, t, s, off } => Effect::Store {
            addr: offset(o, r(s), off),
            value: r(t),
            width,
        },
        Part { op, t, s, off } => Effect::Part {
            op,
            reg: t,
            addr: offset(o, r(s), off),
        },
        Branch {
            cond,
            s,
            t,
            off,
            link: links,
        } => Effect::Branch {
            cond: branch_cond(o, cond, r(s), r(t)),
            target: branch_target(pc, off),
            link: links.then_some((RA, link)),
            delay_slot: true,
        },
        Jump { index, link: links } => Effect::Jump {
            target: o.word(jump_target(pc, index)),
            link: links.then_some((RA, link)),
            delay_slot: true,
        },
        JumpReg { s, link: d } => Effect::Jump {
            target: r(s),
            link: d.map(|d| (d, link)),
            delay_slot: true,
        },
        Trap { cond, s, t, code } => {
            let b = match t {
                TrapOperand::Reg(t) => r(t),
                TrapOperand::Imm(i) => o.word(i),
            };
            Effect::Trap {
                cond: trap_cond(o, cond, r(s), b),
                ending: Ending::Trap(code as u32),
                then: None,
            }
        }
        Break { code } => Effect::Trap {
            cond: o.truth(true),
            ending: Ending::Break(code),
            then: None,
        },
        Syscall { code } => Effect::Trap {
            cond: o.truth(true),
            ending: Ending::Syscall(code),
            then: None,
        },
        Sync => Effect::Nothing,
    }
}

/// `base + off`: an access address.
#[inline(always)]
pub fn offset<O: Ops>(o: &mut O, base: O::V, off: i16) -> O::V {
    let k = o.word(off as i32 as u32);
    o.add(base, k)
}

/// `d = a op b` for the register-register operations (`add`/`sub` without their
/// overflow trap; `movn`/`movz` give `a`, their effect decides whether it is written).
#[inline(always)]
pub fn alu<O: Ops>(o: &mut O, op: AluOp, a: O::V, b: O::V) -> O::V {
    // The variable shifts: `a` (from `s`) is the amount, `b` (from `t`) the value.
    let amount = |o: &mut O| {
        let m = o.word(31);
        o.and(a, m)
    };
    match op {
        AluOp::Add | AluOp::Addu => o.add(a, b),
        AluOp::Sub | AluOp::Subu => o.sub(a, b),
        AluOp::And => o.and(a, b),
        AluOp::Or => o.or(a, b),
        AluOp::Xor => o.xor(a, b),
        AluOp::Nor => {
            let v = o.or(a, b);
            complement(o, v)
        }
        AluOp::Slt => {
            let c = o.slt(a, b);
            flag(o, c)
        }
        AluOp::Sltu => {
            let c = o.ult(a, b);
            flag(o, c)
        }
        AluOp::Sllv => {
            let n = amount(o);
            o.shl(b, n)
        }
        AluOp::Srlv => {
            let n = amount(o);
            o.lshr(b, n)
        }
        AluOp::Srav => {
            let n = amount(o);
            o.ashr(b, n)
        }
        AluOp::Rotrv => {
            let n = amount(o);
            o.rotr(b, n)
        }
        AluOp::Movn | AluOp::Movz => a,
        AluOp::Mul => o.mul(a, b),
    }
}

/// `t = a op imm` (`addi` without its trap; `imm` already extended).
#[inline(always)]
pub fn imm<O: Ops>(o: &mut O, op: ImmOp, a: O::V, imm: u32) -> O::V {
    let k = o.word(imm);
    match op {
        ImmOp::Addi | ImmOp::Addiu => o.add(a, k),
        ImmOp::Slti => {
            let c = o.slt(a, k);
            flag(o, c)
        }
        ImmOp::Sltiu => {
            let c = o.ult(a, k);
            flag(o, c)
        }
        ImmOp::Andi => o.and(a, k),
        ImmOp::Ori => o.or(a, k),
        ImmOp::Xori => o.xor(a, k),
        ImmOp::Lui => k,
    }
}

/// A shift of `v` by the constant `sa`.
#[inline(always)]
pub fn shift<O: Ops>(o: &mut O, op: ShiftOp, v: O::V, sa: u32) -> O::V {
    let n = o.word(sa & 31);
    match op {
        ShiftOp::Sll => o.shl(v, n),
        ShiftOp::Srl => o.lshr(v, n),
        ShiftOp::Sra => o.ashr(v, n),
        ShiftOp::Rotr => o.rotr(v, n),
    }
}

/// The condition that `a + b` (or `a - b`, with `subtract`) overflows as signed: the
/// operands share a sign the result lacks (for a difference: they differ, and the
/// result's sign is not the first's).
#[inline(always)]
pub fn overflows<O: Ops>(o: &mut O, subtract: bool, a: O::V, b: O::V) -> O::B {
    let r = if subtract { o.sub(a, b) } else { o.add(a, b) };
    let ar = o.xor(a, r);
    let other = if subtract { o.xor(a, b) } else { o.xor(b, r) };
    let both = o.and(ar, other);
    let zero = o.word(0);
    o.slt(both, zero)
}

/// New `(hi, lo)` of a multiply or divide (`hi`, `lo`: their values before). A
/// division's divisor is not zero here: the effect splits that off.
#[inline(always)]
pub fn mul_div<O: Ops>(
    o: &mut O,
    op: MulDivOp,
    a: O::V,
    b: O::V,
    hi: O::V,
    lo: O::V,
) -> (O::V, O::V) {
    let signed = matches!(
        op,
        MulDivOp::Mult | MulDivOp::Madd | MulDivOp::Msub | MulDivOp::Div
    );
    match op {
        MulDivOp::Mult | MulDivOp::Multu => o.product(signed, a, b),
        MulDivOp::Div | MulDivOp::Divu => o.divide(signed, a, b),
        MulDivOp::Madd | MulDivOp::Maddu => {
            let (ph, pl) = o.product(signed, a, b);
            let l = o.add(lo, pl);
            let carry = o.ult(l, pl);
            let c = flag(o, carry);
            let h = o.add(hi, ph);
            (o.add(h, c), l)
        }
        MulDivOp::Msub | MulDivOp::Msubu => {
            let (ph, pl) = o.product(signed, a, b);
            let l = o.sub(lo, pl);
            let borrow = o.ult(lo, pl);
            let c = flag(o, borrow);
            let h = o.sub(hi, ph);
            (o.sub(h, c), l)
        }
    }
}

/// A one-operand bit operation.
#[inline(always)]
pub fn bit<O: Ops>(o: &mut O, op: BitOp, v: O::V) -> O::V {
    match op {
        BitOp::Clz => o.leading_zeros(v),
        BitOp::Clo => {
            let n = complement(o, v);
            o.leading_zeros(n)
        }
        BitOp::Seb => o.sign_extend(v, 8),
        BitOp::Seh => o.sign_extend(v, 16),
        BitOp::Wsbh => {
            // Bytes 3 2 1 0 become 2 3 0 1.
            let (m, eight) = (o.word(0x00ff_00ff), o.word(8));
            let low = o.and(v, m);
            let up = o.shl(low, eight);
            let high = o.lshr(v, eight);
            let down = o.and(high, m);
            o.or(up, down)
        }
    }
}

/// The low `size` bits set.
#[inline(always)]
const fn mask(size: u32) -> u32 {
    if size >= 32 {
        u32::MAX
    } else {
        (1u32 << size) - 1
    }
}

/// `ext`: bits `[pos, pos + size)` of `v`, zero-extended.
#[inline(always)]
pub fn extract_bits<O: Ops>(o: &mut O, v: O::V, pos: u8, size: u8) -> O::V {
    let (pos, size) = (pos.min(31), size.clamp(1, 32 - pos.min(31)));
    let n = o.word(pos as u32);
    let shifted = o.lshr(v, n);
    o.zero_extend(shifted, size)
}

/// `ins`: `t` with bits `[pos, pos + size)` taken from the low bits of `v`.
#[inline(always)]
pub fn insert_bits<O: Ops>(o: &mut O, t: O::V, v: O::V, pos: u8, size: u8) -> O::V {
    let (pos, size) = (pos.min(31) as u32, size.clamp(1, 32 - pos.min(31)) as u32);
    let m = mask(size) << pos;
    let (keep, field, n) = (o.word(!m), o.word(m), o.word(pos));
    let kept = o.and(t, keep);
    let moved = o.shl(v, n);
    let put = o.and(moved, field);
    o.or(kept, put)
}

/// The unaligned accesses of a big-endian machine at byte `k` (0..=3) of the aligned
/// `word`: the register's new value (`lwl`, `lwr`) and the word to store back (`swl`,
/// `swr`); the other of the two is returned unchanged.
#[inline(always)]
pub fn part<O: Ops>(o: &mut O, op: PartOp, k: u32, reg: O::V, word: O::V) -> (O::V, O::V) {
    let k = k & 3;
    let masked = |o: &mut O, v: O::V, m: u32| {
        let m = o.word(m);
        o.and(v, m)
    };
    match op {
        // Bytes k..4 of the word into the top of the register.
        PartOp::Lwl => {
            let n = o.word(8 * k);
            let top = o.shl(word, n);
            let keep = masked(o, reg, mask(8 * k));
            (o.or(top, keep), word)
        }
        // Bytes 0..=k of the word into the bottom of the register.
        PartOp::Lwr => {
            let n = o.word(8 * (3 - k));
            let bottom = o.lshr(word, n);
            let keep = masked(o, reg, !mask(8 * (k + 1)));
            (o.or(bottom, keep), word)
        }
        // The top 4 - k bytes of the register into bytes k..4.
        PartOp::Swl => {
            let n = o.word(8 * k);
            let moved = o.lshr(reg, n);
            let kept = masked(o, word, !mask(8 * (4 - k)));
            (reg, o.or(kept, moved))
        }
        // The low k + 1 bytes of the register into bytes 0..=k.
        PartOp::Swr => {
            let shift = 8 * (3 - k);
            let n = o.word(shift);
            let moved = o.shl(reg, n);
            let kept = masked(o, word, mask(shift));
            (reg, o.or(kept, moved))
        }
    }
}

/// The condition under which a branch is taken.
#[inline(always)]
pub fn branch_cond<O: Ops>(o: &mut O, cond: BranchCond, a: O::V, b: O::V) -> O::B {
    let zero = o.word(0);
    match cond {
        BranchCond::Eq => o.eq(a, b),
        BranchCond::Ne => {
            let e = o.eq(a, b);
            o.not(e)
        }
        BranchCond::Lez => {
            let gt = o.slt(zero, a);
            o.not(gt)
        }
        BranchCond::Gtz => o.slt(zero, a),
        BranchCond::Ltz => o.slt(a, zero),
        BranchCond::Gez => {
            let lt = o.slt(a, zero);
            o.not(lt)
        }
    }
}

/// The condition under which a trap is taken.
#[inline(always)]
pub fn trap_cond<O: Ops>(o: &mut O, cond: TrapCond, a: O::V, b: O::V) -> O::B {
    match cond {
        TrapCond::Eq => o.eq(a, b),
        TrapCond::Ne => {
            let e = o.eq(a, b);
            o.not(e)
        }
        TrapCond::Ge => {
            let lt = o.slt(a, b);
            o.not(lt)
        }
        TrapCond::Geu => {
            let lt = o.ult(a, b);
            o.not(lt)
        }
        TrapCond::Lt => o.slt(a, b),
        TrapCond::Ltu => o.ult(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Concrete;

    #[test]
    fn unaligned_word_accesses_match_the_manual() {
        let c = &mut Concrete;
        let word = 0x1122_3344;
        let reg = 0xaabb_ccdd;
        assert_eq!(part(c, PartOp::Lwl, 0, reg, word).0, 0x1122_3344);
        assert_eq!(part(c, PartOp::Lwl, 1, reg, word).0, 0x2233_44dd);
        assert_eq!(part(c, PartOp::Lwl, 3, reg, word).0, 0x44bb_ccdd);
        assert_eq!(part(c, PartOp::Lwr, 0, reg, word).0, 0xaabb_cc11);
        assert_eq!(part(c, PartOp::Lwr, 2, reg, word).0, 0xaa11_2233);
        assert_eq!(part(c, PartOp::Lwr, 3, reg, word).0, 0x1122_3344);
        assert_eq!(part(c, PartOp::Swl, 0, reg, word).1, 0xaabb_ccdd);
        assert_eq!(part(c, PartOp::Swl, 1, reg, word).1, 0x11aa_bbcc);
        assert_eq!(part(c, PartOp::Swl, 3, reg, word).1, 0x1122_33aa);
        assert_eq!(part(c, PartOp::Swr, 0, reg, word).1, 0xdd22_3344);
        assert_eq!(part(c, PartOp::Swr, 2, reg, word).1, 0xbbcc_dd44);
        assert_eq!(part(c, PartOp::Swr, 3, reg, word).1, 0xaabb_ccdd);
    }

    #[test]
    fn lwl_then_lwr_read_an_unaligned_word() {
        let c = &mut Concrete;
        // Bytes 0x11.. 0x88 at addresses 0..8; the word at address 1.
        let (w0, w1) = (0x1122_3344u32, 0x5566_7788u32);
        let r = part(c, PartOp::Lwl, 1, 0, w0).0;
        let r = part(c, PartOp::Lwr, 0, r, w1).0;
        assert_eq!(r, 0x2233_4455);
    }

    #[test]
    fn arithmetic_edges() {
        let c = &mut Concrete;
        assert_eq!(
            mul_div(c, MulDivOp::Div, i32::MIN as u32, u32::MAX, 0, 0),
            (0, i32::MIN as u32)
        );
        assert_eq!(
            mul_div(c, MulDivOp::Div, (-7i32) as u32, 2, 0, 0),
            ((-1i32) as u32, (-3i32) as u32)
        );
        assert_eq!(
            mul_div(c, MulDivOp::Mult, u32::MAX, 2, 0, 0),
            (u32::MAX, (-2i32) as u32)
        );
        assert_eq!(
            mul_div(c, MulDivOp::Multu, u32::MAX, 2, 0, 0),
            (1, (-2i32) as u32)
        );
        assert_eq!(mul_div(c, MulDivOp::Madd, 2, 3, 0, u32::MAX), (1, 5));
        assert_eq!(
            mul_div(c, MulDivOp::Msubu, 1, 1, 0, 0),
            (u32::MAX, u32::MAX)
        );
        assert_eq!(bit(c, BitOp::Clz, 0), 32);
        assert_eq!(bit(c, BitOp::Clo, 0xf000_0000), 4);
        assert_eq!(bit(c, BitOp::Seb, 0x80), 0xffff_ff80);
        assert_eq!(bit(c, BitOp::Seh, 0x1_8000), 0xffff_8000);
        assert_eq!(bit(c, BitOp::Wsbh, 0x1122_3344), 0x2211_4433);
        assert_eq!(extract_bits(c, 0xabcd_ef01, 4, 8), 0xf0);
        assert_eq!(extract_bits(c, 0xabcd_ef01, 0, 32), 0xabcd_ef01);
        assert_eq!(insert_bits(c, 0xffff_ffff, 0, 8, 8), 0xffff_00ff);
        assert_eq!(insert_bits(c, 0, 0xff, 28, 4), 0xf000_0000);
        assert_eq!(alu(c, AluOp::Srav, 4, 0x8000_0000), 0xf800_0000);
        assert_eq!(alu(c, AluOp::Rotrv, 36, 0x1234_5678), 0x8123_4567);
        assert_eq!(shift(c, ShiftOp::Rotr, 0x1234_5678, 8), 0x7812_3456);
    }

    #[test]
    fn accumulating_products_carry() {
        let c = &mut Concrete;
        assert_eq!(
            mul_div(c, MulDivOp::Maddu, 2, 0x8000_0000, 0, 0x8000_0000),
            (1, 0x8000_0000)
        );
        assert_eq!(mul_div(c, MulDivOp::Msubu, 1, 1, 1, 0), (0, u32::MAX));
        assert_eq!(
            mul_div(c, MulDivOp::Madd, u32::MAX, 1, 0, 0),
            (u32::MAX, u32::MAX)
        );
        assert_eq!(mul_div(c, MulDivOp::Msub, u32::MAX, 1, 0, 0), (0, 1));
    }

    #[test]
    fn overflow_is_signed() {
        let c = &mut Concrete;
        assert!(overflows(c, false, i32::MAX as u32, 1));
        assert!(!overflows(c, false, u32::MAX, 1));
        assert!(overflows(c, true, i32::MIN as u32, 1));
        assert!(!overflows(c, true, 0, 1));
    }
}
