//! Values in words, as every report shows them: numbers, a run's status, inputs, the
//! commands that replay a verdict, and the advice for each kind of incompleteness.

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

use tamarin::{Engine, COMPARISON_WORK_SPENT, WORK_BUDGET_SPENT};
use tamarin::{FuelPolicy, Incomplete, InputValues, Observed};
use tamarin_mips::cpu::DEFAULT_TERMINATION;
use tamarin_mips::{InputFormat, Outcome, Status};

use crate::settings::Search;
pub use crate::values::{inputs_line, short_inputs_line, signed, word};
use crate::words::count;

/// `done after 5 steps` or the error.
pub fn status_line(o: &Outcome) -> String {
    let steps = count(o.steps, "step");
    match o.status {
        Status::Done => format!("done after {steps}"),
        Status::OutOfFuel => format!("out of fuel after {steps}"),
        Status::Error(f) => format!("error after {steps}: {} ({f})", f.kind),
        Status::Stopped => format!("stopped by the time limit after {steps}"),
    }
}

/// Quotes a word for a shell when it needs it.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Standard input bytes as a `printf` format (octal escapes: POSIX printf has no `\x`).
pub fn printf_bytes(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("\\{b:03o}")).collect()
}

/// The fuel that `run` and `explain` need to show a difference again when its longer
/// run took `longest` steps, more than the search's `fuel` (a difference after many
/// trips, found past the fuel where a loop proof failed): the next power of ten above
/// it. `None` when `fuel` is enough (a run out of fuel took exactly `fuel` steps).
pub fn fuel_to_show(longest: u64, fuel: u64) -> Option<u64> {
    if longest <= fuel {
        return None;
    }
    let mut f: u64 = 10;
    while f <= longest {
        f = f.saturating_mul(10);
    }
    Some(f)
}

/// `search` with the fuel that shows again a difference whose longer run took
/// `longest` steps ([`fuel_to_show`]), for the commands that replay it.
pub fn search_showing(search: &Search, longest: u64) -> Cow<'_, Search> {
    match fuel_to_show(longest, search.fuel) {
        Some(fuel) => Cow::Owned(Search {
            fuel,
            ..search.clone()
        }),
        None => Cow::Borrowed(search),
    }
}

/// The `tamarin run` command line that replays `values` on `prog`.
pub fn replay_command(args: &Search, prog: &Path, values: &InputValues) -> String {
    let program = shell_word(&prog.display().to_string());
    with_inputs(args, &format!("tamarin run {program}"), values)
}

/// The `tamarin explain` command that shows where `left` and `right` part on `values`.
pub fn explain_command(args: &Search, left: &Path, right: &Path, values: &InputValues) -> String {
    let (l, r) = (
        shell_word(&left.display().to_string()),
        shell_word(&right.display().to_string()),
    );
    let mut cmd = with_inputs(args, &format!("tamarin explain {l} {r}"), values);
    if args.out_of_fuel == Some(FuelPolicy::Different) {
        cmd.push_str(" --out-of-fuel different");
    }
    cmd
}

/// `command` with the options that give a run `values` (and the search's fuel,
/// input format and termination address), piping standard input where it has some.
fn with_inputs(args: &Search, command: &str, values: &InputValues) -> String {
    let mut cmd = String::new();
    if !values.stdin.is_empty() {
        cmd.push_str(&format!("printf '{}' | ", printf_bytes(&values.stdin)));
    }
    cmd.push_str(command);
    match &values.array {
        Some(elems) => {
            let items: Vec<String> = elems.iter().map(|&e| signed(e).to_string()).collect();
            if items.is_empty() {
                cmd.push_str(" --array ''");
            } else {
                cmd.push_str(&format!(" --array {}", items.join(",")));
            }
            if let Some(base) = args.array_base {
                cmd.push_str(&format!(" --array-base {base:#x}"));
            }
        }
        None => {
            for (name, v) in &values.registers {
                match name.as_str() {
                    "$1" => cmd.push_str(&format!(" --r1 {}", signed(*v))),
                    "$2" => cmd.push_str(&format!(" --r2 {}", signed(*v))),
                    _ => cmd.push_str(&format!(
                        " --reg {}",
                        shell_word(&format!("{name}={}", signed(*v)))
                    )),
                }
            }
        }
    }
    if !values.stdin.is_empty() {
        cmd.push_str(" --stdin -");
    }
    cmd.push_str(&format!(" --fuel {}", args.fuel));
    if let Some(f) = args.input_format {
        let f = match f {
            InputFormat::Asm => "asm",
            InputFormat::Bin => "bin",
            InputFormat::Merl => "merl",
        };
        cmd.push_str(&format!(" --input-format {f}"));
    }
    if args.termination != DEFAULT_TERMINATION {
        cmd.push_str(&format!(" --termination {:#x}", args.termination));
    }
    for module in &args.link {
        cmd.push_str(&format!(
            " --link {}",
            shell_word(&module.display().to_string())
        ));
    }
    cmd
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// An observed value for people.
pub fn shown(o: &Observed) -> String {
    match o {
        Observed::Word(v) => word(*v),
        Observed::Bytes(b) => format!("{:?} ({} bytes)", String::from_utf8_lossy(b), b.len()),
        Observed::Words(ws) => {
            let items: Vec<String> = ws.iter().map(|&w| signed(w).to_string()).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// The searching commands, for advice that names only their own options; a
/// comparison's advice depends on the engine that ran (`auto` ran both, within
/// budgets of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Searcher {
    Compare(Engine),
    Check,
    Paths,
}

/// What a user of `cmd` can do about `reason`: an option of that command to change,
/// or nothing when no option helps.
pub fn advice(reason: &Incomplete, cmd: Searcher) -> Option<&'static str> {
    let engine = match cmd {
        Searcher::Compare(e) => Some(e),
        _ => None,
    };
    if reason.is_time_limit() {
        return Some(match engine {
            Some(Engine::Concolic | Engine::Bmc) => {
                "raise --timeout (0 for none), or try --engine auto"
            }
            _ => "raise --timeout, or 0 for none",
        });
    }
    match reason.kind() {
        "depth-bound" => Some("raise --depth"),
        // auto's first phases have work budgets of their own; the budget of a whole
        // comparison (its last phase's, or an engine's alone) is --solver-work's.
        "solver-unknown" => match reason {
            Incomplete::SolverUnknown { reason, .. }
                if reason == WORK_BUDGET_SPENT && engine == Some(Engine::Auto) =>
            {
                Some("--engine bmc may decide it without auto's budget")
            }
            Incomplete::SolverUnknown { reason, .. }
                if reason == WORK_BUDGET_SPENT || reason == COMPARISON_WORK_SPENT =>
            {
                Some("raise --solver-work (or --timeout, which sizes it)")
            }
            // Z3 says `canceled` when it meets its resource limit.
            Incomplete::SolverUnknown { reason, .. }
                if reason.contains("canceled") || reason.contains("resource") =>
            {
                Some("raise --solver-rlimit, or 0 for none")
            }
            _ => Some("raise --solver-timeout"),
        },
        "run-budget" => Some("raise --max-runs"),
        "path-budget" if cmd == Searcher::Paths => Some("raise --max-paths"),
        "path-budget" => Some("raise --timeout, or 0 for none"),
        "trace-limit" => Some("if the task's runs are shorter, lower --fuel"),
        // auto bounds the encoding's size; the path search has run in full already.
        "encoding-budget" if engine == Some(Engine::Auto) => {
            Some("--engine bmc may cover it without auto's budget")
        }
        "uncovered-jump" | "code-write" | "symbolic-code" | "encoding-budget"
            if engine == Some(Engine::Bmc) =>
        {
            Some("--engine concolic may cover it")
        }
        _ => None,
    }
}

/// What to do about a note ([`tamarin::Note`]): the option that takes it into
/// account (`compare` and `grade` both take `--observe`; grade's task file its
/// `observe` key).
pub fn note_advice(note: &tamarin::Note) -> String {
    match note {
        tamarin::Note::OutputNotObserved { observed, .. } => {
            let mut list = observed.clone();
            list.push("output".into());
            format!(
                "to compare it too: --observe {}",
                shell_word(&list.join(","))
            )
        }
    }
}

/// A note as text: what the user should know and, in parentheses, what to do.
pub fn note_text(note: &tamarin::Note) -> String {
    format!("{note} ({})", note_advice(note))
}

/// One reason as text: what happened and, in parentheses, what to do about it, after
/// a warning when the wall clock caused it (a rerun may then come out otherwise).
pub fn reason_text(reason: &Incomplete, cmd: Searcher) -> String {
    let clock = reason
        .cut_by_wall_clock()
        .then_some("cut by the wall clock, a rerun may differ");
    match (clock, advice(reason, cmd)) {
        (Some(c), Some(a)) => format!("{reason} ({c}: {a})"),
        (Some(c), None) => format!("{reason} ({c})"),
        (None, Some(a)) => format!("{reason} ({a})"),
        (None, None) => reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::fuel_to_show;

    #[test]
    fn the_fuel_shown_is_raised_only_past_the_searchs_own() {
        // A run out of fuel took exactly the fuel: the search's own fuel shows it.
        assert_eq!(fuel_to_show(1_000, 1_000), None);
        assert_eq!(fuel_to_show(999, 1_000), None);
        // A difference after 15 million steps: the next power of ten above it.
        assert_eq!(fuel_to_show(15_000_013, 10_000), Some(100_000_000));
        assert_eq!(fuel_to_show(10_000_000, 500), Some(100_000_000));
        assert_eq!(fuel_to_show(1_001, 1_000), Some(10_000));
    }
}
