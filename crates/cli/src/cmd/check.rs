//! `tamarin check PROG`: finds inputs that make one program fail.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin::{check, CheckReport};
use tamarin_mips::Program;

use super::search::{ms, replay_command, source_line, CliObserver, SearchArgs, Searcher};
use crate::args::OutputFormat;
use crate::diag::{CliError, EXIT_FOUND, EXIT_INCOMPLETE, EXIT_OK};
use crate::words::count;

/// Find inputs that make a program fail: division by zero, unaligned or out-of-range
/// memory access, a jump or fall-through to a bad address, a word that is not an
/// instruction. Each failing site is reported once, with the first inputs found, after
/// replaying them.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program (.asm/.s assembly or .mips/.bin binary; `-`: standard input, read
    /// as assembly unless --input-format bin).
    #[arg(value_name = "PROG")]
    pub program: PathBuf,
    /// Also list the paths whose runs do not end within the fuel.
    #[arg(long)]
    pub report_fuel: bool,
    /// How to print the report.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
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
    let (settings, _) = super::search::resolve("check", line, args.task.as_deref(), false)?;
    args.settings = settings.search.clone();
    let (bytes, _, program) = super::read_program(&args.program, args.settings.input_format)?;
    // The text as read (a program from stdin cannot be read again).
    let source = String::from_utf8(bytes).ok();
    super::search::warn_overlap(&args.settings, &[(&args.program, &program)]);
    // The command's one budget, anchored as its work begins.
    let opts = settings.opts.clone().started();
    super::search::prepare(&args.settings, &opts, &[&program], &args.program, false)?;
    let mut observer = CliObserver::new(args.format == OutputFormat::Text);
    let report = check(&program, &opts, &mut observer);
    observer.done();
    let report = report.map_err(|e| CliError::engine(e, &args.program))?;
    super::search::print_warnings(&report.exploration.stats);
    let mut out = super::stdout();
    match args.format {
        OutputFormat::Text => write_text(&mut out, &args, &program, source.as_deref(), &report),
        OutputFormat::Json => write_json(&mut out, &args, &program, &report),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    Ok(ExitCode::from(if !report.findings.is_empty() {
        EXIT_FOUND
    } else if report.incomplete().is_empty() {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    }))
}

fn write_text(
    out: &mut impl Write,
    args: &Args,
    program: &Program,
    source: Option<&str>,
    report: &CheckReport,
) -> std::io::Result<()> {
    let name = super::program_name(&args.program);
    if report.findings.is_empty() {
        writeln!(out, "no failure found")?;
    }
    for f in &report.findings {
        match f.kind {
            // A fault's message says where it happened.
            tamarin::FindingKind::Fault(_) => writeln!(out, "{}: {}", f.kind, f.message)?,
            tamarin::FindingKind::OutOfFuel => {
                writeln!(out, "{}: pc {:#010x}: {}", f.kind, f.pc, f.message)?
            }
        }
        if let Some((line, text)) = source_line(program, source, f.pc) {
            writeln!(out, "  at {name}:{line}: {}", text.trim())?;
        }
        writeln!(out, "  inputs: {}", super::search::inputs_line(&f.values))?;
        writeln!(
            out,
            "  replay: {}",
            replay_command(&args.settings, &args.program, &f.values)
        )?;
    }
    if args.report_fuel {
        for p in &report.out_of_fuel {
            writeln!(
                out,
                "out of fuel: no end within {} on {}",
                count(args.settings.fuel, "step"),
                super::search::inputs_line(&p.values)
            )?;
        }
    }
    super::search::write_completeness(
        out,
        report.incomplete(),
        &format!(
            "every path within {} steps and {} conditions was explored",
            args.settings.fuel, args.settings.depth
        ),
        Searcher::Check,
    )?;
    let s = &report.exploration.stats;
    writeln!(
        out,
        "stats: {}, {}, {}, {} in {:.1} ms, total {:.1} ms",
        count(report.findings.len() as u64, "finding"),
        count(s.paths.0, "path"),
        count(s.runs, "run"),
        count(s.solver.queries, "solver query"),
        ms(s.solver.time),
        ms(s.total)
    )
}

fn write_json(
    out: &mut impl Write,
    args: &Args,
    program: &Program,
    report: &CheckReport,
) -> std::io::Result<()> {
    let json = crate::json::CheckReport::new(program, report, args.report_fuel);
    serde_json::to_writer(&mut *out, &json)?;
    writeln!(out)
}
