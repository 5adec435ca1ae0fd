//! The concrete inputs of checks (b) and (e): edge values, pairs of register values,
//! arrays (with the words of the images under an array that lies over them).

use tamarin::{image_word, InputSpec};
use tamarin_mips::Program;

use crate::pair::Pair;
use crate::prog::Prog;
use crate::rng::Rng;

/// Values that make programs misbehave.
pub const EDGE_INPUTS: [u32; 34] = [
    0,
    1,
    0xFFFF_FFFF,
    2,
    0xFFFF_FFFE,
    3,
    4,
    5,
    7,
    8,
    10,
    11,
    12,
    15,
    16,
    17,
    31,
    32,
    100,
    (-100i32) as u32,
    (-16i32) as u32,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x8000_0000,
    0x8000_0001,
    0x7FFF_FFFF,
    0x7FFF_FFFE,
    0x2000,
    0x00FF_FFFC,
    0x00FF_FFFF,
    0x0100_0000,
    0xFFFF_8000,
];

/// The edge values for a pair: [`EDGE_INPUTS`], then the programs' constants and
/// their neighbours, at most `cap` in all.
pub fn edge_values(left: &Prog, right: &Prog, cap: usize) -> Vec<u32> {
    let mut v: Vec<u32> = EDGE_INPUTS.to_vec();
    for c in left.constants().chain(right.constants()) {
        for x in [c, c.wrapping_add(1), c.wrapping_sub(1), c.wrapping_neg()] {
            if !v.contains(&x) {
                v.push(x);
            }
        }
    }
    v.truncate(cap.max(2));
    v
}

/// The concrete inputs of checks (b) and (e): `extra` first, then every pair of edge
/// values (up to three quarters of `n`), then random ones: uniform, small, and one
/// edge value with one random value.
pub fn concrete_inputs(
    left: &Prog,
    right: &Prog,
    n: usize,
    seed: u64,
    extra: &[(u32, u32)],
) -> impl Iterator<Item = (u32, u32)> {
    let cap = ((n as f64 * 0.75).sqrt() as usize).min(80);
    let edges = edge_values(left, right, cap);
    let k = edges.len();
    let npairs = (k * k).min(n);
    let mut rng = Rng::new(seed);
    let extra: Vec<(u32, u32)> = extra.to_vec();
    let edges2 = edges.clone();
    let grid = (0..npairs).map(move |i| (edges[i / k], edges[i % k]));
    let random = (npairs..n).map(move |_| {
        let small = |r: &mut Rng| r.range(-64, 64) as i32 as u32;
        match rng.below(4) {
            0 => (rng.next_u32(), rng.next_u32()),
            1 => (small(&mut rng), small(&mut rng)),
            2 => {
                let e = *rng.pick(&edges2);
                let x = if rng.chance(0.5) {
                    rng.next_u32()
                } else {
                    small(&mut rng)
                };
                if rng.chance(0.5) {
                    (e, x)
                } else {
                    (x, e)
                }
            }
            _ => (rng.next_u32(), small(&mut rng)),
        }
    });
    extra.into_iter().chain(grid).chain(random)
}

/// What an array over the programs' images lies on
/// ([`Placement::OverData`](crate::pair::Placement::OverData),
/// [`Placement::OverCode`](crate::pair::Placement::OverCode)): arrays made of these
/// words try array words equal to the instruction or the data word they replace, or to
/// any other word of the images.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    /// Each program's image words under the array's slots (zero past the image), left
    /// then right.
    pub slots: Vec<Vec<u32>>,
    /// Every word of both images, each once, in order.
    pub words: Vec<u32>,
}

impl Overlay {
    /// The overlay of an array of at most `max_len` words at `base` on both programs.
    pub fn new(left: &Program, right: &Program, base: u32, max_len: u32) -> Overlay {
        let slots = [left, right]
            .iter()
            .map(|p| {
                (0..max_len)
                    .map(|k| image_word(p, base.wrapping_add(4 * k)))
                    .collect()
            })
            .collect();
        let mut words = Vec::new();
        for &w in left.words().iter().chain(right.words().iter()) {
            if !words.contains(&w) {
                words.push(w);
            }
        }
        Overlay { slots, words }
    }
}

/// The concrete inputs of checks (b) and (e) for an array of at most `max_len` words,
/// as flat values (`[len, a[0], …, a[max_len - 1]]`): `extra` first; with an
/// [`Overlay`], every length of each program's own words under the slots, then (up to
/// a quarter of `n`, in a seeded order) those with one slot replaced by any image
/// word, and every length all one image word; then every length with all elements one
/// edge value, and every length with one edge value at one position among zeros (up
/// to three quarters of `n` in all); then random arrays, each length equally likely,
/// each element an edge value, a small value, a uniform one or an image word.
pub fn array_inputs(
    left: &Prog,
    right: &Prog,
    max_len: u32,
    n: usize,
    seed: u64,
    extra: &[Vec<u32>],
    overlay: Option<&Overlay>,
) -> impl Iterator<Item = Vec<u32>> {
    let width = max_len as usize + 1;
    let edges = edge_values(left, right, 80);
    let mut rng = Rng::new(seed);
    let with = |len: usize, elems: &[u32]| {
        let mut v = vec![0; width];
        v[0] = len as u32;
        for (x, &e) in v.iter_mut().skip(1).zip(elems) {
            *x = e;
        }
        v
    };
    let mut first: Vec<Vec<u32>> = Vec::new();
    let mut over: Vec<Vec<u32>> = Vec::new();
    let no_words: &[u32] = &[];
    let mut words = no_words;
    if let Some(o) = overlay {
        words = &o.words;
        for slots in &o.slots {
            for len in 0..=max_len as usize {
                let v = with(len, slots);
                if !first.contains(&v) {
                    first.push(v);
                }
            }
        }
        for &w in &o.words {
            for len in 1..=max_len as usize {
                over.push(with(len, &vec![w; len]));
            }
            for slots in &o.slots {
                for len in 1..=max_len as usize {
                    for pos in 0..len {
                        let mut v = with(len, slots);
                        v[1 + pos] = w;
                        over.push(v);
                    }
                }
            }
        }
        // A seeded order, so that a cut keeps a spread of words and positions.
        for i in (1..over.len()).rev() {
            over.swap(i, rng.below(i + 1));
        }
        over.truncate(n / 4);
    }
    let mut structured: Vec<Vec<u32>> = Vec::new();
    for len in 0..=max_len as usize {
        for &e in &edges {
            structured.push(with(len, &vec![e; len]));
        }
    }
    for len in 1..=max_len as usize {
        for pos in 0..len {
            for &e in &edges {
                let mut v = vec![0; width];
                v[0] = len as u32;
                v[1 + pos] = e;
                structured.push(v);
            }
        }
    }
    structured.truncate((n * 3 / 4).saturating_sub(first.len() + over.len()));
    let nstruct = first.len() + over.len() + structured.len();
    let extra: Vec<Vec<u32>> = extra.to_vec();
    let words = words.to_vec();
    let slots = overlay.map(|o| o.slots.clone()).unwrap_or_default();
    let random = (nstruct..n).map(move |_| {
        let len = rng.below(width);
        let mut v = vec![0; width];
        v[0] = len as u32;
        // Over an image, half the arrays start from one program's own words.
        let from_image = !slots.is_empty() && rng.chance(0.5);
        if from_image {
            let s = rng.pick(&slots);
            for (x, &w) in v.iter_mut().skip(1).zip(s) {
                *x = w;
            }
        }
        for x in v.iter_mut().skip(1).take(len) {
            if from_image && rng.chance(0.6) {
                continue;
            }
            let weights = if words.is_empty() {
                [35, 20, 25, 20, 0]
            } else {
                [25, 15, 20, 15, 25]
            };
            *x = match rng.weighted(&weights) {
                0 => *rng.pick(&edges),
                1 => rng.range(-2, 6) as i32 as u32,
                2 => rng.range(-64, 64) as i32 as u32,
                3 => rng.next_u32(),
                _ => *rng.pick(&words),
            };
        }
        v
    });
    extra
        .into_iter()
        .chain(first)
        .chain(over)
        .chain(structured)
        .chain(random)
}

/// The concrete inputs of a pair, as flat values in its layout's order: those of
/// [`concrete_inputs`] for two registers, of [`array_inputs`] for an array (with the
/// overlay of an array over the images, `left` and `right` being the assembled
/// programs).
pub fn pair_inputs(
    pair: &Pair,
    left: &Program,
    right: &Program,
    n: usize,
    seed: u64,
    extra: &[Vec<u32>],
) -> Box<dyn Iterator<Item = Vec<u32>>> {
    match &pair.inputs {
        InputSpec::Array { max_len, base } => {
            let overlay = match (pair.placement, base) {
                (Some(p), Some(b)) if p.overlaps_image() => {
                    Some(Overlay::new(left, right, *b, *max_len))
                }
                _ => None,
            };
            Box::new(array_inputs(
                &pair.left,
                &pair.right,
                *max_len,
                n,
                seed,
                extra,
                overlay.as_ref(),
            ))
        }
        InputSpec::Registers(_) => {
            let extra: Vec<(u32, u32)> = extra
                .iter()
                .map(|v| {
                    (
                        v.first().copied().unwrap_or(0),
                        v.get(1).copied().unwrap_or(0),
                    )
                })
                .collect();
            Box::new(
                concrete_inputs(&pair.left, &pair.right, n, seed, &extra).map(|(a, b)| vec![a, b]),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::over_code_pair;
    use super::*;
    use crate::generate::Shape;
    use crate::pair::Placement;

    #[test]
    fn array_inputs_over_an_image_hold_its_words() {
        let pair = over_code_pair();
        let (lp, rp) = (
            pair.left.assemble().unwrap(),
            pair.right.assemble().unwrap(),
        );
        let overlay = Overlay::new(&lp, &rp, 0, Shape::ARRAY_MAX_LEN);
        assert_eq!(overlay.slots[0][..3], lp.words()[..]);
        assert_eq!(overlay.slots[1][3], 0);
        let inputs: Vec<Vec<u32>> = pair_inputs(&pair, &lp, &rp, 400, 1, &[]).collect();
        assert_eq!(inputs.len(), 400);
        // Each program's own code, at every length, comes first.
        for len in 0..=Shape::ARRAY_MAX_LEN {
            let mut own = vec![len];
            own.extend(&overlay.slots[0]);
            assert!(inputs[..10].contains(&own), "{own:?}");
        }
        // Every image word appears as an element somewhere.
        for w in &overlay.words {
            assert!(
                inputs.iter().any(|v| v[1..=v[0] as usize].contains(w)),
                "{w:#x}"
            );
        }
        // After the images, no overlay.
        let mut after = pair.clone();
        after.placement = Some(Placement::AfterImage);
        after.inputs = Shape::Array.input_spec();
        let plain: Vec<Vec<u32>> = pair_inputs(&after, &lp, &rp, 400, 1, &[]).collect();
        assert!(!plain.iter().any(|v| v[0] == 1 && v[1] == lp.words()[1]));
    }
}
