//! Word-level normalization of maxima and minima, so that a maximum computed in another
//! order is the same term and needs no solver (an array's maximum scanned forward from
//! `INT_MIN` and backward from the last element).
//!
//! `ite(p < q, q, p)` is `max(p, q)` and `ite(p < q, p, q)` is `min(p, q)`, signed
//! or unsigned after the comparison (the `ite` with its condition negated is the same
//! term, as [`TermStore::ite`] puts the condition first). Nested operations of one kind
//! form a chain whose operands are read as a set: a maximum is associative,
//! commutative and idempotent over a total order, so the chain is rebuilt from its
//! operands in the store's order, without repeats, constants folded into one, the
//! identity dropped (`max(x, MIN) = x`) and the absorbing value taken (`max(x, MAX) =
//! MAX`). No rewrite here changes a value.
//!
//! Not normalized: chains of more than [`MAX_OPERANDS`] operands (built as written),
//! mixed chains (a minimum inside a maximum is one operand), and comparisons written
//! with other operands than the `ite`'s arms (`ite(p < q, q + 0, p)` folds first, but
//! `ite(p - q < 0, q, p)` is not a maximum).

use super::{mask, BinOp, Node, Term, TermStore};

/// The most operands a normalized chain may have.
pub const MAX_OPERANDS: usize = 64;

/// Which extremum, over which order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kind {
    max: bool,
    signed: bool,
}

impl Kind {
    fn order(self) -> BinOp {
        if self.signed {
            BinOp::Slt
        } else {
            BinOp::Ult
        }
    }

    /// The least and the greatest value of width `w` in this order.
    fn bounds(self, w: u8) -> (u64, u64) {
        if self.signed {
            let min = 1u64 << (w - 1);
            (min, min - 1)
        } else {
            (0, mask(w))
        }
    }

    /// The identity and the absorbing value of width `w`.
    fn identity_and_absorbing(self, w: u8) -> (u64, u64) {
        let (least, greatest) = self.bounds(w);
        if self.max {
            (least, greatest)
        } else {
            (greatest, least)
        }
    }

    /// Whether `x` comes before `y` in this order (the values as `w` bits).
    fn less(self, w: u8, x: u64, y: u64) -> bool {
        if self.signed {
            let flip = 1u64 << (w - 1);
            (x ^ flip) < (y ^ flip)
        } else {
            x < y
        }
    }
}

impl TermStore {
    /// The canonical chain for `ite(c, a, b)` when it is a maximum or minimum of `a`
    /// and `b` (see the module's doc); `None` otherwise.
    pub(super) fn extremum(&mut self, c: Term, a: Term, b: Term) -> Option<Term> {
        let kind = self.extremum_kind(c, a, b)?;
        let w = self.width(a);
        let mut operands = Vec::new();
        if !self.chain_operands(kind, a, &mut operands)
            || !self.chain_operands(kind, b, &mut operands)
        {
            return None;
        }
        Some(self.build_chain(kind, w, operands))
    }

    /// The kind of extremum `ite(c, a, b)` is, if any.
    fn extremum_kind(&self, c: Term, a: Term, b: Term) -> Option<Kind> {
        let Node::Bin(op @ (BinOp::Slt | BinOp::Ult), p, q) = self.node(c) else {
            return None;
        };
        let signed = op == BinOp::Slt;
        // ite(p < q, q, p) = max; ite(p < q, p, q) = min.
        if (a, b) == (q, p) {
            Some(Kind { max: true, signed })
        } else if (a, b) == (p, q) {
            Some(Kind { max: false, signed })
        } else {
            None
        }
    }

    /// Appends the operands of the chain `t` of `kind` (or `t` itself); false when
    /// there are more than [`MAX_OPERANDS`].
    fn chain_operands(&self, kind: Kind, t: Term, out: &mut Vec<Term>) -> bool {
        let mut stack = vec![t];
        while let Some(u) = stack.pop() {
            match self.node(u) {
                Node::Ite(c, x, y) if self.extremum_kind(c, x, y) == Some(kind) => {
                    stack.push(y);
                    stack.push(x);
                }
                _ => out.push(u),
            }
            if out.len() + stack.len() > MAX_OPERANDS {
                return false;
            }
        }
        true
    }

    /// The chain of `operands` in canonical form.
    fn build_chain(&mut self, kind: Kind, w: u8, mut operands: Vec<Term>) -> Term {
        let (identity, absorbing) = kind.identity_and_absorbing(w);
        // Constants fold into the one that wins.
        let mut constant: Option<u64> = None;
        operands.retain(|&t| match self.as_const(t) {
            Some(v) => {
                constant = Some(match constant {
                    Some(k) if kind.less(w, k, v) == kind.max => v,
                    Some(k) => k,
                    None => v,
                });
                false
            }
            None => true,
        });
        match constant {
            Some(k) if k == absorbing => return self.constant(w, k),
            Some(k) if k != identity || operands.is_empty() => {
                operands.push(self.constant(w, k));
            }
            _ => {}
        }
        operands.sort_unstable();
        operands.dedup();
        let mut acc = operands[0];
        for &t in &operands[1..] {
            let c = self.bin(kind.order(), acc, t);
            // The comparison of two distinct non-constant operands (or one constant)
            // stays a comparison; should it fold anyway, the plain `ite` is still exact.
            let (then, other) = if kind.max { (t, acc) } else { (acc, t) };
            acc = match self.node(c) {
                Node::Bin(op, x, y) if op == kind.order() && (x, y) == (acc, t) => {
                    self.intern(Node::Ite(c, then, other), w)
                }
                _ => self.plain_ite(c, then, other),
            };
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::eval;
    use proptest::prelude::*;

    fn max_of(s: &mut TermStore, signed: bool, p: Term, q: Term) -> Term {
        let op = if signed { BinOp::Slt } else { BinOp::Ult };
        let c = s.bin(op, p, q);
        s.ite(c, q, p)
    }

    #[test]
    fn a_maximum_in_another_order_is_the_same_term() {
        let mut s = TermStore::new();
        let xs: Vec<Term> = (0..5).map(|i| s.new_var(&format!("x{i}"), 32)).collect();
        let min = s.word(0x8000_0000);
        let mut fwd = min;
        for &x in &xs {
            fwd = max_of(&mut s, true, fwd, x);
        }
        let mut bwd = xs[4];
        for &x in xs[..4].iter().rev() {
            // Written the other way round: if x < m then m else x.
            let c = s.bin(BinOp::Slt, x, bwd);
            bwd = s.ite(c, bwd, x);
        }
        assert_eq!(fwd, bwd);
    }

    #[test]
    fn signed_and_unsigned_chains_do_not_mix() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let y = s.new_var("y", 32);
        let z = s.new_var("z", 32);
        let su = max_of(&mut s, true, x, y);
        let a = max_of(&mut s, false, su, z);
        let b = max_of(&mut s, false, z, su);
        assert_eq!(a, b);
        let yz = max_of(&mut s, false, y, z);
        let c = max_of(&mut s, true, x, yz);
        assert_ne!(a, c);
    }

    #[test]
    fn the_absorbing_value_wins_and_the_identity_goes() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let smax = s.word(0x7fff_ffff);
        assert_eq!(max_of(&mut s, true, x, smax), smax);
        let zero = s.word(0);
        assert_eq!(max_of(&mut s, false, zero, x), x);
    }

    /// A chain of maxima and minima, signed and unsigned, over three variables and
    /// constants, as the generator writes it: (kind, swapped arms, operand).
    fn chain() -> impl Strategy<Value = Vec<(u8, bool, u8)>> {
        proptest::collection::vec((0u8..6, any::<bool>(), 0u8..7), 1..10)
    }

    const CONSTANTS: [u32; 4] = [0, 0x8000_0000, 0x7fff_ffff, 0xffff_ffff];

    proptest! {
        /// Every rewrite keeps the value: the normalized chain evaluates as the same
        /// nest of `ite`s built without the rewrite.
        #[test]
        fn normalized_chains_keep_their_value(
            steps in chain(),
            values in proptest::array::uniform3(prop_oneof![
                Just(0u32), Just(1), Just(0x8000_0000), Just(0x7fff_ffff),
                Just(0xffff_ffff), any::<u32>()
            ]),
        ) {
            let mut s = TermStore::new();
            let vars: Vec<Term> = (0..3).map(|i| s.new_var(&format!("v{i}"), 32)).collect();
            let operand = |s: &mut TermStore, k: u8| match k {
                0..=2 => vars[k as usize],
                k => s.word(CONSTANTS[(k - 3) as usize]),
            };
            let mut normal = vars[0];
            let mut plain = vars[0];
            for &(kind, swapped, k) in &steps {
                let o = operand(&mut s, k);
                let op = if kind % 2 == 0 { BinOp::Slt } else { BinOp::Ult };
                // kinds 0,1: max; 2,3: min; 4,5: the arms as a max but compared the
                // other way round (a min).
                for (acc, raw) in [(&mut normal, false), (&mut plain, true)] {
                    let (p, q) = if swapped { (o, *acc) } else { (*acc, o) };
                    let c = s.bin(op, p, q);
                    let (a, b) = match kind / 2 { 0 => (q, p), 1 => (p, q), _ => (p, q) };
                    *acc = if raw { s.plain_ite(c, a, b) } else { s.ite(c, a, b) };
                }
            }
            let env: Vec<u64> = values.iter().map(|&x| x as u64).collect();
            prop_assert_eq!(eval(&s, &env, normal), eval(&s, &env, plain));
        }
    }
}
