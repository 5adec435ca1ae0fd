//! Inputs that their conjuncts constrain alone: decided without the backend.
//!
//! After propagation, a loop's path queries often mention one input at a time: `n != 1,
//! …, n != k` for a countdown, `x - 7k <u 7 ∧ x / 7 != k` for a division by
//! subtraction. For an input whose every conjunct mentions it alone, the values its
//! affine comparisons (`x + c <u k`, `x + c <s k`, their negations, `x == k`, `x != k`)
//! allow are an arc of the 2^32 circle, computed as a superset (so nothing allowed is
//! lost); if that arc is small it is enumerated, which decides the input exactly (sat
//! with a value, or unsat); otherwise a few candidates (the arc's ends, walked past
//! excluded values) are tried, and one that satisfies every conjunct decides it sat.
//! A candidate outside some conjunct's own arc is refuted by it at once (that arc
//! holds every value the conjunct allows); one inside all of them is checked with the
//! evaluator on every conjunct. Anything else is left to the backend. Sound by
//! construction: a value is only ever taken after the evaluator confirms every
//! conjunct, and unsat is only concluded after every value of a superset of the
//! allowed ones was refuted.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::term::{mask, BinOp, Evaluator, Node, Term, TermStore};

/// The most values enumerated for one input.
pub const MAX_ENUMERATED: u64 = 256;

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

/// An arc of the circle of `width`-bit values: `len` values from `start` upward,
/// wrapping (`len` = 2^width: all of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Arc {
    start: u64,
    len: u64,
}

impl Arc {
    fn full(width: u8) -> Arc {
        Arc {
            start: 0,
            len: mask(width) + 1,
        }
    }

    /// Whether `v` lies on the arc.
    fn contains(self, v: u64, width: u8) -> bool {
        (v.wrapping_sub(self.start) & mask(width)) < self.len
    }

    /// A superset of `self ∩ other` as one arc; `None` when they are disjoint.
    fn meet(self, other: Arc, width: u8) -> Option<Arc> {
        let size = mask(width) + 1;
        let off = other.start.wrapping_sub(self.start) & mask(width);
        // `other` relative to `self.start`: [off, off + len), maybe wrapping at `size`.
        let mut pieces = Vec::with_capacity(2);
        let end = off + other.len;
        let mut piece = |a: u64, b: u64| {
            let (a, b) = (a.min(self.len), b.min(self.len));
            if a < b {
                pieces.push((a, b));
            }
        };
        if end <= size {
            piece(off, end);
        } else {
            piece(off, size);
            piece(0, end - size);
        }
        let a = pieces.iter().map(|p| p.0).min()?;
        let b = pieces.iter().map(|p| p.1).max()?;
        Some(Arc {
            start: (self.start + a) & mask(width),
            len: b - a,
        })
    }
}

/// `x + c` as (x, c) when `t` is an input plus a constant.
fn affine(store: &TermStore, t: Term) -> Option<(Term, u64)> {
    match store.node(t) {
        Node::Var { .. } => Some((t, 0)),
        Node::Bin(BinOp::Add, x, k) => match (store.node(x), store.as_const(k)) {
            (Node::Var { .. }, Some(c)) => Some((x, c)),
            _ => None,
        },
        _ => None,
    }
}

/// The arc of values of its input that conjunct `c` allows (a superset), when `c` is
/// an affine comparison with a constant.
fn arc_of(store: &TermStore, c: Term) -> Option<(Term, Arc)> {
    let (inner, negated) = match store.node(c) {
        Node::Not(x) => (x, true),
        _ => (c, false),
    };
    let Node::Bin(op, a, b) = store.node(inner) else {
        return None;
    };
    let (t, k, var_left) = match (store.as_const(a), store.as_const(b)) {
        (None, Some(k)) => (a, k, true),
        (Some(k), None) => (b, k, false),
        _ => return None,
    };
    let (x, off) = affine(store, t)?;
    let w = store.width(x);
    let m = mask(w);
    let size = m + 1;
    let sign = 1u64 << (w - 1);
    // The allowed values of `y = x + off` as an arc, then shifted back by `off`.
    let y_arc = match (op, var_left, negated) {
        (BinOp::Eq, _, false) => Arc { start: k, len: 1 },
        (BinOp::Eq, _, true) => Arc {
            start: (k + 1) & m,
            len: size - 1,
        },
        // y <u k / !(y <u k) = y >=u k / k <u y / !(k <u y) = y <=u k
        (BinOp::Ult, true, false) => Arc { start: 0, len: k },
        (BinOp::Ult, true, true) => Arc {
            start: k,
            len: size - k,
        },
        (BinOp::Ult, false, false) => Arc {
            start: (k + 1) & m,
            len: m - k,
        },
        (BinOp::Ult, false, true) => Arc { start: 0, len: k + 1 },
        // Signed: the same on the circle shifted by the sign bit.
        (BinOp::Slt, true, false) => Arc {
            start: sign,
            len: (k ^ sign),
        },
        (BinOp::Slt, true, true) => Arc {
            start: k,
            len: size - (k ^ sign),
        },
        (BinOp::Slt, false, false) => Arc {
            start: (k + 1) & m,
            len: m - (k ^ sign),
        },
        (BinOp::Slt, false, true) => Arc {
            start: sign,
            len: (k ^ sign) + 1,
        },
        _ => return None,
    };
    Some((
        x,
        Arc {
            start: y_arc.start.wrapping_sub(off) & m,
            len: y_arc.len,
        },
    ))
}

/// The inputs each term mentions, kept across queries: a loop's queries share their
/// long prefixes, whose conjuncts were otherwise walked again for every query (most
/// of a comparison's time on `div7u`; BENCHMARKS.md). Terms never change, so an entry
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
    let mut order: Vec<Term> = alone.keys().copied().filter(|x| !shared.contains(x)).collect();
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
        let satisfies = |v: u64| {
            // A value outside some conjunct's arc is refuted by it (the arc holds
            // every value the conjunct allows); the meet of the arcs is only a
            // superset of their intersection, so this is checked per conjunct.
            if arcs.iter().any(|a| !a.contains(v, width)) {
                return false;
            }
            let mut vars = vec![0u64; store.var_count()];
            if let Some(slot) = vars.get_mut(index as usize) {
                *slot = v;
            }
            // Every conjunct confirmed by the evaluator, the opaque ones first (they
            // refute most candidates).
            let mut ev = Evaluator::new(store, &vars);
            opaque.iter().all(|&i| ev.holds(query[i]))
                && conjuncts.iter().all(|&i| ev.holds(query[i]))
        };
        let found = if arc.len <= MAX_ENUMERATED {
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
    use proptest::prelude::*;

    #[test]
    fn arcs_meet_as_supersets() {
        let a = Arc { start: 10, len: 10 }; // 10..20
        let b = Arc { start: 15, len: 10 }; // 15..25
        assert_eq!(a.meet(b, 32), Some(Arc { start: 15, len: 5 }));
        let c = Arc { start: 30, len: 5 };
        assert_eq!(a.meet(c, 32), None);
        // Wrapping: 0xffff_fffe..0x0000_0002 meets 0..10.
        let w = Arc {
            start: 0xFFFF_FFFE,
            len: 4,
        };
        assert_eq!(w.meet(Arc { start: 0, len: 10 }, 32), Some(Arc { start: 0, len: 2 }));
    }

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

    /// A random affine comparison of `x` with a constant.
    fn comparison() -> impl Strategy<Value = (u8, bool, bool, u32, u32)> {
        let k = prop_oneof![0u32..10, Just(u32::MAX), Just(0x8000_0000), Just(0x7FFF_FFFF), any::<u32>()];
        (0u8..3, any::<bool>(), any::<bool>(), k.clone(), k)
    }

    fn build(s: &mut TermStore, x: Term, (op, var_left, negated, c, k): (u8, bool, bool, u32, u32)) -> Term {
        let c = s.word(c);
        let y = s.bin(BinOp::Add, x, c);
        let k = s.word(k);
        let (a, b) = if var_left { (y, k) } else { (k, y) };
        let t = match op {
            0 => s.eq(a, b),
            1 => s.bin(BinOp::Ult, a, b),
            _ => s.bin(BinOp::Slt, a, b),
        };
        if negated {
            s.not(t)
        } else {
            t
        }
    }

    proptest! {
        /// The arc of a comparison holds every value that satisfies it.
        #[test]
        fn an_arc_holds_every_solution(cmp in comparison(), probes in prop::collection::vec(any::<u32>(), 64)) {
            let mut s = TermStore::new();
            let x = s.new_var("x", 32);
            let t = build(&mut s, x, cmp);
            let Some((_, arc)) = arc_of(&s, t) else { return Ok(()) };
            let inside = |v: u64| (v.wrapping_sub(arc.start) & 0xFFFF_FFFF) < arc.len;
            let (_, _, _, c, k) = cmp;
            let mut tries: Vec<u32> = probes;
            for base in [k, k.wrapping_sub(c)] {
                for d in [0u32, 1, 2, u32::MAX, u32::MAX - 1] {
                    tries.push(base.wrapping_add(d));
                }
            }
            for v in tries {
                if crate::term::eval(&s, &[v as u64], t) == 1 {
                    prop_assert!(inside(v as u64), "{v:#x} satisfies {} but lies outside {arc:?}", s.readable(t));
                }
            }
        }

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
