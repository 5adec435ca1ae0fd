//! A MIPS32 program as it lies in memory: loaded sections at their final addresses,
//! and the symbols that name functions and data in them.

use std::collections::BTreeMap;

/// Where a relocatable object's sections are placed: code from here up...
pub const TEXT_BASE: u32 = 0x0040_0000;
/// ...and read-only data, data and zeroed data from here up (a static executable's
/// sections stay where its linker put them).
pub const DATA_BASE: u32 = 0x1000_0000;
/// Calls and references to symbols the file does not define resolve to addresses
/// from here up, one 8-byte slot each (outside every section and the stack). A jump
/// into a slot ends the run with a fault that names the symbol.
pub const UNDEFINED_BASE: u32 = 0xFFF0_0000;

/// One loaded section, at its final address, with relocations applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Its name in the file (`.text`, `.rodata.str1.4`, ...).
    pub name: String,
    /// Its first address (aligned as the file asks).
    pub addr: u32,
    /// Its bytes: the file's contents, or zeros for `.bss`-like sections.
    pub bytes: Vec<u8>,
    /// Whether a store may change it (`SHF_WRITE`).
    pub writable: bool,
    /// Whether it holds code (`SHF_EXECINSTR`).
    pub executable: bool,
}

impl Section {
    /// The first address past its end (saturating at 2^32).
    pub fn end(&self) -> u64 {
        self.addr as u64 + self.bytes.len() as u64
    }

    /// Whether `addr` lies in it.
    pub fn contains(&self, addr: u32) -> bool {
        addr >= self.addr && (addr as u64) < self.end()
    }
}

/// What a symbol names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Function,
    Object,
}

/// A defined symbol at its final address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub addr: u32,
    /// Its size in bytes as the file gives it (0 when unknown).
    pub size: u32,
    pub kind: SymbolKind,
}

/// A symbol the file uses but does not define, and the slot its uses resolve to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undefined {
    pub name: String,
    /// `UNDEFINED_BASE + 8 * k` for the k-th undefined symbol.
    pub slot: u32,
}

/// A loaded MIPS32 program: sections sorted by address and not overlapping, the
/// functions and objects it defines, and the symbols it uses without defining.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    pub sections: Vec<Section>,
    pub symbols: BTreeMap<String, Symbol>,
    pub undefined: Vec<Undefined>,
}

impl Image {
    /// An image of one code section holding `words` (big-endian) from `addr`, and
    /// nothing else: code built by hand, as tests build it.
    pub fn code(addr: u32, words: &[u32]) -> Image {
        Image {
            sections: vec![Section {
                name: ".text".into(),
                addr,
                bytes: words.iter().flat_map(|w| w.to_be_bytes()).collect(),
                writable: false,
                executable: true,
            }],
            ..Image::default()
        }
    }

    /// The section holding `addr`, if any.
    pub fn section_at(&self, addr: u32) -> Option<&Section> {
        let k = self.sections.partition_point(|s| s.addr <= addr);
        let s = self.sections.get(k.checked_sub(1)?)?;
        s.contains(addr).then_some(s)
    }

    /// The function named `name`.
    pub fn function(&self, name: &str) -> Option<Symbol> {
        self.symbols
            .get(name)
            .copied()
            .filter(|s| s.kind == SymbolKind::Function)
    }

    /// The names of the functions it defines, in address order.
    pub fn functions(&self) -> Vec<(&str, Symbol)> {
        let mut v: Vec<_> = self
            .symbols
            .iter()
            .filter(|(_, s)| s.kind == SymbolKind::Function)
            .map(|(n, s)| (n.as_str(), *s))
            .collect();
        v.sort_by_key(|(_, s)| s.addr);
        v
    }

    /// The undefined symbol whose slot is `addr`, if any.
    pub fn undefined_at(&self, addr: u32) -> Option<&str> {
        let k = addr.checked_sub(UNDEFINED_BASE)?;
        if k % 8 != 0 {
            return None;
        }
        self.undefined
            .get((k / 8) as usize)
            .map(|u| u.name.as_str())
    }

    /// The undefined symbol that a `j`/`jal` landing on `target` calls, if any. Such a
    /// jump keeps the top 4 bits of its own address, so it cannot reach a slot above
    /// [`UNDEFINED_BASE`]: the ELF reader encodes the slot's low 28 bits, and this maps
    /// the address the jump lands on (outside every section) back to the slot.
    pub fn undefined_jump(&self, target: u32) -> Option<&str> {
        if self.section_at(target).is_some() {
            return None;
        }
        self.undefined_at((target & 0x0fff_ffff) | (UNDEFINED_BASE & 0xf000_0000))
    }

    /// The big-endian word at `addr` (aligned), if it lies in a section.
    pub fn word(&self, addr: u32) -> Option<u32> {
        let s = self.section_at(addr)?;
        let off = (addr - s.addr) as usize;
        let b = s.bytes.get(off..off + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}
