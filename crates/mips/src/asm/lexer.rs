//! Splits one source line into tokens.
//!
//! The lexer never fails: anything it does not understand becomes an
//! [`Kind::Other`] token, so that the parser can say what it expected instead.

use std::ops::Range;

/// What a token is; numbers, labels and mnemonics are all [`Kind::Word`] and are
/// told apart by the parser, which knows what it is looking for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A run of letters, digits, `_`, `.`, `-` and non-ASCII characters.
    Word,
    /// `$` followed by a (possibly empty) run of word characters.
    Reg,
    Comma,
    Colon,
    LParen,
    RParen,
    /// One character that has no place in the syntax.
    Other,
}

/// A token, located by absolute byte offsets into the whole source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn span(&self) -> Range<usize> {
        self.start..self.end
    }

    /// The token's text (empty if the offsets do not belong to `src`, which
    /// cannot happen for tokens made by [`lex_line`] from the same source).
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start..self.end).unwrap_or("")
    }
}

/// Non-ASCII characters count as word characters so that a label like `café:`
/// is one (bad) token with a clear message rather than a stream of odd ones.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') || !c.is_ascii()
}

/// Appends the tokens of `line` (which starts at byte `line_start` of the source and
/// contains no `\n`) to `out`, stopping at a `;` or `#` comment.
pub(crate) fn lex_line(line: &str, line_start: usize, out: &mut Vec<Token>) {
    let mut it = line.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let kind = match c {
            ';' | '#' => break,
            ' ' | '\t' | '\r' | '\x0b' | '\x0c' => continue,
            ',' => Kind::Comma,
            ':' => Kind::Colon,
            '(' => Kind::LParen,
            ')' => Kind::RParen,
            '$' => {
                while it.next_if(|&(_, c)| is_word_char(c)).is_some() {}
                Kind::Reg
            }
            c if is_word_char(c) => {
                while it.next_if(|&(_, c)| is_word_char(c)).is_some() {}
                Kind::Word
            }
            _ => Kind::Other,
        };
        let end = it.peek().map_or(line.len(), |&(j, _)| j);
        out.push(Token {
            kind,
            start: line_start + i,
            end: line_start + end,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(s: &str) -> Vec<(Kind, &str)> {
        let mut out = Vec::new();
        lex_line(s, 0, &mut out);
        out.iter().map(|t| (t.kind, t.text(s))).collect()
    }

    #[test]
    fn splits_operands_and_punctuation() {
        use Kind::*;
        assert_eq!(
            lex("lw $3, -4($30) ; comment"),
            vec![
                (Word, "lw"),
                (Reg, "$3"),
                (Comma, ","),
                (Word, "-4"),
                (LParen, "("),
                (Reg, "$30"),
                (RParen, ")")
            ]
        );
    }

    #[test]
    fn no_space_needed_before_a_register() {
        assert_eq!(lex("lis$31"), vec![(Kind::Word, "lis"), (Kind::Reg, "$31")]);
    }

    #[test]
    fn hash_comments_and_odd_characters() {
        assert_eq!(lex("a: # b"), vec![(Kind::Word, "a"), (Kind::Colon, ":")]);
        assert_eq!(
            lex("\u{0}é+"),
            vec![
                (Kind::Other, "\u{0}"),
                (Kind::Word, "é"),
                (Kind::Other, "+")
            ]
        );
        assert_eq!(lex("$"), vec![(Kind::Reg, "$")]);
    }
}
