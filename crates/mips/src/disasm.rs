//! The disassembler: text that reassembles to the identical words.
//!
//! Words that decode print as instructions, everything else as `.word 0x…`. The word
//! after a `lis` is its literal, so it prints as `.word` even when it happens to
//! decode. Branch targets inside the program (or at its very end) get labels named
//! after their address; other branches keep their raw offset. Every line carries its
//! address as a comment.

use std::fmt::Write;

use crate::isa::Instr;

/// Column at which the address comment starts (wide enough for the longest
/// instruction, so the comments line up).
const COMMENT_COLUMN: usize = 28;

/// The label for word `index`: its byte address in hex.
fn label(index: usize) -> String {
    format!("L_0x{:04x}", index as u64 * 4)
}

/// Disassembles `words` (loaded at address 0).
pub fn disassemble(words: &[u32]) -> String {
    let n = words.len();
    // What each word is printed as: `None` for a `.word`, including lis literals.
    let mut ops: Vec<Option<Instr>> = Vec::with_capacity(n);
    let mut after_lis = false;
    for &w in words {
        let op = if after_lis { None } else { Instr::decode(w) };
        after_lis = matches!(op, Some(Instr::Lis { .. }));
        ops.push(op);
    }
    // Which word indices (0..=n, n being the end of the program) need a label.
    let target = |i: usize, op: &Option<Instr>| -> Option<usize> {
        let off = op.as_ref()?.branch_offset()?;
        let t = i as i64 + 1 + i64::from(off);
        usize::try_from(t).ok().filter(|&t| t <= n)
    };
    let mut labelled = vec![false; n + 1];
    for (i, op) in ops.iter().enumerate() {
        if let Some(t) = target(i, op) {
            if let Some(l) = labelled.get_mut(t) {
                *l = true;
            }
        }
    }

    let mut out = String::new();
    let mut text = String::new();
    for (i, (&w, op)) in words.iter().zip(&ops).enumerate() {
        if labelled.get(i) == Some(&true) {
            let _ = writeln!(out, "{}:", label(i));
        }
        text.clear();
        let _ = match (op, target(i, op)) {
            (Some(Instr::Beq { s, t, .. } | Instr::Bne { s, t, .. }), Some(to)) => {
                let m = op.map_or("", |o| o.mnemonic());
                write!(text, "{m} {s}, {t}, {}", label(to))
            }
            (Some(instr), _) => write!(text, "{instr}"),
            (None, _) => write!(text, ".word 0x{w:08x}"),
        };
        let _ = writeln!(out, "{text:<COMMENT_COLUMN$} ; 0x{:08x}", i as u64 * 4);
    }
    if labelled.get(n) == Some(&true) {
        let _ = writeln!(out, "{}:", label(n));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::assemble;
    use crate::isa::Reg;
    use proptest::prelude::*;

    fn reassemble(words: &[u32]) -> Vec<u32> {
        let text = disassemble(words);
        match assemble("disasm", &text) {
            Ok(p) => p.words().to_vec(),
            Err(e) => panic!("disassembly does not reassemble:\n{e}\n--- text ---\n{text}"),
        }
    }

    #[test]
    fn empty_program_is_empty_text() {
        assert_eq!(disassemble(&[]), "");
    }

    #[test]
    fn instructions_literals_and_labels() {
        let words = [
            0x0022_1820, // add $3, $1, $2
            0x0000_2814, // lis $5
            0x0000_2814, // literal that happens to encode lis: printed as data
            0x1000_fffd, // beq $0, $0, -3 -> back to word 1
            0x1000_0001, // beq $0, $0, 1 -> end of program
            0xffff_ffff, // not an instruction
        ];
        let text = disassemble(&words);
        let expected = "\
add $3, $1, $2               ; 0x00000000
L_0x0004:
lis $5                       ; 0x00000004
.word 0x00002814             ; 0x00000008
beq $0, $0, L_0x0004         ; 0x0000000c
beq $0, $0, L_0x0018         ; 0x00000010
.word 0xffffffff             ; 0x00000014
L_0x0018:
";
        assert_eq!(text, expected);
        assert_eq!(reassemble(&words), words);
    }

    #[test]
    fn branch_outside_the_program_keeps_its_offset() {
        let words = [0x1000_0005, 0x1422_8000];
        let text = disassemble(&words);
        assert!(text.contains("beq $0, $0, 5 "), "{text}");
        assert!(text.contains("bne $1, $2, -32768 "), "{text}");
        assert_eq!(reassemble(&words), words);
    }

    #[test]
    fn literal_after_lis_can_be_a_branch_target() {
        // lis $1; .word (beq $0,$0,-2 targets word 1, the literal itself)
        let words = [0x0000_0814, 0x1000_fffe, 0x1000_fffe];
        let text = disassemble(&words);
        assert!(text.contains("L_0x0004:\n.word 0x1000fffe"), "{text}");
        assert_eq!(reassemble(&words), words);
    }

    fn any_reg() -> impl Strategy<Value = Reg> {
        (0u32..32).prop_map(Reg::from_bits)
    }

    /// Instructions, with branch offsets mostly small so they land inside programs.
    fn any_instr() -> impl Strategy<Value = Instr> {
        use Instr::*;
        let (r, i) = (any_reg, any::<i16>);
        let near = || prop_oneof![3 => -40i16..40, 1 => any::<i16>()];
        prop_oneof![
            1 => (r(), r(), r()).prop_map(|(d, s, t)| Add { d, s, t }),
            1 => (r(), r(), r()).prop_map(|(d, s, t)| Sub { d, s, t }),
            1 => (r(), r(), r()).prop_map(|(d, s, t)| Slt { d, s, t }),
            1 => (r(), r(), r()).prop_map(|(d, s, t)| Sltu { d, s, t }),
            1 => (r(), r()).prop_map(|(s, t)| Mult { s, t }),
            1 => (r(), r()).prop_map(|(s, t)| Multu { s, t }),
            1 => (r(), r()).prop_map(|(s, t)| Div { s, t }),
            1 => (r(), r()).prop_map(|(s, t)| Divu { s, t }),
            1 => r().prop_map(|d| Mfhi { d }),
            1 => r().prop_map(|d| Mflo { d }),
            3 => r().prop_map(|d| Lis { d }),
            1 => (r(), i(), r()).prop_map(|(t, i, s)| Lw { t, i, s }),
            1 => (r(), i(), r()).prop_map(|(t, i, s)| Sw { t, i, s }),
            3 => (r(), r(), near()).prop_map(|(s, t, i)| Beq { s, t, i }),
            3 => (r(), r(), near()).prop_map(|(s, t, i)| Bne { s, t, i }),
            1 => r().prop_map(|s| Jr { s }),
            1 => r().prop_map(|s| Jalr { s }),
        ]
    }

    fn any_word() -> impl Strategy<Value = u32> {
        prop_oneof![
            3 => any_instr().prop_map(Instr::encode),
            1 => any::<u32>(),
            1 => Just(0u32),
        ]
    }

    proptest! {
        #[test]
        fn random_words_round_trip(words in proptest::collection::vec(any::<u32>(), 0..64)) {
            prop_assert_eq!(reassemble(&words), words);
        }

        #[test]
        fn instruction_heavy_words_round_trip(words in proptest::collection::vec(any_word(), 0..128)) {
            prop_assert_eq!(reassemble(&words), words);
        }
    }
}
