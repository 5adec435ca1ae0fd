//! The value operations an instruction's meaning is made of. The semantics of each
//! target ([`super::cs241`], [`super::mips32`]) is written once over [`Ops`]; the
//! emulators run it over [`Concrete`] words and the symbolic engines over terms, so
//! the two cannot drift apart: only these primitives are written per domain, and the
//! engine's property tests hold its terms against [`Concrete`].

/// A domain of 32-bit words (`V`) and conditions (`B`).
///
/// Shift and rotation amounts are below 32 (the semantics masks them first); a
/// division's divisor is not zero (the semantics splits that case off as a fault).
pub trait Ops {
    type V: Copy;
    type B: Copy;

    /// The constant word `c`.
    fn word(&mut self, c: u32) -> Self::V;
    /// The constant condition `b`.
    fn truth(&mut self, b: bool) -> Self::B;
    /// The word `v` is, when it does not depend on anything unknown.
    fn known(&self, v: Self::V) -> Option<u32>;
    /// The condition `c` is, when it does not depend on anything unknown.
    fn known_truth(&self, c: Self::B) -> Option<bool>;

    fn add(&mut self, a: Self::V, b: Self::V) -> Self::V;
    fn sub(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// The low word of the product.
    fn mul(&mut self, a: Self::V, b: Self::V) -> Self::V;
    fn and(&mut self, a: Self::V, b: Self::V) -> Self::V;
    fn or(&mut self, a: Self::V, b: Self::V) -> Self::V;
    fn xor(&mut self, a: Self::V, b: Self::V) -> Self::V;
    fn shl(&mut self, v: Self::V, n: Self::V) -> Self::V;
    fn lshr(&mut self, v: Self::V, n: Self::V) -> Self::V;
    fn ashr(&mut self, v: Self::V, n: Self::V) -> Self::V;
    fn rotr(&mut self, v: Self::V, n: Self::V) -> Self::V;

    fn eq(&mut self, a: Self::V, b: Self::V) -> Self::B;
    /// Signed `a < b`.
    fn slt(&mut self, a: Self::V, b: Self::V) -> Self::B;
    /// Unsigned `a < b`.
    fn ult(&mut self, a: Self::V, b: Self::V) -> Self::B;
    fn not(&mut self, c: Self::B) -> Self::B;
    fn both(&mut self, a: Self::B, b: Self::B) -> Self::B;
    /// `a` when `c` holds, else `b`.
    fn select(&mut self, c: Self::B, a: Self::V, b: Self::V) -> Self::V;

    /// The 64-bit product as (high word, low word).
    fn product(&mut self, signed: bool, a: Self::V, b: Self::V) -> (Self::V, Self::V);
    /// `a / b` as (remainder, quotient), for a non-zero `b`.
    fn divide(&mut self, signed: bool, a: Self::V, b: Self::V) -> (Self::V, Self::V);
    fn leading_zeros(&mut self, v: Self::V) -> Self::V;
    /// The low `bits` of `v`, sign-extended.
    fn sign_extend(&mut self, v: Self::V, bits: u8) -> Self::V;
    /// The low `bits` of `v`, zero-extended.
    fn zero_extend(&mut self, v: Self::V, bits: u8) -> Self::V;
}

/// Plain machine words: the emulators' domain. Every operation is the one Rust
/// instruction it names, so the generic semantics costs nothing once inlined.
#[derive(Clone, Copy, Debug, Default)]
pub struct Concrete;

impl Ops for Concrete {
    type V = u32;
    type B = bool;

    #[inline(always)]
    fn word(&mut self, c: u32) -> u32 {
        c
    }
    #[inline(always)]
    fn truth(&mut self, b: bool) -> bool {
        b
    }
    #[inline(always)]
    fn known(&self, v: u32) -> Option<u32> {
        Some(v)
    }
    #[inline(always)]
    fn known_truth(&self, c: bool) -> Option<bool> {
        Some(c)
    }
    #[inline(always)]
    fn add(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn sub(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    fn mul(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_mul(b)
    }
    #[inline(always)]
    fn and(&mut self, a: u32, b: u32) -> u32 {
        a & b
    }
    #[inline(always)]
    fn or(&mut self, a: u32, b: u32) -> u32 {
        a | b
    }
    #[inline(always)]
    fn xor(&mut self, a: u32, b: u32) -> u32 {
        a ^ b
    }
    #[inline(always)]
    fn shl(&mut self, v: u32, n: u32) -> u32 {
        v << (n & 31)
    }
    #[inline(always)]
    fn lshr(&mut self, v: u32, n: u32) -> u32 {
        v >> (n & 31)
    }
    #[inline(always)]
    fn ashr(&mut self, v: u32, n: u32) -> u32 {
        ((v as i32) >> (n & 31)) as u32
    }
    #[inline(always)]
    fn rotr(&mut self, v: u32, n: u32) -> u32 {
        v.rotate_right(n & 31)
    }
    #[inline(always)]
    fn eq(&mut self, a: u32, b: u32) -> bool {
        a == b
    }
    #[inline(always)]
    fn slt(&mut self, a: u32, b: u32) -> bool {
        (a as i32) < (b as i32)
    }
    #[inline(always)]
    fn ult(&mut self, a: u32, b: u32) -> bool {
        a < b
    }
    #[inline(always)]
    fn not(&mut self, c: bool) -> bool {
        !c
    }
    #[inline(always)]
    fn both(&mut self, a: bool, b: bool) -> bool {
        a && b
    }
    #[inline(always)]
    fn select(&mut self, c: bool, a: u32, b: u32) -> u32 {
        if c {
            a
        } else {
            b
        }
    }
    #[inline(always)]
    fn product(&mut self, signed: bool, a: u32, b: u32) -> (u32, u32) {
        let p = if signed {
            (a as i32 as i64).wrapping_mul(b as i32 as i64) as u64
        } else {
            a as u64 * b as u64
        };
        ((p >> 32) as u32, p as u32)
    }
    #[inline(always)]
    fn divide(&mut self, signed: bool, a: u32, b: u32) -> (u32, u32) {
        // A zero divisor never reaches here; `max(1)` keeps the function total.
        if signed {
            let (x, y) = (a as i32, (b as i32) | (b == 0) as i32);
            (x.wrapping_rem(y) as u32, x.wrapping_div(y) as u32)
        } else {
            let y = b.max(1);
            (a % y, a / y)
        }
    }
    #[inline(always)]
    fn leading_zeros(&mut self, v: u32) -> u32 {
        v.leading_zeros()
    }
    #[inline(always)]
    fn sign_extend(&mut self, v: u32, bits: u8) -> u32 {
        let shift = 32 - bits.clamp(1, 32) as u32;
        (((v << shift) as i32) >> shift) as u32
    }
    #[inline(always)]
    fn zero_extend(&mut self, v: u32, bits: u8) -> u32 {
        if bits >= 32 {
            v
        } else {
            v & ((1u32 << bits) - 1)
        }
    }
}

/// `1` when `c` holds, else `0`: how `slt` and friends write a condition.
#[inline(always)]
pub fn flag<O: Ops>(o: &mut O, c: O::B) -> O::V {
    let (one, zero) = (o.word(1), o.word(0));
    o.select(c, one, zero)
}

/// `!v`.
#[inline(always)]
pub fn complement<O: Ops>(o: &mut O, v: O::V) -> O::V {
    let ones = o.word(u32::MAX);
    o.xor(v, ones)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_keep_the_low_bits() {
        let mut c = Concrete;
        assert_eq!(c.sign_extend(0x80, 8), 0xffff_ff80);
        assert_eq!(c.sign_extend(0x7f, 8), 0x7f);
        assert_eq!(c.sign_extend(0x1_8000, 16), 0xffff_8000);
        assert_eq!(c.zero_extend(0xffff_ff80, 8), 0x80);
        assert_eq!(c.zero_extend(0xdead_beef, 32), 0xdead_beef);
        assert_eq!(c.sign_extend(0xdead_beef, 32), 0xdead_beef);
    }

    #[test]
    fn division_is_the_machines() {
        let mut c = Concrete;
        assert_eq!(
            c.divide(true, (-7i32) as u32, 2),
            ((-1i32) as u32, (-3i32) as u32)
        );
        assert_eq!(
            c.divide(true, i32::MIN as u32, u32::MAX),
            (0, i32::MIN as u32)
        );
        assert_eq!(c.divide(false, 7, 2), (1, 3));
    }
}
