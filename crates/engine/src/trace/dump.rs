//! The readable trace behind `--dump-trace`: each input-dependent assignment and
//! path condition, in SSA form (shared subterms are named once, as `tN`).

use std::fmt::Write;

use tamarin_mips::{Instr, Reg};

use super::PathCond;
use crate::term::{BinOp, Node, Term, TermStore};

/// Where an assignment went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    Reg(Reg),
    Hi,
    Lo,
    Mem(u32),
    /// The whole memory, after a store at an input-dependent address.
    Memory,
}

/// One entry of a readable trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceStep {
    /// `instr` at `pc` gave `dest` a value that depends on the inputs.
    Assign {
        pc: u32,
        instr: Instr,
        dest: Dest,
        value: Term,
    },
    /// A path condition.
    Cond(PathCond),
}

/// Renders `steps` as SSA text: every non-trivial subterm gets a `tN = …` line the
/// first time it is needed, then assignments and conditions refer to it.
pub fn render(store: &TermStore, steps: &[TraceStep]) -> String {
    let mut out = String::new();
    let mut named = rustc_hash::FxHashSet::default();
    for step in steps {
        let root = match step {
            TraceStep::Assign { value, .. } => *value,
            TraceStep::Cond(c) => c.cond,
        };
        for t in store.reachable(&[root]) {
            if is_atom(store, t) || !named.insert(t) {
                continue;
            }
            let _ = writeln!(out, "    t{} = {}", t.index(), ssa_rhs(store, t));
        }
        match step {
            TraceStep::Assign {
                pc,
                instr,
                dest,
                value,
            } => {
                let dest = match dest {
                    Dest::Reg(r) => r.to_string(),
                    Dest::Hi => "hi".into(),
                    Dest::Lo => "lo".into(),
                    Dest::Mem(a) => format!("mem[{a:#x}]"),
                    Dest::Memory => "mem".into(),
                };
                let _ = writeln!(
                    out,
                    "{pc:#010x}  {:<22} {dest} := {}",
                    instr.to_string(),
                    name(store, *value)
                );
            }
            TraceStep::Cond(c) => {
                let _ = writeln!(
                    out,
                    "{:#010x}  {:<22} assume {}   ; {}",
                    c.pc,
                    format!("({})", c.kind.name()),
                    name(store, c.cond),
                    store.readable(c.cond)
                );
            }
        }
    }
    out
}

fn is_atom(store: &TermStore, t: Term) -> bool {
    matches!(
        store.node(t),
        Node::Bool(_) | Node::Const { .. } | Node::Var { .. }
    )
}

fn name(store: &TermStore, t: Term) -> String {
    if is_atom(store, t) {
        store.readable(t).to_string()
    } else {
        format!("t{}", t.index())
    }
}

fn ssa_rhs(store: &TermStore, t: Term) -> String {
    let n = |x| name(store, x);
    match store.node(t) {
        Node::Not(a) => format!("not {}", n(a)),
        Node::Bin(op, a, b) => {
            let op = BinOp::smtlib_name(op);
            format!("{op} {} {}", n(a), n(b))
        }
        Node::Extract { hi, lo, arg } => format!("extract[{hi}:{lo}] {}", n(arg)),
        Node::SignExt { by, arg } => format!("sign_extend[{by}] {}", n(arg)),
        Node::ZeroExt { by, arg } => format!("zero_extend[{by}] {}", n(arg)),
        Node::Ite(c, a, b) => format!("ite {} {} {}", n(c), n(a), n(b)),
        Node::ConstArray(v) => format!("const-array {}", n(v)),
        Node::Store(m, a, v) => format!("store {} {} {}", n(m), n(a), n(v)),
        Node::Select(m, a) => format!("select {} {}", n(m), n(a)),
        Node::Bool(_) | Node::Const { .. } | Node::Var { .. } => n(t),
    }
}
