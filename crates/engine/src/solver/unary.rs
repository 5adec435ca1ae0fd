//! Inputs that their conjuncts constrain alone: decided without the backend.
//!
//! After propagation, a loop's path queries often mention one input at a time: `n != 1,
//! …, n != k` for a countdown, `x - 7k <u 7 ∧ x / 7 != k` for a division by
//! subtraction. For an input whose every conjunct mentions it alone, the values its
//! affine comparisons (`x + c <u k`, `x + c <s k`, their negations, `x == k`, `x != k`)
//! allow are an arc of the 2^32 circle, computed as a superset (so nothing allowed is
//! lost); if that arc is small (at most [`MAX_ENUMERATED`] values, or a few more where
//! its conjuncts are small enough that checking every value costs at most
//! [`ENUMERATION_WORK`]) it is enumerated, which decides the input exactly (sat
//! with a value, or unsat); otherwise a few candidates (the arc's ends, walked past
//! excluded values) are tried, and one that satisfies every conjunct decides it sat.
//! A candidate outside some conjunct's own arc is refuted by it at once (that arc
//! holds every value the conjunct allows); one inside all of them is checked with the
//! evaluator on every conjunct. Anything else is left to the backend. Sound by
//! construction: a value is only ever taken after the evaluator confirms every
//! conjunct, and unsat is only concluded after every value of a superset of the
//! allowed ones was refuted.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::term::arc::{arc_of, Arc};
use crate::term::{mask, Compiled, Node, Term, TermStore};

/// Values always enumerated for one input, however large its conjuncts.
pub const MAX_ENUMERATED: u64 = 256;

/// The work (values × ops of the compiled conjuncts) an input's enumeration may take
/// when it has more than [`MAX_ENUMERATED`] values: about a tenth of a second, a
/// count and not a clock, so the same query is decided the same way on any machine.
/// Below it, checking every value beats the bit-blasting of divisions and products by
/// constants (`print5`: a number below 100,000 printed digit by digit; docs/benchmarks-history.md).
pub const ENUMERATION_WORK: u64 = 1 << 25;

/// What was decided about the inputs the query constrains alone.
pub(super) enum Unary {
    /// Some input's conjuncts have no solution: the query is unsat.
    Unsat,
    /// Values for the inputs decided here (by store index), and the conjuncts left for
    /// the backend (none of which mentions those inputs).
    Solved {
        values: Vec<(u32, u64)>,
        rest: Vec<Term>,
    },
}

/// The inputs each term mentions, kept across queries: a loop's queries share their
/// long prefixes, whose conjuncts were otherwise walked again for every query (most
/// of a comparison's time on `div7u`; docs/benchmarks-history.md). Terms never change, so an entry
/// stays true for the store's life.
#[derive(Default)]
pub(super) struct InputsCache(FxHashMap<Term, FxHashSet<Term>>);

impl InputsCache {
    /// The inputs `t` mentions.
    pub(super) fn inputs(&mut self, store: &TermStore, t: Term) -> &FxHashSet<Term> {
        self.0.entry(t).or_insert_with(|| {
            store
                .reachable(&[t])
                .into_iter()
                .filter(|&u| matches!(store.node(u), Node::Var { .. }))
                .collect()
        })
    }
}

/// Decides the inputs of `query` that only their own conjuncts constrain, where it can.
pub(super) fn solve(store: &TermStore, query: &[Term], cache: &mut InputsCache) -> Unary {
    // Conjuncts by their one input; inputs that share a conjunct with another are out.
    let mut alone: FxHashMap<Term, Vec<usize>> = FxHashMap::default();
    let mut shared: FxHashSet<Term> = FxHashSet::default();
    for (i, &c) in query.iter().enumerate() {
        let vars = cache.inputs(store, c);
        if vars.len() == 1 {
            let x = *vars.iter().next().unwrap_or(&c);
            alone.entry(x).or_default().push(i);
        } else {
            shared.extend(vars.iter().copied());
        }
    }
    let mut values = Vec::new();
    let mut done: FxHashSet<usize> = FxHashSet::default();
    let mut order: Vec<Term> = alone
        .keys()
        .copied()
        .filter(|x| !shared.contains(x))
        .collect();
    order.sort_unstable();
    for x in order {
        let conjuncts = &alone[&x];
        let Node::Var { index, width } = store.node(x) else {
            continue;
        };
        let mut arc = Arc::full(width);
        let mut excluded: Vec<u64> = Vec::new();
        // Each conjunct's own arc (a superset of the values it allows), and the
        // conjuncts that have none, which only the evaluator can judge.
        let mut arcs: Vec<Arc> = Vec::new();
        let mut opaque: Vec<usize> = Vec::new();
        for &i in conjuncts {
            if let Some((_, a)) = arc_of(store, query[i]) {
                if a.len == mask(width) && a.start != 0 {
                    // `x != k`: kept as an exclusion (an arc of all but one value
                    // would only trim the ends).
                    excluded.push(a.start.wrapping_sub(1) & mask(width));
                    continue;
                }
                arcs.push(a);
                match arc.meet(a, width) {
                    Some(m) => arc = m,
                    None => return Unary::Unsat,
                }
            } else {
                opaque.push(i);
            }
        }
        excluded.sort_unstable();
        excluded.dedup();
        // Every conjunct is confirmed by the evaluator (compiled once for all the
        // values tried), the opaque ones first: they refute most candidates.
        let checked: Vec<Term> = opaque
            .iter()
            .chain(conjuncts.iter())
            .map(|&i| query[i])
            .collect();
        let mut program = Compiled::new(store, &checked);
        let work = arc.len.saturating_mul(program.len().max(1) as u64);
        let mut vars = vec![0u64; store.var_count()];
        let mut satisfies = |v: u64| {
            // A value outside some conjunct's arc is refuted by it (the arc holds
            // every value the conjunct allows); the meet of the arcs is only a
            // superset of their intersection, so this is checked per conjunct.
            if arcs.iter().any(|a| !a.contains(v, width)) {
                return false;
            }
            if let Some(slot) = vars.get_mut(index as usize) {
                *slot = v;
            }
            program.all_hold(&vars)
        };
        let found = if arc.len <= MAX_ENUMERATED || work <= ENUMERATION_WORK {
            let hit = (0..arc.len)
                .map(|d| (arc.start + d) & mask(width))
                .filter(|v| excluded.binary_search(v).is_err())
                .find(|&v| satisfies(v));
            match hit {
                Some(v) => Some(v),
                None => return Unary::Unsat,
            }
        } else {
            // Walk from each end of the arc past the excluded values.
            let next_free = |mut v: u64| {
                for _ in 0..=excluded.len() {
                    if excluded.binary_search(&v).is_err() {
                        return v;
                    }
                    v = (v + 1) & mask(width);
                }
                v
            };
            let last = (arc.start + arc.len - 1) & mask(width);
            [arc.start, last, 0]
                .into_iter()
                .map(next_free)
                .find(|&v| satisfies(v))
        };
        if let Some(v) = found {
            values.push((index, v));
            done.extend(conjuncts.iter().copied());
        }
    }
    let rest = query
        .iter()
        .enumerate()
        .filter(|(i, _)| !done.contains(i))
        .map(|(_, &t)| t)
        .collect();
    Unary::Solved { values, rest }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::arc::testing::{build, comparison};
    use crate::term::BinOp;
    use proptest::prelude::*;

    /// The one solution at the end of two arcs (`k - 1`, the last value below `k`, and
    /// the first from `k - 1`): found, not refuted by either arc.
    #[test]
    fn a_solution_at_the_ends_of_the_arcs_is_found() {
        for k in [1u32, 2, 5, 0x8000_0000, 0x8000_0001, u32::MAX] {
            for op in [BinOp::Ult, BinOp::Slt] {
                if op == BinOp::Slt && k == 0x8000_0000 {
                    continue; // nothing is signed-below INT_MIN
                }
                let mut s = TermStore::new();
                let x = s.new_var("x", 32);
                let (kt, k1) = (s.word(k), s.word(k.wrapping_sub(1)));
                let below = s.bin(op, x, kt);
                let under = s.bin(op, x, k1);
                let not_under = s.not(under);
                let query = [below, not_under];
                match solve(&s, &query, &mut InputsCache::default()) {
                    Unary::Solved { values, rest } if rest.is_empty() => {
                        assert_eq!(values, vec![(0, k.wrapping_sub(1) as u64)], "{op:?} {k:#x}")
                    }
                    Unary::Unsat => panic!("{op:?} {k:#x}: unsat, but {:#x} satisfies", k - 1),
                    Unary::Solved { rest, .. } => panic!("{op:?} {k:#x}: left {rest:?}"),
                }
            }
        }
    }

    /// A conjunct on `x`'s digits: `(x / d) % 10` compared with a constant.
    fn digit_is(s: &mut TermStore, x: Term, d: u32, k: u32, equal: bool) -> Term {
        let (dt, ten, kt) = (s.word(d), s.word(10), s.word(k));
        let q = s.bin(BinOp::UDiv, x, dt);
        let digit = s.bin(BinOp::URem, q, ten);
        if equal {
            s.eq(digit, kt)
        } else {
            s.ne(digit, kt)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Past [`MAX_ENUMERATED`] values, within the work budget: a number below
        /// `span` (up to 100,000, as a program that prints five digits checks) with
        /// conditions on its digits is decided exactly, as brute force decides it.
        #[test]
        fn a_large_arc_of_cheap_conjuncts_is_enumerated_exactly(
            span in 257u32..100_000,
            digits in prop::collection::vec((0usize..5, 0u32..10, any::<bool>()), 1..4),
        ) {
            let mut s = TermStore::new();
            let x = s.new_var("x", 32);
            let bound = s.word(span);
            let mut query = vec![s.bin(BinOp::Ult, x, bound)];
            let powers = [1u32, 10, 100, 1000, 10000];
            for &(p, k, equal) in &digits {
                query.push(digit_is(&mut s, x, powers[p], k, equal));
            }
            let truth = (0..span as u64).find(|&v| {
                query.iter().all(|&q| crate::term::eval(&s, &[v], q) == 1)
            });
            match solve(&s, &query, &mut InputsCache::default()) {
                Unary::Unsat => prop_assert!(truth.is_none(), "unsat, but {:?} satisfies", truth),
                Unary::Solved { values, rest } => {
                    prop_assert!(rest.is_empty(), "left to the backend: {} conjuncts", rest.len());
                    prop_assert_eq!(values.len(), 1);
                    prop_assert_eq!(Some(values[0].1), truth, "the first value that satisfies");
                }
            }
        }
    }

    proptest! {
        /// Deciding a one-input query agrees with brute force over a small domain.
        #[test]
        fn a_one_input_query_is_decided_as_brute_force_decides_it(
            cmps in prop::collection::vec(comparison(), 1..5),
            low in 0u32..50,
        ) {
            let mut s = TermStore::new();
            let x = s.new_var("x", 32);
            // Confine x to [low, low + 40) so brute force can check every value.
            let lo = s.word(low);
            let span = s.word(40);
            let neg = s.word(low.wrapping_neg());
            let shifted = s.bin(BinOp::Add, x, neg);
            let _ = lo;
            let mut query = vec![s.bin(BinOp::Ult, shifted, span)];
            query.extend(cmps.iter().map(|&c| build(&mut s, x, c)));
            let truth = (low..low + 40).find(|&v| {
                let vals = [v as u64];
                query.iter().all(|&q| crate::term::eval(&s, &vals, q) == 1)
            });
            match solve(&s, &query, &mut InputsCache::default()) {
                Unary::Unsat => prop_assert!(truth.is_none(), "unsat, but {truth:?} satisfies"),
                Unary::Solved { values, rest } => {
                    if rest.is_empty() {
                        prop_assert_eq!(values.len(), 1);
                        let vals = [values[0].1];
                        for &q in &query {
                            prop_assert_eq!(crate::term::eval(&s, &vals, q), 1);
                        }
                    }
                }
            }
        }
    }
}
