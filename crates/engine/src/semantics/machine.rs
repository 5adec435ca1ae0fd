//! Facts of the machine that both symbolic drivers need, as terms: which addresses an
//! access or a jump may use, how a bad one fails, and the initial memory.

use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::mips32::cpu::FaultKind;
use tamarin_mips::mips32::isa::{decode, Instr};
use tamarin_mips::mips32::Image;

use crate::term::{BinOp, Term, TermStore};

/// Whether address `a` is word-aligned, and whether it lies inside memory: the two
/// checks the machine makes of every access and every jump target.
pub fn address_checks(s: &mut TermStore, a: Term) -> (Term, Term) {
    let three = s.word(3);
    let zero = s.word(0);
    let low = s.bin(BinOp::BvAnd, a, three);
    let aligned = s.eq(low, zero);
    let mem = s.word(MEM_SIZE);
    let in_range = s.bin(BinOp::Ult, a, mem);
    (aligned, in_range)
}

/// The condition that `a` fails the address checks (unaligned or outside memory):
/// every such access or jump target fails alike.
pub fn bad_address(s: &mut TermStore, a: Term) -> Term {
    let (aligned, in_range) = address_checks(s, a);
    let ok = s.and(aligned, in_range);
    s.not(ok)
}

/// The condition that an access at `a` faults the way the machine reports it: as an
/// unaligned access, or (aligned) as outside memory and not the I/O address `io`.
pub fn access_fault(s: &mut TermStore, a: Term, unaligned: bool, io: u32) -> Term {
    let (aligned, in_range) = address_checks(s, a);
    if unaligned {
        return s.not(aligned);
    }
    let out = s.not(in_range);
    let io = s.word(io);
    let not_io = s.ne(a, io);
    let c = s.and(aligned, out);
    s.and(c, not_io)
}

/// The machine's initial memory as an array term: the image's words from address 0
/// (those inside memory), zero everywhere else. Both drivers start from it.
pub fn initial_memory(s: &mut TermStore, image: &[u32]) -> Term {
    let zero = s.word(0);
    let mut m = s.const_array(zero);
    for (k, &w) in image.iter().enumerate() {
        if w != 0 && (k as u64) * 4 < MEM_SIZE as u64 {
            let (a, v) = (s.word(4 * k as u32), s.word(w));
            m = s.store(m, a, v);
        }
    }
    m
}

/// The word at `addr` of the initial memory.
pub fn initial_word(image: &[u32], addr: u32) -> u32 {
    image.get((addr / 4) as usize).copied().unwrap_or(0)
}

/// The instruction at `pc` of `image`, or the fault of fetching it, as the emulator's
/// `fetch` decides: misaligned, outside code (an undefined function's slot, or
/// unmapped), or not an instruction of the profile.
pub fn mips32_fetch(image: &Image, pc: u32) -> Result<Instr, FaultKind> {
    if pc & 3 != 0 {
        return Err(FaultKind::AddressError);
    }
    if !image.section_at(pc).is_some_and(|s| s.executable) {
        return Err(if image.undefined_jump(pc).is_some() {
            FaultKind::UndefinedCall
        } else {
            FaultKind::Unmapped
        });
    }
    match image.word(pc).map(decode) {
        Some(Some(i)) => Ok(i),
        _ => Err(FaultKind::Reserved),
    }
}
