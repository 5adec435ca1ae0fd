//! The seam between the machines and everything that reasons about them.
//!
//! A [`Target`] is an instruction set: its instruction type, its decoder, and the
//! meaning of each instruction as an [`Effect`] over an [`Ops`] domain, written once
//! ([`cs241::effect`], [`mips32::effect`]). Its emulator runs that meaning over
//! [`Concrete`] words; the engine runs the same function over terms. An [`Abi`] says
//! where a run's inputs come from, what it shows, and how it is set up and ends.
//!
//! Invariant: no other module says what an instruction computes. The emulators'
//! fast paths pre-decode instructions but call the functions here for every value.

pub mod cs241;
mod effect;
pub mod mips32;
mod ops;

pub use effect::{Effect, Ending, PartOp, Regs, Width};
pub use ops::{complement, flag, Concrete, Ops};

use crate::isa::Reg;

/// A loaded `width` (its bits in the low end of `v`), extended to a word by sign or
/// zero as the load says.
#[inline(always)]
pub fn extend<O: Ops>(o: &mut O, v: O::V, width: Width, signed: bool) -> O::V {
    match (width, signed) {
        (Width::Word, _) => v,
        (_, true) => o.sign_extend(v, width.bits()),
        (_, false) => o.zero_extend(v, width.bits()),
    }
}

/// An instruction set, as every driver sees it.
pub trait Target {
    type Instr: Copy + std::fmt::Debug + PartialEq;

    /// A short name, for messages.
    const NAME: &'static str;
    /// Whether a branch or jump runs the next instruction (its delay slot) before it
    /// transfers; both run as one step.
    const DELAY_SLOTS: bool;

    /// The instruction a word encodes, if any.
    fn decode(word: u32) -> Option<Self::Instr>;

    /// What `instr` at `pc` does, with values computed in `o` from `regs`.
    fn effect<O: Ops>(
        o: &mut O,
        regs: Regs<'_, O::V>,
        pc: u32,
        instr: Self::Instr,
    ) -> Effect<O::V, O::B>;

    /// Where `instr` at `pc` goes when it branches or jumps to a constant: loops are
    /// found by these.
    fn static_target(pc: u32, instr: Self::Instr) -> Option<u32>;

    /// The conventional name of register `r`.
    fn reg_name(r: Reg) -> String;
}

/// How a run is set up and read: the calling convention of a target.
pub trait Abi {
    /// The registers the inputs arrive in, in order.
    const INPUTS: &'static [Reg];
    /// The register that holds the result, observed when nothing else is asked for.
    const RESULT: Reg;
    /// The register that holds the return address at the start.
    const LINK: Reg;
    /// The address a run returns to: reaching it ends the run.
    const RETURN_ADDRESS: u32;
    /// The stack pointer at the start, if the convention sets one.
    const STACK: Option<(Reg, u32)>;
}

/// The 17 instructions of CS241 MIPS.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cs241;

impl Target for Cs241 {
    type Instr = crate::isa::Instr;
    const NAME: &'static str = "CS241";
    const DELAY_SLOTS: bool = false;

    #[inline(always)]
    fn decode(word: u32) -> Option<Self::Instr> {
        crate::isa::Instr::decode(word)
    }

    #[inline(always)]
    fn effect<O: Ops>(
        o: &mut O,
        regs: Regs<'_, O::V>,
        pc: u32,
        instr: Self::Instr,
    ) -> Effect<O::V, O::B> {
        cs241::effect(o, regs, pc, instr)
    }

    fn static_target(pc: u32, instr: Self::Instr) -> Option<u32> {
        instr.branch_offset().map(|i| cs241::branch_target(pc, i))
    }

    fn reg_name(r: Reg) -> String {
        format!("${}", r.index())
    }
}

/// CS241's convention (the `mips.twoints` and `mips.array` front ends): inputs in
/// `$1` and `$2` (an array's address and length), the result in `$3`, and a return
/// by `jr $31` to the termination address.
impl Abi for Cs241 {
    const INPUTS: &'static [Reg] = &[Reg::from_bits(1), Reg::from_bits(2)];
    const RESULT: Reg = Reg::from_bits(3);
    const LINK: Reg = Reg::RA;
    const RETURN_ADDRESS: u32 = crate::cpu::DEFAULT_TERMINATION;
    const STACK: Option<(Reg, u32)> = None;
}

/// MIPS32 release 2, big-endian: the integer instructions gcc emits for C.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mips32;

impl Target for Mips32 {
    type Instr = crate::mips32::isa::Instr;
    const NAME: &'static str = "MIPS32";
    const DELAY_SLOTS: bool = true;

    #[inline(always)]
    fn decode(word: u32) -> Option<Self::Instr> {
        crate::mips32::isa::decode(word)
    }

    #[inline(always)]
    fn effect<O: Ops>(
        o: &mut O,
        regs: Regs<'_, O::V>,
        pc: u32,
        instr: Self::Instr,
    ) -> Effect<O::V, O::B> {
        mips32::effect(o, regs, pc, instr)
    }

    fn static_target(pc: u32, instr: Self::Instr) -> Option<u32> {
        instr.static_target(pc)
    }

    fn reg_name(r: Reg) -> String {
        format!("${}", crate::mips32::isa::reg_name(r))
    }
}

/// The o32 calling convention, as the emulator sets up a call
/// (`crate::mips32::abi`): arguments in `$a0..$a3`, the result in `$v0`, the stack
/// pointer at [`crate::mips32::abi::INITIAL_SP`].
impl Abi for Mips32 {
    const INPUTS: &'static [Reg] = &crate::mips32::abi::ARG_REGS;
    const RESULT: Reg = crate::mips32::abi::V0;
    const LINK: Reg = crate::mips32::abi::RA;
    const RETURN_ADDRESS: u32 = crate::mips32::abi::RETURN_ADDRESS;
    const STACK: Option<(Reg, u32)> =
        Some((crate::mips32::abi::SP, crate::mips32::abi::INITIAL_SP));
}
