//! `tamarin disasm IN`: prints a program as assembly text that reassembles to the
//! same words.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin_mips::disasm;

use crate::args::InputFormatOpt;
use crate::diag::CliError;

/// Disassemble a program to standard output.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program (.mips or .bin binary, or .asm/.s assembly; `-`: standard input, read
    /// as assembly unless --input-format bin).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    #[command(flatten)]
    pub format: InputFormatOpt,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    super::set_link(&args.format.link)?;
    let program = super::load_program(&args.input, args.format.format())?;
    let text = disasm::disassemble(program.words());
    let mut out = super::stdout();
    out.write_all(text.as_bytes()).map_err(CliError::stdout)?;
    if !text.is_empty() && !text.ends_with('\n') {
        writeln!(out).map_err(CliError::stdout)?;
    }
    super::finish(out)?;
    Ok(ExitCode::SUCCESS)
}
