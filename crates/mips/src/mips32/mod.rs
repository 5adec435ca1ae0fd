//! MIPS32 (big-endian, o32), the integer instruction set that gcc emits for C: the
//! instructions, the program image read from ELF, byte memory and the emulator that
//! calls one function as o32 does.

pub mod abi;
pub mod calls;
pub mod cpu;
pub mod elf;
pub mod image;
pub mod isa;
pub mod memory;

pub use cpu::{Fault, FaultKind, Machine, Registers, Status};
pub use image::{Image, Section, Symbol, SymbolKind, Undefined};
pub use isa::Instr;
