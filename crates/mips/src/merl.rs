//! MERL, CS241's relocatable format (`docs/merl.md`): reading a file into a
//! [`Module`] and writing one out.
//!
//! A file is big-endian words: the cookie `0x10000002` (`beq $0, $0, 2`), the end of
//! the module (the file's length in bytes), the end of the code (bytes, header
//! included), the code, then the table. Table addresses count bytes from the start of
//! the file, header included, so the code's first word is at 12; a [`Module`] counts
//! from the code's first word, so reading takes 12 away and writing adds it (to the
//! table's addresses and to the words that REL entries relocate).

use std::sync::Arc;

use crate::link::{Module, Symbol};

/// The first word of every MERL file: `beq $0, $0, 2`, which skips the rest of the
/// header when the file is run as it is.
pub const COOKIE: u32 = 0x1000_0002;
/// The header's length in bytes.
pub const HEADER: u32 = 12;
/// Table entry formats.
pub const REL: u32 = 0x01;
pub const ESD: u32 = 0x05;
pub const ESR: u32 = 0x11;

/// Whether `bytes` start like a MERL file (its cookie).
pub fn is_merl(bytes: &[u8]) -> bool {
    bytes.get(..4) == Some(&COOKIE.to_be_bytes()[..])
}

/// A file that is not valid MERL: where (a byte offset in the file) and what was
/// expected there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: bad MERL file at byte offset {offset}: {message}")]
pub struct MerlError {
    pub path: String,
    pub offset: usize,
    pub message: String,
}

/// Reads a MERL file (named `path` in messages and in the module's symbols).
pub fn read(path: &str, bytes: &[u8]) -> Result<Module, MerlError> {
    let err = |offset: usize, message: String| MerlError {
        path: path.to_string(),
        offset,
        message,
    };
    if bytes.len() < HEADER as usize {
        return Err(err(
            bytes.len(),
            format!(
                "expected a 12-byte header (cookie, end of module, end of code), but the file is {} bytes long",
                bytes.len()
            ),
        ));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(err(
            bytes.len() - bytes.len() % 4,
            format!(
                "expected whole 4-byte words, but the file is {} bytes long ({} left over)",
                bytes.len(),
                bytes.len() % 4
            ),
        ));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let at = |i: usize| words.get(i).copied();
    let cookie = at(0).unwrap_or(0);
    if cookie != COOKIE {
        return Err(err(
            0,
            format!("expected the MERL cookie 0x10000002 (beq $0, $0, 2), found {cookie:#010x}"),
        ));
    }
    let end_module = at(1).unwrap_or(0);
    if end_module as u64 != bytes.len() as u64 {
        return Err(err(
            4,
            format!(
                "expected the end of the module to be the file's length, {} bytes, found {end_module}",
                bytes.len()
            ),
        ));
    }
    let end_code = at(2).unwrap_or(0);
    if end_code < HEADER || end_code > end_module || !end_code.is_multiple_of(4) {
        return Err(err(
            8,
            format!(
                "expected the end of the code to be a multiple of 4 from 12 to the end of the module ({end_module}), found {end_code}"
            ),
        ));
    }
    let code_words = ((end_code - HEADER) / 4) as usize;
    let mut module = Module::from_words(words.get(3..3 + code_words).unwrap_or(&[]).to_vec());
    let file: Arc<str> = Arc::from(path);
    // A location in the code, as a table entry at word `i` gives it.
    let location = |i: usize, what: &str| -> Result<u32, MerlError> {
        let loc = at(i).ok_or_else(|| {
            err(
                i * 4,
                format!("expected the {what} entry's address, found the end of the file"),
            )
        })?;
        if loc < HEADER || loc >= end_code || !loc.is_multiple_of(4) {
            return Err(err(
                i * 4,
                format!(
                    "expected the address of a word of the code (a multiple of 4 from 12 to {}), found {loc:#x}",
                    end_code.saturating_sub(4)
                ),
            ));
        }
        Ok(loc - HEADER)
    };
    // A name: its length at word `i`, then one word per character.
    let name = |i: usize, what: &str| -> Result<String, MerlError> {
        let n = at(i).ok_or_else(|| {
            err(
                i * 4,
                format!("expected the {what} entry's name length, found the end of the file"),
            )
        })?;
        let left = words.len().saturating_sub(i + 1);
        if n == 0 || n as usize > left {
            return Err(err(
                i * 4,
                format!(
                    "expected a name length from 1 to {left} (the words left in the file), found {n}"
                ),
            ));
        }
        let mut s = String::with_capacity(n as usize);
        for k in 0..n as usize {
            let c = at(i + 1 + k).unwrap_or(0);
            match u8::try_from(c) {
                Ok(b) if b.is_ascii_graphic() => s.push(char::from(b)),
                _ => {
                    return Err(err(
                        (i + 1 + k) * 4,
                        format!("expected a printable ASCII character of a name, found {c:#x}"),
                    ))
                }
            }
        }
        Ok(s)
    };
    let mut i = (end_code / 4) as usize;
    while i < words.len() {
        let format = at(i).unwrap_or(0);
        match format {
            REL => {
                let loc = location(i + 1, "REL")?;
                module.relocs.push(loc);
                i += 2;
            }
            ESR | ESD => {
                let what = if format == ESR { "ESR" } else { "ESD" };
                let addr = if format == ESR {
                    location(i + 1, what)?
                } else {
                    let a = at(i + 1).ok_or_else(|| {
                        err(
                            (i + 1) * 4,
                            "expected the ESD entry's address, found the end of the file".into(),
                        )
                    })?;
                    if a < HEADER || a > end_code || !a.is_multiple_of(4) {
                        return Err(err(
                            (i + 1) * 4,
                            format!(
                                "expected a label's address (a multiple of 4 from 12 to {end_code}), found {a:#x}"
                            ),
                        ));
                    }
                    a - HEADER
                };
                let label = name(i + 2, what)?;
                let len = label.len();
                let sym = Symbol {
                    name: label,
                    addr,
                    file: file.clone(),
                };
                if format == ESR {
                    module.imports.push(sym);
                } else {
                    module.exports.push(sym);
                }
                i += 3 + len;
            }
            other => {
                return Err(err(
                    i * 4,
                    format!(
                        "expected a table entry's format (0x01 REL, 0x05 ESD or 0x11 ESR), found {other:#x}"
                    ),
                ))
            }
        }
    }
    // Relocated words hold addresses counted from the file's start: count them from
    // the code's, as the whole module does.
    for &a in &module.relocs {
        if let Some(w) = module.words.get_mut((a / 4) as usize) {
            *w = w.wrapping_sub(HEADER);
        }
    }
    Ok(module)
}

/// Writes a module as a MERL file: REL entries, then ESR, then ESD, each in the
/// module's order. The module must satisfy its invariant ([`Module::check`]).
pub fn write(module: &Module) -> Vec<u8> {
    let mut table: Vec<u32> = Vec::new();
    for &a in &module.relocs {
        table.extend([REL, a.wrapping_add(HEADER)]);
    }
    for (format, syms) in [(ESR, &module.imports), (ESD, &module.exports)] {
        for s in syms {
            table.extend([format, s.addr.wrapping_add(HEADER), s.name.len() as u32]);
            table.extend(s.name.bytes().map(u32::from));
        }
    }
    let mut code = module.relocated(HEADER);
    let end_code = HEADER.wrapping_add((code.len() as u32).wrapping_mul(4));
    let end_module = end_code.wrapping_add((table.len() as u32).wrapping_mul(4));
    let mut words = vec![COOKIE, end_module, end_code];
    words.append(&mut code);
    words.append(&mut table);
    crate::program::to_binary(&words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(name: &str, addr: u32) -> Symbol {
        Symbol {
            name: name.into(),
            addr,
            file: "m.merl".into(),
        }
    }

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn module() -> Module {
        Module {
            words: vec![0x0000_1814, 8, 0, 0x03e0_0008],
            lines: None,
            relocs: vec![4],
            imports: vec![sym("print", 8)],
            exports: vec![sym("main", 0), sym("end", 16)],
        }
    }

    #[test]
    fn write_follows_the_course_layout() {
        let w = words(&write(&module()));
        // header, 4 code words, REL (2), ESR (3 + 5), ESD main (3 + 4), ESD end (3 + 3)
        assert_eq!(w.len(), 3 + 4 + 2 + 8 + 7 + 6);
        assert_eq!(&w[..3], &[COOKIE, 4 * 30, 28]);
        // The relocated word holds its address counted from the file's start.
        assert_eq!(w[4], 20);
        assert_eq!(&w[7..9], &[REL, 16]);
        assert_eq!(&w[9..12], &[ESR, 20, 5]);
        assert_eq!(w[12], u32::from(b'p'));
        assert_eq!(&w[17..20], &[ESD, 12, 4]);
        assert_eq!(&w[24..27], &[ESD, 28, 3]);
    }

    #[test]
    fn round_trip() {
        let m = module();
        assert_eq!(read("m.merl", &write(&m)).unwrap(), m);
        let empty = Module::default();
        assert_eq!(read("m.merl", &write(&empty)).unwrap(), empty);
    }

    #[test]
    fn loading_at_an_address_relocates_rel_words() {
        // As `cs241.merl 0x1000` would: the relocated word gets 0x1000 - 12 added to
        // its value in the file.
        let bytes = write(&module());
        let m = read("m.merl", &bytes).unwrap();
        let in_file = words(&bytes)[4];
        assert_eq!(m.relocated(0x1000)[1], in_file + 0x1000 - 12);
        assert_eq!(m.relocated(0x1000)[0], 0x0000_1814);
    }

    fn bad(w: &[u32]) -> MerlError {
        read("bad.merl", &crate::program::to_binary(w)).unwrap_err()
    }

    #[test]
    fn bad_files_say_where_and_what() {
        let e = read("bad.merl", &[0x10, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 3);
        assert!(e.message.contains("12-byte header"), "{e}");
        let e = bad(&[0x1000_0003, 12, 12]);
        assert_eq!(e.offset, 0);
        assert!(e.message.contains("cookie"), "{e}");
        let e = bad(&[COOKIE, 16, 12]);
        assert_eq!(e.offset, 4);
        assert!(e
            .to_string()
            .contains("bad.merl: bad MERL file at byte offset 4"));
        let e = bad(&[COOKIE, 12, 16]);
        assert_eq!(e.offset, 8);
        let e = bad(&[COOKIE, 16, 20, 0]);
        assert_eq!(e.offset, 8);
        let e = bad(&[COOKIE, 16, 8, 0]);
        assert_eq!(e.offset, 8);
        // A REL entry outside the code.
        let e = bad(&[COOKIE, 24, 16, 0, REL, 16]);
        assert_eq!(e.offset, 20);
        assert!(e.message.contains("word of the code"), "{e}");
        // A REL entry cut short.
        let e = bad(&[COOKIE, 20, 16, 0, REL]);
        assert_eq!(e.offset, 20);
        // An unknown format.
        let e = bad(&[COOKIE, 24, 16, 0, 7, 12]);
        assert_eq!(e.offset, 16);
        assert!(e.message.contains("format"), "{e}");
        // A name longer than the file.
        let e = bad(&[COOKIE, 32, 16, 0, ESD, 12, 9, 0x61]);
        assert_eq!(e.offset, 24);
        // A name with a character that is not one.
        let e = bad(&[COOKIE, 32, 16, 0, ESR, 12, 1, 0x1_0061]);
        assert_eq!(e.offset, 28);
        // An ESD past the end of the code.
        let e = bad(&[COOKIE, 32, 16, 0, ESD, 20, 1, 0x61]);
        assert_eq!(e.offset, 20);
        // Not a whole number of words.
        let e = read("bad.merl", &[0x10, 0, 0, 2, 0, 0, 0, 13, 0, 0, 0, 12, 1]).unwrap_err();
        assert_eq!(e.offset, 12);
    }

    #[test]
    fn a_merl_file_runs_as_it_is_at_address_0() {
        // The cookie skips the header: `beq $0, $0, 2` at 0 goes to 12.
        let w = words(&write(&module()));
        assert_eq!(
            crate::isa::Instr::decode(w[0]),
            Some(crate::isa::Instr::Beq {
                s: crate::Reg::from_bits(0),
                t: crate::Reg::from_bits(0),
                i: 2
            })
        );
    }
}
