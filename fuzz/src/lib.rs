//! Helpers shared by the fuzz targets: turning fuzzer bytes into programs that are
//! mostly valid CS241 instructions (so the fuzzer spends its time past the decoder),
//! and into run inputs.

use tamarin_mips::{Instr, Reg};

/// Registers the biased generator picks from: the inputs, the result, a few
/// scratch registers, the stack pointer and the link register.
const REGS: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 29, 30, 31, 3];

fn reg(x: u8) -> Reg {
    Reg::new(REGS[(x & 15) as usize]).expect("register number below 32")
}

/// Maps four fuzzer bytes onto one word, biased towards valid instructions with
/// small branch offsets, word-aligned memory offsets and useful literals.
pub fn biased_word(b: [u8; 4]) -> u32 {
    let d = reg(b[1]);
    let s = reg(b[1] >> 4);
    let t = reg(b[2]);
    // A small signed immediate from b[3].
    let small = i16::from(b[3] as i8);
    use Instr::*;
    match b[0] % 26 {
        0 => Add { d, s, t }.encode(),
        1 => Sub { d, s, t }.encode(),
        2 => Mult { s, t }.encode(),
        3 => Multu { s, t }.encode(),
        4 => Div { s, t }.encode(),
        5 => Divu { s, t }.encode(),
        6 => Mfhi { d }.encode(),
        7 => Mflo { d }.encode(),
        8 => Lis { d }.encode(),
        9 => Lw { t, i: small * 4, s }.encode(),
        10 => Sw { t, i: small * 4, s }.encode(),
        11 => Slt { d, s, t }.encode(),
        12 => Sltu { d, s, t }.encode(),
        13 => Beq { s, t, i: small % 8 }.encode(),
        14 => Bne { s, t, i: small % 8 }.encode(),
        15 => Jr { s }.encode(),
        16 => Jalr { s }.encode(),
        // `jr $31`: the normal way out.
        17 => Jr {
            s: Reg::new(31).expect("$31"),
        }
        .encode(),
        // Literals for a preceding `lis`: small numbers, I/O addresses, the
        // termination address, addresses inside the program.
        18 => i32::from(i16::from_be_bytes([b[2], b[3]])) as u32,
        19 => match b[3] & 3 {
            0 => tamarin_mips::cpu::OUTPUT_ADDR,
            1 => tamarin_mips::cpu::INPUT_ADDR,
            2 => tamarin_mips::cpu::DEFAULT_TERMINATION,
            _ => u32::from(b[2]) * 4,
        },
        20 => Lw {
            t,
            i: i16::from_be_bytes([b[2], b[3]]),
            s,
        }
        .encode(),
        21 => Sw {
            t,
            i: i16::from_be_bytes([b[2], b[3]]),
            s,
        }
        .encode(),
        22 => Beq {
            s,
            t,
            i: i16::from_be_bytes([b[2], b[3]]),
        }
        .encode(),
        23 => Bne {
            s,
            t,
            i: i16::from_be_bytes([b[2], b[3]]),
        }
        .encode(),
        // Raw words: data, or instructions with fields the generator never sets.
        _ => u32::from_be_bytes(b),
    }
}

/// Words from `bytes` (trailing bytes that do not fill a word are dropped), raw
/// big-endian or mapped through [`biased_word`].
pub fn words(bytes: &[u8], biased: bool) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| {
            let b = [c[0], c[1], c[2], c[3]];
            if biased {
                biased_word(b)
            } else {
                u32::from_be_bytes(b)
            }
        })
        .collect()
}

/// Four bytes at `at` as a big-endian word (zero-padded past the end).
pub fn word_at(bytes: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    for (k, x) in w.iter_mut().enumerate() {
        *x = bytes.get(at + k).copied().unwrap_or(0);
    }
    u32::from_be_bytes(w)
}
