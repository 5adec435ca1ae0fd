//! CS241 code words as terms: what the tracer needs when a run's code depends on its
//! inputs. What the instructions do is `tamarin_mips::target::cs241`.

use tamarin_mips::target::Cs241;
use tamarin_mips::Instr;

use super::Isa;
use crate::term::{BinOp, Term, TermStore};

impl Isa for Cs241 {
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
}
