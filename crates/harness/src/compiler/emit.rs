//! What both code generators share: a buffer of [`Line`]s with fresh labels, the
//! sites of planted bugs, and a few instruction shorthands.

use super::bugs::{Bug, Sites};
use crate::prog::{Line, Op, Prog, Word, R};

/// The label the runtime exports for print (imported by every generated program).
pub const PRINT: &str = "print";

pub const ZERO: R = R(0);
/// The result register and the return value.
pub const RES: R = R(3);
/// Holds 4 in both generators' code (as the course's generated code does).
pub const FOUR: R = R(4);
pub const FRAME: R = R(29);
pub const STACK: R = R(30);
pub const LINK: R = R(31);

/// Generated code being built.
pub struct Asm {
    pub lines: Vec<Line>,
    /// Prefix of this generator's branch labels.
    prefix: &'static str,
    next_label: usize,
    pub sites: Sites,
}

impl Asm {
    pub fn new(prefix: &'static str, bug: Option<Bug>) -> Asm {
        Asm {
            lines: Vec::new(),
            prefix,
            next_label: 0,
            sites: Sites::new(bug),
        }
    }

    pub fn op(&mut self, op: Op) {
        self.lines.push(Line::Op(op));
    }

    pub fn label(&mut self, l: &str) {
        self.lines.push(Line::Label(l.to_string()));
    }

    pub fn fresh(&mut self) -> String {
        self.next_label += 1;
        format!("{}{}", self.prefix, self.next_label)
    }

    pub fn lis(&mut self, d: R, n: i32) {
        self.op(Op::Lis(d, Word::Num(n as u32)));
    }

    pub fn lis_label(&mut self, d: R, l: &str) {
        self.op(Op::Lis(d, Word::Label(l.to_string())));
    }

    pub fn mov(&mut self, d: R, s: R) {
        if d != s {
            self.op(Op::Add(d, s, ZERO));
        }
    }

    /// `sw r, -4($30); sub $30, $30, $4`.
    pub fn push(&mut self, r: R) {
        self.op(Op::Sw(r, -4, STACK));
        self.op(Op::Sub(STACK, STACK, FOUR));
    }

    /// `add $30, $30, $4; lw r, -4($30)`.
    pub fn pop(&mut self, r: R) {
        self.op(Op::Add(STACK, STACK, FOUR));
        self.op(Op::Lw(r, -4, STACK));
    }

    pub fn goto(&mut self, l: &str) {
        self.op(Op::Beq(ZERO, ZERO, l.to_string()));
    }

    pub fn into_prog(self) -> Prog {
        Prog {
            lines: self.lines,
            layout_sensitive: false,
        }
    }
}

/// The label of helper `k` in a generator's code.
pub fn proc_label(prefix: &str, k: usize) -> String {
    format!("{prefix}{k}")
}
