//! One change to a generated function: an operator, a constant or a comparison,
//! chosen by a seed. The result stays free of undefined behaviour: masks (shift
//! amounts, indices, unguarded divisors, loop bounds, recursion depths) and guards
//! are part of the shape and never change, a constant trip count stays within
//! 0..=16, and the arrays' initial values (which gcc must never turn into `memset`)
//! stay as they are.

use super::{Arith, Bound, Cmp, Def, DivOp, Expr, Func, Logic, ShiftOp, Stmt, Unary};
use crate::rng::Rng;

/// Walks every mutable site in order; changes site `target` (if any).
struct Walk {
    count: usize,
    target: Option<usize>,
    rng: Rng,
    done: Option<String>,
}

impl Walk {
    /// Whether the current site is the one to change (and counts it).
    fn hit(&mut self) -> bool {
        let hit = self.target == Some(self.count);
        self.count += 1;
        hit
    }

    fn other<T: Copy + PartialEq>(&mut self, all: &[T], now: T) -> T {
        let rest: Vec<T> = all.iter().copied().filter(|&x| x != now).collect();
        *self.rng.pick(&rest)
    }

    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Const { value, .. } => {
                if self.hit() {
                    let old = *value;
                    *value = match self.rng.below(5) {
                        0 => old.wrapping_add(1),
                        1 => old.wrapping_sub(1),
                        2 => !old,
                        3 if old != 0 => 0,
                        3 => 1,
                        _ => old ^ (1 << self.rng.below(32)),
                    };
                    self.done = Some(format!("constant {} -> {}", old as i32, *value as i32));
                }
            }
            Expr::Var { .. } => {}
            Expr::Unary { op, arg } => {
                if *op != Unary::LNot && self.hit() {
                    let new = if *op == Unary::Neg {
                        Unary::Not
                    } else {
                        Unary::Neg
                    };
                    self.done = Some(format!("unary {} -> {}", op.c(), new.c()));
                    *op = new;
                }
                self.expr(arg);
            }
            Expr::Arith { op, l, r, .. } => {
                if self.hit() {
                    let new = self.other(&Arith::ALL, *op);
                    self.done = Some(format!("operator {} -> {}", op.c(), new.c()));
                    *op = new;
                }
                self.expr(l);
                self.expr(r);
            }
            Expr::Shift { op, l, amount } => {
                if self.hit() {
                    let new = match op {
                        ShiftOp::Shl => ShiftOp::Shr,
                        ShiftOp::Shr => ShiftOp::Shl,
                    };
                    self.done = Some(format!("shift {} -> {}", op.c(), new.c()));
                    *op = new;
                }
                self.expr(l);
                self.expr(amount);
            }
            Expr::Div { op, l, r, .. } => {
                if self.hit() {
                    let new = match op {
                        DivOp::Div => DivOp::Rem,
                        DivOp::Rem => DivOp::Div,
                    };
                    self.done = Some(format!("division {} -> {}", op.c(), new.c()));
                    *op = new;
                }
                self.expr(l);
                self.expr(r);
            }
            Expr::MulHi { l, r, .. } => {
                self.expr(l);
                self.expr(r);
            }
            Expr::Cmp { op, l, r } => {
                if self.hit() {
                    let new = self.other(&Cmp::ALL, *op);
                    self.done = Some(format!("comparison {} -> {}", op.c(), new.c()));
                    *op = new;
                }
                self.expr(l);
                self.expr(r);
            }
            Expr::Logic { op, l, r } => {
                if self.hit() {
                    let new = match op {
                        Logic::And => Logic::Or,
                        Logic::Or => Logic::And,
                    };
                    self.done = Some(format!("logic {} -> {}", op.c(), new.c()));
                    *op = new;
                }
                self.expr(l);
                self.expr(r);
            }
            Expr::Ternary { cond, then, els } => {
                if self.hit() {
                    std::mem::swap(then, els);
                    self.done = Some("ternary arms swapped".to_string());
                }
                self.expr(cond);
                self.expr(then);
                self.expr(els);
            }
            Expr::Cast { arg, .. } | Expr::SelfCall { arg, .. } => self.expr(arg),
            Expr::Call { args, .. } => {
                for a in args {
                    self.expr(a);
                }
            }
            // The mask's operand may change, not the mask.
            Expr::Mask { arg, .. } => self.expr(arg),
            Expr::Load { index, .. } => self.expr(index),
        }
    }

    fn block(&mut self, body: &mut [Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Assign { value, .. } => self.expr(value),
            Stmt::Store { index, value, .. } => {
                self.expr(index);
                self.expr(value);
            }
            Stmt::If { cond, then, els } => {
                self.expr(cond);
                self.block(then);
                self.block(els);
            }
            Stmt::Loop { bound, body, .. } => {
                match bound {
                    Bound::Const(n) => {
                        if self.hit() {
                            let old = *n;
                            *n = if old == 0 || (old < 16 && self.rng.chance(0.5)) {
                                old + 1
                            } else {
                                old - 1
                            };
                            self.done = Some(format!("trip count {old} -> {n}"));
                        }
                    }
                    Bound::Masked(e) => self.expr(e),
                }
                self.block(body);
            }
            Stmt::Switch {
                sel,
                cases,
                default,
                ..
            } => {
                self.expr(sel);
                for c in cases {
                    self.block(&mut c.body);
                }
                self.block(default);
            }
            Stmt::Break | Stmt::Continue => {}
            Stmt::Return(e) => self.expr(e),
        }
    }

    fn def(&mut self, d: &mut Def) {
        if let Some(b) = &mut d.base {
            self.expr(b);
        }
        for l in &mut d.locals {
            self.expr(&mut l.init);
        }
        self.block(&mut d.body);
    }

    fn func(&mut self, f: &mut Func) {
        for h in &mut f.helpers {
            self.def(h);
        }
        self.def(&mut f.f);
    }
}

/// The number of places [`mutate`] may change in `f`.
pub fn sites(f: &Func) -> usize {
    let mut w = Walk {
        count: 0,
        target: None,
        rng: Rng::new(0),
        done: None,
    };
    w.func(&mut f.clone());
    w.count
}

/// `f` with one operator, constant, comparison or trip count changed (chosen by
/// `seed`); [`Func::mutation`] says which. Mutating a mutant adds to its description.
pub fn mutate(f: &Func, seed: u64) -> Func {
    let n = sites(f);
    let mut rng = Rng::new(seed);
    let mut out = f.clone();
    if n == 0 {
        return out;
    }
    let target = rng.below(n);
    let mut w = Walk {
        count: 0,
        target: Some(target),
        rng,
        done: None,
    };
    w.func(&mut out);
    let what = format!(
        "site {target} of {n}: {}",
        w.done.unwrap_or_else(|| "nothing".to_string())
    );
    out.mutation = Some(match &f.mutation {
        Some(m) => format!("{m}; {what}"),
        None => what,
    });
    out
}
