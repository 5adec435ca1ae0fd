//! The CS241 instruction set (docs/cs241-mips.md): the one place on the symbolic side
//! that knows its instructions.

use tamarin_mips::{Instr, Reg};

use super::{alu, Domain, Effect, Isa, Regs};
use crate::term::{BinOp, Term, TermStore};

/// The 17 instructions of CS241 MIPS.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cs241;

impl Isa for Cs241 {
    type Instr = Instr;

    fn decode(word: u32) -> Option<Instr> {
        Instr::decode(word)
    }

    fn encode(instr: Instr) -> u32 {
        instr.encode()
    }

    fn is_instruction(s: &mut TermStore, word: Term) -> Term {
        let mut any = s.bool(false);
        for (mask, pattern) in tamarin_mips::isa::PATTERNS {
            let m = s.word(mask);
            let p = s.word(pattern);
            let bits = s.bin(BinOp::BvAnd, word, m);
            let is = s.eq(bits, p);
            any = s.or(any, is);
        }
        any
    }

    fn branch_target(pc: u32, instr: Instr) -> Option<u32> {
        match instr {
            Instr::Beq { i, .. } | Instr::Bne { i, .. } => Some(relative(pc, i)),
            _ => None,
        }
    }

    fn effect<D: Domain>(d: &mut D, regs: Regs<'_, D::V>, pc: u32, instr: Instr) -> Effect<D::V> {
        use Instr::*;
        let r = |x: Reg| regs.get(x);
        match instr {
            Add { d: dest, s, t } => Effect::Set(dest, alu::add(d, r(s), r(t))),
            Sub { d: dest, s, t } => Effect::Set(dest, alu::sub(d, r(s), r(t))),
            Slt { d: dest, s, t } => Effect::Set(dest, alu::less_than(d, true, r(s), r(t))),
            Sltu { d: dest, s, t } => Effect::Set(dest, alu::less_than(d, false, r(s), r(t))),
            Mult { s, t } | Multu { s, t } => {
                let (hi, lo) = alu::product(d, matches!(instr, Mult { .. }), r(s), r(t));
                Effect::SetHiLo { hi, lo }
            }
            Div { s, t } | Divu { s, t } => {
                let (hi, lo) = alu::divide(d, matches!(instr, Div { .. }), r(s), r(t));
                Effect::Divide {
                    divisor: r(t),
                    hi,
                    lo,
                }
            }
            Mfhi { d: dest } => Effect::Set(dest, regs.hi),
            Mflo { d: dest } => Effect::Set(dest, regs.lo),
            Lis { d: dest } => Effect::Literal(dest),
            Lw { t, i, s } => Effect::Load {
                dest: t,
                addr: alu::offset(d, r(s), i as i32),
            },
            Sw { t, i, s } => Effect::Store {
                addr: alu::offset(d, r(s), i as i32),
                value: r(t),
            },
            Beq { s, t, i } | Bne { s, t, i } => Effect::Branch {
                a: r(s),
                b: r(t),
                when_equal: matches!(instr, Beq { .. }),
                target: relative(pc, i),
            },
            Jr { s } => Effect::Jump {
                target: r(s),
                link: None,
            },
            Jalr { s } => Effect::Jump {
                target: r(s),
                link: Some(Reg::RA),
            },
        }
    }
}

/// The target of a branch at `pc` with offset `i` words, counted from the next
/// instruction.
fn relative(pc: u32, i: i16) -> u32 {
    pc.wrapping_add(4).wrapping_add((i as i32 as u32) << 2)
}
