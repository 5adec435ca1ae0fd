//! MIPS32 functions in ELF files on the command line: telling such a file from a
//! CS241 program, reading it, finding the function a command names, running it once
//! (`run F.o --function NAME --a0 5`) and listing it (`disasm F.o --function NAME`).

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use tamarin_mips::cpu::Stop;
use tamarin_mips::mips32::{abi, calls, elf, isa, Image, Machine, Status, Symbol};

use crate::args::OutputFormat;
use crate::diag::CliError;

/// Whether the file at `path` starts with the ELF magic (a missing or unreadable file
/// is not: the CS241 reader then reports it as it always has).
pub fn is_elf_file(path: &Path) -> bool {
    if super::is_stdin(path) {
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
