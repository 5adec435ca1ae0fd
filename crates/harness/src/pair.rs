//! Pairs of programs to compare: a program with itself, with a mutant, with an equal
//! rewrite, or with a rewritten mutant; array pairs with the array placed after the
//! images, over their data, over their code, or far from both ([`Placement`]).

use std::fmt;

use serde::{Deserialize, Serialize};
use tamarin::{InputSpec, Observable};

use crate::generate::{generate, Shape};
use crate::mutate::{mutate, rewrite_n};
use crate::prog::{Line, Prog, Word};
use crate::rng::Rng;

/// How the right program was made from the left (before the sides were maybe swapped).
/// In summary files, by [`PairKind::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairKind {
    /// The program and itself.
    Identical,
    /// One small change: may or may not change the function.
    Mutant,
    /// One to three equal rewrites: the same function.
    Rewrite,
    /// A mutant, then rewritten.
    RewrittenMutant,
}

impl PairKind {
    pub const ALL: [PairKind; 4] = [
        PairKind::Identical,
        PairKind::Mutant,
        PairKind::Rewrite,
        PairKind::RewrittenMutant,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PairKind::Identical => "identical",
            PairKind::Mutant => "mutant",
            PairKind::Rewrite => "rewrite",
            PairKind::RewrittenMutant => "rewritten-mutant",
        }
    }
}

impl fmt::Display for PairKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the array of an array pair lies (`InputSpec::Array`'s `base`). The machine
/// places only the array's `len` words: the slots past the length keep what the image
/// (or zero memory) has there, and slots over code are fetched as code. In summary
/// files, by [`Placement::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Right after each program's image (`base: None`): past the length, zeros.
    AfterImage,
    /// Over data words appended to both programs (padded to a common length first):
    /// every slot past the length, and every read one past the end, sees image data.
    OverData,
    /// Inside both programs' code: array words replace instructions that may run, and
    /// the slots past the length read instructions.
    OverCode,
    /// At [`FAR_BASE`], well past both images: past the length, zeros.
    Far,
}

/// The base of [`Placement::Far`]: far past any generated program (at most a few
/// hundred words), far below the stack.
pub const FAR_BASE: u32 = 0x4000;

/// The data words of [`Placement::OverData`]: one per slot of the longest array, and
/// two more, so that a read one past the end of the longest array sees data too.
pub const OVER_DATA_WORDS: u32 = Shape::ARRAY_MAX_LEN + 2;

/// Values of the data words under the array.
const DATA_VALUES: [u32; 12] = [
    0,
    1,
    2,
    7,
    0xFFFF_FFFF,
    0xFFFF_FFFE,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF,
    0x8000,
    100,
    (-100i32) as u32,
];

impl Placement {
    pub const ALL: [Placement; 4] = [
        Placement::AfterImage,
        Placement::OverData,
        Placement::OverCode,
        Placement::Far,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Placement::AfterImage => "after-image",
            Placement::OverData => "over-data",
            Placement::OverCode => "over-code",
            Placement::Far => "far",
        }
    }

    /// Whether the array lies over the programs' images (their data or code).
    pub fn overlaps_image(self) -> bool {
        matches!(self, Placement::OverData | Placement::OverCode)
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Two programs to compare, and how they were made.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The run's seed and this pair's index in it: `make_pair(seed, index)` makes it again.
    pub seed: u64,
    pub index: u64,
    pub shape: Shape,
    pub kind: PairKind,
    pub left: Prog,
    pub right: Prog,
    /// What was changed, and whether the sides were swapped.
    pub note: String,
    /// How the inputs enter both programs (the shape's: `$1`, `$2`, or an array).
    pub inputs: InputSpec,
    /// What the comparison and the concrete checks observe (the shape's).
    pub observe: Vec<Observable>,
    /// Where the array lies (array pairs only).
    pub placement: Option<Placement>,
}

impl Pair {
    /// The array's base, if it is fixed (`None` also for pairs without an array).
    pub fn array_base(&self) -> Option<u32> {
        match self.inputs {
            InputSpec::Array { base, .. } => base,
            InputSpec::Registers(_) => None,
        }
    }
}

/// The shape of pair `index`: shapes go round in turn.
pub fn shape_of(index: u64) -> Shape {
    Shape::ALL[(index % Shape::ALL.len() as u64) as usize]
}

/// The index of the `k`-th pair (from 0) whose shape is in `shapes` (all shapes when
/// empty): `make_pair(seed, nth_index(shapes, k))` runs through only those shapes.
pub fn nth_index(shapes: &[Shape], k: u64) -> u64 {
    let positions: Vec<u64> = Shape::ALL
        .iter()
        .enumerate()
        .filter(|(_, s)| shapes.is_empty() || shapes.contains(s))
        .map(|(n, _)| n as u64)
        .collect();
    if positions.is_empty() {
        return k;
    }
    let per = positions.len() as u64;
    (k / per) * Shape::ALL.len() as u64 + positions[(k % per) as usize]
}

/// Pair `index` of the stream named by `seed`. Shapes go round in turn, so every
/// shape gets its share of any run of consecutive indices.
pub fn make_pair(seed: u64, index: u64) -> Pair {
    let mut rng = Rng::for_item(seed, index);
    let shape = shape_of(index);
    let p = generate(shape, &mut rng);
    let mut kind = PairKind::ALL[rng.weighted(&[15, 40, 30, 15])];
    let mut notes = Vec::new();
    let q = match kind {
        PairKind::Identical => p.clone(),
        PairKind::Mutant | PairKind::RewrittenMutant => match mutate(&p, &mut rng) {
            Some((m, what)) => {
                notes.push(format!("mutant: {what}"));
                if kind == PairKind::RewrittenMutant {
                    let n = rng.range(1, 2) as usize;
                    let (r, whats) = rewrite_n(&m, &mut rng, n);
                    if whats.is_empty() {
                        kind = PairKind::Mutant;
                    }
                    notes.extend(whats.into_iter().map(|w| format!("rewrite: {w}")));
                    r
                } else {
                    m
                }
            }
            None => {
                kind = PairKind::Identical;
                p.clone()
            }
        },
        PairKind::Rewrite => {
            let n = rng.range(1, 3) as usize;
            let (r, whats) = rewrite_n(&p, &mut rng, n);
            if whats.is_empty() {
                // No equal rewrite applies (a layout-sensitive program).
                kind = PairKind::Identical;
            }
            notes.extend(whats.into_iter().map(|w| format!("rewrite: {w}")));
            r
        }
    };
    let swapped = kind != PairKind::Identical && rng.chance(0.5);
    if swapped {
        notes.push("sides swapped: the changed program is on the left".into());
    }
    let (left, right) = if swapped { (q, p) } else { (p, q) };
    let mut pair = Pair {
        seed,
        index,
        shape,
        kind,
        left,
        right,
        note: String::new(),
        inputs: shape.input_spec(),
        observe: shape.observables(),
        placement: None,
    };
    if shape == Shape::Array {
        let placement = Placement::ALL[rng.weighted(&[40, 30, 20, 10])];
        if let Some(what) = place_array(&mut pair, placement, &mut rng) {
            notes.push(what);
        }
    }
    pair.note = notes.join("; ");
    pair
}

/// Places the array of `pair` as `placement` says, with the pair's own generator:
/// pads and extends both programs for [`Placement::OverData`] (and, for a pair that
/// is not identical, changes one data word of the right program half of the time: a
/// difference seen only through the slots past the array's length), picks a base
/// inside both codes for [`Placement::OverCode`]. Returns a note of what changed.
pub fn place_array(pair: &mut Pair, placement: Placement, rng: &mut Rng) -> Option<String> {
    let InputSpec::Array { max_len, .. } = pair.inputs else {
        return None;
    };
    let mut note = None;
    let base = match placement {
        Placement::AfterImage => None,
        Placement::Far => Some(FAR_BASE),
        Placement::OverCode => {
            let words = pair.left.word_count().min(pair.right.word_count()).max(1);
            Some(4 * rng.below(words) as u32)
        }
        Placement::OverData => {
            let len = pair.left.word_count().max(pair.right.word_count());
            let data: Vec<u32> = (0..OVER_DATA_WORDS)
                .map(|_| {
                    if rng.chance(0.5) {
                        *rng.pick(&DATA_VALUES)
                    } else {
                        rng.range(-8, 8) as i32 as u32
                    }
                })
                .collect();
            for p in [&mut pair.left, &mut pair.right] {
                let pad = len - p.word_count();
                p.lines
                    .extend(std::iter::repeat_n(Line::Data(Word::Num(0)), pad));
                p.lines
                    .extend(data.iter().map(|&w| Line::Data(Word::Num(w))));
            }
            if pair.kind != PairKind::Identical && rng.chance(0.5) {
                // A slot the programs may read: one of the longest array's, or the
                // one just past it.
                let k = rng.below(Shape::ARRAY_MAX_LEN as usize + 1);
                let old = data[k];
                let new = old ^ (1 << rng.below(32));
                let at = pair.right.lines.len() - data.len() + k;
                pair.right.lines[at] = Line::Data(Word::Num(new));
                // The pair is no longer built to be equal.
                if pair.kind == PairKind::Rewrite {
                    pair.kind = PairKind::RewrittenMutant;
                }
                note = Some(format!(
                    "right data word {k} under the array changed from {} to {}",
                    Word::Num(old),
                    Word::Num(new)
                ));
            }
            Some(4 * len as u32)
        }
    };
    pair.inputs = InputSpec::Array { max_len, base };
    pair.placement = Some(placement);
    let where_ = match base {
        Some(b) => format!("array {placement} at {b:#x}"),
        None => format!("array {placement}"),
    };
    Some(match note {
        Some(n) => format!("{where_}; {n}"),
        None => where_,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `n` array pairs of `seed`.
    fn array_pairs(seed: u64, n: u64) -> impl Iterator<Item = Pair> {
        (0..n).map(move |k| make_pair(seed, nth_index(&[Shape::Array], k)))
    }

    /// The data words appended for [`Placement::OverData`] (the last lines).
    fn tail_data(p: &Prog) -> Vec<u32> {
        p.lines[p.lines.len() - OVER_DATA_WORDS as usize..]
            .iter()
            .map(|l| match l {
                Line::Data(Word::Num(n)) => *n,
                other => panic!("not a data word under the array: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn placements_are_fixed_by_seed_and_index() {
        for k in 0..60 {
            let i = nth_index(&[Shape::Array], k);
            let (a, b) = (make_pair(3, i), make_pair(3, i));
            assert_eq!(a.placement, b.placement);
            assert_eq!(a.inputs, b.inputs);
            assert_eq!((&a.left, &a.right, &a.note), (&b.left, &b.right, &b.note));
            assert!(a.placement.is_some());
        }
        // Other shapes have no placement and the shape's inputs.
        for i in (0..100).filter(|i| shape_of(*i) != Shape::Array) {
            let p = make_pair(3, i);
            assert_eq!(p.placement, None);
            assert_eq!(p.inputs, p.shape.input_spec());
        }
    }

    #[test]
    fn every_placement_arises_with_its_base() {
        let mut seen = std::collections::BTreeMap::new();
        let mut planted = 0;
        for p in array_pairs(1, 300) {
            let placement = p.placement.expect("an array pair has a placement");
            *seen.entry(placement).or_insert(0) += 1;
            let InputSpec::Array { max_len, base } = p.inputs else {
                panic!("an array pair without an array: {:?}", p.inputs);
            };
            assert_eq!(max_len, Shape::ARRAY_MAX_LEN);
            assert_eq!(p.array_base(), base);
            let (l, r) = (p.left.assemble().unwrap(), p.right.assemble().unwrap());
            assert!(p.inputs.placement_error(&l).is_none());
            assert!(p.inputs.placement_error(&r).is_none());
            match placement {
                Placement::AfterImage => assert_eq!(base, None),
                Placement::Far => {
                    assert_eq!(base, Some(FAR_BASE));
                    assert!(l.byte_len() + 4 * max_len < FAR_BASE);
                    assert!(r.byte_len() + 4 * max_len < FAR_BASE);
                }
                Placement::OverCode => {
                    let b = base.expect("a fixed base");
                    assert_eq!(b % 4, 0);
                    // Inside both codes: the slot of a[0] holds a word of each.
                    assert!(b < l.byte_len() && b < r.byte_len(), "{b:#x}");
                }
                Placement::OverData => {
                    let b = base.expect("a fixed base");
                    // Both padded to the same length, the data right after.
                    assert_eq!(l.byte_len(), r.byte_len());
                    assert_eq!(b + 4 * OVER_DATA_WORDS, l.byte_len());
                    let (ld, rd) = (tail_data(&p.left), tail_data(&p.right));
                    for (k, (&x, &y)) in ld.iter().zip(&rd).enumerate() {
                        let at = b / 4 + k as u32;
                        assert_eq!(l.words()[at as usize], x);
                        assert_eq!(r.words()[at as usize], y);
                    }
                    // Padding only before the data: zeros.
                    let lines = p.left.lines.len() - OVER_DATA_WORDS as usize;
                    let before = Prog {
                        lines: p.left.lines[..lines].to_vec(),
                        layout_sensitive: false,
                    };
                    assert_eq!(4 * before.word_count() as u32, b);
                    if p.kind == PairKind::Identical {
                        assert_eq!(p.left, p.right);
                    }
                    if ld != rd {
                        planted += 1;
                        assert_ne!(p.kind, PairKind::Identical);
                        assert_ne!(p.kind, PairKind::Rewrite);
                        assert_eq!(ld.iter().zip(&rd).filter(|(x, y)| x != y).count(), 1);
                        // Only a slot the programs may read (up to one past the end).
                        assert!(
                            ld[..=Shape::ARRAY_MAX_LEN as usize]
                                != rd[..=Shape::ARRAY_MAX_LEN as usize]
                        );
                        assert!(p.note.contains("under the array changed"), "{}", p.note);
                    }
                }
            }
        }
        for placement in Placement::ALL {
            assert!(
                seen.get(&placement).copied().unwrap_or(0) >= 10,
                "{placement}: {seen:?}"
            );
        }
        assert!(
            seen[&Placement::AfterImage] > seen[&Placement::Far],
            "{seen:?}"
        );
        assert!(planted >= 5, "{planted} planted data differences");
    }

    #[test]
    fn identical_pairs_stay_identical_under_every_placement() {
        let mut n = 0;
        for p in array_pairs(5, 400).filter(|p| p.kind == PairKind::Identical) {
            assert_eq!(p.left, p.right, "pair {}: {}", p.index, p.note);
            n += 1;
        }
        assert!(n >= 20, "{n} identical pairs");
        // And by hand, over the data whatever the generator draws.
        for seed in 0..50 {
            let mut p = make_pair(seed, nth_index(&[Shape::Array], 0));
            p.kind = PairKind::Identical;
            p.right = p.left.clone();
            p.inputs = Shape::Array.input_spec();
            place_array(&mut p, Placement::OverData, &mut Rng::new(seed));
            assert_eq!(p.left, p.right);
        }
    }
}
