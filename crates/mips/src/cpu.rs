//! The emulator: one execution core, generic over a [`Tracer`].
//!
//! With [`NoTrace`] every hook is an empty inline function, so the plain emulator pays
//! nothing for the symbolic engine's ability to watch it. Semantics follow the CS241
//! specification to the letter; `docs/cs241-mips.md` is the normative text.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::isa::{Instr, Reg};
use crate::memory::{Memory, MEM_SIZE};
use crate::program::Program;
use crate::target::{cs241, Abi, Concrete, Cs241, Effect, Regs};

/// Where a `jr`/`jalr` must go to end a run normally (the initial `$31`).
pub const DEFAULT_TERMINATION: u32 = 0x8123_456C;
/// The initial stack pointer `$30`: one past the last word of memory.
pub const STACK_TOP: u32 = MEM_SIZE;
/// `sw` here writes a byte to standard output.
pub const OUTPUT_ADDR: u32 = 0xFFFF_000C;
/// `lw` here reads a byte from standard input (`-1` at its end).
pub const INPUT_ADDR: u32 = 0xFFFF_0004;

/// Settings of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// The most instructions a run may execute.
    pub fuel: u64,
    /// The address whose jump ends a run normally.
    pub termination: u32,
    /// When the run must end early, whatever its fuel (default: never).
    pub stop: Stop,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            fuel: 10_000,
            termination: DEFAULT_TERMINATION,
            stop: Stop::default(),
        }
    }
}

/// When a run must stop before its fuel is spent: at a deadline, or once a flag is
/// raised (Ctrl-C). The run loop looks every [`STOP_CHECK_STEPS`] steps, inside the
/// fuel test it makes anyway, so a run with a huge fuel still ends soon after either
/// and the loop pays nothing per step.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stop {
    pub deadline: Option<Instant>,
    pub flag: Option<&'static AtomicBool>,
}

/// How many steps a run executes between two looks at its [`Stop`]: about a
/// millisecond of plain emulation.
pub const STOP_CHECK_STEPS: u64 = 1 << 19;

impl Stop {
    /// Stop at `deadline`, if there is one.
    pub fn at(deadline: Option<Instant>) -> Stop {
        Stop {
            deadline,
            flag: None,
        }
    }

    /// Also stop once `flag` is raised.
    pub fn with_flag(mut self, flag: Option<&'static AtomicBool>) -> Stop {
        self.flag = flag;
        self
    }

    /// Whether there is anything to watch.
    pub fn is_set(&self) -> bool {
        self.deadline.is_some() || self.flag.is_some()
    }

    /// Whether the run must stop now.
    pub fn reached(&self) -> bool {
        self.flag.is_some_and(|f| f.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl PartialEq for Stop {
    fn eq(&self, other: &Stop) -> bool {
        let same_flag = match (self.flag, other.flag) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        self.deadline == other.deadline && same_flag
    }
}

impl Eq for Stop {}

impl Config {
    /// The default settings with the given fuel.
    pub fn with_fuel(fuel: u64) -> Config {
        Config {
            fuel,
            ..Config::default()
        }
    }
}

/// The kinds of run-time error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    InvalidInstruction,
    DivisionByZero,
    UnalignedAccess,
    OutOfRangeAccess,
    BadPc,
}

impl FaultKind {
    /// The kebab-case name used in all output.
    pub const fn name(self) -> &'static str {
        match self {
            FaultKind::InvalidInstruction => "invalid-instruction",
            FaultKind::DivisionByZero => "division-by-zero",
            FaultKind::UnalignedAccess => "unaligned-access",
            FaultKind::OutOfRangeAccess => "out-of-range-access",
            FaultKind::BadPc => "bad-pc",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A run-time error: what went wrong, at which instruction, and the value involved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fault {
    pub kind: FaultKind,
    /// The address of the failing instruction (see the spec's table of kinds).
    pub pc: u32,
    /// The word that is not an instruction, the memory address accessed, or the bad
    /// jump target; 0 for a division by zero.
    pub value: u32,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pc = self.pc;
        let v = self.value;
        match self.kind {
            FaultKind::InvalidInstruction => {
                write!(f, "invalid instruction {v:#010x} at pc {pc:#010x}")
            }
            FaultKind::DivisionByZero => write!(f, "division by zero at pc {pc:#010x}"),
            FaultKind::UnalignedAccess => {
                write!(f, "unaligned memory access to {v:#010x} at pc {pc:#010x}")
            }
            FaultKind::OutOfRangeAccess => {
                write!(f, "memory access out of range at {v:#010x}, pc {pc:#010x}")
            }
            FaultKind::BadPc => write!(f, "jump to bad address {v:#010x} from pc {pc:#010x}"),
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Jumped to the termination address.
    Done,
    /// Still running after `fuel` steps.
    OutOfFuel,
    /// Stopped by a run-time error.
    Error(Fault),
    /// Stopped from outside before its end (a deadline passed or an interrupt was
    /// raised): the run says nothing about the program.
    Stopped,
}

impl Status {
    /// `"done"`, `"out-of-fuel"`, `"error"` or `"stopped"`.
    pub const fn name(&self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::OutOfFuel => "out-of-fuel",
            Status::Error(_) => "error",
            Status::Stopped => "stopped",
        }
    }
}

/// What one executed instruction did that a tracer cannot work out from registers alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Nothing beyond register effects.
    None,
    /// `lis` loaded this literal.
    Literal(u32),
    /// `lw` read `value` from memory at `addr`.
    Load { addr: u32, value: u32 },
    /// `lw` read standard input: the byte, or `None` at end of input.
    Input(Option<u8>),
    /// `sw` wrote `value` to memory at `addr`.
    Store { addr: u32, value: u32 },
    /// `sw` wrote a byte to standard output.
    Output(u8),
    /// A conditional branch, taken or not.
    Branch { taken: bool },
    /// `jr`/`jalr` went to `target`; `jalr` also wrote `link` to `$31`.
    Jump { target: u32, link: Option<u32> },
}

/// Watches a run. Hooks are called after an instruction takes effect, or when it faults.
pub trait Tracer {
    /// `instr` at `pc` completed with `event`.
    #[inline(always)]
    fn exec(&mut self, _pc: u32, _instr: Instr, _event: Event) {}
    /// The run stopped with `fault`; `instr` is the failing instruction where there is one.
    #[inline(always)]
    fn fault(&mut self, _instr: Option<Instr>, _fault: Fault) {}
}

/// The tracer that records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTrace;
impl Tracer for NoTrace {}

/// Where a run stands between two instructions, besides its registers and memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The next instruction's address.
    pub pc: u32,
    /// The last instruction's address (for `bad-pc` reports).
    pub last_pc: u32,
    /// Steps executed.
    pub steps: u64,
    /// Bytes of standard input read.
    pub input_pos: usize,
}

/// The architectural registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registers {
    pub gpr: [u32; 32],
    pub hi: u32,
    pub lo: u32,
}

impl Registers {
    /// The value of `$r`.
    #[inline(always)]
    pub fn get(&self, r: Reg) -> u32 {
        self.gpr[r.index() & 31]
    }

    /// The result register of the CS241 convention (`$3`).
    #[inline(always)]
    pub fn result(&self) -> u32 {
        self.get(<Cs241 as Abi>::RESULT)
    }
}

/// How the inputs enter a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frontend {
    /// `$1` and `$2` hold the two inputs.
    TwoInts(u32, u32),
    /// The words are placed at `base` (default: right after the program image),
    /// `$1` holds that address and `$2` the number of words.
    Array { elems: Vec<u32>, base: Option<u32> },
}

/// Why a run could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("the array of {len} words at {base:#x} does not fit in memory")]
    ArrayTooLarge { base: u32, len: usize },
    #[error("the array address {0:#x} is not a multiple of 4")]
    ArrayUnaligned(u32),
}

/// The complete result of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub status: Status,
    pub steps: u64,
    pub regs: Registers,
    /// Bytes written to the output address.
    pub output: Vec<u8>,
}

/// A machine ready to run one program, reusable across runs via [`Machine::reset`].
///
/// The fields the run loop touches every step come first, in this order (`repr(C)`):
/// measured, letting the settings' size move them costs about a tenth of the
/// emulator's speed.
#[derive(Clone)]
#[repr(C)]
pub struct Machine {
    regs: Registers,
    pc: u32,
    /// Address of the last instruction executed (for `bad-pc` reports).
    last_pc: u32,
    steps: u64,
    /// The decoded image, kept in step with stores into it.
    ops: Vec<Option<Instr>>,
    mem: Memory,
    config: Config,
    input: Arc<[u8]>,
    input_pos: usize,
    output: Vec<u8>,
    program: Program,
}

impl Machine {
    /// A machine with `program` loaded and every register in its initial state.
    pub fn new(program: &Program, config: Config) -> Machine {
        let mut m = Machine {
            config,
            program: program.clone(),
            ops: Vec::new(),
            mem: Memory::new(program.words().clone()),
            regs: Registers {
                gpr: [0; 32],
                hi: 0,
                lo: 0,
            },
            pc: 0,
            last_pc: 0,
            steps: 0,
            input: Arc::from(Vec::new()),
            input_pos: 0,
            output: Vec::new(),
        };
        m.reset();
        m
    }

    /// Back to the initial state: memory as loaded, registers cleared, `$30` and `$31`
    /// set, no input consumed and no output.
    pub fn reset(&mut self) {
        self.mem.reset();
        self.ops.clear();
        // Only words inside memory can be fetched: an image longer than memory (possible
        // with `Program::from_words`) must not make addresses past its end executable.
        let ops = self.program.ops();
        self.ops
            .extend_from_slice(&ops[..ops.len().min((MEM_SIZE / 4) as usize)]);
        self.regs = Registers {
            gpr: [0; 32],
            hi: 0,
            lo: 0,
        };
        self.regs.gpr[30] = STACK_TOP;
        self.regs.gpr[31] = self.config.termination;
        self.pc = 0;
        self.last_pc = 0;
        self.steps = 0;
        self.input_pos = 0;
        self.output.clear();
    }

    /// Applies a frontend: sets `$1`, `$2` and places an array in memory.
    pub fn apply(&mut self, frontend: &Frontend) -> Result<(), SetupError> {
        match frontend {
            Frontend::TwoInts(a, b) => self.set_inputs(*a, *b),
            Frontend::Array { elems, base } => {
                let base = base.unwrap_or(self.program.byte_len());
                if base % 4 != 0 {
                    return Err(SetupError::ArrayUnaligned(base));
                }
                let end = (elems.len() as u64) * 4 + base as u64;
                if end > MEM_SIZE as u64 {
                    return Err(SetupError::ArrayTooLarge {
                        base,
                        len: elems.len(),
                    });
                }
                for (k, &w) in elems.iter().enumerate() {
                    self.store(base + 4 * k as u32, w);
                }
                self.set_inputs(base, elems.len() as u32);
            }
        }
        Ok(())
    }

    /// The two input registers of the convention (`$1`, `$2`: two integers, or an
    /// array's address and length).
    fn set_inputs(&mut self, first: u32, second: u32) {
        for (r, v) in <Cs241 as Abi>::INPUTS.iter().zip([first, second]) {
            self.regs.gpr[r.index() & 31] = v;
        }
    }

    /// Sets the bytes that reads of the input address return.
    pub fn set_input(&mut self, input: Arc<[u8]>) {
        self.input = input;
        self.input_pos = 0;
    }

    /// Sets a register before the run (writes to `$0` are ignored).
    pub fn set_reg(&mut self, r: Reg, value: u32) {
        if r != Reg::ZERO {
            self.regs.gpr[r.index()] = value;
        }
    }

    /// The registers now.
    pub fn regs(&self) -> &Registers {
        &self.regs
    }

    /// The memory now.
    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    /// Reads the word at `addr` (aligned addresses in range; others read as zero).
    pub fn read_word(&self, addr: u32) -> u32 {
        if addr.is_multiple_of(4) && addr < MEM_SIZE {
            self.mem.read(addr)
        } else {
            0
        }
    }

    /// The program this machine runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The settings.
    pub fn config(&self) -> Config {
        self.config
    }

    /// Output written so far.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// The address of the next instruction (where a run out of fuel stopped).
    pub fn pc(&self) -> u32 {
        self.pc
    }

    /// Steps executed so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Where the run stands: what, besides registers and memory, a run needs to go on.
    pub fn position(&self) -> Position {
        Position {
            pc: self.pc,
            last_pc: self.last_pc,
            steps: self.steps,
            input_pos: self.input_pos,
        }
    }

    /// Puts the machine where another run stood, at `at` with registers `regs` and
    /// `output` written so far; memory is set apart ([`Machine::write_word`]). A run
    /// whose state is known (computed rather than replayed) goes on from there.
    pub fn place(&mut self, at: Position, regs: Registers, output: &[u8]) {
        self.regs = regs;
        self.regs.gpr[0] = 0;
        self.pc = at.pc;
        self.last_pc = at.last_pc;
        self.steps = at.steps;
        self.input_pos = at.input_pos.min(self.input.len());
        self.output.clear();
        self.output.extend_from_slice(output);
    }

    /// Writes a word of memory as a store would (code written this way runs as
    /// written); unaligned addresses and those past memory are ignored.
    pub fn write_word(&mut self, addr: u32, value: u32) {
        if addr.is_multiple_of(4) && addr < MEM_SIZE {
            self.store(addr, value);
        }
    }

    #[inline(always)]
    fn store(&mut self, addr: u32, value: u32) {
        self.mem.write(addr, value);
        if let Some(op) = self.ops.get_mut((addr >> 2) as usize) {
            *op = Instr::decode(value);
        }
    }

    /// Runs from the current state until the program stops, the fuel runs out, or the
    /// settings' [`Stop`] is reached.
    pub fn run<T: Tracer>(&mut self, tracer: &mut T) -> Status {
        let fuel = self.config.fuel;
        if !self.config.stop.is_set() {
            // Nothing to watch: one slice as long as the fuel (measured: the slices
            // cost a plain run about 5% of its speed).
            return self.run_slice(tracer, fuel);
        }
        loop {
            // Slices of at most `STOP_CHECK_STEPS` steps, with a look at the stop
            // condition between two: each slice is the plain loop, with the end of the
            // slice as its fuel.
            let limit = fuel.min(self.steps.saturating_add(STOP_CHECK_STEPS));
            let status = self.run_slice(tracer, limit);
            if status != Status::OutOfFuel || self.steps >= fuel {
                return status;
            }
            if self.config.stop.reached() {
                return Status::Stopped;
            }
        }
    }

    /// Runs from the current state until `steps` steps have been executed in all (or
    /// the fuel, if less), or the program stops first: then its status. `None` when it
    /// is still running at `steps`, ready to go on with another tracer (a run whose
    /// first steps are known replays them untraced).
    pub fn run_until<T: Tracer>(&mut self, tracer: &mut T, steps: u64) -> Option<Status> {
        let until = steps.min(self.config.fuel);
        match self.run_slice(tracer, until) {
            Status::OutOfFuel if self.steps < self.config.fuel => None,
            status => Some(status),
        }
    }

    /// Runs until the program stops or `fuel` steps have been executed in all.
    fn run_slice<T: Tracer>(&mut self, tracer: &mut T, fuel: u64) -> Status {
        let term = self.config.termination;
        loop {
            let pc = self.pc;
            let idx = (pc >> 2) as usize;
            let fetched = match self.ops.get(idx) {
                Some(&op) if pc & 3 == 0 && pc != term => op,
                _ => {
                    if pc == term {
                        return Status::Done;
                    }
                    if pc & 3 != 0 || pc >= MEM_SIZE {
                        let f = Fault {
                            kind: FaultKind::BadPc,
                            pc: self.last_pc,
                            value: pc,
                        };
                        tracer.fault(None, f);
                        return Status::Error(f);
                    }
                    Instr::decode(self.mem.read(pc))
                }
            };
            if self.steps >= fuel {
                return Status::OutOfFuel;
            }
            self.steps += 1;
            let Some(instr) = fetched else {
                let f = Fault {
                    kind: FaultKind::InvalidInstruction,
                    pc,
                    value: self.mem.read(pc),
                };
                tracer.fault(None, f);
                return Status::Error(f);
            };
            self.last_pc = pc;
            let next = pc.wrapping_add(4);
            self.pc = next;
            match self.execute(pc, next, instr) {
                Ok(event) => tracer.exec(pc, instr, event),
                Err(f) => {
                    tracer.fault(Some(instr), f);
                    return Status::Error(f);
                }
            }
        }
    }

    /// Runs and packages the whole result.
    pub fn run_to_outcome<T: Tracer>(&mut self, tracer: &mut T) -> Outcome {
        let status = self.run(tracer);
        Outcome {
            status,
            steps: self.steps,
            regs: self.regs,
            output: self.output.clone(),
        }
    }

    /// Executes one instruction; `self.pc` already holds `next`. What it computes is
    /// its effect ([`crate::target::cs241::effect`]) over the machine's words; this
    /// function only carries the effect out.
    #[inline(always)]
    fn execute(&mut self, pc: u32, next: u32, instr: Instr) -> Result<Event, Fault> {
        let regs = Regs {
            gpr: &self.regs.gpr,
            hi: self.regs.hi,
            lo: self.regs.lo,
        };
        let event = match cs241::effect(&mut Concrete, regs, pc, instr) {
            Effect::Set(d, v) => {
                self.regs.gpr[d.index() & 31] = v;
                Event::None
            }
            Effect::SetHiLo { hi, lo } => {
                self.regs.hi = hi;
                self.regs.lo = lo;
                Event::None
            }
            Effect::Divide { divisor, hi, lo } => {
                if divisor == 0 {
                    return Err(Fault {
                        kind: FaultKind::DivisionByZero,
                        pc,
                        value: 0,
                    });
                }
                self.regs.hi = hi;
                self.regs.lo = lo;
                Event::None
            }
            Effect::Literal(d) => {
                if next >= MEM_SIZE {
                    return Err(Fault {
                        kind: FaultKind::BadPc,
                        pc,
                        value: next,
                    });
                }
                let v = self.mem.read(next);
                self.regs.gpr[d.index() & 31] = v;
                self.pc = next.wrapping_add(4);
                Event::Literal(v)
            }
            Effect::Load { dest, addr, .. } => {
                if addr == INPUT_ADDR {
                    let byte = self.input.get(self.input_pos).copied();
                    if byte.is_some() {
                        self.input_pos += 1;
                    }
                    self.regs.gpr[dest.index() & 31] = byte.map_or(u32::MAX, u32::from);
                    Event::Input(byte)
                } else {
                    check_access(pc, addr)?;
                    let value = self.mem.read(addr);
                    self.regs.gpr[dest.index() & 31] = value;
                    Event::Load { addr, value }
                }
            }
            Effect::Store { addr, value, .. } => {
                if addr == OUTPUT_ADDR {
                    self.output.push(value as u8);
                    Event::Output(value as u8)
                } else {
                    check_access(pc, addr)?;
                    self.store(addr, value);
                    Event::Store { addr, value }
                }
            }
            Effect::Branch { cond, target, .. } => {
                if cond {
                    self.pc = target;
                }
                Event::Branch { taken: cond }
            }
            Effect::Jump { target, link, .. } => {
                if let Some((r, v)) = link {
                    self.regs.gpr[r.index() & 31] = v;
                }
                self.pc = target;
                Event::Jump {
                    target,
                    link: link.map(|(_, v)| v),
                }
            }
            // Not effects of CS241 instructions.
            Effect::Nothing | Effect::Trap { .. } | Effect::Part { .. } => Event::None,
        };
        self.regs.gpr[0] = 0;
        Ok(event)
    }
}

#[inline(always)]
fn check_access(pc: u32, addr: u32) -> Result<(), Fault> {
    if addr & 3 != 0 {
        Err(Fault {
            kind: FaultKind::UnalignedAccess,
            pc,
            value: addr,
        })
    } else if addr >= MEM_SIZE {
        Err(Fault {
            kind: FaultKind::OutOfRangeAccess,
            pc,
            value: addr,
        })
    } else {
        Ok(())
    }
}

/// Runs `program` once on `frontend` with `input` as standard input.
pub fn run_program(
    program: &Program,
    config: Config,
    frontend: &Frontend,
    input: &[u8],
) -> Result<Outcome, SetupError> {
    let mut m = Machine::new(program, config);
    m.apply(frontend)?;
    m.set_input(Arc::from(input));
    Ok(m.run_to_outcome(&mut NoTrace))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads two bytes of input, prints them, stores a word into its own code (which
    /// then runs) and on the stack, and ends.
    const PROGRAM: &str = "lis $10\n.word 0xffff0004\nlis $11\n.word 0xffff000c\n\
        lw $1, 0($10)\nlw $2, 0($10)\nsw $1, 0($11)\nsw $2, 0($11)\n\
        lis $5\n.word 0x00221820\nsw $5, 48($0)\nsw $1, -4($30)\n\
        add $3, $0, $0\nlw $4, -4($30)\njr $31\n";

    #[test]
    fn a_machine_placed_where_a_run_stood_goes_on_as_that_run() {
        let program = crate::asm::assemble("t.asm", PROGRAM).expect("assembles");
        let config = Config::with_fuel(100);
        let input: Arc<[u8]> = Arc::from(&b"AB"[..]);
        let mut whole = Machine::new(&program, config);
        whole.set_input(input.clone());
        let end = whole.run_to_outcome(&mut NoTrace);
        assert_eq!(end.status, Status::Done);
        assert_eq!(end.output, b"AB");
        assert_eq!(end.regs.gpr[3], u32::from(b'A') + u32::from(b'B'));
        for k in 1..end.steps {
            let mut first = Machine::new(&program, config);
            first.set_input(input.clone());
            assert_eq!(first.run_until(&mut NoTrace, k), None);
            let mut placed = Machine::new(&program, config);
            placed.set_input(input.clone());
            for (base, words) in first.memory().written_pages() {
                for (i, &w) in words.iter().enumerate() {
                    let addr = base + 4 * i as u32;
                    if w != placed.read_word(addr) {
                        placed.write_word(addr, w);
                    }
                }
            }
            placed.place(first.position(), *first.regs(), first.output());
            assert_eq!(placed.position(), first.position());
            let rest = placed.run_to_outcome(&mut NoTrace);
            assert_eq!(rest.status, end.status, "placed after {k} steps");
            assert_eq!(rest.steps, end.steps);
            assert_eq!(rest.regs, end.regs);
            assert_eq!(rest.output, end.output);
        }
    }
}
