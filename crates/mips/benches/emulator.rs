//! Emulator throughput: a loop-heavy program of about ten million instructions per run,
//! with no tracer and with a tracer whose only work is counting executed instructions.
//!
//! Run with `cargo bench -p tamarin-mips --bench emulator`; criterion reports
//! throughput in instructions ("elements") per second.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use tamarin_mips::{
    Config, Event, Frontend, Instr, Machine, NoTrace, Program, Reg, Status, Stop, Tracer,
};

/// Loop iterations; each runs ten instructions.
const ITERATIONS: u32 = 1_000_000;

fn r(n: u8) -> Reg {
    Reg::new(n).unwrap()
}

fn rrr(op: fn(Reg, Reg, Reg) -> Instr, d: u8, s: u8, t: u8) -> u32 {
    op(r(d), r(s), r(t)).encode()
}

/// A counted loop over add/sub/slt/beq/lw/sw, pushing and popping a stack word each
/// time round:
///
/// ```text
///  0      lis $4 ; .word 1
///  2      lis $5 ; .word ITERATIONS
///  4      lis $6 ; .word 4
///  6 loop: beq $5, $0, end
///  7      sub $30, $30, $6
///  8      sw  $1, 0($30)
///  9      add $1, $1, $4
/// 10      lw  $7, 0($30)
/// 11      add $30, $30, $6
/// 12      add $3, $3, $7
/// 13      slt $8, $3, $1
/// 14      sub $5, $5, $4
/// 15      beq $0, $0, loop
/// 16 end: jr  $31
/// ```
fn loop_program() -> Program {
    let add = |d, s, t| rrr(|d, s, t| Instr::Add { d, s, t }, d, s, t);
    let sub = |d, s, t| rrr(|d, s, t| Instr::Sub { d, s, t }, d, s, t);
    let slt = |d, s, t| rrr(|d, s, t| Instr::Slt { d, s, t }, d, s, t);
    let lis = |d| Instr::Lis { d: r(d) }.encode();
    let lw = |t, i, s| {
        Instr::Lw {
            t: r(t),
            i,
            s: r(s),
        }
        .encode()
    };
    let sw = |t, i, s| {
        Instr::Sw {
            t: r(t),
            i,
            s: r(s),
        }
        .encode()
    };
    let beq = |s, t, i| {
        Instr::Beq {
            s: r(s),
            t: r(t),
            i,
        }
        .encode()
    };
    let words = vec![
        lis(4),
        1,
        lis(5),
        ITERATIONS,
        lis(6),
        4,
        beq(5, 0, 9), // 6: to 16
        sub(30, 30, 6),
        sw(1, 0, 30),
        add(1, 1, 4),
        lw(7, 0, 30),
        add(30, 30, 6),
        add(3, 3, 7),
        slt(8, 3, 1),
        sub(5, 5, 4),
        beq(0, 0, -10), // 15: to 6
        Instr::Jr { s: Reg::RA }.encode(),
    ];
    Program::from_words(words)
}

/// The tracer whose hook does the least useful work: counting.
#[derive(Default)]
struct Counter {
    executed: u64,
}

impl Tracer for Counter {
    #[inline]
    fn exec(&mut self, _pc: u32, _instr: Instr, _event: Event) {
        self.executed += 1;
    }
}

fn run_once<T: Tracer>(m: &mut Machine, tracer: &mut T) -> Status {
    m.reset();
    m.apply(&Frontend::TwoInts(3, 5)).unwrap();
    m.run(tracer)
}

fn emulator(c: &mut Criterion) {
    let program = loop_program();
    let mut m = Machine::new(&program, Config::with_fuel(u64::MAX));

    // Check the program once and learn its exact length.
    assert_eq!(run_once(&mut m, &mut NoTrace), Status::Done);
    let steps = m.steps();
    assert_eq!(steps, 3 + 10 * u64::from(ITERATIONS) + 2);
    let mut counter = Counter::default();
    assert_eq!(run_once(&mut m, &mut counter), Status::Done);
    assert_eq!(counter.executed, steps);

    let mut group = c.benchmark_group("emulator");
    group
        .throughput(Throughput::Elements(steps))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(30)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(10));
    group.bench_function("loop/no-trace", |b| {
        b.iter(|| black_box(run_once(&mut m, &mut NoTrace)))
    });
    // The same run watched by a deadline that never comes: the price of stopping on
    // time (a look between slices of the plain loop).
    let mut watched_config = Config::with_fuel(u64::MAX);
    watched_config.stop = Stop::at(Some(Instant::now() + Duration::from_secs(86_400)));
    let mut watched = Machine::new(&program, watched_config);
    assert_eq!(run_once(&mut watched, &mut NoTrace), Status::Done);
    group.bench_function("loop/no-trace-watched", |b| {
        b.iter(|| black_box(run_once(&mut watched, &mut NoTrace)))
    });
    group.bench_function("loop/counting-tracer", |b| {
        b.iter(|| {
            let mut counter = Counter::default();
            let status = run_once(&mut m, &mut counter);
            black_box((status, counter.executed))
        })
    });
    group.finish();
}

criterion_group!(benches, emulator);
criterion_main!(benches);
