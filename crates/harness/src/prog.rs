//! The harness's own view of a program: lines of assembly with labels kept symbolic,
//! so that mutations and rewrites can edit instructions and reassemble. Rendered as
//! CS241 assembly text and assembled by `tamarin_mips::asm::assemble`.

use std::fmt::{self, Write as _};

use tamarin_mips::asm::assemble;
use tamarin_mips::Program;

/// A register number, `0..=31`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct R(pub u8);

impl fmt::Display for R {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}", self.0)
    }
}

/// The operand of `.word` (and of the word after `lis`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Word {
    Num(u32),
    Label(String),
}

impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Small magnitudes read better in decimal, the rest in hexadecimal.
            Word::Num(n) if (*n as i32).unsigned_abs() <= 100_000 => write!(f, "{}", *n as i32),
            Word::Num(n) => write!(f, "{n:#x}"),
            Word::Label(l) => f.write_str(l),
        }
    }
}

/// One instruction; `lis` carries its word, branches their target label.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Add(R, R, R),
    Sub(R, R, R),
    Slt(R, R, R),
    Sltu(R, R, R),
    Mult(R, R),
    Multu(R, R),
    Div(R, R),
    Divu(R, R),
    Mfhi(R),
    Mflo(R),
    Lis(R, Word),
    /// `lw $t, i($s)` as `Lw(t, i, s)`.
    Lw(R, i16, R),
    /// `sw $t, i($s)` as `Sw(t, i, s)`.
    Sw(R, i16, R),
    Beq(R, R, String),
    Bne(R, R, String),
    Jr(R),
    Jalr(R),
}

impl Op {
    /// Machine words this instruction takes (2 for `lis` and its word).
    pub fn words(&self) -> usize {
        match self {
            Op::Lis(..) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Add(d, s, t) => write!(f, "add {d}, {s}, {t}"),
            Op::Sub(d, s, t) => write!(f, "sub {d}, {s}, {t}"),
            Op::Slt(d, s, t) => write!(f, "slt {d}, {s}, {t}"),
            Op::Sltu(d, s, t) => write!(f, "sltu {d}, {s}, {t}"),
            Op::Mult(s, t) => write!(f, "mult {s}, {t}"),
            Op::Multu(s, t) => write!(f, "multu {s}, {t}"),
            Op::Div(s, t) => write!(f, "div {s}, {t}"),
            Op::Divu(s, t) => write!(f, "divu {s}, {t}"),
            Op::Mfhi(d) => write!(f, "mfhi {d}"),
            Op::Mflo(d) => write!(f, "mflo {d}"),
            Op::Lis(d, w) => write!(f, "lis {d}\n    .word {w}"),
            Op::Lw(t, i, s) => write!(f, "lw {t}, {i}({s})"),
            Op::Sw(t, i, s) => write!(f, "sw {t}, {i}({s})"),
            Op::Beq(s, t, l) => write!(f, "beq {s}, {t}, {l}"),
            Op::Bne(s, t, l) => write!(f, "bne {s}, {t}, {l}"),
            Op::Jr(s) => write!(f, "jr {s}"),
            Op::Jalr(s) => write!(f, "jalr {s}"),
        }
    }
}

/// One line of a program.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Line {
    Label(String),
    Op(Op),
    /// A data word (a jump-table entry, a word of a data area): never executed by a
    /// well-formed program, and never moved apart from its neighbours by a rewrite.
    Data(Word),
}

/// A program as lines, with what a rewrite must know about it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prog {
    pub lines: Vec<Line>,
    /// The program reads or writes memory at addresses that are not confined to its own
    /// labelled data areas and the stack (a raw input address, a table index that can
    /// run past its table): its function can depend on its own layout, so only
    /// rewrites that move no word keep it equal.
    pub layout_sensitive: bool,
}

impl Prog {
    /// The program as CS241 assembly text.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for line in &self.lines {
            let _ = match line {
                Line::Label(l) => writeln!(s, "{l}:"),
                Line::Op(op) => writeln!(s, "    {op}"),
                Line::Data(w) => writeln!(s, "    .word {w}"),
            };
        }
        s
    }

    /// Machine words of the assembled program.
    pub fn word_count(&self) -> usize {
        self.lines
            .iter()
            .map(|l| match l {
                Line::Label(_) => 0,
                Line::Op(op) => op.words(),
                Line::Data(_) => 1,
            })
            .sum()
    }

    /// Instructions (a `lis` and its word count as one).
    pub fn op_count(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, Line::Op(_)))
            .count()
    }

    /// Assembles the text; an error is a bug of the generator or of a mutation.
    pub fn assemble(&self) -> Result<Program, String> {
        assemble("generated.asm", &self.text()).map_err(|e| e.to_string())
    }

    /// Every constant loaded by `lis` (for the edge inputs of the concrete check).
    pub fn constants(&self) -> impl Iterator<Item = u32> + '_ {
        self.lines.iter().filter_map(|l| match l {
            Line::Op(Op::Lis(_, Word::Num(n))) | Line::Data(Word::Num(n)) => Some(*n),
            _ => None,
        })
    }
}
