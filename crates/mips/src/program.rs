//! A loaded program: its words, decoded once, and where each word came from.

use std::sync::Arc;

use crate::isa::Instr;

/// A program image, loaded at address 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    words: Arc<[u32]>,
    ops: Arc<[Option<Instr>]>,
    /// For assembled programs, the 1-based source line of each word.
    lines: Option<Arc<[u32]>>,
}

impl Program {
    /// A program from raw words (a binary file, or words made by a generator).
    pub fn from_words(words: Vec<u32>) -> Program {
        let ops = words.iter().map(|&w| Instr::decode(w)).collect();
        Program {
            words: Arc::from(words),
            ops,
            lines: None,
        }
    }

    /// A program whose words carry their source lines (`lines.len() == words.len()`).
    pub fn with_lines(words: Vec<u32>, lines: Vec<u32>) -> Program {
        debug_assert_eq!(words.len(), lines.len());
        let mut p = Program::from_words(words);
        p.lines = Some(Arc::from(lines));
        p
    }

    /// The words, from address 0.
    pub fn words(&self) -> &Arc<[u32]> {
        &self.words
    }

    /// Each word decoded (`None` where a word is not an instruction).
    pub fn ops(&self) -> &[Option<Instr>] {
        &self.ops
    }

    /// Size of the image in bytes.
    pub fn byte_len(&self) -> u32 {
        (self.words.len() as u32).saturating_mul(4)
    }

    /// The source line of the word at byte address `addr`, for assembled programs
    /// (none for the words of modules linked after the program).
    pub fn line_of(&self, addr: u32) -> Option<u32> {
        let lines = self.lines.as_ref()?;
        if !addr.is_multiple_of(4) {
            return None;
        }
        // Line 0: a word of another file, linked in.
        lines.get((addr / 4) as usize).copied().filter(|&l| l != 0)
    }
}

/// Encodes words as a binary image (big-endian, as the machine reads them).
pub fn to_binary(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}
