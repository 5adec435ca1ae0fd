//! Collecting errors (up to the limit) and showing them as plain text.

use std::fmt;
use std::ops::Range;

use super::{AsmError, MAX_ERRORS};

/// An error before its line and column are known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Diag {
    pub span: Range<usize>,
    pub message: String,
    pub expected: Option<String>,
    pub related: Option<(Range<usize>, String)>,
}

impl Diag {
    pub fn new(span: Range<usize>, message: String) -> Diag {
        Diag {
            span,
            message,
            expected: None,
            related: None,
        }
    }

    pub fn expecting(mut self, what: &str) -> Diag {
        self.expected = Some(what.to_string());
        self
    }
}

/// A [`Diag`] with the line it is on.
#[derive(Clone, Debug)]
pub(crate) struct Located {
    pub diag: Diag,
    pub line: u32,
    /// Byte offset where the line starts, so that the column can be counted
    /// without searching back for the line start.
    pub line_start: usize,
}

/// The first [`MAX_ERRORS`] errors pushed, in order, and a count of the rest.
#[derive(Default)]
pub(crate) struct Sink {
    pub kept: Vec<Located>,
    pub more: usize,
}

impl Sink {
    pub fn push(&mut self, e: Located) {
        if self.is_full() {
            self.more += 1;
        } else {
            self.kept.push(e);
        }
    }

    /// True when further errors would only be counted, so callers can skip
    /// formatting messages nobody will see.
    pub fn is_full(&self) -> bool {
        self.kept.len() >= MAX_ERRORS
    }
}

/// Merges two sinks whose errors are each in source order into the first
/// [`MAX_ERRORS`] errors of the file (plus a count of the rest), with columns.
pub(crate) fn finish(source: &str, a: Sink, b: Sink) -> (Vec<AsmError>, usize) {
    let total = a.kept.len() + a.more + b.kept.len() + b.more;
    let mut all: Vec<Located> = a.kept.into_iter().chain(b.kept).collect();
    // Stable, so errors at the same place keep the order they were found in.
    all.sort_by_key(|e| e.diag.span.start);
    all.truncate(MAX_ERRORS);
    let more = total - all.len();
    // Columns are counted incrementally along each line, so that many errors on one
    // huge line cost one pass over it, not one pass each.
    let mut last: Option<(usize, usize, u32)> = None; // (line_start, offset, column)
    let errors = all
        .into_iter()
        .map(|e| {
            let start = e.diag.span.start;
            let (from, col0) = match last {
                Some((ls, off, col)) if ls == e.line_start && off <= start => (off, col),
                _ => (e.line_start, 1),
            };
            let counted = source.get(from..start).map_or(0, |s| s.chars().count());
            let column = col0.saturating_add(u32::try_from(counted).unwrap_or(u32::MAX));
            last = Some((e.line_start, start, column));
            AsmError {
                line: e.line,
                column,
                span: e.diag.span,
                message: e.diag.message,
                expected: e.diag.expected,
                related: e.diag.related,
            }
        })
        .collect();
    (errors, more)
}

/// How a token is shown inside a message: back-quoted, control characters escaped,
/// and cut short if long (a token can be a whole 10 MB line).
pub(crate) fn quote(text: &str) -> String {
    const MAX: usize = 40;
    let mut out = String::from("`");
    for (n, c) in text.chars().enumerate() {
        if n == MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.push('`');
    out
}

/// Characters of context shown on each side of an error in plain-text output.
const CONTEXT: usize = 60;

/// Writes the source around `span` and a caret line under it. Only a window of the
/// line is shown, so a huge line costs little and prints little; nothing is written
/// if the span does not fit the source.
pub(crate) fn write_snippet(
    f: &mut fmt::Formatter<'_>,
    source: &str,
    span: &Range<usize>,
) -> fmt::Result {
    let start = span.start;
    let (Some(before), Some(after)) = (source.get(..start), source.get(start..)) else {
        return Ok(());
    };
    let mut left = start;
    let mut cut_left = false;
    for (n, (i, c)) in before.char_indices().rev().enumerate() {
        if c == '\n' {
            break;
        }
        if n == CONTEXT {
            cut_left = true;
            break;
        }
        left = i;
    }
    let mut right = start;
    let mut cut_right = false;
    for (n, (i, c)) in after.char_indices().enumerate() {
        if c == '\n' {
            break;
        }
        if n == CONTEXT {
            cut_right = true;
            break;
        }
        right = start + i + c.len_utf8();
    }
    let shown = source.get(left..right).unwrap_or("").trim_end_matches('\r');
    let mut line = String::new();
    let mut caret = String::new();
    if cut_left {
        line.push_str("...");
        caret.push_str("   ");
    }
    for c in shown.chars() {
        line.push(match c {
            '\t' => '\t',
            c if c.is_control() => '\u{fffd}',
            c => c,
        });
    }
    if cut_right {
        line.push_str("...");
    }
    for c in source.get(left..start).unwrap_or("").chars() {
        caret.push(if c == '\t' { '\t' } else { ' ' });
    }
    let end = span.end.clamp(start, start.max(left + shown.len()));
    let width = source
        .get(start..end)
        .map_or(0, |s| s.chars().count())
        .max(1);
    caret.push_str(&"^".repeat(width));
    write!(f, "{line}\n{caret}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_and_truncates() {
        assert_eq!(quote("$32"), "`$32`");
        assert_eq!(quote("\u{0}"), "`\\u{0}`");
        let long = "x".repeat(1000);
        assert_eq!(quote(&long).chars().count(), 40 + 3);
    }

    #[test]
    fn sink_keeps_the_first_errors_and_counts_the_rest() {
        let mut s = Sink::default();
        for i in 0..250 {
            s.push(Located {
                diag: Diag::new(i..i, String::new()),
                line: 1,
                line_start: 0,
            });
        }
        assert_eq!((s.kept.len(), s.more), (100, 150));
    }
}
