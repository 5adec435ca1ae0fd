//! Errors the tool reports, and how they are shown on standard error.
//!
//! Every failure a user can cause ends here as one [`CliError`]: a short paragraph on
//! stderr that names the file involved, and exit status 2. Assembler errors are drawn
//! with ariadne, each with its file name, line and column, the source line and the
//! message.

use std::io::{self, IsTerminal, Write};
use std::ops::Range;
use std::path::Path;
use std::process::ExitCode;

use ariadne::{CharSet, Color, Config, IndexType, Label, Report, ReportKind, Source};
use tamarin_mips::asm::{AsmError, AsmErrors};
use tamarin_mips::cpu::SetupError;
use tamarin_mips::LoadError;

use tamarin_grade::json::{AsmErrorJson, ErrorJson, ErrorReport};
use tamarin_grade::text::shell_word;

// Exit statuses, as diff(1) has them plus one, the same in every command.
/// Equivalent, no failure found, a run or translation done.
pub const EXIT_OK: u8 = 0;
/// Different (`compare`), a failure found (`check`).
pub const EXIT_FOUND: u8 = 1;
/// Trouble: bad usage or input, a solver that is not one, an I/O error such as a full
/// disk (clap's usage errors use it too).
pub const EXIT_TROUBLE: u8 = 2;
/// Incomplete: `possibly-equivalent`, or a `check` or `paths` that did not cover every
/// path.
pub const EXIT_INCOMPLETE: u8 = 3;
/// Stopped by Ctrl-C (after printing what it had).
pub const EXIT_INTERRUPTED: u8 = 130;

pub use tamarin_grade::SCHEMA_VERSION;

/// The name that standard input goes by in messages, where a file would be named.
pub const STDIN_NAME: &str = "<stdin>";

/// The help text's account of the exit statuses.
pub const EXIT_HELP: &str = "Exit status: 0 equivalent / nothing found / done; 1 different / a \
failure found; 2 trouble (bad usage or input, solver failure, I/O error such as a full disk); \
3 incomplete (possibly-equivalent, or a check or paths that did not cover every path); 130 \
stopped by Ctrl-C.";

/// Why a command could not do its job.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A program file could not be read or parsed.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A program file is larger than any program of its format (or an endless
    /// device or pipe).
    #[error(
        "cannot read `{path}`: {}",
        match size {
            Some(n) => format!("it is {n} bytes long, more than {limit}"),
            None => format!("it is longer than {limit}"),
        }
    )]
    TooLarge {
        path: String,
        size: Option<u64>,
        limit: &'static str,
    },
    /// An assembly file is not text.
    #[error(
        "{path}:{line}:{column}: not a text file: {problem}; assembly must be UTF-8 text \
         without NUL bytes, comments included. Is it a binary? Then use --input-format bin"
    )]
    NotText {
        path: String,
        line: usize,
        column: usize,
        problem: String,
    },
    /// An output directory (`--dump-smt`, `--emit-tests`) cannot be used.
    #[error("cannot use `{path}` as the {flag} directory: {source}")]
    OutputDir {
        flag: &'static str,
        path: String,
        #[source]
        source: io::Error,
    },
    /// A data file (such as `--stdin FILE`) could not be read.
    #[error("cannot read {what} `{path}`: {source}")]
    Read {
        what: &'static str,
        path: String,
        #[source]
        source: io::Error,
    },
    /// An output file could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
    /// The run could not be set up (the array does not fit, …).
    #[error("cannot set up the run: {0}")]
    Setup(#[from] SetupError),
    /// Options that do not fit together or are out of range.
    #[error("{0}")]
    Usage(String),
    /// The inputs of a run, read from standard input (`run --twoints`), are not
    /// numbers, or too few or too many.
    #[error("cannot read the inputs from standard input: {0}")]
    Inputs(String),
    /// The solver command stopped answering like a solver during the search.
    #[error("the solver failed: {0}")]
    Solver(String),
    /// A precondition (`--assume`) that is not in the language or does not fit the
    /// inputs; `span` is the byte range of `text` at fault.
    #[error("--assume `{text}`: {message}")]
    Precondition {
        text: String,
        span: std::ops::Range<usize>,
        message: String,
    },
    /// The results store (`grade --store`) cannot be opened, read or written.
    #[error("cannot use the store `{path}`: {message}")]
    Store { path: String, message: String },
    /// A task file (`grade --task`) is not valid: its place and what is wrong there.
    #[error("{path}:{line}:{column}: {message}")]
    Task {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// Writing the report to standard output failed (a closed pipe is not an error).
    #[error("cannot write to standard output: {0}")]
    Stdout(#[source] io::Error),
}

impl From<tamarin_grade::Error> for CliError {
    fn from(e: tamarin_grade::Error) -> CliError {
        use tamarin_grade::Error as E;
        match e {
            E::Read { what, path, source } => CliError::Read { what, path, source },
            E::Write { path, source } => CliError::Write { path, source },
            E::OutputDir { flag, path, source } => CliError::OutputDir { flag, path, source },
            E::Usage(message) => CliError::Usage(message),
            E::Store { path, message } => CliError::Store { path, message },
            E::Task {
                path,
                line,
                column,
                message,
            } => CliError::Task {
                path,
                line,
                column,
                message,
            },
            E::Precondition {
                text,
                span,
                message,
            } => CliError::Precondition {
                text,
                span,
                message,
            },
            E::Output(e) => CliError::Stdout(e),
            E::Engine { error, program } => CliError::engine(error, &program),
        }
    }
}

impl CliError {
    /// Wraps an error from writing to standard output.
    pub fn stdout(e: io::Error) -> CliError {
        CliError::Stdout(e)
    }

    /// The engine's refusal of a task, as the tool reports it: bad options are usage
    /// errors that name the option, and a solver that stops answering like one during
    /// the search is the solver's failure. `program` is the (first) program's file, for
    /// an array that cannot be placed.
    pub fn engine(error: tamarin::Error, program: &Path) -> CliError {
        match error {
            tamarin::Error::Setup(e) => {
                CliError::Usage(format!("--array-base: {e} (for {})", program.display()))
            }
            tamarin::Error::Observable { .. } => CliError::Usage(format!("--observe: {error}")),
            tamarin::Error::Solver { command, message } => CliError::Usage(format!(
                "--solver {}: {message}",
                shell_word(command.trim())
            )),
            tamarin::Error::SolverFailed { message, .. } => CliError::Solver(message),
            tamarin::Error::Precondition {
                text,
                span,
                message,
            } => CliError::Precondition {
                text,
                span,
                message,
            },
            other => CliError::Usage(other.to_string()),
        }
    }

    /// The exit status this error gives.
    pub fn exit_status(&self) -> u8 {
        match self {
            CliError::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
            _ => EXIT_TROUBLE,
        }
    }

    /// The error as one JSON object, for `--format json`: `{"error": {"kind",
    /// "message", "file", "line", "column"}}` (the last three where they are known; an
    /// assembly error gives its first error's place and every error under "errors").
    pub fn to_json(&self) -> ErrorReport {
        let (kind, file, place) = match self {
            CliError::Load(LoadError::Asm { errors }) => {
                let first = errors.errors.first().map(|e| (e.line, e.column));
                ("syntax", Some(errors.path.clone()), first)
            }
            CliError::Load(LoadError::Io { path, .. })
            | CliError::Read { path, .. }
            | CliError::TooLarge { path, .. } => ("read", Some(path.clone()), None),
            // Unresolved imports and duplicate exports: the command line links too
            // little or too much.
            CliError::Load(LoadError::Link(_)) => ("usage", None, None),
            CliError::Load(e) => ("input", load_path(e), None),
            CliError::NotText {
                path, line, column, ..
            } => (
                "input",
                Some(path.clone()),
                Some((*line as u32, *column as u32)),
            ),
            CliError::OutputDir { path, .. } | CliError::Write { path, .. } => {
                ("write", Some(path.clone()), None)
            }
            CliError::Store { path, .. } => ("write", Some(path.clone()), None),
            CliError::Task {
                path, line, column, ..
            } => (
                "input",
                Some(path.clone()),
                Some((*line as u32, *column as u32)),
            ),
            CliError::Setup(_) => ("setup", None, None),
            CliError::Inputs(_) => ("input", Some(STDIN_NAME.to_string()), None),
            CliError::Precondition { text, span, .. } => (
                "usage",
                None,
                Some((
                    1,
                    text[..span.start.min(text.len())].chars().count() as u32 + 1,
                )),
            ),
            CliError::Usage(_) => ("usage", None, None),
            CliError::Solver(_) => ("solver", None, None),
            CliError::Stdout(_) => ("write", None, None),
        };
        let message = match self {
            // One line: the first error (all of them are under "errors").
            CliError::Load(LoadError::Asm { errors }) => match errors.errors.first() {
                Some(e) if errors.errors.len() + errors.more > 1 => format!(
                    "{}: {} (and {} more)",
                    errors.path,
                    e.message,
                    errors.errors.len() + errors.more - 1
                ),
                Some(e) => format!("{}: {}", errors.path, e.message),
                None => self.to_string(),
            },
            _ => self.to_string(),
        };
        let errors = match self {
            CliError::Load(LoadError::Asm { errors }) => Some(
                errors
                    .errors
                    .iter()
                    .map(|e| AsmErrorJson {
                        line: e.line,
                        column: e.column,
                        message: e.message.clone(),
                    })
                    .collect(),
            ),
            _ => None,
        };
        ErrorReport::new(ErrorJson {
            kind,
            message,
            file,
            line: place.map(|(line, _)| line),
            column: place.map(|(_, column)| column),
            errors,
        })
    }

    /// Prints the error on stderr and gives the exit code to end with.
    pub fn report(&self) -> ExitCode {
        let mut err = io::stderr().lock();
        match self {
            // The reader went away: stop quietly, as `cat` does.
            CliError::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
            CliError::Load(LoadError::Asm { errors }) => {
                render_asm_errors(&mut err, errors, colour())
            }
            CliError::Load(LoadError::Io { path, source }) => {
                let _ = writeln!(err, "error: cannot read `{path}`: {source}");
            }
            CliError::Precondition {
                text,
                span,
                message,
            } => render_precondition_error(&mut err, text, span, message, colour()),
            other => {
                let _ = writeln!(err, "error: {other}");
            }
        }
        ExitCode::from(self.exit_status())
    }
}

/// The file a load error names.
fn load_path(e: &LoadError) -> Option<String> {
    match e {
        LoadError::Io { path, .. }
        | LoadError::IsDirectory { path }
        | LoadError::UnknownFormat { path }
        | LoadError::RaggedBinary { path, .. }
        | LoadError::TooLarge { path, .. }
        | LoadError::NotText { path, .. }
        | LoadError::NotLinkable { path } => Some(path.clone()),
        LoadError::Asm { errors } => Some(errors.path.clone()),
        LoadError::Merl(e) => Some(e.path.clone()),
        LoadError::Link(_) => None,
    }
}

/// Prints `error` as one JSON line on standard output (for `--format json`); a failure
/// to write it changes nothing, the message is on stderr anyway.
pub fn print_json_error(error: &ErrorReport) {
    let mut out = io::stdout().lock();
    if serde_json::to_writer(&mut out, error).is_ok() {
        let _ = writeln!(out);
    }
    let _ = out.flush();
}

/// Whether the command line asks for JSON output (`--format json` or
/// `--format=json`), read from the raw arguments so that it works for errors that
/// clap itself reports.
pub fn wants_json(args: &[std::ffi::OsString]) -> bool {
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json")
}

/// Whether stderr gets colours.
fn colour() -> bool {
    io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Writes every assembler error, then a one-line summary.
pub fn render_asm_errors(w: &mut dyn Write, errors: &AsmErrors, colour: bool) {
    for e in &errors.errors {
        render_asm_error(w, &errors.path, &errors.source, e, colour);
    }
    let shown = errors.errors.len();
    if errors.more > 0 {
        let _ = writeln!(
            w,
            "note: {} more error{} not shown",
            errors.more,
            plural(errors.more)
        );
    }
    let total = shown + errors.more;
    let _ = writeln!(
        w,
        "error: could not assemble `{}` ({total} error{})",
        errors.path,
        plural(total)
    );
}

use tamarin_grade::words::s as plural;

/// How ariadne draws every diagnostic: Unicode and colours on a terminal, ASCII
/// otherwise; spans in bytes.
fn drawing(colour: bool) -> Config {
    Config::default()
        .with_color(colour)
        .with_char_set(if colour {
            CharSet::Unicode
        } else {
            CharSet::Ascii
        })
        .with_index_type(IndexType::Byte)
}

/// Draws a precondition's error under its text, with the span underlined.
pub fn render_precondition_error(
    w: &mut dyn Write,
    text: &str,
    span: &std::ops::Range<usize>,
    message: &str,
    colour: bool,
) {
    // One line, as ariadne would split it: line breaks inside become spaces.
    let line: String = text
        .chars()
        .map(|c| if c == '\n' || breaks_lines(c) { ' ' } else { c })
        .collect();
    let start = span.start.min(line.len());
    let end = span.end.clamp(start, line.len());
    let id = "--assume".to_string();
    let config = drawing(colour);
    let report = Report::build(ReportKind::Error, (id.clone(), start..end))
        .with_config(config)
        .with_message(format!("bad precondition: {message}"))
        .with_label(
            Label::new((id.clone(), start..end))
                .with_message(message)
                .with_color(Color::Red),
        )
        .finish();
    if report
        .write((id, Source::from(line.as_str())), &mut *w)
        .is_err()
    {
        let _ = writeln!(w, "error: --assume `{text}`: {message}");
    }
}

/// Lines longer than this (in bytes) are shown as a window in plain text rather than
/// drawn whole.
const LONG_LINE: usize = 200;

/// Draws one error with ariadne: the message, `path:line:column`, the source line with
/// the span underlined and labelled (with what was expected, if known), and the related
/// place, if any.
///
/// Ariadne is handed a copy of the source in which only the lines shown are kept (the
/// others are blank, so numbering is unchanged) and in which characters ariadne would
/// take for line breaks (`\r`, form feeds, U+2028, …) are spaces: lines and columns then
/// agree with the assembler's, which splits lines at `\n` only.
fn render_asm_error(w: &mut dyn Write, path: &str, source: &str, e: &AsmError, colour: bool) {
    let main = line_at(source, e.span.start);
    let related = e
        .related
        .as_ref()
        .map(|(span, note)| (line_at(source, span.start), span, note));
    let too_long = main.text.len() > LONG_LINE
        || related
            .as_ref()
            .is_some_and(|(line, _, _)| line.text.len() > LONG_LINE);
    if too_long {
        return render_plain(w, path, &main, e);
    }

    let mut keep = vec![&main];
    if let Some((line, _, _)) = &related {
        keep.push(line);
    }
    let masked = Masked::new(&keep);
    let id = path.to_string();
    let span = masked.span(&main, &e.span);
    let label = match &e.expected {
        Some(what) => format!("expected {what}"),
        None => e.message.clone(),
    };
    let config = drawing(colour);
    let mut report = Report::build(ReportKind::Error, (id.clone(), span.clone()))
        .with_config(config)
        .with_message(&e.message)
        .with_label(
            Label::new((id.clone(), span))
                .with_message(label)
                .with_color(Color::Red)
                .with_order(0),
        );
    if let Some((line, span, note)) = &related {
        report = report.with_label(
            Label::new((id.clone(), masked.span(line, span)))
                .with_message(note)
                .with_color(Color::Blue)
                .with_order(1),
        );
    }
    let mut buf = Vec::new();
    match report
        .finish()
        .write((id, Source::from(masked.text)), &mut buf)
    {
        Ok(()) => {
            let _ = w.write_all(&buf);
        }
        // Never lose an error to a drawing problem.
        Err(_) => render_plain(w, path, &main, e),
    }
}

/// Plain text for an error on a long line: the library's own format
/// (`path:line:col: error: message`, a window of the line and a caret), given only a
/// window of the line so that a huge line costs little.
fn render_plain(w: &mut dyn Write, path: &str, line: &Line<'_>, e: &AsmError) {
    let rel = e.span.start.saturating_sub(line.start).min(line.text.len());
    let mut from = rel.saturating_sub(LONG_LINE);
    while !line.text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (rel + LONG_LINE).min(line.text.len());
    while !line.text.is_char_boundary(to) {
        to += 1;
    }
    let span_end = e.span.end.saturating_sub(line.start).clamp(rel, to);
    let one = AsmErrors {
        path: path.to_string(),
        source: line.text[from..to].to_string(),
        errors: vec![AsmError {
            span: rel - from..span_end - from,
            ..e.clone()
        }],
        more: 0,
    };
    let _ = writeln!(w, "{one}");
}

/// One line of the source, split at `\n` as the assembler splits.
struct Line<'a> {
    /// 0-based line index.
    index: usize,
    /// Byte offset of the line's first character in the source.
    start: usize,
    /// The line without its `\n`.
    text: &'a str,
}

/// The line holding byte `offset` (clamped to the source and to a character boundary).
fn line_at(source: &str, offset: usize) -> Line<'_> {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let end = source[offset..]
        .find('\n')
        .map_or(source.len(), |i| offset + i);
    Line {
        index: before.matches('\n').count(),
        start,
        text: &source[start..end],
    }
}

/// Characters that ariadne takes for line breaks.
fn breaks_lines(c: char) -> bool {
    matches!(
        c,
        '\r' | '\x0B' | '\x0C' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// A copy of the source holding only some lines, each at its own line number.
struct Masked {
    text: String,
    /// For each kept line (by index), its byte offset in `text`.
    starts: Vec<(usize, usize)>,
}

impl Masked {
    fn new(lines: &[&Line<'_>]) -> Masked {
        let last = lines.iter().map(|l| l.index).max().unwrap_or(0);
        let mut text = String::new();
        let mut starts = Vec::new();
        for index in 0..=last {
            if index > 0 {
                text.push('\n');
            }
            if let Some(line) = lines.iter().find(|l| l.index == index) {
                starts.push((index, text.len()));
                text.extend(
                    line.text
                        .chars()
                        .map(|c| if breaks_lines(c) { ' ' } else { c }),
                );
            }
        }
        Masked { text, starts }
    }

    /// `span` (source offsets, starting on `line`) in the copy: clamped to the line, at
    /// character boundaries, widened to one character when empty and a character is
    /// there to point at.
    fn span(&self, line: &Line<'_>, span: &Range<usize>) -> Range<usize> {
        let text = line.text;
        let floor = |i: usize| {
            let mut i = i.saturating_sub(line.start).min(text.len());
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let start = floor(span.start);
        let mut end = floor(span.end.max(span.start));
        if end <= start {
            end = text[start..]
                .chars()
                .next()
                .map_or(start, |c| start + c.len_utf8());
        }
        // Offsets in the copy: every replaced character became one byte.
        let shrink = |i: usize| {
            text[..i]
                .chars()
                .filter(|&c| breaks_lines(c))
                .map(|c| c.len_utf8() - 1)
                .sum::<usize>()
        };
        let base = self
            .starts
            .iter()
            .find(|(index, _)| *index == line.index)
            .map_or(0, |&(_, at)| at);
        base + start - shrink(start)..base + end - shrink(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked_span(source: &str, span: Range<usize>) -> (String, Range<usize>) {
        let line = line_at(source, span.start);
        let masked = Masked::new(&[&line]);
        let span = masked.span(&line, &span);
        (masked.text, span)
    }

    #[test]
    fn spans_are_clamped_to_their_line() {
        let src = "add $1, $2\nfoo bar\r\nlast";
        assert_eq!(masked_span(src, 11..14), ("\nfoo bar ".to_string(), 1..4));
        assert_eq!(masked_span(src, 15..100).1, 5..9);
        assert_eq!(masked_span(src, 11..11).1, 1..2);
        assert_eq!(masked_span(src, 100..100), ("\n\nlast".to_string(), 6..6));
        assert_eq!(masked_span("é", 1..1), ("é".to_string(), 0..2));
        assert_eq!(masked_span("", 0..0), (String::new(), 0..0));
        // A U+2028 (3 bytes) before the span becomes one space.
        assert_eq!(masked_span("a\u{2028}b", 4..5), ("a b".to_string(), 2..3));
    }

    #[test]
    fn asm_errors_show_file_line_column_and_message() {
        let errors = AsmErrors {
            path: "p.asm".into(),
            source: "add $3, $1, $2\nfoo $1\njr $31\n".into(),
            errors: vec![AsmError {
                line: 2,
                column: 1,
                span: 15..18,
                message: "unknown mnemonic `foo`".into(),
                expected: None,
                related: None,
            }],
            more: 2,
        };
        let mut out = Vec::new();
        render_asm_errors(&mut out, &errors, false);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("p.asm:2:1"), "{text}");
        assert!(text.contains("foo $1"), "{text}");
        assert!(text.contains("unknown mnemonic `foo`"), "{text}");
        assert!(text.contains("2 more errors"), "{text}");
        assert!(text.contains("(3 errors)"), "{text}");
    }

    fn render(source: &str, errors: Vec<AsmError>) -> String {
        let errors = AsmErrors {
            path: "p.asm".into(),
            source: source.into(),
            errors,
            more: 0,
        };
        let mut out = Vec::new();
        render_asm_errors(&mut out, &errors, false);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn expected_and_related_places_are_shown() {
        let src = "x: add $3, $1, $2\r\n\x0C; comment\nx: jr\n";
        let text = render(
            src,
            vec![
                AsmError {
                    line: 3,
                    column: 1,
                    span: 30..31,
                    message: "label `x` is already defined on line 1".into(),
                    expected: None,
                    related: Some((0..1, "first defined here".into())),
                },
                AsmError {
                    line: 3,
                    column: 6,
                    span: 35..35,
                    message: "`jr` needs a register".into(),
                    expected: Some("a register like $31".into()),
                    related: None,
                },
            ],
        );
        assert!(text.contains("p.asm:3:1"), "{text}");
        assert!(text.contains("first defined here"), "{text}");
        assert!(text.contains("x: add $3, $1, $2"), "{text}");
        assert!(text.contains("p.asm:3:6"), "{text}");
        assert!(text.contains("expected a register like $31"), "{text}");
        assert!(text.contains("(2 errors)"), "{text}");
    }

    #[test]
    fn long_lines_are_shown_as_a_window() {
        let line = format!("add $3, $1, $2 ; {}", "z".repeat(100_000));
        let src = format!("{line}\nfrob\n{line} bad\n");
        let at = src.len() - 4;
        let text = render(
            &src,
            vec![AsmError {
                line: 3,
                column: (line.len() + 2) as u32,
                span: at..at + 3,
                message: "bad thing".into(),
                expected: None,
                related: None,
            }],
        );
        assert!(
            text.contains(&format!("p.asm:3:{}", line.len() + 2)),
            "{text}"
        );
        assert!(text.contains("bad thing"), "{text}");
        assert!(text.len() < 2000, "{}", text.len());
    }
}
