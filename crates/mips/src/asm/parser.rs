//! Parses the tokens of one line into label definitions and at most one statement.
//!
//! Labels used as operands are left unresolved ([`Operand::Label`]); the driver in
//! `mod.rs` resolves them once the whole file has been read.

use std::ops::Range;

use super::diag::{quote, Diag};
use super::lexer::{Kind, Token};
use super::number::{is_label_name, looks_numeric, parse_number, parse_register, NumError};
use crate::isa::{Instr, Reg};

/// An operand that is either known now or names a label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Operand<T> {
    Value(T),
    /// The span of the label's name in the source.
    Label(Range<usize>),
}

/// The two branch instructions, kept apart from [`Instr`] until the offset is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BranchOp {
    Beq,
    Bne,
}

impl BranchOp {
    pub fn build(self, s: Reg, t: Reg, i: i16) -> Instr {
        match self {
            BranchOp::Beq => Instr::Beq { s, t, i },
            BranchOp::Bne => Instr::Bne { s, t, i },
        }
    }
}

/// One statement: exactly one word of output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stmt {
    Instr(Instr),
    Branch {
        op: BranchOp,
        s: Reg,
        t: Reg,
        target: Operand<i16>,
    },
    Word(Operand<u32>),
    /// `.import label`: no word; the label is defined by another module.
    Import(Range<usize>),
    /// `.export label`: no word; the label is offered to other modules.
    Export(Range<usize>),
}

/// What a line amounted to.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Nothing but labels, comments and spaces.
    Empty,
    Stmt(Stmt),
    /// The first error on the line; `takes_word` says whether a mnemonic was
    /// recognised, so that the line still occupies a word and later addresses
    /// (and so later branch-range checks) stay right.
    Error {
        diag: Diag,
        takes_word: bool,
    },
}

/// The operand shapes, with the constructor for the instruction.
#[derive(Clone, Copy)]
enum Form {
    /// `$d, $s, $t`
    Dst(fn(Reg, Reg, Reg) -> Instr),
    /// `$s, $t`
    St(fn(Reg, Reg) -> Instr),
    /// `$x`
    One(fn(Reg) -> Instr),
    /// `$t, i($s)`
    Mem(fn(Reg, i16, Reg) -> Instr),
    /// `$s, $t, target`
    Branch(BranchOp),
    /// `.word value`
    Word,
    /// `.import label`
    Import,
    /// `.export label`
    Export,
}

/// Every mnemonic with its usage line (shown when operands run out) and form.
const MNEMONICS: [(&str, &str, Form); 20] = [
    (
        "add",
        "add $d, $s, $t",
        Form::Dst(|d, s, t| Instr::Add { d, s, t }),
    ),
    (
        "sub",
        "sub $d, $s, $t",
        Form::Dst(|d, s, t| Instr::Sub { d, s, t }),
    ),
    ("mult", "mult $s, $t", Form::St(|s, t| Instr::Mult { s, t })),
    (
        "multu",
        "multu $s, $t",
        Form::St(|s, t| Instr::Multu { s, t }),
    ),
    ("div", "div $s, $t", Form::St(|s, t| Instr::Div { s, t })),
    ("divu", "divu $s, $t", Form::St(|s, t| Instr::Divu { s, t })),
    ("mfhi", "mfhi $d", Form::One(|d| Instr::Mfhi { d })),
    ("mflo", "mflo $d", Form::One(|d| Instr::Mflo { d })),
    ("lis", "lis $d", Form::One(|d| Instr::Lis { d })),
    (
        "lw",
        "lw $t, offset($s)",
        Form::Mem(|t, i, s| Instr::Lw { t, i, s }),
    ),
    (
        "sw",
        "sw $t, offset($s)",
        Form::Mem(|t, i, s| Instr::Sw { t, i, s }),
    ),
    (
        "slt",
        "slt $d, $s, $t",
        Form::Dst(|d, s, t| Instr::Slt { d, s, t }),
    ),
    (
        "sltu",
        "sltu $d, $s, $t",
        Form::Dst(|d, s, t| Instr::Sltu { d, s, t }),
    ),
    (
        "beq",
        "beq $s, $t, label-or-offset",
        Form::Branch(BranchOp::Beq),
    ),
    (
        "bne",
        "bne $s, $t, label-or-offset",
        Form::Branch(BranchOp::Bne),
    ),
    ("jr", "jr $s", Form::One(|s| Instr::Jr { s })),
    ("jalr", "jalr $s", Form::One(|s| Instr::Jalr { s })),
    (".word", ".word number-or-label", Form::Word),
    (".import", ".import label", Form::Import),
    (".export", ".export label", Form::Export),
];

const ORDINALS: [&str; 3] = ["first", "second", "third"];

/// Parses one line. Label definitions found before the statement (or before the
/// first error) are appended to `labels`, so that an error later on the line does
/// not also cause "undefined label" errors elsewhere.
pub(crate) fn parse_line(src: &str, toks: &[Token], labels: &mut Vec<Range<usize>>) -> Outcome {
    let mut i = 0;
    loop {
        match (toks.get(i), toks.get(i + 1)) {
            (Some(t), _) if t.kind == Kind::Colon => {
                let diag = Diag::new(t.span(), "expected a label name before `:`".to_string())
                    .expecting("a label name");
                return Outcome::Error {
                    diag,
                    takes_word: false,
                };
            }
            (Some(t), Some(colon)) if colon.kind == Kind::Colon => {
                let text = t.text(src);
                if t.kind != Kind::Word || !is_label_name(text) {
                    let what = "a label name like `loop` before `:` (letters, digits and `_`, not starting with a digit)";
                    let diag =
                        Diag::new(t.span(), format!("expected {what}, found {}", quote(text)))
                            .expecting("a label name");
                    return Outcome::Error {
                        diag,
                        takes_word: false,
                    };
                }
                labels.push(t.span());
                i += 2;
            }
            _ => break,
        }
    }
    let Some(&first) = toks.get(i) else {
        return Outcome::Empty;
    };
    let text = first.text(src);
    let entry = match first.kind {
        Kind::Word => MNEMONICS
            .iter()
            .find(|(name, _, _)| name.eq_ignore_ascii_case(text)),
        _ => None,
    };
    let Some(&(_, usage, form)) = entry else {
        let message = if first.kind != Kind::Word {
            format!(
                "expected an instruction, `.word` or a label followed by `:`, found {}",
                quote(text)
            )
        } else if text.starts_with('.') {
            format!(
                "unknown directive {}: the directives are `.word`, `.import` and `.export`",
                quote(text)
            )
        } else {
            format!(
                "unknown mnemonic {}: expected an instruction (add, sub, mult, multu, div, divu, \
                 mfhi, mflo, lis, lw, sw, slt, sltu, beq, bne, jr, jalr), `.word`, \
                 or a label followed by `:`",
                quote(text)
            )
        };
        let diag = Diag::new(first.span(), message).expecting("an instruction");
        return Outcome::Error {
            diag,
            takes_word: false,
        };
    };
    let mut c = Cursor {
        src,
        toks,
        pos: i + 1,
        usage,
    };
    match c.operands(form).and_then(|stmt| c.end().map(|()| stmt)) {
        Ok(stmt) => Outcome::Stmt(stmt),
        Err(diag) => Outcome::Error {
            diag,
            takes_word: !matches!(form, Form::Import | Form::Export),
        },
    }
}

/// Walks the operand tokens of one statement.
struct Cursor<'a> {
    src: &'a str,
    toks: &'a [Token],
    pos: usize,
    usage: &'static str,
}

/// The ranges an immediate may take, for messages and checks.
#[derive(Clone, Copy)]
enum Imm {
    /// A `lw`/`sw` offset.
    Offset,
    /// A raw branch offset in words.
    Branch,
}

impl Cursor<'_> {
    fn next(&mut self) -> Option<Token> {
        let t = self.toks.get(self.pos).copied();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    /// "expected `what`, found …", pointing at `found` or at the end of the line.
    fn expected(&self, found: Option<Token>, what: &str) -> Diag {
        match found {
            Some(t) => Diag::new(
                t.span(),
                format!("expected {what}, found {}", quote(t.text(self.src))),
            ),
            None => {
                let end = self.toks.last().map_or(0, |t| t.end);
                Diag::new(
                    end..end,
                    format!("expected {what}, found end of line (usage: {})", self.usage),
                )
            }
        }
        .expecting(what)
    }

    fn operands(&mut self, form: Form) -> Result<Stmt, Diag> {
        Ok(match form {
            Form::Dst(make) => {
                let d = self.reg()?;
                self.comma(0)?;
                let s = self.reg()?;
                self.comma(1)?;
                Stmt::Instr(make(d, s, self.reg()?))
            }
            Form::St(make) => {
                let s = self.reg()?;
                self.comma(0)?;
                Stmt::Instr(make(s, self.reg()?))
            }
            Form::One(make) => Stmt::Instr(make(self.reg()?)),
            Form::Mem(make) => {
                let t = self.reg()?;
                self.comma(0)?;
                let i = self.imm16(Imm::Offset)?;
                self.punct(
                    Kind::LParen,
                    "`(` and a base register after the offset, as in `4($5)`",
                )?;
                let s = self.reg()?;
                self.punct(Kind::RParen, "`)` after the base register")?;
                Stmt::Instr(make(t, i, s))
            }
            Form::Branch(op) => {
                let s = self.reg()?;
                self.comma(0)?;
                let t = self.reg()?;
                self.comma(1)?;
                let target = match self.label_operand()? {
                    Some(label) => Operand::Label(label),
                    None => Operand::Value(self.imm16(Imm::Branch)?),
                };
                Stmt::Branch { op, s, t, target }
            }
            Form::Import | Form::Export => {
                let what = "a label name like `print`";
                let t = self.next();
                match t {
                    Some(tok) if tok.kind == Kind::Word && is_label_name(tok.text(self.src)) => {
                        if matches!(form, Form::Import) {
                            Stmt::Import(tok.span())
                        } else {
                            Stmt::Export(tok.span())
                        }
                    }
                    _ => return Err(self.expected(t, what)),
                }
            }
            Form::Word => match self.label_operand()? {
                Some(label) => Stmt::Word(Operand::Label(label)),
                None => Stmt::Word(Operand::Value(self.word_value()?)),
            },
        })
    }

    fn reg(&mut self) -> Result<Reg, Diag> {
        const WHAT: &str = "a register like $3";
        let t = self.next();
        match t {
            Some(tok) if tok.kind == Kind::Reg => {
                parse_register(tok.text(self.src)).ok_or_else(|| {
                    let mut d = self.expected(t, WHAT);
                    d.message.push_str(" (registers are $0 to $31)");
                    d
                })
            }
            _ => Err(self.expected(t, WHAT)),
        }
    }

    fn comma(&mut self, after: usize) -> Result<(), Diag> {
        let ordinal = ORDINALS.get(after).copied().unwrap_or("previous");
        self.punct(Kind::Comma, &format!("`,` after the {ordinal} operand"))
    }

    fn punct(&mut self, kind: Kind, what: &str) -> Result<(), Diag> {
        match self.next() {
            Some(t) if t.kind == kind => Ok(()),
            t => Err(self.expected(t, what)),
        }
    }

    fn end(&mut self) -> Result<(), Diag> {
        match self.next() {
            None => Ok(()),
            t => {
                let mut d = self.expected(t, "end of line after the operands");
                d.message.push_str(&format!(" (usage: {})", self.usage));
                Err(d)
            }
        }
    }

    /// Consumes a label name if the next token is one; otherwise leaves it for a
    /// number parser, which reports what is wrong with it.
    fn label_operand(&mut self) -> Result<Option<Range<usize>>, Diag> {
        match self.toks.get(self.pos) {
            Some(t) if t.kind == Kind::Word && !looks_numeric(t.text(self.src)) => {
                let t = *t;
                self.pos += 1;
                if is_label_name(t.text(self.src)) {
                    Ok(Some(t.span()))
                } else {
                    Err(self.expected(Some(t), "a label name or a number"))
                }
            }
            _ => Ok(None),
        }
    }

    /// A number token; `Ok(None)` when it is well formed but too large for anything.
    fn number(&mut self, what: &str) -> Result<(Token, Option<super::number::Number>), Diag> {
        let t = self.next();
        let tok = match t {
            Some(tok) if tok.kind == Kind::Word => tok,
            _ => return Err(self.expected(t, what)),
        };
        match parse_number(tok.text(self.src)) {
            Ok(n) => Ok((tok, Some(n))),
            Err(NumError::TooLarge) => Ok((tok, None)),
            Err(NumError::Malformed) => Err(self.expected(
                t,
                "a number (decimal like 42 or -7, or hexadecimal like 0x2a)",
            )),
            Err(NumError::NegativeHex) => {
                let mut d = self.expected(
                    t,
                    "a number (decimal like 42 or -7, or hexadecimal like 0x2a)",
                );
                d.message
                    .push_str(": hexadecimal numbers cannot be negative");
                Err(d)
            }
        }
    }

    /// A 16-bit immediate: decimal -32768..=32767, or hexadecimal 0x0..=0xffff read
    /// as the raw bit pattern (as CS241's own assembler does).
    fn imm16(&mut self, kind: Imm) -> Result<i16, Diag> {
        let what = match kind {
            Imm::Offset => "an offset (a number like 4 or -8)",
            Imm::Branch => "a label or an offset in words (a number like 2 or -3)",
        };
        let (tok, n) = self.number(what)?;
        let fits = n.and_then(|n| {
            if n.hex {
                u16::try_from(n.value).ok().map(|v| v as i16)
            } else {
                i16::try_from(n.value).ok()
            }
        });
        fits.ok_or_else(|| {
            let name = match kind {
                Imm::Offset => "offset",
                Imm::Branch => "branch offset",
            };
            Diag::new(
                tok.span(),
                format!(
                    "{name} out of range: expected a 16-bit signed number \
                     (-32768 to 32767, or 0x0 to 0xffff), found {}",
                    quote(tok.text(self.src))
                ),
            )
            .expecting("a 16-bit signed number")
        })
    }

    /// A `.word` value: -2^31 ..= 2^32-1, stored as its 32-bit pattern.
    fn word_value(&mut self) -> Result<u32, Diag> {
        let (tok, n) = self.number("a number or a label")?;
        let fits = n.and_then(|n| {
            if (-(1i64 << 31)..(1i64 << 32)).contains(&n.value) {
                Some(n.value as u32)
            } else {
                None
            }
        });
        fits.ok_or_else(|| {
            Diag::new(
                tok.span(),
                format!(
                    "number out of range: `.word` takes -2147483648 to 4294967295 \
                     (0xffffffff), found {}",
                    quote(tok.text(self.src))
                ),
            )
            .expecting("a 32-bit number")
        })
    }
}
