//! Loop pairs for proofs of any length: two C functions whose loops run as many
//! trips as an argument says (up to 2^32 − 1), written from templates with random
//! constants ([`loop_pairs`]), compiled at two levels, compared with
//! `FunctionOptions::unbounded`, and every verdict checked by long runs
//! ([`check_loop_pair`]).
//!
//! The families are those a proof for runs of any length must handle or refuse:
//! lockstep loops (one strength-reduced by hand), counters running in opposite
//! directions, a loop against its closed form, a loop against itself unrolled by two,
//! division by repeated subtraction against `/`, two kinds of needle that differ
//! only after millions of trips, two loops one after the other, nested loops, and
//! loops that meet in no fixed ratio (a count by ones against one in chunks), and a
//! sum of `k * i` against its closed form (a degree-2 polynomial). Checks:
//!
//! - `equivalent`: both sides run on long inputs (trip counts up to about eleven
//!   million) under our emulator with at least 10^8 steps of fuel and under qemu; any
//!   difference is an unsound proof.
//! - `disequivalent`: the witness is run under qemu and must differ.
//! - A needle's pair must never be `equivalent`; that it differs at its needle is
//!   checked too, so the family cannot go stale.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use tamarin::{compare_functions, FunctionOptions, FunctionSide, FunctionVerdict};

use super::oracle::{run_ours, Build, Level, Oracle, Outcome};
use crate::rng::Rng;

/// What a pair's two functions are, by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Equal on every input (both return the same value, or both run forever).
    Equal,
    /// They differ, but only on inputs whose loop runs past `after` trips.
    DiffersAfter(u32),
}

/// One generated pair.
#[derive(Clone, Debug)]
pub struct LoopPair {
    pub family: &'static str,
    pub left: String,
    pub right: String,
    pub expect: Expect,
    /// Inputs for the long runs (the first argument is the trip count).
    pub long_inputs: Vec<[i32; 4]>,
}

/// The families, in the order [`loop_pairs`] cycles through them.
pub const FAMILIES: [&str; 12] = [
    "lockstep",
    "strength-reduced",
    "opposite",
    "closed-form",
    "unrolled-by-two",
    "division-by-subtraction",
    "needle",
    "late-flag",
    "two-loops",
    "nested",
    "in-chunks",
    "sum-of-i",
];

fn func(body: &str) -> String {
    format!("unsigned f(unsigned n, unsigned b, unsigned c, unsigned d) {{\n{body}\n}}\n")
}

/// `count` pairs from `seed`, cycling through [`FAMILIES`].
pub fn loop_pairs(seed: u64, count: usize) -> Vec<LoopPair> {
    let mut rng = Rng::new(seed ^ 0x6c6f_6f70);
    (0..count)
        .map(|k| make(FAMILIES[k % FAMILIES.len()], &mut rng))
        .collect()
}

/// Trip counts for the long runs: edges, a few millions, and `extra`.
fn long_inputs(rng: &mut Rng, extra: &[u32]) -> Vec<[i32; 4]> {
    let mut ns: Vec<u32> = vec![0, 1, 2, 3, 7, 1000, 65_537, 3_000_001];
    ns.push(10_000_000 + rng.below(1_000_000) as u32);
    ns.extend_from_slice(extra);
    ns.iter()
        .map(|&n| {
            [
                n as i32,
                rng.below(100) as i32,
                rng.next_u32() as i32,
                rng.below(9) as i32 + 1,
            ]
        })
        .collect()
}

fn make(family: &'static str, rng: &mut Rng) -> LoopPair {
    let k = rng.below(9) as u32 + 2;
    let c = rng.below(100) as u32;
    let d = rng.below(50) as u32 + 1;
    let needle = 3_000_000 + rng.below(1_000_000) as u32;
    let (left, right, expect) = match family {
        "lockstep" => (
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s += {k} * i + b;\n    return s;"
            )),
            func(&format!(
                "    unsigned s = {c}, i = 0;\n    while (i != n) {{\n        s += b + {k} * i;\n        i++;\n    }}\n    return s;"
            )),
            Expect::Equal,
        ),
        "strength-reduced" => (
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s += {k} * i + {d};\n    return s;"
            )),
            func(&format!(
                "    unsigned s = {c}, t = {d};\n    for (unsigned i = 0; i < n; i++) {{\n        s += t;\n        t += {k};\n    }}\n    return s;"
            )),
            Expect::Equal,
        ),
        "opposite" => (
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s = s * {k} + b;\n    return s;"
            )),
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = n; i != 0; i--)\n        s = s * {k} + b;\n    return s;"
            )),
            Expect::Equal,
        ),
        "closed-form" => (
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s += {k};\n    return s;"
            )),
            func(&format!("    return {c} + n * {k};")),
            Expect::Equal,
        ),
        "unrolled-by-two" => (
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s = s * {k} + b;\n    return s;"
            )),
            func(&format!(
                "    unsigned s = {c}, i = 0;\n    for (; i + 1 < n; i += 2) {{\n        s = s * {k} + b;\n        s = s * {k} + b;\n    }}\n    if (i < n)\n        s = s * {k} + b;\n    return s;"
            )),
            Expect::Equal,
        ),
        "division-by-subtraction" => (
            func("    if (b == 0)\n        return 0;\n    unsigned q = 0;\n    while (n >= b) {\n        n -= b;\n        q++;\n    }\n    return q;"),
            func("    if (b == 0)\n        return 0;\n    return n / b;"),
            Expect::Equal,
        ),
        "needle" => (
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s += {k} * i + b;\n    return s;"
            )),
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++) {{\n        s += {k} * i + b;\n        if (i == {needle}u)\n            s ^= 1;\n    }}\n    return s;"
            )),
            Expect::DiffersAfter(needle),
        ),
        // Two loops one after the other, the second counting the other way.
        "two-loops" => (
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s += {k} * i + b;\n    for (unsigned j = 0; j < n; j++)\n        s ^= j + {d};\n    return s;"
            )),
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s += b + {k} * i;\n    for (unsigned j = n; j != 0; j--)\n        s ^= n - j + {d};\n    return s;"
            )),
            Expect::Equal,
        ),
        // A loop inside a loop (at most four inner trips, so that the long runs stay
        // within the fuel), the inner one counting the other way.
        "nested" => (
            func(&format!(
                "    unsigned s = {c}, m = (b & 3) + 1;\n    for (unsigned i = 0; i < n; i++)\n        for (unsigned j = 0; j < m; j++)\n            s += (i ^ j) * {k};\n    return s;"
            )),
            func(&format!(
                "    unsigned s = {c}, m = (b & 3) + 1;\n    for (unsigned i = 0; i < n; i++)\n        for (unsigned j = m; j != 0; j--)\n            s += (i ^ (m - j)) * {k};\n    return s;"
            )),
            Expect::Equal,
        ),
        // A count one at a time against one `w` at a time and then one at a time:
        // loops that meet in no fixed ratio (-O2 counts without a loop; -O0 and -O1
        // keep them).
        "in-chunks" => {
            let w = rng.below(15) as u32 + 2;
            (
                func(&format!(
                    "    unsigned s = 0;\n    for (unsigned j = n; j != 0; j--)\n        s++;\n    return s * {k} + b;"
                )),
                func(&format!(
                    "    unsigned s = 0, j = n;\n    while (j >= {w}) {{\n        j -= {w};\n        s += {w};\n    }}\n    while (j != 0) {{\n        j--;\n        s++;\n    }}\n    return s * {k} + b;"
                )),
                Expect::Equal,
            )
        }
        // A sum of `k * i` against its closed form, `n (n - 1) / 2` taken in 64 bits: a
        // degree-2 polynomial.
        "sum-of-i" => {
            let k = rng.below(4) as u32 + 1;
            (
                func(&format!(
                    "    unsigned s = b;\n    for (unsigned i = 0; i < n; i++)\n        s += {k} * i;\n    return s;"
                )),
                func(&format!(
                    "    unsigned long long m = n;\n    return b + {k} * (unsigned)(m * (m - 1) / 2);"
                )),
                Expect::Equal,
            )
        }
        _ => (
            func(&format!(
                "    unsigned s = {c};\n    for (unsigned i = 0; i < n; i++)\n        s += {k};\n    return s;"
            )),
            func(&format!(
                "    unsigned s = {c}, late = 0;\n    for (unsigned i = 0; i < n; i++) {{\n        s += {k} + late;\n        late = i >= {needle}u;\n    }}\n    return s;"
            )),
            Expect::DiffersAfter(needle),
        ),
    };
    let extra = match expect {
        Expect::DiffersAfter(n) => vec![n + 2],
        Expect::Equal => Vec::new(),
    };
    let long_inputs = long_inputs(rng, &extra);
    LoopPair {
        family,
        left,
        right,
        expect,
        long_inputs,
    }
}

/// How the checks of one pair went.
#[derive(Clone, Debug)]
pub struct LoopResult {
    pub index: usize,
    pub family: &'static str,
    pub levels: (Level, Level),
    pub verdict: Option<FunctionVerdict>,
    /// `equivalent`, `disequivalent`, or `possibly-equivalent (reasons)`.
    pub verdict_text: String,
    pub seconds: f64,
    /// Long runs made (ours and qemu's), and the most steps one of ours took.
    pub long_runs: usize,
    pub longest: u64,
    /// What is wrong (an unsound verdict, a stale needle, a build failure).
    pub failures: Vec<String>,
}

impl LoopResult {
    pub fn proved(&self) -> bool {
        matches!(self.verdict, Some(FunctionVerdict::Equivalent))
    }
}

/// The settings of a loop campaign.
#[derive(Clone, Debug)]
pub struct LoopSettings {
    pub levels: (Level, Level),
    /// Time limit of one comparison.
    pub timeout: Duration,
    /// Fuel of our long runs (at least 10^8).
    pub fuel: u64,
    /// Whether qemu runs the long inputs too.
    pub qemu: bool,
}

impl Default for LoopSettings {
    fn default() -> Self {
        LoopSettings {
            levels: (Level::O0, Level::O2),
            timeout: Duration::from_secs(60),
            fuel: 1_000_000_000,
            qemu: true,
        }
    }
}

/// Builds, compares and checks pair `index`.
pub fn check_loop_pair(
    oracle: &Oracle,
    index: usize,
    pair: &LoopPair,
    settings: &LoopSettings,
) -> LoopResult {
    let mut result = LoopResult {
        index,
        family: pair.family,
        levels: settings.levels,
        verdict: None,
        verdict_text: String::new(),
        seconds: 0.0,
        long_runs: 0,
        longest: 0,
        failures: Vec::new(),
    };
    let stem = |side: &str| format!("loop{index:04}-{side}");
    let build = |side: &str, source: &str, level: Level| oracle.build(&stem(side), source, level);
    let (left, right) = match (
        build("left", &pair.left, settings.levels.0),
        build("right", &pair.right, settings.levels.1),
    ) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => {
            result.failures.push(format!("build: {e}"));
            return result;
        }
    };
    let entry = |b: &Build| b.image.function("f").map(|s| s.addr);
    let (Some(le), Some(re)) = (entry(&left), entry(&right)) else {
        result.failures.push("an object defines no f".into());
        return result;
    };
    let opts = FunctionOptions {
        args: 2,
        timeout: Some(settings.timeout),
        unbounded: true,
        ..FunctionOptions::default()
    };
    let started = Instant::now();
    let report = compare_functions(
        FunctionSide {
            image: &left.image,
            entry: le,
        },
        FunctionSide {
            image: &right.image,
            entry: re,
        },
        &opts,
    );
    result.seconds = started.elapsed().as_secs_f64();
    let verdict = match report {
        Ok(r) => r.verdict,
        Err(e) => {
            result.failures.push(format!("compare: {e}"));
            return result;
        }
    };
    result.verdict = Some(verdict.clone());
    result.verdict_text = match &verdict {
        FunctionVerdict::Equivalent => "equivalent".into(),
        FunctionVerdict::Disequivalent(cx) => format!("disequivalent at {:?}", cx.args),
        FunctionVerdict::PossiblyEquivalent(gaps) => {
            let kinds: Vec<&str> = gaps.iter().map(|g| g.kind()).collect();
            format!("possibly-equivalent ({})", kinds.join(", "))
        }
    };
    match (&verdict, pair.expect) {
        (FunctionVerdict::Equivalent, Expect::DiffersAfter(n)) => result
            .failures
            .push(format!("a needle at trip {n} was proved equivalent")),
        (FunctionVerdict::Equivalent, Expect::Equal) => {
            check_long_runs(oracle, &left, &right, pair, settings, &mut result)
        }
        (FunctionVerdict::Disequivalent(cx), _) => {
            let input = [cx.args[0] as i32, cx.args[1] as i32, 0, 0];
            match (
                oracle.run_qemu(&left.exe, &[input]),
                oracle.run_qemu(&right.exe, &[input]),
            ) {
                (Ok(l), Ok(r)) if !l[0].agrees(&r[0]) => {}
                (Ok(l), Ok(r)) => result.failures.push(format!(
                    "the witness {input:?} does not differ under qemu: {} and {}",
                    l[0], r[0]
                )),
                (Err(e), _) | (_, Err(e)) => result.failures.push(format!("qemu: {e}")),
            }
        }
        (FunctionVerdict::PossiblyEquivalent(_), _) => {}
    }
    if let Expect::DiffersAfter(n) = pair.expect {
        // The needle must still differ where it was placed.
        let input = [[(n + 2) as i32, 1, 0, 0]];
        let fuel = settings.fuel;
        match (
            run_ours(&left.image, &input, fuel),
            run_ours(&right.image, &input, fuel),
        ) {
            (Ok((l, _)), Ok((r, _))) if !l[0].agrees(&r[0]) => {}
            (Ok((l, _)), Ok((r, _))) => result.failures.push(format!(
                "the needle at {n} does not differ: {} and {}",
                l[0], r[0]
            )),
            (Err(e), _) | (_, Err(e)) => result.failures.push(e),
        }
    }
    left.remove_files();
    right.remove_files();
    result
}

/// Runs both sides of a proved pair on the long inputs (ours with `settings.fuel`,
/// and qemu's): they must agree on every input where both ended.
fn check_long_runs(
    oracle: &Oracle,
    left: &Build,
    right: &Build,
    pair: &LoopPair,
    settings: &LoopSettings,
    result: &mut LoopResult,
) {
    for input in &pair.long_inputs {
        let one = [*input];
        let (l, r) = match (
            run_ours(&left.image, &one, settings.fuel),
            run_ours(&right.image, &one, settings.fuel),
        ) {
            (Ok(l), Ok(r)) => (l, r),
            (Err(e), _) | (_, Err(e)) => {
                result.failures.push(e);
                return;
            }
        };
        result.long_runs += 2;
        result.longest = result.longest.max(l.1).max(r.1);
        let out_of_fuel =
            |o: &Outcome| matches!(o, Outcome::Fault(s) if s.starts_with("out of fuel"));
        let both_spun = out_of_fuel(&l.0[0]) && out_of_fuel(&r.0[0]);
        if !(l.0[0].agrees(&r.0[0]) || both_spun) {
            result.failures.push(format!(
                "proved, but f{input:?} gives {} and {} in our emulator",
                l.0[0], r.0[0]
            ));
        }
    }
    if !settings.qemu {
        return;
    }
    match (
        oracle.run_qemu(&left.exe, &pair.long_inputs),
        oracle.run_qemu(&right.exe, &pair.long_inputs),
    ) {
        (Ok(l), Ok(r)) => {
            result.long_runs += l.len() + r.len();
            for ((input, a), b) in pair.long_inputs.iter().zip(&l).zip(&r) {
                if !a.agrees(b) {
                    result.failures.push(format!(
                        "proved, but f{input:?} gives {a} and {b} under qemu"
                    ));
                }
            }
        }
        (Err(e), _) | (_, Err(e)) => result.failures.push(format!("qemu: {e}")),
    }
}

/// One line per pair.
pub fn line(r: &LoopResult) -> String {
    let mut s = format!(
        "{:4} {:<24} {}..{} {:<40} {:6.2} s, {} long runs (longest {} steps)",
        r.index,
        r.family,
        r.levels.0,
        r.levels.1,
        r.verdict_text,
        r.seconds,
        r.long_runs,
        r.longest
    );
    for f in &r.failures {
        let _ = write!(s, "\n     FAIL: {f}");
    }
    s
}
