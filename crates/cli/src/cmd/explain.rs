//! `tamarin explain LEFT RIGHT`: both programs on the same inputs, side by side, to
//! the first divergence that matters.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args as ClapArgs;
use serde::Serialize;
use serde_json::Value;
use tamarin::{Change, Divergence, Explanation, FuelPolicy, Row, RunInputs, Step};
use tamarin_mips::{Config, Frontend, Stop};

use tamarin_grade::parse::{parse_observables, ObservableList};
use tamarin_grade::text::{shell_word, shown, signed, status_line};

use super::search::FuelPolicyArg;
use crate::args::{parse_count, FrontendArgs, InputFormatOpt, OutputFormat, TerminationOpt};
use crate::diag::{CliError, EXIT_FOUND, EXIT_OK};

/// Most branch conditions of one side shown in the text (JSON gives them all).
const MAX_SHOWN_CONDITIONS: usize = 16;

/// Rows shown before the divergence in the text report (all of them in JSON, up to
/// a cap).
const CONTEXT_ROWS: usize = 24;
/// The most rows a JSON or HTML report carries (those nearest the divergence).
const MAX_REPORTED_ROWS: usize = 2_000;

/// Show why two programs differ: run both on the same inputs (a counterexample's, or
/// `--from` a compare or grade JSON report), side by side, instruction by instruction
/// with source lines and the registers each changed, lined up where both do the same
/// thing, up to the first divergence that matters: the first differing output byte,
/// the first branch the two take differently where they are alike, or the ends.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The first program (.asm/.s assembly or .mips/.bin binary).
    #[arg(value_name = "LEFT")]
    pub left: PathBuf,
    /// The second program.
    #[arg(value_name = "RIGHT")]
    pub right: PathBuf,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// A file whose bytes both programs read from 0xFFFF0004 (`-`: this tool's stdin).
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
    /// Take the inputs from a JSON report of `compare` (its counterexample) or `grade`
    /// (the witness of the submission named RIGHT, or LEFT).
    #[arg(long, value_name = "REPORT", conflicts_with_all = ["r1", "r2", "array", "regs"])]
    pub from: Option<PathBuf>,
    /// Steps per run; as in the comparison, a run still going after this many is out
    /// of fuel.
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = 10_000)]
    pub fuel: u64,
    /// What is compared when both runs end (as in compare; default $3, or $v0 for
    /// MIPS32 functions).
    #[arg(long, value_name = "LIST", value_parser = parse_observables)]
    pub observe: Option<ObservableList>,
    /// Whether one program ending where the other runs out of fuel is a difference (as
    /// in compare; default same).
    #[arg(long, value_enum, value_name = "POLICY")]
    pub out_of_fuel: Option<FuelPolicyArg>,
    /// Rows shown before the divergence (text).
    #[arg(long, value_name = "N", value_parser = parse_count, default_value_t = CONTEXT_ROWS as u64)]
    pub context: u64,
    /// How to print the report.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Also write a standalone HTML page with both columns and the divergence
    /// highlighted.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub input_format: InputFormatOpt,
    #[command(flatten)]
    pub termination: TerminationOpt,
    #[command(flatten)]
    pub functions: super::function_explain::ExplainArgs,
}

pub fn execute(args: Args) -> Result<ExitCode, CliError> {
    let elf = super::function::is_elf_file(&args.left) || super::function::is_elf_file(&args.right);
    if elf || args.functions.function.is_some() || args.functions.values.any() {
        return explain_functions(&args);
    }
    if args.functions.right_function.is_some() {
        let file = super::program_name(&args.left);
        return Err(super::function::wrong_kind(
            &file,
            false,
            "--right-function",
        ));
    }
    let format = args.input_format.format();
    super::set_link(&args.input_format.link)?;
    let left = super::load_program(&args.left, format)?;
    let right = super::load_program(&args.right, format)?;
    let mut settings = ReplaySettings {
        fuel: args.fuel,
        observe: args
            .observe
            .as_ref()
            .map_or_else(|| vec![tamarin::Observable::CS241_RESULT], |o| o.0.clone()),
        policy: match args.out_of_fuel {
            Some(FuelPolicyArg::Different) => FuelPolicy::Different,
            _ => FuelPolicy::Same,
        },
        termination: args.termination.termination,
        array_base: args.frontend.array_base,
    };
    let inputs = match &args.from {
        Some(report) => {
            let (v, inputs) = report_inputs(report, &args)?;
            // Every setting the comparison was made under, unless the command line
            // gives its own.
            if let Some(task) = v.get("task").or_else(|| v.get("summary")?.get("task")) {
                let given = super::search::given_on_command_line("explain");
                settings.take(task, &|id| given.contains(id), report)?;
            }
            inputs_from_report(report, &inputs, settings.array_base)?
        }
        None => RunInputs {
            frontend: args.frontend.frontend(),
            registers: args.frontend.regs.clone(),
            stdin: match &args.stdin {
                Some(path) => super::read_data("the input file", path, args.fuel)?,
                None => Vec::new(),
            },
        },
    };
    let mut config = Config::with_fuel(settings.fuel);
    config.termination = settings.termination;
    config.stop = Stop::default().with_flag(crate::interrupt::flag());
    let mut e = tamarin::explain(
        &left,
        &right,
        config,
        &inputs,
        &settings.observe,
        settings.policy,
    )?;
    with_source(&mut e, (&args.left, &args.right));
    let conditions = conditions((&left, &right), &inputs, config);
    let view = View {
        names: (
            args.left.display().to_string(),
            args.right.display().to_string(),
        ),
        context: usize::try_from(args.context).unwrap_or(usize::MAX),
        inputs: &inputs,
        conditions: conditions.as_ref(),
        e: &e,
    };
    let mut out = super::stdout();
    match args.format {
        OutputFormat::Text => view.write_text(&mut out),
        OutputFormat::Json => serde_json::to_writer(&mut out, &view.json())
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
    }
    .map_err(CliError::stdout)?;
    super::finish(out)?;
    if let Some(path) = &args.html {
        std::fs::write(path, view.html()).map_err(|source| CliError::Write {
            path: path.display().to_string(),
            source,
        })?;
    }
    Ok(ExitCode::from(if e.differ { EXIT_FOUND } else { EXIT_OK }))
}

/// `explain` on MIPS32 functions, refusing the options that are CS241's.
fn explain_functions(args: &Args) -> Result<ExitCode, CliError> {
    let file = super::program_name(&args.left);
    let others = [
        ("--stdin", args.stdin.is_some()),
        ("--out-of-fuel", args.out_of_fuel.is_some()),
        ("--html", args.html.is_some()),
        ("--link", !args.input_format.link.is_empty()),
    ];
    let given = (args.frontend.cs241_option_given()).or_else(|| {
        others
            .iter()
            .find_map(|(flag, given)| given.then_some(*flag))
    });
    if let Some(flag) = given {
        return Err(super::function::wrong_kind(&file, true, flag));
    }
    let observe = match &args.observe {
        None => None,
        Some(list) => Some(super::function::observed_registers(&list.0)?),
    };
    super::function_explain::explain(super::function_explain::ExplainTask {
        left: &args.left,
        right: &args.right,
        names: &args.functions,
        from: args.from.as_deref(),
        observe,
        fuel: args.fuel,
        context: usize::try_from(args.context).unwrap_or(usize::MAX),
        format: args.format,
    })
}

/// The inputs of a counterexample as a run takes them.
pub fn run_inputs(values: &tamarin::InputValues, array_base: Option<u32>) -> RunInputs {
    let mut registers: Vec<(tamarin_mips::Reg, u32)> = Vec::new();
    let mut two = (0, 0);
    for (name, v) in &values.registers {
        match crate::args::parse_reg(name) {
            Ok(r) if r.index() == 1 => two.0 = *v,
            Ok(r) if r.index() == 2 => two.1 = *v,
            Ok(r) => registers.push((r, *v)),
            Err(_) => {}
        }
    }
    RunInputs {
        frontend: match &values.array {
            Some(elems) => Frontend::Array {
                elems: elems.clone(),
                base: array_base,
            },
            None => Frontend::TwoInts(two.0, two.1),
        },
        registers,
        stdin: values.stdin.clone(),
    }
}

/// Writes the text explanation of a difference under a comparison's report
/// (`compare --explain`).
#[allow(clippy::too_many_arguments)]
pub fn write_inline(
    out: &mut impl Write,
    names: (&Path, &Path),
    programs: (&tamarin_mips::Program, &tamarin_mips::Program),
    inputs: &RunInputs,
    config: Config,
    observe: &[tamarin::Observable],
    policy: FuelPolicy,
) -> std::io::Result<()> {
    match tamarin::explain(programs.0, programs.1, config, inputs, observe, policy) {
        Ok(mut e) => {
            with_source(&mut e, names);
            let conditions = conditions(programs, inputs, config);
            View {
                names: (names.0.display().to_string(), names.1.display().to_string()),
                context: CONTEXT_ROWS,
                inputs,
                conditions: conditions.as_ref(),
                e: &e,
            }
            .write_text(out)
        }
        Err(err) => writeln!(out, "explain: cannot set up the runs: {err}"),
    }
}

/// The readable path condition of each program that `inputs` satisfy, as the search
/// would record it (`None` where a program cannot be traced on them).
fn conditions(
    programs: (&tamarin_mips::Program, &tamarin_mips::Program),
    inputs: &RunInputs,
    config: Config,
) -> Option<(Vec<String>, Vec<String>)> {
    let mut opts = tamarin::Options::default();
    opts.fuel = config.fuel;
    opts.termination = config.termination;
    opts.stdin_len = inputs.stdin.len();
    let mut values: Vec<u32> = Vec::new();
    match &inputs.frontend {
        Frontend::TwoInts(a, b) => {
            let mut regs = vec![
                tamarin_mips::Reg::from_bits(1),
                tamarin_mips::Reg::from_bits(2),
            ];
            values.extend([*a, *b]);
            for &(r, v) in &inputs.registers {
                if !regs.contains(&r) {
                    regs.push(r);
                    values.push(v);
                }
            }
            opts.inputs = tamarin::InputSpec::Registers(regs);
        }
        Frontend::Array { elems, base } => {
            if !inputs.registers.is_empty() {
                return None;
            }
            opts.inputs = tamarin::InputSpec::Array {
                max_len: u32::try_from(elems.len()).ok()?,
                base: *base,
            };
            values.push(elems.len() as u32);
            values.extend(elems);
        }
    }
    values.extend(inputs.stdin.iter().map(|&b| b as u32));
    let left = tamarin::path_conditions(programs.0, &opts, &values).ok()?;
    let right = tamarin::path_conditions(programs.1, &opts, &values).ok()?;
    Some((left, right))
}

/// Shows each step of an assembled program as its source line is written (labels
/// and all, without the comment) instead of as the disassembler writes it.
fn with_source(e: &mut Explanation, paths: (&Path, &Path)) {
    for (steps, path) in [(&mut e.left, paths.0), (&mut e.right, paths.1)] {
        let Ok(source) = std::fs::read_to_string(path) else {
            continue;
        };
        let lines: Vec<&str> = source.lines().collect();
        for step in steps.iter_mut() {
            let text = step
                .line
                .and_then(|l| lines.get((l as usize).checked_sub(1)?))
                .map(|t| t.split(';').next().unwrap_or("").trim());
            if let Some(t) = text.filter(|t| !t.is_empty()) {
                step.text = t.to_string();
            }
        }
    }
}

/// What a replay is made under: from the options, or from the report's settings.
struct ReplaySettings {
    fuel: u64,
    observe: Vec<tamarin::Observable>,
    policy: FuelPolicy,
    termination: u32,
    array_base: Option<u32>,
}

impl ReplaySettings {
    /// Takes the settings of a report's `task` object (a compare report's, or a grade
    /// report's `summary.task`) that the command line (`given`) does not give.
    fn take(
        &mut self,
        task: &Value,
        given: &dyn Fn(&str) -> bool,
        path: &Path,
    ) -> Result<(), CliError> {
        let bad = |why: String| {
            CliError::Usage(format!(
                "--from {}: {why}",
                shell_word(&path.display().to_string())
            ))
        };
        if let (Some(fuel), false) = (task.get("fuel").and_then(Value::as_u64), given("fuel")) {
            self.fuel = fuel;
        }
        if let (Some(p), false) = (
            task.get("out_of_fuel").and_then(Value::as_str),
            given("out_of_fuel"),
        ) {
            self.policy = match p {
                "different" => FuelPolicy::Different,
                _ => FuelPolicy::Same,
            };
        }
        if let (Some(list), false) = (
            task.get("observe").and_then(Value::as_array),
            given("observe"),
        ) {
            let text: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
            if !text.is_empty() {
                self.observe = parse_observables(&text.join(","))
                    .map_err(|e| bad(format!("its observables: {e}")))?
                    .0;
            }
        }
        if let (Some(t), false) = (
            task.get("termination").and_then(Value::as_u64),
            given("termination"),
        ) {
            self.termination =
                u32::try_from(t).map_err(|_| bad(format!("termination {t} is not a word")))?;
        }
        if let Some(b) = task.get("array_base").and_then(Value::as_u64) {
            if self.array_base.is_none() {
                self.array_base = Some(
                    u32::try_from(b).map_err(|_| bad(format!("array base {b} is not a word")))?,
                );
            }
        }
        Ok(())
    }
}

/// Reads a compare or grade report, and the inputs of its counterexample or witness.
fn report_inputs(path: &Path, args: &Args) -> Result<(Value, Value), CliError> {
    let text = super::read_data("the report", path, 64 << 20)?;
    let bad = |why: &str| {
        CliError::Usage(format!(
            "--from {}: {why}",
            shell_word(&path.display().to_string())
        ))
    };
    let v: Value = serde_json::from_slice(&text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let inputs = if let Some(cx) = v.get("counterexample") {
        cx.get("inputs")
    } else if let Some(subs) = v.get("submissions").and_then(Value::as_array) {
        let named = |p: &Path| {
            let want = p.display().to_string();
            subs.iter().find(|s| {
                s.get("path")
                    .and_then(Value::as_str)
                    .is_some_and(|q| q == want || Path::new(q).ends_with(&want) || p.ends_with(q))
            })
        };
        let sub = named(&args.right)
            .or_else(|| named(&args.left))
            .ok_or_else(|| bad("no submission in the grade report is LEFT or RIGHT"))?;
        Some(
            sub.get("witness")
                .and_then(|w| w.get("inputs"))
                .ok_or_else(|| bad("that submission has no witness (it did not differ)"))?,
        )
    } else {
        None
    };
    let inputs = inputs
        .ok_or_else(|| {
            bad("no counterexample in it (expected a compare report that found a difference, or a grade report)")
        })?
        .clone();
    Ok((v, inputs))
}

/// The inputs of a compare counterexample or of a grade witness, as a run takes them.
fn inputs_from_report(
    path: &Path,
    inputs: &Value,
    array_base: Option<u32>,
) -> Result<RunInputs, CliError> {
    let bad = |why: &str| {
        CliError::Usage(format!(
            "--from {}: {why}",
            shell_word(&path.display().to_string())
        ))
    };
    let word = |x: &Value| -> Result<u32, CliError> {
        x.as_i64()
            .filter(|n| (-(1i64 << 31)..(1i64 << 32)).contains(n))
            .map(|n| n as u32)
            .ok_or_else(|| bad(&format!("`{x}` is not a 32-bit number")))
    };
    let obj = inputs
        .as_object()
        .ok_or_else(|| bad("its inputs are not an object"))?;
    let mut registers = Vec::new();
    let mut frontend = Frontend::TwoInts(0, 0);
    let mut stdin = Vec::new();
    for (name, value) in obj {
        match name.as_str() {
            "array" => {
                let elems = value
                    .as_array()
                    .ok_or_else(|| bad("its array is not a list"))?
                    .iter()
                    .map(word)
                    .collect::<Result<Vec<u32>, CliError>>()?;
                frontend = Frontend::Array {
                    elems,
                    base: array_base,
                };
            }
            "stdin" => {
                stdin = value
                    .as_array()
                    .ok_or_else(|| bad("its stdin is not a list"))?
                    .iter()
                    .map(|b| {
                        b.as_u64()
                            .and_then(|b| u8::try_from(b).ok())
                            .ok_or_else(|| bad("a stdin byte is not 0 to 255"))
                    })
                    .collect::<Result<Vec<u8>, CliError>>()?;
            }
            reg => {
                let r = crate::args::parse_reg(reg).map_err(|e| bad(&e))?;
                registers.push((r, word(value)?));
            }
        }
    }
    // $1 and $2 go through the twoints frontend, as `run --r1 --r2` does.
    if let Frontend::TwoInts(a, b) = &mut frontend {
        registers.retain(|&(r, v)| match r.index() {
            1 => {
                *a = v;
                false
            }
            2 => {
                *b = v;
                false
            }
            _ => true,
        });
    }
    Ok(RunInputs {
        frontend,
        registers,
        stdin,
    })
}

/// Everything the report writers need.
struct View<'a> {
    /// The programs' file names, left and right.
    names: (String, String),
    /// Rows shown before the divergence (text).
    context: usize,
    /// The path condition of each program that the inputs satisfy.
    conditions: Option<&'a (Vec<String>, Vec<String>)>,
    inputs: &'a RunInputs,
    e: &'a Explanation,
}

/// `$4: 0 → 1, mem[0x40]: 0 → 7, output 'A'`.
fn changes_text(step: &Step) -> String {
    let mut parts: Vec<String> = step
        .changes
        .iter()
        .map(|c| match c {
            Change::Reg { reg, old, new } => {
                format!("{reg}: {} → {}", signed(*old), signed(*new))
            }
            Change::Hi { old, new } => format!("hi: {} → {}", signed(*old), signed(*new)),
            Change::Lo { old, new } => format!("lo: {} → {}", signed(*old), signed(*new)),
            Change::Mem { addr, old, new } => {
                format!("mem[{addr:#x}]: {} → {}", signed(*old), signed(*new))
            }
            Change::Output(b) => format!("output {}", byte(*b)),
            Change::Input(Some(b)) => format!("input {}", byte(*b)),
            Change::Input(None) => "input: end (-1)".into(),
        })
        .collect();
    if let Some(t) = step.taken {
        parts.push(if t { "taken" } else { "not taken" }.into());
    }
    if let Some(f) = &step.fault {
        parts.push(format!("fails: {f}"));
    }
    parts.join(", ")
}

/// A byte for people: `'A'` when printable, else its number.
fn byte(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("'{}'", b as char)
    } else {
        format!("{b}")
    }
}

/// `3: beq $4, $0, 1` (line and instruction) or `0x0008: …` without source lines.
fn located(step: &Step) -> String {
    match step.line {
        Some(l) => format!("{l}: {}", step.text),
        None => format!("{:#06x}: {}", step.pc, step.text),
    }
}

/// Cuts `s` to `width` characters.
fn fit(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        format!("{s:width$}")
    } else {
        let cut: String = s.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

impl View<'_> {
    fn name(&self, left: bool) -> String {
        if left {
            self.names.0.clone()
        } else {
            self.names.1.clone()
        }
    }

    /// The rows to show: up to and including the divergence's, at most `context`
    /// before it; without a divergence at a step, the last `context` rows.
    fn window(&self, context: usize) -> (usize, usize) {
        let n = self.e.rows.len();
        let end = self.e.divergence_row.map_or(n, |r| (r + 1).min(n));
        (end.saturating_sub(context), end)
    }

    /// What the divergence is, in words.
    fn divergence_text(&self) -> String {
        let e = self.e;
        match &e.divergence {
            Divergence::None => "no divergence: the programs agree on these inputs".into(),
            Divergence::Output { index, left, right } => {
                let at = |s: &Option<usize>, steps: &[Step]| match s {
                    Some(k) => format!(
                        "written at step {} ({})",
                        steps[*k].index,
                        located(&steps[*k])
                    ),
                    None => "never written".into(),
                };
                let b = |o: &[u8]| o.get(*index).map_or("nothing".into(), |&x| byte(x));
                format!(
                    "output byte {index} differs: left {} ({}), right {} ({})",
                    b(&e.left_outcome.output),
                    at(left, &e.left),
                    b(&e.right_outcome.output),
                    at(right, &e.right)
                )
            }
            Divergence::Branch { left, right } => {
                let (l, r) = (&e.left[*left], &e.right[*right]);
                let how = |t: Option<bool>| {
                    if t == Some(true) {
                        "taken"
                    } else {
                        "not taken"
                    }
                };
                format!(
                    "the same branch `{}` goes different ways: {} on the left (step {}, line {}), {} on the right (step {}, line {})",
                    l.text,
                    how(l.taken),
                    l.index,
                    l.line.map_or("?".into(), |x| x.to_string()),
                    how(r.taken),
                    r.index,
                    r.line.map_or("?".into(), |x| x.to_string()),
                )
            }
            Divergence::Fault { left, right } => {
                let (side, k, steps) = match (left, right) {
                    (Some(k), _) => ("left", *k, &e.left),
                    (None, Some(k)) => ("right", *k, &e.right),
                    (None, None) => return "one run fails".into(),
                };
                let st = &steps[k];
                format!(
                    "the {side} run fails at step {} ({}): {}",
                    st.index,
                    located(st),
                    st.fault.as_deref().unwrap_or("a run-time error")
                )
            }
            Divergence::End { observables } if observables.is_empty() => {
                "the runs part at their ends: they end differently".into()
            }
            Divergence::End { observables } => {
                let diffs: Vec<String> = e
                    .observed
                    .iter()
                    .filter(|(n, _, _)| observables.contains(n))
                    .map(|(n, a, b)| format!("{n}: left {}, right {}", shown(a), shown(b)))
                    .collect();
                format!(
                    "no step parts them where they are alike; at their ends {}",
                    diffs.join("; ")
                )
            }
        }
    }

    fn write_text(&self, out: &mut impl Write) -> std::io::Result<()> {
        let e = self.e;
        let (ln, rn) = (self.name(true), self.name(false));
        writeln!(
            out,
            "explain: {ln} against {rn} on {}",
            inputs_text(self.inputs)
        )?;
        const W: usize = 56;
        writeln!(
            out,
            "  {:>5}  {}   {:>5}  {}",
            "step",
            fit(&ln, W),
            "step",
            rn
        )?;
        let (from, to) = self.window(self.context);
        if from > 0 {
            writeln!(
                out,
                "  … {from} row{} before",
                if from == 1 { "" } else { "s" }
            )?;
        }
        for (k, row) in e.rows[from..to].iter().enumerate() {
            let (l, r) = tamarin::row_sides(*row);
            let side = |s: Option<usize>, steps: &[Step]| match s {
                Some(i) => {
                    let st = &steps[i];
                    let ch = changes_text(st);
                    (format!("{:>5}", st.index), format!("{}  {ch}", located(st)))
                }
                None => (String::new(), String::new()),
            };
            let (li, lt) = side(l, &e.left);
            let (ri, rt) = side(r, &e.right);
            let mark = if Some(from + k) == e.divergence_row {
                ">>"
            } else {
                "  "
            };
            let sep = match row {
                Row::Same(..) => "|",
                Row::Different(..) => "≠",
                Row::Left(_) | Row::Right(_) => ":",
            };
            writeln!(out, "{mark}{li:>5}  {} {sep} {ri:>5}  {rt}", fit(&lt, W))?;
        }
        let rest = e.rows.len() - to;
        if rest > 0 && e.divergence_row.is_some() {
            writeln!(
                out,
                "  … {rest} row{} after",
                if rest == 1 { "" } else { "s" }
            )?;
        }
        writeln!(out, "divergence: {}", self.divergence_text())?;
        writeln!(out, "  left  {}", status_line(&e.left_outcome))?;
        writeln!(out, "  right {}", status_line(&e.right_outcome))?;
        for (n, a, b) in &e.observed {
            let same = if a == b { "same" } else { "differs" };
            writeln!(out, "  {n}: left {}, right {} ({same})", shown(a), shown(b))?;
        }
        if let Some((l, r)) = self.conditions {
            writeln!(out, "the inputs take these paths:")?;
            for (side, conds) in [("left ", l), ("right", r)] {
                let text = if conds.is_empty() {
                    "(no condition: every input takes it)".to_string()
                } else if conds.len() > MAX_SHOWN_CONDITIONS {
                    // A run of millions of trips has a condition per trip.
                    format!(
                        "{}, … and {} more",
                        conds[..MAX_SHOWN_CONDITIONS].join(", "),
                        conds.len() - MAX_SHOWN_CONDITIONS
                    )
                } else {
                    conds.join(", ")
                };
                writeln!(out, "  {side} {text}")?;
            }
        }
        if e.truncated.0 || e.truncated.1 {
            writeln!(
                out,
                "note: only the first {} steps of each run were recorded",
                tamarin::MAX_EXPLAINED_STEPS
            )?;
        }
        Ok(())
    }

    fn json(&self) -> ExplainJson {
        let e = self.e;
        let (from, to) = self.window(MAX_REPORTED_ROWS);
        let step = |s: Option<usize>, steps: &[Step]| {
            s.map(|i| {
                let st = &steps[i];
                StepJson {
                    step: st.index,
                    pc: st.pc as i32,
                    line: st.line,
                    instruction: st.text.clone(),
                    changes: changes_text(st),
                    taken: st.taken,
                }
            })
        };
        let (kind, left_step, right_step) = match &e.divergence {
            Divergence::None => ("none", None, None),
            Divergence::Output { left, right, .. } => (
                "output",
                left.map(|k| e.left[k].index),
                right.map(|k| e.right[k].index),
            ),
            Divergence::Branch { left, right } => (
                "branch",
                Some(e.left[*left].index),
                Some(e.right[*right].index),
            ),
            Divergence::Fault { left, right } => (
                "fault",
                left.map(|k| e.left[k].index),
                right.map(|k| e.right[k].index),
            ),
            Divergence::End { .. } => ("end", None, None),
        };
        ExplainJson {
            schema: crate::diag::SCHEMA_VERSION,
            left: self.name(true),
            right: self.name(false),
            inputs: inputs_text(self.inputs),
            differ: e.differ,
            divergence: DivergenceJson {
                kind,
                message: self.divergence_text(),
                left_step,
                right_step,
                row: e.divergence_row,
            },
            endings: [status_line(&e.left_outcome), status_line(&e.right_outcome)],
            observed: e
                .observed
                .iter()
                .map(|(n, a, b)| ObservedJson {
                    name: n.clone(),
                    left: shown(a),
                    right: shown(b),
                    differs: a != b,
                })
                .collect(),
            conditions: self.conditions.map(|(l, r)| ConditionsJson {
                left: l.clone(),
                right: r.clone(),
            }),
            first_row: from,
            rows: e.rows[from..to]
                .iter()
                .map(|row| {
                    let (l, r) = tamarin::row_sides(*row);
                    RowJson {
                        alike: matches!(row, Row::Same(..)),
                        left: step(l, &e.left),
                        right: step(r, &e.right),
                    }
                })
                .collect(),
            truncated: e.truncated.0 || e.truncated.1,
        }
    }

    fn html(&self) -> String {
        let j = self.json();
        let esc = tamarin_grade::html::escape;
        let mut h = String::new();
        h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        h.push_str(&format!(
            "<title>tamarin explain: {} against {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
            esc(&j.left),
            esc(&j.right)
        ));
        h.push_str(&format!(
            "<h1>Why <code>{}</code> and <code>{}</code> differ</h1>\n<p class=\"sub\">on {}</p>\n",
            esc(&j.left),
            esc(&j.right),
            esc(&j.inputs)
        ));
        h.push_str(&format!(
            "<p class=\"div {}\"><strong>divergence:</strong> {}</p>\n",
            j.divergence.kind,
            esc(&j.divergence.message)
        ));
        h.push_str("<table>\n<thead><tr><th>step</th><th>");
        h.push_str(&esc(&j.left));
        h.push_str("</th><th>changes</th><th>step</th><th>");
        h.push_str(&esc(&j.right));
        h.push_str("</th><th>changes</th></tr></thead>\n<tbody>\n");
        for (k, row) in j.rows.iter().enumerate() {
            let class = if Some(j.first_row + k) == j.divergence.row {
                "diverge"
            } else if row.alike {
                "same"
            } else {
                "other"
            };
            h.push_str(&format!("<tr class=\"{class}\">"));
            for s in [&row.left, &row.right] {
                match s {
                    Some(s) => h.push_str(&format!(
                        "<td class=\"n\">{}</td><td><code>{}</code></td><td>{}</td>",
                        s.step,
                        esc(&match s.line {
                            Some(l) => format!("{l}: {}", s.instruction),
                            None => s.instruction.clone(),
                        }),
                        esc(&s.changes)
                    )),
                    None => h.push_str("<td></td><td></td><td></td>"),
                }
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table>\n<h2>Ends</h2>\n<ul>\n");
        h.push_str(&format!(
            "<li>left: {}</li>\n<li>right: {}</li>\n",
            esc(&j.endings[0]),
            esc(&j.endings[1])
        ));
        for o in &j.observed {
            h.push_str(&format!(
                "<li><code>{}</code>: left {}, right {}{}</li>\n",
                esc(&o.name),
                esc(&o.left),
                esc(&o.right),
                if o.differs {
                    " <strong>(differs)</strong>"
                } else {
                    ""
                }
            ));
        }
        h.push_str("</ul>\n");
        if let Some(c) = &j.conditions {
            h.push_str("<h2>The paths these inputs take</h2>\n<ul>\n");
            for (side, conds) in [("left", &c.left), ("right", &c.right)] {
                h.push_str(&format!(
                    "<li>{side}: <code>{}</code></li>\n",
                    esc(&conds.join(", "))
                ));
            }
            h.push_str("</ul>\n");
        }
        h.push_str("</main>\n</body>\n</html>\n");
        h
    }
}

/// The inputs in one line: `$1 = -1, $2 = 0`, `array = [1, 2]`, and stdin bytes.
fn inputs_text(i: &RunInputs) -> String {
    let mut parts = Vec::new();
    match &i.frontend {
        Frontend::TwoInts(a, b) => {
            parts.push(format!("$1 = {}", signed(*a)));
            parts.push(format!("$2 = {}", signed(*b)));
        }
        Frontend::Array { elems, .. } => {
            let items: Vec<String> = elems.iter().map(|&e| signed(e).to_string()).collect();
            parts.push(format!(
                "array = [{}] (length {})",
                items.join(", "),
                elems.len()
            ));
        }
    }
    for (r, v) in &i.registers {
        parts.push(format!("{r} = {}", signed(*v)));
    }
    if !i.stdin.is_empty() {
        parts.push(format!("stdin = {:?}", String::from_utf8_lossy(&i.stdin)));
    }
    parts.join(", ")
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;background:#f7f7f9;color:#222}\
main{max-width:1400px;margin:0 auto;padding:24px}h1{font-size:22px}\
.sub{color:#555}.div{padding:10px 14px;border-radius:6px;background:#fde8e8;border:1px solid #f5b5b5}\
.div.none{background:#e6f6ea;border-color:#a6d9b3}\
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}\
th,td{border-bottom:1px solid #eee;padding:3px 8px;text-align:left;vertical-align:top}\
td.n{color:#888;text-align:right}tr.other td{background:#fff8e6}\
tr.diverge td{background:#fde2e2;font-weight:bold}code{font-size:12px}";

#[derive(Serialize)]
struct ExplainJson {
    schema: u32,
    left: String,
    right: String,
    inputs: String,
    differ: bool,
    divergence: DivergenceJson,
    /// The status line of each run.
    endings: [String; 2],
    observed: Vec<ObservedJson>,
    /// The path condition of each program that the inputs satisfy.
    #[serde(skip_serializing_if = "Option::is_none")]
    conditions: Option<ConditionsJson>,
    /// The index of the first row given (rows far before the divergence are left out).
    first_row: usize,
    rows: Vec<RowJson>,
    /// Whether a run had more steps than were recorded.
    truncated: bool,
}

#[derive(Serialize)]
struct ConditionsJson {
    left: Vec<String>,
    right: Vec<String>,
}

#[derive(Serialize)]
struct DivergenceJson {
    /// `none`, `output`, `branch` or `end`.
    kind: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    left_step: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    right_step: Option<u64>,
    /// The row where it is shown, when it is at a step.
    #[serde(skip_serializing_if = "Option::is_none")]
    row: Option<usize>,
}

#[derive(Serialize)]
struct ObservedJson {
    name: String,
    left: String,
    right: String,
    differs: bool,
}

#[derive(Serialize)]
struct RowJson {
    /// Both sides ran the same instruction.
    alike: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    left: Option<StepJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    right: Option<StepJson>,
}

#[derive(Serialize)]
struct StepJson {
    step: u64,
    pc: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    instruction: String,
    changes: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    taken: Option<bool>,
}
