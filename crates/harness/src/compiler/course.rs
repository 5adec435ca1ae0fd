//! A course-like corpus: small hand-written programs of the kind a compiler course
//! tests its students' compilers on (arithmetic, comparisons, counted loops, recursion,
//! arrays and pointers), as ASTs of [`source`](super::source), each with a short name.
//!
//! They keep the random programs' promises: every one prints something it computed,
//! is defined on every input (division by zero faults on both sides alike), stays in
//! its array, and ends within 20000 steps of the linked machine code on every input
//! (loop counts and recursion depths are clamped; Euclid's `%` loop ends after at most
//! about 47 trips on 32-bit operands).
//!
//! [`course_pairs`] makes, for each program, the pair naive against register-allocating
//! (equal by construction) and two pairs naive against register-allocating with a
//! planted bug, the bugs drawn from a fixed seed (so every run has the same pairs).

use super::bugs::{Bug, BugKind};
use super::source::{BinOp, CmpOp, Cond, Expr, Frontend, Proc, Program, Stmt, Ty, Var, NULL};
use super::{Codegen, CompilerKind, CompilerPair, Side};
use crate::rng::Rng;

/// The seed of the course pairs (their `seed`; it also draws the planted bugs).
pub const COURSE_SEED: u64 = 241;

/// One program of the corpus.
#[derive(Clone, Debug)]
pub struct CourseProgram {
    pub name: &'static str,
    pub program: Program,
}

/// A pair of the corpus: which program it compiles, and the pair.
#[derive(Clone, Debug)]
pub struct CoursePair {
    pub name: &'static str,
    pub pair: CompilerPair,
}

// ---------------------------------------------------------------------------------
// Builders

fn n(x: i32) -> Expr {
    Expr::Num(x)
}

fn v(x: Var) -> Expr {
    Expr::Var(x)
}

fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    Expr::Bin(op, Box::new(l), Box::new(r))
}

fn add(l: Expr, r: Expr) -> Expr {
    bin(BinOp::Add, l, r)
}

fn sub(l: Expr, r: Expr) -> Expr {
    bin(BinOp::Sub, l, r)
}

fn mul(l: Expr, r: Expr) -> Expr {
    bin(BinOp::Mul, l, r)
}

fn div(l: Expr, r: Expr) -> Expr {
    bin(BinOp::Div, l, r)
}

fn rem(l: Expr, r: Expr) -> Expr {
    bin(BinOp::Rem, l, r)
}

/// `p + i` on a pointer.
fn padd(p: Expr, i: Expr) -> Expr {
    Expr::PtrAdd(Box::new(p), Box::new(i))
}

/// `*p`.
fn deref(p: Expr) -> Expr {
    Expr::Deref(Box::new(p))
}

/// `*(arr + i)`, `arr` being wain's variable 0.
fn at(i: Expr) -> Expr {
    deref(padd(v(0), i))
}

fn call(k: usize, x: Expr, y: Expr) -> Expr {
    Expr::Call(k, Box::new(x), Box::new(y))
}

fn cmp(left: Expr, op: CmpOp, right: Expr) -> Cond {
    Cond {
        op,
        left,
        right,
        pointers: false,
    }
}

fn pcmp(left: Expr, op: CmpOp, right: Expr) -> Cond {
    Cond {
        op,
        left,
        right,
        pointers: true,
    }
}

fn set(x: Var, e: Expr) -> Stmt {
    Stmt::Assign(x, e)
}

fn store(p: Expr, e: Expr) -> Stmt {
    Stmt::Store(p, e)
}

fn print(e: Expr) -> Stmt {
    Stmt::Print(e)
}

fn if_(c: Cond, t: Vec<Stmt>, e: Vec<Stmt>) -> Stmt {
    Stmt::If(c, t, e)
}

fn while_(c: Cond, b: Vec<Stmt>) -> Stmt {
    Stmt::While(c, b)
}

/// `x = x + 1;`
fn incr(x: Var) -> Stmt {
    set(x, add(v(x), n(1)))
}

/// `x = x - 1;`
fn decr(x: Var) -> Stmt {
    set(x, sub(v(x), n(1)))
}

/// `if (x < lo) { x = lo; } if (x > hi) { x = hi; }`
fn clamp(x: Var, lo: i32, hi: i32) -> Vec<Stmt> {
    vec![
        if_(cmp(v(x), CmpOp::Lt, n(lo)), vec![set(x, n(lo))], vec![]),
        if_(cmp(v(x), CmpOp::Gt, n(hi)), vec![set(x, n(hi))], vec![]),
    ]
}

/// A procedure: its two parameters, its locals with their initial values (pointers
/// start as `NULL`), body and return value.
fn proc_(
    name: &str,
    params: [(&str, Ty); 2],
    locals: &[(&str, Ty, i32)],
    body: Vec<Stmt>,
    ret: Expr,
) -> Proc {
    let mut vars: Vec<(String, Ty)> = params.iter().map(|(s, t)| (s.to_string(), *t)).collect();
    vars.extend(locals.iter().map(|(s, t, _)| (s.to_string(), *t)));
    let inits = locals
        .iter()
        .map(|(_, t, i)| if *t == Ty::Ptr { NULL } else { *i })
        .collect();
    Proc {
        name: name.into(),
        vars,
        inits,
        body,
        ret,
    }
}

const INTS: [(&str, Ty); 2] = [("a", Ty::Int), ("b", Ty::Int)];
const ARRAY: [(&str, Ty); 2] = [("arr", Ty::Ptr), ("len", Ty::Int)];
const HELPER: [(&str, Ty); 2] = [("x", Ty::Int), ("y", Ty::Int)];

fn ints(helpers: Vec<Proc>, locals: &[(&str, Ty, i32)], body: Vec<Stmt>, ret: Expr) -> Program {
    Program {
        frontend: Frontend::TwoInts,
        helpers,
        wain: proc_("wain", INTS, locals, body, ret),
    }
}

fn array(locals: &[(&str, Ty, i32)], body: Vec<Stmt>, ret: Expr) -> Program {
    Program {
        frontend: Frontend::Array,
        helpers: Vec::new(),
        wain: proc_("wain", ARRAY, locals, body, ret),
    }
}

// Variables of wain: 0 and 1 are the parameters (a, b or arr, len), locals from 2.
const A: Var = 0;
const B: Var = 1;
const ARR: Var = 0;
const LEN: Var = 1;

// ---------------------------------------------------------------------------------
// The programs

/// `c = a - b; println(a * b + c); println(a / b); println(a % b); return a + b;`
fn arith() -> Program {
    let c = 2;
    ints(
        vec![],
        &[("c", Ty::Int, 0)],
        vec![
            set(c, sub(v(A), v(B))),
            print(add(mul(v(A), v(B)), v(c))),
            print(div(v(A), v(B))),
            print(rem(v(A), v(B))),
        ],
        add(v(A), v(B)),
    )
}

/// The absolute value of `a` and the larger of `a` and `b`.
fn abs_max() -> Program {
    let (x, m) = (2, 3);
    ints(
        vec![],
        &[("abs", Ty::Int, 0), ("max", Ty::Int, 0)],
        vec![
            if_(
                cmp(v(A), CmpOp::Lt, n(0)),
                vec![set(x, sub(n(0), v(A)))],
                vec![set(x, v(A))],
            ),
            print(v(x)),
            if_(
                cmp(v(A), CmpOp::Gt, v(B)),
                vec![set(m, v(A))],
                vec![set(m, v(B))],
            ),
            print(v(m)),
        ],
        sub(v(m), v(x)),
    )
}

/// `1` or `0` for each of `a < b`, `a <= b`, `a == b`, `a != b`, `a > b`, `a >= b`.
fn comparisons() -> Program {
    let body = [
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Gt,
        CmpOp::Ge,
    ]
    .into_iter()
    .map(|op| if_(cmp(v(A), op, v(B)), vec![print(n(1))], vec![print(n(0))]))
    .collect();
    ints(vec![], &[], body, sub(v(A), v(B)))
}

/// `1 + 2 + ... + n`, `n` being `a` clamped to `0..=100`.
fn sum_to_n() -> Program {
    let (nn, s, i) = (2, 3, 4);
    let mut body = vec![set(nn, v(A))];
    body.extend(clamp(nn, 0, 100));
    body.extend([
        set(s, n(0)),
        set(i, n(1)),
        while_(
            cmp(v(i), CmpOp::Le, v(nn)),
            vec![set(s, add(v(s), v(i))), incr(i)],
        ),
        print(v(s)),
    ]);
    ints(
        vec![],
        &[("n", Ty::Int, 0), ("s", Ty::Int, 0), ("i", Ty::Int, 0)],
        body,
        v(s),
    )
}

/// `n!` by a loop, `n` being `a` clamped to `0..=12`; then `b` is returned.
fn factorial() -> Program {
    let (nn, f) = (2, 3);
    let mut body = vec![set(nn, v(A))];
    body.extend(clamp(nn, 0, 12));
    body.extend([
        set(f, n(1)),
        while_(
            cmp(v(nn), CmpOp::Gt, n(1)),
            vec![set(f, mul(v(f), v(nn))), decr(nn)],
        ),
        print(v(f)),
    ]);
    ints(vec![], &[("n", Ty::Int, 0), ("f", Ty::Int, 1)], body, v(B))
}

/// `a` to the power `b`, `b` clamped to `0..=31` (wrapping).
fn power() -> Program {
    let (e, r) = (2, 3);
    let mut body = vec![set(e, v(B))];
    body.extend(clamp(e, 0, 31));
    body.extend([
        set(r, n(1)),
        while_(
            cmp(v(e), CmpOp::Ne, n(0)),
            vec![set(r, mul(v(r), v(A))), decr(e)],
        ),
        print(v(r)),
    ]);
    ints(vec![], &[("e", Ty::Int, 0), ("r", Ty::Int, 1)], body, v(r))
}

/// The `n`th Fibonacci number by a loop, `n` being `a` clamped to `0..=46`.
fn fib_iter() -> Program {
    let (nn, x, y, t, i) = (2, 3, 4, 5, 6);
    let mut body = vec![set(nn, v(A))];
    body.extend(clamp(nn, 0, 46));
    body.extend([
        set(i, n(0)),
        while_(
            cmp(v(i), CmpOp::Lt, v(nn)),
            vec![set(t, add(v(x), v(y))), set(x, v(y)), set(y, v(t)), incr(i)],
        ),
        print(v(x)),
    ]);
    ints(
        vec![],
        &[
            ("n", Ty::Int, 0),
            ("x", Ty::Int, 0),
            ("y", Ty::Int, 1),
            ("t", Ty::Int, 0),
            ("i", Ty::Int, 0),
        ],
        body,
        v(y),
    )
}

/// The Collatz steps from `a` clamped to `1..=100` down to 1 (at most 118).
fn collatz() -> Program {
    let (x, steps) = (2, 3);
    let mut body = vec![set(x, v(A))];
    body.extend(clamp(x, 1, 100));
    body.extend([
        while_(
            cmp(v(x), CmpOp::Ne, n(1)),
            vec![
                if_(
                    cmp(rem(v(x), n(2)), CmpOp::Eq, n(0)),
                    vec![set(x, div(v(x), n(2)))],
                    vec![set(x, add(mul(n(3), v(x)), n(1)))],
                ),
                incr(steps),
            ],
        ),
        print(v(steps)),
    ]);
    ints(
        vec![],
        &[("x", Ty::Int, 0), ("steps", Ty::Int, 0)],
        body,
        v(x),
    )
}

/// Euclid's algorithm by `%` (signed: the result may be negative).
fn gcd() -> Program {
    let (x, y, t) = (2, 3, 4);
    ints(
        vec![],
        &[("x", Ty::Int, 0), ("y", Ty::Int, 0), ("t", Ty::Int, 0)],
        vec![
            set(x, v(A)),
            set(y, v(B)),
            while_(
                cmp(v(y), CmpOp::Ne, n(0)),
                vec![set(t, rem(v(x), v(y))), set(x, v(y)), set(y, v(t))],
            ),
            print(v(x)),
        ],
        v(x),
    )
}

/// `fact(x, y)`: `x!` by recursion, `x` clamped to at most 12 (at most 1 gives 1).
fn fact_rec() -> Program {
    let r = 2;
    let fact = proc_(
        "fact",
        HELPER,
        &[("r", Ty::Int, 0)],
        vec![
            if_(cmp(v(0), CmpOp::Gt, n(12)), vec![set(0, n(12))], vec![]),
            if_(
                cmp(v(0), CmpOp::Le, n(1)),
                vec![set(r, n(1))],
                vec![set(r, mul(v(0), call(0, sub(v(0), n(1)), v(1))))],
            ),
        ],
        v(r),
    );
    ints(
        vec![fact],
        &[],
        vec![print(call(0, v(A), n(0))), print(call(0, v(B), n(0)))],
        n(0),
    )
}

/// `fib(x, y)`: Fibonacci by two recursive calls, `x` clamped to at most 8.
fn fib_rec() -> Program {
    let r = 2;
    let fib = proc_(
        "fib",
        HELPER,
        &[("r", Ty::Int, 0)],
        vec![
            if_(cmp(v(0), CmpOp::Gt, n(8)), vec![set(0, n(8))], vec![]),
            if_(
                cmp(v(0), CmpOp::Le, n(1)),
                vec![set(r, v(0))],
                vec![set(
                    r,
                    add(
                        call(0, sub(v(0), n(1)), v(1)),
                        call(0, sub(v(0), n(2)), v(1)),
                    ),
                )],
            ),
        ],
        v(r),
    );
    ints(vec![fib], &[], vec![print(call(0, v(A), n(0)))], v(B))
}

/// `dist(x, y)` = `|x - y|` (wrapping), called several times, also on its own result;
/// `scale(x, y)` = `dist(x, y) * 2 + y` calls it.
fn helpers() -> Program {
    let r = 2;
    let dist = proc_(
        "dist",
        HELPER,
        &[("r", Ty::Int, 0)],
        vec![if_(
            cmp(v(0), CmpOp::Gt, v(1)),
            vec![set(r, sub(v(0), v(1)))],
            vec![set(r, sub(v(1), v(0)))],
        )],
        v(r),
    );
    let scale = proc_(
        "scale",
        HELPER,
        &[],
        vec![],
        add(mul(call(0, v(0), v(1)), n(2)), v(1)),
    );
    let d = 2;
    ints(
        vec![dist, scale],
        &[("d", Ty::Int, 0)],
        vec![
            set(d, call(0, v(A), v(B))),
            print(v(d)),
            print(add(call(0, v(A), n(0)), call(0, v(B), n(0)))),
            print(call(1, v(B), v(A))),
        ],
        call(0, v(d), n(7)),
    )
}

/// The sum of the elements.
fn array_sum() -> Program {
    let (s, i) = (2, 3);
    array(
        &[("s", Ty::Int, 0), ("i", Ty::Int, 0)],
        vec![
            while_(
                cmp(v(i), CmpOp::Lt, v(LEN)),
                vec![set(s, add(v(s), at(v(i)))), incr(i)],
            ),
            print(v(s)),
        ],
        v(s),
    )
}

/// The index of the largest element (the first of equals; 0 when empty), and the
/// element itself when there is one.
fn array_argmax() -> Program {
    let (best, i) = (2, 3);
    array(
        &[("best", Ty::Int, 0), ("i", Ty::Int, 1)],
        vec![
            while_(
                cmp(v(i), CmpOp::Lt, v(LEN)),
                vec![
                    if_(
                        cmp(at(v(i)), CmpOp::Gt, at(v(best))),
                        vec![set(best, v(i))],
                        vec![],
                    ),
                    incr(i),
                ],
            ),
            print(v(best)),
            if_(
                cmp(n(0), CmpOp::Lt, v(LEN)),
                vec![print(at(v(best)))],
                vec![],
            ),
        ],
        v(best),
    )
}

/// How many elements are negative.
fn array_negatives() -> Program {
    let (count, i) = (2, 3);
    array(
        &[("count", Ty::Int, 0), ("i", Ty::Int, 0)],
        vec![
            while_(
                cmp(v(i), CmpOp::Lt, v(LEN)),
                vec![
                    if_(cmp(at(v(i)), CmpOp::Lt, n(0)), vec![incr(count)], vec![]),
                    incr(i),
                ],
            ),
            print(v(count)),
        ],
        sub(v(LEN), v(count)),
    )
}

/// Reverses the array in place through pointers, then prints every element.
fn array_reverse() -> Program {
    let (i, j, t) = (2, 3, 4);
    array(
        &[("i", Ty::Int, 0), ("j", Ty::Int, 0), ("t", Ty::Int, 0)],
        vec![
            set(j, sub(v(LEN), n(1))),
            while_(
                cmp(v(i), CmpOp::Lt, v(j)),
                vec![
                    set(t, at(v(i))),
                    store(padd(v(ARR), v(i)), at(v(j))),
                    store(padd(v(ARR), v(j)), v(t)),
                    incr(i),
                    decr(j),
                ],
            ),
            set(i, n(0)),
            while_(cmp(v(i), CmpOp::Lt, v(LEN)), vec![print(at(v(i))), incr(i)]),
        ],
        v(LEN),
    )
}

/// Walks a pointer `p = p + 1` from `arr` to `arr + len`, summing the elements and
/// doubling each in place; prints the sum and the first element after.
fn pointer_walk() -> Program {
    let (p, q, s) = (2, 3, 4);
    array(
        &[
            ("p", Ty::Ptr, NULL),
            ("q", Ty::Ptr, NULL),
            ("s", Ty::Int, 0),
        ],
        vec![
            set(p, v(ARR)),
            set(q, padd(v(ARR), v(LEN))),
            while_(
                pcmp(v(p), CmpOp::Ne, v(q)),
                vec![
                    set(s, add(v(s), deref(v(p)))),
                    store(v(p), mul(deref(v(p)), n(2))),
                    set(p, padd(v(p), n(1))),
                ],
            ),
            print(v(s)),
            if_(cmp(n(0), CmpOp::Lt, v(LEN)), vec![print(at(n(0)))], vec![]),
        ],
        v(s),
    )
}

/// Every program of the corpus, in a fixed order.
pub fn course_programs() -> Vec<CourseProgram> {
    type Make = fn() -> Program;
    let all: [(&'static str, Make); 17] = [
        ("arith", arith),
        ("abs-max", abs_max),
        ("comparisons", comparisons),
        ("sum-to-n", sum_to_n),
        ("factorial", factorial),
        ("power", power),
        ("fib-iter", fib_iter),
        ("collatz", collatz),
        ("gcd", gcd),
        ("fact-rec", fact_rec),
        ("fib-rec", fib_rec),
        ("helpers", helpers),
        ("array-sum", array_sum),
        ("array-argmax", array_argmax),
        ("array-negatives", array_negatives),
        ("array-reverse", array_reverse),
        ("pointer-walk", pointer_walk),
    ];
    all.into_iter()
        .map(|(name, f)| CourseProgram { name, program: f() })
        .collect()
}

/// Two planted bugs for `prog` in the register-allocating code generator, drawn from
/// [`COURSE_SEED`] and the program's position: of two kinds where it has sites of
/// two kinds, otherwise at two sites of its one kind (fewer only where it has fewer
/// sites).
pub fn course_bugs(prog: &Program, position: usize) -> Vec<Bug> {
    let mut rng = Rng::for_item(COURSE_SEED, position as u64);
    let (_, sites) = Codegen::Regalloc.compile(prog, None);
    let mut kinds: Vec<BugKind> = BugKind::ALL
        .into_iter()
        .filter(|&k| sites.count(k) > 0)
        .collect();
    let mut bugs: Vec<Bug> = Vec::new();
    while bugs.len() < 2 && !kinds.is_empty() {
        let kind = kinds.remove(rng.below(kinds.len()));
        bugs.push(Bug {
            kind,
            site: rng.below(sites.count(kind)),
        });
    }
    if let [first] = bugs[..] {
        let count = sites.count(first.kind);
        if count > 1 {
            let site = (first.site + 1 + rng.below(count - 1)) % count;
            bugs.push(Bug {
                kind: first.kind,
                site,
            });
        }
    }
    bugs
}

/// The course pairs: for program `k`, pair `3k` is naive against register-allocating
/// and pairs `3k + 1`, `3k + 2` naive against register-allocating with one of
/// [`course_bugs`]; the naive side is always on the left.
pub fn course_pairs() -> Vec<CoursePair> {
    let mut out = Vec::new();
    for (k, cp) in course_programs().into_iter().enumerate() {
        let naive = Side::new(&cp.program, Codegen::Naive, None);
        let mut sides = vec![(
            CompilerKind::NaiveRegalloc,
            Side::new(&cp.program, Codegen::Regalloc, None),
        )];
        for bug in course_bugs(&cp.program, k) {
            sides.push((
                CompilerKind::BuggyRegalloc,
                Side::new(&cp.program, Codegen::Regalloc, Some(bug)),
            ));
        }
        for (j, (kind, right)) in sides.into_iter().enumerate() {
            out.push(CoursePair {
                name: cp.name,
                pair: CompilerPair {
                    seed: COURSE_SEED,
                    index: (3 * k + j) as u64,
                    kind,
                    source: cp.program.clone(),
                    left: naive.clone(),
                    right,
                },
            });
        }
    }
    out
}
