//! The MIPS32 decoder and its text held against GNU objdump: C functions that reach
//! every kind of integer instruction gcc emits are compiled at -O0, -O1, -O2 and -Os,
//! disassembled with `mips-linux-gnu-objdump -d -M no-aliases`, and every instruction
//! line of every function must decode to the text objdump writes (after the few
//! spellings of [`normalise`]). The ELF reader is checked on the way: it must find
//! every function, with the same words where no relocation changes them.
//!
//! Needs `mips-linux-gnu-gcc` and `mips-linux-gnu-objdump` (Debian:
//! gcc-mips-linux-gnu, which brings binutils-mips-linux-gnu).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use tamarin_mips::mips32::isa::decode;
use tamarin_mips::mips32::{elf, Image};

const GCC: &str = "mips-linux-gnu-gcc";
const OBJDUMP: &str = "mips-linux-gnu-objdump";
const LEVELS: [&str; 4] = ["-O0", "-O1", "-O2", "-Os"];

/// One file of C functions, each aimed at a few instructions (named in its comment).
const SOURCE: &str = r#"
struct __attribute__((packed)) pk { char tag; int value; short half; };
struct bits { unsigned a : 3; unsigned b : 7; unsigned c : 12; signed d : 5; };
extern int ext_fn(int);

/* addu subu and or xor nor andi ori xori lui slt sltu slti sltiu */
int arith(int a, int b, int c) {
    int s = a + b * 3 - c;
    s ^= (a & 0xff) | (b | 0x1234) ^ (c ^ 0x55);
    s += ~(a | b);
    s += (a < b) + ((unsigned)a < (unsigned)c) + (a < 17) + ((unsigned)b < 300u);
    s += 0x12345678;
    return s;
}
/* sll srl sra sllv srlv srav rotr rotrv */
unsigned shifts(unsigned x, int n, int m) {
    int y = (int)x;
    unsigned r = (x >> 7) | (x << 25);
    r += (x >> (n & 31)) | (x << ((32 - n) & 31));
    r ^= x << (n & 31);
    r ^= x >> (m & 31);
    r += (unsigned)(y >> (m & 31));
    r += (unsigned)(y >> 5) + (x << 3) + (x >> 11);
    return r;
}
/* clz */
int count(unsigned x) { return __builtin_clz(x | 1) + __builtin_clz(~x | 1); }
/* lb lbu lh lhu lw */
int loads(signed char *p, unsigned char *q, short *h, unsigned short *u, int *w) {
    return p[1] + q[2] + h[3] + u[4] + w[5];
}
/* sb sh sw */
void stores(char *p, short *h, int *w, int v) { p[3] = (char)v; h[2] = (short)v; w[1] = v; }
/* lwl lwr swl swr */
int packed_get(struct pk *p) { return p->value + p->half; }
void packed_set(struct pk *p, int v) { p->value = v; p->half = (short)v; }
/* ext ins */
int bits_get(struct bits *b) { return b->a + b->b + b->c + b->d; }
void bits_set(struct bits *b, int v) { b->b = v; b->c = v >> 3; }
/* a jump table: sltiu, lw from .rodata, jr */
int sw_table(int k, int x) {
    switch (k) {
    case 0: return x + 1;
    case 1: return x * 7;
    case 2: return x ^ 0x55;
    case 3: return x << 2;
    case 4: return x - 9;
    case 5: return -x;
    case 6: return x / 3;
    default: return 100;
    }
}
/* mult multu madd maddu mthi mtlo mul mfhi mflo */
long long mul64(int a, int b) { return (long long)a * b; }
unsigned long long mulu64(unsigned a, unsigned b) { return (unsigned long long)a * b; }
long long mac64(int a, int b, long long acc) { return acc + (long long)a * b; }
unsigned long long macu64(unsigned a, unsigned b, unsigned long long acc) {
    return acc + (unsigned long long)a * b;
}
int mul32(int a, int b) { return a * b; }
/* div divu, and gcc's teq on a zero divisor */
int divs(int a, int b) { return a / b + a % b; }
unsigned divu(unsigned a, unsigned b) { return a / b + a % b; }
/* jal, and j for a tail call */
int caller(int a) { return ext_fn(a) + ext_fn(a + 1); }
int tail(int a) { return ext_fn(a + 1); }
/* jalr */
int indirect(int (*fp)(int), int a) { return fp(a) + 1; }
/* loops: beq bne blez bgtz bltz bgez */
int loop(int *v, int n) { int s = 0; for (int i = 0; i < n; i++) s += v[i]; return s; }
int loop_down(int n) { int s = 0; while (n > 0) { s += n; n--; } return s; }
int neg_loop(int n) { int s = 0; while (n < 0) { s += n; n++; } return s >= 0 ? s : -s; }
int bytes_loop(unsigned char *p, short *h, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) { s += p[i] * h[i]; h[i] = (short)s; p[i] = (unsigned char)(s >> 3); }
    return s;
}
int sign_tests(int a, int b) {
    int s = 0;
    if (a < 0) s += 1;
    if (a >= 0) s += b;
    if (b <= 0) s += 2;
    if (b > 0) s ^= a;
    return s;
}
/* movn movz */
int cmov(int x, int a, int b) { return x ? a : b; }
int cmovz(int x, int a, int b) { return x == 0 ? a : b; }
/* seb seh wsbh */
int extend(int x) { return (signed char)x + (short)x; }
unsigned bswap(unsigned short x) { return __builtin_bswap16(x); }
unsigned bswap32(unsigned x) { return __builtin_bswap32(x); }
/* teq zero,zero */
void trap(void) { __builtin_trap(); }

/* Not gcc's choice but the assembler's: the instructions of the profile that C does
   not reach, for their operand syntax (break and syscall codes, trap immediates) and
   the hints that decode as sync. */
void asm_misc(int a, int b) {
    __asm__ volatile(
        "break\n\tbreak 7\n\tbreak 0,5\n\tbreak 1,2\n\tsyscall\n\tsyscall 0x12345\n"
        "\tsync\n\tssnop\n\tehb\n\tpause\n"
        "\ttne %0,%1,5\n\ttge %0,%1\n\ttgeu %0,%1\n\ttlt %0,%1\n\ttltu %0,%1,0x3ff\n"
        "\tteqi %0,0\n\ttnei %0,-1\n\ttgei %0,3\n\ttgeiu %0,4\n\ttlti %0,-32768\n"
        "\ttltiu %0,-4\n"
        "\tclo %0,%1\n\tmsub %0,%1\n\tmsubu %0,%1\n"
        "\tadd %0,%0,%1\n\tsub %0,%0,%1\n\taddi %0,%0,-3\n"
        "\tbgezal %0,1f\n\tnop\n1:\tbltzal %0,1b\n\tnop\n\tjalr $3,%0\n\tnop"
        : : "r"(a), "r"(b));
}
"#;

/// The function that holds the hand-written instructions.
const ASM_FUNCTION: &str = "asm_misc";

/// What gcc emits for [`SOURCE`], summed over the four levels (`asm_misc` left out):
/// every mnemonic the brief asked for, and the MIPS32r2 ones it reaches besides.
/// Nothing had to be dropped: gcc uses `beq zero,zero` for `b`, but `j` appears for
/// the tail call in `tail`.
const GCC_EMITS: &[&str] = &[
    "lb", "lbu", "lh", "lhu", "lw", "sb", "sh", "sw", "lwl", "lwr", "swl", "swr", "addiu", "addu",
    "subu", "and", "andi", "or", "ori", "xor", "xori", "nor", "lui", "sll", "srl", "sra", "sllv",
    "srlv", "srav", "slt", "sltu", "slti", "sltiu", "movn", "movz", "mult", "multu", "mul", "madd",
    "mfhi", "mflo", "div", "divu", "clz", "seb", "seh", "beq", "bne", "blez", "bgtz", "bltz",
    "bgez", "j", "jal", "jr", "teq", // the brief's list
    "rotr", "rotrv", "maddu", "mthi", "mtlo", "ext", "ins", "wsbh", "jalr",
];

/// What only `asm_misc` reaches.
const ASM_EMITS: &[&str] = &[
    "break", "syscall", "sync", "tne", "tge", "tgeu", "tlt", "tltu", "teqi", "tnei", "tgei",
    "tgeiu", "tlti", "tltiu", "clo", "msub", "msubu", "add", "sub", "addi", "bgezal", "bltzal",
];

/// objdump's text for an instruction, rewritten where objdump spells the same
/// instruction differently from [`tamarin_mips::mips32::Instr::text`]. Everything not
/// listed must match exactly.
///
/// | objdump -M no-aliases        | ours                 | why                                   |
/// |------------------------------|----------------------|---------------------------------------|
/// | `beq a,b,1c <f+0x8>`         | `beq a,b,1c`         | we print no symbols                   |
/// | `ror d,t,sa` / `rorv d,t,s`  | `rotr` / `rotrv`     | binutils' name for MIPS32r2's rotr    |
/// | `negu d,t`                   | `subu d,zero,t`      | binutils keeps this alias under no-aliases |
/// | `sll zero,zero,0x1` (ssnop), `sll zero,zero,0x3` (ehb), `pause` | `sync` | hints: we decode them as `Instr::Sync` |
fn normalise(objdump: &str) -> String {
    let text = match objdump.find(" <") {
        Some(k) if objdump.ends_with('>') => &objdump[..k],
        _ => objdump,
    };
    let (mnemonic, operands) = text.split_once('\t').unwrap_or((text, ""));
    match (mnemonic, operands) {
        ("ror", ops) => format!("rotr\t{ops}"),
        ("rorv", ops) => format!("rotrv\t{ops}"),
        ("negu", ops) => {
            let (d, t) = ops.split_once(',').expect("negu d,t");
            format!("subu\t{d},zero,{t}")
        }
        ("sll", "zero,zero,0x1" | "zero,zero,0x3") | ("pause", "") => "sync".to_string(),
        _ => text.to_string(),
    }
}

/// One instruction line of objdump's output.
#[derive(Debug)]
struct Line {
    section: String,
    function: String,
    /// Its address in the section, and the function's.
    addr: u32,
    start: u32,
    word: u32,
    text: String,
}

/// The instructions of a `-d -z -r` listing, and the (section, address) pairs that a
/// relocation rewrites.
fn parse(listing: &str) -> (Vec<Line>, BTreeSet<(String, u32)>) {
    let mut lines = Vec::new();
    let mut relocated = BTreeSet::new();
    let mut section = String::new();
    let mut function: Option<(String, u32)> = None;
    for raw in listing.lines() {
        if let Some(rest) = raw.strip_prefix("Disassembly of section ") {
            section = rest.trim_end_matches(':').to_string();
            function = None;
        } else if let Some(rest) = raw.strip_prefix("\t\t\t") {
            // `\t\t\t2b4: R_MIPS_26\text_fn`
            let (addr, _) = rest.split_once(':').expect("a relocation line");
            relocated.insert((section.clone(), hex(addr)));
        } else if let Some(head) = raw.strip_suffix(">:") {
            let (addr, name) = head.split_once(" <").expect("a symbol line");
            function = Some((name.to_string(), hex(addr)));
        } else if let Some((addr, rest)) = raw.split_once(":\t") {
            let (word, text) = rest.split_once(" \t").expect("word, then text");
            let (name, start) = function.clone().expect("an instruction outside a function");
            lines.push(Line {
                section: section.clone(),
                function: name,
                addr: hex(addr.trim()),
                start,
                word: hex(word),
                text: text.trim_end().to_string(),
            });
        }
    }
    (lines, relocated)
}

fn hex(s: &str) -> u32 {
    u32::from_str_radix(s.trim(), 16).unwrap_or_else(|_| panic!("not hex: {s:?}"))
}

fn spawn(name: &str, args: &[&str], dir: &Path) -> Child {
    Command::new(name)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run {name} ({e}): install gcc-mips-linux-gnu (Debian/Ubuntu)")
        })
}

fn finish(child: Child, what: &str) -> String {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Compiles [`SOURCE`] at every level at once; the objects' paths.
fn compile(dir: &Path) -> Vec<PathBuf> {
    std::fs::write(dir.join("f.c"), SOURCE).unwrap();
    let jobs: Vec<_> = LEVELS
        .iter()
        .map(|level| {
            let out = format!("f{level}.o");
            let args = [
                *level,
                "-fno-pic",
                "-mno-abicalls",
                "-fwrapv",
                "-c",
                "f.c",
                "-o",
                &out,
            ];
            (dir.join(&out), spawn(GCC, &args, dir))
        })
        .collect();
    jobs.into_iter()
        .zip(LEVELS)
        .map(|((path, child), level)| {
            finish(child, &format!("{GCC} {level}"));
            path
        })
        .collect()
}

/// Checks one object's every instruction; adds the mnemonics seen (in `asm_misc` or
/// not) to `seen`.
fn check_object(level: &str, object: &Path, seen: &mut BTreeMap<bool, BTreeSet<&'static str>>) {
    let path = object.display().to_string();
    let listing = finish(
        spawn(
            OBJDUMP,
            &["-d", "-z", "-r", "-M", "no-aliases", &path],
            object.parent().unwrap(),
        ),
        OBJDUMP,
    );
    let (lines, relocated) = parse(&listing);
    assert!(
        lines.len() > 100,
        "{level}: too few instructions:\n{listing}"
    );
    let image: Image = elf::read(&path, &std::fs::read(object).unwrap()).unwrap();
    let mut failures = Vec::new();
    for line in &lines {
        let at = format!(
            "{level} {} {}+0x{:x} ({:08x} `{}`)",
            line.section,
            line.function,
            line.addr - line.start,
            line.word,
            line.text
        );
        let Some(instr) = decode(line.word) else {
            failures.push(format!("{at}: does not decode"));
            continue;
        };
        let ours = instr.text(line.addr);
        let want = normalise(&line.text);
        if ours != want {
            failures.push(format!(
                "{at}: ours `{ours}`, objdump's normalised `{want}`"
            ));
        }
        seen.entry(line.function == ASM_FUNCTION)
            .or_default()
            .insert(instr.mnemonic());
        // The same word where the ELF reader put the function (rewritten only where a
        // relocation applies, and then still an instruction).
        let Some(f) = image.function(&line.function) else {
            failures.push(format!("{at}: the ELF reader has no function of that name"));
            continue;
        };
        let placed = f.addr + (line.addr - line.start);
        match image.word(placed) {
            Some(w) if relocated.contains(&(line.section.clone(), line.addr)) => {
                if decode(w).is_none() {
                    failures.push(format!("{at}: relocated word {w:08x} does not decode"));
                }
            }
            Some(w) if w == line.word => {}
            other => failures.push(format!(
                "{at}: the image holds {other:08x?} at {placed:08x}"
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} lines differ:\n{}",
        failures.len(),
        lines.len(),
        failures.join("\n")
    );
}

#[test]
fn every_instruction_gcc_emits_reads_as_objdump_writes_it() {
    for tool in [GCC, OBJDUMP] {
        let ok = Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            ok,
            "{tool} is not installed: install gcc-mips-linux-gnu (Debian/Ubuntu)"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let objects = compile(dir.path());
    let mut seen = BTreeMap::new();
    for (level, object) in LEVELS.iter().zip(&objects) {
        check_object(level, object, &mut seen);
    }
    let from_c = seen.remove(&false).unwrap_or_default();
    let from_asm = seen.remove(&true).unwrap_or_default();
    let missing: Vec<_> = GCC_EMITS.iter().filter(|m| !from_c.contains(*m)).collect();
    assert!(
        missing.is_empty(),
        "gcc emitted none of {missing:?} (it emitted {from_c:?})"
    );
    let missing: Vec<_> = ASM_EMITS
        .iter()
        .filter(|m| !from_asm.contains(*m))
        .collect();
    assert!(missing.is_empty(), "{ASM_FUNCTION} lacks {missing:?}");
}

#[test]
fn normalisation_is_only_the_table() {
    assert_eq!(
        normalise("beq\tzero,zero,5cc <sw_table+0xd4>"),
        "beq\tzero,zero,5cc"
    );
    assert_eq!(normalise("jal\t0 <arith>"), "jal\t0");
    assert_eq!(normalise("ror\tt1,a0,0x7"), "rotr\tt1,a0,0x7");
    assert_eq!(normalise("rorv\tv1,a0,a1"), "rotrv\tv1,a0,a1");
    assert_eq!(normalise("negu\tv0,a1"), "subu\tv0,zero,a1");
    assert_eq!(normalise("sll\tzero,zero,0x1"), "sync");
    assert_eq!(normalise("sll\tzero,zero,0x3"), "sync");
    assert_eq!(normalise("pause"), "sync");
    for same in [
        "sll\tzero,zero,0x0",
        "sll\tzero,zero,0x2",
        "lw\ta0,-4(sp)",
        "break\t0x7",
    ] {
        assert_eq!(normalise(same), same);
    }
}
