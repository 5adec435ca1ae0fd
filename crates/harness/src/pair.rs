//! Pairs of programs to compare: a program with itself, with a mutant, with an equal
//! rewrite, or with a rewritten mutant.

use std::fmt;

use tamarin::io::{InputSpec, Observable};

use crate::generate::{generate, Shape};
use crate::mutate::{mutate, rewrite_n};
use crate::prog::Prog;
use crate::rng::Rng;

/// How the right program was made from the left (before the sides were maybe swapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    Pair {
        seed,
        index,
        shape,
        kind,
        left,
        right,
        note: notes.join("; "),
        inputs: shape.input_spec(),
        observe: shape.observables(),
    }
}
