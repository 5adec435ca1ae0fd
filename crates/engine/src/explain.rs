//! Why two programs differ on given inputs: both runs step by step, aligned where they
//! do the same thing, and the first divergence that matters (a differing output byte,
//! a branch the two take differently where they are alike, or the ends).
//!
//! A verdict with inputs says *that* two programs differ; a student then steps through
//! both by hand to find *where*. This does that stepping once, concretely, with the
//! same rules as the comparison ([`rule`](crate::rule)).

use std::sync::Arc;

use tamarin_mips::cpu::{Config, Event, Fault, Machine, Outcome, SetupError, Status, Tracer};
use tamarin_mips::{Frontend, Instr, Program, Reg};

use crate::io::{observe, Observable, Observed};
use crate::verdict::{results_differ, FuelPolicy};

/// The most steps of each run an explanation records (the runs go on to their end
/// unrecorded; the divergence is looked for in what was recorded).
pub const MAX_EXPLAINED_STEPS: u64 = 200_000;

/// Instructions looked ahead in the other run to line the two up again.
const RESYNC_WINDOW: usize = 8;

/// What one instruction changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Reg {
        reg: Reg,
        old: u32,
        new: u32,
    },
    Hi {
        old: u32,
        new: u32,
    },
    Lo {
        old: u32,
        new: u32,
    },
    /// A word stored to memory.
    Mem {
        addr: u32,
        old: u32,
        new: u32,
    },
    /// A byte written to standard output.
    Output(u8),
    /// A byte read from standard input (`None`: end of input, -1).
    Input(Option<u8>),
}

/// One executed instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// 0-based number of the step in its run.
    pub index: u64,
    pub pc: u32,
    /// The instruction as the disassembler writes it.
    pub text: String,
    /// The 1-based source line, for assembled programs.
    pub line: Option<u32>,
    pub changes: Vec<Change>,
    /// For a conditional branch: whether it was taken.
    pub taken: Option<bool>,
    /// The run-time error this instruction stopped the run with.
    pub fault: Option<String>,
}

/// One row of the side-by-side view: indices into the two recorded runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// Both runs executed the same instruction here.
    Same(usize, usize),
    /// Both ran an instruction, different ones.
    Different(usize, usize),
    /// Only the left run (the right one does something else meanwhile).
    Left(usize),
    Right(usize),
}

/// Where the two runs part ways.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Divergence {
    /// They agree on these inputs.
    None,
    /// Output byte `index` differs or exists on one side only; the steps that wrote it.
    Output {
        index: usize,
        left: Option<usize>,
        right: Option<usize>,
    },
    /// The same branch instruction, lined up in both runs, went different ways.
    Branch { left: usize, right: usize },
    /// One run fails at this step where the other does not fail.
    Fault {
        left: Option<usize>,
        right: Option<usize>,
    },
    /// They part at their ends: these observables differ, or one run runs out of fuel
    /// where the other ends.
    End { observables: Vec<String> },
}

/// Both runs on the same inputs, side by side.
#[derive(Clone, Debug)]
pub struct Explanation {
    pub left: Vec<Step>,
    pub right: Vec<Step>,
    pub left_outcome: Outcome,
    pub right_outcome: Outcome,
    /// Whether a run had more steps than were recorded.
    pub truncated: (bool, bool),
    pub rows: Vec<Row>,
    pub divergence: Divergence,
    /// The row of the divergence, when it is at a step.
    pub divergence_row: Option<usize>,
    /// Each observable's name, left and right value.
    pub observed: Vec<(String, Observed, Observed)>,
    /// Whether the comparison rules see a difference.
    pub differ: bool,
}

/// The inputs of one explained run, as the emulator takes them.
#[derive(Clone, Debug)]
pub struct RunInputs {
    pub frontend: Frontend,
    /// Registers set after the frontend.
    pub registers: Vec<(Reg, u32)>,
    pub stdin: Vec<u8>,
}

/// Runs both programs on `inputs` and explains where they part.
///
/// # Errors
///
/// When the inputs cannot be set up for a program (an array that does not fit).
pub fn explain(
    left: &Program,
    right: &Program,
    config: Config,
    inputs: &RunInputs,
    observe: &[Observable],
    policy: FuelPolicy,
) -> Result<Explanation, SetupError> {
    let (lsteps, lout, lobs, ltrunc) = record(left, config, inputs, observe)?;
    let (rsteps, rout, robs, rtrunc) = record(right, config, inputs, observe)?;
    let differ = results_differ(policy, &lout, &lobs, &rout, &robs);
    let rows = align(&lsteps, &rsteps);
    let observed: Vec<(String, Observed, Observed)> = observe
        .iter()
        .zip(lobs.iter().zip(&robs))
        .map(|(o, (a, b))| (o.to_string(), a.clone(), b.clone()))
        .collect();
    let divergence = if !differ {
        Divergence::None
    } else {
        find_divergence(&lsteps, &rsteps, &rows, &lout, &rout, &observed)
    };
    let divergence_row = match divergence {
        Divergence::Branch { left, right } => rows
            .iter()
            .position(|r| matches!(*r, Row::Same(l, r2) if l == left && r2 == right)),
        Divergence::Output { left, right, .. } | Divergence::Fault { left, right } => {
            rows.iter().position(|r| {
                let (l, r2) = row_sides(*r);
                (left.is_some() && l == left) || (right.is_some() && r2 == right)
            })
        }
        _ => None,
    };
    Ok(Explanation {
        left: lsteps,
        right: rsteps,
        left_outcome: lout,
        right_outcome: rout,
        truncated: (ltrunc, rtrunc),
        rows,
        divergence,
        divergence_row,
        observed,
        differ,
    })
}

/// The steps a row shows on each side.
pub fn row_sides(row: Row) -> (Option<usize>, Option<usize>) {
    match row {
        Row::Same(l, r) | Row::Different(l, r) => (Some(l), Some(r)),
        Row::Left(l) => (Some(l), None),
        Row::Right(r) => (None, Some(r)),
    }
}

/// Records the events of one run (the tracer hook sees each instruction after it).
#[derive(Default)]
struct Events {
    last: Option<(u32, Instr, Event)>,
    fault: Option<(Option<Instr>, Fault)>,
}

impl Tracer for Events {
    fn exec(&mut self, pc: u32, instr: Instr, event: Event) {
        self.last = Some((pc, instr, event));
    }
    fn fault(&mut self, instr: Option<Instr>, fault: Fault) {
        self.fault = Some((instr, fault));
    }
}

type Recorded = (Vec<Step>, Outcome, Vec<Observed>, bool);

/// Runs `program` one step at a time, recording what each step changed.
fn record(
    program: &Program,
    config: Config,
    inputs: &RunInputs,
    what: &[Observable],
) -> Result<Recorded, SetupError> {
    let mut m = Machine::new(program, config);
    m.apply(&inputs.frontend)?;
    for &(r, v) in &inputs.registers {
        m.set_reg(r, v);
    }
    m.set_input(Arc::from(inputs.stdin.as_slice()));
    let mut steps = Vec::new();
    let mut events = Events::default();
    let status = loop {
        let before = *m.regs();
        let index = m.steps();
        if index >= MAX_EXPLAINED_STEPS {
            break m.run(&mut tamarin_mips::cpu::NoTrace);
        }
        events.last = None;
        let done = m.run_until(&mut events, index + 1);
        if let Some((pc, instr, event)) = events.last.take() {
            let after = *m.regs();
            let mut changes = Vec::new();
            for k in 1..32 {
                let r = Reg::from_bits(k);
                let (old, new) = (before.get(r), after.get(r));
                if old != new {
                    changes.push(Change::Reg { reg: r, old, new });
                }
            }
            if before.hi != after.hi {
                changes.push(Change::Hi {
                    old: before.hi,
                    new: after.hi,
                });
            }
            if before.lo != after.lo {
                changes.push(Change::Lo {
                    old: before.lo,
                    new: after.lo,
                });
            }
            let mut taken = None;
            match event {
                Event::Store { addr, value } => changes.push(Change::Mem {
                    addr,
                    old: 0,
                    new: value,
                }),
                Event::Output(b) => changes.push(Change::Output(b)),
                Event::Input(b) => changes.push(Change::Input(b)),
                Event::Branch { taken: t } => taken = Some(t),
                _ => {}
            }
            steps.push(Step {
                index,
                pc,
                text: instr.to_string(),
                line: program.line_of(pc),
                changes,
                taken,
                fault: None,
            });
        }
        if let Some((instr, fault)) = events.fault.take() {
            // The failing instruction, as the last step (it changed nothing).
            steps.push(Step {
                index,
                pc: fault.pc,
                text: instr
                    .map_or_else(|| format!(".word {:#010x}", fault.value), |i| i.to_string()),
                line: program.line_of(fault.pc),
                changes: Vec::new(),
                taken: None,
                fault: Some(fault.to_string()),
            });
        }
        if let Some(status) = done {
            break status;
        }
    };
    fill_old_memory(program, &mut steps);
    let truncated = m.steps() > MAX_EXPLAINED_STEPS;
    let outcome = Outcome {
        status,
        steps: m.steps(),
        regs: *m.regs(),
        output: m.output().to_vec(),
    };
    let observed = what.iter().map(|o| observe(&m, &outcome, o)).collect();
    Ok((steps, outcome, observed, truncated))
}

/// Sets each store's old value: the last value stored there before, else the image's.
fn fill_old_memory(program: &Program, steps: &mut [Step]) {
    let mut written: rustc_hash::FxHashMap<u32, u32> = rustc_hash::FxHashMap::default();
    for step in steps.iter_mut() {
        for c in &mut step.changes {
            if let Change::Mem { addr, old, new } = c {
                *old = written
                    .get(addr)
                    .copied()
                    .unwrap_or_else(|| crate::io::image_word(program, *addr));
                written.insert(*addr, *new);
            }
        }
    }
}

/// Lines the two runs up: equal instructions side by side; where they differ, the
/// nearest point (within a few steps of either run) where they agree again.
fn align(left: &[Step], right: &[Step]) -> Vec<Row> {
    let (mut i, mut j) = (0, 0);
    let mut rows = Vec::with_capacity(left.len().max(right.len()));
    while i < left.len() && j < right.len() {
        if left[i].text == right[j].text {
            rows.push(Row::Same(i, j));
            i += 1;
            j += 1;
            continue;
        }
        let resync = (1..=RESYNC_WINDOW).find_map(|k| {
            if i + k < left.len() && left[i + k].text == right[j].text {
                Some((k, 0))
            } else if j + k < right.len() && left[i].text == right[j + k].text {
                Some((0, k))
            } else {
                None
            }
        });
        match resync {
            Some((k, 0)) => {
                rows.extend((i..i + k).map(Row::Left));
                i += k;
            }
            Some((_, k)) => {
                rows.extend((j..j + k).map(Row::Right));
                j += k;
            }
            None => {
                rows.push(Row::Different(i, j));
                i += 1;
                j += 1;
            }
        }
    }
    rows.extend((i..left.len()).map(Row::Left));
    rows.extend((j..right.len()).map(Row::Right));
    rows
}

/// The first divergence that matters, in this order: a differing output byte (when
/// the output is observed), a lined-up branch taken differently, a run-time error on
/// one side only, the ends.
fn find_divergence(
    left: &[Step],
    right: &[Step],
    rows: &[Row],
    lout: &Outcome,
    rout: &Outcome,
    observed: &[(String, Observed, Observed)],
) -> Divergence {
    let output_differs = observed
        .iter()
        .any(|(_, a, b)| matches!((a, b), (Observed::Bytes(x), Observed::Bytes(y)) if x != y));
    if output_differs {
        let (a, b) = (&lout.output, &rout.output);
        let index = (0..a.len().max(b.len()))
            .find(|&k| a.get(k) != b.get(k))
            .unwrap_or(0);
        return Divergence::Output {
            index,
            left: nth_output(left, index),
            right: nth_output(right, index),
        };
    }
    for row in rows {
        if let Row::Same(l, r) = *row {
            if let (Some(a), Some(b)) = (left[l].taken, right[r].taken) {
                if a != b {
                    return Divergence::Branch { left: l, right: r };
                }
            }
        }
    }
    let failed = |steps: &[Step]| {
        steps
            .last()
            .filter(|s| s.fault.is_some())
            .map(|_| steps.len() - 1)
    };
    let (lf, rf) = (failed(left), failed(right));
    if lf.is_some() != rf.is_some() {
        return Divergence::Fault {
            left: lf,
            right: rf,
        };
    }
    let mut observables: Vec<String> = observed
        .iter()
        .filter(|(_, a, b)| a != b)
        .map(|(n, _, _)| n.clone())
        .collect();
    if std::mem::discriminant(&lout.status) != std::mem::discriminant(&rout.status)
        || matches!(
            (&lout.status, &rout.status),
            (Status::Error(_), Status::Error(_))
        )
    {
        observables.clear();
    }
    Divergence::End { observables }
}

/// The step that wrote output byte `index`.
fn nth_output(steps: &[Step], index: usize) -> Option<usize> {
    steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.changes.iter().any(|c| matches!(c, Change::Output(_))))
        .nth(index)
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin_mips::asm::assemble;

    fn prog(text: &str) -> Program {
        assemble("t.asm", text).expect("assembles")
    }

    fn inputs(a: u32, b: u32) -> RunInputs {
        RunInputs {
            frontend: Frontend::TwoInts(a, b),
            registers: Vec::new(),
            stdin: Vec::new(),
        }
    }

    fn explain_max(l: &str, r: &str, a: u32, b: u32) -> Explanation {
        let obs = [Observable::CS241_RESULT];
        explain(
            &prog(l),
            &prog(r),
            Config::with_fuel(1000),
            &inputs(a, b),
            &obs,
            FuelPolicy::Same,
        )
        .expect("runs")
    }

    const MAX: &str = "slt $4, $1, $2\nadd $3, $1, $0\nbeq $4, $0, 1\nadd $3, $2, $0\njr $31\n";
    const MAX_U: &str = "sltu $4, $1, $2\nadd $3, $1, $0\nbeq $4, $0, 1\nadd $3, $2, $0\njr $31\n";

    #[test]
    fn agreeing_runs_have_no_divergence() {
        let e = explain_max(MAX, MAX_U, 3, 4);
        assert!(!e.differ);
        assert_eq!(e.divergence, Divergence::None);
        assert!(e
            .rows
            .iter()
            .all(|r| !matches!(r, Row::Left(_) | Row::Right(_))));
    }

    #[test]
    fn a_branch_taken_differently_is_found_where_the_programs_are_alike() {
        // slt and sltu differ in text, so they are Different rows; the beq after them
        // is lined up and goes different ways on -1, 0.
        let e = explain_max(MAX, MAX_U, u32::MAX, 0);
        assert!(e.differ);
        match e.divergence {
            Divergence::Branch { left, right } => {
                assert_eq!(e.left[left].text, e.right[right].text);
                assert_eq!(e.left[left].pc, 8);
            }
            d => panic!("{d:?}"),
        }
        assert!(e.divergence_row.is_some());
        // What each step changed: slt set $4 to 1 on the left.
        assert!(e.left[0].changes.contains(&Change::Reg {
            reg: Reg::from_bits(4),
            old: 0,
            new: 1
        }));
    }

    #[test]
    fn unlike_programs_part_at_their_ends() {
        let e = explain_max("add $3, $1, $2\njr $31\n", "sub $3, $1, $2\njr $31\n", 1, 2);
        assert_eq!(
            e.divergence,
            Divergence::End {
                observables: vec!["$3".into()]
            }
        );
    }

    #[test]
    fn output_bytes_are_compared_first() {
        let out =
            "lis $5\n.word 0xffff000c\nlis $6\n.word 65\nsw $6, 0($5)\nsw $1, 0($5)\njr $31\n";
        let out2 =
            "lis $5\n.word 0xffff000c\nlis $6\n.word 65\nsw $6, 0($5)\nsw $2, 0($5)\njr $31\n";
        let obs = [Observable::Output];
        let e = explain(
            &prog(out),
            &prog(out2),
            Config::with_fuel(100),
            &inputs(66, 67),
            &obs,
            FuelPolicy::Same,
        )
        .expect("runs");
        match e.divergence {
            Divergence::Output { index, left, right } => {
                assert_eq!(index, 1);
                assert_eq!(left.map(|k| e.left[k].pc), Some(20));
                assert_eq!(right.map(|k| e.right[k].pc), Some(20));
            }
            d => panic!("{d:?}"),
        }
    }

    #[test]
    fn realignment_after_an_extra_instruction() {
        let l = "add $3, $1, $0\nadd $3, $3, $2\njr $31\n";
        let r = "add $5, $0, $0\nadd $3, $1, $0\nadd $3, $3, $2\njr $31\n";
        let e = explain_max(l, r, 1, 2);
        assert_eq!(e.rows[0], Row::Right(0));
        assert_eq!(e.rows[1], Row::Same(0, 1));
        assert_eq!(e.divergence, Divergence::None);
    }
}
