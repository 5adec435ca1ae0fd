//! The library's one error type: what went wrong, with the file or the option
//! involved. The command-line tool turns each into its own error (and exit status 2).

use std::io;
use std::path::PathBuf;

/// Why a task could not be read, a store used or a report written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder could not be read.
    #[error("cannot read {what} `{path}`: {source}")]
    Read {
        what: &'static str,
        path: String,
        #[source]
        source: io::Error,
    },
    /// A file could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
    /// An output folder cannot be used.
    #[error("cannot use `{path}` as the {flag} directory: {source}")]
    OutputDir {
        flag: &'static str,
        path: String,
        #[source]
        source: io::Error,
    },
    /// Settings that do not fit together or are out of range.
    #[error("{0}")]
    Usage(String),
    /// The results store cannot be opened, read or written.
    #[error("cannot use the store `{path}`: {message}")]
    Store { path: String, message: String },
    /// A task file is not valid: its place and what is wrong there.
    #[error("{path}:{line}:{column}: {message}")]
    Task {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A precondition that is not in the language; `span` is the byte range of `text`
    /// at fault.
    #[error("--assume `{text}`: {message}")]
    Precondition {
        text: String,
        span: std::ops::Range<usize>,
        message: String,
    },
    /// Writing to standard output failed.
    #[error("cannot write to standard output: {0}")]
    Output(#[source] io::Error),
    /// The engine refused the task or failed, comparing `program`.
    #[error("{error}")]
    Engine {
        error: tamarin::Error,
        program: PathBuf,
    },
}
