//! Why two MIPS32 functions differ on one input: both run in the emulator, step by
//! step, with what each step changed; then, for every observed register that ends
//! differently, the step of each run that last wrote it. Code from two compilers (or
//! two optimisation levels) seldom lines up instruction by instruction, so the
//! explanation follows each run's own data instead: where its result came from.

use tamarin_mips::mips32::{Machine, Status};
use tamarin_mips::Reg;

use super::compare::{FunctionRun, FunctionSide};

/// One step of a run: an instruction, or a branch or jump with its delay slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    /// The step's number, from 1.
    pub step: u64,
    pub pc: u32,
    /// The instruction in `objdump -M no-aliases` syntax (with its delay slot's after
    /// `;`), or `None` where no instruction was fetched.
    pub text: Option<String>,
    /// The registers the step changed: (register, before, after); `hi` and `lo` are
    /// not general registers and are left out.
    pub changes: Vec<(Reg, u32, u32)>,
}

/// One run, as the explanation shows it.
#[derive(Clone, Debug)]
pub struct FunctionTrace {
    pub run: FunctionRun,
    /// The last steps of the run (at most the `keep` asked for), oldest first.
    pub steps: Vec<TraceStep>,
    /// For each observed register: the last step that wrote it, if any (a value
    /// never written is the one the call set up).
    pub writers: Vec<Option<TraceStep>>,
}

/// Both runs on one input.
#[derive(Clone, Debug)]
pub struct FunctionExplanation {
    pub args: Vec<u32>,
    pub left: FunctionTrace,
    pub right: FunctionTrace,
    /// Whether the two end differently (as `compare` decides it).
    pub differ: bool,
}

/// Runs both sides on `args` for at most `fuel` steps, keeping the last `keep` steps
/// of each; `observe` are the registers compared at the return.
pub fn explain_functions(
    left: FunctionSide<'_>,
    right: FunctionSide<'_>,
    args: &[u32],
    observe: &[Reg],
    fuel: u64,
    keep: usize,
) -> FunctionExplanation {
    let left = trace(left, args, observe, fuel, keep);
    let right = trace(right, args, observe, fuel, keep);
    FunctionExplanation {
        args: args.to_vec(),
        differ: left.run.differs_from(&right.run),
        left,
        right,
    }
}

fn trace(
    side: FunctionSide<'_>,
    args: &[u32],
    observe: &[Reg],
    fuel: u64,
    keep: usize,
) -> FunctionTrace {
    let mut m = Machine::new(side.image, fuel);
    m.call(side.entry, args);
    let mut steps = std::collections::VecDeque::with_capacity(keep.min(4096));
    let mut writers: Vec<Option<TraceStep>> = vec![None; observe.len()];
    let mut count = 0u64;
    let status = loop {
        if m.steps() >= fuel {
            break Status::OutOfFuel;
        }
        let before = *m.regs();
        let pc = before.pc;
        let fetched = m.instr_at(pc).is_some();
        let ended = m.step();
        let after = *m.regs();
        let changes: Vec<(Reg, u32, u32)> = (1..32u32)
            .map(Reg::from_bits)
            .filter(|r| before.get(*r) != after.get(*r))
            .map(|r| (r, before.get(r), after.get(r)))
            .collect();
        if ended.is_none() || !changes.is_empty() || fetched {
            count += 1;
            // The instruction's text is filled in at the end, for the steps kept.
            let row = TraceStep {
                step: count,
                pc,
                text: None,
                changes,
            };
            for (w, r) in writers.iter_mut().zip(observe) {
                if row.changes.iter().any(|(c, _, _)| c == r) {
                    *w = Some(row.clone());
                }
            }
            if keep > 0 {
                if steps.len() == keep {
                    steps.pop_front();
                }
                steps.push_back(row);
            }
        }
        if let Some(status) = ended {
            break status;
        }
    };
    let text = |pc: u32| {
        let i = m.instr_at(pc)?;
        let slot = i
            .has_delay_slot()
            .then(|| m.instr_at(pc.wrapping_add(4)))
            .flatten();
        Some(match slot {
            Some(s) => format!("{i} ; {s}"),
            None => i.to_string(),
        })
    };
    for row in steps.iter_mut().chain(writers.iter_mut().flatten()) {
        row.text = text(row.pc);
    }
    let run = FunctionRun {
        status,
        observed: observe.iter().map(|&r| m.regs().get(r)).collect(),
        steps: m.steps(),
    };
    FunctionTrace {
        run,
        steps: steps.into(),
        writers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin_mips::mips32::image::Image;

    /// `v0 = a0 + a1` then return (big-endian words).
    fn adder(extra: u32) -> Image {
        let words: [u32; 4] = [
            0x0085_1021,         // addu v0, a0, a1
            0x2442_0000 | extra, // addiu v0, v0, extra
            0x03e0_0008,         // jr ra
            0x0000_0000,         // nop (its slot)
        ];
        Image::code(0x0040_0000, &words)
    }

    #[test]
    fn the_writer_of_a_differing_result_is_found() {
        let (l, r) = (adder(0), adder(1));
        let side = |image| FunctionSide {
            image,
            entry: 0x0040_0000,
        };
        let e = explain_functions(
            side(&l),
            side(&r),
            &[2, 3, 0, 0],
            &[Reg::from_bits(2)],
            100,
            10,
        );
        assert!(e.differ);
        assert_eq!((e.left.run.observed[0], e.right.run.observed[0]), (5, 6));
        let w = e.right.writers[0].as_ref().expect("a writer");
        assert_eq!((w.step, w.pc), (2, 0x0040_0004));
        assert_eq!(w.changes, vec![(Reg::from_bits(2), 5, 6)]);
        assert_eq!(e.left.steps.len(), 3);
        assert!(
            e.left.steps[2]
                .text
                .as_deref()
                .is_some_and(|t| t.starts_with("jr")),
            "{:?}",
            e.left.steps
        );
        // Equal runs do not differ; a short `keep` keeps the last steps.
        let same = explain_functions(
            side(&l),
            side(&l),
            &[2, 3, 0, 0],
            &[Reg::from_bits(2)],
            100,
            1,
        );
        assert!(!same.differ);
        assert_eq!(same.left.steps.len(), 1);
        assert_eq!(same.left.steps[0].step, 3);
    }
}
