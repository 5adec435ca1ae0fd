//! `tamarin paths PROG`: one input per feasible path, with its result and conditions.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin::{explore, Exploration};
use tamarin_mips::Status;

use super::search::{
    inputs_line, ms, replay_command, status_line, CliObserver, SearchArgs, Searcher,
};
use crate::args::{parse_count, OutputFormat};
use crate::diag::{CliError, EXIT_INCOMPLETE, EXIT_OK};
use crate::json::{Inputs, PathResult, PathsReport, TestCase};
use crate::words::count;

/// List one input for every path through a program (within the fuel and depth), each
/// replayed, with its status, `$3` (or error and pc) and its path conditions.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program (.asm/.s assembly or .mips/.bin binary; `-`: standard input, read
    /// as assembly unless --input-format bin).
    #[arg(value_name = "PROG")]
    pub program: PathBuf,
    /// Stop after this many paths.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true)]
    pub max_paths: Option<u64>,
    /// Write each path as a replayable test case (the `tamarin run` command line and
    /// the expected result) into this directory, as case-NNN.json.
    #[arg(long, value_name = "DIR")]
    pub emit_tests: Option<PathBuf>,
    /// How to print the report.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Write the path tree as a Graphviz DOT picture to FILE (`-`: standard output, in
    /// place of the report): one edge per branch condition, one leaf per path with its
    /// result.
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Write the picture as SVG, rendered by Graphviz's `dot` program, instead of DOT.
    #[arg(long, requires = "dot")]
    pub svg: bool,
    /// A task file (as `grade --task` takes it): its settings apply, options on the
    /// command line winning over them (its reference is not used).
    #[arg(long, value_name = "FILE")]
    pub task: Option<PathBuf>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// The settings, resolved from the task file and the command line.
    #[arg(skip)]
    pub settings: tamarin_grade::Search,
}

pub fn execute(mut args: Args) -> Result<ExitCode, CliError> {
    let line = tamarin_grade::Line {
        search: args.search.search(),
        ..Default::default()
    };
    let (settings, _) = super::search::resolve("paths", line, args.task.as_deref(), false)?;
    args.settings = settings.search.clone();
    let program = super::load_program(&args.program, args.settings.input_format)?;
    super::search::warn_overlap(&args.settings, &[(&args.program, &program)]);
    let mut opts = settings.opts.clone();
    opts.max_paths = args.max_paths;
    // The command's one budget, anchored as its work begins.
    let opts = opts.started();
    super::search::prepare(
        &args.settings,
        &opts,
        &[&program],
        &args.program,
        args.emit_tests.is_some(),
    )?;
    if let Some(dir) = &args.emit_tests {
        super::search::prepare_dir(dir, "--emit-tests", args.settings.force)?;
    }
    let mut observer = CliObserver::new(args.format == OutputFormat::Text);
    let e = explore(&program, &opts, &mut observer);
    observer.done();
    let e = e.map_err(|e| CliError::engine(e, &args.program))?;
    super::search::print_warnings(&e.stats);
    if let Some(dir) = &args.emit_tests {
        emit_tests(dir, &args, &e)?;
    }
    if let Some(dest) = &args.dot {
        let title = args.program.display().to_string();
        crate::dot::write_picture(dest, &crate::dot::paths_dot(&title, &e.paths), args.svg)?;
    }
    let mut out = super::stdout();
    match args.format {
        _ if args.dot.as_deref() == Some(Path::new("-")) => Ok(()),
        OutputFormat::Text => write_text(&mut out, &args, &e),
        OutputFormat::Json => write_json(&mut out, &e),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    Ok(ExitCode::from(if e.incomplete.is_empty() {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    }))
}

fn emit_tests(dir: &Path, args: &Args, e: &Exploration) -> Result<(), CliError> {
    for (k, p) in e.paths.iter().enumerate() {
        let case = TestCase {
            command: replay_command(&args.settings, &args.program, &p.values),
            inputs: Inputs::new(&p.values),
            expected: PathResult::new(p),
            conditions: p.conditions.clone(),
        };
        let path = dir.join(format!("case-{:03}.json", k + 1));
        let text = serde_json::to_string_pretty(&case).unwrap_or_default();
        std::fs::write(&path, text + "\n").map_err(|source| CliError::Write {
            path: path.display().to_string(),
            source,
        })?;
    }
    Ok(())
}

fn write_text(out: &mut impl Write, args: &Args, e: &Exploration) -> std::io::Result<()> {
    for (k, p) in e.paths.iter().enumerate() {
        write!(out, "path {}: {}", k + 1, status_line(&p.outcome))?;
        if p.outcome.status == Status::Done {
            write!(
                out,
                ", $3 = {}",
                super::search::word(p.outcome.regs.result())
            )?;
        }
        writeln!(out)?;
        writeln!(out, "  inputs: {}", inputs_line(&p.values))?;
        if p.conditions.is_empty() {
            writeln!(out, "  conditions: none (every input takes this path)")?;
        } else {
            writeln!(out, "  conditions: {}", p.conditions.join(", "))?;
        }
        if p.partial {
            writeln!(
                out,
                "  (too long to trace to the end: the conditions are a prefix)"
            )?;
        }
        writeln!(
            out,
            "  replay: {}",
            replay_command(&args.settings, &args.program, &p.values)
        )?;
    }
    super::search::write_completeness(
        out,
        &e.incomplete,
        &format!(
            "every path within {} steps and {} conditions is listed",
            args.settings.fuel, args.settings.depth
        ),
        Searcher::Paths,
    )?;
    let s = &e.stats;
    writeln!(
        out,
        "stats: {}, {}, {} in {:.1} ms, total {:.1} ms",
        count(s.paths.0, "path"),
        count(s.runs, "run"),
        count(s.solver.queries, "solver query"),
        ms(s.solver.time),
        ms(s.total)
    )
}

fn write_json(out: &mut impl Write, e: &Exploration) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, &PathsReport::new(e))?;
    writeln!(out)
}
