//! The MIPS32 emulator held against the machine: C functions compiled by gcc at
//! several optimisation levels run under `qemu-mips -singlestep`, whose log gives the
//! registers before every instruction, and under our emulator from the same state;
//! the two must agree after every step (a branch and its delay slot being one step
//! here and two in qemu's log).
//!
//! Needs `mips-linux-gnu-gcc` and `qemu-mips` (Debian: gcc-mips-linux-gnu,
//! qemu-user). The default run checks a few functions; `--ignored` runs them all at
//! every level.

use std::path::{Path, PathBuf};
use std::process::Command;

use tamarin_mips::mips32::{abi, elf, Image, Instr, Machine, Status};
use tamarin_mips::Reg;

/// The caller, as a static program: reads up to four numbers from its arguments,
/// calls `f` and prints the result.
const MAIN: &str = r#"
#include <stdio.h>
#include <stdlib.h>
int f(int, int, int, int);
/* Zeroes the stack below main's frame, where f's frame will lie: our machine's stack
   starts zeroed, and a byte gcc reads before writing (a packed field's
   read-modify-write) must be the same on both. */
static void __attribute__((noinline)) clear(void) {
    volatile char z[65536];
    for (int i = 0; i < 65536; i++) z[i] = 0;
}
int main(int argc, char **argv) {
    int a[4] = {0, 0, 0, 0};
    for (int i = 1; i < argc && i <= 4; i++) a[i - 1] = (int)strtoul(argv[i], 0, 0);
    clear();
    printf("%d\n", f(a[0], a[1], a[2], a[3]));
    return 0;
}
"#;

/// Functions `f(a, b, c, d)` that reach every kind of instruction gcc emits for int
/// code: bytes and halves on the stack, unaligned fields, a jump table, calls, 64-bit
/// products, division (with gcc's trap on zero), bit counts and rotations.
const SOURCES: &[(&str, &str)] = &[
    (
        "arith",
        r#"
int f(int a, int b, int c, int d) {
    unsigned u = (unsigned)a * 2654435761u + (unsigned)b;
    int s = (a << (c & 31)) ^ (b >> (d & 7)) ^ (int)(u >> 13);
    s += (a < b) + ((unsigned)c < (unsigned)d) * 3 - (a == d);
    s += (int)(((unsigned)b >> (c & 31)) | ((unsigned)b << ((32 - c) & 31)));
    long long p = (long long)a * b;
    unsigned long long q = (unsigned long long)(unsigned)c * (unsigned)d + (unsigned)a;
    s += (int)(p >> 32) + (int)q + (int)(q >> 32);
    s += __builtin_clz((unsigned)a | 1) + __builtin_clz(~(unsigned)b | 1);
    s += (signed char)a + (short)b + (unsigned char)c + (unsigned short)d;
    return s;
}
"#,
    ),
    (
        "divide",
        r#"
int f(int a, int b, int c, int d) {
    int s = 0;
    if (b != 0 && !(a == -2147483647 - 1 && b == -1)) s += a / b + a % b;
    if (d != 0) s += (unsigned)c / (unsigned)d + (unsigned)c % (unsigned)d;
    s += a / 7 + c % 10 + (unsigned)d / 3;
    return s;
}
"#,
    ),
    (
        "memory",
        r#"
struct __attribute__((packed)) rec { char tag; int value; short half; };
int f(int a, int b, int c, int d) {
    char buf[16]; short hs[6]; struct rec r[3];
    for (int i = 0; i < 16; i++) buf[i] = (char)(a + i * b);
    for (int i = 0; i < 6; i++) hs[i] = (short)(c * i - d);
    for (int i = 0; i < 3; i++) { r[i].tag = (char)i; r[i].value = a ^ (i * d); r[i].half = (short)(b + i); }
    int s = buf[c & 15] + (unsigned char)buf[d & 15] + hs[a % 6 < 0 ? 0 : a % 6];
    s += r[b & 1].value + r[2].half + r[c & 1].tag;
    return s;
}
"#,
    ),
    (
        "control",
        r#"
static int helper(int x, int y) { return x > y ? x - y : y - x; }
int g(int x) { return x * 3 + (x >> 2); }
int f(int a, int b, int c, int d) {
    int s = 0;
    for (int i = 0; i < (a & 15); i++) s += helper(i, b) + g(i);
    switch (c & 7) {
    case 0: s += 1; break;
    case 1: s -= d; break;
    case 2: s ^= 0x55; break;
    case 3: s <<= 1; break;
    case 4: s = s * d; break;
    case 5: s = -s; break;
    default: s += 100;
    }
    while (d > 0 && s < 1000) { s += d; d -= 3; }
    return s;
}
"#,
    ),
];

/// Argument tuples: small, negative and edge values.
const ARGS: &[[i64; 4]] = &[
    [5, 7, 9, 11],
    [-1, 3, 2, 0],
    [2147483647, -2147483648, 4, 1],
    [13, -6, 29, 300],
];

fn tool(name: &str) -> String {
    let ok = Command::new(name).arg("--version").output().is_ok();
    assert!(
        ok,
        "{name} is not installed: install gcc-mips-linux-gnu and qemu-user (Debian)"
    );
    name.to_string()
}

/// Compiles `source` with the caller into a static program at `level`.
fn build(dir: &Path, name: &str, source: &str, level: &str) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    let main = dir.join("main.c");
    std::fs::write(&c, source).unwrap();
    std::fs::write(&main, MAIN).unwrap();
    let out = dir.join(format!("{name}-{level}"));
    let status = Command::new(tool("mips-linux-gnu-gcc"))
        .args([
            level,
            "-fno-pic",
            "-mno-abicalls",
            "-fwrapv",
            "-static",
            "-o",
        ])
        .arg(&out)
        .arg(&main)
        .arg(&c)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "gcc failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    out
}

/// The state qemu logged before one translation block.
#[derive(Debug, Clone)]
struct Logged {
    pc: u32,
    hi: u32,
    lo: u32,
    gpr: [u32; 32],
}

fn hex(s: &str) -> u32 {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// Every state in a `-d cpu` log, in order.
fn parse_log(text: &str) -> Vec<Logged> {
    let mut out = Vec::new();
    let mut cur: Option<Logged> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("pc=") {
            if let Some(c) = cur.take() {
                out.push(c);
            }
            let mut it = rest.split_whitespace();
            let pc = hex(it.next().unwrap());
            let hi = hex(it.next().unwrap().trim_start_matches("HI="));
            let lo = hex(it.next().unwrap().trim_start_matches("LO="));
            cur = Some(Logged {
                pc,
                hi,
                lo,
                gpr: [0; 32],
            });
        } else if let Some(rest) = line.strip_prefix("GPR") {
            let (first, regs) = rest.split_once(':').unwrap();
            let base: usize = first.parse().unwrap();
            let values: Vec<&str> = regs.split_whitespace().skip(1).step_by(2).collect();
            if let Some(c) = cur.as_mut() {
                for (k, v) in values.iter().enumerate() {
                    c.gpr[base + k] = hex(v);
                }
            }
        }
    }
    out.extend(cur);
    out
}

/// The address ranges qemu logs: the functions of the source under test, and the
/// instruction `f` returns to in `main` (so that its last state is logged too).
fn log_ranges(image: &Image) -> String {
    let f = image.function("f").expect("f in the program");
    let mut ranges: Vec<String> = ["f", "g", "helper"]
        .iter()
        .filter_map(|n| image.function(n))
        .map(|s| format!("0x{:x}+0x{:x}", s.addr, s.size.max(4)))
        .collect();
    let main = image.function("main").expect("main in the program");
    for site in (main.addr..main.addr + main.size).step_by(4) {
        let call = m_instr(image, site);
        if call.and_then(|i| i.static_target(site)) == Some(f.addr)
            && matches!(call, Some(Instr::Jump { link: true, .. }))
        {
            ranges.push(format!("0x{:x}+0x4", site + 8));
        }
    }
    ranges.join(",")
}

/// Runs `exe` under qemu with `args` and returns the states from `f`'s entry to its
/// return, and what the program printed.
fn qemu_trace(exe: &Path, image: &Image, args: &[i64; 4]) -> (Vec<Logged>, String) {
    let entry = image.function("f").expect("f in the program").addr;
    let log = exe.with_extension(format!("log{}", args[0].rem_euclid(1000)));
    let out = Command::new(tool("qemu-mips"))
        .args(["-singlestep", "-d", "cpu,nochain", "-dfilter"])
        .arg(log_ranges(image))
        .arg("-D")
        .arg(&log)
        .arg(exe)
        .args(args.iter().map(|a| a.to_string()))
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let states = parse_log(&std::fs::read_to_string(&log).unwrap());
    std::fs::remove_file(&log).ok();
    let start = states
        .iter()
        .position(|s| s.pc == entry)
        .expect("f is never entered");
    let ra = states[start].gpr[31];
    let end = start
        + states[start..]
            .iter()
            .position(|s| s.pc == ra)
            .expect("f never returns");
    (states[start..=end].to_vec(), printed)
}

/// Steps our emulator from qemu's state at `f`'s entry and compares every state.
fn compare(image: &Image, name: &str, states: &[Logged], printed: &str) {
    let first = &states[0];
    let sp = first.gpr[29];
    let top = (sp as u64 + abi::STACK_SIZE as u64 / 2) as u32 & !0xffff;
    let mut m = Machine::new(image, 1 << 24).with_stack_top(top);
    m.call(first.pc, &[]);
    for k in 1..32u8 {
        m.set_reg(Reg::new(k).unwrap(), first.gpr[k as usize]);
    }
    m.set_hi_lo(first.hi, first.lo);
    let ra = first.gpr[31];
    // qemu logs the delay slot as a block of its own; our step takes both.
    let mut expected = states.iter().skip(1).filter({
        let mut prev: Option<u32> = Some(first.pc);
        move |s| {
            let slot = prev.is_some_and(|p| {
                s.pc == p.wrapping_add(4) && m_instr(image, p).is_some_and(|i| i.has_delay_slot())
            });
            prev = Some(s.pc);
            !slot
        }
    });
    let mut steps = 0;
    loop {
        let before = m.regs().pc;
        if let Some(status) = m.step() {
            panic!("{name}: our run ended with {status:?} at 0x{before:08x}");
        }
        steps += 1;
        let want = expected
            .next()
            .unwrap_or_else(|| panic!("{name}: qemu's log ended first"));
        let got = m.regs();
        let label = format!("{name}: after the step at 0x{before:08x} (step {steps})");
        assert_eq!(got.pc, want.pc, "{label}: pc");
        for r in 1..32 {
            assert_eq!(got.gpr[r], want.gpr[r], "{label}: ${r}");
        }
        assert_eq!((got.hi, got.lo), (want.hi, want.lo), "{label}: hi, lo");
        if got.pc == ra {
            break;
        }
    }
    assert_eq!(
        m.regs().gpr[2] as i32 as i64,
        printed.parse::<i64>().unwrap(),
        "{name}: $v0 against what the program printed"
    );
    // And the same function called from our own o32 set-up returns the same value.
    let f = image.function("f").unwrap();
    let mut plain = Machine::new(image, 1 << 24);
    plain.call(
        f.addr,
        &[first.gpr[4], first.gpr[5], first.gpr[6], first.gpr[7]],
    );
    assert_eq!(plain.run(), Status::Returned, "{name}: our own call");
    assert_eq!(
        plain.regs().gpr[2],
        m.regs().gpr[2],
        "{name}: our own call's $v0"
    );
}

fn m_instr(image: &Image, pc: u32) -> Option<Instr> {
    image.word(pc).and_then(tamarin_mips::mips32::isa::decode)
}

fn check(sources: &[(&str, &str)], levels: &[&str], args: &[[i64; 4]]) {
    let dir = tempfile::tempdir().unwrap();
    for (name, source) in sources {
        for level in levels {
            let exe = build(dir.path(), name, source, level);
            let bytes = std::fs::read(&exe).unwrap();
            let image = elf::read(&exe.display().to_string(), &bytes).unwrap();
            for a in args {
                let (states, printed) = qemu_trace(&exe, &image, a);
                compare(&image, &format!("{name} {level} {a:?}"), &states, &printed);
            }
        }
    }
}

#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn the_emulator_agrees_with_qemu_step_by_step() {
    check(SOURCES, &["-O0", "-O2"], &ARGS[..3]);
}

#[test]
#[ignore = "compiles every function at four levels and runs qemu on each input (about a minute)"]
fn the_emulator_agrees_with_qemu_at_every_level() {
    check(SOURCES, &["-O0", "-O1", "-O2", "-Os"], ARGS);
}
