//! Unconstrained-input elimination, a query rewrite in front of the solver chain.
//!
//! When an input `v` occurs in a query only as an operand of one sum or difference
//! `p = v ± e`, then `p` ranges over every value as `v` does, whatever `e` is: the query
//! is satisfiable exactly when it is with `p` replaced by a fresh input `w`, and a
//! model gives `v = w ∓ e`. Programs that jump or branch on `$1 + $2` produce such
//! queries, and bit-blasting the adder makes them many times slower than the rewritten
//! query (see BENCHMARKS.md).

use rustc_hash::FxHashMap;

use super::{Answer, Model};
use crate::term::{BinOp, Evaluator, Node, Term, TermStore};

/// How to recover the eliminated input from a model of the rewritten query.
pub struct Recovery {
    var: u32,
    fresh: Term,
    other: Term,
    /// `p = v + e` (else `p = v - e` when `v_first`, or `p = e - v`).
    op: BinOp,
    v_first: bool,
}

/// Rewrites `query` if one input can be eliminated; returns the query to ask and how
/// to recover a model of the original.
pub fn eliminate(store: &mut TermStore, query: &[Term]) -> (Vec<Term>, Option<Recovery>) {
    let order = store.reachable(query);
    let mut parents: FxHashMap<Term, Vec<Term>> = FxHashMap::default();
    for &t in &order {
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
        let Node::Bin(op @ (BinOp::Add | BinOp::Sub), a, b) = store.node(*p) else {
            continue;
        };
        let (v_first, other) = if a == t { (true, b) } else { (false, a) };
        if other == t || store.vars_of(&[other]).contains(&index) {
            continue;
        }
        let name = format!("{}'", store.var_name(index));
        let fresh = store.new_var(&name, width);
        let rewritten = store.substitute(query, *p, fresh);
        return (
            rewritten,
            Some(Recovery {
                var: index,
                fresh,
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
        } & 0xFFFF_FFFF;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::eval;

    #[test]
    fn a_sum_of_two_inputs_becomes_one_input() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let sum = s.bin(BinOp::Add, x, y);
        let k = s.word(16);
        let q = vec![s.eq(sum, k)];
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
}
