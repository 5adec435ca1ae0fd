//! `tamarin link A B … [-o OUT]`: links modules as `cs241.linker` does.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin_mips::{loader, merl, LoadError};

use crate::args::InputFormatArg;
use crate::diag::CliError;

/// Link modules (.asm or .merl) into one MERL file, or a runnable binary image.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The modules, in order: the first one's code comes first (it is where a run
    /// starts), each other's after it, relocated. Imports are resolved against the
    /// exports; a label exported twice is an error.
    #[arg(value_name = "MODULE", required = true)]
    pub modules: Vec<PathBuf>,
    /// Where to write the result; `-` or absent: standard output, which is refused when
    /// it is a terminal unless `-o -` is given. MERL (keeping the relocations, the
    /// exports and the imports still unresolved), unless the name ends in .mips or
    /// .bin: then the binary image, which needs every import resolved.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// How to read the modules; by default from each one's extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    super::asm::refuse_terminal(args.output.as_deref())?;
    super::stdin_once(
        &args
            .modules
            .iter()
            .map(|p| ("a module `-`", super::is_stdin(p)))
            .collect::<Vec<_>>(),
    )?;
    let format = args.input_format.map(Into::into);
    let mut modules = Vec::with_capacity(args.modules.len());
    for (n, path) in args.modules.iter().enumerate() {
        let (m, f) = super::asm::read_module(path, format)?;
        // A binary image has no table: it can only come first, where nothing moves.
        if n > 0 && f == loader::InputFormat::Bin {
            return Err(LoadError::NotLinkable {
                path: super::program_name(path),
            }
            .into());
        }
        modules.push(m);
    }
    let module = super::asm::link(modules)?;
    let binary = args
        .output
        .as_deref()
        .is_some_and(|p| loader::InputFormat::from_path(p) == Some(loader::InputFormat::Bin));
    let bytes = if binary {
        let program = module.into_program().map_err(LoadError::from)?;
        loader::to_binary(program.words())
    } else {
        merl::write(&module)
    };
    super::asm::write_output(args.output.as_deref(), &bytes)?;
    Ok(ExitCode::SUCCESS)
}
