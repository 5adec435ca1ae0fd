//! The concrete evaluator: what a term means at given input values.
//!
//! Used by tests (the recorded trace must agree with the concrete run) and by the
//! solver chain (a cached model is reused when it satisfies a new query).

use rustc_hash::FxHashMap;

use super::{fold, mask, signed, BinOp, Node, Term, TermStore};

/// Evaluates terms at one assignment of the inputs, remembering shared subterms.
pub struct Evaluator<'a> {
    store: &'a TermStore,
    vars: &'a [u64],
    memo: FxHashMap<Term, u64>,
}

impl<'a> Evaluator<'a> {
    /// An evaluator for input values `vars` (indexed like the store's inputs; missing
    /// inputs read as 0).
    pub fn new(store: &'a TermStore, vars: &'a [u64]) -> Evaluator<'a> {
        Evaluator {
            store,
            vars,
            memo: FxHashMap::default(),
        }
    }

    /// The value of `t` (Booleans as 0/1). Division by zero follows SMT-LIB
    /// (`x / 0 = all ones`, `x % 0 = x`), as the solver would.
    pub fn eval(&mut self, t: Term) -> u64 {
        if let Some(&v) = self.memo.get(&t) {
            return v;
        }
        // Iterative post-order that stops at terms already known, so evaluating many
        // terms over one shared graph stays linear (and long traces cannot overflow
        // the stack).
        let mut stack = vec![(t, false)];
        while let Some((u, ready)) = stack.pop() {
            if self.memo.contains_key(&u) {
                continue;
            }
            if ready {
                let v = self.eval_node(u);
                self.memo.insert(u, v);
                continue;
            }
            stack.push((u, true));
            for c in self.store.children(u) {
                if !self.memo.contains_key(&c) {
                    stack.push((c, false));
                }
            }
        }
        self.memo.get(&t).copied().unwrap_or(0)
    }

    /// Whether Boolean `t` holds.
    pub fn holds(&mut self, t: Term) -> bool {
        self.eval(t) != 0
    }

    fn arg(&self, t: Term) -> u64 {
        self.memo.get(&t).copied().unwrap_or(0)
    }

    fn eval_node(&self, t: Term) -> u64 {
        let s = self.store;
        match s.node(t) {
            Node::Bool(b) => b as u64,
            Node::Const { value, .. } => value,
            Node::Var { index, width } => {
                self.vars.get(index as usize).copied().unwrap_or(0) & mask(width)
            }
            Node::Not(a) => (self.arg(a) == 0) as u64,
            Node::Bin(op, a, b) => {
                let (x, y) = (self.arg(a), self.arg(b));
                let w = s.width(a);
                match op {
                    BinOp::Eq => (x == y) as u64,
                    BinOp::And => (x != 0 && y != 0) as u64,
                    BinOp::Or => (x != 0 || y != 0) as u64,
                    BinOp::UDiv | BinOp::SDiv if y == 0 => {
                        if op == BinOp::SDiv && signed(w, x) < 0 {
                            1
                        } else {
                            mask(w)
                        }
                    }
                    BinOp::URem | BinOp::SRem if y == 0 => x,
                    _ => fold(op, w, s.width(b), x, y).unwrap_or(0),
                }
            }
            Node::Extract { hi, lo, arg } => (self.arg(arg) >> lo) & mask(hi - lo + 1),
            Node::SignExt { by, arg } => {
                let w = s.width(arg);
                (signed(w, self.arg(arg)) as u64) & mask(w + by)
            }
            Node::ZeroExt { arg, .. } => self.arg(arg),
            Node::Ite(c, a, b) => {
                if self.arg(c) != 0 {
                    self.arg(a)
                } else {
                    self.arg(b)
                }
            }
            // Arrays have no word value; a select walks the stores instead.
            Node::ConstArray(_) | Node::Store(..) => 0,
            Node::Select(mem, addr) => {
                let k = self.arg(addr);
                let mut at = mem;
                loop {
                    match s.node(at) {
                        Node::Store(inner, a, v) => {
                            if self.arg(a) == k {
                                return self.arg(v);
                            }
                            at = inner;
                        }
                        Node::ConstArray(v) => return self.arg(v),
                        _ => return 0,
                    }
                }
            }
        }
    }
}

/// The value of one term at `vars`.
pub fn eval(store: &TermStore, vars: &[u64], t: Term) -> u64 {
    Evaluator::new(store, vars).eval(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Building a term folds constants; evaluating the unfolded term at the same
        /// values must give the folded constant.
        #[test]
        fn folding_agrees_with_evaluation(x in any::<u32>(), y in any::<u32>(), op in 0usize..9) {
            let ops = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::UDiv, BinOp::URem,
                       BinOp::SDiv, BinOp::SRem, BinOp::Ult, BinOp::Slt];
            let op = ops[op];
            prop_assume!(y != 0 || !matches!(op, BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem));
            let mut s = TermStore::new();
            let vx = s.new_var("x", 32);
            let vy = s.new_var("y", 32);
            let sym = s.bin(op, vx, vy);
            let (cx, cy) = (s.word(x), s.word(y));
            let folded = s.bin(op, cx, cy);
            let vals = [x as u64, y as u64];
            prop_assert_eq!(s.as_const(folded), Some(eval(&s, &vals, sym)));
        }
    }

    #[test]
    fn division_by_zero_follows_smtlib() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let y = s.new_var("y", 32);
        let q = s.bin(BinOp::UDiv, x, y);
        let r = s.bin(BinOp::SRem, x, y);
        assert_eq!(eval(&s, &[7, 0], q), 0xFFFF_FFFF);
        assert_eq!(eval(&s, &[7, 0], r), 7);
    }
}
