//! What one instruction does, as the drivers (emulators, tracer, unroller, explorer)
//! follow it: a small vocabulary of register writes, memory accesses, transfers and
//! endings whose values come from an [`super::Ops`] domain. A driver never looks at an
//! instruction, only at its effect.

use crate::isa::Reg;

/// The width of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    Byte,
    Half,
    Word,
}

impl Width {
    /// Its size in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            Width::Byte => 1,
            Width::Half => 2,
            Width::Word => 4,
        }
    }

    /// Its size in bits.
    pub const fn bits(self) -> u8 {
        8 * self.bytes() as u8
    }
}

/// The unaligned word accesses: each touches the bytes from its address to the
/// word's end (`lwl`/`swl`) or start (`lwr`/`swr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartOp {
    Lwl,
    Lwr,
    Swl,
    Swr,
}

impl PartOp {
    /// Whether it writes memory (`swl`, `swr`) rather than the register.
    pub const fn stores(self) -> bool {
        matches!(self, PartOp::Swl | PartOp::Swr)
    }
}

/// How an instruction may end the run on its own, with the code it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// `add`, `addi`, `sub`: signed overflow.
    Overflow,
    /// `teq`, `tne`, ...: the trap's code (gcc's division check is 7).
    Trap(u32),
    Break(u32),
    Syscall(u32),
}

/// The registers an effect reads: the general registers, `hi` and `lo`.
#[derive(Clone, Copy, Debug)]
pub struct Regs<'a, V> {
    pub gpr: &'a [V; 32],
    pub hi: V,
    pub lo: V,
}

impl<V: Copy> Regs<'_, V> {
    /// The value of register `r`.
    #[inline(always)]
    pub fn get(&self, r: Reg) -> V {
        self.gpr[r.index() & 31]
    }
}

/// What one instruction does, over words `V` and conditions `B`. Unless it says
/// otherwise, the run goes on at the next instruction. A write to `$0` is dropped by
/// the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect<V, B> {
    /// Nothing (`sync`, the hints).
    Nothing,
    /// The register gets the value.
    Set(Reg, V),
    /// `hi` and `lo` get new values.
    SetHiLo { hi: V, lo: V },
    /// A division: the run fails when `divisor` is zero; otherwise `hi` and `lo` get
    /// the remainder and the quotient.
    Divide { divisor: V, hi: V, lo: V },
    /// The run ends with `ending` where `cond` holds; otherwise `then`, if any, is
    /// written (a trapping add, or a trap instruction, or `break` with `cond` true).
    Trap {
        cond: B,
        ending: Ending,
        then: Option<(Reg, V)>,
    },
    /// CS241's `lis`: the register gets the word after the instruction, which the run
    /// then skips.
    Literal(Reg),
    /// Register `dest` gets the `width` at `addr`, extended by sign or zero (or, on
    /// CS241, a byte of standard input at the input address).
    Load {
        dest: Reg,
        addr: V,
        width: Width,
        signed: bool,
    },
    /// The `width` at `addr` gets the low bytes of `value` (or, on CS241, its low
    /// byte goes to standard output at the output address).
    Store { addr: V, value: V, width: Width },
    /// `lwl`, `lwr`, `swl`, `swr` on `reg` at `addr`: the driver reads the aligned word
    /// and combines it by [`super::mips32::part`].
    Part { op: PartOp, reg: Reg, addr: V },
    /// The run goes on at `target` where `cond` holds. `link`, if any, is written
    /// whether or not it is taken. With `delay_slot`, the next instruction runs
    /// first, as one step with the branch.
    Branch {
        cond: B,
        target: u32,
        link: Option<(Reg, u32)>,
        delay_slot: bool,
    },
    /// The run goes on at `target`; `link`, if any, is written first.
    Jump {
        target: V,
        link: Option<(Reg, u32)>,
        delay_slot: bool,
    },
}

impl<V, B> Effect<V, B> {
    /// Whether it transfers control (a branch or a jump).
    pub fn is_control(&self) -> bool {
        matches!(self, Effect::Branch { .. } | Effect::Jump { .. })
    }
}
