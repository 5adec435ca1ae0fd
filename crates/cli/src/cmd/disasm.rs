//! `tamarin disasm IN`: prints a program as assembly text that reassembles to the
//! same words.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin_mips::disasm;

use crate::args::InputFormatOpt;
use crate::diag::CliError;

/// Disassemble a program to standard output (a CS241 program as assembly that
/// reassembles to the same words; a MIPS32 ELF file's functions as a listing).
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program (.mips or .bin binary, or .asm/.s assembly; `-`: standard input, read
    /// as assembly unless --input-format bin).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    #[command(flatten)]
    pub format: InputFormatOpt,
    /// For a MIPS32 ELF file: list only this function (by default, every one).
    #[arg(long, value_name = "NAME")]
    pub function: Option<String>,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    if super::function::is_elf_file(&args.input) {
        if !args.format.link.is_empty() || args.format.input_format.is_some() {
            let file = super::program_name(&args.input);
            return Err(super::function::wrong_kind(
                &file,
                true,
                "--link/--input-format",
            ));
        }
        return super::function::disasm(&args.input, args.function.as_deref());
    }
    if args.function.is_some() {
        let file = super::program_name(&args.input);
        return Err(super::function::wrong_kind(&file, false, "--function"));
    }
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
