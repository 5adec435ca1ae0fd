//! The states of a merged encoding still running, and the order they run in: shared by
//! the unrollers of every target (CS241 programs, MIPS32 functions).
//!
//! States wait in a map keyed by [`Key`] and the state with the lowest pc runs next,
//! except at a loop head, whose states wait until the loop's body is empty and then
//! enter it together (see [`Frontier::take_next`]). A state that arrives where another
//! waits is merged into it, so the two arms of a branch meet again at their join, each
//! iteration of a loop is one state at its head, and the exits of a loop from every
//! iteration become one state.

use std::collections::BTreeMap;

use super::state::{self, Key, State};
use crate::solver::Answer;
use crate::term::{Evaluator, Term, TermStore};
use crate::verdict::UnrollStats;

/// A loop of the code as the scheduler sees it.
#[derive(Clone, Copy, Debug)]
struct Loop {
    /// The address of the last branch back to the head.
    last: u32,
    /// The wave that states arriving at the head join now.
    open_wave: u32,
}

/// The states waiting to run.
pub struct Frontier {
    work: BTreeMap<Key, State>,
    /// Loop heads (targets of branches back to or before themselves), each with the
    /// last branch back to it (the loop's body as the scheduler sees it) and its open
    /// wave (see [`State::wave`]).
    loops: rustc_hash::FxHashMap<u32, Loop>,
    /// The stack pointer's register, part of the merge key.
    stack: usize,
}

/// What merging two states at one key needs: the initial memory, word by word and as
/// an array.
pub struct Initial<'a> {
    pub word: &'a dyn Fn(u32) -> u32,
    pub array: Term,
}

impl Frontier {
    /// An empty frontier for code whose branches to constant targets are `branches`
    /// (each as its pc and target), on a target whose stack pointer is `stack`.
    pub fn new(branches: impl IntoIterator<Item = (u32, u32)>, stack: usize) -> Frontier {
        let mut loops = rustc_hash::FxHashMap::default();
        for (pc, head) in branches {
            if head <= pc {
                let l = loops.entry(head).or_insert(Loop {
                    last: pc,
                    open_wave: 0,
                });
                l.last = l.last.max(pc);
            }
        }
        Frontier {
            work: BTreeMap::new(),
            loops,
            stack,
        }
    }

    /// Takes the state to run next: the one with the lowest pc, except that the states
    /// at a loop head wait while others are inside that loop's body, and then enter it
    /// together as one wave (arrivals after that wait for the next). So every state of
    /// one iteration reaches the head before the next iteration starts, and they merge
    /// there; running the lowest pc alone would let a short arm of the body race ahead
    /// and merge with a later iteration of a longer one, turning pointers and counters
    /// into `ite`s of unrelated iterations.
    pub fn take_next(&mut self) -> Option<State> {
        let mut release = None;
        let key = self
            .work
            .keys()
            .find(|k| match self.loops.get(&k.0) {
                None => true,
                Some(l) if k.1 < l.open_wave => true,
                Some(l) => {
                    let clear = !self.body_busy(k.0, l.last);
                    if clear {
                        release = Some(k.0);
                    }
                    clear
                }
            })
            .or_else(|| self.work.keys().next())
            .copied()?;
        if let Some(l) = release.and_then(|head| self.loops.get_mut(&head)) {
            l.open_wave += 1;
        }
        self.work.remove(&key)
    }

    /// Whether some state is inside the body of the loop at `head` that ends at `last`.
    fn body_busy(&self, head: u32, last: u32) -> bool {
        if last <= head {
            return false;
        }
        let from = (head + 1, 0, 0, 0, None);
        let to = (last, u32::MAX, usize::MAX, usize::MAX, Some(u64::MAX));
        self.work.range(from..=to).next().is_some()
    }

    /// Adds `st` (unless no input is in it), merging it into a state waiting at its key.
    pub fn push(
        &mut self,
        s: &mut TermStore,
        mut st: State,
        initial: &Initial<'_>,
        stats: &mut UnrollStats,
    ) {
        if st.is_dead(s) {
            return;
        }
        st.wave = self.loops.get(&st.pc).map_or(0, |l| l.open_wave);
        let key = st.key(s, self.stack);
        match self.work.get_mut(&key) {
            Some(waiting) => {
                state::merge(s, waiting, st, initial.word, initial.array);
                stats.merges += 1;
            }
            None => {
                self.work.insert(key, st);
                stats.peak_states = stats.peak_states.max(self.work.len() as u64);
            }
        }
    }

    /// Puts back a state taken by [`Frontier::take_next`] without running it.
    pub fn put_back(&mut self, s: &TermStore, st: State) {
        self.work.insert(st.key(s, self.stack), st);
    }

    /// How often the branch at `pc` forked so far, counting this fork; whether to check
    /// its sides' feasibility now: at the 2nd, 4th, 8th, 16th fork and every 32nd
    /// after, so that a loop bounded by a guard stops within 32 iterations of its
    /// feasible trip count, and a loop bounded only by the fuel costs a query per 32
    /// iterations.
    pub fn check_fork(forks: &mut rustc_hash::FxHashMap<u32, u32>, pc: u32) -> bool {
        let n = forks.entry(pc).or_insert(0);
        *n += 1;
        *n >= 2 && (n.is_power_of_two() || n.is_multiple_of(32))
    }

    /// Every state still waiting, taken out.
    pub fn drain(&mut self) -> Vec<State> {
        std::mem::take(&mut self.work).into_values().collect()
    }
}

/// The values `target` takes where `guard` holds, listed with the solver one query per
/// value (at most `limit`), each with its condition `target == v`; and the condition
/// of the rest, when there were more values or the solver could not tell (`None` when
/// every value was listed). Both unrollers list the targets of an input-dependent
/// jump this way.
pub fn list_values(
    s: &mut TermStore,
    guard: Term,
    target: Term,
    limit: usize,
    ask: &mut dyn FnMut(&mut TermStore, &[Term]) -> Answer,
) -> (Vec<(Term, u32)>, Option<Term>) {
    let mut query = vec![guard];
    let mut cases = Vec::new();
    while cases.len() < limit {
        match ask(s, &query) {
            Answer::Sat(m) => {
                let k = Evaluator::new(s, &m.values).eval(target) as u32;
                let kt = s.word(k);
                let is = s.eq(target, kt);
                let not = s.not(is);
                cases.push((is, k));
                query.push(not);
            }
            Answer::Unsat => return (cases, None),
            Answer::Unknown(_) => break,
        }
    }
    let rest = s.and_all(query);
    (cases, Some(rest))
}
