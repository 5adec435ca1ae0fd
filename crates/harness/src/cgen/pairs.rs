//! Comparisons of MIPS32 functions, every verdict checked against `qemu-mips`.
//!
//! For generated function `i` ([`generate`]), two pairs: `same-source` (the function
//! compiled at one level against itself at another, `-O0` against `-O2` by default:
//! they must be equivalent) and `mutant` (the function at the first level against one
//! [`mutate`]d copy at the second: they may differ). Each pair is compared by
//! [`tamarin::compare_functions`] over all four arguments, and its verdict is checked
//! on the static programs under qemu ([`check_verdict`]):
//!
//! - `Disequivalent(cx)`: both programs run on `cx.args`, and must end differently
//!   (different printed values, or one traps and the other does not); otherwise the
//!   verdict is unsound ([`FindingClass::UnsoundDifference`]). Each side of our replay
//!   must also end as qemu does ([`FindingClass::ReplayMismatch`] otherwise).
//! - `Equivalent`: both programs run on many inputs ([`pair_inputs`]), and must end
//!   alike on each (the same value, or both a trap); an input where they do not makes
//!   the proof unsound ([`FindingClass::UnsoundProof`]).
//! - `PossiblyEquivalent`: the same inputs; a difference is a
//!   [`FindingClass::MissedDifference`] (counted and reported, not unsound).
//!
//! tamarin calls two runs different when both return with different `$v0`, when both
//! fault with different kinds, or when one returns and the other faults; qemu prints
//! the value or dies of `SIGTRAP`. The generated functions fault only by gcc's
//! division check (`teq`), so the outcomes map one to one: a value is a value, a trap
//! is [`FaultKind::Trap`]. Anything else from qemu (another signal, a timeout) is not
//! guessed at: it is an [`FindingClass::Oracle`] finding, with what qemu did.
//!
//! Two levels of one function need not behave alike where a division by zero traps:
//! that is undefined behaviour in C, and `-O2` may drop a division whose result is
//! not used, which `-O0` performs. The checks hold the machine code, not the C, so such a
//! pair may rightly be disequivalent (a witness with a trap on one side); the totals
//! count these apart.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use tamarin::mips::mips32::{FaultKind, Status};
use tamarin::{compare_functions, FunctionOptions, FunctionRun, FunctionSide, FunctionVerdict};

use super::oracle::{run_ours, Build, Level, Oracle, Outcome};
use super::{generate, inputs, mutate, Func, Stmt};
use crate::rng::{mix, Rng};

/// Instructions per run, in the comparison and in our replays.
pub const DEFAULT_FUEL: u64 = 100_000;

/// The two pairs made of one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairKind {
    /// The function at one level against itself at another: equal.
    SameSource,
    /// The function at one level against a mutant at another: may differ.
    Mutant,
}

impl PairKind {
    pub const ALL: [PairKind; 2] = [PairKind::SameSource, PairKind::Mutant];

    /// `same-source` or `mutant`.
    pub fn name(self) -> &'static str {
        match self {
            PairKind::SameSource => "same-source",
            PairKind::Mutant => "mutant",
        }
    }
}

impl fmt::Display for PairKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A verdict's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VerdictKind {
    Equivalent,
    Disequivalent,
    PossiblyEquivalent,
}

impl VerdictKind {
    pub const ALL: [VerdictKind; 3] = [
        VerdictKind::Equivalent,
        VerdictKind::Disequivalent,
        VerdictKind::PossiblyEquivalent,
    ];

    pub fn of(v: &FunctionVerdict) -> VerdictKind {
        match v {
            FunctionVerdict::Equivalent => VerdictKind::Equivalent,
            FunctionVerdict::Disequivalent(_) => VerdictKind::Disequivalent,
            FunctionVerdict::PossiblyEquivalent(_) => VerdictKind::PossiblyEquivalent,
        }
    }

    /// `equivalent`, `disequivalent` or `possibly-equivalent`.
    pub fn name(self) -> &'static str {
        match self {
            VerdictKind::Equivalent => "equivalent",
            VerdictKind::Disequivalent => "disequivalent",
            VerdictKind::PossiblyEquivalent => "possibly-equivalent",
        }
    }
}

/// What is wrong (or, for a missed difference, merely weak).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingClass {
    /// `Disequivalent`, but qemu ends both programs alike on the witness.
    UnsoundDifference,
    /// `Equivalent`, but qemu ends the two programs differently on some input.
    UnsoundProof,
    /// Our replay of one side of a witness does not end as qemu does.
    ReplayMismatch,
    /// qemu did something other than print a value or trap.
    Oracle,
    /// A side did not compile, link or load, or its object calls outside itself.
    Build,
    /// `compare_functions` returned an error rather than a verdict.
    CompareError,
    /// `PossiblyEquivalent`, and qemu shows a difference: not unsound.
    MissedDifference,
}

impl FindingClass {
    pub const ALL: [FindingClass; 7] = [
        FindingClass::UnsoundDifference,
        FindingClass::UnsoundProof,
        FindingClass::ReplayMismatch,
        FindingClass::Oracle,
        FindingClass::Build,
        FindingClass::CompareError,
        FindingClass::MissedDifference,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FindingClass::UnsoundDifference => "unsound-difference",
            FindingClass::UnsoundProof => "unsound-proof",
            FindingClass::ReplayMismatch => "replay-mismatch",
            FindingClass::Oracle => "oracle",
            FindingClass::Build => "build",
            FindingClass::CompareError => "compare-error",
            FindingClass::MissedDifference => "missed-difference",
        }
    }

    /// Whether a campaign with it fails (everything but a missed difference).
    pub fn fails(self) -> bool {
        self != FindingClass::MissedDifference
    }
}

impl fmt::Display for FindingClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One finding of a pair: its class, the input (if one), and what was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairFinding {
    pub class: FindingClass,
    pub input: Option<[i32; 4]>,
    pub detail: String,
}

impl fmt::Display for PairFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.class)?;
        if let Some([a, b, c, d]) = self.input {
            write!(f, " f({a}, {b}, {c}, {d})")?;
        }
        write!(f, ": {}", self.detail)
    }
}

/// How a campaign compares and checks.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The left level and the right level (the same-source pair's and the mutant's).
    pub levels: (Level, Level),
    /// Whether to make the mutant pair too.
    pub mutants: bool,
    /// Time limit of one comparison.
    pub timeout: Duration,
    /// Instructions per run.
    pub fuel: u64,
    /// Inputs from [`inputs`] per check of an `Equivalent` or `PossiblyEquivalent`.
    pub inputs: usize,
    /// Uniformly random inputs besides those.
    pub random: usize,
    /// Compare for runs of any length (`FunctionOptions::unbounded`).
    pub unbounded: bool,
    /// The bounded search (`FunctionOptions::engine`).
    pub engine: tamarin::Engine,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            levels: (Level::O0, Level::O2),
            mutants: true,
            timeout: Duration::from_secs(10),
            fuel: DEFAULT_FUEL,
            inputs: 200,
            random: 50,
            unbounded: false,
            engine: tamarin::Engine::Auto,
        }
    }
}

/// The inputs on which a pair's programs are held against each other: `k` from
/// [`inputs`] (edges first), then `random` drawn uniformly from all 2^128.
pub fn pair_inputs(seed: u64, index: u64, k: usize, random: usize) -> Vec<[i32; 4]> {
    let mut out = inputs(seed, index, k);
    let mut rng = Rng::for_item(mix(seed ^ 0x9a17_5eed), index);
    for _ in 0..random {
        out.push([0; 4].map(|_: i32| rng.next_u32() as i32));
    }
    out
}

/// The seed of function `index`'s mutant.
pub fn mutant_seed(seed: u64, index: u64) -> u64 {
    mix(seed ^ 0x6d75_7461_6e74) ^ index
}

/// How one run of our emulator ended, as an [`Outcome`]: `$v0` (the first observed
/// register) when it returned, a trap for [`FaultKind::Trap`], anything else a fault.
pub fn outcome_of(run: &FunctionRun) -> Outcome {
    match run.status {
        Status::Returned => Outcome::Value(run.observed.first().copied().unwrap_or(0) as i32),
        Status::Error(f) if f.kind == FaultKind::Trap => Outcome::Trap,
        Status::Error(f) => Outcome::Fault(f.to_string()),
        Status::OutOfFuel => Outcome::Fault(format!("out of fuel after {} steps", run.steps)),
        Status::Stopped => Outcome::Fault("stopped".to_string()),
    }
}

/// What checking a verdict found, and how many qemu runs it took.
#[derive(Clone, Debug, Default)]
pub struct VerdictCheck {
    pub findings: Vec<PairFinding>,
    pub qemu_runs: usize,
    /// Inputs on which qemu ends the two programs differently (for an `Equivalent`
    /// or `PossiblyEquivalent` verdict).
    pub differing: usize,
    /// Of those, the inputs on which one program traps and the other returns (for
    /// two levels of one trapping function, a division by zero that only one level
    /// performs: undefined behaviour in C, which gcc may drop when its result is
    /// unused).
    pub differing_traps: usize,
}

/// Checks `verdict` on `left` and `right` (the builds that were compared) under
/// qemu: a witness must differ there, and be replayed as qemu runs it; a proof (or a
/// possible proof) must hold on every one of `inputs`. `fuel` is for our runs on an
/// input where the two differ (reported alongside qemu's outcomes).
pub fn check_verdict(
    oracle: &Oracle,
    left: &Build,
    right: &Build,
    verdict: &FunctionVerdict,
    inputs: &[[i32; 4]],
    fuel: u64,
) -> VerdictCheck {
    let mut out = VerdictCheck::default();
    let levels = (left.level.name(), right.level.name());
    match verdict {
        FunctionVerdict::Disequivalent(cx) => {
            let mut w = [0i32; 4];
            for (x, a) in w.iter_mut().zip(&cx.args) {
                *x = *a as i32;
            }
            let q = [&left.exe, &right.exe].map(|exe| oracle.run_qemu(exe, &[w]));
            out.qemu_runs = 2;
            let (ql, qr) = match q {
                [Ok(l), Ok(r)] if l.len() == 1 && r.len() == 1 => (l[0].clone(), r[0].clone()),
                [l, r] => {
                    out.findings.push(PairFinding {
                        class: FindingClass::Oracle,
                        input: Some(w),
                        detail: format!("qemu did not run the witness: left {l:?}, right {r:?}"),
                    });
                    return out;
                }
            };
            let ours = [outcome_of(&cx.left), outcome_of(&cx.right)];
            for (side, level, q, o) in [
                ("left", levels.0, &ql, &ours[0]),
                ("right", levels.1, &qr, &ours[1]),
            ] {
                if let Outcome::Fault(why) = q {
                    out.findings.push(PairFinding {
                        class: FindingClass::Oracle,
                        input: Some(w),
                        detail: format!("{side} (-{level}) under qemu: {why} (ours: {o})"),
                    });
                } else if !q.agrees(o) {
                    out.findings.push(PairFinding {
                        class: FindingClass::ReplayMismatch,
                        input: Some(w),
                        detail: format!("{side} (-{level}): qemu {q}, our replay {o}"),
                    });
                }
            }
            let oracle_failed = matches!(ql, Outcome::Fault(_)) || matches!(qr, Outcome::Fault(_));
            if !oracle_failed && ql.agrees(&qr) {
                out.findings.push(PairFinding {
                    class: FindingClass::UnsoundDifference,
                    input: Some(w),
                    detail: format!(
                        "tamarin: left {} right {}; qemu: both {ql}",
                        ours[0], ours[1]
                    ),
                });
            }
        }
        FunctionVerdict::Equivalent | FunctionVerdict::PossiblyEquivalent(_) => {
            let class = if *verdict == FunctionVerdict::Equivalent {
                FindingClass::UnsoundProof
            } else {
                FindingClass::MissedDifference
            };
            let (ql, qr) = match (
                oracle.run_qemu(&left.exe, inputs),
                oracle.run_qemu(&right.exe, inputs),
            ) {
                (Ok(l), Ok(r)) if l.len() == inputs.len() && r.len() == inputs.len() => (l, r),
                (l, r) => {
                    out.findings.push(PairFinding {
                        class: FindingClass::Oracle,
                        input: None,
                        detail: format!(
                            "qemu did not run the {} inputs: left {:?}, right {:?}",
                            inputs.len(),
                            l.map(|v| v.len()),
                            r.map(|v| v.len())
                        ),
                    });
                    return out;
                }
            };
            out.qemu_runs = 2 * inputs.len();
            let mut first: Option<usize> = None;
            for (k, (l, r)) in ql.iter().zip(&qr).enumerate() {
                let faulted = [("left", levels.0, l), ("right", levels.1, r)]
                    .into_iter()
                    .filter_map(|(side, level, o)| match o {
                        Outcome::Fault(why) => Some(format!("{side} (-{level}): {why}")),
                        _ => None,
                    })
                    .collect::<Vec<_>>();
                if !faulted.is_empty() {
                    out.findings.push(PairFinding {
                        class: FindingClass::Oracle,
                        input: Some(inputs[k]),
                        detail: format!("under qemu, {}", faulted.join("; ")),
                    });
                } else if !l.agrees(r) {
                    out.differing += 1;
                    out.differing_traps += usize::from(*l == Outcome::Trap || *r == Outcome::Trap);
                    first.get_or_insert(k);
                }
            }
            if let Some(k) = first {
                let input = inputs[k];
                let ours = |b: &Build| match run_ours(&b.image, &[input], fuel) {
                    Ok((o, _)) => o[0].to_string(),
                    Err(e) => e,
                };
                out.findings.push(PairFinding {
                    class,
                    input: Some(input),
                    detail: format!(
                        "qemu: left (-{}) {}, right (-{}) {}; ours: left {}, right {}; {} of {} inputs differ",
                        levels.0,
                        ql[k],
                        levels.1,
                        qr[k],
                        ours(left),
                        ours(right),
                        out.differing,
                        inputs.len()
                    ),
                });
            }
        }
    }
    out
}

/// The statements of a function and its helpers, nested ones included.
pub fn statements(func: &Func) -> usize {
    fn count(body: &[Stmt]) -> usize {
        body.iter()
            .map(|s| {
                1 + match s {
                    Stmt::If { then, els, .. } => count(then) + count(els),
                    Stmt::Loop { body, .. } => count(body),
                    Stmt::Switch { cases, default, .. } => {
                        cases.iter().map(|c| count(&c.body)).sum::<usize>() + count(default)
                    }
                    _ => 0,
                }
            })
            .sum()
    }
    func.helpers
        .iter()
        .chain([&func.f])
        .map(|d| count(&d.body))
        .sum()
}

/// The instructions of every function an object defines.
pub fn instructions(b: &Build) -> u32 {
    b.image.functions().iter().map(|(_, s)| s.size / 4).sum()
}

/// One pair: what was compared, the verdict, what it took, what the check found.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub index: u64,
    pub kind: PairKind,
    pub levels: (Level, Level),
    /// The mutant's change, for a mutant pair.
    pub mutation: Option<String>,
    /// None when a side did not build.
    pub verdict: Option<VerdictKind>,
    /// The verdict in words: the witness and both replays, or the gaps.
    pub verdict_text: String,
    /// The gaps' kinds, for a possibly-equivalent verdict.
    pub gaps: Vec<&'static str>,
    /// The comparison's time, in seconds.
    pub seconds: f64,
    /// The check's time under qemu, in seconds.
    pub check_seconds: f64,
    pub paths: (usize, usize),
    pub queries: u64,
    /// Instructions of the left and the right object.
    pub instructions: (u32, u32),
    pub qemu_runs: usize,
    /// Inputs on which qemu showed a difference (not counting a witness), and those
    /// of them where one side trapped.
    pub differing: usize,
    pub differing_traps: usize,
    /// For a disequivalent verdict: whether one side of the witness traps.
    pub witness_trap: bool,
    pub findings: Vec<PairFinding>,
}

/// One function's pairs.
#[derive(Clone, Debug)]
pub struct FuncResult {
    pub index: u64,
    pub trapping: bool,
    /// Statements of the original (helpers included).
    pub statements: usize,
    pub source: String,
    pub mutant_source: Option<String>,
    pub pairs: Vec<PairResult>,
}

impl FuncResult {
    pub fn findings(&self) -> impl Iterator<Item = (&PairResult, &PairFinding)> {
        self.pairs
            .iter()
            .flat_map(|p| p.findings.iter().map(move |f| (p, f)))
    }

    /// Whether some finding fails the campaign.
    pub fn fails(&self) -> bool {
        self.findings().any(|(_, f)| f.class.fails())
    }
}

fn verdict_text(v: &FunctionVerdict) -> String {
    match v {
        FunctionVerdict::Equivalent => "equivalent".to_string(),
        FunctionVerdict::Disequivalent(cx) => {
            let args: Vec<String> = cx.args.iter().map(|a| (*a as i32).to_string()).collect();
            format!(
                "disequivalent: f({}): left {}, right {}",
                args.join(", "),
                outcome_of(&cx.left),
                outcome_of(&cx.right)
            )
        }
        FunctionVerdict::PossiblyEquivalent(gaps) => {
            let g: Vec<String> = gaps
                .iter()
                .map(|g| match g {
                    tamarin::FunctionGap::Solver(why) => format!("solver-unknown ({why})"),
                    g => g.kind().to_string(),
                })
                .collect();
            format!("possibly equivalent: {}", g.join(", "))
        }
    }
}

/// Compares `left` against `right` under `settings` and checks the verdict.
#[allow(clippy::too_many_arguments)]
pub fn compare_pair(
    oracle: &Oracle,
    index: u64,
    kind: PairKind,
    left: &Build,
    right: &Build,
    mutation: Option<String>,
    ins: &[[i32; 4]],
    settings: &Settings,
) -> PairResult {
    let mut result = PairResult {
        index,
        kind,
        levels: (left.level, right.level),
        mutation,
        verdict: None,
        verdict_text: String::new(),
        gaps: Vec::new(),
        seconds: 0.0,
        check_seconds: 0.0,
        paths: (0, 0),
        queries: 0,
        instructions: (instructions(left), instructions(right)),
        qemu_runs: 0,
        differing: 0,
        differing_traps: 0,
        witness_trap: false,
        findings: Vec::new(),
    };
    fn side(b: &Build) -> Option<FunctionSide<'_>> {
        b.image.function("f").map(|s| FunctionSide {
            image: &b.image,
            entry: s.addr,
        })
    }
    let (Some(l), Some(r)) = (side(left), side(right)) else {
        result.findings.push(PairFinding {
            class: FindingClass::Build,
            input: None,
            detail: "an object defines no function f".to_string(),
        });
        return result;
    };
    let opts = FunctionOptions {
        args: 4,
        fuel: settings.fuel,
        timeout: Some(settings.timeout),
        unbounded: settings.unbounded,
        engine: settings.engine,
        ..FunctionOptions::default()
    };
    let report = match compare_functions(l, r, &opts) {
        Ok(report) => report,
        Err(e) => {
            result.findings.push(PairFinding {
                class: FindingClass::CompareError,
                input: None,
                detail: e.to_string(),
            });
            return result;
        }
    };
    result.verdict = Some(VerdictKind::of(&report.verdict));
    result.verdict_text = verdict_text(&report.verdict);
    if let FunctionVerdict::PossiblyEquivalent(gaps) = &report.verdict {
        result.gaps = gaps.iter().map(|g| g.kind()).collect();
        result.gaps.dedup();
    }
    result.seconds = report.elapsed.as_secs_f64();
    result.paths = report.paths;
    result.queries = report.queries;
    let started = Instant::now();
    let check = check_verdict(oracle, left, right, &report.verdict, ins, settings.fuel);
    result.check_seconds = started.elapsed().as_secs_f64();
    result.qemu_runs = check.qemu_runs;
    result.differing = check.differing;
    result.differing_traps = check.differing_traps;
    if let FunctionVerdict::Disequivalent(cx) = &report.verdict {
        result.witness_trap =
            outcome_of(&cx.left) == Outcome::Trap || outcome_of(&cx.right) == Outcome::Trap;
    }
    result.findings = check.findings;
    result
}

/// Builds `source` at `level` as `stem`, refusing an object that calls outside itself
/// (our emulator runs the object alone).
fn build(oracle: &Oracle, stem: &str, source: &str, level: Level) -> Result<Build, String> {
    let b = oracle.build(stem, source, level)?;
    if !b.image.undefined.is_empty() {
        let names: Vec<&str> = b.image.undefined.iter().map(|u| u.name.as_str()).collect();
        b.remove_files();
        return Err(format!(
            "-{} object calls {}, outside it",
            level.name(),
            names.join(", ")
        ));
    }
    Ok(b)
}

/// Function `index` of `seed`: its pairs compared and checked. With `dump`, the
/// sources and objects are copied to `dump/NNNNN/` (`f.c`, `m.c`, `f-LEVEL.o`,
/// `m-LEVEL.o`) with a `result.txt`; the oracle's own copies are always removed.
pub fn check_function(
    oracle: &Oracle,
    seed: u64,
    index: u64,
    settings: &Settings,
    dump: Option<&Path>,
) -> FuncResult {
    let func = generate(seed, index);
    let mutant = settings
        .mutants
        .then(|| mutate(&func, mutant_seed(seed, index)));
    let ins = pair_inputs(seed, index, settings.inputs, settings.random);
    let (l1, l2) = settings.levels;
    let mut res = FuncResult {
        index,
        trapping: func.trapping,
        statements: statements(&func),
        source: func.source(),
        mutant_source: mutant.as_ref().map(Func::source),
        pairs: Vec::new(),
    };
    let stem = Oracle::stem(&func);
    let left = build(oracle, &stem, &res.source, l1);
    let right = if l2 == l1 {
        None
    } else {
        Some(build(oracle, &stem, &res.source, l2))
    };
    let right_ref = match &right {
        None => &left,
        Some(r) => r,
    };
    let mstem = mutant.as_ref().map(Oracle::stem);
    let mbuild = mutant
        .as_ref()
        .zip(mstem.as_ref())
        .map(|(m, s)| build(oracle, s, &m.source(), l2));
    let failed = |kind, e: &String| PairResult {
        index,
        kind,
        levels: (l1, l2),
        mutation: None,
        verdict: None,
        verdict_text: String::new(),
        gaps: Vec::new(),
        seconds: 0.0,
        check_seconds: 0.0,
        paths: (0, 0),
        queries: 0,
        instructions: (0, 0),
        qemu_runs: 0,
        differing: 0,
        differing_traps: 0,
        witness_trap: false,
        findings: vec![PairFinding {
            class: FindingClass::Build,
            input: None,
            detail: e.clone(),
        }],
    };
    res.pairs.push(match (&left, right_ref) {
        (Ok(l), Ok(r)) => compare_pair(
            oracle,
            index,
            PairKind::SameSource,
            l,
            r,
            None,
            &ins,
            settings,
        ),
        (Err(e), _) | (_, Err(e)) => failed(PairKind::SameSource, e),
    });
    if let (Some(m), Some(mb)) = (&mutant, &mbuild) {
        res.pairs.push(match (&left, mb) {
            (Ok(l), Ok(r)) => compare_pair(
                oracle,
                index,
                PairKind::Mutant,
                l,
                r,
                m.mutation.clone(),
                &ins,
                settings,
            ),
            (Err(e), _) | (_, Err(e)) => {
                let mut p = failed(PairKind::Mutant, e);
                p.mutation = m.mutation.clone();
                p
            }
        });
    }
    if let Some(dir) = dump {
        if let Err(e) = dump_function(dir, &res, &[&left, right_ref], mbuild.as_ref(), settings) {
            res.pairs[0].findings.push(PairFinding {
                class: FindingClass::Build,
                input: None,
                detail: format!("cannot dump to {}: {e}", dir.display()),
            });
        }
    }
    for b in [Some(&left), right.as_ref(), mbuild.as_ref()]
        .into_iter()
        .flatten()
        .flatten()
    {
        b.remove_files();
        fs::remove_file(&b.source).ok();
    }
    res
}

/// Writes `dir/NNNNN/`: sources, objects and `result.txt`.
fn dump_function(
    dir: &Path,
    res: &FuncResult,
    originals: &[&Result<Build, String>],
    mutant: Option<&Result<Build, String>>,
    settings: &Settings,
) -> std::io::Result<()> {
    let d = dir.join(format!("{:05}", res.index));
    fs::create_dir_all(&d)?;
    fs::write(d.join("f.c"), &res.source)?;
    if let Some(m) = &res.mutant_source {
        fs::write(d.join("m.c"), m)?;
    }
    let named = originals
        .iter()
        .map(|b| ("f", *b))
        .chain(mutant.map(|b| ("m", b)));
    for (name, b) in named {
        if let Ok(b) = b {
            fs::copy(&b.object, d.join(format!("{name}-{}.o", b.level.name())))?;
        }
    }
    fs::write(d.join("result.txt"), describe(res, Some(&d), settings))
}

/// A function's pairs in words: each verdict, its time and findings, and the
/// `tamarin compare` command that repeats it (with `dir`, where the objects are).
pub fn describe(res: &FuncResult, dir: Option<&Path>, settings: &Settings) -> String {
    let mut s = String::new();
    for p in &res.pairs {
        let _ = writeln!(
            s,
            "{} {} -{} vs -{}: {} in {:.2} s ({} + {} paths, {} queries; {} + {} instructions; {} qemu runs)",
            res.index,
            p.kind,
            p.levels.0.name(),
            p.levels.1.name(),
            if p.verdict.is_some() {
                p.verdict_text.as_str()
            } else {
                "not compared"
            },
            p.seconds,
            p.paths.0,
            p.paths.1,
            p.queries,
            p.instructions.0,
            p.instructions.1,
            p.qemu_runs
        );
        if let Some(m) = &p.mutation {
            let _ = writeln!(s, "  mutation: {m}");
        }
        if let Some(d) = dir {
            let right = if p.kind == PairKind::Mutant { "m" } else { "f" };
            let _ = writeln!(
                s,
                "  repeat: tamarin compare {}/f-{}.o {}/{right}-{}.o --function f --fuel {} --timeout {}",
                d.display(),
                p.levels.0.name(),
                d.display(),
                p.levels.1.name(),
                settings.fuel,
                settings.timeout.as_secs().max(1)
            );
        }
        for f in &p.findings {
            let _ = writeln!(s, "  finding: {f}");
        }
    }
    s
}

/// The size buckets of the table, by instructions of the right object:
/// `[lo, hi)`.
pub const SIZE_BUCKETS: [(u32, u32); 6] = [
    (0, 25),
    (25, 50),
    (50, 100),
    (100, 200),
    (200, 400),
    (400, u32::MAX),
];

/// Sums over the pairs of one kind.
#[derive(Clone, Debug, Default)]
pub struct KindTotals {
    pub pairs: u64,
    pub verdicts: [u64; 3],
    pub not_compared: u64,
    /// Gap kinds of the possibly-equivalent verdicts (a pair counts once a kind).
    pub gaps: BTreeMap<String, u64>,
    pub seconds: f64,
    pub max_seconds: f64,
    pub max_index: u64,
    /// Disequivalent verdicts whose witness traps on one side.
    pub witness_traps: u64,
    /// Equivalent or possibly-equivalent pairs that qemu shows to differ, and those
    /// whose differences all have a trap on one side.
    pub qemu_differ: u64,
    pub qemu_differ_traps_only: u64,
    /// Time of the checks under qemu.
    pub check_seconds: f64,
    pub qemu_runs: u64,
    /// Per [`SIZE_BUCKETS`] entry: pairs, equivalent, disequivalent, seconds.
    pub by_size: [(u64, u64, u64, f64); SIZE_BUCKETS.len()],
}

/// The sums over a campaign.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub funcs: u64,
    pub trapping: u64,
    pub kinds: BTreeMap<PairKind, KindTotals>,
    pub findings: BTreeMap<FindingClass, u64>,
    /// The first findings, as `function I kind: finding`.
    pub listed: Vec<String>,
}

impl Totals {
    pub fn add(&mut self, r: &FuncResult) {
        self.funcs += 1;
        self.trapping += u64::from(r.trapping);
        for p in &r.pairs {
            let t = self.kinds.entry(p.kind).or_default();
            t.pairs += 1;
            match p.verdict {
                None => t.not_compared += 1,
                Some(v) => {
                    let k = VerdictKind::ALL.iter().position(|x| *x == v).unwrap_or(0);
                    t.verdicts[k] += 1;
                    t.seconds += p.seconds;
                    if p.seconds > t.max_seconds {
                        t.max_seconds = p.seconds;
                        t.max_index = p.index;
                    }
                    t.check_seconds += p.check_seconds;
                    t.witness_traps += u64::from(p.witness_trap);
                    if p.differing > 0 {
                        t.qemu_differ += 1;
                        t.qemu_differ_traps_only += u64::from(p.differing_traps == p.differing);
                    }
                    for g in &p.gaps {
                        *t.gaps.entry(g.to_string()).or_default() += 1;
                    }
                    let b = SIZE_BUCKETS
                        .iter()
                        .position(|(lo, hi)| (*lo..*hi).contains(&p.instructions.1))
                        .unwrap_or(0);
                    let e = &mut t.by_size[b];
                    e.0 += 1;
                    e.1 += u64::from(v == VerdictKind::Equivalent);
                    e.2 += u64::from(v == VerdictKind::Disequivalent);
                    e.3 += p.seconds;
                }
            }
            t.qemu_runs += p.qemu_runs as u64;
            for f in &p.findings {
                *self.findings.entry(f.class).or_default() += 1;
                if self.listed.len() < 100 {
                    self.listed
                        .push(format!("function {} {}: {f}", p.index, p.kind));
                }
            }
        }
    }

    /// Findings that fail the campaign.
    pub fn failing(&self) -> u64 {
        self.findings
            .iter()
            .filter(|(c, _)| c.fails())
            .map(|(_, n)| n)
            .sum()
    }

    /// The summary in words: per kind, the findings, and the size table.
    pub fn report(&self) -> String {
        let mut s = String::new();
        for (kind, t) in &self.kinds {
            let compared = t.pairs - t.not_compared;
            let _ = writeln!(
                s,
                "{kind}: {} pairs: {} equivalent, {} disequivalent, {} possibly equivalent{}; {} not compared; {:.2} s a compare on average, {:.2} s at most (function {}); {} qemu runs, {:.2} s a check on average; {} witness(es) with a trap on one side; {} undecided or proved pair(s) that differ under qemu ({} of them only where one side traps)",
                t.pairs,
                t.verdicts[0],
                t.verdicts[1],
                t.verdicts[2],
                if t.gaps.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({})",
                        t.gaps
                            .iter()
                            .map(|(g, n)| format!("{g} {n}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
                t.not_compared,
                t.seconds / compared.max(1) as f64,
                t.max_seconds,
                t.max_index,
                t.qemu_runs,
                t.check_seconds / compared.max(1) as f64,
                t.witness_traps,
                t.qemu_differ,
                t.qemu_differ_traps_only
            );
        }
        let _ = writeln!(
            s,
            "findings: {}",
            FindingClass::ALL
                .iter()
                .map(|c| format!("{} {}", c, self.findings.get(c).copied().unwrap_or(0)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (kind, t) in &self.kinds {
            let _ = writeln!(
                s,
                "{kind} by size (instructions of the right object): bucket, pairs, decided (eq + diseq), equivalent, mean s"
            );
            for (k, (lo, hi)) in SIZE_BUCKETS.iter().enumerate() {
                let (n, eq, diseq, secs) = t.by_size[k];
                if n == 0 {
                    continue;
                }
                let bucket = if *hi == u32::MAX {
                    format!("{lo}+")
                } else {
                    format!("{lo}-{}", hi - 1)
                };
                let _ = writeln!(
                    s,
                    "  {bucket:>8} {n:>5} {:>6.1}% {:>6.1}% {:>8.2}",
                    100.0 * (eq + diseq) as f64 / n as f64,
                    100.0 * eq as f64 / n as f64,
                    secs / n as f64
                );
            }
        }
        s
    }

    /// The summary as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let kinds: serde_json::Map<String, serde_json::Value> = self
            .kinds
            .iter()
            .map(|(k, t)| {
                let compared = t.pairs - t.not_compared;
                let by_size: Vec<serde_json::Value> = SIZE_BUCKETS
                    .iter()
                    .zip(&t.by_size)
                    .filter(|(_, e)| e.0 > 0)
                    .map(|((lo, hi), (n, eq, diseq, secs))| {
                        json!({
                            "instructions_from": lo,
                            "instructions_below": if *hi == u32::MAX { None } else { Some(hi) },
                            "pairs": n,
                            "equivalent": eq,
                            "disequivalent": diseq,
                            "decided_fraction": (eq + diseq) as f64 / *n as f64,
                            "mean_seconds": secs / *n as f64,
                        })
                    })
                    .collect();
                (
                    k.name().to_string(),
                    json!({
                        "pairs": t.pairs,
                        "equivalent": t.verdicts[0],
                        "disequivalent": t.verdicts[1],
                        "possibly_equivalent": t.verdicts[2],
                        "not_compared": t.not_compared,
                        "gaps": t.gaps,
                        "mean_seconds": t.seconds / compared.max(1) as f64,
                        "max_seconds": t.max_seconds,
                        "max_seconds_function": t.max_index,
                        "qemu_runs": t.qemu_runs,
                        "mean_check_seconds": t.check_seconds / compared.max(1) as f64,
                        "witnesses_with_a_trap": t.witness_traps,
                        "qemu_differ": t.qemu_differ,
                        "qemu_differ_traps_only": t.qemu_differ_traps_only,
                        "by_size": by_size,
                    }),
                )
            })
            .collect();
        let findings: serde_json::Map<String, serde_json::Value> = FindingClass::ALL
            .iter()
            .map(|c| {
                (
                    c.name().to_string(),
                    json!(self.findings.get(c).copied().unwrap_or(0)),
                )
            })
            .collect();
        json!({
            "functions": self.funcs,
            "trapping_functions": self.trapping,
            "kinds": kinds,
            "findings": findings,
            "failing_findings": self.failing(),
            "first_findings": self.listed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin::mips::mips32::Fault;

    #[test]
    fn inputs_and_mutants_are_fixed_by_the_seed() {
        let ins = pair_inputs(1, 4, 30, 10);
        assert_eq!(ins.len(), 40);
        assert_eq!(ins[..30], inputs(1, 4, 30)[..]);
        assert_eq!(ins, pair_inputs(1, 4, 30, 10));
        assert_ne!(ins[30..], pair_inputs(1, 5, 30, 10)[30..]);
        let f = generate(1, 4);
        let m = mutate(&f, mutant_seed(1, 4));
        assert_eq!(m, mutate(&f, mutant_seed(1, 4)));
        assert_ne!(m.source(), f.source());
        assert!(statements(&f) >= f.f.body.len());
    }

    #[test]
    fn runs_map_to_outcomes() {
        let run = |status| FunctionRun {
            status,
            observed: vec![0xffff_fffe],
            steps: 3,
        };
        let fault = |kind| {
            Status::Error(Fault {
                kind,
                pc: 4,
                value: 0,
            })
        };
        assert_eq!(outcome_of(&run(Status::Returned)), Outcome::Value(-2));
        assert_eq!(outcome_of(&run(fault(FaultKind::Trap))), Outcome::Trap);
        assert!(matches!(
            outcome_of(&run(fault(FaultKind::Break))),
            Outcome::Fault(_)
        ));
        assert!(matches!(
            outcome_of(&run(Status::OutOfFuel)),
            Outcome::Fault(_)
        ));
    }

    #[test]
    fn totals_count_verdicts_findings_and_sizes() {
        let pair = |kind, verdict, instrs, seconds, findings: Vec<FindingClass>| PairResult {
            index: 7,
            kind,
            levels: (Level::O0, Level::O2),
            mutation: None,
            verdict,
            verdict_text: String::new(),
            gaps: if verdict == Some(VerdictKind::PossiblyEquivalent) {
                vec!["time"]
            } else {
                Vec::new()
            },
            seconds,
            check_seconds: 0.5,
            paths: (1, 1),
            queries: 1,
            instructions: (100, instrs),
            qemu_runs: 10,
            differing: 0,
            differing_traps: 0,
            witness_trap: false,
            findings: findings
                .into_iter()
                .map(|class| PairFinding {
                    class,
                    input: None,
                    detail: String::new(),
                })
                .collect(),
        };
        let r = FuncResult {
            index: 7,
            trapping: true,
            statements: 9,
            source: String::new(),
            mutant_source: None,
            pairs: vec![
                pair(
                    PairKind::SameSource,
                    Some(VerdictKind::Equivalent),
                    20,
                    1.0,
                    vec![],
                ),
                pair(
                    PairKind::Mutant,
                    Some(VerdictKind::PossiblyEquivalent),
                    420,
                    3.0,
                    vec![FindingClass::MissedDifference],
                ),
            ],
        };
        assert!(!r.fails());
        let mut t = Totals::default();
        t.add(&r);
        assert_eq!(t.failing(), 0);
        let same = &t.kinds[&PairKind::SameSource];
        assert_eq!(same.verdicts, [1, 0, 0]);
        assert_eq!(same.by_size[0], (1, 1, 0, 1.0));
        let mutant = &t.kinds[&PairKind::Mutant];
        assert_eq!(mutant.verdicts, [0, 0, 1]);
        assert_eq!(mutant.gaps["time"], 1);
        assert_eq!(mutant.by_size[SIZE_BUCKETS.len() - 1].0, 1);
        let mut bad = r.clone();
        bad.pairs[0].findings.push(PairFinding {
            class: FindingClass::UnsoundProof,
            input: Some([1, 2, 3, 4]),
            detail: "planted".into(),
        });
        assert!(bad.fails());
        t.add(&bad);
        assert_eq!(t.failing(), 1);
        assert_eq!(t.to_json()["findings"]["unsound-proof"], 1);
        assert!(t.listed[1].contains("unsound-proof f(1, 2, 3, 4): planted"));
        assert!(t.report().contains("unsound-proof 1"));
    }
}
