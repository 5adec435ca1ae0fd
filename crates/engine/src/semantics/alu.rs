//! The value operations instructions are made of, written once for every domain and
//! every instruction set: each computes concretely when its operands are concrete and
//! builds the exact bit-vector term otherwise (64-bit products, SMT-LIB quotient and
//! remainder, comparisons as `ite`).

use super::Domain;
use crate::term::{BinOp, Term};

/// `a + b`, wrapping.
pub fn add<D: Domain>(d: &mut D, a: D::V, b: D::V) -> D::V {
    match (d.concrete(a), d.concrete(b)) {
        (Some(x), Some(y)) => d.constant(x.wrapping_add(y)),
        _ => binary(d, BinOp::Add, a, b),
    }
}

/// `a - b`, wrapping.
pub fn sub<D: Domain>(d: &mut D, a: D::V, b: D::V) -> D::V {
    match (d.concrete(a), d.concrete(b)) {
        (Some(x), Some(y)) => d.constant(x.wrapping_sub(y)),
        _ => binary(d, BinOp::Sub, a, b),
    }
}

/// `a + imm`: an access address from a base register and a signed offset.
pub fn offset<D: Domain>(d: &mut D, base: D::V, imm: i32) -> D::V {
    let k = d.constant(imm as u32);
    add(d, base, k)
}

/// `1` if `a < b` (signed or unsigned), else `0`.
pub fn less_than<D: Domain>(d: &mut D, signed: bool, a: D::V, b: D::V) -> D::V {
    if let (Some(x), Some(y)) = (d.concrete(a), d.concrete(b)) {
        let r = if signed {
            (x as i32) < (y as i32)
        } else {
            x < y
        };
        return d.constant(r as u32);
    }
    let op = if signed { BinOp::Slt } else { BinOp::Ult };
    let (ta, tb) = (d.term(a), d.term(b));
    let s = d.store();
    let c = s.bin(op, ta, tb);
    let (one, zero) = (s.word(1), s.word(0));
    let t = s.ite(c, one, zero);
    d.value(t)
}

/// The 64-bit product of `a` and `b` as (high word, low word).
pub fn product<D: Domain>(d: &mut D, signed: bool, a: D::V, b: D::V) -> (D::V, D::V) {
    if let (Some(x), Some(y)) = (d.concrete(a), d.concrete(b)) {
        let p = if signed {
            (x as i32 as i64).wrapping_mul(y as i32 as i64) as u64
        } else {
            x as u64 * y as u64
        };
        return (d.constant((p >> 32) as u32), d.constant(p as u32));
    }
    let (ta, tb) = (d.term(a), d.term(b));
    let s = d.store();
    let (wa, wb) = if signed {
        (s.sign_ext(32, ta), s.sign_ext(32, tb))
    } else {
        (s.zero_ext(32, ta), s.zero_ext(32, tb))
    };
    let p = s.bin(BinOp::Mul, wa, wb);
    let hi = s.extract(63, 32, p);
    let lo = s.extract(31, 0, p);
    (d.value(hi), d.value(lo))
}

/// `a / b` as (remainder, quotient), signed or unsigned. Meaningful for a non-zero
/// divisor only (the machine fails on zero); terms follow SMT-LIB there.
pub fn divide<D: Domain>(d: &mut D, signed: bool, a: D::V, b: D::V) -> (D::V, D::V) {
    if let (Some(x), Some(y)) = (d.concrete(a), d.concrete(b)) {
        if y != 0 {
            let (r, q) = if signed {
                let (x, y) = (x as i32, y as i32);
                (x.wrapping_rem(y) as u32, x.wrapping_div(y) as u32)
            } else {
                (x % y, x / y)
            };
            return (d.constant(r), d.constant(q));
        }
    }
    let (q, r) = if signed {
        (BinOp::SDiv, BinOp::SRem)
    } else {
        (BinOp::UDiv, BinOp::URem)
    };
    (binary(d, r, a, b), binary(d, q, a, b))
}

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

fn binary<D: Domain>(d: &mut D, op: BinOp, a: D::V, b: D::V) -> D::V {
    let (ta, tb) = (d.term(a), d.term(b));
    let t = d.store().bin(op, ta, tb);
    d.value(t)
}
