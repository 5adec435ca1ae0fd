//! `tamarin grade --function NAME REFERENCE.o SUBMISSION…`: a class of MIPS32
//! functions graded against the reference's, the wrong ones grouped by proof
//! (`tamarin_grade::functions`), reported as text, JSON or CSV.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use tamarin_grade::functions::{
    function_entry, grade_functions, group_functions, FunctionEntry, FunctionGrade,
};
use tamarin_mips::mips32::isa;
use tamarin_mips::Reg;

use super::{Args, GradeFormat};
use crate::cmd::function::{end_json, is_elf_file, load_image, EndJson};
use crate::diag::{CliError, EXIT_FOUND, EXIT_INCOMPLETE, EXIT_OK};

/// `grade`'s options for MIPS32 functions.
#[derive(Debug, Default, clap::Args)]
pub struct FunctionGradeArgs {
    /// For MIPS32 ELF files: the function of the reference and of every submission
    /// to grade.
    #[arg(long, value_name = "NAME", help_heading = "MIPS32 functions")]
    pub function: Option<String>,
    /// How many of $a0..$a3 are inputs (the others are 0).
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u8).range(0..=4), help_heading = "MIPS32 functions")]
    pub args: u8,
    /// Grade for runs of any length: an equivalent submission then returns as the
    /// reference does, or runs forever where it does (loops proved by an invariant).
    #[arg(long, help_heading = "MIPS32 functions")]
    pub unbounded: bool,
}

/// The options of `grade` that are for CS241 programs only.
const CS241_ONLY: [&str; 18] = [
    "task",
    "store",
    "html",
    "shard",
    "count",
    "deterministic",
    "no_split",
    "no_shared_calls",
    "frontend",
    "inputs",
    "max_len",
    "array_base",
    "stdin_len",
    "assume_program",
    "init_inputs",
    "out_of_fuel",
    "depth",
    "solver",
];

#[derive(Serialize)]
struct Json {
    schema: u32,
    function: String,
    reference: String,
    observe: Vec<String>,
    fuel: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unbounded: bool,
    summary: Summary,
    groups: Vec<GroupJson>,
    submissions: Vec<SubJson>,
}

#[derive(Serialize, Default)]
struct Summary {
    submissions: usize,
    equivalent: usize,
    disequivalent: usize,
    possibly_equivalent: usize,
    unusable: usize,
}

#[derive(Serialize)]
struct GroupJson {
    id: usize,
    members: Vec<String>,
}

#[derive(Serialize)]
struct SubJson {
    path: String,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reference_run: Option<EndJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    submission_run: Option<EndJson>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    reasons: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

/// The ELF files among `paths`: files as given, folders searched for them (by their
/// magic, recursively, in name order).
fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| CliError::Usage(format!("cannot read the folder {}: {e}", dir.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if is_elf_file(&p) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Grades a class of functions: exit status 3 when some submission is
/// possibly-equivalent, else 1 when some differs or cannot be graded, else 0.
pub fn execute(args: &Args) -> Result<ExitCode, CliError> {
    let given = super::given_on_command_line();
    if let Some(flag) = CS241_ONLY.iter().find(|f| given.contains(**f)) {
        let file = args
            .paths
            .first()
            .map(|p| crate::cmd::program_name(p))
            .unwrap_or_default();
        let what = format!("--{}", flag.replace('_', "-"));
        return Err(crate::cmd::function::wrong_kind(&file, true, &what));
    }
    if args.search.dump_smt.is_some() || args.search.dump_trace {
        return Err(CliError::Usage(
            "--dump-smt and --dump-trace are for one comparison: use `tamarin compare`".into(),
        ));
    }
    let Some((reference_path, rest)) = args.paths.split_first() else {
        return Err(CliError::Usage(
            "give the reference and at least one submission".into(),
        ));
    };
    let Some(name) = args.functions.function.clone() else {
        return Err(CliError::Usage(format!(
            "{} is a MIPS32 ELF file: name the function to grade with --function NAME",
            crate::cmd::program_name(reference_path)
        )));
    };
    let ref_file = crate::cmd::program_name(reference_path);
    let reference = load_image(reference_path)?;
    let entry = function_entry(&reference, &name)
        .map_err(|why| CliError::Usage(format!("{ref_file} (the reference): {why}")))?;
    let paths = collect(rest)?;
    if paths.is_empty() {
        return Err(CliError::Usage("no submissions found".into()));
    }
    let subs: Vec<FunctionEntry> = paths
        .iter()
        .map(|p| FunctionEntry {
            path: p.display().to_string(),
            image: load_image(p).map_err(|e| e.to_string()),
        })
        .collect();
    let observe: Vec<Reg> = match &args.observe {
        None => vec![tamarin_mips::mips32::abi::V0],
        Some(list) => crate::cmd::function::observed_registers(&list.0)?,
    };
    let fuel = crate::cmd::function::fuel_steps(&args.search.fuel)?;
    let assume = crate::cmd::function::preconditions(&args.search.assume)?;
    let opts = tamarin::FunctionOptions {
        assume,
        solver: crate::cmd::compare::function_solver(&args.search),
        args: args.functions.args as usize,
        observe: observe.clone(),
        fuel,
        timeout: (args.search.timeout > 0)
            .then(|| std::time::Duration::from_secs(args.search.timeout)),
        interrupt: crate::interrupt::flag(),
        unbounded: args.functions.unbounded,
        engine: args.engine.map_or(tamarin::Engine::Auto, |e| e.engine()),
        ..tamarin::FunctionOptions::default()
    };
    let pool = tamarin_grade::class::thread_pool(args.jobs)?;
    let side = tamarin::FunctionSide {
        image: &reference,
        entry,
    };
    let grades = grade_functions(side, &name, &subs, &opts, &pool);
    let groups = if args.report.no_groups {
        Vec::new()
    } else {
        group_functions(&name, &subs, &grades, &opts, &pool)
    };
    let mut group_of = vec![None; subs.len()];
    for (g, members) in groups.iter().enumerate() {
        for &m in members {
            group_of[m] = Some(g + 1);
        }
    }
    let regs: Vec<String> = observe
        .iter()
        .map(|&r| format!("${}", isa::reg_name(r)))
        .collect();
    let mut summary = Summary {
        submissions: subs.len(),
        ..Summary::default()
    };
    let mut rows = Vec::with_capacity(subs.len());
    for ((sub, grade), group) in subs.iter().zip(&grades).zip(&group_of) {
        let mut row = SubJson {
            path: sub.path.clone(),
            verdict: grade.name(),
            group: *group,
            args: None,
            reference_run: None,
            submission_run: None,
            reasons: Vec::new(),
            message: None,
        };
        match grade {
            FunctionGrade::Equivalent => summary.equivalent += 1,
            FunctionGrade::Disequivalent {
                args: values,
                reference,
                submission,
            } => {
                summary.disequivalent += 1;
                row.args = Some(
                    values
                        .iter()
                        .enumerate()
                        .map(|(k, &v)| (format!("$a{k}"), serde_json::Value::from(v as i32)))
                        .collect(),
                );
                row.reference_run = Some(end_json(reference));
                row.submission_run = Some(end_json(submission));
            }
            FunctionGrade::PossiblyEquivalent(gaps) => {
                summary.possibly_equivalent += 1;
                row.reasons = gaps.iter().map(|g| g.kind()).collect();
            }
            FunctionGrade::Unusable(why) => {
                summary.unusable += 1;
                row.message = Some(why.clone());
            }
        }
        rows.push(row);
    }
    let json = Json {
        schema: tamarin_grade::SCHEMA_VERSION,
        function: name.clone(),
        reference: ref_file,
        observe: regs,
        fuel,
        unbounded: args.functions.unbounded,
        groups: groups
            .iter()
            .enumerate()
            .map(|(g, members)| GroupJson {
                id: g + 1,
                members: members.iter().map(|&m| subs[m].path.clone()).collect(),
            })
            .collect(),
        summary,
        submissions: rows,
    };
    let mut out = crate::cmd::stdout();
    match args.report.format {
        GradeFormat::Json => serde_json::to_writer(&mut out, &json)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
        GradeFormat::Text => out.write_all(text(&json).as_bytes()),
        GradeFormat::Csv => out.write_all(csv(&json).as_bytes()),
    }
    .map_err(CliError::stdout)?;
    crate::cmd::finish(out)?;
    let s = &json.summary;
    Ok(ExitCode::from(if s.possibly_equivalent > 0 {
        EXIT_INCOMPLETE
    } else if s.disequivalent + s.unusable > 0 {
        EXIT_FOUND
    } else {
        EXIT_OK
    }))
}

/// A run's ending in words, as `compare` says it.
fn ending(run: &EndJson, observe: &[String]) -> String {
    match (run.status, run.fault) {
        ("returned", _) => {
            let values: Vec<String> = (observe.iter().zip(&run.observed))
                .map(|(r, v)| format!("{r} = {v}"))
                .collect();
            format!("returns {}", values.join(", "))
        }
        (_, Some(f)) => format!("ends in a fault ({f})"),
        (other, None) => other.to_string(),
    }
}

fn call(j: &Json, sub: &SubJson) -> String {
    let values: Vec<String> = sub
        .args
        .iter()
        .flat_map(|a| a.values().map(|v| v.to_string()))
        .collect();
    format!("{}({})", j.function, values.join(", "))
}

fn text(j: &Json) -> String {
    let s = &j.summary;
    let mut t = format!(
        "grade: {} submissions against {} (function {}{}): {} equivalent, {} disequivalent, {} possibly-equivalent, {} unusable\n",
        s.submissions,
        j.reference,
        j.function,
        if j.unbounded { ", runs of any length" } else { "" },
        s.equivalent,
        s.disequivalent,
        s.possibly_equivalent,
        s.unusable
    );
    if !j.groups.is_empty() {
        t.push_str("groups of wrong submissions (each proved equivalent within its group):\n");
        for g in &j.groups {
            t.push_str(&format!(
                "  group {} ({}): {}\n",
                g.id,
                g.members.len(),
                g.members.join(", ")
            ));
        }
    }
    t.push_str("submissions:\n");
    let width = j
        .submissions
        .iter()
        .map(|s| s.path.len())
        .max()
        .unwrap_or(0);
    for sub in &j.submissions {
        let detail = match (&sub.reference_run, &sub.submission_run, &sub.message) {
            (Some(r), Some(m), _) => format!(
                "  {}: the reference {}, this one {}{}",
                call(j, sub),
                ending(r, &j.observe),
                ending(m, &j.observe),
                sub.group
                    .map(|g| format!(" [group {g}]"))
                    .unwrap_or_default()
            ),
            (_, _, Some(why)) => format!("  {why}"),
            _ if !sub.reasons.is_empty() => format!("  not covered: {}", sub.reasons.join(", ")),
            _ => String::new(),
        };
        t.push_str(&format!(
            "  {:width$}  {}{}\n",
            sub.path, sub.verdict, detail
        ));
    }
    t
}

fn csv(j: &Json) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "path",
        "verdict",
        "group",
        "args",
        "reference",
        "submission",
        "detail",
    ]);
    for sub in &j.submissions {
        let args: Vec<String> = sub
            .args
            .iter()
            .flat_map(|a| a.values().map(|v| v.to_string()))
            .collect();
        let end = |r: &Option<EndJson>| {
            r.as_ref()
                .map(|r| ending(r, &j.observe))
                .unwrap_or_default()
        };
        let detail = sub.message.clone().unwrap_or_else(|| sub.reasons.join(" "));
        let _ = w.write_record([
            sub.path.as_str(),
            sub.verdict,
            &sub.group.map(|g| g.to_string()).unwrap_or_default(),
            &args.join(" "),
            &end(&sub.reference_run),
            &end(&sub.submission_run),
            &detail,
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
