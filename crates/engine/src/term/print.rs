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
        BinOp::Concat => "++",
        BinOp::Eq => "==",
        BinOp::Ult => "<u",
        BinOp::Slt => "<",
        BinOp::And => "&&",
        BinOp::Or => "||",
    }
}

impl Readable<'_> {
    fn write(
        &self,
        f: &mut fmt::Formatter<'_>,
        t: Term,
        top: bool,
        budget: &mut u32,
    ) -> fmt::Result {
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
                    if !top {
                        f.write_str("(")?;
                    }
                    self.write(f, x, false, budget)?;
                    f.write_str(" != ")?;
                    self.write(f, y, false, budget)?;
                    return if !top { f.write_str(")") } else { Ok(()) };
                }
                f.write_str("!")?;
                self.write(f, a, false, budget)
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
}
