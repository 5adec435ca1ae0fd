//! `tamarin`: tells whether two CS241 MIPS programs compute the same function, and
//! the tools around that (assembler, disassembler, emulator).
//!
//! This binary is a thin layer over the `tamarin-mips` and `tamarin` libraries: it
//! parses arguments, calls the library and prints. Exit statuses are diff(1)'s plus
//! one, the same in every command (see `diag::EXIT_HELP`).
//!
//! To add a subcommand: write `cmd/NAME.rs` with an `Args` struct (clap derive; its doc
//! comment is the command's help) and `pub fn execute(args: Args) -> Result<ExitCode,
//! CliError>`, declare it in `cmd/mod.rs`, and add one variant to [`Command`] and one
//! arm to the `match` in [`main`].

mod args;
mod cmd;
mod diag;
mod docs;
mod dot;
mod hint;
mod interrupt;

use tamarin_grade::{json, words};

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Tells whether two CS241 MIPS programs compute the same function.
#[derive(Debug, Parser)]
#[command(name = "tamarin", version, about, propagate_version = true, after_help = diag::EXIT_HELP)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    #[command(after_help = diag::EXIT_HELP)]
    Asm(cmd::asm::Args),
    #[command(after_help = diag::EXIT_HELP)]
    Link(cmd::link::Args),
    #[command(after_help = diag::EXIT_HELP)]
    Disasm(cmd::disasm::Args),
    #[command(after_help = diag::EXIT_HELP)]
    Run(cmd::run::Args),
    #[command(after_help = diag::EXIT_HELP)]
    Compare(cmd::compare::Args),
    #[command(after_help = diag::EXIT_HELP)]
    Check(cmd::check::Args),
    #[command(after_help = diag::EXIT_HELP)]
    Paths(cmd::paths::Args),
    #[command(after_help = diag::EXIT_HELP)]
    Explain(cmd::explain::Args),
    #[command(after_help = cmd::grade::GRADE_EXIT_HELP)]
    Grade(Box<cmd::grade::Args>),
    Completions(docs::CompletionsArgs),
    Man(docs::ManArgs),
}

fn main() -> ExitCode {
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = diag::wants_json(&raw);
    let cli = match Cli::try_parse_from(&raw) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let usage = !matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            );
            if json && usage {
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or("bad usage");
                let message = first.strip_prefix("error: ").unwrap_or(first);
                diag::print_json_error(&json::ErrorReport::usage(message));
            }
            e.exit();
        }
    };
    let result = match cli.command {
        Command::Asm(args) => cmd::asm::execute(args),
        Command::Link(args) => cmd::link::execute(args),
        Command::Disasm(args) => cmd::disasm::execute(args),
        Command::Run(args) => cmd::run::execute(args),
        Command::Compare(args) => cmd::compare::execute(args),
        Command::Check(args) => cmd::check::execute(args),
        Command::Paths(args) => cmd::paths::execute(args),
        Command::Explain(args) => cmd::explain::execute(args),
        Command::Grade(args) => cmd::grade::execute(*args),
        Command::Completions(args) => docs::completions(args),
        Command::Man(args) => docs::man(args),
    };
    let status = result.unwrap_or_else(|e| {
        if json && !matches!(&e, diag::CliError::Stdout(_)) {
            diag::print_json_error(&e.to_json());
        }
        e.report()
    });
    if interrupt::raised() {
        // The report of what was done before Ctrl-C is out; say how it ended.
        return ExitCode::from(diag::EXIT_INTERRUPTED);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
