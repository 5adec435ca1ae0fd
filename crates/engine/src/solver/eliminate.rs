//! Unconstrained-input elimination, a link of the solver chain.
//!
//! When an input `v` occurs in a query only as an operand of one sum or difference
//! `p = v ± e`, then `p` ranges over every value as `v` does, whatever `e` is: the query
//! is satisfiable exactly when it is with `p` replaced by a fresh input `w`, and a
//! model gives `v = w ∓ e`. Programs that jump or branch on `$1 + $2` produce such
//! queries, and bit-blasting the adder makes them many times slower than the rewritten
//! query (see docs/benchmarks-history.md).

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Answer, Model, Solver};
use crate::term::{mask, BinOp, Evaluator, Node, Term, TermStore};

/// How to recover the eliminated input from a model of the rewritten query.
pub struct Recovery {
    var: u32,
    width: u8,
    fresh: Term,
    other: Term,
    /// `p = v + e` (else `p = v - e` when `v_first`, or `p = e - v`).
    op: BinOp,
    v_first: bool,
}

/// Rewrites `query` if one input can be eliminated; returns the query to ask and how
/// to recover a model of the original.
pub fn eliminate(store: &mut TermStore, query: &[Term]) -> (Vec<Term>, Option<Recovery>) {
    eliminate_with(store, query, &mut FxHashMap::default())
}

/// [`eliminate`], taking the fresh input that replaces a sum from `fresh` (sum → input)
/// when an earlier query made one, so equal queries are rewritten to equal queries.
fn eliminate_with(
    store: &mut TermStore,
    query: &[Term],
    fresh: &mut FxHashMap<Term, Term>,
) -> (Vec<Term>, Option<Recovery>) {
    let order = store.reachable(query);
    let mut parents: FxHashMap<Term, Vec<Term>> = FxHashMap::default();
    let mut present: FxHashSet<Term> = FxHashSet::default();
    for &t in &order {
        if matches!(store.node(t), Node::Var { .. }) {
            present.insert(t);
        }
        for c in store.children(t) {
            if matches!(store.node(c), Node::Var { .. }) {
                let ps = parents.entry(c).or_default();
                if ps.last() != Some(&t) {
                    ps.push(t);
                }
            }
        }
    }
    for &t in &order {
        let Node::Var { index, width } = store.node(t) else {
            continue;
        };
        if query.contains(&t) {
            continue;
        }
        let Some(ps) = parents.get(&t) else { continue };
        let [p] = ps.as_slice() else { continue };
        let p = *p;
        let Node::Bin(op @ (BinOp::Add | BinOp::Sub), a, b) = store.node(p) else {
            continue;
        };
        let (v_first, other) = if a == t { (true, b) } else { (false, a) };
        if other == t || store.vars_of(&[other]).contains(&index) {
            continue;
        }
        // The input standing for `p`: the one an earlier query got, unless this query
        // already mentions it (then it is not fresh here).
        let w = match fresh.get(&p) {
            Some(&w) if !present.contains(&w) => w,
            _ => {
                let name = format!("{}'", store.var_name(index));
                let w = store.new_var(&name, width);
                fresh.insert(p, w);
                w
            }
        };
        let rewritten = store.substitute(query, p, w);
        return (
            rewritten,
            Some(Recovery {
                var: index,
                width,
                fresh: w,
                other,
                op,
                v_first,
            }),
        );
    }
    (query.to_vec(), None)
}

impl Recovery {
    /// Turns an answer to the rewritten query into one for the original.
    pub fn recover(&self, store: &TermStore, answer: Answer) -> Answer {
        let Answer::Sat(mut model) = answer else {
            return answer;
        };
        let mut ev = Evaluator::new(store, &model.values);
        let w = ev.eval(self.fresh);
        let e = ev.eval(self.other);
        let v = match (self.op, self.v_first) {
            (BinOp::Add, _) => w.wrapping_sub(e),
            (_, true) => w.wrapping_add(e),
            (_, false) => e.wrapping_sub(w),
        } & mask(self.width);
        let i = self.var as usize;
        if model.values.len() <= i {
            model.values.resize(i + 1, 0);
        }
        model.values[i] = v;
        Answer::Sat(Model {
            values: model.values,
        })
    }
}

/// The elimination as a link: rewrites each query, asks the rewritten one, and maps a
/// model back to the original's inputs. Unsat and unknown answers pass unchanged (the
/// rewritten query is satisfiable exactly when the original is).
pub struct EliminatingSolver<S> {
    inner: S,
    /// The input that replaced each sum so far.
    fresh: FxHashMap<Term, Term>,
}

impl<S: Solver> EliminatingSolver<S> {
    pub fn new(inner: S) -> Self {
        EliminatingSolver {
            inner,
            fresh: FxHashMap::default(),
        }
    }
}

impl<S: Solver> Solver for EliminatingSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        let (rewritten, recovery) = eliminate_with(store, assertions, &mut self.fresh);
        let answer = self.inner.check(store, &rewritten);
        match recovery {
            Some(r) => r.recover(store, answer),
            None => answer,
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
    use crate::term::eval;

    /// `$1 + $2 == 16`: a store, the sum and the query.
    fn sum_query() -> (TermStore, Term, Vec<Term>) {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let sum = s.bin(BinOp::Add, x, y);
        let k = s.word(16);
        let q = vec![s.eq(sum, k)];
        (s, sum, q)
    }

    #[test]
    fn a_sum_of_two_inputs_becomes_one_input() {
        let (mut s, _, q) = sum_query();
        let (r, rec) = eliminate(&mut s, &q);
        let rec = rec.expect("eliminated");
        assert_ne!(r, q);
        assert!(!s.vars_of(&r).contains(&0));
        // A model of the rewritten query: $1' = 16, $2 = 5.
        let mut values = vec![0, 5];
        values.resize(s.var_count(), 0);
        values[2] = 16;
        let Answer::Sat(m) = rec.recover(&s, Answer::Sat(Model { values })) else {
            panic!("sat");
        };
        assert_eq!(eval(&s, &m.values, q[0]), 1);
    }

    #[test]
    fn a_constrained_input_stays() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let sum = s.bin(BinOp::Add, x, y);
        let k = s.word(16);
        let c1 = s.eq(sum, k);
        let c2 = s.ne(x, y);
        let c3 = s.bin(BinOp::Slt, y, k);
        let (r, rec) = eliminate(&mut s, &[c1, c2, c3]);
        assert!(rec.is_none());
        assert_eq!(r, vec![c1, c2, c3]);
    }

    /// Answers every query the same way, and remembers the last one.
    struct Fixed {
        answer: Answer,
        last: Vec<Term>,
    }

    impl Solver for Fixed {
        fn check(&mut self, _: &mut TermStore, assertions: &[Term]) -> Answer {
            self.last = assertions.to_vec();
            self.answer.clone()
        }
        fn describe(&self) -> String {
            "fixed".into()
        }
    }

    /// Z3, remembering the last query it was asked.
    struct Z3Seen {
        z3: crate::solver::Z3Solver,
        last: Vec<Term>,
    }

    impl Z3Seen {
        fn new() -> Z3Seen {
            Z3Seen {
                z3: crate::solver::Z3Solver::new(
                    crate::solver::Z3Mode::Fresh,
                    std::time::Duration::from_secs(5),
                ),
                last: Vec::new(),
            }
        }
    }

    impl Solver for Z3Seen {
        fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
            self.last = assertions.to_vec();
            self.z3.check(store, assertions)
        }
        fn describe(&self) -> String {
            "z3".into()
        }
    }

    #[test]
    fn the_link_rewrites_and_answers_for_the_original() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let sum = s.bin(BinOp::Sub, y, x);
        let k = s.word(16);
        let big = s.word(1000);
        let q = vec![s.eq(sum, k), s.bin(BinOp::Ult, big, y)];
        let mut link = EliminatingSolver::new(Z3Seen::new());
        let Answer::Sat(m) = link.check(&mut s, &q) else {
            panic!("sat");
        };
        assert!(!s.vars_of(&link.inner.last).contains(&0), "$1 is gone");
        let mut ev = Evaluator::new(&s, &m.values);
        assert!(q.iter().all(|&c| ev.holds(c)), "{:?}", m.values);
        // The same query is rewritten to the same query (caches behind can hit).
        let first = link.inner.last.clone();
        let vars = s.var_count();
        link.check(&mut s, &q);
        assert_eq!(link.inner.last, first);
        assert_eq!(s.var_count(), vars, "no new input for the same sum");
        // Unsat and unknown answers pass unchanged.
        for answer in [Answer::Unsat, Answer::Unknown("timeout".into())] {
            let mut link = EliminatingSolver::new(Fixed {
                answer: answer.clone(),
                last: Vec::new(),
            });
            assert_eq!(link.check(&mut s, &q), answer);
            assert_ne!(link.inner.last, q, "it was rewritten");
        }
    }

    #[test]
    fn a_fresh_input_the_query_already_mentions_is_not_reused() {
        let (mut s, sum, q) = sum_query();
        let k = s.word(16);
        let mut fresh = FxHashMap::default();
        let (r, _) = eliminate_with(&mut s, &q, &mut fresh);
        let w = fresh[&sum];
        // A query over the sum and the input that replaced it last time.
        let other = s.bin(BinOp::Ult, w, k);
        let q2 = vec![q[0], other];
        let (r2, rec) = eliminate_with(&mut s, &q2, &mut fresh);
        assert!(rec.is_some());
        assert_ne!(r2[0], r[0], "another fresh input");
        assert_eq!(r2[1], other);
    }

    /// One step of building the rest of a query, over the inputs other than `$1`.
    #[derive(Clone, Debug)]
    enum Step {
        Const(u64),
        Bin(usize, usize, usize),
        Ite(usize, usize, usize),
        Cmp(usize, usize, usize),
        Not(usize),
    }

    const OPS: [BinOp; 5] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::BvAnd,
        BinOp::URem,
    ];
    const CMPS: [BinOp; 3] = [BinOp::Eq, BinOp::Ult, BinOp::Slt];

    fn step() -> impl Strategy<Value = Step> {
        let ix = || 0usize..32;
        prop_oneof![
            1 => prop_oneof![any::<u64>(), 0u64..8].prop_map(Step::Const),
            3 => (0..OPS.len(), ix(), ix()).prop_map(|(o, a, b)| Step::Bin(o, a, b)),
            1 => (ix(), ix(), ix()).prop_map(|(c, a, b)| Step::Ite(c, a, b)),
            2 => (0..CMPS.len(), ix(), ix()).prop_map(|(o, a, b)| Step::Cmp(o, a, b)),
            1 => ix().prop_map(Step::Not),
        ]
    }

    use proptest::prelude::*;

    /// A query in which `$1` occurs only in the sum `p` (`$1 + e`, `$1 - e` or
    /// `e - $1`, by `shape`), `p` compared with the other terms by `uses`, plus
    /// `extra` conditions over the other inputs alone.
    fn build(
        width: u8,
        steps: &[Step],
        shape: u8,
        e: usize,
        uses: &[(usize, usize)],
        extra: &[usize],
    ) -> (TermStore, Vec<Term>) {
        let mut s = TermStore::new();
        let x = s.new_var("$1", width);
        let mut words = vec![s.new_var("$2", width), s.new_var("$3", width)];
        words.push(s.constant(width, 1));
        let mut bools: Vec<Term> = Vec::new();
        for st in steps {
            let w = |i: usize| words[i % words.len()];
            match *st {
                Step::Const(k) => {
                    let t = s.constant(width, k);
                    words.push(t);
                }
                Step::Bin(o, a, b) => {
                    let t = s.bin(OPS[o], w(a), w(b));
                    words.push(t);
                }
                Step::Ite(c, a, b) if !bools.is_empty() => {
                    let t = s.ite(bools[c % bools.len()], w(a), w(b));
                    words.push(t);
                }
                Step::Cmp(o, a, b) => {
                    let t = s.bin(CMPS[o], w(a), w(b));
                    bools.push(t);
                }
                Step::Not(b) if !bools.is_empty() => {
                    let t = s.not(bools[b % bools.len()]);
                    bools.push(t);
                }
                Step::Ite(..) | Step::Not(_) => {}
            }
        }
        let e = words[e % words.len()];
        let p = match shape % 3 {
            0 => s.bin(BinOp::Add, x, e),
            1 => s.bin(BinOp::Sub, x, e),
            _ => s.bin(BinOp::Sub, e, x),
        };
        let mut query = Vec::new();
        for &(o, j) in uses {
            let t = s.bin(CMPS[o % CMPS.len()], p, words[j % words.len()]);
            query.push(t);
        }
        for &b in extra {
            if !bools.is_empty() {
                query.push(bools[b % bools.len()]);
            }
        }
        (s, query)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Through the link, a model satisfies the original query under the
        /// evaluator, and the answer is the one Z3 gives on the original.
        #[test]
        fn the_links_answers_are_answers_to_the_original(
            width in prop_oneof![Just(8u8), Just(32u8)],
            steps in proptest::collection::vec(step(), 0..16),
            shape in 0u8..3,
            e in 0usize..32,
            uses in proptest::collection::vec((0usize..3, 0usize..32), 1..4),
            extra in proptest::collection::vec(0usize..32, 0..3),
        ) {
            let (mut s, query) = build(width, &steps, shape, e, &uses, &extra);
            let direct = Z3Seen::new().check(&mut s, &query);
            let mut link = EliminatingSolver::new(Z3Seen::new());
            let through = link.check(&mut s, &query);
            if let Answer::Sat(m) = &through {
                let mut ev = Evaluator::new(&s, &m.values);
                for &c in &query {
                    prop_assert!(ev.holds(c), "model {:?} of {:?}", m.values, query);
                }
                prop_assert!(
                    m.values[0] <= crate::term::mask(width),
                    "the input's value fits its width"
                );
            }
            if !matches!(direct, Answer::Unknown(_)) && !matches!(through, Answer::Unknown(_)) {
                prop_assert_eq!(direct.name(), through.name());
            }
        }
    }
}
