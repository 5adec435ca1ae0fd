//! Reading programs from files: binary images, MERL modules and assembly text, chosen
//! by extension (and a binary's first word: the MERL cookie).

use std::path::Path;

use crate::asm::{self, AsmErrors};
use crate::link::{LinkError, Module};
use crate::merl::{self, MerlError};
use crate::program::Program;

/// How a program file is to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Assembly text (`.asm`, `.s`).
    Asm,
    /// Big-endian words (`.mips`, `.bin`).
    Bin,
    /// A MERL module (`.merl`): header, code, relocation and symbol table.
    Merl,
}

impl InputFormat {
    /// The format a file name implies, if its extension is one we know.
    pub fn from_path(path: &Path) -> Option<InputFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "asm" | "s" => Some(InputFormat::Asm),
            "mips" | "bin" => Some(InputFormat::Bin),
            "merl" => Some(InputFormat::Merl),
            _ => None,
        }
    }

    /// The format of `bytes` that an extension said were `self`: a binary that starts
    /// with the MERL cookie and reads as a MERL file is one (as `cs241.linkasm` output
    /// named `.mips` often is); anything else keeps its format. Not applied to a format
    /// forced with `--input-format`.
    pub fn sniff(self, bytes: &[u8]) -> InputFormat {
        if self == InputFormat::Bin && merl::is_merl(bytes) && merl::read("", bytes).is_ok() {
            InputFormat::Merl
        } else {
            self
        }
    }

    /// The name `--input-format` and task files give the format.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Asm => "asm",
            InputFormat::Bin => "bin",
            InputFormat::Merl => "merl",
        }
    }
}

/// Why a program could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: is a directory, not a program file")]
    IsDirectory { path: String },
    #[error("{path}: cannot tell the format from the extension (expected .asm, .s, .mips, .bin or .merl); use --input-format asm|bin|merl")]
    UnknownFormat { path: String },
    #[error("{path}: a binary program must be a whole number of 4-byte words, but it is {len} bytes long ({} bytes left over)", len % 4)]
    RaggedBinary { path: String, len: usize },
    #[error("{path}: the program is {words} words long, more than the 16 MiB memory holds")]
    TooLarge { path: String, words: usize },
    #[error("{path}: the file is not UTF-8 text (first bad byte at offset {offset}); is it a binary? use --input-format bin")]
    NotText { path: String, offset: usize },
    #[error("{}", .errors)]
    Asm { errors: AsmErrors },
    #[error("{0}")]
    Merl(#[from] MerlError),
    #[error("{0}")]
    Link(#[from] LinkError),
    #[error("{path}: a binary image cannot be linked after a program: it has no relocation table; link its .asm or .merl file instead")]
    NotLinkable { path: String },
}

const MAX_WORDS: usize = (crate::memory::MEM_SIZE / 4) as usize;

/// Decodes a binary image: big-endian words, back to back.
pub fn parse_binary(path: &str, bytes: &[u8]) -> Result<Program, LoadError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(LoadError::RaggedBinary {
            path: path.to_string(),
            len: bytes.len(),
        });
    }
    if bytes.len() / 4 > MAX_WORDS {
        return Err(LoadError::TooLarge {
            path: path.to_string(),
            words: bytes.len() / 4,
        });
    }
    let words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(Program::from_words(words))
}

pub use crate::program::to_binary;

/// Loads a program from `bytes` read from `path` in the given format: a module with
/// imports is an error naming them (link it first, [`parse_linked`]).
pub fn parse_program(path: &str, bytes: &[u8], format: InputFormat) -> Result<Program, LoadError> {
    if format == InputFormat::Bin {
        return parse_binary(path, bytes);
    }
    let module = parse_module(path, bytes, format)?;
    if module.words.len() > MAX_WORDS {
        return Err(LoadError::TooLarge {
            path: path.to_string(),
            words: module.words.len(),
        });
    }
    Ok(module.into_program()?)
}

/// Reads `bytes` from `path` as a module: assembly with its `.import`s and `.export`s,
/// a MERL file, or a binary image (code with no table).
pub fn parse_module(path: &str, bytes: &[u8], format: InputFormat) -> Result<Module, LoadError> {
    match format {
        InputFormat::Bin => Ok(Module::from_words(
            parse_binary(path, bytes)?.words().to_vec(),
        )),
        InputFormat::Merl => Ok(merl::read(path, bytes)?),
        InputFormat::Asm => {
            let text = std::str::from_utf8(bytes).map_err(|e| LoadError::NotText {
                path: path.to_string(),
                offset: e.valid_up_to(),
            })?;
            asm::assemble_module(path, text).map_err(|errors| LoadError::Asm { errors })
        }
    }
}

/// A program and the modules linked after it, as `cs241.linker` and the course's
/// loader would place them (the program's code first, at address 0): every import
/// must be resolved. `program` and each of `modules` are (name, bytes, format); a
/// module to be linked after the program must be relocatable (assembly or MERL).
pub fn parse_linked(
    program: (&str, &[u8], InputFormat),
    modules: &[(&str, &[u8], InputFormat)],
) -> Result<Program, LoadError> {
    if modules.is_empty() {
        return parse_program(program.0, program.1, program.2);
    }
    let mut all = vec![parse_module(program.0, program.1, program.2)?];
    for &(name, bytes, format) in modules {
        if format == InputFormat::Bin {
            return Err(LoadError::NotLinkable {
                path: name.to_string(),
            });
        }
        all.push(parse_module(name, bytes, format)?);
    }
    Ok(crate::link::link(all)?.into_program()?)
}

/// Reads and loads a program file; `format` overrides the extension.
pub fn load_file(path: &Path, format: Option<InputFormat>) -> Result<Program, LoadError> {
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(LoadError::IsDirectory { path: name });
    }
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: name.clone(),
        source,
    })?;
    let format = match format.or_else(|| InputFormat::from_path(path).map(|f| f.sniff(&bytes))) {
        Some(f) => f,
        None => return Err(LoadError::UnknownFormat { path: name }),
    };
    parse_program(&name, &bytes, format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_is_big_endian() {
        let p = parse_binary("x", &[0x00, 0x22, 0x18, 0x20, 0x03, 0xe0, 0x00, 0x08]).unwrap();
        assert_eq!(&p.words()[..], &[0x0022_1820, 0x03e0_0008]);
        assert_eq!(
            to_binary(p.words()),
            vec![0x00, 0x22, 0x18, 0x20, 0x03, 0xe0, 0x00, 0x08]
        );
    }

    #[test]
    fn ragged_binary_is_an_error() {
        let e = parse_binary("p.mips", &[1, 2, 3, 4, 5]).unwrap_err();
        assert!(matches!(e, LoadError::RaggedBinary { len: 5, .. }));
        assert!(e.to_string().contains("p.mips"));
    }

    #[test]
    fn format_from_extension() {
        assert_eq!(
            InputFormat::from_path(Path::new("a.asm")),
            Some(InputFormat::Asm)
        );
        assert_eq!(
            InputFormat::from_path(Path::new("a.S")),
            Some(InputFormat::Asm)
        );
        assert_eq!(
            InputFormat::from_path(Path::new("a.mips")),
            Some(InputFormat::Bin)
        );
        assert_eq!(
            InputFormat::from_path(Path::new("a.bin")),
            Some(InputFormat::Bin)
        );
        assert_eq!(InputFormat::from_path(Path::new("a.txt")), None);
    }
}
