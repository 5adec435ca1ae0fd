//! The 18 CS241 instructions as a Rust type, with their exact binary encoding.
//!
//! Everything downstream (assembler, disassembler, emulator, symbolic tracer) speaks
//! [`Instr`]; only this module knows bit layouts.

use std::fmt;

/// A register number, always in `0..=31`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(u8);

impl Reg {
    /// `$0`, which always reads as zero.
    pub const ZERO: Reg = Reg(0);
    /// `$30`, the stack pointer by convention.
    pub const SP: Reg = Reg(30);
    /// `$31`, the link register.
    pub const RA: Reg = Reg(31);

    /// The register with number `n`, if `n <= 31`.
    pub fn new(n: u8) -> Option<Reg> {
        (n < 32).then_some(Reg(n))
    }

    /// Builds a register from the low five bits of `n` (never fails).
    pub const fn from_bits(n: u32) -> Reg {
        Reg((n & 31) as u8)
    }

    /// The register number.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}", self.0)
    }
}

/// One decoded instruction. Immediates are stored as they appear in the word
/// (sign-extended 16-bit values for `lw`, `sw`, `beq`, `bne`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    Add { d: Reg, s: Reg, t: Reg },
    Sub { d: Reg, s: Reg, t: Reg },
    Mult { s: Reg, t: Reg },
    Multu { s: Reg, t: Reg },
    Div { s: Reg, t: Reg },
    Divu { s: Reg, t: Reg },
    Mfhi { d: Reg },
    Mflo { d: Reg },
    Lis { d: Reg },
    Lw { t: Reg, i: i16, s: Reg },
    Sw { t: Reg, i: i16, s: Reg },
    Slt { d: Reg, s: Reg, t: Reg },
    Sltu { d: Reg, s: Reg, t: Reg },
    Beq { s: Reg, t: Reg, i: i16 },
    Bne { s: Reg, t: Reg, i: i16 },
    Jr { s: Reg },
    Jalr { s: Reg },
}

const fn r_type(s: Reg, t: Reg, d: Reg, funct: u32) -> u32 {
    ((s.0 as u32) << 21) | ((t.0 as u32) << 16) | ((d.0 as u32) << 11) | funct
}

const fn i_type(op: u32, s: Reg, t: Reg, i: i16) -> u32 {
    (op << 26) | ((s.0 as u32) << 21) | ((t.0 as u32) << 16) | (i as u16 as u32)
}

impl Instr {
    /// The instruction's 32-bit encoding.
    pub const fn encode(self) -> u32 {
        use Instr::*;
        const Z: Reg = Reg::ZERO;
        match self {
            Add { d, s, t } => r_type(s, t, d, 0b100000),
            Sub { d, s, t } => r_type(s, t, d, 0b100010),
            Mult { s, t } => r_type(s, t, Z, 0b011000),
            Multu { s, t } => r_type(s, t, Z, 0b011001),
            Div { s, t } => r_type(s, t, Z, 0b011010),
            Divu { s, t } => r_type(s, t, Z, 0b011011),
            Mfhi { d } => r_type(Z, Z, d, 0b010000),
            Mflo { d } => r_type(Z, Z, d, 0b010010),
            Lis { d } => r_type(Z, Z, d, 0b010100),
            Slt { d, s, t } => r_type(s, t, d, 0b101010),
            Sltu { d, s, t } => r_type(s, t, d, 0b101011),
            Jr { s } => r_type(s, Z, Z, 0b001000),
            Jalr { s } => r_type(s, Z, Z, 0b001001),
            Lw { t, i, s } => i_type(0b100011, s, t, i),
            Sw { t, i, s } => i_type(0b101011, s, t, i),
            Beq { s, t, i } => i_type(0b000100, s, t, i),
            Bne { s, t, i } => i_type(0b000101, s, t, i),
        }
    }

    /// Decodes a word; `None` for every bit pattern that is not exactly one of the
    /// 18 encodings (fields that must be zero are checked too, so the all-zero word
    /// is not an instruction).
    pub const fn decode(w: u32) -> Option<Instr> {
        use Instr::*;
        let op = w >> 26;
        let s = Reg::from_bits(w >> 21);
        let t = Reg::from_bits(w >> 16);
        let d = Reg::from_bits(w >> 11);
        let i = w as u16 as i16;
        let shamt = (w >> 6) & 31;
        match op {
            0 => {
                if shamt != 0 {
                    return None;
                }
                let funct = w & 0x3f;
                let (zs, zt, zd) = (s.0 == 0, t.0 == 0, d.0 == 0);
                Some(match funct {
                    0b100000 => Add { d, s, t },
                    0b100010 => Sub { d, s, t },
                    0b101010 => Slt { d, s, t },
                    0b101011 => Sltu { d, s, t },
                    0b011000 if zd => Mult { s, t },
                    0b011001 if zd => Multu { s, t },
                    0b011010 if zd => Div { s, t },
                    0b011011 if zd => Divu { s, t },
                    0b010000 if zs && zt => Mfhi { d },
                    0b010010 if zs && zt => Mflo { d },
                    0b010100 if zs && zt => Lis { d },
                    0b001000 if zt && zd => Jr { s },
                    0b001001 if zt && zd => Jalr { s },
                    _ => return None,
                })
            }
            0b100011 => Some(Lw { t, i, s }),
            0b101011 => Some(Sw { t, i, s }),
            0b000100 => Some(Beq { s, t, i }),
            0b000101 => Some(Bne { s, t, i }),
            _ => None,
        }
    }

    /// The mnemonic, lower case.
    pub const fn mnemonic(self) -> &'static str {
        use Instr::*;
        match self {
            Add { .. } => "add",
            Sub { .. } => "sub",
            Mult { .. } => "mult",
            Multu { .. } => "multu",
            Div { .. } => "div",
            Divu { .. } => "divu",
            Mfhi { .. } => "mfhi",
            Mflo { .. } => "mflo",
            Lis { .. } => "lis",
            Lw { .. } => "lw",
            Sw { .. } => "sw",
            Slt { .. } => "slt",
            Sltu { .. } => "sltu",
            Beq { .. } => "beq",
            Bne { .. } => "bne",
            Jr { .. } => "jr",
            Jalr { .. } => "jalr",
        }
    }

    /// The branch offset in words, for `beq`/`bne`.
    pub const fn branch_offset(self) -> Option<i16> {
        match self {
            Instr::Beq { i, .. } | Instr::Bne { i, .. } => Some(i),
            _ => None,
        }
    }
}

/// Every instruction as `(mask, pattern)`: a word is an instruction exactly when
/// `word & mask == pattern` for one entry (the symbolic engine uses this to reason
/// about words that may not be instructions).
pub const PATTERNS: [(u32, u32); 17] = [
    (0xFC00_07FF, 0x20),        // add
    (0xFC00_07FF, 0x22),        // sub
    (0xFC00_07FF, 0x2A),        // slt
    (0xFC00_07FF, 0x2B),        // sltu
    (0xFC00_FFFF, 0x18),        // mult
    (0xFC00_FFFF, 0x19),        // multu
    (0xFC00_FFFF, 0x1A),        // div
    (0xFC00_FFFF, 0x1B),        // divu
    (0xFFFF_07FF, 0x10),        // mfhi
    (0xFFFF_07FF, 0x12),        // mflo
    (0xFFFF_07FF, 0x14),        // lis
    (0xFC1F_FFFF, 0x08),        // jr
    (0xFC1F_FFFF, 0x09),        // jalr
    (0xFC00_0000, 0x8C00_0000), // lw
    (0xFC00_0000, 0xAC00_0000), // sw
    (0xFC00_0000, 0x1000_0000), // beq
    (0xFC00_0000, 0x1400_0000), // bne
];

/// Assembly syntax, with branch offsets as raw numbers.
impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Instr::*;
        let m = self.mnemonic();
        match *self {
            Add { d, s, t } | Sub { d, s, t } | Slt { d, s, t } | Sltu { d, s, t } => {
                write!(f, "{m} {d}, {s}, {t}")
            }
            Mult { s, t } | Multu { s, t } | Div { s, t } | Divu { s, t } => {
                write!(f, "{m} {s}, {t}")
            }
            Mfhi { d } | Mflo { d } | Lis { d } => write!(f, "{m} {d}"),
            Lw { t, i, s } | Sw { t, i, s } => write!(f, "{m} {t}, {i}({s})"),
            Beq { s, t, i } | Bne { s, t, i } => write!(f, "{m} {s}, {t}, {i}"),
            Jr { s } | Jalr { s } => write!(f, "{m} {s}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn r(n: u8) -> Reg {
        Reg::new(n).unwrap()
    }

    #[test]
    fn encodings_match_the_spec() {
        use Instr::*;
        let cases: &[(Instr, u32)] = &[
            (
                Add {
                    d: r(3),
                    s: r(1),
                    t: r(2),
                },
                0x0022_1820,
            ),
            (
                Sub {
                    d: r(3),
                    s: r(1),
                    t: r(2),
                },
                0x0022_1822,
            ),
            (Mult { s: r(1), t: r(2) }, 0x0022_0018),
            (Multu { s: r(1), t: r(2) }, 0x0022_0019),
            (Div { s: r(1), t: r(2) }, 0x0022_001a),
            (Divu { s: r(1), t: r(2) }, 0x0022_001b),
            (Mfhi { d: r(3) }, 0x0000_1810),
            (Mflo { d: r(3) }, 0x0000_1812),
            (Lis { d: r(3) }, 0x0000_1814),
            (
                Lw {
                    t: r(3),
                    i: -4,
                    s: r(30),
                },
                0x8fc3_fffc,
            ),
            (
                Sw {
                    t: r(31),
                    i: 8,
                    s: r(30),
                },
                0xafdf_0008,
            ),
            (
                Slt {
                    d: r(3),
                    s: r(1),
                    t: r(2),
                },
                0x0022_182a,
            ),
            (
                Sltu {
                    d: r(3),
                    s: r(1),
                    t: r(2),
                },
                0x0022_182b,
            ),
            (
                Beq {
                    s: r(1),
                    t: r(2),
                    i: -1,
                },
                0x1022_ffff,
            ),
            (
                Bne {
                    s: r(1),
                    t: r(2),
                    i: 3,
                },
                0x1422_0003,
            ),
            (Jr { s: r(31) }, 0x03e0_0008),
            (Jalr { s: r(5) }, 0x00a0_0009),
        ];
        for &(instr, word) in cases {
            assert_eq!(instr.encode(), word, "encode {instr}");
            assert_eq!(Instr::decode(word), Some(instr), "decode {word:#010x}");
        }
    }

    #[test]
    fn jalr_encoding_uses_no_destination_field() {
        // `jalr $5` is 000000 00101 00000 00000 00000 001001.
        assert_eq!(Instr::Jalr { s: r(5) }.encode(), 0x00a0_0009);
    }

    #[test]
    fn zero_word_and_stray_bits_are_not_instructions() {
        assert_eq!(Instr::decode(0), None);
        // mult with a non-zero d field
        assert_eq!(Instr::decode(0x0022_0818), None);
        // add with a non-zero shift amount
        assert_eq!(Instr::decode(0x0022_1860), None);
        // jr with a non-zero t field
        assert_eq!(Instr::decode(0x03e1_0008), None);
        // unknown opcode (j)
        assert_eq!(Instr::decode(0x0800_0000), None);
    }

    fn any_reg() -> impl Strategy<Value = Reg> {
        (0u8..32).prop_map(|n| Reg::new(n).unwrap())
    }

    pub(crate) fn any_instr() -> impl Strategy<Value = Instr> {
        use Instr::*;
        let (rr, ri) = (any_reg, any::<i16>);
        prop_oneof![
            (rr(), rr(), rr()).prop_map(|(d, s, t)| Add { d, s, t }),
            (rr(), rr(), rr()).prop_map(|(d, s, t)| Sub { d, s, t }),
            (rr(), rr()).prop_map(|(s, t)| Mult { s, t }),
            (rr(), rr()).prop_map(|(s, t)| Multu { s, t }),
            (rr(), rr()).prop_map(|(s, t)| Div { s, t }),
            (rr(), rr()).prop_map(|(s, t)| Divu { s, t }),
            rr().prop_map(|d| Mfhi { d }),
            rr().prop_map(|d| Mflo { d }),
            rr().prop_map(|d| Lis { d }),
            (rr(), ri(), rr()).prop_map(|(t, i, s)| Lw { t, i, s }),
            (rr(), ri(), rr()).prop_map(|(t, i, s)| Sw { t, i, s }),
            (rr(), rr(), rr()).prop_map(|(d, s, t)| Slt { d, s, t }),
            (rr(), rr(), rr()).prop_map(|(d, s, t)| Sltu { d, s, t }),
            (rr(), rr(), ri()).prop_map(|(s, t, i)| Beq { s, t, i }),
            (rr(), rr(), ri()).prop_map(|(s, t, i)| Bne { s, t, i }),
            rr().prop_map(|s| Jr { s }),
            rr().prop_map(|s| Jalr { s }),
        ]
    }

    proptest! {
        #[test]
        fn decode_inverts_encode(instr in any_instr()) {
            prop_assert_eq!(Instr::decode(instr.encode()), Some(instr));
        }

        #[test]
        fn patterns_agree_with_decode(word in any::<u32>(), pick in 0usize..17, use_pick in any::<bool>()) {
            // Half the cases start from a pattern, so that valid words are common.
            let word = if use_pick {
                let (mask, pat) = PATTERNS[pick];
                (word & !mask) | pat
            } else {
                word
            };
            let matches = PATTERNS.iter().any(|&(m, p)| word & m == p);
            prop_assert_eq!(matches, Instr::decode(word).is_some(), "{:#010x}", word);
        }

        #[test]
        fn encode_inverts_decode(word in any::<u32>()) {
            if let Some(instr) = Instr::decode(word) {
                prop_assert_eq!(instr.encode(), word);
            }
        }
    }
}
