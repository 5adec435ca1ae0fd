//! How a function is called under o32, as the MIPS32 profile sets up a run: where the
//! arguments go, where the stack lies, and which address ends the run.

use crate::isa::Reg;

/// The stack occupies `[STACK_TOP - STACK_SIZE, STACK_TOP)`, zeroed at the start.
pub const STACK_TOP: u32 = 0x8000_0000;
/// 1 MiB, as much as a function of a C benchmark needs; an access below it faults.
pub const STACK_SIZE: u32 = 1 << 20;
/// `$sp` at entry: 8-byte aligned, with 256 bytes of the caller's frame above it (o32
/// lets the callee store `$a0`..`$a3` in the 16 bytes at `$sp`).
pub const INITIAL_SP: u32 = STACK_TOP - 0x100;
/// `$ra` at entry: the function's return jumps here, which ends the run. It lies in
/// kernel space, where no user code can be.
pub const RETURN_ADDRESS: u32 = 0xFFFF_FFF0;

/// The argument registers `$a0`..`$a3`.
pub const ARG_REGS: [Reg; 4] = [
    Reg::from_bits(4),
    Reg::from_bits(5),
    Reg::from_bits(6),
    Reg::from_bits(7),
];
/// `$v0`, the result register observed by default.
pub const V0: Reg = Reg::from_bits(2);
/// `$v1`, the high word of a 64-bit result.
pub const V1: Reg = Reg::from_bits(3);
/// `$sp`.
pub const SP: Reg = Reg::from_bits(29);
/// `$ra`.
pub const RA: Reg = Reg::from_bits(31);
