//! MIPS32 emulator throughput: three C functions compiled by gcc -O2 when the bench
//! starts (a checksum loop of arithmetic, a loop over byte and halfword arrays on the
//! stack, a loop of calls), each run once per iteration from a fresh o32 call.
//!
//! Needs `mips-linux-gnu-gcc` (Debian: gcc-mips-linux-gnu). Run with
//! `cargo bench -p tamarin-mips --bench mips32`; criterion reports throughput in
//! instructions ("elements") per second, a branch and its delay slot counting two.

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use tamarin_mips::mips32::{elf, Image, Machine, Status};

const SOURCE: &str = r#"
/* An LCG and a running checksum: mul, shifts, xor, add, a counted loop. */
unsigned checksum(unsigned n) {
    unsigned x = 12345, s = 0;
    for (unsigned i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        s = (s ^ (x >> 16)) + (s << 5);
    }
    return s;
}

/* Byte and halfword loads and stores on the stack. */
int bytes(int n) {
    unsigned char b[256];
    short h[128];
    for (int i = 0; i < 256; i++) b[i] = (unsigned char)(i * 7);
    for (int i = 0; i < 128; i++) h[i] = (short)(i * -3);
    int s = 0;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 128; i++) {
            s += b[2 * i] - b[2 * i + 1] + h[i];
            h[i] = (short)(h[i] + (s & 7));
            b[i] ^= (unsigned char)s;
        }
    return s;
}

/* Calls: jal, jr ra, and the caller's saved registers. */
int __attribute__((noinline)) mix(int x, int i) { return (x ^ i) + (x >> 3); }
int calls(int n) {
    int x = 1;
    for (int i = 0; i < n; i++) x = mix(x, i) + mix(i, x);
    return x;
}
"#;

/// What each function returns, computed here.
fn checksum(n: u32) -> u32 {
    let (mut x, mut s) = (12345u32, 0u32);
    for _ in 0..n {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        s = (s ^ (x >> 16)).wrapping_add(s << 5);
    }
    s
}

fn bytes(n: u32) -> u32 {
    let mut b: Vec<u8> = (0..256u32).map(|i| (i * 7) as u8).collect();
    let mut h: Vec<i16> = (0..128i32).map(|i| (i * -3) as i16).collect();
    let mut s = 0i32;
    for _ in 0..n {
        for i in 0..128 {
            s = s
                .wrapping_add(b[2 * i] as i32 - b[2 * i + 1] as i32)
                .wrapping_add(h[i] as i32);
            h[i] = (h[i] as i32 + (s & 7)) as i16;
            b[i] ^= s as u8;
        }
    }
    s as u32
}

fn calls(n: u32) -> u32 {
    let mix = |x: i32, i: i32| (x ^ i).wrapping_add(x >> 3);
    let mut x = 1i32;
    for i in 0..n as i32 {
        x = mix(x, i).wrapping_add(mix(i, x));
    }
    x as u32
}

/// A function, its argument, and what it returns for it (computed here).
type Case = (&'static str, u32, fn(u32) -> u32);

const CASES: &[Case] = &[
    ("checksum", 1_000_000, checksum),
    ("bytes", 4_000, bytes),
    ("calls", 500_000, calls),
];

fn compile() -> Image {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("bench.c");
    let o = dir.path().join("bench.o");
    std::fs::write(&c, SOURCE).unwrap();
    let out = Command::new("mips-linux-gnu-gcc")
        .args(["-O2", "-fno-pic", "-mno-abicalls", "-c", "-o"])
        .arg(&o)
        .arg(&c)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run mips-linux-gnu-gcc ({e}): install gcc-mips-linux-gnu")
        });
    assert!(
        out.status.success(),
        "gcc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    elf::read(&o.display().to_string(), &std::fs::read(&o).unwrap()).unwrap()
}

fn run_once(m: &mut Machine, entry: u32, arg: u32) -> (Status, u32) {
    m.call(entry, &[arg]);
    let status = m.run();
    (status, m.regs().gpr[2])
}

fn mips32(c: &mut Criterion) {
    let image = compile();
    let mut group = c.benchmark_group("mips32");
    group.sampling_mode(SamplingMode::Flat).sample_size(30);
    for &(name, arg, expected) in CASES {
        let entry = image.function(name).expect("the function").addr;
        let mut m = Machine::new(&image, u64::MAX);
        // Check the run once and learn its length.
        assert_eq!(
            run_once(&mut m, entry, arg),
            (Status::Returned, expected(arg)),
            "{name}({arg})"
        );
        let steps = m.steps();
        group.throughput(Throughput::Elements(steps));
        group.bench_function(format!("{name}/{steps}-steps"), |b| {
            b.iter(|| black_box(run_once(&mut m, entry, black_box(arg))))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // The command line's --warm-up-time and --measurement-time override these.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(10));
    targets = mips32
}
criterion_main!(benches);
