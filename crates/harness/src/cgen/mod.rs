//! Random C functions for the MIPS32 profile: `int f(int a, int b, int c, int d)` and
//! the helpers it calls, made from a seed ([`generate`]), printed as C
//! ([`Func::source`]), changed in one place ([`mutate()`]), and checked against the
//! machine ([`oracle`]): each function is compiled by `mips-linux-gnu-gcc` at several
//! levels, run under `qemu-mips` as a static program and under our emulator as the
//! relocatable object, and the two must agree on every input. [`pairs`] compares
//! two builds of a function (two levels, or the function and a mutant) with
//! `tamarin::compare_functions` and checks every verdict under qemu.
//!
//! The functions use int arithmetic on `int` and `unsigned` (`+ - * / % & | ^ ~ << >>`,
//! the high word of a 64-bit product, casts to `char` and `short`), comparisons,
//! `&&`, `||`, `!` and ternaries; `if`/`else`; `for`, `while` and `do` loops whose trip
//! counts are constants or masked values (`(a & 15)`), with `break` and `continue`;
//! `switch` statements of five to nine dense cases (gcc makes jump tables of them);
//! small `char`, `short` and `int` arrays on the stack, every index masked into range;
//! calls of helpers, some `noinline`, one of them sometimes recursive with a masked
//! depth.
//!
//! They have no undefined behaviour when compiled with `-fwrapv` (which makes signed
//! overflow wrap): every shift amount is masked with `& 31`, every local and array
//! element is written before it is read, and every division is either guarded (a zero
//! divisor, or `INT_MIN / -1`, gives 0) or, in functions made "trapping"
//! ([`Func::trapping`]), deliberately unguarded with a divisor that can be zero but
//! never -1 (a masked `int`, or an `unsigned`), so that gcc's `teq` division check
//! traps on some inputs.

pub mod gen;
pub mod loops;
pub mod mutate;
pub mod oracle;
pub mod pairs;

use std::fmt::{self, Write as _};

pub use gen::{generate, inputs};
pub use mutate::mutate;

/// The two types of values: `int` and `unsigned` (32 bits on MIPS32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Int,
    Uint,
}

impl Ty {
    /// The C name.
    pub fn c(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Uint => "unsigned",
        }
    }

    /// The other type.
    pub fn other(self) -> Ty {
        match self {
            Ty::Int => Ty::Uint,
            Ty::Uint => Ty::Int,
        }
    }
}

/// The element type of an array, and the target of a cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Small {
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    Uint,
}

impl Small {
    pub const ALL: [Small; 6] = [
        Small::SChar,
        Small::UChar,
        Small::Short,
        Small::UShort,
        Small::Int,
        Small::Uint,
    ];

    pub fn c(self) -> &'static str {
        match self {
            Small::SChar => "signed char",
            Small::UChar => "unsigned char",
            Small::Short => "short",
            Small::UShort => "unsigned short",
            Small::Int => "int",
            Small::Uint => "unsigned",
        }
    }

    /// The type of a value of this type once promoted.
    pub fn promoted(self) -> Ty {
        match self {
            Small::Uint => Ty::Uint,
            _ => Ty::Int,
        }
    }
}

/// `+ - * & | ^`: wrap on `int` with `-fwrapv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
}

impl Arith {
    pub const ALL: [Arith; 6] = [
        Arith::Add,
        Arith::Sub,
        Arith::Mul,
        Arith::And,
        Arith::Or,
        Arith::Xor,
    ];

    pub fn c(self) -> &'static str {
        match self {
            Arith::Add => "+",
            Arith::Sub => "-",
            Arith::Mul => "*",
            Arith::And => "&",
            Arith::Or => "|",
            Arith::Xor => "^",
        }
    }
}

/// `<<` and `>>` (arithmetic on `int`, logical on `unsigned`), the amount masked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftOp {
    Shl,
    Shr,
}

impl ShiftOp {
    pub fn c(self) -> &'static str {
        match self {
            ShiftOp::Shl => "<<",
            ShiftOp::Shr => ">>",
        }
    }
}

/// `/` and `%`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DivOp {
    Div,
    Rem,
}

impl DivOp {
    pub fn c(self) -> &'static str {
        match self {
            DivOp::Div => "/",
            DivOp::Rem => "%",
        }
    }
}

/// The comparisons; on `unsigned` operands they compare unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    pub const ALL: [Cmp; 6] = [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne];

    pub fn c(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// `&&` and `||`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Logic {
    And,
    Or,
}

impl Logic {
    pub fn c(self) -> &'static str {
        match self {
            Logic::And => "&&",
            Logic::Or => "||",
        }
    }
}

/// `-`, `~` (of the operand's type) and `!` (an `int`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unary {
    Neg,
    Not,
    LNot,
}

impl Unary {
    pub fn c(self) -> &'static str {
        match self {
            Unary::Neg => "-",
            Unary::Not => "~",
            Unary::LNot => "!",
        }
    }
}

/// An expression. Every expression is pure (helpers only compute), so a guard may
/// evaluate an operand twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Const {
        value: u32,
        ty: Ty,
    },
    Var {
        name: String,
        ty: Ty,
    },
    Unary {
        op: Unary,
        arg: Box<Expr>,
    },
    /// Both operands of type `ty`.
    Arith {
        op: Arith,
        l: Box<Expr>,
        r: Box<Expr>,
        ty: Ty,
    },
    /// `(l op (amount & 31))`.
    Shift {
        op: ShiftOp,
        l: Box<Expr>,
        amount: Box<Expr>,
    },
    /// Both operands of type `ty`. Guarded: a zero divisor (and `INT_MIN / -1`) gives
    /// 0. Unguarded: the divisor is a [`Expr::Mask`] on `int` (never -1) or any
    /// `unsigned`, and gcc's `teq` traps when it is zero.
    Div {
        op: DivOp,
        l: Box<Expr>,
        r: Box<Expr>,
        ty: Ty,
        guarded: bool,
    },
    /// The high word of the 64-bit product of two operands of type `ty`.
    MulHi {
        l: Box<Expr>,
        r: Box<Expr>,
        ty: Ty,
    },
    /// Operands of one type; an `int`.
    Cmp {
        op: Cmp,
        l: Box<Expr>,
        r: Box<Expr>,
    },
    /// An `int`.
    Logic {
        op: Logic,
        l: Box<Expr>,
        r: Box<Expr>,
    },
    /// `cond` an `int`, both arms of one type.
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    Cast {
        to: Small,
        arg: Box<Expr>,
    },
    /// A call of a helper, arguments of its parameters' types (the first one a
    /// [`Expr::Mask`] by 7 for a recursive helper).
    Call {
        callee: String,
        args: Vec<Expr>,
        ty: Ty,
    },
    /// `((arg) & mask)`: a fixed part of the function's shape (bounds, indices,
    /// divisors), which mutation never changes.
    Mask {
        arg: Box<Expr>,
        mask: u32,
    },
    /// An element of an array of the function (an `int` once promoted, or an
    /// `unsigned`), its index masked into range when printed.
    Load {
        array: String,
        len: u32,
        elem: Small,
        index: Box<Expr>,
    },
    /// A recursive helper's call of itself: `callee(n - 1, arg)`.
    SelfCall {
        callee: String,
        arg: Box<Expr>,
        ty: Ty,
    },
}

impl Expr {
    pub fn int(v: i32) -> Expr {
        Expr::Const {
            value: v as u32,
            ty: Ty::Int,
        }
    }

    pub fn var(name: &str, ty: Ty) -> Expr {
        Expr::Var {
            name: name.to_string(),
            ty,
        }
    }

    /// Its type (after the usual promotions).
    pub fn ty(&self) -> Ty {
        match self {
            Expr::Const { ty, .. }
            | Expr::Var { ty, .. }
            | Expr::Arith { ty, .. }
            | Expr::Div { ty, .. }
            | Expr::MulHi { ty, .. }
            | Expr::Call { ty, .. }
            | Expr::SelfCall { ty, .. } => *ty,
            Expr::Unary {
                op: Unary::LNot, ..
            }
            | Expr::Cmp { .. }
            | Expr::Logic { .. } => Ty::Int,
            Expr::Unary { arg, .. } | Expr::Shift { l: arg, .. } | Expr::Mask { arg, .. } => {
                arg.ty()
            }
            Expr::Ternary { then, .. } => then.ty(),
            Expr::Cast { to, .. } => to.promoted(),
            Expr::Load { elem, .. } => elem.promoted(),
        }
    }

    /// The expression as C, fully parenthesised.
    pub fn c(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn write(&self, s: &mut String) {
        match self {
            Expr::Const { value, ty: Ty::Int } => {
                let v = *value as i32;
                if v == i32::MIN {
                    s.push_str("(-2147483647 - 1)");
                } else if v < 0 {
                    let _ = write!(s, "({v})");
                } else {
                    let _ = write!(s, "{v}");
                }
            }
            Expr::Const {
                value,
                ty: Ty::Uint,
            } => {
                let _ = write!(s, "{value}u");
            }
            Expr::Var { name, .. } => s.push_str(name),
            Expr::Unary { op, arg } => {
                s.push('(');
                s.push_str(op.c());
                arg.write(s);
                s.push(')');
            }
            Expr::Arith { op, l, r, .. } => bin(s, l, op.c(), r),
            Expr::Shift { op, l, amount } => {
                s.push('(');
                l.write(s);
                let _ = write!(s, " {} (", op.c());
                amount.write(s);
                s.push_str(" & 31))");
            }
            Expr::Div {
                op,
                l,
                r,
                ty,
                guarded,
            } => {
                let (l, r) = (l.c(), r.c());
                let o = op.c();
                match (guarded, ty) {
                    (false, _) => {
                        let _ = write!(s, "({l} {o} {r})");
                    }
                    (true, Ty::Uint) => {
                        let _ = write!(s, "({r} == 0u ? 0u : {l} {o} {r})");
                    }
                    (true, Ty::Int) => {
                        let _ = write!(
                            s,
                            "(({r} == 0 || ({l} == (-2147483647 - 1) && {r} == (-1))) ? 0 : {l} {o} {r})"
                        );
                    }
                }
            }
            Expr::MulHi { l, r, ty } => {
                let (wide, narrow) = match ty {
                    Ty::Int => ("long long", "int"),
                    Ty::Uint => ("unsigned long long", "unsigned"),
                };
                let _ = write!(
                    s,
                    "(({narrow})((({wide})({}) * ({wide})({})) >> 32))",
                    l.c(),
                    r.c()
                );
            }
            Expr::Cmp { op, l, r } => bin(s, l, op.c(), r),
            Expr::Logic { op, l, r } => bin(s, l, op.c(), r),
            Expr::Ternary { cond, then, els } => {
                s.push('(');
                cond.write(s);
                s.push_str(" ? ");
                then.write(s);
                s.push_str(" : ");
                els.write(s);
                s.push(')');
            }
            Expr::Cast { to, arg } => {
                let _ = write!(s, "(({})", to.c());
                arg.write(s);
                s.push(')');
            }
            Expr::Call { callee, args, .. } => {
                s.push_str(callee);
                s.push('(');
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        s.push_str(", ");
                    }
                    a.write(s);
                }
                s.push(')');
            }
            Expr::Mask { arg, mask } => {
                s.push_str("((");
                arg.write(s);
                let _ = write!(s, ") & {mask})");
            }
            Expr::Load {
                array, len, index, ..
            } => {
                let _ = write!(s, "{array}[{}]", index_c(index, *len));
            }
            Expr::SelfCall { callee, arg, .. } => {
                let _ = write!(s, "{callee}(n - 1, {})", arg.c());
            }
        }
    }
}

fn bin(s: &mut String, l: &Expr, op: &str, r: &Expr) {
    s.push('(');
    l.write(s);
    let _ = write!(s, " {op} ");
    r.write(s);
    s.push(')');
}

/// An index into an array of `len` elements: masked when `len` is a power of two,
/// reduced modulo `len` (as `unsigned`) otherwise.
fn index_c(index: &Expr, len: u32) -> String {
    if len.is_power_of_two() {
        format!("({}) & {}", index.c(), len - 1)
    } else {
        format!("(unsigned)({}) % {len}u", index.c())
    }
}

/// A loop's trip count, evaluated once before the loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// A constant (mutation keeps it within 0..=16).
    Const(u32),
    /// A [`Expr::Mask`]ed value.
    Masked(Expr),
}

impl Bound {
    fn c(&self) -> String {
        match self {
            Bound::Const(n) => n.to_string(),
            Bound::Masked(e) => e.c(),
        }
    }
}

/// How a loop is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopKind {
    /// `for (int i = 0, n = BOUND; i < n; i++)`.
    For,
    /// `{ int i = BOUND; while (i-- > 0) ... }`: counts down.
    While,
    /// `{ int i = BOUND; do ... while (--i > 0); }`: runs at least once.
    DoWhile,
}

/// One case of a `switch`: its statements, then `break` unless it falls through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub body: Vec<Stmt>,
    pub falls: bool,
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `var = value;` (a local of the value's type).
    Assign {
        var: String,
        value: Expr,
    },
    /// `array[index] = value;` (converted to the element type).
    Store {
        array: String,
        len: u32,
        index: Expr,
        value: Expr,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// A loop with the counter `var` (read-only in the body).
    Loop {
        kind: LoopKind,
        var: String,
        bound: Bound,
        body: Vec<Stmt>,
    },
    /// `switch (sel)` with `case base + k:` for each case, and a default.
    Switch {
        sel: Expr,
        base: i32,
        cases: Vec<Case>,
        default: Vec<Stmt>,
    },
    Break,
    Continue,
    Return(Expr),
}

/// How a function is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// `static`: gcc may inline it everywhere and drop it.
    Static,
    /// `static __attribute__((noinline))`: always a call.
    Noinline,
    /// External: gcc may inline it but keeps its body.
    Extern,
}

/// An array of the function, its elements all written (by `init`, with `var` from 0
/// to `len - 1`) before the body runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    pub name: String,
    pub elem: Small,
    pub len: u32,
    pub var: String,
    pub init: Expr,
}

/// A local, initialised where it is declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Local {
    pub name: String,
    pub ty: Ty,
    pub init: Expr,
}

/// One C function definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    pub ret: Ty,
    pub params: Vec<(String, Ty)>,
    pub linkage: Linkage,
    pub locals: Vec<Local>,
    pub arrays: Vec<Array>,
    /// For a recursive helper (first parameter `n`): what it returns when `n <= 0`.
    pub base: Option<Expr>,
    /// Statements; the last one returns.
    pub body: Vec<Stmt>,
}

impl Def {
    fn write(&self, s: &mut String) {
        let linkage = match self.linkage {
            Linkage::Static => "static ",
            Linkage::Noinline => "static __attribute__((noinline)) ",
            Linkage::Extern => "",
        };
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(n, t)| format!("{} {n}", t.c()))
            .collect();
        let _ = writeln!(
            s,
            "{linkage}{} {}({}) {{",
            self.ret.c(),
            self.name,
            params.join(", ")
        );
        if let Some(base) = &self.base {
            let _ = writeln!(s, "    if (n <= 0) return {};", base.c());
        }
        for l in &self.locals {
            let _ = writeln!(s, "    {} {} = {};", l.ty.c(), l.name, l.init.c());
        }
        for a in &self.arrays {
            let _ = writeln!(s, "    {} {}[{}];", a.elem.c(), a.name, a.len);
            let _ = writeln!(
                s,
                "    for (int {v} = 0; {v} < {}; {v}++) {}[{v}] = {};",
                a.len,
                a.name,
                a.init.c(),
                v = a.var
            );
        }
        write_block(s, &self.body, 1);
        s.push_str("}\n");
    }
}

fn indent(s: &mut String, depth: usize) {
    for _ in 0..depth {
        s.push_str("    ");
    }
}

fn write_block(s: &mut String, body: &[Stmt], depth: usize) {
    for st in body {
        write_stmt(s, st, depth);
    }
}

fn write_stmt(s: &mut String, st: &Stmt, depth: usize) {
    indent(s, depth);
    match st {
        Stmt::Assign { var, value } => {
            let _ = writeln!(s, "{var} = {};", value.c());
        }
        Stmt::Store {
            array,
            len,
            index,
            value,
        } => {
            let _ = writeln!(s, "{array}[{}] = {};", index_c(index, *len), value.c());
        }
        Stmt::If { cond, then, els } => {
            let _ = writeln!(s, "if ({}) {{", cond.c());
            write_block(s, then, depth + 1);
            if !els.is_empty() {
                indent(s, depth);
                s.push_str("} else {\n");
                write_block(s, els, depth + 1);
            }
            indent(s, depth);
            s.push_str("}\n");
        }
        Stmt::Loop {
            kind,
            var,
            bound,
            body,
        } => {
            let b = bound.c();
            match kind {
                LoopKind::For => {
                    let _ = writeln!(
                        s,
                        "for (int {var} = 0, {var}_n = {b}; {var} < {var}_n; {var}++) {{"
                    );
                    write_block(s, body, depth + 1);
                    indent(s, depth);
                    s.push_str("}\n");
                }
                LoopKind::While => {
                    let _ = writeln!(s, "{{ int {var} = {b}; while ({var}-- > 0) {{");
                    write_block(s, body, depth + 1);
                    indent(s, depth);
                    s.push_str("} }\n");
                }
                LoopKind::DoWhile => {
                    let _ = writeln!(s, "{{ int {var} = {b}; do {{");
                    write_block(s, body, depth + 1);
                    indent(s, depth);
                    let _ = writeln!(s, "}} while (--{var} > 0); }}");
                }
            }
        }
        Stmt::Switch {
            sel,
            base,
            cases,
            default,
        } => {
            let _ = writeln!(s, "switch ({}) {{", sel.c());
            for (k, case) in cases.iter().enumerate() {
                indent(s, depth);
                let _ = writeln!(s, "case {}:", *base as i64 + k as i64);
                write_block(s, &case.body, depth + 1);
                if !case.falls {
                    indent(s, depth + 1);
                    s.push_str("break;\n");
                }
            }
            indent(s, depth);
            s.push_str("default:\n");
            write_block(s, default, depth + 1);
            indent(s, depth + 1);
            s.push_str("break;\n");
            indent(s, depth);
            s.push_str("}\n");
        }
        Stmt::Break => s.push_str("break;\n"),
        Stmt::Continue => s.push_str("continue;\n"),
        Stmt::Return(e) => {
            let _ = writeln!(s, "return {};", e.c());
        }
    }
}

/// A generated translation unit: helpers, then `int f(int a, int b, int c, int d)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    /// `generate(seed, index)` makes it again (before any mutation).
    pub seed: u64,
    pub index: u64,
    /// Whether some divisions are unguarded, so that gcc's `teq` may trap.
    pub trapping: bool,
    /// In the order they are defined; each calls only earlier ones (or, when
    /// recursive, itself with a smaller depth).
    pub helpers: Vec<Def>,
    /// `f` itself.
    pub f: Def,
    /// What [`mutate()`] changed, if this is a mutant.
    pub mutation: Option<String>,
}

impl Func {
    /// The C source: compiles with `mips-linux-gnu-gcc -fwrapv` without undefined
    /// behaviour.
    pub fn source(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "/* tamarin cgen: seed {}, function {}{}{} */",
            self.seed,
            self.index,
            if self.trapping {
                ", unguarded divisions"
            } else {
                ""
            },
            self.mutation.as_deref().map_or(String::new(), |m| format!(
                ", mutant: {}",
                m.replace("*/", "* /")
            ))
        );
        for h in &self.helpers {
            h.write(&mut s);
            s.push('\n');
        }
        self.f.write(&mut s);
        s
    }

    /// `seed S function I` (and `mutant` when it is one), for messages.
    pub fn name(&self) -> String {
        format!(
            "seed {} function {}{}",
            self.seed,
            self.index,
            if self.mutation.is_some() {
                " (mutant)"
            } else {
                ""
            }
        )
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source())
    }
}

#[cfg(test)]
mod tests {
    use super::mutate::sites;
    use super::*;

    /// Calls `visit` on every statement of `body`, nested ones included.
    fn each_stmt(body: &[Stmt], visit: &mut dyn FnMut(&Stmt)) {
        for s in body {
            visit(s);
            match s {
                Stmt::If { then, els, .. } => {
                    each_stmt(then, visit);
                    each_stmt(els, visit);
                }
                Stmt::Loop { body, .. } => each_stmt(body, visit),
                Stmt::Switch { cases, default, .. } => {
                    for c in cases {
                        each_stmt(&c.body, visit);
                    }
                    each_stmt(default, visit);
                }
                _ => {}
            }
        }
    }

    #[test]
    fn a_seed_and_an_index_name_one_function() {
        for i in 0..20 {
            assert_eq!(generate(7, i), generate(7, i));
            assert_eq!(generate(7, i).source(), generate(7, i).source());
            assert_eq!(inputs(7, i, 30), inputs(7, i, 30));
        }
        assert_ne!(generate(7, 0).source(), generate(7, 1).source());
        assert_ne!(generate(7, 0).source(), generate(8, 0).source());
        assert_ne!(inputs(7, 0, 30), inputs(7, 1, 30));
    }

    #[test]
    fn inputs_start_with_the_edges() {
        let ins = inputs(1, 0, 40);
        assert_eq!(ins.len(), 40);
        assert_eq!(ins[0], [0; 4]);
        assert_eq!(ins[3], [i32::MIN; 4]);
        assert_eq!(ins[4], [i32::MAX; 4]);
        assert_eq!(inputs(1, 0, 2), vec![[0; 4], [1; 4]]);
    }

    #[test]
    fn functions_have_the_promised_shape() {
        let (mut switches, mut trapping, mut recursive, mut arrays, mut helpers) = (0, 0, 0, 0, 0);
        for i in 0..200 {
            let func = generate(3, i);
            assert_eq!(func.f.name, "f");
            assert_eq!(func.f.params.len(), 4);
            assert!(func.f.params.iter().all(|(_, t)| *t == Ty::Int));
            for d in func.helpers.iter().chain([&func.f]) {
                assert!(
                    matches!(d.body.last(), Some(Stmt::Return(_))),
                    "{} of function {i} does not end with a return",
                    d.name
                );
                each_stmt(&d.body, &mut |s| match s {
                    Stmt::Loop {
                        bound: Bound::Const(n),
                        ..
                    } => assert!(*n <= 16),
                    Stmt::Loop {
                        bound: Bound::Masked(e),
                        ..
                    } => assert!(matches!(e, Expr::Mask { mask, .. } if *mask <= 15)),
                    Stmt::Switch { sel, cases, .. } => {
                        assert!(matches!(sel, Expr::Mask { .. }));
                        assert!((5..=9).contains(&cases.len()));
                        switches += 1;
                    }
                    _ => {}
                });
                for a in &d.arrays {
                    // `other op k * C`: `other` without the counter, C odd.
                    let Expr::Arith { l, r, .. } = &a.init else {
                        panic!("array init {:?}", a.init)
                    };
                    assert!(!l.c().contains(&a.var), "{}", a.init.c());
                    assert!(matches!(&**r, Expr::Arith { op: Arith::Mul, r: c, .. }
                        if matches!(**c, Expr::Const { value, .. } if value % 2 == 1)));
                }
                arrays += d.arrays.len();
            }
            let src = func.source();
            // Helpers are defined before their callers, and only f is called `f`.
            for (k, h) in func.helpers.iter().enumerate() {
                let def = src.find(&format!(" {}(", h.name)).unwrap();
                assert_eq!(h.name, format!("h{k}"));
                assert!(src[..def].matches(&format!("{}(", h.name)).count() == 0);
            }
            trapping += usize::from(func.trapping);
            recursive += func.helpers.iter().filter(|h| h.base.is_some()).count();
            helpers += func.helpers.len();
            assert_eq!(src.matches('(').count(), src.matches(')').count());
            assert_eq!(src.matches('{').count(), src.matches('}').count());
        }
        // The mix: most functions have a switch, some trap, some recurse.
        assert!(switches >= 150, "{switches} switches");
        assert!((20..=90).contains(&trapping), "{trapping} trapping");
        assert!(recursive >= 20, "{recursive} recursive helpers");
        assert!(arrays >= 100, "{arrays} arrays");
        assert!(helpers >= 200, "{helpers} helpers");
    }

    #[test]
    fn guards_and_masks_are_printed() {
        let div = Expr::Div {
            op: DivOp::Div,
            l: Box::new(Expr::var("a", Ty::Int)),
            r: Box::new(Expr::var("b", Ty::Int)),
            ty: Ty::Int,
            guarded: true,
        };
        assert_eq!(
            div.c(),
            "((b == 0 || (a == (-2147483647 - 1) && b == (-1))) ? 0 : a / b)"
        );
        let shift = Expr::Shift {
            op: ShiftOp::Shl,
            l: Box::new(Expr::int(-3)),
            amount: Box::new(Expr::var("c", Ty::Int)),
        };
        assert_eq!(shift.c(), "((-3) << (c & 31))");
        let load = Expr::Load {
            array: "arr".into(),
            len: 10,
            elem: Small::Short,
            index: Box::new(Expr::int(i32::MIN)),
        };
        assert_eq!(load.c(), "arr[(unsigned)((-2147483647 - 1)) % 10u]");
        assert_eq!(load.ty(), Ty::Int);
    }

    #[test]
    fn a_mutant_differs_in_one_place() {
        for i in 0..50 {
            let func = generate(5, i);
            assert!(sites(&func) > 10, "function {i} has {} sites", sites(&func));
            let m = mutate(&func, 9);
            assert_eq!(m, mutate(&func, 9), "mutation is fixed by its seed");
            assert_ne!(m.source(), func.source());
            assert!(m
                .mutation
                .as_deref()
                .is_some_and(|d| d.starts_with("site ")));
            // The shape stays: same helpers, same arrays, same number of statements.
            assert_eq!(m.helpers.len(), func.helpers.len());
            assert_eq!(m.f.arrays, func.f.arrays);
            assert_eq!(m.f.body.len(), func.f.body.len());
            let twice = mutate(&m, 10);
            assert!(twice.mutation.unwrap().contains("; site "));
        }
    }
}
