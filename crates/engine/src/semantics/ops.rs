//! The term domains of the shared semantics: [`Ops`] over plain terms (the unroller's
//! and the explorer's [`TermStore`]) and over the tracer's [`Shadow`] values. Where
//! every operand is concrete, the result is computed by [`Concrete`], the emulators'
//! own domain, so a concrete part of a symbolic run is the emulator's arithmetic;
//! otherwise the exact bit-vector term is built (64-bit products, SMT-LIB quotient
//! and remainder, which the semantics never reaches with a zero divisor).

use tamarin_mips::target::{Concrete, Ops};

use super::domain::{Domain, Shadow};
use crate::term::{BinOp, Term, TermStore};

fn fold2<D: Domain>(
    d: &mut D,
    a: D::V,
    b: D::V,
    concrete: impl FnOnce(u32, u32) -> u32,
    symbolic: impl FnOnce(&mut TermStore, Term, Term) -> Term,
) -> D::V {
    if let (Some(x), Some(y)) = (d.concrete(a), d.concrete(b)) {
        return d.constant(concrete(x, y));
    }
    let (ta, tb) = (d.term(a), d.term(b));
    let t = symbolic(d.store(), ta, tb);
    d.value(t)
}

fn fold1<D: Domain>(
    d: &mut D,
    a: D::V,
    concrete: impl FnOnce(u32) -> u32,
    symbolic: impl FnOnce(&mut TermStore, Term) -> Term,
) -> D::V {
    if let Some(x) = d.concrete(a) {
        return d.constant(concrete(x));
    }
    let ta = d.term(a);
    let t = symbolic(d.store(), ta);
    d.value(t)
}

fn test2<D: Domain>(
    d: &mut D,
    a: D::V,
    b: D::V,
    concrete: impl FnOnce(u32, u32) -> bool,
    op: BinOp,
) -> Term {
    if let (Some(x), Some(y)) = (d.concrete(a), d.concrete(b)) {
        return d.store().bool(concrete(x, y));
    }
    let (ta, tb) = (d.term(a), d.term(b));
    d.store().bin(op, ta, tb)
}

/// `v` rotated right by `n` (below 32): `(v >> n) | (v << (32 - n))`, where a shift
/// by 32 gives 0 as SMT-LIB says, so `n = 0` gives `v`.
fn rotate_right(s: &mut TermStore, v: Term, n: Term) -> Term {
    let w = s.word(32);
    let back = s.bin(BinOp::Sub, w, n);
    let r = s.bin(BinOp::LShr, v, n);
    let l = s.bin(BinOp::Shl, v, back);
    s.bin(BinOp::BvOr, r, l)
}

/// The number of leading zero bits of `v`, as a chain of tests from the top bit.
fn leading_zeros(s: &mut TermStore, v: Term) -> Term {
    let mut out = s.word(32);
    for bit in 0..32u8 {
        let b = s.extract(bit, bit, v);
        let one = s.constant(1, 1);
        let set = s.eq(b, one);
        let n = s.word(31 - bit as u32);
        out = s.ite(set, n, out);
    }
    out
}

/// One implementation for every [`Domain`]: the domains differ only in how values
/// become terms.
macro_rules! term_ops {
    ($domain:ty) => {
        impl<'a> Ops for $domain {
            type V = <$domain as Domain>::V;
            type B = Term;

            fn word(&mut self, c: u32) -> Self::V {
                Domain::constant(self, c)
            }
            fn truth(&mut self, b: bool) -> Term {
                Domain::store(self).bool(b)
            }
            fn known(&self, v: Self::V) -> Option<u32> {
                Domain::concrete(self, v)
            }
            fn known_truth(&self, c: Term) -> Option<bool> {
                let s = Domain::peek(self);
                s.as_const(c).filter(|_| s.is_bool(c)).map(|v| v != 0)
            }
            fn add(&mut self, a: Self::V, b: Self::V) -> Self::V {
                fold2(
                    self,
                    a,
                    b,
                    |x, y| Concrete.add(x, y),
                    |s, x, y| s.bin(BinOp::Add, x, y),
                )
            }
            fn sub(&mut self, a: Self::V, b: Self::V) -> Self::V {
                fold2(
                    self,
                    a,
                    b,
                    |x, y| Concrete.sub(x, y),
                    |s, x, y| s.bin(BinOp::Sub, x, y),
                )
            }
            fn mul(&mut self, a: Self::V, b: Self::V) -> Self::V {
                fold2(
                    self,
                    a,
                    b,
                    |x, y| Concrete.mul(x, y),
                    |s, x, y| s.bin(BinOp::Mul, x, y),
                )
            }
            fn and(&mut self, a: Self::V, b: Self::V) -> Self::V {
                fold2(
                    self,
                    a,
                    b,
                    |x, y| x & y,
                    |s, x, y| s.bin(BinOp::BvAnd, x, y),
                )
            }
            fn or(&mut self, a: Self::V, b: Self::V) -> Self::V {
                fold2(self, a, b, |x, y| x | y, |s, x, y| s.bin(BinOp::BvOr, x, y))
            }
            fn xor(&mut self, a: Self::V, b: Self::V) -> Self::V {
                fold2(
                    self,
                    a,
                    b,
                    |x, y| x ^ y,
                    |s, x, y| s.bin(BinOp::BvXor, x, y),
                )
            }
            fn shl(&mut self, v: Self::V, n: Self::V) -> Self::V {
                fold2(
                    self,
                    v,
                    n,
                    |x, y| Concrete.shl(x, y),
                    |s, x, y| s.bin(BinOp::Shl, x, y),
                )
            }
            fn lshr(&mut self, v: Self::V, n: Self::V) -> Self::V {
                fold2(
                    self,
                    v,
                    n,
                    |x, y| Concrete.lshr(x, y),
                    |s, x, y| s.bin(BinOp::LShr, x, y),
                )
            }
            fn ashr(&mut self, v: Self::V, n: Self::V) -> Self::V {
                fold2(
                    self,
                    v,
                    n,
                    |x, y| Concrete.ashr(x, y),
                    |s, x, y| s.bin(BinOp::AShr, x, y),
                )
            }
            fn rotr(&mut self, v: Self::V, n: Self::V) -> Self::V {
                fold2(self, v, n, |x, y| Concrete.rotr(x, y), rotate_right)
            }
            fn eq(&mut self, a: Self::V, b: Self::V) -> Term {
                if let (Some(x), Some(y)) = (Domain::concrete(self, a), Domain::concrete(self, b)) {
                    return Domain::store(self).bool(x == y);
                }
                let (ta, tb) = (Domain::term(self, a), Domain::term(self, b));
                Domain::store(self).eq(ta, tb)
            }
            fn slt(&mut self, a: Self::V, b: Self::V) -> Term {
                test2(self, a, b, |x, y| Concrete.slt(x, y), BinOp::Slt)
            }
            fn ult(&mut self, a: Self::V, b: Self::V) -> Term {
                test2(self, a, b, |x, y| x < y, BinOp::Ult)
            }
            fn not(&mut self, c: Term) -> Term {
                Domain::store(self).not(c)
            }
            fn both(&mut self, a: Term, b: Term) -> Term {
                Domain::store(self).and(a, b)
            }
            fn select(&mut self, c: Term, a: Self::V, b: Self::V) -> Self::V {
                match self.known_truth(c) {
                    Some(true) => a,
                    Some(false) => b,
                    None => {
                        let (ta, tb) = (Domain::term(self, a), Domain::term(self, b));
                        let t = Domain::store(self).ite(c, ta, tb);
                        Domain::value(self, t)
                    }
                }
            }
            fn product(&mut self, signed: bool, a: Self::V, b: Self::V) -> (Self::V, Self::V) {
                if let (Some(x), Some(y)) = (Domain::concrete(self, a), Domain::concrete(self, b)) {
                    let (h, l) = Concrete.product(signed, x, y);
                    return (Domain::constant(self, h), Domain::constant(self, l));
                }
                let (ta, tb) = (Domain::term(self, a), Domain::term(self, b));
                let s = Domain::store(self);
                let (wa, wb) = if signed {
                    (s.sign_ext(32, ta), s.sign_ext(32, tb))
                } else {
                    (s.zero_ext(32, ta), s.zero_ext(32, tb))
                };
                let p = s.bin(BinOp::Mul, wa, wb);
                // The low word of a product is the product of the low words, signed
                // or not: written so, `mult` and `multu` (and `mul`) meet in `lo`
                // without the solver relating two 64-bit multipliers.
                let (hi, lo) = (s.extract(63, 32, p), s.bin(BinOp::Mul, ta, tb));
                (Domain::value(self, hi), Domain::value(self, lo))
            }
            fn divide(&mut self, signed: bool, a: Self::V, b: Self::V) -> (Self::V, Self::V) {
                if let (Some(x), Some(y)) = (Domain::concrete(self, a), Domain::concrete(self, b)) {
                    if y != 0 {
                        let (r, q) = Concrete.divide(signed, x, y);
                        return (Domain::constant(self, r), Domain::constant(self, q));
                    }
                }
                let (q, r) = if signed {
                    (BinOp::SDiv, BinOp::SRem)
                } else {
                    (BinOp::UDiv, BinOp::URem)
                };
                let (ta, tb) = (Domain::term(self, a), Domain::term(self, b));
                let s = Domain::store(self);
                let (rem, quo) = (s.bin(r, ta, tb), s.bin(q, ta, tb));
                (Domain::value(self, rem), Domain::value(self, quo))
            }
            fn leading_zeros(&mut self, v: Self::V) -> Self::V {
                fold1(self, v, u32::leading_zeros, leading_zeros)
            }
            fn sign_extend(&mut self, v: Self::V, bits: u8) -> Self::V {
                if bits >= 32 {
                    return v;
                }
                let bits = bits.max(1);
                fold1(
                    self,
                    v,
                    |x| Concrete.sign_extend(x, bits),
                    |s, t| {
                        let low = s.extract(bits - 1, 0, t);
                        s.sign_ext(32 - bits, low)
                    },
                )
            }
            fn zero_extend(&mut self, v: Self::V, bits: u8) -> Self::V {
                if bits >= 32 {
                    return v;
                }
                let bits = bits.max(1);
                fold1(
                    self,
                    v,
                    |x| Concrete.zero_extend(x, bits),
                    |s, t| {
                        let low = s.extract(bits - 1, 0, t);
                        s.zero_ext(32 - bits, low)
                    },
                )
            }
        }
    };
}

term_ops!(TermStore);
term_ops!(Shadow<'a>);
