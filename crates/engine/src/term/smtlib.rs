//! SMT-LIB 2 text for a query, so that any solver (and people) can replay it.

use std::fmt::Write;

use super::{lower_arrays, Node, Term, TermStore};

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
    let assertions = lower_arrays(store, assertions);
    let store = &*store;
    let mut out = String::new();
    for line in comment.lines() {
        let _ = writeln!(out, "; {line}");
    }
    let order = store.reachable(&assertions);
    // Options before the logic: some solvers (Yices) refuse them afterwards.
    let _ = writeln!(out, "(set-option :produce-models true)");
    let _ = writeln!(out, "(set-logic QF_BV)");
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
    for &t in &order {
        let body = match store.node(t) {
            Node::Bool(_) | Node::Const { .. } | Node::Var { .. } => continue,
            Node::Not(a) => format!("(not {})", atom(store, a)),
            Node::Bin(op, a, b) => {
                format!(
                    "({} {} {})",
                    op.smtlib_name(),
                    atom(store, a),
                    atom(store, b)
                )
            }
            Node::Extract { hi, lo, arg } => {
                format!("((_ extract {hi} {lo}) {})", atom(store, arg))
            }
            Node::SignExt { by, arg } => format!("((_ sign_extend {by}) {})", atom(store, arg)),
            Node::ZeroExt { by, arg } => format!("((_ zero_extend {by}) {})", atom(store, arg)),
            Node::Ite(c, a, b) => format!(
                "(ite {} {} {})",
                atom(store, c),
                atom(store, a),
                atom(store, b)
            ),
            // Left by the lowering only where memory is malformed.
            Node::ConstArray(_) | Node::Store(..) | Node::Select(..) => {
                let _ = writeln!(out, "; t{}: malformed memory, not printed", t.index());
                continue;
            }
        };
        let _ = writeln!(
            out,
            "(define-fun t{} () {} {})",
            t.index(),
            sort(store, t),
            body
        );
    }
    for &a in &assertions {
        let _ = writeln!(out, "(assert {})", atom(store, a));
    }
    let _ = writeln!(out, "(check-sat)");
    out
}
