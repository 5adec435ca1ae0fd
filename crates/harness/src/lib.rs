//! The soundness harness of tamarin: random CS241 programs ([`generate`]), mutants and
//! equal rewrites of them ([`mutate`]), paired ([`pair`]) and compared by
//! `tamarin::concolic::compare`, every verdict then checked concretely ([`check`]):
//! counterexamples replay, `equivalent` agrees on many inputs, a program is never
//! disequivalent to itself, and swapping the sides never changes the kind of verdict.

pub mod check;
pub mod generate;
pub mod mutate;
pub mod pair;
pub mod prog;
pub mod rng;

pub use check::{check_pair, CheckConfig, PairResult, Summary};
pub use generate::{generate, Shape};
pub use pair::{make_pair, Pair, PairKind};
pub use prog::Prog;
pub use rng::Rng;
