//! `tamarin explain LEFT.o RIGHT.o --function NAME`: two MIPS32 functions run on one
//! input, each shown by its last steps, and for each observed register that ends
//! differently, the step of each run that last wrote it.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use serde_json::Value;
use tamarin_mips::mips32::{isa, Status};
use tamarin_mips::Reg;

use super::function::{find_function, is_elf_file, load_image, wrong_kind};
use crate::args::OutputFormat;
use crate::diag::{CliError, EXIT_FOUND, EXIT_OK};

/// `$a0`..`$a3` of a call, each 0 unless given.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct ArgValues {
    /// $a0 (default 0).
    #[arg(long, value_name = "N", value_parser = crate::args::parse_word,
          allow_negative_numbers = true, help_heading = "MIPS32 functions")]
    pub a0: Option<u32>,
    /// $a1 (default 0).
    #[arg(long, value_name = "N", value_parser = crate::args::parse_word,
          allow_negative_numbers = true, help_heading = "MIPS32 functions")]
    pub a1: Option<u32>,
    /// $a2 (default 0).
    #[arg(long, value_name = "N", value_parser = crate::args::parse_word,
          allow_negative_numbers = true, help_heading = "MIPS32 functions")]
    pub a2: Option<u32>,
    /// $a3 (default 0).
    #[arg(long, value_name = "N", value_parser = crate::args::parse_word,
          allow_negative_numbers = true, help_heading = "MIPS32 functions")]
    pub a3: Option<u32>,
}

impl ArgValues {
    /// Whether any was given.
    pub fn any(&self) -> bool {
        self.a0.is_some() || self.a1.is_some() || self.a2.is_some() || self.a3.is_some()
    }

    /// The four values, 0 where not given.
    pub fn values(&self) -> [u32; 4] {
        [self.a0, self.a1, self.a2, self.a3].map(|a| a.unwrap_or(0))
    }
}

/// `explain`'s options for MIPS32 functions.
#[derive(Debug, Default, clap::Args)]
pub struct ExplainArgs {
    /// For MIPS32 ELF files: the function to run, in both files unless
    /// --right-function names RIGHT's.
    #[arg(long, value_name = "NAME", help_heading = "MIPS32 functions")]
    pub function: Option<String>,
    /// RIGHT's function, when its name differs from --function's.
    #[arg(long, value_name = "NAME", help_heading = "MIPS32 functions")]
    pub right_function: Option<String>,
    #[command(flatten)]
    pub values: ArgValues,
}

/// What explaining two functions needs.
pub struct ExplainTask<'a> {
    pub left: &'a Path,
    pub right: &'a Path,
    pub names: &'a ExplainArgs,
    /// A `compare --function --format json` report to take the inputs from.
    pub from: Option<&'a Path>,
    /// The registers compared, when given (`$v0` otherwise, or the report's).
    pub observe: Option<Vec<Reg>>,
    pub fuel: u64,
    pub context: usize,
    pub format: OutputFormat,
}

#[derive(Serialize)]
struct Json {
    schema: u32,
    differ: bool,
    args: serde_json::Map<String, Value>,
    observe: Vec<String>,
    left: SideJson,
    right: SideJson,
}

#[derive(Serialize)]
struct SideJson {
    file: String,
    function: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<String>,
    steps: u64,
    observed: Vec<i32>,
    /// For each observed register, the step that last wrote it (null: never written).
    writers: Vec<Option<StepJson>>,
    /// The run's last steps, oldest first.
    trace: Vec<StepJson>,
}

#[derive(Serialize, Clone)]
struct StepJson {
    step: u64,
    pc: String,
    instruction: Option<String>,
    changes: Vec<ChangeJson>,
}

#[derive(Serialize, Clone)]
struct ChangeJson {
    reg: String,
    before: i32,
    after: i32,
}

fn reg_text(r: Reg) -> String {
    format!("${}", isa::reg_name(r))
}

fn step_json(s: &tamarin::TraceStep) -> StepJson {
    StepJson {
        step: s.step,
        pc: format!("0x{:08x}", s.pc),
        instruction: s.text.as_ref().map(|t| t.replace('\t', " ")),
        changes: s
            .changes
            .iter()
            .map(|&(r, b, a)| ChangeJson {
                reg: reg_text(r),
                before: b as i32,
                after: a as i32,
            })
            .collect(),
    }
}

fn status_text(run: &tamarin::FunctionRun) -> (&'static str, Option<String>) {
    match run.status {
        Status::Returned => ("returned", None),
        Status::OutOfFuel => ("out-of-fuel", None),
        Status::Stopped => ("stopped", None),
        Status::Error(f) => ("fault", Some(f.to_string())),
    }
}

/// What a `compare --function` JSON report gives an explanation.
struct FromReport {
    left: Option<String>,
    right: Option<String>,
    args: [u32; 4],
    observe: Vec<Reg>,
}

/// The function names, argument values and observed registers of a report.
fn from_report(path: &Path) -> Result<FromReport, CliError> {
    let shown = super::program_name(path);
    let bad = |why: &str| CliError::Usage(format!("--from {shown}: {why}"));
    let text = super::read_data("the report", path, 64 << 20)?;
    let v: Value = serde_json::from_slice(&text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let cx = v.get("counterexample").ok_or_else(|| {
        bad("it has no counterexample (was it a difference of `compare --function`?)")
    })?;
    let given = cx.get("args").and_then(Value::as_object).ok_or_else(|| {
        bad("its counterexample has no `args` (is it a report of `compare --function`?)")
    })?;
    let mut args = [0u32; 4];
    for (name, value) in given {
        let k = match name.as_str() {
            "$a0" => 0,
            "$a1" => 1,
            "$a2" => 2,
            "$a3" => 3,
            other => {
                return Err(bad(&format!(
                    "unknown argument `{other}` (expected $a0..$a3)"
                )))
            }
        };
        let n = value
            .as_i64()
            .filter(|n| i64::from(i32::MIN) <= *n && *n <= i64::from(u32::MAX))
            .ok_or_else(|| bad(&format!("`{name}` is not a 32-bit integer")))?;
        args[k] = n as u32;
    }
    let name = |side: &str| {
        v.get(side)
            .and_then(|s| s.get("function"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let observe = v
        .get("observe")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(|r| {
                    isa::reg_by_name(r.trim_start_matches('$'))
                        .ok_or_else(|| bad(&format!("unknown register `{r}` in `observe`")))
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?
        .unwrap_or_default();
    Ok(FromReport {
        left: name("left"),
        right: name("right"),
        args,
        observe,
    })
}

/// Explains two functions of ELF files on one input: exit status 1 when they end
/// differently, 0 when not.
pub fn explain(task: ExplainTask<'_>) -> Result<ExitCode, CliError> {
    let (lfile, rfile) = (
        super::program_name(task.left),
        super::program_name(task.right),
    );
    for (file, path) in [(&lfile, task.left), (&rfile, task.right)] {
        if !is_elf_file(path) {
            return Err(wrong_kind(file, false, "--function"));
        }
    }
    let (mut lname, mut rname) = (
        task.names.function.clone(),
        task.names.right_function.clone(),
    );
    let mut args = task.names.values.values();
    let mut observe = task.observe.clone().unwrap_or_default();
    if let Some(path) = task.from {
        if task.names.values.any() {
            return Err(CliError::Usage(
                "--from takes the arguments from the report: give either --from or --a0..--a3"
                    .into(),
            ));
        }
        let report = from_report(path)?;
        lname = lname.or(report.left);
        rname = rname.or(report.right);
        args = report.args;
        if task.observe.is_none() {
            observe = report.observe;
        }
    }
    if observe.is_empty() {
        observe = vec![tamarin_mips::mips32::abi::V0];
    }
    let Some(lname) = lname else {
        return Err(CliError::Usage(format!(
            "{lfile} is a MIPS32 ELF file: name the function to explain with --function NAME"
        )));
    };
    let rname = rname.unwrap_or_else(|| lname.clone());
    let (limage, rimage) = (load_image(task.left)?, load_image(task.right)?);
    let lf = find_function(&limage, &lfile, &lname)?;
    let rf = find_function(&rimage, &rfile, &rname)?;
    let e = tamarin::explain_functions(
        tamarin::FunctionSide {
            image: &limage,
            entry: lf.addr,
        },
        tamarin::FunctionSide {
            image: &rimage,
            entry: rf.addr,
        },
        &args,
        &observe,
        task.fuel,
        task.context.max(1),
    );
    let side = |file: &str, name: &str, t: &tamarin::FunctionTrace| {
        let (status, fault) = status_text(&t.run);
        SideJson {
            file: file.to_string(),
            function: name.to_string(),
            status,
            fault,
            steps: t.run.steps,
            observed: t.run.observed.iter().map(|&v| v as i32).collect(),
            writers: t
                .writers
                .iter()
                .map(|w| w.as_ref().map(step_json))
                .collect(),
            trace: t.steps.iter().map(step_json).collect(),
        }
    };
    let json = Json {
        schema: tamarin_grade::SCHEMA_VERSION,
        differ: e.differ,
        args: (0..4)
            .map(|k| (format!("$a{k}"), Value::from(args[k] as i32)))
            .collect(),
        observe: observe.iter().map(|&r| reg_text(r)).collect(),
        left: side(&lfile, &lname, &e.left),
        right: side(&rfile, &rname, &e.right),
    };
    let mut out = super::stdout();
    match task.format {
        OutputFormat::Json => serde_json::to_writer(&mut out, &json)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
        OutputFormat::Text => out.write_all(text(&json).as_bytes()),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    Ok(ExitCode::from(if e.differ { EXIT_FOUND } else { EXIT_OK }))
}

fn text(j: &Json) -> String {
    let args: Vec<String> = j.args.values().map(|v| v.to_string()).collect();
    let call = |s: &SideJson| format!("{}({}) in {}", s.function, args.join(", "), s.file);
    let end = |s: &SideJson| match (&s.fault, s.status) {
        (Some(f), _) => format!("ends in a fault after {} steps: {f}", s.steps),
        (None, "returned") => {
            let values: Vec<String> = (j.observe.iter().zip(&s.observed))
                .map(|(r, v)| format!("{r} = {v}"))
                .collect();
            format!("returns after {} steps: {}", s.steps, values.join(", "))
        }
        (None, other) => format!("{other} after {} steps", s.steps),
    };
    let mut t = format!(
        "{}\n  left:  {} {}\n  right: {} {}\n",
        if j.differ {
            "they differ"
        } else {
            "they do not differ on these inputs"
        },
        call(&j.left),
        end(&j.left),
        call(&j.right),
        end(&j.right)
    );
    let both_returned = j.left.status == "returned" && j.right.status == "returned";
    if both_returned {
        for (k, r) in j.observe.iter().enumerate() {
            let (lv, rv) = (j.left.observed.get(k), j.right.observed.get(k));
            if lv == rv {
                continue;
            }
            t.push_str(&format!("{r} differs: where each run last wrote it\n"));
            for (label, s) in [("left ", &j.left), ("right", &j.right)] {
                match s.writers.get(k).and_then(Option::as_ref) {
                    Some(w) => t.push_str(&format!(
                        "  {label} step {:>6} at {}: {}\n",
                        w.step,
                        w.pc,
                        w.instruction.as_deref().unwrap_or("?")
                    )),
                    None => t.push_str(&format!(
                        "  {label} never writes it (it keeps its value at the call)\n"
                    )),
                }
            }
        }
    }
    for (label, s) in [("left", &j.left), ("right", &j.right)] {
        t.push_str(&format!(
            "last {} steps of the {label} run:\n",
            s.trace.len()
        ));
        for st in &s.trace {
            let changes: Vec<String> = st
                .changes
                .iter()
                .map(|c| format!("{} = {}", c.reg, c.after))
                .collect();
            t.push_str(&format!(
                "  {:>6}  {}  {:<36} {}\n",
                st.step,
                st.pc,
                st.instruction.as_deref().unwrap_or("(no instruction)"),
                changes.join(", ")
            ));
        }
    }
    t
}
