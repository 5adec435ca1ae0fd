//! Path prefixes summarised once per tree node, so that a query about a node deep in
//! a loop costs what its loop's state costs, not what its path's length costs.
//!
//! A loop whose trip count is an input leaves one exit test per trip on every path
//! (`n != 1`, `n != 2`, …): asked as written, each of the n paths' queries carries its
//! whole prefix, and enumerating the loop costs O(n²) work in the solver chain. Here
//! each node's summary is computed once, from its parent's and the one condition on
//! the edge between them:
//! - an affine comparison of one input with a constant narrows that input's arc when
//!   the common values are again one arc (they are exactly the values the prefix's
//!   comparisons of that input allow);
//! - a condition whose every input the arcs have pinned to one value is evaluated
//!   (true: implied by those values and dropped; false: the prefix is infeasible);
//! - anything else is kept as written.
//!
//! The summary's conjuncts (one per narrowed arc, then what was kept, in path order)
//! allow exactly the inputs that the prefix's conditions allow: models and
//! unsatisfiability carry over unchanged, and the property test below checks this
//! against the evaluator.

use rustc_hash::FxHashMap;

use super::tree::{NodeId, PathTree};
use crate::term::arc::{arc_of, Arc, Meet};
use crate::term::{Evaluator, Node, Term, TermStore};

/// A prefix in summary form.
#[derive(Clone, Debug)]
struct Summary {
    /// The inputs' arcs, by input, for inputs some comparison narrowed.
    arcs: std::rc::Rc<Vec<(Term, Arc)>>,
    /// The last condition kept as written, as an index into [`Summaries::kept`].
    kept: Option<u32>,
    /// A condition is false wherever the earlier ones hold.
    infeasible: bool,
}

/// The summaries of one path tree's nodes, computed on demand.
#[derive(Default)]
pub struct Summaries {
    nodes: Vec<Option<Summary>>,
    /// Conditions kept as written: (condition, the one kept before it on its path).
    kept: Vec<(Term, Option<u32>)>,
    /// Summary steps taken (one per node summarised), for tests.
    steps: u64,
}

impl Summaries {
    /// The conjuncts equivalent to the conditions from the root to `id`, or `None`
    /// when they cannot all hold.
    pub fn conjuncts(
        &mut self,
        store: &mut TermStore,
        tree: &PathTree,
        id: NodeId,
    ) -> Option<Vec<Term>> {
        let s = self.summary(store, tree, id);
        if s.infeasible {
            return None;
        }
        let mut out: Vec<Term> = s.arcs.iter().map(|&(x, a)| a.as_term(store, x)).collect();
        let mut kept = Vec::new();
        let mut at = s.kept;
        while let Some(i) = at {
            let (c, prev) = self.kept[i as usize];
            kept.push(c);
            at = prev;
        }
        kept.reverse();
        out.extend(kept);
        Some(out)
    }

    /// Whether the prefixes of `a` (in this tree) and `b` (in `other`'s) pin some
    /// input to arcs with no value in common, so that no input takes both paths.
    pub fn exclusive(
        &mut self,
        store: &mut TermStore,
        tree: &PathTree,
        a: NodeId,
        other: &mut Summaries,
        other_tree: &PathTree,
        b: NodeId,
    ) -> bool {
        let sa = self.summary(store, tree, a);
        let sb = other.summary(store, other_tree, b);
        if sa.infeasible || sb.infeasible {
            return true;
        }
        sa.arcs.iter().any(|&(x, arc)| {
            sb.arcs
                .iter()
                .find(|&&(y, _)| y == x)
                .is_some_and(|&(_, other)| arc.intersect(other, store.width(x)) == Meet::Empty)
        })
    }

    /// Summary steps taken so far.
    #[cfg(test)]
    pub fn steps(&self) -> u64 {
        self.steps
    }

    fn summary(&mut self, store: &mut TermStore, tree: &PathTree, id: NodeId) -> Summary {
        if self.nodes.len() < tree.len() {
            self.nodes.resize(tree.len(), None);
        }
        // The nodes from `id` up to the nearest one summarised (or the root),
        // summarised downward: iterative, as paths may be thousands deep.
        let mut chain = Vec::new();
        let mut at = Some(id);
        let mut base = None;
        while let Some(n) = at {
            if let Some(s) = &self.nodes[n] {
                base = Some(s.clone());
                break;
            }
            chain.push(n);
            at = tree.node(n).parent;
        }
        let mut s = base.unwrap_or(Summary {
            arcs: std::rc::Rc::new(Vec::new()),
            kept: None,
            infeasible: false,
        });
        while let Some(n) = chain.pop() {
            if let Some(c) = tree.node(n).cond {
                s = self.step(store, s, c);
            }
            self.nodes[n] = Some(s.clone());
        }
        s
    }

    /// The summary of a prefix followed by `c`.
    fn step(&mut self, store: &TermStore, mut s: Summary, c: Term) -> Summary {
        self.steps += 1;
        if s.infeasible {
            return s;
        }
        match store.as_const(c) {
            Some(0) => {
                s.infeasible = true;
                return s;
            }
            Some(_) => return s,
            None => {}
        }
        if let Some((x, arc)) = arc_of(store, c) {
            let w = store.width(x);
            let at = s.arcs.iter().position(|&(y, _)| y == x);
            let current = at.map_or(Arc::full(w), |i| s.arcs[i].1);
            match current.intersect(arc, w) {
                Meet::Empty => {
                    s.infeasible = true;
                    return s;
                }
                Meet::One(narrowed) => {
                    let arcs = std::rc::Rc::make_mut(&mut s.arcs);
                    match at {
                        Some(i) => arcs[i].1 = narrowed,
                        None => {
                            arcs.push((x, narrowed));
                            arcs.sort_unstable_by_key(|&(y, _)| y);
                        }
                    }
                    return s;
                }
                Meet::Two => {}
            }
        }
        if let Some(holds) = self.decided_by_pinned(store, &s, c) {
            if !holds {
                s.infeasible = true;
            }
            return s;
        }
        self.kept.push((c, s.kept));
        s.kept = Some((self.kept.len() - 1) as u32);
        s
    }

    /// The value of `c` when the arcs pin every input it mentions.
    fn decided_by_pinned(&self, store: &TermStore, s: &Summary, c: Term) -> Option<bool> {
        let pinned: FxHashMap<Term, u64> = s
            .arcs
            .iter()
            .filter(|(_, a)| a.len == 1)
            .map(|&(x, a)| (x, a.start))
            .collect();
        if pinned.is_empty() {
            return None;
        }
        let mut values = vec![0u64; store.var_count()];
        for t in store.reachable(&[c]) {
            if let Node::Var { index, .. } = store.node(t) {
                let v = pinned.get(&t)?;
                if let Some(slot) = values.get_mut(index as usize) {
                    *slot = *v;
                }
            }
        }
        Some(Evaluator::new(store, &values).holds(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::arc::testing::{build, comparison, probes_near};
    use crate::term::BinOp;
    use proptest::prelude::*;

    /// A loop's exit tests, `n >= 1` then `n != 1, …, n != k - 1`, then `n == k`: the
    /// summary is one arc, narrowed once per node, and pins `n` at the end.
    #[test]
    fn a_countdown_prefix_is_one_arc() {
        let mut s = TermStore::new();
        let n = s.new_var("n", 32);
        let one = s.word(1);
        let below = s.bin(BinOp::Slt, n, one);
        let mut conds = vec![s.not(below)];
        for j in 1..500u32 {
            let k = s.word(j);
            conds.push(s.ne(n, k));
        }
        let k = s.word(500);
        conds.push(s.eq(n, k));
        let mut tree = PathTree::default();
        let (along, _) = tree.insert(&conds);
        let mut sums = Summaries::default();
        let leaf = *along.last().unwrap();
        let q = sums.conjuncts(&mut s, &tree, leaf).unwrap();
        let pinned = s.eq(n, k);
        assert_eq!(q, vec![pinned]);
        assert_eq!(sums.steps(), 501, "one step per node");
        // Asking again, or about a node on the way, takes no new step.
        sums.conjuncts(&mut s, &tree, along[250]).unwrap();
        assert_eq!(sums.steps(), 501);
        let mid = sums.conjuncts(&mut s, &tree, along[250]).unwrap();
        assert_eq!(mid.len(), 1, "n in 250..=2^31-1 as one arc: {mid:?}");
    }

    /// A condition on pinned inputs is evaluated: dropped when true, and the prefix is
    /// infeasible when false.
    #[test]
    fn conditions_on_pinned_inputs_are_evaluated() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let y = s.new_var("y", 32);
        let (k3, k9) = (s.word(3), s.word(9));
        let (xe, ye) = (s.eq(x, k3), s.eq(y, k9));
        let prod = s.bin(BinOp::Mul, x, y);
        let k27 = s.word(27);
        let holds = s.eq(prod, k27);
        let fails = s.not(holds);
        let mut tree = PathTree::default();
        let (ok, _) = tree.insert(&[xe, ye, holds]);
        let (bad, _) = tree.insert(&[xe, ye, fails]);
        let mut sums = Summaries::default();
        assert_eq!(sums.conjuncts(&mut s, &tree, *ok.last().unwrap()), Some(vec![xe, ye]));
        assert_eq!(sums.conjuncts(&mut s, &tree, *bad.last().unwrap()), None);
    }

    fn two_input_condition(s: &mut TermStore, x: Term, y: Term, k: u32) -> Term {
        let sum = s.bin(BinOp::Add, x, y);
        let k = s.word(k);
        s.bin(BinOp::Ult, sum, k)
    }

    proptest! {
        /// A summary allows exactly the inputs that its prefix's conditions allow.
        #[test]
        fn a_summary_means_its_prefix(
            conds in prop::collection::vec((comparison(), any::<bool>(), 0u8..6, any::<u32>()), 1..12),
            probes in prop::collection::vec((any::<u32>(), any::<u32>()), 48),
        ) {
            let mut s = TermStore::new();
            let x = s.new_var("x", 32);
            let y = s.new_var("y", 32);
            let mut terms = Vec::new();
            let mut near = Vec::new();
            for &(cmp, on_y, kind, k) in &conds {
                terms.push(match kind {
                    0 => two_input_condition(&mut s, x, y, k),
                    _ => build(&mut s, if on_y { y } else { x }, cmp),
                });
                near = probes_near(cmp.3, cmp.4, near);
            }
            let mut tree = PathTree::default();
            let (along, _) = tree.insert(&terms);
            let mut sums = Summaries::default();
            let mut points: Vec<(u32, u32)> = probes;
            for (i, &v) in near.iter().enumerate() {
                points.push((v, near[(i * 7 + 3) % near.len()]));
                points.push((v, v));
            }
            for (depth, &node) in along.iter().enumerate() {
                let summary = sums.conjuncts(&mut s, &tree, node);
                for &(a, b) in &points {
                    let vals = [a as u64, b as u64];
                    let prefix = terms[..depth].iter().all(|&t| crate::term::eval(&s, &vals, t) == 1);
                    let summarised = summary
                        .as_ref()
                        .is_some_and(|q| q.iter().all(|&t| crate::term::eval(&s, &vals, t) == 1));
                    prop_assert_eq!(prefix, summarised, "depth {} at ({:#x}, {:#x}): {:?}", depth, a, b, summary);
                }
            }
        }
    }
}
