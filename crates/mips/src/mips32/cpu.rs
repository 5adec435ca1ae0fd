//! The MIPS32 emulator: one function of an [`Image`] called as o32 calls it, run until
//! it returns, faults or spends its fuel.
//!
//! A branch or jump and its delay slot execute as one step, as they do in the
//! architecture's description: the condition and target are taken before the slot
//! runs, the link register is written before it, and a branch in a delay slot is an
//! error. Traps, address errors and reserved instructions end the run, like CS241's
//! run-time errors.

use std::fmt;
use std::sync::Arc;

use super::abi::{ARG_REGS, INITIAL_SP, RA, RETURN_ADDRESS, SP};
use super::image::Image;
use super::isa::{decode, AluOp, BitOp, BranchCond, ImmOp, Instr, MulDivOp, ShiftOp, Width};
use super::memory::{AccessError, Memory};
use crate::cpu::{Stop, STOP_CHECK_STEPS};
use crate::isa::Reg;
use crate::target::mips32 as sem;
use crate::target::{extend, Concrete, Effect, Ending, Regs};

/// Why a run ended in error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// The word at `pc` is not an instruction of the profile (`value`: the word).
    Reserved,
    /// A branch or jump in a delay slot (`value`: the slot's word).
    BranchInDelaySlot,
    /// A load, store or fetch at a misaligned address (`value`: the address).
    AddressError,
    /// An access outside every section and the stack (`value`: the address).
    Unmapped,
    /// A store into code or read-only data (`value`: the address).
    ReadOnly,
    /// `teq`, `tne`, ... taken (`value`: the trap's code; gcc's division check is 7).
    Trap,
    /// `break` (`value`: its code).
    Break,
    /// `syscall` (`value`: its code): system calls are outside the profile.
    Syscall,
    /// `add`, `addi` or `sub` overflowed.
    Overflow,
    /// `div`/`divu` by zero: the architecture leaves `hi` and `lo` unpredictable, so the
    /// run ends there rather than guess.
    DivisionByZero,
    /// A jump to a function the file does not define (`value`: the address jumped to;
    /// [`super::Image::undefined_jump`] names the function).
    UndefinedCall,
}

impl FaultKind {
    /// The fault an instruction's own ending raises, with the value it reports.
    pub fn of(ending: Ending) -> (FaultKind, u32) {
        match ending {
            Ending::Overflow => (FaultKind::Overflow, 0),
            Ending::Trap(code) => (FaultKind::Trap, code),
            Ending::Break(code) => (FaultKind::Break, code),
            Ending::Syscall(code) => (FaultKind::Syscall, code),
        }
    }

    /// A short stable name, for JSON and tests.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Reserved => "reserved-instruction",
            FaultKind::BranchInDelaySlot => "branch-in-delay-slot",
            FaultKind::AddressError => "address-error",
            FaultKind::Unmapped => "unmapped-address",
            FaultKind::ReadOnly => "read-only-store",
            FaultKind::Trap => "trap",
            FaultKind::Break => "break",
            FaultKind::Syscall => "syscall",
            FaultKind::Overflow => "overflow",
            FaultKind::DivisionByZero => "division-by-zero",
            FaultKind::UndefinedCall => "undefined-call",
        }
    }
}

/// A run-time error: what, at which instruction, and the value that caused it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fault {
    pub kind: FaultKind,
    pub pc: u32,
    pub value: u32,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (pc, v) = (self.pc, self.value);
        match self.kind {
            FaultKind::Reserved => write!(f, "reserved instruction 0x{v:08x} at 0x{pc:08x}"),
            FaultKind::BranchInDelaySlot => {
                write!(f, "branch 0x{v:08x} in the delay slot of 0x{pc:08x}")
            }
            FaultKind::AddressError => write!(f, "misaligned address 0x{v:08x} at 0x{pc:08x}"),
            FaultKind::Unmapped => write!(f, "unmapped address 0x{v:08x} at 0x{pc:08x}"),
            FaultKind::ReadOnly => write!(f, "store to read-only 0x{v:08x} at 0x{pc:08x}"),
            FaultKind::Trap => write!(f, "trap (code {v}) at 0x{pc:08x}"),
            FaultKind::Break => write!(f, "break (code {v}) at 0x{pc:08x}"),
            FaultKind::Syscall => write!(f, "syscall (code {v}) at 0x{pc:08x}"),
            FaultKind::Overflow => write!(f, "integer overflow at 0x{pc:08x}"),
            FaultKind::DivisionByZero => write!(f, "division by zero at 0x{pc:08x}"),
            FaultKind::UndefinedCall => {
                write!(
                    f,
                    "call of an undefined function (slot 0x{v:08x}) at 0x{pc:08x}"
                )
            }
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The function returned to its caller.
    Returned,
    OutOfFuel,
    Error(Fault),
    /// Cut short from outside (deadline, Ctrl-C): never a result.
    Stopped,
}

/// What the emulator's fast path does for an instruction: one flat list, so that
/// one jump on it reaches the work. The instructions that end runs or are rare in
/// gcc's output (`add`/`sub`/`addi`, `div`, `msub`, `clo`, the unaligned accesses,
/// traps, `break`, `syscall`) go to [`Machine::execute`] through `Slow`, as the
/// linking branches go to [`Machine::control`] through `SlowControl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    /// No instruction: misaligned, outside the code, or a word that does not decode.
    Invalid,
    Nop,
    Addu,
    Subu,
    And,
    Or,
    Xor,
    Nor,
    Slt,
    Sltu,
    Sllv,
    Srlv,
    Srav,
    Rotrv,
    Movn,
    Movz,
    Mul,
    Addiu,
    Slti,
    Sltiu,
    Andi,
    Ori,
    Xori,
    Lui,
    Sll,
    Srl,
    Sra,
    Rotr,
    Mult,
    Multu,
    Madd,
    Maddu,
    Mfhi,
    Mflo,
    Mthi,
    Mtlo,
    Clz,
    Seb,
    Seh,
    Wsbh,
    Ext,
    Ins,
    Lb,
    Lbu,
    Lh,
    Lhu,
    Lw,
    Sb,
    Sh,
    Sw,
    Slow,
    // The instructions with a delay slot, last (see `is_control`).
    Beq,
    Bne,
    Blez,
    Bgtz,
    Bltz,
    Bgez,
    J,
    Jal,
    Jr,
    Jalr,
    SlowControl,
}

impl Kind {
    #[inline(always)]
    fn is_control(self) -> bool {
        self as u8 >= Kind::Beq as u8
    }
}

/// An instruction as the fast path runs it: registers as numbers, `imm` the
/// immediate (extended), shift amount, offset, `pos | size << 8` of `ext`/`ins`, or the
/// target of a branch or `j`/`jal` (fixed by its address).
#[derive(Clone, Copy, Debug)]
struct Op {
    kind: Kind,
    d: u8,
    s: u8,
    t: u8,
    imm: u32,
}

impl Op {
    const INVALID: Op = Op {
        kind: Kind::Invalid,
        d: 0,
        s: 0,
        t: 0,
        imm: 0,
    };

    /// The fast form of `instr` at `pc`.
    fn new(instr: Instr, pc: u32) -> Op {
        use Instr::*;
        let r = |r: Reg| r.index() as u8;
        let op = |kind, d: Reg, s: Reg, t: Reg, imm| Op {
            kind,
            d: r(d),
            s: r(s),
            t: r(t),
            imm,
        };
        let z = Reg::ZERO;
        match instr {
            Alu { op: a, d, s, t } => {
                let kind = match a {
                    AluOp::Addu => Kind::Addu,
                    AluOp::Subu => Kind::Subu,
                    AluOp::And => Kind::And,
                    AluOp::Or => Kind::Or,
                    AluOp::Xor => Kind::Xor,
                    AluOp::Nor => Kind::Nor,
                    AluOp::Slt => Kind::Slt,
                    AluOp::Sltu => Kind::Sltu,
                    AluOp::Sllv => Kind::Sllv,
                    AluOp::Srlv => Kind::Srlv,
                    AluOp::Srav => Kind::Srav,
                    AluOp::Rotrv => Kind::Rotrv,
                    AluOp::Movn => Kind::Movn,
                    AluOp::Movz => Kind::Movz,
                    AluOp::Mul => Kind::Mul,
                    AluOp::Add | AluOp::Sub => Kind::Slow,
                };
                op(kind, d, s, t, 0)
            }
            Imm { op: i, t, s, imm } => {
                let kind = match i {
                    ImmOp::Addiu => Kind::Addiu,
                    ImmOp::Slti => Kind::Slti,
                    ImmOp::Sltiu => Kind::Sltiu,
                    ImmOp::Andi => Kind::Andi,
                    ImmOp::Ori => Kind::Ori,
                    ImmOp::Xori => Kind::Xori,
                    ImmOp::Lui => Kind::Lui,
                    ImmOp::Addi => Kind::Slow,
                };
                op(kind, z, s, t, imm)
            }
            Shift { op: sh, d, t, sa } => {
                let kind = match sh {
                    ShiftOp::Sll if d == z => Kind::Nop,
                    ShiftOp::Sll => Kind::Sll,
                    ShiftOp::Srl => Kind::Srl,
                    ShiftOp::Sra => Kind::Sra,
                    ShiftOp::Rotr => Kind::Rotr,
                };
                op(kind, d, z, t, sa as u32)
            }
            MulDiv { op: m, s, t } => {
                let kind = match m {
                    MulDivOp::Mult => Kind::Mult,
                    MulDivOp::Multu => Kind::Multu,
                    MulDivOp::Madd => Kind::Madd,
                    MulDivOp::Maddu => Kind::Maddu,
                    MulDivOp::Div | MulDivOp::Divu | MulDivOp::Msub | MulDivOp::Msubu => Kind::Slow,
                };
                op(kind, z, s, t, 0)
            }
            Mfhi { d } => op(Kind::Mfhi, d, z, z, 0),
            Mflo { d } => op(Kind::Mflo, d, z, z, 0),
            Mthi { s } => op(Kind::Mthi, z, s, z, 0),
            Mtlo { s } => op(Kind::Mtlo, z, s, z, 0),
            Bit { op: b, d, src } => {
                let kind = match b {
                    BitOp::Clz => Kind::Clz,
                    BitOp::Seb => Kind::Seb,
                    BitOp::Seh => Kind::Seh,
                    BitOp::Wsbh => Kind::Wsbh,
                    BitOp::Clo => Kind::Slow,
                };
                op(kind, d, src, z, 0)
            }
            Ext { t, s, pos, size } => op(Kind::Ext, z, s, t, pos as u32 | (size as u32) << 8),
            Ins { t, s, pos, size } => op(Kind::Ins, z, s, t, pos as u32 | (size as u32) << 8),
            Load {
                width,
                signed,
                t,
                s,
                off,
            } => {
                let kind = match (width, signed) {
                    (Width::Byte, true) => Kind::Lb,
                    (Width::Byte, false) => Kind::Lbu,
                    (Width::Half, true) => Kind::Lh,
                    (Width::Half, false) => Kind::Lhu,
                    (Width::Word, _) => Kind::Lw,
                };
                op(kind, z, s, t, off as i32 as u32)
            }
            Store { width, t, s, off } => {
                let kind = match width {
                    Width::Byte => Kind::Sb,
                    Width::Half => Kind::Sh,
                    Width::Word => Kind::Sw,
                };
                op(kind, z, s, t, off as i32 as u32)
            }
            Branch {
                cond,
                s,
                t,
                off,
                link,
            } => {
                let kind = match (cond, link) {
                    (_, true) => Kind::SlowControl,
                    (BranchCond::Eq, _) => Kind::Beq,
                    (BranchCond::Ne, _) => Kind::Bne,
                    (BranchCond::Lez, _) => Kind::Blez,
                    (BranchCond::Gtz, _) => Kind::Bgtz,
                    (BranchCond::Ltz, _) => Kind::Bltz,
                    (BranchCond::Gez, _) => Kind::Bgez,
                };
                op(kind, z, s, t, super::isa::branch_target(pc, off))
            }
            Jump { index, link } => op(
                if link { Kind::Jal } else { Kind::J },
                z,
                z,
                z,
                super::isa::jump_target(pc, index),
            ),
            JumpReg { s, link: None } => op(Kind::Jr, z, s, z, 0),
            JumpReg { s, link: Some(d) } => op(Kind::Jalr, d, s, z, 0),
            Sync => op(Kind::Nop, z, z, z, 0),
            Part { .. } | Trap { .. } | Break { .. } | Syscall { .. } => op(Kind::Slow, z, z, z, 0),
        }
    }
}

/// The code of an image, decoded once: `[base, base + 4 * ops.len())`.
#[derive(Debug)]
struct Text {
    base: u32,
    ops: Vec<Option<Instr>>,
    words: Vec<u32>,
    /// Whether each word lies in a code section (the gaps between two are unmapped).
    in_code: Vec<bool>,
    /// `ops` as the fast path runs them.
    fast: Vec<Op>,
}

impl Text {
    fn new(image: &Image) -> Text {
        let code: Vec<_> = image.sections.iter().filter(|s| s.executable).collect();
        let (Some(first), Some(last)) = (code.first(), code.last()) else {
            return Text {
                base: 0,
                ops: Vec::new(),
                words: Vec::new(),
                in_code: Vec::new(),
                fast: Vec::new(),
            };
        };
        let base = first.addr & !3;
        let end = (last.end() + 3) & !3;
        let len = ((end - base as u64) / 4) as usize;
        let mut words = vec![0u32; len];
        let mut in_code = vec![false; len];
        for s in code {
            let first = ((s.addr as u64).saturating_sub(base as u64) / 4) as usize;
            for k in first..len {
                let a = base as u64 + 4 * k as u64;
                if a + 4 > s.end() {
                    break;
                }
                if a >= s.addr as u64 {
                    let o = (a - s.addr as u64) as usize;
                    if let Some(b) = s.bytes.get(o..o + 4) {
                        words[k] = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
                        in_code[k] = true;
                    }
                }
            }
        }
        let ops: Vec<_> = (words.iter().zip(&in_code))
            .map(|(&w, &code)| if code { decode(w) } else { None })
            .collect();
        let fast = (ops.iter().enumerate())
            .map(|(k, op)| op.map_or(Op::INVALID, |i| Op::new(i, base + 4 * k as u32)))
            .collect();
        Text {
            base,
            ops,
            words,
            in_code,
            fast,
        }
    }

    /// The instruction at `pc`: `Err` when `pc` holds no code.
    #[inline]
    fn fetch(&self, pc: u32) -> Result<(Option<Instr>, u32), ()> {
        let k = (pc.wrapping_sub(self.base) >> 2) as usize;
        if pc < self.base {
            return Err(());
        }
        match (self.ops.get(k), self.words.get(k), self.in_code.get(k)) {
            (Some(&op), Some(&w), Some(true)) => Ok((op, w)),
            _ => Err(()),
        }
    }

    /// The fast form of the instruction at `pc`: [`Op::INVALID`] when `pc` is
    /// misaligned or holds none ([`Machine::fetch`] says what went wrong).
    #[inline(always)]
    fn op(&self, pc: u32) -> Op {
        if pc & 3 != 0 || pc < self.base {
            return Op::INVALID;
        }
        match self.fast.get((pc.wrapping_sub(self.base) >> 2) as usize) {
            Some(&op) => op,
            None => Op::INVALID,
        }
    }

    /// The instruction at `pc`, which the fast path found.
    fn instr(&self, pc: u32) -> Instr {
        self.ops[(pc.wrapping_sub(self.base) >> 2) as usize].expect("a decoded instruction")
    }
}

/// The registers of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registers {
    pub gpr: [u32; 32],
    pub hi: u32,
    pub lo: u32,
    pub pc: u32,
}

impl Registers {
    pub fn get(&self, r: Reg) -> u32 {
        self.gpr[r.index() & 31]
    }
}

/// A MIPS32 machine holding one image; [`Machine::call`] starts a run of one of its
/// functions, and [`Machine::reset`] makes it ready for the next.
pub struct Machine {
    image: Arc<Image>,
    text: Arc<Text>,
    mem: Memory,
    regs: Registers,
    steps: u64,
    fuel: u64,
    stop: Stop,
}

impl Machine {
    /// A machine with `image` loaded, running at most `fuel` instructions per run.
    pub fn new(image: &Image, fuel: u64) -> Machine {
        Machine {
            image: Arc::new(image.clone()),
            text: Arc::new(Text::new(image)),
            mem: Memory::new(image),
            regs: Registers {
                gpr: [0; 32],
                hi: 0,
                lo: 0,
                pc: 0,
            },
            steps: 0,
            fuel,
            stop: Stop::default(),
        }
    }

    /// Also end runs at `stop` (checked every [`STOP_CHECK_STEPS`] instructions).
    pub fn with_stop(mut self, stop: Stop) -> Machine {
        self.stop = stop;
        self
    }

    /// The same machine with its stack's top at `top` instead of [`super::abi::STACK_TOP`].
    pub fn with_stack_top(mut self, top: u32) -> Machine {
        self.mem = Memory::with_stack_top(&self.image, top);
        self
    }

    /// Memory and registers as at the start, ready for another call.
    pub fn reset(&mut self) {
        self.mem.reset();
        self.regs = Registers {
            gpr: [0; 32],
            hi: 0,
            lo: 0,
            pc: 0,
        };
        self.steps = 0;
    }

    /// Sets up a call of the function at `entry` with `args` in `$a0`.. (at most four
    /// are used), `$sp` and `$ra` as [`super::abi`] says.
    pub fn call(&mut self, entry: u32, args: &[u32]) {
        self.reset();
        for (r, &v) in ARG_REGS.iter().zip(args) {
            self.regs.gpr[r.index()] = v;
        }
        self.regs.gpr[SP.index()] = INITIAL_SP;
        self.regs.gpr[RA.index()] = RETURN_ADDRESS;
        self.regs.pc = entry;
    }

    /// The registers now.
    pub fn regs(&self) -> &Registers {
        &self.regs
    }

    /// Sets a register (not `$0`).
    pub fn set_reg(&mut self, r: Reg, v: u32) {
        if r.index() != 0 {
            self.regs.gpr[r.index() & 31] = v;
        }
    }

    /// Sets `hi` and `lo`.
    pub fn set_hi_lo(&mut self, hi: u32, lo: u32) {
        self.regs.hi = hi;
        self.regs.lo = lo;
    }

    /// Instructions executed so far in this run (a delay slot counts as one).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The memory, for reading results and for tests.
    pub fn memory(&mut self) -> &mut Memory {
        &mut self.mem
    }

    /// The instruction at `pc`, if `pc` holds code that decodes.
    pub fn instr_at(&self, pc: u32) -> Option<Instr> {
        self.text.fetch(pc).ok().and_then(|(op, _)| op)
    }

    /// Runs until the function returns, faults, spends its fuel or is stopped.
    pub fn run(&mut self) -> Status {
        // One handle on the code for the whole run, not one per step.
        let text = Arc::clone(&self.text);
        loop {
            let limit = if self.stop.is_set() {
                self.fuel.min(self.steps.saturating_add(STOP_CHECK_STEPS))
            } else {
                self.fuel
            };
            while self.steps < limit {
                if let Some(status) = self.step_in(&text) {
                    return status;
                }
            }
            if self.steps >= self.fuel {
                return Status::OutOfFuel;
            }
            if self.stop.reached() {
                return Status::Stopped;
            }
        }
    }

    /// Executes one instruction, or a branch with its delay slot; `Some` when the run
    /// ended.
    pub fn step(&mut self) -> Option<Status> {
        let text = Arc::clone(&self.text);
        self.step_in(&text)
    }

    /// [`Machine::step`] with the code at hand (`text` is `self.text`). Whatever the
    /// instruction, one call of [`Machine::execute_op`] runs it (or the delay slot),
    /// so that it is inlined once.
    #[inline(always)]
    fn step_in(&mut self, text: &Text) -> Option<Status> {
        let pc = self.regs.pc;
        if pc == RETURN_ADDRESS {
            return Some(Status::Returned);
        }
        let op = text.op(pc);
        if op.kind == Kind::Invalid {
            return Some(Status::Error(self.fetch_fault(pc, pc)));
        }
        self.steps += 1;
        let (at, op, next) = if !op.kind.is_control() {
            (pc, op, pc.wrapping_add(4))
        } else {
            let (taken, target) = self.control_op(pc, op, text);
            let slot_pc = pc.wrapping_add(4);
            let slot = text.op(slot_pc);
            if slot.kind == Kind::Invalid {
                return Some(Status::Error(self.fetch_fault(slot_pc, pc)));
            }
            if slot.kind.is_control() {
                return Some(Status::Error(self.branch_in_slot(pc)));
            }
            self.steps += 1;
            let next = if taken { target } else { pc.wrapping_add(8) };
            (slot_pc, slot, next)
        };
        if let Err(f) = self.execute_op(at, op, text) {
            return Some(Status::Error(f));
        }
        // Only a branch or jump can go astray (`pc + 4` is aligned).
        if next & 3 != 0 && next != RETURN_ADDRESS {
            return Some(Status::Error(Fault {
                kind: FaultKind::AddressError,
                pc,
                value: next,
            }));
        }
        self.regs.pc = next;
        None
    }

    /// Whether the branch or jump `op` at `pc` is taken and where to; writes its link.
    #[inline(always)]
    fn control_op(&mut self, pc: u32, op: Op, text: &Text) -> (bool, u32) {
        let a = self.regs.gpr[(op.s & 31) as usize];
        let b = self.regs.gpr[(op.t & 31) as usize];
        let link = pc.wrapping_add(8);
        let c = &mut Concrete;
        match op.kind {
            Kind::Beq => (sem::branch_cond(c, BranchCond::Eq, a, b), op.imm),
            Kind::Bne => (sem::branch_cond(c, BranchCond::Ne, a, b), op.imm),
            Kind::Blez => (sem::branch_cond(c, BranchCond::Lez, a, b), op.imm),
            Kind::Bgtz => (sem::branch_cond(c, BranchCond::Gtz, a, b), op.imm),
            Kind::Bltz => (sem::branch_cond(c, BranchCond::Ltz, a, b), op.imm),
            Kind::Bgez => (sem::branch_cond(c, BranchCond::Gez, a, b), op.imm),
            Kind::J => (true, op.imm),
            Kind::Jal => {
                self.put(RA.index() as u8, link);
                (true, op.imm)
            }
            Kind::Jr => (true, a),
            Kind::Jalr => {
                self.put(op.d, link);
                (true, a)
            }
            _ => self.control_slow(pc, text),
        }
    }

    #[cold]
    #[inline(never)]
    fn control_slow(&mut self, pc: u32, text: &Text) -> (bool, u32) {
        self.control(pc, text.instr(pc))
    }

    /// Writes register number `r` unless it is `$0`: without a branch, by clearing
    /// `$0` again.
    #[inline(always)]
    fn put(&mut self, r: u8, v: u32) {
        self.regs.gpr[(r & 31) as usize] = v;
        self.regs.gpr[0] = 0;
    }

    /// Executes the non-control `op` at `pc` as [`Machine::execute`] would.
    #[inline(always)]
    fn execute_op(&mut self, pc: u32, op: Op, text: &Text) -> Result<(), Fault> {
        let a = self.regs.gpr[(op.s & 31) as usize];
        let b = self.regs.gpr[(op.t & 31) as usize];
        let (d, t, imm) = (op.d, op.t, op.imm);
        match op.kind {
            Kind::Nop => {}
            Kind::Addu => self.put(d, sem::alu(&mut Concrete, AluOp::Addu, a, b)),
            Kind::Subu => self.put(d, sem::alu(&mut Concrete, AluOp::Subu, a, b)),
            Kind::And => self.put(d, sem::alu(&mut Concrete, AluOp::And, a, b)),
            Kind::Or => self.put(d, sem::alu(&mut Concrete, AluOp::Or, a, b)),
            Kind::Xor => self.put(d, sem::alu(&mut Concrete, AluOp::Xor, a, b)),
            Kind::Nor => self.put(d, sem::alu(&mut Concrete, AluOp::Nor, a, b)),
            Kind::Slt => self.put(d, sem::alu(&mut Concrete, AluOp::Slt, a, b)),
            Kind::Sltu => self.put(d, sem::alu(&mut Concrete, AluOp::Sltu, a, b)),
            Kind::Sllv => self.put(d, sem::alu(&mut Concrete, AluOp::Sllv, a, b)),
            Kind::Srlv => self.put(d, sem::alu(&mut Concrete, AluOp::Srlv, a, b)),
            Kind::Srav => self.put(d, sem::alu(&mut Concrete, AluOp::Srav, a, b)),
            Kind::Rotrv => self.put(d, sem::alu(&mut Concrete, AluOp::Rotrv, a, b)),
            Kind::Mul => self.put(d, sem::alu(&mut Concrete, AluOp::Mul, a, b)),
            Kind::Movn => {
                if b != 0 {
                    self.put(d, a);
                }
            }
            Kind::Movz => {
                if b == 0 {
                    self.put(d, a);
                }
            }
            Kind::Addiu => self.put(t, sem::imm(&mut Concrete, ImmOp::Addiu, a, imm)),
            Kind::Slti => self.put(t, sem::imm(&mut Concrete, ImmOp::Slti, a, imm)),
            Kind::Sltiu => self.put(t, sem::imm(&mut Concrete, ImmOp::Sltiu, a, imm)),
            Kind::Andi => self.put(t, sem::imm(&mut Concrete, ImmOp::Andi, a, imm)),
            Kind::Ori => self.put(t, sem::imm(&mut Concrete, ImmOp::Ori, a, imm)),
            Kind::Xori => self.put(t, sem::imm(&mut Concrete, ImmOp::Xori, a, imm)),
            Kind::Lui => self.put(t, sem::imm(&mut Concrete, ImmOp::Lui, a, imm)),
            Kind::Sll => self.put(d, sem::shift(&mut Concrete, ShiftOp::Sll, b, imm)),
            Kind::Srl => self.put(d, sem::shift(&mut Concrete, ShiftOp::Srl, b, imm)),
            Kind::Sra => self.put(d, sem::shift(&mut Concrete, ShiftOp::Sra, b, imm)),
            Kind::Rotr => self.put(d, sem::shift(&mut Concrete, ShiftOp::Rotr, b, imm)),
            Kind::Mult | Kind::Multu | Kind::Madd | Kind::Maddu => {
                let m = match op.kind {
                    Kind::Mult => MulDivOp::Mult,
                    Kind::Multu => MulDivOp::Multu,
                    Kind::Madd => MulDivOp::Madd,
                    _ => MulDivOp::Maddu,
                };
                let (hi, lo) = sem::mul_div(&mut Concrete, m, a, b, self.regs.hi, self.regs.lo);
                self.regs.hi = hi;
                self.regs.lo = lo;
            }
            Kind::Mfhi => self.put(d, self.regs.hi),
            Kind::Mflo => self.put(d, self.regs.lo),
            Kind::Mthi => self.regs.hi = a,
            Kind::Mtlo => self.regs.lo = a,
            Kind::Clz => self.put(d, sem::bit(&mut Concrete, BitOp::Clz, a)),
            Kind::Seb => self.put(d, sem::bit(&mut Concrete, BitOp::Seb, a)),
            Kind::Seh => self.put(d, sem::bit(&mut Concrete, BitOp::Seh, a)),
            Kind::Wsbh => self.put(d, sem::bit(&mut Concrete, BitOp::Wsbh, a)),
            Kind::Ext => self.put(
                t,
                sem::extract_bits(&mut Concrete, a, imm as u8, (imm >> 8) as u8),
            ),
            Kind::Ins => self.put(
                t,
                sem::insert_bits(&mut Concrete, b, a, imm as u8, (imm >> 8) as u8),
            ),
            Kind::Lb | Kind::Lbu | Kind::Lh | Kind::Lhu | Kind::Lw => {
                let addr = a.wrapping_add(imm);
                let e = |e| Self::access(e, pc, addr);
                let v = match op.kind {
                    Kind::Lb => self.mem.read::<1>(addr).map_err(e)?[0] as i8 as i32 as u32,
                    Kind::Lbu => self.mem.read::<1>(addr).map_err(e)?[0] as u32,
                    Kind::Lh | Kind::Lhu => {
                        if addr & 1 != 0 {
                            return Err(Self::fault(FaultKind::AddressError, pc, addr));
                        }
                        let h = u16::from_be_bytes(self.mem.read::<2>(addr).map_err(e)?);
                        if op.kind == Kind::Lh {
                            h as i16 as i32 as u32
                        } else {
                            h as u32
                        }
                    }
                    _ => {
                        if addr & 3 != 0 {
                            return Err(Self::fault(FaultKind::AddressError, pc, addr));
                        }
                        u32::from_be_bytes(self.mem.read::<4>(addr).map_err(e)?)
                    }
                };
                self.put(t, v);
            }
            Kind::Sb | Kind::Sh | Kind::Sw => {
                let addr = a.wrapping_add(imm);
                let r = match op.kind {
                    Kind::Sb => self.mem.write(addr, &[b as u8]),
                    Kind::Sh => {
                        if addr & 1 != 0 {
                            return Err(Self::fault(FaultKind::AddressError, pc, addr));
                        }
                        self.mem.write(addr, &(b as u16).to_be_bytes())
                    }
                    _ => {
                        if addr & 3 != 0 {
                            return Err(Self::fault(FaultKind::AddressError, pc, addr));
                        }
                        self.mem.write(addr, &b.to_be_bytes())
                    }
                };
                r.map_err(|e| Self::access(e, pc, addr))?;
            }
            _ => return self.execute_slow(pc, text),
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn execute_slow(&mut self, pc: u32, text: &Text) -> Result<(), Fault> {
        self.execute(pc, text.instr(pc))
    }

    /// The fault of fetching at `pc` (reached from `from`) where the fast path found
    /// no instruction.
    #[cold]
    #[inline(never)]
    fn fetch_fault(&self, pc: u32, from: u32) -> Fault {
        match self.fetch(pc, from) {
            Err(f) => f,
            Ok(i) => unreachable!("{i:?} at 0x{pc:08x} was not found on the fast path"),
        }
    }

    #[cold]
    #[inline(never)]
    fn branch_in_slot(&self, pc: u32) -> Fault {
        let word = self.text.fetch(pc.wrapping_add(4)).map_or(0, |(_, w)| w);
        Fault {
            kind: FaultKind::BranchInDelaySlot,
            pc,
            value: word,
        }
    }

    /// The instruction at `pc` (reached from `from`), or the fault of fetching it.
    #[inline]
    fn fetch(&self, pc: u32, from: u32) -> Result<Instr, Fault> {
        match self.text.fetch(pc) {
            Ok((Some(i), _)) if pc & 3 == 0 => Ok(i),
            Ok((None, w)) if pc & 3 == 0 => Err(Fault {
                kind: FaultKind::Reserved,
                pc,
                value: w,
            }),
            _ => Err(Fault {
                kind: if pc & 3 != 0 {
                    FaultKind::AddressError
                } else if self.image.undefined_jump(pc).is_some() {
                    FaultKind::UndefinedCall
                } else {
                    FaultKind::Unmapped
                },
                pc: from,
                value: pc,
            }),
        }
    }

    #[inline(always)]
    fn get(&self, r: Reg) -> u32 {
        self.regs.gpr[r.index() & 31]
    }

    /// Writes `r` unless it is `$0`: without a branch, by clearing `$0` again.
    #[inline(always)]
    fn set(&mut self, r: Reg, v: u32) {
        self.regs.gpr[r.index() & 31] = v;
        self.regs.gpr[0] = 0;
    }

    /// What `instr` at `pc` does, over the machine's words.
    #[inline]
    fn effect(&self, pc: u32, instr: Instr) -> Effect<u32, bool> {
        let regs = Regs {
            gpr: &self.regs.gpr,
            hi: self.regs.hi,
            lo: self.regs.lo,
        };
        sem::effect(&mut Concrete, regs, pc, instr)
    }

    /// Whether a branch or jump at `pc` is taken and where to; writes its link.
    fn control(&mut self, pc: u32, instr: Instr) -> (bool, u32) {
        match self.effect(pc, instr) {
            Effect::Branch {
                cond, target, link, ..
            } => {
                if let Some((r, v)) = link {
                    self.set(r, v);
                }
                (cond, target)
            }
            Effect::Jump { target, link, .. } => {
                if let Some((r, v)) = link {
                    self.set(r, v);
                }
                (true, target)
            }
            _ => (false, 0),
        }
    }

    fn fault(kind: FaultKind, pc: u32, value: u32) -> Fault {
        Fault { kind, pc, value }
    }

    fn access(e: AccessError, pc: u32, addr: u32) -> Fault {
        let kind = match e {
            AccessError::Unmapped => FaultKind::Unmapped,
            AccessError::ReadOnly => FaultKind::ReadOnly,
        };
        Fault {
            kind,
            pc,
            value: addr,
        }
    }

    /// Executes a non-control instruction at `pc` (the reference for
    /// [`Machine::execute_op`], and what runs the instructions it leaves out): its
    /// effect, on the machine's words.
    #[inline(never)]
    fn execute(&mut self, pc: u32, instr: Instr) -> Result<(), Fault> {
        match self.effect(pc, instr) {
            Effect::Nothing | Effect::Branch { .. } | Effect::Jump { .. } => {}
            Effect::Set(r, v) => self.set(r, v),
            Effect::SetHiLo { hi, lo } => {
                self.regs.hi = hi;
                self.regs.lo = lo;
            }
            Effect::Divide { divisor, hi, lo } => {
                if divisor == 0 {
                    return Err(Self::fault(FaultKind::DivisionByZero, pc, 0));
                }
                self.regs.hi = hi;
                self.regs.lo = lo;
            }
            Effect::Trap { cond, ending, then } => {
                if cond {
                    let (kind, value) = FaultKind::of(ending);
                    return Err(Self::fault(kind, pc, value));
                }
                if let Some((r, v)) = then {
                    self.set(r, v);
                }
            }
            // Not an effect of this target: the word is no instruction of it.
            Effect::Literal(_) => return Err(Self::fault(FaultKind::Reserved, pc, 0)),
            Effect::Load {
                dest,
                addr,
                width,
                signed,
            } => {
                let n = width.bytes();
                if addr & (n - 1) != 0 {
                    return Err(Self::fault(FaultKind::AddressError, pc, addr));
                }
                let e = |e| Self::access(e, pc, addr);
                let v = match width {
                    Width::Byte => self.mem.read::<1>(addr).map_err(e)?[0] as u32,
                    Width::Half => u16::from_be_bytes(self.mem.read::<2>(addr).map_err(e)?) as u32,
                    Width::Word => u32::from_be_bytes(self.mem.read::<4>(addr).map_err(e)?),
                };
                let v = extend(&mut Concrete, v, width, signed);
                self.set(dest, v);
            }
            Effect::Store { addr, value, width } => {
                if addr & (width.bytes() - 1) != 0 {
                    return Err(Self::fault(FaultKind::AddressError, pc, addr));
                }
                let r = match width {
                    Width::Byte => self.mem.write(addr, &[value as u8]),
                    Width::Half => self.mem.write(addr, &(value as u16).to_be_bytes()),
                    Width::Word => self.mem.write(addr, &value.to_be_bytes()),
                };
                r.map_err(|e| Self::access(e, pc, addr))?;
            }
            Effect::Part { op, reg, addr } => {
                let aligned = addr & !3;
                let word = u32::from_be_bytes(
                    self.mem
                        .read::<4>(aligned)
                        .map_err(|e| Self::access(e, pc, addr))?,
                );
                let (v, stored) = sem::part(&mut Concrete, op, addr & 3, self.get(reg), word);
                if op.stores() {
                    self.mem
                        .write(aligned, &stored.to_be_bytes())
                        .map_err(|e| Self::access(e, pc, addr))?;
                } else {
                    self.set(reg, v);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The step as it was written before the fast path, on [`Machine::execute`] and
    /// [`Machine::control`] alone: the reference the fast path must agree with.
    fn reference_step(m: &mut Machine) -> Option<Status> {
        let pc = m.regs.pc;
        if pc == RETURN_ADDRESS {
            return Some(Status::Returned);
        }
        let instr = match m.fetch(pc, pc) {
            Ok(i) => i,
            Err(f) => return Some(Status::Error(f)),
        };
        m.steps += 1;
        if !instr.has_delay_slot() {
            if let Err(f) = m.execute(pc, instr) {
                return Some(Status::Error(f));
            }
            m.regs.pc = pc.wrapping_add(4);
            return None;
        }
        let (taken, target) = m.control(pc, instr);
        let slot_pc = pc.wrapping_add(4);
        let slot = match m.fetch(slot_pc, pc) {
            Ok(i) => i,
            Err(f) => return Some(Status::Error(f)),
        };
        if slot.has_delay_slot() {
            let word = m.text.fetch(slot_pc).map_or(0, |(_, w)| w);
            return Some(Status::Error(Fault {
                kind: FaultKind::BranchInDelaySlot,
                pc,
                value: word,
            }));
        }
        m.steps += 1;
        if let Err(f) = m.execute(slot_pc, slot) {
            return Some(Status::Error(f));
        }
        let next = if taken { target } else { pc.wrapping_add(8) };
        if next & 3 != 0 && next != RETURN_ADDRESS {
            return Some(Status::Error(Fault {
                kind: FaultKind::AddressError,
                pc,
                value: next,
            }));
        }
        m.regs.pc = next;
        None
    }

    /// Every instruction of the profile as a fixed word and the mask of its free
    /// fields (registers, immediates), which the test fills at random.
    const TEMPLATES: &[(u32, u32)] = &[
        // sllv srlv srav rotrv movz movn add addu sub subu and or xor nor slt sltu
        (0x04, 0x03ff_f800),
        (0x06, 0x03ff_f800),
        (0x07, 0x03ff_f800),
        (0x46, 0x03ff_f800),
        (0x0a, 0x03ff_f800),
        (0x0b, 0x03ff_f800),
        (0x20, 0x03ff_f800),
        (0x21, 0x03ff_f800),
        (0x22, 0x03ff_f800),
        (0x23, 0x03ff_f800),
        (0x24, 0x03ff_f800),
        (0x25, 0x03ff_f800),
        (0x26, 0x03ff_f800),
        (0x27, 0x03ff_f800),
        (0x2a, 0x03ff_f800),
        (0x2b, 0x03ff_f800),
        // sll srl sra rotr
        (0x00, 0x001f_ffc0),
        (0x02, 0x001f_ffc0),
        (0x03, 0x001f_ffc0),
        (0x0020_0002, 0x001f_ffc0),
        // mult multu div divu; mfhi mflo; mthi mtlo
        (0x18, 0x03ff_0000),
        (0x19, 0x03ff_0000),
        (0x1a, 0x03ff_0000),
        (0x1b, 0x03ff_0000),
        (0x10, 0x0000_f800),
        (0x12, 0x0000_f800),
        (0x11, 0x03e0_0000),
        (0x13, 0x03e0_0000),
        // madd maddu msub msubu mul clz clo (rd = rt: see `word`)
        (0x7000_0000, 0x03ff_0000),
        (0x7000_0001, 0x03ff_0000),
        (0x7000_0004, 0x03ff_0000),
        (0x7000_0005, 0x03ff_0000),
        (0x7000_0002, 0x03ff_f800),
        (0x7000_0020, 0x03ff_0000),
        (0x7000_0021, 0x03ff_0000),
        // ext ins seb seh wsbh
        (0x7c00_0000, 0x03ff_ffc0),
        (0x7c00_0004, 0x03ff_ffc0),
        (0x7c00_0420, 0x001f_f800),
        (0x7c00_0620, 0x001f_f800),
        (0x7c00_00a0, 0x001f_f800),
        // addi addiu slti sltiu andi ori xori lui
        (0x2000_0000, 0x03ff_ffff),
        (0x2400_0000, 0x03ff_ffff),
        (0x2800_0000, 0x03ff_ffff),
        (0x2c00_0000, 0x03ff_ffff),
        (0x3000_0000, 0x03ff_ffff),
        (0x3400_0000, 0x03ff_ffff),
        (0x3800_0000, 0x03ff_ffff),
        (0x3c00_0000, 0x001f_ffff),
        // lb lh lwl lw lbu lhu lwr sb sh swl sw swr
        (0x8000_0000, 0x03ff_ffff),
        (0x8400_0000, 0x03ff_ffff),
        (0x8800_0000, 0x03ff_ffff),
        (0x8c00_0000, 0x03ff_ffff),
        (0x9000_0000, 0x03ff_ffff),
        (0x9400_0000, 0x03ff_ffff),
        (0x9800_0000, 0x03ff_ffff),
        (0xa000_0000, 0x03ff_ffff),
        (0xa400_0000, 0x03ff_ffff),
        (0xa800_0000, 0x03ff_ffff),
        (0xac00_0000, 0x03ff_ffff),
        (0xb800_0000, 0x03ff_ffff),
        // beq bne blez bgtz bltz bgez bltzal bgezal j jal jr jalr
        (0x1000_0000, 0x03ff_ffff),
        (0x1400_0000, 0x03ff_ffff),
        (0x1800_0000, 0x03e0_ffff),
        (0x1c00_0000, 0x03e0_ffff),
        (0x0400_0000, 0x03e0_ffff),
        (0x0401_0000, 0x03e0_ffff),
        (0x0410_0000, 0x03e0_ffff),
        (0x0411_0000, 0x03e0_ffff),
        (0x0800_0000, 0x03ff_ffff),
        (0x0c00_0000, 0x03ff_ffff),
        (0x08, 0x03e0_0000),
        (0x09, 0x03e0_f800),
        // tge tgeu tlt tltu teq tne; tgei tgeiu tlti tltiu teqi tnei
        (0x30, 0x03ff_ffc0),
        (0x31, 0x03ff_ffc0),
        (0x32, 0x03ff_ffc0),
        (0x33, 0x03ff_ffc0),
        (0x34, 0x03ff_ffc0),
        (0x36, 0x03ff_ffc0),
        (0x0408_0000, 0x03e0_ffff),
        (0x0409_0000, 0x03e0_ffff),
        (0x040a_0000, 0x03e0_ffff),
        (0x040b_0000, 0x03e0_ffff),
        (0x040c_0000, 0x03e0_ffff),
        (0x040e_0000, 0x03e0_ffff),
        // syscall break sync
        (0x0c, 0x03ff_ffc0),
        (0x0d, 0x03ff_ffc0),
        (0x0f, 0),
    ];

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 16) as u32
        }

        /// A random instruction word of the profile.
        fn word(&mut self) -> u32 {
            loop {
                let (fixed, mask) = TEMPLATES[self.next() as usize % TEMPLATES.len()];
                let mut w = fixed | (self.next() & mask);
                if fixed >> 26 == 0x1c && fixed & 0x3e == 0x20 {
                    // clz, clo: rd = rt.
                    w |= ((w >> 16) & 31) << 11;
                }
                if decode(w).is_some() {
                    return w;
                }
            }
        }

        /// A register value: often an address near the stack's top, so that loads and
        /// stores land in memory as well as outside it; sometimes small or extreme.
        fn value(&mut self) -> u32 {
            match self.next() % 4 {
                0 | 1 => INITIAL_SP - 0x1_0000 + (self.next() & 0xffff),
                2 => {
                    [0, 1, 2, 31, 32, u32::MAX, 0x8000_0000, 0x7fff_ffff][self.next() as usize % 8]
                }
                _ => self.next(),
            }
        }
    }

    #[test]
    fn the_fast_path_agrees_with_execute_and_control() {
        const PAIRS: u32 = 20_000;
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let words: Vec<u32> = (0..2 * PAIRS).map(|_| rng.word()).collect();
        let base = 0x0040_0000;
        let image = Image::code(base, &words);
        let mut fast = Machine::new(&image, u64::MAX);
        let mut slow = Machine::new(&image, u64::MAX);
        let mut kinds = std::collections::BTreeSet::new();
        for k in 0..PAIRS {
            // The first of each pair; now and then a misaligned pc or one outside.
            let pc = match k % 97 {
                0 => base + 8 * k + 2,
                1 => base - 8,
                _ => base + 8 * k,
            };
            let values: Vec<u32> = (0..34).map(|_| rng.value()).collect();
            for m in [&mut fast, &mut slow] {
                m.call(pc, &[]);
                for r in 1..32u8 {
                    m.set_reg(Reg::new(r).unwrap(), values[r as usize]);
                }
                m.set_hi_lo(values[32], values[33]);
            }
            let got = fast.step();
            let want = reference_step(&mut slow);
            let instr = slow.instr_at(pc);
            if let Some(i) = instr {
                kinds.insert(i.mnemonic());
            }
            let at = format!("{instr:?} at 0x{pc:08x}");
            assert_eq!(got, want, "{at}: status");
            assert_eq!(fast.regs(), slow.regs(), "{at}: registers");
            assert_eq!(fast.steps(), slow.steps(), "{at}: steps");
            // The word a store (here or in the slot) may have changed: a store writes
            // no register, so its base register holds after the step what it did
            // before the store.
            for at_pc in [pc, pc.wrapping_add(4)] {
                if let Some(Instr::Store { s, off, .. } | Instr::Part { s, off, .. }) =
                    slow.instr_at(at_pc)
                {
                    let addr = slow.regs().get(s).wrapping_add(off as i32 as u32) & !3;
                    assert_eq!(
                        fast.memory().peek_word(addr),
                        slow.memory().peek_word(addr),
                        "{at}: memory at 0x{addr:08x}"
                    );
                }
            }
        }
        assert!(
            kinds.len() >= 80,
            "only {} mnemonics: {kinds:?}",
            kinds.len()
        );
    }
}
