//! Notes about the task: what the user should know beside the verdict (see
//! [`Note`]). Facts gathered from concrete runs, never a verdict and never a change
//! to one.
//!
//! The one note today: standard output is written but not compared. The rule: output
//! is not among the observables, and at least one of the programs wrote some on a run
//! the engine made (the path search records it for every run) or on one of a few
//! cheap concrete runs made here for a program not yet seen writing (the first inputs,
//! then every input at one edge value, within [`NOTE_FUEL`] steps in all per program).
//! Either program, not both: a print task whose submission never prints its newline,
//! or prints nothing, is exactly the case a user must not be misled about.

use tamarin_mips::cpu::Machine;
use tamarin_mips::{Config, NoTrace, Program, Stop};

use crate::io::{InputLayout, Observable};
use crate::options::Options;
use crate::report::Note;

/// The most steps the runs made here spend on one program, together: a program that
/// writes only after longer computations on these inputs is not seen writing.
pub const NOTE_FUEL: u64 = 1_000_000;

/// The edge values each input takes (all at once) after the first inputs.
const EDGES: [u32; 5] = [1, u32::MAX, 0x8000_0000, 0x7FFF_FFFF, 2];

/// The notes for `programs` under `opts`; `known[i]` says whether program `i` is
/// already known to write standard output (from the engine's runs).
pub fn notes(programs: &[&Program], opts: &Options, known: &[bool]) -> Vec<Note> {
    if opts.observe.contains(&Observable::Output) {
        return Vec::new();
    }
    let mut layout = match InputLayout::assuming(&opts.inputs, opts.stdin_len, &opts.assume) {
        Ok(layout) => layout,
        Err(_) => InputLayout::new(&opts.inputs, opts.stdin_len),
    };
    if let Some(p) = &opts.assume_program {
        layout.restrict_to_program(p, opts.termination, None);
    }
    let writers: Vec<bool> = programs
        .iter()
        .enumerate()
        .map(|(i, p)| known.get(i).copied().unwrap_or(false) || writes_output(p, opts, &layout))
        .collect();
    if !writers.contains(&true) {
        return Vec::new();
    }
    vec![Note::OutputNotObserved {
        writers,
        observed: opts.observe.iter().map(|o| o.to_string()).collect(),
    }]
}

/// Whether `program` writes standard output on the first inputs or on an edge input
/// (those the preconditions admit), within [`NOTE_FUEL`] steps in all.
fn writes_output(program: &Program, opts: &Options, layout: &InputLayout) -> bool {
    let first: Vec<u64> = opts.init_inputs.iter().map(|&v| u64::from(v)).collect();
    let n = layout.names().len();
    let candidates = std::iter::once(layout.normalise(&first)).chain(
        EDGES
            .iter()
            .map(|&e| layout.normalise(&vec![u64::from(e); n])),
    );
    let mut budget = NOTE_FUEL;
    for values in candidates {
        if budget == 0 || opts.interrupted() {
            break;
        }
        if !layout.admits(&values) {
            continue;
        }
        let mut config = Config::with_fuel(opts.fuel.min(budget));
        config.termination = opts.termination;
        config.stop = Stop::default().with_flag(opts.interrupt);
        let mut m = Machine::new(program, config);
        if layout.load(&mut m, &values).is_err() {
            continue;
        }
        let outcome = m.run_to_outcome(&mut NoTrace);
        if !outcome.output.is_empty() {
            return true;
        }
        budget = budget.saturating_sub(outcome.steps.max(1));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin_mips::asm::assemble;

    fn program(text: &str) -> Program {
        assemble("p.asm", text).expect("assembles")
    }

    #[test]
    fn output_written_but_not_observed_is_noted_for_either_program() {
        let quiet = program("add $3, $1, $2\njr $31\n");
        // Prints only when $1 is INT_MAX: seen on the edge inputs.
        let edge = program(
            "lis $4\n.word 0x7fffffff\nbne $1, $4, 3\nlis $5\n.word 0xffff000c\nsw $1, 0($5)\nadd $3, $1, $2\njr $31\n",
        );
        let opts = Options::default();
        assert!(notes(&[&quiet, &quiet], &opts, &[]).is_empty());
        let n = notes(&[&quiet, &edge], &opts, &[]);
        assert_eq!(
            n,
            vec![Note::OutputNotObserved {
                writers: vec![false, true],
                observed: vec!["$3".into()],
            }]
        );
        assert_eq!(n[0].kind(), "output-not-observed");
        assert!(n[0].to_string().starts_with("the right program writes"));
        // What the engine saw counts without a run here.
        let n = notes(&[&quiet, &quiet], &opts, &[true, false]);
        assert!(n[0].to_string().starts_with("the left program writes"));
        // Observed output: nothing to note.
        let reg3 = Observable::Reg(tamarin_mips::Reg::new(3).expect("a register"));
        let observed = Options {
            observe: vec![reg3, Observable::Output],
            ..Options::default()
        };
        assert!(notes(&[&quiet, &edge], &observed, &[true, true]).is_empty());
    }
}
