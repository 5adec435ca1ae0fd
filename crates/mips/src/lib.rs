//! The CS241 MIPS machine: instruction set, assembler, disassembler, loader and a fast
//! emulator whose execution core can be watched by a [`cpu::Tracer`].
//!
//! This crate knows nothing of solvers or equivalence: it is the machine, exactly as
//! the specification describes it.

pub mod asm;
pub mod cpu;
pub mod disasm;
pub mod isa;
pub mod link;
pub mod loader;
pub mod memory;
pub mod merl;
pub mod mips32;
pub mod program;
pub mod target;

pub use cpu::{
    Config, Event, Fault, FaultKind, Frontend, Machine, NoTrace, Outcome, Status, Stop, Tracer,
};
pub use isa::{Instr, Reg};
pub use link::{link, LinkError, Module, Symbol};
pub use loader::{InputFormat, LoadError};
pub use merl::MerlError;
pub use program::Program;
