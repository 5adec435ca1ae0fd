//! The project's one term language: hash-consed bit-vector and Boolean terms over the
//! inputs, with constant folding and a few algebraic rewrites.
//!
//! Every consumer (the Z3 backend, the SMT-LIB printer, the concrete evaluator, the
//! readable printer) lowers from this single representation, so they cannot disagree
//! about what a path condition means; the solvers read memory through one rewrite,
//! [`lower_arrays`]. Hash-consing makes a term its own SSA value:
//! two equal computations are one [`Term`], and shared subterms are stored once.

pub mod arc;
mod eval;
mod extremum;
pub(crate) mod lift;
mod lower;
mod normalize;
pub(crate) mod products;
use normalize::Normalized;
mod print;
mod smtlib;

pub use eval::{eval, Compiled, Evaluator};
pub use lift::{integer_script, Names};
pub use lower::{lower_arrays, ArrayLowering};
pub use print::Readable;
pub use smtlib::{
    expression as smtlib_expression, malformed_memory, script as smtlib_script,
    script_with as smtlib_script_with, symbol as smtlib_symbol, to_smtlib, Definition, Formula,
    Products,
};

use rustc_hash::FxHashMap;

/// A handle to a term in a [`TermStore`]. Cheap to copy, compare and hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Term(u32);

impl Term {
    /// The term's index in its store (terms are numbered in creation order, so
    /// every term's arguments have smaller indices).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Binary operators. Bit-vector operators take two arguments of one width;
/// `Eq` compares two terms of one sort; `And`/`Or` take Booleans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Unsigned division (callers guarantee a non-zero divisor on every path that uses it).
    UDiv,
    URem,
    /// Signed division truncating toward zero; `MIN / -1 = MIN`.
    SDiv,
    /// Signed remainder with the dividend's sign.
    SRem,
    BvAnd,
    /// Bitwise or.
    BvOr,
    /// Bitwise exclusive or.
    BvXor,
    /// Shift left by the second operand (of the same width) read as unsigned; a shift
    /// by the width or more gives 0 (SMT-LIB's `bvshl`).
    Shl,
    /// Logical shift right, likewise (`bvlshr`): 0 for a shift by the width or more.
    LShr,
    /// Arithmetic shift right, likewise (`bvashr`): a shift by the width or more gives
    /// every bit the sign bit (all ones for a negative value, else 0).
    AShr,
    Concat,
    Eq,
    /// Unsigned less-than.
    Ult,
    /// Signed less-than.
    Slt,
    And,
    Or,
}

/// The width code of the memory sort: arrays from 32-bit addresses to 32-bit words.
pub const MEMORY: u8 = u8::MAX;

impl BinOp {
    /// The SMT-LIB name of the operator (also used in readable SSA traces).
    pub const fn smtlib_name(self) -> &'static str {
        match self {
            BinOp::Add => "bvadd",
            BinOp::Sub => "bvsub",
            BinOp::Mul => "bvmul",
            BinOp::UDiv => "bvudiv",
            BinOp::URem => "bvurem",
            BinOp::SDiv => "bvsdiv",
            BinOp::SRem => "bvsrem",
            BinOp::BvAnd => "bvand",
            BinOp::BvOr => "bvor",
            BinOp::BvXor => "bvxor",
            BinOp::Shl => "bvshl",
            BinOp::LShr => "bvlshr",
            BinOp::AShr => "bvashr",
            BinOp::Concat => "concat",
            BinOp::Eq => "=",
            BinOp::Ult => "bvult",
            BinOp::Slt => "bvslt",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }
}

/// A term's shape. Width 0 means Boolean; [`MEMORY`] means a memory array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Bool(bool),
    Const {
        width: u8,
        value: u64,
    },
    /// Input number `index` (see [`TermStore::var_name`]).
    Var {
        index: u32,
        width: u8,
    },
    Not(Term),
    Bin(BinOp, Term, Term),
    Extract {
        hi: u8,
        lo: u8,
        arg: Term,
    },
    SignExt {
        by: u8,
        arg: Term,
    },
    ZeroExt {
        by: u8,
        arg: Term,
    },
    Ite(Term, Term, Term),
    /// The memory holding this 32-bit value at every address.
    ConstArray(Term),
    /// Memory `.0` with address `.1` set to `.2`.
    Store(Term, Term, Term),
    /// The word of memory `.0` at address `.1`.
    Select(Term, Term),
}

/// FxHash's word-at-a-time accumulation, finished by splitmix64's mixer so that
/// every bit of the result depends on every input bit (hashbrown picks buckets and
/// tags by the top bits). Deterministic: no random state.
#[derive(Default)]
pub struct MixHasher(rustc_hash::FxHasher);

impl std::hash::Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes)
    }
    fn write_u8(&mut self, i: u8) {
        self.0.write_u8(i)
    }
    fn write_u32(&mut self, i: u32) {
        self.0.write_u32(i)
    }
    fn write_u64(&mut self, i: u64) {
        self.0.write_u64(i)
    }
    fn write_usize(&mut self, i: usize) {
        self.0.write_usize(i)
    }
    fn finish(&self) -> u64 {
        mix64(self.0.finish())
    }
}

/// splitmix64's finaliser: every bit of the result depends on every bit of `z`.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Owns all terms of one comparison.
#[derive(Default)]
pub struct TermStore {
    nodes: Vec<Node>,
    widths: Vec<u8>,
    /// Hash-consing: every node once. Keyed through [`MixHasher`]: nodes are small
    /// tuples of consecutive indices, which FxHash alone spreads so badly over the
    /// table's top bits that lookups dominated tracing (docs/benchmarks-history.md).
    dedup: std::collections::HashMap<Node, Term, std::hash::BuildHasherDefault<MixHasher>>,
    var_names: Vec<String>,
    /// Sums too long to normalize ([`normalize`]): any sum containing one is too, so
    /// it is not read again (a loop's running sum would cost its length per step).
    too_long: rustc_hash::FxHashSet<Term>,
}

/// The mask of the low `width` bits.
pub const fn mask(width: u8) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Sign-extends the low `width` bits of `v` to 64 bits.
pub const fn signed(width: u8, v: u64) -> i64 {
    if width == 0 || width >= 64 {
        v as i64
    } else {
        let shift = 64 - width as u32;
        ((v << shift) as i64) >> shift
    }
}

impl TermStore {
    /// An empty store.
    pub fn new() -> TermStore {
        TermStore::default()
    }

    /// Number of distinct terms built so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no term was built yet.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The shape of `t`.
    pub fn node(&self, t: Term) -> Node {
        self.nodes[t.index()]
    }

    /// The width of `t` in bits (0 for Booleans).
    pub fn width(&self, t: Term) -> u8 {
        self.widths[t.index()]
    }

    /// Whether `t` is a Boolean.
    pub fn is_bool(&self, t: Term) -> bool {
        self.width(t) == 0
    }

    /// The amount and width of a shift by `by` when it is a constant that makes the
    /// shift a product `x * 2^k` (`0 < k < width`): what a solver is given instead
    /// of the shift, so that it adds it up with the other products of a sum.
    pub fn constant_shift(&self, by: Term) -> Option<(u32, u8)> {
        let width = self.width(by);
        let k = self.as_const(by)?;
        (k > 0 && k < u64::from(width) && width <= 64).then_some((k as u32, width))
    }

    /// The two words of `t` when it is the 64-bit product of two zero-extended
    /// words (how the machine's `multu`, and a degree-2 fact, multiply without
    /// wrap-around), the lower-numbered term first: a product written as
    /// `mul64` where products are opaque ([`crate::term::Products::Opaque`]).
    pub fn wide_product(&self, t: Term) -> Option<(Term, Term)> {
        let Node::Bin(BinOp::Mul, x, y) = self.node(t) else {
            return None;
        };
        let word = |e: Term| match self.node(e) {
            Node::ZeroExt { by: 32, arg } if self.width(arg) == 32 => Some(arg),
            _ => None,
        };
        let (a, b) = (word(x)?, word(y)?);
        Some(if a <= b { (a, b) } else { (b, a) })
    }

    /// The two words of `t` when it is a 32-bit product of two words, neither a
    /// constant (`multu`'s `lo`), in the order of [`TermStore::wide_product`]: written
    /// as the low word of `mul64` where products are opaque.
    pub fn word_product(&self, t: Term) -> Option<(Term, Term)> {
        let Node::Bin(BinOp::Mul, a, b) = self.node(t) else {
            return None;
        };
        let words = self.width(t) == 32 && self.as_const(a).is_none();
        (words && self.as_const(b).is_none()).then_some(if a <= b { (a, b) } else { (b, a) })
    }

    /// The constant value of `t`, if it is a constant (Booleans as 0/1).
    pub fn as_const(&self, t: Term) -> Option<u64> {
        match self.node(t) {
            Node::Const { value, .. } => Some(value),
            Node::Bool(b) => Some(b as u64),
            _ => None,
        }
    }

    /// The name of input `index`, as declared.
    pub fn var_name(&self, index: u32) -> &str {
        self.var_names
            .get(index as usize)
            .map_or("?", |s| s.as_str())
    }

    /// Number of declared inputs.
    pub fn var_count(&self) -> usize {
        self.var_names.len()
    }

    /// Declares a new input called `name` and returns it.
    pub fn new_var(&mut self, name: &str, width: u8) -> Term {
        let index = self.var_names.len() as u32;
        self.var_names.push(name.to_string());
        self.intern(Node::Var { index, width }, width)
    }

    /// The term of `node`, if it was built already.
    fn find(&self, node: Node) -> Option<Term> {
        self.dedup.get(&node).copied()
    }

    fn intern(&mut self, node: Node, width: u8) -> Term {
        if let Some(&t) = self.dedup.get(&node) {
            return t;
        }
        let t = Term(self.nodes.len() as u32);
        self.nodes.push(node);
        self.widths.push(width);
        self.dedup.insert(node, t);
        t
    }

    /// The Boolean constant `b`.
    pub fn bool(&mut self, b: bool) -> Term {
        self.intern(Node::Bool(b), 0)
    }

    /// The `width`-bit constant `value` (truncated).
    pub fn constant(&mut self, width: u8, value: u64) -> Term {
        self.intern(
            Node::Const {
                width,
                value: value & mask(width),
            },
            width,
        )
    }

    /// A 32-bit constant.
    pub fn word(&mut self, value: u32) -> Term {
        self.constant(32, value as u64)
    }

    /// Logical negation.
    pub fn not(&mut self, a: Term) -> Term {
        match self.node(a) {
            Node::Bool(b) => self.bool(!b),
            Node::Not(x) => x,
            _ => self.intern(Node::Not(a), 0),
        }
    }

    /// Conjunction.
    pub fn and(&mut self, a: Term, b: Term) -> Term {
        match (self.node(a), self.node(b)) {
            (Node::Bool(false), _) | (_, Node::Bool(false)) => self.bool(false),
            (Node::Bool(true), _) => b,
            (_, Node::Bool(true)) => a,
            _ if a == b => a,
            (Node::Not(x), _) if x == b => self.bool(false),
            (_, Node::Not(y)) if y == a => self.bool(false),
            _ => {
                let (a, b) = (a.min(b), a.max(b));
                self.intern(Node::Bin(BinOp::And, a, b), 0)
            }
        }
    }

    /// Disjunction.
    pub fn or(&mut self, a: Term, b: Term) -> Term {
        match (self.node(a), self.node(b)) {
            (Node::Bool(true), _) | (_, Node::Bool(true)) => self.bool(true),
            (Node::Bool(false), _) => b,
            (_, Node::Bool(false)) => a,
            _ if a == b => a,
            (Node::Not(x), _) if x == b => self.bool(true),
            (_, Node::Not(y)) if y == a => self.bool(true),
            _ => {
                let (a, b) = (a.min(b), a.max(b));
                self.intern(Node::Bin(BinOp::Or, a, b), 0)
            }
        }
    }

    /// The conjunction of all `terms` (true when empty).
    pub fn and_all(&mut self, terms: impl IntoIterator<Item = Term>) -> Term {
        let mut acc = self.bool(true);
        for t in terms {
            acc = self.and(acc, t);
        }
        acc
    }

    /// The disjunction of all `terms` (false when empty).
    pub fn or_all(&mut self, terms: impl IntoIterator<Item = Term>) -> Term {
        let mut acc = self.bool(false);
        for t in terms {
            acc = self.or(acc, t);
        }
        acc
    }

    /// `if c then a else b`; maxima and minima in one canonical shape
    /// ([`extremum`]).
    pub fn ite(&mut self, c: Term, a: Term, b: Term) -> Term {
        if let Node::Not(x) = self.node(c) {
            return self.ite(x, b, a);
        }
        if a != b && !matches!(self.node(c), Node::Bool(_)) {
            if let Some(t) = self.extremum(c, a, b) {
                return t;
            }
        }
        self.plain_ite(c, a, b)
    }

    /// `if c then a else b` with only the local simplifications.
    fn plain_ite(&mut self, c: Term, a: Term, b: Term) -> Term {
        match self.node(c) {
            Node::Bool(true) => return a,
            Node::Bool(false) => return b,
            Node::Not(x) => return self.plain_ite(x, b, a),
            _ => {}
        }
        if a == b {
            return a;
        }
        let w = self.width(a);
        if w == 0 {
            // Boolean ite as connectives keeps conditions readable.
            let nc = self.not(c);
            let l = self.and(c, a);
            let r = self.and(nc, b);
            return self.or(l, r);
        }
        self.intern(Node::Ite(c, a, b), w)
    }

    /// Equality of two terms of one sort.
    pub fn eq(&mut self, a: Term, b: Term) -> Term {
        if a == b {
            return self.bool(true);
        }
        let (na, nb) = (self.node(a), self.node(b));
        match (na, nb) {
            (Node::Const { value: x, .. }, Node::Const { value: y, .. }) => {
                return self.bool(x == y)
            }
            (Node::Bool(x), Node::Bool(y)) => return self.bool(x == y),
            (Node::Bool(true), _) => return b,
            (_, Node::Bool(true)) => return a,
            (Node::Bool(false), _) => return self.not(b),
            (_, Node::Bool(false)) => return self.not(a),
            _ => {}
        }
        // Put a constant on the right.
        let (a, b) = if matches!(na, Node::Const { .. }) {
            (b, a)
        } else {
            (a, b)
        };
        if let (Node::Const { value: k, width }, n) = (self.node(b), self.node(a)) {
            match n {
                // ite(c, k1, k2) == k  ~>  c, !c, true or false
                Node::Ite(c, t, e) => {
                    if let (Some(kt), Some(ke)) = (self.as_const(t), self.as_const(e)) {
                        return match (kt == k, ke == k) {
                            (true, true) => self.bool(true),
                            (true, false) => c,
                            (false, true) => self.not(c),
                            (false, false) => self.bool(false),
                        };
                    }
                }
                // x + c1 == c2  ~>  x == c2 - c1
                Node::Bin(BinOp::Add, x, c1) => {
                    if let Some(c1) = self.as_const(c1) {
                        let k2 = self.constant(width, k.wrapping_sub(c1));
                        return self.eq(x, k2);
                    }
                }
                _ => {}
            }
        }
        let (a, b) = if self.as_const(a).is_none() && self.as_const(b).is_none() {
            (a.min(b), a.max(b))
        } else {
            (a, b)
        };
        self.intern(Node::Bin(BinOp::Eq, a, b), 0)
    }

    /// Disequality.
    pub fn ne(&mut self, a: Term, b: Term) -> Term {
        let e = self.eq(a, b);
        self.not(e)
    }

    /// A bit-vector operation, folded where its arguments allow.
    pub fn bin(&mut self, op: BinOp, a: Term, b: Term) -> Term {
        use BinOp::*;
        match op {
            Eq => return self.eq(a, b),
            And => return self.and(a, b),
            Or => return self.or(a, b),
            _ => {}
        }
        let w = self.width(a);
        let ca = self.as_const(a);
        let cb = self.as_const(b);
        if let (Some(x), Some(y)) = (ca, cb) {
            if let Some(v) = fold(op, w, self.width(b), x, y) {
                return match op {
                    Ult | Slt => self.bool(v != 0),
                    Concat => self.constant(w + self.width(b), v),
                    _ => self.constant(w, v),
                };
            }
        }
        // Adjacent bits of one term, put back together, are those bits of it (a word
        // stored byte by byte and loaded whole is the word).
        if op == Concat {
            if let (
                Node::Extract {
                    hi: h1,
                    lo: l1,
                    arg: x,
                },
                Node::Extract {
                    hi: h2,
                    lo: l2,
                    arg: y,
                },
            ) = (self.node(a), self.node(b))
            {
                if x == y && l1 == h2 + 1 {
                    return self.extract(h1, l2, x);
                }
            }
        }
        // Algebraic identities; constants go to the right of commutative operators.
        let (a, b, ca, cb) = match op {
            Add | Mul | BvAnd | BvOr | BvXor if ca.is_some() && cb.is_none() => (b, a, cb, ca),
            _ => (a, b, ca, cb),
        };
        // Zero shifted either way (arithmetically too: its sign bit is 0) is zero.
        if matches!(op, Shl | LShr | AShr) && ca == Some(0) {
            return self.constant(w, 0);
        }
        match (op, cb) {
            (Add, Some(0))
            | (Sub, Some(0))
            | (Mul, Some(1))
            | (UDiv, Some(1))
            | (SDiv, Some(1))
            | (BvOr, Some(0))
            | (BvXor, Some(0))
            | (Shl, Some(0))
            | (LShr, Some(0))
            | (AShr, Some(0)) => return a,
            (Mul, Some(0)) | (BvAnd, Some(0)) => return self.constant(w, 0),
            (BvAnd, Some(m)) if m == mask(w) => return a,
            (BvOr, Some(m)) if m == mask(w) => return self.constant(w, m),
            (Sub, Some(k)) => {
                let neg = self.constant(w, k.wrapping_neg());
                return self.bin(Add, a, neg);
            }
            (Add, Some(k)) => {
                // (x + c1) + c2  ~>  x + (c1 + c2)
                if let Node::Bin(Add, x, c1) = self.node(a) {
                    if let Some(c1) = self.as_const(c1) {
                        let sum = self.constant(w, c1.wrapping_add(k));
                        return self.bin(Add, x, sum);
                    }
                }
            }
            _ => {}
        }
        match op {
            Sub | BvXor if a == b => return self.constant(w, 0),
            BvOr if a == b => return a,
            Ult | Slt if a == b => return self.bool(false),
            _ => {}
        }
        // Sums (and products by constants) in one canonical shape.
        let parts = match op {
            Add => Some([(a, 1), (b, 1)]),
            Sub => Some([(a, 1), (b, mask(w))]),
            _ => None,
        };
        let mut too_long = false;
        if let Some(parts) = parts {
            match self.normalized_sum(w, &parts) {
                Normalized::Sum(t) => return t,
                Normalized::TooLong => too_long = true,
                Normalized::AsWritten => {}
            }
        }
        let (a, b) = match op {
            Add | Mul | BvAnd | BvOr | BvXor if cb.is_none() => (a.min(b), a.max(b)),
            _ => (a, b),
        };
        let width = match op {
            Ult | Slt => 0,
            Concat => w + self.width(b),
            _ => w,
        };
        let t = self.intern(Node::Bin(op, a, b), width);
        if too_long {
            self.too_long.insert(t);
        }
        t
    }

    /// Bits `hi..=lo` of `a`.
    pub fn extract(&mut self, hi: u8, lo: u8, a: Term) -> Term {
        let w = self.width(a);
        if lo == 0 && hi + 1 == w {
            return a;
        }
        let width = hi - lo + 1;
        if let Some(v) = self.as_const(a) {
            return self.constant(width, v >> lo);
        }
        match self.node(a) {
            // Bits of bits are bits of the original.
            Node::Extract { lo: inner, arg, .. } => {
                return self.extract(hi + inner, lo + inner, arg);
            }
            // Bits that lie in one half of a concatenation are bits of that half.
            Node::Bin(BinOp::Concat, high, low) => {
                let lw = self.width(low);
                if hi < lw {
                    return self.extract(hi, lo, low);
                }
                if lo >= lw {
                    return self.extract(hi - lw, lo - lw, high);
                }
            }
            _ => {}
        }
        if lo == 0 {
            match self.node(a) {
                // The low half of an extension is the original.
                Node::SignExt { arg, .. } | Node::ZeroExt { arg, .. }
                    if self.width(arg) == width =>
                {
                    return arg;
                }
                // The low half of a widened product is the narrow product.
                Node::Bin(BinOp::Mul, x, y) => {
                    let nx = self.extract(hi, 0, x);
                    let ny = self.extract(hi, 0, y);
                    return self.bin(BinOp::Mul, nx, ny);
                }
                _ => {}
            }
        }
        self.intern(Node::Extract { hi, lo, arg: a }, width)
    }

    /// `a` sign-extended by `by` bits.
    pub fn sign_ext(&mut self, by: u8, a: Term) -> Term {
        let w = self.width(a);
        if by == 0 {
            return a;
        }
        if let Some(v) = self.as_const(a) {
            return self.constant(w + by, signed(w, v) as u64);
        }
        self.intern(Node::SignExt { by, arg: a }, w + by)
    }

    /// `a` zero-extended by `by` bits.
    pub fn zero_ext(&mut self, by: u8, a: Term) -> Term {
        let w = self.width(a);
        if by == 0 {
            return a;
        }
        if let Some(v) = self.as_const(a) {
            return self.constant(w + by, v);
        }
        self.intern(Node::ZeroExt { by, arg: a }, w + by)
    }

    /// The memory holding `value` everywhere.
    pub fn const_array(&mut self, value: Term) -> Term {
        self.intern(Node::ConstArray(value), MEMORY)
    }

    /// Memory `mem` with the word at `addr` set to `value`.
    pub fn store(&mut self, mem: Term, addr: Term, value: Term) -> Term {
        // A second store to the same address hides the first.
        if let Node::Store(inner, a, _) = self.node(mem) {
            if a == addr {
                return self.store(inner, addr, value);
            }
        }
        self.intern(Node::Store(mem, addr, value), MEMORY)
    }

    /// The word of `mem` at `addr`, looking past stores that cannot alias.
    pub fn select(&mut self, mem: Term, addr: Term) -> Term {
        let key = self.as_const(addr);
        let mut at = mem;
        loop {
            match self.node(at) {
                Node::ConstArray(v) => return v,
                Node::Store(inner, a, v) => {
                    if a == addr {
                        return v;
                    }
                    match (key, self.as_const(a)) {
                        (Some(k), Some(j)) if k != j => at = inner,
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        self.intern(Node::Select(at, addr), 32)
    }

    /// The stores of memory `mem`, outermost first, and the value of the constant array
    /// underneath: how a solver without arrays reads it (`select(mem, a)` is
    /// `ite(a == j1, v1, ite(a == j2, v2, … default))`).
    pub fn store_chain(&self, mem: Term) -> (Vec<(Term, Term)>, Option<Term>) {
        let mut stores = Vec::new();
        let mut at = mem;
        loop {
            match self.node(at) {
                Node::Store(inner, a, v) => {
                    stores.push((a, v));
                    at = inner;
                }
                Node::ConstArray(v) => return (stores, Some(v)),
                _ => return (stores, None),
            }
        }
    }

    /// Whether `t` is a memory array.
    pub fn is_memory(&self, t: Term) -> bool {
        self.width(t) == MEMORY
    }

    /// The arguments of `t`, in order.
    pub fn children(&self, t: Term) -> impl Iterator<Item = Term> {
        let (a, b, c) = match self.node(t) {
            Node::Bool(_) | Node::Const { .. } | Node::Var { .. } => (None, None, None),
            Node::Not(x)
            | Node::Extract { arg: x, .. }
            | Node::SignExt { arg: x, .. }
            | Node::ZeroExt { arg: x, .. }
            | Node::ConstArray(x) => (Some(x), None, None),
            Node::Bin(_, x, y) | Node::Select(x, y) => (Some(x), Some(y), None),
            Node::Ite(x, y, z) | Node::Store(x, y, z) => (Some(x), Some(y), Some(z)),
        };
        a.into_iter().chain(b).chain(c)
    }

    /// `t` with each argument replaced by `f(argument)`, rebuilt through the folding
    /// constructors.
    pub fn rebuild(&mut self, t: Term, mut f: impl FnMut(Term) -> Term) -> Term {
        match self.node(t) {
            Node::Bool(_) | Node::Const { .. } | Node::Var { .. } => t,
            Node::Not(a) => {
                let a = f(a);
                self.not(a)
            }
            Node::Bin(op, a, b) => {
                let (a, b) = (f(a), f(b));
                self.bin(op, a, b)
            }
            Node::Extract { hi, lo, arg } => {
                let a = f(arg);
                self.extract(hi, lo, a)
            }
            Node::SignExt { by, arg } => {
                let a = f(arg);
                self.sign_ext(by, a)
            }
            Node::ZeroExt { by, arg } => {
                let a = f(arg);
                self.zero_ext(by, a)
            }
            Node::Ite(c, a, b) => {
                let (c, a, b) = (f(c), f(a), f(b));
                self.ite(c, a, b)
            }
            Node::ConstArray(v) => {
                let v = f(v);
                self.const_array(v)
            }
            Node::Store(m, a, v) => {
                let (m, a, v) = (f(m), f(a), f(v));
                self.store(m, a, v)
            }
            Node::Select(m, a) => {
                let (m, a) = (f(m), f(a));
                self.select(m, a)
            }
        }
    }

    /// `roots` with every occurrence of `from` replaced by `to`.
    pub fn substitute(&mut self, roots: &[Term], from: Term, to: Term) -> Vec<Term> {
        let mut map: FxHashMap<Term, Term> = FxHashMap::default();
        map.insert(from, to);
        self.substitute_all(roots, map)
    }

    /// `roots` with every occurrence of each key of `map` replaced by its value,
    /// rebuilt through the folding constructors.
    pub fn substitute_all(&mut self, roots: &[Term], mut map: FxHashMap<Term, Term>) -> Vec<Term> {
        for t in self.reachable(roots) {
            if map.contains_key(&t) {
                continue;
            }
            let changed = self
                .children(t)
                .any(|c| map.get(&c).is_some_and(|&n| n != c));
            let new = if changed {
                let m = &map;
                let kids: Vec<Term> = self.children(t).map(|c| *m.get(&c).unwrap_or(&c)).collect();
                let mut it = kids.into_iter();
                self.rebuild(t, |c| it.next().unwrap_or(c))
            } else {
                t
            };
            map.insert(t, new);
        }
        roots.iter().map(|r| *map.get(r).unwrap_or(r)).collect()
    }

    /// Every term reachable from `roots`, arguments before users (a topological order).
    pub fn reachable(&self, roots: &[Term]) -> Vec<Term> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut order = Vec::new();
        let mut stack: Vec<(Term, bool)> = roots.iter().rev().map(|&t| (t, false)).collect();
        while let Some((t, done)) = stack.pop() {
            if done {
                order.push(t);
                continue;
            }
            if !seen.insert(t) {
                continue;
            }
            stack.push((t, true));
            let kids: Vec<Term> = self.children(t).collect();
            for k in kids.into_iter().rev() {
                if !seen.contains(&k) {
                    stack.push((k, false));
                }
            }
        }
        order
    }

    /// Whether `roots` multiply or divide: the backend solves those far faster as
    /// assertions in a fresh solver (preprocessed, then bit-blasted) than as
    /// assumptions, and one query over many paths costs less than many queries.
    pub fn has_arithmetic(&self, roots: &[Term]) -> bool {
        self.reachable(roots).into_iter().any(|t| {
            matches!(
                self.node(t),
                Node::Bin(
                    BinOp::Mul | BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem,
                    _,
                    _
                )
            )
        })
    }

    /// The inputs that `roots` mention, by index.
    pub fn vars_of(&self, roots: &[Term]) -> Vec<u32> {
        let mut vars: Vec<u32> = self
            .reachable(roots)
            .into_iter()
            .filter_map(|t| match self.node(t) {
                Node::Var { index, .. } => Some(index),
                _ => None,
            })
            .collect();
        vars.sort_unstable();
        vars.dedup();
        vars
    }
}

/// Folds a binary operation on constants of width `w` (`wb` for the right argument of
/// a concatenation); `None` where SMT-LIB semantics differ from the machine's
/// (division by zero), so that such terms are left to the solver.
fn fold(op: BinOp, w: u8, wb: u8, x: u64, y: u64) -> Option<u64> {
    use BinOp::*;
    let m = mask(w);
    Some(match op {
        Add => x.wrapping_add(y) & m,
        Sub => x.wrapping_sub(y) & m,
        Mul => x.wrapping_mul(y) & m,
        UDiv => {
            if y == 0 {
                return None;
            }
            x / y
        }
        URem => {
            if y == 0 {
                return None;
            }
            x % y
        }
        SDiv => {
            if y == 0 {
                return None;
            }
            (signed(w, x).wrapping_div(signed(w, y)) as u64) & m
        }
        SRem => {
            if y == 0 {
                return None;
            }
            (signed(w, x).wrapping_rem(signed(w, y)) as u64) & m
        }
        BvAnd => x & y,
        BvOr => x | y,
        BvXor => x ^ y,
        // SMT-LIB shifts: the amount is the whole second operand, read as unsigned.
        Shl => {
            if y >= w as u64 {
                0
            } else {
                (x << y) & m
            }
        }
        LShr => {
            if y >= w as u64 {
                0
            } else {
                (x & m) >> y
            }
        }
        AShr => {
            let sx = signed(w, x & m);
            // Past the sign bit every bit is the sign bit: as a shift by `w - 1`.
            let by = y.min((w as u64).saturating_sub(1)).min(63);
            ((sx >> by) as u64) & m
        }
        Concat => (x << wb) | y,
        Ult => (x < y) as u64,
        Slt => (signed(w, x) < signed(w, y)) as u64,
        Eq | And | Or => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_consing_shares_equal_terms() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let a = s.bin(BinOp::Add, x, y);
        let b = s.bin(BinOp::Add, y, x);
        assert_eq!(a, b);
    }

    #[test]
    fn constants_fold() {
        let mut s = TermStore::new();
        let a = s.word(0xFFFF_FFFF);
        let b = s.word(2);
        let sum = s.bin(BinOp::Add, a, b);
        assert_eq!(s.as_const(sum), Some(1));
        let lt = s.bin(BinOp::Slt, a, b);
        assert_eq!(s.as_const(lt), Some(1));
        let ult = s.bin(BinOp::Ult, a, b);
        assert_eq!(s.as_const(ult), Some(0));
        let min = s.word(0x8000_0000);
        let m1 = s.word(u32::MAX);
        let q = s.bin(BinOp::SDiv, min, m1);
        assert_eq!(s.as_const(q), Some(0x8000_0000));
        let zero = s.word(0);
        let d0 = s.bin(BinOp::UDiv, a, zero);
        assert_eq!(s.as_const(d0), None, "division by zero is left symbolic");
    }

    #[test]
    fn slt_branch_conditions_simplify() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let lt = s.bin(BinOp::Slt, x, y);
        let one = s.word(1);
        let zero = s.word(0);
        let v = s.ite(lt, one, zero);
        assert_eq!(s.eq(v, zero), s.not(lt));
        assert_eq!(s.eq(v, one), lt);
    }

    #[test]
    fn offsets_move_across_equalities() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let five = s.word(5);
        let sum = s.bin(BinOp::Add, x, five);
        let k = s.word(12);
        let seven = s.word(7);
        assert_eq!(s.eq(sum, k), s.eq(x, seven));
        let back = s.bin(BinOp::Sub, sum, five);
        assert_eq!(back, x);
    }

    #[test]
    fn selects_see_past_stores_that_cannot_alias() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let zero = s.word(0);
        let m0 = s.const_array(zero);
        let (a4, a8, v) = (s.word(4), s.word(8), s.word(7));
        let m1 = s.store(m0, a4, x);
        let m2 = s.store(m1, a8, v);
        assert_eq!(s.select(m2, a4), x);
        assert_eq!(s.select(m2, a8), v);
        let a12 = s.word(12);
        assert_eq!(s.select(m2, a12), zero);
        // A symbolic address stops the walk.
        let m3 = s.store(m2, x, v);
        let through = s.select(m3, a4);
        assert!(matches!(s.node(through), Node::Select(..)));
        assert_eq!(s.select(m3, x), v);
    }

    #[test]
    fn low_half_of_wide_product_is_narrow_product() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let (wx, wy) = (s.sign_ext(32, x), s.sign_ext(32, y));
        let p = s.bin(BinOp::Mul, wx, wy);
        let lo = s.extract(31, 0, p);
        assert_eq!(lo, s.bin(BinOp::Mul, x, y));
    }

    #[test]
    fn bitwise_and_shift_constants_fold_as_smtlib_says() {
        let mut s = TermStore::new();
        let fold32 = |s: &mut TermStore, op: BinOp, x: u32, y: u32| {
            let (a, b) = (s.word(x), s.word(y));
            let t = s.bin(op, a, b);
            s.as_const(t)
        };
        assert_eq!(fold32(&mut s, BinOp::BvOr, 0xF0F0, 0x0FF0), Some(0xFFF0));
        assert_eq!(fold32(&mut s, BinOp::BvXor, 0xF0F0, 0x0FF0), Some(0xFF00));
        assert_eq!(fold32(&mut s, BinOp::Shl, 0x8000_0001, 1), Some(2));
        assert_eq!(fold32(&mut s, BinOp::Shl, 1, 31), Some(0x8000_0000));
        assert_eq!(fold32(&mut s, BinOp::LShr, 0x8000_0000, 31), Some(1));
        assert_eq!(
            fold32(&mut s, BinOp::AShr, 0x8000_0000, 31),
            Some(0xFFFF_FFFF)
        );
        assert_eq!(
            fold32(&mut s, BinOp::AShr, 0x8000_0010, 4),
            Some(0xF800_0001)
        );
        assert_eq!(
            fold32(&mut s, BinOp::AShr, 0x7000_0010, 4),
            Some(0x0700_0001)
        );
        // A shift by the width or more: 0, or every bit the sign bit.
        for by in [32, 33, 64, 0x8000_0000, u32::MAX] {
            assert_eq!(fold32(&mut s, BinOp::Shl, u32::MAX, by), Some(0), "<< {by}");
            assert_eq!(
                fold32(&mut s, BinOp::LShr, u32::MAX, by),
                Some(0),
                ">>u {by}"
            );
            assert_eq!(
                fold32(&mut s, BinOp::AShr, 0x8000_0000, by),
                Some(0xFFFF_FFFF)
            );
            assert_eq!(fold32(&mut s, BinOp::AShr, 0x7FFF_FFFF, by), Some(0));
        }
        // Other widths: results are masked to the width.
        let (a, b) = (s.constant(8, 0x81), s.constant(8, 1));
        let t = s.bin(BinOp::Shl, a, b);
        assert_eq!((s.as_const(t), s.width(t)), (Some(0x02), 8));
        let t = s.bin(BinOp::AShr, a, b);
        assert_eq!(s.as_const(t), Some(0xC0));
        let eight = s.constant(8, 8);
        let t = s.bin(BinOp::AShr, a, eight);
        assert_eq!(s.as_const(t), Some(0xFF));
        let (a, b) = (s.constant(64, 1 << 63), s.constant(64, 63));
        let t = s.bin(BinOp::AShr, a, b);
        assert_eq!(s.as_const(t), Some(u64::MAX));
        let t = s.bin(BinOp::LShr, a, b);
        assert_eq!(s.as_const(t), Some(1));
        let sixty_four = s.constant(64, 64);
        let t = s.bin(BinOp::Shl, b, sixty_four);
        assert_eq!(s.as_const(t), Some(0));
        let t = s.bin(BinOp::AShr, a, sixty_four);
        assert_eq!(s.as_const(t), Some(u64::MAX));
    }

    #[test]
    fn bytes_put_back_together_are_the_word() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let bytes: Vec<Term> = [31u8, 23, 15, 7]
            .iter()
            .map(|&h| s.extract(h, h - 7, x))
            .collect();
        let hi = s.bin(BinOp::Concat, bytes[0], bytes[1]);
        let lo = s.bin(BinOp::Concat, bytes[2], bytes[3]);
        assert_eq!(s.bin(BinOp::Concat, hi, lo), x);
        // Bits of bits, and bits of one half of a concatenation.
        let half = s.extract(15, 0, x);
        let e = s.extract(15, 8, half);
        assert_eq!(e, bytes[2]);
        let y = s.new_var("y", 16);
        let c = s.bin(BinOp::Concat, y, half);
        assert_eq!(s.extract(7, 0, c), bytes[3]);
        let y_hi = s.extract(15, 8, y);
        assert_eq!(s.extract(31, 24, c), y_hi);
        // Bits that straddle the halves stay an extraction.
        let mid = s.extract(23, 8, c);
        assert!(matches!(s.node(mid), Node::Extract { .. }));
        // Not adjacent, or of different terms: left as written.
        let gap = s.bin(BinOp::Concat, bytes[0], bytes[2]);
        assert!(matches!(s.node(gap), Node::Bin(BinOp::Concat, _, _)));
        let v = s.new_var("v", 32);
        let other = s.extract(23, 16, v);
        let mixed = s.bin(BinOp::Concat, bytes[0], other);
        assert!(matches!(s.node(mixed), Node::Bin(BinOp::Concat, _, _)));
        // And every rewrite keeps the value.
        for value in [0u64, 0x1234_5678, 0xdead_beef, u32::MAX as u64] {
            let vals = [value, 0xabcd, value ^ 0x5555_5555];
            let mut e = crate::term::Evaluator::new(&s, &vals);
            assert_eq!(
                e.eval(mid),
                (((0xabcdu64 << 16) | (value & 0xffff)) >> 8) & 0xffff
            );
        }
    }

    #[test]
    fn bitwise_and_shift_identities() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let zero = s.word(0);
        let ones = s.word(u32::MAX);
        for op in [BinOp::BvOr, BinOp::BvXor] {
            assert_eq!(s.bin(op, x, zero), x, "{op:?} 0");
            assert_eq!(s.bin(op, zero, x), x, "0 {op:?}");
            // Commutative: one term whatever the order, a constant on the right.
            let (a, b) = (s.bin(op, x, y), s.bin(op, y, x));
            assert_eq!(a, b);
            let three = s.word(3);
            let k = s.bin(op, three, x);
            assert_eq!(s.node(k), Node::Bin(op, x, three));
        }
        assert_eq!(s.bin(BinOp::BvOr, x, x), x);
        assert_eq!(s.bin(BinOp::BvXor, x, x), zero);
        assert_eq!(s.bin(BinOp::BvOr, x, ones), ones);
        assert_eq!(s.bin(BinOp::BvOr, ones, x), ones);
        for op in [BinOp::Shl, BinOp::LShr, BinOp::AShr] {
            assert_eq!(s.bin(op, x, zero), x, "{op:?} by 0");
            assert_eq!(s.bin(op, zero, x), zero, "0 {op:?}");
            // Not commutative: the operands stay where they are.
            let t = s.bin(op, y, x);
            assert_eq!(s.node(t), Node::Bin(op, y, x));
            assert_eq!(s.width(t), 32);
            let k = s.word(5);
            let t = s.bin(op, k, x);
            assert_eq!(s.node(t), Node::Bin(op, k, x));
        }
        // All ones shifted arithmetically stays all ones, but is left symbolic.
        let t = s.bin(BinOp::AShr, ones, x);
        assert_eq!(s.node(t), Node::Bin(BinOp::AShr, ones, x));
        // Widths: an 8-bit shift is 8 bits wide.
        let b = s.new_var("b", 8);
        let k = s.constant(8, 3);
        let t = s.bin(BinOp::Shl, b, k);
        assert_eq!(s.width(t), 8);
        let t = s.bin(BinOp::BvXor, b, k);
        assert_eq!(s.width(t), 8);
    }

    #[test]
    fn complementary_conditions_fold() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let k = s.word(3);
        let c = s.eq(x, k);
        let nc = s.not(c);
        let both = s.and(c, nc);
        assert_eq!(s.as_const(both), Some(0));
        let t = s.or(c, nc);
        assert_eq!(s.as_const(t), Some(1));
    }
}
