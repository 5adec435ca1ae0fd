//! Makes counterexamples friendly: among the inputs that show the same difference,
//! prefer small magnitudes (the solver likes answers such as `0x80000000`), asked of
//! the solver within the pair of paths that differ.

use super::Search;
use crate::solver::Answer;
use crate::verdict::Counterexample;

/// Magnitude bounds tried in turn, all inputs at once.
const BOUNDS: [u32; 6] = [0, 1, 10, 100, 1000, 65536];

impl Search<'_> {
    /// Looks for smaller inputs in the region where left path `l` and right path `r`
    /// differ, with the solver; every candidate is replayed, and `cx` is kept unless
    /// one confirms. The shared concrete minimiser (`crate::minimise`) comes after it
    /// (the difference may not need that pair of paths at all).
    pub(super) fn shrink(&mut self, cx: Counterexample, l: usize, r: usize) -> Counterexample {
        self.shrink_in_region(cx, l, r)
    }

    fn shrink_in_region(&mut self, cx: Counterexample, l: usize, r: usize) -> Counterexample {
        let max = cx
            .inputs
            .iter()
            .map(|(_, v)| (*v as i32).unsigned_abs())
            .max()
            .unwrap_or(0);
        let Some(region) = self.difference_region(l, r) else {
            return cx;
        };
        for bound in BOUNDS {
            if bound >= max {
                break;
            }
            let mut q = region.clone();
            q.extend(self.layout.small(&mut self.store, bound));
            match self.ask(&q) {
                Answer::Sat(m) => {
                    let mut inputs = self.inputs_of(&m.values);
                    // Then try to zero each input in turn, keeping the others.
                    for i in 0..inputs.len() {
                        if inputs[i] == 0 {
                            continue;
                        }
                        let mut q2 = q.clone();
                        let vars = self.layout.vars().to_vec();
                        let zero = self.store.constant(self.store.width(vars[i]), 0);
                        let z = self.store.eq(vars[i], zero);
                        q2.push(z);
                        for (j, &v) in inputs.iter().enumerate().take(i) {
                            let k = self.store.constant(self.store.width(vars[j]), v as u64);
                            let e = self.store.eq(vars[j], k);
                            q2.push(e);
                        }
                        if let Answer::Sat(m2) = self.ask(&q2) {
                            inputs = self.inputs_of(&m2.values);
                        }
                    }
                    if let Some(better) = self.replay(&inputs) {
                        return better;
                    }
                    return cx;
                }
                Answer::Unsat => continue,
                Answer::Unknown(_) => return cx,
            }
        }
        cx
    }
}
