//! Which functions a function reaches by direct calls and jumps, read off the code
//! before anything runs: a function that calls one the file does not define is
//! refused up front, naming it, instead of faulting halfway through a comparison.

use std::collections::BTreeSet;

use super::image::{Image, SymbolKind};
use super::isa::{decode, Instr};

/// What a function reaches through `j`/`jal` (and branches out of its body).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// The entries of the functions reached, the first one included, in address order.
    pub functions: BTreeSet<u32>,
    /// The undefined symbols called, in the order found.
    pub undefined: Vec<String>,
}

/// The extent `[start, end)` of the function that starts at or contains `addr`: its
/// symbol's size, or up to the next function (or its section's end) when the symbol
/// has none.
pub fn extent(image: &Image, addr: u32) -> Option<(u32, u32)> {
    let section = image.section_at(addr)?;
    let section_end = section.end().min(u32::MAX as u64) as u32;
    let mut funcs: Vec<(u32, u32)> = image
        .symbols
        .values()
        .filter(|s| s.kind == SymbolKind::Function && section.contains(s.addr))
        .map(|s| (s.addr, s.size))
        .collect();
    funcs.sort_unstable();
    funcs.dedup_by_key(|f| f.0);
    let k = funcs.partition_point(|f| f.0 <= addr);
    let (start, size) = *funcs.get(k.checked_sub(1)?)?;
    let next = funcs.get(k).map_or(section_end, |f| f.0);
    let end = if size > 0 {
        start.saturating_add(size).min(section_end)
    } else {
        next
    };
    (addr < end).then_some((start, end))
}

/// Everything the function at `entry` reaches by direct transfers.
pub fn reach(image: &Image, entry: u32) -> Reach {
    let mut out = Reach::default();
    let mut work = vec![entry];
    while let Some(f) = work.pop() {
        let Some((start, end)) = extent(image, f) else {
            continue;
        };
        if !out.functions.insert(start) {
            continue;
        }
        for pc in (start..end).step_by(4) {
            let Some(instr) = image.word(pc).and_then(decode) else {
                continue;
            };
            let target = match instr {
                Instr::Jump { .. } | Instr::Branch { .. } => instr.static_target(pc),
                _ => None,
            };
            let Some(t) = target else { continue };
            if (start..end).contains(&t) {
                continue;
            }
            if let Some(name) = image.undefined_jump(t) {
                if !out.undefined.iter().any(|u| u == name) {
                    out.undefined.push(name.to_string());
                }
            } else if let Some((s, _)) = extent(image, t) {
                if !out.functions.contains(&s) {
                    work.push(s);
                }
            }
        }
    }
    out
}
