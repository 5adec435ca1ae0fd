//! Bounded model checking of two programs side by side: one merged encoding per
//! program, one query for both.
//!
//! Each program is unrolled up to the fuel ([`unroll`]) into a [`Summary`]: the inputs
//! on which it ends normally (per length of output) with its observables as terms, the
//! inputs on which it fails, and the inputs the encoding cannot follow exactly
//! (*uncovered*). Paths are merged where they meet, so a loop with an input-dependent
//! bound is one state per iteration rather than one path per bound, and code after a
//! branch is encoded once. Both programs share the input variables, so the comparison
//! rules become one formula: some input on which both end and an observable differs,
//! or one ends and the other fails. Unsat, with no input reaching an uncovered part,
//! is a proof for every run within the fuel; a model is replayed concretely before it
//! is believed, as every counterexample is.

pub mod domain;
pub mod frontier;
pub mod function;
pub mod state;
pub mod unroll;

pub use unroll::{Summary, Uncovered, UnrollStats};

use std::time::Instant;

use tamarin_mips::cpu::{Config, Machine, Stop};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::Program;

use crate::io::{InputLayout, InputSpec};
use crate::loop_proof::UnboundedProof;
use crate::options::Options;
use crate::report::{Observer, Report, Stats};
use crate::solver::{build_chain, Answer, CountingSolver, Solver, SolverStats};
use crate::term::{BinOp, Term, TermStore};
use crate::verdict::{self, Counterexample, Coverage, Engine, Incomplete, Proof};

/// Magnitude bounds tried, in turn, to make a counterexample small.
const SMALL: [u32; 2] = [16, 65_536];

/// Compares two programs with the merged bounded encoding alone.
pub fn compare(
    left: &Program,
    right: &Program,
    opts: &Options,
    _observer: &mut dyn Observer,
) -> Report {
    Checker::new(opts).compare(left, right)
}

struct Checker<'o> {
    opts: &'o Options,
    /// Why the domain program's acceptance could not be built, if it could not.
    domain_refused: Option<Uncovered>,
    store: TermStore,
    layout: InputLayout,
    /// Every query, the unrolling's included (jump targets, pruning).
    solver: CountingSolver<Box<dyn Solver>>,
    start: Instant,
    /// What the comparison may spend (read once from the options, when it begins).
    budget: crate::budget::Budget,
    /// The answers to the comparison's own queries: their unknowns are reasons, the
    /// unrolling's are not (see [`Checker::summarize`]).
    asked: SolverStats,
    replays: u64,
    /// Queries asked about groups of ends after the whole was too hard.
    split_queries: u64,
    /// What the concrete minimiser did.
    minimised: crate::minimise::MinimiseStats,
}

impl<'o> Checker<'o> {
    fn new(opts: &'o Options) -> Self {
        let mut store = TermStore::new();
        let mut layout = InputLayout::declare(&mut store, &opts.inputs, opts.stdin_len);
        // The front door validated the preconditions; ones that do not fit admit nothing.
        let _ = layout.assume(&mut store, &opts.assume);
        // As in the path search: a domain program that cannot be encoded here admits
        // no input, and the comparison says so instead of proving anything.
        let domain_refused = domain::restrict(&mut store, &mut layout, opts)
            .err()
            .map(|e| e.uncovered());
        let domain = layout.domain(&mut store);
        let start = Instant::now();
        let budget = opts.budget();
        Checker {
            opts,
            domain_refused,
            store,
            layout,
            solver: build_chain(&opts.solver, budget.stop(), domain),
            start,
            budget,
            asked: SolverStats::default(),
            replays: 0,
            split_queries: 0,
            minimised: Default::default(),
        }
    }

    fn config(&self) -> Config {
        self.budget.machine_config(self.opts.termination)
    }

    fn compare(mut self, left: &Program, right: &Program) -> Report {
        let sl = self.summarize(left);
        let sr = self.summarize(right);
        let mut incomplete: Vec<Incomplete> = self
            .domain_refused
            .map(|what| Incomplete::Encoding { what })
            .into_iter()
            .collect();
        let both: Vec<(Uncovered, Term)> =
            sl.uncovered.iter().chain(&sr.uncovered).copied().collect();
        let uncovered = merge_reasons(&mut self.store, &both);
        let any_uncovered = self.store.or_all(uncovered.iter().map(|&(_, c)| c));
        let covered = self.store.not(any_uncovered);
        let differ = difference(&mut self.store, &sl, &sr, self.opts.out_of_fuel);
        let mut found = None;
        let answer = match self.solver.check(&mut self.store, &[differ, covered]) {
            Answer::Unknown(ref why) if self.opts.bmc_split && self.may_go_on(why) => {
                self.split(&sl, &sr, covered)
            }
            answer => {
                self.asked.count(&answer);
                match answer {
                    Answer::Sat(m) => Split::Differ(m.values, differ),
                    Answer::Unsat => Split::Agree,
                    Answer::Unknown(_) => Split::Undecided,
                }
            }
        };
        let agreed = matches!(answer, Split::Agree);
        match answer {
            Split::Differ(values, region) => match self.confirm(&values, left, right) {
                Some(cx) => {
                    let cx = self.shrink(cx, region, covered, left, right);
                    found = Some(self.minimise(cx, left, right));
                }
                None => incomplete.push(Incomplete::Unconfirmed),
            },
            Split::Agree | Split::Undecided => {}
        }
        if found.is_none() && self.store.as_const(any_uncovered) != Some(0) {
            // Which parts some input reaches: each is a reason (an unknown answer is
            // counted with the solver's unknowns).
            for &(why, cond) in &uncovered {
                if matches!(self.ask(&[cond]), Answer::Sat(_)) {
                    incomplete.push(Incomplete::Encoding { what: why });
                }
            }
        }
        if self.asked.unknown > 0 {
            incomplete.push(Incomplete::SolverUnknown {
                queries: self.asked.unknown,
                reason: self.asked.unknown_reason(),
            });
        }
        if self.budget.interrupted() {
            incomplete.push(Incomplete::Interrupted);
        } else if !incomplete.is_empty()
            && self.budget.deadline().is_some_and(|d| Instant::now() >= d)
        {
            // The deadline passed: the unrolling it stopped says `encoding-budget`, a
            // count's name, so the clock's part is said too.
            incomplete.push(Incomplete::Timeout {
                millis: self.budget.started().elapsed().as_millis() as u64,
            });
        }
        let every_run_ends = self.opts.unbounded
            && agreed
            && incomplete.is_empty()
            && self.every_run_ends(&sl, &sr, covered);
        let proof = Proof {
            engine: Engine::Bmc,
            paths: (sl.stats.ends, sr.stats.ends),
            out_of_fuel: (sl.stats.out_of_fuel, sr.stats.out_of_fuel),
            encoding: Some((sl.stats, sr.stats)),
            queries: self.solver.stats.queries,
            fuel: self.opts.fuel,
            unbounded: every_run_ends.then(|| Box::new(UnboundedProof::every_run_ends())),
        };
        let stats = Stats {
            runs: self.replays,
            shrink_steps: self.minimised.steps,
            shrink_replays: self.minimised.replays,
            paths: (sl.stats.ends, sr.stats.ends),
            difference_queries: self.asked.queries,
            split_queries: self.split_queries,
            solver: self.solver.stats.clone(),
            solver_name: self.solver.describe(),
            warnings: self.solver.warnings(),
            solver_failure: self.solver.failure(),
            total: self.start.elapsed(),
            ..Stats::default()
        };
        Report {
            verdict: verdict::decide(found, Coverage { incomplete }, proof),
            stats,
            input_names: self.layout.names().to_vec(),
            paths: Default::default(),
            notes: Vec::new(),
        }
    }

    /// Whether no input (that the domain allows and the encoding covers) makes either
    /// program run out of fuel: then the proof within the fuel covers runs of any
    /// length ([`Options::unbounded`]). The count of runs out of fuel cannot say so,
    /// since a merge joins such runs with shorter ones. Anything but `unsat` is no.
    fn every_run_ends(&mut self, sl: &Summary, sr: &Summary, covered: Term) -> bool {
        let any = self.store.or(sl.out_of_fuel, sr.out_of_fuel);
        #[cfg(test)]
        if planted::has(planted::ENDS_UNCHECKED) {
            return true;
        }
        matches!(
            self.solver.check(&mut self.store, &[any, covered]),
            Answer::Unsat
        )
    }

    /// The comparison asked again in parts, for when the whole is too hard: one side
    /// (the one whose encoding merged more paths) is cut into its ways to end (one
    /// per length of output, and its errors), and a part left undecided is cut in two
    /// by a case split ([`case_split`]) and asked again, down to the single paths a
    /// merge joined (one per trip count of a loop), until the time runs out. The
    /// parts' differences together are exactly the whole's: all unsat proves what
    /// the whole would.
    fn split(&mut self, left: &Summary, right: &Summary, covered: Term) -> Split {
        let split_left = left.stats.merges >= right.stats.merges;
        let (cut, whole) = if split_left {
            (left, right)
        } else {
            (right, left)
        };
        let no = self.store.bool(false);
        let policy = self.opts.out_of_fuel;
        let mut todo: Vec<Summary> = vec![part(no, cut.error, None)];
        if policy == crate::verdict::FuelPolicy::Different {
            let mut out_of_fuel = part(no, no, None);
            out_of_fuel.out_of_fuel = cut.out_of_fuel;
            todo.push(out_of_fuel);
        }
        for (len, end) in cut.done.iter().rev() {
            todo.push(part(no, end.guard, Some((*len, end.observed.clone()))));
        }
        let mut undecided = false;
        while let Some(p) = todo.pop() {
            let differ = if split_left {
                difference(&mut self.store, &p, whole, policy)
            } else {
                difference(&mut self.store, whole, &p, policy)
            };
            if self.store.as_const(differ) == Some(0) {
                continue;
            }
            self.split_queries += 1;
            let answer = self.solver.check(&mut self.store, &[differ, covered]);
            let halves = match answer {
                Answer::Unknown(ref why) if self.may_go_on(why) => case_split(&mut self.store, &p),
                _ => None,
            };
            match halves {
                Some((a, b)) => {
                    todo.push(b);
                    todo.push(a);
                }
                None => {
                    self.asked.count(&answer);
                    match answer {
                        Answer::Sat(m) => return Split::Differ(m.values, differ),
                        Answer::Unsat => {}
                        Answer::Unknown(_) => undecided = true,
                    }
                }
            }
        }
        if undecided {
            Split::Undecided
        } else {
            Split::Agree
        }
    }

    /// Unrolls one program over the shared inputs.
    fn summarize(&mut self, program: &Program) -> Summary {
        let image_end = program.byte_len();
        let zeros = vec![0u32; self.layout.vars().len()];
        let mut machine = Machine::new(program, self.config());
        let fits = self.layout.load(&mut machine, &zeros).is_ok();
        let registers = machine.regs().gpr;
        let symbolic_memory = self.layout.symbolic_memory(&mut self.store, program);
        let setup = unroll::Setup {
            program,
            fuel: self.opts.fuel,
            termination: self.opts.termination,
            observe: &self.opts.observe,
            registers,
            symbolic_registers: self.layout.symbolic_registers(),
            symbolic_memory,
            stdin: self.layout.symbolic_stdin().to_vec(),
            max_terms: self
                .store
                .len()
                .saturating_add(self.opts.max_encoding_terms / 2),
            stop: self.stop(),
        };
        let mut summary = {
            let Checker { store, solver, .. } = self;
            // An unknown here costs no coverage: an undecided feasibility check keeps
            // the state, undecided jump targets become an uncovered part. So these
            // unknowns are not reasons of their own (they are not in `asked`).
            let mut ask = |s: &mut TermStore, q: &[Term]| solver.check(s, q);
            unroll::unroll(store, &setup, &mut ask)
        };
        if let Some(c) = self.array_misfit(image_end, fits) {
            summary.uncovered.push((Uncovered::ArrayFit, c));
        }
        summary
    }

    /// The lengths for which the array input does not fit after `image_end`.
    fn array_misfit(&mut self, image_end: u32, fits_empty: bool) -> Option<Term> {
        let InputSpec::Array { max_len, base } = self.layout.spec else {
            return None;
        };
        let base = base.unwrap_or(image_end);
        if !fits_empty {
            return Some(self.store.bool(true));
        }
        let room = (MEM_SIZE as u64 - base as u64) / 4;
        if (max_len as u64) <= room {
            return None;
        }
        let len = *self.layout.vars().first()?;
        let room = self.store.word(room as u32);
        Some(self.store.bin(BinOp::Ult, room, len))
    }

    /// When the comparison must stop: its time limit, or an interrupt.
    fn stop(&self) -> Stop {
        self.config().stop
    }

    /// Whether a query left unknown for `why` is worth asking again in parts: not
    /// once the time is up, nor once the solver's work budget is spent (every part
    /// would be unknown at once).
    fn may_go_on(&self, why: &str) -> bool {
        !self.stop().reached() && why != crate::solver::WORK_BUDGET_SPENT
    }

    /// Asks one of the comparison's own queries.
    fn ask(&mut self, query: &[Term]) -> Answer {
        let answer = self.solver.check(&mut self.store, query);
        self.asked.count(&answer);
        answer
    }

    /// Replays the inputs of a model on both programs.
    fn confirm(
        &mut self,
        values: &[u64],
        left: &Program,
        right: &Program,
    ) -> Option<Counterexample> {
        let inputs = self.layout.normalise(values);
        self.replays += 1;
        verdict::replay(
            left,
            right,
            self.config(),
            &self.layout,
            &inputs,
            &self.opts.observe,
            self.opts.out_of_fuel,
        )
    }

    /// The shared concrete minimiser, when the options ask for it.
    fn minimise(&mut self, cx: Counterexample, left: &Program, right: &Program) -> Counterexample {
        if !self.opts.minimise {
            return cx;
        }
        let replayer = crate::minimise::Replayer {
            left,
            right,
            config: self.config(),
            layout: &self.layout,
            observe: &self.opts.observe,
            policy: self.opts.out_of_fuel,
        };
        let (cx, done) = crate::minimise::minimise(&replayer, cx, crate::minimise::MAX_REPLAYS);
        self.minimised = done;
        cx
    }

    /// Looks for a difference with small inputs; keeps `cx` unless one replays.
    fn shrink(
        &mut self,
        cx: Counterexample,
        differ: Term,
        covered: Term,
        left: &Program,
        right: &Program,
    ) -> Counterexample {
        if cx.inputs.iter().all(|&(_, v)| small(v, SMALL[0])) {
            return cx;
        }
        for bound in SMALL {
            if cx.inputs.iter().all(|&(_, v)| small(v, bound)) {
                return cx;
            }
            let mut q = self.layout.small(&mut self.store, bound);
            q.push(differ);
            q.push(covered);
            if let Answer::Sat(m) = self.ask(&q) {
                if let Some(smaller) = self.confirm(&m.values, left, right) {
                    return smaller;
                }
            }
        }
        cx
    }
}

/// What the comparison's difference query, whole or split, came to.
enum Split {
    /// A model of the inputs, and the difference it satisfies.
    Differ(Vec<u64>, Term),
    Agree,
    Undecided,
}

/// A summary with one way to end: normal with `done`'s output length and observed
/// terms under `guard`, or an error under `guard` when `done` is `None`.
fn part(no: Term, guard: Term, done: Option<(usize, Vec<Vec<Term>>)>) -> Summary {
    let (done, error) = match done {
        Some((len, observed)) => (vec![(len, unroll::Ending { guard, observed })], no),
        None => (Vec::new(), guard),
    };
    Summary {
        done,
        error,
        uncovered: Vec::new(),
        out_of_fuel: no,
        stats: UnrollStats::default(),
    }
}

/// A one-way summary cut in two by a case split, exactly: on the condition `c` of
/// the first `ite` among its observed terms, each half with `c` (or its negation)
/// added to the guard and every `ite` on `c` replaced by the branch `c` picks (a
/// merge of two paths becomes those paths again); failing that, on the first
/// disjunct of a guard `p ∨ q` (`p`, and `q ∧ ¬p`). `None` when neither applies.
pub fn case_split(store: &mut TermStore, s: &Summary) -> Option<(Summary, Summary)> {
    let no = store.bool(false);
    let (guard, done) = match s.done.first() {
        Some((len, end)) => (end.guard, Some((*len, &end.observed))),
        None => (s.error, None),
    };
    let ite = done.and_then(|(_, observed)| {
        observed
            .iter()
            .flatten()
            .find_map(|&t| match store.node(t) {
                crate::term::Node::Ite(c, _, _) => Some(c),
                _ => None,
            })
    });
    let (c, on_ite) = match (ite, store.node(guard)) {
        (Some(c), _) => (c, true),
        (None, crate::term::Node::Bin(BinOp::Or, p, _)) => (p, false),
        _ => return None,
    };
    let mut half = |pick: bool| {
        let cond = if pick { c } else { store.not(c) };
        let g = store.and(guard, cond);
        let observed = done.map(|(len, observed)| {
            let picked = observed
                .iter()
                .map(|terms| {
                    terms
                        .iter()
                        .map(|&t| match store.node(t) {
                            crate::term::Node::Ite(k, x, y) if on_ite && k == c => {
                                if pick {
                                    x
                                } else {
                                    y
                                }
                            }
                            _ => t,
                        })
                        .collect()
                })
                .collect();
            (len, picked)
        });
        part(no, g, observed)
    };
    Some((half(true), half(false)))
}

/// Whether `v`, read as signed, is within `-bound..=bound`.
fn small(v: u32, bound: u32) -> bool {
    (v as i32).unsigned_abs() <= bound
}

/// One condition per kind of uncovered part.
fn merge_reasons(store: &mut TermStore, parts: &[(Uncovered, Term)]) -> Vec<(Uncovered, Term)> {
    let mut out: Vec<(Uncovered, Term)> = Vec::new();
    for &(why, c) in parts {
        match out.iter_mut().find(|(w, _)| *w == why) {
            Some((_, acc)) => *acc = store.or(*acc, c),
            None => out.push((why, c)),
        }
    }
    out.retain(|&(_, c)| store.as_const(c) != Some(0));
    out
}

/// The inputs on which the two summaries differ under the comparison rules: both end
/// and some observable differs, or one ends and the other fails.
pub fn difference(
    store: &mut TermStore,
    left: &Summary,
    right: &Summary,
    policy: verdict::FuelPolicy,
) -> Term {
    use verdict::{rule, Ending, Rule};
    // Every pair of ways the two programs can end, each with its guard and, for a
    // normal end, its observed terms; running out of fuel only where the policy makes
    // it a difference.
    type Way<'a> = (Ending, Term, Option<&'a [Vec<Term>]>);
    fn ends(s: &Summary, policy: verdict::FuelPolicy) -> Vec<Way<'_>> {
        let mut v: Vec<Way<'_>> = s
            .done
            .iter()
            .map(|(_, e)| (Ending::Done, e.guard, Some(e.observed.as_slice())))
            .collect();
        v.push((Ending::Error, s.error, None));
        if policy == verdict::FuelPolicy::Different {
            v.push((Ending::OutOfFuel, s.out_of_fuel, None));
        }
        v
    }
    let mut any = store.bool(false);
    for (le, lg, lobs) in ends(left, policy) {
        for (re, rg, robs) in ends(right, policy) {
            let differ = match (rule(policy, le, re), &lobs, &robs) {
                (Rule::Same, ..) => continue,
                (Rule::Different, ..) => store.bool(true),
                (Rule::CompareObservables, Some(a), Some(b)) => {
                    verdict::observed_differ(store, a, b)
                }
                (Rule::CompareObservables, ..) => store.bool(true),
            };
            let both = store.and(lg, rg);
            let d = store.and(both, differ);
            any = store.or(any, d);
        }
    }
    any
}

/// Bugs a test plants on purpose, to show that the tests catch them.
#[cfg(test)]
pub(crate) mod planted {
    pub use crate::planted::{has, plant};

    /// Under `--unbounded`, a proof within the fuel is taken to cover runs of any
    /// length without asking whether some run is longer.
    pub const ENDS_UNCHECKED: u32 = 1 << 12;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::eval;
    use proptest::prelude::*;

    /// A one-way summary as merges build it: paths `x == k_i` (disjoint guards), each
    /// observing `x * m_i + c_i`, joined one at a time as `or` of the guards and an
    /// `ite` on the earlier guard; plus errors on `x == e`.
    fn merged(s: &mut TermStore, x: Term, ways: &[(u32, u32, u32)], e: u32) -> Summary {
        let mut guard = s.bool(false);
        let mut value = s.word(0);
        for &(k, m, c) in ways {
            let (k, m, c) = (s.word(k), s.word(m), s.word(c));
            let g = s.eq(x, k);
            let scaled = s.bin(BinOp::Mul, x, m);
            let v = s.bin(BinOp::Add, scaled, c);
            value = s.ite(guard, value, v);
            guard = s.or(guard, g);
        }
        let e = s.word(e);
        let error = s.eq(x, e);
        let no = s.bool(false);
        let mut sum = part(no, guard, Some((0, vec![vec![value]])));
        sum.error = error;
        sum
    }

    /// A summary that ends on every input, observing `x * m + c`.
    fn everywhere(s: &mut TermStore, x: Term, m: u32, c: u32) -> Summary {
        let (m, c) = (s.word(m), s.word(c));
        let scaled = s.bin(BinOp::Mul, x, m);
        let v = s.bin(BinOp::Add, scaled, c);
        let (yes, no) = (s.bool(true), s.bool(false));
        part(no, yes, Some((0, vec![vec![v]])))
    }

    /// Every part a summary is cut into, down to parts that cannot be cut.
    fn leaves(s: &mut TermStore, sum: Summary) -> Vec<Summary> {
        let mut out = Vec::new();
        let mut todo = vec![sum];
        while let Some(p) = todo.pop() {
            match case_split(s, &p) {
                Some((a, b)) => {
                    todo.push(a);
                    todo.push(b);
                }
                None => out.push(p),
            }
        }
        out
    }

    proptest! {
        /// The parts' differences against another summary, together, are the whole's
        /// difference, at every probed input; a part cut off its `ite` branch holds
        /// no `ite` on that condition.
        #[test]
        fn a_case_split_keeps_the_difference(
            ways in prop::collection::vec((0u32..12, 0u32..4, 0u32..4), 1..6),
            other in (0u32..4, 0u32..4),
            e in 0u32..12,
        ) {
            let mut s = TermStore::new();
            let x = s.new_var("x", 32);
            let whole = merged(&mut s, x, &ways, e);
            let right = everywhere(&mut s, x, other.0, other.1);
            let all = difference(&mut s, &whole, &right, verdict::FuelPolicy::Same);
            let mut ways_only = whole.clone();
            ways_only.error = s.bool(false);
            let errors = part(s.bool(false), whole.error, None);
            let mut parts = leaves(&mut s, ways_only);
            parts.extend(leaves(&mut s, errors));
            let pieces: Vec<Term> = parts.iter().map(|p| difference(&mut s, p, &right, verdict::FuelPolicy::Same)).collect();
            for v in 0..16u64 {
                let whole_differs = eval(&s, &[v], all) == 1;
                let some_part = pieces.iter().any(|&d| eval(&s, &[v], d) == 1);
                prop_assert_eq!(whole_differs, some_part, "x = {}", v);
            }
        }
    }
}
