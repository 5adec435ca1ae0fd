//! Differences that show only after millions of trips ("needles"), looked for where a
//! loop proof failed.
//!
//! The loop proof ([`super::induct`]) drops a candidate fact when the solver finds a
//! state at a loop head, allowed by the other facts, from which one trip breaks it.
//! For a needle that state is the one just before the difference: a counter at
//! 3,000,000, say. Its inputs are any the facts allow, often far more trips than a
//! run can take; so each such query is asked again with every input in turn pushed
//! down as far as the solver allows (the facts tie a counter to its bound), and the
//! smallest inputs found, and the head's values plus one put in each input, are run
//! on both sides with a large fuel.
//!
//! Soundness does not rest on any of this: a candidate is only kept when it satisfies
//! the preconditions and both runs end, differently. Every limit is a count (queries,
//! solver work, steps), never a clock, so what is found is the same on any load; the
//! comparison's time limit and interrupt still stop it.

use std::hash::{BuildHasher, Hash};

use rustc_hash::FxBuildHasher;

use crate::solver::{Answer, Model, Solver};
use crate::term::{BinOp, Evaluator, Term, TermStore};

/// Most queries kept from one loop proof: the first facts a trip broke.
const MAX_SUSPECTS: usize = 8;
/// Most queries one search for a needle may ask.
const MAX_QUERIES: u32 = 192;
/// Most work one of those queries may take, in the solver's resource units.
const QUERY_WORK: u32 = 1_000_000;
/// Safety net behind [`QUERY_WORK`], for a solver that does not count its work.
const QUERY_TIME: std::time::Duration = std::time::Duration::from_secs(4);
/// Fuel of one replay: a few million trips of a loop of a few dozen instructions.
pub const NEEDLE_FUEL: u64 = 100_000_000;
/// Most steps the replays of one search may take together (both sides).
pub const NEEDLE_STEPS: u64 = 400_000_000;
/// The largest input tried as soon as its suspect was asked: a needle that one of
/// [`NEEDLE_FUEL`]'s runs can reach is at most a few tens of millions of trips.
const SMALL_INPUT: u32 = 1 << 25;
/// Most head values of one state tried as inputs.
const MAX_HEAD_VALUES: usize = 6;

/// Queries whose models are states from which a trip breaks a fact, in the order
/// they were found.
#[derive(Debug, Default)]
pub struct Suspects {
    queries: Vec<Vec<Term>>,
    /// What each query is about (a fact, or an ending): a fact broken again in a later
    /// round, or under another schedule, asks much the same.
    keys: Vec<u64>,
}

impl Suspects {
    pub fn new() -> Suspects {
        Suspects::default()
    }

    /// Keeps `query` (a guard and the fact broken) about `what`, unless one about
    /// the same is kept already or enough are.
    pub fn record(&mut self, what: impl Hash, query: &[Term]) {
        let key = FxBuildHasher.hash_one(what);
        if self.queries.len() < MAX_SUSPECTS && !self.keys.contains(&key) {
            self.keys.push(key);
            self.queries.push(query.to_vec());
        }
    }

    /// Forgets every query (see [`super::induct::prove`]: after a partial proof).
    pub fn clear(&mut self) {
        self.queries.clear();
        self.keys.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.queries.is_empty()
    }
}

/// Runs both sides on one input: whether both ended, differently (a run out of fuel
/// differs from nothing), and the steps they took.
pub type Replay<'a> = dyn FnMut(&[u32]) -> (bool, u64) + 'a;

/// Looks for inputs on which both sides end differently among the suspects' states
/// (see the module's doc). `args` are the inputs' terms (the first inputs of the
/// store), `admits` the preconditions, `replay` runs both sides with
/// [`NEEDLE_FUEL`]. The first input found, or `None`.
pub fn search(
    s: &mut TermStore,
    solver: &mut dyn Solver,
    suspects: &Suspects,
    args: &[Term],
    admits: &dyn Fn(&[u32]) -> bool,
    replay: &mut Replay<'_>,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<u32>> {
    let mut queries = 0;
    let mut steps = 0;
    let mut tried: Vec<Vec<u32>> = Vec::new();
    let mut large: Vec<Vec<u32>> = Vec::new();
    let mut try_one = |c: Vec<u32>, steps: &mut u64| -> bool {
        if tried.contains(&c) || !admits(&c) {
            return false;
        }
        #[allow(unused_mut)]
        let (mut differs, spent) = replay(&c);
        #[cfg(test)]
        if super::induct::planted::has(super::induct::planted::NEEDLE_UNREPLAYED) {
            differs = true;
        }
        tried.push(c);
        *steps += spent;
        differs
    };
    for query in &suspects.queries {
        if stop() || queries >= MAX_QUERIES || steps >= NEEDLE_STEPS {
            break;
        }
        let Some((inputs, heads)) = smallest_inputs(s, solver, query, args, &mut queries) else {
            continue;
        };
        let mut candidates = vec![inputs.clone()];
        for v in heads.into_iter().take(MAX_HEAD_VALUES) {
            for k in 0..inputs.len() {
                let mut c = inputs.clone();
                c[k] = v.wrapping_add(1);
                candidates.push(c);
            }
        }
        // Small inputs right away (a run of a few trips costs little, and one found
        // here saves the queries of the suspects after it); larger ones after every
        // suspect was asked, smallest first, since a run that never ends costs the
        // whole fuel.
        for c in candidates {
            if c.iter().any(|&v| v > SMALL_INPUT) {
                large.push(c);
            } else if stop() || steps >= NEEDLE_STEPS {
                return None;
            } else if try_one(c.clone(), &mut steps) {
                return Some(c);
            }
        }
    }
    large.sort_by_key(|c| (c.iter().copied().max(), c.clone()));
    large.dedup();
    for c in large {
        if stop() || steps >= NEEDLE_STEPS {
            return None;
        }
        if try_one(c.clone(), &mut steps) {
            return Some(c);
        }
    }
    None
}

/// The inputs of a model of `query`, each pushed down in turn (the earlier ones kept
/// at what was found) to the least value the solver allows, and the values of the
/// query's other inputs (a head's state) in the last model; `None` when the query
/// has no model within the limits.
fn smallest_inputs(
    s: &mut TermStore,
    solver: &mut dyn Solver,
    query: &[Term],
    args: &[Term],
    queries: &mut u32,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let mut ask = |s: &mut TermStore, q: &[Term], queries: &mut u32| -> Answer {
        if *queries >= MAX_QUERIES {
            return Answer::Unknown("enough queries".into());
        }
        *queries += 1;
        solver.limit_work(QUERY_WORK);
        solver.limit_time(QUERY_TIME);
        solver.check(s, q)
    };
    let mut q = query.to_vec();
    let Answer::Sat(mut model) = ask(s, &q, queries) else {
        return None;
    };
    let value = |s: &TermStore, m: &Model, t: Term| Evaluator::new(s, &m.values).eval(t) as u32;
    for &arg in args {
        // The least value with a model lies in [lo, hi]: hi has one. Bounds grow
        // from 0 (0, 1, 3, 7, …: most states allow small inputs, found in a few
        // queries), then halve what is left.
        let (mut lo, mut hi) = (0u32, value(s, &model, arg));
        let mut gallop: u32 = 0;
        while lo < hi {
            let mid = if gallop < hi {
                gallop
            } else {
                lo + (hi - lo) / 2
            };
            let bound = s.word(mid);
            let gt = s.bin(BinOp::Ult, bound, arg);
            let le = s.not(gt);
            let mut narrowed = q.clone();
            narrowed.push(le);
            match ask(s, &narrowed, queries) {
                Answer::Sat(m) => {
                    hi = value(s, &m, arg);
                    model = m;
                }
                Answer::Unsat => lo = mid + 1,
                // What the solver cannot tell, or no queries left: the value found.
                Answer::Unknown(_) => break,
            }
            gallop = gallop.saturating_mul(2).saturating_add(1).max(lo);
        }
        let at = s.word(value(s, &model, arg));
        let fixed = s.eq(arg, at);
        q.push(fixed);
    }
    let inputs: Vec<u32> = args.iter().map(|&a| value(s, &model, a)).collect();
    let first_other = args.len() as u32;
    let heads: Vec<u32> = s
        .vars_of(query)
        .into_iter()
        .filter(|&i| i >= first_other)
        .map(|i| model.values.get(i as usize).copied().unwrap_or(0) as u32)
        .collect();
    Some((inputs, heads))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{build_chain, SolverConfig};
    use tamarin_mips::cpu::Stop;

    #[test]
    fn the_least_inputs_a_state_allows_are_found_and_replayed() {
        // A head state with a counter `i` below the bound `n`, at the trip where
        // `i = 3,000,000`: the least `n` is 3,000,001.
        let mut s = TermStore::new();
        let n = s.new_var("n", 32);
        let k = s.new_var("k", 32);
        let i = s.new_var("loop0", 32);
        let below = s.bin(BinOp::Ult, i, n);
        let at = s.word(3_000_000);
        let needle = s.eq(i, at);
        let mut solver = build_chain(&SolverConfig::default(), Stop::at(None), Vec::new());
        let mut suspects = Suspects::new();
        suspects.record("needle", &[below, needle]);
        suspects.record("needle", &[below, needle]);
        assert_eq!(suspects.queries.len(), 1);
        let mut runs = Vec::new();
        let mut replay = |a: &[u32]| {
            runs.push(a.to_vec());
            (a[0] > 3_000_000 && a[0] < 3_000_100, 10)
        };
        let found = search(
            &mut s,
            &mut solver,
            &suspects,
            &[n, k],
            &|_| true,
            &mut replay,
            &|| false,
        );
        assert_eq!(found, Some(vec![3_000_001, 0]));
        assert_eq!(runs.len(), 1, "{runs:?}");
    }

    #[test]
    fn nothing_is_found_where_no_replay_differs_and_the_preconditions_are_kept() {
        let mut s = TermStore::new();
        let n = s.new_var("n", 32);
        let i = s.new_var("loop0", 32);
        let below = s.bin(BinOp::Ult, i, n);
        let at = s.word(7);
        let needle = s.eq(i, at);
        let mut solver = build_chain(&SolverConfig::default(), Stop::at(None), Vec::new());
        let mut suspects = Suspects::new();
        suspects.record("needle", &[below, needle]);
        let mut run = |admits: &dyn Fn(&[u32]) -> bool| {
            let mut runs = Vec::new();
            let mut replay = |a: &[u32]| {
                runs.push(a.to_vec());
                (false, 10)
            };
            let found = search(
                &mut s,
                &mut solver,
                &suspects,
                &[n],
                admits,
                &mut replay,
                &|| false,
            );
            (found, runs)
        };
        // The least input is 8 (and so is the head's value plus one): one run, and
        // none where the preconditions refuse it.
        assert_eq!(run(&|_| true), (None, vec![vec![8]]));
        assert_eq!(run(&|a| a[0] != 8), (None, vec![]));
    }
}
