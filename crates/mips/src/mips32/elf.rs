//! Reading the ELF32 big-endian MIPS files that `mips-linux-gnu-gcc` writes into an
//! [`Image`]: a static executable is loaded as it was linked; a relocatable object
//! (`-c`) is laid out and relocated here, so that one C file can be compared without
//! a linker or a C library.
//!
//! Layout of a relocatable object: its allocated sections in file order, code from
//! [`TEXT_BASE`] up and everything else from [`DATA_BASE`] up, each aligned as it
//! asks; then its `COMMON` symbols (`-fcommon`) in one zeroed section `COMMON`.
//! Symbols it uses without defining resolve to slots from [`UNDEFINED_BASE`] up.
//!
//! Only the relocations of non-PIC o32 code (`-fno-pic -mno-abicalls`) are applied:
//! `R_MIPS_32`, `R_MIPS_26`, `R_MIPS_HI16` and `R_MIPS_LO16`; any other is refused
//! with the flags that avoid it, rather than loaded wrong.

use std::collections::{BTreeMap, HashMap};

use object::elf::{self, FileHeader32};
use object::read::elf::{
    FileHeader, Rel as _, SectionHeader as _, SectionTable, Sym as _, SymbolTable,
};
use object::{BigEndian, SectionIndex, SymbolIndex};

use super::image::{
    Image, Section, Symbol, SymbolKind, Undefined, DATA_BASE, TEXT_BASE, UNDEFINED_BASE,
};

/// The most bytes of sections a file may load, so that a corrupt or hostile size
/// is refused before anything that large is allocated.
pub const MAX_LOAD_BYTES: u64 = 64 << 20;

/// `SHT_MIPS_ABIFLAGS`, which `object` does not name.
const SHT_MIPS_ABIFLAGS: u32 = 0x7000_002a;

/// The advice for relocations that only position-independent code uses.
const NO_PIC: &str = "build with -fno-pic -mno-abicalls";

type Header = FileHeader32<BigEndian>;
type Sections<'d> = SectionTable<'d, Header, &'d [u8]>;
type Symbols<'d> = SymbolTable<'d, Header, &'d [u8]>;

/// Why a file could not be read. Every message starts with the file's path and says
/// what was expected instead.
#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("{path}: not an ELF file: expected it to begin with the ELF magic 7f 45 4c 46")]
    NotElf { path: String },
    #[error(
        "{path}: a 64-bit ELF file: expected ELF32 for MIPS32 (build with mips-linux-gnu-gcc, \
         not mips64)"
    )]
    Class64 { path: String },
    #[error(
        "{path}: a little-endian ELF file: expected big-endian MIPS (build with \
         mips-linux-gnu-gcc, not mipsel-linux-gnu-gcc)"
    )]
    LittleEndian { path: String },
    #[error(
        "{path}: an ELF file for machine {machine}: expected MIPS (EM_MIPS = 8; build with \
         mips-linux-gnu-gcc)"
    )]
    Machine { path: String, machine: u16 },
    #[error(
        "{path}: {what}: expected a relocatable object (ET_REL, from `gcc -c`) or a static \
         executable (ET_EXEC){advice}"
    )]
    FileType {
        path: String,
        what: String,
        advice: &'static str,
    },
    #[error(
        "{path}: built for the {abi} ABI: expected o32 (-mabi=32, mips-linux-gnu-gcc's default)"
    )]
    Abi { path: String, abi: &'static str },
    #[error("{path}: malformed ELF file: {what}")]
    Malformed { path: String, what: String },
    #[error("{path}: {what}")]
    Unsupported { path: String, what: String },
    #[error(
        "{path}: its sections take more than {limit} bytes: expected at most that much (64 MiB) \
         to load"
    )]
    TooLarge { path: String, limit: u64 },
    #[error(
        "{path}: relocation {name} (type {kind}) in {section} at offset {offset:#x}: expected \
         only R_MIPS_NONE, R_MIPS_32, R_MIPS_26, R_MIPS_HI16 and R_MIPS_LO16; {advice}"
    )]
    Relocation {
        path: String,
        kind: u32,
        name: String,
        section: String,
        offset: u32,
        advice: &'static str,
    },
    #[error(
        "{path}: R_MIPS_26 in {section} at offset {offset:#x} jumps to {target:#x}: expected a \
         target in the 256 MiB region of the jump at {place:#010x}"
    )]
    JumpRange {
        path: String,
        section: String,
        offset: u32,
        place: u32,
        target: u64,
    },
    #[error("{path}: sections {first} and {second} overlap: expected disjoint sections")]
    Overlap {
        path: String,
        first: String,
        second: String,
    },
}

/// Whether `bytes` start with the ELF magic, so that callers can tell ELF input from
/// the other formats they accept.
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(&elf::ELFMAG)
}

/// Reads an ELF32 big-endian MIPS file (relocatable object or static executable);
/// `path` only names it in errors.
pub fn read(path: &str, bytes: &[u8]) -> Result<Image, ElfError> {
    let e = Errors { path };
    if !is_elf(bytes) {
        return Err(ElfError::NotElf { path: path.into() });
    }
    match bytes.get(4) {
        Some(&elf::ELFCLASS32) => {}
        Some(&elf::ELFCLASS64) => return Err(ElfError::Class64 { path: path.into() }),
        Some(c) => return Err(e.malformed(format!("EI_CLASS is {c}, expected 1 (ELFCLASS32)"))),
        None => return Err(e.truncated_header(bytes.len())),
    }
    match bytes.get(5) {
        Some(&elf::ELFDATA2MSB) => {}
        Some(&elf::ELFDATA2LSB) => return Err(ElfError::LittleEndian { path: path.into() }),
        Some(d) => return Err(e.malformed(format!("EI_DATA is {d}, expected 2 (big-endian)"))),
        None => return Err(e.truncated_header(bytes.len())),
    }
    if bytes.len() < size_of::<Header>() {
        return Err(e.truncated_header(bytes.len()));
    }
    // `object` reads its tables in place and (without its `unaligned` feature) wants
    // them 4-byte aligned; a caller's slice need not be, so a misaligned one is copied.
    let copy;
    let data = if bytes.as_ptr().align_offset(4) == 0 {
        bytes
    } else {
        copy = AlignedCopy::new(bytes);
        copy.bytes()
    };
    let header = Header::parse(data).map_err(|err| {
        e.malformed(format!(
            "ELF header: {err}: expected version 1 (EV_CURRENT)"
        ))
    })?;
    let endian = BigEndian;
    let machine = header.e_machine(endian);
    if machine != elf::EM_MIPS {
        return Err(ElfError::Machine {
            path: path.into(),
            machine,
        });
    }
    let e_type = header.e_type(endian);
    match e_type {
        elf::ET_REL | elf::ET_EXEC => {}
        elf::ET_DYN => {
            return Err(e.file_type(
                "a shared object or position-independent executable (ET_DYN)",
                "; build with -fno-pic -mno-abicalls -c, or link with -static -no-pie",
            ))
        }
        elf::ET_CORE => return Err(e.file_type("a core dump (ET_CORE)", "")),
        t => return Err(e.file_type(&format!("ELF type {t}"), "")),
    }
    let flags = header.e_flags(endian);
    if flags & elf::EF_MIPS_ABI2 != 0 {
        return Err(e.abi("n32"));
    }
    match flags & elf::EF_MIPS_ABI {
        0 | elf::EF_MIPS_ABI_O32 => {}
        elf::EF_MIPS_ABI_O64 => return Err(e.abi("o64")),
        elf::EF_MIPS_ABI_EABI32 => return Err(e.abi("EABI32")),
        elf::EF_MIPS_ABI_EABI64 => return Err(e.abi("EABI64")),
        _ => return Err(e.abi("unknown")),
    }
    let sections = header.sections(endian, data).map_err(|err| {
        e.malformed(format!(
            "section headers: {err}: expected a table of 40-byte entries and its string \
                 table within the file's {} bytes (is it truncated?)",
            data.len()
        ))
    })?;
    if sections.is_empty() {
        return Err(e.malformed(
            "it has no section headers: expected them, as gcc writes (was it stripped with sstrip?)"
                .into(),
        ));
    }
    let symtab = sections
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(|err| {
            e.malformed(format!(
                "symbol table: {err}: expected 16-byte entries and a string table within the \
                 file's {} bytes (is it truncated?)",
                data.len()
            ))
        })?;
    let reader = Reader {
        e,
        data,
        sections,
        symtab,
    };
    let mut image = if e_type == elf::ET_EXEC {
        reader.executable()?
    } else {
        reader.relocatable()?
    };
    image.sections.sort_by_key(|s| s.addr);
    if let Some(w) = image
        .sections
        .windows(2)
        .find(|w| w[0].end() > w[1].addr as u64)
    {
        return Err(ElfError::Overlap {
            path: path.into(),
            first: w[0].name.clone(),
            second: w[1].name.clone(),
        });
    }
    Ok(image)
}

/// Builds errors that name the file.
#[derive(Clone, Copy)]
struct Errors<'p> {
    path: &'p str,
}

impl Errors<'_> {
    fn malformed(self, what: String) -> ElfError {
        ElfError::Malformed {
            path: self.path.into(),
            what,
        }
    }

    fn unsupported(self, what: String) -> ElfError {
        ElfError::Unsupported {
            path: self.path.into(),
            what,
        }
    }

    fn truncated_header(self, len: usize) -> ElfError {
        self.malformed(format!(
            "the file is {len} bytes long: expected at least the {}-byte ELF32 header",
            size_of::<Header>()
        ))
    }

    fn file_type(self, what: &str, advice: &'static str) -> ElfError {
        ElfError::FileType {
            path: self.path.into(),
            what: what.into(),
            advice,
        }
    }

    fn abi(self, abi: &'static str) -> ElfError {
        ElfError::Abi {
            path: self.path.into(),
            abi,
        }
    }

    fn too_large(self) -> ElfError {
        ElfError::TooLarge {
            path: self.path.into(),
            limit: MAX_LOAD_BYTES,
        }
    }
}

/// A copy of a file at a 4-byte aligned address (safe code: a buffer 3 bytes longer
/// always holds an aligned start).
struct AlignedCopy {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedCopy {
    fn new(bytes: &[u8]) -> Self {
        let mut buf = vec![0; bytes.len() + 3];
        let start = (4 - buf.as_ptr() as usize % 4) % 4;
        if let Some(dst) = buf.get_mut(start..start + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
        AlignedCopy {
            buf,
            start,
            len: bytes.len(),
        }
    }

    fn bytes(&self) -> &[u8] {
        self.buf
            .get(self.start..self.start + self.len)
            .unwrap_or(&[])
    }
}

/// The parsed tables of one file.
struct Reader<'d> {
    e: Errors<'d>,
    data: &'d [u8],
    sections: Sections<'d>,
    symtab: Symbols<'d>,
}

/// A section on its way into the image, with the index the file gives it.
struct Placed {
    index: SectionIndex,
    section: Section,
}

/// Counts the bytes loaded so far against [`MAX_LOAD_BYTES`].
struct Budget {
    used: u64,
}

impl Budget {
    fn take(&mut self, size: u64, e: Errors) -> Result<(), ElfError> {
        self.used = self.used.saturating_add(size);
        if self.used > MAX_LOAD_BYTES {
            return Err(e.too_large());
        }
        Ok(())
    }
}

impl<'d> Reader<'d> {
    fn section_name(&self, index: SectionIndex) -> String {
        self.sections
            .section(index)
            .and_then(|h| self.sections.section_name(BigEndian, h))
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_else(|_| format!("section {}", index.0))
    }

    /// The section's bytes: its contents, or zeros when it occupies none of the file.
    fn contents(
        &self,
        index: SectionIndex,
        header: &elf::SectionHeader32<BigEndian>,
        budget: &mut Budget,
    ) -> Result<Vec<u8>, ElfError> {
        let size = header.sh_size(BigEndian) as u64;
        budget.take(size, self.e)?;
        if header.sh_type(BigEndian) == elf::SHT_NOBITS {
            return Ok(vec![0; size as usize]);
        }
        header
            .data(BigEndian, self.data)
            .map(<[u8]>::to_vec)
            .map_err(|err| {
                self.e.malformed(format!(
                    "{}: {err}: expected its {size} bytes inside the file",
                    self.section_name(index)
                ))
            })
    }

    /// A linked static executable: every allocated section at its own address.
    fn executable(&self) -> Result<Image, ElfError> {
        let endian = BigEndian;
        let mut budget = Budget { used: 0 };
        let mut image = Image::default();
        for (index, header) in self.sections.enumerate().skip(1) {
            let flags = header.sh_flags(endian);
            let sh_type = header.sh_type(endian);
            if sh_type == elf::SHT_DYNAMIC || self.section_name(index) == ".interp" {
                return Err(self
                    .e
                    .file_type("a dynamically linked executable", "; link with -static"));
            }
            // `.tbss` is only the template of each thread's zeroed TLS: it takes no
            // addresses of its own, and overlaps the sections after it.
            if flags & elf::SHF_ALLOC == 0
                || (flags & elf::SHF_TLS != 0 && sh_type == elf::SHT_NOBITS)
                || header.sh_size(endian) == 0
            {
                continue;
            }
            if flags & elf::SHF_COMPRESSED != 0 {
                return Err(self.compressed(index));
            }
            let addr = header.sh_addr(endian);
            let name = self.section_name(index);
            if addr as u64 + header.sh_size(endian) as u64 > 1 << 32 {
                return Err(self.e.malformed(format!(
                    "{name} at {addr:#x} is {} bytes long: expected it to end within the 4 GiB \
                     address space",
                    header.sh_size(endian)
                )));
            }
            let bytes = self.contents(index, header, &mut budget)?;
            image.sections.push(Section {
                name,
                addr,
                bytes,
                writable: flags & elf::SHF_WRITE != 0,
                executable: flags & elf::SHF_EXECINSTR != 0,
            });
        }
        let mut symbols = SymbolNames::default();
        for (index, sym) in self.symtab.enumerate() {
            let Some(kind) = symbol_kind(sym.st_type()) else {
                continue;
            };
            let Ok(Some(section)) = self.symtab.symbol_section(endian, sym, index) else {
                continue;
            };
            let allocated = self
                .sections
                .section(section)
                .is_ok_and(|h| h.sh_flags(endian) & elf::SHF_ALLOC != 0);
            if allocated {
                let symbol = Symbol {
                    addr: sym.st_value(endian),
                    size: sym.st_size(endian),
                    kind,
                };
                symbols.add(self.symbol_name(sym)?, symbol, sym.st_bind());
            }
        }
        image.symbols = symbols.into_map();
        Ok(image)
    }

    /// A relocatable object: lays its sections out, defines its `COMMON` symbols,
    /// applies its relocations.
    fn relocatable(&self) -> Result<Image, ElfError> {
        let endian = BigEndian;
        let mut budget = Budget { used: 0 };
        let mut text = u64::from(TEXT_BASE);
        let mut data = u64::from(DATA_BASE);
        // Every loaded section's address, zero-sized ones included: symbols and
        // relocations may name those too.
        let mut base: HashMap<usize, u32> = HashMap::new();
        let mut placed: Vec<Placed> = Vec::new();
        for (index, header) in self.sections.enumerate().skip(1) {
            let flags = header.sh_flags(endian);
            let name = self.section_name(index);
            if flags & elf::SHF_ALLOC == 0 || skipped(&name, header.sh_type(endian)) {
                continue;
            }
            if flags & elf::SHF_COMPRESSED != 0 {
                return Err(self.compressed(index));
            }
            if flags & elf::SHF_TLS != 0 {
                return Err(self.e.unsupported(format!(
                    "{name} holds thread-local storage: expected ordinary data (drop \
                     _Thread_local/__thread)"
                )));
            }
            let executable = flags & elf::SHF_EXECINSTR != 0;
            let (cursor, limit) = if executable {
                (&mut text, DATA_BASE)
            } else {
                (&mut data, UNDEFINED_BASE)
            };
            let align = header.sh_addralign(endian).max(1);
            let size = header.sh_size(endian);
            let addr = place(*cursor, align, size, limit).ok_or_else(|| {
                self.e.malformed(format!(
                    "{name} ({size} bytes, aligned to {align}) does not fit below {limit:#x}: \
                     expected a power-of-two alignment and a size that fits"
                ))
            })?;
            *cursor = addr as u64 + size as u64;
            base.insert(index.0, addr);
            let bytes = self.contents(index, header, &mut budget)?;
            if !bytes.is_empty() {
                placed.push(Placed {
                    index,
                    section: Section {
                        name,
                        addr,
                        bytes,
                        writable: flags & elf::SHF_WRITE != 0,
                        executable,
                    },
                });
            }
        }
        let common = self.place_common(&mut data, &mut budget, &mut placed)?;
        let mut undefined = Vec::new();
        self.apply_relocations(&base, &common, &mut placed, &mut undefined)?;

        let mut symbols = SymbolNames::default();
        for (index, sym) in self.symtab.enumerate() {
            let Some(kind) = symbol_kind(sym.st_type()) else {
                continue;
            };
            let addr = match sym.st_shndx(endian) {
                elf::SHN_ABS => Some(sym.st_value(endian)),
                elf::SHN_COMMON => common.get(&index.0).copied(),
                _ => match self.symtab.symbol_section(endian, sym, index) {
                    Ok(Some(s)) => match base.get(&s.0) {
                        Some(&b) => Some(b.checked_add(sym.st_value(endian)).ok_or_else(|| {
                            self.e.malformed(format!(
                                "symbol {} lies past the 4 GiB address space: expected a value \
                                 within its section",
                                String::from_utf8_lossy(self.symbol_name(sym).unwrap_or(b"?"))
                            ))
                        })?),
                        None => None,
                    },
                    _ => None,
                },
            };
            if let Some(addr) = addr {
                let symbol = Symbol {
                    addr,
                    size: sym.st_size(endian),
                    kind,
                };
                symbols.add(self.symbol_name(sym)?, symbol, sym.st_bind());
            }
        }
        Ok(Image {
            sections: placed.into_iter().map(|p| p.section).collect(),
            symbols: symbols.into_map(),
            undefined,
        })
    }

    /// Gives each `COMMON` symbol (an uninitialised global under `-fcommon`) zeroed
    /// space after the data, as a linker would; returns their addresses by symbol index.
    fn place_common(
        &self,
        data: &mut u64,
        budget: &mut Budget,
        placed: &mut Vec<Placed>,
    ) -> Result<HashMap<usize, u32>, ElfError> {
        let endian = BigEndian;
        let mut common = HashMap::new();
        let mut start = None;
        for (index, sym) in self.symtab.enumerate() {
            if sym.st_shndx(endian) != elf::SHN_COMMON {
                continue;
            }
            // A COMMON symbol's value is its alignment.
            let align = sym.st_value(endian).max(1);
            let size = sym.st_size(endian);
            let addr = place(*data, align, size, UNDEFINED_BASE).ok_or_else(|| {
                self.e.malformed(format!(
                    "COMMON symbol {} ({size} bytes, aligned to {align}) does not fit: expected \
                     a power-of-two alignment and a size that fits",
                    String::from_utf8_lossy(self.symbol_name(sym).unwrap_or(b"?"))
                ))
            })?;
            budget.take(size as u64, self.e)?;
            start.get_or_insert(addr);
            *data = addr as u64 + size as u64;
            common.insert(index.0, addr);
        }
        if let Some(addr) = start {
            let len = (*data - addr as u64) as usize;
            if len > 0 {
                placed.push(Placed {
                    index: SectionIndex(0),
                    section: Section {
                        name: "COMMON".into(),
                        addr,
                        bytes: vec![0; len],
                        writable: true,
                        executable: false,
                    },
                });
            }
        }
        Ok(common)
    }

    /// Applies every `SHT_REL` section whose target was loaded; refuses `RELA`/`CREL`
    /// ones there, which o32 never writes.
    fn apply_relocations(
        &self,
        base: &HashMap<usize, u32>,
        common: &HashMap<usize, u32>,
        placed: &mut [Placed],
        undefined: &mut Vec<Undefined>,
    ) -> Result<(), ElfError> {
        let endian = BigEndian;
        for (rel_index, header) in self.sections.enumerate() {
            let sh_type = header.sh_type(endian);
            if !matches!(sh_type, elf::SHT_REL | elf::SHT_RELA | elf::SHT_CREL) {
                continue;
            }
            let target = SectionIndex(header.sh_info(endian) as usize);
            if !base.contains_key(&target.0) {
                continue; // .rel.pdr, .rel.debug_*: their sections are not loaded
            }
            let section = self.section_name(target);
            if sh_type != elf::SHT_REL {
                return Err(self.e.unsupported(format!(
                    "{} relocates {section} with RELA/CREL entries: expected SHT_REL, as o32 \
                     objects have (build with mips-linux-gnu-gcc -mabi=32)",
                    self.section_name(rel_index)
                )));
            }
            let rels = match header.rel(endian, self.data) {
                Ok(Some((rels, link))) if link == self.symtab.section() => rels,
                Ok(_) => {
                    return Err(self.e.malformed(format!(
                        "{} links to section {}: expected the symbol table, section {}",
                        self.section_name(rel_index),
                        header.sh_link(endian),
                        self.symtab.section().0
                    )))
                }
                Err(err) => {
                    return Err(self.e.malformed(format!(
                        "{}: {err}: expected 8-byte entries within the file",
                        self.section_name(rel_index)
                    )))
                }
            };
            let mut relocs = Vec::with_capacity(rels.len());
            for rel in rels {
                relocs.push(self.resolve(rel, &section, base, common, undefined)?);
            }
            let Some(p) = placed.iter_mut().find(|p| p.index == target) else {
                // A zero-sized section: any relocation in it lies outside it.
                if let Some(r) = relocs.first() {
                    return Err(self.reloc_error(
                        &section,
                        RelocError::OutOfBounds {
                            offset: r.offset,
                            size: 0,
                        },
                    ));
                }
                continue;
            };
            relocate(&mut p.section.bytes, p.section.addr, &relocs)
                .map_err(|err| self.reloc_error(&section, err))?;
        }
        Ok(())
    }

    /// The relocation with its symbol's address `S` worked out.
    fn resolve(
        &self,
        rel: &elf::Rel32<BigEndian>,
        section: &str,
        base: &HashMap<usize, u32>,
        common: &HashMap<usize, u32>,
        undefined: &mut Vec<Undefined>,
    ) -> Result<Reloc, ElfError> {
        let endian = BigEndian;
        let kind = rel.r_type(endian);
        let offset = rel.r_offset(endian);
        let sym_index = rel.r_sym(endian);
        if !SUPPORTED.contains(&kind) {
            return Err(self.reloc_error(section, RelocError::Unsupported { kind, offset }));
        }
        let mut reloc = Reloc {
            offset,
            kind,
            sym: sym_index,
            s: 0,
            local: true,
            undefined: false,
        };
        if kind == elf::R_MIPS_NONE || sym_index == 0 {
            return Ok(reloc);
        }
        let index = SymbolIndex(sym_index as usize);
        let sym = self.symtab.symbol(index).map_err(|err| {
            self.e.malformed(format!(
                "relocation in {section} at offset {offset:#x}: {err}: expected one of the {} \
                 symbols",
                self.symtab.len()
            ))
        })?;
        reloc.local = sym.st_bind() == elf::STB_LOCAL;
        reloc.s = match sym.st_shndx(endian) {
            elf::SHN_ABS => sym.st_value(endian),
            elf::SHN_COMMON => common.get(&index.0).copied().unwrap_or(0),
            elf::SHN_UNDEF => {
                reloc.undefined = true;
                let name = String::from_utf8_lossy(self.symbol_name(sym)?).into_owned();
                slot(undefined, name).ok_or_else(|| {
                    self.e.unsupported(format!(
                        "more than {} undefined symbols: expected fewer",
                        (u32::MAX - UNDEFINED_BASE) / 8 + 1
                    ))
                })?
            }
            _ => {
                let s = self.symtab.symbol_section(endian, sym, index);
                let loaded = match s {
                    Ok(Some(s)) => base.get(&s.0).map(|&b| (s, b)),
                    _ => None,
                };
                let name = || String::from_utf8_lossy(self.symbol_name(sym).unwrap_or(b"?"));
                let Some((_, b)) = loaded else {
                    let home = match s {
                        Ok(Some(s)) => self.section_name(s),
                        _ => format!("section index {}", sym.st_shndx(endian)),
                    };
                    return Err(self.e.unsupported(format!(
                        "relocation in {section} at offset {offset:#x} refers to {} in {home}, \
                         which is not loaded: expected a symbol in a loaded section",
                        name()
                    )));
                };
                b.checked_add(sym.st_value(endian)).ok_or_else(|| {
                    self.e.malformed(format!(
                        "symbol {} lies past the 4 GiB address space: expected a value within \
                         its section",
                        name()
                    ))
                })?
            }
        };
        Ok(reloc)
    }

    fn symbol_name(&self, sym: &elf::Sym32<BigEndian>) -> Result<&'d [u8], ElfError> {
        self.symtab.symbol_name(BigEndian, sym).map_err(|err| {
            self.e.malformed(format!(
                "symbol name: {err}: expected an offset within the string table"
            ))
        })
    }

    fn compressed(&self, index: SectionIndex) -> ElfError {
        self.e.unsupported(format!(
            "{} is compressed: expected uncompressed sections (drop -gz / --compress-debug-sections)",
            self.section_name(index)
        ))
    }

    fn reloc_error(&self, section: &str, err: RelocError) -> ElfError {
        let path = self.e.path.to_string();
        let section = section.to_string();
        match err {
            RelocError::Unsupported { kind, offset } => ElfError::Relocation {
                path,
                kind,
                name: reloc_name(kind).map_or_else(|| format!("#{kind}"), str::to_string),
                section,
                offset,
                advice: reloc_advice(kind),
            },
            RelocError::JumpRange {
                offset,
                place,
                target,
            } => ElfError::JumpRange {
                path,
                section,
                offset,
                place,
                target,
            },
            RelocError::OutOfBounds { offset, size } => self.e.malformed(format!(
                "relocation in {section} at offset {offset:#x}: expected a word within its \
                 {size} bytes"
            )),
            RelocError::Misaligned { offset, target } => self.e.unsupported(format!(
                "R_MIPS_26 in {section} at offset {offset:#x} jumps to {target:#x}: expected a \
                 word-aligned target (MIPS16/microMIPS code is not supported)"
            )),
            RelocError::UnpairedHi { offset } => self.e.malformed(format!(
                "R_MIPS_HI16 in {section} at offset {offset:#x}: expected a later R_MIPS_LO16 \
                 against the same symbol"
            )),
        }
    }
}

/// Sections of a relocatable object that are allocated but hold no program: ABI
/// records, per-procedure debug records, notes.
fn skipped(name: &str, sh_type: u32) -> bool {
    matches!(
        name,
        ".reginfo" | ".MIPS.abiflags" | ".MIPS.options" | ".pdr" | ".comment" | ".gnu.attributes"
    ) || name.starts_with(".note")
        || name.starts_with(".mdebug")
        || matches!(
            sh_type,
            elf::SHT_NOTE | elf::SHT_MIPS_REGINFO | elf::SHT_MIPS_OPTIONS | SHT_MIPS_ABIFLAGS
        )
}

/// What an ELF symbol type names, if it is one the image keeps.
fn symbol_kind(st_type: u8) -> Option<SymbolKind> {
    match st_type {
        elf::STT_FUNC => Some(SymbolKind::Function),
        elf::STT_OBJECT => Some(SymbolKind::Object),
        _ => None,
    }
}

/// Symbols by name while they are gathered. Static functions in different files (or
/// a static and a global) may share a name; one name keeps the first global (or weak)
/// definition, else the first local one, so that the name the rest of the program
/// links against wins.
#[derive(Default)]
struct SymbolNames {
    map: BTreeMap<String, (Symbol, bool)>,
}

impl SymbolNames {
    fn add(&mut self, name: &[u8], symbol: Symbol, bind: u8) {
        if name.is_empty() {
            return;
        }
        let global = bind != elf::STB_LOCAL;
        let name = String::from_utf8_lossy(name).into_owned();
        match self.map.get(&name) {
            Some(&(_, true)) => {}
            Some(&(_, false)) if !global => {}
            _ => {
                self.map.insert(name, (symbol, global));
            }
        }
    }

    fn into_map(self) -> BTreeMap<String, Symbol> {
        self.map.into_iter().map(|(n, (s, _))| (n, s)).collect()
    }
}

/// The slot of undefined symbol `name`, given one in order of first use.
fn slot(undefined: &mut Vec<Undefined>, name: String) -> Option<u32> {
    if let Some(u) = undefined.iter().find(|u| u.name == name) {
        return Some(u.slot);
    }
    let k = u32::try_from(undefined.len()).ok()?;
    let slot = UNDEFINED_BASE.checked_add(k.checked_mul(8)?)?;
    undefined.push(Undefined { name, slot });
    Some(slot)
}

/// Where a section of `size` bytes aligned to `align` goes when the space so far ends
/// at `cursor`, if it is a power of two and the section ends by `limit`.
fn place(cursor: u64, align: u32, size: u32, limit: u32) -> Option<u32> {
    if !align.is_power_of_two() {
        return None;
    }
    let addr = cursor.checked_next_multiple_of(u64::from(align))?;
    if addr + u64::from(size) > u64::from(limit) {
        return None;
    }
    u32::try_from(addr).ok()
}

/// The relocation types applied.
const SUPPORTED: [u32; 5] = [
    elf::R_MIPS_NONE,
    elf::R_MIPS_32,
    elf::R_MIPS_26,
    elf::R_MIPS_HI16,
    elf::R_MIPS_LO16,
];

/// One relocation, its symbol resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reloc {
    /// The offset of the word it changes, in its section.
    offset: u32,
    kind: u32,
    /// Its symbol's index: HI16 and LO16 pair up by it.
    sym: u32,
    /// Its symbol's final address `S`.
    s: u32,
    /// Whether the symbol is local (a section symbol or a static), which changes
    /// how `R_MIPS_26` reads its addend.
    local: bool,
    /// Whether `S` is an undefined symbol's slot, which a jump cannot reach.
    undefined: bool,
}

/// Why relocations could not be applied, before the file and section are named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RelocError {
    Unsupported {
        kind: u32,
        offset: u32,
    },
    OutOfBounds {
        offset: u32,
        size: usize,
    },
    JumpRange {
        offset: u32,
        place: u32,
        target: u64,
    },
    Misaligned {
        offset: u32,
        target: u64,
    },
    UnpairedHi {
        offset: u32,
    },
}

/// Applies one section's relocations, in order, to its `bytes` placed at `base`.
/// The addends are implicit: they are read from the words being relocated.
fn relocate(bytes: &mut [u8], base: u32, relocs: &[Reloc]) -> Result<(), RelocError> {
    let size = bytes.len();
    let word = |bytes: &[u8], offset: u32| {
        get_word(bytes, offset).ok_or(RelocError::OutOfBounds { offset, size })
    };
    // HI16s wait, by symbol, for the next LO16 against it, which completes their
    // addend (a map, so that a file full of HI16s cannot make this quadratic).
    let mut pending: HashMap<u32, Vec<(usize, Reloc)>> = HashMap::new();
    for (k, r) in relocs.iter().enumerate() {
        match r.kind {
            elf::R_MIPS_NONE => {}
            elf::R_MIPS_32 => {
                let w = word(bytes, r.offset)?;
                set_word(bytes, r.offset, w.wrapping_add(r.s));
            }
            elf::R_MIPS_26 => {
                let w = word(bytes, r.offset)?;
                let place = base.wrapping_add(r.offset);
                let new = jump26(w, place, r.s, r.local, r.undefined).map_err(|e| match e {
                    JumpError::Range(target) => RelocError::JumpRange {
                        offset: r.offset,
                        place,
                        target,
                    },
                    JumpError::Misaligned(target) => RelocError::Misaligned {
                        offset: r.offset,
                        target,
                    },
                })?;
                set_word(bytes, r.offset, new);
            }
            elf::R_MIPS_HI16 => {
                word(bytes, r.offset)?;
                pending.entry(r.sym).or_default().push((k, *r));
            }
            elf::R_MIPS_LO16 => {
                let lo = word(bytes, r.offset)?;
                for (_, hi) in pending.remove(&r.sym).unwrap_or_default() {
                    let w = word(bytes, hi.offset)?;
                    let value = ahl(w, lo).wrapping_add(hi.s);
                    set_word(bytes, hi.offset, (w & 0xffff_0000) | hi_field(value));
                }
                // The low half of AHL + S is the low half of the LO16's own addend + S.
                let value = sign16(lo).wrapping_add(r.s);
                set_word(bytes, r.offset, (lo & 0xffff_0000) | (value & 0xffff));
            }
            kind => {
                return Err(RelocError::Unsupported {
                    kind,
                    offset: r.offset,
                })
            }
        }
    }
    match pending.values().flatten().min_by_key(|(k, _)| *k) {
        Some((_, hi)) => Err(RelocError::UnpairedHi { offset: hi.offset }),
        None => Ok(()),
    }
}

/// The low 16 bits of `word`, sign-extended, as `addiu`/`lw` use them.
fn sign16(word: u32) -> u32 {
    word as u16 as i16 as i32 as u32
}

/// The addend of a HI16/LO16 pair: `(AHI << 16) + (i16)ALO`.
fn ahl(hi_word: u32, lo_word: u32) -> u32 {
    (hi_word << 16).wrapping_add(sign16(lo_word))
}

/// The `lui` field for `value`: its high half, plus one when the low half (added
/// sign-extended by the paired instruction) is negative.
fn hi_field(value: u32) -> u32 {
    (value.wrapping_add(0x8000) >> 16) & 0xffff
}

/// Why an `R_MIPS_26` cannot be applied; the target is kept in 64 bits so an
/// overflow past 4 GiB shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JumpError {
    Range(u64),
    Misaligned(u64),
}

/// The `j`/`jal` word `word` at `place` relocated against `s`. A local symbol's
/// addend holds the low 28 bits of the target within the jump's region; a global
/// one's is a plain offset (unsigned, as o32 reads it). The region is that of the
/// delay slot (`place + 4`), as the CPU computes it; the ABI text says `P`, which
/// differs only for a jump in a region's last word. A jump to an undefined symbol's
/// slot is never in range: it keeps the slot's low 28 bits, which
/// [`Image::undefined_jump`] maps back to the slot.
fn jump26(word: u32, place: u32, s: u32, local: bool, undefined: bool) -> Result<u32, JumpError> {
    let a = u64::from(word & 0x03ff_ffff) << 2;
    let region = u64::from(place.wrapping_add(4) & 0xf000_0000);
    let target = if local { a | region } else { a } + u64::from(s);
    if target & 3 != 0 {
        return Err(JumpError::Misaligned(target));
    }
    if !undefined && target & !0x0fff_ffff != region {
        return Err(JumpError::Range(target));
    }
    Ok((word & 0xfc00_0000) | ((target >> 2) as u32 & 0x03ff_ffff))
}

fn get_word(bytes: &[u8], offset: u32) -> Option<u32> {
    let o = usize::try_from(offset).ok()?;
    let b: [u8; 4] = bytes.get(o..o.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_be_bytes(b))
}

/// Stores `w` at `offset`; callers have read the word there first, so it exists.
fn set_word(bytes: &mut [u8], offset: u32, w: u32) {
    let Ok(o) = usize::try_from(offset) else {
        return;
    };
    if let Some(b) = o.checked_add(4).and_then(|end| bytes.get_mut(o..end)) {
        b.copy_from_slice(&w.to_be_bytes());
    }
}

/// The ELF name of a MIPS relocation type, for errors.
fn reloc_name(kind: u32) -> Option<&'static str> {
    Some(match kind {
        elf::R_MIPS_NONE => "R_MIPS_NONE",
        elf::R_MIPS_16 => "R_MIPS_16",
        elf::R_MIPS_32 => "R_MIPS_32",
        elf::R_MIPS_REL32 => "R_MIPS_REL32",
        elf::R_MIPS_26 => "R_MIPS_26",
        elf::R_MIPS_HI16 => "R_MIPS_HI16",
        elf::R_MIPS_LO16 => "R_MIPS_LO16",
        elf::R_MIPS_GPREL16 => "R_MIPS_GPREL16",
        elf::R_MIPS_LITERAL => "R_MIPS_LITERAL",
        elf::R_MIPS_GOT16 => "R_MIPS_GOT16",
        elf::R_MIPS_PC16 => "R_MIPS_PC16",
        elf::R_MIPS_CALL16 => "R_MIPS_CALL16",
        elf::R_MIPS_GPREL32 => "R_MIPS_GPREL32",
        elf::R_MIPS_SHIFT5 => "R_MIPS_SHIFT5",
        elf::R_MIPS_SHIFT6 => "R_MIPS_SHIFT6",
        elf::R_MIPS_64 => "R_MIPS_64",
        elf::R_MIPS_GOT_DISP => "R_MIPS_GOT_DISP",
        elf::R_MIPS_GOT_PAGE => "R_MIPS_GOT_PAGE",
        elf::R_MIPS_GOT_OFST => "R_MIPS_GOT_OFST",
        elf::R_MIPS_GOT_HI16 => "R_MIPS_GOT_HI16",
        elf::R_MIPS_GOT_LO16 => "R_MIPS_GOT_LO16",
        elf::R_MIPS_SUB => "R_MIPS_SUB",
        elf::R_MIPS_HIGHER => "R_MIPS_HIGHER",
        elf::R_MIPS_HIGHEST => "R_MIPS_HIGHEST",
        elf::R_MIPS_CALL_HI16 => "R_MIPS_CALL_HI16",
        elf::R_MIPS_CALL_LO16 => "R_MIPS_CALL_LO16",
        elf::R_MIPS_JALR => "R_MIPS_JALR",
        elf::R_MIPS_TLS_DTPMOD32 => "R_MIPS_TLS_DTPMOD32",
        elf::R_MIPS_TLS_DTPREL32 => "R_MIPS_TLS_DTPREL32",
        elf::R_MIPS_TLS_GD => "R_MIPS_TLS_GD",
        elf::R_MIPS_TLS_LDM => "R_MIPS_TLS_LDM",
        elf::R_MIPS_TLS_DTPREL_HI16 => "R_MIPS_TLS_DTPREL_HI16",
        elf::R_MIPS_TLS_DTPREL_LO16 => "R_MIPS_TLS_DTPREL_LO16",
        elf::R_MIPS_TLS_GOTTPREL => "R_MIPS_TLS_GOTTPREL",
        elf::R_MIPS_TLS_TPREL32 => "R_MIPS_TLS_TPREL32",
        elf::R_MIPS_TLS_TPREL_HI16 => "R_MIPS_TLS_TPREL_HI16",
        elf::R_MIPS_TLS_TPREL_LO16 => "R_MIPS_TLS_TPREL_LO16",
        elf::R_MIPS_COPY => "R_MIPS_COPY",
        elf::R_MIPS_JUMP_SLOT => "R_MIPS_JUMP_SLOT",
        248 => "R_MIPS_PC32",
        _ => return None,
    })
}

/// What to change so that gcc does not emit relocation `kind`.
fn reloc_advice(kind: u32) -> &'static str {
    match kind {
        elf::R_MIPS_GPREL16 | elf::R_MIPS_GPREL32 | elf::R_MIPS_LITERAL => {
            "build with -G0 -fno-pic -mno-abicalls (no $gp-relative small data)"
        }
        elf::R_MIPS_TLS_DTPMOD32..=elf::R_MIPS_TLS_TPREL_LO16 => {
            "thread-local storage is not supported (drop _Thread_local/__thread)"
        }
        _ => NO_PIC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reloc(offset: u32, kind: u32, sym: u32, s: u32, local: bool) -> Reloc {
        Reloc {
            offset,
            kind,
            sym,
            s,
            local,
            undefined: false,
        }
    }

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    fn word_at(bytes: &[u8], k: usize) -> u32 {
        get_word(bytes, (4 * k) as u32).unwrap()
    }

    /// A minimal ELF32 header with the given identification and fields, followed by
    /// nothing else.
    fn header(class: u8, data: u8, e_type: u16, machine: u16) -> Vec<u8> {
        let mut h = vec![0u8; 52];
        h[..4].copy_from_slice(&elf::ELFMAG);
        h[4] = class;
        h[5] = data;
        h[6] = 1; // EV_CURRENT
        let put16 = |h: &mut Vec<u8>, at: usize, v: u16| {
            let b = if data == elf::ELFDATA2LSB {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            };
            h[at..at + 2].copy_from_slice(&b);
        };
        put16(&mut h, 16, e_type);
        put16(&mut h, 18, machine);
        h[20..24].copy_from_slice(&1u32.to_be_bytes());
        put16(&mut h, 40, 52); // e_ehsize
        h
    }

    #[test]
    fn hi_field_rounds_up_for_a_negative_low_half() {
        assert_eq!(hi_field(0x1000_7fff), 0x1000);
        assert_eq!(hi_field(0x1000_8000), 0x1001);
        assert_eq!(hi_field(0xffff_8000), 0x0000);
        assert_eq!(ahl(0x3c02_0001, 0x2442_fff0), 0x0000_fff0);
        assert_eq!(ahl(0x3c02_0000, 0x2442_8000), 0xffff_8000);
    }

    #[test]
    fn hi16_lo16_pair_resolves_a_full_address() {
        // lui v0,%hi(x+0x10); addiu v0,v0,%lo(x+0x10) against x at 0x1000_8ff8.
        let mut bytes = words(&[0x3c02_0000, 0x2442_0010]);
        let s = 0x1000_8ff8;
        let relocs = [
            reloc(0, elf::R_MIPS_HI16, 7, s, false),
            reloc(4, elf::R_MIPS_LO16, 7, s, false),
        ];
        relocate(&mut bytes, TEXT_BASE, &relocs).unwrap();
        let (hi, lo) = (word_at(&bytes, 0), word_at(&bytes, 1));
        assert_eq!(hi, 0x3c02_1001);
        assert_eq!(lo, 0x2442_9008);
        assert_eq!((hi << 16).wrapping_add(sign16(lo)), s + 0x10);
    }

    #[test]
    fn hi16_addend_takes_the_paired_lo16_offset() {
        // A negative LO16 addend: the HI16's AHL is (1 << 16) - 4.
        let mut bytes = words(&[0x3c02_0001, 0x8c42_fffc]);
        let relocs = [
            reloc(0, elf::R_MIPS_HI16, 3, 0x1000_0000, true),
            reloc(4, elf::R_MIPS_LO16, 3, 0x1000_0000, true),
        ];
        relocate(&mut bytes, TEXT_BASE, &relocs).unwrap();
        let (hi, lo) = (word_at(&bytes, 0), word_at(&bytes, 1));
        assert_eq!((hi << 16).wrapping_add(sign16(lo)), 0x1000_fffc);
        assert_eq!(lo & 0xffff, 0xfffc);
    }

    #[test]
    fn several_hi16_share_one_lo16_and_a_later_lo16_stands_alone() {
        let mut bytes = words(&[0x3c02_0000, 0x3c03_0000, 0x8c42_0004, 0x8c63_0008]);
        let s = 0x1000_fff0;
        let relocs = [
            reloc(0, elf::R_MIPS_HI16, 1, s, true),
            reloc(4, elf::R_MIPS_HI16, 1, s, true),
            reloc(8, elf::R_MIPS_LO16, 1, s, true),
            reloc(12, elf::R_MIPS_LO16, 1, s, true),
        ];
        relocate(&mut bytes, TEXT_BASE, &relocs).unwrap();
        assert_eq!(word_at(&bytes, 0) & 0xffff, 0x1001);
        assert_eq!(word_at(&bytes, 1) & 0xffff, 0x1001);
        assert_eq!(word_at(&bytes, 2) & 0xffff, 0xfff4);
        assert_eq!(word_at(&bytes, 3) & 0xffff, 0xfff8);
    }

    #[test]
    fn hi16_pairs_only_with_its_own_symbol() {
        let mut bytes = words(&[0x3c02_0000, 0x2463_0000, 0x2442_0000]);
        let relocs = [
            reloc(0, elf::R_MIPS_HI16, 1, 0x1234_8000, false),
            reloc(4, elf::R_MIPS_LO16, 2, 0x0000_0010, false),
            reloc(8, elf::R_MIPS_LO16, 1, 0x1234_8000, false),
        ];
        relocate(&mut bytes, TEXT_BASE, &relocs).unwrap();
        assert_eq!(word_at(&bytes, 0), 0x3c02_1235);
        assert_eq!(word_at(&bytes, 1), 0x2463_0010);
        assert_eq!(word_at(&bytes, 2), 0x2442_8000);
    }

    #[test]
    fn unpaired_hi16_is_an_error() {
        let mut bytes = words(&[0x3c02_0000]);
        let relocs = [reloc(0, elf::R_MIPS_HI16, 1, 0x1000_0000, false)];
        assert_eq!(
            relocate(&mut bytes, TEXT_BASE, &relocs),
            Err(RelocError::UnpairedHi { offset: 0 })
        );
    }

    #[test]
    fn unpaired_hi16_reports_the_first() {
        let mut bytes = words(&[0x3c02_0000, 0x3c03_0000, 0x2442_0000]);
        let relocs = [
            reloc(0, elf::R_MIPS_HI16, 9, 0, false),
            reloc(4, elf::R_MIPS_HI16, 1, 0, false),
            reloc(8, elf::R_MIPS_LO16, 1, 0, false),
        ];
        assert_eq!(
            relocate(&mut bytes, TEXT_BASE, &relocs),
            Err(RelocError::UnpairedHi { offset: 0 })
        );
    }

    #[test]
    fn r_mips_32_adds_the_symbol() {
        let mut bytes = words(&[0x0000_0054, 0]);
        let relocs = [reloc(0, elf::R_MIPS_32, 2, TEXT_BASE, true)];
        relocate(&mut bytes, DATA_BASE, &relocs).unwrap();
        assert_eq!(word_at(&bytes, 0), TEXT_BASE + 0x54);
        assert_eq!(word_at(&bytes, 1), 0);
    }

    #[test]
    fn r_mips_26_local_and_global() {
        // jal .text+0x40 against the section symbol (local): addend 0x10 words.
        let jal = 0x0c00_0010;
        let w = jump26(jal, TEXT_BASE + 0x100, TEXT_BASE, true, false).unwrap();
        assert_eq!(w, 0x0c00_0000 | ((TEXT_BASE + 0x40) >> 2));
        // jal f against global f: the addend is a plain (usually zero) offset.
        let w = jump26(0x0c00_0000, TEXT_BASE, TEXT_BASE + 0x88, false, false).unwrap();
        assert_eq!(w, 0x0c00_0000 | ((TEXT_BASE + 0x88) >> 2));
        // A local addend keeps the jump's region (here 0x1000_0000) before adding S.
        let w = jump26(0x0800_0004, 0x1000_0000, 0x20, true, false).unwrap();
        assert_eq!(w, 0x0800_0000 | ((0x1000_0030u32 >> 2) & 0x03ff_ffff));
    }

    #[test]
    fn r_mips_26_out_of_region_or_misaligned() {
        assert_eq!(
            jump26(0x0c00_0000, TEXT_BASE, 0x1000_0000, false, false),
            Err(JumpError::Range(0x1000_0000))
        );
        assert_eq!(
            jump26(0x0c00_0000, TEXT_BASE, TEXT_BASE + 1, false, false),
            Err(JumpError::Misaligned(u64::from(TEXT_BASE) + 1))
        );
        // An undefined symbol's slot: out of range by design, its low 28 bits kept.
        let w = jump26(0x0c00_0000, TEXT_BASE, UNDEFINED_BASE + 8, false, true).unwrap();
        assert_eq!(w << 2 & 0x0fff_ffff, (UNDEFINED_BASE + 8) & 0x0fff_ffff);
        // Through relocate, the error names the place.
        let mut bytes = words(&[0x0c00_0000]);
        let relocs = [reloc(0, elf::R_MIPS_26, 1, 0x2000_0000, false)];
        assert_eq!(
            relocate(&mut bytes, TEXT_BASE, &relocs),
            Err(RelocError::JumpRange {
                offset: 0,
                place: TEXT_BASE,
                target: 0x2000_0000
            })
        );
    }

    #[test]
    fn relocation_outside_its_section_is_an_error() {
        let mut bytes = words(&[0]);
        for offset in [2, 4, u32::MAX - 1] {
            let relocs = [reloc(offset, elf::R_MIPS_32, 1, 0, true)];
            assert_eq!(
                relocate(&mut bytes, 0, &relocs),
                Err(RelocError::OutOfBounds { offset, size: 4 })
            );
        }
        let relocs = [reloc(0, elf::R_MIPS_GPREL16, 1, 0, true)];
        assert_eq!(
            relocate(&mut bytes, 0, &relocs),
            Err(RelocError::Unsupported {
                kind: elf::R_MIPS_GPREL16,
                offset: 0
            })
        );
    }

    #[test]
    fn placement_aligns_and_refuses_overflow() {
        assert_eq!(place(0x40_0001, 16, 8, DATA_BASE), Some(0x40_0010));
        assert_eq!(place(0x40_0001, 1, 8, DATA_BASE), Some(0x40_0001));
        assert_eq!(place(0x40_0000, 3, 8, DATA_BASE), None);
        assert_eq!(place(0x0fff_fff0, 16, 0x20, DATA_BASE), None);
        assert_eq!(
            place(0x1000_0000, 1 << 31, 1, UNDEFINED_BASE),
            Some(1 << 31)
        );
        assert_eq!(place(0x8000_0001, 1 << 31, 1, UNDEFINED_BASE), None);
        assert_eq!(place(u64::MAX, 16, 1, UNDEFINED_BASE), None);
    }

    #[test]
    fn symbol_names_prefer_the_first_global() {
        let sym = |addr| Symbol {
            addr,
            size: 4,
            kind: SymbolKind::Function,
        };
        let mut names = SymbolNames::default();
        names.add(b"f", sym(1), elf::STB_LOCAL);
        names.add(b"f", sym(2), elf::STB_LOCAL);
        assert_eq!(names.map["f"].0.addr, 1);
        names.add(b"f", sym(3), elf::STB_GLOBAL);
        names.add(b"f", sym(4), elf::STB_GLOBAL);
        names.add(b"f", sym(5), elf::STB_LOCAL);
        names.add(b"", sym(6), elf::STB_GLOBAL);
        let map = names.into_map();
        assert_eq!(map["f"].addr, 3);
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn undefined_slots_follow_first_use() {
        let mut undefined = Vec::new();
        assert_eq!(slot(&mut undefined, "a".into()), Some(UNDEFINED_BASE));
        assert_eq!(slot(&mut undefined, "b".into()), Some(UNDEFINED_BASE + 8));
        assert_eq!(slot(&mut undefined, "a".into()), Some(UNDEFINED_BASE));
        assert_eq!(undefined.len(), 2);
    }

    #[test]
    fn refuses_what_is_not_elf32_big_endian_mips() {
        let err = |bytes: &[u8]| read("f.o", bytes).unwrap_err();
        assert!(matches!(err(b"hello"), ElfError::NotElf { .. }));
        assert!(matches!(err(b""), ElfError::NotElf { .. }));
        let e = err(&header(
            elf::ELFCLASS64,
            elf::ELFDATA2MSB,
            elf::ET_REL,
            elf::EM_MIPS,
        ));
        assert!(matches!(e, ElfError::Class64 { .. }));
        let e = err(&header(
            elf::ELFCLASS32,
            elf::ELFDATA2LSB,
            elf::ET_REL,
            elf::EM_MIPS,
        ));
        assert!(matches!(e, ElfError::LittleEndian { .. }));
        let e = err(&header(elf::ELFCLASS32, elf::ELFDATA2MSB, elf::ET_REL, 3));
        assert!(matches!(e, ElfError::Machine { machine: 3, .. }));
        let e = err(&header(
            elf::ELFCLASS32,
            elf::ELFDATA2MSB,
            elf::ET_DYN,
            elf::EM_MIPS,
        ));
        assert!(matches!(e, ElfError::FileType { .. }));
        assert!(e.to_string().contains("-fno-pic -mno-abicalls"), "{e}");
        // No section headers at all.
        let e = err(&header(
            elf::ELFCLASS32,
            elf::ELFDATA2MSB,
            elf::ET_REL,
            elf::EM_MIPS,
        ));
        assert!(matches!(e, ElfError::Malformed { .. }), "{e}");
        for e in [
            err(b"hello"),
            err(&header(
                elf::ELFCLASS64,
                elf::ELFDATA2MSB,
                elf::ET_REL,
                elf::EM_MIPS,
            )),
        ] {
            assert!(e.to_string().starts_with("f.o: "), "{e}");
            assert!(e.to_string().contains("expected"), "{e}");
        }
    }

    #[test]
    fn truncated_and_corrupt_headers_are_errors() {
        let full = header(elf::ELFCLASS32, elf::ELFDATA2MSB, elf::ET_REL, elf::EM_MIPS);
        for len in 4..full.len() {
            let e = read("t.o", &full[..len]).unwrap_err();
            assert!(e.to_string().starts_with("t.o: "), "{e}");
        }
        // Section headers far past the end, with a huge count.
        let mut h = full.clone();
        h[32..36].copy_from_slice(&0x7fff_fff0u32.to_be_bytes()); // e_shoff
        h[46..48].copy_from_slice(&40u16.to_be_bytes()); // e_shentsize
        h[48..50].copy_from_slice(&0xffffu16.to_be_bytes()); // e_shnum
        assert!(matches!(read("t.o", &h), Err(ElfError::Malformed { .. })));
        // Misaligned input is read (here, refused) like aligned input.
        let mut shifted = vec![0u8];
        shifted.extend_from_slice(&h);
        assert!(matches!(
            read("t.o", &shifted[1..]),
            Err(ElfError::Malformed { .. })
        ));
    }
}
