//! The MIPS32 (release 2) integer instructions that gcc emits for C, decoded by hand
//! from their words. Everything else (floating point, coprocessors, branch-likely) is
//! not an instruction of this profile and decodes to `None`.
//!
//! Immediates are kept as the instruction means them: sign- or zero-extended to 32
//! bits, so that the emulator and the symbolic semantics never extend again.

use std::fmt;

use crate::isa::Reg;

/// A register-register operation `d = s op t` (or, for `movn`/`movz`, a conditional
/// move of `s` when `t` is non-zero / zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    /// `add`: traps on signed overflow.
    Add,
    Addu,
    /// `sub`: traps on signed overflow.
    Sub,
    Subu,
    And,
    Or,
    Xor,
    Nor,
    Slt,
    Sltu,
    /// `sllv`, `srlv`, `srav`, `rotrv`: the amount is the low five bits of `s`, the
    /// value `t`.
    Sllv,
    Srlv,
    Srav,
    Rotrv,
    Movn,
    Movz,
    /// `mul` (SPECIAL2): the low word of the product; `hi` and `lo` are left as
    /// they were (our choice for what the architecture calls unpredictable).
    Mul,
}

/// A register-immediate operation `t = s op imm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmOp {
    /// `addi`: traps on signed overflow.
    Addi,
    Addiu,
    Slti,
    Sltiu,
    Andi,
    Ori,
    Xori,
    /// `lui`: `t = imm` (already shifted left by 16).
    Lui,
}

/// A shift by a constant amount: `d = t op sa`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftOp {
    Sll,
    Srl,
    Sra,
    Rotr,
}

/// Operations on `hi`/`lo` with two register operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulDivOp {
    Mult,
    Multu,
    Div,
    Divu,
    Madd,
    Maddu,
    Msub,
    Msubu,
}

/// One-operand bit operations: `d = op(s)` (`clz`, `clo`) or `d = op(t)` (`seb`,
/// `seh`, `wsbh`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    Clz,
    Clo,
    Seb,
    Seh,
    Wsbh,
}

pub use crate::target::{PartOp, Width};

/// When a branch is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BranchCond {
    /// `s == t`.
    Eq,
    /// `s != t`.
    Ne,
    /// `s <= 0` (signed).
    Lez,
    /// `s > 0`.
    Gtz,
    /// `s < 0`.
    Ltz,
    /// `s >= 0`.
    Gez,
}

/// When a trap is taken: `s cond t` (or `s cond imm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrapCond {
    Eq,
    Ne,
    Ge,
    Geu,
    Lt,
    Ltu,
}

/// The second operand of a trap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrapOperand {
    Reg(Reg),
    /// Sign-extended; `tgeiu`/`tltiu` compare it unsigned.
    Imm(u32),
}

/// One decoded MIPS32 instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    Alu {
        op: AluOp,
        d: Reg,
        s: Reg,
        t: Reg,
    },
    Imm {
        op: ImmOp,
        t: Reg,
        s: Reg,
        imm: u32,
    },
    Shift {
        op: ShiftOp,
        d: Reg,
        t: Reg,
        sa: u8,
    },
    MulDiv {
        op: MulDivOp,
        s: Reg,
        t: Reg,
    },
    Mfhi {
        d: Reg,
    },
    Mflo {
        d: Reg,
    },
    Mthi {
        s: Reg,
    },
    Mtlo {
        s: Reg,
    },
    Bit {
        op: BitOp,
        d: Reg,
        src: Reg,
    },
    /// `t = bits [pos, pos + size) of s`, zero-extended.
    Ext {
        t: Reg,
        s: Reg,
        pos: u8,
        size: u8,
    },
    /// Bits `[pos, pos + size)` of `t` get the low `size` bits of `s`.
    Ins {
        t: Reg,
        s: Reg,
        pos: u8,
        size: u8,
    },
    /// `t` gets the `width` at `s + off`, sign- or zero-extended.
    Load {
        width: Width,
        signed: bool,
        t: Reg,
        s: Reg,
        off: i16,
    },
    Store {
        width: Width,
        t: Reg,
        s: Reg,
        off: i16,
    },
    Part {
        op: PartOp,
        t: Reg,
        s: Reg,
        off: i16,
    },
    /// Taken when `cond` holds; the target is `off` words from the delay slot.
    /// `link` writes the address after the delay slot to `$ra` (`bltzal`,
    /// `bgezal`), taken or not.
    Branch {
        cond: BranchCond,
        s: Reg,
        t: Reg,
        off: i16,
        link: bool,
    },
    /// `j`/`jal`: the target's low 28 bits are `index << 2`, the rest come from the
    /// delay slot's address.
    Jump {
        index: u32,
        link: bool,
    },
    /// `jr s` (`link` = None) and `jalr d, s`.
    JumpReg {
        s: Reg,
        link: Option<Reg>,
    },
    Trap {
        cond: TrapCond,
        s: Reg,
        t: TrapOperand,
        code: u16,
    },
    Break {
        code: u32,
    },
    Syscall {
        code: u32,
    },
    /// `sync` (and `pause`, `ssnop`, `ehb`): nothing to do on one processor.
    Sync,
}

impl Instr {
    /// Whether it transfers control after a delay slot: a branch or jump (which may not
    /// sit in another's delay slot).
    pub const fn has_delay_slot(&self) -> bool {
        matches!(
            self,
            Instr::Branch { .. } | Instr::Jump { .. } | Instr::JumpReg { .. }
        )
    }

    /// The target of a branch at `pc` taken, or of a `j`/`jal` at `pc`.
    pub fn static_target(&self, pc: u32) -> Option<u32> {
        match *self {
            Instr::Branch { off, .. } => Some(branch_target(pc, off)),
            Instr::Jump { index, .. } => Some(jump_target(pc, index)),
            _ => None,
        }
    }
}

/// The target of a branch at `pc` with offset `off` words (counted from the delay slot).
pub const fn branch_target(pc: u32, off: i16) -> u32 {
    pc.wrapping_add(4).wrapping_add((off as i32 as u32) << 2)
}

/// The target of `j`/`jal` at `pc`: the delay slot's top four bits, then `index << 2`.
pub const fn jump_target(pc: u32, index: u32) -> u32 {
    (pc.wrapping_add(4) & 0xf000_0000) | ((index & 0x03ff_ffff) << 2)
}

fn reg(word: u32, shift: u32) -> Reg {
    Reg::from_bits(word >> shift)
}

/// Decodes one word, or `None` when it is not an instruction of this profile
/// (reserved, floating point, coprocessor, branch-likely, or a field that must be
/// zero is not).
pub fn decode(w: u32) -> Option<Instr> {
    let op = w >> 26;
    let s = reg(w, 21);
    let t = reg(w, 16);
    let d = reg(w, 11);
    let sa = ((w >> 6) & 31) as u8;
    let funct = w & 63;
    let imm16 = (w & 0xffff) as u16;
    let simm = imm16 as i16;
    let sext = simm as i32 as u32;
    let zext = imm16 as u32;
    let rs = (w >> 21) & 31;
    let rt = (w >> 16) & 31;
    let rd = (w >> 11) & 31;
    use Instr::*;
    let alu = |op| Some(Alu { op, d, s, t });
    let imm = |op, imm| Some(Imm { op, t, s, imm });
    Some(match op {
        0 => match funct {
            0x00 | 0x02 | 0x03 => {
                let sh = match (funct, rs) {
                    (0x00, 0) => ShiftOp::Sll,
                    (0x02, 0) => ShiftOp::Srl,
                    (0x02, 1) => ShiftOp::Rotr,
                    (0x03, 0) => ShiftOp::Sra,
                    _ => return None,
                };
                if sh == ShiftOp::Sll
                    && d.index() == 0
                    && t.index() == 0
                    && (sa == 1 || sa == 3 || sa == 5)
                {
                    // ssnop, ehb, pause: hints with nothing to do here.
                    return Some(Sync);
                }
                Shift { op: sh, d, t, sa }
            }
            0x04 if sa == 0 => return alu(AluOp::Sllv),
            0x06 if sa == 0 => return alu(AluOp::Srlv),
            0x06 if sa == 1 => return alu(AluOp::Rotrv),
            0x07 if sa == 0 => return alu(AluOp::Srav),
            // The hint field (bits 6..10) of jr/jalr is ignored, as processors do.
            0x08 if rt == 0 && rd == 0 => JumpReg { s, link: None },
            0x09 if rt == 0 => JumpReg { s, link: Some(d) },
            0x0a if sa == 0 => return alu(AluOp::Movz),
            0x0b if sa == 0 => return alu(AluOp::Movn),
            0x0c => Syscall {
                code: (w >> 6) & 0xf_ffff,
            },
            0x0d => Break {
                code: (w >> 6) & 0xf_ffff,
            },
            0x0f if w & !(31 << 6) == 0x0f => Sync,
            0x10 if rs == 0 && rt == 0 && sa == 0 => Mfhi { d },
            0x12 if rs == 0 && rt == 0 && sa == 0 => Mflo { d },
            0x11 if rt == 0 && rd == 0 && sa == 0 => Mthi { s },
            0x13 if rt == 0 && rd == 0 && sa == 0 => Mtlo { s },
            0x18..=0x1b if rd == 0 && sa == 0 => MulDiv {
                op: [
                    MulDivOp::Mult,
                    MulDivOp::Multu,
                    MulDivOp::Div,
                    MulDivOp::Divu,
                ][(funct - 0x18) as usize],
                s,
                t,
            },
            0x20..=0x27 | 0x2a | 0x2b if sa == 0 => {
                return alu(match funct {
                    0x20 => AluOp::Add,
                    0x21 => AluOp::Addu,
                    0x22 => AluOp::Sub,
                    0x23 => AluOp::Subu,
                    0x24 => AluOp::And,
                    0x25 => AluOp::Or,
                    0x26 => AluOp::Xor,
                    0x27 => AluOp::Nor,
                    0x2a => AluOp::Slt,
                    _ => AluOp::Sltu,
                })
            }
            0x30..=0x34 | 0x36 => Trap {
                cond: match funct {
                    0x30 => TrapCond::Ge,
                    0x31 => TrapCond::Geu,
                    0x32 => TrapCond::Lt,
                    0x33 => TrapCond::Ltu,
                    0x34 => TrapCond::Eq,
                    _ => TrapCond::Ne,
                },
                s,
                t: TrapOperand::Reg(t),
                code: ((w >> 6) & 0x3ff) as u16,
            },
            _ => return None,
        },
        1 => match rt {
            0x00 | 0x01 | 0x10 | 0x11 => Branch {
                cond: if rt & 1 == 0 {
                    BranchCond::Ltz
                } else {
                    BranchCond::Gez
                },
                s,
                t: Reg::ZERO,
                off: simm,
                link: rt & 0x10 != 0,
            },
            0x08..=0x0c | 0x0e => Trap {
                cond: match rt {
                    0x08 => TrapCond::Ge,
                    0x09 => TrapCond::Geu,
                    0x0a => TrapCond::Lt,
                    0x0b => TrapCond::Ltu,
                    0x0c => TrapCond::Eq,
                    _ => TrapCond::Ne,
                },
                s,
                t: TrapOperand::Imm(sext),
                code: 0,
            },
            _ => return None,
        },
        2 | 3 => Jump {
            index: w & 0x03ff_ffff,
            link: op == 3,
        },
        4 | 5 => Branch {
            cond: if op == 4 {
                BranchCond::Eq
            } else {
                BranchCond::Ne
            },
            s,
            t,
            off: simm,
            link: false,
        },
        6 | 7 if rt == 0 => Branch {
            cond: if op == 6 {
                BranchCond::Lez
            } else {
                BranchCond::Gtz
            },
            s,
            t: Reg::ZERO,
            off: simm,
            link: false,
        },
        0x08 => return imm(ImmOp::Addi, sext),
        0x09 => return imm(ImmOp::Addiu, sext),
        0x0a => return imm(ImmOp::Slti, sext),
        0x0b => return imm(ImmOp::Sltiu, sext),
        0x0c => return imm(ImmOp::Andi, zext),
        0x0d => return imm(ImmOp::Ori, zext),
        0x0e => return imm(ImmOp::Xori, zext),
        0x0f if rs == 0 => return imm(ImmOp::Lui, zext << 16),
        0x1c => match funct {
            0x00 | 0x01 | 0x04 | 0x05 if rd == 0 && sa == 0 => MulDiv {
                op: match funct {
                    0x00 => MulDivOp::Madd,
                    0x01 => MulDivOp::Maddu,
                    0x04 => MulDivOp::Msub,
                    _ => MulDivOp::Msubu,
                },
                s,
                t,
            },
            0x02 if sa == 0 => return alu(AluOp::Mul),
            // clz/clo: the architecture wants rt == rd; gcc always writes so.
            0x20 | 0x21 if sa == 0 && rt == rd => Bit {
                op: if funct == 0x20 {
                    BitOp::Clz
                } else {
                    BitOp::Clo
                },
                d,
                src: s,
            },
            _ => return None,
        },
        0x1f => match funct {
            0x00 => {
                let (pos, size) = (sa, rd as u8 + 1);
                if pos as u32 + size as u32 > 32 {
                    return None;
                }
                Ext { t, s, pos, size }
            }
            0x04 => {
                let (pos, msb) = (sa, rd as u8);
                if msb < pos {
                    return None;
                }
                Ins {
                    t,
                    s,
                    pos,
                    size: msb - pos + 1,
                }
            }
            0x20 if rs == 0 => Bit {
                op: match sa {
                    0x02 => BitOp::Wsbh,
                    0x10 => BitOp::Seb,
                    0x18 => BitOp::Seh,
                    _ => return None,
                },
                d,
                src: t,
            },
            _ => return None,
        },
        0x20 | 0x21 | 0x23 | 0x24 | 0x25 => Load {
            width: match op {
                0x20 | 0x24 => Width::Byte,
                0x21 | 0x25 => Width::Half,
                _ => Width::Word,
            },
            signed: op <= 0x23,
            t,
            s,
            off: simm,
        },
        0x28 | 0x29 | 0x2b => Store {
            width: match op {
                0x28 => Width::Byte,
                0x29 => Width::Half,
                _ => Width::Word,
            },
            t,
            s,
            off: simm,
        },
        0x22 | 0x26 | 0x2a | 0x2e => Part {
            op: match op {
                0x22 => PartOp::Lwl,
                0x26 => PartOp::Lwr,
                0x2a => PartOp::Swl,
                _ => PartOp::Swr,
            },
            t,
            s,
            off: simm,
        },
        _ => return None,
    })
}

/// The o32 names of the registers, as objdump writes them.
pub const ABI_NAMES: [&str; 32] = [
    "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
    "t7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "s8",
    "ra",
];

/// The register an o32 name (with or without `$`, or a number) stands for.
pub fn reg_by_name(name: &str) -> Option<Reg> {
    let n = name.strip_prefix('$').unwrap_or(name);
    if let Ok(k) = n.parse::<u8>() {
        return Reg::new(k);
    }
    let n = if n == "fp" { "s8" } else { n };
    ABI_NAMES
        .iter()
        .position(|&a| a == n)
        .and_then(|k| Reg::new(k as u8))
}

/// A register's o32 name.
pub fn reg_name(r: Reg) -> &'static str {
    ABI_NAMES[r.index() & 31]
}

impl Instr {
    /// Its mnemonic, as `objdump -M no-aliases` writes it.
    pub fn mnemonic(&self) -> &'static str {
        use Instr::*;
        match *self {
            Alu { op, .. } => match op {
                AluOp::Add => "add",
                AluOp::Addu => "addu",
                AluOp::Sub => "sub",
                AluOp::Subu => "subu",
                AluOp::And => "and",
                AluOp::Or => "or",
                AluOp::Xor => "xor",
                AluOp::Nor => "nor",
                AluOp::Slt => "slt",
                AluOp::Sltu => "sltu",
                AluOp::Sllv => "sllv",
                AluOp::Srlv => "srlv",
                AluOp::Srav => "srav",
                AluOp::Rotrv => "rotrv",
                AluOp::Movn => "movn",
                AluOp::Movz => "movz",
                AluOp::Mul => "mul",
            },
            Imm { op, .. } => match op {
                ImmOp::Addi => "addi",
                ImmOp::Addiu => "addiu",
                ImmOp::Slti => "slti",
                ImmOp::Sltiu => "sltiu",
                ImmOp::Andi => "andi",
                ImmOp::Ori => "ori",
                ImmOp::Xori => "xori",
                ImmOp::Lui => "lui",
            },
            Shift { op, .. } => match op {
                ShiftOp::Sll => "sll",
                ShiftOp::Srl => "srl",
                ShiftOp::Sra => "sra",
                ShiftOp::Rotr => "rotr",
            },
            MulDiv { op, .. } => match op {
                MulDivOp::Mult => "mult",
                MulDivOp::Multu => "multu",
                MulDivOp::Div => "div",
                MulDivOp::Divu => "divu",
                MulDivOp::Madd => "madd",
                MulDivOp::Maddu => "maddu",
                MulDivOp::Msub => "msub",
                MulDivOp::Msubu => "msubu",
            },
            Mfhi { .. } => "mfhi",
            Mflo { .. } => "mflo",
            Mthi { .. } => "mthi",
            Mtlo { .. } => "mtlo",
            Bit { op, .. } => match op {
                BitOp::Clz => "clz",
                BitOp::Clo => "clo",
                BitOp::Seb => "seb",
                BitOp::Seh => "seh",
                BitOp::Wsbh => "wsbh",
            },
            Ext { .. } => "ext",
            Ins { .. } => "ins",
            Load { width, signed, .. } => match (width, signed) {
                (Width::Byte, true) => "lb",
                (Width::Byte, false) => "lbu",
                (Width::Half, true) => "lh",
                (Width::Half, false) => "lhu",
                (Width::Word, _) => "lw",
            },
            Store { width, .. } => match width {
                Width::Byte => "sb",
                Width::Half => "sh",
                Width::Word => "sw",
            },
            Part { op, .. } => match op {
                PartOp::Lwl => "lwl",
                PartOp::Lwr => "lwr",
                PartOp::Swl => "swl",
                PartOp::Swr => "swr",
            },
            Branch { cond, link, .. } => match (cond, link) {
                (BranchCond::Eq, _) => "beq",
                (BranchCond::Ne, _) => "bne",
                (BranchCond::Lez, _) => "blez",
                (BranchCond::Gtz, _) => "bgtz",
                (BranchCond::Ltz, false) => "bltz",
                (BranchCond::Gez, false) => "bgez",
                (BranchCond::Ltz, true) => "bltzal",
                (BranchCond::Gez, true) => "bgezal",
            },
            Jump { link, .. } => {
                if link {
                    "jal"
                } else {
                    "j"
                }
            }
            JumpReg { link, .. } => {
                if link.is_some() {
                    "jalr"
                } else {
                    "jr"
                }
            }
            Trap { cond, t, .. } => match (cond, t) {
                (TrapCond::Eq, TrapOperand::Reg(_)) => "teq",
                (TrapCond::Ne, TrapOperand::Reg(_)) => "tne",
                (TrapCond::Ge, TrapOperand::Reg(_)) => "tge",
                (TrapCond::Geu, TrapOperand::Reg(_)) => "tgeu",
                (TrapCond::Lt, TrapOperand::Reg(_)) => "tlt",
                (TrapCond::Ltu, TrapOperand::Reg(_)) => "tltu",
                (TrapCond::Eq, TrapOperand::Imm(_)) => "teqi",
                (TrapCond::Ne, TrapOperand::Imm(_)) => "tnei",
                (TrapCond::Ge, TrapOperand::Imm(_)) => "tgei",
                (TrapCond::Geu, TrapOperand::Imm(_)) => "tgeiu",
                (TrapCond::Lt, TrapOperand::Imm(_)) => "tlti",
                (TrapCond::Ltu, TrapOperand::Imm(_)) => "tltiu",
            },
            Break { .. } => "break",
            Syscall { .. } => "syscall",
            Sync => "sync",
        }
    }

    /// Its operands, as `objdump -M no-aliases` writes them for an instruction at
    /// `pc` (branch and jump targets as absolute hexadecimal addresses, without the
    /// symbol objdump adds).
    pub fn operands(&self, pc: u32) -> String {
        use Instr::*;
        let r = reg_name;
        match *self {
            Alu { op, d, s, t } => match op {
                AluOp::Sllv | AluOp::Srlv | AluOp::Srav | AluOp::Rotrv => {
                    format!("{},{},{}", r(d), r(t), r(s))
                }
                _ => format!("{},{},{}", r(d), r(s), r(t)),
            },
            Imm { op, t, s, imm } => match op {
                ImmOp::Lui => format!("{},0x{:x}", r(t), imm >> 16),
                ImmOp::Andi | ImmOp::Ori | ImmOp::Xori => {
                    format!("{},{},0x{:x}", r(t), r(s), imm)
                }
                _ => format!("{},{},{}", r(t), r(s), imm as i32),
            },
            Shift { d, t, sa, .. } => format!("{},{},0x{:x}", r(d), r(t), sa),
            MulDiv { op, s, t } => match op {
                MulDivOp::Div | MulDivOp::Divu => format!("zero,{},{}", r(s), r(t)),
                _ => format!("{},{}", r(s), r(t)),
            },
            Mfhi { d } | Mflo { d } => r(d).to_string(),
            Mthi { s } | Mtlo { s } => r(s).to_string(),
            Bit { d, src, .. } => format!("{},{}", r(d), r(src)),
            Ext { t, s, pos, size } | Ins { t, s, pos, size } => {
                format!("{},{},0x{:x},0x{:x}", r(t), r(s), pos, size)
            }
            Load { t, s, off, .. } | Store { t, s, off, .. } | Part { t, s, off, .. } => {
                format!("{},{}({})", r(t), off, r(s))
            }
            Branch {
                cond, s, t, off, ..
            } => {
                let target = branch_target(pc, off);
                match cond {
                    BranchCond::Eq | BranchCond::Ne => format!("{},{},{:x}", r(s), r(t), target),
                    _ => format!("{},{:x}", r(s), target),
                }
            }
            Jump { index, .. } => format!("{:x}", jump_target(pc, index)),
            // objdump leaves out the link register when it is `$ra`.
            JumpReg { s, link } => match link {
                Some(d) if d != Reg::RA => format!("{},{}", r(d), r(s)),
                _ => r(s).to_string(),
            },
            Trap { s, t, code, .. } => match t {
                TrapOperand::Reg(t) if code != 0 => format!("{},{},0x{:x}", r(s), r(t), code),
                TrapOperand::Reg(t) => format!("{},{}", r(s), r(t)),
                TrapOperand::Imm(i) => format!("{},{}", r(s), i as i32),
            },
            // Two fields (bits 16..26, then 6..16), the second only when not zero:
            // `break 7` is 0x0007000d.
            Break { code } => {
                let (high, low) = (code >> 10, code & 0x3ff);
                if code == 0 {
                    String::new()
                } else if low == 0 {
                    format!("0x{high:x}")
                } else {
                    format!("0x{high:x},0x{low:x}")
                }
            }
            // One 20-bit field.
            Syscall { code } => {
                if code == 0 {
                    String::new()
                } else {
                    format!("0x{code:x}")
                }
            }
            Sync => String::new(),
        }
    }

    /// Its text for an instruction at `pc`: mnemonic, a tab, operands.
    pub fn text(&self, pc: u32) -> String {
        let ops = self.operands(pc);
        if ops.is_empty() {
            self.mnemonic().to_string()
        } else {
            format!("{}\t{}", self.mnemonic(), ops)
        }
    }
}

impl fmt::Display for Instr {
    /// The text at address 0; use [`Instr::text`] for branches elsewhere.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_words_gcc_emitted() {
        // From `mips-linux-gnu-objdump -d -M no-aliases` of gcc -O2 output.
        let cases: &[(u32, &str)] = &[
            (0x30830007, "andi\tv1,a0,0x7"),
            (0x3c020000, "lui\tv0,0x0"),
            (0x00034080, "sll\tt0,v1,0x2"),
            (0x24420014, "addiu\tv0,v0,20"),
            (0x00001825, "or\tv1,zero,zero"),
            (0x8c470000, "lw\ta3,0(v0)"),
            (0x70a74802, "mul\tt1,a1,a3"),
            (0x2cc20005, "sltiu\tv0,a2,5"),
            (0x00400008, "jr\tv0"),
            (0x00041883, "sra\tv1,a0,0x2"),
            (0x00a001f4, "teq\ta1,zero,0x7"),
            (0x0065001a, "div\tzero,v1,a1"),
            (0x00003012, "mflo\ta2"),
            (0x2466fffe, "addiu\ta2,v1,-2"),
            (0x38660003, "xori\ta2,v1,0x3"),
            (0x00620018, "mult\tv1,v0"),
            (0x00001010, "mfhi\tv0"),
            (0x03e00008, "jr\tra"),
            (0x0040f809, "jalr\tv0"),
            (0x00801809, "jalr\tv1,a0"),
            (0x0007000d, "break\t0x7"),
            (0x0000014d, "break\t0x0,0x5"),
            (0x0001008d, "break\t0x1,0x2"),
            (0x0048d14c, "syscall\t0x12345"),
        ];
        for &(w, text) in cases {
            let i = decode(w).unwrap_or_else(|| panic!("{w:08x} did not decode"));
            assert_eq!(i.text(0), text, "{w:08x}");
        }
    }

    #[test]
    fn branch_targets_count_from_the_delay_slot() {
        // 4: beq v1,zero,30
        let i = decode(0x1060000a).unwrap();
        assert_eq!(i.static_target(4), Some(0x30));
        // 28: bne v0,t0,1c
        let i = decode(0x1448fffc).unwrap();
        assert_eq!(i.static_target(0x28), Some(0x1c));
        assert_eq!(jump_target(0x0040_0010, 0x10_0004), 0x0040_0010);
    }

    #[test]
    fn branch_likely_and_floating_point_are_not_instructions() {
        // beql, bnel, blezl, bgtzl, bltzl, bgezl
        for w in [
            0x5000_0001u32,
            0x5400_0001,
            0x5800_0001,
            0x5c00_0001,
            0x0402_0001,
            0x0403_0001,
        ] {
            assert_eq!(decode(w), None, "{w:08x}");
        }
        // lwc1, add.s
        assert_eq!(decode(0xc4800000), None);
        assert_eq!(decode(0x46000000), None);
    }

    #[test]
    fn fields_that_must_be_zero_are_checked() {
        // mfhi with a non-zero rs.
        assert_eq!(decode(0x0020_1010), None);
        // lui with a non-zero rs.
        assert_eq!(decode(0x3c22_0000), None);
        // blez with a non-zero rt.
        assert_eq!(decode(0x1881_0001), None);
    }

    #[test]
    fn register_names_round_trip() {
        for k in 0..32u8 {
            let r = Reg::new(k).unwrap();
            assert_eq!(reg_by_name(reg_name(r)), Some(r));
            assert_eq!(reg_by_name(&format!("${k}")), Some(r));
        }
        assert_eq!(reg_by_name("$fp"), Reg::new(30));
        assert_eq!(reg_by_name("$bogus"), None);
    }
}
