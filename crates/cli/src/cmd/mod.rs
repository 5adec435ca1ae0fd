//! The subcommands, one module each, and what they share: loading program files,
//! reading data files and writing to standard output.
//!
//! Each module has an `Args` struct (clap derive) and
//! `pub fn execute(args: Args) -> Result<ExitCode, CliError>`; `main.rs` adds one enum
//! variant and one match arm per module.

pub mod asm;
pub mod check;
pub mod compare;
pub mod disasm;
pub mod explain;
pub mod function;
pub mod function_explain;
pub mod grade;
pub mod link;
pub mod paths;
pub mod run;
pub mod search;

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use tamarin_mips::loader::{self, InputFormat};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::{LoadError, Program};

use crate::diag::CliError;

/// The largest binary image: the machine's whole memory.
pub const MAX_BINARY_BYTES: u64 = MEM_SIZE as u64;
/// The largest assembly file read: enough for `disasm` of the largest binary (4 Mi
/// words of about 41 bytes each, plus labels: some 220 MB) to assemble back.
pub const MAX_ASSEMBLY_BYTES: u64 = 256 << 20;
/// The most bytes of program input (`run --stdin`) read, whatever the fuel.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;
/// The largest MERL file read: a whole memory of code with a relocation per word.
pub const MAX_MERL_BYTES: u64 = 64 << 20;

pub use crate::diag::STDIN_NAME;

/// Whether a path argument is `-`: standard input (or output).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How messages name a program argument: its path, or `<stdin>` for `-`.
pub fn program_name(path: &Path) -> String {
    if is_stdin(path) {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

/// Refuses a command line on which more than one thing reads standard input: each
/// reader is named, with whether this command line makes it read. Called before
/// anything is read.
pub fn stdin_once(readers: &[(&str, bool)]) -> Result<(), CliError> {
    let named: Vec<&str> = readers.iter().filter(|r| r.1).map(|r| r.0).collect();
    match named.as_slice() {
        [] | [_] => Ok(()),
        [rest @ .., last] => Err(CliError::Usage(format!(
            "standard input can be read only once, but {} and {last} would both read it",
            rest.join(", ")
        ))),
    }
}

/// Whether this tool's standard input is a terminal.
pub fn stdin_is_terminal() -> bool {
    io::stdin().is_terminal()
}

/// Reads and loads a program file. `format` overrides the file's extension. `-` reads
/// the program from standard input, as assembly unless `format` says otherwise, and
/// names it `<stdin>`.
///
/// Unlike [`loader::load_file`], a directory or a missing file is reported as such even
/// when its name has no known extension; at most the largest program of its format is
/// read (so `/dev/zero` or a runaway pipe ends in an error, not in exhausting memory);
/// and an assembly file that is not text (invalid UTF-8 or a NUL byte, even in a
/// comment) is reported with the line and column of the first such byte.
pub fn load_program(path: &Path, format: Option<InputFormat>) -> Result<Program, CliError> {
    read_program(path, format).map(|(_, _, program)| program)
}

/// As [`load_program`], with the bytes read and the format they were read in (for
/// keys that name a program by its content).
pub fn read_program(
    path: &Path,
    format: Option<InputFormat>,
) -> Result<(Vec<u8>, InputFormat, Program), CliError> {
    let (bytes, format) = read_program_bytes(path, format)?;
    parse_read(program_name(path), bytes, format)
}

/// A program's bytes and the format they are in, read but not parsed (so that a
/// program that does not assemble still has its bytes).
pub fn read_program_bytes(
    path: &Path,
    format: Option<InputFormat>,
) -> Result<(Vec<u8>, InputFormat), CliError> {
    let name = program_name(path);
    let io_error = |source| {
        CliError::from(LoadError::Io {
            path: name.clone(),
            source,
        })
    };
    if is_stdin(path) {
        let format = format.unwrap_or(InputFormat::Asm);
        let stdin = io::stdin().lock();
        let bytes = read_limited(stdin, None, format, &name).map_err(|e| match e {
            Limited::Io(source) => io_error(source),
            Limited::Error(e) => e,
        })?;
        return Ok((bytes, format));
    }
    // A missing file is reported as missing, whatever its extension; the file is
    // opened only once its format is known (opening a FIFO waits for a writer).
    if std::fs::metadata(path).map_err(io_error)?.is_dir() {
        return Err(LoadError::IsDirectory { path: name }.into());
    }
    if function::is_elf_file(path) {
        return Err(CliError::Usage(format!(
            "{name} is a MIPS32 ELF file: this command reads CS241 programs; `tamarin run \
             --function NAME`, `disasm`, `compare --function NAME` and `explain --function \
             NAME` read ELF functions"
        )));
    }
    let forced = format.is_some();
    let format = format
        .or_else(|| InputFormat::from_path(path))
        .ok_or_else(|| LoadError::UnknownFormat { path: name.clone() })?;
    let file = File::open(path).map_err(io_error)?;
    let meta = file.metadata().map_err(io_error)?;
    let size = meta.is_file().then_some(meta.len());
    let bytes = read_limited(file, size, format, &name).map_err(|e| match e {
        Limited::Io(source) => io_error(source),
        Limited::Error(e) => e,
    })?;
    // A binary named by its extension is MERL when it starts like one and reads as one.
    let format = if forced { format } else { format.sniff(&bytes) };
    Ok((bytes, format))
}

/// Why [`read_limited`] failed.
enum Limited {
    Io(io::Error),
    Error(CliError),
}

/// Reads a program's bytes (`size`: its length when it is a plain file) up to the
/// largest program of `format`.
fn read_limited(
    reader: impl Read,
    size: Option<u64>,
    format: InputFormat,
    name: &str,
) -> Result<Vec<u8>, Limited> {
    let (limit, what) = match format {
        InputFormat::Bin => (
            MAX_BINARY_BYTES,
            "16 MiB, the machine's whole memory (4194304 words)",
        ),
        InputFormat::Merl => (MAX_MERL_BYTES, "64 MiB, the most a MERL file may be"),
        InputFormat::Asm => (
            MAX_ASSEMBLY_BYTES,
            "256 MiB, the most an assembly file may be",
        ),
    };
    let text = format == InputFormat::Asm;
    match read_at_most(reader, size, limit, text).map_err(Limited::Io)? {
        Contents::Bytes(bytes) => Ok(bytes),
        Contents::TooLarge(size) => Err(Limited::Error(CliError::TooLarge {
            path: name.to_string(),
            size,
            limit: what,
        })),
    }
}

/// Checks and parses a program's bytes, read from `name`.
pub fn parse_read(
    name: String,
    bytes: Vec<u8>,
    format: InputFormat,
) -> Result<(Vec<u8>, InputFormat, Program), CliError> {
    let program = parse_bytes(&name, &bytes, format)?;
    Ok((bytes, format, program))
}

/// Checks and parses a program's bytes, read from `name`, leaving the bytes to the
/// caller. The modules to link ([`set_link`]) are linked after it.
pub fn parse_bytes(name: &str, bytes: &[u8], format: InputFormat) -> Result<Program, CliError> {
    if format == InputFormat::Asm {
        check_text(name, bytes)?;
    }
    let linked = LINKED
        .read()
        .map_err(|_| CliError::Usage("the linked modules are unavailable".into()))?;
    let modules: Vec<(&str, &[u8], InputFormat)> = linked
        .iter()
        .map(|m| (m.name.as_str(), m.bytes.as_slice(), m.format))
        .collect();
    Ok(loader::parse_linked((name, bytes, format), &modules)?)
}

/// Rejects assembly that is not text, located by line and column (as [`parse_bytes`]
/// does before assembling).
pub fn parse_bytes_checked_text(name: &str, bytes: &[u8]) -> Result<(), CliError> {
    check_text(name, bytes)
}

/// A module to link after every program: read once, linked into each.
pub struct LinkModule {
    pub name: String,
    pub bytes: Vec<u8>,
    pub format: InputFormat,
}

/// The modules that [`parse_bytes`] links after every program it loads: set once per
/// command, before its programs are loaded, from `--link` or a task's `link`.
static LINKED: RwLock<Vec<LinkModule>> = RwLock::new(Vec::new());

/// Reads modules to link (`--link`, a task's `link`): each must be relocatable
/// (assembly that assembles, or MERL), or the error names it.
pub fn read_link_modules(paths: &[PathBuf]) -> Result<Vec<LinkModule>, CliError> {
    let mut modules = Vec::with_capacity(paths.len());
    for path in paths {
        let name = program_name(path);
        let (bytes, format) = read_program_bytes(path, None)?;
        if format == InputFormat::Asm {
            check_text(&name, &bytes)?;
        }
        if format == InputFormat::Bin {
            return Err(LoadError::NotLinkable { path: name }.into());
        }
        // Checked now, so that an error is the module's, not each program's.
        loader::parse_module(&name, &bytes, format)?;
        modules.push(LinkModule {
            name,
            bytes,
            format,
        });
    }
    Ok(modules)
}

/// Reads the modules at `paths` and links them after every program loaded from now
/// on; gives their bytes, in order (for a store's key).
pub fn set_link(paths: &[PathBuf]) -> Result<Vec<Vec<u8>>, CliError> {
    let modules = read_link_modules(paths)?;
    let bytes = modules.iter().map(|m| m.bytes.clone()).collect();
    if let Ok(mut linked) = LINKED.write() {
        *linked = modules;
    }
    Ok(bytes)
}

/// What [`read_at_most`] found.
enum Contents {
    /// The whole file; for text, only up to its first NUL byte (included), since
    /// [`check_text`] rejects it there.
    Bytes(Vec<u8>),
    /// More than the limit: the file's size, when it has one (not a pipe or device).
    TooLarge(Option<u64>),
}

/// Reads `file` (of `size` bytes when it is a plain file) if it holds at most `limit`
/// bytes. Text stops at its first NUL byte, so that `/dev/zero` read as assembly fails
/// at once.
fn read_at_most(
    mut file: impl Read,
    size: Option<u64>,
    limit: u64,
    text: bool,
) -> io::Result<Contents> {
    if let Some(size) = size.filter(|&n| n > limit) {
        return Ok(Contents::TooLarge(Some(size)));
    }
    let mut bytes = Vec::new();
    if let Some(size) = size {
        bytes.reserve_exact(usize::try_from(size).unwrap_or(0));
    }
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let got = &chunk[..n];
        // `contains` is a fast search even in a debug build; `position` is not.
        let nul = if text && got.contains(&0) {
            got.iter().position(|&b| b == 0)
        } else {
            None
        };
        if let Some(nul) = nul {
            bytes.extend_from_slice(&got[..=nul]);
            break;
        }
        bytes.extend_from_slice(got);
        if bytes.len() as u64 > limit {
            return Ok(Contents::TooLarge(None));
        }
    }
    Ok(Contents::Bytes(bytes))
}

/// Rejects assembly that is not text: the first byte that is not UTF-8 or is NUL,
/// located by line and column (in characters, 1-based, as the assembler counts).
fn check_text(name: &str, bytes: &[u8]) -> Result<(), CliError> {
    let utf8 = std::str::from_utf8(bytes).err().map(|e| e.valid_up_to());
    let nul = if bytes.contains(&0) {
        bytes.iter().position(|&b| b == 0)
    } else {
        None
    };
    let offset = match (utf8, nul) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return Ok(()),
    };
    // Everything before the first bad byte is UTF-8 text.
    let before = std::str::from_utf8(&bytes[..offset]).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..].chars().count() + 1;
    let byte = bytes[offset];
    let problem = if byte == 0 {
        format!("it has a NUL byte (at byte offset {offset})")
    } else {
        format!("byte {byte:#04x} (at byte offset {offset}) is not UTF-8")
    };
    Err(CliError::NotText {
        path: name.to_string(),
        line,
        column,
        problem,
    })
}

/// Reads a whole data file; `-` is the tool's own standard input. At most `limit`
/// bytes are kept: the caller needs no more (a run reads at most one byte a step),
/// and a larger `limit` than [`MAX_INPUT_BYTES`] is an error if the data is larger.
pub fn read_data(what: &'static str, path: &Path, limit: u64) -> Result<Vec<u8>, CliError> {
    let name = program_name(path);
    let err = |source| CliError::Read {
        what,
        path: name.clone(),
        source,
    };
    let cap = limit.min(MAX_INPUT_BYTES);
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        io::stdin()
            .lock()
            .take(cap.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(err)?;
    } else {
        if path.is_dir() {
            return Err(err(io::Error::other("it is a directory")));
        }
        File::open(path)
            .and_then(|f| f.take(cap.saturating_add(1)).read_to_end(&mut bytes))
            .map_err(err)?;
    }
    if bytes.len() as u64 > cap {
        if cap < limit {
            return Err(err(io::Error::other(
                "it is longer than 256 MiB, the most input a run is given",
            )));
        }
        bytes.truncate(cap as usize);
    }
    Ok(bytes)
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
