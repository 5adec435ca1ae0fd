//! Soundness checks of one pair, and a summary of many.
//!
//! For each pair and each engine of the settings (concolic, bmc, auto), `compare`
//! runs left-right and (unless the sides are the same program) right-left; then:
//! - (a) every `disequivalent` counterexample is replayed here, on fresh machines, and
//!   must show a difference under `outcomes_differ`, with the outcomes it reports;
//! - (b) every `equivalent` must agree with many concrete inputs (edge values in all
//!   pairs, the programs' own constants and their neighbours, uniform and small random
//!   values, and any counterexample another direction or engine found): a difference
//!   is an unsound verdict;
//! - (c) a program compared with itself is never disequivalent;
//! - (d) swapping the sides never changes disequivalent into equivalent (a failed
//!   check); disequivalent against possibly-equivalent is counted apart as an
//!   incomplete asymmetry (one search order found the difference, the other ran into
//!   a limit: not a wrong verdict), and equivalent against possibly-equivalent is a
//!   warning;
//! - (e) a `possibly-equivalent` pair gets the same inputs, and a difference found
//!   there is a missed difference: not unsound, a measure of completeness;
//! - (f) when several engines run, no engine says `equivalent` (either way round)
//!   where another has a counterexample that replays: the one that said equivalent
//!   is wrong;
//! - (g) on a share of the loop pairs ([`spins`]), one more left-right comparison by
//!   auto with a huge fuel ([`HUGE_FUEL`]) and a one-second time limit must end soon
//!   after its limit (however long the programs spin), must not say `equivalent`
//!   where a counterexample found with the ordinary fuel replays (runs that end within
//!   a small fuel end the same way with more), and its own counterexample must replay.
//!
//! Concrete runs use the same fuel as the comparison: a run out of fuel is never a
//! difference, exactly as in the verdict's rules. They are run once per pair, for
//! every engine's verdicts together. For an array over the programs' images
//! ([`Placement::OverData`], [`Placement::OverCode`]) the inputs also hold the words of
//! both images, so that array words equal to an instruction or to the data are tried.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use tamarin::concolic::{Options, Quiet};
use tamarin::equiv::compare;
use tamarin::io::{image_word, observe, InputLayout, InputSpec, Observable, Observed};
use tamarin::term::TermStore;
use tamarin::verdict::{results_differ, run_observed, Engine, Incomplete, Verdict};
use tamarin_mips::cpu::{Config, Machine, NoTrace, Outcome, Status, Stop};
use tamarin_mips::Program;

use crate::generate::Shape;
use crate::pair::{Pair, PairKind, Placement};
use crate::prog::Prog;
use crate::rng::{mix, Rng};

/// Every engine, in the order `all` runs them.
pub const ENGINES: [Engine; 3] = [Engine::Concolic, Engine::Bmc, Engine::Auto];

/// Parses `concolic`, `bmc`, `auto` or `all`, or several of them separated by commas,
/// into the engines to run (each once, in the order of [`ENGINES`]).
pub fn parse_engines(s: &str) -> Result<Vec<Engine>, String> {
    let mut chosen = Vec::new();
    for name in s.split(',').map(str::trim) {
        match name {
            "all" => chosen.extend(ENGINES),
            _ => match ENGINES.iter().find(|e| e.name() == name) {
                Some(&e) => chosen.push(e),
                None => {
                    return Err(format!(
                        "`{name}` is not an engine; expected concolic, bmc, auto or all"
                    ))
                }
            },
        }
    }
    Ok(ENGINES.into_iter().filter(|e| chosen.contains(e)).collect())
}

/// Settings of the checks.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// Steps per run, for `compare` and for the concrete runs alike.
    pub fuel: u64,
    /// Concrete inputs per equivalent or possibly-equivalent pair.
    pub inputs: usize,
    /// Time limit of each `compare` (`None`: none).
    pub compare_timeout: Option<Duration>,
    /// Time limit of each solver query (`None`: the engine's default).
    pub solver_timeout: Option<Duration>,
    /// Path conditions per query (`None`: the engine's default).
    pub depth: Option<usize>,
    /// Also compare right-left.
    pub symmetric: bool,
    /// The engines that compare each pair (each checked on its own, and against the
    /// others by check (f)); empty means auto alone.
    pub engines: Vec<Engine>,
    /// Check (g): one more comparison with a huge fuel on the pairs of [`spins`].
    pub spin_checks: bool,
}

/// The fuel of check (g): far more steps than a run can take within its time limit.
pub const HUGE_FUEL: u64 = 10_000_000_000;
/// The time limit of check (g)'s comparison.
pub const HUGE_FUEL_TIMEOUT: Duration = Duration::from_secs(1);
/// Check (g)'s comparison taking longer than this ignores its time limit (generous,
/// so that a loaded machine does not fail the check).
pub const HUGE_FUEL_MAX_TIME: Duration = Duration::from_secs(10);
/// The longest a replay of check (g)'s counterexample may take: its runs ended within
/// the comparison's second, so this is generous too.
const HUGE_FUEL_REPLAY_LIMIT: Duration = Duration::from_secs(30);

/// Whether check (g) runs on `pair` (with [`CheckConfig::spin_checks`]): every other
/// loop pair, loops being the shape whose programs do not end for some inputs.
pub fn spins(pair: &Pair) -> bool {
    pair.shape == Shape::Loop && pair.index.is_multiple_of(4)
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            fuel: 2000,
            inputs: 100_000,
            compare_timeout: Some(Duration::from_secs(5)),
            solver_timeout: Some(Duration::from_secs(1)),
            depth: None,
            symmetric: true,
            engines: vec![Engine::Auto],
            spin_checks: true,
        }
    }
}

impl CheckConfig {
    /// The engines to run: those of the settings, or auto alone.
    pub fn engines(&self) -> Vec<Engine> {
        if self.engines.is_empty() {
            vec![Engine::Auto]
        } else {
            self.engines.clone()
        }
    }

    /// The engine's options for these settings (the engine itself is set per run).
    pub fn options(&self) -> Options {
        let mut o = Options::default();
        o.fuel = self.fuel;
        o.timeout = self.compare_timeout;
        if let Some(d) = self.depth {
            o.depth = d;
        }
        if let Some(t) = self.solver_timeout {
            o.solver.timeout = t;
        }
        o
    }
}

/// The kind of a verdict, or a crash of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Disequivalent,
    Equivalent,
    PossiblyEquivalent,
    /// `compare` panicked.
    Crash,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Disequivalent,
        Kind::Equivalent,
        Kind::PossiblyEquivalent,
        Kind::Crash,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Disequivalent => "disequivalent",
            Kind::Equivalent => "equivalent",
            Kind::PossiblyEquivalent => "possibly-equivalent",
            Kind::Crash => "crash",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one `compare` said.
#[derive(Clone, Debug)]
pub struct Direction {
    pub kind: Kind,
    /// The counterexample's input values in the layout's order (`$1`, `$2`, or the
    /// array's length and elements; disequivalent only).
    pub inputs: Option<Vec<u32>>,
    /// The counterexample shows a difference when replayed here (disequivalent only).
    pub replayed: bool,
    /// The engine whose proof it is (equivalent only; auto's proofs are concolic's or
    /// bmc's).
    pub proof: Option<Engine>,
    /// Short names of the reasons for incompleteness (possibly-equivalent only).
    pub incomplete: Vec<String>,
    /// The readable reasons, or the panic message of a crash.
    pub detail: String,
    pub runs: u64,
    pub time: Duration,
    /// It ran past its time limit by more than one solver query's limit (not a wrong
    /// verdict; a limit that does not hold).
    pub over_limit: bool,
}

/// The kinds of failed check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// (a) A disequivalent verdict whose counterexample shows no difference here.
    CounterexampleDoesNotReplay,
    /// (a) The counterexample replays, but not to the outcomes it reports.
    CounterexampleMisreported,
    /// (b) An equivalent verdict contradicted by a concrete input.
    EquivalentButDiffers,
    /// (c) A program disequivalent to itself.
    SelfDisequivalent,
    /// (d) Disequivalent one way round and equivalent the other.
    AsymmetricVerdict,
    /// (f) Equivalent by this engine, while another engine has a counterexample that
    /// replays.
    EnginesContradict,
    /// (g) A comparison with a huge fuel ran far past its time limit.
    TimeLimitIgnored,
    /// (g) Equivalent with a huge fuel, while a counterexample found with the ordinary
    /// fuel replays.
    MoreFuelEquivalent,
    /// `compare` panicked.
    Crash,
}

impl FindingKind {
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::CounterexampleDoesNotReplay => "counterexample-does-not-replay",
            FindingKind::CounterexampleMisreported => "counterexample-misreported",
            FindingKind::EquivalentButDiffers => "equivalent-but-differs",
            FindingKind::SelfDisequivalent => "self-disequivalent",
            FindingKind::AsymmetricVerdict => "asymmetric-verdict",
            FindingKind::EnginesContradict => "engines-contradict",
            FindingKind::TimeLimitIgnored => "time-limit-ignored",
            FindingKind::MoreFuelEquivalent => "more-fuel-equivalent",
            FindingKind::Crash => "crash",
        }
    }
}

/// One failed check.
#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: FindingKind,
    /// The engine whose verdict is wrong (or that crashed).
    pub engine: Engine,
    pub detail: String,
    /// Input values in the layout's order.
    pub inputs: Option<Vec<u32>>,
}

/// What one engine said about a pair, both ways round, and what was found of it.
#[derive(Clone, Debug)]
pub struct EngineRun {
    pub engine: Engine,
    /// Left-right.
    pub forward: Direction,
    /// Right-left (absent for identical pairs or without `symmetric`).
    pub backward: Option<Direction>,
    /// Equivalent one way and possibly-equivalent the other.
    pub warnings: Vec<String>,
    /// Disequivalent one way and possibly-equivalent the other (the reasons).
    pub asymmetric_incomplete: Option<String>,
    /// Possibly-equivalent (and never equivalent), yet a concrete input differs (the
    /// pair's `missed`).
    pub missed: bool,
}

impl EngineRun {
    /// Both directions that ran.
    pub fn directions(&self) -> impl Iterator<Item = &Direction> {
        std::iter::once(&self.forward).chain(&self.backward)
    }

    /// Both directions that ran, with their names (`left-right`, `right-left`).
    pub fn named(&self) -> impl Iterator<Item = (&'static str, &Direction)> {
        std::iter::once(("left-right", &self.forward))
            .chain(self.backward.as_ref().map(|b| ("right-left", b)))
    }

    /// Whether some direction says `kind`.
    pub fn says(&self, kind: Kind) -> bool {
        self.directions().any(|d| d.kind == kind)
    }

    /// The engine's answer for the pair: disequivalent if either way round is,
    /// else equivalent if either way round is, else a crash if either crashed, else
    /// possibly-equivalent.
    pub fn pair_verdict(&self) -> Kind {
        [Kind::Disequivalent, Kind::Equivalent, Kind::Crash]
            .into_iter()
            .find(|&k| self.says(k))
            .unwrap_or(Kind::PossiblyEquivalent)
    }

    /// Time in `compare`, both ways.
    pub fn time(&self) -> Duration {
        self.directions().map(|d| d.time).sum()
    }

    fn verdicts(&self) -> String {
        match &self.backward {
            Some(b) => format!("{}/{}", self.forward.kind, b.kind),
            None => self.forward.kind.to_string(),
        }
    }
}

/// What check (g) saw: auto's left-right verdict with a huge fuel, and its time.
#[derive(Clone, Debug)]
pub struct SpinCheck {
    pub kind: Kind,
    pub time: Duration,
}

/// Everything checked about one pair.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub seed: u64,
    pub index: u64,
    pub shape: Shape,
    pub pair_kind: PairKind,
    /// Where the array lies (array pairs only).
    pub placement: Option<Placement>,
    /// Check (g), when it ran.
    pub spin: Option<SpinCheck>,
    /// The fuel of the comparisons and concrete runs (for the replay commands).
    pub fuel: u64,
    pub note: String,
    pub left_text: String,
    pub right_text: String,
    /// One per engine of the settings, in their order.
    pub runs: Vec<EngineRun>,
    /// Failed checks: any of these is a bug of the engine it names.
    pub findings: Vec<Finding>,
    /// A concrete difference under some engine's possibly-equivalent verdict (input
    /// values in the layout's order).
    pub missed: Option<Vec<u32>>,
    /// How the inputs entered the programs, and what was observed.
    pub spec: InputSpec,
    pub observe: Vec<Observable>,
    /// Concrete inputs run (each on both programs).
    pub inputs_run: u64,
    /// Some probe input ran out of fuel / ended in an error, on either side.
    pub saw_out_of_fuel: bool,
    pub saw_fault: bool,
    /// Time in `compare`, every engine both ways.
    pub compare_time: Duration,
    pub concrete_time: Duration,
}

impl PairResult {
    /// Whether any check failed.
    pub fn failed(&self) -> bool {
        !self.findings.is_empty()
    }

    /// What `engine` said, if it ran.
    pub fn run(&self, engine: Engine) -> Option<&EngineRun> {
        self.runs.iter().find(|r| r.engine == engine)
    }

    /// One line: index, shape, kind, each engine's verdicts, times.
    pub fn line(&self) -> String {
        let verdicts: Vec<String> = self
            .runs
            .iter()
            .map(|r| {
                format!(
                    "{} {} ({:.3} s, {} runs)",
                    r.engine.name(),
                    r.verdicts(),
                    r.time().as_secs_f64(),
                    r.directions().map(|d| d.runs).sum::<u64>()
                )
            })
            .collect();
        format!(
            "pair {:>6} {:<10} {:<16} {}; concrete {:>6.3} s{}{}",
            self.index,
            self.shape.name(),
            self.pair_kind.name(),
            verdicts.join(", "),
            self.concrete_time.as_secs_f64(),
            if self.missed.is_some() { " MISSED" } else { "" },
            if self.failed() { " FAILED" } else { "" },
        )
    }

    /// Everything needed to reproduce the pair by hand.
    pub fn reproducer(&self) -> String {
        let mut s = String::new();
        let verdicts: Vec<String> = self
            .runs
            .iter()
            .map(|r| {
                format!(
                    "{} forward {}{}",
                    r.engine.name(),
                    r.forward.kind,
                    match &r.backward {
                        Some(b) => format!(", backward {}", b.kind),
                        None => String::new(),
                    }
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "pair {} of seed {} (shape {}, {}): {}",
            self.index,
            self.seed,
            self.shape,
            self.pair_kind,
            verdicts.join("; ")
        );
        if !self.note.is_empty() {
            let _ = writeln!(s, "  made by: {}", self.note);
        }
        for r in &self.runs {
            if let Some(a) = &r.asymmetric_incomplete {
                let _ = writeln!(s, "  {} incomplete asymmetry: {a}", r.engine.name());
            }
        }
        if self.spec != InputSpec::default() || self.observe != [REG3] {
            let obs: Vec<String> = self.observe.iter().map(|o| o.to_string()).collect();
            let _ = writeln!(
                s,
                "  inputs: {}; observed: {}",
                match &self.spec {
                    InputSpec::Array { max_len, base } => format!(
                        "an array of at most {max_len} words{} ($1 address, $2 length)",
                        match (base, self.placement) {
                            (Some(b), Some(p)) => format!(" at {b:#x} ({p})"),
                            (Some(b), None) => format!(" at {b:#x}"),
                            (None, _) => " right after each program".to_string(),
                        }
                    ),
                    InputSpec::Registers(_) => "$1, $2".to_string(),
                },
                obs.join(", ")
            );
        }
        if let Some(c) = &self.spin {
            let _ = writeln!(
                s,
                "  auto with fuel {HUGE_FUEL} and a {} s time limit: {} in {:.2} s",
                HUGE_FUEL_TIMEOUT.as_secs_f64(),
                c.kind,
                c.time.as_secs_f64()
            );
        }
        let _ = writeln!(
            s,
            "  replay (the programs below saved as left.asm and right.asm):"
        );
        for r in &self.runs {
            let _ = writeln!(s, "    {}", self.compare_command(r.engine));
        }
        for f in &self.findings {
            let _ = write!(
                s,
                "  FAILED {} ({}): {}",
                f.kind.name(),
                f.engine.name(),
                f.detail
            );
            if let Some(v) = &f.inputs {
                let _ = write!(
                    s,
                    " [inputs {}; run each side: {} (and the same with right.asm)]",
                    describe_inputs(&self.spec, v),
                    self.run_command("left.asm", v)
                );
            }
            s.push('\n');
        }
        if let Some(v) = &self.missed {
            let by: Vec<&str> = self
                .runs
                .iter()
                .filter(|r| r.missed)
                .map(|r| r.engine.name())
                .collect();
            let _ = writeln!(
                s,
                "  missed difference ({}): {}",
                by.join(", "),
                describe_inputs(&self.spec, v)
            );
        }
        for r in &self.runs {
            for d in r.directions() {
                if !d.detail.is_empty() {
                    let _ = writeln!(s, "  {} {}: {}", r.engine.name(), d.kind, d.detail);
                }
            }
        }
        let _ = writeln!(
            s,
            "--- left ---\n{}--- right ---\n{}",
            self.left_text, self.right_text
        );
        s
    }
}

impl PairResult {
    /// The `tamarin compare` command line that repeats the comparison by `engine`,
    /// with the programs saved as `left.asm` and `right.asm`.
    pub fn compare_command(&self, engine: Engine) -> String {
        let mut c = format!(
            "tamarin compare left.asm right.asm --engine {} --fuel {}",
            engine.name(),
            self.fuel
        );
        if let InputSpec::Array { max_len, base } = &self.spec {
            let _ = write!(c, " --frontend array --max-len {max_len}");
            if let Some(b) = base {
                let _ = write!(c, " --array-base {b:#x}");
            }
        }
        if self.observe != [REG3] {
            let obs: Vec<String> = self.observe.iter().map(|o| o.to_string()).collect();
            let _ = write!(c, " --observe '{}'", obs.join(","));
        }
        c
    }

    /// The `tamarin run` command line that runs `program` on input `values` (in the
    /// layout's order) as the concrete checks do.
    pub fn run_command(&self, program: &str, values: &[u32]) -> String {
        let mut c = format!("tamarin run {program} --fuel {}", self.fuel);
        match &self.spec {
            InputSpec::Array { max_len, base } => {
                let len = values.first().copied().unwrap_or(0).min(*max_len) as usize;
                let elems: Vec<String> = values
                    .iter()
                    .skip(1)
                    .take(len)
                    .map(|v| format!("{v:#x}"))
                    .collect();
                let _ = write!(c, " --array '{}'", elems.join(","));
                if let Some(b) = base {
                    let _ = write!(c, " --array-base {b:#x}");
                }
            }
            InputSpec::Registers(regs) => {
                for (r, v) in regs.iter().zip(values) {
                    match r.index() {
                        1 => {
                            let _ = write!(c, " --r1 {v:#x}");
                        }
                        2 => {
                            let _ = write!(c, " --r2 {v:#x}");
                        }
                        _ => {
                            let _ = write!(c, " --reg '{r}={v:#x}'");
                        }
                    }
                }
            }
        }
        c
    }
}

/// The default observable, `$3`.
const REG3: Observable = Observable::Reg(tamarin_mips::Reg::from_bits(3));

/// Input values (in the layout's order) in words: `$1 = a (0x…), $2 = b (0x…)`, or the
/// array (its length clamped as the frontend does) with the length.
pub fn describe_inputs(spec: &InputSpec, values: &[u32]) -> String {
    match spec {
        InputSpec::Registers(regs) => regs
            .iter()
            .zip(values)
            .map(|(r, v)| format!("{r} = {v} ({v:#x})"))
            .collect::<Vec<_>>()
            .join(", "),
        InputSpec::Array { max_len, .. } => {
            let len = values.first().copied().unwrap_or(0).min(*max_len) as usize;
            let elems: Vec<String> = values
                .iter()
                .skip(1)
                .take(len)
                .map(|&v| {
                    if (v as i32).unsigned_abs() <= 100_000 {
                        format!("{}", v as i32)
                    } else {
                        format!("{v:#x}")
                    }
                })
                .collect();
            format!("array [{}] (length {len})", elems.join(", "))
        }
    }
}

/// A reason's variant name in kebab case (`DepthCut` → `depth-cut`), taken from its
/// `Debug` form so that reasons the engine adds later are counted too.
fn incomplete_name(i: &Incomplete) -> String {
    if let Incomplete::Encoding { what } = i {
        return format!("encoding ({what})");
    }
    let debug = format!("{i:?}");
    let head = debug.split([' ', '{', '(']).next().unwrap_or("");
    let mut name = String::new();
    for (n, c) in head.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if n > 0 {
                name.push('-');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    name
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".into()
    }
}

/// One `compare` by the engine of `opts`, with its counterexample checked by replay
/// (check (a)), each replayed run stopped after `replay_limit` if there is one (a run
/// stopped there is a counterexample that does not replay: its runs ended within the
/// comparison's time limit).
fn run_compare(
    left: &Program,
    right: &Program,
    opts: &Options,
    layout: &InputLayout,
    what: &str,
    replay_limit: Option<Duration>,
    findings: &mut Vec<Finding>,
) -> Direction {
    let engine = opts.engine;
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| compare(left, right, opts, &mut Quiet)));
    let time = start.elapsed();
    let over_limit = opts
        .timeout
        .is_some_and(|t| time > t + opts.solver.timeout + Duration::from_millis(250));
    let report = match result {
        Ok(r) => r,
        Err(p) => {
            let msg = panic_message(&*p);
            findings.push(Finding {
                kind: FindingKind::Crash,
                engine,
                detail: format!("compare {what} panicked: {msg}"),
                inputs: None,
            });
            return Direction {
                kind: Kind::Crash,
                inputs: None,
                replayed: false,
                proof: None,
                incomplete: Vec::new(),
                detail: msg,
                runs: 0,
                time,
                over_limit,
            };
        }
    };
    let runs = report.stats.runs;
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            let vals: Vec<u32> = cx.inputs.iter().map(|(_, v)| *v).collect();
            let config = |limit: Option<Duration>| {
                let mut c = Config::with_fuel(opts.fuel);
                c.stop = Stop::at(limit.map(|d| Instant::now() + d));
                c
            };
            let l = run_observed(left, config(replay_limit), layout, &vals, &opts.observe);
            let r = run_observed(right, config(replay_limit), layout, &vals, &opts.observe);
            let mut replayed = false;
            match (l, r) {
                (Some((l, lobs)), Some((r, robs))) => {
                    replayed = results_differ(&l, &lobs, &r, &robs);
                    if [l.status, r.status].contains(&Status::Stopped) {
                        findings.push(Finding {
                            kind: FindingKind::CounterexampleDoesNotReplay,
                            engine,
                            detail: format!(
                                "{what}: disequivalent, but a replayed run did not end within {:.0} s: left {}, right {}",
                                replay_limit.unwrap_or_default().as_secs_f64(),
                                show_observed(&l, &lobs),
                                show_observed(&r, &robs)
                            ),
                            inputs: Some(vals.clone()),
                        });
                    } else if !replayed {
                        findings.push(Finding {
                            kind: FindingKind::CounterexampleDoesNotReplay,
                            engine,
                            detail: format!(
                                "{what}: disequivalent, but the counterexample shows no difference: left {}, right {}",
                                show_observed(&l, &lobs),
                                show_observed(&r, &robs)
                            ),
                            inputs: Some(vals.clone()),
                        });
                    } else if vals.len() != layout.vars().len()
                        || l.status != cx.left.status
                        || r.status != cx.right.status
                        || cx.observed.len() != opts.observe.len()
                        || cx
                            .observed
                            .iter()
                            .zip(lobs.iter().zip(&robs))
                            .any(|((_, cl, cr), (l, r))| cl != l || cr != r)
                    {
                        findings.push(Finding {
                            kind: FindingKind::CounterexampleMisreported,
                            engine,
                            detail: format!(
                                "{what}: counterexample {:?} reports left {}, right {} ({:?}); replayed left {}, right {}",
                                cx.inputs,
                                show(&cx.left),
                                show(&cx.right),
                                cx.observed,
                                show_observed(&l, &lobs),
                                show_observed(&r, &robs)
                            ),
                            inputs: Some(vals.clone()),
                        });
                    }
                }
                _ => findings.push(Finding {
                    kind: FindingKind::CounterexampleDoesNotReplay,
                    engine,
                    detail: format!(
                        "{what}: disequivalent, but the counterexample's inputs cannot be set up: {:?}",
                        cx.inputs
                    ),
                    inputs: Some(vals.clone()),
                }),
            }
            Direction {
                kind: Kind::Disequivalent,
                inputs: Some(vals),
                replayed,
                proof: None,
                incomplete: Vec::new(),
                detail: String::new(),
                runs,
                time,
                over_limit,
            }
        }
        Verdict::Equivalent(p) => Direction {
            kind: Kind::Equivalent,
            inputs: None,
            replayed: false,
            proof: Some(p.engine),
            incomplete: Vec::new(),
            detail: String::new(),
            runs,
            time,
            over_limit,
        },
        Verdict::PossiblyEquivalent(why) => Direction {
            kind: Kind::PossiblyEquivalent,
            inputs: None,
            replayed: false,
            proof: None,
            incomplete: why.iter().map(incomplete_name).collect(),
            detail: why
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
                .join("; "),
            runs,
            time,
            over_limit,
        },
    }
}

/// An outcome in a few words.
pub fn show(o: &Outcome) -> String {
    match o.status {
        Status::Done => format!(
            "done with $3 = {} ({:#x})",
            o.regs.gpr[3] as i32, o.regs.gpr[3]
        ),
        Status::OutOfFuel => format!("out of fuel after {} steps", o.steps),
        Status::Error(f) => format!("error {} at pc {:#x}", f.kind, f.pc),
        Status::Stopped => format!("stopped from outside after {} steps", o.steps),
    }
}

/// An outcome and, when it wrote any, its output bytes.
pub fn show_observed(o: &Outcome, obs: &[Observed]) -> String {
    let out = obs.iter().find_map(|x| match x {
        Observed::Bytes(b) => Some(b),
        _ => None,
    });
    match out {
        Some(b) => format!("{}, output {:?}", show(o), b),
        None => show(o),
    }
}

/// Both programs on reusable machines.
struct Runner {
    left: Machine,
    right: Machine,
    layout: InputLayout,
    observe: Vec<Observable>,
    saw_out_of_fuel: bool,
    saw_fault: bool,
    runs: u64,
}

/// One run's outcome and what it observed.
type Observation = (Outcome, Vec<Observed>);

impl Runner {
    fn new(
        left: &Program,
        right: &Program,
        fuel: u64,
        layout: InputLayout,
        observe: Vec<Observable>,
    ) -> Runner {
        let config = Config::with_fuel(fuel);
        Runner {
            left: Machine::new(left, config),
            right: Machine::new(right, config),
            layout,
            observe,
            saw_out_of_fuel: false,
            saw_fault: false,
            runs: 0,
        }
    }

    /// One run on `values`, as `run_observed` does it but on a reused machine; `None`
    /// if the inputs cannot be set up (an array that does not fit).
    fn one(
        m: &mut Machine,
        layout: &InputLayout,
        observe_what: &[Observable],
        values: &[u32],
    ) -> Option<Observation> {
        m.reset();
        let (frontend, _) = layout.run_inputs(values);
        m.apply(&frontend).ok()?;
        layout.set_registers(m, values);
        let o = m.run_to_outcome(&mut NoTrace);
        let obs = observe_what.iter().map(|w| observe(m, &o, w)).collect();
        Some((o, obs))
    }

    /// Runs both; the outcomes if they differ.
    fn differs(&mut self, values: &[u32]) -> Option<(Observation, Observation)> {
        self.runs += 1;
        let l = Self::one(&mut self.left, &self.layout, &self.observe, values)?;
        let r = Self::one(&mut self.right, &self.layout, &self.observe, values)?;
        for o in [&l.0, &r.0] {
            match o.status {
                Status::OutOfFuel => self.saw_out_of_fuel = true,
                Status::Error(_) => self.saw_fault = true,
                Status::Done | Status::Stopped => {}
            }
        }
        results_differ(&l.0, &l.1, &r.0, &r.1).then_some((l, r))
    }
}

/// Values that make programs misbehave.
pub const EDGE_INPUTS: [u32; 34] = [
    0,
    1,
    0xFFFF_FFFF,
    2,
    0xFFFF_FFFE,
    3,
    4,
    5,
    7,
    8,
    10,
    11,
    12,
    15,
    16,
    17,
    31,
    32,
    100,
    (-100i32) as u32,
    (-16i32) as u32,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x8000_0000,
    0x8000_0001,
    0x7FFF_FFFF,
    0x7FFF_FFFE,
    0x2000,
    0x00FF_FFFC,
    0x00FF_FFFF,
    0x0100_0000,
    0xFFFF_8000,
];

/// The edge values for a pair: [`EDGE_INPUTS`], then the programs' constants and
/// their neighbours, at most `cap` in all.
pub fn edge_values(left: &Prog, right: &Prog, cap: usize) -> Vec<u32> {
    let mut v: Vec<u32> = EDGE_INPUTS.to_vec();
    for c in left.constants().chain(right.constants()) {
        for x in [c, c.wrapping_add(1), c.wrapping_sub(1), c.wrapping_neg()] {
            if !v.contains(&x) {
                v.push(x);
            }
        }
    }
    v.truncate(cap.max(2));
    v
}

/// The concrete inputs of checks (b) and (e): `extra` first, then every pair of edge
/// values (up to three quarters of `n`), then random ones: uniform, small, and one
/// edge value with one random value.
pub fn concrete_inputs(
    left: &Prog,
    right: &Prog,
    n: usize,
    seed: u64,
    extra: &[(u32, u32)],
) -> impl Iterator<Item = (u32, u32)> {
    let cap = ((n as f64 * 0.75).sqrt() as usize).min(80);
    let edges = edge_values(left, right, cap);
    let k = edges.len();
    let npairs = (k * k).min(n);
    let mut rng = Rng::new(seed);
    let extra: Vec<(u32, u32)> = extra.to_vec();
    let edges2 = edges.clone();
    let grid = (0..npairs).map(move |i| (edges[i / k], edges[i % k]));
    let random = (npairs..n).map(move |_| {
        let small = |r: &mut Rng| r.range(-64, 64) as i32 as u32;
        match rng.below(4) {
            0 => (rng.next_u32(), rng.next_u32()),
            1 => (small(&mut rng), small(&mut rng)),
            2 => {
                let e = *rng.pick(&edges2);
                let x = if rng.chance(0.5) {
                    rng.next_u32()
                } else {
                    small(&mut rng)
                };
                if rng.chance(0.5) {
                    (e, x)
                } else {
                    (x, e)
                }
            }
            _ => (rng.next_u32(), small(&mut rng)),
        }
    });
    extra.into_iter().chain(grid).chain(random)
}

/// What an array over the programs' images lies on ([`Placement::OverData`],
/// [`Placement::OverCode`]): arrays made of these words try array words equal to the
/// instruction or the data word they replace, or to any other word of the images.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    /// Each program's image words under the array's slots (zero past the image), left
    /// then right.
    pub slots: Vec<Vec<u32>>,
    /// Every word of both images, each once, in order.
    pub words: Vec<u32>,
}

impl Overlay {
    /// The overlay of an array of at most `max_len` words at `base` on both programs.
    pub fn new(left: &Program, right: &Program, base: u32, max_len: u32) -> Overlay {
        let slots = [left, right]
            .iter()
            .map(|p| {
                (0..max_len)
                    .map(|k| image_word(p, base.wrapping_add(4 * k)))
                    .collect()
            })
            .collect();
        let mut words = Vec::new();
        for &w in left.words().iter().chain(right.words().iter()) {
            if !words.contains(&w) {
                words.push(w);
            }
        }
        Overlay { slots, words }
    }
}

/// The concrete inputs of checks (b) and (e) for an array of at most `max_len` words,
/// as flat values (`[len, a[0], …, a[max_len - 1]]`): `extra` first; with an
/// [`Overlay`], every length of each program's own words under the slots, then (up to
/// a quarter of `n`, in a seeded order) those with one slot replaced by any image
/// word, and every length all one image word; then every length with all elements one
/// edge value, and every length with one edge value at one position among zeros (up
/// to three quarters of `n` in all); then random arrays, each length equally likely,
/// each element an edge value, a small value, a uniform one or an image word.
pub fn array_inputs(
    left: &Prog,
    right: &Prog,
    max_len: u32,
    n: usize,
    seed: u64,
    extra: &[Vec<u32>],
    overlay: Option<&Overlay>,
) -> impl Iterator<Item = Vec<u32>> {
    let width = max_len as usize + 1;
    let edges = edge_values(left, right, 80);
    let mut rng = Rng::new(seed);
    let with = |len: usize, elems: &[u32]| {
        let mut v = vec![0; width];
        v[0] = len as u32;
        for (x, &e) in v.iter_mut().skip(1).zip(elems) {
            *x = e;
        }
        v
    };
    let mut first: Vec<Vec<u32>> = Vec::new();
    let mut over: Vec<Vec<u32>> = Vec::new();
    let no_words: &[u32] = &[];
    let mut words = no_words;
    if let Some(o) = overlay {
        words = &o.words;
        for slots in &o.slots {
            for len in 0..=max_len as usize {
                let v = with(len, slots);
                if !first.contains(&v) {
                    first.push(v);
                }
            }
        }
        for &w in &o.words {
            for len in 1..=max_len as usize {
                over.push(with(len, &vec![w; len]));
            }
            for slots in &o.slots {
                for len in 1..=max_len as usize {
                    for pos in 0..len {
                        let mut v = with(len, slots);
                        v[1 + pos] = w;
                        over.push(v);
                    }
                }
            }
        }
        // A seeded order, so that a cut keeps a spread of words and positions.
        for i in (1..over.len()).rev() {
            over.swap(i, rng.below(i + 1));
        }
        over.truncate(n / 4);
    }
    let mut structured: Vec<Vec<u32>> = Vec::new();
    for len in 0..=max_len as usize {
        for &e in &edges {
            structured.push(with(len, &vec![e; len]));
        }
    }
    for len in 1..=max_len as usize {
        for pos in 0..len {
            for &e in &edges {
                let mut v = vec![0; width];
                v[0] = len as u32;
                v[1 + pos] = e;
                structured.push(v);
            }
        }
    }
    structured.truncate((n * 3 / 4).saturating_sub(first.len() + over.len()));
    let nstruct = first.len() + over.len() + structured.len();
    let extra: Vec<Vec<u32>> = extra.to_vec();
    let words = words.to_vec();
    let slots = overlay.map(|o| o.slots.clone()).unwrap_or_default();
    let random = (nstruct..n).map(move |_| {
        let len = rng.below(width);
        let mut v = vec![0; width];
        v[0] = len as u32;
        // Over an image, half the arrays start from one program's own words.
        let from_image = !slots.is_empty() && rng.chance(0.5);
        if from_image {
            let s = rng.pick(&slots);
            for (x, &w) in v.iter_mut().skip(1).zip(s) {
                *x = w;
            }
        }
        for x in v.iter_mut().skip(1).take(len) {
            if from_image && rng.chance(0.6) {
                continue;
            }
            let weights = if words.is_empty() {
                [35, 20, 25, 20, 0]
            } else {
                [25, 15, 20, 15, 25]
            };
            *x = match rng.weighted(&weights) {
                0 => *rng.pick(&edges),
                1 => rng.range(-2, 6) as i32 as u32,
                2 => rng.range(-64, 64) as i32 as u32,
                3 => rng.next_u32(),
                _ => *rng.pick(&words),
            };
        }
        v
    });
    extra
        .into_iter()
        .chain(first)
        .chain(over)
        .chain(structured)
        .chain(random)
}

/// The concrete inputs of a pair, as flat values in its layout's order: those of
/// [`concrete_inputs`] for two registers, of [`array_inputs`] for an array (with the
/// overlay of an array over the images, `left` and `right` being the assembled
/// programs).
pub fn pair_inputs(
    pair: &Pair,
    left: &Program,
    right: &Program,
    n: usize,
    seed: u64,
    extra: &[Vec<u32>],
) -> Box<dyn Iterator<Item = Vec<u32>>> {
    match &pair.inputs {
        InputSpec::Array { max_len, base } => {
            let overlay = match (pair.placement, base) {
                (Some(p), Some(b)) if p.overlaps_image() => {
                    Some(Overlay::new(left, right, *b, *max_len))
                }
                _ => None,
            };
            Box::new(array_inputs(
                &pair.left,
                &pair.right,
                *max_len,
                n,
                seed,
                extra,
                overlay.as_ref(),
            ))
        }
        InputSpec::Registers(_) => {
            let extra: Vec<(u32, u32)> = extra
                .iter()
                .map(|v| {
                    (
                        v.first().copied().unwrap_or(0),
                        v.get(1).copied().unwrap_or(0),
                    )
                })
                .collect();
            Box::new(
                concrete_inputs(&pair.left, &pair.right, n, seed, &extra).map(|(a, b)| vec![a, b]),
            )
        }
    }
}

/// Compares one pair (both ways, with every engine of the settings) and runs every
/// check on it.
pub fn check_pair(pair: &Pair, cfg: &CheckConfig) -> PairResult {
    let left_text = pair.left.text();
    let right_text = pair.right.text();
    let lp = pair.left.assemble().unwrap_or_else(|e| {
        panic!("harness bug: generated program does not assemble:\n{left_text}\n{e}")
    });
    let rp = pair.right.assemble().unwrap_or_else(|e| {
        panic!("harness bug: generated program does not assemble:\n{right_text}\n{e}")
    });
    let mut opts = cfg.options();
    opts.inputs = pair.inputs.clone();
    opts.observe = pair.observe.clone();
    let layout = InputLayout::declare(&mut TermStore::new(), &opts.inputs, opts.stdin_len);
    let mut findings = Vec::new();
    let mut runs: Vec<EngineRun> = cfg
        .engines()
        .into_iter()
        .map(|engine| {
            let mut opts = opts.clone();
            opts.engine = engine;
            let forward = run_compare(&lp, &rp, &opts, &layout, "left-right", None, &mut findings);
            let backward = (cfg.symmetric && pair.kind != PairKind::Identical)
                .then(|| run_compare(&rp, &lp, &opts, &layout, "right-left", None, &mut findings));
            one_engine_checks(pair.kind, engine, forward, backward, &mut findings)
        })
        .collect();
    // (f)
    findings.extend(contradictions(&runs));
    let compare_time = runs.iter().map(EngineRun::time).sum();
    // (g)
    let spin = (cfg.spin_checks && spins(pair))
        .then(|| spin_check(&lp, &rp, &opts, &layout, &runs, &mut findings));

    // (b) and (e), and a probe of the behaviours for every pair.
    let start = Instant::now();
    let probe = concrete_checks(pair, &lp, &rp, cfg, layout, &mut runs, &mut findings);
    let concrete_time = start.elapsed();

    PairResult {
        seed: pair.seed,
        index: pair.index,
        shape: pair.shape,
        pair_kind: pair.kind,
        placement: pair.placement,
        spin,
        fuel: cfg.fuel,
        note: pair.note.clone(),
        left_text,
        right_text,
        runs,
        findings,
        missed: probe.missed,
        spec: pair.inputs.clone(),
        observe: pair.observe.clone(),
        inputs_run: probe.runs,
        saw_out_of_fuel: probe.saw_out_of_fuel,
        saw_fault: probe.saw_fault,
        compare_time,
        concrete_time,
    }
}

/// What the concrete runs of a pair saw.
struct Probe {
    /// A concrete difference under some engine's possibly-equivalent verdict.
    missed: Option<Vec<u32>>,
    runs: u64,
    saw_out_of_fuel: bool,
    saw_fault: bool,
}

/// Checks (b) and (e) on the engines' verdicts `runs` (each marked `missed` where a
/// concrete input differs under its possibly-equivalent verdict), and a probe of the
/// behaviours for every pair: many inputs when some verdict is not disequivalent, a
/// few otherwise.
fn concrete_checks(
    pair: &Pair,
    lp: &Program,
    rp: &Program,
    cfg: &CheckConfig,
    layout: InputLayout,
    runs: &mut [EngineRun],
    findings: &mut Vec<Finding>,
) -> Probe {
    let mut runner = Runner::new(lp, rp, cfg.fuel, layout, pair.observe.clone());
    let equivalent: Vec<Engine> = runs
        .iter()
        .filter(|r| r.says(Kind::Equivalent))
        .map(|r| r.engine)
        .collect();
    let wants_inputs = runs
        .iter()
        .any(|r| r.says(Kind::Equivalent) || r.says(Kind::PossiblyEquivalent));
    let mut extra: Vec<Vec<u32>> = Vec::new();
    for v in runs
        .iter()
        .flat_map(EngineRun::directions)
        .filter_map(|d| d.inputs.as_ref())
    {
        if !extra.contains(v) {
            extra.push(v.clone());
        }
    }
    let n = if wants_inputs {
        cfg.inputs
    } else {
        64.min(cfg.inputs)
    };
    let seed = mix(pair.seed ^ mix(pair.index));
    let mut missed = None;
    for values in pair_inputs(pair, lp, rp, n, seed, &extra) {
        if let Some((l, r)) = runner.differs(&values) {
            if !wants_inputs {
                continue;
            }
            for &engine in &equivalent {
                findings.push(Finding {
                    kind: FindingKind::EquivalentButDiffers,
                    engine,
                    detail: format!(
                        "{} says equivalent, but on this input left {} and right {}",
                        engine.name(),
                        show_observed(&l.0, &l.1),
                        show_observed(&r.0, &r.1)
                    ),
                    inputs: Some(values.clone()),
                });
            }
            for run in runs.iter_mut() {
                if run.says(Kind::PossiblyEquivalent) && !run.says(Kind::Equivalent) {
                    run.missed = true;
                    missed = Some(values.clone());
                }
            }
            break;
        }
    }
    Probe {
        missed,
        runs: runner.runs,
        saw_out_of_fuel: runner.saw_out_of_fuel,
        saw_fault: runner.saw_fault,
    }
}

/// Check (g): auto compares left-right with [`HUGE_FUEL`] and a time limit of
/// [`HUGE_FUEL_TIMEOUT`]; it must end within [`HUGE_FUEL_MAX_TIME`], must not say
/// equivalent where an ordinary comparison's counterexample replays (both its runs
/// ended within the ordinary fuel, so they end the same way with any more), and its
/// own counterexample must replay (check (a), with the huge fuel).
fn spin_check(
    left: &Program,
    right: &Program,
    opts: &Options,
    layout: &InputLayout,
    runs: &[EngineRun],
    findings: &mut Vec<Finding>,
) -> SpinCheck {
    let fuel = opts.fuel;
    let mut opts = opts.clone();
    opts.engine = Engine::Auto;
    opts.fuel = HUGE_FUEL;
    opts.timeout = Some(HUGE_FUEL_TIMEOUT);
    let what = format!("left-right with fuel {HUGE_FUEL}");
    let d = run_compare(
        left,
        right,
        &opts,
        layout,
        &what,
        Some(HUGE_FUEL_REPLAY_LIMIT),
        findings,
    );
    if d.time > HUGE_FUEL_MAX_TIME {
        findings.push(Finding {
            kind: FindingKind::TimeLimitIgnored,
            engine: Engine::Auto,
            detail: format!(
                "{what} and a time limit of {:.0} s took {:.1} s (said {})",
                HUGE_FUEL_TIMEOUT.as_secs_f64(),
                d.time.as_secs_f64(),
                d.kind
            ),
            inputs: None,
        });
    }
    if d.kind == Kind::Equivalent {
        let witness = runs.iter().find_map(|r| {
            r.named()
                .find(|(_, d)| d.kind == Kind::Disequivalent && d.replayed)
                .map(|(way, d)| (r.engine, way, d))
        });
        if let Some((engine, way, w)) = witness {
            findings.push(Finding {
                kind: FindingKind::MoreFuelEquivalent,
                engine: Engine::Auto,
                detail: format!(
                    "auto says equivalent {what}, but {} has a counterexample that replays with fuel {} ({way})",
                    engine.name(),
                    fuel
                ),
                inputs: w.inputs.clone(),
            });
        }
    }
    SpinCheck {
        kind: d.kind,
        time: d.time,
    }
}

/// Checks (c) and (d) on one engine's verdicts.
fn one_engine_checks(
    pair_kind: PairKind,
    engine: Engine,
    forward: Direction,
    backward: Option<Direction>,
    findings: &mut Vec<Finding>,
) -> EngineRun {
    // (c)
    if pair_kind == PairKind::Identical && forward.kind == Kind::Disequivalent {
        findings.push(Finding {
            kind: FindingKind::SelfDisequivalent,
            engine,
            detail: "a program compared with itself is disequivalent".into(),
            inputs: forward.inputs.clone(),
        });
    }
    // (d)
    let mut warnings = Vec::new();
    let mut asymmetric_incomplete = None;
    if let Some(b) = &backward {
        let (fd, bd) = (
            forward.kind == Kind::Disequivalent,
            b.kind == Kind::Disequivalent,
        );
        let other = if fd { b } else { &forward };
        if fd != bd && other.kind == Kind::PossiblyEquivalent {
            asymmetric_incomplete = Some(format!(
                "left-right says {}, right-left says {}: {}",
                forward.kind, b.kind, other.detail
            ));
        } else if fd != bd && other.kind == Kind::Equivalent {
            findings.push(Finding {
                kind: FindingKind::AsymmetricVerdict,
                engine,
                detail: format!(
                    "left-right says {}, right-left says {}",
                    forward.kind, b.kind
                ),
                inputs: forward.inputs.clone().or_else(|| b.inputs.clone()),
            });
        } else if forward.kind != b.kind && !fd && !bd {
            warnings.push(format!(
                "left-right says {}, right-left says {}",
                forward.kind, b.kind
            ));
        }
    }
    EngineRun {
        engine,
        forward,
        backward,
        warnings,
        asymmetric_incomplete,
        missed: false,
    }
}

/// Check (f): an engine that says equivalent (either way round) while another engine
/// has a counterexample that replays is wrong; one finding per such pair of engines,
/// against the engine that said equivalent.
pub fn contradictions(runs: &[EngineRun]) -> Vec<Finding> {
    let mut out = Vec::new();
    for a in runs {
        let Some((eq_way, _)) = a.named().find(|(_, d)| d.kind == Kind::Equivalent) else {
            continue;
        };
        for b in runs.iter().filter(|b| b.engine != a.engine) {
            if let Some((cx_way, d)) = b
                .named()
                .find(|(_, d)| d.kind == Kind::Disequivalent && d.replayed)
            {
                out.push(Finding {
                    kind: FindingKind::EnginesContradict,
                    engine: a.engine,
                    detail: format!(
                        "{} says equivalent ({eq_way}), but {} has a counterexample that replays ({cx_way})",
                        a.engine.name(),
                        b.engine.name()
                    ),
                    inputs: d.inputs.clone(),
                });
            }
        }
    }
    out
}

/// Counts of one engine's verdicts over many pairs.
#[derive(Clone, Debug, Default)]
pub struct EngineSummary {
    /// One answer per pair (see [`EngineRun::pair_verdict`]).
    pub pair_verdicts: BTreeMap<Kind, u64>,
    /// Forward verdicts by shape.
    pub by_shape: BTreeMap<Shape, BTreeMap<Kind, u64>>,
    /// Forward verdicts by pair kind.
    pub by_pair_kind: BTreeMap<PairKind, BTreeMap<Kind, u64>>,
    /// Every verdict (both directions).
    pub verdicts: BTreeMap<Kind, u64>,
    /// Equivalent verdicts (both directions) by the engine whose proof it is.
    pub proofs: BTreeMap<&'static str, u64>,
    /// Reasons of possibly-equivalent verdicts (both directions).
    pub incomplete: BTreeMap<String, u64>,
    /// Failed checks of this engine's verdicts, by kind.
    pub findings: BTreeMap<FindingKind, u64>,
    /// Equivalent one way, possibly-equivalent the other.
    pub warnings: u64,
    /// Pairs disequivalent one way and possibly-equivalent the other.
    pub asymmetric_incomplete: u64,
    /// Possibly-equivalent pairs on which a concrete input differs.
    pub missed: u64,
    /// Compares (one direction each) that ran past their time limit by more than one
    /// solver query's limit, and the longest of them.
    pub over_limit: u64,
    pub longest: Duration,
    pub compare_time: Duration,
    pub slowest: Option<(Duration, u64)>,
}

impl EngineSummary {
    fn add(&mut self, r: &PairResult, run: &EngineRun) {
        *self.pair_verdicts.entry(run.pair_verdict()).or_default() += 1;
        *self
            .by_shape
            .entry(r.shape)
            .or_default()
            .entry(run.forward.kind)
            .or_default() += 1;
        *self
            .by_pair_kind
            .entry(r.pair_kind)
            .or_default()
            .entry(run.forward.kind)
            .or_default() += 1;
        for d in run.directions() {
            *self.verdicts.entry(d.kind).or_default() += 1;
            if let Some(e) = d.proof {
                *self.proofs.entry(e.name()).or_default() += 1;
            }
            for i in &d.incomplete {
                *self.incomplete.entry(i.clone()).or_default() += 1;
            }
            self.over_limit += d.over_limit as u64;
            self.longest = self.longest.max(d.time);
        }
        for f in r.findings.iter().filter(|f| f.engine == run.engine) {
            *self.findings.entry(f.kind).or_default() += 1;
        }
        self.warnings += run.warnings.len() as u64;
        self.asymmetric_incomplete += run.asymmetric_incomplete.is_some() as u64;
        self.missed += run.missed as u64;
        let t = run.time();
        self.compare_time += t;
        if self.slowest.is_none_or(|(s, _)| t > s) {
            self.slowest = Some((t, r.index));
        }
    }

    /// Pairs this engine answered `kind` for.
    pub fn pairs(&self, kind: Kind) -> u64 {
        self.pair_verdicts.get(&kind).copied().unwrap_or(0)
    }

    /// Verdicts `kind`, both directions.
    pub fn verdicts(&self, kind: Kind) -> u64 {
        self.verdicts.get(&kind).copied().unwrap_or(0)
    }

    /// Failed checks of this engine's verdicts.
    pub fn failures(&self) -> u64 {
        self.findings.values().sum()
    }
}

/// Counts over many pairs.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub pairs: u64,
    /// Each engine's counts, in the order the engines ran.
    pub engines: Vec<(Engine, EngineSummary)>,
    /// Pairs on which the engines' answers differ without contradicting each other
    /// (say bmc proves what concolic leaves possibly-equivalent), by the answers.
    pub differing_answers: BTreeMap<String, u64>,
    /// Failed checks by kind, every engine.
    pub findings: BTreeMap<FindingKind, u64>,
    /// Pairs with a failed check.
    pub failed_pairs: u64,
    /// Reproducers of the first failed pairs.
    pub reproducers: Vec<String>,
    /// Equivalent one way, possibly-equivalent the other (every engine).
    pub warnings: u64,
    /// Pairs some engine found disequivalent one way and possibly-equivalent the other.
    pub asymmetric_incomplete: u64,
    pub asymmetric_examples: Vec<String>,
    /// Pairs some engine left possibly-equivalent while a concrete input differs.
    pub missed: u64,
    pub missed_examples: Vec<String>,
    pub inputs_run: u64,
    /// Concrete inputs run for pairs with an equivalent verdict.
    pub equivalent_inputs: u64,
    /// Pairs with an equivalent verdict (by any engine), each checked on the inputs.
    pub equivalent_pairs: u64,
    pub pairs_out_of_fuel: u64,
    pub pairs_faulting: u64,
    pub compare_time: Duration,
    pub concrete_time: Duration,
    pub slowest: Option<(Duration, u64)>,
    /// Pairs built to be equal (rewrites; not those with an array over the code, which
    /// a rewrite moves) that were found disequivalent, with a counterexample that
    /// replays: a rewrite of the harness that is not equal.
    pub rewrite_disequivalent: Vec<u64>,
    /// Array pairs by where the array lies.
    pub placements: BTreeMap<Placement, u64>,
    /// Check (g): how many ran, their verdicts, and the slowest (time, pair index).
    pub spin_checks: u64,
    pub spin_verdicts: BTreeMap<Kind, u64>,
    pub spin_slowest: Option<(Duration, u64)>,
    /// How many reproducers to keep.
    pub keep: usize,
}

impl Summary {
    pub fn new(keep: usize) -> Summary {
        Summary {
            keep,
            ..Summary::default()
        }
    }

    /// The counts of `engine`, if it ran.
    pub fn engine(&self, engine: Engine) -> Option<&EngineSummary> {
        self.engines
            .iter()
            .find(|(e, _)| *e == engine)
            .map(|(_, s)| s)
    }

    /// Unsound verdicts and crashes: every failed check.
    pub fn failures(&self) -> u64 {
        self.findings.values().sum()
    }

    /// Failed checks that are wrong verdicts (not crashes).
    pub fn unsound(&self) -> u64 {
        self.findings
            .iter()
            .filter(|(k, _)| **k != FindingKind::Crash)
            .map(|(_, n)| n)
            .sum()
    }

    pub fn add(&mut self, r: &PairResult) {
        self.pairs += 1;
        for run in &r.runs {
            let at = match self.engines.iter().position(|(e, _)| *e == run.engine) {
                Some(i) => i,
                None => {
                    self.engines.push((run.engine, EngineSummary::default()));
                    self.engines.len() - 1
                }
            };
            self.engines[at].1.add(r, run);
        }
        let answers: Vec<Kind> = r.runs.iter().map(EngineRun::pair_verdict).collect();
        if answers.windows(2).any(|w| w[0] != w[1]) {
            let key: Vec<String> = r
                .runs
                .iter()
                .zip(&answers)
                .map(|(run, k)| format!("{} {k}", run.engine.name()))
                .collect();
            *self.differing_answers.entry(key.join(", ")).or_default() += 1;
        }
        for f in &r.findings {
            *self.findings.entry(f.kind).or_default() += 1;
        }
        if r.failed() {
            self.failed_pairs += 1;
            if self.reproducers.len() < self.keep {
                self.reproducers.push(r.reproducer());
            }
        }
        if let Some(p) = r.placement {
            *self.placements.entry(p).or_default() += 1;
        }
        if let Some(c) = &r.spin {
            self.spin_checks += 1;
            *self.spin_verdicts.entry(c.kind).or_default() += 1;
            if self.spin_slowest.is_none_or(|(t, _)| c.time > t) {
                self.spin_slowest = Some((c.time, r.index));
            }
        }
        if r.pair_kind == PairKind::Rewrite
            && r.placement != Some(Placement::OverCode)
            && r.runs
                .iter()
                .any(|run| run.forward.kind == Kind::Disequivalent)
            && !r.failed()
        {
            self.rewrite_disequivalent.push(r.index);
        }
        self.warnings += r
            .runs
            .iter()
            .map(|run| run.warnings.len() as u64)
            .sum::<u64>();
        if r.runs.iter().any(|run| run.asymmetric_incomplete.is_some()) {
            self.asymmetric_incomplete += 1;
            if self.asymmetric_examples.len() < self.keep {
                self.asymmetric_examples.push(r.reproducer());
            }
        }
        if r.missed.is_some() {
            self.missed += 1;
            if self.missed_examples.len() < self.keep {
                self.missed_examples.push(r.reproducer());
            }
        }
        self.inputs_run += r.inputs_run;
        if r.runs.iter().any(|run| run.says(Kind::Equivalent)) {
            self.equivalent_inputs += r.inputs_run;
            self.equivalent_pairs += 1;
        }
        self.pairs_out_of_fuel += r.saw_out_of_fuel as u64;
        self.pairs_faulting += r.saw_fault as u64;
        self.compare_time += r.compare_time;
        self.concrete_time += r.concrete_time;
        if self.slowest.is_none_or(|(t, _)| r.compare_time > t) {
            self.slowest = Some((r.compare_time, r.index));
        }
    }
}

fn kinds_line(m: &BTreeMap<Kind, u64>) -> String {
    Kind::ALL
        .iter()
        .filter_map(|k| m.get(k).map(|n| format!("{} {n}", k.name())))
        .collect::<Vec<_>>()
        .join(", ")
}

fn counts_line<K: fmt::Display>(m: &BTreeMap<K, u64>) -> String {
    m.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for EngineSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  pairs: {} disequivalent, {} proved equivalent, {} stayed possibly-equivalent{}",
            self.pairs(Kind::Disequivalent),
            self.pairs(Kind::Equivalent),
            self.pairs(Kind::PossiblyEquivalent),
            match self.pairs(Kind::Crash) {
                0 => String::new(),
                n => format!(", {n} crashed"),
            }
        )?;
        writeln!(f, "  forward verdicts by shape:")?;
        for (s, m) in &self.by_shape {
            writeln!(
                f,
                "    {:<11} {:>6}  {}",
                s.name(),
                m.values().sum::<u64>(),
                kinds_line(m)
            )?;
        }
        writeln!(f, "  forward verdicts by pair kind:")?;
        for (k, m) in &self.by_pair_kind {
            writeln!(
                f,
                "    {:<17} {:>6}  {}",
                k.name(),
                m.values().sum::<u64>(),
                kinds_line(m)
            )?;
        }
        writeln!(
            f,
            "  all verdicts (both directions): {}",
            kinds_line(&self.verdicts)
        )?;
        if !self.proofs.is_empty() {
            writeln!(
                f,
                "  equivalent verdicts by the engine that proved them: {}",
                counts_line(&self.proofs)
            )?;
        }
        if !self.incomplete.is_empty() {
            writeln!(
                f,
                "  possibly-equivalent reasons: {}",
                counts_line(&self.incomplete)
            )?;
        }
        writeln!(
            f,
            "  failed checks: {}{}",
            self.failures(),
            if self.findings.is_empty() {
                String::new()
            } else {
                let k: Vec<String> = self
                    .findings
                    .iter()
                    .map(|(k, n)| format!("{} {n}", k.name()))
                    .collect();
                format!(" ({})", k.join(", "))
            }
        )?;
        writeln!(
            f,
            "  warnings {}, incomplete asymmetries {}, missed differences {}",
            self.warnings, self.asymmetric_incomplete, self.missed
        )?;
        write!(
            f,
            "  time in compare: {:.1} s",
            self.compare_time.as_secs_f64()
        )?;
        if let Some((t, i)) = self.slowest {
            write!(f, "; slowest pair: {i} ({:.2} s)", t.as_secs_f64())?;
        }
        writeln!(
            f,
            "; longest compare {:.2} s; compares past their time limit by more than a solver query's: {}",
            self.longest.as_secs_f64(),
            self.over_limit
        )
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "pairs checked: {}", self.pairs)?;
        for (e, s) in &self.engines {
            writeln!(f, "engine {}:", e.name())?;
            write!(f, "{s}")?;
        }
        if self.engines.len() > 1 {
            writeln!(
                f,
                "pairs the engines answer differently (without contradiction): {}",
                self.differing_answers.values().sum::<u64>()
            )?;
            for (k, n) in &self.differing_answers {
                writeln!(f, "  {k}: {n}")?;
            }
        }
        writeln!(
            f,
            "pairs where a probe input ran out of fuel: {}; ended in an error: {}",
            self.pairs_out_of_fuel, self.pairs_faulting
        )?;
        writeln!(
            f,
            "concrete inputs run: {} ({} for the {} pairs with an equivalent verdict)",
            self.inputs_run, self.equivalent_inputs, self.equivalent_pairs
        )?;
        writeln!(
            f,
            "UNSOUND verdicts: {}; crashes: {}; pairs with a failed check: {}",
            self.unsound(),
            self.findings.get(&FindingKind::Crash).copied().unwrap_or(0),
            self.failed_pairs
        )?;
        for (k, n) in &self.findings {
            writeln!(f, "  {}: {n}", k.name())?;
        }
        writeln!(
            f,
            "warnings (equivalent one way, possibly-equivalent the other): {}",
            self.warnings
        )?;
        writeln!(
            f,
            "incomplete asymmetries (disequivalent one way, possibly-equivalent the other): {}",
            self.asymmetric_incomplete
        )?;
        writeln!(
            f,
            "missed differences (possibly-equivalent, yet a concrete input differs): {}",
            self.missed
        )?;
        if !self.placements.is_empty() {
            let counts: Vec<String> = Placement::ALL
                .iter()
                .map(|p| format!("{} {}", p.name(), self.placements.get(p).unwrap_or(&0)))
                .collect();
            writeln!(f, "array placements: {}", counts.join(", "))?;
        }
        write!(
            f,
            "huge-fuel checks (auto, fuel {HUGE_FUEL}, time limit {:.0} s): {}",
            HUGE_FUEL_TIMEOUT.as_secs_f64(),
            self.spin_checks
        )?;
        if let Some((t, i)) = self.spin_slowest {
            write!(
                f,
                " ({}); slowest {:.2} s (pair {i})",
                kinds_line(&self.spin_verdicts),
                t.as_secs_f64()
            )?;
        }
        writeln!(f)?;
        if !self.rewrite_disequivalent.is_empty() {
            writeln!(
                f,
                "harness self-check: equal rewrites found disequivalent (a wrong rewrite): {:?}",
                self.rewrite_disequivalent
            )?;
        }
        write!(
            f,
            "time in compare: {:.1} s; in concrete runs: {:.1} s",
            self.compare_time.as_secs_f64(),
            self.concrete_time.as_secs_f64()
        )?;
        if let Some((t, i)) = self.slowest {
            write!(f, "; slowest pair: {i} ({:.2} s)", t.as_secs_f64())?;
        }
        writeln!(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direction(kind: Kind, replayed: bool) -> Direction {
        Direction {
            kind,
            inputs: (kind == Kind::Disequivalent).then(|| vec![7, 9]),
            replayed,
            proof: None,
            incomplete: Vec::new(),
            detail: String::new(),
            runs: 0,
            time: Duration::ZERO,
            over_limit: false,
        }
    }

    fn run(engine: Engine, forward: Direction, backward: Option<Direction>) -> EngineRun {
        one_engine_checks(PairKind::Mutant, engine, forward, backward, &mut Vec::new())
    }

    use crate::prog::{Line, Op, Word, R};

    fn prog(lines: Vec<Line>) -> Prog {
        Prog {
            lines,
            layout_sensitive: true,
        }
    }

    fn op(o: Op) -> Line {
        Line::Op(o)
    }

    fn data(words: &[u32]) -> impl Iterator<Item = Line> + '_ {
        words.iter().map(|&w| Line::Data(Word::Num(w)))
    }

    fn array_pair(left: Prog, right: Prog, placement: Placement, base: u32) -> Pair {
        Pair {
            seed: 0,
            index: 0,
            shape: Shape::Array,
            kind: PairKind::Mutant,
            left,
            right,
            note: String::new(),
            inputs: InputSpec::Array {
                max_len: Shape::ARRAY_MAX_LEN,
                base: Some(base),
            },
            observe: vec![REG3],
            placement: Some(placement),
        }
    }

    /// `$3 = a[0]`, then six data words from address 8: with an empty array, the read
    /// sees the first data word. The right program's first data word differs, so the
    /// two differ exactly on the arrays of length 0.
    fn over_data_pair(planted: bool) -> Pair {
        let code = [op(Op::Lw(R(3), 0, R(1))), op(Op::Jr(R(31)))];
        let words = [5, 6, 7, 8, 9, 10];
        let mut right_words = words;
        if planted {
            right_words[0] = 0x15;
        }
        let left = prog(code.iter().cloned().chain(data(&words)).collect());
        let right = prog(code.iter().cloned().chain(data(&right_words)).collect());
        array_pair(left, right, Placement::OverData, 8)
    }

    /// The array at 0, over the first instructions: `$3 = 0; $3 += len` against
    /// `$3 = len; $3 += 0`, equal unless array words replace them (with one element
    /// equal to its first instruction, say, the left gives 1 and the right 0).
    fn over_code_pair() -> Pair {
        let left = prog(vec![
            op(Op::Add(R(3), R(0), R(0))),
            op(Op::Add(R(3), R(3), R(2))),
            op(Op::Jr(R(31))),
        ]);
        let right = prog(vec![
            op(Op::Add(R(3), R(2), R(0))),
            op(Op::Add(R(3), R(3), R(0))),
            op(Op::Jr(R(31))),
        ]);
        array_pair(left, right, Placement::OverCode, 0)
    }

    fn small_config(engines: Vec<Engine>) -> CheckConfig {
        CheckConfig {
            inputs: 500,
            compare_timeout: Some(Duration::from_secs(5)),
            solver_timeout: Some(Duration::from_secs(1)),
            engines,
            spin_checks: false,
            ..CheckConfig::default()
        }
    }

    /// The concrete checks of `pair` against a planted verdict of `kind` by concolic.
    fn planted(pair: &Pair, kind: Kind) -> (Vec<Finding>, Probe) {
        let (lp, rp) = (
            pair.left.assemble().unwrap(),
            pair.right.assemble().unwrap(),
        );
        let layout = InputLayout::declare(&mut TermStore::new(), &pair.inputs, 0);
        let mut runs = vec![run(Engine::Concolic, direction(kind, false), None)];
        let mut findings = Vec::new();
        let cfg = small_config(vec![Engine::Concolic]);
        let probe = concrete_checks(pair, &lp, &rp, &cfg, layout, &mut runs, &mut findings);
        (findings, probe)
    }

    #[test]
    fn a_false_proof_through_the_data_past_the_array_is_caught() {
        let (findings, _) = planted(&over_data_pair(true), Kind::Equivalent);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].kind, FindingKind::EquivalentButDiffers);
        // The difference is on an empty array: only the data past it tells them apart.
        assert_eq!(findings[0].inputs.as_ref().map(|v| v[0]), Some(0));
        // Without the planted difference the same verdict stands.
        let (findings, probe) = planted(&over_data_pair(false), Kind::Equivalent);
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(probe.runs, 500);
        // A possibly-equivalent verdict there is a missed difference.
        let (findings, probe) = planted(&over_data_pair(true), Kind::PossiblyEquivalent);
        assert!(findings.is_empty());
        assert_eq!(probe.missed.map(|v| v[0]), Some(0));
    }

    #[test]
    fn a_false_proof_through_array_words_run_as_code_is_caught() {
        let (findings, _) = planted(&over_code_pair(), Kind::Equivalent);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].kind, FindingKind::EquivalentButDiffers);
        let v = findings[0].inputs.clone().unwrap();
        assert!(v[0] >= 1, "{v:?}");
        // Placed after the images, the same programs are equal.
        let mut after = over_code_pair();
        after.inputs = Shape::Array.input_spec();
        after.placement = Some(Placement::AfterImage);
        let (findings, _) = planted(&after, Kind::Equivalent);
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn array_inputs_over_an_image_hold_its_words() {
        let pair = over_code_pair();
        let (lp, rp) = (
            pair.left.assemble().unwrap(),
            pair.right.assemble().unwrap(),
        );
        let overlay = Overlay::new(&lp, &rp, 0, Shape::ARRAY_MAX_LEN);
        assert_eq!(overlay.slots[0][..3], lp.words()[..]);
        assert_eq!(overlay.slots[1][3], 0);
        let inputs: Vec<Vec<u32>> = pair_inputs(&pair, &lp, &rp, 400, 1, &[]).collect();
        assert_eq!(inputs.len(), 400);
        // Each program's own code, at every length, comes first.
        for len in 0..=Shape::ARRAY_MAX_LEN {
            let mut own = vec![len];
            own.extend(&overlay.slots[0]);
            assert!(inputs[..10].contains(&own), "{own:?}");
        }
        // Every image word appears as an element somewhere.
        for w in &overlay.words {
            assert!(
                inputs.iter().any(|v| v[1..=v[0] as usize].contains(w)),
                "{w:#x}"
            );
        }
        // After the images, no overlay.
        let mut after = pair.clone();
        after.placement = Some(Placement::AfterImage);
        after.inputs = Shape::Array.input_spec();
        let plain: Vec<Vec<u32>> = pair_inputs(&after, &lp, &rp, 400, 1, &[]).collect();
        assert!(!plain.iter().any(|v| v[0] == 1 && v[1] == lp.words()[1]));
    }

    #[test]
    fn engines_see_the_data_past_the_array() {
        let pair = over_data_pair(true);
        let r = check_pair(&pair, &small_config(ENGINES.to_vec()));
        assert!(!r.failed(), "{}", r.reproducer());
        for run in &r.runs {
            assert_eq!(run.forward.kind, Kind::Disequivalent, "{}", r.reproducer());
            assert_eq!(run.forward.inputs.as_ref().map(|v| v[0]), Some(0));
        }
        let repro = r.reproducer();
        assert!(
            repro
                .contains("--engine bmc --fuel 2000 --frontend array --max-len 4 --array-base 0x8"),
            "{repro}"
        );
        assert!(repro.contains("at 0x8 (over-data)"), "{repro}");
    }

    #[test]
    fn no_engine_proves_equal_what_array_words_run_as_code_tell_apart() {
        // Code fetched from input words is hard to decide (the engines may well leave
        // it possibly-equivalent within these limits); a proof would be wrong.
        let cfg = CheckConfig {
            compare_timeout: Some(Duration::from_millis(1500)),
            solver_timeout: Some(Duration::from_millis(500)),
            ..small_config(vec![Engine::Auto])
        };
        let r = check_pair(&over_code_pair(), &cfg);
        assert!(!r.failed(), "{}", r.reproducer());
        assert!(!r.runs[0].says(Kind::Equivalent), "{}", r.reproducer());
        assert!(
            r.runs[0].says(Kind::Disequivalent) || r.missed.is_some(),
            "{}",
            r.reproducer()
        );
        assert!(r.reproducer().contains("--array-base 0x0"));
    }

    #[test]
    fn a_proof_with_more_fuel_against_a_replayed_counterexample_is_a_finding() {
        // Both sides the same program: auto proves them equal with any fuel.
        let p = prog(vec![op(Op::Add(R(3), R(1), R(2))), op(Op::Jr(R(31)))]);
        let lp = p.assemble().unwrap();
        let mut opts = small_config(vec![Engine::Auto]).options();
        opts.inputs = InputSpec::default();
        let layout = InputLayout::declare(&mut TermStore::new(), &opts.inputs, 0);
        // An ordinary comparison that (wrongly, here) has a counterexample that replays.
        let runs = [run(
            Engine::Concolic,
            direction(Kind::Disequivalent, true),
            None,
        )];
        let mut findings = Vec::new();
        let c = spin_check(&lp, &lp, &opts, &layout, &runs, &mut findings);
        assert_eq!(c.kind, Kind::Equivalent);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].kind, FindingKind::MoreFuelEquivalent);
        assert_eq!(findings[0].inputs, Some(vec![7, 9]));
        // Without that counterexample, nothing.
        let runs = [run(
            Engine::Concolic,
            direction(Kind::PossiblyEquivalent, false),
            None,
        )];
        let mut findings = Vec::new();
        spin_check(&lp, &lp, &opts, &layout, &runs, &mut findings);
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn a_huge_fuel_comparison_of_spinning_programs_ends_at_its_time_limit() {
        // Spins when $1 is odd; the right side also when $2 is 7.
        let spin = |extra: bool| {
            let mut lines = vec![
                op(Op::Lis(R(4), Word::Num(2))),
                op(Op::Divu(R(1), R(4))),
                op(Op::Mfhi(R(5))),
                Line::Label("top".into()),
                op(Op::Bne(R(5), R(0), "top".into())),
            ];
            if extra {
                lines.push(op(Op::Lis(R(6), Word::Num(7))));
                lines.push(Line::Label("again".into()));
                lines.push(op(Op::Beq(R(2), R(6), "again".into())));
            }
            lines.push(op(Op::Add(R(3), R(2), R(0))));
            lines.push(op(Op::Jr(R(31))));
            prog(lines)
        };
        let (lp, rp) = (
            spin(false).assemble().unwrap(),
            spin(true).assemble().unwrap(),
        );
        let opts = small_config(vec![Engine::Auto]).options();
        let layout = InputLayout::declare(&mut TermStore::new(), &opts.inputs, 0);
        let mut findings = Vec::new();
        let start = Instant::now();
        let c = spin_check(&lp, &rp, &opts, &layout, &[], &mut findings);
        assert!(findings.is_empty(), "{findings:?}");
        assert!(
            start.elapsed() < HUGE_FUEL_MAX_TIME,
            "{:?}",
            start.elapsed()
        );
        assert_ne!(c.kind, Kind::Equivalent);
        assert_ne!(c.kind, Kind::Crash);
    }

    #[test]
    fn engines_parse() {
        assert_eq!(parse_engines("bmc"), Ok(vec![Engine::Bmc]));
        assert_eq!(parse_engines("all"), Ok(ENGINES.to_vec()));
        assert_eq!(
            parse_engines("auto, concolic,auto"),
            Ok(vec![Engine::Concolic, Engine::Auto])
        );
        assert!(parse_engines("smt").is_err());
        assert!(parse_engines("").is_err());
    }

    #[test]
    fn an_equivalent_verdict_against_a_replayed_counterexample_is_a_finding() {
        let concolic = run(
            Engine::Concolic,
            direction(Kind::Disequivalent, true),
            Some(direction(Kind::PossiblyEquivalent, false)),
        );
        let bmc = run(
            Engine::Bmc,
            direction(Kind::PossiblyEquivalent, false),
            Some(direction(Kind::Equivalent, false)),
        );
        let found = contradictions(&[concolic.clone(), bmc.clone()]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, FindingKind::EnginesContradict);
        assert_eq!(found[0].engine, Engine::Bmc);
        assert_eq!(found[0].inputs, Some(vec![7, 9]));
        // Either order of the engines.
        assert_eq!(contradictions(&[bmc, concolic]).len(), 1);
    }

    #[test]
    fn answers_that_do_not_contradict_are_no_finding() {
        // A counterexample that did not replay is a finding of its own engine (check
        // (a)), not a contradiction.
        let unreplayed = run(
            Engine::Concolic,
            direction(Kind::Disequivalent, false),
            None,
        );
        let eq = run(Engine::Bmc, direction(Kind::Equivalent, false), None);
        assert!(contradictions(&[unreplayed, eq.clone()]).is_empty());
        // Equivalent against possibly-equivalent, and agreement.
        let possibly = run(
            Engine::Concolic,
            direction(Kind::PossiblyEquivalent, false),
            None,
        );
        assert!(contradictions(&[possibly, eq.clone()]).is_empty());
        let auto = run(Engine::Auto, direction(Kind::Equivalent, false), None);
        assert!(contradictions(&[eq, auto]).is_empty());
        // Disequivalent both.
        let a = run(Engine::Concolic, direction(Kind::Disequivalent, true), None);
        let b = run(Engine::Bmc, direction(Kind::Disequivalent, true), None);
        assert!(contradictions(&[a, b]).is_empty());
    }

    #[test]
    fn pair_verdicts() {
        let r = run(
            Engine::Bmc,
            direction(Kind::PossiblyEquivalent, false),
            Some(direction(Kind::Equivalent, false)),
        );
        assert_eq!(r.pair_verdict(), Kind::Equivalent);
        assert_eq!(r.warnings.len(), 1);
        let r = run(
            Engine::Bmc,
            direction(Kind::Disequivalent, true),
            Some(direction(Kind::PossiblyEquivalent, false)),
        );
        assert_eq!(r.pair_verdict(), Kind::Disequivalent);
        assert!(r.asymmetric_incomplete.is_some());
        let mut findings = Vec::new();
        let r = one_engine_checks(
            PairKind::Mutant,
            Engine::Bmc,
            direction(Kind::Disequivalent, true),
            Some(direction(Kind::Equivalent, false)),
            &mut findings,
        );
        assert_eq!(r.pair_verdict(), Kind::Disequivalent);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].kind, FindingKind::AsymmetricVerdict);
        assert_eq!(findings[0].engine, Engine::Bmc);
    }
}
