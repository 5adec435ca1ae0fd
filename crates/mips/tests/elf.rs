//! The ELF reader on what `mips-linux-gnu-gcc` really writes: small C files compiled
//! to relocatable objects (and one static executable), loaded, and checked against
//! `mips-linux-gnu-nm` and by decoding the relocated instructions by hand.

use std::path::{Path, PathBuf};
use std::process::Command;

use tamarin_mips::mips32::elf::{self, ElfError};
use tamarin_mips::mips32::image::{DATA_BASE, TEXT_BASE, UNDEFINED_BASE};
use tamarin_mips::mips32::{Image, SymbolKind};

const GCC: &str = "mips-linux-gnu-gcc";
const NM: &str = "mips-linux-gnu-nm";
const LD: &str = "mips-linux-gnu-ld";
/// The flags for objects the reader accepts.
const FLAGS: &[&str] = &["-O2", "-fno-pic", "-mno-abicalls", "-c"];

/// Runs `tool` with `args`, failing the test (never skipping it) when the cross
/// toolchain is missing.
fn run(dir: &Path, tool: &str, args: &[&str]) -> std::process::Output {
    let out = Command::new(tool)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {tool} ({e}): install gcc-mips-linux-gnu (apt-get install gcc-mips-linux-gnu binutils-mips-linux-gnu)")
        });
    out
}

/// Compiles `src` with `args` into `out` in a fresh directory; returns the
/// directory (kept alive by the caller) and the output's path.
fn compile(src: &str, args: &[&str], out: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.c"), src).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["t.c", "-o", out]);
    let result = run(dir.path(), GCC, &all);
    assert!(
        result.status.success(),
        "{GCC} {all:?} failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let path = dir.path().join(out);
    (dir, path)
}

fn load(path: &Path) -> Result<Image, ElfError> {
    let bytes = std::fs::read(path).unwrap();
    assert!(elf::is_elf(&bytes));
    elf::read(&path.display().to_string(), &bytes)
}

/// `nm -S --defined-only`: (value, size, type letter) by name, for symbols with sizes.
fn nm(path: &Path) -> Vec<(String, u32, u32, char)> {
    let out = run(
        path.parent().unwrap(),
        NM,
        &["-S", "--defined-only", path.to_str().unwrap()],
    );
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [value, size, kind, name] = f[..] else {
                return None;
            };
            Some((
                name.to_string(),
                u32::from_str_radix(value, 16).unwrap(),
                u32::from_str_radix(size, 16).unwrap(),
                kind.chars().next().unwrap(),
            ))
        })
        .collect()
}

/// The words of function `name`.
fn code(image: &Image, name: &str) -> Vec<(u32, u32)> {
    let f = image
        .function(name)
        .unwrap_or_else(|| panic!("no function {name}"));
    (f.addr..f.addr + f.size)
        .step_by(4)
        .map(|a| (a, image.word(a).unwrap()))
        .collect()
}

/// Where each `jal` (opcode 3) in function `name` lands.
fn jal_targets(image: &Image, name: &str) -> Vec<u32> {
    code(image, name)
        .into_iter()
        .filter(|&(_, w)| w >> 26 == 3)
        .map(|(a, w)| (a.wrapping_add(4) & 0xf000_0000) | ((w & 0x03ff_ffff) << 2))
        .collect()
}

const PROGRAM: &str = r#"
int table[16];
extern int ext(int);

__attribute__((noipa)) int get(int i) { return table[i]; }
static __attribute__((noipa)) int twice(int x) { return x + x + table[1]; }

int sw(int x) {
  switch (x) {
  case 0: return get(x) + 5;
  case 1: return 7;
  case 2: return twice(x) + 1;
  case 3: return 99;
  case 4: return x * x;
  case 5: return table[3];
  case 6: return 12;
  case 7: return -8;
  default: return -1;
  }
}

int caller(int x) { return get(x) + twice(x) * 3; }
int calls_ext(int x) { return ext(x) + 1; }
int *address_of_table(void) { return table; }
const char *message(void) { return "hello"; }
"#;

fn program() -> (tempfile::TempDir, PathBuf, Image) {
    let (dir, path) = compile(PROGRAM, FLAGS, "t.o");
    let image = load(&path).unwrap_or_else(|e| panic!("{e}"));
    (dir, path, image)
}

#[test]
fn functions_match_nm_in_address_and_size() {
    let (_dir, path, image) = program();
    let mut functions = 0;
    for (name, value, size, kind) in nm(&path) {
        if kind.eq_ignore_ascii_case(&'t') {
            let f = image
                .function(&name)
                .unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(f.addr, TEXT_BASE + value, "{name}");
            assert_eq!(f.size, size, "{name}");
            functions += 1;
        }
    }
    // get, twice (static), sw, caller, calls_ext, address_of_table, message.
    assert_eq!(functions, 7, "{:?}", image.functions());
    assert_eq!(image.functions().len(), 7);
    let table = image.symbols["table"];
    assert_eq!(table.kind, SymbolKind::Object);
    assert_eq!(table.size, 64);
    assert!(table.addr >= DATA_BASE);
    // Sections are sorted, disjoint, and code comes first.
    let s = &image.sections;
    assert!(s.windows(2).all(|w| w[0].end() <= w[1].addr as u64));
    assert!(s[0].executable && s[0].addr == TEXT_BASE);
    assert!(s.iter().any(|s| s.name == ".bss" && s.writable));
    assert!(!s
        .iter()
        .any(|s| [".reginfo", ".pdr", ".comment"].contains(&s.name.as_str())));
}

#[test]
fn jump_table_entries_point_into_their_function() {
    let (_dir, _path, image) = program();
    let sw = image.function("sw").unwrap();
    let rodata = image
        .sections
        .iter()
        .find(|s| s.name == ".rodata")
        .expect("the switch's jump table in .rodata");
    assert!(!rodata.writable && !rodata.executable);
    let entries: Vec<u32> = (0..rodata.bytes.len() as u32 / 4)
        .map(|k| image.word(rodata.addr + 4 * k).unwrap())
        .collect();
    assert!(entries.len() >= 8, "{entries:x?}");
    for e in &entries {
        assert!(
            sw.addr < *e && *e < sw.addr + sw.size && e.is_multiple_of(4),
            "entry {e:#x} outside sw at {:#x}+{:#x}",
            sw.addr,
            sw.size
        );
    }
    let mut distinct = entries.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() >= 6, "{entries:x?}");
}

#[test]
fn lui_addiu_pair_resolves_to_the_array() {
    let (_dir, _path, image) = program();
    let table = image.symbols["table"].addr;
    let words = code(&image, "address_of_table");
    let (k, lui) = words
        .iter()
        .enumerate()
        .find(|(_, (_, w))| w >> 26 == 0x0f)
        .map(|(k, &(_, w))| (k, w))
        .expect("a lui");
    let reg = (lui >> 16) & 31;
    let addiu = words[k + 1..]
        .iter()
        .map(|&(_, w)| w)
        .find(|w| w >> 26 == 0x09 && (w >> 21) & 31 == reg)
        .expect("an addiu from the lui's register");
    let address = (lui << 16).wrapping_add(addiu as u16 as i16 as i32 as u32);
    assert_eq!(address, table, "lui {lui:#010x} / addiu {addiu:#010x}");
    // The string literal's address lands inside its section too.
    let words = code(&image, "message");
    let lui = words
        .iter()
        .map(|&(_, w)| w)
        .find(|w| w >> 26 == 0x0f)
        .unwrap();
    let addiu = words
        .iter()
        .map(|&(_, w)| w)
        .find(|w| w >> 26 == 0x09)
        .unwrap();
    let address = (lui << 16).wrapping_add(addiu as u16 as i16 as i32 as u32);
    let s = image.section_at(address).expect("message's string");
    assert!(s.name.starts_with(".rodata"), "{}", s.name);
    assert_eq!(s.bytes[(address - s.addr) as usize..][..6], *b"hello\0");
}

#[test]
fn jal_resolves_to_global_and_static_functions() {
    let (_dir, _path, image) = program();
    let targets = jal_targets(&image, "caller");
    let get = image.function("get").unwrap().addr;
    let twice = image.function("twice").unwrap().addr;
    assert!(targets.contains(&get), "{targets:x?} vs get at {get:#x}");
    assert!(
        targets.contains(&twice),
        "{targets:x?} vs twice at {twice:#x}"
    );
}

#[test]
fn call_to_undefined_function_uses_its_slot() {
    let (_dir, _path, image) = program();
    let ext = image
        .undefined
        .iter()
        .find(|u| u.name == "ext")
        .expect("ext undefined");
    assert!(ext.slot >= UNDEFINED_BASE && (ext.slot - UNDEFINED_BASE).is_multiple_of(8));
    assert_eq!(image.undefined_at(ext.slot), Some("ext"));
    assert_eq!(image.undefined.len(), 1, "{:?}", image.undefined);
    // calls_ext calls ext, possibly as a tail call (`j`): either jump lands on the
    // slot's in-region alias.
    let jumps: Vec<u32> = code(&image, "calls_ext")
        .into_iter()
        .filter(|&(_, w)| w >> 26 == 2 || w >> 26 == 3)
        .map(|(a, w)| (a.wrapping_add(4) & 0xf000_0000) | ((w & 0x03ff_ffff) << 2))
        .collect();
    assert_eq!(jumps.len(), 1, "{jumps:x?}");
    assert_eq!(jumps[0] & 0x0fff_ffff, ext.slot & 0x0fff_ffff);
    assert_eq!(image.undefined_jump(jumps[0]), Some("ext"));
    assert_eq!(
        image.undefined_jump(image.function("get").unwrap().addr),
        None
    );
}

/// Initialised pointers, a function pointer, statics, a jump table, a string: every
/// relocation kind the reader applies, with nothing left undefined.
const LINKABLE: &str = r#"
int table[16];
int ext(int x) { return x ^ 5; }
__attribute__((noipa)) int get(int i) { return table[i]; }
static __attribute__((noipa)) int twice(int x) { return x + x + table[1]; }
static int counter;
int data_init[3] = {7, 8, 9};
int *ptr = &table[2];
int (*fp)(int) = get;
int sw(int x) {
  switch (x) {
  case 0: return get(x) + 5;
  case 1: return 7;
  case 2: return twice(x) + 1;
  case 3: return 99;
  case 4: return x * x;
  case 5: return table[3] + counter++;
  case 6: return 12;
  case 7: return -8;
  default: return -1;
  }
}
int caller(int x) { return get(x) + twice(x) * 3 + fp(x) + *ptr; }
int calls_ext(int x) { return ext(x) + 1; }
int *far_into_table(void) { return table + 5000; }
const char *message(void) { return "hello"; }
"#;

#[test]
fn relocated_object_matches_gnu_ld_with_the_same_layout() {
    let (dir, path) = compile(LINKABLE, FLAGS, "l.o");
    let image = load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(image.undefined.is_empty(), "{:?}", image.undefined);
    // A linker script that places the sections the reader kept where it put them,
    // in the same order, and drops the rest; GNU ld then applies the relocations.
    let mut script = String::from("SECTIONS {\n");
    let mut text = true;
    for (k, s) in image.sections.iter().enumerate() {
        let at = if k == 0 {
            format!(" {TEXT_BASE:#x}")
        } else if text && !s.executable {
            text = false;
            format!(" {DATA_BASE:#x}")
        } else {
            String::new()
        };
        script += &format!("  {}{at} : {{ l.o({}) }}\n", s.name, s.name);
    }
    script += "  /DISCARD/ : { *(*) }\n}\n";
    std::fs::write(dir.path().join("l.ld"), script).unwrap();
    let out = run(dir.path(), LD, &["-T", "l.ld", "l.o", "-o", "l.exe"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let linked = load(&dir.path().join("l.exe")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(image.sections, linked.sections);
    assert_eq!(image.symbols, linked.symbols);
}

#[test]
fn common_symbols_get_zeroed_space() {
    let src = "int counter;\nint bump(void) { return ++counter; }\n";
    let mut flags = FLAGS.to_vec();
    flags.push("-fcommon");
    let (_dir, path) = compile(src, &flags, "c.o");
    let image = load(&path).unwrap_or_else(|e| panic!("{e}"));
    let counter = image.symbols["counter"];
    let section = image.section_at(counter.addr).expect("counter's space");
    assert_eq!(section.name, "COMMON");
    assert!(section.writable);
    let words = code(&image, "bump");
    let lui = words
        .iter()
        .map(|&(_, w)| w)
        .find(|w| w >> 26 == 0x0f)
        .unwrap();
    let lw = words
        .iter()
        .map(|&(_, w)| w)
        .find(|w| w >> 26 == 0x23)
        .unwrap();
    let address = (lui << 16).wrapping_add(lw as u16 as i16 as i32 as u32);
    assert_eq!(address, counter.addr);
}

#[test]
fn static_executable_loads_with_main() {
    let src = "int main(void) { return 0; }\n";
    let (_dir, path) = compile(src, &["-static", "-O2"], "t");
    let image = load(&path).unwrap_or_else(|e| panic!("{e}"));
    let main = image.function("main").expect("main");
    let (_, value, size, _) = nm(&path).into_iter().find(|s| s.0 == "main").unwrap();
    assert_eq!((main.addr, main.size), (value, size));
    let text = image.section_at(main.addr).unwrap();
    assert!(text.executable && !text.writable);
    assert!(image.word(main.addr).is_some());
    assert!(image.undefined.is_empty());
    let s = &image.sections;
    assert!(s.windows(2).all(|w| w[0].end() <= w[1].addr as u64));
    assert!(!s.iter().any(|s| s.name == ".tbss"));
}

#[test]
fn position_independent_code_is_refused_with_advice() {
    let src = "extern int x;\nextern int f(void);\nint g(void) { return f() + x; }\n";
    let (_dir, path) = compile(src, &["-O2", "-fPIC", "-c"], "p.o");
    let e = load(&path).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, ElfError::Relocation { .. }), "{msg}");
    assert!(msg.starts_with(&path.display().to_string()), "{msg}");
    assert!(msg.contains("-fno-pic -mno-abicalls"), "{msg}");
    assert!(msg.contains("R_MIPS_"), "{msg}");
}

#[test]
fn gp_relative_small_data_is_refused_with_advice() {
    let src = "static int n;\nint inc(void) { return ++n; }\n";
    let mut flags = FLAGS.to_vec();
    flags.push("-G8");
    let (_dir, path) = compile(src, &flags, "g.o");
    let e = load(&path).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("R_MIPS_GPREL16") && msg.contains("-G0"),
        "{msg}"
    );
}

#[test]
fn shared_objects_and_little_endian_objects_are_refused() {
    let src = "int f(int x) { return x + 1; }\n";
    let (_dir, path) = compile(src, &["-O2", "-fPIC", "-shared", "-nostdlib"], "s.so");
    let e = load(&path).unwrap_err();
    assert!(matches!(e, ElfError::FileType { .. }), "{e}");
    assert!(e.to_string().contains("-fno-pic -mno-abicalls"), "{e}");

    let (_dir, path) = compile(
        src,
        &["-O2", "-EL", "-fno-pic", "-mno-abicalls", "-c"],
        "l.o",
    );
    let e = load(&path).unwrap_err();
    assert!(matches!(e, ElfError::LittleEndian { .. }), "{e}");
}

#[test]
fn truncated_objects_are_errors_not_panics() {
    let (_dir, path) = compile(PROGRAM, FLAGS, "t.o");
    let bytes = std::fs::read(&path).unwrap();
    for len in (0..bytes.len()).step_by(7) {
        if let Err(e) = elf::read("cut.o", &bytes[..len]) {
            assert!(e.to_string().starts_with("cut.o: "), "{e}");
        }
    }
    // A slice at an odd address reads the same as an aligned one.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&bytes);
    let aligned = elf::read("t.o", &bytes).unwrap();
    assert_eq!(elf::read("t.o", &shifted[1..]).unwrap(), aligned);
    // Flipped bytes anywhere: any result but a panic.
    for at in (0..bytes.len()).step_by(3) {
        let mut b = bytes.clone();
        b[at] ^= 0xa5;
        let _ = elf::read("flip.o", &b);
    }
}
