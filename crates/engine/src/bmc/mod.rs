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

pub mod state;
pub mod unroll;

pub use unroll::{Summary, Uncovered, UnrollStats};

use std::time::Instant;

use tamarin_mips::cpu::{Config, Machine, Stop};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::Program;

use crate::io::{InputLayout, InputSpec};
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
    store: TermStore,
    layout: InputLayout,
    /// Every query, the unrolling's included (jump targets, pruning).
    solver: CountingSolver<Box<dyn Solver>>,
    start: Instant,
    /// The answers to the comparison's own queries: their unknowns are reasons, the
    /// unrolling's are not (see [`Checker::summarize`]).
    asked: SolverStats,
    replays: u64,
    /// Queries asked about groups of ends after the whole was too hard.
    split_queries: u64,
}

impl<'o> Checker<'o> {
    fn new(opts: &'o Options) -> Self {
        let mut store = TermStore::new();
        let layout = InputLayout::declare(&mut store, &opts.inputs, opts.stdin_len);
        let domain = layout.domain(&mut store);
        let start = Instant::now();
        let stop = opts.machine_config(start).stop;
        Checker {
            opts,
            store,
            layout,
            solver: build_chain(&opts.solver, stop, domain),
            start,
            asked: SolverStats::default(),
            replays: 0,
            split_queries: 0,
        }
    }

    fn config(&self) -> Config {
        self.opts.machine_config(self.start)
    }

    fn compare(mut self, left: &Program, right: &Program) -> Report {
        let sl = self.summarize(left);
        let sr = self.summarize(right);
        let mut incomplete = Vec::new();
        let both: Vec<(Uncovered, Term)> =
            sl.uncovered.iter().chain(&sr.uncovered).copied().collect();
        let uncovered = merge_reasons(&mut self.store, &both);
        let any_uncovered = self.store.or_all(uncovered.iter().map(|&(_, c)| c));
        let covered = self.store.not(any_uncovered);
        let differ = difference(&mut self.store, &sl, &sr);
        let mut found = None;
        let answer = match self.solver.check(&mut self.store, &[differ, covered]) {
            Answer::Unknown(_) if self.opts.bmc_split && self.can_split(&sl, &sr) => {
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
        match answer {
            Split::Differ(values, region) => match self.confirm(&values, left, right) {
                Some(cx) => found = Some(self.shrink(cx, region, covered, left, right)),
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
                reason: self.asked.first_unknown.clone().unwrap_or_default(),
            });
        }
        let proof = Proof {
            engine: Engine::Bmc,
            paths: (sl.stats.ends, sr.stats.ends),
            out_of_fuel: (sl.stats.out_of_fuel, sr.stats.out_of_fuel),
            encoding: Some((sl.stats, sr.stats)),
            queries: self.solver.stats.queries,
            fuel: self.opts.fuel,
        };
        let stats = Stats {
            runs: self.replays,
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
        }
    }

    /// Whether splitting the comparison along one side's ends makes smaller queries.
    fn can_split(&self, left: &Summary, right: &Summary) -> bool {
        left.ends.len() + right.ends.len() > 2
    }

    /// The comparison asked as one query per group of one side's ends (the side with
    /// more of them), for when the whole is too hard: halves of the ends first, each
    /// group left unknown halved again, down to single ends (one per trip count of a
    /// loop). The ends' guards exclude each other, so the groups' differences, with
    /// the side's errors as one group more, are together the whole difference: every
    /// group unsat proves what the whole would.
    fn split(&mut self, left: &Summary, right: &Summary, covered: Term) -> Split {
        let split_left = left.ends.len() >= right.ends.len();
        let (cut, whole) = if split_left { (left, right) } else { (right, left) };
        let empty = self.store.bool(false);
        let group = |ends: &[(usize, unroll::Ending)], error: Term| Summary {
            done: ends.to_vec(),
            ends: Vec::new(),
            error,
            uncovered: Vec::new(),
            stats: UnrollStats::default(),
        };
        let n = cut.ends.len();
        // Popped from the end: the errors first, then the first half of the ends.
        let mut todo = vec![Part::Ends(n / 2, n), Part::Ends(0, n / 2), Part::Errors];
        let mut undecided = false;
        while let Some(p) = todo.pop() {
            let part = match p {
                Part::Errors => group(&[], cut.error),
                Part::Ends(a, b) if a < b => group(&cut.ends[a..b], empty),
                Part::Ends(..) => continue,
            };
            let differ = if split_left {
                difference(&mut self.store, &part, whole)
            } else {
                difference(&mut self.store, whole, &part)
            };
            if self.store.as_const(differ) == Some(0) {
                continue;
            }
            self.split_queries += 1;
            let answer = self.solver.check(&mut self.store, &[differ, covered]);
            match (answer, p) {
                (Answer::Unknown(_), Part::Ends(a, b)) if b - a > 1 && !self.stop().reached() => {
                    let mid = a + (b - a) / 2;
                    todo.push(Part::Ends(mid, b));
                    todo.push(Part::Ends(a, mid));
                }
                (answer, _) => {
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
        )
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

/// A group of one side's ends that [`Checker::split`] asks about.
#[derive(Clone, Copy)]
enum Part {
    /// The inputs on which that side fails.
    Errors,
    /// Its ends `a..b`.
    Ends(usize, usize),
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
pub fn difference(store: &mut TermStore, left: &Summary, right: &Summary) -> Term {
    use verdict::{rule, Ending, Rule};
    // Every pair of ways the two programs can end (out of fuel is not in a summary):
    // each with its guard and, for a normal end, its observed terms.
    type Way<'a> = (Ending, Term, Option<&'a [Vec<Term>]>);
    fn ends(s: &Summary) -> Vec<Way<'_>> {
        let mut v: Vec<Way<'_>> = s
            .done
            .iter()
            .map(|(_, e)| (Ending::Done, e.guard, Some(e.observed.as_slice())))
            .collect();
        v.push((Ending::Error, s.error, None));
        v
    }
    let mut any = store.bool(false);
    for (le, lg, lobs) in ends(left) {
        for (re, rg, robs) in ends(right) {
            let differ = match (rule(le, re), &lobs, &robs) {
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
