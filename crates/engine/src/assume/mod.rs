//! Preconditions (`--assume`): which inputs a task allows. Every engine asks its
//! queries together with them (they join the input domain, see
//! [`InputLayout::domain`](crate::InputLayout::domain)), every concrete run is checked
//! against them first ([`InputLayout::admits`](crate::InputLayout::admits)), so a
//! counterexample always satisfies them and a proof holds for the inputs they allow.
//!
//! # The language
//!
//! - Values are 64-bit signed integers, so sums of inputs do not wrap: `$1`, `$2`, …
//!   (an input register, signed), `u$1` (the same, unsigned), `len` (the array's
//!   length), `a[K]` (element `K` of the array; an element at or past `len` reads 0),
//!   `in[K]` (byte `K` of standard input, 0 to 255), numbers (`42`, `0x2a`), characters
//!   (`'a'`, `'\n'`). An index `K` is a constant expression, or one over a
//!   quantifier's index.
//! - Arithmetic `+ - *`, unary `-`, and `/ %` by a non-zero constant (truncating).
//! - Comparisons `== != < <= > >=`, chained as in `1 <= $1 <= 26`.
//! - `&&`, `||`, `!`, `true`, `false`, parentheses.
//! - `all x: P` holds when `P` holds for every element `x` of the array (those below
//!   `len`); `all x, i: P` also binds the element's index `i`; `some x: P` holds when
//!   `P` holds for at least one. A quantifier's body reaches as far right as it can.

mod parse;

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::io::{InputFilter, InputLayout, InputSpec};
use crate::term::{BinOp, Term, TermStore};

use parse::{ArithOp, CmpOp, Expr, Kind, LogicOp};

/// Why a precondition is not one: the bytes at fault and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AssumeError {
    /// Byte offsets into the precondition's text.
    pub span: Range<usize>,
    pub message: String,
}

impl AssumeError {
    fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        AssumeError {
            span,
            message: message.into(),
        }
    }
}

/// One parsed precondition.
#[derive(Clone, PartialEq, Eq)]
pub struct Precondition {
    text: String,
    expr: Arc<Expr>,
}

impl fmt::Debug for Precondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Precondition({:?})", self.text)
    }
}

impl fmt::Display for Precondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Precondition {
    /// Parses `text` (see the module's documentation for the language).
    ///
    /// # Errors
    ///
    /// An [`AssumeError`] with the span of the first thing that is not in the language.
    pub fn parse(text: &str) -> Result<Precondition, AssumeError> {
        let expr = parse::parse(text)?;
        Ok(Precondition {
            text: text.to_string(),
            expr: Arc::new(expr),
        })
    }

    /// The text it was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether `values` (in `layout`'s order of inputs) satisfy it; false when it does
    /// not fit the layout's inputs.
    pub fn holds(&self, layout: &InputLayout, values: &[u32]) -> bool {
        filter(layout, std::slice::from_ref(self)).is_ok_and(|f| f.admits(values))
    }

    /// The Boolean term it means over `layout`'s variables in `store`.
    ///
    /// # Errors
    ///
    /// When it names what the inputs do not have (a register that is not an input, an
    /// array without the array frontend, a standard input byte past `--stdin-len`), or
    /// mixes numbers and truths.
    pub(crate) fn lower(
        &self,
        store: &mut TermStore,
        layout: &InputLayout,
    ) -> Result<Term, AssumeError> {
        let mut l = Lowerer {
            store,
            layout,
            bound: FxHashMap::default(),
        };
        match l.lower(&self.expr)? {
            Value::Bool(t) => Ok(t),
            Value::Int(_) => Err(AssumeError::new(
                self.expr.span.clone(),
                "a precondition must be true or false: compare this value with something",
            )),
        }
    }
}

impl InputLayout {
    /// The layout alone (as [`InputLayout::new`]) restricted to `preconditions`, for
    /// checking concrete inputs with [`admits`](InputLayout::admits) many times over.
    ///
    /// # Errors
    ///
    /// The first precondition that names what these inputs do not have.
    pub fn assuming(
        spec: &InputSpec,
        stdin_len: usize,
        preconditions: &[Precondition],
    ) -> Result<InputLayout, AssumeError> {
        let mut store = TermStore::new();
        let mut layout = InputLayout::declare(&mut store, spec, stdin_len);
        layout.assume(&mut store, preconditions)?;
        Ok(layout)
    }

    /// Restricts the inputs to those that satisfy `preconditions`: they join the
    /// [`domain`](Self::domain) (as terms of `store`, the store the layout was declared
    /// in) and [`admits`](Self::admits) checks them on concrete inputs.
    ///
    /// # Errors
    ///
    /// The first precondition that names what these inputs do not have.
    pub fn assume(
        &mut self,
        store: &mut TermStore,
        preconditions: &[Precondition],
    ) -> Result<(), AssumeError> {
        if preconditions.is_empty() {
            return Ok(());
        }
        let lowered: Result<Vec<Term>, _> =
            preconditions.iter().map(|p| p.lower(store, self)).collect();
        let admission = filter(self, preconditions);
        match (lowered, admission) {
            (Ok(terms), Ok(admission)) => {
                self.restrict(terms, admission);
                Ok(())
            }
            (Err(e), _) | (_, Err(e)) => {
                // Preconditions that do not fit allow no input at all, so that no
                // engine that skipped validation can report on inputs they forbid.
                let no = store.bool(false);
                self.restrict(vec![no], InputFilter::refuse_all());
                Err(e)
            }
        }
    }
}

/// `preconditions` lowered into a store of their own, whose variables are declared in
/// `layout`'s order, ready to be checked on concrete inputs.
fn filter(
    layout: &InputLayout,
    preconditions: &[Precondition],
) -> Result<InputFilter, AssumeError> {
    let mut store = TermStore::new();
    let own = InputLayout::declare(&mut store, &layout.spec, layout.stdin_len);
    let mut all = Vec::with_capacity(preconditions.len());
    for p in preconditions {
        all.push(p.lower(&mut store, &own)?);
    }
    let term = store.and_all(all);
    Ok(InputFilter::new(store, term))
}

/// What a name bound by a quantifier stands for while its body is expanded.
#[derive(Clone, Copy)]
enum Bound {
    /// Element `k` of the array.
    Elem(u32),
    /// The index `k`.
    Index(u32),
}

enum Value {
    Int(Term),
    Bool(Term),
}

struct Lowerer<'a> {
    store: &'a mut TermStore,
    layout: &'a InputLayout,
    bound: FxHashMap<String, Bound>,
}

impl Lowerer<'_> {
    fn int(&mut self, e: &Expr) -> Result<Term, AssumeError> {
        match self.lower(e)? {
            Value::Int(t) => Ok(t),
            Value::Bool(_) => Err(AssumeError::new(
                e.span.clone(),
                "expected a number here, found a truth value",
            )),
        }
    }

    fn truth(&mut self, e: &Expr) -> Result<Term, AssumeError> {
        match self.lower(e)? {
            Value::Bool(t) => Ok(t),
            Value::Int(_) => Err(AssumeError::new(
                e.span.clone(),
                "expected a truth value here (a comparison), found a number",
            )),
        }
    }

    fn num(&mut self, n: i64) -> Term {
        self.store.constant(64, n as u64)
    }

    /// A 32-bit variable widened to 64 bits.
    fn widen(&mut self, var: Term, unsigned: bool) -> Term {
        let by = 64 - self.store.width(var);
        if unsigned {
            self.store.zero_ext(by, var)
        } else {
            self.store.sign_ext(by, var)
        }
    }

    fn array(&self, span: &Range<usize>, what: &str) -> Result<u32, AssumeError> {
        match self.layout.spec {
            InputSpec::Array { max_len, .. } => Ok(max_len),
            InputSpec::Registers(_) => Err(AssumeError::new(
                span.clone(),
                format!("{what} needs the array frontend (--frontend array)"),
            )),
        }
    }

    /// Element `k` if `k < len`, else 0.
    fn element(&mut self, k: i64, max_len: u32) -> Term {
        let zero = self.num(0);
        if k < 0 || k >= max_len as i64 {
            return zero;
        }
        let vars = self.layout.vars();
        let (Some(&len), Some(&elem)) = (vars.first(), vars.get(1 + k as usize)) else {
            return zero;
        };
        let elem = self.widen(elem, false);
        let k = self.store.word(k as u32);
        let inside = self.store.bin(BinOp::Ult, k, len);
        self.store.ite(inside, elem, zero)
    }

    /// The constant value of an index expression.
    fn index(&mut self, e: &Expr) -> Result<i64, AssumeError> {
        let t = self.int(e)?;
        self.store.as_const(t).map(|v| v as i64).ok_or_else(|| {
            AssumeError::new(
                e.span.clone(),
                "an index must be a constant, or computed from a quantifier's index",
            )
        })
    }

    fn lower(&mut self, e: &Expr) -> Result<Value, AssumeError> {
        let span = &e.span;
        Ok(match &e.kind {
            Kind::Num(n) => Value::Int(self.num(*n)),
            Kind::Bool(b) => Value::Bool(self.store.bool(*b)),
            Kind::Reg { reg, unsigned } => {
                let InputSpec::Registers(regs) = &self.layout.spec else {
                    return Err(AssumeError::new(
                        span.clone(),
                        "with the array frontend the inputs are len and a[K], not registers",
                    ));
                };
                let Some(pos) = regs.iter().position(|r| r.index() == *reg as usize) else {
                    let names: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
                    return Err(AssumeError::new(
                        span.clone(),
                        format!(
                            "${reg} is not an input; the inputs are {}",
                            names.join(", ")
                        ),
                    ));
                };
                let var = self.layout.vars()[pos];
                Value::Int(self.widen(var, *unsigned))
            }
            Kind::Len => {
                self.array(span, "`len`")?;
                let len = self.layout.vars()[0];
                Value::Int(self.widen(len, true))
            }
            Kind::Elem(index) => {
                let max_len = self.array(span, "`a[…]`")?;
                let k = self.index(index)?;
                Value::Int(self.element(k, max_len))
            }
            Kind::Stdin(index) => {
                let k = self.index(index)?;
                let n = self.layout.stdin_len;
                if k < 0 || k as u64 >= n as u64 {
                    return Err(AssumeError::new(
                        span.clone(),
                        format!(
                            "in[{k}] is not an input: {n} byte(s) of standard input are \
                             (see --stdin-len)"
                        ),
                    ));
                }
                let first = self.layout.vars().len() - n;
                let var = self.layout.vars()[first + k as usize];
                Value::Int(self.widen(var, true))
            }
            Kind::Name(name) => match self.bound.get(name).copied() {
                Some(Bound::Elem(k)) => {
                    let max_len = self.array(span, "an element")?;
                    Value::Int(self.element(k as i64, max_len))
                }
                Some(Bound::Index(k)) => Value::Int(self.num(k as i64)),
                None => {
                    return Err(AssumeError::new(
                        span.clone(),
                        format!(
                            "unknown name `{name}`; expected $N, u$N, len, a[K], in[K] or a \
                             name bound by `all`/`some`"
                        ),
                    ))
                }
            },
            Kind::Neg(inner) => {
                let zero = self.num(0);
                let v = self.int(inner)?;
                Value::Int(self.store.bin(BinOp::Sub, zero, v))
            }
            Kind::Not(inner) => {
                let v = self.truth(inner)?;
                Value::Bool(self.store.not(v))
            }
            Kind::Arith(op, l, r) => {
                let a = self.int(l)?;
                let b = self.int(r)?;
                let bin = match op {
                    ArithOp::Add => BinOp::Add,
                    ArithOp::Sub => BinOp::Sub,
                    ArithOp::Mul => BinOp::Mul,
                    ArithOp::Div | ArithOp::Rem => {
                        if self.store.as_const(b).is_none_or(|v| v == 0) {
                            return Err(AssumeError::new(
                                r.span.clone(),
                                "divide only by a non-zero constant",
                            ));
                        }
                        if *op == ArithOp::Div {
                            BinOp::SDiv
                        } else {
                            BinOp::SRem
                        }
                    }
                };
                Value::Int(self.store.bin(bin, a, b))
            }
            Kind::Logic(op, l, r) => {
                let a = self.truth(l)?;
                let b = self.truth(r)?;
                Value::Bool(match op {
                    LogicOp::And => self.store.and(a, b),
                    LogicOp::Or => self.store.or(a, b),
                })
            }
            Kind::Compare(operands, ops) => {
                let mut terms = Vec::with_capacity(operands.len());
                for o in operands {
                    terms.push(self.int(o)?);
                }
                let mut all = Vec::with_capacity(ops.len());
                for (k, op) in ops.iter().enumerate() {
                    let (a, b) = (terms[k], terms[k + 1]);
                    all.push(match op {
                        CmpOp::Eq => self.store.eq(a, b),
                        CmpOp::Ne => self.store.ne(a, b),
                        CmpOp::Lt => self.store.bin(BinOp::Slt, a, b),
                        CmpOp::Gt => self.store.bin(BinOp::Slt, b, a),
                        CmpOp::Le => {
                            let gt = self.store.bin(BinOp::Slt, b, a);
                            self.store.not(gt)
                        }
                        CmpOp::Ge => {
                            let lt = self.store.bin(BinOp::Slt, a, b);
                            self.store.not(lt)
                        }
                    });
                }
                Value::Bool(self.store.and_all(all))
            }
            Kind::Quant {
                every,
                elem,
                index,
                body,
            } => {
                let max_len = self.array(span, "a quantifier over the array")?;
                let len = self.layout.vars()[0];
                let saved: Vec<(String, Option<Bound>)> = std::iter::once(elem)
                    .chain(index)
                    .map(|n| (n.clone(), self.bound.get(n).copied()))
                    .collect();
                let mut parts = Vec::with_capacity(max_len as usize);
                let mut failed = None;
                for k in 0..max_len {
                    self.bound.insert(elem.clone(), Bound::Elem(k));
                    if let Some(i) = index {
                        self.bound.insert(i.clone(), Bound::Index(k));
                    }
                    match self.truth(body) {
                        Ok(p) => {
                            let kk = self.store.word(k);
                            let inside = self.store.bin(BinOp::Ult, kk, len);
                            parts.push(if *every {
                                let outside = self.store.not(inside);
                                self.store.or(outside, p)
                            } else {
                                self.store.and(inside, p)
                            });
                        }
                        Err(e) => {
                            failed = Some(e);
                            break;
                        }
                    }
                }
                for (name, before) in saved {
                    match before {
                        Some(b) => self.bound.insert(name, b),
                        None => self.bound.remove(&name),
                    };
                }
                if let Some(e) = failed {
                    return Err(e);
                }
                if max_len == 0 {
                    // No element: check the body's names once, then the empty answer.
                    let _ = self.check_body(elem, index, body)?;
                }
                Value::Bool(if *every {
                    self.store.and_all(parts)
                } else {
                    self.store.or_all(parts)
                })
            }
        })
    }

    /// Lowers a quantifier's body once with element 0 bound, for its errors alone.
    fn check_body(
        &mut self,
        elem: &str,
        index: &Option<String>,
        body: &Expr,
    ) -> Result<Term, AssumeError> {
        self.bound.insert(elem.to_string(), Bound::Elem(0));
        if let Some(i) = index {
            self.bound.insert(i.clone(), Bound::Index(0));
        }
        let r = self.truth(body);
        self.bound.remove(elem);
        if let Some(i) = index {
            self.bound.remove(i);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(spec: InputSpec, stdin: usize) -> InputLayout {
        InputLayout::new(&spec, stdin)
    }

    fn twoints() -> InputLayout {
        layout(InputSpec::default(), 0)
    }

    fn array(max_len: u32) -> InputLayout {
        layout(
            InputSpec::Array {
                max_len,
                base: None,
            },
            0,
        )
    }

    fn admits(l: &InputLayout, text: &str, values: &[u32]) -> bool {
        let p = Precondition::parse(text).unwrap();
        filter(l, &[p]).unwrap().admits(values)
    }

    fn lower_err(l: &InputLayout, text: &str) -> AssumeError {
        let p = Precondition::parse(text).unwrap();
        let mut store = TermStore::new();
        let own = InputLayout::declare(&mut store, &l.spec, l.stdin_len);
        p.lower(&mut store, &own).expect_err(text)
    }

    #[test]
    fn registers_signed_and_unsigned() {
        let l = twoints();
        assert!(admits(&l, "$1 < 0", &[u32::MAX, 0]));
        assert!(!admits(&l, "u$1 < 0", &[u32::MAX, 0]));
        assert!(admits(&l, "u$1 == 4294967295", &[u32::MAX, 0]));
        // No wrap-around: INT_MAX + 1 is larger than INT_MAX.
        assert!(admits(&l, "$1 + 1 > $1", &[0x7fff_ffff, 0]));
        assert!(admits(&l, "1 <= $1 <= 26 && $2 != 0", &[26, 5]));
        assert!(!admits(&l, "1 <= $1 <= 26", &[27, 5]));
        assert!(admits(
            &l,
            "$1 / 2 == -3 && $1 % 2 == -1",
            &[(-7i32) as u32, 0]
        ));
        assert!(admits(&l, "!($1 == $2) || true", &[1, 1]));
    }

    #[test]
    fn arrays_and_quantifiers() {
        let l = array(4);
        // len, then a[0..4].
        let v = [3, 1, 26, 5, 999];
        assert!(admits(&l, "all a: 1 <= a <= 26", &v));
        assert!(!admits(&l, "all a: 1 <= a <= 4", &v));
        assert!(admits(&l, "some x: x == 26", &v));
        assert!(!admits(&l, "some x: x == 999", &v), "a[3] lies past len");
        assert!(admits(&l, "a[3] == 0 && a[9] == 0", &v), "past len reads 0");
        assert!(!admits(&l, "all x, i: i == 0 || a[i - 1] <= x", &v));
        assert!(admits(
            &l,
            "all x, i: i == 0 || a[i - 1] <= x",
            &[3, 1, 5, 26, 0]
        ));
        assert!(
            admits(&l, "all x: x > 100", &[0, 1, 2, 3, 4]),
            "empty array"
        );
    }

    #[test]
    fn stdin_bytes() {
        let l = layout(InputSpec::default(), 2);
        assert!(admits(
            &l,
            "in[0] == 'y' && in[1] >= 0",
            &[0, 0, b'y' as u32, 255]
        ));
        assert!(admits(&l, "in[1] == 255", &[0, 0, 0, 255]));
    }

    #[test]
    fn errors_name_what_is_missing() {
        let e = lower_err(&twoints(), "$3 > 0");
        assert!(e.message.contains("$1, $2"), "{}", e.message);
        assert_eq!(e.span, 0..2);
        let e = lower_err(&twoints(), "len > 0");
        assert!(e.message.contains("--frontend array"), "{}", e.message);
        let e = lower_err(&array(4), "$1 > 0");
        assert!(e.message.contains("len and a[K]"), "{}", e.message);
        let e = lower_err(&twoints(), "in[0] == 1");
        assert!(e.message.contains("--stdin-len"), "{}", e.message);
        let e = lower_err(&twoints(), "$1 + 1");
        assert!(e.message.contains("true or false"), "{}", e.message);
        let e = lower_err(&twoints(), "$1 / $2 > 0");
        assert_eq!(e.span, 5..7);
        let e = lower_err(&array(4), "a[len] > 0");
        assert!(e.message.contains("an index"), "{}", e.message);
        let e = lower_err(&array(4), "all x: y > 0");
        assert!(e.message.contains("unknown name `y`"), "{}", e.message);
        let e = lower_err(&array(0), "all x: y > 0");
        assert!(e.message.contains("unknown name `y`"), "{}", e.message);
        let e = lower_err(&twoints(), "($1 < 2) + 1 > 0");
        assert!(e.message.contains("expected a number"), "{}", e.message);
    }
}
