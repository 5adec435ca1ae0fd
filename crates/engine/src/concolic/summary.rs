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
//! - a condition on one input whose arc is small (at most [`MAX_ENUMERATED`] values,
//!   such as an array's length) is evaluated at each of them, and narrows the arc when
//!   the values that satisfy it are again one arc (`len * 4 == 8` pins `len` to 2);
//! - a condition whose every input the arcs have pinned to one value is evaluated
//!   (true: implied by those values and dropped; false: the prefix is infeasible);
//! - anything else is kept as written.
//!
//! The root's summary starts from the inputs' domain (an array's length bound), which
//! every query carries anyway. The summary's conjuncts (one per narrowed arc, then
//! what was kept, in path order) allow exactly the inputs that the domain and the
//! prefix's conditions allow: models and unsatisfiability carry over unchanged, and
//! the property test below checks this against the evaluator.

use rustc_hash::FxHashMap;

use super::tree::{NodeId, PathTree};
use crate::term::arc::{arc_of, Arc, Meet};
use crate::term::{mask, Evaluator, Node, Term, TermStore};

/// The most values of an input's arc that a condition is evaluated at.
pub const MAX_ENUMERATED: u64 = 256;

/// A prefix in summary form.
#[derive(Clone, Debug)]
struct Summary {
    /// The inputs' arcs, by input, for inputs some comparison narrowed.
    arcs: std::sync::Arc<Vec<(Term, Arc)>>,
    /// The last condition kept as written, as an index into [`Summaries::kept`].
    kept: Option<u32>,
    /// A condition is false wherever the earlier ones hold.
    infeasible: bool,
}

/// The summaries of one path tree's nodes, computed on demand.
pub struct Summaries {
    nodes: Vec<Option<Summary>>,
    /// Conditions kept as written: (condition, the one kept before it on its path).
    kept: Vec<(Term, Option<u32>)>,
    /// Summary steps taken (one per node summarised), for tests.
    steps: u64,
    /// What the root stands for: the inputs' domain.
    domain: Vec<Term>,
}

impl Summaries {
    /// Summaries of a tree whose inputs range over `domain` (conjuncts every query
    /// carries).
    pub fn new(domain: Vec<Term>) -> Summaries {
        Summaries {
            nodes: Vec::new(),
            kept: Vec::new(),
            steps: 0,
            domain,
        }
    }

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
        let mut s = match base {
            Some(s) => s,
            None => {
                let mut s = Summary {
                    arcs: std::sync::Arc::new(Vec::new()),
                    kept: None,
                    infeasible: false,
                };
                for c in self.domain.clone() {
                    s = self.step(store, s, c);
                }
                s
            }
        };
        while let Some(n) = chain.pop() {
            if let Some(c) = tree.node(n).cond {
                s = self.step(store, s, c);
            }
            self.nodes[n] = Some(s.clone());
        }
        s
    }

    /// `s` with input `x`'s arc narrowed to `arc` (the values on its arc where the
    /// new condition holds).
    fn narrow(mut s: Summary, at: Option<usize>, x: Term, arc: Arc) -> Summary {
        let arcs = std::sync::Arc::make_mut(&mut s.arcs);
        match at {
            Some(i) => arcs[i].1 = arc,
            None => {
                arcs.push((x, arc));
                arcs.sort_unstable_by_key(|&(y, _)| y);
            }
        }
        s
    }

    /// Where `c`, a condition on input `x` alone, holds on `x`'s arc, when that arc
    /// is small: `Meet::One` with the values that satisfy it if they are one arc.
    fn enumerate(store: &TermStore, c: Term, x: Term, arc: Arc) -> Option<Meet> {
        let Node::Var { index, width } = store.node(x) else {
            return None;
        };
        if arc.len > MAX_ENUMERATED {
            return None;
        }
        let mut values = vec![0u64; store.var_count()];
        let (mut first, mut last, mut count) = (None, 0, 0);
        for d in 0..arc.len {
            let v = (arc.start + d) & mask(width);
            *values.get_mut(index as usize)? = v;
            if Evaluator::new(store, &values).holds(c) {
                first.get_or_insert(d);
                last = d;
                count += 1;
            }
        }
        Some(match first {
            None => Meet::Empty,
            Some(f) if last - f + 1 == count => Meet::One(Arc {
                start: (arc.start + f) & mask(width),
                len: count,
            }),
            Some(_) => Meet::Two,
        })
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
        let inputs: Vec<Term> = store
            .reachable(&[c])
            .into_iter()
            .filter(|&t| matches!(store.node(t), Node::Var { .. }))
            .collect();
        if let [x] = inputs[..] {
            let w = store.width(x);
            let at = s.arcs.iter().position(|&(y, _)| y == x);
            let current = at.map_or(Arc::full(w), |i| s.arcs[i].1);
            let meet = match arc_of(store, c) {
                Some((_, arc)) => Some(current.intersect(arc, w)),
                None => Self::enumerate(store, c, x, current),
            };
            match meet {
                Some(Meet::Empty) => {
                    s.infeasible = true;
                    return s;
                }
                Some(Meet::One(narrowed)) => return Self::narrow(s, at, x, narrowed),
                Some(Meet::Two) | None => {}
            }
        }
        if let Some(holds) = Self::decided_by_pinned(store, &s, &inputs, c) {
            if !holds {
                s.infeasible = true;
            }
            return s;
        }
        self.kept.push((c, s.kept));
        s.kept = Some((self.kept.len() - 1) as u32);
        s
    }

    /// The value of `c` (which mentions `inputs`) when the arcs pin every one of them.
    fn decided_by_pinned(store: &TermStore, s: &Summary, inputs: &[Term], c: Term) -> Option<bool> {
        let pinned: FxHashMap<Term, u64> = s
            .arcs
            .iter()
            .filter(|(_, a)| a.len == 1)
            .map(|&(x, a)| (x, a.start))
            .collect();
        if pinned.is_empty() || inputs.is_empty() {
            return None;
        }
        let mut values = vec![0u64; store.var_count()];
        for &x in inputs {
            let Node::Var { index, .. } = store.node(x) else {
                return None;
            };
            *values.get_mut(index as usize)? = *pinned.get(&x)?;
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
        let mut sums = Summaries::new(Vec::new());
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
        let mut sums = Summaries::new(Vec::new());
        assert_eq!(
            sums.conjuncts(&mut s, &tree, *ok.last().unwrap()),
            Some(vec![xe, ye])
        );
        assert_eq!(sums.conjuncts(&mut s, &tree, *bad.last().unwrap()), None);
    }

    /// On a small arc (the domain `len <u 9`), a condition is evaluated at each
    /// value: `len * 4 == 8` pins `len` to 2; `len & 1 == 1` (1, 3, 5, 7: not one arc)
    /// is kept as written.
    #[test]
    fn conditions_on_a_small_arc_are_enumerated() {
        let mut s = TermStore::new();
        let len = s.new_var("len", 32);
        let nine = s.word(9);
        let domain = vec![s.bin(BinOp::Ult, len, nine)];
        let (four, eight, one) = (s.word(4), s.word(8), s.word(1));
        let scaled = s.bin(BinOp::Mul, len, four);
        let pinned = s.eq(scaled, eight);
        let low = s.bin(BinOp::BvAnd, len, one);
        let odd = s.eq(low, one);
        let mut tree = PathTree::default();
        let (a, _) = tree.insert(&[pinned]);
        let (b, _) = tree.insert(&[odd]);
        let mut sums = Summaries::new(domain.clone());
        let two = s.word(2);
        let len_is_2 = s.eq(len, two);
        assert_eq!(sums.conjuncts(&mut s, &tree, a[1]), Some(vec![len_is_2]));
        let q = sums.conjuncts(&mut s, &tree, b[1]).unwrap();
        assert_eq!(
            q,
            vec![domain[0], odd],
            "the domain's arc, then the odd test as written"
        );
    }

    fn two_input_condition(s: &mut TermStore, x: Term, y: Term, k: u32) -> Term {
        let sum = s.bin(BinOp::Add, x, y);
        let k = s.word(k);
        s.bin(BinOp::Ult, sum, k)
    }

    /// `x * k == c` or `(x * k) & 3 == c`: conditions on one input that no arc
    /// describes (an array's index scaled to an address).
    fn scaled_condition(s: &mut TermStore, x: Term, k: u32, c: u32, masked: bool) -> Term {
        let k = s.word(k % 8);
        let scaled = s.bin(BinOp::Mul, x, k);
        let lhs = if masked {
            let three = s.word(3);
            s.bin(BinOp::BvAnd, scaled, three)
        } else {
            scaled
        };
        let c = s.word(c % 24);
        s.eq(lhs, c)
    }

    proptest! {
        /// A summary allows exactly the inputs that the domain and its prefix's
        /// conditions allow.
        #[test]
        fn a_summary_means_its_prefix(
            conds in prop::collection::vec((comparison(), any::<bool>(), 0u8..8, any::<u32>()), 1..12),
            small_domain in any::<bool>(),
            probes in prop::collection::vec((any::<u32>(), any::<u32>()), 48),
        ) {
            let mut s = TermStore::new();
            let x = s.new_var("x", 32);
            let y = s.new_var("y", 32);
            // `x <u 20` as the domain, as an array's length is bounded.
            let domain = if small_domain {
                let bound = s.word(20);
                vec![s.bin(BinOp::Ult, x, bound)]
            } else {
                Vec::new()
            };
            let mut terms = Vec::new();
            let mut near = Vec::new();
            for &(cmp, on_y, kind, k) in &conds {
                let input = if on_y { y } else { x };
                terms.push(match kind {
                    0 => two_input_condition(&mut s, x, y, k),
                    1 | 2 => scaled_condition(&mut s, input, k, cmp.4, kind == 2),
                    _ => build(&mut s, input, cmp),
                });
                near = probes_near(cmp.3, cmp.4, near);
            }
            let mut tree = PathTree::default();
            let (along, _) = tree.insert(&terms);
            let mut sums = Summaries::new(domain.clone());
            let mut points: Vec<(u32, u32)> = probes;
            for v in 0..24 {
                points.push((v, v));
                points.push((v, near[v as usize % near.len()]));
            }
            for (i, &v) in near.iter().enumerate() {
                points.push((v, near[(i * 7 + 3) % near.len()]));
                points.push((v, v));
            }
            for (depth, &node) in along.iter().enumerate() {
                let summary = sums.conjuncts(&mut s, &tree, node);
                for &(a, b) in &points {
                    let vals = [a as u64, b as u64];
                    let prefix = terms[..depth]
                        .iter()
                        .chain(&domain)
                        .all(|&t| crate::term::eval(&s, &vals, t) == 1);
                    let summarised = summary
                        .as_ref()
                        .is_some_and(|q| q.iter().all(|&t| crate::term::eval(&s, &vals, t) == 1));
                    prop_assert_eq!(prefix, summarised, "depth {} at ({:#x}, {:#x}): {:?}", depth, a, b, summary);
                }
            }
        }
    }
}
