//! Word-level normalization of sums, so that the same arithmetic written in another
//! order is the same term and needs no solver (an array summed forward and backward,
//! `a - b + c` against `c + a - b`, `(x + 3) - (y - 2)` against `x - y + 5`).
//!
//! A sum of bit-vectors (`+` and `-` nested any way) is read as a linear combination:
//! a coefficient per summand (any other term: a variable, a product, a select, an `ite`,
//! …) plus a constant, all modulo 2^width. When every coefficient is 1 or -1 it is
//! rebuilt in one canonical shape: the summands in the store's order (added, or
//! subtracted for -1), then the constant. Modular arithmetic makes this exact: no
//! rewrite here changes a value.
//!
//! One nonlinear identity is applied too: `(a / b) * b + a % b` is `a` (unsigned or
//! signed, for every `b` as SMT-LIB defines division), so a quotient checked by
//! recomputing it needs no solver ([`TermStore::recombine_divisions`]).
//!
//! A summand that occurs more than once with one sign is collapsed into a product only
//! in a sum of at least [`SCALE_AFTER`] nodes (a loop's running sum `n + (n - 1) + …`
//! becomes `n * k + c`, a term of fixed size, instead of growing with every trip);
//! there `x * k` (`k` a constant) is read as `k` times `x` as well.
//!
//! Not normalized (built as written): short sums in which a summand occurs more than
//! once with one sign (`x + x` is not turned into `x * 2`: that changed how the merged
//! encoding unrolls loops that double a jump target, at a large cost in queries);
//! sums of more than [`MAX_SUMMANDS`] distinct summands or that take more than
//! [`MAX_VISITS`] nodes to read (so long sums cost linear, not quadratic, time);
//! products otherwise (`a * (b + c)` is not distributed, and in a short sum `x * 3` is
//! one summand); Booleans, comparisons and divisions (their arguments are normalized
//! sums where they are sums).

use std::collections::BTreeMap;

use super::{mask, BinOp, Node, Term, TermStore};

/// The quotient and remainder operators that [`TermStore::recombine_divisions`] pairs.
const DIVISIONS: [(BinOp, BinOp); 2] = [(BinOp::UDiv, BinOp::URem), (BinOp::SDiv, BinOp::SRem)];

/// What [`TermStore::normalized_sum`] made of a sum.
pub(super) enum Normalized {
    /// The canonical form.
    Sum(Term),
    /// Too long to normalize, and so is every sum that contains it.
    TooLong,
    /// Built as written (a repeated summand).
    AsWritten,
}

/// The most distinct summands a normalized sum may have.
pub const MAX_SUMMANDS: usize = 64;
/// The most nodes read to normalize one sum.
pub const MAX_VISITS: usize = 4 * MAX_SUMMANDS;
/// The fewest nodes a sum must have for a repeated summand to become a product.
pub const SCALE_AFTER: usize = 16;

impl TermStore {
    /// Replaces `k·((a / b) * b) + k·(a % b)` in a sum's coefficients by `k·a`: a
    /// quotient checked by recomputing `q * b + r`, a nonlinear identity that
    /// bit-blasting handles badly. It holds for every `a` and `b` as SMT-LIB defines
    /// division (by zero: `a /u 0` is all ones and `a %u 0 = a`, so `(a /u 0) * 0 +
    /// a = a`; signed likewise, and `MIN /s -1 = MIN`, `MIN %s -1 = 0`), which the
    /// evaluator and every backend follow.
    fn recombine_divisions(&mut self, coefficients: &mut BTreeMap<Term, u64>, m: u64) {
        let remainders: Vec<(Term, u64, BinOp, Term, Term)> = coefficients
            .iter()
            .filter(|(_, &k)| k != 0)
            .filter_map(|(&t, &k)| match self.node(t) {
                Node::Bin(op @ (BinOp::URem | BinOp::SRem), a, b) => Some((t, k, op, a, b)),
                _ => None,
            })
            .collect();
        for (rem, k, op, a, b) in remainders {
            let Some(&(div, _)) = DIVISIONS.iter().find(|(_, r)| *r == op) else {
                continue;
            };
            let Some(quotient) = self.find(Node::Bin(div, a, b)) else {
                continue;
            };
            let product = [(quotient, b), (b, quotient)]
                .into_iter()
                .find_map(|(x, y)| self.find(Node::Bin(BinOp::Mul, x, y)))
                .filter(|p| coefficients.get(p) == Some(&k));
            if let Some(product) = product {
                coefficients.insert(product, 0);
                coefficients.insert(rem, 0);
                let c = coefficients.entry(a).or_insert(0);
                *c = c.wrapping_add(k) & m;
            }
        }
    }

    /// The sum of `parts` (each term times its coefficient, all of width `w`) in
    /// canonical form, unless it is too long or has a repeated summand.
    ///
    /// A sum marked too long is not read again: reading a sum reads every node of its
    /// parts, so one that contains it has more nodes and at least as many summands
    /// (summands that cancel still count), and would be too long as well.
    pub(super) fn normalized_sum(&mut self, w: u8, parts: &[(Term, u64)]) -> Normalized {
        match self.read_sum(w, parts, false) {
            Normalized::AsWritten => self.read_sum(w, parts, true),
            other => other,
        }
    }

    /// [`TermStore::normalized_sum`]'s reading, plain or `scaled`: a scaled reading
    /// takes `x * k` (`k` a constant) as `k` times `x`, and builds a summand whose
    /// coefficient is not ±1 as `x * c`; it applies only to sums of at least
    /// [`SCALE_AFTER`] nodes (a loop's running sum `n + (n - 1) + …`, which would
    /// otherwise grow with every trip), so short sums such as `x + x` keep the form
    /// they were written in.
    fn read_sum(&mut self, w: u8, parts: &[(Term, u64)], scaled: bool) -> Normalized {
        let m = mask(w);
        let mut coefficients: BTreeMap<Term, u64> = BTreeMap::new();
        let mut constant = 0u64;
        let mut todo = parts.to_vec();
        let mut visits = 0;
        while let Some((t, k)) = todo.pop() {
            visits += 1;
            if visits > MAX_VISITS || self.too_long.contains(&t) {
                return Normalized::TooLong;
            }
            match self.node(t) {
                Node::Const { value, .. } => {
                    constant = constant.wrapping_add(value.wrapping_mul(k)) & m;
                }
                Node::Bin(BinOp::Add, x, y) => {
                    todo.push((x, k));
                    todo.push((y, k));
                }
                Node::Bin(BinOp::Sub, x, y) => {
                    todo.push((x, k));
                    todo.push((y, k.wrapping_neg() & m));
                }
                Node::Bin(BinOp::Mul, x, y) if scaled && self.as_const(y).is_some() => {
                    let factor = self.as_const(y).unwrap_or(1);
                    todo.push((x, k.wrapping_mul(factor) & m));
                }
                _ => {
                    let c = coefficients.entry(t).or_insert(0);
                    *c = c.wrapping_add(k) & m;
                    if coefficients.len() > MAX_SUMMANDS {
                        return Normalized::TooLong;
                    }
                }
            }
        }
        self.recombine_divisions(&mut coefficients, m);
        coefficients.retain(|_, c| *c != 0);
        if coefficients.values().any(|&c| c != 1 && c != m) {
            if !scaled || visits < SCALE_AFTER {
                return Normalized::AsWritten;
            }
            // Each summand times its coefficient: `x * c`, or `x * -c` subtracted
            // when `-c` is the smaller (`c` read as signed is negative).
            let scaled: Vec<(Term, u64)> = coefficients.iter().map(|(&t, &c)| (t, c)).collect();
            coefficients.clear();
            for (t, c) in scaled {
                let (term, sign) = match c {
                    1 => (t, 1),
                    c if c == m => (t, m),
                    c if c > m / 2 => {
                        let f = self.constant(w, c.wrapping_neg() & m);
                        (self.bin(BinOp::Mul, t, f), m)
                    }
                    c => {
                        let f = self.constant(w, c);
                        (self.bin(BinOp::Mul, t, f), 1)
                    }
                };
                let e = coefficients.entry(term).or_insert(0);
                *e = e.wrapping_add(sign) & m;
            }
            coefficients.retain(|_, c| *c != 0);
            if coefficients.values().any(|&c| c != 1 && c != m) {
                return Normalized::AsWritten;
            }
        }
        // Added summands in the store's order, then subtracted ones, then the constant
        // (first instead when nothing is added: `k - x`, `0 - x`).
        let (plus, minus): (Vec<Term>, Vec<Term>) = {
            let (p, n): (Vec<_>, Vec<_>) = coefficients.iter().partition(|&(_, &c)| c == 1);
            (
                p.into_iter().map(|(&t, _)| t).collect(),
                n.into_iter().map(|(&t, _)| t).collect(),
            )
        };
        let k = self.constant(w, constant);
        let mut sum = match plus.split_first() {
            Some((&first, rest)) => rest.iter().fold(first, |acc, &t| {
                self.intern(Node::Bin(BinOp::Add, acc, t), w)
            }),
            None if minus.is_empty() => return Normalized::Sum(k),
            None => k,
        };
        for &t in &minus {
            sum = self.intern(Node::Bin(BinOp::Sub, sum, t), w);
        }
        if !plus.is_empty() && constant != 0 {
            sum = self.intern(Node::Bin(BinOp::Add, sum, k), w);
        }
        Normalized::Sum(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::eval;
    use proptest::prelude::*;

    /// A sum written as a tree: leaves are inputs or constants.
    #[derive(Clone, Debug)]
    enum Expr {
        Var(usize),
        Const(u32),
        Add(Box<Expr>, Box<Expr>),
        Sub(Box<Expr>, Box<Expr>),
        Scale(Box<Expr>, u32),
        /// A product of two terms: an opaque summand.
        Mul(Box<Expr>, Box<Expr>),
    }

    fn expr() -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            (0usize..4).prop_map(Expr::Var),
            prop_oneof![Just(0u32), Just(1), Just(u32::MAX), any::<u32>()].prop_map(Expr::Const),
        ];
        leaf.prop_recursive(6, 48, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Add(a.into(), b.into())),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Sub(a.into(), b.into())),
                (
                    inner.clone(),
                    prop_oneof![Just(2u32), Just(u32::MAX), any::<u32>()]
                )
                    .prop_map(|(a, k)| Expr::Scale(a.into(), k)),
                (inner.clone(), inner).prop_map(|(a, b)| Expr::Mul(a.into(), b.into())),
            ]
        })
    }

    fn build(s: &mut TermStore, vars: &[Term], e: &Expr) -> Term {
        match e {
            Expr::Var(i) => vars[*i],
            Expr::Const(k) => s.word(*k),
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) => {
                let (x, y) = (build(s, vars, a), build(s, vars, b));
                let op = match e {
                    Expr::Add(..) => BinOp::Add,
                    Expr::Sub(..) => BinOp::Sub,
                    _ => BinOp::Mul,
                };
                s.bin(op, x, y)
            }
            Expr::Scale(a, k) => {
                let x = build(s, vars, a);
                let k = s.word(*k);
                s.bin(BinOp::Mul, x, k)
            }
        }
    }

    fn value(e: &Expr, vals: &[u32]) -> u32 {
        match e {
            Expr::Var(i) => vals[*i],
            Expr::Const(k) => *k,
            Expr::Add(a, b) => value(a, vals).wrapping_add(value(b, vals)),
            Expr::Sub(a, b) => value(a, vals).wrapping_sub(value(b, vals)),
            Expr::Scale(a, k) => value(a, vals).wrapping_mul(*k),
            Expr::Mul(a, b) => value(a, vals).wrapping_mul(value(b, vals)),
        }
    }

    fn vars(s: &mut TermStore) -> Vec<Term> {
        (0..4).map(|i| s.new_var(&format!("x{i}"), 32)).collect()
    }

    proptest! {
        /// Normalizing never changes a value.
        #[test]
        fn a_normalized_sum_has_the_value_of_the_sum_as_written(
            e in expr(),
            vals in prop::collection::vec(any::<u32>(), 4),
        ) {
            let mut s = TermStore::new();
            let vs = vars(&mut s);
            let t = build(&mut s, &vs, &e);
            let v64: Vec<u64> = vals.iter().map(|&v| v as u64).collect();
            prop_assert_eq!(eval(&s, &v64, t), value(&e, &vals) as u64);
        }

        /// The same sum in another order is the same term.
        #[test]
        fn a_sum_in_any_order_is_one_term(
            parts in prop::collection::vec((0usize..4, any::<bool>(), prop_oneof![Just(1u32), Just(3), any::<u32>()]), 1..12),
            constant in any::<u32>(),
            seed in any::<u64>(),
        ) {
            let mut s = TermStore::new();
            let vs = vars(&mut s);
            let term = |s: &mut TermStore, (i, neg, k): (usize, bool, u32)| {
                let kk = s.word(k);
                let t = s.bin(BinOp::Mul, vs[i], kk);
                (t, neg)
            };
            let sum = |s: &mut TermStore, order: &[(usize, bool, u32)]| {
                let mut acc = s.word(constant);
                for &p in order {
                    let (t, neg) = term(s, p);
                    acc = s.bin(if neg { BinOp::Sub } else { BinOp::Add }, acc, t);
                }
                acc
            };
            // Distinct summands (a repeated one is kept as written).
            let mut parts = parts;
            let mut seen = std::collections::HashSet::new();
            parts.retain(|&(i, _, k)| seen.insert((i, k)));
            let forward = sum(&mut s, &parts);
            let mut shuffled = parts.clone();
            let mut r = seed;
            for i in (1..shuffled.len()).rev() {
                r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                shuffled.swap(i, (r >> 33) as usize % (i + 1));
            }
            let other = sum(&mut s, &shuffled);
            prop_assert_eq!(forward, other);
        }
    }

    proptest! {
        /// `(a / b) * b + a % b` is `a`, unsigned and signed, for every `a` and `b`
        /// (zero, -1 and INT_MIN included), in either order and with other summands.
        #[test]
        fn a_quotient_times_its_divisor_plus_the_remainder_is_the_dividend(
            a in prop_oneof![Just(0u32), Just(0x8000_0000), Just(u32::MAX), any::<u32>()],
            b in prop_oneof![Just(0u32), Just(1), Just(u32::MAX), Just(7), any::<u32>()],
            c in any::<u32>(),
            signed in any::<bool>(),
            swap in any::<bool>(),
            minus in any::<bool>(),
        ) {
            let mut s = TermStore::new();
            let vs = vars(&mut s);
            let (x, y, z) = (vs[0], vs[1], vs[2]);
            let (div, rem) = if signed { (BinOp::SDiv, BinOp::SRem) } else { (BinOp::UDiv, BinOp::URem) };
            let q = s.bin(div, x, y);
            let r = s.bin(rem, x, y);
            let p = if swap { s.bin(BinOp::Mul, y, q) } else { s.bin(BinOp::Mul, q, y) };
            let pz = s.bin(BinOp::Add, p, z);
            // q * b + z + r (which is a + z), or q * b + z - r (which is not).
            let t = match (minus, swap) {
                (true, _) => s.bin(BinOp::Sub, pz, r),
                (false, true) => s.bin(BinOp::Add, r, pz),
                (false, false) => s.bin(BinOp::Add, pz, r),
            };
            let xz = s.bin(BinOp::Add, x, z);
            if !minus {
                prop_assert_eq!(t, xz, "{}", s.readable(t));
            }
            let vals = [a as u64, b as u64, c as u64, 0];
            let (pv, rv) = (eval(&s, &vals, p), eval(&s, &vals, r));
            let written = if minus { pv.wrapping_sub(rv) } else { pv.wrapping_add(rv) };
            prop_assert_eq!(written.wrapping_add(c as u64) & 0xFFFF_FFFF, eval(&s, &vals, t));
        }
    }

    proptest! {
        /// A long running sum of few inputs, added and subtracted, scaled by constants
        /// (a loop's accumulator): normalized with coefficients, it keeps its value and
        /// stays short.
        #[test]
        fn a_long_sum_of_repeated_summands_keeps_its_value_and_stays_short(
            steps in prop::collection::vec((0usize..3, any::<bool>(), prop_oneof![Just(1u32), Just(2), Just(u32::MAX), any::<u32>()]), 16..60),
            vals in prop::collection::vec(any::<u32>(), 4),
        ) {
            let mut s = TermStore::new();
            let vs = vars(&mut s);
            let mut acc = s.word(0);
            let mut want = 0u32;
            for &(i, minus, k) in &steps {
                // `x`, `x * k` or the constant `k`.
                let (t, v) = match i {
                    0 => (vs[0], vals[0]),
                    1 => {
                        let kt = s.word(k);
                        (s.bin(BinOp::Mul, vs[1], kt), vals[1].wrapping_mul(k))
                    }
                    _ => (s.word(k), k),
                };
                acc = s.bin(if minus { BinOp::Sub } else { BinOp::Add }, acc, t);
                want = if minus { want.wrapping_sub(v) } else { want.wrapping_add(v) };
            }
            let v64: Vec<u64> = vals.iter().map(|&v| v as u64).collect();
            prop_assert_eq!(eval(&s, &v64, acc), want as u64);
            prop_assert!(s.reachable(&[acc]).len() <= 4 * SCALE_AFTER, "{}", s.readable(acc));
        }
    }

    /// A remainder of another division, or a product by another divisor, stays.
    #[test]
    fn only_matching_quotient_and_remainder_recombine() {
        let mut s = TermStore::new();
        let vs = vars(&mut s);
        let (x, y, z) = (vs[0], vs[1], vs[2]);
        let q = s.bin(BinOp::UDiv, x, y);
        let r = s.bin(BinOp::URem, x, z);
        let p = s.bin(BinOp::Mul, q, y);
        let t = s.bin(BinOp::Add, p, r);
        assert_ne!(t, x);
        let signed_r = s.bin(BinOp::SRem, x, y);
        let t = s.bin(BinOp::Add, p, signed_r);
        assert_ne!(t, x);
        let r = s.bin(BinOp::URem, x, y);
        let t = s.bin(BinOp::Sub, p, r);
        assert_ne!(t, x, "q*b - r is not a");
    }

    #[test]
    fn forward_and_backward_array_sums_are_one_term() {
        let mut s = TermStore::new();
        let elems: Vec<Term> = (0..16).map(|i| s.new_var(&format!("a{i}"), 32)).collect();
        let zero = s.word(0);
        let fwd = elems.iter().fold(zero, |acc, &e| s.bin(BinOp::Add, acc, e));
        let bwd = elems
            .iter()
            .rev()
            .fold(zero, |acc, &e| s.bin(BinOp::Add, acc, e));
        assert_eq!(fwd, bwd);
    }

    #[test]
    fn a_repeated_summand_is_kept_as_written() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let xx = s.bin(BinOp::Add, x, x);
        assert_eq!(s.node(xx), Node::Bin(BinOp::Add, x, x));
        let y = s.new_var("y", 32);
        // `x - y + y` cancels, whatever the order.
        let d = s.bin(BinOp::Sub, x, y);
        assert_eq!(s.bin(BinOp::Add, d, y), x);
    }

    #[test]
    fn a_long_sum_is_built_as_written_in_linear_time() {
        let mut s = TermStore::new();
        let elems: Vec<Term> = (0..5000).map(|i| s.new_var(&format!("a{i}"), 32)).collect();
        let zero = s.word(0);
        let before = s.len();
        let sum = elems.iter().fold(zero, |acc, &e| s.bin(BinOp::Add, acc, e));
        // Past the limit each step adds one node (and its normalized prefix stays).
        assert!(
            s.len() - before < 5000 + 4 * MAX_SUMMANDS,
            "{}",
            s.len() - before
        );
        let vals: Vec<u64> = (0..5000).collect();
        assert_eq!(
            eval(&s, &vals, sum),
            (0..5000u64).sum::<u64>() & 0xFFFF_FFFF
        );
    }

    #[test]
    fn subtraction_reads_as_subtraction() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let y = s.new_var("y", 32);
        let d = s.bin(BinOp::Sub, x, y);
        assert_eq!(s.node(d), Node::Bin(BinOp::Sub, x, y));
    }
}
