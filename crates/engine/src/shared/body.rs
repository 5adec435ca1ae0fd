//! A procedure's body read statically from an image: the words from its entry to its
//! last return, when it is a leaf that uses `$30` only as a stack pointer and `$31`
//! only to return. These are the conditions under which the body's behaviour does not
//! depend on where it lies, where its stack lies or where it returns to, so that one
//! exploration of it alone ([`super::check`]) speaks for every call.

use tamarin_mips::{Instr, Reg};

/// The most words a body may span: the runtime's `print` is about 60.
pub const MAX_BODY_WORDS: usize = 1024;

/// A leaf procedure's words, from its entry on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    /// The entry's byte address in its image.
    pub entry: u32,
    /// The words from the entry to the last word of its last reachable instruction
    /// (a `lis` literal included).
    pub words: Vec<u32>,
}

impl Body {
    /// Whether `addr` lies inside the body.
    pub fn contains(&self, addr: u32) -> bool {
        addr >= self.entry && addr - self.entry < (self.words.len() as u32).saturating_mul(4)
    }
}

/// How far after its `lis` a `jalr` through the same register may come for the
/// literal to count as a call's target (in words, read in order).
const CALL_WINDOW: usize = 4096;

/// The entries worth trying in an image: every `lis` literal that is an aligned
/// address inside it and that a `jalr` through the same register uses before the
/// register is written again (words read in order, branches not followed), as
/// generated code calls: `lis $5` / `.word f` / `jalr $5`, or `print`'s address loaded
/// once into a register that every `println` jumps through. Other literals (sizes,
/// offsets, the output address) are never tried as entries; which candidates are
/// procedures is for [`leaf_body`] and the check to say.
pub fn candidate_entries(image: &[u32]) -> Vec<u32> {
    let len = (image.len() as u32).saturating_mul(4);
    let mut out: Vec<u32> = Vec::new();
    for (k, w) in image.iter().enumerate() {
        let Some(Instr::Lis { d }) = Instr::decode(*w) else {
            continue;
        };
        let Some(&target) = image.get(k + 1) else {
            continue;
        };
        if target == 0 || !target.is_multiple_of(4) || target >= len {
            continue;
        }
        let called = image
            .iter()
            .skip(k + 2)
            .take(CALL_WINDOW)
            .map(|&w| Instr::decode(w))
            .map_while(|i| match i {
                Some(Instr::Jalr { s }) if s == d => Some(true),
                Some(i) if writes_reg(i, d) => None,
                _ => Some(false),
            })
            .any(|called| called);
        if called {
            out.push(target);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether `instr` writes `r` (a `jalr` writes `$31` only).
fn writes_reg(instr: Instr, r: Reg) -> bool {
    use Instr::*;
    match instr {
        Add { d, .. } | Sub { d, .. } | Slt { d, .. } | Sltu { d, .. } => d == r,
        Mfhi { d } | Mflo { d } | Lis { d } => d == r,
        Lw { t, .. } => t == r,
        Jalr { .. } => r == Reg::RA,
        _ => false,
    }
}

/// The body of the leaf procedure at `entry`, if it is one:
/// - every instruction reachable from the entry (through fall-through and branches)
///   decodes, lies at or after the entry, and the only jump is `jr $31`;
/// - `$31` is never written nor read except by `jr $31`;
/// - values derived from the entry `$30` are used only as the base of `lw`/`sw` and in
///   `add`/`sub` with a value not so derived (`$30 - x`, never `x - $30`), are never
///   stored, compared, multiplied or divided, and `$30` holds such a value at every
///   `jr $31`.
pub fn leaf_body(image: &[u32], entry: u32) -> Option<Body> {
    if !entry.is_multiple_of(4) {
        return None;
    }
    let first = (entry / 4) as usize;
    let word_at = |pc: u32| image.get((pc / 4) as usize).copied();
    // Reachable instructions, with the stack-derived registers that may reach each.
    let mut taint_in: Vec<Option<u32>> = Vec::new();
    let sp_bit = 1u32 << Reg::SP.index();
    let mut work = vec![(entry, sp_bit)];
    let mut last = first;
    while let Some((pc, taint)) = work.pop() {
        let k = (pc / 4) as usize;
        if pc < entry || k >= first + MAX_BODY_WORDS {
            return None;
        }
        let slot = k - first;
        if taint_in.len() <= slot {
            taint_in.resize(slot + 1, None);
        }
        let merged = taint_in[slot].map_or(taint, |t| t | taint);
        if taint_in[slot] == Some(merged) {
            continue;
        }
        taint_in[slot] = Some(merged);
        let instr = Instr::decode(word_at(pc)?)?;
        let out = step(instr, merged)?;
        last = last.max(k + usize::from(matches!(instr, Instr::Lis { .. })));
        match instr {
            Instr::Jr { s } if s == Reg::RA => {
                if out & sp_bit == 0 {
                    return None;
                }
            }
            Instr::Jr { .. } | Instr::Jalr { .. } => return None,
            Instr::Lis { .. } => {
                word_at(pc.wrapping_add(4))?;
                work.push((pc.wrapping_add(8), out));
            }
            Instr::Beq { i, .. } | Instr::Bne { i, .. } => {
                let target = pc.wrapping_add(4).wrapping_add((i32::from(i) * 4) as u32);
                work.push((pc.wrapping_add(4), out));
                work.push((target, out));
            }
            _ => work.push((pc.wrapping_add(4), out)),
        }
    }
    let words = image.get(first..=last)?.to_vec();
    Some(Body { entry, words })
}

/// The stack-derived registers after `instr`, given those before (`None`: the
/// instruction uses one in a way the body may not).
fn step(instr: Instr, taint: u32) -> Option<u32> {
    let t = |r: Reg| taint & (1 << r.index()) != 0;
    let set = |d: Reg, on: bool| -> u32 {
        let bit = 1u32 << d.index();
        if d == Reg::ZERO {
            taint
        } else if on {
            taint | bit
        } else {
            taint & !bit
        }
    };
    let ra = |r: Reg| r == Reg::RA;
    use Instr::*;
    match instr {
        Add { d, s, t: u } => {
            if ra(d) || ra(s) || ra(u) || (t(s) && t(u)) {
                return None;
            }
            Some(set(d, t(s) || t(u)))
        }
        // The difference of two stack-derived values does not depend on where the
        // stack is; a stack-derived value minus anything else stays one.
        Sub { d, s, t: u } => {
            if ra(d) || ra(s) || ra(u) || (t(u) && !t(s)) {
                return None;
            }
            Some(set(d, t(s) && !t(u)))
        }
        Slt { d, s, t: u } | Sltu { d, s, t: u } => {
            if ra(d) || ra(s) || ra(u) || t(s) || t(u) {
                return None;
            }
            Some(set(d, false))
        }
        Mult { s, t: u } | Multu { s, t: u } | Div { s, t: u } | Divu { s, t: u } => {
            (!(ra(s) || ra(u) || t(s) || t(u))).then_some(taint)
        }
        Mfhi { d } | Mflo { d } | Lis { d } => (!ra(d)).then(|| set(d, false)),
        Lw { t: d, s, .. } => (!(ra(d) || ra(s))).then(|| set(d, false)),
        Sw { t: v, s, .. } => (!(ra(v) || ra(s) || t(v))).then_some(taint),
        // Two stack-derived values are equal or not wherever the stack is (a pointer
        // walking the frame compared with `$30`); one against anything else is not.
        Beq { s, t: u, .. } | Bne { s, t: u, .. } => {
            (!(ra(s) || ra(u) || t(s) != t(u))).then_some(taint)
        }
        Jr { s } => (s == Reg::RA).then_some(taint),
        Jalr { .. } => None,
    }
}

/// Where `body`'s words lie in `image`, if they do (the first place).
pub fn find_in(image: &[u32], body: &[u32]) -> Option<u32> {
    if body.is_empty() || body.len() > image.len() {
        return None;
    }
    image
        .windows(body.len())
        .position(|w| w == body)
        .map(|k| (k as u32) * 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin_mips::asm::assemble;

    fn image(src: &str) -> Vec<u32> {
        assemble("t.asm", src).expect("assembles").words().to_vec()
    }

    #[test]
    fn a_leaf_that_saves_and_restores_is_a_body() {
        let img = image(
            "jr $31\nf: sw $1, -4($30)\nlis $2\n.word 4\nsub $30, $30, $2\nadd $3, $1, $1\n\
             add $30, $30, $2\nlw $1, -4($30)\njr $31\n",
        );
        let b = leaf_body(&img, 4).expect("a body");
        assert_eq!(b.words.len(), img.len() - 1);
        assert_eq!(find_in(&img, &b.words), Some(4));
        assert!(b.contains(4) && !b.contains(0));
    }

    #[test]
    fn uses_of_the_stack_pointer_as_data_are_refused() {
        // Stored, compared, subtracted from, or returned with $30 replaced.
        for bad in [
            "sw $30, -4($30)\njr $31\n",
            "slt $3, $30, $1\njr $31\n",
            "sub $3, $1, $30\njr $31\n",
            "beq $30, $1, 0\njr $31\n",
            "lis $30\n.word 100\njr $31\n",
            "add $3, $31, $0\njr $31\n",
            "jalr $5\njr $31\n",
            "jr $5\n",
        ] {
            assert_eq!(leaf_body(&image(bad), 0), None, "{bad}");
        }
    }

    #[test]
    fn branches_before_the_entry_are_refused() {
        let img = image("add $3, $0, $0\nf: beq $0, $0, -2\njr $31\n");
        assert_eq!(leaf_body(&img, 4), None);
    }

    #[test]
    fn candidates_are_lis_literals_that_a_jalr_uses() {
        let img = image(
            "lis $5\n.word f\nlis $6\n.word 4\njalr $5\nlis $7\n.word f\nadd $7, $0, $0\n\
             jalr $7\nf: jr $31\n",
        );
        // `.word 4` is no call's, and $7 is overwritten before its jalr.
        assert_eq!(candidate_entries(&img), vec![36]);
        // Loaded once, called later through the same register.
        let img = image(
            "lis $10\n.word f\nadd $1, $1, $1\nsw $1, -4($30)\nbeq $0, $0, 0\n\
                         add $2, $2, $2\njalr $10\njr $31\nf: jr $31\n",
        );
        assert_eq!(candidate_entries(&img), vec![32]);
    }
}
