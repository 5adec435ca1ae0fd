//! Random programs in the style of WLP4 (the course's C subset), as an AST that both
//! code generators compile and [`interp`](super::interp) runs.
//!
//! Every program is built to end and to stay in bounds by its own structure, so that
//! the only way two compilations of it can differ is a code generator's mistake:
//! loops count to constant bounds, to `len`, or down from an input clamped by a
//! comparison; recursion is through helpers that clamp their depth argument on entry;
//! every array access is inside a loop over the array or a guard `0 <= k < len` on a
//! variable the guarded statements do not assign. Division and remainder take any
//! operands (zero included: both compilations fault then, and a fault on both sides
//! is never a difference).

use std::fmt::Write as _;

use crate::rng::Rng;

/// How `wain` takes its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Frontend {
    /// `int wain(int a, int b)`: `$1`, `$2`.
    TwoInts,
    /// `int wain(int* arr, int len)`: the array's address in `$1`, its length in `$2`.
    Array,
}

impl Frontend {
    pub fn name(self) -> &'static str {
        match self {
            Frontend::TwoInts => "twoints",
            Frontend::Array => "array",
        }
    }
}

/// The longest array the array frontend gets (the engines explore every length up to
/// it; a small bound keeps loops over the array short).
pub const ARRAY_MAX_LEN: u32 = 4;

/// A variable: an index into its procedure's [`Proc::vars`].
pub type Var = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Int,
    /// `int*`: only ever a pointer into wain's array (or `NULL` before it is set).
    Ptr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Gt,
        CmpOp::Ge,
    ];

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// The comparison on two values, signed or (pointers) unsigned.
    pub fn holds(self, l: i32, r: i32, unsigned: bool) -> bool {
        let ord = if unsigned {
            (l as u32).cmp(&(r as u32))
        } else {
            l.cmp(&r)
        };
        match self {
            CmpOp::Lt => ord.is_lt(),
            CmpOp::Le => ord.is_le(),
            CmpOp::Eq => ord.is_eq(),
            CmpOp::Ne => ord.is_ne(),
            CmpOp::Gt => ord.is_gt(),
            CmpOp::Ge => ord.is_ge(),
        }
    }
}

/// An expression. Operands are evaluated left to right, always both (WLP4 has no
/// short-circuit), by both code generators and the interpreter alike: calls may
/// print, so the order is part of the behaviour.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Num(i32),
    Var(Var),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `ptr + int` (the int scaled by 4 in the code).
    PtrAdd(Box<Expr>, Box<Expr>),
    /// `*ptr` (an int).
    Deref(Box<Expr>),
    /// `fK(x, y)`: helper `K` (an index into [`Program::helpers`]).
    Call(usize, Box<Expr>, Box<Expr>),
}

/// A condition of `if` or `while`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cond {
    pub op: CmpOp,
    pub left: Expr,
    pub right: Expr,
    /// Both sides are pointers: compared unsigned.
    pub pointers: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    Assign(Var, Expr),
    /// `*(ptr) = value;` (the address first, then the value).
    Store(Expr, Expr),
    Print(Expr),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    While(Cond, Vec<Stmt>),
}

/// A procedure: `wain` or a helper `int fK(int x, int y)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Proc {
    pub name: String,
    /// Every variable: the two parameters first, then the locals.
    pub vars: Vec<(String, Ty)>,
    /// Initial values of the locals (`vars[2..]`); pointers start as `NULL` (1).
    pub inits: Vec<i32>,
    pub body: Vec<Stmt>,
    pub ret: Expr,
}

/// A whole program: helpers first (a helper calls only earlier helpers, and itself
/// through its clamped first argument when it is recursive), then `wain`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    pub frontend: Frontend,
    pub helpers: Vec<Proc>,
    pub wain: Proc,
}

/// `NULL`, as the course's compilers represent it (never dereferenced here).
pub const NULL: i32 = 1;

// ---------------------------------------------------------------------------------
// Generation

/// What a statement being generated may use.
#[derive(Clone)]
struct Scope {
    /// Int variables that may be read.
    ints: Vec<Var>,
    /// Int variables that may be assigned (loop counters and guarded indices are not).
    writable: Vec<Var>,
    /// Pointer-valued expressions that may be dereferenced here.
    safe_ptrs: Vec<Expr>,
    /// Helpers that expressions may call.
    callable: usize,
    /// Loop nesting (bounds the product of iteration counts).
    loops: usize,
    /// Statement nesting.
    depth: usize,
}

struct Gen<'a> {
    rng: &'a mut Rng,
    frontend: Frontend,
    vars: Vec<(String, Ty)>,
    inits: Vec<i32>,
    /// Statements left to generate in this procedure (keeps programs small).
    budget: usize,
    /// Prints left in this procedure.
    prints: usize,
    in_wain: bool,
}

impl Gen<'_> {
    fn new_var(&mut self, prefix: &str, ty: Ty, init: i32) -> Var {
        let v = self.vars.len();
        self.vars.push((format!("{prefix}{v}"), ty));
        self.inits.push(init);
        v
    }

    fn constant(&mut self) -> i32 {
        match self.rng.weighted(&[60, 15, 10, 10, 5]) {
            0 => self.rng.range(-3, 10) as i32,
            1 => self.rng.range(-100, 100) as i32,
            2 => *self
                .rng
                .pick(&[i32::MAX, i32::MIN, 65536, 0x7FFF, -65536, 1 << 20]),
            3 => self.rng.range(0, 2) as i32,
            _ => self.rng.next_u32() as i32,
        }
    }

    fn expr(&mut self, scope: &Scope, depth: usize) -> Expr {
        let leaf = depth == 0 || self.rng.chance(0.3);
        if leaf {
            let derefs = !scope.safe_ptrs.is_empty();
            return match self.rng.weighted(&[55, 30, if derefs { 30 } else { 0 }]) {
                0 if !scope.ints.is_empty() => Expr::Var(*self.rng.pick(&scope.ints)),
                2 => Expr::Deref(Box::new(self.rng.pick(&scope.safe_ptrs).clone())),
                _ => Expr::Num(self.constant()),
            };
        }
        let call = scope.callable > 0 && self.rng.chance(0.15);
        if call {
            let k = self.rng.below(scope.callable);
            let x = self.expr(scope, depth - 1);
            let y = self.expr(scope, depth - 1);
            return Expr::Call(k, Box::new(x), Box::new(y));
        }
        let op = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Rem]
            [self.rng.weighted(&[30, 30, 20, 12, 8])];
        let l = self.expr(scope, depth - 1);
        let r = self.expr(scope, depth - 1);
        Expr::Bin(op, Box::new(l), Box::new(r))
    }

    fn cond(&mut self, scope: &Scope) -> Cond {
        let op = *self.rng.pick(&CmpOp::ALL);
        Cond {
            op,
            left: self.expr(scope, 2),
            right: self.expr(scope, 1),
            pointers: false,
        }
    }

    fn block(&mut self, scope: &Scope, n: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.stmt(scope, &mut out);
        }
        out
    }

    /// One statement (or a short template of several) appended to `out`.
    fn stmt(&mut self, scope: &Scope, out: &mut Vec<Stmt>) {
        let nested = scope.depth < 2;
        let loops = nested && scope.loops < 2;
        let array = self.in_wain && self.frontend == Frontend::Array;
        let w = [
            30,                                   // assign
            if self.prints > 0 { 20 } else { 0 }, // print
            if nested { 15 } else { 0 },          // if
            if loops { 10 } else { 0 },           // counter loop
            if loops { 6 } else { 0 },            // clamped input loop
            if array && loops { 14 } else { 0 },  // loop over the array
            if array && nested { 10 } else { 0 }, // guarded access
            if array && loops && scope.loops == 0 {
                6
            } else {
                0
            }, // pointer loop
        ];
        let inner = |s: &Scope| Scope {
            depth: s.depth + 1,
            ..s.clone()
        };
        match self.rng.weighted(&w) {
            0 if !scope.writable.is_empty() => {
                let v = *self.rng.pick(&scope.writable);
                let e = self.expr(scope, 3);
                out.push(Stmt::Assign(v, e));
            }
            1 => {
                self.prints -= 1;
                let e = self.expr(scope, 2);
                out.push(Stmt::Print(e));
            }
            2 => {
                let c = self.cond(scope);
                let n = self.rng.range(1, 2) as usize;
                let t = self.block(&inner(scope), n);
                let e = if self.rng.chance(0.6) {
                    let n = self.rng.range(1, 2) as usize;
                    self.block(&inner(scope), n)
                } else {
                    Vec::new()
                };
                out.push(Stmt::If(c, t, e));
            }
            3 => {
                // i = 0; while (i < K) { ...; i = i + 1; }
                let i = self.new_var("i", Ty::Int, 0);
                let bound = self.rng.range(1, if scope.loops == 0 { 5 } else { 3 }) as i32;
                let mut s = inner(scope);
                s.loops += 1;
                s.ints.push(i);
                let n = self.rng.range(1, 3) as usize;
                let mut body = self.block(&s, n);
                body.push(Stmt::Assign(i, add(Expr::Var(i), Expr::Num(1))));
                out.push(Stmt::Assign(i, Expr::Num(0)));
                let op = if self.rng.chance(0.7) {
                    CmpOp::Lt
                } else {
                    CmpOp::Ne
                };
                out.push(Stmt::While(
                    int_cond(op, Expr::Var(i), Expr::Num(bound)),
                    body,
                ));
            }
            4 => {
                // c = e; if (c > K) { c = K; } else {} while (c > 0) { ...; c = c - 1; }
                let c = self.new_var("c", Ty::Int, 0);
                let bound = self.rng.range(1, if scope.loops == 0 { 5 } else { 3 }) as i32;
                let e = self.expr(scope, 1);
                out.push(Stmt::Assign(c, e));
                out.push(Stmt::If(
                    int_cond(CmpOp::Gt, Expr::Var(c), Expr::Num(bound)),
                    vec![Stmt::Assign(c, Expr::Num(bound))],
                    Vec::new(),
                ));
                let mut s = inner(scope);
                s.loops += 1;
                s.ints.push(c);
                let n = self.rng.range(1, 3) as usize;
                let mut body = self.block(&s, n);
                body.push(Stmt::Assign(
                    c,
                    Expr::Bin(BinOp::Sub, Box::new(Expr::Var(c)), Box::new(Expr::Num(1))),
                ));
                out.push(Stmt::While(
                    int_cond(CmpOp::Gt, Expr::Var(c), Expr::Num(0)),
                    body,
                ));
            }
            5 => {
                // i = 0; while (i < len) { ... *(arr + i) ...; i = i + 1; }
                let i = self.new_var("i", Ty::Int, 0);
                let mut s = inner(scope);
                s.loops += 1;
                s.ints.push(i);
                s.safe_ptrs.push(arr_plus(Expr::Var(i)));
                let n = self.rng.range(1, 3) as usize;
                let mut body = self.block(&s, n);
                if self.rng.chance(0.6) {
                    let e = self.expr(&s, 2);
                    body.push(Stmt::Store(arr_plus(Expr::Var(i)), e));
                }
                body.push(Stmt::Assign(i, add(Expr::Var(i), Expr::Num(1))));
                out.push(Stmt::Assign(i, Expr::Num(0)));
                out.push(Stmt::While(
                    int_cond(CmpOp::Lt, Expr::Var(i), Expr::Var(1)),
                    body,
                ));
            }
            6 => {
                // k = e; if (0 <= k) { if (k < len) { ... *(arr + k) ... } else {} } else {}
                let k = self.new_var("k", Ty::Int, 0);
                let e = self.expr(scope, 2);
                out.push(Stmt::Assign(k, e));
                let mut s = inner(scope);
                s.depth += 1;
                s.ints.push(k);
                s.safe_ptrs.push(arr_plus(Expr::Var(k)));
                let n = self.rng.range(0, 2) as usize;
                let mut body = self.block(&s, n);
                let e = self.expr(&s, 2);
                if self.rng.chance(0.5) {
                    body.push(Stmt::Store(arr_plus(Expr::Var(k)), e));
                } else if let Some(&v) = scope.writable.first() {
                    let v = if self.rng.chance(0.5) {
                        v
                    } else {
                        *self.rng.pick(&scope.writable)
                    };
                    body.push(Stmt::Assign(
                        v,
                        Expr::Deref(Box::new(arr_plus(Expr::Var(k)))),
                    ));
                }
                let orelse = if self.rng.chance(0.3) {
                    self.block(&inner(scope), 1)
                } else {
                    Vec::new()
                };
                out.push(Stmt::If(
                    int_cond(CmpOp::Le, Expr::Num(0), Expr::Var(k)),
                    vec![Stmt::If(
                        int_cond(CmpOp::Lt, Expr::Var(k), Expr::Var(1)),
                        body,
                        Vec::new(),
                    )],
                    orelse,
                ));
            }
            7 => {
                // p = arr; q = arr + len; while (p < q) { ... *p ...; p = p + 1; }
                let p = self.new_var("p", Ty::Ptr, NULL);
                let q = self.new_var("q", Ty::Ptr, NULL);
                out.push(Stmt::Assign(p, Expr::Var(0)));
                out.push(Stmt::Assign(q, arr_plus(Expr::Var(1))));
                let mut s = inner(scope);
                s.loops += 1;
                s.safe_ptrs.push(Expr::Var(p));
                let n = self.rng.range(1, 2) as usize;
                let mut body = self.block(&s, n);
                if self.rng.chance(0.4) {
                    let e = self.expr(&s, 1);
                    body.push(Stmt::Store(Expr::Var(p), e));
                }
                body.push(Stmt::Assign(
                    p,
                    Expr::PtrAdd(Box::new(Expr::Var(p)), Box::new(Expr::Num(1))),
                ));
                let op = if self.rng.chance(0.7) {
                    CmpOp::Lt
                } else {
                    CmpOp::Ne
                };
                out.push(Stmt::While(
                    Cond {
                        op,
                        left: Expr::Var(p),
                        right: Expr::Var(q),
                        pointers: true,
                    },
                    body,
                ));
            }
            _ => {
                // An assignment with nothing writable: print instead (always allowed
                // here: a procedure without locals is rare).
                let e = self.expr(scope, 2);
                out.push(Stmt::Print(e));
            }
        }
    }
}

fn add(l: Expr, r: Expr) -> Expr {
    Expr::Bin(BinOp::Add, Box::new(l), Box::new(r))
}

fn arr_plus(i: Expr) -> Expr {
    Expr::PtrAdd(Box::new(Expr::Var(0)), Box::new(i))
}

fn int_cond(op: CmpOp, left: Expr, right: Expr) -> Cond {
    Cond {
        op,
        left,
        right,
        pointers: false,
    }
}

/// A random program of `frontend`'s kind.
pub fn generate(frontend: Frontend, rng: &mut Rng) -> Program {
    let nhelpers = rng.weighted(&[25, 40, 25, 10]);
    let mut helpers = Vec::new();
    for k in 0..nhelpers {
        helpers.push(helper(k, rng));
    }
    let wain = wain(frontend, nhelpers, rng);
    Program {
        frontend,
        helpers,
        wain,
    }
}

fn new_gen<'a>(
    rng: &'a mut Rng,
    frontend: Frontend,
    params: [(&str, Ty); 2],
    in_wain: bool,
) -> Gen<'a> {
    let budget = if in_wain { 8 } else { 4 };
    let prints = if in_wain { 4 } else { 1 };
    Gen {
        rng,
        frontend,
        vars: params.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        inits: Vec::new(),
        budget,
        prints,
        in_wain,
    }
}

/// Helper `fK`: recursive half of the time (its first argument clamped to at most a
/// small bound on entry, one self-call on the way down), otherwise a few statements
/// over its parameters and locals.
fn helper(k: usize, rng: &mut Rng) -> Proc {
    let recursive = rng.chance(0.5);
    let mut g = new_gen(
        rng,
        Frontend::TwoInts,
        [("x", Ty::Int), ("y", Ty::Int)],
        false,
    );
    let nlocals = g.rng.range(1, 2);
    for _ in 0..nlocals {
        let c = g.constant();
        g.new_var("v", Ty::Int, c);
    }
    let all: Vec<Var> = (0..g.vars.len()).collect();
    let scope = Scope {
        ints: all.clone(),
        writable: all[1..].to_vec(),
        safe_ptrs: Vec::new(),
        // A recursive helper calls only itself: chains of recursive calls at every
        // level would multiply the steps past any useful fuel.
        callable: if recursive { 0 } else { k },
        loops: 0,
        depth: 0,
    };
    let mut body = Vec::new();
    if recursive {
        let bound = g.rng.range(1, 5) as i32;
        body.push(Stmt::If(
            int_cond(CmpOp::Gt, Expr::Var(0), Expr::Num(bound)),
            vec![Stmt::Assign(0, Expr::Num(bound))],
            Vec::new(),
        ));
        let base = g.expr(&scope, 2);
        let y = g.expr(&scope, 1);
        let down = Expr::Call(
            k,
            Box::new(Expr::Bin(
                BinOp::Sub,
                Box::new(Expr::Var(0)),
                Box::new(Expr::Num(1)),
            )),
            Box::new(y),
        );
        let other = g.expr(&scope, 1);
        let step = Expr::Bin(
            [BinOp::Add, BinOp::Sub, BinOp::Mul][g.rng.below(3)],
            Box::new(if g.rng.chance(0.5) {
                down.clone()
            } else {
                other.clone()
            }),
            Box::new(if g.rng.chance(0.5) {
                other
            } else {
                down.clone()
            }),
        );
        // Make sure the self-call is there.
        let step = if contains_call(&step, k) {
            step
        } else {
            Expr::Bin(BinOp::Add, Box::new(step), Box::new(down))
        };
        let r = 2;
        let pre = g.block(&scope, 1);
        body.extend(pre);
        body.push(Stmt::If(
            int_cond(CmpOp::Le, Expr::Var(0), Expr::Num(0)),
            vec![Stmt::Assign(r, base)],
            vec![Stmt::Assign(r, step)],
        ));
        if g.rng.chance(0.3) {
            body.push(Stmt::Print(Expr::Var(r)));
        }
        let ret = if g.rng.chance(0.7) {
            Expr::Var(r)
        } else {
            g.expr(&scope, 1)
        };
        return Proc {
            name: format!("f{k}"),
            vars: g.vars,
            inits: g.inits,
            body,
            ret,
        };
    }
    let n = g.rng.range(1, 3) as usize;
    let body = g.block(&scope, n);
    let ret = g.expr(&scope, 2);
    Proc {
        name: format!("f{k}"),
        vars: g.vars,
        inits: g.inits,
        body,
        ret,
    }
}

fn contains_call(e: &Expr, k: usize) -> bool {
    match e {
        Expr::Num(_) | Expr::Var(_) => false,
        Expr::Call(j, x, y) => *j == k || contains_call(x, k) || contains_call(y, k),
        Expr::Bin(_, l, r) | Expr::PtrAdd(l, r) => contains_call(l, k) || contains_call(r, k),
        Expr::Deref(p) => contains_call(p, k),
    }
}

fn wain(frontend: Frontend, helpers: usize, rng: &mut Rng) -> Proc {
    let params = match frontend {
        Frontend::TwoInts => [("a", Ty::Int), ("b", Ty::Int)],
        Frontend::Array => [("arr", Ty::Ptr), ("len", Ty::Int)],
    };
    let mut g = new_gen(rng, frontend, params, true);
    let nlocals = g.rng.range(1, 3);
    for _ in 0..nlocals {
        let c = g.constant();
        g.new_var("v", Ty::Int, c);
    }
    let locals: Vec<Var> = (2..g.vars.len()).collect();
    let ints: Vec<Var> = match frontend {
        Frontend::TwoInts => (0..g.vars.len()).collect(),
        Frontend::Array => (1..g.vars.len()).collect(),
    };
    let writable = match frontend {
        Frontend::TwoInts => ints.clone(),
        // `len` bounds the array's loops and guards: never assigned.
        Frontend::Array => locals,
    };
    let scope = Scope {
        ints,
        writable,
        safe_ptrs: Vec::new(),
        callable: helpers,
        loops: 0,
        depth: 0,
    };
    let n = g.rng.range(3, 6) as usize;
    let mut body = g.block(&scope, n);
    if !body.iter().any(|s| matches!(s, Stmt::Print(_))) && g.rng.chance(0.8) {
        let e = g.expr(&scope, 2);
        body.push(Stmt::Print(e));
    }
    let ret = g.expr(&scope, 2);
    Proc {
        name: "wain".into(),
        vars: g.vars,
        inits: g.inits,
        body,
        ret,
    }
}

// ---------------------------------------------------------------------------------
// Source text

impl Program {
    /// The program as WLP4-like source (for reading; nothing parses it back).
    pub fn text(&self) -> String {
        let mut s = String::new();
        for p in self.helpers.iter().chain([&self.wain]) {
            p.write(self, &mut s);
        }
        s
    }
}

fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::Int => "int",
        Ty::Ptr => "int*",
    }
}

impl Proc {
    fn write(&self, prog: &Program, s: &mut String) {
        let _ = writeln!(
            s,
            "int {}({} {}, {} {}) {{",
            self.name,
            ty_name(self.vars[0].1),
            self.vars[0].0,
            ty_name(self.vars[1].1),
            self.vars[1].0
        );
        for ((name, ty), init) in self.vars[2..].iter().zip(&self.inits) {
            let init = match ty {
                Ty::Ptr => "NULL".to_string(),
                Ty::Int => num(*init),
            };
            let _ = writeln!(s, "  {} {name} = {init};", ty_name(*ty));
        }
        for st in &self.body {
            self.stmt(prog, st, 1, s);
        }
        let _ = writeln!(s, "  return {};", self.expr(prog, &self.ret));
        s.push_str("}\n");
    }

    fn stmt(&self, prog: &Program, st: &Stmt, indent: usize, s: &mut String) {
        let pad = "  ".repeat(indent);
        match st {
            Stmt::Assign(v, e) => {
                let _ = writeln!(s, "{pad}{} = {};", self.vars[*v].0, self.expr(prog, e));
            }
            Stmt::Store(p, e) => {
                let _ = writeln!(
                    s,
                    "{pad}*({}) = {};",
                    self.expr(prog, p),
                    self.expr(prog, e)
                );
            }
            Stmt::Print(e) => {
                let _ = writeln!(s, "{pad}println({});", self.expr(prog, e));
            }
            Stmt::If(c, t, e) => {
                let _ = writeln!(s, "{pad}if ({}) {{", self.cond(prog, c));
                for x in t {
                    self.stmt(prog, x, indent + 1, s);
                }
                let _ = writeln!(s, "{pad}}} else {{");
                for x in e {
                    self.stmt(prog, x, indent + 1, s);
                }
                let _ = writeln!(s, "{pad}}}");
            }
            Stmt::While(c, b) => {
                let _ = writeln!(s, "{pad}while ({}) {{", self.cond(prog, c));
                for x in b {
                    self.stmt(prog, x, indent + 1, s);
                }
                let _ = writeln!(s, "{pad}}}");
            }
        }
    }

    fn cond(&self, prog: &Program, c: &Cond) -> String {
        format!(
            "{} {} {}",
            self.expr(prog, &c.left),
            c.op.symbol(),
            self.expr(prog, &c.right)
        )
    }

    fn expr(&self, prog: &Program, e: &Expr) -> String {
        match e {
            Expr::Num(n) => num(*n),
            Expr::Var(v) => self.vars[*v].0.clone(),
            Expr::Bin(op, l, r) => format!(
                "({} {} {})",
                self.expr(prog, l),
                op.symbol(),
                self.expr(prog, r)
            ),
            Expr::PtrAdd(p, i) => format!("({} + {})", self.expr(prog, p), self.expr(prog, i)),
            Expr::Deref(p) => format!("*{}", self.expr(prog, p)),
            Expr::Call(k, x, y) => format!(
                "{}({}, {})",
                prog.helpers[*k].name,
                self.expr(prog, x),
                self.expr(prog, y)
            ),
        }
    }
}

/// A literal as WLP4 can write it (literals are non-negative there).
fn num(n: i32) -> String {
    if n >= 0 {
        n.to_string()
    } else if n == i32::MIN {
        "(0 - 2147483647 - 1)".into()
    } else {
        format!("(0 - {})", -(n as i64))
    }
}
