//! The last step of every engine's counterexample: a concrete minimiser, shared by both
//! engines after their own (solver-guided) shrinking.
//!
//! Starting from a replayed difference, it tries smaller inputs one change at a time
//! and keeps a candidate only when [`verdict::replay`] (which also checks the
//! preconditions) still shows a difference, so every step is a counterexample of its
//! own. For the array frontend it first drops elements (element `i` removed, the later
//! ones shifted left, the length one less; every `i`, again while it helps), then
//! shortens the array (drops the last element); then it moves every input (registers,
//! elements below the length, standard input bytes) toward 0: 0 itself, then a
//! bisection between 0 and the value, then 1 and -1. A candidate is tried only when it
//! is smaller than the current inputs by [`size`] (length, then the sum of the inputs'
//! magnitudes), so the result is never larger than what it was given.
//!
//! The work is bounded: at most [`MAX_REPLAYS`] replays (fewer with a large fuel, see
//! [`REPLAY_STEPS`]), none after the comparison's time limit or an interrupt.

use rustc_hash::FxHashSet;
use tamarin_mips::cpu::Config;
use tamarin_mips::Program;

use crate::io::{InputLayout, InputSpec, Observable};
use crate::verdict::{self, Counterexample, FuelPolicy};

/// The most replays one minimisation may spend.
pub const MAX_REPLAYS: u64 = 2_000;
/// The most steps (fuel per run, both programs) the replays may spend together: with a
/// large fuel there are fewer of them (a count, not a clock, so the result is the same
/// on any machine).
pub const REPLAY_STEPS: u64 = 100_000_000;

/// What a minimisation did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinimiseStats {
    /// Candidates kept (each one a smaller counterexample).
    pub steps: u64,
    /// Candidates replayed.
    pub replays: u64,
}

/// What replays are made of: both programs and the comparison's rules.
pub struct Replayer<'a> {
    pub left: &'a Program,
    pub right: &'a Program,
    /// The runs' settings (fuel, termination address, the comparison's stop).
    pub config: Config,
    pub layout: &'a InputLayout,
    pub observe: &'a [Observable],
    pub policy: FuelPolicy,
}

impl Replayer<'_> {
    fn replay(&self, values: &[u32]) -> Option<Counterexample> {
        verdict::replay(
            self.left,
            self.right,
            self.config,
            self.layout,
            values,
            self.observe,
            self.policy,
        )
    }
}

/// The size of inputs (in the layout's order), smallest first: the array's length,
/// then the sum of the magnitudes of the inputs a run reads (registers and numbers
/// signed, stdin bytes unsigned, elements at or past the length not counted), then
/// the sum over every input (so clearing unread elements counts as smaller).
pub fn size(layout: &InputLayout, values: &[u32]) -> (u64, u64, u64) {
    let len = match layout.spec {
        InputSpec::Array { max_len, .. } => values.first().map_or(0, |&l| l.min(max_len)) as u64,
        InputSpec::Registers(_) => 0,
    };
    let (mut read, mut all) = (0u64, 0u64);
    for i in 0..values.len() {
        let m = magnitude(layout, values, i);
        all += m;
        if is_read(layout, values, i) {
            read += m;
        }
    }
    (len, read, all)
}

/// Whether a run reads input `i` (an element at or past the length is not read; the
/// length itself is counted by [`size`] first).
fn is_read(layout: &InputLayout, values: &[u32], i: usize) -> bool {
    match layout.spec {
        InputSpec::Array { max_len, .. } => {
            let elems = max_len as usize;
            let len = values.first().map_or(0, |&l| l.min(max_len)) as usize;
            i > elems || (i >= 1 && i - 1 < len)
        }
        InputSpec::Registers(_) => true,
    }
}

fn is_byte(layout: &InputLayout, values: &[u32], i: usize) -> bool {
    i >= values.len() - layout.stdin_len.min(values.len())
}

/// The magnitude of input `i`: a byte unsigned, a word signed.
fn magnitude(layout: &InputLayout, values: &[u32], i: usize) -> u64 {
    if is_byte(layout, values, i) {
        (values[i] & 0xff) as u64
    } else if i == 0 && matches!(layout.spec, InputSpec::Array { .. }) {
        0 // the length: counted on its own
    } else {
        (values[i] as i32).unsigned_abs() as u64
    }
}

struct Minimiser<'a, 'r> {
    replayer: &'r Replayer<'a>,
    values: Vec<u32>,
    cx: Counterexample,
    tried: FxHashSet<Vec<u32>>,
    budget: u64,
    stats: MinimiseStats,
}

impl Minimiser<'_, '_> {
    fn exhausted(&self) -> bool {
        self.stats.replays >= self.budget || self.replayer.config.stop.reached()
    }

    /// Replays `candidate` and keeps it if it is smaller and still shows a difference.
    fn accept(&mut self, candidate: Vec<u32>) -> bool {
        let layout = self.replayer.layout;
        let candidate = layout.normalise(&candidate.iter().map(|&v| v as u64).collect::<Vec<_>>());
        if size(layout, &candidate) >= size(layout, &self.values)
            || self.exhausted()
            || !self.tried.insert(candidate.clone())
        {
            return false;
        }
        self.stats.replays += 1;
        match self.replayer.replay(&candidate) {
            Some(cx) => {
                self.values = candidate;
                self.cx = cx;
                self.stats.steps += 1;
                true
            }
            None => false,
        }
    }

    fn array_len(&self) -> Option<usize> {
        match self.replayer.layout.spec {
            InputSpec::Array { max_len, .. } => Some(self.values[0].min(max_len) as usize),
            InputSpec::Registers(_) => None,
        }
    }

    /// The inputs with element `i` removed: later ones shift left, the length is one
    /// less, and the freed last slot is 0.
    fn dropped(&self, i: usize, max_len: usize) -> Vec<u32> {
        let mut v = self.values.clone();
        v.remove(1 + i);
        v.insert(max_len, 0);
        v[0] -= 1;
        v
    }

    fn drop_elements(&mut self) {
        let InputSpec::Array { max_len, .. } = self.replayer.layout.spec else {
            return;
        };
        loop {
            let mut dropped_any = false;
            let mut i = 0;
            while self.array_len().is_some_and(|len| i < len) {
                if self.exhausted() {
                    return;
                }
                let candidate = self.dropped(i, max_len as usize);
                if self.accept(candidate) {
                    dropped_any = true; // the next element is now at `i`
                } else {
                    i += 1;
                }
            }
            if !dropped_any {
                return;
            }
        }
    }

    fn shorten(&mut self) {
        while let Some(len) = self.array_len().filter(|&len| len > 0) {
            let mut candidate = self.values.clone();
            candidate[0] = len as u32 - 1;
            candidate[len] = 0;
            if !self.accept(candidate) {
                return;
            }
        }
    }

    /// Moves input `i` toward 0: 0, then a bisection between 0 and its value, then 1
    /// and -1.
    fn toward_zero(&mut self, i: usize) {
        let byte = is_byte(self.replayer.layout, &self.values, i);
        let value = |v: u32| -> i64 {
            if byte {
                (v & 0xff) as i64
            } else {
                v as i32 as i64
            }
        };
        let word = |x: i64| -> u32 {
            if byte {
                x as u32 & 0xff
            } else {
                x as i32 as u32
            }
        };
        let at = |m: &mut Self, x: i64| {
            let mut c = m.values.clone();
            c[i] = word(x);
            m.accept(c)
        };
        if value(self.values[i]) == 0 || at(self, 0) {
            return;
        }
        // `lo` is known not to work (or to be no smaller), `hi` works.
        let (mut lo, mut hi) = (0i64, value(self.values[i]));
        while (hi - lo).abs() > 1 && !self.exhausted() {
            let mid = lo + (hi - lo) / 2;
            if at(self, mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        for small in [1, -1] {
            if !(byte && small < 0) {
                at(self, small);
            }
        }
    }

    fn values_toward_zero(&mut self) {
        for i in 0..self.values.len() {
            if self.exhausted() {
                return;
            }
            let layout = self.replayer.layout;
            let is_len = i == 0 && matches!(layout.spec, InputSpec::Array { .. });
            if is_len {
                continue;
            }
            if !is_read(layout, &self.values, i) {
                // Unread: clear it, no bisection needed.
                if self.values[i] != 0 {
                    let mut c = self.values.clone();
                    c[i] = 0;
                    self.accept(c);
                }
                continue;
            }
            self.toward_zero(i);
        }
    }
}

/// The smallest counterexample the steps above reach from `cx`, found with at most
/// `max_replays` replays (and the step budget [`REPLAY_STEPS`]), and what it took.
/// Every step is replayed, so the result is a counterexample like `cx`.
pub fn minimise(
    replayer: &Replayer<'_>,
    cx: Counterexample,
    max_replays: u64,
) -> (Counterexample, MinimiseStats) {
    let per_replay = replayer.config.fuel.max(1).saturating_mul(2);
    let budget = max_replays.min((REPLAY_STEPS / per_replay).max(16));
    let values: Vec<u32> = cx.inputs.iter().map(|&(_, v)| v).collect();
    let mut m = Minimiser {
        replayer,
        tried: FxHashSet::default(),
        values,
        cx,
        budget,
        stats: MinimiseStats::default(),
    };
    loop {
        let before = m.stats.steps;
        m.drop_elements();
        m.shorten();
        m.values_toward_zero();
        if m.stats.steps == before || m.exhausted() {
            break;
        }
    }
    (m.cx, m.stats)
}
