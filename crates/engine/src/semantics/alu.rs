//! The few value operations the drivers add to an instruction's effect: the zero
//! test of a divisor and CS241's standard input and output words. What instructions
//! compute is the shared semantics (`tamarin_mips::target`) over [`super::Ops`].

use super::Domain;
use crate::term::Term;

/// The condition `a == b`.
pub fn equal<D: Domain>(d: &mut D, a: D::V, b: D::V) -> Term {
    let (ta, tb) = (d.term(a), d.term(b));
    d.store().eq(ta, tb)
}

/// The condition `v == 0`.
pub fn is_zero<D: Domain>(d: &mut D, v: D::V) -> Term {
    let z = d.constant(0);
    equal(d, v, z)
}

/// The word a load from standard input gives: the byte (an 8-bit term), zero-extended,
/// or `-1` at the end of input.
pub fn input_word<D: Domain>(d: &mut D, byte: Option<Term>) -> D::V {
    match byte {
        Some(b) => {
            let w = d.store().zero_ext(24, b);
            d.value(w)
        }
        None => d.constant(u32::MAX),
    }
}

/// The byte a store to standard output writes: the low byte of `v`, as an 8-bit term.
pub fn output_byte<D: Domain>(d: &mut D, v: D::V) -> Term {
    match d.concrete(v) {
        Some(c) => d.store().constant(8, (c & 0xff) as u64),
        None => {
            let t = d.term(v);
            d.store().extract(7, 0, t)
        }
    }
}
