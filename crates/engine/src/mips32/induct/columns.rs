//! Arithmetic over the columns of samples (one value of a place across its sampled
//! states): the factors, offsets, orders and gaps that candidate facts are read from.

use super::{Rel, MAX_GAP};

/// The most a [`Rel::Lin`] fact's constant `d` may be, either way.
pub(super) const MAX_OFFSET: i32 = 8;

/// An input among `inputs` whose column, plus a small constant, is `column` on every
/// sample: the input and the constant.
pub(super) fn offset_column(
    rows: &[Vec<u32>],
    column: &[u32],
    inputs: &[usize],
) -> Option<(usize, i32)> {
    let first = rows.first()?;
    inputs.iter().find_map(|&z| {
        let d = column.first()?.wrapping_sub(*first.get(z)?) as i32;
        let fits = (-MAX_OFFSET..=MAX_OFFSET).contains(&d) && d != 0;
        let every = rows
            .iter()
            .zip(column)
            .all(|(r, &c)| r.get(z).is_some_and(|&v| c.wrapping_sub(v) as i32 == d));
        (fits && every).then_some((z, d))
    })
}

/// The factors `k` (not 0, at most [`MAX_FACTOR`] in size) with `x = k * y + z` on
/// two consecutive samples whose `y` differ, where `z` is a constant or one of the
/// values `addends` (a few, since two samples may come from different runs).
pub(super) fn factors(rows: &[Vec<u32>], x: usize, y: usize, addends: &[usize]) -> Vec<i32> {
    let mut out = Vec::new();
    let steps = rows.windows(2).flat_map(|pair| {
        let dy = pair[1][y].wrapping_sub(pair[0][y]);
        let dx = pair[1][x].wrapping_sub(pair[0][x]);
        let dz = addends.iter().map(|&z| pair[1][z].wrapping_sub(pair[0][z]));
        std::iter::once((dx, dy)).chain(dz.map(move |dz| (dx.wrapping_sub(dz), dy)))
    });
    for (dx, dy) in steps {
        let Some(k) = modular_factor(dx, dy) else {
            continue;
        };
        if k != 0 && k.abs() <= MAX_FACTOR && !out.contains(&(k as i32)) {
            out.push(k as i32);
            if out.len() == 6 {
                break;
            }
        }
    }
    // Samples of different runs rarely give the factor of a value fixed per run (a
    // loop's bound `5 * n + c`): small factors are tried too.
    for k in -8..=8 {
        if k != 0 && !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The largest factor of a linear fact.
pub(super) const MAX_FACTOR: i64 = 64;

/// The smallest `k` (in size) with `dx = k * dy` modulo 2^32, if any: the step of a
/// value that wraps (`s = 9 * s + b` over many trips) still tells its factor, where
/// dividing the differences as integers would not.
pub(super) fn modular_factor(dx: u32, dy: u32) -> Option<i64> {
    if dy == 0 {
        return None;
    }
    let twos = dy.trailing_zeros();
    if dx != 0 && dx.trailing_zeros() < twos {
        return None;
    }
    let odd = dy >> twos;
    // The inverse of an odd number modulo 2^32, by Newton's iteration (each doubles
    // the bits that are right, from 3).
    let mut inverse = odd;
    for _ in 0..4 {
        inverse = inverse.wrapping_mul(2u32.wrapping_sub(odd.wrapping_mul(inverse)));
    }
    // `k` is fixed modulo 2^(32 - twos): the representative nearest zero.
    let bits = 32 - twos;
    let modulus = 1i64 << bits;
    let k = i64::from((dx >> twos).wrapping_mul(inverse)) & (modulus - 1);
    Some(if k >= modulus / 2 { k - modulus } else { k })
}

pub(super) fn holds(rel: Rel, a: u32, b: u32) -> bool {
    match rel {
        Rel::Eq => a == b,
        Rel::Slt => (a as i32) < (b as i32),
        Rel::Sle => (a as i32) <= (b as i32),
        Rel::Ult => a < b,
        Rel::Ule => a <= b,
        Rel::Parity => a & 1 == b,
        Rel::Lin | Rel::Mul | Rel::Within | Rel::Exact | Rel::Quot | Rel::Tri => false,
    }
}

/// The largest gap `a - b` (wrapping) over the samples, where every gap is at most
/// [`MAX_GAP`] and the gaps differ (a gap that never changes is a linear fact).
pub(super) fn small_gap(rows: &[Vec<u32>], a: usize, b: usize) -> Option<i32> {
    let gaps: Vec<u32> = rows
        .iter()
        .map(|r| r.get(a).zip(r.get(b)).map(|(x, y)| x.wrapping_sub(*y)))
        .collect::<Option<_>>()?;
    let most = *gaps.iter().max()?;
    let varies = gaps.iter().any(|&g| g != most);
    (most <= MAX_GAP && varies).then_some(most as i32)
}
