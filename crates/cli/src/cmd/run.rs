//! `tamarin run PROG`: runs a program once on given inputs and reports the result.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin_mips::cpu;
use tamarin_mips::{Config, Outcome, Program, Status, Stop};

use crate::args::{parse_count, FrontendArgs, InputFormatOpt, OutputFormat, TerminationOpt};
use crate::diag::CliError;

/// The default step limit of `run`.
pub const DEFAULT_FUEL: u64 = 100_000_000;

/// Run a program once and print its status, registers and output.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program (.asm/.s assembly or .mips/.bin binary).
    #[arg(value_name = "PROG")]
    pub program: PathBuf,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// The most instructions to execute before giving up (out of fuel).
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = DEFAULT_FUEL)]
    pub fuel: u64,
    /// A file whose bytes the program reads from 0xFFFF0004 (`-`: this tool's stdin);
    /// by default the program's input is empty.
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
    /// How to print the report.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    #[command(flatten)]
    pub input_format: InputFormatOpt,
    #[command(flatten)]
    pub termination: TerminationOpt,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    let program = super::load_program(&args.program, args.input_format.format())?;
    let input = match &args.stdin {
        Some(path) => super::read_data("the input file", path, args.fuel)?,
        None => Vec::new(),
    };
    let mut config = Config::with_fuel(args.fuel);
    config.termination = args.termination.termination;
    config.stop = Stop::default().with_flag(crate::interrupt::flag());
    let mut machine = cpu::Machine::new(&program, config);
    machine.apply(&args.frontend.frontend())?;
    for &(r, v) in &args.frontend.regs {
        machine.set_reg(r, v);
    }
    machine.set_input(std::sync::Arc::from(input));
    let outcome = machine.run_to_outcome(&mut tamarin_mips::NoTrace);
    let mut out = super::stdout();
    match args.format {
        OutputFormat::Text => {
            let name = args.program.display().to_string();
            write_text(&mut out, &outcome, Some((&name, &program)))
        }
        OutputFormat::Json => write_json(&mut out, &outcome),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    Ok(ExitCode::SUCCESS)
}

/// `-7 (0xfffffff9)`.
fn value(v: u32) -> String {
    format!("{} ({v:#010x})", v as i32)
}

/// The status line's words: `done after 2 steps`,
/// `error (division-by-zero at pc 0x00000008: …) after 3 steps`.
pub fn status_text(outcome: &Outcome) -> String {
    let steps = outcome.steps;
    let s = if steps == 1 { "" } else { "s" };
    match outcome.status {
        Status::Error(f) => format!(
            "error ({} at pc {:#010x}: {f}) after {steps} step{s}",
            f.kind, f.pc
        ),
        other => format!("{} after {steps} step{s}", other.name()),
    }
}

/// Writes the report for people. `source` (the file name and the program) adds the
/// source line of a failing instruction of an assembled program.
pub fn write_text(
    w: &mut dyn Write,
    outcome: &Outcome,
    source: Option<(&str, &Program)>,
) -> io::Result<()> {
    writeln!(w, "status: {}", status_text(outcome))?;
    if let (Status::Error(f), Some((name, program))) = (outcome.status, source) {
        if let Some(line) = program.line_of(f.pc) {
            writeln!(w, "at: {name}:{line}")?;
        }
    }
    let regs = &outcome.regs;
    writeln!(w, "$3 = {}", value(regs.gpr[3]))?;
    let others: Vec<(String, u32)> = (1..32)
        .filter(|&r| r != 3)
        .map(|r| (format!("${r}"), regs.gpr[r]))
        .chain([("hi".to_string(), regs.hi), ("lo".to_string(), regs.lo)])
        .filter(|&(_, v)| v != 0)
        .collect();
    if !others.is_empty() {
        writeln!(w, "other non-zero registers:")?;
        for (name, v) in others {
            writeln!(w, "  {name} = {}", value(v))?;
        }
    }
    if !outcome.output.is_empty() {
        let n = outcome.output.len();
        writeln!(w, "output ({n} byte{}):", if n == 1 { "" } else { "s" })?;
        let text = String::from_utf8_lossy(&outcome.output);
        w.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            writeln!(w)?;
        }
    }
    Ok(())
}

/// Writes the report as exactly one JSON object and a newline.
pub fn write_json(w: &mut dyn Write, outcome: &Outcome) -> io::Result<()> {
    serde_json::to_writer(&mut *w, &crate::json::RunReport::new(outcome))?;
    writeln!(w)
}
