//! The subcommands, one module each, and what they share: loading program files,
//! reading data files and writing to standard output.
//!
//! Each module has an `Args` struct (clap derive) and
//! `pub fn execute(args: Args) -> Result<ExitCode, CliError>`; `main.rs` adds one enum
//! variant and one match arm per module.

pub mod asm;
pub mod compare;
pub mod disasm;
pub mod run;

use std::io::{self, BufWriter, Read, StdoutLock, Write};
use std::path::Path;

use tamarin_mips::loader::{self, InputFormat};
use tamarin_mips::{LoadError, Program};

use crate::diag::CliError;

/// Reads and loads a program file. `format` overrides the file's extension.
///
/// Unlike [`loader::load_file`], a directory or a missing file is reported as such even
/// when its name has no known extension.
pub fn load_program(path: &Path, format: Option<InputFormat>) -> Result<Program, CliError> {
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(LoadError::IsDirectory { path: name }.into());
    }
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: name.clone(),
        source,
    })?;
    let format = format
        .or_else(|| InputFormat::from_path(path))
        .ok_or_else(|| LoadError::UnknownFormat { path: name.clone() })?;
    Ok(loader::parse_program(&name, &bytes, format)?)
}

/// Reads a whole data file; `-` is the tool's own standard input.
pub fn read_data(what: &'static str, path: &Path) -> Result<Vec<u8>, CliError> {
    let name = path.display().to_string();
    let err = |source| CliError::Read {
        what,
        path: name.clone(),
        source,
    };
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes).map_err(err)?;
        return Ok(bytes);
    }
    if path.is_dir() {
        return Err(err(io::Error::other("it is a directory")));
    }
    std::fs::read(path).map_err(err)
}

/// A buffered handle on standard output. Write to it with `write!`/`writeln!`, map
/// errors with [`CliError::stdout`] (a closed pipe then ends the command quietly with
/// success), and finish with [`finish`].
pub fn stdout() -> BufWriter<StdoutLock<'static>> {
    BufWriter::new(io::stdout().lock())
}

/// Flushes standard output.
pub fn finish(mut out: impl Write) -> Result<(), CliError> {
    out.flush().map_err(CliError::stdout)
}
