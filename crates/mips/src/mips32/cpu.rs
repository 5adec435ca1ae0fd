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
use super::isa::{
    decode, AluOp, BitOp, BranchCond, ImmOp, Instr, MulDivOp, PartOp, ShiftOp, TrapCond,
    TrapOperand, Width,
};
use super::memory::{AccessError, Memory};
use crate::cpu::{Stop, STOP_CHECK_STEPS};
use crate::isa::Reg;

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

/// The code of an image, decoded once: `[base, base + 4 * ops.len())`.
#[derive(Debug)]
struct Text {
    base: u32,
    ops: Vec<Option<Instr>>,
    words: Vec<u32>,
}

impl Text {
    fn new(image: &Image) -> Text {
        let code: Vec<_> = image.sections.iter().filter(|s| s.executable).collect();
        let (Some(first), Some(last)) = (code.first(), code.last()) else {
            return Text {
                base: 0,
                ops: Vec::new(),
                words: Vec::new(),
            };
        };
        let base = first.addr & !3;
        let end = (last.end() + 3) & !3;
        let len = ((end - base as u64) / 4) as usize;
        let mut words = vec![0u32; len];
        for s in code {
            for (k, w) in words.iter_mut().enumerate() {
                let a = base as u64 + 4 * k as u64;
                if a >= s.addr as u64 && a + 4 <= s.end() {
                    let o = (a - s.addr as u64) as usize;
                    if let Some(b) = s.bytes.get(o..o + 4) {
                        *w = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
                    }
                }
            }
        }
        let ops = words.iter().map(|&w| decode(w)).collect();
        Text { base, ops, words }
    }

    /// The instruction at `pc`: `Err` when `pc` holds no code.
    #[inline]
    fn fetch(&self, pc: u32) -> Result<(Option<Instr>, u32), ()> {
        let k = (pc.wrapping_sub(self.base) >> 2) as usize;
        if pc < self.base {
            return Err(());
        }
        match (self.ops.get(k), self.words.get(k)) {
            (Some(&op), Some(&w)) => Ok((op, w)),
            _ => Err(()),
        }
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
        loop {
            let limit = if self.stop.is_set() {
                self.fuel.min(self.steps.saturating_add(STOP_CHECK_STEPS))
            } else {
                self.fuel
            };
            while self.steps < limit {
                if let Some(status) = self.step() {
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
    #[inline]
    pub fn step(&mut self) -> Option<Status> {
        let pc = self.regs.pc;
        if pc == RETURN_ADDRESS {
            return Some(Status::Returned);
        }
        let instr = match self.fetch(pc, pc) {
            Ok(i) => i,
            Err(f) => return Some(Status::Error(f)),
        };
        self.steps += 1;
        if !instr.has_delay_slot() {
            if let Err(f) = self.execute(pc, instr) {
                return Some(Status::Error(f));
            }
            self.regs.pc = pc.wrapping_add(4);
            return None;
        }
        let (taken, target) = self.control(pc, instr);
        let slot_pc = pc.wrapping_add(4);
        let slot = match self.fetch(slot_pc, pc) {
            Ok(i) => i,
            Err(f) => return Some(Status::Error(f)),
        };
        if slot.has_delay_slot() {
            let word = self.text.fetch(slot_pc).map_or(0, |(_, w)| w);
            return Some(Status::Error(Fault {
                kind: FaultKind::BranchInDelaySlot,
                pc,
                value: word,
            }));
        }
        self.steps += 1;
        if let Err(f) = self.execute(slot_pc, slot) {
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
        self.regs.pc = next;
        None
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

    #[inline]
    fn get(&self, r: Reg) -> u32 {
        self.regs.gpr[r.index() & 31]
    }

    #[inline]
    fn set(&mut self, r: Reg, v: u32) {
        let k = r.index() & 31;
        if k != 0 {
            self.regs.gpr[k] = v;
        }
    }

    /// Whether a branch or jump at `pc` is taken and where to; writes its link.
    #[inline]
    fn control(&mut self, pc: u32, instr: Instr) -> (bool, u32) {
        let link = pc.wrapping_add(8);
        match instr {
            Instr::Branch {
                cond,
                s,
                t,
                off,
                link: links,
            } => {
                let (a, b) = (self.get(s), self.get(t));
                let taken = branch_taken(cond, a, b);
                if links {
                    self.set(RA, link);
                }
                (taken, super::isa::branch_target(pc, off))
            }
            Instr::Jump { index, link: links } => {
                if links {
                    self.set(RA, link);
                }
                (true, super::isa::jump_target(pc, index))
            }
            Instr::JumpReg { s, link: d } => {
                let target = self.get(s);
                if let Some(d) = d {
                    self.set(d, link);
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

    /// Executes a non-control instruction at `pc`.
    #[inline]
    fn execute(&mut self, pc: u32, instr: Instr) -> Result<(), Fault> {
        use Instr::*;
        match instr {
            Alu { op, d, s, t } => {
                let (a, b) = (self.get(s), self.get(t));
                let v = match op {
                    AluOp::Add => (a as i32).checked_add(b as i32).ok_or(Self::fault(
                        FaultKind::Overflow,
                        pc,
                        0,
                    ))? as u32,
                    AluOp::Sub => (a as i32).checked_sub(b as i32).ok_or(Self::fault(
                        FaultKind::Overflow,
                        pc,
                        0,
                    ))? as u32,
                    AluOp::Movn => {
                        if b != 0 {
                            self.set(d, a);
                        }
                        return Ok(());
                    }
                    AluOp::Movz => {
                        if b == 0 {
                            self.set(d, a);
                        }
                        return Ok(());
                    }
                    op => alu(op, a, b),
                };
                self.set(d, v);
            }
            Imm { op, t, s, imm } => {
                let a = self.get(s);
                let v = match op {
                    ImmOp::Addi => (a as i32).checked_add(imm as i32).ok_or(Self::fault(
                        FaultKind::Overflow,
                        pc,
                        0,
                    ))? as u32,
                    op => imm_op(op, a, imm),
                };
                self.set(t, v);
            }
            Shift { op, d, t, sa } => {
                let v = shift(op, self.get(t), sa as u32);
                self.set(d, v);
            }
            MulDiv { op, s, t } => {
                let (a, b) = (self.get(s), self.get(t));
                if matches!(op, MulDivOp::Div | MulDivOp::Divu) && b == 0 {
                    return Err(Self::fault(FaultKind::DivisionByZero, pc, 0));
                }
                let (hi, lo) = mul_div(op, a, b, self.regs.hi, self.regs.lo);
                self.regs.hi = hi;
                self.regs.lo = lo;
            }
            Mfhi { d } => self.set(d, self.regs.hi),
            Mflo { d } => self.set(d, self.regs.lo),
            Mthi { s } => self.regs.hi = self.get(s),
            Mtlo { s } => self.regs.lo = self.get(s),
            Bit { op, d, src } => {
                let v = bit_op(op, self.get(src));
                self.set(d, v);
            }
            Ext { t, s, pos, size } => self.set(t, extract(self.get(s), pos, size)),
            Ins { t, s, pos, size } => {
                let v = insert(self.get(t), self.get(s), pos, size);
                self.set(t, v);
            }
            Load {
                width,
                signed,
                t,
                s,
                off,
            } => {
                let addr = self.get(s).wrapping_add(off as i32 as u32);
                if addr & (width.bytes() - 1) != 0 {
                    return Err(Self::fault(FaultKind::AddressError, pc, addr));
                }
                let e = |e| Self::access(e, pc, addr);
                let v = match width {
                    Width::Byte => {
                        let [b] = self.mem.read::<1>(addr).map_err(e)?;
                        if signed {
                            b as i8 as i32 as u32
                        } else {
                            b as u32
                        }
                    }
                    Width::Half => {
                        let h = u16::from_be_bytes(self.mem.read::<2>(addr).map_err(e)?);
                        if signed {
                            h as i16 as i32 as u32
                        } else {
                            h as u32
                        }
                    }
                    Width::Word => u32::from_be_bytes(self.mem.read::<4>(addr).map_err(e)?),
                };
                self.set(t, v);
            }
            Store { width, t, s, off } => {
                let addr = self.get(s).wrapping_add(off as i32 as u32);
                if addr & (width.bytes() - 1) != 0 {
                    return Err(Self::fault(FaultKind::AddressError, pc, addr));
                }
                let v = self.get(t);
                let r = match width {
                    Width::Byte => self.mem.write(addr, &[v as u8]),
                    Width::Half => self.mem.write(addr, &(v as u16).to_be_bytes()),
                    Width::Word => self.mem.write(addr, &v.to_be_bytes()),
                };
                r.map_err(|e| Self::access(e, pc, addr))?;
            }
            Part { op, t, s, off } => {
                let addr = self.get(s).wrapping_add(off as i32 as u32);
                let aligned = addr & !3;
                let word = u32::from_be_bytes(
                    self.mem
                        .read::<4>(aligned)
                        .map_err(|e| Self::access(e, pc, addr))?,
                );
                let (v, stored) = part(op, addr & 3, self.get(t), word);
                match op {
                    PartOp::Lwl | PartOp::Lwr => self.set(t, v),
                    PartOp::Swl | PartOp::Swr => self
                        .mem
                        .write(aligned, &stored.to_be_bytes())
                        .map_err(|e| Self::access(e, pc, addr))?,
                }
            }
            Trap { cond, s, t, code } => {
                let b = match t {
                    TrapOperand::Reg(t) => self.get(t),
                    TrapOperand::Imm(i) => i,
                };
                if trap_taken(cond, self.get(s), b) {
                    return Err(Self::fault(FaultKind::Trap, pc, code as u32));
                }
            }
            Break { code } => return Err(Self::fault(FaultKind::Break, pc, code)),
            Syscall { code } => return Err(Self::fault(FaultKind::Syscall, pc, code)),
            Sync => {}
            Branch { .. } | Jump { .. } | JumpReg { .. } => {}
        }
        Ok(())
    }
}

/// A register-register operation (not `add`/`sub`'s overflow, not the moves).
#[inline]
pub fn alu(op: AluOp, a: u32, b: u32) -> u32 {
    match op {
        AluOp::Add | AluOp::Addu => a.wrapping_add(b),
        AluOp::Sub | AluOp::Subu => a.wrapping_sub(b),
        AluOp::And => a & b,
        AluOp::Or => a | b,
        AluOp::Xor => a ^ b,
        AluOp::Nor => !(a | b),
        AluOp::Slt => ((a as i32) < (b as i32)) as u32,
        AluOp::Sltu => (a < b) as u32,
        // The variable shifts: `a` (from `s`) is the amount, `b` (from `t`) the value.
        AluOp::Sllv => b << (a & 31),
        AluOp::Srlv => b >> (a & 31),
        AluOp::Srav => ((b as i32) >> (a & 31)) as u32,
        AluOp::Rotrv => b.rotate_right(a & 31),
        AluOp::Movn | AluOp::Movz => a,
        AluOp::Mul => a.wrapping_mul(b),
    }
}

/// A register-immediate operation (not `addi`'s overflow).
#[inline]
pub fn imm_op(op: ImmOp, a: u32, imm: u32) -> u32 {
    match op {
        ImmOp::Addi | ImmOp::Addiu => a.wrapping_add(imm),
        ImmOp::Slti => ((a as i32) < (imm as i32)) as u32,
        ImmOp::Sltiu => (a < imm) as u32,
        ImmOp::Andi => a & imm,
        ImmOp::Ori => a | imm,
        ImmOp::Xori => a ^ imm,
        ImmOp::Lui => imm,
    }
}

/// A shift by a constant.
#[inline]
pub fn shift(op: ShiftOp, v: u32, sa: u32) -> u32 {
    match op {
        ShiftOp::Sll => v << (sa & 31),
        ShiftOp::Srl => v >> (sa & 31),
        ShiftOp::Sra => ((v as i32) >> (sa & 31)) as u32,
        ShiftOp::Rotr => v.rotate_right(sa & 31),
    }
}

/// New `(hi, lo)` of a multiply or divide (the divisor is not zero for a division).
#[inline]
pub fn mul_div(op: MulDivOp, a: u32, b: u32, hi: u32, lo: u32) -> (u32, u32) {
    let acc = ((hi as u64) << 32) | lo as u64;
    let split = |x: u64| ((x >> 32) as u32, x as u32);
    let signed = (a as i32 as i64).wrapping_mul(b as i32 as i64) as u64;
    let unsigned = (a as u64) * (b as u64);
    match op {
        MulDivOp::Mult => split(signed),
        MulDivOp::Multu => split(unsigned),
        MulDivOp::Madd => split(acc.wrapping_add(signed)),
        MulDivOp::Maddu => split(acc.wrapping_add(unsigned)),
        MulDivOp::Msub => split(acc.wrapping_sub(signed)),
        MulDivOp::Msubu => split(acc.wrapping_sub(unsigned)),
        MulDivOp::Div => {
            let (a, b) = (a as i32, b as i32);
            (a.wrapping_rem(b) as u32, a.wrapping_div(b) as u32)
        }
        MulDivOp::Divu => (a % b.max(1), a / b.max(1)),
    }
}

/// A one-operand bit operation.
#[inline]
pub fn bit_op(op: BitOp, v: u32) -> u32 {
    match op {
        BitOp::Clz => v.leading_zeros(),
        BitOp::Clo => v.leading_ones(),
        BitOp::Seb => v as u8 as i8 as i32 as u32,
        BitOp::Seh => v as u16 as i16 as i32 as u32,
        BitOp::Wsbh => ((v & 0x00ff_00ff) << 8) | ((v >> 8) & 0x00ff_00ff),
    }
}

/// The low `size` bits set.
#[inline]
fn mask(size: u8) -> u32 {
    if size >= 32 {
        u32::MAX
    } else {
        (1u32 << size) - 1
    }
}

/// `ext`: bits `[pos, pos + size)` of `s`.
#[inline]
pub fn extract(s: u32, pos: u8, size: u8) -> u32 {
    (s >> (pos & 31)) & mask(size)
}

/// `ins`: `t` with bits `[pos, pos + size)` from the low bits of `s`.
#[inline]
pub fn insert(t: u32, s: u32, pos: u8, size: u8) -> u32 {
    let m = mask(size) << (pos & 31);
    (t & !m) | ((s << (pos & 31)) & m)
}

/// The unaligned accesses on a big-endian machine, at byte `k` (0..=3) of the aligned
/// `word`: the register's new value (`lwl`, `lwr`) or the word to store back (`swl`,
/// `swr`).
#[inline]
pub fn part(op: PartOp, k: u32, reg: u32, word: u32) -> (u32, u32) {
    let k = k & 3;
    match op {
        // Bytes k..4 of the word into the top of the register.
        PartOp::Lwl => {
            let keep = if k == 0 { 0 } else { mask(8 * k as u8) };
            ((word << (8 * k)) | (reg & keep), word)
        }
        // Bytes 0..=k of the word into the bottom of the register.
        PartOp::Lwr => {
            let shift = 8 * (3 - k);
            let keep = if k == 3 { 0 } else { !mask(8 * (k as u8 + 1)) };
            ((word >> shift) | (reg & keep), word)
        }
        // The top 4 - k bytes of the register into bytes k..4.
        PartOp::Swl => {
            let low = if k == 0 {
                u32::MAX
            } else {
                mask(8 * (4 - k) as u8)
            };
            (reg, (word & !low) | (reg >> (8 * k)))
        }
        // The low k + 1 bytes of the register into bytes 0..=k.
        PartOp::Swr => {
            let shift = 8 * (3 - k);
            let high = if k == 3 { u32::MAX } else { !mask(shift as u8) };
            (reg, (word & !high) | (reg << shift))
        }
    }
}

/// Whether a branch with `cond` on `a` (and `b`) is taken.
#[inline]
pub fn branch_taken(cond: BranchCond, a: u32, b: u32) -> bool {
    match cond {
        BranchCond::Eq => a == b,
        BranchCond::Ne => a != b,
        BranchCond::Lez => (a as i32) <= 0,
        BranchCond::Gtz => (a as i32) > 0,
        BranchCond::Ltz => (a as i32) < 0,
        BranchCond::Gez => (a as i32) >= 0,
    }
}

/// Whether a trap with `cond` on `a` and `b` is taken.
#[inline]
pub fn trap_taken(cond: TrapCond, a: u32, b: u32) -> bool {
    match cond {
        TrapCond::Eq => a == b,
        TrapCond::Ne => a != b,
        TrapCond::Ge => (a as i32) >= (b as i32),
        TrapCond::Geu => a >= b,
        TrapCond::Lt => (a as i32) < (b as i32),
        TrapCond::Ltu => a < b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unaligned_word_accesses_match_the_manual() {
        let word = 0x1122_3344;
        let reg = 0xaabb_ccdd;
        assert_eq!(part(PartOp::Lwl, 0, reg, word).0, 0x1122_3344);
        assert_eq!(part(PartOp::Lwl, 1, reg, word).0, 0x2233_44dd);
        assert_eq!(part(PartOp::Lwl, 3, reg, word).0, 0x44bb_ccdd);
        assert_eq!(part(PartOp::Lwr, 0, reg, word).0, 0xaabb_cc11);
        assert_eq!(part(PartOp::Lwr, 2, reg, word).0, 0xaa11_2233);
        assert_eq!(part(PartOp::Lwr, 3, reg, word).0, 0x1122_3344);
        assert_eq!(part(PartOp::Swl, 0, reg, word).1, 0xaabb_ccdd);
        assert_eq!(part(PartOp::Swl, 1, reg, word).1, 0x11aa_bbcc);
        assert_eq!(part(PartOp::Swl, 3, reg, word).1, 0x1122_33aa);
        assert_eq!(part(PartOp::Swr, 0, reg, word).1, 0xdd22_3344);
        assert_eq!(part(PartOp::Swr, 2, reg, word).1, 0xbbcc_dd44);
        assert_eq!(part(PartOp::Swr, 3, reg, word).1, 0xaabb_ccdd);
    }

    #[test]
    fn lwl_then_lwr_read_an_unaligned_word() {
        // Bytes 0x11.. 0x88 at addresses 0..8; the word at address 1.
        let (w0, w1) = (0x1122_3344u32, 0x5566_7788u32);
        let r = part(PartOp::Lwl, 1, 0, w0).0;
        let r = part(PartOp::Lwr, 0, r, w1).0;
        assert_eq!(r, 0x2233_4455);
    }

    #[test]
    fn arithmetic_edges() {
        assert_eq!(
            mul_div(MulDivOp::Div, i32::MIN as u32, u32::MAX, 0, 0),
            (0, i32::MIN as u32)
        );
        assert_eq!(
            mul_div(MulDivOp::Div, (-7i32) as u32, 2, 0, 0),
            ((-1i32) as u32, (-3i32) as u32)
        );
        assert_eq!(
            mul_div(MulDivOp::Mult, u32::MAX, 2, 0, 0),
            (u32::MAX, (-2i32) as u32)
        );
        assert_eq!(
            mul_div(MulDivOp::Multu, u32::MAX, 2, 0, 0),
            (1, (-2i32) as u32)
        );
        assert_eq!(mul_div(MulDivOp::Madd, 2, 3, 0, u32::MAX), (1, 5));
        assert_eq!(mul_div(MulDivOp::Msubu, 1, 1, 0, 0), (u32::MAX, u32::MAX));
        assert_eq!(bit_op(BitOp::Clz, 0), 32);
        assert_eq!(bit_op(BitOp::Clo, 0xf000_0000), 4);
        assert_eq!(bit_op(BitOp::Seb, 0x80), 0xffff_ff80);
        assert_eq!(bit_op(BitOp::Seh, 0x1_8000), 0xffff_8000);
        assert_eq!(bit_op(BitOp::Wsbh, 0x1122_3344), 0x2211_4433);
        assert_eq!(extract(0xabcd_ef01, 4, 8), 0xf0);
        assert_eq!(extract(0xabcd_ef01, 0, 32), 0xabcd_ef01);
        assert_eq!(insert(0xffff_ffff, 0, 8, 8), 0xffff_00ff);
        assert_eq!(insert(0, 0xff, 28, 4), 0xf000_0000);
        assert_eq!(alu(AluOp::Srav, 4, 0x8000_0000), 0xf800_0000);
        assert_eq!(alu(AluOp::Rotrv, 36, 0x1234_5678), 0x8123_4567);
        assert_eq!(shift(ShiftOp::Rotr, 0x1234_5678, 8), 0x7812_3456);
    }
}
