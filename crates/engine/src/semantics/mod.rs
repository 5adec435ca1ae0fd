//! One symbolic semantics of the machine, shared by both symbolic drivers: the tracer
//! (`trace`, which follows a concrete run and pins what the run fixed) and the unroller
//! (`bmc::unroll`, which forks wherever the inputs decide).
//!
//! An instruction set is an [`Isa`]: it decodes words and says what each instruction
//! does as an [`Effect`], a small vocabulary of register writes, memory accesses and
//! control transfers whose values come from [`alu`]'s operations over a [`Domain`] (the
//! tracer's [`Val`], concrete where the inputs do not matter, or plain terms). The
//! drivers interpret effects and never look at an instruction, so a second instruction
//! set is a second `Isa` beside [`Cs241`]. Machine facts both drivers need (the address
//! checks, the initial memory, fault classes) live in [`machine`]; memory is reached
//! through [`SymMemory`], which each driver implements over its own representation.

pub mod alu;
mod cs241;
pub mod mips32;
mod domain;
pub mod machine;
mod memory;

pub use cs241::Cs241;
pub use domain::{Domain, Shadow, Val};
pub use memory::{load, observe, store, SymMemory};

use tamarin_mips::Reg;

use crate::term::{Term, TermStore};

/// The registers an effect reads: the general registers, `hi` and `lo`.
#[derive(Clone, Copy, Debug)]
pub struct Regs<'a, V> {
    pub gpr: &'a [V; 32],
    pub hi: V,
    pub lo: V,
}

impl<V: Copy> Regs<'_, V> {
    /// The value of register `r`.
    pub fn get(&self, r: Reg) -> V {
        self.gpr[r.index() & 31]
    }
}

/// What one instruction does, in the terms a driver follows. Unless it says otherwise,
/// the run goes on at the next instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect<V> {
    /// The register gets the value (a write to `$0` is dropped by the driver).
    Set(Reg, V),
    /// `hi` and `lo` get new values.
    SetHiLo { hi: V, lo: V },
    /// A division: the run fails when `divisor` is zero; otherwise `hi` and `lo` get
    /// the remainder and the quotient.
    Divide { divisor: V, hi: V, lo: V },
    /// The register gets the word after the instruction, which the run then skips.
    Literal(Reg),
    /// Register `dest` gets the word at `addr`, or a byte of standard input when
    /// `addr` is the machine's input address.
    Load { dest: Reg, addr: V },
    /// The word at `addr` gets `value`, or its low byte goes to standard output when
    /// `addr` is the machine's output address.
    Store { addr: V, value: V },
    /// The run goes on at `target` when `a == b` is `when_equal`.
    Branch {
        a: V,
        b: V,
        when_equal: bool,
        target: u32,
    },
    /// The run goes on at `target`; `link`, if any, gets the next instruction's address.
    Jump { target: V, link: Option<Reg> },
}

/// An instruction set, as the symbolic drivers see it.
pub trait Isa {
    type Instr: Copy + std::fmt::Debug;

    /// The instruction a word encodes, if any.
    fn decode(word: u32) -> Option<Self::Instr>;

    /// The word that encodes `instr`.
    fn encode(instr: Self::Instr) -> u32;

    /// The condition that `word` encodes an instruction (the decoder, as a term).
    fn is_instruction(s: &mut TermStore, word: Term) -> Term;

    /// What `instr` at `pc` does, with values computed in domain `d` from `regs`.
    fn effect<D: Domain>(d: &mut D, regs: Regs<'_, D::V>, pc: u32, instr: Self::Instr)
        -> Effect<D::V>;

    /// Where `instr` at `pc` may branch to, when that is a constant (its
    /// [`Effect::Branch`] target): the unroller finds loops by these.
    fn branch_target(pc: u32, instr: Self::Instr) -> Option<u32>;
}
