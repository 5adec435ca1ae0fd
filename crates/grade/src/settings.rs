//! The settings of a search, as plain values: what the command line's search options
//! and a task file both describe, and the engine's [`Options`] they give. Every
//! command that searches (compare, check, paths, grade) and those that replay a
//! verdict (explain, run) resolve their settings here, so one task gives one verdict
//! whichever command asks.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tamarin::{Engine, FuelPolicy, InputLayout, InputSpec, Observable, Options, SolverConfig};
use tamarin::{DEFAULT_QUERY_TIMEOUT, DEFAULT_RESOURCE_LIMIT};
use tamarin_mips::cpu::DEFAULT_TERMINATION;
use tamarin_mips::{InputFormat, Reg};

use crate::parse::{parse_observables, parse_reg_list};
use crate::task::{Fuel, Task};
use crate::words::count;
use crate::Error;

/// The longest array the array frontend explores.
pub const MAX_ARRAY: u32 = 4096;
/// The most standard input bytes that can be inputs.
pub const MAX_STDIN: usize = 4096;
/// The default time limit of a search, in seconds: long enough for every proof in our
/// benchmarks, short enough that a class of submissions cannot stall on one.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// `grade`'s wall-clock limit on grouping the wrong submissions: `given`
/// (`--group-timeout`, in seconds), else the task's `group-timeout`, else
/// [`DEFAULT_GROUP_TIMEOUT_SECS`](crate::groups::DEFAULT_GROUP_TIMEOUT_SECS); 0 means
/// none (`None`). It is no setting of a verdict: the store's keys do not take it.
pub fn group_timeout(given: Option<f64>, task: Option<&Task>) -> Result<Option<Duration>, Error> {
    let from_task = task.and_then(|t| Some((t, t.file.group_timeout?)));
    let seconds = match (given, from_task) {
        (Some(s), _) => seconds(s).map_err(|e| Error::Usage(format!("--group-timeout: {e}")))?,
        (None, Some((task, s))) => seconds(s).map_err(|e| task.bad_value("group-timeout", e))?,
        (None, None) => Duration::from_secs(crate::groups::DEFAULT_GROUP_TIMEOUT_SECS),
    };
    Ok((!seconds.is_zero()).then_some(seconds))
}

/// A number of seconds, 0 or more, as a duration.
pub fn seconds(s: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| format!("expected a number of seconds, 0 or more (0 means no limit), not {s}"))
}

/// The domain program's fuel by default: a traversal of a tree of a few dozen nodes
/// with a visited mark per node takes a few thousand steps.
pub const DEFAULT_ASSUME_FUEL: u64 = 100_000;

/// How inputs enter the programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frontend {
    /// Input registers.
    Twoints,
    /// An array: $1 holds its address, $2 its length.
    Array,
}

impl Frontend {
    /// Its name, as options and task files write it.
    pub fn name(self) -> &'static str {
        match self {
            Frontend::Twoints => "twoints",
            Frontend::Array => "array",
        }
    }

    /// The frontend named `name`.
    pub fn parse(name: &str) -> Option<Frontend> {
        match name {
            "twoints" => Some(Frontend::Twoints),
            "array" => Some(Frontend::Array),
            _ => None,
        }
    }
}

/// The options of a search, one field per search option of the command line (the
/// same names, in snake case), with the command line's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Search {
    /// Steps per run (with `fuel_auto`, once sized: see [`Settings::size_fuel`]).
    pub fuel: u64,
    /// `--fuel auto`: the fuel is sized from the reference's runs on the domain.
    pub fuel_auto: bool,
    pub depth: u64,
    /// Per solver query, in milliseconds.
    pub solver_timeout: u64,
    pub solver_rlimit: u64,
    /// The solver work of a whole comparison, in Z3's resource units; 0: the default
    /// (none, or in a deterministic one [`tamarin::DETERMINISTIC_WORK_PER_SECOND`] per
    /// second of the time limit).
    pub solver_work: u64,
    /// Verdicts decided by counts alone, the clock only a safety net (always so in
    /// `grade` and under a task, unless the solver is piped or raced).
    pub deterministic: bool,
    pub portfolio: String,
    pub init_inputs: Option<Vec<u32>>,
    pub frontend: Frontend,
    pub inputs: Vec<Reg>,
    pub max_len: u64,
    pub array_base: Option<u32>,
    pub stdin_len: u64,
    pub solver: String,
    pub max_runs: u64,
    /// For the whole search, in seconds; 0 means none.
    pub timeout: u64,
    /// `None`: the command's default.
    pub out_of_fuel: Option<FuelPolicy>,
    pub assume: Vec<String>,
    /// The domain program (`--assume-program`), read by the front end, which attaches
    /// it with [`Settings::set_domain_program`].
    pub assume_program: Option<PathBuf>,
    /// The domain program's own fuel.
    pub assume_fuel: u64,
    pub dump_trace: bool,
    pub dump_smt: Option<PathBuf>,
    pub force: bool,
    pub input_format: Option<InputFormat>,
    /// Modules linked after every program (`--link`, a task's `link`), in order; the
    /// front end reads them and attaches their digest ([`Settings::set_link_digest`]).
    pub link: Vec<PathBuf>,
    pub termination: u32,
    /// Prove for runs of any length (`--unbounded`, a task's `unbounded = true`).
    pub unbounded: bool,
}

impl Default for Search {
    fn default() -> Search {
        Search {
            fuel: 10_000,
            fuel_auto: false,
            depth: 50,
            solver_timeout: DEFAULT_QUERY_TIMEOUT.as_millis() as u64,
            solver_rlimit: DEFAULT_RESOURCE_LIMIT as u64,
            solver_work: 0,
            deterministic: false,
            portfolio: "yices,cvc5".into(),
            init_inputs: None,
            frontend: Frontend::Twoints,
            inputs: vec![Reg::from_bits(1), Reg::from_bits(2)],
            max_len: 16,
            array_base: None,
            stdin_len: 0,
            solver: "z3".into(),
            max_runs: 10_000,
            timeout: DEFAULT_TIMEOUT_SECS,
            out_of_fuel: None,
            assume: Vec::new(),
            assume_program: None,
            assume_fuel: DEFAULT_ASSUME_FUEL,
            dump_trace: false,
            dump_smt: None,
            force: false,
            input_format: None,
            link: Vec::new(),
            termination: DEFAULT_TERMINATION,
            unbounded: false,
        }
    }
}

impl Search {
    /// The engine's options these settings describe (observables and engine left at
    /// their defaults); `interrupt` is the flag that stops the search from outside.
    pub fn options(&self, interrupt: Option<&'static AtomicBool>) -> Result<Options, Error> {
        let args = self;
        let mut opts = Options::default();
        opts.fuel = args.fuel;
        opts.depth = usize::try_from(args.depth).unwrap_or(usize::MAX);
        let max_len = u32::try_from(args.max_len)
            .ok()
            .filter(|&n| n <= MAX_ARRAY)
            .ok_or_else(|| Error::Usage(format!("--max-len must be at most {MAX_ARRAY}")))?;
        opts.inputs = match args.frontend {
            Frontend::Twoints => InputSpec::Registers(args.inputs.clone()),
            Frontend::Array => InputSpec::Array {
                max_len,
                base: args.array_base,
            },
        };
        if let Some(inputs) = &args.init_inputs {
            opts.init_inputs = match &opts.inputs {
                InputSpec::Registers(regs) => {
                    if inputs.len() != regs.len() {
                        return Err(Error::Usage(format!(
                            "--init-inputs gives {} for {}",
                            count(inputs.len() as u64, "number"),
                            count(regs.len() as u64, "input register")
                        )));
                    }
                    inputs.clone()
                }
                InputSpec::Array { .. } => {
                    let mut v = vec![inputs.len() as u32];
                    v.extend(inputs);
                    v
                }
            };
        }
        opts.stdin_len = usize::try_from(args.stdin_len)
            .ok()
            .filter(|&n| n <= MAX_STDIN)
            .ok_or_else(|| Error::Usage(format!("--stdin-len must be at most {MAX_STDIN}")))?;
        opts.max_runs = args.max_runs;
        opts.timeout = (args.timeout > 0).then(|| Duration::from_secs(args.timeout));
        opts.dump_trace = args.dump_trace;
        opts.interrupt = interrupt;
        opts.termination = args.termination;
        opts.unbounded = args.unbounded;
        let mut solver = SolverConfig::default();
        solver.timeout = Duration::from_millis(args.solver_timeout.max(1));
        solver.resource_limit = match args.solver_rlimit {
            0 => None,
            n => Some(u32::try_from(n).map_err(|_| {
                Error::Usage(format!("--solver-rlimit must be at most {}", u32::MAX))
            })?),
        };
        solver.portfolio = match args.portfolio.trim() {
            "" | "none" => Vec::new(),
            list => list
                .split(',')
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .collect(),
        };
        // Any other solver is a command, which the engine tries before the search.
        if args.solver.trim() != "z3" {
            solver.external = Some(args.solver.clone());
        }
        solver.dump_dir = args.dump_smt.clone();
        solver.work_budget = (args.solver_work > 0).then_some(args.solver_work);
        opts.solver = solver;
        opts.deterministic = args.deterministic;
        opts.out_of_fuel = args.out_of_fuel.unwrap_or(FuelPolicy::Same);
        opts.assume = args
            .assume
            .iter()
            .map(|text| {
                tamarin::Precondition::parse(text).map_err(|e| Error::Precondition {
                    text: text.clone(),
                    span: e.span,
                    message: e.message,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(opts)
    }

    /// Refuses options that do not apply to the task: `--max-len` or `--array-base`
    /// without `--frontend array`, `--inputs` with it, and an `--init-inputs` array
    /// longer than `--max-len`. `given` tells, for an option's id (`max_len`), whether
    /// it was given and how to name it (`--max-len`, or a task file's key); defaults
    /// are never refused.
    pub fn check_applicable(&self, given: &dyn Fn(&str) -> Option<String>) -> Result<(), Error> {
        let not_array = |id: &str, what: &str| match given(id) {
            Some(name) => Err(Error::Usage(format!(
                "{name} applies only to --frontend array ({what}); the inputs here are \
                 registers (--frontend twoints)"
            ))),
            None => Ok(()),
        };
        match self.frontend {
            Frontend::Twoints => {
                not_array("max_len", "the longest input array")?;
                not_array("array_base", "where the input array is placed")?;
            }
            Frontend::Array => {
                if let Some(name) = given("inputs") {
                    return Err(Error::Usage(format!(
                        "{name} applies only to --frontend twoints: with --frontend array, $1 \
                         holds the array's address and $2 its length"
                    )));
                }
                if let Some(elems) = &self.init_inputs {
                    if elems.len() as u64 > self.max_len {
                        return Err(Error::Usage(format!(
                            "--init-inputs gives an array of {}, longer than the --max-len of {}",
                            count(elems.len() as u64, "word"),
                            self.max_len
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// What a command line says besides its search options: the observables and the
/// engine, when it gives them.
#[derive(Clone, Debug, Default)]
pub struct Line {
    pub search: Search,
    pub observe: Option<Vec<Observable>>,
    pub engine: Option<Engine>,
}

/// Everything that decides a verdict, resolved once: the task file first, the command
/// line on top. `compare --task`, `grade`, `check`, `paths`, `explain` and `run`
/// resolve theirs here, so the same task gives the same verdict in every command.
#[derive(Debug)]
pub struct Settings {
    pub search: Search,
    pub observe: Vec<Observable>,
    pub engine: Engine,
    /// The engine's options.
    pub opts: Options,
    /// Every setting that can change a verdict, in one string (a store's keys take it).
    pub canonical: String,
    /// The inputs with the task's preconditions, lowered once.
    pub layout: InputLayout,
    /// How `fuel = "auto"` sized the fuel, once [`Settings::size_fuel`] did.
    pub fuel_sizing: Option<crate::fuel::Sizing>,
    /// The SHA-256 of the domain program's bytes, once attached (the store's key
    /// names its content, not its path).
    pub domain_digest: Option<String>,
    /// The SHA-256 of the linked modules' bytes (`link`), once attached.
    pub link_digest: Option<String>,
}

/// How the command line's options were given: for an option's id (`max_len`), whether
/// it was given on the command line itself rather than left at its default.
pub type Given<'a> = &'a dyn Fn(&str) -> bool;

impl Settings {
    /// Resolves the settings: `task`'s values fill in what the command line (`given`)
    /// left at its default, the whole is checked, and the engine's options built.
    /// Under a task (and in `grade`, `grading`), a run out of fuel where the other
    /// ends is a difference unless the task or the command line says `same`.
    pub fn resolve(
        mut line: Line,
        task: Option<&Task>,
        given: Given<'_>,
        grading: bool,
        interrupt: Option<&'static AtomicBool>,
    ) -> Result<Settings, Error> {
        if let Some(task) = task {
            task.apply(&mut line, given)?;
        }
        line.search.check_applicable(&|id| {
            if given(id) {
                return Some(format!("--{}", id.replace('_', "-")));
            }
            let task = task?;
            task.has(&id.replace('_', "-"))
                .then(|| format!("`{}` in {}", id.replace('_', "-"), task.path.display()))
        })?;
        let Line {
            mut search,
            observe,
            engine,
        } = line;
        if grading {
            // Nothing of grade's is cleared: the option would only change its key.
            search.force = false;
        }
        // A submission that does not end where the reference does is wrong; but a
        // proof for runs of any length asks whether it ends at all, not within the
        // fuel, so there a run out of fuel is no difference unless asked.
        if search.out_of_fuel.is_none() && (grading || task.is_some()) && !search.unbounded {
            search.out_of_fuel = Some(FuelPolicy::Different);
        }
        decide_by_counts(&mut search, task, given, grading)?;
        let observe = observe.unwrap_or_else(|| vec![Observable::CS241_RESULT]);
        let engine = engine.unwrap_or(Engine::Auto);
        let mut opts = search.options(interrupt)?;
        opts.observe = observe.clone();
        opts.engine = engine;
        let canonical = canonical(&search, &observe, engine);
        let layout = match InputLayout::assuming(&opts.inputs, opts.stdin_len, &opts.assume) {
            Ok(layout) => layout,
            // grade names the option; a single comparison points at the precondition
            // at fault, as the engine's own check of the task does.
            Err(e) if grading => return Err(Error::Usage(format!("--assume: {e}"))),
            Err(e) => {
                for p in &opts.assume {
                    if let Err(e) =
                        InputLayout::assuming(&opts.inputs, opts.stdin_len, std::slice::from_ref(p))
                    {
                        return Err(Error::Precondition {
                            text: p.text().to_string(),
                            span: e.span,
                            message: e.message,
                        });
                    }
                }
                return Err(Error::Usage(format!("--assume: {e}")));
            }
        };
        Ok(Settings {
            search,
            observe,
            engine,
            opts,
            canonical,
            layout,
            fuel_sizing: None,
            domain_digest: None,
            link_digest: None,
        })
    }

    /// Attaches the domain program that `search.assume_program` names, as the front
    /// end read it (`bytes`, parsed into `program`, named `name` in reports): the
    /// engine's options take it, the layout checks concrete inputs with it (so that
    /// fuel sizing and grouping stay inside the domain), and the store's key names its
    /// content. Call it before [`Settings::size_fuel`].
    pub fn set_domain_program(
        &mut self,
        name: String,
        bytes: &[u8],
        program: tamarin_mips::Program,
    ) {
        let domain = tamarin::DomainProgram::new(name, program, self.search.assume_fuel);
        self.layout
            .restrict_to_program(&domain, self.opts.termination, None);
        self.opts.assume_program = Some(domain);
        self.domain_digest = Some(content_digest([bytes]));
        self.canonical = self.canonical();
    }

    /// Attaches the content of the modules that `search.link` names, as the front end
    /// read them (in order): the store's key names their content, not only their paths.
    pub fn set_link_digest<'b>(&mut self, modules: impl IntoIterator<Item = &'b [u8]>) {
        self.link_digest = Some(content_digest(modules));
        self.canonical = self.canonical();
    }

    /// Whether the fuel is still to be sized from a reference (`fuel = "auto"`).
    pub fn needs_sizing(&self) -> bool {
        self.search.fuel_auto && self.fuel_sizing.is_none()
    }

    /// Under `fuel = "auto"`, sizes the fuel from runs of `reference` on the domain
    /// (see [`crate::fuel`]) and puts it everywhere the fuel is (the search, the
    /// engine's options, the store's key); otherwise leaves the settings as they are.
    /// Idempotent: a fuel already sized is kept.
    pub fn size_fuel(&mut self, reference: &tamarin_mips::Program) -> Option<&crate::fuel::Sizing> {
        if self.needs_sizing() {
            let sizing = crate::fuel::size(reference, &self.opts, &self.layout);
            self.search.fuel = sizing.fuel;
            self.opts.fuel = sizing.fuel;
            self.fuel_sizing = Some(sizing);
            self.canonical = self.canonical();
        }
        self.fuel_sizing.as_ref()
    }
}

/// The SHA-256, in hex, of files' contents in order (each prefixed with its length, so
/// that no two lists of files share one): how the store's key names the content of
/// the files a task reads besides its programs.
fn content_digest<'b>(files: impl IntoIterator<Item = &'b [u8]>) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for bytes in files {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Every setting that can change a verdict, in one string: the searching options (all
/// of them, so that an option added later counts too; a sized fuel with `fuel_auto`),
/// the observables and the engine.
fn canonical(search: &Search, observe: &[Observable], engine: Engine) -> String {
    format!("{search:?}|observe={observe:?}|engine={engine:?}")
}

impl Settings {
    /// [`canonical`] of these settings, with the domain program's content.
    fn canonical(&self) -> String {
        let mut c = canonical(&self.search, &self.observe, self.engine);
        if let Some(d) = &self.domain_digest {
            c.push_str(&format!("|assume-program={d}"));
        }
        if let Some(d) = &self.link_digest {
            c.push_str(&format!("|link={d}"));
        }
        c
    }
}

/// Makes grading, and a comparison under a task or with `--deterministic`, decided by
/// counts alone ([`Options::deterministic`]): the portfolio, a race against the clock,
/// is off unless asked for. Grading and a task stay deterministic while nothing asks
/// for a piped solver or a portfolio (which makes them clock-bound, as the report's
/// task then says); `--deterministic` with either is a usage error.
fn decide_by_counts(
    search: &mut Search,
    task: Option<&Task>,
    given: Given<'_>,
    grading: bool,
) -> Result<(), Error> {
    let asked = search.deterministic;
    if !(asked || grading || task.is_some()) {
        return Ok(());
    }
    let named = |key: &str| given(&key.replace('-', "_")) || task.is_some_and(|t| t.has(key));
    if !named("portfolio") {
        search.portfolio = "none".into();
    }
    let portfolio = !matches!(search.portfolio.trim(), "" | "none");
    let clock = if search.solver.trim() != "z3" {
        Some(format!("--solver {}", search.solver))
    } else if portfolio {
        Some(format!("--portfolio {}", search.portfolio))
    } else if search.solver_rlimit == 0 {
        Some("--solver-rlimit 0".to_string())
    } else {
        None
    };
    match clock {
        Some(option) if asked => Err(Error::Usage(format!(
            "--deterministic cannot be used with {option}: its answers are bounded by the clock"
        ))),
        Some(_) => {
            search.deterministic = false;
            Ok(())
        }
        None => {
            search.deterministic = true;
            Ok(())
        }
    }
}

/// A task file applied to the settings (here, so that the file's reader knows nothing
/// of the settings it feeds).
impl Task {
    /// Fills in `line` from the file where the command line (`given`, by option id)
    /// is silent.
    pub fn apply(&self, line: &mut Line, given: &dyn Fn(&str) -> bool) -> Result<(), Error> {
        let f = &self.file;
        let free = |id: &str| !given(id);
        let s = &mut line.search;
        if let (Some(v), true) = (&f.frontend, free("frontend")) {
            s.frontend = Frontend::parse(v)
                .ok_or_else(|| self.bad_value("frontend", "expected \"twoints\" or \"array\""))?;
        }
        if let (Some(v), true) = (&f.inputs, free("inputs")) {
            s.inputs = parse_reg_list(&v.joined())
                .map_err(|e| self.bad_value("inputs", e))?
                .0;
        }
        if let (Some(v), true) = (&f.observe, free("observe")) {
            line.observe = Some(
                parse_observables(&v.joined())
                    .map_err(|e| self.bad_value("observe", e))?
                    .0,
            );
        }
        if let (Some(v), true) = (&f.engine, free("engine")) {
            line.engine = Some(match v.as_str() {
                "concolic" => Engine::Concolic,
                "bmc" => Engine::Bmc,
                "auto" => Engine::Auto,
                _ => {
                    return Err(
                        self.bad_value("engine", "expected \"concolic\", \"bmc\" or \"auto\"")
                    )
                }
            });
        }
        if let (Some(v), true) = (f.fuel, free("fuel")) {
            match v {
                Fuel::Steps(n) => (s.fuel, s.fuel_auto) = (n, false),
                Fuel::Auto => s.fuel_auto = true,
            }
        }
        for (id, value, field) in [
            ("depth", f.depth, &mut s.depth),
            ("max_len", f.max_len, &mut s.max_len),
            ("stdin_len", f.stdin_len, &mut s.stdin_len),
            ("timeout", f.timeout, &mut s.timeout),
            ("max_runs", f.max_runs, &mut s.max_runs),
            ("solver_timeout", f.solver_timeout, &mut s.solver_timeout),
            ("solver_rlimit", f.solver_rlimit, &mut s.solver_rlimit),
            ("solver_work", f.solver_work, &mut s.solver_work),
        ] {
            if let (Some(v), true) = (value, free(id)) {
                *field = v;
            }
        }
        if let (Some(v), true) = (&f.array_base, free("array_base")) {
            s.array_base = Some(v.value().map_err(|e| self.bad_value("array-base", e))?);
        }
        if let (Some(v), true) = (&f.termination, free("termination")) {
            s.termination = v.value().map_err(|e| self.bad_value("termination", e))?;
        }
        if let (Some(v), true) = (&f.init_inputs, free("init_inputs")) {
            s.init_inputs = Some(v.values().map_err(|e| self.bad_value("init-inputs", e))?);
        }
        if let (Some(v), true) = (&f.solver, free("solver")) {
            s.solver = v.clone();
        }
        if let (Some(v), true) = (&f.portfolio, free("portfolio")) {
            s.portfolio = v.joined();
        }
        if let (Some(v), true) = (&f.out_of_fuel, free("out_of_fuel")) {
            s.out_of_fuel = Some(match v.as_str() {
                "same" => FuelPolicy::Same,
                "different" => FuelPolicy::Different,
                _ => {
                    return Err(self.bad_value("out-of-fuel", "expected \"same\" or \"different\""))
                }
            });
        }
        if let (Some(v), true) = (&f.input_format, free("input_format")) {
            s.input_format = Some(match v.as_str() {
                "asm" => InputFormat::Asm,
                "bin" => InputFormat::Bin,
                "merl" => InputFormat::Merl,
                _ => {
                    return Err(
                        self.bad_value("input-format", "expected \"asm\", \"bin\" or \"merl\"")
                    )
                }
            });
        }
        if let (Some(v), true) = (f.dump_trace, free("dump_trace")) {
            s.dump_trace = v;
        }
        if let (Some(v), true) = (&f.assume_program, free("assume_program")) {
            s.assume_program = Some(self.relative(v));
        }
        if let (Some(v), true) = (&f.link, free("link")) {
            s.link = v.iter().map(|p| self.relative(p)).collect();
        }
        if let (Some(v), true) = (f.assume_fuel, free("assume_fuel")) {
            s.assume_fuel = v;
        }
        if let (Some(v), true) = (&f.dump_smt, free("dump_smt")) {
            s.dump_smt = Some(self.relative(v));
        }
        if let (Some(v), true) = (f.force, free("force")) {
            s.force = v;
        }
        if let (Some(v), true) = (f.unbounded, free("unbounded")) {
            s.unbounded = v;
        }
        if free("assume") && (self.has("assume") || !f.assume.is_empty()) {
            s.assume = f.assume.clone();
        }
        Ok(())
    }
}
