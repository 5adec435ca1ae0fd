//! `tamarin paths PROG`: one input per feasible path, with its result and conditions.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args as ClapArgs;
use serde_json::{json, Map, Value};
use tamarin::{explore, Exploration, PathReport};
use tamarin_mips::Status;

use super::search::{
    inputs_json, inputs_line, ms, reasons_json, replay_command, signed, status_line, CliObserver,
    SearchArgs, Searcher,
};
use crate::args::{parse_count, OutputFormat};
use crate::diag::{CliError, EXIT_INCOMPLETE, EXIT_OK};

/// List one input for every path through a program (within the fuel and depth), each
/// replayed, with its status, `$3` (or error and pc) and its path conditions.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program (.asm/.s assembly or .mips/.bin binary).
    #[arg(value_name = "PROG")]
    pub program: PathBuf,
    /// Stop after this many paths.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true)]
    pub max_paths: Option<u64>,
    /// Write each path as a replayable test case (the `tamarin run` command line and
    /// the expected result) into this directory, as case-NNN.json.
    #[arg(long, value_name = "DIR")]
    pub emit_tests: Option<PathBuf>,
    /// How to print the report.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    #[command(flatten)]
    pub search: SearchArgs,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    let program = super::load_program(&args.program, args.search.input_format.format())?;
    let mut opts = args.search.options()?;
    opts.max_paths = args.max_paths;
    if let Some(dir) = &args.emit_tests {
        super::search::prepare_dir(dir, "--emit-tests", args.search.force)?;
    }
    let mut observer = CliObserver::new(args.format == OutputFormat::Text);
    let e = explore(&program, &opts, &mut observer);
    observer.done();
    let e = e.map_err(|e| CliError::engine(e, &args.program))?;
    super::search::print_warnings(&e.stats);
    if let Some(dir) = &args.emit_tests {
        emit_tests(dir, &args, &e)?;
    }
    let mut out = super::stdout();
    match args.format {
        OutputFormat::Text => write_text(&mut out, &args, &e),
        OutputFormat::Json => write_json(&mut out, &e),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    Ok(ExitCode::from(if e.incomplete.is_empty() {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    }))
}

/// What a path's run gives, as JSON fields.
fn result_json(p: &PathReport) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("status".into(), json!(p.outcome.status.name()));
    match p.outcome.status {
        Status::Done => {
            m.insert("$3".into(), json!(signed(p.outcome.regs.gpr[3])));
        }
        Status::Error(f) => {
            m.insert("error".into(), json!(f.to_string()));
            m.insert("error_kind".into(), json!(f.kind.name()));
            m.insert("pc".into(), json!(signed(f.pc)));
        }
        Status::OutOfFuel | Status::Stopped => {}
    }
    m
}

fn emit_tests(dir: &Path, args: &Args, e: &Exploration) -> Result<(), CliError> {
    for (k, p) in e.paths.iter().enumerate() {
        let case = json!({
            "command": replay_command(&args.search, &args.program, &p.values),
            "inputs": inputs_json(&p.values),
            "expected": Value::Object(result_json(p)),
            "conditions": p.conditions,
        });
        let path = dir.join(format!("case-{:03}.json", k + 1));
        let text = serde_json::to_string_pretty(&case).unwrap_or_default();
        std::fs::write(&path, text + "\n").map_err(|source| CliError::Write {
            path: path.display().to_string(),
            source,
        })?;
    }
    Ok(())
}

fn write_text(out: &mut impl Write, args: &Args, e: &Exploration) -> std::io::Result<()> {
    for (k, p) in e.paths.iter().enumerate() {
        write!(out, "path {}: {}", k + 1, status_line(&p.outcome))?;
        if p.outcome.status == Status::Done {
            write!(out, ", $3 = {}", super::search::word(p.outcome.regs.gpr[3]))?;
        }
        writeln!(out)?;
        writeln!(out, "  inputs: {}", inputs_line(&p.values))?;
        if p.conditions.is_empty() {
            writeln!(out, "  conditions: none (every input takes this path)")?;
        } else {
            writeln!(out, "  conditions: {}", p.conditions.join(", "))?;
        }
        if p.partial {
            writeln!(
                out,
                "  (too long to trace to the end: the conditions are a prefix)"
            )?;
        }
        writeln!(
            out,
            "  replay: {}",
            replay_command(&args.search, &args.program, &p.values)
        )?;
    }
    super::search::write_completeness(
        out,
        &e.incomplete,
        &format!(
            "every path within {} steps and {} conditions is listed",
            args.search.fuel, args.search.depth
        ),
        Searcher::Paths,
    )?;
    let s = &e.stats;
    writeln!(
        out,
        "stats: {} paths, {} runs, {} solver queries in {:.1} ms, total {:.1} ms",
        s.paths.0,
        s.runs,
        s.solver.queries,
        ms(s.solver.time),
        ms(s.total)
    )
}

fn write_json(out: &mut impl Write, e: &Exploration) -> std::io::Result<()> {
    let paths: Vec<Value> = e
        .paths
        .iter()
        .map(|p| {
            let mut m = result_json(p);
            m.insert("inputs".into(), inputs_json(&p.values));
            m.insert("conditions".into(), json!(p.conditions));
            if p.partial {
                m.insert("partial".into(), json!(true));
            }
            Value::Object(m)
        })
        .collect();
    let incomplete = reasons_json(&e.incomplete, Searcher::Paths);
    let s = &e.stats;
    let top = json!({
        "schema": crate::diag::SCHEMA_VERSION,
        "paths": paths,
        "complete": e.incomplete.is_empty(),
        "incomplete": incomplete,
        "stats": {
            "paths": s.paths.0,
            "runs": s.runs,
            "solver_queries": s.solver.queries,
            "solver_ms": ms(s.solver.time),
            "total_ms": ms(s.total),
        },
    });
    writeln!(out, "{top}")
}
