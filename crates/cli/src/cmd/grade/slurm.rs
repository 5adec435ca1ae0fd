//! `tamarin grade --slurm N`: its options; the job scripts are written and submitted
//! by `tamarin_grade::slurm`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin_grade::run::RunRecord;
use tamarin_grade::shard::MAX_SHARDS;
use tamarin_grade::slurm::Plan;
use tamarin_grade::Settings;

use super::Args;
use crate::diag::{CliError, EXIT_OK};

/// Options of `grade --slurm`.
#[derive(Debug, ClapArgs)]
pub struct SlurmArgs {
    /// Grade on a Slurm cluster in N shards: write an array job (one `tamarin grade
    /// --shard K/N` per task) and a merge job that runs after it into --slurm-dir, and
    /// submit both with sbatch. Each task's --time and --mem are derived from its
    /// share of the class, --timeout and --jobs (1 by default here).
    #[arg(long = "slurm", value_name = "N", value_parser = parse_count,
          conflicts_with_all = ["store", "html"])]
    pub count: Option<usize>,
    /// The folder of the job scripts, the shards' stores, the logs and the merged
    /// report (report.txt, report.json, html/index.html).
    #[arg(
        long,
        value_name = "DIR",
        default_value = "tamarin-slurm",
        requires = "count"
    )]
    pub slurm_dir: PathBuf,
    /// An option for sbatch, written into both job scripts (repeatable), e.g.
    /// --sbatch-arg=--partition=short --sbatch-arg=--account=cs241. It comes after
    /// the derived ones, so --sbatch-arg=--time=2:00:00 wins over the derived limit.
    #[arg(
        long,
        value_name = "OPTION",
        allow_hyphen_values = true,
        requires = "count"
    )]
    pub sbatch_arg: Vec<String>,
    /// Write the job scripts and print the sbatch commands that submit them, without
    /// submitting.
    #[arg(long, requires = "count")]
    pub no_submit: bool,
}

fn parse_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_SHARDS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of shards from 1 to {MAX_SHARDS}"
        )),
    }
}

/// Writes the job scripts into `--slurm-dir` and submits them.
pub fn submit(
    args: &Args,
    argv: &[String],
    run: &RunRecord,
    settings: &Settings,
) -> Result<ExitCode, CliError> {
    let tamarin = std::env::current_exe().map_err(|source| CliError::Read {
        what: "the path of",
        path: "tamarin".into(),
        source,
    })?;
    let plan = Plan {
        dir: &args.slurm.slurm_dir,
        sbatch_args: &args.slurm.sbatch_arg,
        no_submit: args.slurm.no_submit,
        jobs: args.jobs,
    };
    let mut out = std::io::stdout().lock();
    tamarin_grade::slurm::submit(&plan, argv, run, settings, &tamarin, &mut out)?;
    Ok(ExitCode::from(EXIT_OK))
}
