//! Nonlinear checks in integers: a query over bit-vectors written as one over
//! unbounded integers (SMT-LIB `QF_NIA`) that is satisfiable whenever the original is.
//!
//! Bit-blasting a product of two unknowns, or a quotient, is what solvers do worst,
//! and a fact such as `n = q * d + r` that holds without wrap-around (the invariant of
//! a division by repeated subtraction) is not even a bit-vector equation. In integers
//! both are plain arithmetic. The translation is exact where it can be and an
//! over-approximation elsewhere, so an `unsat` of the integer query is an `unsat` of
//! the original:
//!
//! - a `w`-bit value is the integer of its unsigned reading, in `[0, 2^w)`; an
//!   input is an integer variable constrained to that range;
//! - `+`, `-`, `*`, a shift left by a constant and the arithmetic shift right are
//!   taken `mod 2^w`: exactly the wrap-around of the machine. Where the ranges of the
//!   operands, propagated through the term, show that the result cannot leave
//!   `[0, 2^w)` (no wrap-around is possible), the `mod` is left out: it would say
//!   nothing, and solvers reason better without it. Under such an operation (and
//!   under the low bits of a value) an operand that is itself a remainder modulo
//!   `2^v`, `v >= w`, is replaced by what it is taken of: the same modulo `2^w`, so
//!   `((x * y) mod 2^32 + b) mod 2^32` becomes `(x * y + b) mod 2^32`, one quotient
//!   for the solver to bound where the machine's terms nest several;
//! - division and remainder are `div` and `mod`, with SMT-LIB's answers for a zero
//!   divisor written out (all ones, and the dividend); comparisons, `ite`, extraction,
//!   extension and concatenation are their arithmetic meaning; `and` with a mask of
//!   low (or high) bits is a remainder (or a difference);
//! - `(x ^ y) = 0` and `(x ^ y) <u 1` are `x = y`, and `0 <u (x ^ y)` is `x != y`
//!   (how compilers test equality); anything else (`or`, `xor`, other masks, shifts by an unknown, signed
//!   division) is opaque: a fresh variable in the range of its width, one per term. Equal terms
//!   get the same variable, so nothing is lost that the term's identity says, and a
//!   fresh variable only allows more, never less.
//!
//! Memory reads are lowered to `ite` chains first ([`super::lower_arrays`]), as for every
//! other consumer. A Boolean function's body ([`Definition`]) may not use opaque
//! terms (a variable shared by every call of it would relate calls that the original
//! does not): [`integer_script`] then gives `None`.

use std::fmt::Write;

use super::smtlib::{lowered, symbol, Definition, Formula};
use super::{BinOp, Node, Term, TermStore, MEMORY};

/// How the variables of the text are named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Names {
    /// By their names in the store, for people (a certificate's files).
    Readable,
    /// `v<index>`, so that a model's values are read back by index.
    Indexed,
}

/// A translated term: its text and the range of integers it can take.
#[derive(Clone, Debug)]
struct Lifted {
    text: String,
    range: Option<(i128, i128)>,
    /// Where `text` is `(mod raw 2^bits)`: `raw`, its range and `bits`. An enclosing
    /// `+`, `-` or `*` taken modulo `2^w` with `w <= bits` uses `raw` instead, since
    /// the two are the same modulo `2^w`: one remainder where the machine's terms
    /// nest several, each a quotient that the solver would have to bound.
    unwrapped: Option<Box<Unwrapped>>,
}

/// What a remainder is taken of.
#[derive(Clone, Debug)]
struct Unwrapped {
    text: String,
    range: Option<(i128, i128)>,
    /// The remainder is modulo `2^bits`.
    bits: u8,
}

impl Lifted {
    /// A value that is no remainder to see through.
    fn new(text: String, range: Option<(i128, i128)>) -> Lifted {
        Lifted {
            text,
            range,
            unwrapped: None,
        }
    }

    /// The text and range to use under a remainder modulo `2^width`.
    fn under_mod(&self, width: u8) -> (&str, Option<(i128, i128)>) {
        #[cfg(test)]
        let width = if planted::has(planted::UNWRAP_ANY_WIDTH) {
            0
        } else {
            width
        };
        match &self.unwrapped {
            Some(u) if u.bits >= width => (&u.text, u.range),
            _ => (&self.text, self.range),
        }
    }
}

/// `2^k` as an integer literal's value.
fn pow2(k: u32) -> i128 {
    1i128 << k.min(126)
}

/// An integer literal (SMT-LIB has no negative literals).
fn literal(v: i128) -> String {
    if v < 0 {
        format!("(- {})", v.unsigned_abs())
    } else {
        v.to_string()
    }
}

/// The full range of a `width`-bit value.
fn full(width: u8) -> Option<(i128, i128)> {
    Some((0, pow2(u32::from(width)) - 1))
}

/// `text` brought into `[0, 2^width)`: unchanged where `range` shows it is already
/// there (no wrap-around), else taken modulo `2^width`.
fn wrap(text: String, range: Option<(i128, i128)>, width: u8) -> Lifted {
    let m = pow2(u32::from(width));
    #[cfg(test)]
    if planted::has(planted::NO_WRAP) {
        return Lifted::new(text, range);
    }
    match range {
        Some((lo, hi)) if lo >= 0 && hi < m => Lifted::new(text, range),
        _ => Lifted {
            text: format!("(mod {text} {})", literal(m)),
            range: full(width),
            unwrapped: Some(Box::new(Unwrapped {
                text,
                range,
                bits: width,
            })),
        },
    }
}

/// The signed reading of a `width`-bit value `a`.
fn signed(a: &Lifted, width: u8) -> Lifted {
    let half = pow2(u32::from(width) - 1);
    match a.range {
        Some((lo, hi)) if lo >= 0 && hi < half => a.clone(),
        _ => Lifted::new(
            format!(
                "(ite (< {} {}) {} (- {} {}))",
                a.text,
                literal(half),
                a.text,
                a.text,
                literal(2 * half)
            ),
            Some((-half, half - 1)),
        ),
    }
}

fn join(
    a: Option<(i128, i128)>,
    b: Option<(i128, i128)>,
    f: impl Fn(i128, i128) -> Option<i128>,
) -> Option<(i128, i128)> {
    let ((al, ah), (bl, bh)) = (a?, b?);
    let corners = [f(al, bl)?, f(al, bh)?, f(ah, bl)?, f(ah, bh)?];
    Some((*corners.iter().min()?, *corners.iter().max()?))
}

/// `(high, low)` where `a | b` is `high | low` with `high` a shift left by a constant
/// `k` and `low` a shift right by at least `w - k` (so below `2^k`): bits that do not
/// meet.
fn disjoint_or(s: &TermStore, a: Term, b: Term) -> Option<(Term, Term)> {
    let w = u64::from(s.width(a));
    let shift = |t: Term, op: BinOp| match s.node(t) {
        Node::Bin(o, _, k) if o == op => s.as_const(k).filter(|&k| k < w),
        _ => None,
    };
    [(a, b), (b, a)].into_iter().find(|&(high, low)| {
        matches!((shift(high, BinOp::Shl), shift(low, BinOp::LShr)), (Some(k), Some(r)) if r >= w - k)
    })
}

/// The operands of `t` when it is an exclusive or.
fn xor_operands(s: &TermStore, t: Term) -> Option<(Term, Term)> {
    match s.node(t) {
        Node::Bin(BinOp::BvXor, x, y) => Some((x, y)),
        _ => None,
    }
}

/// Translates terms one node at a time over the texts of their arguments.
struct Lifter<'a> {
    store: &'a TermStore,
    names: Names,
    /// Opaque terms met, in order: declared as fresh variables.
    opaque: Vec<Term>,
    /// Whether opaque terms are allowed (not inside a function's body).
    allow_opaque: bool,
    /// Set when an opaque term was met where none is allowed.
    failed: bool,
}

impl Lifter<'_> {
    fn var_name(&self, index: u32) -> String {
        match self.names {
            Names::Readable => symbol(self.store.var_name(index)),
            Names::Indexed => format!("v{index}"),
        }
    }

    fn opaque(&mut self, t: Term) -> Lifted {
        if !self.allow_opaque {
            self.failed = true;
        }
        if !self.opaque.contains(&t) {
            self.opaque.push(t);
        }
        let w = self.store.width(t);
        Lifted::new(
            format!("o{}", t.index()),
            if w == 0 { None } else { full(w) },
        )
    }

    /// The translation of `t`, given its arguments' (`arg`).
    fn node(&mut self, t: Term, arg: &mut dyn FnMut(&mut Self, Term) -> Lifted) -> Lifted {
        let s = self.store;
        let w = s.width(t);
        let plain = |text: String| Lifted::new(text, None);
        match s.node(t) {
            Node::Bool(b) => plain(b.to_string()),
            Node::Const { value, .. } => {
                let v = i128::from(value);
                Lifted::new(literal(v), Some((v, v)))
            }
            Node::Var { index, width } => Lifted::new(
                self.var_name(index),
                if width == 0 { None } else { full(width) },
            ),
            Node::Not(a) => plain(format!("(not {})", arg(self, a).text)),
            Node::Bin(op @ (BinOp::And | BinOp::Or), a, b) => {
                let name = if op == BinOp::And { "and" } else { "or" };
                plain(format!(
                    "({name} {} {})",
                    arg(self, a).text,
                    arg(self, b).text
                ))
            }
            Node::Bin(BinOp::Eq, a, _) if s.width(a) == MEMORY => self.opaque(t),
            // `(x ^ y) = 0` is `x = y` (`movz`/`movn` on an `xor`).
            Node::Bin(BinOp::Eq, a, b)
                if s.as_const(b) == Some(0) && xor_operands(s, a).is_some() =>
            {
                let (x, y) = xor_operands(s, a).unwrap_or((a, b));
                plain(format!("(= {} {})", arg(self, x).text, arg(self, y).text))
            }
            Node::Bin(BinOp::Eq, a, b) => {
                plain(format!("(= {} {})", arg(self, a).text, arg(self, b).text))
            }
            // `(x ^ y) <u 1` and `0 <u (x ^ y)`: how compilers test `x == y` and `x != y`
            // (`xor`, then `sltiu`/`sltu`), said exactly though `xor` is opaque.
            Node::Bin(BinOp::Ult, a, b)
                if s.as_const(b) == Some(1) && xor_operands(s, a).is_some() =>
            {
                let (x, y) = xor_operands(s, a).unwrap_or((a, b));
                plain(format!("(= {} {})", arg(self, x).text, arg(self, y).text))
            }
            Node::Bin(BinOp::Ult, a, b)
                if s.as_const(a) == Some(0) && xor_operands(s, b).is_some() =>
            {
                let (x, y) = xor_operands(s, b).unwrap_or((a, b));
                plain(format!(
                    "(not (= {} {}))",
                    arg(self, x).text,
                    arg(self, y).text
                ))
            }
            Node::Bin(BinOp::Ult, a, b) => {
                plain(format!("(< {} {})", arg(self, a).text, arg(self, b).text))
            }
            Node::Bin(BinOp::Slt, a, b) => {
                let aw = s.width(a);
                let (x, y) = (arg(self, a), arg(self, b));
                plain(format!(
                    "(< {} {})",
                    signed(&x, aw).text,
                    signed(&y, aw).text
                ))
            }
            Node::Bin(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
                let (x, y) = (arg(self, a), arg(self, b));
                let ((xt, xr), (yt, yr)) = (x.under_mod(w), y.under_mod(w));
                let (name, range) = match op {
                    BinOp::Add => ("+", join(xr, yr, i128::checked_add)),
                    BinOp::Sub => ("-", join(xr, yr, i128::checked_sub)),
                    _ => ("*", join(xr, yr, i128::checked_mul)),
                };
                wrap(format!("({name} {xt} {yt})"), range, w)
            }
            Node::Bin(BinOp::UDiv, a, b) => {
                let (x, y) = (arg(self, a), arg(self, b));
                match s.as_const(b) {
                    Some(c) if c > 0 => {
                        let c = i128::from(c);
                        Lifted::new(
                            format!("(div {} {c})", x.text),
                            x.range.map(|(lo, hi)| (lo / c, hi / c)),
                        )
                    }
                    _ => Lifted::new(
                        format!(
                            "(ite (= {} 0) {} (div {} {}))",
                            y.text,
                            literal(pow2(u32::from(w)) - 1),
                            x.text,
                            y.text
                        ),
                        full(w),
                    ),
                }
            }
            Node::Bin(BinOp::URem, a, b) => {
                let (x, y) = (arg(self, a), arg(self, b));
                match s.as_const(b) {
                    Some(c) if c > 0 => Lifted::new(
                        format!("(mod {} {c})", x.text),
                        Some((0, i128::from(c) - 1)),
                    ),
                    _ => Lifted::new(
                        format!(
                            "(ite (= {} 0) {} (mod {} {}))",
                            y.text, x.text, x.text, y.text
                        ),
                        full(w),
                    ),
                }
            }
            Node::Bin(BinOp::BvAnd, a, b) => {
                let (value, mask) = match (s.as_const(a), s.as_const(b)) {
                    (_, Some(m)) => (a, m),
                    (Some(m), _) => (b, m),
                    _ => return self.opaque(t),
                };
                let x = arg(self, value);
                let ones = super::mask(w);
                let low_bits = (mask & ones).trailing_ones();
                if mask & ones == 0 {
                    Lifted::new("0".into(), Some((0, 0)))
                } else if mask & ones == ones {
                    x
                } else if Some(mask) == 1u64.checked_shl(low_bits).map(|b| b - 1) {
                    wrap(x.text, x.range, low_bits as u8)
                } else if (!mask & ones) == (1u64 << (!mask & ones).trailing_ones()) - 1 {
                    // All but the low `k` bits: the value less its remainder.
                    let m = pow2((!mask & ones).trailing_ones());
                    Lifted::new(format!("(- {} (mod {} {m}))", x.text, x.text), full(w))
                } else {
                    self.opaque(t)
                }
            }
            Node::Bin(BinOp::Shl | BinOp::LShr, _, b)
                if s.as_const(b).is_some_and(|k| k >= u64::from(w)) =>
            {
                Lifted::new("0".into(), Some((0, 0)))
            }
            Node::Bin(BinOp::Shl, a, b) => match s.as_const(b) {
                Some(k) => {
                    let x = arg(self, a);
                    let (xt, xr) = x.under_mod(w);
                    let m = pow2(k as u32);
                    let range =
                        xr.and_then(|(lo, hi)| Some((lo.checked_mul(m)?, hi.checked_mul(m)?)));
                    wrap(format!("(* {xt} {m})"), range, w)
                }
                None => self.opaque(t),
            },
            Node::Bin(BinOp::LShr, a, b) => match s.as_const(b) {
                Some(k) => {
                    let x = arg(self, a);
                    let m = pow2(k as u32);
                    Lifted::new(
                        format!("(div {} {m})", x.text),
                        x.range.map(|(lo, hi)| (lo / m, hi / m)),
                    )
                }
                None => self.opaque(t),
            },
            Node::Bin(BinOp::AShr, a, b) => match s.as_const(b) {
                Some(k) => {
                    let x = arg(self, a);
                    let sx = signed(&x, w);
                    // `div` by a positive divisor rounds down, as the shift does.
                    let m = pow2((k as u32).min(u32::from(w)));
                    wrap(format!("(div {} {m})", sx.text), None, w)
                }
                None => self.opaque(t),
            },
            Node::Bin(BinOp::Concat, a, b) => {
                let (x, y) = (arg(self, a), arg(self, b));
                let m = pow2(u32::from(s.width(b)));
                Lifted::new(format!("(+ (* {} {m}) {})", x.text, y.text), full(w))
            }
            // `(x << k) | y` with `y <u 2^k`: the bits do not meet, so it is the sum
            // (the two halves of a shifted 64-bit product).
            Node::Bin(BinOp::BvOr, a, b) if disjoint_or(s, a, b).is_some() => {
                let (high, low) = disjoint_or(s, a, b).unwrap_or((a, b));
                let (x, y) = (arg(self, high), arg(self, low));
                Lifted::new(format!("(+ {} {})", x.text, y.text), full(w))
            }
            Node::Bin(BinOp::SDiv | BinOp::SRem | BinOp::BvOr | BinOp::BvXor, ..) => self.opaque(t),
            Node::Extract { hi, lo, arg: a } => {
                let x = arg(self, a);
                let m = pow2(u32::from(lo));
                let shifted = if lo == 0 {
                    // The low bits of a remainder are those of what it is taken of.
                    let (xt, xr) = x.under_mod(hi + 1);
                    Lifted::new(xt.to_string(), xr)
                } else {
                    Lifted::new(
                        format!("(div {} {m})", x.text),
                        x.range.map(|(l, h)| (l / m, h / m)),
                    )
                };
                wrap(shifted.text, shifted.range, hi - lo + 1)
            }
            Node::ZeroExt { arg: a, .. } => arg(self, a),
            Node::SignExt { by, arg: a } => {
                let aw = s.width(a);
                let x = arg(self, a);
                let half = pow2(u32::from(aw) - 1);
                match x.range {
                    Some((lo, hi)) if lo >= 0 && hi < half => x,
                    _ => Lifted::new(
                        format!(
                            "(ite (< {} {}) {} (+ {} {}))",
                            x.text,
                            literal(half),
                            x.text,
                            x.text,
                            literal(pow2(u32::from(aw) + u32::from(by)) - 2 * half)
                        ),
                        full(w),
                    ),
                }
            }
            Node::Ite(c, a, b) => {
                let (x, y, z) = (arg(self, c), arg(self, a), arg(self, b));
                let range = match (y.range, z.range) {
                    (Some((l1, h1)), Some((l2, h2))) => Some((l1.min(l2), h1.max(h2))),
                    _ => None,
                };
                Lifted::new(format!("(ite {} {} {})", x.text, y.text, z.text), range)
            }
            Node::Select(..) | Node::Store(..) | Node::ConstArray(_) => self.opaque(t),
        }
    }

    /// `t` as one nested expression (for a function's body).
    fn expression(&mut self, t: Term) -> Lifted {
        self.node(t, &mut |me, c| me.expression(c))
    }
}

fn sort(store: &TermStore, t: Term) -> &'static str {
    if store.width(t) == 0 {
        "Bool"
    } else {
        "Int"
    }
}

/// A standalone SMT-LIB 2 script (logic `QF_NIA`) that defines `definitions`, asserts
/// `formulas` and checks satisfiability, every term translated to integers as the
/// module documentation says: `unsat` for it means `unsat` for the bit-vector script
/// of the same arguments ([`super::smtlib_script`]). `None` where a definition's body
/// would need an opaque term.
pub fn integer_script(
    store: &mut TermStore,
    definitions: &[Definition],
    formulas: &[Formula],
    comment: &str,
    names: Names,
) -> Option<String> {
    let (assertions, bodies) = lowered(store, definitions, formulas);
    let store = &*store;
    let mut lifter = Lifter {
        store,
        names,
        opaque: Vec::new(),
        allow_opaque: false,
        failed: false,
    };
    let mut defs = Vec::new();
    for (d, &body) in definitions.iter().zip(&bodies) {
        let mut params = Vec::new();
        let mut ranges = Vec::new();
        for &p in &d.params {
            let name = lifter.expression(p).text;
            if store.width(p) > 0 {
                ranges.push(format!(
                    "(<= 0 {name}) (< {name} {})",
                    pow2(u32::from(store.width(p)))
                ));
            }
            params.push(format!("({name} {})", sort(store, p)));
        }
        let text = lifter.expression(body).text;
        // A parameter out of its width's range is no state: the body says so, so that
        // a call is false for it whatever the caller passed.
        let body = if ranges.is_empty() {
            text
        } else {
            format!("(and {} {text})", ranges.join(" "))
        };
        defs.push(format!(
            "(define-fun {} ({}) Bool {body})",
            symbol(&d.name),
            params.join(" ")
        ));
    }
    if lifter.failed {
        return None;
    }
    lifter.allow_opaque = true;
    let order = store.reachable(&assertions);
    let mut texts: rustc_hash::FxHashMap<Term, Lifted> = rustc_hash::FxHashMap::default();
    let mut lines = Vec::new();
    for &t in &order {
        let lifted = lifter.node(t, &mut |_, c| {
            texts
                .get(&c)
                .cloned()
                .unwrap_or(Lifted::new("false".into(), None))
        });
        // Operations get a definition of their own, so that the text stays linear in
        // the size of the term graph; atoms (numbers, variables, opaque terms) do not.
        if lifted.text.starts_with('(') && !matches!(store.node(t), Node::Const { .. }) {
            let name = format!("t{}", t.index());
            // What a remainder is taken of gets a name of its own (`t<n>r`), which the
            // remainder and the sums above it share.
            let mut text = lifted.text;
            let unwrapped = lifted.unwrapped.map(|mut u| {
                if u.text.starts_with('(') {
                    let raw_name = format!("{name}r");
                    lines.push(format!("(define-fun {raw_name} () Int {})", u.text));
                    text = format!("(mod {raw_name} {})", literal(pow2(u32::from(u.bits))));
                    u.text = raw_name;
                }
                u
            });
            lines.push(format!("(define-fun {name} () {} {text})", sort(store, t)));
            texts.insert(
                t,
                Lifted {
                    text: name,
                    range: lifted.range,
                    unwrapped,
                },
            );
        } else {
            texts.insert(t, lifted);
        }
    }
    let mut out = String::new();
    for line in comment.lines() {
        let _ = writeln!(out, "; {line}");
    }
    let _ = writeln!(out, "(set-option :produce-models true)");
    let _ = writeln!(out, "(set-logic QF_NIA)");
    for &t in &order {
        if let Node::Var { index, width } = store.node(t) {
            let name = lifter.var_name(index);
            if width == 0 {
                let _ = writeln!(out, "(declare-const {name} Bool)");
            } else {
                let _ = writeln!(out, "(declare-const {name} Int)");
                let _ = writeln!(
                    out,
                    "(assert (and (<= 0 {name}) (< {name} {})))",
                    pow2(u32::from(width))
                );
            }
        }
    }
    for &t in &lifter.opaque {
        let w = store.width(t);
        if w == 0 {
            let _ = writeln!(out, "(declare-const o{} Bool)", t.index());
        } else {
            let _ = writeln!(out, "(declare-const o{} Int)", t.index());
            let _ = writeln!(
                out,
                "(assert (and (<= 0 o{0}) (< o{0} {1})))",
                t.index(),
                pow2(u32::from(w))
            );
        }
    }
    for d in defs {
        let _ = writeln!(out, "{d}");
    }
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    let mut lowered = assertions.into_iter();
    for f in formulas {
        let text = f.text_with(&mut lowered, &mut |t| {
            texts
                .get(&t)
                .map_or_else(|| "false".to_string(), |l| l.text.clone())
        });
        let _ = writeln!(out, "(assert {text})");
    }
    let _ = writeln!(out, "(check-sat)");
    Some(out)
}

/// Bugs a test plants on purpose, to show that the tests catch them.
#[cfg(test)]
pub mod planted {
    pub use crate::planted::{has, plant};

    /// Every `mod 2^w` is left out, as though no operation could wrap around.
    pub const NO_WRAP: u32 = 1 << 8;
    /// What a remainder is taken of stands for it under any operation, whatever the
    /// operation's width.
    pub const UNWRAP_ANY_WIDTH: u32 = 1 << 9;
}
