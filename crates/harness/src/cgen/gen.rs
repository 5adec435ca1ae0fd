//! The generator: a seed and an index name one function ([`generate`]) and its inputs
//! ([`inputs`]).

use super::{
    Arith, Array, Bound, Case, Cmp, DivOp, Expr, Func, Linkage, Local, Logic, LoopKind, ShiftOp,
    Small, Stmt, Ty, Unary,
};
use crate::rng::Rng;

/// The most helpers a function has.
pub const MAX_HELPERS: usize = 4;
/// The most a recursive helper recurses (its depth is masked with this).
pub const MAX_RECURSION: u32 = 7;

/// The signature of a helper, as callers see it.
#[derive(Clone, Debug)]
struct Sig {
    name: String,
    ret: Ty,
    params: Vec<Ty>,
    recursive: bool,
}

/// What one function's body may use.
struct Scope {
    /// Readable: parameters, locals and loop counters in scope.
    vars: Vec<(String, Ty)>,
    /// Writable: the locals.
    locals: Vec<(String, Ty)>,
    /// The arrays: name, length, element type.
    arrays: Vec<(String, u32, Small)>,
    /// Helpers it may call.
    callees: Vec<Sig>,
    /// Largest mask of a loop bound (15 in `f`, 7 in helpers).
    bound_mask: u32,
    /// Deepest loop nest.
    max_loops: usize,
    ret: Ty,
}

struct Gen {
    rng: Rng,
    trapping: bool,
    next_name: usize,
    loops: usize,
    breakable: usize,
    switches: usize,
}

/// Interesting constants: small numbers, powers of two, masks and the edges.
const CONSTS: &[u32] = &[
    0,
    1,
    2,
    3,
    5,
    7,
    8,
    10,
    13,
    16,
    31,
    32,
    100,
    255,
    256,
    0x7fff,
    0x8000,
    0xffff,
    0x10000,
    0x5555_5555,
    0xaaaa_aaaa,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0xffff_fffe,
    0xffff_fff9,
    0xffff_ff00,
    0x0f0f_0f0f,
    0x1234_5678,
    0x9e37_79b9,
];

/// The function `index` of the stream named by `seed`.
pub fn generate(seed: u64, index: u64) -> Func {
    let mut g = Gen {
        rng: Rng::for_item(seed, index),
        trapping: false,
        next_name: 0,
        loops: 0,
        breakable: 0,
        switches: 0,
    };
    g.trapping = g.rng.chance(0.25);
    let mut sigs: Vec<Sig> = Vec::new();
    let mut helpers = Vec::new();
    let n_helpers = g.rng.weighted(&[2, 3, 3, 2, 1]).min(MAX_HELPERS);
    let recursive_at = g.rng.chance(0.35).then(|| g.rng.below(n_helpers.max(1)));
    for k in 0..n_helpers {
        let def = if recursive_at == Some(k) {
            g.recursive_helper(k, &sigs)
        } else {
            g.helper(k, &sigs)
        };
        sigs.push(Sig {
            name: def.name.clone(),
            ret: def.ret,
            params: def.params.iter().map(|(_, t)| *t).collect(),
            recursive: def.base.is_some(),
        });
        helpers.push(def);
    }
    let f = g.top(&sigs);
    Func {
        seed,
        index,
        trapping: g.trapping,
        helpers,
        f,
        mutation: None,
    }
}

/// `n` argument tuples for function `index` of `seed`: first the edges together (all
/// zero, all one, all -1, `INT_MIN`, `INT_MAX`), then each argument drawn from the
/// edges, small numbers or the whole range.
pub fn inputs(seed: u64, index: u64, n: usize) -> Vec<[i32; 4]> {
    const EDGES: [i32; 12] = [
        0,
        1,
        -1,
        2,
        i32::MIN,
        i32::MAX,
        i32::MIN + 1,
        7,
        -7,
        255,
        65535,
        -65536,
    ];
    let mut rng = Rng::for_item(seed ^ 0x1b9_ce5d, index);
    let mut out: Vec<[i32; 4]> = [0, 1, -1, i32::MIN, i32::MAX]
        .iter()
        .map(|&v| [v; 4])
        .take(n)
        .collect();
    while out.len() < n {
        let mut t = [0i32; 4];
        for x in &mut t {
            *x = match rng.weighted(&[4, 3, 3]) {
                0 => *rng.pick(&EDGES),
                1 => rng.range(-20, 40) as i32,
                _ => rng.next_u32() as i32,
            };
        }
        out.push(t);
    }
    out
}

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    fn ty(&mut self) -> Ty {
        if self.rng.chance(0.7) {
            Ty::Int
        } else {
            Ty::Uint
        }
    }

    fn constant(&mut self, ty: Ty) -> Expr {
        let value = match self.rng.weighted(&[6, 2, 2]) {
            0 => *self.rng.pick(CONSTS),
            1 => (self.rng.range(-16, 16) as i32) as u32,
            _ => self.rng.next_u32(),
        };
        Expr::Const { value, ty }
    }

    /// A variable of type `ty` (or cast from the other type), or a constant.
    fn leaf(&mut self, sc: &Scope, ty: Ty) -> Expr {
        if self.rng.chance(0.25) || sc.vars.is_empty() {
            return self.constant(ty);
        }
        let (name, t) = self.rng.pick(&sc.vars).clone();
        let v = Expr::Var { name, ty: t };
        self.convert(v, ty)
    }

    /// `e` as a value of type `ty`.
    fn convert(&mut self, e: Expr, ty: Ty) -> Expr {
        if e.ty() == ty {
            e
        } else {
            Expr::Cast {
                to: match ty {
                    Ty::Int => Small::Int,
                    Ty::Uint => Small::Uint,
                },
                arg: Box::new(e),
            }
        }
    }

    fn mask(&mut self, e: Expr, mask: u32) -> Expr {
        Expr::Mask {
            arg: Box::new(e),
            mask,
        }
    }

    /// An expression of type `ty` at most `depth` deep.
    fn expr(&mut self, sc: &Scope, ty: Ty, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(0.2) {
            return self.leaf(sc, ty);
        }
        let d = depth - 1;
        let calls = if sc.callees.is_empty() { 0 } else { 4 };
        let loads = if sc.arrays.is_empty() { 0 } else { 5 };
        // arith, shift, div, mulhi, cmp, logic, unary, ternary, cast, call, load
        let kind = self
            .rng
            .weighted(&[30, 8, 7, 2, 6, 2, 5, 5, 5, calls, loads]);
        match kind {
            0 => {
                let op = *self.rng.pick(&Arith::ALL);
                let (l, r) = self.two(sc, ty, d);
                Expr::Arith {
                    op,
                    l: Box::new(l),
                    r: Box::new(r),
                    ty,
                }
            }
            1 => {
                let op = if self.rng.chance(0.5) {
                    ShiftOp::Shl
                } else {
                    ShiftOp::Shr
                };
                let at = self.ty();
                Expr::Shift {
                    op,
                    l: Box::new(self.expr(sc, ty, d)),
                    amount: Box::new(self.expr(sc, at, d.min(1))),
                }
            }
            2 => self.division(sc, ty, d.min(1)),
            3 => Expr::MulHi {
                l: Box::new(self.expr(sc, ty, d.min(1))),
                r: Box::new(self.expr(sc, ty, d.min(1))),
                ty,
            },
            4 => {
                let op = *self.rng.pick(&Cmp::ALL);
                let t = self.ty();
                let (l, r) = self.two(sc, t, d);
                let e = Expr::Cmp {
                    op,
                    l: Box::new(l),
                    r: Box::new(r),
                };
                self.convert(e, ty)
            }
            5 => {
                let op = if self.rng.chance(0.5) {
                    Logic::And
                } else {
                    Logic::Or
                };
                let e = Expr::Logic {
                    op,
                    l: Box::new(self.cond(sc, d)),
                    r: Box::new(self.cond(sc, d)),
                };
                self.convert(e, ty)
            }
            6 => {
                let op = *self
                    .rng
                    .pick(&[Unary::Neg, Unary::Not, Unary::Not, Unary::LNot]);
                let at = if op == Unary::LNot { self.ty() } else { ty };
                let e = Expr::Unary {
                    op,
                    arg: Box::new(self.expr(sc, at, d)),
                };
                self.convert(e, ty)
            }
            7 => Expr::Ternary {
                cond: Box::new(self.cond(sc, d)),
                then: Box::new(self.expr(sc, ty, d)),
                els: Box::new(self.expr(sc, ty, d)),
            },
            8 => {
                let to = *self.rng.pick(&Small::ALL);
                let at = self.ty();
                let e = Expr::Cast {
                    to,
                    arg: Box::new(self.expr(sc, at, d)),
                };
                self.convert(e, ty)
            }
            9 => {
                let sig = self.rng.pick(&sc.callees).clone();
                let args = sig
                    .params
                    .iter()
                    .enumerate()
                    .map(|(k, &t)| {
                        let a = self.expr(sc, t, d.min(1));
                        if k == 0 && sig.recursive {
                            self.mask(a, MAX_RECURSION)
                        } else {
                            a
                        }
                    })
                    .collect();
                let e = Expr::Call {
                    callee: sig.name.clone(),
                    args,
                    ty: sig.ret,
                };
                self.convert(e, ty)
            }
            _ => {
                let (array, len, elem) = self.rng.pick(&sc.arrays).clone();
                let it = self.ty();
                let e = Expr::Load {
                    array,
                    len,
                    elem,
                    index: Box::new(self.expr(sc, it, d.min(1))),
                };
                self.convert(e, ty)
            }
        }
    }

    /// Two operands of type `ty` that are not the same expression (`x ^ x` and
    /// `x == x` are dull), unless the scope leaves no choice.
    fn two(&mut self, sc: &Scope, ty: Ty, depth: usize) -> (Expr, Expr) {
        let l = self.expr(sc, ty, depth);
        let mut r = self.expr(sc, ty, depth);
        for _ in 0..3 {
            if r != l {
                break;
            }
            r = self.expr(sc, ty, depth);
        }
        (l, r)
    }

    /// A division or remainder of type `ty`: guarded, or (in a trapping function,
    /// half the time) unguarded with a divisor that may be zero but is never -1.
    fn division(&mut self, sc: &Scope, ty: Ty, depth: usize) -> Expr {
        let op = if self.rng.chance(0.5) {
            DivOp::Div
        } else {
            DivOp::Rem
        };
        let l = self.expr(sc, ty, depth);
        let guarded = !(self.trapping && self.rng.chance(0.35));
        let r = if guarded {
            // Divisors that are sometimes zero or -1.
            if self.rng.chance(0.6) {
                self.leaf(sc, ty)
            } else {
                self.expr(sc, ty, depth)
            }
        } else {
            let e = self.expr(sc, ty, depth.min(1));
            match ty {
                Ty::Int => {
                    let m = *self.rng.pick(&[1, 3, 7, 15, 255, 0x7fff_ffff]);
                    self.mask(e, m)
                }
                Ty::Uint => e,
            }
        };
        Expr::Div {
            op,
            l: Box::new(l),
            r: Box::new(r),
            ty,
            guarded,
        }
    }

    /// A condition (an `int`): usually a comparison.
    fn cond(&mut self, sc: &Scope, depth: usize) -> Expr {
        if depth > 0 && self.rng.chance(0.75) {
            let op = *self.rng.pick(&Cmp::ALL);
            let t = self.ty();
            let (l, r) = self.two(sc, t, depth - 1);
            Expr::Cmp {
                op,
                l: Box::new(l),
                r: Box::new(r),
            }
        } else {
            self.expr(sc, Ty::Int, depth)
        }
    }

    /// A trip count: a constant, or a masked value.
    fn bound(&mut self, sc: &Scope, small: bool) -> Bound {
        let cap = if small { 4 } else { sc.bound_mask.max(1) };
        if self.rng.chance(0.45) {
            Bound::Const(self.rng.range(0, cap as i64) as u32)
        } else {
            let t = self.ty();
            let e = self.expr(sc, t, 1);
            Bound::Masked(self.mask(e, cap.next_power_of_two() - 1))
        }
    }

    fn block(&mut self, sc: &mut Scope, n: usize, depth: usize) -> Vec<Stmt> {
        (0..n).map(|_| self.stmt(sc, depth)).collect()
    }

    fn stmt(&mut self, sc: &mut Scope, depth: usize) -> Stmt {
        let nested = depth > 0;
        let stores = if sc.arrays.is_empty() { 0 } else { 10 };
        let ifs = if nested { 14 } else { 0 };
        let loops = if nested && self.loops < sc.max_loops {
            10
        } else {
            0
        };
        let switches = if nested && self.switches < 2 { 5 } else { 0 };
        let jumps = if self.breakable > 0 { 4 } else { 0 };
        let returns = if nested { 2 } else { 0 };
        let e = 3;
        match self
            .rng
            .weighted(&[36, stores, ifs, loops, switches, jumps, returns])
        {
            0 if !sc.locals.is_empty() => {
                let (var, ty) = self.rng.pick(&sc.locals).clone();
                let value = if self.rng.chance(0.4) {
                    // var = var op e: accumulations.
                    let op = *self.rng.pick(&Arith::ALL);
                    Expr::Arith {
                        op,
                        l: Box::new(Expr::var(&var, ty)),
                        r: Box::new(self.expr(sc, ty, e - 1)),
                        ty,
                    }
                } else {
                    self.expr(sc, ty, e)
                };
                Stmt::Assign { var, value }
            }
            0 | 1 if !sc.arrays.is_empty() => {
                let (array, len, elem) = self.rng.pick(&sc.arrays).clone();
                let it = self.ty();
                let vt = elem.promoted();
                Stmt::Store {
                    array,
                    len,
                    index: self.expr(sc, it, 1),
                    value: self.expr(sc, vt, e - 1),
                }
            }
            2 => {
                let cond = self.cond(sc, 2);
                let nt = self.rng.range(1, 3) as usize;
                let then = self.block(sc, nt, depth - 1);
                let ne = self.rng.range(0, 2) as usize;
                let els = self.block(sc, ne, depth - 1);
                Stmt::If { cond, then, els }
            }
            3 => {
                let kind = *self.rng.pick(&[
                    LoopKind::For,
                    LoopKind::For,
                    LoopKind::While,
                    LoopKind::DoWhile,
                ]);
                let bound = self.bound(sc, self.loops > 0);
                let var = self.name("i");
                self.loops += 1;
                self.breakable += 1;
                sc.vars.push((var.clone(), Ty::Int));
                let n = self.rng.range(1, 4) as usize;
                let body = self.block(sc, n, depth - 1);
                sc.vars.pop();
                self.loops -= 1;
                self.breakable -= 1;
                Stmt::Loop {
                    kind,
                    var,
                    bound,
                    body,
                }
            }
            4 => self.switch(sc, depth),
            5 => {
                let cond = self.cond(sc, 2);
                let jump = if self.loops > 0 && self.rng.chance(0.4) {
                    Stmt::Continue
                } else {
                    Stmt::Break
                };
                Stmt::If {
                    cond,
                    then: vec![jump],
                    els: Vec::new(),
                }
            }
            6 => {
                let cond = self.cond(sc, 2);
                let ret = sc.ret;
                let value = self.expr(sc, ret, 2);
                Stmt::If {
                    cond,
                    then: vec![Stmt::Return(value)],
                    els: Vec::new(),
                }
            }
            _ => {
                // No local to assign: store into the first array or return early.
                let cond = self.cond(sc, 1);
                let ret = sc.ret;
                let value = self.expr(sc, ret, 1);
                Stmt::If {
                    cond,
                    then: vec![Stmt::Return(value)],
                    els: Vec::new(),
                }
            }
        }
    }

    /// A `switch` of five to nine dense cases on a masked value, some falling through.
    fn switch(&mut self, sc: &mut Scope, depth: usize) -> Stmt {
        self.switches += 1;
        self.breakable += 1;
        let n = self.rng.range(5, 9) as usize;
        let mask = if n > 8 || self.rng.chance(0.4) { 15 } else { 7 };
        let base = self.rng.range(0, 2) as i32;
        let t = self.ty();
        let e = self.expr(sc, t, 2);
        let sel = self.mask(e, mask);
        let inner = depth.saturating_sub(1);
        let cases = (0..n)
            .map(|_| {
                let k = self.rng.range(0, 2) as usize;
                Case {
                    body: self.block(sc, k, inner),
                    falls: self.rng.chance(0.2),
                }
            })
            .collect();
        let k = self.rng.range(0, 1) as usize;
        let default = self.block(sc, k, inner);
        self.breakable -= 1;
        self.switches -= 1;
        Stmt::Switch {
            sel,
            base,
            cases,
            default,
        }
    }

    /// Locals (initialised from the parameters) and arrays (each element written).
    fn frame(&mut self, sc: &mut Scope, locals: usize, arrays: usize) -> (Vec<Local>, Vec<Array>) {
        let mut ls = Vec::new();
        for _ in 0..locals {
            let ty = self.ty();
            let init = self.expr(sc, ty, 2);
            let name = self.name("v");
            sc.vars.push((name.clone(), ty));
            sc.locals.push((name.clone(), ty));
            ls.push(Local { name, ty, init });
        }
        let mut arrs = Vec::new();
        for _ in 0..arrays {
            let elem = *self.rng.pick(&Small::ALL);
            let len = *self.rng.pick(&[3, 4, 5, 8, 8, 10, 16, 16, 32]);
            let var = self.name("k");
            // Every element's value is `other op k * C`, with `other` independent of
            // the counter `k` and C odd, so that the elements differ (even as bytes)
            // and gcc never makes the loop a memset.
            let op = *self.rng.pick(&[Arith::Add, Arith::Xor, Arith::Sub]);
            let vt = elem.promoted();
            let other = self.expr(sc, vt, 1);
            let counter = self.convert(Expr::var(&var, Ty::Int), vt);
            let counter = Expr::Arith {
                op: Arith::Mul,
                l: Box::new(counter),
                r: Box::new(Expr::Const {
                    value: *self.rng.pick(&[1, 3, 7, 0x101, 0x9e37_79b9]),
                    ty: vt,
                }),
                ty: vt,
            };
            let init = Expr::Arith {
                op,
                l: Box::new(other),
                r: Box::new(counter),
                ty: vt,
            };
            let name = self.name("arr");
            sc.arrays.push((name.clone(), len, elem));
            arrs.push(Array {
                name,
                elem,
                len,
                var,
                init,
            });
        }
        (ls, arrs)
    }

    fn helper(&mut self, k: usize, sigs: &[Sig]) -> super::Def {
        let n = self.rng.range(1, 3) as usize;
        let params: Vec<(String, Ty)> = (0..n).map(|j| (format!("x{j}"), self.ty())).collect();
        let ret = self.ty();
        let mut sc = Scope {
            vars: params.clone(),
            locals: Vec::new(),
            arrays: Vec::new(),
            callees: sigs.to_vec(),
            bound_mask: 7,
            max_loops: 1,
            ret,
        };
        let nl = self.rng.range(0, 2) as usize;
        let na = usize::from(self.rng.chance(0.2));
        let (locals, arrays) = self.frame(&mut sc, nl, na);
        let ns = self.rng.range(0, 3) as usize;
        let mut body = self.block(&mut sc, ns, 2);
        body.push(Stmt::Return(self.expr(&sc, ret, 3)));
        let linkage = *self.rng.pick(&[
            Linkage::Static,
            Linkage::Noinline,
            Linkage::Noinline,
            Linkage::Extern,
        ]);
        super::Def {
            name: format!("h{k}"),
            ret,
            params,
            linkage,
            locals,
            arrays,
            base: None,
            body,
        }
    }

    /// `h(int n, T x)`: returns a value of `x` when `n <= 0`, else combines a call of
    /// itself on `n - 1` with a value of `n` and `x`. Its callers mask `n` with 7.
    fn recursive_helper(&mut self, k: usize, sigs: &[Sig]) -> super::Def {
        let name = format!("h{k}");
        let xt = self.ty();
        let ret = self.ty();
        let params = vec![("n".to_string(), Ty::Int), ("x".to_string(), xt)];
        let mut sc = Scope {
            vars: params.clone(),
            locals: Vec::new(),
            arrays: Vec::new(),
            callees: sigs.to_vec(),
            bound_mask: 3,
            max_loops: 0,
            ret,
        };
        let base = self.expr(&sc, ret, 2);
        let nl = self.rng.range(0, 1) as usize;
        let (locals, arrays) = self.frame(&mut sc, nl, 0);
        let arg = self.expr(&sc, xt, 2);
        let rec = Expr::SelfCall {
            callee: name.clone(),
            arg: Box::new(arg),
            ty: ret,
        };
        let op = *self.rng.pick(&Arith::ALL);
        let other = self.expr(&sc, ret, 2);
        let value = Expr::Arith {
            op,
            l: Box::new(rec),
            r: Box::new(other),
            ty: ret,
        };
        super::Def {
            name,
            ret,
            params,
            linkage: *self
                .rng
                .pick(&[Linkage::Static, Linkage::Noinline, Linkage::Extern]),
            locals,
            arrays,
            base: Some(base),
            body: vec![Stmt::Return(value)],
        }
    }

    fn top(&mut self, sigs: &[Sig]) -> super::Def {
        let params: Vec<(String, Ty)> = ["a", "b", "c", "d"]
            .iter()
            .map(|n| (n.to_string(), Ty::Int))
            .collect();
        let mut sc = Scope {
            vars: params.clone(),
            locals: Vec::new(),
            arrays: Vec::new(),
            callees: sigs.to_vec(),
            bound_mask: 15,
            max_loops: 2,
            ret: Ty::Int,
        };
        let nl = self.rng.range(2, 5) as usize;
        let na = self.rng.weighted(&[3, 4, 2]);
        let (locals, arrays) = self.frame(&mut sc, nl, na);
        let ns = self.rng.range(3, 8) as usize;
        let mut body = self.block(&mut sc, ns, 3);
        // Most functions have a switch at the top level, so that gcc makes jump tables.
        if !body.iter().any(|s| matches!(s, Stmt::Switch { .. })) && self.rng.chance(0.6) {
            let s = self.switch(&mut sc, 2);
            body.push(s);
        }
        // The result mixes every local.
        let mut ret = self.expr(&sc, Ty::Int, 2);
        for (name, ty) in sc.locals.clone() {
            let v = self.convert(Expr::var(&name, ty), Ty::Int);
            ret = Expr::Arith {
                op: *self.rng.pick(&[Arith::Add, Arith::Xor, Arith::Sub]),
                l: Box::new(ret),
                r: Box::new(v),
                ty: Ty::Int,
            };
        }
        body.push(Stmt::Return(ret));
        super::Def {
            name: "f".to_string(),
            ret: Ty::Int,
            params,
            linkage: Linkage::Extern,
            locals,
            arrays,
            base: None,
            body,
        }
    }
}
