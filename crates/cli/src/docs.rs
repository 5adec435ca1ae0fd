//! `tamarin completions SHELL` and `tamarin man`: the shell completion scripts and
//! the manual pages, made from the command-line definition itself so that they never
//! fall behind it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args as ClapArgs, CommandFactory};
use clap_complete::Shell;

use crate::diag::CliError;

/// Print a shell completion script on standard output (for example
/// `tamarin completions bash > ~/.local/share/bash-completion/completions/tamarin`).
#[derive(Debug, ClapArgs)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// Print the manual page (roff) on standard output, or write one page for the tool
/// and one for each subcommand into a directory (`man -l tamarin.1` shows one).
#[derive(Debug, ClapArgs)]
pub struct ManArgs {
    /// Write tamarin.1, tamarin-compare.1, … into this directory (created if new)
    /// instead of printing the tool's page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn completions(args: CompletionsArgs) -> Result<ExitCode, CliError> {
    let mut out = crate::cmd::stdout();
    let mut command = crate::Cli::command();
    clap_complete::generate(args.shell, &mut command, "tamarin", &mut out);
    crate::cmd::finish(out)?;
    Ok(ExitCode::SUCCESS)
}

pub fn man(args: ManArgs) -> Result<ExitCode, CliError> {
    let command = crate::Cli::command();
    match &args.dir {
        Some(dir) => {
            let fail = |source| CliError::Write {
                path: dir.display().to_string(),
                source,
            };
            std::fs::create_dir_all(dir).map_err(fail)?;
            clap_mangen::generate_to(command, dir).map_err(fail)?;
        }
        None => {
            let mut out = crate::cmd::stdout();
            clap_mangen::Man::new(command)
                .render(&mut out)
                .map_err(CliError::stdout)?;
            crate::cmd::finish(out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
