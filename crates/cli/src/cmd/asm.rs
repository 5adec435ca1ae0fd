//! `tamarin asm IN [-o OUT]`: assembles a program to its binary image, or to a MERL
//! module when OUT ends in `.merl` (or with `--merl`).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin_mips::loader::{self, InputFormat};
use tamarin_mips::{merl, LoadError, Module};

use crate::args::InputFormatOpt;
use crate::diag::CliError;

/// Assemble a program into a binary image (big-endian words), or a MERL module.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program to assemble (.asm or .s; a binary .mips/.bin is copied as is, a .merl
    /// module read; `-`: standard input, read as assembly unless --input-format says
    /// otherwise).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Where to write the result; `-` or absent: standard output, which is refused when
    /// it is a terminal unless `-o -` is given. A name ending in .merl gets MERL.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Write MERL (CS241's relocatable format: the code with a relocation for every
    /// `.word` of a label, an ESD for every `.export` and an ESR for every use of an
    /// `.import`), whatever OUT's name. Without it, MERL only when OUT ends in .merl;
    /// otherwise the binary image, which needs every import resolved (see --link).
    #[arg(long)]
    pub merl: bool,
    #[command(flatten)]
    pub format: InputFormatOpt,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    refuse_terminal(args.output.as_deref())?;
    let mut modules = vec![read_module(&args.input, args.format.format())?.0];
    for m in super::read_link_modules(&args.format.link)? {
        modules.push(loader::parse_module(&m.name, &m.bytes, m.format)?);
    }
    let module = link(modules)?;
    let merl = args.merl || args.output.as_deref().is_some_and(is_merl_name);
    let bytes = if merl {
        merl::write(&module)
    } else {
        let program = module.into_program().map_err(LoadError::from)?;
        loader::to_binary(program.words())
    };
    write_output(args.output.as_deref(), &bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// Links modules (one alone is itself), an error naming a label exported twice.
pub fn link(modules: Vec<Module>) -> Result<Module, CliError> {
    Ok(tamarin_mips::link(modules).map_err(LoadError::from)?)
}

/// Reads a program file as a module: assembly with its imports and exports, MERL, or
/// a binary image (no table).
pub fn read_module(
    path: &Path,
    format: Option<InputFormat>,
) -> Result<(Module, InputFormat), CliError> {
    let name = super::program_name(path);
    let (bytes, format) = super::read_program_bytes(path, format)?;
    if format == InputFormat::Asm {
        // Reported with its line and column, as every command does.
        super::parse_bytes_checked_text(&name, &bytes)?;
    }
    Ok((loader::parse_module(&name, &bytes, format)?, format))
}

/// Whether an output name asks for MERL (`.merl`, in any case).
pub fn is_merl_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("merl"))
}

/// Refuses to write binary output to a terminal unless `-o -` asks for it.
pub fn refuse_terminal(output: Option<&Path>) -> Result<(), CliError> {
    if output.is_none() && std::io::stdout().is_terminal() {
        return Err(CliError::Usage(
            "refusing to write a binary image to a terminal; give -o FILE, redirect \
             standard output (> prog.mips), or -o - to write it here anyway"
                .into(),
        ));
    }
    Ok(())
}

/// Writes `bytes` to `output`, or to standard output when it is absent or `-`.
pub fn write_output(output: Option<&Path>, bytes: &[u8]) -> Result<(), CliError> {
    match output.filter(|p| !super::is_stdin(p)) {
        Some(path) => std::fs::write(path, bytes).map_err(|source| CliError::Write {
            path: path.display().to_string(),
            source,
        })?,
        None => {
            let mut out = super::stdout();
            out.write_all(bytes).map_err(CliError::stdout)?;
            super::finish(out)?;
        }
    }
    Ok(())
}
