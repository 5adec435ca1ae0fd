//! The propagating link: an input that a query fixes (a conjunct `x == k`) is replaced
//! by `k` in the other conjuncts, which the term store then folds. A path that pins
//! its inputs (a loop whose exit fixes its trip count, a branch on `x == 3`) makes the
//! rest of its queries constants, decided here without the backend; the rest reaches
//! the backend smaller. This is the simplification that asserted formulas get from a
//! solver's preprocessing and that assumptions, which the in-process Z3 uses, do not.
//!
//! Exact: replacing `x` by `k` under the conjunct `x == k` changes no conjunct's value
//! on any model of the query, and the equalities stay in what is asked, so every model
//! the backend gives satisfies the query as asked. A query whose conjuncts all fold to
//! true but the equalities is satisfiable, with the fixed values and 0 elsewhere.

use rustc_hash::FxHashMap;

use super::unary::{self, Unary};
use super::{Answer, Model, Solver};
use crate::term::{BinOp, Evaluator, Node, Term, TermStore};

/// The most rounds of substitution (each may fix more inputs).
const MAX_ROUNDS: usize = 4;

/// Propagates fixed inputs into every query.
pub struct PropagatingSolver<S> {
    inner: S,
    /// Queries decided here, without the backend.
    pub decided: u64,
    /// The inputs of every conjunct seen (for the unary step).
    inputs: unary::InputsCache,
}

impl<S: Solver> PropagatingSolver<S> {
    pub fn new(inner: S) -> Self {
        PropagatingSolver {
            inner,
            decided: 0,
            inputs: unary::InputsCache::default(),
        }
    }
}

/// The conjuncts of `assertions`, with nested `and`s opened.
pub(super) fn conjuncts(store: &TermStore, assertions: &[Term]) -> Vec<Term> {
    let mut out = Vec::with_capacity(assertions.len());
    let mut todo: Vec<Term> = assertions.iter().rev().copied().collect();
    while let Some(t) = todo.pop() {
        match store.node(t) {
            Node::Bin(BinOp::And, a, b) => {
                todo.push(b);
                todo.push(a);
            }
            _ => out.push(t),
        }
    }
    out
}

/// The input and value a conjunct `x == k` fixes.
fn fixes(store: &TermStore, c: Term) -> Option<(Term, u32, u64)> {
    let Node::Bin(BinOp::Eq, x, k) = store.node(c) else {
        return None;
    };
    let (Node::Var { index, .. }, Some(v)) = (store.node(x), store.as_const(k)) else {
        return None;
    };
    Some((x, index, v))
}

impl<S: Solver> Solver for PropagatingSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        let mut query = conjuncts(store, assertions);
        // input -> (index, value, the equality that fixed it)
        let mut fixed: FxHashMap<Term, (u32, u64, Term)> = FxHashMap::default();
        for _ in 0..MAX_ROUNDS {
            let mut new: FxHashMap<Term, Term> = FxHashMap::default();
            for &c in &query {
                if let Some((x, index, v)) = fixes(store, c) {
                    match fixed.get(&x) {
                        Some(&(_, w, _)) if w != v => {
                            self.decided += 1;
                            return Answer::Unsat;
                        }
                        Some(_) => {}
                        None => {
                            fixed.insert(x, (index, v, c));
                            let k = store.constant(store.width(x), v);
                            new.insert(x, k);
                        }
                    }
                }
            }
            if new.is_empty() {
                break;
            }
            let rest: Vec<Term> = query
                .iter()
                .copied()
                .filter(|&c| fixes(store, c).is_none())
                .collect();
            // A conjunct whose every input is fixed now is evaluated rather than
            // rebuilt: the same constant as substituting and folding (the evaluator
            // is the reference semantics), without interning a copy of a term that
            // may be large (a loop's running sum; most of `sumfuel`'s time).
            let mut values = vec![0u64; store.var_count()];
            for &(index, v, _) in fixed.values() {
                if let Some(slot) = values.get_mut(index as usize) {
                    *slot = v;
                }
            }
            let mut ev = Evaluator::new(store, &values);
            let mut open = Vec::with_capacity(rest.len());
            for c in rest {
                if self
                    .inputs
                    .inputs(store, c)
                    .iter()
                    .all(|x| fixed.contains_key(x))
                {
                    if !ev.holds(c) {
                        self.decided += 1;
                        return Answer::Unsat;
                    }
                } else {
                    open.push(c);
                }
            }
            let rewritten = store.substitute_all(&open, new);
            query = conjuncts(store, &rewritten);
            if query.iter().any(|&c| store.as_const(c) == Some(0)) {
                self.decided += 1;
                return Answer::Unsat;
            }
            query.retain(|&c| store.as_const(c) != Some(1));
            // Equalities fixed in an earlier round stay out of `query`; they come
            // back below.
        }
        let (solved, rest) = match unary::solve(store, &query, &mut self.inputs) {
            Unary::Unsat => {
                self.decided += 1;
                return Answer::Unsat;
            }
            Unary::Solved { values, rest } => (values, rest),
        };
        if fixed.is_empty() && solved.is_empty() {
            return self.inner.check(store, assertions);
        }
        let decided_here: Vec<(u32, u64)> = fixed
            .values()
            .map(|&(index, v, _)| (index, v))
            .chain(solved.iter().copied())
            .collect();
        let with = |mut m: Model| {
            for &(index, v) in &decided_here {
                if let Some(slot) = m.values.get_mut(index as usize) {
                    *slot = v;
                }
            }
            m
        };
        if rest.is_empty() {
            self.decided += 1;
            let values = vec![0u64; store.var_count()];
            return Answer::Sat(with(Model { values }));
        }
        // What is left mentions none of the inputs decided here by their own
        // conjuncts; the fixed ones stay asked, so the backend agrees with them.
        let mut query = rest;
        let mut equalities: Vec<(u32, Term)> = fixed.values().map(|&(i, _, c)| (i, c)).collect();
        equalities.sort_unstable();
        query.extend(equalities.into_iter().map(|(_, c)| c));
        match self.inner.check(store, &query) {
            Answer::Sat(m) => Answer::Sat(with(m)),
            other => other,
        }
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
    use crate::term::Evaluator;
    use proptest::prelude::*;

    use crate::solver::test_z3 as z3;

    /// A random conjunct over three inputs: fixes one, or relates two.
    #[derive(Clone, Debug)]
    enum Conj {
        Fix(usize, u32),
        Rel { op: u8, a: usize, b: usize, k: u32 },
    }

    fn conj() -> impl Strategy<Value = Conj> {
        let small = prop_oneof![0u32..4, Just(u32::MAX), any::<u32>()];
        prop_oneof![
            (0usize..3, small.clone()).prop_map(|(i, k)| Conj::Fix(i, k)),
            (0u8..5, 0usize..3, 0usize..3, small).prop_map(|(op, a, b, k)| Conj::Rel {
                op,
                a,
                b,
                k
            }),
        ]
    }

    fn build(s: &mut TermStore, vars: &[Term], c: &Conj) -> Term {
        match *c {
            Conj::Fix(i, k) => {
                let k = s.word(k);
                s.eq(vars[i], k)
            }
            Conj::Rel { op, a, b, k } => {
                let k = s.word(k);
                let sum = s.bin(BinOp::Add, vars[a], k);
                match op {
                    0 => s.eq(sum, vars[b]),
                    1 => s.bin(BinOp::Ult, sum, vars[b]),
                    2 => {
                        let p = s.bin(BinOp::Mul, vars[a], vars[b]);
                        s.eq(p, k)
                    }
                    3 => {
                        let e = s.eq(vars[a], k);
                        s.not(e)
                    }
                    _ => {
                        let x = s.eq(sum, vars[b]);
                        let y = s.bin(BinOp::Slt, vars[b], k);
                        s.and(x, y)
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        /// Through the link, the answer is the backend's on the query as asked, and a
        /// model satisfies the query as asked.
        #[test]
        fn the_links_answers_are_answers_to_the_query(cs in prop::collection::vec(conj(), 1..7)) {
            let mut s = TermStore::new();
            let vars: Vec<Term> = (0..3).map(|i| s.new_var(&format!("x{i}"), 32)).collect();
            let query: Vec<Term> = cs.iter().map(|c| build(&mut s, &vars, c)).collect();
            let direct = z3().check(&mut s, &query);
            let mut link = PropagatingSolver::new(z3());
            let through = link.check(&mut s, &query);
            if let Answer::Sat(m) = &through {
                let mut ev = Evaluator::new(&s, &m.values);
                for &c in &query {
                    prop_assert!(ev.holds(c), "model {:?} of {}", m.values, s.readable(c));
                }
            }
            if !matches!(direct, Answer::Unknown(_)) && !matches!(through, Answer::Unknown(_)) {
                prop_assert_eq!(direct.name(), through.name());
            }
        }
    }

    /// Answers without asking.
    struct Refuse;

    impl Solver for Refuse {
        fn check(&mut self, _: &mut TermStore, _: &[Term]) -> Answer {
            Answer::Unknown("asked".into())
        }
        fn describe(&self) -> String {
            "refuse".into()
        }
    }

    #[test]
    fn a_pinned_loop_exit_decides_the_query_without_the_backend() {
        // n == 5 ∧ n + 4 + 3 + 2 + 1 != 5 * 3 (the loop's sum against a closed form)
        let mut s = TermStore::new();
        let n = s.new_var("n", 32);
        let five = s.word(5);
        let pinned = s.eq(n, five);
        let mut sum = n;
        for k in 1..5u32 {
            let minus = s.word(k.wrapping_neg());
            let term = s.bin(BinOp::Add, n, minus);
            sum = s.bin(BinOp::Add, sum, term);
        }
        let three = s.word(3);
        let closed = s.bin(BinOp::Mul, n, three);
        let differ = s.ne(sum, closed);
        let mut link = PropagatingSolver::new(Refuse);
        assert_eq!(link.check(&mut s, &[pinned, differ]), Answer::Unsat);
        let same = s.eq(sum, closed);
        let Answer::Sat(m) = link.check(&mut s, &[pinned, same]) else {
            panic!("decided sat without the backend");
        };
        assert_eq!(m.values, vec![5]);
        assert_eq!(link.decided, 2);
        let six = s.word(6);
        let other = s.eq(n, six);
        assert_eq!(link.check(&mut s, &[pinned, other]), Answer::Unsat);
    }
}
