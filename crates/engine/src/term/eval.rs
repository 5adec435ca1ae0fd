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
            Node::Bin(op, a, b) => bin_value(op, s.width(a), s.width(b), self.arg(a), self.arg(b)),
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

/// The value of `op` on `x` (of width `w`) and `y` (of width `wb`). Division by zero
/// follows SMT-LIB (`x / 0 = all ones`, `x % 0 = x`), as the solver would.
fn bin_value(op: BinOp, w: u8, wb: u8, x: u64, y: u64) -> u64 {
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
        _ => fold(op, w, wb, x, y).unwrap_or(0),
    }
}

/// Boolean terms compiled into one straight-line program over numbered slots, to be
/// checked at many assignments of the inputs (the solver chain enumerates small
/// domains with it): no hashing and no allocation per assignment, and each term is
/// checked as soon as its slots are computed, so a false one stops the rest. It means
/// exactly what [`Evaluator`] means (a property test holds them to each other).
pub struct Compiled {
    ops: Vec<Op>,
    /// Per term, in the order given: how many ops compute it (with those before), and
    /// its slot.
    checks: Vec<(usize, usize)>,
    slots: Vec<u64>,
}

/// One op of a [`Compiled`] program; arguments are slots.
enum Op {
    Value(u64),
    Var {
        index: u32,
        width: u8,
    },
    Not(usize),
    Bin {
        op: BinOp,
        w: u8,
        wb: u8,
        a: usize,
        b: usize,
    },
    Extract {
        hi: u8,
        lo: u8,
        arg: usize,
    },
    SignExt {
        w: u8,
        by: u8,
        arg: usize,
    },
    Copy(usize),
    Ite(usize, usize, usize),
    /// A word of memory: the first store (newest first) whose address is `addr`'s
    /// value, else the constant array's value (or 0).
    Select {
        addr: usize,
        stores: Vec<(usize, usize)>,
        base: Option<usize>,
    },
}

impl Compiled {
    /// Compiles Boolean `terms`, to be checked in the order given.
    pub fn new(store: &TermStore, terms: &[Term]) -> Compiled {
        let mut slot_of: FxHashMap<Term, usize> = FxHashMap::default();
        let mut ops = Vec::new();
        let mut checks = Vec::with_capacity(terms.len());
        for &root in terms {
            let mut stack = vec![(root, false)];
            while let Some((u, ready)) = stack.pop() {
                if slot_of.contains_key(&u) {
                    continue;
                }
                if !ready {
                    stack.push((u, true));
                    stack.extend(
                        store
                            .children(u)
                            .filter(|c| !slot_of.contains_key(c))
                            .map(|c| (c, false)),
                    );
                    continue;
                }
                let at = |t: Term| slot_of.get(&t).copied().unwrap_or(0);
                let op = match store.node(u) {
                    Node::Bool(b) => Op::Value(b as u64),
                    Node::Const { value, .. } => Op::Value(value),
                    Node::Var { index, width } => Op::Var { index, width },
                    Node::Not(a) => Op::Not(at(a)),
                    Node::Bin(op, a, b) => Op::Bin {
                        op,
                        w: store.width(a),
                        wb: store.width(b),
                        a: at(a),
                        b: at(b),
                    },
                    Node::Extract { hi, lo, arg } => Op::Extract {
                        hi,
                        lo,
                        arg: at(arg),
                    },
                    Node::SignExt { by, arg } => Op::SignExt {
                        w: store.width(arg),
                        by,
                        arg: at(arg),
                    },
                    Node::ZeroExt { arg, .. } => Op::Copy(at(arg)),
                    Node::Ite(c, a, b) => Op::Ite(at(c), at(a), at(b)),
                    Node::ConstArray(_) | Node::Store(..) => Op::Value(0),
                    Node::Select(mem, addr) => {
                        let mut stores = Vec::new();
                        let mut base = None;
                        let mut m = mem;
                        loop {
                            match store.node(m) {
                                Node::Store(inner, a, v) => {
                                    stores.push((at(a), at(v)));
                                    m = inner;
                                }
                                Node::ConstArray(v) => {
                                    base = Some(at(v));
                                    break;
                                }
                                _ => break,
                            }
                        }
                        Op::Select {
                            addr: at(addr),
                            stores,
                            base,
                        }
                    }
                };
                slot_of.insert(u, ops.len());
                ops.push(op);
            }
            checks.push((ops.len(), slot_of.get(&root).copied().unwrap_or(0)));
        }
        let slots = vec![0; ops.len()];
        Compiled { ops, checks, slots }
    }

    /// The ops in the program: the work of one check of every term.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the program has no ops (no terms, or only terms compiled before).
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Whether every term holds at `vars` (indexed like the store's inputs; missing
    /// inputs read as 0).
    pub fn all_hold(&mut self, vars: &[u64]) -> bool {
        let mut next = 0;
        for &(end, slot) in &self.checks {
            while next < end {
                let v = self.value(next, vars);
                self.slots[next] = v;
                next += 1;
            }
            if self.slots[slot] == 0 {
                return false;
            }
        }
        true
    }

    fn value(&self, i: usize, vars: &[u64]) -> u64 {
        let s = &self.slots;
        match &self.ops[i] {
            Op::Value(v) => *v,
            Op::Var { index, width } => {
                vars.get(*index as usize).copied().unwrap_or(0) & mask(*width)
            }
            Op::Not(a) => (s[*a] == 0) as u64,
            Op::Bin { op, w, wb, a, b } => bin_value(*op, *w, *wb, s[*a], s[*b]),
            Op::Extract { hi, lo, arg } => (s[*arg] >> lo) & mask(hi - lo + 1),
            Op::SignExt { w, by, arg } => (signed(*w, s[*arg]) as u64) & mask(w + by),
            Op::Copy(a) => s[*a],
            Op::Ite(c, a, b) => {
                if s[*c] != 0 {
                    s[*a]
                } else {
                    s[*b]
                }
            }
            Op::Select { addr, stores, base } => {
                let k = s[*addr];
                stores
                    .iter()
                    .find(|&&(a, _)| s[a] == k)
                    .map(|&(_, v)| s[v])
                    .or_else(|| base.map(|b| s[b]))
                    .unwrap_or(0)
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
        fn folding_agrees_with_evaluation(
            x in prop_oneof![any::<u32>(), Just(0x8000_0000), Just(u32::MAX)],
            y in prop_oneof![any::<u32>(), 0u32..40],
            op in 0usize..14,
        ) {
            let ops = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::UDiv, BinOp::URem,
                       BinOp::SDiv, BinOp::SRem, BinOp::Ult, BinOp::Slt, BinOp::BvOr,
                       BinOp::BvXor, BinOp::Shl, BinOp::LShr, BinOp::AShr];
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

    /// One step of building a random term graph over three 32-bit inputs.
    #[derive(Clone, Debug)]
    enum Step {
        Word(u8, usize, usize),
        Cmp(u8, usize, usize),
        Not(usize),
        Both(bool, usize, usize),
        Ite(usize, usize, usize),
        /// Bits `hi..=lo` of a word, extended back to 32 bits (signed or not).
        Bits(u8, u8, bool, usize),
        Store(usize, usize, usize),
        Select(usize, usize),
        Const(u32),
    }

    fn step() -> impl Strategy<Value = Step> {
        let ix = || 0usize..64;
        prop_oneof![
            4 => (0u8..14, ix(), ix()).prop_map(|(o, a, b)| Step::Word(o, a, b)),
            3 => (0u8..3, ix(), ix()).prop_map(|(o, a, b)| Step::Cmp(o, a, b)),
            1 => ix().prop_map(Step::Not),
            1 => (any::<bool>(), ix(), ix()).prop_map(|(o, a, b)| Step::Both(o, a, b)),
            1 => (ix(), ix(), ix()).prop_map(|(c, a, b)| Step::Ite(c, a, b)),
            1 => (0u8..32, 0u8..32, any::<bool>(), ix())
                .prop_map(|(x, y, sg, a)| Step::Bits(x.max(y), x.min(y), sg, a)),
            2 => (ix(), ix(), ix()).prop_map(|(m, a, v)| Step::Store(m, a, v)),
            2 => (ix(), ix()).prop_map(|(m, a)| Step::Select(m, a)),
            1 => prop_oneof![Just(0u32), Just(1), Just(u32::MAX), Just(0x8000_0000), 0u32..40, any::<u32>()]
                .prop_map(Step::Const),
        ]
    }

    /// The Booleans that `steps` build.
    fn build(s: &mut TermStore, steps: &[Step]) -> Vec<Term> {
        let mut words: Vec<Term> = (1..=3).map(|i| s.new_var(&format!("${i}"), 32)).collect();
        let zero = s.word(0);
        let mut mems = vec![s.const_array(zero)];
        let t = s.bool(true);
        let mut bools = vec![t];
        let ops = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::UDiv,
            BinOp::URem,
            BinOp::SDiv,
            BinOp::SRem,
            BinOp::BvAnd,
            BinOp::Add,
            BinOp::BvOr,
            BinOp::BvXor,
            BinOp::Shl,
            BinOp::LShr,
            BinOp::AShr,
        ];
        for st in steps {
            let w = |i: usize| words[i % words.len()];
            let b = |i: usize| bools[i % bools.len()];
            match *st {
                Step::Word(o, x, y) => {
                    let t = s.bin(ops[o as usize % ops.len()], w(x), w(y));
                    words.push(t);
                }
                Step::Cmp(o, x, y) => {
                    let t = match o {
                        0 => s.eq(w(x), w(y)),
                        1 => s.bin(BinOp::Ult, w(x), w(y)),
                        _ => s.bin(BinOp::Slt, w(x), w(y)),
                    };
                    bools.push(t);
                }
                Step::Not(x) => {
                    let t = s.not(b(x));
                    bools.push(t);
                }
                Step::Both(and, x, y) => {
                    let t = if and {
                        s.and(b(x), b(y))
                    } else {
                        s.or(b(x), b(y))
                    };
                    bools.push(t);
                }
                Step::Ite(c, x, y) => {
                    let t = s.ite(b(c), w(x), w(y));
                    words.push(t);
                }
                Step::Bits(hi, lo, signed, x) => {
                    let e = s.extract(hi, lo, w(x));
                    let by = 32 - (hi - lo + 1);
                    let t = if by == 0 {
                        e
                    } else if signed {
                        s.sign_ext(by, e)
                    } else {
                        s.zero_ext(by, e)
                    };
                    words.push(t);
                }
                Step::Store(m, a, v) => {
                    let t = s.store(mems[m % mems.len()], w(a), w(v));
                    mems.push(t);
                }
                Step::Select(m, a) => {
                    let t = s.select(mems[m % mems.len()], w(a));
                    words.push(t);
                }
                Step::Const(k) => {
                    let t = s.word(k);
                    words.push(t);
                }
            }
        }
        bools
    }

    proptest! {
        /// A compiled program means what the evaluator means: each term alone, and
        /// all of them at once (checked in order, stopping at the first false one).
        #[test]
        fn compiled_terms_hold_where_the_evaluator_says(
            steps in prop::collection::vec(step(), 1..40),
            vals in prop::collection::vec(prop_oneof![Just(0u64), Just(1), Just(0xFFFF_FFFF), Just(0x8000_0000), 0u64..8, 0u64..0x1_0000_0000], 3),
        ) {
            let mut s = TermStore::new();
            let bools = build(&mut s, &steps);
            let mut ev = Evaluator::new(&s, &vals);
            let truth: Vec<bool> = bools.iter().map(|&b| ev.holds(b)).collect();
            for (&b, &t) in bools.iter().zip(&truth) {
                prop_assert_eq!(Compiled::new(&s, &[b]).all_hold(&vals), t);
            }
            let mut all = Compiled::new(&s, &bools);
            prop_assert_eq!(all.all_hold(&vals), truth.iter().all(|&t| t));
            // Reused at other values, a program forgets the last ones.
            let zeros = [0u64; 3];
            let mut ev0 = Evaluator::new(&s, &zeros);
            let truth0 = bools.iter().all(|&b| ev0.holds(b));
            prop_assert_eq!(all.all_hold(&zeros), truth0);
            prop_assert_eq!(all.all_hold(&vals), truth.iter().all(|&t| t));
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
