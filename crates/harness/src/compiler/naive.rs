//! The stack-machine code generator most students write: `$4` = 4, `$11` = 1, `$29`
//! the frame pointer with every variable at a fixed offset from it, every expression's
//! value in `$3`, a binary operator's left operand pushed on the stack (through `$30`)
//! and popped into `$5`; a call saves `$29` and `$31` on the stack, pushes its
//! arguments and jumps through `$5`; `println` saves `$31` and calls the imported
//! print with the value in `$1`. It keeps nothing in registers across statements, so
//! it is the obviously-right side of a pair.

use super::bugs::{Bug, BugKind, Sites};
use super::emit::{proc_label, Asm, FOUR, FRAME, LINK, PRINT, RES, STACK, ZERO};
use super::source::{BinOp, CmpOp, Cond, Expr, Proc, Program, Stmt, Ty, NULL};
use crate::prog::{Op, Prog, R};

const ONE: R = R(11);
const LEFT: R = R(5);

/// Compiles `prog`, planting `bug` if given; also returns the sites it met (to choose
/// a bug that has somewhere to go).
pub fn compile(prog: &Program, bug: Option<Bug>) -> (Prog, Sites) {
    let mut g = Naive {
        asm: Asm::new("L", bug),
        helper: false,
    };
    g.proc(&prog.wain);
    g.helper = true;
    for (k, p) in prog.helpers.iter().enumerate() {
        g.asm.label(&proc_label("F", k));
        g.proc(p);
    }
    let sites = g.asm.sites.clone();
    (g.asm.into_prog(), sites)
}

struct Naive {
    asm: Asm,
    /// Compiling a helper (parameters above the frame) rather than wain.
    helper: bool,
}

impl Naive {
    /// The frame offset of variable `v`: wain pushes its parameters, a helper's caller
    /// pushes them (above the frame); locals follow, one word each.
    fn offset(&self, v: usize) -> i16 {
        let off = if !self.helper {
            -4 * v as i32
        } else if v < 2 {
            4 * (2 - v as i32)
        } else {
            -4 * (v as i32 - 2)
        };
        off as i16
    }

    fn proc(&mut self, p: &Proc) {
        let a = &mut self.asm;
        if !self.helper {
            a.lis(FOUR, 4);
            a.lis(ONE, 1);
            a.op(Op::Sub(FRAME, STACK, FOUR));
            a.push(R(1));
            a.push(R(2));
        } else {
            a.op(Op::Sub(FRAME, STACK, FOUR));
        }
        for ((_, ty), &init) in p.vars[2..].iter().zip(&p.inits) {
            let init = if *ty == Ty::Ptr { NULL } else { init };
            self.num(init);
            self.asm.push(RES);
        }
        for s in &p.body {
            self.stmt(s);
        }
        self.expr(&p.ret);
        self.asm.op(Op::Add(STACK, FRAME, FOUR));
        self.asm.op(Op::Jr(LINK));
    }

    fn num(&mut self, n: i32) {
        match n {
            0 => self.asm.op(Op::Add(RES, ZERO, ZERO)),
            1 => self.asm.op(Op::Add(RES, ONE, ZERO)),
            _ => self.asm.lis(RES, n),
        }
    }

    fn load(&mut self, v: usize) {
        let mut off = self.offset(v);
        if self.asm.sites.hit(BugKind::FrameOffset) {
            off -= 4;
        }
        self.asm.op(Op::Lw(RES, off, FRAME));
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign(v, e) => {
                self.expr(e);
                let off = self.offset(*v);
                self.asm.op(Op::Sw(RES, off, FRAME));
            }
            Stmt::Store(p, e) => {
                self.expr(p);
                self.asm.push(RES);
                self.expr(e);
                self.asm.pop(LEFT);
                self.asm.op(Op::Sw(RES, 0, LEFT));
            }
            Stmt::Print(e) => {
                self.expr(e);
                self.asm.op(Op::Add(R(1), RES, ZERO));
                self.asm.push(LINK);
                self.asm.lis_label(LEFT, PRINT);
                self.asm.op(Op::Jalr(LEFT));
                self.asm.pop(LINK);
            }
            Stmt::If(c, t, e) => {
                let (orelse, end) = (self.asm.fresh(), self.asm.fresh());
                self.branch_unless(c, &orelse);
                for s in t {
                    self.stmt(s);
                }
                self.asm.goto(&end);
                self.asm.label(&orelse);
                for s in e {
                    self.stmt(s);
                }
                self.asm.label(&end);
            }
            Stmt::While(c, b) => {
                let (top, end) = (self.asm.fresh(), self.asm.fresh());
                self.asm.label(&top);
                self.branch_unless(c, &end);
                for s in b {
                    self.stmt(s);
                }
                self.asm.goto(&top);
                self.asm.label(&end);
            }
        }
    }

    /// Jumps to `target` when `c` does not hold: left in `$5`, right in `$3`.
    fn branch_unless(&mut self, c: &Cond, target: &str) {
        self.expr(&c.left);
        self.asm.push(RES);
        self.expr(&c.right);
        self.asm.pop(LEFT);
        let a = &mut self.asm;
        let (op, unsigned) = super::bugs::emitted_comparison(&mut a.sites, c);
        let slt = |d, s, t| {
            if unsigned {
                Op::Sltu(d, s, t)
            } else {
                Op::Slt(d, s, t)
            }
        };
        let t = target.to_string();
        match op {
            CmpOp::Lt => {
                a.op(slt(RES, LEFT, RES));
                a.op(Op::Beq(RES, ZERO, t));
            }
            CmpOp::Gt => {
                a.op(slt(RES, RES, LEFT));
                a.op(Op::Beq(RES, ZERO, t));
            }
            CmpOp::Le => {
                a.op(slt(RES, RES, LEFT));
                a.op(Op::Bne(RES, ZERO, t));
            }
            CmpOp::Ge => {
                a.op(slt(RES, LEFT, RES));
                a.op(Op::Bne(RES, ZERO, t));
            }
            CmpOp::Eq => a.op(Op::Bne(LEFT, RES, t)),
            CmpOp::Ne => a.op(Op::Beq(LEFT, RES, t)),
        }
    }

    /// The value of `e` in `$3`.
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Num(n) => self.num(*n),
            Expr::Var(v) => self.load(*v),
            Expr::Bin(op, l, r) => {
                self.expr(l);
                self.asm.push(RES);
                self.expr(r);
                self.asm.pop(LEFT);
                let a = &mut self.asm;
                let swap = matches!(op, BinOp::Sub | BinOp::Div | BinOp::Rem)
                    && a.sites.hit(BugKind::OperandOrder);
                let (x, y) = if swap { (RES, LEFT) } else { (LEFT, RES) };
                match op {
                    BinOp::Add => a.op(Op::Add(RES, x, y)),
                    BinOp::Sub => a.op(Op::Sub(RES, x, y)),
                    BinOp::Mul => {
                        a.op(Op::Mult(x, y));
                        a.op(Op::Mflo(RES));
                    }
                    BinOp::Div => {
                        a.op(Op::Div(x, y));
                        a.op(Op::Mflo(RES));
                    }
                    BinOp::Rem => {
                        a.op(Op::Div(x, y));
                        a.op(Op::Mfhi(RES));
                    }
                }
            }
            Expr::PtrAdd(p, i) => {
                self.expr(p);
                self.asm.push(RES);
                self.expr(i);
                self.asm.op(Op::Mult(RES, FOUR));
                self.asm.op(Op::Mflo(RES));
                self.asm.pop(LEFT);
                self.asm.op(Op::Add(RES, LEFT, RES));
            }
            Expr::Deref(p) => {
                self.expr(p);
                self.asm.op(Op::Lw(RES, 0, RES));
            }
            Expr::Call(k, x, y) => {
                let keep_frame = !self.asm.sites.hit(BugKind::ClobberedRegister);
                if keep_frame {
                    self.asm.push(FRAME);
                }
                self.asm.push(LINK);
                self.expr(x);
                self.asm.push(RES);
                self.expr(y);
                self.asm.push(RES);
                self.asm.lis_label(LEFT, &proc_label("F", *k));
                self.asm.op(Op::Jalr(LEFT));
                self.asm.op(Op::Add(STACK, STACK, FOUR));
                self.asm.op(Op::Add(STACK, STACK, FOUR));
                self.asm.pop(LINK);
                if keep_frame {
                    self.asm.pop(FRAME);
                }
            }
        }
    }
}
