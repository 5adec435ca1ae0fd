//! The soundness harness of tamarin: random CS241 programs ([`generate`]), mutants and
//! equal rewrites of them ([`mutate`]), paired ([`pair`]) and compared by
//! `tamarin::compare` with one or more engines (concolic, bmc, auto), every
//! verdict then checked concretely ([`check`]): counterexamples replay, `equivalent`
//! agrees on many inputs, a program is never disequivalent to itself, swapping the
//! sides never changes the kind of verdict, and no engine proves equivalent what
//! another engine has a replayed counterexample for. A long run ([`campaign`]) checks
//! a range of pairs, or one shard of it, and writes a summary that the shards' sum
//! reads back. Apart from these, [`cgen`] makes random C functions for the MIPS32
//! profile, holds our emulator against `qemu-mips` on them, and checks tamarin's
//! comparisons of them (two levels, or a mutant) against `qemu-mips` ([`cgen::pairs`]).

pub mod campaign;
pub mod cgen;
pub mod check;
pub mod compiler;
pub mod generate;
pub mod mutate;
pub mod pair;
pub mod prog;
pub mod rng;

pub use check::{check_pair, parse_engines, CheckConfig, PairResult, Summary, ENGINES};
pub use generate::{generate, Shape};
pub use pair::{make_pair, Pair, PairKind, Placement};
pub use prog::Prog;
pub use rng::Rng;
