//! The bitwise and shift operators (`BvOr`, `BvXor`, `Shl`, `LShr`, `AShr`) mean
//! exactly what SMT-LIB says, everywhere a term is read.
//!
//! Random term trees mixing them with the older operators, over random widths, are
//! built twice: over inputs and over the constants of a random assignment. Then
//! (a) the store's folding of the constant tree, the concrete evaluator on the tree
//! over inputs, and an independent reference interpreter of the tree (written here,
//! sharing no code with the engine) give one value; (b) Z3 agrees: with every input
//! pinned by an equality, `t == v` is sat and `t != v` unsat, in process and through
//! the SMT-LIB text; (c) the whole solver chain stays sound on queries over them.
//! Shift amounts at and past the width and arithmetic shifts of negative values are
//! drawn often.

use std::time::Duration;

use proptest::prelude::*;
use tamarin::solver::{build_chain, Answer, Solver, SolverConfig, Z3Mode, Z3Solver};
use tamarin::term::{mask, to_smtlib, BinOp, Evaluator, Term, TermStore};
use z3::SatResult;

const TIMEOUT: Duration = Duration::from_secs(20);
const INPUTS: usize = 3;

/// A term tree: leaves are inputs or constants.
#[derive(Clone, Debug)]
enum Expr {
    Var(usize),
    /// A constant, drawn by [`Value`] (so it depends on the width).
    Const(Value),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `ite(a <s b, c, d)` (`<u` when `.0`).
    Ite(bool, Box<[Expr; 4]>),
}

/// A value of the tree's width, chosen to hit the interesting cases of shifts.
#[derive(Clone, Copy, Debug)]
enum Value {
    Any(u64),
    /// A small number: shift amounts below, at and past every width drawn.
    Small(u8),
    /// The sign bit plus a small number: negative.
    Negative(u8),
    /// The sign bit plus any low bits.
    NegativeAny(u64),
    AllOnes,
    /// `width + d - 2`: shift amounts just below, at and past the width.
    NearWidth(u8),
}

impl Value {
    fn at(self, w: u8) -> u64 {
        let sign = 1u64 << (w - 1);
        let v = match self {
            Value::Any(v) => v,
            Value::Small(k) => k as u64,
            Value::Negative(k) => sign | k as u64,
            Value::NegativeAny(v) => sign | v,
            Value::AllOnes => u64::MAX,
            Value::NearWidth(d) => (w as u64 + d as u64).wrapping_sub(2),
        };
        v & mask(w)
    }
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        2 => any::<u64>().prop_map(Value::Any),
        2 => (0u8..70).prop_map(Value::Small),
        1 => (0u8..8).prop_map(Value::Negative),
        1 => any::<u64>().prop_map(Value::NegativeAny),
        1 => Just(Value::AllOnes),
        2 => (0u8..4).prop_map(Value::NearWidth),
    ]
}

const NEW_OPS: [BinOp; 5] = [
    BinOp::BvOr,
    BinOp::BvXor,
    BinOp::Shl,
    BinOp::LShr,
    BinOp::AShr,
];
const OLD_OPS: [BinOp; 6] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::BvAnd,
    BinOp::UDiv,
    BinOp::SRem,
];

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        3 => (0..INPUTS).prop_map(Expr::Var),
        2 => value().prop_map(Expr::Const),
    ];
    leaf.prop_recursive(5, 40, 4, |inner| {
        prop_oneof![
            6 => (0..NEW_OPS.len(), inner.clone(), inner.clone())
                .prop_map(|(o, a, b)| Expr::Bin(NEW_OPS[o], a.into(), b.into())),
            3 => (0..OLD_OPS.len(), inner.clone(), inner.clone())
                .prop_map(|(o, a, b)| Expr::Bin(OLD_OPS[o], a.into(), b.into())),
            // The same operand twice (`x ^ x`, `x | x`, `x >> x`).
            1 => (0..NEW_OPS.len(), inner.clone())
                .prop_map(|(o, a)| Expr::Bin(NEW_OPS[o], a.clone().into(), a.into())),
            1 => (any::<bool>(), inner.clone(), inner.clone(), inner.clone(), inner)
                .prop_map(|(u, a, b, c, d)| Expr::Ite(u, Box::new([a, b, c, d]))),
        ]
    })
}

fn width() -> impl Strategy<Value = u8> {
    prop_oneof![Just(8u8), Just(16), Just(32), Just(64)]
}

/// How a tree's input `i` is built: an input of the store, or a constant.
type Leaf<'a> = &'a dyn Fn(&mut TermStore, usize) -> Term;

/// Builds `e` at width `w`, its inputs read by `leaf`.
fn build(s: &mut TermStore, w: u8, e: &Expr, leaf: Leaf) -> Term {
    match e {
        Expr::Var(i) => leaf(s, *i),
        Expr::Const(v) => s.constant(w, v.at(w)),
        Expr::Bin(op, a, b) => {
            let (x, y) = (build(s, w, a, leaf), build(s, w, b, leaf));
            s.bin(*op, x, y)
        }
        Expr::Ite(unsigned, parts) => {
            let [a, b, c, d] = &**parts;
            let (a, b) = (build(s, w, a, leaf), build(s, w, b, leaf));
            let op = if *unsigned { BinOp::Ult } else { BinOp::Slt };
            let cond = s.bin(op, a, b);
            let (c, d) = (build(s, w, c, leaf), build(s, w, d, leaf));
            s.ite(cond, c, d)
        }
    }
}

/// The reference semantics of SMT-LIB's bit-vector operators, on `w`-bit values
/// (written out here, independently of the engine's folding), in `u128` so that no
/// Rust shift or division can overflow.
fn reference(op: BinOp, w: u8, x: u64, y: u64) -> u64 {
    let m = mask(w) as u128;
    let (x, y) = (x as u128 & m, y as u128 & m);
    let w128 = w as u128;
    let sign = 1u128 << (w - 1);
    let neg = |v: u128| v & sign != 0;
    let negate = |v: u128| (m + 1 - v) & m;
    let r = match op {
        BinOp::BvOr => x | y,
        BinOp::BvXor => x ^ y,
        BinOp::BvAnd => x & y,
        BinOp::Shl => (if y >= w128 { 0 } else { x << y }) & m,
        BinOp::LShr => {
            if y >= w128 {
                0
            } else {
                x >> y
            }
        }
        BinOp::AShr => {
            // Bit i of the result is bit i + y of x, or the sign bit past the top.
            let mut r = 0u128;
            for i in 0..w128 {
                let from = i + y;
                let bit = if from >= w128 {
                    neg(x)
                } else {
                    (x >> from) & 1 == 1
                };
                r |= (bit as u128) << i;
            }
            r
        }
        BinOp::Add => (x + y) & m,
        BinOp::Sub => (x + (m + 1) - y) & m,
        BinOp::Mul => (x * y) & m,
        BinOp::UDiv => x.checked_div(y).unwrap_or(m),
        BinOp::SRem => {
            // The remainder of |x| by |y|, with x's sign; x when y is 0.
            if y == 0 {
                x
            } else {
                let (ax, ay) = (
                    if neg(x) { negate(x) } else { x },
                    if neg(y) { negate(y) } else { y },
                );
                let r = ax % ay;
                if neg(x) {
                    negate(r)
                } else {
                    r
                }
            }
        }
        other => panic!("no reference for {other:?}"),
    };
    r as u64
}

fn reference_value(w: u8, e: &Expr, vals: &[u64]) -> u64 {
    match e {
        Expr::Var(i) => vals[*i] & mask(w),
        Expr::Const(v) => v.at(w),
        Expr::Bin(op, a, b) => reference(
            *op,
            w,
            reference_value(w, a, vals),
            reference_value(w, b, vals),
        ),
        Expr::Ite(unsigned, parts) => {
            let [a, b, c, d] = &**parts;
            let (a, b) = (reference_value(w, a, vals), reference_value(w, b, vals));
            let sign = 1u64 << (w - 1);
            let lt = if *unsigned {
                a < b
            } else {
                (a ^ sign) < (b ^ sign)
            };
            if lt {
                reference_value(w, c, vals)
            } else {
                reference_value(w, d, vals)
            }
        }
    }
}

/// A query's answer where it is known: (sat, whether Z3 must find it: with every
/// input pinned it cannot be hard).
type Known = (bool, bool);

/// A tree with its store: `t` over the inputs `vars`.
struct Built {
    store: TermStore,
    vars: Vec<Term>,
    t: Term,
}

fn over_inputs(w: u8, e: &Expr) -> Built {
    let mut store = TermStore::new();
    let vars: Vec<Term> = (0..INPUTS)
        .map(|i| store.new_var(&format!("${}", i + 1), w))
        .collect();
    let t = build(&mut store, w, e, &|_, i| vars[i]);
    Built { store, vars, t }
}

fn assignment(w: u8, vals: &[Value]) -> Vec<u64> {
    vals.iter().map(|v| v.at(w)).collect()
}

fn values() -> impl Strategy<Value = Vec<Value>> {
    proptest::collection::vec(value(), INPUTS)
}

/// The equalities that pin every input to its value in `vals`.
fn pins(b: &mut Built, vals: &[u64]) -> Vec<Term> {
    let w = b.store.width(b.vars[0]);
    (0..INPUTS)
        .map(|i| {
            let k = b.store.constant(w, vals[i]);
            b.store.eq(b.vars[i], k)
        })
        .collect()
}

fn holds_all(store: &TermStore, query: &[Term], values: &[u64]) -> bool {
    let mut ev = Evaluator::new(store, values);
    query.iter().all(|&c| ev.holds(c))
}

/// Z3's answer to the SMT-LIB text of `query`.
fn text_answer(store: &mut TermStore, query: &[Term]) -> SatResult {
    let text = to_smtlib(store, query, "bitops");
    let solver = z3::Solver::new();
    let mut p = z3::Params::new();
    p.set_u32("timeout", TIMEOUT.as_millis() as u32);
    solver.set_params(&p);
    solver.from_string(text.as_str());
    assert_eq!(
        solver.get_assertions().len(),
        query.len(),
        "the text did not parse:\n{text}"
    );
    solver.check()
}

fn has_division(e: &Expr) -> bool {
    match e {
        Expr::Var(_) | Expr::Const(_) => false,
        Expr::Bin(op, a, b) => {
            matches!(op, BinOp::UDiv | BinOp::SRem) || has_division(a) || has_division(b)
        }
        Expr::Ite(_, parts) => parts.iter().any(has_division),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// (a) Folding the tree built over constants, evaluating the tree built over
    /// inputs, and the reference interpreter give one value.
    #[test]
    fn folding_evaluation_and_reference_agree(w in width(), e in expr(), vals in values()) {
        let vals = assignment(w, &vals);
        let b = over_inputs(w, &e);
        prop_assert_eq!(b.store.width(b.t), w);
        let evaluated = Evaluator::new(&b.store, &vals).eval(b.t);
        let want = reference_value(w, &e, &vals);
        prop_assert_eq!(evaluated, want, "evaluator on {}", b.store.readable(b.t));
        let mut s = TermStore::new();
        let folded = build(&mut s, w, &e, &|s, i| s.constant(w, vals[i]));
        match s.as_const(folded) {
            Some(k) => prop_assert_eq!(k, want, "folded"),
            // Only a division by zero is left to the solver.
            None => {
                prop_assert!(has_division(&e), "not folded: {}", s.readable(folded));
                prop_assert_eq!(Evaluator::new(&s, &[]).eval(folded), want);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// (b) With every input pinned, Z3 finds `t == v` sat and `t != v` unsat, where
    /// `v` is the evaluator's value; in process and through the SMT-LIB text.
    #[test]
    fn z3_agrees_with_the_evaluator(w in width(), e in expr(), vals in values()) {
        let vals = assignment(w, &vals);
        let mut b = over_inputs(w, &e);
        let v = Evaluator::new(&b.store, &vals).eval(b.t);
        let k = b.store.constant(w, v);
        let pinned = pins(&mut b, &vals);
        let same = b.store.eq(b.t, k);
        let differ = b.store.not(same);
        let sat_query: Vec<Term> = pinned.iter().copied().chain([same]).collect();
        let unsat_query: Vec<Term> = pinned.iter().copied().chain([differ]).collect();

        let mut z3 = Z3Solver::new(Z3Mode::Fresh, TIMEOUT);
        match z3.check(&mut b.store, &sat_query) {
            Answer::Sat(m) => {
                prop_assert_eq!(&m.values[..INPUTS], &vals[..]);
                prop_assert!(holds_all(&b.store, &sat_query, &m.values));
            }
            other => prop_assert!(
                false,
                "t == v: {:?} on {} == {:#x}",
                other,
                b.store.readable(b.t),
                v
            ),
        }
        let answer = z3.check(&mut b.store, &unsat_query);
        prop_assert_eq!(
            &answer,
            &Answer::Unsat,
            "t != v on {} at {:x?}",
            b.store.readable(b.t),
            vals
        );

        prop_assert_eq!(text_answer(&mut b.store, &sat_query), SatResult::Sat);
        prop_assert_eq!(text_answer(&mut b.store, &unsat_query), SatResult::Unsat);
    }
}

/// Cases of the solver-chain property: 16 by default (each takes a quarter of a
/// second of solving), `TAMARIN_CHAIN_CASES` where a longer run is wanted (`.ci/run`
/// asks for 128 in a release build).
fn chain_cases() -> u32 {
    std::env::var("TAMARIN_CHAIN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: chain_cases(), ..ProptestConfig::default() })]

    /// (c) Through the whole solver chain (propagation, the unary step, splitting,
    /// difference constraints, elimination, caches): pinned queries get the right
    /// answer, an unpinned `t == v` (sat: the assignment is a model) is never unsat,
    /// every model satisfies its query, and unpinned queries get Z3's own answer.
    #[test]
    fn the_solver_chain_stays_sound(
        w in prop_oneof![Just(8u8), Just(32)],
        e in expr(),
        f in expr(),
        vals in values(),
    ) {
        let vals = assignment(w, &vals);
        let mut b = over_inputs(w, &e);
        let u = build(&mut b.store, w, &f, &|_, i| [b.vars[1], b.vars[2], b.vars[0]][i]);
        let v = Evaluator::new(&b.store, &vals).eval(b.t);
        let k = b.store.constant(w, v);
        let pinned = pins(&mut b, &vals);
        let same = b.store.eq(b.t, k);
        let differ = b.store.not(same);
        let below = b.store.bin(BinOp::Ult, b.t, u);
        let sum = b.store.bin(BinOp::Add, b.vars[0], u);
        let sum_is = b.store.eq(sum, k);
        let queries: Vec<(Vec<Term>, Option<Known>)> = vec![
            (pinned.iter().copied().chain([same]).collect(), Some((true, true))),
            (pinned.iter().copied().chain([differ]).collect(), Some((false, true))),
            (pinned[1..].iter().copied().chain([differ]).collect(), None),
            (vec![same], Some((true, false))),
            (vec![differ], None),
            (vec![same, below], None),
            (vec![sum_is, differ], None),
            (vec![pinned[0], below], None),
        ];
        let mut chain = build_chain(&SolverConfig::default(), Default::default(), Vec::new());
        for (query, known) in queries {
            let answer = chain.check(&mut b.store, &query);
            let direct = Z3Solver::new(Z3Mode::Fresh, TIMEOUT).check(&mut b.store, &query);
            let text: Vec<String> =
                query.iter().map(|&c| b.store.readable(c).to_string()).collect();
            if let Answer::Sat(m) = &answer {
                let ok = holds_all(&b.store, &query, &m.values);
                prop_assert!(ok, "chain model {:?} of {:?}", m.values, text);
            }
            if let Answer::Sat(m) = &direct {
                let ok = holds_all(&b.store, &query, &m.values);
                prop_assert!(ok, "z3 model {:?} of {:?}", m.values, text);
            }
            if let Some((sat, strict)) = known {
                let want = if sat { "sat" } else { "unsat" };
                let chain_ok = answer.name() == want || answer.name() == "unknown";
                prop_assert!(chain_ok, "chain: {:?} on {:?}", answer, text);
                let z3_ok = direct.name() == want || (!strict && direct.name() == "unknown");
                prop_assert!(z3_ok, "z3: {:?} on {:?}", direct, text);
            }
            if answer.name() != "unknown" && direct.name() != "unknown" {
                prop_assert_eq!(answer.name(), direct.name(), "on {:?}", text);
            }
        }
    }
}

/// Every shift amount at and past the width, of negative and positive values, at
/// every width: the fold, the evaluator over inputs, and Z3 agree.
#[test]
fn shifts_at_and_past_the_width() {
    for w in [1u8, 5, 8, 32, 63, 64] {
        let m = mask(w);
        let sign = 1u64 << (w - 1);
        let amounts = [
            0,
            1,
            (w - 1) as u64,
            w as u64,
            w as u64 + 1,
            2 * w as u64,
            m >> 1,
            m,
        ];
        let operands = [0, 1, sign, sign | 1, m, m >> 1, 0x5A5A_5A5A_5A5A_5A5A & m];
        let mut s = TermStore::new();
        let (x, y) = (s.new_var("x", w), s.new_var("y", w));
        let mut z3 = Z3Solver::new(Z3Mode::Fresh, TIMEOUT);
        for op in [BinOp::Shl, BinOp::LShr, BinOp::AShr] {
            for &a in &operands {
                for &by in &amounts {
                    let by = by & m;
                    let want = reference(op, w, a, by);
                    let (ka, kb) = (s.constant(w, a), s.constant(w, by));
                    let folded = s.bin(op, ka, kb);
                    assert_eq!(
                        s.as_const(folded),
                        Some(want),
                        "{op:?} {a:#x} by {by} at {w}"
                    );
                    let t = s.bin(op, x, y);
                    assert_eq!(Evaluator::new(&s, &[a, by]).eval(t), want);
                    let (px, py) = (s.eq(x, ka), s.eq(y, kb));
                    let kw = s.constant(w, want);
                    let wrong = s.ne(t, kw);
                    assert_eq!(
                        z3.check(&mut s, &[px, py, wrong]),
                        Answer::Unsat,
                        "z3: {op:?} {a:#x} by {by} at {w} is not {want:#x}"
                    );
                }
            }
        }
    }
}

/// The identities the store applies are valid: Z3 finds no input where the term as
/// written (built from parts the store cannot see through) differs from the rewrite.
#[test]
fn identities_are_valid() {
    for w in [8u8, 32] {
        let mut s = TermStore::new();
        let x = s.new_var("x", w);
        let y = s.new_var("y", w);
        let zero = s.constant(w, 0);
        let ones = s.constant(w, mask(w));
        // Each pair: the rewrite, and the same operation on a fresh input pinned by
        // an equality to the operand the rewrite used (so nothing folds).
        let z = s.new_var("z", w);
        let cases: Vec<(BinOp, Term, Term, Term)> = vec![
            (BinOp::BvOr, x, zero, x),
            (BinOp::BvXor, x, zero, x),
            (BinOp::BvOr, x, ones, ones),
            (BinOp::Shl, x, zero, x),
            (BinOp::LShr, x, zero, x),
            (BinOp::AShr, x, zero, x),
            (BinOp::Shl, zero, y, zero),
            (BinOp::LShr, zero, y, zero),
            (BinOp::AShr, zero, y, zero),
        ];
        let mut z3 = Z3Solver::new(Z3Mode::Fresh, TIMEOUT);
        for (op, a, b, want) in cases {
            assert_eq!(s.bin(op, a, b), want, "{op:?}");
            // The constant operand as the input z, pinned to it.
            let (a2, b2, k) = if s.as_const(b).is_some() {
                (a, z, b)
            } else {
                (z, b, a)
            };
            let pin = s.eq(z, k);
            let t = s.bin(op, a2, b2);
            assert!(s.as_const(t).is_none());
            let differ = s.ne(t, want);
            assert_eq!(
                z3.check(&mut s, &[pin, differ]),
                Answer::Unsat,
                "{op:?} at {w}"
            );
        }
        for (op, want) in [(BinOp::BvOr, x), (BinOp::BvXor, zero)] {
            assert_eq!(s.bin(op, x, x), want);
            let pin = s.eq(z, x);
            let t = s.bin(op, x, z);
            let differ = s.ne(t, want);
            assert_eq!(
                z3.check(&mut s, &[pin, differ]),
                Answer::Unsat,
                "{op:?} x x at {w}"
            );
        }
    }
}
