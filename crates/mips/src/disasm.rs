//! The disassembler: text that reassembles to the identical words.

/// Disassembles `words` (loaded at address 0).
pub fn disassemble(words: &[u32]) -> String {
    todo!()
}
