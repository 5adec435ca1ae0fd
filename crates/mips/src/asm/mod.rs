//! The assembler for the CS241 dialect.

use std::fmt;

use crate::program::Program;

/// One assembler error, located in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub column: u32,
    /// Byte range of the offending text within the whole source.
    pub span: std::ops::Range<usize>,
    /// What was wrong, including what was expected.
    pub message: String,
}

/// All errors found in one file (up to a limit), with the file's name and text so
/// that they can be rendered with context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors {
    pub path: String,
    pub source: String,
    pub errors: Vec<AsmError>,
    /// Errors found beyond the limit and not kept.
    pub more: usize,
}

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!()
    }
}

impl std::error::Error for AsmErrors {}

/// Assembles `source` (named `path` in messages).
pub fn assemble(path: &str, source: &str) -> Result<Program, AsmErrors> {
    todo!()
}
