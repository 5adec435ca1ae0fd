//! Shared procedures: a procedure that both programs contain word for word (the
//! runtime's `print`, linked into each) is compared by its calls instead of being
//! derived again on both sides.
//!
//! A body qualifies after two checks of it alone: a static one ([`body`]: a leaf that
//! uses `$30` only as a stack pointer and `$31` only to return) and one symbolic
//! exploration ([`check`]: it returns, restores `$30`, writes only below its entry
//! `$30` and to the output port, and reads only its registers and what it stored).
//! The concolic tracer then runs a call to it concretely and records it as an event:
//! its output is the procedure's number and its arguments' terms, which two calls
//! share exactly when their arguments are equal (the procedure is a function of them).
//! After the call the registers it restores keep their terms; the others, `hi`, `lo`
//! and the words below the entry `$30` it may write are unknown, and a run that reads
//! one before writing it is given up (its path stays unexplored).
//!
//! Two calls with different arguments are assumed to differ: a difference found that
//! way is replayed concretely, like every other, and where the outputs turn out equal
//! the pair of paths stays undecided (never proved, never reported as different).

mod body;
mod check;
mod disk;

use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;
use tamarin_mips::Program;

pub use crate::trace::{Calls, Procedure};

pub use body::{candidate_entries, find_in, leaf_body, Body};
pub use check::{check, MAX_DEPTH, PROC_FUEL};

/// The results of [`check`] by body, for the process: `grade` compares every
/// submission against one reference with the same runtime linked in.
type Checked = FxHashMap<Vec<u32>, Option<Arc<Procedure>>>;

fn cache() -> &'static Mutex<Checked> {
    static CACHE: OnceLock<Mutex<Checked>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(FxHashMap::default()))
}

/// The body `words` checked (or found checked before); `None` when it does not
/// qualify or the check was cut short.
fn checked(
    words: &[u32],
    interrupt: Option<&'static std::sync::atomic::AtomicBool>,
    on_disk: Option<&std::path::Path>,
) -> Option<Arc<Procedure>> {
    if let Ok(c) = cache().lock() {
        if let Some(known) = c.get(words) {
            return known.clone();
        }
    }
    let result = match on_disk.and_then(|dir| disk::load(dir, words)) {
        Some(known) => known,
        None => {
            let found = match check(words, interrupt) {
                check::Checked::Qualifies(p) => Some(Arc::new(p)),
                check::Checked::Refused(_) => None,
                check::Checked::Cut => return None,
            };
            if let Some(dir) = on_disk {
                disk::save(dir, words, found.as_deref());
            }
            found
        }
    };
    if let Ok(mut c) = cache().lock() {
        c.insert(words.to_vec(), result.clone());
    }
    result
}

/// The procedures that both programs contain and that qualify, for each side: entries
/// are the `lis` literals of either program whose leaf body appears in the other.
/// `on_disk` is where checks of earlier processes are kept, if anywhere.
pub fn find(
    left: &Program,
    right: &Program,
    interrupt: Option<&'static std::sync::atomic::AtomicBool>,
    on_disk: Option<&std::path::Path>,
) -> [Calls; 2] {
    let images = [left.words(), right.words()];
    // Each image's entries, scanned once: bodies are read from them, then placed.
    let entries = images.map(|image| candidate_entries(image));
    let mut bodies: Vec<Vec<u32>> = Vec::new();
    for (side, image) in images.iter().enumerate() {
        let other = images[1 - side];
        for &entry in &entries[side] {
            let Some(b) = leaf_body(image, entry) else {
                continue;
            };
            if !bodies.contains(&b.words) && find_in(other, &b.words).is_some() {
                bodies.push(b.words);
            }
        }
    }
    let mut calls: [Calls; 2] = [Calls::default(), Calls::default()];
    let mut id: u16 = 0;
    for words in bodies {
        let Some(p) = checked(&words, interrupt, on_disk) else {
            continue;
        };
        let mut p = (*p).clone();
        p.id = id;
        id = id.saturating_add(1);
        let p = Arc::new(p);
        for (side, image) in images.iter().enumerate() {
            // Every place the body lies and is entered by a call that qualified.
            for &entry in &entries[side] {
                let at = (entry / 4) as usize;
                if image.get(at..at + words.len()) == Some(&words[..]) {
                    calls[side].insert(entry, p.clone());
                }
            }
        }
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin_mips::asm::assemble;

    #[test]
    #[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
    fn print_linked_at_different_places_is_found_on_both_sides() {
        let print = include_str!("../../../../examples/runtime/print.asm");
        let caller = "lis $5\n.word print\njalr $5\njr $31\n";
        let left = assemble("l.asm", &format!("{caller}{print}")).unwrap();
        let right = assemble("r.asm", &format!("add $1, $1, $0\n{caller}{print}")).unwrap();
        let [l, r] = find(&left, &right, None, None);
        assert_eq!(l.len(), 1);
        assert_eq!(r.len(), 1);
        assert_eq!(l.get(&16).map(|p| p.id), Some(0));
        assert_eq!(r.get(&20).map(|p| p.id), Some(0));
    }

    #[test]
    fn a_procedure_on_one_side_only_is_not_shared() {
        let print = include_str!("../../../../examples/runtime/print.asm");
        let left = assemble(
            "l.asm",
            &format!("lis $5\n.word print\njalr $5\njr $31\n{print}"),
        )
        .unwrap();
        let right = assemble("r.asm", "jr $31\n").unwrap();
        let [l, r] = find(&left, &right, None, None);
        assert!(l.is_empty() && r.is_empty());
    }
}
