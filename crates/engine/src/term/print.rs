//! Readable infix printing of terms, for path conditions shown to people.

use std::fmt;

use super::{signed, BinOp, Node, Term, TermStore};

/// Displays a term as infix text such as `($1 + $2) == 16` (constants in signed
/// decimal, or hex when large).
pub struct Readable<'a> {
    pub store: &'a TermStore,
    pub term: Term,
}

impl TermStore {
    /// A displayable, readable form of `t`.
    pub fn readable(&self, t: Term) -> Readable<'_> {
        Readable {
            store: self,
            term: t,
        }
    }
}

fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::UDiv => "/u",
        BinOp::URem => "%u",
        BinOp::SDiv => "/",
        BinOp::SRem => "%",
        BinOp::BvAnd => "&",
        BinOp::BvOr => "|",
        BinOp::BvXor => "^",
        BinOp::Shl => "<<",
        // Unsigned (logical) marked `u`, signed (arithmetic) plain, as `/u` and `/`.
        BinOp::LShr => ">>u",
        BinOp::AShr => ">>",
        BinOp::Concat => "++",
        BinOp::Eq => "==",
        BinOp::Ult => "<u",
        BinOp::Slt => "<",
        BinOp::And => "&&",
        BinOp::Or => "||",
    }
}

/// Whether `op` is associative and commutative: its operands are printed in one
/// order, whatever the order of the terms in the store.
fn is_ac(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add
            | BinOp::Mul
            | BinOp::BvAnd
            | BinOp::BvOr
            | BinOp::BvXor
            | BinOp::And
            | BinOp::Or
    )
}

impl Readable<'_> {
    /// The operands of a chain of `op` under `t` (`t` itself when it is another node).
    fn flatten(&self, op: BinOp, t: Term, out: &mut Vec<Term>) {
        match self.store.node(t) {
            Node::Bin(o, a, b) if o == op => {
                self.flatten(op, a, out);
                self.flatten(op, b, out);
            }
            _ => out.push(t),
        }
    }

    /// Writes `operands` joined by `op`, in a canonical order: the store orders the
    /// operands of commutative operators by when their terms were made, which differs
    /// from one store to another, so they are sorted by their text (constants last),
    /// and nested to the left like the sums the store builds.
    fn write_sorted(
        &self,
        f: &mut dyn fmt::Write,
        op: &str,
        operands: &[Term],
        top: bool,
        budget: &mut u32,
    ) -> fmt::Result {
        let mut texts: Vec<(bool, String)> = Vec::with_capacity(operands.len());
        for &t in operands {
            let mut text = String::new();
            self.write(&mut text, t, false, budget)?;
            let constant = matches!(self.store.node(t), Node::Const { .. } | Node::Bool(_));
            texts.push((constant, text));
        }
        texts.sort();
        let n = texts.len();
        for _ in 0..n.saturating_sub(2) + usize::from(!top) {
            f.write_str("(")?;
        }
        for (k, (_, text)) in texts.iter().enumerate() {
            if k > 0 {
                write!(f, " {op} ")?;
            }
            f.write_str(text)?;
            if k > 0 && (k < n - 1 || !top) {
                f.write_str(")")?;
            }
        }
        Ok(())
    }

    /// Whether `c ? a : b` is `k <u len ? a[k] : 0`.
    fn is_guarded_element(&self, c: Term, a: Term, b: Term) -> bool {
        let s = self.store;
        let Node::Var { index, .. } = s.node(a) else {
            return false;
        };
        let Node::Bin(BinOp::Ult, k, len) = s.node(c) else {
            return false;
        };
        let (Some(k), Node::Var { index: l, .. }) = (s.as_const(k), s.node(len)) else {
            return false;
        };
        s.as_const(b) == Some(0) && s.var_name(l) == "len" && s.var_name(index) == format!("a[{k}]")
    }

    fn write(&self, f: &mut dyn fmt::Write, t: Term, top: bool, budget: &mut u32) -> fmt::Result {
        let s = self.store;
        if *budget == 0 {
            return f.write_str("…");
        }
        *budget -= 1;
        match s.node(t) {
            Node::Bool(b) => write!(f, "{b}"),
            Node::Const { width, value } => {
                let v = signed(width, value);
                if (-4096..=65535).contains(&v) {
                    write!(f, "{v}")
                } else {
                    write!(f, "{value:#x}")
                }
            }
            Node::Var { index, .. } => f.write_str(s.var_name(index)),
            Node::Not(a) => {
                if let Node::Bin(BinOp::Eq, x, y) = s.node(a) {
                    return self.write_sorted(f, "!=", &[x, y], top, budget);
                }
                f.write_str("!")?;
                self.write(f, a, false, budget)
            }
            Node::Bin(op, a, b) if is_ac(op) || op == BinOp::Eq => {
                let mut operands = Vec::new();
                if op == BinOp::Eq {
                    operands.extend([a, b]);
                } else {
                    self.flatten(op, t, &mut operands);
                }
                self.write_sorted(f, op_text(op), &operands, top, budget)
            }
            Node::Bin(op, a, b) => {
                if !top {
                    f.write_str("(")?;
                }
                self.write(f, a, false, budget)?;
                write!(f, " {} ", op_text(op))?;
                self.write(f, b, false, budget)?;
                if !top {
                    f.write_str(")")?;
                }
                Ok(())
            }
            Node::Extract { hi, lo, arg } => {
                self.write(f, arg, false, budget)?;
                write!(f, "[{hi}:{lo}]")
            }
            Node::SignExt { by, arg } => {
                write!(f, "sext{by}(")?;
                self.write(f, arg, true, budget)?;
                f.write_str(")")
            }
            // A byte of input widened to a word reads as the byte's value.
            Node::ZeroExt { arg, .. } if matches!(s.node(arg), Node::Var { .. }) => {
                self.write(f, arg, top, budget)
            }
            Node::ZeroExt { by, arg } => {
                write!(f, "zext{by}(")?;
                self.write(f, arg, true, budget)?;
                f.write_str(")")
            }
            Node::ConstArray(v) => {
                f.write_str("const(")?;
                self.write(f, v, true, budget)?;
                f.write_str(")")
            }
            Node::Store(m, a, v) => {
                self.write(f, m, false, budget)?;
                f.write_str("[")?;
                self.write(f, a, true, budget)?;
                f.write_str(" := ")?;
                self.write(f, v, true, budget)?;
                f.write_str("]")
            }
            Node::Select(m, a) => {
                f.write_str("mem(")?;
                self.write(f, m, true, budget)?;
                f.write_str(")[")?;
                self.write(f, a, true, budget)?;
                f.write_str("]")
            }
            // An array element guarded by the length (`k < len ? a[k] : 0`) reads as
            // `a[k]`, which means the same in the language of preconditions.
            Node::Ite(c, a, b) if self.is_guarded_element(c, a, b) => self.write(f, a, top, budget),
            Node::Ite(c, a, b) => {
                f.write_str("(")?;
                self.write(f, c, false, budget)?;
                f.write_str(" ? ")?;
                self.write(f, a, false, budget)?;
                f.write_str(" : ")?;
                self.write(f, b, false, budget)?;
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Readable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Long traces make deep terms; print a bounded prefix rather than megabytes.
        let mut budget = 400;
        self.write(f, self.term, true, &mut budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_read_naturally() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let sum = s.bin(BinOp::Add, x, y);
        let k = s.word(16);
        let c = s.eq(sum, k);
        assert_eq!(s.readable(c).to_string(), "($1 + $2) == 16");
        let n = s.ne(x, y);
        assert_eq!(s.readable(n).to_string(), "$1 != $2");
        let m = s.word(0x8000_0000);
        let lt = s.bin(BinOp::Slt, x, m);
        assert_eq!(s.readable(lt).to_string(), "$1 < 0x80000000");
    }

    #[test]
    fn commutative_operands_print_in_one_order() {
        // The same conditions made in two stores, their parts in another order.
        let build = |s: &mut TermStore, flip: bool| {
            let x = s.new_var("$1", 32);
            let y = s.new_var("$2", 32);
            let k = s.word(3);
            // The same two terms, made in either order.
            let (p, q) = if flip {
                let q = s.bin(BinOp::Add, x, k);
                (s.bin(BinOp::Mul, x, y), q)
            } else {
                let p = s.bin(BinOp::Mul, x, y);
                (p, s.bin(BinOp::Add, x, k))
            };
            let sum = s.bin(BinOp::Add, p, q);
            let sum = s.bin(BinOp::Add, sum, y);
            let z = s.word(0);
            let e = s.eq(p, z);
            let n = s.ne(q, y);
            let both = s.and(e, n);
            let c = s.eq(sum, k);
            let all = s.and(both, c);
            s.readable(all).to_string()
        };
        let a = build(&mut TermStore::new(), false);
        let b = build(&mut TermStore::new(), true);
        assert_eq!(a, b);
        assert_eq!(s_of("$2", "$1"), "$1 == $2");
    }

    #[test]
    fn bitwise_operators_and_shifts_read_naturally() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let y = s.new_var("$2", 32);
        let z = s.new_var("$3", 32);
        let or = s.bin(BinOp::BvOr, y, x);
        let xor = s.bin(BinOp::BvXor, or, z);
        assert_eq!(s.readable(xor).to_string(), "$3 ^ ($1 | $2)");
        let k = s.word(2);
        let shl = s.bin(BinOp::Shl, x, k);
        assert_eq!(s.readable(shl).to_string(), "$1 << 2");
        let lshr = s.bin(BinOp::LShr, x, y);
        let ashr = s.bin(BinOp::AShr, x, y);
        let c = s.eq(lshr, ashr);
        assert_eq!(s.readable(c).to_string(), "($1 >> $2) == ($1 >>u $2)");
        // An or of ors (associative and commutative) prints in one order.
        let xz = s.bin(BinOp::BvOr, x, z);
        let xzy = s.bin(BinOp::BvOr, xz, y);
        let yz = s.bin(BinOp::BvOr, z, y);
        let yzx = s.bin(BinOp::BvOr, yz, x);
        assert_eq!(s.readable(xzy).to_string(), s.readable(yzx).to_string());
        assert_eq!(s.readable(xzy).to_string(), "($1 | $2) | $3");
    }

    fn s_of(a: &str, b: &str) -> String {
        let mut s = TermStore::new();
        let y = s.new_var(a, 32);
        let x = s.new_var(b, 32);
        let c = s.eq(y, x);
        s.readable(c).to_string()
    }
}
