//! `tamarin compare LEFT RIGHT`: looks for inputs on which two programs differ, and
//! proves bounded equivalence when the search covers every path.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin::Report;
use tamarin::{Engine, FuelPolicy, Proof, Verdict};
use tamarin_mips::Status;

use tamarin_grade::parse::{parse_observables, ObservableList};
use tamarin_grade::settings::{Frontend, Line, Settings};

use super::search::{
    explain_command, inputs_line, ms, note_text, reason_text, replay_command, search_showing,
    shell_word, shown, status_line, CliObserver, EngineArg, SearchArgs, Searcher,
};
use crate::args::OutputFormat;
use crate::diag::{CliError, EXIT_FOUND, EXIT_INCOMPLETE, EXIT_OK};
use crate::words::count;

/// Compare two programs: find inputs on which they differ, or prove that they agree.
#[derive(Debug, ClapArgs)]
#[command(override_usage = "tamarin compare [OPTIONS] LEFT RIGHT\n       \
                            tamarin compare [OPTIONS] --task TASK.toml PROGRAM")]
pub struct Args {
    /// The first program (.asm/.s assembly or .mips/.bin binary; `-`: standard input, read
    /// as assembly unless --input-format bin). With --task: the program compared with
    /// the task's reference.
    #[arg(value_name = "LEFT")]
    pub left: PathBuf,
    /// The second program (at most one of the two may be `-`); none with --task.
    #[arg(
        value_name = "RIGHT",
        required_unless_present = "task",
        conflicts_with = "task"
    )]
    pub right: Option<PathBuf>,
    /// A task file (as `grade --task` takes it): the reference is the task's (LEFT),
    /// the one program given is compared with it (RIGHT), and every setting of the
    /// task applies as in grade, options on the command line winning over it, so the
    /// verdict is the one grade gives (out of fuel where the other ends is a
    /// difference unless the task or --out-of-fuel says `same`).
    #[arg(long, value_name = "FILE")]
    pub task: Option<PathBuf>,
    /// What is compared when both runs end, comma-separated: $N, hi, lo, output (the
    /// bytes written to 0xFFFF000C) and mem:A..B (the words from A to B).
    #[arg(long, value_name = "LIST", value_parser = parse_observables, default_value = "$3")]
    pub observe: ObservableList,
    /// How to print the report.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// More statistics in the text report.
    #[arg(short, long)]
    pub verbose: bool,
    /// How to decide: `concolic` (run both programs on solver-chosen inputs; prove by
    /// enumerating every path), `bmc` (one merged bounded encoding of each program and
    /// one query), or `auto` (concolic first, then bmc if it ended without a verdict).
    #[arg(long, value_enum, value_name = "ENGINE", default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Decide by counts alone, as grade does: solver resource units (see
    /// --solver-work), runs, paths and steps bound the search, and --timeout is only a
    /// safety net, so the verdict is the same on an idle machine and a busy one; a
    /// result that the clock cut says so (`cut_by_wall_clock`). No portfolio (unless
    /// asked for, which is then an error), Z3 in process only. Always on with --task.
    #[arg(long)]
    pub deterministic: bool,
    /// Never split the merged encoding's difference query: by default, when the
    /// solver cannot decide it whole, bmc asks it again in groups of one program's
    /// ends (halved while undecided, down to single ends).
    #[arg(long)]
    pub no_split: bool,
    /// Follow calls to shared procedures as any other code. By default a procedure
    /// that both programs contain word for word (a linked runtime's `print`) and that
    /// passes a check of it alone is compared by its calls: each call on one side is
    /// matched with one on the other, by its arguments (path search only).
    #[arg(long)]
    pub no_shared_calls: bool,
    /// Under a difference, also show where the two runs part (as `tamarin explain`
    /// does), instead of only the command that shows it.
    #[arg(long)]
    pub explain: bool,
    /// Write both programs' path trees as a Graphviz DOT picture to FILE, the
    /// counterexample's path in bold red (path search only: bmc has no paths).
    #[arg(long, value_name = "FILE", value_parser = crate::dot::parse_picture_file)]
    pub tree_dot: Option<PathBuf>,
    /// Write the --tree-dot picture as SVG, rendered by Graphviz's `dot`, instead of DOT.
    #[arg(long, requires = "tree_dot")]
    pub svg: bool,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub functions: super::function::CompareArgs,
}

/// Compares two functions of MIPS32 ELF files (LEFT or RIGHT is one, or --function
/// was given), refusing the options that are CS241's.
fn compare_functions(args: &Args) -> Result<ExitCode, CliError> {
    let given = super::search::given_on_command_line("compare");
    let cs241 = [
        "task",
        "deterministic",
        "no_split",
        "no_shared_calls",
        "explain",
        "tree_dot",
        "frontend",
        "inputs",
        "max_len",
        "array_base",
        "stdin_len",
        "assume_program",
        "init_inputs",
        "out_of_fuel",
        "depth",
        "max_runs",
        "solver",
        "dump_trace",
    ];
    if let Some(flag) = cs241.iter().find(|f| given.contains(**f)) {
        let file = super::program_name(&args.left);
        let what = format!("--{}", flag.replace('_', "-"));
        let what = if *flag == "assume_program" {
            format!("{what} (not available for MIPS32 functions yet)")
        } else {
            what
        };
        return Err(super::function::wrong_kind(&file, true, &what));
    }
    let right = args
        .right
        .as_deref()
        .ok_or_else(|| CliError::Usage("give two ELF files to compare".into()))?;
    let observe = if given.contains("observe") {
        super::function::observed_registers(&args.observe.0)?
    } else {
        vec![tamarin_mips::mips32::abi::V0]
    };
    let fuel = super::function::fuel_steps(&args.search.fuel)?;
    let mut solver = function_solver(&args.search);
    if let Some(dir) = &args.search.dump_smt {
        super::search::prepare_dir(dir, "--dump-smt", args.search.force)?;
        solver.dump_dir = Some(dir.clone());
    }
    super::function::compare(super::function::CompareTask {
        left: &args.left,
        right,
        names: &args.functions,
        observe,
        fuel,
        timeout: (args.search.timeout > 0)
            .then(|| std::time::Duration::from_secs(args.search.timeout)),
        format: args.format,
        assume: &args.search.assume,
        solver,
        engine: args.engine.engine(),
    })
}

/// The solver chain's settings for comparing functions, from the search options.
pub(crate) fn function_solver(search: &SearchArgs) -> tamarin::SolverConfig {
    let mut solver = tamarin::SolverConfig::default();
    solver.timeout = std::time::Duration::from_millis(search.solver_timeout.max(1));
    solver.resource_limit =
        (search.solver_rlimit > 0).then(|| search.solver_rlimit.min(u32::MAX as u64) as u32);
    solver.work_budget = (search.solver_work > 0).then_some(search.solver_work);
    solver.portfolio = if search.portfolio.trim() == "none" {
        Vec::new()
    } else {
        search
            .portfolio
            .split(',')
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty())
            .collect()
    };
    solver
}

pub fn execute(mut args: Args) -> Result<ExitCode, CliError> {
    let elf = super::function::is_elf_file(&args.left)
        || args
            .right
            .as_deref()
            .is_some_and(super::function::is_elf_file);
    if elf || args.functions.function.is_some() {
        return compare_functions(&args);
    }
    let array_base = args.search.array_base.is_some();
    let given = super::search::given_on_command_line("compare");
    let task = args
        .task
        .as_deref()
        .map(tamarin_grade::Task::read)
        .transpose()?;
    // The programs: LEFT RIGHT, or the task's reference and the one program given.
    match (&task, args.right.take()) {
        (None, Some(right)) => args.right = Some(right),
        (None, None) => {
            return Err(CliError::Usage(
                "give two programs to compare (or --task TASK.toml and one program)".into(),
            ))
        }
        (Some(t), None) => {
            let reference = t.reference().ok_or_else(|| {
                CliError::Usage(format!(
                    "the task file {} names no reference: give it as `reference = \"…\"`, or \
                     compare two programs without --task",
                    t.path.display()
                ))
            })?;
            args.right = Some(std::mem::replace(&mut args.left, reference));
        }
        (Some(_), Some(_)) => {
            return Err(CliError::Usage(
                "with --task, give one program: the task's reference is the other".into(),
            ))
        }
    }
    let mut search = args.search.search();
    search.deterministic = args.deterministic;
    search.unbounded = args.functions.unbounded;
    let line = Line {
        search,
        observe: Some(args.observe.0.clone()),
        engine: Some(args.engine.engine()),
    };
    let mut settings = Settings::resolve(
        line,
        task.as_ref(),
        &|id| given.contains(id) || (id == "array_base" && array_base),
        false,
        crate::interrupt::flag(),
    )?;
    if args.functions.certificate.is_some() && !settings.opts.unbounded {
        return Err(super::function::certificate_needs_unbounded());
    }
    settings.opts.certificate = args.functions.certificate.clone();
    super::search::attach_domain_program(&mut settings)?;
    super::search::attach_link(&mut settings)?;
    super::search::attach_procedure_cache(&mut settings);
    let (left_path, right_path) = (args.left.clone(), args.right.clone().unwrap_or_default());
    if args.no_split && settings.engine == Engine::Concolic {
        eprintln!("warning: --no-split applies to the merged encoding only; --engine concolic does not use it");
    }
    super::stdin_once(&[
        ("the left program `-`", super::is_stdin(&left_path)),
        ("the right program `-`", super::is_stdin(&right_path)),
    ])?;
    let format = settings.search.input_format;
    let left = super::load_program(&left_path, format)?;
    let right = super::load_program(&right_path, format)?;
    // `--fuel auto`: LEFT (the task's reference) is the reference.
    super::search::size_fuel(&mut settings, &left, &left_path);
    super::search::warn_overlap(
        &settings.search,
        &[(&left_path, &left), (&right_path, &right)],
    );
    let mut opts = settings.opts.clone();
    opts.bmc_split = !args.no_split;
    opts.shared_calls = !args.no_shared_calls;
    opts.keep_paths = args.tree_dot.is_some();
    // The command's one budget, anchored as its work begins: the task's check and the
    // comparison draw from it (the runs shown after it get their own).
    let started = opts.started();
    super::search::prepare(
        &settings.search,
        &started,
        &[&left, &right],
        &left_path,
        false,
    )?;
    let mut observer = CliObserver::new(args.format == OutputFormat::Text);
    let report = tamarin::compare(&left, &right, &started, &mut observer);
    observer.done();
    let report = report.map_err(|e| CliError::engine(e, &left_path))?;
    super::search::print_warnings(&report.stats);
    if let Some(dest) = &args.tree_dot {
        let (programs, names) = ((&left, &right), (left_path.as_path(), right_path.as_path()));
        crate::dot::write_compare(dest, args.svg, programs, names, &opts, &report)?;
    }
    let hints = match &report.verdict {
        Verdict::Disequivalent(cx) => {
            let (l, r) = (
                left_path.display().to_string(),
                right_path.display().to_string(),
            );
            let mut hints = crate::hint::hints([(&l, &left), (&r, &right)], &opts, cx);
            // A witness with a run out of fuel that ends with a little more fuel.
            let values: Vec<u32> = cx.inputs.iter().map(|&(_, v)| v).collect();
            let sides = [("the right program", &right), ("the left program", &left)];
            hints.extend(
                tamarin_grade::fuel::fuel_warning(sides, &opts, &settings.layout, &values)
                    .map(|w| format!("{} ({})", w.message, w.advice)),
            );
            hints
        }
        _ => Vec::new(),
    };
    let mut out = super::stdout();
    match args.format {
        OutputFormat::Text => write_text(
            &mut out,
            &args,
            &settings,
            &opts,
            &report,
            &hints,
            Some((&left, &right)),
        ),
        OutputFormat::Json => write_json(&mut out, &settings, &opts, &report, &hints),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    Ok(ExitCode::from(match report.verdict {
        Verdict::Equivalent(_) => EXIT_OK,
        Verdict::Disequivalent(_) => EXIT_FOUND,
        Verdict::PossiblyEquivalent(_) => EXIT_INCOMPLETE,
    }))
}

fn write_text(
    out: &mut impl Write,
    args: &Args,
    settings: &Settings,
    opts: &tamarin::Options,
    report: &Report,
    hints: &[String],
    programs: Option<(&tamarin_mips::Program, &tamarin_mips::Program)>,
) -> std::io::Result<()> {
    let search = &settings.search;
    let (left, right) = (
        &args.left,
        args.right.as_deref().unwrap_or(args.left.as_path()),
    );
    let observed: Vec<String> = settings.observe.iter().map(|o| o.to_string()).collect();
    let observed = observed.join(", ");
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            writeln!(
                out,
                "disequivalent: the programs differ on {}",
                inputs_line(&cx.values)
            )?;
            // A difference after many trips took more steps than the fuel: the
            // commands that show it again, and the inline explanation, get enough.
            let search = &*search_showing(search, cx.left.steps.max(cx.right.steps));
            let (l, r) = (super::program_name(left), super::program_name(right));
            let width = l.len().max(r.len());
            for (side, name, o, pick) in [("left ", &l, &cx.left, 0), ("right", &r, &cx.right, 1)] {
                write!(out, "  {side} {name:width$}  {}", status_line(o))?;
                if o.status == Status::Done {
                    let items: Vec<String> = cx
                        .observed
                        .iter()
                        .map(|(n, a, b)| format!("{n} = {}", shown(if pick == 0 { a } else { b })))
                        .collect();
                    write!(out, ", {}", items.join(", "))?;
                }
                writeln!(out)?;
            }
            writeln!(out, "  replay:")?;
            writeln!(out, "    {}", replay_command(search, left, &cx.values))?;
            writeln!(out, "    {}", replay_command(search, right, &cx.values))?;
            let mut explain = explain_command(search, left, right, &cx.values);
            if observed != "$3" {
                explain.push_str(&format!(
                    " --observe {}",
                    shell_word(&observed.replace(' ', ""))
                ));
            }
            writeln!(out, "  why: {explain}")?;
            for hint in hints {
                writeln!(out, "  hint: {hint}")?;
            }
            if args.explain {
                if let Some((l, r)) = programs {
                    let mut config = opts.machine_config();
                    config.fuel = search.fuel;
                    writeln!(out)?;
                    super::explain::write_inline(
                        out,
                        (left, right),
                        (l, r),
                        &super::explain::run_inputs(&cx.values, search.array_base),
                        config,
                        &opts.observe,
                        opts.out_of_fuel,
                    )?;
                }
            }
        }
        Verdict::Equivalent(p) => {
            let inputs = match search.frontend {
                Frontend::Array => format!("arrays of up to {}", count(search.max_len, "word")),
                Frontend::Twoints => format!("inputs {}", report.input_names.join(", ")),
            };
            let stdin = if search.stdin_len > 0 {
                format!(" and {} of standard input", count(search.stdin_len, "byte"))
            } else {
                String::new()
            };
            let claim = match opts.out_of_fuel {
                FuelPolicy::Same => format!(
                    "every run of either program that ends within {} agrees on {observed}",
                    count(p.fuel, "step")
                ),
                FuelPolicy::Different => format!(
                    "either both programs end within {} and agree on {observed}, or neither does",
                    count(p.fuel, "step")
                ),
            };
            match &p.unbounded {
                None => {
                    writeln!(
                        out,
                        "equivalent: for all {inputs}{stdin}{}, {claim}",
                        assumed(&opts.assume)
                    )?;
                    writeln!(out, "  {}", how_proved(p, &report.stats.solver_name))?;
                    if let Some(note) = fuel_note(p, opts.out_of_fuel) {
                        writeln!(out, "  {note}")?;
                    }
                }
                Some(u) => write!(
                    out,
                    "{}",
                    super::function::unbounded_claim(
                        u,
                        &format!(
                            "{}{}",
                            inputs
                                .replacen("inputs", "input", 1)
                                .replacen("arrays", "array", 1),
                            assumed(&opts.assume)
                        ),
                        &observed,
                    )
                )?,
            }
            if let Some(u) = &p.unbounded {
                if let Some(c) = &u.certificate_files {
                    writeln!(
                        out,
                        "  certificate: {} ({})",
                        c.dir.display(),
                        count(c.checks as u64, "check")
                    )?;
                }
                if u.method == "paths" {
                    writeln!(out, "  {}", how_proved(p, &report.stats.solver_name))?;
                }
            }
            for note in report.notes() {
                writeln!(out, "  note: {}", note_text(note))?;
            }
        }
        Verdict::PossiblyEquivalent(reasons) => {
            writeln!(
                out,
                "possibly-equivalent: no difference found, but the search was incomplete:"
            )?;
            for r in reasons {
                writeln!(
                    out,
                    "  - {}",
                    reason_text(r, Searcher::Compare(opts.engine))
                )?;
            }
            let (l, r) = report.stats.out_of_fuel_paths;
            if l + r > 0 {
                // Paths that spin to the fuel make every limit bite sooner: often the
                // real cause when a correct program is not proved.
                writeln!(
                    out,
                    "  note: {} of the left and {} of the right program ran out of fuel at {}; if the task's runs are shorter, lower --fuel",
                    count(l, "path"),
                    count(r, "path"),
                    count(search.fuel, "step")
                )?;
            }
            for note in report.notes() {
                writeln!(out, "  note: {}", note_text(note))?;
            }
        }
    }
    let s = &report.stats;
    writeln!(
        out,
        "stats: {}, paths {} left / {} right, {} in {:.1} ms, total {:.1} ms",
        count(s.runs, "run"),
        s.paths.0,
        s.paths.1,
        count(s.solver.queries, "solver query"),
        ms(s.solver.time),
        ms(s.total)
    )?;
    if args.verbose {
        writeln!(
            out,
            "  solver: {}; {} sat, {} unsat, {} unknown, {} answered from cache",
            s.solver_name, s.solver.sat, s.solver.unsat, s.solver.unknown, s.solver.cache_hits
        )?;
        writeln!(
            out,
            "  {}, {} (runs off the predicted path), {} explored, {} too long to trace",
            count(s.difference_queries, "difference query"),
            count(s.restarts, "restart"),
            count(s.jump_targets, "jump target"),
            count(s.partial_runs, "run")
        )?;
        if s.split_queries > 0 {
            writeln!(
                out,
                "  the merged encoding's difference was too hard whole: asked again in {} of ends",
                count(s.split_queries, "group")
            )?;
        }
    }
    Ok(())
}

/// ` that satisfy `A` and `B`` for preconditions, or nothing.
pub fn assumed(preconditions: &[tamarin::Precondition]) -> String {
    if preconditions.is_empty() {
        return String::new();
    }
    let list: Vec<String> = preconditions.iter().map(|p| format!("`{p}`")).collect();
    format!(" that satisfy {}", list.join(" and "))
}

/// What a proof says about runs out of fuel, in words.
fn fuel_note(p: &Proof, policy: FuelPolicy) -> Option<String> {
    let (l, r) = p.out_of_fuel;
    let fuel = count(p.fuel, "step");
    match (policy, p.engine) {
        (FuelPolicy::Same, Engine::Concolic) if l + r == 0 => {
            Some(format!("every path of both programs ends within {fuel}"))
        }
        (FuelPolicy::Same, Engine::Concolic) => Some(format!(
            "note: {} of the left and {} of the right program do not end within {fuel}; \
             a run out of fuel is never a difference (--out-of-fuel same)",
            count(l, "path"),
            count(r, "path")
        )),
        (FuelPolicy::Same, _) if l + r > 0 => Some(format!(
            "note: {} of the left and {} of the right encoding ran out of fuel at {fuel}; \
             a run out of fuel is never a difference (--out-of-fuel same)",
            count(l, "state"),
            count(r, "state")
        )),
        (FuelPolicy::Different, Engine::Concolic) if l + r > 0 => Some(format!(
            "{} of the left and {} of the right program run out of fuel, on the same inputs",
            count(l, "path"),
            count(r, "path")
        )),
        _ => None,
    }
}

/// How a proof was obtained, in one line.
fn how_proved(p: &Proof, solver: &str) -> String {
    let queries = count(p.queries, "query");
    match &p.encoding {
        Some((l, r)) => format!(
            "proved by bounded model checking: both programs unrolled up to the fuel into one merged encoding each ({} and {} symbolic steps, {} and {} merges, {} and {} ends), {queries} ({solver})",
            l.steps, r.steps, l.merges, r.merges, l.ends, r.ends
        ),
        None => format!(
            "proved by enumerating every path ({} left, {} right) and {queries} ({solver})",
            p.paths.0, p.paths.1
        ),
    }
}

fn write_json(
    out: &mut impl Write,
    settings: &Settings,
    opts: &tamarin::Options,
    report: &Report,
    hints: &[String],
) -> std::io::Result<()> {
    let mut json = crate::json::CompareReport::new(report, opts);
    json.hints = hints.to_vec();
    json.task.fuel_auto = settings.fuel_sizing.clone();
    serde_json::to_writer(&mut *out, &json)?;
    writeln!(out)
}
