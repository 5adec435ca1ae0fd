//! The precondition language's lexer and parser: text to an [`Expr`] tree whose every
//! node keeps its byte span, so that later errors point at the right characters.

use std::ops::Range;

use super::AssumeError;

/// A parsed expression and the bytes it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: Kind,
    pub span: Range<usize>,
}

/// The shapes of expressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Num(i64),
    Bool(bool),
    /// `$N` (signed) or `u$N` (unsigned).
    Reg {
        reg: u8,
        unsigned: bool,
    },
    /// The array's length.
    Len,
    /// `a[INDEX]`: an element of the input array.
    Elem(Box<Expr>),
    /// `in[INDEX]`: a byte of standard input.
    Stdin(Box<Expr>),
    /// A name bound by a quantifier.
    Name(String),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    Logic(LogicOp, Box<Expr>, Box<Expr>),
    /// `x0 op0 x1 op1 x2 …`: every adjacent pair compared (`1 <= x <= 26`).
    Compare(Vec<Expr>, Vec<CmpOp>),
    /// `all x: body` / `all x, i: body` (and `some`): `x` ranges over the array's
    /// elements, `i` over their indices.
    Quant {
        every: bool,
        elem: String,
        index: Option<String>,
        body: Box<Expr>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Num(i64),
    Reg { reg: u8, unsigned: bool },
    Ident(String),
    Sym(&'static str),
    End,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Num(n) => format!("the number {n}"),
            Tok::Reg { reg, unsigned } => format!("`{}${reg}`", if *unsigned { "u" } else { "" }),
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Sym(s) => format!("`{s}`"),
            Tok::End => "the end of the expression".into(),
        }
    }
}

const SYMBOLS: [&str; 20] = [
    "&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "+", "-", "*", "/", "%", "(", ")", "[", "]",
    ":", ",",
];

fn lex(text: &str) -> Result<Vec<(Tok, Range<usize>)>, AssumeError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Num(number(&text[start..i], start..i)?), start..i));
        } else if c == b'\'' {
            // A character literal: one printable ASCII character, or an escape.
            let end = text[i + 1..].find('\'').map(|k| i + 1 + k);
            let Some(end) = end else {
                return Err(AssumeError::new(
                    start..text.len(),
                    "unclosed character literal",
                ));
            };
            let inner = &text[i + 1..end];
            let value = match inner {
                "\\n" => b'\n',
                "\\t" => b'\t',
                "\\0" => 0,
                "\\\\" => b'\\',
                "\\'" => b'\'',
                s if s.len() == 1 && s.as_bytes()[0].is_ascii() => s.as_bytes()[0],
                _ => {
                    return Err(AssumeError::new(
                        start..end + 1,
                        "a character literal holds one ASCII character, such as 'a' or '\\n'",
                    ))
                }
            };
            i = end + 1;
            out.push((Tok::Num(value as i64), start..i));
        } else if c == b'$' || (c == b'u' && bytes.get(i + 1) == Some(&b'$')) {
            let unsigned = c == b'u';
            i += if unsigned { 2 } else { 1 };
            let digits = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let mut reg = text[digits..i]
                .parse::<u8>()
                .ok()
                .filter(|r| (1..32).contains(r));
            if i == digits && i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                // An o32 name ($a0, $v0), for MIPS32 functions.
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                reg = tamarin_mips::mips32::isa::reg_by_name(&text[digits..i])
                    .map(|r| r.index() as u8)
                    .filter(|r| (1..32).contains(r));
            }
            let Some(reg) = reg else {
                return Err(AssumeError::new(
                    start..i.max(start + 1),
                    "expected a register $1 … $31 (or an o32 name such as $a0) after `$`",
                ));
            };
            out.push((Tok::Reg { reg, unsigned }, start..i));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_string()), start..i));
        } else if let Some(s) = SYMBOLS.iter().find(|s| text[i..].starts_with(**s)) {
            i += s.len();
            out.push((Tok::Sym(s), start..i));
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            let end = i + ch.len_utf8();
            let hint = match ch {
                '=' => "; write `==` to compare",
                '&' => "; write `&&` for and",
                '|' => "; write `||` for or",
                _ => "",
            };
            return Err(AssumeError::new(
                start..end,
                format!("unexpected character `{ch}`{hint}"),
            ));
        }
    }
    out.push((Tok::End, text.len()..text.len()));
    Ok(out)
}

/// A decimal or `0x` hexadecimal literal (underscores allowed) that fits in 64 bits.
fn number(s: &str, span: Range<usize>) -> Result<i64, AssumeError> {
    let (radix, digits) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(d) => (16, d),
        None => (10, s),
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(AssumeError::new(
            span,
            format!("`{s}` is not a number; expected decimal (42) or hex (0x2a)"),
        ));
    }
    u64::from_str_radix(&digits, radix)
        .ok()
        .and_then(|v| i64::try_from(v).ok())
        .ok_or_else(|| AssumeError::new(span, format!("`{s}` is too large")))
}

/// Parses one precondition.
pub fn parse(text: &str) -> Result<Expr, AssumeError> {
    let toks = lex(text)?;
    let mut p = Parser { toks, at: 0 };
    let e = p.expr()?;
    if p.peek() != &Tok::End {
        return Err(p.unexpected("an operator or the end of the expression"));
    }
    Ok(e)
}

struct Parser {
    toks: Vec<(Tok, Range<usize>)>,
    at: usize,
}

const KEYWORDS: [&str; 7] = ["all", "some", "len", "in", "a", "true", "false"];

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::End, |t| &t.0)
    }

    fn span(&self) -> Range<usize> {
        self.toks
            .get(self.at)
            .or(self.toks.last())
            .map_or(0..0, |t| t.1.clone())
    }

    fn bump(&mut self) -> (Tok, Range<usize>) {
        let t = self
            .toks
            .get(self.at)
            .cloned()
            .unwrap_or((Tok::End, self.span()));
        if self.at < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn eat(&mut self, sym: &str) -> bool {
        if self.peek() == &Tok::Sym(leak(sym)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, sym: &str) -> Result<Range<usize>, AssumeError> {
        let span = self.span();
        if self.eat(sym) {
            Ok(span)
        } else {
            Err(self.unexpected(&format!("`{sym}`")))
        }
    }

    fn unexpected(&self, expected: &str) -> AssumeError {
        AssumeError::new(
            self.span(),
            format!("expected {expected}, found {}", self.peek().describe()),
        )
    }

    fn expr(&mut self) -> Result<Expr, AssumeError> {
        let mut left = self.and()?;
        while self.eat("||") {
            let right = self.and()?;
            left = join(
                Kind::Logic(LogicOp::Or, Box::new(left.clone()), Box::new(right.clone())),
                &left,
                &right,
            );
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, AssumeError> {
        let mut left = self.not()?;
        while self.eat("&&") {
            let right = self.not()?;
            left = join(
                Kind::Logic(
                    LogicOp::And,
                    Box::new(left.clone()),
                    Box::new(right.clone()),
                ),
                &left,
                &right,
            );
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, AssumeError> {
        let start = self.span().start;
        if self.eat("!") {
            let inner = self.not()?;
            let span = start..inner.span.end;
            return Ok(Expr {
                kind: Kind::Not(Box::new(inner)),
                span,
            });
        }
        if let Tok::Ident(w) = self.peek() {
            if w == "all" || w == "some" {
                return self.quant();
            }
        }
        self.compare()
    }

    fn quant(&mut self) -> Result<Expr, AssumeError> {
        let (word, span) = self.bump();
        let every = word == Tok::Ident("all".into());
        let elem = self.binder()?;
        let index = if self.eat(",") {
            Some(self.binder()?)
        } else {
            None
        };
        if index.as_ref() == Some(&elem) {
            return Err(AssumeError::new(
                span.start..self.span().start,
                "the element and the index need two different names",
            ));
        }
        self.expect(":")?;
        let body = self.expr()?;
        let span = span.start..body.span.end;
        Ok(Expr {
            kind: Kind::Quant {
                every,
                elem,
                index,
                body: Box::new(body),
            },
            span,
        })
    }

    fn binder(&mut self) -> Result<String, AssumeError> {
        match self.peek().clone() {
            Tok::Ident(name) if !KEYWORDS.contains(&name.as_str()) || name == "a" => {
                self.at += 1;
                Ok(name)
            }
            _ => Err(self.unexpected("a name for the array's elements (such as `x`)")),
        }
    }

    fn compare(&mut self) -> Result<Expr, AssumeError> {
        let first = self.sum()?;
        let mut operands = vec![first];
        let mut ops = Vec::new();
        loop {
            let op = match self.peek() {
                Tok::Sym("==") => CmpOp::Eq,
                Tok::Sym("!=") => CmpOp::Ne,
                Tok::Sym("<") => CmpOp::Lt,
                Tok::Sym("<=") => CmpOp::Le,
                Tok::Sym(">") => CmpOp::Gt,
                Tok::Sym(">=") => CmpOp::Ge,
                _ => break,
            };
            self.at += 1;
            ops.push(op);
            operands.push(self.sum()?);
        }
        if ops.is_empty() {
            return Ok(operands.remove(0));
        }
        let span = operands[0].span.start..operands[operands.len() - 1].span.end;
        Ok(Expr {
            kind: Kind::Compare(operands, ops),
            span,
        })
    }

    fn sum(&mut self) -> Result<Expr, AssumeError> {
        let mut left = self.product()?;
        loop {
            let op = match self.peek() {
                Tok::Sym("+") => ArithOp::Add,
                Tok::Sym("-") => ArithOp::Sub,
                _ => return Ok(left),
            };
            self.at += 1;
            let right = self.product()?;
            left = join(
                Kind::Arith(op, Box::new(left.clone()), Box::new(right.clone())),
                &left,
                &right,
            );
        }
    }

    fn product(&mut self) -> Result<Expr, AssumeError> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Sym("*") => ArithOp::Mul,
                Tok::Sym("/") => ArithOp::Div,
                Tok::Sym("%") => ArithOp::Rem,
                _ => return Ok(left),
            };
            self.at += 1;
            let right = self.unary()?;
            left = join(
                Kind::Arith(op, Box::new(left.clone()), Box::new(right.clone())),
                &left,
                &right,
            );
        }
    }

    fn unary(&mut self) -> Result<Expr, AssumeError> {
        let start = self.span().start;
        if self.eat("-") {
            let inner = self.unary()?;
            let span = start..inner.span.end;
            return Ok(Expr {
                kind: Kind::Neg(Box::new(inner)),
                span,
            });
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, AssumeError> {
        let (tok, span) = self.bump();
        let kind = match tok {
            Tok::Num(n) => Kind::Num(n),
            Tok::Reg { reg, unsigned } => Kind::Reg { reg, unsigned },
            Tok::Sym("(") => {
                let inner = self.expr()?;
                let close = self.expect(")")?;
                return Ok(Expr {
                    kind: inner.kind,
                    span: span.start..close.end,
                });
            }
            Tok::Ident(w) => match w.as_str() {
                "true" => Kind::Bool(true),
                "false" => Kind::Bool(false),
                "len" => Kind::Len,
                "a" | "in" if self.peek() == &Tok::Sym("[") => {
                    self.at += 1;
                    let index = self.expr()?;
                    let close = self.expect("]")?;
                    let kind = if w == "a" {
                        Kind::Elem(Box::new(index))
                    } else {
                        Kind::Stdin(Box::new(index))
                    };
                    return Ok(Expr {
                        kind,
                        span: span.start..close.end,
                    });
                }
                "in" => {
                    return Err(AssumeError::new(
                        span,
                        "`in` names standard input: write in[0] for its first byte",
                    ))
                }
                "all" | "some" => {
                    return Err(AssumeError::new(
                        span,
                        format!("parenthesize a quantifier inside a comparison: ({w} x: …)"),
                    ))
                }
                _ => Kind::Name(w),
            },
            other => {
                self.at -= 1;
                return Err(AssumeError::new(
                    span,
                    format!("expected a value, found {}", other.describe()),
                ));
            }
        };
        Ok(Expr { kind, span })
    }
}

/// The static symbol equal to `s` (tokens hold `&'static str`).
fn leak(s: &str) -> &'static str {
    SYMBOLS.iter().find(|k| **k == s).copied().unwrap_or("")
}

fn join(kind: Kind, left: &Expr, right: &Expr) -> Expr {
    Expr {
        kind,
        span: left.span.start..right.span.end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> AssumeError {
        parse(text).expect_err(text)
    }

    #[test]
    fn precedence_and_chains() {
        let e = parse("1 <= $1 + 2 * 3 <= 26 && !($2 == 0) || len > 0").unwrap();
        let Kind::Logic(LogicOp::Or, l, _) = e.kind else {
            panic!("{e:?}")
        };
        let Kind::Logic(LogicOp::And, cmp, _) = l.kind else {
            panic!()
        };
        let Kind::Compare(operands, ops) = cmp.kind else {
            panic!()
        };
        assert_eq!(ops, vec![CmpOp::Le, CmpOp::Le]);
        assert!(matches!(operands[1].kind, Kind::Arith(ArithOp::Add, _, _)));
    }

    #[test]
    fn registers_by_o32_name() {
        let e = parse("$a0 < u$a1").unwrap();
        let Kind::Compare(operands, _) = e.kind else {
            panic!("{e:?}")
        };
        assert!(matches!(
            operands[0].kind,
            Kind::Reg {
                reg: 4,
                unsigned: false
            }
        ));
        assert!(matches!(
            operands[1].kind,
            Kind::Reg {
                reg: 5,
                unsigned: true
            }
        ));
        // `$zero` is no input, and an unknown name is an error with its span.
        assert_eq!(err("$zero > 1").span, 0..5);
        assert_eq!(err("1 < $bogus").span, 4..10);
    }

    #[test]
    fn quantifiers_reach_to_the_right() {
        let e = parse("len > 0 && all x, i: i == 0 || a[i - 1] <= x").unwrap();
        let Kind::Logic(LogicOp::And, _, q) = e.kind else {
            panic!()
        };
        let Kind::Quant {
            every,
            elem,
            index,
            body,
        } = q.kind
        else {
            panic!()
        };
        assert!(every);
        assert_eq!((elem.as_str(), index.as_deref()), ("x", Some("i")));
        assert!(matches!(body.kind, Kind::Logic(LogicOp::Or, _, _)));
    }

    #[test]
    fn literals() {
        assert_eq!(parse("0x2a").unwrap().kind, Kind::Num(42));
        assert_eq!(parse("'a'").unwrap().kind, Kind::Num(97));
        assert_eq!(parse("'\\n'").unwrap().kind, Kind::Num(10));
        assert_eq!(
            parse("u$2").unwrap().kind,
            Kind::Reg {
                reg: 2,
                unsigned: true
            }
        );
    }

    #[test]
    fn errors_point_at_the_culprit() {
        let e = err("$1 = 3");
        assert_eq!(e.span, 3..4);
        assert!(e.message.contains("`==`"), "{}", e.message);
        let e = err("$1 < ");
        assert_eq!(e.span, 5..5);
        assert!(e.message.contains("expected a value"), "{}", e.message);
        let e = err("$40 > 0");
        assert_eq!(e.span, 0..3);
        let e = err("(1 < 2");
        assert!(e.message.contains("`)`"), "{}", e.message);
        let e = err("1 < 2 3");
        assert_eq!(e.span, 6..7);
        let e = err("99999999999999999999");
        assert!(e.message.contains("too large"));
        let e = err("all len: len > 0");
        assert!(e.message.contains("a name"), "{}", e.message);
        let e = err("'ab'");
        assert_eq!(e.span, 0..4);
    }
}
