//! A register-allocating code generator: the other side of a pair, built to compute
//! exactly what [`naive`](super::naive) computes by different code.
//!
//! Variables live in `$12`–`$23` (the rest, rarely, in frame slots off `$29`),
//! temporaries in `$5`–`$10` and `$24`–`$28` (spilled through the stack, with `$3`
//! as the scratch, when an expression needs more). Arguments go in `$1` and `$2`, the
//! result comes back in `$3`, and every helper saves on entry, and restores on exit,
//! every register its body writes except `$3`: so whatever the caller keeps in
//! registers (variables, the partial results of the expression around the call)
//! survives the call, and print (which keeps every register but hi and lo) needs
//! nothing saved. Pointer offsets are scaled by adding instead of `mult`; `if` puts
//! its else block first and `while` tests at the bottom; sums and products of two
//! literals are folded. Operands are still evaluated left to right and every one of
//! them (a division by zero faults where naive's does, calls print in the same order).

use super::bugs::{Bug, BugKind, Sites};
use super::emit::{proc_label, Asm, FOUR, FRAME, LINK, PRINT, RES, STACK, ZERO};
use super::source::{BinOp, CmpOp, Cond, Expr, Proc, Program, Stmt, Ty, NULL};
use crate::prog::{Line, Op, Prog, Word, R};

/// Registers for variables, in order.
const VAR_REGS: [u8; 12] = [12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
/// Registers for temporaries.
const TEMPS: [u8; 11] = [5, 6, 7, 8, 9, 10, 24, 25, 26, 27, 28];

#[derive(Clone, Copy, Debug)]
enum Loc {
    Reg(R),
    /// A frame slot: `off($29)`.
    Slot(i16),
}

/// Compiles `prog`, planting `bug` if given; also returns the sites it met.
pub fn compile(prog: &Program, bug: Option<Bug>) -> (Prog, Sites) {
    let mut asm = Asm::new("r", bug);
    wain(prog, &mut asm);
    for (k, p) in prog.helpers.iter().enumerate() {
        helper(k, p, &mut asm);
    }
    let sites = asm.sites.clone();
    (asm.into_prog(), sites)
}

fn locations(p: &Proc) -> Vec<Loc> {
    let mut slots = 0i16;
    (0..p.vars.len())
        .map(|v| match VAR_REGS.get(v) {
            Some(&r) => Loc::Reg(R(r)),
            None => {
                slots += 1;
                Loc::Slot(-4 * slots)
            }
        })
        .collect()
}

fn slot_count(locs: &[Loc]) -> i32 {
    locs.iter().filter(|l| matches!(l, Loc::Slot(_))).count() as i32
}

/// wain: `$4` = 4, `$31` saved (the only register the loader needs back), frame slots
/// if any, the inputs moved out of `$1` and `$2` (print and calls use them).
fn wain(prog: &Program, asm: &mut Asm) {
    let p = &prog.wain;
    let locs = locations(p);
    asm.lis(FOUR, 4);
    asm.push(LINK);
    let slots = slot_count(&locs);
    if slots > 0 {
        asm.op(Op::Add(FRAME, STACK, ZERO));
        asm.lis(RES, 4 * slots);
        asm.op(Op::Sub(STACK, STACK, RES));
    }
    let mut g = Gen { locs, asm };
    g.body(p);
    if slots > 0 {
        g.asm.op(Op::Add(STACK, FRAME, ZERO));
    }
    g.asm.pop(LINK);
    g.asm.op(Op::Jr(LINK));
}

/// Helper `k`: its body compiled first (to learn which registers it writes), then
/// the saves, the body and the restores around it.
fn helper(k: usize, p: &Proc, asm: &mut Asm) {
    let locs = locations(p);
    let slots = slot_count(&locs);
    let start = asm.lines.len();
    let mut g = Gen { locs, asm };
    g.body(p);
    let body: Vec<Line> = asm.lines.split_off(start);
    let mut saved: Vec<R> = Vec::new();
    if slots > 0 {
        saved.push(FRAME);
    }
    for l in &body {
        if let Line::Op(op) = l {
            if let Some(d) = written(op) {
                if d != RES && d != STACK && d != ZERO && !saved.contains(&d) {
                    saved.push(d);
                }
            }
        }
    }
    saved.sort();
    // The bug: one register the body writes (not $29 or $31: a wild frame or return
    // address only makes both runs fault or spin) left unsaved.
    let mut kept = Vec::new();
    for &r in &saved {
        if r != FRAME && r != LINK && asm.sites.hit(BugKind::ClobberedRegister) {
            continue;
        }
        kept.push(r);
    }
    let n = kept.len() as i32;
    asm.label(&proc_label("P", k));
    for (j, &r) in kept.iter().enumerate() {
        asm.op(Op::Sw(r, (-4 * (j as i32 + 1)) as i16, STACK));
    }
    if n > 0 {
        asm.lis(RES, 4 * n);
        asm.op(Op::Sub(STACK, STACK, RES));
    }
    if slots > 0 {
        asm.op(Op::Add(FRAME, STACK, ZERO));
        asm.lis(RES, 4 * slots);
        asm.op(Op::Sub(STACK, STACK, RES));
    }
    asm.lines.extend(body);
    if slots > 0 {
        asm.op(Op::Add(STACK, FRAME, ZERO));
    }
    if let Some(&scratch) = kept.last() {
        asm.lis(scratch, 4 * n);
        asm.op(Op::Add(STACK, STACK, scratch));
        for (j, &r) in kept.iter().enumerate() {
            let mut off = -4 * (j as i32 + 1);
            if asm.sites.hit(BugKind::FrameOffset) {
                off -= 4;
            }
            asm.op(Op::Lw(r, off as i16, STACK));
        }
    }
    asm.op(Op::Jr(LINK));
}

/// The register an instruction writes, if any.
fn written(op: &Op) -> Option<R> {
    match op {
        Op::Add(d, ..)
        | Op::Sub(d, ..)
        | Op::Slt(d, ..)
        | Op::Sltu(d, ..)
        | Op::Mfhi(d)
        | Op::Mflo(d)
        | Op::Lis(d, _)
        | Op::Lw(d, ..) => Some(*d),
        Op::Jalr(_) => Some(LINK),
        _ => None,
    }
}

struct Gen<'a> {
    locs: Vec<Loc>,
    asm: &'a mut Asm,
}

impl Gen<'_> {
    fn body(&mut self, p: &Proc) {
        // Parameters out of $1 and $2 first: print and calls reuse them.
        for (v, r) in [(0, R(1)), (1, R(2))] {
            self.set_var(v, r);
        }
        for (i, ((_, ty), &init)) in p.vars[2..].iter().zip(&p.inits).enumerate() {
            let init = if *ty == Ty::Ptr { NULL } else { init };
            match self.locs[i + 2] {
                Loc::Reg(r) => self.num(r, init),
                Loc::Slot(_) => {
                    self.num(RES, init);
                    self.set_var(i + 2, RES);
                }
            }
        }
        for s in &p.body {
            self.stmt(s);
        }
        let t = R(TEMPS[0]);
        let r = self.operand(&p.ret, t, &TEMPS[1..]);
        self.asm.mov(RES, r);
    }

    fn set_var(&mut self, v: usize, from: R) {
        match self.locs[v] {
            Loc::Reg(r) => self.asm.mov(r, from),
            Loc::Slot(off) => self.asm.op(Op::Sw(from, off, FRAME)),
        }
    }

    fn num(&mut self, d: R, n: i32) {
        if n == 0 {
            self.asm.op(Op::Add(d, ZERO, ZERO));
        } else {
            self.asm.lis(d, n);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let (t0, rest) = (R(TEMPS[0]), &TEMPS[1..]);
        match s {
            Stmt::Assign(v, e) => {
                // Into a temporary first: `x = 3 - x` must read the old x.
                let r = self.operand(e, t0, rest);
                self.set_var(*v, r);
            }
            Stmt::Store(p, e) => {
                let pr = self.operand(p, t0, rest);
                let er = self.operand(e, R(rest[0]), &rest[1..]);
                self.asm.op(Op::Sw(er, 0, pr));
            }
            Stmt::Print(e) => {
                let r = self.operand(e, t0, rest);
                self.asm.mov(R(1), r);
                self.asm.lis_label(RES, PRINT);
                self.asm.op(Op::Jalr(RES));
            }
            Stmt::If(c, t, e) => {
                let (then, end) = (self.asm.fresh(), self.asm.fresh());
                self.branch(c, true, &then);
                for s in e {
                    self.stmt(s);
                }
                self.asm.goto(&end);
                self.asm.label(&then);
                for s in t {
                    self.stmt(s);
                }
                self.asm.label(&end);
            }
            Stmt::While(c, b) => {
                let (body, test) = (self.asm.fresh(), self.asm.fresh());
                self.asm.goto(&test);
                self.asm.label(&body);
                for s in b {
                    self.stmt(s);
                }
                self.asm.label(&test);
                self.branch(c, true, &body);
            }
        }
    }

    /// Jumps to `target` when `c` is `when`.
    fn branch(&mut self, c: &Cond, when: bool, target: &str) {
        let (t0, t1, rest) = (R(TEMPS[0]), R(TEMPS[1]), &TEMPS[2..]);
        let l = self.operand(&c.left, t0, &TEMPS[1..]);
        let r = self.operand(&c.right, t1, rest);
        let a = &mut *self.asm;
        let (op, unsigned) = super::bugs::emitted_comparison(&mut a.sites, c);
        let slt = |d, s, t| {
            if unsigned {
                Op::Sltu(d, s, t)
            } else {
                Op::Slt(d, s, t)
            }
        };
        let t = target.to_string();
        // `flag` set means the comparison holds when flag != 0 (Lt, Gt) or when it is
        // 0 (Le, Ge).
        let (jump_if_set, jump_if_clear) = (
            |t: String| Op::Bne(RES, ZERO, t),
            |t: String| Op::Beq(RES, ZERO, t),
        );
        match op {
            CmpOp::Lt | CmpOp::Gt => {
                let (x, y) = if op == CmpOp::Lt { (l, r) } else { (r, l) };
                a.op(slt(RES, x, y));
                a.op(if when {
                    jump_if_set(t)
                } else {
                    jump_if_clear(t)
                });
            }
            CmpOp::Le | CmpOp::Ge => {
                let (x, y) = if op == CmpOp::Le { (r, l) } else { (l, r) };
                a.op(slt(RES, x, y));
                a.op(if when {
                    jump_if_clear(t)
                } else {
                    jump_if_set(t)
                });
            }
            CmpOp::Eq => a.op(if when {
                Op::Beq(l, r, t)
            } else {
                Op::Bne(l, r, t)
            }),
            CmpOp::Ne => a.op(if when {
                Op::Bne(l, r, t)
            } else {
                Op::Beq(l, r, t)
            }),
        }
    }

    /// Evaluates `e`, using `dst` and the temporaries `free` as it needs; returns the
    /// register that holds the value (`dst`, or a variable's own register).
    fn operand(&mut self, e: &Expr, dst: R, free: &[u8]) -> R {
        if let Expr::Var(v) = e {
            if let Loc::Reg(r) = self.locs[*v] {
                return r;
            }
        }
        self.expr(e, dst, free);
        dst
    }

    /// Evaluates `e` into `dst`.
    fn expr(&mut self, e: &Expr, dst: R, free: &[u8]) {
        match e {
            Expr::Num(n) => self.num(dst, *n),
            Expr::Var(v) => match self.locs[*v] {
                Loc::Reg(r) => self.asm.mov(dst, r),
                Loc::Slot(off) => self.asm.op(Op::Lw(dst, off, FRAME)),
            },
            Expr::Bin(op, l, r) => {
                if let (Expr::Num(a), Expr::Num(b)) = (&**l, &**r) {
                    let folded = match op {
                        BinOp::Add => Some(a.wrapping_add(*b)),
                        BinOp::Sub if !self.asm.sites.hit(BugKind::OperandOrder) => {
                            Some(a.wrapping_sub(*b))
                        }
                        BinOp::Sub => Some(b.wrapping_sub(*a)),
                        BinOp::Mul => Some(a.wrapping_mul(*b)),
                        // Division is left to the machine (a zero divisor faults).
                        BinOp::Div | BinOp::Rem => None,
                    };
                    if let Some(n) = folded {
                        self.num(dst, n);
                        return;
                    }
                }
                let (x, y) = self.two(l, r, dst, free);
                let a = &mut *self.asm;
                let swap = matches!(op, BinOp::Sub | BinOp::Div | BinOp::Rem)
                    && a.sites.hit(BugKind::OperandOrder);
                let (x, y) = if swap { (y, x) } else { (x, y) };
                match op {
                    BinOp::Add => a.op(Op::Add(dst, x, y)),
                    BinOp::Sub => a.op(Op::Sub(dst, x, y)),
                    BinOp::Mul => {
                        a.op(Op::Mult(x, y));
                        a.op(Op::Mflo(dst));
                    }
                    BinOp::Div => {
                        a.op(Op::Div(x, y));
                        a.op(Op::Mflo(dst));
                    }
                    BinOp::Rem => {
                        a.op(Op::Div(x, y));
                        a.op(Op::Mfhi(dst));
                    }
                }
            }
            Expr::PtrAdd(p, i) => {
                let (x, y) = self.two(p, i, dst, free);
                // 4 * i by two additions, into dst unless dst holds the pointer.
                let t = if x == dst { RES } else { dst };
                self.asm.op(Op::Add(t, y, y));
                self.asm.op(Op::Add(t, t, t));
                self.asm.op(Op::Add(dst, x, t));
            }
            Expr::Deref(p) => {
                let r = self.operand(p, dst, free);
                self.asm.op(Op::Lw(dst, 0, r));
            }
            Expr::Call(k, x, y) => {
                let (a, b) = self.two(x, y, dst, free);
                // $1 and $2 may hold either value: move through $3 if they cross.
                if b == R(1) {
                    self.asm.mov(RES, b);
                    self.asm.mov(R(1), a);
                    self.asm.mov(R(2), RES);
                } else {
                    self.asm.mov(R(1), a);
                    self.asm.mov(R(2), b);
                }
                self.asm.op(Op::Lis(RES, Word::Label(proc_label("P", *k))));
                self.asm.op(Op::Jalr(RES));
                self.asm.mov(dst, RES);
            }
        }
    }

    /// Evaluates `l` then `r`: the registers holding their values. With no temporary
    /// left, `l`'s value waits on the stack and comes back in `$3`.
    fn two(&mut self, l: &Expr, r: &Expr, dst: R, free: &[u8]) -> (R, R) {
        let x = self.operand(l, dst, free);
        match free.split_first() {
            Some((&t, rest)) => {
                let y = self.operand(r, R(t), rest);
                (x, y)
            }
            None => {
                self.asm.push(x);
                let y = self.operand(r, dst, &[]);
                self.asm.pop(RES);
                (RES, y)
            }
        }
    }
}
