//! The values the symbolic drivers compute with.

use crate::term::{Term, TermStore};

/// A value of the tracer: a concrete word where the inputs do not matter, or a term
/// over the inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Conc(u32),
    Sym(Term),
}

/// Where an effect's values are built: a term store, with values of type `V`.
pub trait Domain {
    type V: Copy + PartialEq + std::fmt::Debug;

    /// The store terms are built in.
    fn store(&mut self) -> &mut TermStore;
    /// The store, to read.
    fn peek(&self) -> &TermStore;
    /// The 32-bit constant `c`.
    fn constant(&mut self, c: u32) -> Self::V;
    /// The value's word, when it does not depend on the inputs.
    fn concrete(&self, v: Self::V) -> Option<u32>;
    /// The value as a term.
    fn term(&mut self, v: Self::V) -> Term;
    /// A term as a value.
    fn value(&mut self, t: Term) -> Self::V;
}

/// Plain terms: the unroller's domain (constants are terms too; the store folds them).
impl Domain for TermStore {
    type V = Term;

    fn store(&mut self) -> &mut TermStore {
        self
    }
    fn peek(&self) -> &TermStore {
        self
    }
    fn constant(&mut self, c: u32) -> Term {
        self.word(c)
    }
    fn concrete(&self, v: Term) -> Option<u32> {
        self.as_const(v).map(|c| c as u32)
    }
    fn term(&mut self, v: Term) -> Term {
        v
    }
    fn value(&mut self, t: Term) -> Term {
        t
    }
}

/// The tracer's domain: input-independent work stays concrete and never enters the
/// store (the report's "simplify" pass, done while recording).
pub struct Shadow<'a>(pub &'a mut TermStore);

impl Domain for Shadow<'_> {
    type V = Val;

    fn store(&mut self) -> &mut TermStore {
        self.0
    }
    fn peek(&self) -> &TermStore {
        self.0
    }
    fn constant(&mut self, c: u32) -> Val {
        Val::Conc(c)
    }
    fn concrete(&self, v: Val) -> Option<u32> {
        match v {
            Val::Conc(c) => Some(c),
            Val::Sym(_) => None,
        }
    }
    fn term(&mut self, v: Val) -> Term {
        match v {
            Val::Conc(c) => self.0.word(c),
            Val::Sym(t) => t,
        }
    }
    fn value(&mut self, t: Term) -> Val {
        match self.0.as_const(t) {
            Some(c) => Val::Conc(c as u32),
            None => Val::Sym(t),
        }
    }
}
