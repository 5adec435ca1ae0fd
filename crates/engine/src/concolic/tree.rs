//! The path tree of one program: every path seen, as a trie of path conditions.
//!
//! A node stands for the inputs that satisfy the conditions on the way to it. Its
//! children are the next conditions that runs met there; the inputs that satisfy none
//! of them are the node's unexplored remainder, which the search asks the solver
//! about. A node whose remainder is empty is closed; when every node is closed, the
//! paths' conditions partition the input space.

use crate::term::{Term, TermStore};

/// Index of a node.
pub type NodeId = usize;

/// What is known of a node's remainder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Not yet shown empty.
    Open,
    /// Empty (unsatisfiable, or a leaf).
    Closed,
    /// The solver could not decide.
    Unknown,
    /// Deeper than the depth bound, so never asked about.
    Cut,
    /// A run on the solver's inputs did not come this way.
    Diverged,
    /// A run reached it but was too long to trace further: what lies below is unknown.
    Partial,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub parent: Option<NodeId>,
    /// The condition on the edge from the parent.
    pub cond: Option<Term>,
    /// Number of conditions from the root.
    pub depth: usize,
    pub children: Vec<(Term, NodeId)>,
    /// The path that ends here, if one does.
    pub leaf: Option<usize>,
    pub state: NodeState,
    pub queued: bool,
}

/// A trie of condition sequences.
#[derive(Clone, Debug)]
pub struct PathTree {
    nodes: Vec<Node>,
}

impl Default for PathTree {
    fn default() -> Self {
        PathTree {
            nodes: vec![Node {
                parent: None,
                cond: None,
                depth: 0,
                children: Vec::new(),
                leaf: None,
                state: NodeState::Open,
                queued: false,
            }],
        }
    }
}

impl PathTree {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Adds the path with `conds`, returning the nodes along it (root first) and
    /// whether the final node was new.
    pub fn insert(&mut self, conds: &[Term]) -> (Vec<NodeId>, bool) {
        self.insert_below(0, conds)
    }

    /// Adds the path that goes through `start` and then takes `conds`, returning the
    /// nodes along it from `start` on and whether the final node was new. A run
    /// resumed at a node's checkpoint is inserted from there: the work is the length
    /// of its new part, not of its whole path.
    pub fn insert_below(&mut self, start: NodeId, conds: &[Term]) -> (Vec<NodeId>, bool) {
        let mut at = start;
        let mut along = vec![start];
        let mut created = false;
        for &c in conds {
            let next = self.nodes[at]
                .children
                .iter()
                .find(|(k, _)| *k == c)
                .map(|&(_, n)| n);
            at = match next {
                Some(n) => n,
                None => {
                    let id = self.nodes.len();
                    let depth = self.nodes[at].depth + 1;
                    self.nodes.push(Node {
                        parent: Some(at),
                        cond: Some(c),
                        depth,
                        children: Vec::new(),
                        leaf: None,
                        state: NodeState::Open,
                        queued: false,
                    });
                    self.nodes[at].children.push((c, id));
                    created = true;
                    id
                }
            };
            along.push(at);
        }
        (along, created)
    }

    /// The conditions on the way from the root to `id`, in order.
    pub fn conds_to(&self, id: NodeId) -> Vec<Term> {
        let mut conds = Vec::with_capacity(self.nodes[id].depth);
        let mut at = id;
        while let (Some(c), Some(p)) = (self.nodes[at].cond, self.nodes[at].parent) {
            conds.push(c);
            at = p;
        }
        conds.reverse();
        conds
    }

    /// The condition that none of `id`'s children's conditions holds: what its
    /// remainder adds to its prefix. `None` when the children cover every input that
    /// reaches `id` by construction.
    pub fn none_of_children(&self, store: &mut TermStore, id: NodeId) -> Option<Term> {
        let mut none = store.bool(true);
        for &(c, _) in &self.nodes[id].children {
            let nc = store.not(c);
            none = store.and(none, nc);
        }
        (store.as_const(none) != Some(0)).then_some(none)
    }

    /// Whether the children of `id` cover every input that reaches it by construction
    /// (such as `c` and `!c`), without asking a solver.
    pub fn children_cover(&self, store: &mut TermStore, id: NodeId) -> bool {
        self.none_of_children(store, id).is_none()
    }

    /// Every node, for reports.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The tree's edges indexed by condition, with each node's place in a depth-first
    /// walk: whether a condition lies on a path then costs the edges with that
    /// condition, not the path's length.
    pub fn ancestry(&self) -> Ancestry {
        let n = self.nodes.len();
        let mut enter = vec![0u32; n];
        let mut leave = vec![0u32; n];
        let mut clock = 0u32;
        let mut stack = vec![(0usize, false)];
        while let Some((id, done)) = stack.pop() {
            if done {
                leave[id] = clock;
                continue;
            }
            enter[id] = clock;
            clock += 1;
            stack.push((id, true));
            stack.extend(
                self.nodes[id]
                    .children
                    .iter()
                    .rev()
                    .map(|&(_, c)| (c, false)),
            );
        }
        let mut edges: rustc_hash::FxHashMap<Term, Vec<NodeId>> = Default::default();
        for (id, node) in self.nodes.iter().enumerate() {
            if let Some(c) = node.cond {
                edges.entry(c).or_default().push(id);
            }
        }
        Ancestry {
            enter,
            leave,
            edges,
        }
    }
}

/// See [`PathTree::ancestry`].
pub struct Ancestry {
    enter: Vec<u32>,
    leave: Vec<u32>,
    edges: rustc_hash::FxHashMap<Term, Vec<NodeId>>,
}

impl Ancestry {
    /// Whether the path from the root to `node` takes an edge with condition `cond`.
    pub fn on_path(&self, cond: Term, node: NodeId) -> bool {
        let Some(ends) = self.edges.get(&cond) else {
            return false;
        };
        ends.iter()
            .any(|&e| self.enter[e] <= self.enter[node] && self.leave[node] <= self.leave[e])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_prefixes_share_nodes() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let k = s.word(1);
        let a = s.eq(x, k);
        let na = s.not(a);
        let mut t = PathTree::default();
        let (p1, new1) = t.insert(&[a]);
        let (p2, new2) = t.insert(&[a]);
        assert!(new1 && !new2);
        assert_eq!(p1, p2);
        assert!(
            t.none_of_children(&mut s, 0).is_some(),
            "the other side is unexplored"
        );
        t.insert(&[na]);
        assert!(
            t.none_of_children(&mut s, 0).is_none(),
            "c and !c cover everything"
        );
        // Below a node: the same nodes as from the root.
        let (p3, new3) = t.insert(&[a, na]);
        let (p4, new4) = t.insert_below(p1[1], &[na]);
        assert!(new3 && !new4);
        assert_eq!(p4, p3[1..].to_vec());
        // A condition is on a path when an edge with it is above the path's end.
        let anc = t.ancestry();
        assert!(anc.on_path(a, p3[2]) && anc.on_path(na, p3[2]));
        assert!(!anc.on_path(na, p2[1]) && anc.on_path(a, p2[1]));
        let (other, _) = t.insert(&[na]);
        assert!(!anc.on_path(a, other[1]) && anc.on_path(na, other[1]));
    }
}
