//! Concolic equivalence checking of CS241 MIPS programs.
//!
//! The pipeline: the emulator of `tamarin-mips` runs each program while a
//! [`trace::SymTracer`] records terms ([`term`]) and path conditions; the search
//! ([`concolic`]) turns conditions into queries for the solver chain ([`solver`]),
//! runs both programs on every answer, and hands what it found to [`verdict`], the
//! one place where a verdict is decided. [`bmc`] is the second engine: one merged
//! bounded encoding per program and one query for both; [`equiv`] picks or chains
//! the engines.

pub mod bmc;
pub mod check;
pub mod concolic;
pub mod equiv;
pub mod io;
pub mod options;
pub mod report;
pub mod solver;
pub mod term;
pub mod trace;
pub mod verdict;

pub use tamarin_mips as mips;
