//! `tamarin run PROG`: runs a program once on given inputs and reports the result.

use std::io::{self, BufRead, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use tamarin_mips::cpu::{self, FaultKind};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::{Config, Frontend, Outcome, Program, Status, Stop};

use crate::args::{
    parse_count, parse_mem_range, parse_word, FrontendArgs, InputFormatOpt, OutputFormat,
    TerminationOpt, NUMBER_HELP,
};
use crate::diag::CliError;

/// The default step limit of `run`.
pub const DEFAULT_FUEL: u64 = 100_000_000;

/// Run a program once and print its status, registers and output.
///
/// The bytes the program writes to 0xFFFF000C go to standard output as they are, and
/// the report (status, registers) to standard error; --report prints the whole report,
/// the output included, on standard output instead, and --format json one JSON object
/// there. On a terminal without --r1/--r2/--reg/--array, it asks for $1 and $2 the way
/// mips.twoints does (--array-stdin: for an array, as mips.array does); piped standard
/// input is read only with --twoints or --array-stdin (or --stdin -).
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The program (.asm/.s assembly or .mips/.bin binary; `-`: standard input, read
    /// as assembly unless --input-format bin).
    #[arg(value_name = "PROG")]
    pub program: PathBuf,
    #[command(flatten)]
    pub frontend: FrontendArgs,
    /// The most instructions to execute before giving up (out of fuel).
    #[arg(long, value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true, default_value_t = DEFAULT_FUEL)]
    pub fuel: u64,
    /// A file whose bytes the program reads from 0xFFFF0004 (`-`: this tool's stdin);
    /// by default the program's input is empty.
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
    /// How to print the report.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Print the whole text report on standard output, the program's output inside it
    /// (by default the output's bytes go to standard output and the report to standard
    /// error).
    #[arg(long)]
    pub report: bool,
    /// Also report the memory words from A to B at the end of the run: word-aligned
    /// addresses, both included, at most 65536 words (such as 0x0..0x1c).
    #[arg(long, value_name = "A..B", value_parser = parse_mem_range)]
    pub show_mem: Option<(u32, u32)>,
    #[command(flatten)]
    pub input_format: InputFormatOpt,
    #[command(flatten)]
    pub termination: TerminationOpt,
    /// A task file (as `grade --task` takes it): its fuel, termination address, input
    /// format and array base apply, as in the task's comparisons, options on the
    /// command line winning over them.
    #[arg(long, value_name = "FILE")]
    pub task: Option<PathBuf>,
    #[command(flatten)]
    pub function: FunctionArgs,
}

/// Running one function of a MIPS32 ELF file (an object built with `-fno-pic
/// -mno-abicalls`, or a static executable), called as o32 calls it.
#[derive(Debug, Default, ClapArgs)]
pub struct FunctionArgs {
    /// The function to run, when PROG is a MIPS32 ELF file: it gets $a0..$a3, and the
    /// report gives $v0 and $v1 when it returns.
    #[arg(long, value_name = "NAME", help_heading = "MIPS32 functions")]
    pub function: Option<String>,
    #[command(flatten)]
    pub values: super::function_explain::ArgValues,
}

/// Runs a function of an ELF file, refusing the options that are CS241's.
fn run_function(args: &Args) -> Result<ExitCode, CliError> {
    let file = super::program_name(&args.program);
    let Some(name) = &args.function.function else {
        let image = super::function::load_image(&args.program)?;
        let known: Vec<&str> = image.functions().into_iter().map(|(n, _)| n).collect();
        return Err(CliError::Usage(format!(
            "{file} is a MIPS32 ELF file: name the function to run with --function NAME \
             (the file defines {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    };
    let others = [
        ("--stdin", args.stdin.is_some()),
        ("--show-mem", args.show_mem.is_some()),
        ("--report", args.report),
        ("--task", args.task.is_some()),
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
    super::function::run(
        &args.program,
        name,
        args.function.values.values(),
        args.fuel,
        args.format,
    )
}

/// Takes from the `--task` file the settings of a run that the command line does not
/// give.
fn apply_task(args: &mut Args) -> Result<(), CliError> {
    let Some(path) = &args.task else {
        return Ok(());
    };
    let task = tamarin_grade::Task::read(path)?;
    let mut line = tamarin_grade::Line::default();
    task.apply(&mut line, &|_| false)?;
    let given = super::search::given_on_command_line("run");
    let take = |key: &str| task.has(key) && !given.contains(&key.replace('-', "_"));
    if take("fuel") {
        if line.search.fuel_auto {
            return Err(CliError::Usage(format!(
                "the task file {} sizes its fuel from the reference's runs (`fuel = \"auto\"`): \
                 give --fuel N (grade's report states the fuel it used)",
                path.display()
            )));
        }
        args.fuel = line.search.fuel;
    }
    if take("termination") {
        args.termination.termination = line.search.termination;
    }
    if take("input-format") {
        args.input_format.input_format = match line.search.input_format {
            Some(tamarin_mips::InputFormat::Bin) => Some(crate::args::InputFormatArg::Bin),
            Some(tamarin_mips::InputFormat::Asm) => Some(crate::args::InputFormatArg::Asm),
            Some(tamarin_mips::InputFormat::Merl) => Some(crate::args::InputFormatArg::Merl),
            None => None,
        };
    }
    if take("link") {
        args.input_format.link = line.search.link;
    }
    if take("array-base") && (args.frontend.array.is_some() || args.frontend.array_stdin) {
        args.frontend.array_base = line.search.array_base;
    }
    Ok(())
}

pub fn execute(mut args: Args) -> Result<ExitCode, CliError> {
    if super::function::is_elf_file(&args.program) {
        return run_function(&args);
    }
    if args.function.function.is_some() || args.function.values.any() {
        let file = super::program_name(&args.program);
        return Err(super::function::wrong_kind(
            &file,
            false,
            "--function/--a0..--a3",
        ));
    }
    apply_task(&mut args)?;
    if args.report && args.format == OutputFormat::Json {
        return Err(CliError::Usage(
            "--report is for the text report; --format json prints everything on \
             standard output already"
                .into(),
        ));
    }
    let fe = &args.frontend;
    let program_stdin = super::is_stdin(&args.program);
    let input_stdin = args.stdin.as_deref().is_some_and(super::is_stdin);
    let terminal = super::stdin_is_terminal();
    let ask = if fe.array_stdin {
        Some(Ask::Array)
    } else if fe.twoints
        || (terminal
            && fe.r1.is_none()
            && fe.r2.is_none()
            && fe.array.is_none()
            && fe.regs.is_empty()
            && !program_stdin
            && !input_stdin)
    {
        Some(Ask::TwoInts)
    } else {
        None
    };
    super::stdin_once(&[
        ("the program `-`", program_stdin),
        ("--stdin -", input_stdin),
        (
            if fe.array_stdin {
                "--array-stdin"
            } else {
                "--twoints"
            },
            fe.twoints || fe.array_stdin,
        ),
    ])?;
    super::set_link(&args.input_format.link)?;
    let program = super::load_program(&args.program, args.input_format.format())?;
    let frontend = match ask {
        Some(ask) => read_frontend(ask, terminal, fe.array_base)?,
        None => fe.frontend(),
    };
    let input = match &args.stdin {
        Some(path) => super::read_data("the input file", path, args.fuel)?,
        None => Vec::new(),
    };
    let mut config = Config::with_fuel(args.fuel);
    config.termination = args.termination.termination;
    config.stop = Stop::default().with_flag(crate::interrupt::flag());
    let mut machine = cpu::Machine::new(&program, config);
    machine.apply(&frontend)?;
    for &(r, v) in &args.frontend.regs {
        machine.set_reg(r, v);
    }
    machine.set_input(std::sync::Arc::from(input));
    // Piped standard input that nothing here reads is ignored: say so, and name the
    // option that would use it.
    let unread = ask.is_none() && !program_stdin && !input_stdin;
    let mut reads = InputReads::default();
    let outcome = machine.run_to_outcome(&mut reads);
    if unread && stdin_has_data() {
        eprintln!("warning: {}", ignored_stdin_warning(&args, reads.0));
    }
    let memory = args.show_mem.map(|(from, to)| {
        let words = (from..=to).step_by(4).map(|a| machine.read_word(a));
        (from, words.collect::<Vec<u32>>())
    });
    let name = super::program_name(&args.program);
    let report = Report {
        outcome: &outcome,
        source: Some((&name, &program)),
        hint: fell_off_hint(&outcome, &program),
        memory,
    };
    let mut out = super::stdout();
    match args.format {
        OutputFormat::Json => write_json(&mut out, &report).map_err(CliError::stdout)?,
        OutputFormat::Text if args.report => {
            write_text(&mut out, &report, true).map_err(CliError::stdout)?
        }
        OutputFormat::Text => {
            // The program's bytes, then the report; the report comes even when
            // standard output fails.
            let written = out
                .write_all(&outcome.output)
                .and_then(|()| out.flush())
                .map_err(CliError::stdout);
            let mut err = io::stderr().lock();
            // On a terminal, the report starts on a line of its own.
            if io::stdout().is_terminal() && outcome.output.last().is_some_and(|&b| b != b'\n') {
                let _ = writeln!(err);
            }
            let _ = write_text(&mut err, &report, false);
            written?;
        }
    }
    super::finish(out)?;
    Ok(ExitCode::SUCCESS)
}

/// A tracer that notes whether the program read standard input (0xFFFF0004).
#[derive(Default)]
struct InputReads(bool);

impl tamarin_mips::cpu::Tracer for InputReads {
    #[inline(always)]
    fn exec(&mut self, _pc: u32, _instr: tamarin_mips::Instr, event: tamarin_mips::cpu::Event) {
        if let tamarin_mips::cpu::Event::Input(_) = event {
            self.0 = true;
        }
    }
}

/// Whether this tool's standard input holds piped data, asked after the run: a file
/// that is not empty, or a pipe or socket with bytes waiting in it (asked without
/// reading any, so a pipe that other commands share loses nothing; a writer that has
/// not written yet gets a moment). A terminal, /dev/null, an empty or silent pipe is
/// no data.
fn stdin_has_data() -> bool {
    if super::stdin_is_terminal() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::fd::{AsFd, AsRawFd};
        use std::os::unix::fs::FileTypeExt;
        let stdin = io::stdin();
        let fd0 = stdin.as_fd().as_raw_fd();
        // The metadata of a duplicate, closed again when the file is dropped.
        let Ok(owned) = stdin.as_fd().try_clone_to_owned() else {
            return false;
        };
        let Ok(meta) = std::fs::File::from(owned).metadata() else {
            return false;
        };
        let kind = meta.file_type();
        if kind.is_file() {
            // Bytes past the file's offset (a shell loop may have read the rest).
            // SAFETY: lseek on an open descriptor, moving nothing (SEEK_CUR by 0).
            let at = unsafe { libc::lseek(fd0, 0, libc::SEEK_CUR) };
            return at >= 0 && meta.len() > at as u64;
        }
        if !(kind.is_fifo() || kind.is_socket()) {
            return false;
        }
        let mut poll = libc::pollfd {
            fd: fd0,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, and the descriptor stays open (it is stdin).
        let ready = unsafe { libc::poll(&mut poll, 1, 200) };
        if ready <= 0 {
            return false;
        }
        let mut waiting: libc::c_int = 0;
        // SAFETY: FIONREAD writes one c_int, the bytes waiting; nothing is read.
        let ok = unsafe { libc::ioctl(fd0, libc::FIONREAD, &mut waiting) };
        ok == 0 && waiting > 0
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// The warning for piped standard input that `run` did not read: where the run's
/// inputs came from, and the option that reads the pipe (`--stdin -` when the program
/// read its own input, found empty).
fn ignored_stdin_warning(args: &Args, program_read_input: bool) -> String {
    let fe = &args.frontend;
    let given = if fe.array.is_some() {
        "the array of --array"
    } else if fe.r1.is_some() || fe.r2.is_some() || !fe.regs.is_empty() {
        "the registers of --r1, --r2 and --reg (the others 0)"
    } else {
        "$1 = 0 and $2 = 0"
    };
    let program_input = match &args.stdin {
        Some(_) => "the program read the file of --stdin",
        None if program_read_input => "the program read standard input and found it empty",
        None => "the program's standard input is empty",
    };
    let option = if program_read_input && args.stdin.is_none() {
        "--stdin - gives the piped bytes to the program; --twoints reads $1 and $2 from \
         them, --array-stdin an array"
    } else {
        "--twoints reads $1 and $2 from them, --array-stdin an array; --stdin - gives \
         them to the program"
    };
    format!(
        "standard input is piped but not read: the run used {given}, and {program_input} \
         ({option})"
    )
}

/// What `run` reports: the outcome and what goes with it.
pub struct Report<'a> {
    pub outcome: &'a Outcome,
    /// The program's name and the program, for the source line of a failing
    /// instruction of an assembled program.
    pub source: Option<(&'a str, &'a Program)>,
    /// Why the run probably failed, when the tool can tell.
    pub hint: Option<String>,
    /// The words of `--show-mem`: the first address and the words from there.
    pub memory: Option<(u32, Vec<u32>)>,
}

/// The hint for a run that fell off the end of its program: the pc reached the first
/// word past the image (which does not decode, unless an array placed there does).
pub fn fell_off_hint(outcome: &Outcome, program: &Program) -> Option<String> {
    let end = u32::try_from(program.words().len()).ok()?.checked_mul(4)?;
    match outcome.status {
        Status::Error(f) if f.kind == FaultKind::InvalidInstruction && f.pc == end => {
            Some(format!(
                "ran past the end of the program at pc {end:#010x} (is a final jr $31 missing?)"
            ))
        }
        _ => None,
    }
}

/// Which inputs to read from standard input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    /// `$1` and `$2`.
    TwoInts,
    /// A length, then that many elements.
    Array,
}

/// The longest array read: as many words as memory holds.
const MAX_ARRAY_LEN: u32 = MEM_SIZE / 4;

/// Reads the inputs from standard input: by prompting on a terminal, as numbers
/// separated by white space otherwise.
fn read_frontend(ask: Ask, terminal: bool, base: Option<u32>) -> Result<Frontend, CliError> {
    let words = if terminal {
        prompt_inputs(ask, &mut io::stdin().lock(), &mut io::stderr())?
    } else {
        let mut bytes = Vec::new();
        io::stdin()
            .lock()
            .take(super::MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::Inputs(e.to_string()))?;
        if bytes.len() as u64 > super::MAX_INPUT_BYTES {
            return Err(CliError::Inputs("it is longer than 256 MiB".into()));
        }
        parse_inputs(ask, &bytes)?
    };
    Ok(match ask {
        Ask::TwoInts => Frontend::TwoInts(words[0], words[1]),
        Ask::Array => Frontend::Array { elems: words, base },
    })
}

/// Checks an array's length.
fn check_length(v: u32) -> Result<(), String> {
    if v as i32 > MAX_ARRAY_LEN as i32 || (v as i32) < 0 {
        Err(format!(
            "an array's length must lie between 0 and {MAX_ARRAY_LEN}, the words memory holds"
        ))
    } else {
        Ok(())
    }
}

/// Reads the inputs from piped text: two numbers, or a length and that many numbers.
fn parse_inputs(ask: Ask, bytes: &[u8]) -> Result<Vec<u32>, CliError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| CliError::Inputs("it is not UTF-8 text; expected numbers".into()))?;
    let mut tokens = text.split_whitespace();
    let mut next = |what: &str| -> Result<u32, CliError> {
        let t = tokens.next().ok_or_else(|| {
            CliError::Inputs(format!("it ends before {what}; expected {}", expected(ask)))
        })?;
        parse_word(t).map_err(|e| CliError::Inputs(format!("{what}: {e}")))
    };
    let words = match ask {
        Ask::TwoInts => vec![next("the value of $1")?, next("the value of $2")?],
        Ask::Array => {
            let len = next("the array's length")?;
            check_length(len).map_err(|e| CliError::Inputs(format!("the length {len}: {e}")))?;
            (0..len)
                .map(|k| next(&format!("array element {k}")))
                .collect::<Result<Vec<u32>, CliError>>()?
        }
    };
    if let Some(t) = tokens.next() {
        return Err(CliError::Inputs(format!(
            "`{t}` follows the inputs; expected {}",
            expected(ask)
        )));
    }
    Ok(words)
}

/// What the piped inputs should be, in words.
fn expected(ask: Ask) -> &'static str {
    match ask {
        Ask::TwoInts => "two numbers, the values of $1 and $2",
        Ask::Array => "the array's length, then that many numbers",
    }
}

/// Asks for the inputs on a terminal, the way mips.twoints and mips.array do: a line
/// per number; a bad one is asked for again, with the reason.
fn prompt_inputs(
    ask: Ask,
    input: &mut dyn BufRead,
    prompts: &mut dyn Write,
) -> Result<Vec<u32>, CliError> {
    let no_check = |_: u32| Ok(());
    match ask {
        Ask::TwoInts => Ok(vec![
            prompt(input, prompts, "Enter value for register 1: ", &no_check)?,
            prompt(input, prompts, "Enter value for register 2: ", &no_check)?,
        ]),
        Ask::Array => {
            let len = prompt(input, prompts, "Enter length of array: ", &check_length)?;
            (0..len)
                .map(|k| {
                    prompt(
                        input,
                        prompts,
                        &format!("Enter array element {k}: "),
                        &no_check,
                    )
                })
                .collect()
        }
    }
}

/// Prints `text` and reads a number from the next line, until one is good.
fn prompt(
    input: &mut dyn BufRead,
    prompts: &mut dyn Write,
    text: &str,
    check: &dyn Fn(u32) -> Result<(), String>,
) -> Result<u32, CliError> {
    loop {
        let _ = write!(prompts, "{text}");
        let _ = prompts.flush();
        let mut line = Vec::new();
        let n = input
            .read_until(b'\n', &mut line)
            .map_err(|e| CliError::Inputs(e.to_string()))?;
        if n == 0 {
            let _ = writeln!(prompts);
            let what = text.trim_start_matches("Enter ").trim_end_matches(": ");
            return Err(CliError::Inputs(format!("it ended before the {what}")));
        }
        let line = String::from_utf8_lossy(&line);
        let answer = line.trim();
        let parsed = if answer.is_empty() {
            Err(format!("expected a number: {NUMBER_HELP}"))
        } else {
            parse_word(answer).and_then(|v| check(v).map(|()| v))
        };
        match parsed {
            Ok(v) => return Ok(v),
            Err(e) => {
                let _ = writeln!(prompts, "{e}");
            }
        }
    }
}

/// `-7 (0xfffffff9)`.
fn value(v: u32) -> String {
    format!("{} ({v:#010x})", v as i32)
}

/// The status line's words: `done after 2 steps`,
/// `error (division-by-zero at pc 0x00000008: …) after 3 steps`.
pub fn status_text(outcome: &Outcome) -> String {
    let steps = outcome.steps;
    let s = if steps == 1 { "" } else { "s" };
    match outcome.status {
        Status::Error(f) => format!("error ({}) after {steps} step{s}: {f}", f.kind),
        other => format!("{} after {steps} step{s}", other.name()),
    }
}

/// Writes the report for people: with the program's output when `with_output`, else
/// only the output's length (the bytes went to standard output).
pub fn write_text(w: &mut dyn Write, report: &Report, with_output: bool) -> io::Result<()> {
    let outcome = report.outcome;
    writeln!(w, "status: {}", status_text(outcome))?;
    if let (Status::Error(f), Some((name, program))) = (outcome.status, report.source) {
        if let Some(line) = program.line_of(f.pc) {
            writeln!(w, "at: {name}:{line}")?;
        }
    }
    if let Some(hint) = &report.hint {
        writeln!(w, "hint: {hint}")?;
    }
    let regs = &outcome.regs;
    writeln!(w, "$3 = {}", value(regs.result()))?;
    let others: Vec<(String, u32)> = (1..32)
        .filter(|&r| r != 3)
        .map(|r| (format!("${r}"), regs.gpr[r]))
        .chain([("hi".to_string(), regs.hi), ("lo".to_string(), regs.lo)])
        .filter(|&(_, v)| v != 0)
        .collect();
    if !others.is_empty() {
        writeln!(w, "other non-zero registers:")?;
        for (name, v) in others {
            writeln!(w, "  {name} = {}", value(v))?;
        }
    }
    if let Some((from, words)) = &report.memory {
        let to = from + 4 * (words.len() as u32 - 1);
        writeln!(w, "memory {from:#010x}..{to:#010x}:")?;
        for (k, &v) in words.iter().enumerate() {
            writeln!(w, "  {:#010x} = {}", from + 4 * k as u32, value(v))?;
        }
    }
    let n = outcome.output.len();
    let bytes = if n == 1 { "byte" } else { "bytes" };
    if n > 0 && !with_output {
        writeln!(w, "output: {n} {bytes}, on standard output")?;
    } else if n > 0 {
        writeln!(w, "output ({n} {bytes}):")?;
        let text = String::from_utf8_lossy(&outcome.output);
        w.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            writeln!(w)?;
        }
    }
    Ok(())
}

/// Writes the report as exactly one JSON object and a newline.
pub fn write_json(w: &mut dyn Write, report: &Report) -> io::Result<()> {
    let mut json = crate::json::RunReport::new(report.outcome);
    json.hint = report.hint.clone();
    json.memory = report
        .memory
        .as_ref()
        .map(|(from, words)| crate::json::MemoryJson::new(*from, words));
    serde_json::to_writer(&mut *w, &json)?;
    writeln!(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompted(ask: Ask, answers: &str) -> (Result<Vec<u32>, CliError>, String) {
        let mut input = io::Cursor::new(answers.as_bytes().to_vec());
        let mut prompts = Vec::new();
        let got = prompt_inputs(ask, &mut input, &mut prompts);
        (got, String::from_utf8(prompts).unwrap())
    }

    #[test]
    fn prompts_ask_again_until_a_number_comes() {
        let (got, text) = prompted(Ask::TwoInts, "x\n7\n\n-0x3\n");
        assert_eq!(got.unwrap(), vec![7, 3u32.wrapping_neg()]);
        assert_eq!(text.matches("Enter value for register 1: ").count(), 2);
        assert_eq!(text.matches("Enter value for register 2: ").count(), 2);
        assert!(text.contains("`x` is not a number"), "{text}");
        assert!(text.contains("expected a number"), "{text}");

        let (got, text) = prompted(Ask::Array, "-1\n2\n5\n0x10\n");
        assert_eq!(got.unwrap(), vec![5, 16]);
        assert!(text.contains("must lie between 0 and"), "{text}");
        assert!(text.contains("Enter array element 1: "), "{text}");
        assert!(!text.contains("Enter array element 2: "), "{text}");
    }

    #[test]
    fn the_end_of_input_while_asking_is_an_error() {
        let (got, _) = prompted(Ask::TwoInts, "7\n");
        let e = got.unwrap_err().to_string();
        assert!(e.contains("value for register 2"), "{e}");
    }

    #[test]
    fn piped_inputs() {
        assert_eq!(
            parse_inputs(Ask::TwoInts, b" 1\n-1 ").unwrap(),
            vec![1, u32::MAX]
        );
        assert_eq!(parse_inputs(Ask::Array, b"0").unwrap(), Vec::<u32>::new());
        assert!(parse_inputs(Ask::Array, b"").is_err());
        assert!(parse_inputs(Ask::TwoInts, b"1 2 3").is_err());
        assert!(parse_inputs(Ask::TwoInts, b"1 \xff").is_err());
        assert!(parse_inputs(Ask::Array, b"0x7fffffff").is_err());
    }
}
