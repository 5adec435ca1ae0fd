//! `tamarin asm IN [-o OUT]`: assembles a program to its binary image.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin_mips::loader;

use crate::args::InputFormatOpt;
use crate::diag::CliError;

/// Assemble a program into a binary image (big-endian words).
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program to assemble (.asm or .s; a binary .mips/.bin is copied as is; `-`: standard input, read
    /// as assembly unless --input-format bin).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Where to write the binary; `-` or absent: standard output, which is refused when
    /// it is a terminal unless `-o -` is given.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub format: InputFormatOpt,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    if args.output.is_none() && std::io::stdout().is_terminal() {
        return Err(CliError::Usage(
            "refusing to write a binary image to a terminal; give -o FILE, redirect \
             standard output (> prog.mips), or -o - to write it here anyway"
                .into(),
        ));
    }
    let program = super::load_program(&args.input, args.format.format())?;
    let bytes = loader::to_binary(program.words());
    match args.output.as_deref().filter(|p| !super::is_stdin(p)) {
        Some(path) => std::fs::write(path, &bytes).map_err(|source| CliError::Write {
            path: path.display().to_string(),
            source,
        })?,
        None => {
            // Standard output: absent (not a terminal) or `-o -`.
            let mut out = super::stdout();
            out.write_all(&bytes).map_err(CliError::stdout)?;
            super::finish(out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
