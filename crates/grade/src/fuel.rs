//! Fuel that fits the task's domain (`fuel = "auto"`), and the warning when a witness
//! may be the fuel's fault rather than the submission's.
//!
//! Under grade's out-of-fuel rule (`different`), a correct submission that is slower
//! than the fuel allows somewhere in the domain is wrong, with a witness on which it
//! runs out of fuel. So the fuel must fit the slowest correct solution, which the
//! grader cannot know but can bound: `auto` runs the reference concretely on a fixed,
//! seeded sample of the domain (edge values, small values, where recursion depth
//! usually grows, and pseudo-random ones; for an array task every length up to
//! `max-len`), only on inputs the preconditions admit, and takes its most steps times
//! [`AUTO_FUEL_FACTOR`], never below [`AUTO_FUEL_FLOOR`]. The sample is the same on
//! every run, so one task gives one fuel, and the store's keys stay stable.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde::Serialize;
use tamarin::{InputLayout, InputSpec, Options};
use tamarin_mips::cpu::Machine;
use tamarin_mips::{Config, NoTrace, Outcome, Program, Status, Stop};

use crate::values::inputs_line;

/// How many times the reference's most steps `auto` gives: room for a correct
/// solution that spends a few more instructions per call or per trip of a loop (a
/// frame saved word by word, a counter kept in memory) than the reference.
pub const AUTO_FUEL_FACTOR: u64 = 4;

/// The least fuel `auto` gives: the default `--fuel`, so that choosing `auto` never
/// makes a run shorter than it was without it.
pub const AUTO_FUEL_FLOOR: u64 = 10_000;

/// The most steps one run of the reference may take while the fuel is sized: a run
/// still going after it is reported as one that does not end.
pub const SIZING_RUN_CAP: u64 = 100_000_000;

/// The most steps all the sizing runs may take together (so a reference that needs
/// the cap on many inputs cannot hold a class up for long); sizing stops there, and
/// says so.
pub const SIZING_TOTAL_STEPS: u64 = 1_000_000_000;

/// A safety net behind the step counts, for a slow machine: sizing stops after this
/// long, and says so.
pub const SIZING_TIME: Duration = Duration::from_secs(60);

/// How many pseudo-random inputs are drawn, after the edge and small ones.
const RANDOM_INPUTS: usize = 512;

/// The seed of the pseudo-random inputs: fixed, so the sample is the same every time.
const SEED: u64 = 0x7a3a_41f1_5eed_0001;

/// How many times the fuel a run on a witness gets before the fuel is blamed for it.
pub const WARNING_FACTOR: u64 = 4;

/// The edge values every register input takes, with the others at the same or at
/// another edge value.
const EDGES: [u32; 13] = [
    0,
    1,
    u32::MAX, // -1
    2,
    u32::MAX - 1, // -2
    3,
    10,
    100,
    0x8000_0000, // INT_MIN
    0x8000_0001,
    0x7FFF_FFFF, // INT_MAX
    0x7FFF_FFFE,
    0xFFFF,
];

/// The small values of the grid that registers take together (recursion depth and
/// loop trips usually grow with small positive inputs).
const SMALL: std::ops::RangeInclusive<i32> = -2..=32;

/// The fuel `auto` chose, and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sizing {
    /// The fuel: `factor` times the reference's most steps, at least `floor`.
    pub fuel: u64,
    pub factor: u64,
    pub floor: u64,
    /// The most steps the reference took on one input of the sample.
    pub reference_max_steps: u64,
    /// The inputs of the sample that the preconditions admit and the reference ran on.
    pub inputs: u64,
    /// The input on which the reference took the most steps, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest: Option<String>,
    /// What went wrong while sizing (the reference did not end or failed on some
    /// input, sizing stopped early, no input was admitted), in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Sizing {
    /// How the fuel was derived, for the task line: `4 × 2,800 = 11,200 (auto)`.
    pub fn derivation(&self) -> String {
        let product = self.factor.saturating_mul(self.reference_max_steps);
        if product >= self.floor {
            format!(
                "{} × {} = {} (auto)",
                self.factor,
                grouped(self.reference_max_steps),
                grouped(self.fuel)
            )
        } else {
            format!(
                "{} (auto: at least {}; {} × {} is less)",
                grouped(self.fuel),
                grouped(self.floor),
                self.factor,
                grouped(self.reference_max_steps)
            )
        }
    }
}

impl Sizing {
    /// How the fuel was derived, for a task line: `fuel = "auto": 4 × 5,349, the
    /// reference's most steps on 13 inputs of the domain`.
    pub fn phrase(&self) -> String {
        let most = format!(
            "{} × {}, the reference's most steps on {} of the domain",
            self.factor,
            grouped(self.reference_max_steps),
            input_count(self.inputs)
        );
        if self.factor.saturating_mul(self.reference_max_steps) >= self.floor {
            format!("fuel = \"auto\": {most}")
        } else {
            format!(
                "fuel = \"auto\": at least {}; {most}, is less",
                grouped(self.floor)
            )
        }
    }
}

/// `n` with its digits in groups of three: `11,200`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How much the sizing runs may take.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Steps per run.
    pub run_cap: u64,
    /// Steps of all runs together.
    pub total: u64,
    /// Time of all runs together.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            run_cap: SIZING_RUN_CAP,
            total: SIZING_TOTAL_STEPS,
            time: SIZING_TIME,
        }
    }
}

/// Sizes the fuel from runs of `reference` on the domain's sample (see the module's
/// documentation), under `opts`' inputs, preconditions, termination address and
/// interrupt flag.
pub fn size(reference: &Program, opts: &Options, layout: &InputLayout) -> Sizing {
    size_within(reference, opts, layout, Limits::default())
}

/// [`size`] within `limits`.
pub fn size_within(
    reference: &Program,
    opts: &Options,
    layout: &InputLayout,
    limits: Limits,
) -> Sizing {
    let deadline = Instant::now() + limits.time;
    let constants: Vec<u32> = opts
        .assume
        .iter()
        .flat_map(|p| constants(p.text()))
        .collect();
    let mut tally = Tally::new(limits);
    for values in sample(layout, &constants) {
        if !layout.admits(&values) {
            continue;
        }
        if tally.total >= limits.total || Instant::now() >= deadline || opts.interrupted() {
            tally.cut = true;
            break;
        }
        let cap = limits.run_cap.min(limits.total - tally.total).max(1);
        let Some(outcome) = run(reference, opts, layout, &values, cap, Some(deadline)) else {
            continue;
        };
        tally.add(&values, &outcome, cap);
    }
    tally.sizing(layout)
}

/// The numbers written in a precondition, and their neighbours: where its bounds lie
/// (`1 <= $1 <= 26` gives 0, 1, 2, 25, 26, 27), the inputs a random sample would miss.
fn constants(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let digit = |k: usize| bytes.get(k).is_some_and(u8::is_ascii_digit);
        // A number, not the digits of a name such as `$1` or `a[2]`.
        let starts =
            digit(i) && !(i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'$'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && (bytes[j].is_ascii_alphanumeric()) {
            j += 1;
        }
        let word = &text[i..j];
        let negative = i > 0 && bytes[i - 1] == b'-';
        let value = match word.strip_prefix("0x") {
            Some(hex) => i64::from_str_radix(hex, 16).ok(),
            None => word.parse::<i64>().ok(),
        };
        if let Some(v) = value {
            let v = if negative { -v } else { v };
            out.extend([v - 1, v, v + 1].map(|n| n as u32));
        }
        i = j;
    }
    out
}

/// What the sizing runs found.
struct Tally {
    limits: Limits,
    /// Steps of all runs.
    total: u64,
    inputs: u64,
    max: u64,
    longest: Option<Vec<u32>>,
    /// Inputs on which the reference did not end within the cap (the first, how many).
    no_end: Option<(Vec<u32>, u64)>,
    /// Inputs on which the reference failed (the first and its error, how many).
    faults: Option<(Vec<u32>, String, u64)>,
    /// Stopped before the sample's end (step total, time net or Ctrl-C).
    cut: bool,
}

impl Tally {
    fn new(limits: Limits) -> Tally {
        Tally {
            limits,
            total: 0,
            inputs: 0,
            max: 0,
            longest: None,
            no_end: None,
            faults: None,
            cut: false,
        }
    }

    fn add(&mut self, values: &[u32], o: &Outcome, cap: u64) {
        self.total = self.total.saturating_add(o.steps);
        match o.status {
            Status::Done | Status::Error(_) => {
                self.inputs += 1;
                if o.steps > self.max || self.longest.is_none() {
                    self.max = self.max.max(o.steps);
                    self.longest = Some(values.to_vec());
                }
                if let Status::Error(f) = o.status {
                    let first = self
                        .faults
                        .get_or_insert_with(|| (values.to_vec(), f.to_string(), 0));
                    first.2 += 1;
                }
            }
            Status::OutOfFuel if cap == self.limits.run_cap => {
                self.no_end.get_or_insert_with(|| (values.to_vec(), 0)).1 += 1;
            }
            // Out of the total's remainder, or stopped by the time net or Ctrl-C.
            Status::OutOfFuel | Status::Stopped => self.cut = true,
        }
    }

    fn sizing(self, layout: &InputLayout) -> Sizing {
        let shown = |v: &[u32]| inputs_line(&layout.describe(v));
        let mut warnings = Vec::new();
        if let Some((values, n)) = &self.no_end {
            warnings.push(format!(
                "the reference does not end within {} steps on {} of the domain (first: {}): \
                 the fuel fits only the inputs on which it ends",
                grouped(self.limits.run_cap),
                input_count(*n),
                shown(values)
            ));
        }
        if let Some((values, error, n)) = &self.faults {
            warnings.push(format!(
                "the reference fails on {} of the domain (first: {}: {error}); its steps up \
                 to the error count",
                input_count(*n),
                shown(values)
            ));
        }
        if self.cut {
            warnings.push(format!(
                "sizing stopped after {} of the reference's runs ({} steps, {} s at most): \
                 the fuel fits the inputs run so far",
                input_count(self.inputs),
                grouped(self.limits.total),
                self.limits.time.as_secs()
            ));
        }
        if self.inputs == 0 {
            warnings.push(format!(
                "the reference ended on no input of the sample: the fuel is the least `auto` \
                 gives, {}",
                grouped(AUTO_FUEL_FLOOR)
            ));
        }
        Sizing {
            fuel: fuel_for(self.max),
            factor: AUTO_FUEL_FACTOR,
            floor: AUTO_FUEL_FLOOR,
            reference_max_steps: self.max,
            inputs: self.inputs,
            longest: self.longest.as_deref().map(shown),
            warnings,
        }
    }
}

/// `1 input` or `3 inputs`.
fn input_count(n: u64) -> String {
    crate::words::count(n, "input")
}

/// The fuel for a reference whose most steps are `max`.
pub fn fuel_for(max: u64) -> u64 {
    max.saturating_mul(AUTO_FUEL_FACTOR).max(AUTO_FUEL_FLOOR)
}

/// One run of `program` on `values` within `fuel` steps; `None` when the inputs
/// cannot be placed for it.
fn run(
    program: &Program,
    opts: &Options,
    layout: &InputLayout,
    values: &[u32],
    fuel: u64,
    deadline: Option<Instant>,
) -> Option<Outcome> {
    let mut config = Config::with_fuel(fuel);
    config.termination = opts.termination;
    config.stop = Stop::at(deadline).with_flag(opts.interrupt);
    let mut machine = Machine::new(program, config);
    layout.load(&mut machine, values).ok()?;
    Some(machine.run_to_outcome(&mut NoTrace))
}

/// The inputs the sizing runs take, in the layout's order, before the preconditions:
/// the same list, in the same order, every time.
/// `constants` (the preconditions' bounds) join the edge values of registers.
pub fn sample(layout: &InputLayout, constants: &[u32]) -> Vec<Vec<u32>> {
    let mut rng = SplitMix(SEED);
    let mut out = Unique::default();
    match &layout.spec {
        InputSpec::Registers(regs) => {
            let mut edges = EDGES.to_vec();
            edges.extend(constants.iter().filter(|c| !EDGES.contains(c)));
            registers(regs.len(), layout.stdin_len, &edges, &mut rng, &mut out)
        }
        InputSpec::Array { max_len, .. } => arrays(*max_len, layout.stdin_len, &mut rng, &mut out),
    }
    out.list
}

/// A list without repeats, in the order first given.
#[derive(Default)]
struct Unique {
    seen: HashSet<Vec<u32>>,
    list: Vec<Vec<u32>>,
}

impl Unique {
    fn push(&mut self, values: Vec<u32>) {
        if self.seen.insert(values.clone()) {
            self.list.push(values);
        }
    }
}

/// The register sample: every input at each edge value; for up to three inputs the
/// grid of edge values and a grid of small values; then pseudo-random values (each a
/// full word, a small one or a medium one). Standard input bytes follow each.
fn registers(n: usize, stdin: usize, edges: &[u32], rng: &mut SplitMix, out: &mut Unique) {
    let with_stdin = |regs: Vec<u32>, rng: &mut SplitMix| {
        let mut v = regs;
        v.extend((0..stdin).map(|_| rng.byte()));
        v
    };
    for &e in edges {
        out.push(with_stdin(vec![e; n], rng));
    }
    let small: Vec<u32> = SMALL.map(|v| v as u32).collect();
    // Grids only while they stay small: 35 x 35 small values, the edges squared.
    let edges = &edges[..edges.len().min(40)];
    let grids: &[&[u32]] = match n {
        1 | 2 => &[&small, edges],
        3 => &[&small[..12], &edges[..edges.len().min(8)]],
        _ => &[],
    };
    for values in grids {
        for point in grid(values, n) {
            out.push(with_stdin(point, rng));
        }
    }
    for _ in 0..RANDOM_INPUTS {
        let regs = (0..n).map(|_| rng.word()).collect();
        out.push(with_stdin(regs, rng));
    }
}

/// Every point of `values`^n, the last coordinate fastest.
fn grid(values: &[u32], n: usize) -> Vec<Vec<u32>> {
    let mut points = vec![Vec::new()];
    for _ in 0..n {
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |&v| {
                    let mut q = p.clone();
                    q.push(v);
                    q
                })
            })
            .collect();
    }
    points
}

/// The array sample: for every length from 0 to `max_len`, arrays of zeros, ones,
/// minus ones, INT_MIN and INT_MAX, ascending and descending ones, then pseudo-random
/// ones (half of them of small elements). The words past the length are zero (they are not placed).
fn arrays(max_len: u32, stdin: usize, rng: &mut SplitMix, out: &mut Unique) {
    let per_length = (RANDOM_INPUTS / (max_len as usize + 1)).clamp(4, 64);
    for len in 0..=max_len {
        let n = len as usize;
        let mut shapes: Vec<Vec<u32>> = [0, 1, u32::MAX, 0x8000_0000, 0x7FFF_FFFF]
            .iter()
            .map(|&e| vec![e; n])
            .collect();
        shapes.push((0..len).collect());
        shapes.push((0..len).rev().collect());
        // Half of any words, half of small ones only (preconditions often bound
        // every element: `all x: -1000 <= x <= 1000`).
        for k in 0..per_length {
            let elems = (0..n).map(|_| if k % 2 == 0 { rng.word() } else { rng.small() });
            shapes.push(elems.collect());
        }
        for elems in shapes {
            let mut v = Vec::with_capacity(1 + max_len as usize + stdin);
            v.push(len);
            v.extend(&elems);
            v.resize(1 + max_len as usize, 0);
            v.extend((0..stdin).map(|_| rng.byte()));
            out.push(v);
        }
    }
}

/// SplitMix64: a small, fixed generator (the same numbers on every machine).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A word: a third of them any word, a third small (-64 to 64), a third medium
    /// (-65,536 to 65,536).
    fn word(&mut self) -> u32 {
        let r = self.next();
        let span = |bound: u64| ((r >> 8) % (2 * bound + 1)) as i64 - bound as i64;
        match r % 3 {
            0 => (r >> 32) as u32,
            1 => span(64) as u32,
            _ => span(65_536) as u32,
        }
    }

    /// A small word, -64 to 64.
    fn small(&mut self) -> u32 {
        (((self.next() >> 8) % 129) as i64 - 64) as u32
    }

    /// A byte of standard input: printable ASCII mostly, sometimes any byte.
    fn byte(&mut self) -> u32 {
        let r = self.next();
        if r.is_multiple_of(4) {
            ((r >> 8) & 0xff) as u32
        } else {
            0x20 + ((r >> 8) % 95) as u32
        }
    }
}

/// A warning attached to a submission: the difference its witness shows may be the
/// fuel's, not the submission's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FuelWarning {
    /// `fuel-too-small`.
    pub kind: &'static str,
    pub message: String,
    pub advice: String,
}

/// The warning for a witness (`values`, in the layout's order) of a comparison of
/// `reference` with `submission` under `opts`: when one side runs out of fuel on it
/// but ends (normally or with an error) within [`WARNING_FACTOR`] times the fuel.
pub fn witness_warning(
    reference: &Program,
    submission: &Program,
    opts: &Options,
    layout: &InputLayout,
    values: &[u32],
) -> Option<FuelWarning> {
    let sides = [("the submission", submission), ("the reference", reference)];
    fuel_warning(sides, opts, layout, values)
}

/// As [`witness_warning`], for two programs named as the report names them (`the
/// right program`), the first looked at first.
pub fn fuel_warning(
    sides: [(&str, &Program); 2],
    opts: &Options,
    layout: &InputLayout,
    values: &[u32],
) -> Option<FuelWarning> {
    let fuel = opts.fuel;
    let more = fuel.saturating_mul(WARNING_FACTOR);
    let ends_later = |program: &Program| {
        let o = run(program, opts, layout, values, more, None)?;
        let ended = matches!(o.status, Status::Done | Status::Error(_));
        (ended && o.steps > fuel).then_some(o.steps)
    };
    let (who, steps) = sides
        .iter()
        .find_map(|&(who, program)| Some((who, ends_later(program)?)))?;
    Some(FuelWarning {
        kind: "fuel-too-small",
        message: format!(
            "{who} runs out of fuel on this witness, but ends after {} steps, within {} × \
             the fuel of {}: the difference may be the fuel's, not the program's",
            grouped(steps),
            WARNING_FACTOR,
            grouped(fuel)
        ),
        advice: format!(
            "give --fuel auto (or `fuel = \"auto\"` in the task file) to size the fuel from \
             the reference's runs, or --fuel {steps} or more"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin::Precondition;
    use tamarin_mips::asm::assemble;

    fn program(text: &str) -> Program {
        assemble("p.asm", text).expect("assembles")
    }

    /// Counts $1 down to zero: 5 steps per unit of $1 (when $1 > 0).
    fn countdown() -> Program {
        program(
            "loop: slt $3, $0, $1\nbeq $3, $0, end\nlis $4\n.word -1\nadd $1, $1, $4\n\
             beq $0, $0, loop\nend: jr $31\n",
        )
    }

    fn layout(opts: &Options) -> InputLayout {
        InputLayout::assuming(&opts.inputs, opts.stdin_len, &opts.assume).expect("a layout")
    }

    fn assuming(texts: &[&str]) -> Options {
        let mut opts = Options::default();
        opts.assume = texts
            .iter()
            .map(|t| Precondition::parse(t).expect("parses"))
            .collect();
        opts
    }

    #[test]
    fn the_sample_is_the_same_every_time_and_has_no_repeats() {
        let opts = Options::default();
        let a = sample(&layout(&opts), &[]);
        let b = sample(&layout(&opts), &[]);
        assert_eq!(a, b);
        let distinct: HashSet<&Vec<u32>> = a.iter().collect();
        assert_eq!(distinct.len(), a.len());
        // Edges, small values and random ones.
        for point in [[0x8000_0000, 0x7FFF_FFFF], [17, 5], [u32::MAX, 0]] {
            assert!(a.contains(&point.to_vec()), "{point:?}");
        }
        assert!(a.len() > 1225 + RANDOM_INPUTS / 2, "{}", a.len());
    }

    #[test]
    fn array_samples_take_every_length_up_to_the_bound() {
        let mut opts = Options::default();
        opts.inputs = InputSpec::Array {
            max_len: 5,
            base: None,
        };
        let s = sample(&layout(&opts), &[]);
        let lengths: HashSet<u32> = s.iter().map(|v| v[0]).collect();
        assert_eq!(lengths, (0..=5).collect());
        assert!(s.iter().all(|v| v.len() == 6));
        // Full-length arrays of small, varied elements (what `all x: -1000 <= x <=
        // 1000` admits), beside the constant ones.
        let small = |x: &u32| (*x as i32).unsigned_abs() <= 64;
        let varied = s.iter().filter(|v| {
            v[0] == 5 && v[1..].iter().all(small) && v[1..].windows(2).any(|w| w[0] != w[1])
        });
        assert!(varied.count() >= 4);
    }

    #[test]
    fn the_fuel_is_the_factor_times_the_most_steps_on_admitted_inputs() {
        // Inputs up to 5,000 only: the longest run counts 5,000 down.
        let opts = assuming(&["0 <= $1 <= 5000"]);
        let l = layout(&opts);
        let s = size(&countdown(), &opts, &l);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        let longest = run(&countdown(), &opts, &l, &[5000, 0], 1 << 20, None).expect("runs");
        assert_eq!(s.reference_max_steps, longest.steps);
        assert_eq!(s.fuel, AUTO_FUEL_FACTOR * longest.steps);
        assert!(s.fuel > AUTO_FUEL_FLOOR);
        assert!(s
            .longest
            .as_deref()
            .is_some_and(|l| l.starts_with("$1 = 5000")));
        // Every input run was admitted: no run on $1 = INT_MAX, which would take
        // billions of steps.
        assert!(s.inputs > 0);
        assert_eq!(size(&countdown(), &opts, &l), s, "the same every time");
        assert!(s.derivation().contains(" × "), "{}", s.derivation());
    }

    #[test]
    fn a_short_reference_gets_the_floor() {
        let opts = Options::default();
        let add = program("add $3, $1, $2\njr $31\n");
        let s = size(&add, &opts, &layout(&opts));
        assert_eq!((s.reference_max_steps, s.fuel), (2, AUTO_FUEL_FLOOR));
        assert!(
            s.derivation().contains("at least 10,000"),
            "{}",
            s.derivation()
        );
        assert!(
            s.phrase().contains("at least 10,000; 4 × 2,"),
            "{}",
            s.phrase()
        );
    }

    #[test]
    fn a_reference_that_does_not_end_or_fails_is_reported() {
        let opts = assuming(&["0 <= $1 <= 3"]);
        let l = layout(&opts);
        // Spins when $1 == 2; divides by $1 - 3, zero when $1 == 3.
        let spins = program(
            "lis $4\n.word 2\nspin: beq $1, $4, spin\nlis $5\n.word 3\nsub $5, $1, $5\n\
             div $1, $5\njr $31\n",
        );
        let limits = Limits {
            run_cap: 100_000,
            total: 1_000_000,
            time: Duration::from_secs(600),
        };
        let s = size_within(&spins, &opts, &l, limits);
        let text = s.warnings.join("\n");
        assert!(text.contains("does not end within 100,000 steps"), "{text}");
        assert!(text.contains("$1 = 2"), "{text}");
        assert!(text.contains("fails on"), "{text}");
        assert!(text.contains("division by zero"), "{text}");
        assert!(s.fuel >= AUTO_FUEL_FLOOR);
    }

    #[test]
    fn a_witness_that_ends_with_more_fuel_is_warned_about() {
        let mut opts = Options::default();
        opts.fuel = 1000;
        let l = layout(&opts);
        let quick = program("add $3, $1, $0\njr $31\n");
        // Counting 400 down takes about 2,000 steps: out of 1,000, within 4,000.
        let w = witness_warning(&quick, &countdown(), &opts, &l, &[400, 0]).expect("a warning");
        assert_eq!(w.kind, "fuel-too-small");
        assert!(
            w.message.starts_with("the submission runs out of fuel"),
            "{}",
            w.message
        );
        assert!(w.advice.contains("fuel = \"auto\""), "{}", w.advice);
        // The reference's side too.
        let w = witness_warning(&countdown(), &quick, &opts, &l, &[400, 0]).expect("a warning");
        assert!(w.message.starts_with("the reference"), "{}", w.message);
        // No warning when it ends within the fuel, or not even within 4 times it.
        assert_eq!(
            witness_warning(&quick, &countdown(), &opts, &l, &[100, 0]),
            None
        );
        assert_eq!(
            witness_warning(&quick, &countdown(), &opts, &l, &[5000, 0]),
            None
        );
    }

    #[test]
    fn the_bounds_of_preconditions_are_sampled() {
        assert_eq!(constants("1 <= $1 <= 26"), [0, 1, 2, 25, 26, 27]);
        // An index is a number too (harmless: one more edge value).
        assert_eq!(
            constants("a[3] != -5 && len < 0x10"),
            [
                2,
                3,
                4,
                (-6i32) as u32,
                (-5i32) as u32,
                (-4i32) as u32,
                15,
                16,
                17
            ]
        );
        let opts = assuming(&["$1 >= 7000"]);
        let with = sample(&layout(&opts), &constants(opts.assume[0].text()));
        assert!(with.contains(&vec![7000, 7000]));
        assert!(!sample(&layout(&opts), &[]).contains(&vec![7000, 7000]));
    }

    #[test]
    fn a_sizing_cut_short_says_so() {
        let opts = assuming(&["0 <= $1 <= 5000"]);
        let limits = Limits {
            run_cap: 100_000,
            total: 30_000,
            time: Duration::from_secs(600),
        };
        let s = size_within(&countdown(), &opts, &layout(&opts), limits);
        assert!(
            s.warnings.iter().any(|w| w.starts_with("sizing stopped")),
            "{:?}",
            s.warnings
        );
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(11_200), "11,200");
        assert_eq!(grouped(100_000_000), "100,000,000");
    }
}
