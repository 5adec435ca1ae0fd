//! How the two sides' loops go round on the probes: their heads, how often each is
//! visited, and from that which schedule of the product to try (heads in step or
//! not, two trips against one, heads without a partner).

use std::collections::BTreeSet;

use super::{SAMPLE_FUEL, SAMPLE_PROBES};
use crate::mips32::explore::Side;
use crate::mips32::sampler::{Sampler, Stepped};

/// Per probe whose runs return on both sides within the sampling fuel (only whole
/// runs tell: a run cut by the fuel goes round as often as the fuel allows), how often
/// each side visits each of its heads.
pub(super) fn head_visits(
    sides: [Side<'_>; 2],
    heads: &[Vec<u32>; 2],
    probes: &[Vec<u32>],
) -> Vec<[Vec<u64>; 2]> {
    let mut machines = sides.map(|f| Sampler::new(f.code, SAMPLE_FUEL));
    let mut out = Vec::new();
    for probe in probes.iter().take(SAMPLE_PROBES) {
        let mut visits = heads.clone().map(|h| vec![0u64; h.len()]);
        let mut returned = [false; 2];
        for k in 0..2 {
            let m = &mut machines[k];
            m.start(sides[k], probe);
            while m.steps() < SAMPLE_FUEL {
                match m.step() {
                    Stepped::Running => {
                        let pc = m.pc();
                        if let Some(i) = heads[k].iter().position(|&h| h == pc) {
                            visits[k][i] += 1;
                        }
                    }
                    Stepped::Returned => {
                        returned[k] = true;
                        break;
                    }
                    Stepped::Ended => break,
                }
            }
        }
        if returned == [true, true] {
            out.push(visits);
        }
    }
    out
}

/// Per side and head, whether no head of the other side is visited as often on every
/// probe of `visits` ([`head_visits`]): a head without a partner (the outer loop of
/// nested loops against code whose loops were merged into one) is where its side
/// runs on alone while the other waits. With fewer than three such probes, every
/// head has one.
pub(super) fn unpartnered_heads(heads: &[Vec<u32>; 2], visits: &[[Vec<u64>; 2]]) -> [Vec<bool>; 2] {
    let mut waits = heads.clone().map(|h| vec![false; h.len()]);
    if visits.len() < 3 {
        return waits;
    }
    for (k, own) in waits.iter_mut().enumerate() {
        for (i, waits) in own.iter_mut().enumerate() {
            let partnered =
                (0..heads[1 - k].len()).any(|j| on_every_probe(visits, k, i, j, |a, b| a == b));
            *waits = !partnered;
        }
    }
    waits
}

/// Whether head `i` of side `k` and head `j` of the other side are visited as `pair`
/// wants (this side's count, the other's) on every probe of `visits`.
fn on_every_probe(
    visits: &[[Vec<u64>; 2]],
    k: usize,
    i: usize,
    j: usize,
    pair: impl Fn(u64, u64) -> bool,
) -> bool {
    visits.iter().all(|v| match (v[k].get(i), v[1 - k].get(j)) {
        (Some(&a), Some(&b)) => pair(a, b),
        _ => false,
    })
}

/// Whether some head of the left and some head of the right go round about as often
/// on every probe of `visits` ([`head_visits`]), or one about twice as often as the
/// other: the loops may then meet in lockstep. With fewer than three probes, they may.
pub(super) fn in_step(heads: &[Vec<u32>; 2], visits: &[[Vec<u64>; 2]]) -> bool {
    if visits.len() < 3 {
        return true;
    }
    let close = |a: u64, b: u64| {
        a.abs_diff(b) <= 2 + a.max(b) / 8 || a.abs_diff(2 * b) <= 2 || b.abs_diff(2 * a) <= 2
    };
    (0..heads[0].len()).any(|i| (0..heads[1].len()).any(|j| on_every_probe(visits, 0, i, j, close)))
}

/// How many trips of each side's loop make one step of the product (one loop a
/// side): `[2, 1]` when on every probe of `visits` ([`head_visits`]) that goes round
/// both loops a few times the left goes round about twice as often as the right,
/// `[1, 2]` the other way round, else `[1, 1]`.
pub(super) fn trip_ratio(visits: &[[Vec<u64>; 2]]) -> [u32; 2] {
    let mut votes = [0u32; 3];
    for [l, r] in visits {
        let (Some(&l), Some(&r)) = (l.first(), r.first()) else {
            continue;
        };
        if l < 4 || r < 4 {
            continue;
        }
        let vote = if l.abs_diff(2 * r) <= 2 {
            0
        } else if r.abs_diff(2 * l) <= 2 {
            1
        } else {
            2
        };
        votes[vote] += 1;
    }
    match votes {
        [n, 0, 0] if n >= 3 => [2, 1],
        [0, n, 0] if n >= 3 => [1, 2],
        _ => [1, 1],
    }
}

/// The heads of the loops that runs on `probes` go round: targets of branches and
/// `j` that go backwards (calls and returns are not loops).
pub(super) fn loop_heads(side: Side<'_>, probes: &[Vec<u32>]) -> Vec<u32> {
    let mut heads = BTreeSet::new();
    let mut m = Sampler::new(side.code, SAMPLE_FUEL);
    let mut seen = rustc_hash::FxHashSet::default();
    for probe in probes.iter().take(SAMPLE_PROBES) {
        m.start(side, probe);
        seen.clear();
        while m.steps() < SAMPLE_FUEL {
            let pc = m.pc();
            seen.insert(pc);
            let jump = m.static_jump(pc);
            if m.step() != Stepped::Running {
                break;
            }
            let next = m.pc();
            // A branch back to code this run has already been through: a jump back
            // into shared code that the run reaches for the first time is no loop.
            if jump == Some(next) && next <= pc && seen.contains(&next) {
                heads.insert(next);
            }
        }
    }
    heads.into_iter().collect()
}
