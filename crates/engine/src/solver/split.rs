//! The splitting link: an input that the query's own conjuncts confine to a few
//! values, but that also occurs beside other inputs, is tried value by value. Each
//! case is the query and `x == v`, which the propagating link after this one
//! substitutes and folds. An array's length is such an input: its domain keeps it at
//! most `--max-len`, a path's loop tests pin it further, and every element is read
//! behind a guard on it (`len >u 3 ? a[3] : 0`). Once the length is a constant the
//! guards fold away and the backend is asked about plain elements: `amax` (the array
//! maximum two ways, docs/benchmarks-history.md) sent hundreds of queries of 30 ms to Z3 that come
//! out far smaller this way.
//!
//! Exact: the cases cover every value `x` can take in a model of the query (the arc
//! is a superset of the values that `x`'s own conjuncts allow, as the unary step
//! computes it), so the query is sat when a case is (with that case's model, which
//! satisfies the query) and unsat when every case is. At the first case left unknown
//! the split is given up and the query is unknown: asking the rest, or the query
//! whole, would cost as much again (Z3's bit-blaster does not stop at the time limit,
//! so such costs add up past the comparison's limit).

use rustc_hash::{FxHashMap, FxHashSet};

use super::unary::InputsCache;
use super::{Answer, Solver};
use crate::term::arc::{arc_of, Arc};
use crate::term::{mask, BinOp, Node, Term, TermStore};

/// The most cases one query is split into.
pub const MAX_CASES: u64 = 64;

/// The largest query (in distinct terms) that is split. Each case rebuilds the terms
/// that mention the input (in the propagating link), and the store keeps every term
/// built; the queries that splitting serves, those of an array program's paths, have
/// hundreds. Queries that multiply or divide two non-constants are not split either:
/// Z3 bit-blasts each case's products anew, and its bit-blaster does not stop at the
/// time limit (an array over the code, whose words may be any instruction, gives such
/// queries; pair 488 of the soundness run's seed 5 took twice as long split).
pub const MAX_SPLIT_TERMS: usize = 2048;

/// Splits queries on an input with few values.
pub struct SplittingSolver<S> {
    inner: S,
    inputs: InputsCache,
    /// Queries split into cases.
    pub split: u64,
    /// Splits given up (unknown) at a case the backend could not decide.
    pub abandoned: u64,
}

impl<S: Solver> SplittingSolver<S> {
    pub fn new(inner: S) -> Self {
        SplittingSolver {
            inner,
            inputs: InputsCache::default(),
            split: 0,
            abandoned: 0,
        }
    }

    /// The input to split on and the arc of its values: among the inputs that occur
    /// both alone and beside others, the one with the fewest values (the first in
    /// the store on a tie), if it has at most [`MAX_CASES`].
    fn pick(&mut self, store: &TermStore, query: &[Term]) -> Option<(Term, Arc)> {
        let mut alone: FxHashMap<Term, Vec<Term>> = FxHashMap::default();
        let mut shared: FxHashSet<Term> = FxHashSet::default();
        for &c in query {
            let vars = self.inputs.inputs(store, c);
            if vars.len() == 1 {
                let x = *vars.iter().next()?;
                alone.entry(x).or_default().push(c);
            } else {
                shared.extend(vars.iter().copied());
            }
        }
        let mut best: Option<(Term, Arc)> = None;
        let mut candidates: Vec<Term> = alone
            .keys()
            .copied()
            .filter(|x| shared.contains(x))
            .collect();
        candidates.sort_unstable();
        for x in candidates {
            let Node::Var { width, .. } = store.node(x) else {
                continue;
            };
            let mut arc = Arc::full(width);
            for &c in &alone[&x] {
                if let Some((_, a)) = arc_of(store, c) {
                    match arc.meet(a, width) {
                        Some(m) => arc = m,
                        // No value at all: one case (any) refutes the query.
                        None => {
                            arc = Arc {
                                start: arc.start,
                                len: 1,
                            }
                        }
                    }
                }
            }
            if arc.len <= MAX_CASES && best.is_none_or(|(_, b)| arc.len < b.len) {
                best = Some((x, arc));
            }
        }
        best
    }
}

/// Whether `roots` reach at most `limit` distinct terms (it stops counting past it)
/// and no product or quotient of two non-constants.
fn worth_splitting(store: &TermStore, roots: &[Term], limit: usize) -> bool {
    let mut seen: FxHashSet<Term> = FxHashSet::default();
    let mut todo: Vec<Term> = roots.to_vec();
    while let Some(t) = todo.pop() {
        if !seen.insert(t) {
            continue;
        }
        if seen.len() > limit {
            return false;
        }
        if let Node::Bin(op, a, b) = store.node(t) {
            let hard = matches!(
                op,
                BinOp::Mul | BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem
            );
            if hard && store.as_const(a).is_none() && store.as_const(b).is_none() {
                return false;
            }
        }
        todo.extend(store.children(t).filter(|c| !seen.contains(c)));
    }
    true
}

impl<S: Solver> Solver for SplittingSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        let query = super::propagate::conjuncts(store, assertions);
        // Most queries have no input to split on, which the cached inputs of their
        // conjuncts tell at once; only the others are walked whole.
        let picked = self
            .pick(store, &query)
            .filter(|_| worth_splitting(store, &query, MAX_SPLIT_TERMS));
        let Some((x, arc)) = picked else {
            return self.inner.check(store, assertions);
        };
        self.split += 1;
        let width = store.width(x);
        let mut case = Vec::with_capacity(assertions.len() + 1);
        for d in 0..arc.len {
            let value = (arc.start + d) & mask(width);
            let k = store.constant(width, value);
            let pinned = store.eq(x, k);
            case.clear();
            case.extend_from_slice(assertions);
            case.push(pinned);
            match self.inner.check(store, &case) {
                Answer::Sat(m) => return Answer::Sat(m),
                Answer::Unsat => {}
                // A case the backend cannot decide: the cases are not easier than
                // the query, and the others (or the query asked whole) would cost as
                // much again. Unknown, as the query alone would most likely be.
                Answer::Unknown(why) => {
                    self.abandoned += 1;
                    return Answer::Unknown(why);
                }
            }
        }
        Answer::Unsat
    }
    pass_on!(
        limit_time,
        limit_work,
        failure,
        describe,
        cache_hits,
        warnings,
        backend_work
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::PropagatingSolver;
    use crate::term::{BinOp, Evaluator};
    use proptest::prelude::*;

    use crate::solver::test_z3 as z3;

    /// A conjunct over a small input `n` (below `bound`) and two others: guarded
    /// reads as an array program makes them, and relations between the others.
    #[derive(Clone, Debug)]
    enum Conj {
        /// `n >u i ? a : 0` compared (`op`) with `b` or a constant.
        Guarded {
            i: u32,
            a: usize,
            b: usize,
            op: u8,
            k: u32,
        },
        /// `n` compared with a constant.
        Small { op: u8, k: u32 },
        /// `a + k <u b` or `a == b`.
        Rel {
            eq: bool,
            a: usize,
            b: usize,
            k: u32,
        },
    }

    fn conj() -> impl Strategy<Value = Conj> {
        let k = || prop_oneof![0u32..6, Just(u32::MAX), Just(0x8000_0000), any::<u32>()];
        prop_oneof![
            3 => (0u32..6, 0usize..2, 0usize..2, 0u8..3, k())
                .prop_map(|(i, a, b, op, k)| Conj::Guarded { i, a, b, op, k }),
            2 => (0u8..3, 0u32..7).prop_map(|(op, k)| Conj::Small { op, k }),
            1 => (any::<bool>(), 0usize..2, 0usize..2, k())
                .prop_map(|(eq, a, b, k)| Conj::Rel { eq, a, b, k }),
        ]
    }

    fn build(s: &mut TermStore, n: Term, others: &[Term], c: &Conj) -> Term {
        match *c {
            Conj::Guarded { i, a, b, op, k } => {
                let i = s.word(i);
                let guard = s.bin(BinOp::Ult, i, n);
                let zero = s.word(0);
                let read = s.ite(guard, others[a], zero);
                let k = s.word(k);
                match op {
                    0 => s.bin(BinOp::Slt, read, others[b]),
                    1 => s.eq(read, k),
                    _ => {
                        let e = s.eq(read, others[b]);
                        s.not(e)
                    }
                }
            }
            Conj::Small { op, k } => {
                let k = s.word(k);
                match op {
                    0 => s.bin(BinOp::Ult, n, k),
                    1 => s.ne(n, k),
                    _ => s.bin(BinOp::Ult, k, n),
                }
            }
            Conj::Rel { eq, a, b, k } => {
                let k = s.word(k);
                let sum = s.bin(BinOp::Add, others[a], k);
                if eq {
                    s.eq(others[a], others[b])
                } else {
                    s.bin(BinOp::Ult, sum, others[b])
                }
            }
        }
    }

    /// The query of `cs` with `n` below `bound` (its domain), as the engines ask it.
    fn query(s: &mut TermStore, cs: &[Conj], bound: u32) -> Vec<Term> {
        let n = s.new_var("len", 32);
        let others: Vec<Term> = (0..2).map(|i| s.new_var(&format!("a[{i}]"), 32)).collect();
        let b = s.word(bound);
        let mut q = vec![s.bin(BinOp::Ult, n, b)];
        q.extend(cs.iter().map(|c| build(s, n, &others, c)));
        q
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        /// Through the link, the answer is the backend's on the query as asked, and a
        /// model satisfies the query as asked.
        #[test]
        fn split_answers_are_answers_to_the_query(
            cs in prop::collection::vec(conj(), 1..7),
            bound in 1u32..12,
        ) {
            let mut s = TermStore::new();
            let q = query(&mut s, &cs, bound);
            let direct = z3().check(&mut s, &q);
            let mut link = SplittingSolver::new(PropagatingSolver::new(z3()));
            let through = link.check(&mut s, &q);
            if let Answer::Sat(m) = &through {
                let mut ev = Evaluator::new(&s, &m.values);
                for &c in &q {
                    prop_assert!(ev.holds(c), "model {:?} of {}", m.values, s.readable(c));
                }
            }
            prop_assert!(!matches!(direct, Answer::Unknown(_)));
            prop_assert!(!matches!(through, Answer::Unknown(_)));
            prop_assert_eq!(direct.name(), through.name());
        }
    }

    /// Counts the queries it is asked and answers unsat unless the last conjunct
    /// pins the length to `sat_at`.
    struct Cases {
        asked: Vec<u64>,
        sat_at: Option<u64>,
        unknown_at: Option<u64>,
    }

    impl Cases {
        fn new(sat_at: Option<u64>, unknown_at: Option<u64>) -> Cases {
            Cases {
                asked: Vec::new(),
                sat_at,
                unknown_at,
            }
        }
    }

    impl Solver for Cases {
        fn check(&mut self, store: &mut TermStore, q: &[Term]) -> Answer {
            let pinned = q.last().and_then(|&c| match store.node(c) {
                Node::Bin(BinOp::Eq, _, k) => store.as_const(k),
                _ => None,
            });
            self.asked.push(pinned.unwrap_or(u64::MAX));
            if pinned.is_some() && pinned == self.unknown_at {
                return Answer::Unknown("hard".into());
            }
            if pinned.is_some() && pinned == self.sat_at {
                let mut values = vec![0; store.var_count()];
                values[0] = pinned.unwrap_or(0);
                Answer::Sat(crate::solver::Model { values })
            } else {
                Answer::Unsat
            }
        }
        fn describe(&self) -> String {
            "cases".into()
        }
    }

    #[test]
    fn every_value_of_the_arc_is_a_case_and_none_past_it() {
        let mut s = TermStore::new();
        let cs = [Conj::Guarded {
            i: 2,
            a: 0,
            b: 1,
            op: 0,
            k: 0,
        }];
        let q = query(&mut s, &cs, 9);
        let mut link = SplittingSolver::new(Cases::new(None, None));
        assert_eq!(link.check(&mut s, &q), Answer::Unsat);
        assert_eq!(
            link.inner.asked,
            (0..9).collect::<Vec<u64>>(),
            "len in 0..9"
        );
        let mut link = SplittingSolver::new(Cases::new(Some(4), None));
        assert!(matches!(link.check(&mut s, &q), Answer::Sat(_)));
        assert_eq!(
            link.inner.asked,
            (0..=4).collect::<Vec<u64>>(),
            "stops at the first sat"
        );
        // A case left unknown: unknown, without asking more.
        let mut link = SplittingSolver::new(Cases::new(Some(4), Some(2)));
        assert!(matches!(link.check(&mut s, &q), Answer::Unknown(_)));
        assert_eq!(link.inner.asked, vec![0, 1, 2]);
        assert_eq!(link.abandoned, 1);
        // Too many values: asked as it is.
        let mut s = TermStore::new();
        let q = query(&mut s, &cs, MAX_CASES as u32 + 1);
        let mut link = SplittingSolver::new(Cases::new(None, None));
        let _ = link.check(&mut s, &q);
        assert_eq!(link.inner.asked, vec![u64::MAX]);
        assert_eq!(link.split, 0);
    }

    #[test]
    fn a_large_query_or_one_with_products_is_not_split() {
        let base = |s: &mut TermStore| {
            let cs = [Conj::Guarded {
                i: 2,
                a: 0,
                b: 1,
                op: 0,
                k: 0,
            }];
            query(s, &cs, 9)
        };
        let asked_once = |s: &mut TermStore, q: &[Term]| {
            let mut link = SplittingSolver::new(Cases::new(None, None));
            let _ = link.check(s, q);
            assert_eq!(link.inner.asked, vec![u64::MAX], "asked once, as it is");
            assert_eq!(link.split, 0);
        };
        // A long chain over fresh inputs: more terms than a split may rebuild.
        let mut s = TermStore::new();
        let mut q = base(&mut s);
        let mut t = s.new_var("b", 32);
        for k in 0..MAX_SPLIT_TERMS {
            let v = s.new_var(&format!("c{k}"), 32);
            t = s.bin(BinOp::BvAnd, t, v);
        }
        let zero = s.word(0);
        q.push(s.ne(t, zero));
        assert!(worth_splitting(&s, &q[..2], MAX_SPLIT_TERMS));
        assert!(!worth_splitting(&s, &q, MAX_SPLIT_TERMS));
        asked_once(&mut s, &q);
        // A product of two inputs.
        let mut s = TermStore::new();
        let mut q = base(&mut s);
        let (b, c) = (s.new_var("b", 32), s.new_var("c", 32));
        let p = s.bin(BinOp::Mul, b, c);
        let zero = s.word(0);
        q.push(s.ne(p, zero));
        asked_once(&mut s, &q);
        // By a constant it is split.
        let mut s = TermStore::new();
        let mut q = base(&mut s);
        let b = s.new_var("b", 32);
        let seven = s.word(7);
        let p = s.bin(BinOp::Mul, b, seven);
        let zero = s.word(0);
        q.push(s.ne(p, zero));
        let mut link = SplittingSolver::new(Cases::new(None, None));
        let _ = link.check(&mut s, &q);
        assert_eq!(link.split, 1);
    }
}
