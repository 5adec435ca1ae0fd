//! The meaning of the 17 CS241 instructions (docs/cs241-mips.md), written once over
//! [`Ops`]: the CS241 emulator (`crate::cpu`) runs it on words, the engine's tracer
//! and unroller on terms.

use super::effect::{Effect, Regs, Width};
use super::ops::{flag, Ops};
use crate::isa::{Instr, Reg};

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
    match instr {
        Add { d, s, t } => Effect::Set(d, o.add(r(s), r(t))),
        Sub { d, s, t } => Effect::Set(d, o.sub(r(s), r(t))),
        Slt { d, s, t } => {
            let c = o.slt(r(s), r(t));
            Effect::Set(d, flag(o, c))
        }
        Sltu { d, s, t } => {
            let c = o.ult(r(s), r(t));
            Effect::Set(d, flag(o, c))
        }
        Mult { s, t } | Multu { s, t } => {
            let (hi, lo) = o.product(matches!(instr, Mult { .. }), r(s), r(t));
            Effect::SetHiLo { hi, lo }
        }
        Div { s, t } | Divu { s, t } => {
            let (hi, lo) = o.divide(matches!(instr, Div { .. }), r(s), r(t));
            Effect::Divide {
                divisor: r(t),
                hi,
                lo,
            }
        }
        Mfhi { d } => Effect::Set(d, regs.hi),
        Mflo { d } => Effect::Set(d, regs.lo),
        Lis { d } => Effect::Literal(d),
        Lw { t, i, s } => Effect::Load {
            dest: t,
            addr: offset(o, r(s), i),
            width: Width::Word,
            signed: false,
        },
        Sw { t, i, s } => Effect::Store {
            addr: offset(o, r(s), i),
            value: r(t),
            width: Width::Word,
        },
        Beq { s, t, i } | Bne { s, t, i } => {
            let equal = o.eq(r(s), r(t));
            let cond = if matches!(instr, Beq { .. }) {
                equal
            } else {
                o.not(equal)
            };
            Effect::Branch {
                cond,
                target: branch_target(pc, i),
                link: None,
                delay_slot: false,
            }
        }
        Jr { s } => Effect::Jump {
            target: r(s),
            link: None,
            delay_slot: false,
        },
        Jalr { s } => Effect::Jump {
            target: r(s),
            link: Some((Reg::RA, pc.wrapping_add(4))),
            delay_slot: false,
        },
    }
}

/// `base + i`: an access address from a base register and a signed offset.
#[inline(always)]
pub fn offset<O: Ops>(o: &mut O, base: O::V, i: i16) -> O::V {
    let k = o.word(i as i32 as u32);
    o.add(base, k)
}

/// The target of a branch at `pc` with offset `i` words, counted from the next
/// instruction.
#[inline(always)]
pub const fn branch_target(pc: u32, i: i16) -> u32 {
    pc.wrapping_add(4).wrapping_add((i as i32 as u32) << 2)
}
