//! An SMT-LIB 2 solver in another process (cvc5, Yices, a Z3 binary, or any command
//! that reads a script on standard input), one process per query.
//!
//! The script is the same text `--dump-smt` writes, followed by `(get-value …)` for
//! the inputs. A process that does not answer within the time limit is killed and the
//! query is `Unknown`; anything but `sat` or `unsat` on the first line is `Unknown` too.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

use super::{Answer, Model, Solver};
use crate::term::{lower_arrays, malformed_memory, to_smtlib, Term, TermStore};

/// Why a query whose memory is not a store chain over a constant array is unknown.
const MALFORMED: &str = "internal error: a malformed memory read reached the solver";

/// A command line that runs an SMT-LIB 2 solver reading standard input.
pub struct ProcessSolver {
    program: String,
    args: Vec<String>,
    timeout: Duration,
    /// The next query's limit when the time left is shorter than `timeout`.
    limit: Option<Duration>,
    /// The first time the command failed to answer like a solver.
    failure: Option<String>,
    label: String,
    /// Queries asked.
    asked: u64,
    /// The most work ([`super::NOMINAL_QUERY_WORK`] a query) all queries may cost.
    work_budget: Option<u64>,
    /// Raised from outside (Ctrl-C): the process of a query in flight is killed
    /// within [`WATCH_PERIOD`].
    interrupt: Option<&'static std::sync::atomic::AtomicBool>,
}

/// How often a query's process is looked at for an interrupt.
const WATCH_PERIOD: Duration = Duration::from_millis(20);

impl ProcessSolver {
    /// `z3`, `cvc5` and `yices` name the usual binaries with their time-limit flags;
    /// anything else is a command line, split as a shell would (`"bitwuzla --smt2"`,
    /// `"'/opt/my solver/bin/z3' -in"`).
    pub fn from_name(name: &str, timeout: Duration) -> Result<ProcessSolver, String> {
        let ms = timeout.as_millis().max(1);
        let secs = ms.div_ceil(1000);
        let (program, args): (&str, Vec<String>) = match name.trim() {
            "z3" => ("z3", vec!["-in".into(), format!("-t:{ms}")]),
            "cvc5" => (
                "cvc5",
                vec!["--lang".into(), "smt2".into(), format!("--tlimit-per={ms}")],
            ),
            "yices" => ("yices-smt2", vec![format!("--timeout={secs}")]),
            other => {
                let words = shell_words::split(other)
                    .map_err(|e| format!("cannot split the solver command `{other}`: {e}"))?;
                let mut words = words.into_iter();
                let Some(p) = words.next() else {
                    return Err("the solver command is empty".into());
                };
                return Ok(ProcessSolver {
                    program: p,
                    args: words.collect(),
                    timeout,
                    limit: None,
                    failure: None,
                    label: other.to_string(),
                    asked: 0,
                    work_budget: None,
                    interrupt: None,
                });
            }
        };
        Ok(ProcessSolver {
            program: program.to_string(),
            args,
            timeout,
            limit: None,
            failure: None,
            label: name.trim().to_string(),
            asked: 0,
            work_budget: None,
            interrupt: None,
        })
    }

    /// Also bounds the queries' work together ([`super::SolverConfig::work_budget`]):
    /// each query counts [`super::NOMINAL_QUERY_WORK`].
    pub fn with_work_budget(mut self, budget: Option<u64>) -> ProcessSolver {
        self.work_budget = budget;
        self
    }

    /// Kills the process of a query in flight once `flag` is raised (Ctrl-C).
    pub fn with_interrupt(mut self, flag: Option<&'static std::sync::atomic::AtomicBool>) -> Self {
        self.interrupt = flag;
        self
    }

    /// Checks that the command starts at all (so a missing binary is a usage error,
    /// not a search full of unknowns).
    /// Checks that the command starts and answers like an SMT-LIB solver: `sat` to a
    /// script asserting `true` (a command that is not a solver is a usage error, not a
    /// search full of unknowns).
    pub fn probe(&self) -> Result<(), String> {
        let mut store = TermStore::new();
        let t = store.bool(true);
        match self.run(&mut store, &[t])? {
            Answer::Sat(_) => Ok(()),
            Answer::Unsat => Err("it answered `unsat` to a script asserting true".into()),
            Answer::Unknown(why) => Err(format!(
                "it does not answer like an SMT-LIB solver (it said `{}`)",
                why.chars().take(80).collect::<String>()
            )),
        }
    }

    fn run(&self, store: &mut TermStore, assertions: &[Term]) -> Result<Answer, String> {
        let script = match Script::new(store, assertions) {
            Ok(s) => s,
            Err(answer) => return Ok(answer),
        };
        let mut running = self.spawn(&script.text)?;
        // The solver's own limit is the per-query timeout; the process is killed a
        // little after it, or when the comparison's time runs out, if that is sooner.
        let wait = match self.limit {
            Some(left) if left < self.timeout => left,
            _ => self.timeout + Duration::from_millis(500),
        };
        // In slices, so that an interrupt is heard while the solver works.
        let until = std::time::Instant::now() + wait;
        let timed_out = loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match running.child.wait_timeout(left.min(WATCH_PERIOD)) {
                Ok(Some(_)) => break false,
                Ok(None) if left <= WATCH_PERIOD => break true,
                Ok(None) => {}
                Err(e) => return Err(e.to_string()),
            }
            if self
                .interrupt
                .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
            {
                running.kill();
                return Ok(Answer::Unknown(super::INTERRUPTED.into()));
            }
        };
        if timed_out {
            running.kill();
            return Ok(Answer::Unknown("timeout".into()));
        }
        let out = running.output();
        parse_answer(store, &script.vars, &out)
    }

    /// Starts the solver on `script` (written to its standard input by a thread, its
    /// output read by another, so neither side blocks on a full pipe).
    pub(super) fn spawn(&self, script: &str) -> Result<Running, String> {
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", self.program))?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let script = script.to_string();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(script.as_bytes());
        });
        let mut stdout = child.stdout.take().ok_or("no stdout")?;
        let reader = std::thread::spawn(move || {
            let mut out = String::new();
            let _ = stdout.read_to_string(&mut out);
            out
        });
        Ok(Running {
            child,
            writer,
            reader,
        })
    }

    /// The solver's name as given.
    pub(super) fn label(&self) -> &str {
        &self.label
    }

    /// Whether the program can be found (a path, or a name on `PATH`).
    pub(super) fn installed(&self) -> bool {
        let program = std::path::Path::new(&self.program);
        if program.components().count() > 1 {
            return program.is_file();
        }
        std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|dir| dir.join(program).is_file())
        })
    }
}

/// A query as an SMT-LIB script, and the inputs whose values it asks for.
pub(super) struct Script {
    pub text: String,
    pub vars: Vec<u32>,
}

impl Script {
    /// The script for `assertions` (memory read as `ite` chains), or the answer
    /// without a solver when its memory is malformed.
    pub fn new(store: &mut TermStore, assertions: &[Term]) -> Result<Script, Answer> {
        // The inputs to ask for are those of the text, which reads memory as ite chains.
        let lowered = lower_arrays(store, assertions);
        if malformed_memory(store, &lowered) {
            return Err(Answer::Unknown(MALFORMED.into()));
        }
        let mut text = to_smtlib(store, &lowered, "");
        let vars = store.vars_of(&lowered);
        if !vars.is_empty() {
            let names: Vec<String> = vars
                .iter()
                .map(|&v| crate::term::smtlib_symbol(store.var_name(v)))
                .collect();
            text.push_str(&format!("(get-value ({}))\n", names.join(" ")));
        }
        text.push_str("(exit)\n");
        Ok(Script { text, vars })
    }

    /// Reads a solver's output as the answer to this script.
    pub fn answer(&self, store: &TermStore, out: &str) -> Result<Answer, String> {
        parse_answer(store, &self.vars, out)
    }
}

/// A solver process at work on one script.
pub(super) struct Running {
    pub child: std::process::Child,
    writer: std::thread::JoinHandle<()>,
    reader: std::thread::JoinHandle<String>,
}

impl Running {
    /// Ends the process. Its helper threads end with the pipes; they are not waited
    /// for, since a process the solver started itself may hold its output open.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// What a process that has exited printed.
    pub fn output(self) -> String {
        let _ = self.writer.join();
        self.reader.join().unwrap_or_default()
    }
}

/// Reads `sat`/`unsat`/`unknown` and, after `sat`, the `get-value` list.
/// Reads the answer; `Err` when the output is not an SMT-LIB answer at all (a command
/// that is not a solver, or one that crashed): a failure of the tool, not an unknown.
fn parse_answer(store: &TermStore, vars: &[u32], out: &str) -> Result<Answer, String> {
    let mut lines = out.lines().map(str::trim).filter(|l| !l.is_empty());
    // Skip diagnostics some solvers print before the answer.
    let first = loop {
        match lines.next() {
            Some(l) if l.starts_with("(error") || l.starts_with("(warning") => continue,
            Some(l) => break l,
            None => return Err("the solver printed no answer".into()),
        }
    };
    match first {
        "unsat" => Ok(Answer::Unsat),
        "unknown" | "timeout" => Ok(Answer::Unknown(first.to_string())),
        "sat" => {
            let rest: Vec<&str> = lines.collect();
            let mut values = vec![0u64; store.var_count()];
            let pairs = parse_values(&rest.join(" "));
            for &v in vars {
                let name = store.var_name(v);
                let found = pairs
                    .iter()
                    .find(|(n, _)| n.trim_matches('|') == name)
                    .map(|(_, x)| *x);
                match found {
                    Some(x) => values[v as usize] = x,
                    None => return Err(format!("the solver gave no value for {name}")),
                }
            }
            Ok(Answer::Sat(Model { values }))
        }
        other => Err(format!(
            "the solver answered `{}`, not sat, unsat or unknown",
            other.chars().take(120).collect::<String>()
        )),
    }
}

/// Parses `((name value) …)` with values `#x…`, `#b…` or `(_ bvN W)`.
fn parse_values(text: &str) -> Vec<(String, u64)> {
    let tokens = tokenize(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        // Look for "( name value )" where value is a literal or "( _ bvN W )".
        if tokens[i] == "(" && i + 2 < tokens.len() && tokens[i + 1] != "(" && tokens[i + 1] != "_"
        {
            let name = tokens[i + 1].clone();
            let v = &tokens[i + 2];
            let value = if let Some(h) = v.strip_prefix("#x") {
                u64::from_str_radix(h, 16).ok()
            } else if let Some(b) = v.strip_prefix("#b") {
                u64::from_str_radix(b, 2).ok()
            } else if v == "(" && tokens.get(i + 3).map(String::as_str) == Some("_") {
                tokens
                    .get(i + 4)
                    .and_then(|t| t.strip_prefix("bv"))
                    .and_then(|d| d.parse().ok())
            } else {
                None
            };
            if let Some(x) = value {
                out.push((name, x));
            }
        }
        i += 1;
    }
    out
}

fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' | ')' => out.push(c.to_string()),
            '|' => {
                let mut s = String::from("|");
                for d in chars.by_ref() {
                    s.push(d);
                    if d == '|' {
                        break;
                    }
                }
                out.push(s);
            }
            c if c.is_whitespace() => {}
            c => {
                let mut s = String::from(c);
                while let Some(&d) = chars.peek() {
                    if d == '(' || d == ')' || d.is_whitespace() {
                        break;
                    }
                    s.push(d);
                    chars.next();
                }
                out.push(s);
            }
        }
    }
    out
}

impl Solver for ProcessSolver {
    fn backend_work(&self) -> u64 {
        self.asked * super::NOMINAL_QUERY_WORK
    }

    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        if self
            .work_budget
            .is_some_and(|b| self.backend_work() + super::NOMINAL_QUERY_WORK > b)
        {
            self.limit = None;
            return Answer::Unknown(super::WORK_BUDGET_SPENT.into());
        }
        self.asked += 1;
        let answer = self.run(store, assertions);
        self.limit = None;
        match answer {
            Ok(a) => a,
            Err(e) => {
                self.failure.get_or_insert_with(|| e.clone());
                Answer::Unknown(e)
            }
        }
    }

    fn failure(&self) -> Option<String> {
        self.failure.clone()
    }

    fn limit_time(&mut self, left: Duration) {
        self.limit = Some(left);
    }

    fn describe(&self) -> String {
        format!(
            "{} (SMT-LIB over a pipe, one process per query)",
            self.label
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_in_every_notation() {
        let v = parse_values("((|$1| #x00000010) ($2 #b101) (|a[0]| (_ bv7 32)))");
        assert_eq!(
            v,
            vec![("|$1|".into(), 16), ("$2".into(), 5), ("|a[0]|".into(), 7)]
        );
    }

    #[test]
    fn answers() {
        let mut s = TermStore::new();
        let x = s.new_var("$1", 32);
        let _ = x;
        assert_eq!(
            parse_answer(&s, &[0], "unsat\n(error \"no model\")"),
            Ok(Answer::Unsat)
        );
        assert!(matches!(
            parse_answer(&s, &[0], "unknown\n"),
            Ok(Answer::Unknown(_))
        ));
        match parse_answer(&s, &[0], "sat\n((|$1| #x0000002a))") {
            Ok(Answer::Sat(m)) => assert_eq!(m.values, vec![42]),
            a => panic!("{a:?}"),
        }
        // Not an answer: the tool's failure, never an unknown or a verdict.
        assert!(parse_answer(&s, &[0], "").is_err());
        assert!(parse_answer(&s, &[0], "(error \"x\")\nsat\n()").is_err());
        assert!(parse_answer(&s, &[0], "(set-logic QF_BV)\n").is_err());
        assert!(parse_answer(&s, &[0], "maybe").is_err());
    }

    #[test]
    fn a_malformed_memory_read_is_unknown_without_running_the_solver() {
        let mut p = ProcessSolver::from_name("no-such-solver-command", Duration::from_secs(1))
            .expect("a command line");
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let not_memory = s.new_var("m", 32);
        let r = s.select(not_memory, x);
        let q = s.eq(r, x);
        assert_eq!(p.check(&mut s, &[q]), Answer::Unknown(MALFORMED.into()));
        assert_eq!(p.failure(), None, "the command was not run");
    }
}
