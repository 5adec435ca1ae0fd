//! Concrete runs of one side of a loop proof, an instruction at a time, on either
//! machine: where its loops are, and the states it passes its loop head in.

use tamarin_mips::cpu::{Config, Machine as Cs241Machine, NoTrace, Status as Cs241Status};
use tamarin_mips::mips32::isa::Instr;
use tamarin_mips::mips32::{Machine, Status};
use tamarin_mips::target::{Cs241, Target};
use tamarin_mips::Reg;

use super::explore::{Code, Side};

/// How one step of a sampling run went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stepped {
    /// The run goes on.
    Running,
    /// The run returned: its registers are the result.
    Returned,
    /// The run faulted or ran out of fuel.
    Ended,
}

/// A machine that runs one side concretely.
pub enum Sampler {
    Mips32(Box<Machine>),
    Cs241(Box<Cs241Machine>),
}

impl Sampler {
    /// A machine for `code` that runs at most `fuel` instructions a run.
    pub fn new(code: Code<'_>, fuel: u64) -> Sampler {
        match code {
            Code::Mips32(image) => Sampler::Mips32(Box::new(Machine::new(image, fuel))),
            Code::Cs241(c) => {
                let mut config = Config::with_fuel(fuel);
                config.termination = c.termination;
                Sampler::Cs241(Box::new(Cs241Machine::new(&c.program, config)))
            }
        }
    }

    /// Starts a run of `side` on `args` (`$a0`.. for MIPS32, the program's input
    /// registers for CS241).
    pub fn start(&mut self, side: Side<'_>, args: &[u32]) {
        match (self, side.code) {
            (Sampler::Mips32(m), _) => m.call(side.entry, args),
            (Sampler::Cs241(m), Code::Cs241(c)) => {
                m.reset();
                for (&r, &v) in c.inputs.iter().zip(args) {
                    m.set_reg(r, v);
                }
            }
            // A sampler is made for its side's code.
            (Sampler::Cs241(m), Code::Mips32(_)) => m.reset(),
        }
    }

    /// Runs one instruction (with its delay slot, for MIPS32).
    pub fn step(&mut self) -> Stepped {
        match self {
            Sampler::Mips32(m) => match m.step() {
                None => Stepped::Running,
                Some(Status::Returned) => Stepped::Returned,
                Some(_) => Stepped::Ended,
            },
            Sampler::Cs241(m) => match m.run_until(&mut NoTrace, m.steps() + 1) {
                None => Stepped::Running,
                Some(Cs241Status::Done) => Stepped::Returned,
                Some(_) => Stepped::Ended,
            },
        }
    }

    pub fn pc(&self) -> u32 {
        match self {
            Sampler::Mips32(m) => m.regs().pc,
            Sampler::Cs241(m) => m.pc(),
        }
    }

    pub fn steps(&self) -> u64 {
        match self {
            Sampler::Mips32(m) => m.steps(),
            Sampler::Cs241(m) => m.steps(),
        }
    }

    /// The value of register `r`.
    pub fn reg(&self, r: Reg) -> u32 {
        match self {
            Sampler::Mips32(m) => m.regs().get(r),
            Sampler::Cs241(m) => m.regs().get(r),
        }
    }

    /// `$1`..`$31`, `hi`, `lo`, then the words at `words`: a state as a loop proof
    /// describes it.
    pub fn state(&mut self, words: impl IntoIterator<Item = u32>) -> Vec<u32> {
        let (gpr, hi, lo) = match self {
            Sampler::Mips32(m) => (m.regs().gpr, m.regs().hi, m.regs().lo),
            Sampler::Cs241(m) => (m.regs().gpr, m.regs().hi, m.regs().lo),
        };
        let mut v: Vec<u32> = gpr[1..32].to_vec();
        v.push(hi);
        v.push(lo);
        for a in words {
            v.push(match self {
                Sampler::Mips32(m) => m.memory().peek_word(a).unwrap_or(0),
                Sampler::Cs241(m) => m.read_word(a),
            });
        }
        v
    }

    /// Where the instruction at `pc` goes when it branches or jumps to a constant
    /// without linking (a call is no loop), if it does.
    pub fn static_jump(&self, pc: u32) -> Option<u32> {
        match self {
            Sampler::Mips32(m) => match m.instr_at(pc) {
                Some(i @ (Instr::Branch { link: false, .. } | Instr::Jump { link: false, .. })) => {
                    i.static_target(pc)
                }
                _ => None,
            },
            Sampler::Cs241(m) => {
                let instr = Cs241::decode(m.read_word(pc))?;
                Cs241::static_target(pc, instr)
            }
        }
    }
}

/// The word at `addr` in `code` before any store.
pub fn initial_word(
    code: Code<'_>,
    memory: &mut Option<tamarin_mips::mips32::memory::Memory>,
    addr: u32,
) -> u32 {
    match (code, memory) {
        (_, Some(m)) => m.peek_word(addr).unwrap_or(0),
        (Code::Cs241(c), None) => c.initial_word(addr),
        (Code::Mips32(_), None) => 0,
    }
}
