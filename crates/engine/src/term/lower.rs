//! Memory read without an array theory: every `select` over a chain of `store`s on a
//! constant array becomes an `ite` chain of bit-vector terms,
//! `select(store(…store(const_array(d), j1, v1)…, jn, vn), a)` =
//! `ite(a == jn, vn, … ite(a == j1, v1, d))`.
//!
//! This is the one place that does it: the Z3 backend and the SMT-LIB printer (so the
//! dumps and the solvers over a pipe) both lower through it, so they cannot read memory
//! differently, and no backend is asked about arrays (Z3 4.8's array solver answers
//! unknown on constant arrays).
//!
//! A read that is not of that shape (its memory is not a store chain over a constant
//! array, or the widths of addresses or words disagree) is malformed: it is left as a
//! `select` for the consumer to refuse, never given a value here.

use rustc_hash::FxHashMap;

use super::{Node, Term, TermStore, MEMORY};

/// Lowers memory reads, remembering what it lowered: the store only grows and terms
/// never change, so a term lowered for one query stays lowered for the next.
#[derive(Default)]
pub struct ArrayLowering {
    memo: FxHashMap<Term, Term>,
}

/// `roots` with every memory read lowered (see the module documentation).
pub fn lower_arrays(store: &mut TermStore, roots: &[Term]) -> Vec<Term> {
    ArrayLowering::new().lower(store, roots)
}

impl ArrayLowering {
    pub fn new() -> ArrayLowering {
        ArrayLowering::default()
    }

    /// `roots` with every memory read lowered; each term is equal in value to its
    /// root under every assignment of the inputs.
    pub fn lower(&mut self, store: &mut TermStore, roots: &[Term]) -> Vec<Term> {
        roots.iter().map(|&r| self.lower_one(store, r)).collect()
    }

    fn lower_one(&mut self, store: &mut TermStore, root: Term) -> Term {
        // Post-order that stops at terms already lowered (iterative: traces are deep).
        let mut stack = vec![(root, false)];
        while let Some((t, ready)) = stack.pop() {
            if self.memo.contains_key(&t) {
                continue;
            }
            if ready {
                let lowered = self.lower_node(store, t);
                self.memo.insert(t, lowered);
                continue;
            }
            stack.push((t, true));
            for c in store.children(t) {
                if !self.memo.contains_key(&c) {
                    stack.push((c, false));
                }
            }
        }
        self.memo[&root]
    }

    /// `t` over its lowered arguments (all lowered already).
    fn lower_node(&self, store: &mut TermStore, t: Term) -> Term {
        let memo = &self.memo;
        let get = |c: Term| memo.get(&c).copied().unwrap_or(c);
        if let Node::Select(m, a) = store.node(t) {
            let (m, a) = (get(m), get(a));
            let word = store.width(t);
            return match read_as_ite(store, m, a, word) {
                Some(v) => v,
                None => store.select(m, a),
            };
        }
        if store.children(t).all(|c| get(c) == c) {
            return t;
        }
        store.rebuild(t, get)
    }
}

/// The `word`-bit word of memory `m` at `a` as an `ite` chain, if `m` is a store chain
/// over a constant array with addresses as wide as `a` and words of `word` bits.
fn read_as_ite(store: &mut TermStore, m: Term, a: Term, word: u8) -> Option<Term> {
    if store.width(m) != MEMORY {
        return None;
    }
    let (stores, default) = store.store_chain(m);
    let default = default?;
    let (aw, vw) = (store.width(a), store.width(default));
    let bit_vector = |w: u8| w != 0 && w != MEMORY;
    if !bit_vector(aw) || vw != word || !bit_vector(vw) {
        return None;
    }
    if stores
        .iter()
        .any(|&(j, v)| store.width(j) != aw || store.width(v) != vw)
    {
        return None;
    }
    let mut acc = default;
    // Innermost store first, so the outermost (latest) one is tested first.
    for &(j, v) in stores.iter().rev() {
        let hit = store.eq(a, j);
        acc = store.ite(hit, v, acc);
    }
    Some(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{BinOp, Evaluator};
    use proptest::prelude::*;

    /// One step of building terms over memories: each refers to earlier terms by index
    /// (modulo the size of the pool it reads).
    #[derive(Clone, Debug)]
    enum Step {
        /// A constant array of a word.
        Fill(usize),
        /// A store into a memory of a word at an address.
        Store(usize, usize, usize),
        /// A read of a memory at an address.
        Select(usize, usize),
        /// An address near a word (`w + k`), so reads and stores alias often.
        Near(usize, u32),
        Add(usize, usize),
        Ite(usize, usize, usize),
        Cmp(bool, usize, usize),
        Not(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        let ix = || 0usize..32;
        prop_oneof![
            1 => ix().prop_map(Step::Fill),
            3 => (ix(), ix(), ix()).prop_map(|(m, a, v)| Step::Store(m, a, v)),
            3 => (ix(), ix()).prop_map(|(m, a)| Step::Select(m, a)),
            2 => (ix(), 0u32..3).prop_map(|(w, k)| Step::Near(w, 4 * k)),
            1 => (ix(), ix()).prop_map(|(a, b)| Step::Add(a, b)),
            1 => (ix(), ix(), ix()).prop_map(|(c, a, b)| Step::Ite(c, a, b)),
            2 => (any::<bool>(), ix(), ix()).prop_map(|(e, a, b)| Step::Cmp(e, a, b)),
            1 => ix().prop_map(Step::Not),
        ]
    }

    /// Builds the terms of `steps` over three 32-bit inputs; returns the store and
    /// every word and Boolean built.
    fn build(steps: &[Step]) -> (TermStore, Vec<Term>) {
        let mut s = TermStore::new();
        let mut words: Vec<Term> = (1..=3).map(|i| s.new_var(&format!("${i}"), 32)).collect();
        words.push(s.word(0));
        words.push(s.word(4));
        let zero = s.word(0);
        let mut mems = vec![s.const_array(zero)];
        let mut bools: Vec<Term> = Vec::new();
        for st in steps {
            let w = |i: usize| words[i % words.len()];
            let m = |i: usize| mems[i % mems.len()];
            match *st {
                Step::Fill(v) => {
                    let t = s.const_array(w(v));
                    mems.push(t);
                }
                Step::Store(mi, a, v) => {
                    let t = s.store(m(mi), w(a), w(v));
                    mems.push(t);
                }
                Step::Select(mi, a) => {
                    let t = s.select(m(mi), w(a));
                    words.push(t);
                }
                Step::Near(a, k) => {
                    let k = s.word(k);
                    let t = s.bin(BinOp::Add, w(a), k);
                    words.push(t);
                }
                Step::Add(a, b) => {
                    let t = s.bin(BinOp::Add, w(a), w(b));
                    words.push(t);
                }
                Step::Ite(c, a, b) if !bools.is_empty() => {
                    let t = s.ite(bools[c % bools.len()], w(a), w(b));
                    words.push(t);
                }
                Step::Cmp(eq, a, b) => {
                    let t = if eq {
                        s.eq(w(a), w(b))
                    } else {
                        s.bin(BinOp::Ult, w(a), w(b))
                    };
                    bools.push(t);
                }
                Step::Not(b) if !bools.is_empty() => {
                    let t = s.not(bools[b % bools.len()]);
                    bools.push(t);
                }
                Step::Ite(..) | Step::Not(_) => {}
            }
        }
        words.extend(bools);
        (s, words)
    }

    fn has_arrays(s: &TermStore, roots: &[Term]) -> bool {
        s.reachable(roots).into_iter().any(|t| {
            matches!(
                s.node(t),
                Node::Select(..) | Node::Store(..) | Node::ConstArray(_)
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// The lowered terms mean what the terms mean, under random inputs (chosen
        /// small and near each other half of the time, so that addresses alias), and
        /// nothing of memory is left in them.
        #[test]
        fn lowered_terms_evaluate_as_the_originals(
            steps in proptest::collection::vec(step(), 1..40),
            models in proptest::collection::vec(
                prop_oneof![
                    proptest::collection::vec(any::<u32>(), 3),
                    proptest::collection::vec((0u32..4).prop_map(|k| 4 * k), 3),
                ],
                1..6,
            ),
        ) {
            let (mut s, roots) = build(&steps);
            let mut lowering = ArrayLowering::new();
            let lowered = lowering.lower(&mut s, &roots);
            prop_assert!(!has_arrays(&s, &lowered));
            // Lowering again is the identity on lowered terms, and remembered.
            prop_assert_eq!(lowering.lower(&mut s, &lowered), lowered.clone());
            prop_assert_eq!(lower_arrays(&mut s, &roots), lowered.clone());
            for m in models {
                let values: Vec<u64> = m.iter().map(|&v| v as u64).collect();
                let mut ev = Evaluator::new(&s, &values);
                for (&r, &l) in roots.iter().zip(&lowered) {
                    prop_assert_eq!(ev.eval(r), ev.eval(l), "{:?} at {:?}", s.node(r), m);
                }
            }
        }
    }

    #[test]
    fn the_latest_store_is_read_first() {
        let mut s = TermStore::new();
        let (a, b) = (s.new_var("a", 32), s.new_var("b", 32));
        let (zero, one, two) = (s.word(0), s.word(1), s.word(2));
        let m0 = s.const_array(zero);
        let m1 = s.store(m0, a, one);
        let m2 = s.store(m1, b, two);
        let r = s.select(m2, a);
        let [l] = lower_arrays(&mut s, &[r])[..] else {
            panic!("one root")
        };
        let hit_b = s.eq(a, b);
        let hit_a = s.eq(a, a);
        assert_eq!(s.as_const(hit_a), Some(1));
        let inner = s.ite(hit_a, one, zero);
        assert_eq!(l, s.ite(hit_b, two, inner));
        let mut ev = Evaluator::new(&s, &[7, 7]);
        assert_eq!(ev.eval(l), 2);
    }

    #[test]
    fn a_read_of_anything_but_a_store_chain_is_left_alone() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let not_memory = s.new_var("m", 32);
        let r = s.select(not_memory, x);
        assert_eq!(lower_arrays(&mut s, &[r]), vec![r]);
        // A word of another width than the read's.
        let zero = s.word(0);
        let m0 = s.const_array(zero);
        let narrow = s.constant(8, 1);
        let m1 = s.store(m0, x, narrow);
        let y = s.new_var("y", 32);
        let r = s.select(m1, y);
        let lowered = lower_arrays(&mut s, &[r]);
        assert!(matches!(s.node(lowered[0]), Node::Select(..)));
    }
}
