//! Relocatable modules and the linker, as CS241's `cs241.linker` and loader treat MERL
//! files (`docs/merl.md`).
//!
//! A [`Module`] is code with its table: which words hold addresses inside the code
//! (relocations), which words wait for another module's label (imports, ESR) and which
//! labels it offers (exports, ESD). Every address in a module counts bytes from the
//! first word of its code, as if the code were loaded at address 0; the MERL reader and
//! writer ([`crate::merl`]) add and take away the 12-byte header.
//!
//! Invariant (checked by [`Module::check`], kept by every function here): every
//! relocation and import is the address of a word of the code (a multiple of 4 below
//! the code's length), and every export is a multiple of 4 no larger than the code's
//! length. So nothing here indexes outside the code, whatever file a module came from.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::program::Program;

/// A label in a module's table: an import (its use, the word to fill in) or an export
/// (its value), with the file it came from (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// A byte address in the code (from the code's first word).
    pub addr: u32,
    /// The file the module was read from, as messages name it.
    pub file: Arc<str>,
}

/// Code and its relocation and symbol table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// The code, from its first word (no header).
    pub words: Vec<u32>,
    /// For assembled code, the 1-based source line of each word (0: none, for words
    /// that came from another file in a link).
    pub lines: Option<Vec<u32>>,
    /// Byte addresses of the words that hold addresses inside the code (REL entries).
    pub relocs: Vec<u32>,
    /// Uses of labels defined elsewhere (ESR entries): the word at `addr` becomes the
    /// label's address once linked.
    pub imports: Vec<Symbol>,
    /// Labels offered to other modules (ESD entries), with their addresses.
    pub exports: Vec<Symbol>,
}

/// Why modules could not be linked, or a module could not become a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Two modules export the same label.
    DuplicateExport {
        label: String,
        first: String,
        second: String,
    },
    /// A program was needed but labels are still imported: each label with the files
    /// that use it.
    Unresolved { labels: Vec<(String, Vec<String>)> },
    /// The linked code does not fit the machine's memory.
    TooLarge { words: usize },
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::DuplicateExport {
                label,
                first,
                second,
            } => {
                if first == second {
                    write!(f, "{first}: label `{label}` is exported twice")
                } else {
                    write!(
                        f,
                        "label `{label}` is exported by both {first} and {second}; \
                         a label may be exported by one module only"
                    )
                }
            }
            LinkError::Unresolved { labels } => {
                let s = if labels.len() == 1 { "" } else { "s" };
                write!(f, "unresolved import{s}: ")?;
                for (n, (label, files)) in labels.iter().enumerate() {
                    if n > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "`{label}` (imported by {})", files.join(", "))?;
                }
                write!(
                    f,
                    "; link a module that exports {} (--link FILE, or `tamarin link`)",
                    if labels.len() == 1 { "it" } else { "them" }
                )
            }
            LinkError::TooLarge { words } => write!(
                f,
                "the linked program is {words} words long, more than the 16 MiB memory holds"
            ),
        }
    }
}

impl std::error::Error for LinkError {}

/// The most words a program may have: the whole memory.
const MAX_WORDS: usize = (crate::memory::MEM_SIZE / 4) as usize;

impl Module {
    /// A module of raw code with no table (a binary image: it cannot be relocated).
    pub fn from_words(words: Vec<u32>) -> Module {
        Module {
            words,
            ..Module::default()
        }
    }

    /// The code's length in bytes (saturating; a module is never near 4 GiB).
    pub fn byte_len(&self) -> u32 {
        u32::try_from(self.words.len())
            .unwrap_or(u32::MAX / 4)
            .saturating_mul(4)
    }

    /// Whether the table fits the code (the module invariant): `Err` names the first
    /// entry that does not.
    pub fn check(&self) -> Result<(), String> {
        let len = self.byte_len();
        let word = |a: u32| a.is_multiple_of(4) && a < len;
        if let Some(a) = self.relocs.iter().find(|&&a| !word(a)) {
            return Err(format!("relocation of address {a:#x} outside the code"));
        }
        if let Some(s) = self.imports.iter().find(|s| !word(s.addr)) {
            return Err(format!(
                "import of `{}` at address {:#x} outside the code",
                s.name, s.addr
            ));
        }
        if let Some(s) = self
            .exports
            .iter()
            .find(|s| !s.addr.is_multiple_of(4) || s.addr > len)
        {
            return Err(format!(
                "export of `{}` at address {:#x} outside the code",
                s.name, s.addr
            ));
        }
        Ok(())
    }

    /// The code as the course's loader places it at byte address `alpha`: every
    /// relocated word has `alpha` added (modulo 2^32); imports are left as they are.
    pub fn relocated(&self, alpha: u32) -> Vec<u32> {
        let mut words = self.words.clone();
        for &a in &self.relocs {
            if let Some(w) = words.get_mut((a / 4) as usize) {
                *w = w.wrapping_add(alpha);
            }
        }
        words
    }

    /// The labels still imported, each with the files that import it, in order of
    /// first use.
    pub fn unresolved(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for s in &self.imports {
            match out.iter_mut().find(|(l, _)| *l == s.name) {
                Some((_, files)) => {
                    if !files.iter().any(|f| **f == *s.file) {
                        files.push(s.file.to_string());
                    }
                }
                None => out.push((s.name.clone(), vec![s.file.to_string()])),
            }
        }
        out
    }

    /// The program this module is, loaded at address 0: an error naming the labels
    /// when some are still imported.
    pub fn into_program(self) -> Result<Program, LinkError> {
        if !self.imports.is_empty() {
            return Err(LinkError::Unresolved {
                labels: self.unresolved(),
            });
        }
        if self.words.len() > MAX_WORDS {
            return Err(LinkError::TooLarge {
                words: self.words.len(),
            });
        }
        Ok(match self.lines {
            Some(lines) if lines.len() == self.words.len() => {
                Program::with_lines(self.words, lines)
            }
            _ => Program::from_words(self.words),
        })
    }
}

/// Links modules as `cs241.linker` does: the first module's code first, then each
/// other's after it, relocated by where it lands; every import that some module
/// exports is filled in with the export's address (and becomes a relocation); the
/// result keeps every relocation, every export and the imports nobody exports.
///
/// A label exported twice is an error naming both files. Unresolved imports are not
/// an error here (a linked MERL file may keep them); [`Module::into_program`] refuses
/// them.
pub fn link(modules: Vec<Module>) -> Result<Module, LinkError> {
    let total: usize = modules.iter().map(|m| m.words.len()).sum();
    if total > MAX_WORDS {
        return Err(LinkError::TooLarge { words: total });
    }
    let any_lines = modules.iter().any(|m| m.lines.is_some());
    let mut out = Module {
        words: Vec::with_capacity(total),
        lines: any_lines.then(|| Vec::with_capacity(total)),
        ..Module::default()
    };
    let mut exported: HashMap<String, (u32, Arc<str>)> = HashMap::new();
    let mut imports = Vec::new();
    for (index, m) in modules.into_iter().enumerate() {
        // At most the whole memory, so the offset fits 32 bits.
        let offset = out.byte_len();
        let n = m.words.len();
        out.words.extend(m.relocated(offset));
        if let Some(lines) = out.lines.as_mut() {
            match m.lines {
                // Source lines are those of the first file only.
                Some(l) if l.len() == n && index == 0 => lines.extend(l),
                _ => lines.extend(std::iter::repeat_n(0, n)),
            }
        }
        out.relocs
            .extend(m.relocs.iter().map(|&a| a.wrapping_add(offset)));
        for mut s in m.exports {
            s.addr = s.addr.wrapping_add(offset);
            if let Some((_, first)) = exported.get(&s.name) {
                return Err(LinkError::DuplicateExport {
                    label: s.name,
                    first: first.to_string(),
                    second: s.file.to_string(),
                });
            }
            exported.insert(s.name.clone(), (s.addr, s.file.clone()));
            out.exports.push(s);
        }
        imports.extend(m.imports.into_iter().map(|mut s| {
            s.addr = s.addr.wrapping_add(offset);
            s
        }));
    }
    for s in imports {
        match exported.get(&s.name) {
            Some(&(value, _)) => {
                if let Some(w) = out.words.get_mut((s.addr / 4) as usize) {
                    *w = value;
                }
                out.relocs.push(s.addr);
            }
            None => out.imports.push(s),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(name: &str, addr: u32, file: &str) -> Symbol {
        Symbol {
            name: name.into(),
            addr,
            file: file.into(),
        }
    }

    #[test]
    fn relocation_adds_the_load_address() {
        let m = Module {
            words: vec![0x14, 8, 4, 7],
            relocs: vec![4, 8],
            ..Module::default()
        };
        assert_eq!(m.relocated(0x100), vec![0x14, 0x108, 0x104, 7]);
        assert_eq!(m.relocated(0), m.words);
    }

    #[test]
    fn imports_resolve_against_exports_of_later_modules() {
        let a = Module {
            words: vec![0x0000_0814, 0, 0x0020_0009, 0x03e0_0008],
            relocs: vec![],
            imports: vec![sym("f", 4, "a.asm")],
            ..Module::default()
        };
        let b = Module {
            words: vec![0, 0x0000_0814, 4, 0x03e0_0008],
            relocs: vec![8],
            exports: vec![sym("f", 4, "b.asm")],
            ..Module::default()
        };
        let l = link(vec![a, b]).unwrap();
        assert!(l.imports.is_empty());
        // b lands at 16: f is at 20, and b's relocated word 4 becomes 20.
        assert_eq!(l.words[1], 20);
        assert_eq!(l.words[6], 20);
        assert_eq!(l.relocs, vec![24, 4]);
        assert_eq!(l.exports, vec![sym("f", 20, "b.asm")]);
        l.check().unwrap();
        assert!(l.into_program().is_ok());
    }

    #[test]
    fn unresolved_imports_stay_and_refuse_a_program() {
        let a = Module {
            words: vec![0, 0],
            imports: vec![sym("print", 0, "a.asm"), sym("print", 4, "a.asm")],
            ..Module::default()
        };
        let b = Module {
            words: vec![0],
            imports: vec![sym("new", 0, "b.merl")],
            ..Module::default()
        };
        let l = link(vec![a, b]).unwrap();
        assert_eq!(l.imports.len(), 3);
        assert_eq!(l.imports[2].addr, 8);
        let e = l.into_program().unwrap_err();
        assert_eq!(
            e,
            LinkError::Unresolved {
                labels: vec![
                    ("print".into(), vec!["a.asm".into()]),
                    ("new".into(), vec!["b.merl".into()])
                ]
            }
        );
        let text = e.to_string();
        assert!(text.contains("`print` (imported by a.asm)"), "{text}");
        assert!(text.contains("`new` (imported by b.merl)"), "{text}");
    }

    #[test]
    fn duplicate_exports_name_both_files() {
        let a = Module {
            words: vec![0],
            exports: vec![sym("init", 0, "a.merl")],
            ..Module::default()
        };
        let b = Module {
            words: vec![0],
            exports: vec![sym("init", 0, "b.asm")],
            ..Module::default()
        };
        let e = link(vec![a, b]).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("`init`"), "{text}");
        assert!(text.contains("a.merl") && text.contains("b.asm"), "{text}");
    }

    #[test]
    fn check_finds_entries_outside_the_code() {
        let mut m = Module::from_words(vec![0, 0]);
        m.check().unwrap();
        m.relocs.push(8);
        assert!(m.check().is_err());
        m.relocs = vec![2];
        assert!(m.check().is_err());
        m.relocs.clear();
        m.exports.push(sym("end", 8, "x"));
        m.check().unwrap();
        m.exports[0].addr = 12;
        assert!(m.check().is_err());
    }
}
