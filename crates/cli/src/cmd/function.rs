//! MIPS32 functions in ELF files on the command line: telling such a file from a
//! CS241 program, reading it, finding the function a command names, running it once
//! (`run F.o --function NAME --a0 5`) and listing it (`disasm F.o --function NAME`).

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use tamarin_mips::cpu::Stop;
use tamarin_mips::mips32::{abi, calls, elf, isa, Image, Machine, Status, Symbol};

use super::search::fuel_to_show;
use crate::args::OutputFormat;
use crate::diag::CliError;

/// Whether the file at `path` starts with the ELF magic (a missing or unreadable file
/// is not: the CS241 reader then reports it as it always has). Only plain files are
/// looked at: reading the first bytes of a FIFO would take them from the reader.
pub fn is_elf_file(path: &Path) -> bool {
    if super::is_stdin(path) || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| elf::is_elf(&magic))
}

/// Reads an ELF file into an image; anything wrong with it is a usage error that
/// names the file and says what was expected.
pub fn load_image(path: &Path) -> Result<Image, CliError> {
    let name = super::program_name(path);
    let meta = std::fs::metadata(path)
        .map_err(|e| CliError::Usage(format!("cannot read `{name}`: {e}")))?;
    if meta.len() > elf::MAX_LOAD_BYTES * 2 {
        return Err(CliError::Usage(format!(
            "cannot read `{name}`: it is {} bytes long, more than an ELF file this tool \
             reads (128 MiB)",
            meta.len()
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| CliError::Usage(format!("cannot read `{name}`: {e}")))?;
    elf::read(&name, &bytes).map_err(|e| CliError::Usage(e.to_string()))
}

/// The registers an `--observe` list names, for a MIPS32 function (whose results are
/// registers only).
pub fn observed_registers(
    list: &[tamarin::Observable],
) -> Result<Vec<tamarin_mips::Reg>, CliError> {
    list.iter()
        .map(|o| match o {
            tamarin::Observable::Reg(r) => Ok(*r),
            other => Err(CliError::Usage(format!(
                "--observe {other}: a MIPS32 function's result is in registers (such as v0,v1)"
            ))),
        })
        .collect()
}

/// The preconditions of `--assume` texts, over the arguments `$a0`..`$a3`.
pub fn preconditions(texts: &[String]) -> Result<Vec<tamarin::Precondition>, CliError> {
    texts
        .iter()
        .map(|text| {
            tamarin::Precondition::parse(text)
                .map_err(|e| CliError::Usage(format!("--assume `{text}`: {}", e.message)))
        })
        .collect()
}

/// The steps of `--fuel` for a function (`auto` sizes the fuel of CS241 programs only).
pub fn fuel_steps(fuel: &tamarin_grade::task::Fuel) -> Result<u64, CliError> {
    match fuel {
        tamarin_grade::task::Fuel::Steps(n) => Ok(*n),
        _ => Err(CliError::Usage(
            "--fuel auto is for CS241 programs: give MIPS32 functions --fuel N".into(),
        )),
    }
}

/// The function `name` of `image` (from the file `file`), checked to reach no
/// undefined function by its direct calls.
pub fn find_function(image: &Image, file: &str, name: &str) -> Result<Symbol, CliError> {
    let Some(f) = image.function(name) else {
        let known: Vec<&str> = image.functions().into_iter().map(|(n, _)| n).collect();
        return Err(CliError::Usage(format!(
            "{file}: no function `{name}`; the file defines {}",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    };
    let reach = calls::reach(image, f.addr);
    if !reach.undefined.is_empty() {
        return Err(CliError::Usage(format!(
            "{file}: `{name}` calls {}, which the file does not define: link the code \
             that defines {} into the file (an object with `ld -r`, or a static \
             executable)",
            quote_list(&reach.undefined),
            if reach.undefined.len() == 1 {
                "it"
            } else {
                "them"
            }
        )));
    }
    Ok(f)
}

fn quote_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error for a CS241 option given with an ELF file, or `--function` without one.
pub fn wrong_kind(file: &str, elf: bool, what: &str) -> CliError {
    if elf {
        CliError::Usage(format!(
            "{file} is a MIPS32 ELF file: {what} is for CS241 programs"
        ))
    } else {
        CliError::Usage(format!(
            "{what} is for MIPS32 ELF files, and {file} is a CS241 program"
        ))
    }
}

/// How a function's run ended, as `run` reports it.
#[derive(Serialize)]
struct RunReport<'a> {
    schema: u32,
    function: &'a str,
    args: [i32; 4],
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<FaultReport>,
    steps: u64,
    v0: i32,
    v1: i32,
}

#[derive(Serialize)]
struct FaultReport {
    kind: &'static str,
    pc: String,
    message: String,
}

/// Runs `name` of the ELF file at `path` once with `args` in `$a0`..`$a3`, and prints
/// how it ended and `$v0`/`$v1`. Exit status 0 when it returned, 1 on a fault, 3 out
/// of fuel, 130 stopped.
pub fn run(
    path: &Path,
    name: &str,
    args: [u32; 4],
    fuel: u64,
    format: OutputFormat,
) -> Result<ExitCode, CliError> {
    let file = super::program_name(path);
    let image = load_image(path)?;
    let f = find_function(&image, &file, name)?;
    let mut m =
        Machine::new(&image, fuel).with_stop(Stop::default().with_flag(crate::interrupt::flag()));
    m.call(f.addr, &args);
    let status = m.run();
    let regs = *m.regs();
    let (label, fault, code) = match status {
        Status::Returned => ("returned", None, 0),
        Status::OutOfFuel => ("out-of-fuel", None, 3),
        Status::Stopped => ("stopped", None, 130),
        Status::Error(e) => {
            let mut message = e.to_string();
            if let Some(callee) = image.undefined_jump(e.value) {
                message = format!("{message}: `{callee}`");
            }
            let fault = FaultReport {
                kind: e.kind.name(),
                pc: format!("0x{:08x}", e.pc),
                message,
            };
            ("fault", Some(fault), 1)
        }
    };
    let report = RunReport {
        schema: tamarin_grade::SCHEMA_VERSION,
        function: name,
        args: args.map(|a| a as i32),
        status: label,
        fault,
        steps: m.steps(),
        v0: regs.get(abi::V0) as i32,
        v1: regs.get(abi::V1) as i32,
    };
    let mut out = super::stdout();
    match format {
        OutputFormat::Json => {
            serde_json::to_writer(&mut out, &report).map_err(|e| CliError::stdout(e.into()))?;
            writeln!(out).map_err(CliError::stdout)?;
        }
        OutputFormat::Text => {
            let call = format!("{name}({})", report.args.map(|a| a.to_string()).join(", "));
            match &report.fault {
                None if code == 0 => writeln!(out, "{call} returned after {} steps", report.steps),
                None if code == 3 => writeln!(
                    out,
                    "{call} ran out of fuel after {} steps (raise --fuel)",
                    report.steps
                ),
                None => writeln!(out, "{call} stopped after {} steps", report.steps),
                Some(f) => writeln!(out, "{call} ended in a fault: {}", f.message),
            }
            .and_then(|()| {
                writeln!(
                    out,
                    "$v0 = {} (0x{:08x})\n$v1 = {} (0x{:08x})",
                    report.v0, report.v0 as u32, report.v1, report.v1 as u32
                )
            })
            .map_err(CliError::stdout)?;
        }
    }
    super::finish(out)?;
    Ok(ExitCode::from(code))
}

/// Lists `function` of the ELF file at `path` (every function when `None`): one line
/// per instruction with its address and word, in `objdump -M no-aliases` syntax.
pub fn disasm(path: &Path, function: Option<&str>) -> Result<ExitCode, CliError> {
    let file = super::program_name(path);
    let image = load_image(path)?;
    let functions: Vec<(String, Symbol)> = match function {
        Some(name) => {
            let f = find_function(&image, &file, name)?;
            vec![(name.to_string(), f)]
        }
        None => image
            .functions()
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect(),
    };
    let mut out = super::stdout();
    for (k, (name, f)) in functions.iter().enumerate() {
        let Some((start, end)) = calls::extent(&image, f.addr) else {
            continue;
        };
        let text = listing(&image, name, start, end);
        let sep = if k == 0 { "" } else { "\n" };
        write!(out, "{sep}{text}").map_err(CliError::stdout)?;
    }
    super::finish(out)?;
    Ok(ExitCode::SUCCESS)
}

/// The listing of `[start, end)` under the label `name`.
fn listing(image: &Image, name: &str, start: u32, end: u32) -> String {
    let mut s = format!("{start:08x} <{name}>:\n");
    for pc in (start..end).step_by(4) {
        let Some(w) = image.word(pc) else { break };
        let text = match isa::decode(w) {
            Some(i) => {
                let mut t = i.text(pc);
                if let Some(target) = i.static_target(pc) {
                    if let Some(callee) = image.undefined_jump(target) {
                        t.push_str(&format!(" <{callee}>"));
                    } else if let Some((fname, f)) = image
                        .functions()
                        .into_iter()
                        .find(|(_, f)| f.addr == target)
                    {
                        let _ = f;
                        t.push_str(&format!(" <{fname}>"));
                    } else if (start..end).contains(&target) {
                        t.push_str(&format!(" <{name}+0x{:x}>", target - start));
                    }
                }
                t
            }
            None => "(not an instruction of the MIPS32 profile)".to_string(),
        };
        s.push_str(&format!("  {pc:8x}:\t{w:08x}\t{text}\n"));
    }
    s
}

/// `compare`'s options for MIPS32 functions.
#[derive(Debug, Default, clap::Args)]
pub struct CompareArgs {
    /// For MIPS32 ELF files: the function to compare, in both files unless
    /// --right-function names RIGHT's.
    #[arg(long, value_name = "NAME", help_heading = "MIPS32 functions")]
    pub function: Option<String>,
    /// RIGHT's function, when its name differs from --function's.
    #[arg(
        long,
        value_name = "NAME",
        requires = "function",
        help_heading = "MIPS32 functions"
    )]
    pub right_function: Option<String>,
    /// How many of $a0..$a3 are inputs (the others are 0).
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u8).range(0..=4), help_heading = "MIPS32 functions")]
    pub args: u8,
    /// Prove for runs of any length: `equivalent` then means that on every input both
    /// programs (or functions) run forever or both end alike (loops are proved by an
    /// invariant); a run out of fuel is then no difference unless --out-of-fuel says.
    #[arg(long, help_heading = "Runs of any length")]
    pub unbounded: bool,
    /// With --unbounded: write the loop proof's certificate into DIR (created if need
    /// be): one SMT-LIB 2 file per check, each of which every solver must answer
    /// `unsat` (`for f in DIR/*.smt2; do cvc5 $f; done`), and an index.
    #[arg(long, value_name = "DIR", help_heading = "Runs of any length")]
    pub certificate: Option<std::path::PathBuf>,
}

/// The usage error for `--certificate` without `--unbounded`.
pub fn certificate_needs_unbounded() -> CliError {
    CliError::Usage(
        "--certificate writes the certificate of a loop proof: give it with --function NAME \
         --unbounded"
            .into(),
    )
}

/// What `compare` needs to compare two functions.
pub struct CompareTask<'a> {
    pub left: &'a Path,
    pub right: &'a Path,
    pub names: &'a CompareArgs,
    /// The registers compared when both return.
    pub observe: Vec<tamarin_mips::Reg>,
    pub fuel: u64,
    pub timeout: Option<std::time::Duration>,
    pub format: OutputFormat,
    /// `--assume` texts.
    pub assume: &'a [String],
    pub solver: tamarin::SolverConfig,
    /// The bounded search: every path, the merged encoding, or both in turn.
    pub engine: tamarin::Engine,
}

#[derive(Serialize)]
struct CompareJson {
    schema: u32,
    verdict: &'static str,
    left: SideJson,
    right: SideJson,
    observe: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<ProofJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counterexample: Option<CounterexampleJson>,
    reasons: Vec<ReasonJson>,
    stats: StatsJson,
}

#[derive(Serialize)]
struct SideJson {
    file: String,
    function: String,
}

#[derive(Serialize)]
struct ProofJson {
    /// The step bound of the claim; `null` for runs of any length.
    fuel: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    termination: Option<&'static str>,
    /// The invariant at each place of the two runs (loop proofs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    invariant: Option<serde_json::Map<String, serde_json::Value>>,
    /// The folder the loop proof's certificate was written to (`--certificate`).
    certificate: Option<String>,
}

fn proof_json(report: &tamarin::FunctionReport, fuel: u64) -> Option<ProofJson> {
    let u = report.unbounded.as_ref();
    let equivalent = matches!(report.verdict, tamarin::FunctionVerdict::Equivalent);
    if !equivalent && u.is_none() {
        return None;
    }
    let invariant = u.and_then(|u| u.certificate.as_ref()).map(|c| {
        c.invariant
            .iter()
            .map(|(place, facts)| (place.clone(), serde_json::Value::from(facts.clone())))
            .collect()
    });
    Some(match u {
        None => ProofJson {
            fuel: Some(fuel),
            method: None,
            termination: None,
            invariant: None,
            certificate: None,
        },
        Some(u) => ProofJson {
            fuel: None,
            method: Some(u.method),
            termination: Some(u.termination),
            invariant,
            certificate: u
                .certificate_files
                .as_ref()
                .map(|c| c.dir.display().to_string()),
        },
    })
}

#[derive(Serialize)]
struct CounterexampleJson {
    args: serde_json::Map<String, serde_json::Value>,
    left: EndJson,
    right: EndJson,
}

#[derive(Serialize)]
pub(crate) struct EndJson {
    pub(crate) status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fault: Option<&'static str>,
    pub(crate) observed: Vec<i32>,
    pub(crate) steps: u64,
}

#[derive(Serialize)]
struct ReasonJson {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

#[derive(Serialize)]
struct StatsJson {
    engine: &'static str,
    paths: [usize; 2],
    queries: u64,
    millis: u128,
}

pub(crate) fn end_json(run: &tamarin::FunctionRun) -> EndJson {
    let (status, fault) = match run.status {
        Status::Returned => ("returned", None),
        Status::OutOfFuel => ("out-of-fuel", None),
        Status::Stopped => ("stopped", None),
        Status::Error(f) => ("fault", Some(f.kind.name())),
    };
    EndJson {
        status,
        fault,
        observed: run.observed.iter().map(|&v| v as i32).collect(),
        steps: run.steps,
    }
}

fn end_text(run: &tamarin::FunctionRun, observe: &[String]) -> String {
    match run.status {
        Status::Returned => {
            let values: Vec<String> = observe
                .iter()
                .zip(&run.observed)
                .map(|(r, &v)| format!("{r} = {}", v as i32))
                .collect();
            format!("returns {}", values.join(", "))
        }
        Status::Error(f) => format!("ends in a fault: {f}"),
        Status::OutOfFuel => "runs out of fuel".into(),
        Status::Stopped => "was stopped".into(),
    }
}

fn reason_text(g: &tamarin::FunctionGap, fuel: u64) -> String {
    use tamarin::FunctionGap as G;
    match g {
        G::Fuel => format!("some runs take more than {fuel} steps (raise --fuel)"),
        G::Paths => "more paths than the limit".into(),
        G::Time => "the time limit passed (raise --timeout, or 0 for none)".into(),
        G::Addresses => "an address or jump target took too many values".into(),
        G::Solver(why) => format!("the solver could not decide ({why})"),
        G::Replay => "the solver's difference did not replay (a fault of this tool)".into(),
        G::Termination => "equal whenever both return was proved for runs of any length, \
             but one function may run on where the other returns"
            .into(),
        G::Invariant(why) => format!("no loop invariant was proved ({why})"),
    }
}

/// How a claim for runs of any length was proved, for its text: `by_paths` when every
/// run ended within the fuel, else the loop proof's schedule and what it says of
/// termination.
fn how_proved(u: &tamarin::UnboundedProof, by_paths: &'static str) -> &'static str {
    match (u.method, u.termination) {
        ("paths", _) => by_paths,
        (_, "ranking") => {
            "one run after the other, an inductive invariant at the loop heads and a \
             decreasing measure for every loop: both end, and alike"
        }
        _ => "an inductive invariant at the loop heads: both run forever, or both end alike",
    }
}

/// The text of an `equivalent` for runs of any length, with the invariant.
fn unbounded_text(
    u: &tamarin::UnboundedProof,
    inputs: &str,
    elapsed: std::time::Duration,
) -> String {
    let how = how_proved(
        u,
        "every run returns or faults within the fuel, and all were followed",
    );
    let mut t = format!(
        "equivalent: for every input{inputs}, runs of any length ({how}; {:.2} s)\n",
        elapsed.as_secs_f64()
    );
    t.push_str(&relations_text(u));
    t
}

/// The text of an `equivalent` of two CS241 programs for runs of any length: `for
/// every {inputs}`, what agrees (`observed`), how, and the invariant.
pub(crate) fn unbounded_claim(u: &tamarin::UnboundedProof, inputs: &str, observed: &str) -> String {
    let how = how_proved(
        u,
        "every run of both programs ends within the fuel, and all were followed",
    );
    let mut t = format!(
        "equivalent: for every {inputs}, runs of any length: the programs agree on {observed} \
         whenever they end ({how})\n"
    );
    t.push_str(&relations_text(u));
    t
}

/// The facts of a loop proof that tie the sides together, a line per place.
fn relations_text(u: &tamarin::UnboundedProof) -> String {
    let mut t = String::new();
    if let Some(c) = &u.certificate {
        // The facts that tie the sides together; all of them are in --format json.
        for (place, facts) in &c.relations {
            if !facts.is_empty() {
                t.push_str(&format!("  at {place}: {}\n", facts.join(", ")));
            }
        }
    }
    t
}

/// The line that says where the certificate went, when `--certificate` was given.
fn certificate_text(report: &tamarin::FunctionReport, asked: bool) -> String {
    let u = report.unbounded.as_ref();
    match u.and_then(|u| u.certificate_files.as_ref()) {
        Some(c) => format!(
            "certificate: {} ({} check{})\n",
            c.dir.display(),
            c.checks,
            if c.checks == 1 { "" } else { "s" }
        ),
        None if !asked => String::new(),
        None if u.is_some_and(|u| u.method == "paths") => {
            "certificate: none (no loop proof: every run was followed to its end)\n".into()
        }
        None => "certificate: none (no loop invariant was proved)\n".into(),
    }
}

/// Compares two functions of ELF files: exit status 0 equivalent, 1 different, 3
/// undecided.
pub fn compare(task: CompareTask<'_>) -> Result<ExitCode, CliError> {
    if task.names.certificate.is_some() && !task.names.unbounded {
        return Err(certificate_needs_unbounded());
    }
    let (lfile, rfile) = (
        super::program_name(task.left),
        super::program_name(task.right),
    );
    let (lelf, relf) = (is_elf_file(task.left), is_elf_file(task.right));
    if !lelf || !relf {
        let (file, elf) = if !lelf {
            (&lfile, lelf)
        } else {
            (&rfile, relf)
        };
        return Err(wrong_kind(file, elf, "comparing functions (--function)"));
    }
    let Some(lname) = task.names.function.as_deref() else {
        let image = load_image(task.left)?;
        let known: Vec<&str> = image.functions().into_iter().map(|(n, _)| n).collect();
        return Err(CliError::Usage(format!(
            "{lfile} is a MIPS32 ELF file: name the function to compare with --function NAME \
             (the file defines {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    };
    let rname = task.names.right_function.as_deref().unwrap_or(lname);
    let (limage, rimage) = (load_image(task.left)?, load_image(task.right)?);
    let lf = find_function(&limage, &lfile, lname)?;
    let rf = find_function(&rimage, &rfile, rname)?;
    let assume = preconditions(task.assume)?;
    let opts = tamarin::FunctionOptions {
        assume,
        solver: task.solver.clone(),
        args: task.names.args as usize,
        observe: task.observe.clone(),
        fuel: task.fuel,
        timeout: task.timeout,
        interrupt: crate::interrupt::flag(),
        unbounded: task.names.unbounded,
        engine: task.engine,
        certificate: task.names.certificate.clone(),
        ..tamarin::FunctionOptions::default()
    };
    let report = tamarin::compare_functions(
        tamarin::FunctionSide {
            image: &limage,
            entry: lf.addr,
        },
        tamarin::FunctionSide {
            image: &rimage,
            entry: rf.addr,
        },
        &opts,
    )
    .map_err(|e| CliError::Usage(e.to_string()))?;
    let observe: Vec<String> = task
        .observe
        .iter()
        .map(|&r| format!("${}", isa::reg_name(r)))
        .collect();
    let (verdict, code) = match &report.verdict {
        tamarin::FunctionVerdict::Equivalent => ("equivalent", 0u8),
        tamarin::FunctionVerdict::Disequivalent(_) => ("disequivalent", 1),
        tamarin::FunctionVerdict::PossiblyEquivalent(_) => ("possibly-equivalent", 3),
    };
    let arg_names: Vec<String> = (0..opts.args).map(|k| format!("$a{k}")).collect();
    let mut out = super::stdout();
    match task.format {
        OutputFormat::Json => {
            let (counterexample, reasons) = match &report.verdict {
                tamarin::FunctionVerdict::Disequivalent(cx) => {
                    let args = arg_names
                        .iter()
                        .zip(&cx.args)
                        .map(|(n, &v)| (n.clone(), serde_json::Value::from(v as i32)))
                        .collect();
                    let cx = CounterexampleJson {
                        args,
                        left: end_json(&cx.left),
                        right: end_json(&cx.right),
                    };
                    (Some(cx), Vec::new())
                }
                tamarin::FunctionVerdict::PossiblyEquivalent(gaps) => {
                    let reasons = gaps
                        .iter()
                        .map(|g| ReasonJson {
                            kind: g.kind(),
                            detail: match g {
                                tamarin::FunctionGap::Solver(why)
                                | tamarin::FunctionGap::Invariant(why) => Some(why.clone()),
                                _ => None,
                            },
                        })
                        .collect();
                    (None, reasons)
                }
                tamarin::FunctionVerdict::Equivalent => (None, Vec::new()),
            };
            let json = CompareJson {
                schema: tamarin_grade::SCHEMA_VERSION,
                verdict,
                left: SideJson {
                    file: lfile.clone(),
                    function: lname.to_string(),
                },
                right: SideJson {
                    file: rfile.clone(),
                    function: rname.to_string(),
                },
                observe: observe.clone(),
                proof: proof_json(&report, task.fuel),
                counterexample,
                reasons,
                stats: StatsJson {
                    engine: report.engine.name(),
                    paths: [report.paths.0, report.paths.1],
                    queries: report.queries,
                    millis: report.elapsed.as_millis(),
                },
            };
            serde_json::to_writer(&mut out, &json).map_err(|e| CliError::stdout(e.into()))?;
            writeln!(out).map_err(CliError::stdout)?;
        }
        OutputFormat::Text => {
            let text = match &report.verdict {
                tamarin::FunctionVerdict::Equivalent => {
                    let inputs = if task.assume.is_empty() {
                        ""
                    } else {
                        " the preconditions allow"
                    };
                    match &report.unbounded {
                        None if report.engine == tamarin::Engine::Bmc => format!(
                            "equivalent: for every input{inputs}, runs of up to {} steps (merged encoding, {:.2} s)\n",
                            task.fuel,
                            report.elapsed.as_secs_f64()
                        ),
                        None => format!(
                            "equivalent: for every input{inputs}, runs of up to {} steps ({} and {} paths, {:.2} s)\n",
                            task.fuel,
                            report.paths.0,
                            report.paths.1,
                            report.elapsed.as_secs_f64()
                        ),
                        Some(u) => unbounded_text(u, inputs, report.elapsed),
                    }
                }
                tamarin::FunctionVerdict::Disequivalent(cx) => {
                    let call = |name: &str| {
                        let args: Vec<String> =
                            cx.args.iter().map(|&v| (v as i32).to_string()).collect();
                        format!("{name}({})", args.join(", "))
                    };
                    // A difference after many trips (found past the fuel, where a loop
                    // proof broke) needs more fuel to show again.
                    let fuel = match fuel_to_show(cx.left.steps.max(cx.right.steps), task.fuel) {
                        Some(f) => format!(" --fuel {f}"),
                        None => String::new(),
                    };
                    let replay = |file: &str, name: &str| {
                        let mut c =
                            format!("tamarin run {} --function {name}", shell_words::quote(file));
                        for (k, v) in cx.args.iter().enumerate() {
                            c.push_str(&format!(" --a{k} {}", *v as i32));
                        }
                        c.push_str(&fuel);
                        c
                    };
                    let mut why = format!(
                        "tamarin explain {} {} --function {lname}",
                        shell_words::quote(&lfile),
                        shell_words::quote(&rfile)
                    );
                    if rname != lname {
                        why.push_str(&format!(" --right-function {rname}"));
                    }
                    for (k, v) in cx.args.iter().enumerate() {
                        why.push_str(&format!(" --a{k} {}", *v as i32));
                    }
                    why.push_str(&fuel);
                    format!(
                        "disequivalent:\n  left:  {} {}\n  right: {} {}\nreplay:\n  {}\n  {}\nwhy: {why}\n",
                        call(lname),
                        end_text(&cx.left, &observe),
                        call(rname),
                        end_text(&cx.right, &observe),
                        replay(&lfile, lname),
                        replay(&rfile, rname)
                    )
                }
                tamarin::FunctionVerdict::PossiblyEquivalent(gaps) => {
                    let mut t = format!(
                        "possibly-equivalent: no difference found in {:.2} s, but not proved:\n",
                        report.elapsed.as_secs_f64()
                    );
                    for g in gaps {
                        t.push_str(&format!("  - {}\n", reason_text(g, task.fuel)));
                    }
                    t
                }
            };
            let text = if matches!(report.verdict, tamarin::FunctionVerdict::Disequivalent(_)) {
                text
            } else {
                text + &certificate_text(&report, task.names.certificate.is_some())
            };
            out.write_all(text.as_bytes()).map_err(CliError::stdout)?;
        }
    }
    super::finish(out)?;
    Ok(ExitCode::from(code))
}
