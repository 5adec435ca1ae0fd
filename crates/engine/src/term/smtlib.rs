//! SMT-LIB 2 text for a query, so that any solver (and people) can replay it.

use std::fmt::Write;

use super::{lower_arrays, BinOp, Node, Term, TermStore};

fn sort(store: &TermStore, t: Term) -> String {
    match store.width(t) {
        0 => "Bool".to_string(),
        w => format!("(_ BitVec {w})"),
    }
}

/// Quotes a name as an SMT-LIB symbol (`$1` becomes `|$1|`).
pub fn symbol(name: &str) -> String {
    let simple = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "~!@%^&*_-+=<>.?/".contains(c));
    if simple {
        name.to_string()
    } else {
        format!("|{}|", name.replace(['|', '\\'], "_"))
    }
}

fn atom(store: &TermStore, t: Term) -> String {
    match store.node(t) {
        Node::Bool(b) => b.to_string(),
        Node::Const { width, value } => format!("(_ bv{value} {width})"),
        Node::Var { index, .. } => symbol(store.var_name(index)),
        _ => format!("t{}", t.index()),
    }
}

/// Whether `roots` still use memory once lowered by [`lower_arrays`]: a read that is not
/// of a store chain over a constant array (a malformed term), which no text can say.
pub fn malformed_memory(store: &TermStore, lowered: &[Term]) -> bool {
    store.reachable(lowered).into_iter().any(|t| {
        matches!(
            store.node(t),
            Node::ConstArray(_) | Node::Store(..) | Node::Select(..)
        )
    })
}

/// A standalone SMT-LIB 2 script asserting every term of `assertions` and checking
/// satisfiability. Shared subterms become `define-fun`s, so the text stays linear in
/// the size of the term graph. Memory is read as `ite` chains over its stores
/// ([`lower_arrays`], which adds those terms to the store), so the text needs no
/// array theory; a malformed read (see [`malformed_memory`]) is left out with a
/// comment, so a solver refuses the text rather than answering another query.
pub fn to_smtlib(store: &mut TermStore, assertions: &[Term], comment: &str) -> String {
    let formulas: Vec<Formula> = assertions.iter().map(|&t| Formula::Term(t)).collect();
    script(store, &[], &formulas, comment)
}

/// An assertion of a [`script`]: terms of the store, and calls of the functions the
/// script defines, joined by the Boolean connectives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    Term(Term),
    /// A defined function applied to terms (bit-vectors or Booleans).
    Call(String, Vec<Term>),
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
}

impl Formula {
    /// Its terms, in order (a call's arguments included), appended to `out`.
    pub fn terms(&self, out: &mut Vec<Term>) {
        match self {
            Formula::Term(t) => out.push(*t),
            Formula::Call(_, args) => out.extend(args),
            Formula::Not(f) => f.terms(out),
            Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|f| f.terms(out)),
        }
    }

    /// The same formula with its terms taken in order from `next` (as
    /// [`Formula::terms`] lists them; a term `next` runs out before stays).
    pub fn replace_terms(&self, next: &mut impl Iterator<Item = Term>) -> Formula {
        match self {
            Formula::Term(t) => Formula::Term(next.next().unwrap_or(*t)),
            Formula::Call(name, args) => Formula::Call(
                name.clone(),
                args.iter().map(|&a| next.next().unwrap_or(a)).collect(),
            ),
            Formula::Not(f) => Formula::Not(Box::new(f.replace_terms(next))),
            Formula::And(fs) => Formula::And(fs.iter().map(|f| f.replace_terms(next)).collect()),
            Formula::Or(fs) => Formula::Or(fs.iter().map(|f| f.replace_terms(next)).collect()),
        }
    }

    /// The text, with the terms taken in order from `lowered`.
    fn text(&self, store: &TermStore, lowered: &mut impl Iterator<Item = Term>) -> String {
        self.text_with(lowered, &mut |t| atom(store, t))
    }

    /// The text, with the terms taken in order from `lowered` and written by `atom`.
    pub(super) fn text_with(
        &self,
        lowered: &mut dyn Iterator<Item = Term>,
        atom: &mut dyn FnMut(Term) -> String,
    ) -> String {
        let mut next = |lowered: &mut dyn Iterator<Item = Term>| {
            lowered.next().map_or("false".to_string(), &mut *atom)
        };
        match self {
            Formula::Term(_) => next(lowered),
            Formula::Call(name, args) if args.is_empty() => symbol(name),
            Formula::Call(name, args) => {
                let args: Vec<String> = args.iter().map(|_| next(lowered)).collect();
                format!("({} {})", symbol(name), args.join(" "))
            }
            Formula::Not(f) => format!("(not {})", f.text_with(lowered, atom)),
            Formula::And(fs) | Formula::Or(fs) if fs.is_empty() => {
                (matches!(self, Formula::And(_))).to_string()
            }
            Formula::And(fs) | Formula::Or(fs) => {
                let op = if matches!(self, Formula::And(_)) {
                    "and"
                } else {
                    "or"
                };
                let parts: Vec<String> = fs.iter().map(|f| f.text_with(lowered, atom)).collect();
                format!("({op} {})", parts.join(" "))
            }
        }
    }
}

/// A Boolean function a [`script`] defines: `params` are variables of the store bound
/// by it, and `body` (over them) is printed whole, without shared definitions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub params: Vec<Term>,
    pub body: Term,
}

/// A standalone SMT-LIB 2 script that defines `definitions`, asserts `formulas` and
/// checks satisfiability; the terms are printed as [`to_smtlib`] prints them.
pub fn script(
    store: &mut TermStore,
    definitions: &[Definition],
    formulas: &[Formula],
    comment: &str,
) -> String {
    script_with(store, definitions, formulas, comment, Products::Bits)
}

/// How a [`script_with`] writes the 64-bit product of two zero-extended words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Products {
    /// As `bvmul`: the solver bit-blasts a multiplier.
    Bits,
    /// As `(mul64 a b)`, an uninterpreted function of the two words (in the order of
    /// [`TermStore::wide_product`]), logic `QF_UFBV`; a 32-bit product of two
    /// words (neither a constant) as the low word of theirs. An `unsat` then holds
    /// for every function, so for the product too; the caller asserts the facts
    /// about products the check needs (instances of lemmas proved on their own, the
    /// low word among them). Solvers settle
    /// equal products of equal words by congruence, where two bit-blasted
    /// multipliers fed the same unknown word defeat them.
    Opaque,
}

/// The name of the uninterpreted product of [`Products::Opaque`].
pub const OPAQUE_PRODUCT: &str = "mul64";

/// A [`script`] whose wide products are written as `products` says.
pub fn script_with(
    store: &mut TermStore,
    definitions: &[Definition],
    formulas: &[Formula],
    comment: &str,
    products: Products,
) -> String {
    let (assertions, bodies) = lowered(store, definitions, formulas);
    let store = &*store;
    let opaque = products == Products::Opaque;
    let mut out = String::new();
    for line in comment.lines() {
        let _ = writeln!(out, "; {line}");
    }
    let order = store.reachable(&assertions);
    // Options before the logic: some solvers (Yices) refuse them afterwards.
    let _ = writeln!(out, "(set-option :produce-models true)");
    if opaque {
        let _ = writeln!(out, "(set-logic QF_UFBV)");
        let _ = writeln!(
            out,
            "(declare-fun {OPAQUE_PRODUCT} ((_ BitVec 32) (_ BitVec 32)) (_ BitVec 64))"
        );
    } else {
        let _ = writeln!(out, "(set-logic QF_BV)");
    }
    for &t in &order {
        if let Node::Var { index, .. } = store.node(t) {
            let _ = writeln!(
                out,
                "(declare-const {} {})",
                symbol(store.var_name(index)),
                sort(store, t)
            );
        }
    }
    for (d, &body) in definitions.iter().zip(&bodies) {
        let params: Vec<String> = d
            .params
            .iter()
            .map(|&p| format!("({} {})", expression(store, p), sort(store, p)))
            .collect();
        let _ = writeln!(
            out,
            "(define-fun {} ({}) Bool {})",
            symbol(&d.name),
            params.join(" "),
            expression_with(store, body, opaque)
        );
    }
    for &t in &order {
        let Some(body) = node_text(store, t, &|c| atom(store, c), opaque) else {
            if let Node::ConstArray(_) | Node::Store(..) | Node::Select(..) = store.node(t) {
                // Left by the lowering only where memory is malformed.
                let _ = writeln!(out, "; t{}: malformed memory, not printed", t.index());
            }
            continue;
        };
        let _ = writeln!(
            out,
            "(define-fun t{} () {} {})",
            t.index(),
            sort(store, t),
            body
        );
    }
    let mut lowered = assertions.into_iter();
    for f in formulas {
        let _ = writeln!(out, "(assert {})", f.text(store, &mut lowered));
    }
    let _ = writeln!(out, "(check-sat)");
    out
}

/// The terms of `formulas` and the bodies of `definitions`, memory read as `ite`
/// chains ([`lower_arrays`]): what a script prints, in bit-vectors or in integers.
pub(super) fn lowered(
    store: &mut TermStore,
    definitions: &[Definition],
    formulas: &[Formula],
) -> (Vec<Term>, Vec<Term>) {
    let mut roots = Vec::new();
    for f in formulas {
        f.terms(&mut roots);
    }
    let assertions = lower_arrays(store, &roots);
    let bodies = lower_arrays(
        store,
        &definitions.iter().map(|d| d.body).collect::<Vec<_>>(),
    );
    (assertions, bodies)
}

/// The text of an operation node over its children's texts; `None` for a leaf (and
/// for memory, which no text says).
/// With `opaque`, a wide product is written as [`OPAQUE_PRODUCT`] ([`Products::Opaque`]).
fn node_text(
    store: &TermStore,
    t: Term,
    child: &dyn Fn(Term) -> String,
    opaque: bool,
) -> Option<String> {
    if opaque {
        if let Some((a, b)) = store.wide_product(t) {
            return Some(format!("({OPAQUE_PRODUCT} {} {})", child(a), child(b)));
        }
        // A product of two words is the low word of theirs (`multu`'s `lo`).
        if let Some((a, b)) = store.word_product(t) {
            return Some(format!(
                "((_ extract 31 0) ({OPAQUE_PRODUCT} {} {}))",
                child(a),
                child(b)
            ));
        }
    }
    Some(match store.node(t) {
        Node::Bool(_) | Node::Const { .. } | Node::Var { .. } => return None,
        Node::ConstArray(_) | Node::Store(..) | Node::Select(..) => return None,
        Node::Not(a) => format!("(not {})", child(a)),
        // As in the Z3 lowering: a shift by a constant is written as its product, so
        // that every solver adds it up with the other products of a sum.
        Node::Bin(BinOp::Shl, a, b) if store.constant_shift(b).is_some() => {
            let (k, width) = store.constant_shift(b).unwrap_or_default();
            format!("(bvmul {} (_ bv{} {width}))", child(a), 1u64 << k)
        }
        Node::Bin(op, a, b) => format!("({} {} {})", op.smtlib_name(), child(a), child(b)),
        Node::Extract { hi, lo, arg } => format!("((_ extract {hi} {lo}) {})", child(arg)),
        Node::SignExt { by, arg } => format!("((_ sign_extend {by}) {})", child(arg)),
        Node::ZeroExt { by, arg } => format!("((_ zero_extend {by}) {})", child(arg)),
        Node::Ite(c, a, b) => format!("(ite {} {} {})", child(c), child(a), child(b)),
    })
}

/// The text of `t` as one nested expression, shared subterms repeated: for small
/// terms over bound variables, which the shared definitions cannot name.
pub fn expression(store: &TermStore, t: Term) -> String {
    expression_with(store, t, false)
}

fn expression_with(store: &TermStore, t: Term, opaque: bool) -> String {
    node_text(store, t, &|c| expression_with(store, c, opaque), opaque)
        .unwrap_or_else(|| atom(store, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::BinOp;

    #[test]
    fn a_script_defines_functions_over_bound_variables_and_calls_them() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let p = s.new_var("p.x", 32);
        let three = s.word(3);
        let body = s.bin(BinOp::Ult, p, three);
        let def = Definition {
            name: "small".into(),
            params: vec![p],
            body,
        };
        let y = s.bin(BinOp::Add, x, three);
        let call = Formula::Not(Box::new(Formula::Call("small".into(), vec![y])));
        let yes = Formula::Term(s.bool(true));
        let text = script(&mut s, &[def], &[yes, call], "c");
        assert!(
            text.contains("(define-fun small ((p.x (_ BitVec 32))) Bool (bvult p.x (_ bv3 32)))"),
            "{text}"
        );
        // The parameter is bound, not declared; the argument is a shared definition.
        assert!(!text.contains("(declare-const p.x"), "{text}");
        assert!(text.contains("(declare-const x (_ BitVec 32))"), "{text}");
        assert!(
            text.contains(&format!("(assert (not (small t{})))", y.index())),
            "{text}"
        );
        assert!(text.ends_with("(check-sat)\n"), "{text}");
    }
}
