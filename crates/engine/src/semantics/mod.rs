//! The symbolic side of the target seam. What each instruction does is written once,
//! in `tamarin_mips::target`, over an [`Ops`] domain; this module gives that
//! semantics its term domains ([`ops`]: plain terms for the unroller and the MIPS32
//! explorer, [`Shadow`] values for the tracer, concrete where the inputs do not
//! matter) and the machine facts the drivers need besides: the address checks, the
//! initial memory and the fault classes ([`machine`]), memory through [`SymMemory`],
//! and CS241 code words as terms ([`Isa`]). The drivers interpret [`Effect`]s and
//! never compute what an instruction means themselves.

pub mod alu;
mod cs241;
mod domain;
pub mod machine;
mod memory;
#[cfg(test)]
mod mips32;
mod ops;

pub use domain::{Domain, Shadow, Val};
pub use memory::{load, observe, store, SymMemory};
pub use tamarin_mips::target::{Cs241, Effect, Ending, Mips32, Ops, Regs, Target, Width};

use crate::term::{Term, TermStore};

/// An instruction set as the CS241 symbolic drivers see it: a [`Target`] (decoder and
/// the shared meaning of its instructions) whose code words may themselves be terms.
pub trait Isa: Target {
    /// The word that encodes `instr`.
    fn encode(instr: Self::Instr) -> u32;

    /// The condition that `word` encodes an instruction (the decoder, as a term).
    fn is_instruction(s: &mut TermStore, word: Term) -> Term;
}
