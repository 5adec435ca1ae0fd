//! Proofs for runs of any length: two functions, each with up to [`MAX_HEADS`] loops,
//! run side by side as one product program, related at its places by an invariant
//! that is checked to be inductive.
//!
//! A place says where each side is ([`At`]): at one of its loop heads, returned (its
//! observed values kept), or, one run after the other, not started yet. Under
//! lockstep, from the entry both sides run to their first head or return; from two
//! heads both take a trip (or one, while the other waits at a head that has no
//! partner); from one head that side runs alone. One run after the other, the left
//! runs to its end while the right waits at its entry, then the right runs. Candidate
//! facts for each place (equalities between the two sides' registers, stack words,
//! inputs and constants; order, linear and product relations) are drawn from
//! concrete runs that follow the same schedule, and pruned Houdini-style: a fact that
//! some trip from a state satisfying the others does not keep is dropped, until
//! every trip keeps every fact left. Then every way both can end (a return or a
//! fault) must end alike, which the solver must confirm.
//!
//! What that proves: for every input, either both run forever in lockstep, or both
//! end alike. When a side that runs on alone may take a trip back to where it was
//! without a measure that decreases, the proof is only partial (equal whenever both
//! end): see [`Outcome::Partial`].
//!
//! Soundness rests on three things, each checked here and not assumed: a state at a
//! head is described by registers, `hi`/`lo` and the words of a closed set of written
//! addresses (any store reached from a head to an address outside the set grows the
//! set and starts again); a trip from a head is explored to its end within the fuel
//! (a trip longer than that, or not covered, is no proof); and a fact is only kept
//! when the solver says no trip breaks it.

use std::collections::{BTreeMap, BTreeSet};

use tamarin_mips::mips32::memory::Memory;
use tamarin_mips::Reg;

mod columns;
mod places;
mod schedule;

use self::columns::{factors, holds, offset_column, small_gap};
use self::places::{
    at_name, both_at_heads, has_cycle, invariant_name, place_slug, place_text, reachable,
};
use self::schedule::{head_visits, in_step, loop_heads, trip_ratio, unpartnered_heads};
use super::explore::{self, Code, End, Function, Limits, Paths, Side, Snapshot};
pub use super::needle::Suspects;
use super::sampler::{self, Sampler, Stepped};
pub use crate::loop_proof::{Certificate, Check, CheckKind, Obligations, Schedule};
use crate::solver::{Answer, IntegerLimits, Solver};
use crate::term::{BinOp, Definition, Evaluator, Formula, Term, TermStore};

/// What the loop proof found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// For every input, both functions run forever or both end alike.
    Proved(Certificate),
    /// Whenever both end, they end alike; but one may run on after the other ended.
    Partial(Certificate),
    /// No proof, and why (for a report's reason).
    Unknown(String),
}

/// Where one side of the product is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum At {
    /// At the loop head of this index (lowest address first).
    Head(u8),
    Returned,
    /// Not started yet: under a schedule of one side after the other, the right
    /// waits at its entry (its state is the inputs) until the left has returned.
    Start,
}

impl At {
    fn is_head(self) -> bool {
        matches!(self, At::Head(_))
    }
}

/// A place of the product: where each side is.
type Place = (At, At);

/// An operand of a fact: a value of the place (by index) or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Operand {
    Value(u16),
    Const(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Rel {
    Eq,
    Slt,
    Sle,
    Ult,
    Ule,
    /// `a = k * b + c`, wrapping.
    Lin,
    /// `a = b * c + k`, wrapping (a sum of a loop-invariant step: `s = i * k + 1`).
    Mul,
    /// `a & 1 = b` for a constant `b`: a counter that steps by two stays even (or odd),
    /// which a loop unrolled by two needs to know that it cannot step over its bound.
    Parity,
    /// `a - b <=u k`: `a` lies at most `k` above `b` (a bound rounded down to even,
    /// `n - (n & ~1) <= 1`), which tells a loop unrolled by two how many trips are left
    /// after its last whole round.
    Within,
    /// `a = b * c + e` in the integers, without wrap-around: an input taken apart by a
    /// loop (`n = q * d + r`, a division by repeated subtraction). Its checks are asked
    /// in integers ([`crate::solver::check_in_integers`]).
    Exact,
    /// `a = b /u c` (`c` never 0 where it holds): a value that one side computed by a
    /// division and the other by a loop. Asked in integers too.
    Quot,
    /// `a = c + k * b * (b - 1) / 2 + d * b`, wrapping, with `b * (b - 1) / 2` taken in
    /// the integers (a degree-2 polynomial fitted to the samples: a sum of `i`, and
    /// its closed form). Asked in integers.
    Tri,
}

/// One candidate fact: `a rel b`, or `a = k * b + c + d` (`Rel::Lin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Fact {
    rel: Rel,
    a: Operand,
    b: Operand,
    /// For `Rel::Lin`: the factor and the addend; for `Rel::Mul`, `k` is the addend.
    k: i32,
    c: Operand,
    /// For `Rel::Lin` with a value `c`: a constant added too (`i = -j + n - 1`, of
    /// two counters that meet in the middle of a trip).
    d: i32,
    /// For `Rel::Exact`: the addend.
    e: Operand,
}

impl Rel {
    /// Whether a fact of this kind holds in the integers (or is a quotient): a query
    /// that uses one is asked, and its certificate check written, in integers.
    fn in_integers(self) -> bool {
        matches!(self, Rel::Exact | Rel::Quot | Rel::Tri)
    }
}

impl Fact {
    fn cmp(rel: Rel, a: Operand, b: Operand) -> Fact {
        Fact {
            rel,
            a,
            b,
            k: 0,
            c: Operand::Const(0),
            d: 0,
            e: Operand::Const(0),
        }
    }
}

/// How many of the probes are run to draw candidate facts.
const SAMPLE_PROBES: usize = 48;
/// Most instructions of one sampling run.
const SAMPLE_FUEL: u64 = 20_000;
/// Most samples kept per place.
const MAX_SAMPLES: usize = 4_000;
/// Most samples one probe gives a place (its first visits): so that one long run
/// cannot fill a place with states that share a loop-invariant value by chance.
const SAMPLES_PER_PROBE: usize = 64;
/// Most times the set of written words may grow before giving up.
const MAX_RESTARTS: u32 = 6;
/// Most work one query of the proof may take, in Z3's resource units (about four
/// seconds): a count, so that a proof comes out the same on any load.
const QUERY_WORK: u32 = 8_000_000;
/// Most time one query of the proof may take: a safety net behind [`QUERY_WORK`], and
/// the limit of a solver that does not count its work.
const QUERY_TIME: std::time::Duration = std::time::Duration::from_secs(10);
/// The widest gap of a [`Rel::Within`] fact.
const MAX_GAP: u32 = 3;
/// Most measures tried for a side that runs alone.
const MAX_MEASURES: usize = 400;
/// Most rounds of pruning.
const MAX_ROUNDS: u32 = 64;

/// The registers a head state is described by: `$1`..`$31`, then `hi` and `lo`.
const REG_LOCATIONS: usize = 33;
/// Most loops a side (loops one after the other, or nested, synchronised at their
/// heads).
const MAX_HEADS: usize = 4;

/// Tries to prove `left` and `right` alike for runs of any length.
///
/// `args` are the inputs' terms (`$a0`..), `probes` argument vectors that satisfy the
/// preconditions, `observe` the registers compared at a return; `solver` must hold
/// the preconditions as its domain. With `certify`, a proof's certificate carries its
/// [`Obligations`] (otherwise none, which costs nothing). Each query whose model is
/// a state from which a trip breaks a fact is kept in `suspects`: where no proof is
/// found, they are where to look for a difference after many trips
/// ([`super::needle`]).
#[allow(clippy::too_many_arguments)]
pub fn prove(
    s: &mut TermStore,
    solver: &mut dyn Solver,
    left: Side<'_>,
    right: Side<'_>,
    args: &[Term],
    probes: &[Vec<u32>],
    observe: &[Reg],
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    certify: bool,
    suspects: &mut Suspects,
) -> Outcome {
    let sides = [left, right];
    let mut heads: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
    for (k, side) in sides.iter().enumerate() {
        let found = loop_heads(*side, probes);
        if found.len() > MAX_HEADS {
            return Outcome::Unknown(format!(
                "the {} function has {} loops; at most {MAX_HEADS} a side are supported",
                ["left", "right"][k],
                found.len()
            ));
        }
        heads[k] = found;
    }
    if heads.iter().all(Vec::is_empty) {
        return Outcome::Unknown("no loop was found on the probes".into());
    }
    // Where one side goes round twice as often as the other on the probes (a loop
    // unrolled by two), two of its trips against one of the other first (lockstep
    // would then leave one side running alone for half of its trips); then lockstep.
    // Both sides' visits of their heads on the probes: they pair heads, and show a
    // loop unrolled by two. With no loop on one side, there is nothing to pair.
    let visits = if heads.iter().any(Vec::is_empty) {
        Vec::new()
    } else {
        head_visits(sides, &heads, probes)
    };
    let ratio = match (heads[0].len(), heads[1].len()) {
        (1, 1) => trip_ratio(&visits),
        _ => [1, 1],
    };
    let waits = unpartnered_heads(&heads, &visits);
    // One try with `legs` trips of each side's loop a step of the product, or with
    // one side after the other.
    let mut scheduled = |legs: [u32; 2], schedule: Schedule| -> Outcome {
        let mut words: [BTreeSet<u32>; 2] = [BTreeSet::new(), BTreeSet::new()];
        for _ in 0..=MAX_RESTARTS {
            let mut p = Prover {
                s: &mut *s,
                solver: &mut *solver,
                sides,
                heads: heads.clone(),
                waits: waits.clone(),
                words: words.clone(),
                legs,
                schedule,
                args,
                observe,
                limits,
                stop,
                certify,
                suspects: &mut *suspects,
                facts: BTreeMap::new(),
                fresh: BTreeMap::new(),
                grown: false,
                drop_undecided: false,
                deferred: false,
                undecided: BTreeSet::new(),
                exact_terms: Default::default(),
                memories: sides.map(|f| match f.code {
                    Code::Mips32(image) => Some(Memory::new(image)),
                    Code::Cs241(_) => None,
                }),
                machines: sides.map(|f| Sampler::new(f.code, SAMPLE_FUEL)),
            };
            match p.run(probes) {
                Run::Done(outcome) => return outcome,
                Run::Grown => words = p.words,
            }
        }
        Outcome::Unknown("the loops write ever more memory".into())
    };
    let mut first: Option<Outcome> = None;
    let lockstep = Schedule::Lockstep;
    let mut schedules = if ratio == [1, 1] {
        vec![([1, 1], lockstep)]
    } else {
        vec![(ratio, lockstep), ([1, 1], lockstep)]
    };
    // Loops that meet in no fixed ratio (one by ones against one by eights and one
    // for the rest): the left to its end first, each side's facts tied to the inputs
    // and then to what the left returned. Only where both sides loop: with no loop
    // on one side, lockstep already runs the other alone. Where no two heads go round
    // about as often on the probes, only this: lockstep would leave one side running
    // alone for most of its trips after the other returned, which needs the same
    // facts of the inputs, and would spend the time failing first.
    if heads.iter().all(|h| !h.is_empty()) {
        let one_after_the_other = ([1, 1], Schedule::OneAfterTheOther);
        if in_step(&heads, &visits) {
            schedules.push(one_after_the_other);
        } else {
            schedules = vec![one_after_the_other];
        }
    }
    for (legs, schedule) in schedules {
        let outcome = scheduled(legs, schedule);
        if matches!(outcome, Outcome::Proved(_)) || stop() {
            return outcome;
        }
        // A partial proof says more than none.
        if first.is_none() || matches!(outcome, Outcome::Partial(_)) {
            first = Some(outcome);
        }
    }
    let outcome = first.unwrap_or_else(|| Outcome::Unknown("no schedule was tried".into()));
    // Where "equal whenever both end" was proved, no input shows a difference: no
    // broken fact is worth searching from.
    if matches!(outcome, Outcome::Partial(_)) {
        suspects.clear();
    }
    outcome
}

enum Run {
    Done(Outcome),
    /// A head state wrote a word outside the set: start again with the larger set.
    Grown,
}

struct Prover<'a, 'f> {
    s: &'a mut TermStore,
    solver: &'a mut dyn Solver,
    sides: [Side<'f>; 2],
    /// Per side, its loop heads, lowest address first (`At::Head(i)` is the i-th).
    heads: [Vec<u32>; 2],
    /// Per side and head, whether the head has no partner on the other side (see
    /// [`unpartnered_heads`]): at such a head a side goes on alone while the other,
    /// at a head with a partner, waits.
    waits: [Vec<bool>; 2],
    /// Per side, the aligned words that describe a state at its head.
    words: [BTreeSet<u32>; 2],
    /// Per side, the trips of its loop in one step of the product from both heads
    /// (1 and 1 in lockstep; 2 and 1 against a loop unrolled by two).
    legs: [u32; 2],
    /// How the two runs go side by side: in lockstep, or one after the other (the
    /// left runs to its end while the right waits at its entry, [`At::Start`]).
    schedule: Schedule,
    args: &'a [Term],
    observe: &'a [Reg],
    limits: &'a Limits,
    stop: &'a dyn Fn() -> bool,
    /// Whether to record the obligations of a proof.
    certify: bool,
    /// Queries whose models broke a fact, or made an ending differ.
    suspects: &'a mut Suspects,
    /// The facts still believed at each place reached.
    facts: BTreeMap<Place, BTreeSet<Fact>>,
    /// The fresh input standing for each value of each place.
    fresh: BTreeMap<(Place, u16), Term>,
    grown: bool,
    /// Whether a fact that the solver cannot settle is dropped (else the query is
    /// deferred to a later round, see [`Prover::deferred`]).
    drop_undecided: bool,
    /// Whether a query of this round was left undecided and deferred: the round
    /// proves nothing, however little it changed.
    deferred: bool,
    /// Queries the solver left undecided: asked again (the same terms, so the same
    /// question), the answer would only cost the same time again.
    undecided: BTreeSet<Vec<Term>>,
    /// The terms of [`Rel::Exact`] facts: a query that uses one is asked in integers
    /// first.
    exact_terms: rustc_hash::FxHashSet<Term>,
    /// Per side, a MIPS32 image's memory as a run starts (for the words a state did
    /// not write; a CS241 program's words are its own) and a machine for the sampling
    /// runs: made once, not per use.
    memories: [Option<Memory>; 2],
    machines: [Sampler; 2],
}

/// Where one side's trip ended.
enum SideEnd {
    Head(Box<Snapshot>),
    /// A side that has not started (and did not in this step).
    Start,
    Returned(Vec<Term>),
    Fault(tamarin_mips::mips32::cpu::FaultKind),
}

/// One way a step of the product can go: its guard and where it leads.
struct Step {
    guard: Term,
    to: Target,
}

enum Target {
    Place(Place, Vec<Term>),
    /// Both ended: they must end alike where the guard holds.
    Ends(Term),
}

impl Prover<'_, '_> {
    fn run(&mut self, probes: &[Vec<u32>]) -> Run {
        let samples = self.samples(probes);
        let mut rounds = 0;
        loop {
            rounds += 1;
            if rounds > MAX_ROUNDS {
                return Run::Done(Outcome::Unknown("the invariant did not settle".into()));
            }
            if (self.stop)() {
                return Run::Done(Outcome::Unknown("time".into()));
            }
            let mut changed = false;
            self.deferred = false;
            let mut ends: Vec<(Option<Place>, Term, Term)> = Vec::new();
            // Per place where one side runs alone: its start and the trips back to it.
            let mut lone: Vec<LoneTrips> = Vec::new();
            // Trips from one such place to another (a side alone going from one of
            // its loops to the next).
            let mut lone_moves: BTreeSet<(Place, Place)> = BTreeSet::new();
            // Every trip of the round, feasible or not: the obligations of consecution.
            let mut trips: Vec<Trip> = Vec::new();
            // Each trip the solver did not rule out: from where to where.
            let mut arrows: BTreeSet<(Option<Place>, Place)> = BTreeSet::new();
            let mut sources: Vec<Option<Place>> = vec![None];
            sources.extend(self.facts.keys().map(|&p| Some(p)));
            for from in sources {
                let (pre, steps) = match self.steps_from(from) {
                    Ok(steps) => steps,
                    Err(why) => return Run::Done(Outcome::Unknown(why)),
                };
                let alone = from.filter(|&p| self.movers(Some(p)) != [true, true]);
                if let Some(place) = alone {
                    lone.push((place, pre.clone(), Vec::new()));
                }
                if self.grown {
                    return Run::Grown;
                }
                for step in steps {
                    match step.to {
                        Target::Ends(differ) => ends.push((from, step.guard, differ)),
                        Target::Place(place, values) => {
                            if self.certify {
                                trips.push(Trip {
                                    from,
                                    pre: pre.clone(),
                                    guard: step.guard,
                                    to: place,
                                    post: values.clone(),
                                });
                            }
                            // A trip the solver cannot rule out is taken as possible:
                            // its facts are then kept only where it keeps them.
                            if self.feasible(&[step.guard]) == Some(false) {
                                continue;
                            }
                            arrows.insert((from, place));
                            if alone == Some(place) {
                                if let Some((_, _, again)) = lone.last_mut() {
                                    again.push((step.guard, values.clone()));
                                }
                            } else if let Some(from) = alone {
                                lone_moves.insert((from, place));
                            }
                            if !self.facts.contains_key(&place) {
                                let initial = self.initial_facts(place, &samples, &values);
                                self.facts.insert(place, initial);
                                changed = true;
                            }
                            match self.prune(place, step.guard, &values) {
                                Ok(dropped) => changed |= dropped,
                                Err(why) => return Run::Done(Outcome::Unknown(why)),
                            }
                        }
                    }
                }
            }
            // An undecided query drops its facts only once the decided ones settled:
            // facts that the others' pruning will make easy to keep are not lost.
            if changed || self.deferred {
                self.drop_undecided = !changed;
                continue;
            }
            // A place that an earlier round reached (with a trip the solver could not
            // rule out then) may be out of reach with the final facts: no run gets
            // there, and how it would end does not matter.
            let reached = reachable(&arrows);
            let live = |p: &Option<Place>| p.is_none_or(|p| reached.contains(&p));
            self.facts.retain(|p, _| reached.contains(p));
            ends.retain(|(from, _, _)| live(from));
            trips.retain(|t| live(&t.from));
            lone.retain(|(p, _, _)| reached.contains(p));
            lone_moves.retain(|(p, _)| reached.contains(p));
            // The facts are inductive: every way to end must end alike.
            for (_, guard, differ) in &ends {
                match self.ask(&[*guard, *differ]) {
                    Answer::Unsat => {}
                    Answer::Sat(_) => {
                        self.suspects.record("an ending", &[*guard, *differ]);
                        return Run::Done(Outcome::Unknown(
                            "the invariant found does not make the endings alike".into(),
                        ));
                    }
                    Answer::Unknown(why) => {
                        return Run::Done(Outcome::Unknown(format!(
                            "the solver could not decide an ending: {why}"
                        )))
                    }
                }
            }
            let measures = self.lone_trips_end(&lone, &lone_moves);
            let mut certificate = self.certificate(rounds);
            if self.certify {
                certificate.obligations = self.obligations(&trips, &ends, measures.as_deref());
            }
            return Run::Done(if measures.is_some() {
                Outcome::Proved(certificate)
            } else {
                Outcome::Partial(certificate)
            });
        }
    }

    /// Whether a side running alone always ends: for each place where one side has
    /// returned, every trip that leads back there (`lone`, from the last round of
    /// pruning, whose facts are the final ones) decreases one measure (a value, or
    /// the difference of two, read as unsigned: it cannot decrease forever). Then
    /// every run of the product that does not end is one where both loop on together.
    /// With several loops, a side alone must also never come back to a place it left
    /// (`moves` between places has no cycle): it then stays at each place for finitely
    /// many trips, and visits each at most once. The measure of each place with trips
    /// back to itself, or `None`.
    fn lone_trips_end(
        &mut self,
        lone: &[LoneTrips],
        moves: &BTreeSet<(Place, Place)>,
    ) -> Option<Vec<(Place, Measure)>> {
        #[cfg(test)]
        if planted::has(planted::LONE_TRIPS_END) {
            return Some(Vec::new());
        }
        #[allow(unused_mut)]
        let mut cycles = has_cycle(moves);
        #[cfg(test)]
        if planted::has(planted::LONE_CYCLES) {
            cycles = false;
        }
        if cycles {
            return None;
        }
        let mut out = Vec::new();
        for (place, pre, again) in lone {
            if !again.is_empty() {
                out.push((*place, self.decreases(pre, again)?));
            }
        }
        Some(out)
    }

    /// Some measure over the values of a place that decreases (unsigned) on every
    /// trip of `again` (its guard and the values after it) from `pre`.
    fn decreases(&mut self, pre: &[Term], again: &[(Term, Vec<Term>)]) -> Option<Measure> {
        let n = pre.len();
        // The values a trip changes, and every value (a bound may be an input).
        let moving: Vec<usize> = (0..n)
            .filter(|&i| again.iter().any(|(_, post)| post.get(i) != pre.get(i)))
            .collect();
        // A value alone first (a counter down to zero), then differences (a counter
        // up to a bound): each try is a query per trip.
        let mut measures: Vec<Measure> = moving.iter().map(|&i| (i, None)).collect();
        for &i in &moving {
            for j in 0..n {
                if j != i {
                    measures.push((j, Some(i)));
                    measures.push((i, Some(j)));
                }
            }
        }
        for (tried, m) in measures.into_iter().enumerate() {
            if tried >= MAX_MEASURES || (self.stop)() {
                return None;
            }
            let all = again.iter().all(|(guard, post)| {
                let not_down = not_decreased(self.s, m, pre, post);
                self.feasible(&[*guard, not_down]) == Some(false)
            });
            if all {
                return Some(m);
            }
        }
        None
    }

    /// One query of the proof, within [`QUERY_WORK`]: a fact the solver cannot settle
    /// quickly is better dropped than waited for.
    fn ask(&mut self, q: &[Term]) -> Answer {
        if self.undecided.contains(q) {
            return Answer::Unknown("undecided before".into());
        }
        // A fact without wrap-around is an equation in the integers, which bit-blasting
        // cannot settle: such queries go to integers first. Their `unsat` is the
        // machine's; a model is kept only where the machine's terms agree with it.
        // Bit-blasting the 64-bit product of such a fact settles nothing that the
        // integers left open, so the answer in integers is the answer (a model that
        // the machine's terms do not satisfy is unknown, and the fact is dropped).
        if !self.exact_terms.is_empty() && !(self.stop)() && self.uses_exact(q) {
            let limits = IntegerLimits::new(QUERY_WORK, QUERY_TIME);
            let mut a = self.solver.check_in_integers(self.s, q, limits);
            // Over a degree-2 fact, again with the products opaque: the evenness of
            // `n (n - 1)` is beyond Z3 in integers, and bit-level there. Only an
            // `unsat` is taken; the integers' answer stands otherwise.
            if matches!(a, Answer::Unknown(_)) && !(self.stop)() {
                if let Answer::Unsat = self.solver.check_opaque(self.s, q, limits) {
                    a = Answer::Unsat;
                }
            }
            if matches!(a, Answer::Unknown(_)) {
                self.undecided.insert(q.to_vec());
            }
            return a;
        }
        self.solver.limit_work(QUERY_WORK);
        self.solver.limit_time(QUERY_TIME);
        let a = self.solver.check(self.s, q);
        if matches!(a, Answer::Unknown(_)) {
            self.undecided.insert(q.to_vec());
        }
        a
    }

    /// Whether `q` uses the term of a [`Rel::Exact`] fact.
    fn uses_exact(&self, q: &[Term]) -> bool {
        self.s
            .reachable(q)
            .iter()
            .any(|t| self.exact_terms.contains(t))
    }

    fn feasible(&mut self, q: &[Term]) -> Option<bool> {
        if q.iter().any(|&t| self.s.as_const(t) == Some(0)) {
            return Some(false);
        }
        match self.ask(q) {
            Answer::Sat(_) => Some(true),
            Answer::Unsat => Some(false),
            Answer::Unknown(_) => None,
        }
    }

    /// Drops from `place` every fact that some state reached by `guard` with
    /// `values` breaks. Whether any was dropped.
    fn prune(&mut self, place: Place, guard: Term, values: &[Term]) -> Result<bool, String> {
        #[cfg(test)]
        if planted::has(planted::NO_PRUNING) {
            return Ok(false);
        }
        let mut dropped = false;
        loop {
            let facts: Vec<Fact> = self.facts[&place].iter().copied().collect();
            let bad = self.broken_facts(guard, values, &facts)?;
            if bad.is_empty() {
                return Ok(dropped);
            }
            let set = self.facts.get_mut(&place).ok_or("a place vanished")?;
            for f in bad {
                set.remove(&f);
            }
            dropped = true;
        }
    }

    /// Facts among `facts` that the trip `guard` (to a state with `values`) may break:
    /// those a model of one broken shows broken, or none when the solver says no
    /// trip breaks any. Where it cannot tell about a set, the question waits for a
    /// later round while other facts are still being dropped ([`Prover::deferred`]);
    /// after that each half is asked in turn (no trip breaks a set exactly when none
    /// breaks either half), and a single fact it cannot tell about counts as broken:
    /// dropping a candidate only weakens the invariant, which the next round checks
    /// again.
    fn broken_facts(
        &mut self,
        guard: Term,
        values: &[Term],
        facts: &[Fact],
    ) -> Result<Vec<Fact>, String> {
        if facts.is_empty() {
            return Ok(Vec::new());
        }
        let terms: Vec<Term> = facts.iter().map(|f| self.fact_term(f, values)).collect();
        let all = self.s.and_all(terms.iter().copied());
        let broken = self.s.not(all);
        if self.s.as_const(broken) == Some(0) {
            return Ok(Vec::new());
        }
        match self.ask(&[guard, broken]) {
            Answer::Unsat => Ok(Vec::new()),
            Answer::Sat(model) => {
                let mut e = Evaluator::new(self.s, &model.values);
                let bad: Vec<Fact> = facts
                    .iter()
                    .zip(&terms)
                    .filter(|(_, &t)| !e.holds(t))
                    .map(|(f, _)| *f)
                    .collect();
                self.suspects.record(&bad, &[guard, broken]);
                if bad.is_empty() {
                    return Err("a model of a broken fact broke none".into());
                }
                Ok(bad)
            }
            Answer::Unknown(_) if !self.drop_undecided => {
                self.deferred = true;
                Ok(Vec::new())
            }
            Answer::Unknown(_) if facts.len() == 1 || (self.stop)() => Ok(facts.to_vec()),
            Answer::Unknown(_) => {
                let (first, second) = facts.split_at(facts.len() / 2);
                let bad = self.broken_facts(guard, values, first)?;
                if !bad.is_empty() {
                    return Ok(bad);
                }
                self.broken_facts(guard, values, second)
            }
        }
    }

    fn operand(&mut self, o: Operand, values: &[Term]) -> Term {
        match o {
            Operand::Value(i) => values
                .get(i as usize)
                .copied()
                .unwrap_or_else(|| self.s.word(0)),
            Operand::Const(c) => self.s.word(c),
        }
    }

    fn fact_term(&mut self, f: &Fact, values: &[Term]) -> Term {
        let t = self.fact_term_of(f, values);
        if f.rel.in_integers() {
            self.exact_terms.insert(t);
        }
        t
    }

    fn fact_term_of(&mut self, f: &Fact, values: &[Term]) -> Term {
        let a = self.operand(f.a, values);
        let b = self.operand(f.b, values);
        match f.rel {
            Rel::Eq => self.s.eq(a, b),
            Rel::Slt => self.s.bin(BinOp::Slt, a, b),
            Rel::Ult => self.s.bin(BinOp::Ult, a, b),
            Rel::Sle => {
                let gt = self.s.bin(BinOp::Slt, b, a);
                self.s.not(gt)
            }
            Rel::Ule => {
                let gt = self.s.bin(BinOp::Ult, b, a);
                self.s.not(gt)
            }
            Rel::Mul => {
                let c = self.operand(f.c, values);
                let bc = self.s.bin(BinOp::Mul, b, c);
                let k = self.s.word(f.k as u32);
                let sum = self.s.bin(BinOp::Add, bc, k);
                self.s.eq(a, sum)
            }
            Rel::Lin => {
                let k = self.s.word(f.k as u32);
                let c = self.operand(f.c, values);
                let kb = self.s.bin(BinOp::Mul, k, b);
                let mut sum = self.s.bin(BinOp::Add, kb, c);
                if f.d != 0 {
                    let d = self.s.word(f.d as u32);
                    sum = self.s.bin(BinOp::Add, sum, d);
                }
                self.s.eq(a, sum)
            }
            Rel::Within => {
                let diff = self.s.bin(BinOp::Sub, a, b);
                let k = self.s.word(f.k as u32);
                let above = self.s.bin(BinOp::Ult, k, diff);
                self.s.not(above)
            }
            Rel::Parity => {
                let one = self.s.word(1);
                let low = self.s.bin(BinOp::BvAnd, a, one);
                self.s.eq(low, b)
            }
            Rel::Exact => {
                // In 64 bits a product of two 32-bit values plus a third cannot wrap
                // around: this is the equation in the integers.
                let [a, b, c, e] = [a, b, self.operand(f.c, values), self.operand(f.e, values)]
                    .map(|t| self.s.zero_ext(32, t));
                let bc = self.s.bin(BinOp::Mul, b, c);
                let sum = self.s.bin(BinOp::Add, bc, e);
                self.s.eq(a, sum)
            }
            Rel::Tri => {
                // `b * (b - 1) / 2` in 64 bits (the product cannot wrap there, and is
                // even), then cut to 32: the triangular number, wrapping as the sum of a
                // loop does.
                let c = self.operand(f.c, values);
                let product = crate::term::products::triangle_in_64_bits(self.s, b);
                let one = self.s.constant(64, 1);
                let half = self.s.bin(BinOp::LShr, product, one);
                let tri = self.s.extract(31, 0, half);
                let k = self.s.word(f.k as u32);
                let d = self.s.word(f.d as u32);
                let ktri = self.s.bin(BinOp::Mul, k, tri);
                let db = self.s.bin(BinOp::Mul, d, b);
                let sum = self.s.bin(BinOp::Add, c, ktri);
                let sum = self.s.bin(BinOp::Add, sum, db);
                self.s.eq(a, sum)
            }
            Rel::Quot => {
                let c = self.operand(f.c, values);
                let zero = self.s.word(0);
                let nonzero = self.s.eq(c, zero);
                let nonzero = self.s.not(nonzero);
                let q = self.s.bin(BinOp::UDiv, b, c);
                let same = self.s.eq(a, q);
                self.s.and(nonzero, same)
            }
        }
    }

    /// How many values a side contributes at a place.
    fn width(&self, side: usize, at: At) -> usize {
        match at {
            At::Head(_) => REG_LOCATIONS + self.words[side].len(),
            At::Returned => self.observe.len(),
            At::Start => 0,
        }
    }

    /// Which side (0 left, 1 right, 2 inputs) value `i` of `place` belongs to.
    fn owner(&self, place: Place, i: usize) -> usize {
        let n = self.args.len();
        let l = self.width(0, place.0);
        if i < n {
            2
        } else if i < n + l {
            0
        } else {
            1
        }
    }

    /// The facts to start from at `place`: those that hold on every sample of it, or,
    /// with no samples, the equalities `values` (the first state seen there) shows.
    fn initial_facts(
        &mut self,
        place: Place,
        samples: &Samples,
        values: &[Term],
    ) -> BTreeSet<Fact> {
        let n = values.len();
        let rows: Vec<Vec<u32>> = samples
            .get(&place)
            .map(|rows| rows.iter().filter(|r| r.len() == n).cloned().collect())
            .unwrap_or_default();
        let rows = rows.as_slice();
        let mut facts = BTreeSet::new();
        let inputs = self.args.len();
        if rows.is_empty() {
            for i in 0..n {
                if let Some(c) = self.s.as_const(values[i]) {
                    if i >= inputs {
                        facts.insert(Fact::cmp(
                            Rel::Eq,
                            Operand::Value(i as u16),
                            Operand::Const(c as u32),
                        ));
                    }
                    continue;
                }
                for j in i + 1..n {
                    if values[i] == values[j] && j >= inputs {
                        facts.insert(Fact::cmp(
                            Rel::Eq,
                            Operand::Value(i as u16),
                            Operand::Value(j as u16),
                        ));
                    }
                }
            }
            return facts;
        }
        let constant: Vec<Option<u32>> = (0..n)
            .map(|i| {
                let c = rows[0][i];
                rows.iter().all(|r| r[i] == c).then_some(c)
            })
            .collect();
        for (i, c) in constant.iter().enumerate().skip(inputs) {
            if let Some(c) = *c {
                facts.insert(Fact::cmp(
                    Rel::Eq,
                    Operand::Value(i as u16),
                    Operand::Const(c),
                ));
            }
        }
        // A value constant in every sample may still vary: its equality with the
        // same location of the other side is a candidate too (weaker than both
        // constants, so it can outlive them).
        if both_at_heads(place) {
            let l = self.width(0, place.0);
            for k in 0..REG_LOCATIONS {
                let (i, j) = (inputs + k, inputs + l + k);
                if j < n
                    && (constant[i].is_some() || constant[j].is_some())
                    && rows.iter().all(|r| r[i] == r[j])
                {
                    facts.insert(Fact::cmp(
                        Rel::Eq,
                        Operand::Value(i as u16),
                        Operand::Value(j as u16),
                    ));
                }
            }
        }
        let varying: Vec<usize> = (0..n).filter(|&i| constant[i].is_none()).collect();
        // A small bound read off the samples is a candidate only where a side goes
        // round its loop more than once a step of the product (elsewhere it would only
        // cost queries). Parity and small gaps are candidates everywhere: a loop
        // unrolled by two against itself at another level runs in lockstep.
        let only_steps_by_two = self.legs != [1, 1];
        let alone = self.movers(Some(place)) != [true, true];
        let waiting = both_at_heads(place) && alone;
        for (x, &i) in varying.iter().enumerate() {
            for &j in &varying[x + 1..] {
                if j < inputs {
                    continue;
                }
                let (oi, oj) = (self.owner(place, i), self.owner(place, j));
                if rows.iter().all(|r| r[i] == r[j]) {
                    facts.insert(Fact::cmp(
                        Rel::Eq,
                        Operand::Value(i as u16),
                        Operand::Value(j as u16),
                    ));
                    continue;
                }
                // Order only against an input or a value of the same side.
                if oi != 2 && oi != oj {
                    continue;
                }
                for (a, b) in [(i, j), (j, i)] {
                    for rel in [Rel::Slt, Rel::Sle, Rel::Ult, Rel::Ule] {
                        if rows.iter().all(|r| holds(rel, r[a], r[b])) {
                            facts.insert(Fact::cmp(
                                rel,
                                Operand::Value(a as u16),
                                Operand::Value(b as u16),
                            ));
                        }
                    }
                    if let Some(k) = small_gap(rows, a, b) {
                        facts.insert(Fact {
                            k,
                            ..Fact::cmp(
                                Rel::Within,
                                Operand::Value(a as u16),
                                Operand::Value(b as u16),
                            )
                        });
                    }
                }
            }
            // A small bound from the samples (a remainder, a flag): what a side's last
            // trips depend on when it goes round more than once a step.
            if i >= inputs && only_steps_by_two {
                let most = rows.iter().map(|r| r[i]).max().unwrap_or(0);
                if most < 256 {
                    facts.insert(Fact::cmp(
                        Rel::Ule,
                        Operand::Value(i as u16),
                        Operand::Const(most),
                    ));
                }
            }
            // A small least value where a side runs alone: a counter that steps down
            // by eight is at least eight at the head of its loop, which its measure
            // needs (else the step could wrap).
            if i >= inputs && alone {
                let least = rows.iter().map(|r| r[i]).min().unwrap_or(0);
                if (1..=256).contains(&least) {
                    facts.insert(Fact::cmp(
                        Rel::Ule,
                        Operand::Const(least),
                        Operand::Value(i as u16),
                    ));
                }
            }
            if i >= inputs {
                let low = rows[0][i] & 1;
                if rows.iter().all(|r| r[i] & 1 == low) {
                    facts.insert(Fact::cmp(
                        Rel::Parity,
                        Operand::Value(i as u16),
                        Operand::Const(low),
                    ));
                }
            }
            // Not zero (an input too), where one side waits at a head for the other:
            // that the waiting side's loop was entered says that a bound is not
            // zero, and so that the other side enters its inner loop too.
            if waiting && rows.iter().all(|r| r[i] != 0) {
                facts.insert(Fact::cmp(
                    Rel::Ult,
                    Operand::Const(0),
                    Operand::Value(i as u16),
                ));
            }
            if i >= inputs {
                for rel in [Rel::Slt, Rel::Sle] {
                    if rows.iter().all(|r| holds(rel, 0, r[i])) {
                        facts.insert(Fact::cmp(rel, Operand::Const(0), Operand::Value(i as u16)));
                    }
                    if rows.iter().all(|r| holds(rel, r[i], 0)) {
                        facts.insert(Fact::cmp(rel, Operand::Value(i as u16), Operand::Const(0)));
                    }
                }
            }
        }
        self.linear_facts(place, rows, &varying, &mut facts);
        self.product_facts(rows, &varying, &mut facts);
        if alone {
            self.exact_facts(rows, &varying, &mut facts);
            self.triangular_facts(rows, &varying, &mut facts);
        }
        facts
    }

    /// `n = y * z + w` in the integers (no wrap-around on any sample), for an input
    /// `n` and values `y`, `w` of a side and `z` any value, where some sample has both
    /// factors above 1: an input that a side running alone takes apart (a quotient
    /// and a remainder by repeated subtraction); and `y = n /u z`, a quotient that a
    /// side returned. Values equal on every sample count once.
    fn triangular_facts(&self, rows: &[Vec<u32>], varying: &[usize], facts: &mut BTreeSet<Fact>) {
        let inputs = self.args.len();
        let tri = |b: u32| ((u64::from(b) * u64::from(b).wrapping_sub(1)) / 2) as u32;
        let column = |i: usize| rows.iter().map(|r| r[i]).collect::<Vec<u32>>();
        let distinct = distinct_columns(rows, varying);
        for &a in distinct.iter().filter(|&&a| a >= inputs) {
            for &b in distinct.iter().filter(|&&b| b != a) {
                // Only where `b` shows a square's growth: three values above 2.
                if rows.iter().filter(|r| r[b] > 2).count() < 3 {
                    continue;
                }
                'fit: for k in [1i32, 2, 3, 4, -1, -2] {
                    for d in -2i32..=2 {
                        let residual: Vec<u32> = rows
                            .iter()
                            .map(|r| {
                                r[a].wrapping_sub((k as u32).wrapping_mul(tri(r[b])))
                                    .wrapping_sub((d as u32).wrapping_mul(r[b]))
                            })
                            .collect();
                        let c = if residual.iter().all(|&v| v == residual[0]) {
                            Operand::Const(residual[0])
                        } else if let Some(&c) = distinct
                            .iter()
                            .find(|&&c| c < inputs && column(c) == residual)
                        {
                            Operand::Value(c as u16)
                        } else {
                            continue;
                        };
                        facts.insert(Fact {
                            k,
                            c,
                            d,
                            ..Fact::cmp(
                                Rel::Tri,
                                Operand::Value(a as u16),
                                Operand::Value(b as u16),
                            )
                        });
                        break 'fit;
                    }
                }
            }
        }
    }

    fn exact_facts(&self, rows: &[Vec<u32>], varying: &[usize], facts: &mut BTreeSet<Fact>) {
        let inputs = self.args.len();
        let distinct = distinct_columns(rows, varying);
        let exact = |r: &Vec<u32>, n: usize, y: usize, z: usize, w: usize| {
            u64::from(r[y]) * u64::from(r[z]) + u64::from(r[w]) == u64::from(r[n])
        };
        for &n in distinct.iter().filter(|&&n| n < inputs) {
            for &y in distinct.iter().filter(|&&y| y >= inputs) {
                for &z in distinct.iter().filter(|&&z| z != y && z != n) {
                    if !rows.iter().any(|r| r[y] > 1 && r[z] > 1) {
                        continue;
                    }
                    if rows.iter().all(|r| r[z] != 0 && r[y] == r[n] / r[z]) {
                        facts.insert(Fact {
                            c: Operand::Value(z as u16),
                            ..Fact::cmp(
                                Rel::Quot,
                                Operand::Value(y as u16),
                                Operand::Value(n as u16),
                            )
                        });
                    }
                    for &w in distinct
                        .iter()
                        .filter(|&&w| w >= inputs && w != y && w != z)
                    {
                        if rows.iter().all(|r| exact(r, n, y, z, w)) {
                            facts.insert(Fact {
                                c: Operand::Value(z as u16),
                                e: Operand::Value(w as u16),
                                ..Fact::cmp(
                                    Rel::Exact,
                                    Operand::Value(n as u16),
                                    Operand::Value(y as u16),
                                )
                            });
                        }
                    }
                }
            }
        }
    }

    /// `x = y * z + c` for varying values and a constant `c`, where every sample
    /// agrees and some sample has neither factor 0 or 1 (a sum of a fixed step:
    /// `s = i * k`, `n * k + 1`).
    fn product_facts(&self, rows: &[Vec<u32>], varying: &[usize], facts: &mut BTreeSet<Fact>) {
        let inputs = self.args.len();
        for &x in varying {
            if x < inputs {
                continue;
            }
            for (p, &y) in varying.iter().enumerate() {
                for &z in &varying[p..] {
                    if y == x || z == x {
                        continue;
                    }
                    let telling = rows.iter().any(|r| r[y] > 1 && r[z] > 1);
                    let Some(first) = rows.first() else { continue };
                    let addend = first[x].wrapping_sub(first[y].wrapping_mul(first[z]));
                    let fits = rows
                        .iter()
                        .all(|r| r[x] == r[y].wrapping_mul(r[z]).wrapping_add(addend));
                    if telling && fits {
                        facts.insert(Fact {
                            rel: Rel::Mul,
                            a: Operand::Value(x as u16),
                            b: Operand::Value(y as u16),
                            k: addend as i32,
                            c: Operand::Value(z as u16),
                            d: 0,
                            e: Operand::Const(0),
                        });
                    }
                }
            }
        }
    }

    /// `x = k * y + z` for varying values `x` (not an input) and `y`, a small factor
    /// `k` read off two samples, and `z` a constant or another value, where every
    /// sample agrees (strength-reduced counters: `j = 5 * i + c`).
    fn linear_facts(
        &self,
        _place: Place,
        rows: &[Vec<u32>],
        varying: &[usize],
        facts: &mut BTreeSet<Fact>,
    ) {
        let inputs = self.args.len();
        let mut by_column: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
        for &i in varying {
            let column: Vec<u32> = rows.iter().map(|r| r[i]).collect();
            by_column.entry(column).or_insert(i);
        }
        // Values equal on every sample are one value here (their equality is a fact
        // of its own): only the first of each stands in a linear fact.
        let first_of_its_kind = |i: usize| {
            let column: Vec<u32> = rows.iter().map(|r| r[i]).collect();
            by_column.get(&column) == Some(&i)
        };
        // A sum's addend is often an input (`s = 9 * s + b`): samples of different
        // runs tell the factor once the input's step is taken out.
        let addends: Vec<usize> = varying.iter().copied().filter(|&i| i < inputs).collect();
        for &x in varying {
            if x < inputs || !first_of_its_kind(x) {
                continue;
            }
            for &y in varying {
                if y == x || !first_of_its_kind(y) {
                    continue;
                }
                for k in factors(rows, x, y, &addends) {
                    let residual: Vec<u32> = rows
                        .iter()
                        .map(|r| r[x].wrapping_sub((k as u32).wrapping_mul(r[y])))
                        .collect();
                    let (z, d) = if residual.iter().all(|&v| v == residual[0]) {
                        if k == 1 && residual[0] == 0 {
                            continue;
                        }
                        (Operand::Const(residual[0]), 0)
                    } else if let Some(&z) = by_column.get(&residual) {
                        if z == x || z == y {
                            continue;
                        }
                        (Operand::Value(z as u16), 0)
                    } else if let Some((z, d)) = offset_column(rows, &residual, &addends) {
                        (Operand::Value(z as u16), d)
                    } else {
                        continue;
                    };
                    facts.insert(Fact {
                        rel: Rel::Lin,
                        a: Operand::Value(x as u16),
                        b: Operand::Value(y as u16),
                        k,
                        c: z,
                        d,
                        e: Operand::Const(0),
                    });
                }
            }
        }
        // `z = x - k * y` says no more than `x = k * y + z`, and its product of a
        // negative factor is much harder for the solver to match against a program's
        // shifts and sums: only the positive one is kept.
        let rearranged: Vec<Fact> = facts
            .iter()
            .filter(|f| f.rel == Rel::Lin && f.k < 0 && f.d == 0)
            .filter(|f| {
                let Operand::Value(_) = f.c else { return false };
                facts.contains(&Fact {
                    a: f.c,
                    k: f.k.wrapping_neg(),
                    c: f.a,
                    ..**f
                })
            })
            .copied()
            .collect();
        // `x = 1 * y + z` and `x = 1 * z + y` are one fact: the first is kept.
        let swapped: Vec<Fact> = facts
            .iter()
            .filter(|f| f.rel == Rel::Lin && f.k == 1 && f.d == 0)
            .filter(|f| match f.c {
                Operand::Value(_) => {
                    f.c < f.b
                        && facts.contains(&Fact {
                            b: f.c,
                            c: f.b,
                            ..**f
                        })
                }
                Operand::Const(_) => false,
            })
            .copied()
            .collect();
        for f in rearranged.into_iter().chain(swapped) {
            facts.remove(&f);
        }
    }

    /// A state standing for every state at `place` that its facts allow: one term per
    /// class of equal values (a constant, an input, or a fresh input), and the order
    /// facts as assumptions.
    fn havoc(&mut self, place: Place) -> (Vec<Term>, Vec<Term>) {
        let set = self.facts.get(&place).cloned().unwrap_or_default();
        let root = self.representatives(place, &set);
        let n = root.len();
        let facts: Vec<Fact> = set.into_iter().collect();
        let mut assume = Vec::new();
        let constant: BTreeMap<usize, u32> = facts
            .iter()
            .filter_map(|f| match (f.rel, f.a, f.b) {
                (Rel::Eq, Operand::Value(i), Operand::Const(c)) => Some((i as usize, c)),
                _ => None,
            })
            .collect();
        let mut class_const: BTreeMap<usize, u32> = BTreeMap::new();
        for (&i, &c) in &constant {
            match class_const.get(&root[i]) {
                Some(&other) if other != c => {
                    let f = self.s.bool(false);
                    assume.push(f);
                }
                Some(_) => {}
                None => {
                    class_const.insert(root[i], c);
                }
            }
        }
        let mut values = Vec::with_capacity(n);
        for &root in &root {
            let t = if let Some(&c) = class_const.get(&root) {
                self.s.word(c)
            } else if root < self.args.len() {
                self.args[root]
            } else {
                let key = (place, root as u16);
                match self.fresh.get(&key) {
                    Some(&t) => t,
                    None => {
                        let name = format!("loop{}", self.fresh.len());
                        let t = self.s.new_var(&name, 32);
                        self.fresh.insert(key, t);
                        t
                    }
                }
            };
            values.push(t);
        }
        // Inputs the equalities merged: their classes' terms must equal them.
        for (i, &arg) in self.args.iter().enumerate() {
            if values[i] != arg {
                let e = self.s.eq(arg, values[i]);
                assume.push(e);
            }
        }
        for f in &facts {
            if f.rel != Rel::Eq {
                let t = self.fact_term(f, &values);
                assume.push(t);
            }
        }
        (values, assume)
    }

    /// A side's state at its head `index` from its part of `values` (which starts at
    /// `from`).
    fn head_snapshot(
        &mut self,
        side: usize,
        index: u8,
        values: &[Term],
        from: usize,
    ) -> Option<Snapshot> {
        let head = *self.heads[side].get(usize::from(index))?;
        let zero = self.s.word(0);
        let mut regs = [zero; 32];
        regs[1..32].copy_from_slice(values.get(from..from + 31)?);
        let hi = *values.get(from + 31)?;
        let lo = *values.get(from + 32)?;
        let words = self.words[side]
            .iter()
            .enumerate()
            .map(|(k, &a)| values.get(from + REG_LOCATIONS + k).map(|&t| (a, t)))
            .collect::<Option<BTreeMap<u32, Term>>>()?;
        Some(Snapshot {
            pc: head,
            regs,
            hi,
            lo,
            words,
        })
    }

    /// Every way one step of the product from `from` (the entry when `None`) can go,
    /// with the values of the state they start from.
    fn steps_from(&mut self, from: Option<Place>) -> Result<(Vec<Term>, Vec<Step>), String> {
        let inputs = self.args.len();
        let mut pre = Vec::new();
        let (mut starts, assume, frozen): ([Option<Snapshot>; 2], Vec<Term>, [Vec<Term>; 2]) =
            match from {
                None => ([None, None], Vec::new(), [Vec::new(), Vec::new()]),
                Some(place) => {
                    let (values, assume) = self.havoc(place);
                    let lw = self.width(0, place.0);
                    let mut starts = [None, None];
                    let mut frozen = [Vec::new(), Vec::new()];
                    for (side, at, from) in [(0, place.0, inputs), (1, place.1, inputs + lw)] {
                        match at {
                            At::Head(index) => {
                                starts[side] = Some(
                                    self.head_snapshot(side, index, &values, from)
                                        .ok_or("a head state could not be built")?,
                                )
                            }
                            At::Returned => {
                                frozen[side] = values[from..from + self.observe.len()].to_vec()
                            }
                            At::Start => {}
                        }
                    }
                    pre = values;
                    (starts, assume, frozen)
                }
            };
        let movers = self.movers(from);
        let mut per_side: Vec<Vec<(Term, SideEnd)>> = Vec::with_capacity(2);
        for side in 0..2 {
            if !movers[side] {
                let t = self.s.bool(true);
                // A side that waits at its head (or entry) stays there, its state
                // unchanged.
                let at = from.map_or(At::Start, |p| [p.0, p.1][side]);
                let stays = match (starts[side].take(), at) {
                    (Some(snap), _) => SideEnd::Head(Box::new(snap)),
                    (None, At::Start) => SideEnd::Start,
                    (None, _) => SideEnd::Returned(frozen[side].clone()),
                };
                per_side.push(vec![(t, stays)]);
                continue;
            }
            let cuts: Vec<u32> = self.heads[side].clone();
            let func = Function {
                code: self.sides[side].code,
                entry: self.sides[side].entry,
                args: self.args,
                observe: self.observe,
                zero_allowed: false,
                cuts: &cuts,
            };
            let paths: Paths = match &starts[side] {
                None => explore::explore(self.s, self.solver, &func, self.limits, self.stop),
                Some(snap) => explore::explore_from(
                    self.s,
                    self.solver,
                    &func,
                    self.limits,
                    self.stop,
                    snap,
                    assume.clone(),
                ),
            };
            // From both heads, a side that goes round twice a step of the product
            // runs its second trip from each head its first one reached.
            let legs = if from.is_some_and(both_at_heads) && movers == [true, true] {
                self.legs[side]
            } else {
                1
            };
            let mut ends = Vec::with_capacity(paths.ends.len());
            let mut todo: Vec<(explore::PathEnd, u32)> =
                paths.ends.into_iter().map(|e| (e, 1)).collect();
            while let Some((e, leg)) = todo.pop() {
                let end = match e.end {
                    End::Returned(obs) => SideEnd::Returned(obs),
                    End::Fault(k) => SideEnd::Fault(k),
                    End::Cut(snap) => {
                        for &a in snap.words.keys() {
                            if self.words[side].insert(a) {
                                self.grown = true;
                            }
                        }
                        if leg < legs {
                            let mut path = assume.clone();
                            path.push(e.guard);
                            let more = explore::explore_from(
                                self.s,
                                self.solver,
                                &func,
                                self.limits,
                                self.stop,
                                &snap,
                                path,
                            );
                            todo.extend(more.ends.into_iter().map(|e| (e, leg + 1)));
                            continue;
                        }
                        SideEnd::Head(snap)
                    }
                    End::OutOfFuel => return Err("a trip of a loop is longer than the fuel".into()),
                    End::Uncovered(gap) => {
                        return Err(format!("a trip of a loop was not covered ({})", gap.name()))
                    }
                };
                ends.push((e.guard, end));
            }
            per_side.push(ends);
        }
        if self.grown {
            return Ok((pre, Vec::new()));
        }
        let assumed = self.s.and_all(assume.iter().copied());
        let mut out = Vec::new();
        for (gl, l) in &per_side[0] {
            for (gr, r) in &per_side[1] {
                let guard = self.s.and_all([assumed, *gl, *gr]);
                let to = match (l, r) {
                    (SideEnd::Returned(x), SideEnd::Returned(y)) => {
                        let ne: Vec<Term> =
                            x.iter().zip(y).map(|(&p, &q)| self.s.ne(p, q)).collect();
                        Target::Ends(self.s.or_all(ne))
                    }
                    (SideEnd::Fault(a), SideEnd::Fault(b)) => Target::Ends(self.s.bool(a != b)),
                    #[cfg(test)]
                    (SideEnd::Fault(_), SideEnd::Start)
                        if planted::has(planted::FAULT_BEFORE_START) =>
                    {
                        Target::Ends(self.s.bool(false))
                    }
                    // A fault before the other side has started must not happen: how
                    // the other would end is not known here.
                    (SideEnd::Fault(_), _) | (_, SideEnd::Fault(_)) => {
                        Target::Ends(self.s.bool(true))
                    }
                    (l, r) => {
                        let mut values = self.args.to_vec();
                        let mut place = (At::Returned, At::Returned);
                        for (side, end) in [(0, l), (1, r)] {
                            let at = match end {
                                SideEnd::Head(snap) => {
                                    values.extend(self.head_values(side, snap));
                                    self.head_at(side, snap.pc)?
                                }
                                SideEnd::Returned(obs) => {
                                    values.extend(obs.iter().copied());
                                    At::Returned
                                }
                                SideEnd::Fault(_) => At::Returned,
                                SideEnd::Start => At::Start,
                            };
                            if side == 0 {
                                place.0 = at;
                            } else {
                                place.1 = at;
                            }
                        }
                        Target::Place(place, values)
                    }
                };
                out.push(Step { guard, to });
            }
        }
        Ok((pre, out))
    }

    /// Which sides take a trip in a step of the product from `place` (the entry when
    /// `None`): both from two heads, unless one of them has no partner and the other
    /// has (then that side alone); a side that has returned never; a side that has
    /// not started once the other has returned, and only then.
    fn movers(&self, place: Option<Place>) -> [bool; 2] {
        let waits = |side: usize, at: At| match at {
            At::Head(i) => self.waits[side]
                .get(usize::from(i))
                .copied()
                .unwrap_or(false),
            At::Returned | At::Start => false,
        };
        match place {
            None if self.schedule == Schedule::OneAfterTheOther => [true, false],
            None => [true, true],
            Some((At::Head(i), At::Head(j))) => {
                match [waits(0, At::Head(i)), waits(1, At::Head(j))] {
                    [true, false] => [true, false],
                    [false, true] => [false, true],
                    _ => [true, true],
                }
            }
            Some((At::Returned, At::Start)) => [false, true],
            Some((At::Start, At::Returned)) => [true, false],
            Some((a, b)) => [a.is_head(), b.is_head()],
        }
    }

    /// Which of a side's heads a trip that was cut at `pc` reached.
    fn head_at(&self, side: usize, pc: u32) -> Result<At, String> {
        let index = self.heads[side].iter().position(|&h| h == pc);
        match index.and_then(|i| u8::try_from(i).ok()) {
            Some(i) => Ok(At::Head(i)),
            None => Err(format!(
                "a trip was cut at {pc:#x}, which is not a loop head"
            )),
        }
    }

    /// The values describing a side's head state: registers, `hi`, `lo`, then the
    /// set's words (a word not written holds the image's bytes).
    fn head_values(&mut self, side: usize, snap: &Snapshot) -> Vec<Term> {
        let mut out: Vec<Term> = snap.regs[1..32].to_vec();
        out.push(snap.hi);
        out.push(snap.lo);
        for &a in &self.words[side] {
            let t = match snap.words.get(&a) {
                Some(&t) => t,
                None => {
                    let v =
                        sampler::initial_word(self.sides[side].code, &mut self.memories[side], a);
                    self.s.word(v)
                }
            };
            out.push(t);
        }
        out
    }

    /// Concrete states at each place, from runs on the probes that follow the
    /// product's schedule: the k-th visit of each head together.
    fn samples(&mut self, probes: &[Vec<u32>]) -> Samples {
        let mut out: Samples = BTreeMap::new();
        for probe in probes.iter().take(SAMPLE_PROBES) {
            let runs: Vec<SideRun> = (0..2).map(|k| self.sample_run(k, probe)).collect();
            let mut given: BTreeMap<Place, usize> = BTreeMap::new();
            // Which visit of its head each side is at.
            let mut at = [0usize; 2];
            // Whether the right has started: under a schedule of one side after the
            // other, once the left has returned.
            let mut started = self.schedule == Schedule::Lockstep;
            loop {
                let mut row: Vec<u32> = probe.clone();
                let mut place = (At::Returned, At::Returned);
                let mut known = true;
                for (side, run) in runs.iter().enumerate() {
                    let here = if side == 1 && !started {
                        At::Start
                    } else if let Some((head, v)) = run.visits.get(at[side]) {
                        row.extend(v);
                        At::Head(*head)
                    } else if let Some(obs) = &run.returned {
                        row.extend(obs);
                        At::Returned
                    } else {
                        known = false;
                        At::Returned
                    };
                    if side == 0 {
                        place.0 = here;
                    } else {
                        place.1 = here;
                    }
                }
                if !known || place == (At::Returned, At::Returned) {
                    break;
                }
                let rows = out.entry(place).or_default();
                let mine = given.entry(place).or_default();
                if rows.len() < MAX_SAMPLES && *mine < SAMPLES_PER_PROBE {
                    rows.push(row);
                    *mine += 1;
                }
                // The product's schedule: from both heads each side goes round its
                // number of trips; alone, one.
                match self.movers(Some(place)) {
                    _ if place == (At::Returned, At::Start) => started = true,
                    [true, true] => {
                        at[0] += self.legs[0] as usize;
                        at[1] += self.legs[1] as usize;
                    }
                    [true, false] => at[0] += 1,
                    _ => at[1] += 1,
                }
            }
        }
        out
    }

    fn sample_run(&mut self, side: usize, probe: &[u32]) -> SideRun {
        let m = &mut self.machines[side];
        m.start(self.sides[side], probe);
        let mut visits = Vec::new();
        let mut returned = None;
        while m.steps() < SAMPLE_FUEL && visits.len() < MAX_SAMPLES {
            match m.step() {
                Stepped::Returned => {
                    returned = Some(self.observe.iter().map(|&r| m.reg(r)).collect());
                    break;
                }
                Stepped::Ended => break,
                Stepped::Running => {}
            }
            let pc = m.pc();
            if let Some(head) = self.heads[side].iter().position(|&h| h == pc) {
                let head = u8::try_from(head).unwrap_or(u8::MAX);
                visits.push((head, m.state(self.words[side].iter().copied())));
            }
        }
        SideRun { visits, returned }
    }

    fn certificate(&mut self, rounds: u32) -> Certificate {
        let mut invariant = Vec::new();
        let mut relations = Vec::new();
        for (place, facts) in &self.facts {
            let name = format!("{}/{}", at_name(place.0), at_name(place.1));
            let written = facts.iter().map(|f| self.describe(*place, f)).collect();
            invariant.push((name.clone(), written));
            let rep = self.representatives(*place, facts);
            // An equality of two values that the invariant fixes to constants says
            // nothing more than the constants.
            let fixed = |o: Operand| {
                facts
                    .iter()
                    .any(|g| g.rel == Rel::Eq && g.a == o && matches!(g.b, Operand::Const(_)))
            };
            let key = facts
                .iter()
                .filter(|f| self.ties(*place, f, &rep))
                .filter(|f| !(f.rel == Rel::Eq && fixed(f.a) && fixed(f.b)))
                .filter(|f| !self.unchanged_input(*place, f))
                .map(|f| self.describe(*place, f))
                .collect();
            relations.push((name, key));
        }
        Certificate {
            heads: self.heads.clone(),
            schedule: self.schedule,
            invariant,
            relations,
            rounds,
            obligations: Obligations::default(),
        }
    }

    /// The obligations of the last round: `trips` and `ends` as it explored them, and
    /// the measure of each place where one side runs alone (`None`: termination is
    /// not claimed). A state at a place is given by variables of its own (the inputs
    /// for the inputs), so an obligation is about every state its invariant allows;
    /// the fresh inputs the round stood for a class of equal values with are replaced
    /// by the variable of the class's first value.
    fn obligations(
        &mut self,
        trips: &[Trip],
        ends: &[(Option<Place>, Term, Term)],
        measures: Option<&[(Place, Measure)]>,
    ) -> Obligations {
        // A place no feasible trip reaches has no facts: its invariant is `false`, so
        // that every trip into it must be infeasible.
        let mut places: BTreeSet<Place> = self.facts.keys().copied().collect();
        places.extend(trips.iter().map(|t| t.to));
        let inputs = self.args.len();
        let mut invariants = Vec::new();
        let mut states: BTreeMap<Place, Vec<Term>> = BTreeMap::new();
        for &place in &places {
            let n = inputs + self.width(0, place.0) + self.width(1, place.1);
            let params: Vec<Term> = (0..n)
                .map(|i| {
                    let name = self.value_name(place, i);
                    self.s.new_var(&name, 32)
                })
                .collect();
            let Some(facts) = self.facts.get(&place) else {
                let body = self.s.bool(false);
                invariants.push(Definition {
                    name: invariant_name(place),
                    params,
                    body,
                });
                continue;
            };
            #[allow(unused_mut)]
            let mut facts: Vec<Fact> = facts.iter().copied().collect();
            #[cfg(test)]
            if planted::has(planted::FALSE_FACT) && self.facts.keys().next() == Some(&place) {
                // `x <u 0`, which no value satisfies.
                let v = Operand::Value(inputs as u16);
                facts.push(Fact::cmp(Rel::Ult, v, Operand::Const(0)));
            }
            let terms: Vec<Term> = facts.iter().map(|f| self.fact_term(f, &params)).collect();
            let body = self.s.and_all(terms);
            invariants.push(Definition {
                name: invariant_name(place),
                params,
                body,
            });
            let state = (0..n)
                .map(|i| match self.args.get(i) {
                    Some(&arg) => arg,
                    None => {
                        let name = format!("{}.{}", place_slug(place), self.value_name(place, i));
                        self.s.new_var(&name, 32)
                    }
                })
                .collect();
            states.insert(place, state);
        }
        let mut renames: BTreeMap<Place, rustc_hash::FxHashMap<Term, Term>> = BTreeMap::new();
        for (&(place, root), &fresh) in &self.fresh {
            if let Some(&v) = states.get(&place).and_then(|s| s.get(root as usize)) {
                renames.entry(place).or_default().insert(fresh, v);
            }
        }
        let mut checks = Vec::new();
        // Places whose invariant has a fact in the integers: a check that uses one is
        // written in integers.
        let in_integers: BTreeSet<Place> = self
            .facts
            .iter()
            .filter(|(_, facts)| facts.iter().any(|f| f.rel.in_integers()))
            .map(|(p, _)| *p)
            .collect();
        // A check from `from` (to `to`): its invariant over its state, and one of
        // `cases` (each a guard and what must not hold with it).
        let mut check = |s: &mut TermStore,
                         kind: CheckKind,
                         name: String,
                         what: String,
                         (from, to): (Option<Place>, Option<Place>),
                         cases: Vec<(Term, Formula)>| {
            let mut roots = Vec::new();
            for (guard, f) in &cases {
                roots.push(*guard);
                f.terms(&mut roots);
            }
            let renamed = match from.and_then(|p| renames.get(&p)) {
                Some(map) => s.substitute_all(&roots, map.clone()),
                None => roots,
            };
            let mut it = renamed.into_iter();
            let mut disjuncts = Vec::new();
            for (_, f) in cases {
                let Some(guard) = it.next() else { break };
                let f = f.replace_terms(&mut it);
                if s.as_const(guard) != Some(0) {
                    disjuncts.push(Formula::And(vec![Formula::Term(guard), f]));
                }
            }
            let mut assertions = Vec::new();
            if let Some(p) = from {
                if let Some(state) = states.get(&p) {
                    assertions.push(Formula::Call(invariant_name(p), state.clone()));
                }
            }
            assertions.push(Formula::Or(disjuncts));
            checks.push(Check {
                kind,
                name,
                what,
                assertions,
                in_integers: [from, to].iter().flatten().any(|p| in_integers.contains(p)),
            });
        };
        let mut groups: BTreeMap<(Option<Place>, Place), Vec<&Trip>> = BTreeMap::new();
        for t in trips {
            groups.entry((t.from, t.to)).or_default().push(t);
        }
        for (&(from, to), group) in &groups {
            let cases = group
                .iter()
                .map(|t| {
                    let at_to = Formula::Call(invariant_name(to), t.post.clone());
                    (t.guard, Formula::Not(Box::new(at_to)))
                })
                .collect();
            let (kind, name, what) =
                match from {
                    None => (
                        CheckKind::Initiation,
                        format!("initiation-{}", place_slug(to)),
                        format!(
                            "from the entry, every way to reach {} satisfies its invariant",
                            place_text(to)
                        ),
                    ),
                    Some(p) => {
                        (
                            CheckKind::Consecution,
                            format!("consecution-{}-to-{}", place_slug(p), place_slug(to)),
                            format!(
                        "every {} trip from {} that satisfies its invariant and reaches {} \
                         satisfies the invariant there",
                        if self.movers(Some(p)) == [true, true] { "lockstep" } else { "lone" },
                        place_text(p),
                        place_text(to)
                    ),
                        )
                    }
                };
            check(self.s, kind, name, what, (from, Some(to)), cases);
        }
        let mut by_source: BTreeMap<Option<Place>, Vec<(Term, Formula)>> = BTreeMap::new();
        for &(from, guard, differ) in ends {
            by_source
                .entry(from)
                .or_default()
                .push((guard, Formula::Term(differ)));
        }
        for (from, cases) in by_source {
            let (name, what) = match from {
                None => (
                    "exit-entry".to_string(),
                    "every way both can end before a loop head ends alike".to_string(),
                ),
                Some(p) => (
                    format!("exit-{}", place_slug(p)),
                    format!(
                        "every way both can end from {} with its invariant ends alike (same \
                         observed registers or the same fault)",
                        place_text(p)
                    ),
                ),
            };
            check(self.s, CheckKind::Exit, name, what, (from, None), cases);
        }
        for &(place, m) in measures.unwrap_or_default() {
            let cases = trips
                .iter()
                .filter(|t| t.from == Some(place) && t.to == place)
                .map(|t| {
                    (
                        t.guard,
                        Formula::Term(not_decreased(self.s, m, &t.pre, &t.post)),
                    )
                })
                .collect();
            let what = format!(
                "the measure {} decreases (unsigned) on every trip from {} back to it",
                match m {
                    (a, None) => self.value_name(place, a),
                    (a, Some(b)) => format!(
                        "{} - {}",
                        self.value_name(place, a),
                        self.value_name(place, b)
                    ),
                },
                place_text(place)
            );
            let name = format!("termination-{}", place_slug(place));
            check(
                self.s,
                CheckKind::Termination,
                name,
                what,
                (Some(place), None),
                cases,
            );
        }
        checks.sort_by_key(|c| c.kind);
        Obligations { invariants, checks }
    }

    /// For each value of `place`, the lowest value its equalities make it equal to
    /// (an input before any side's value): the value that stands for its class.
    fn representatives(&self, place: Place, facts: &BTreeSet<Fact>) -> Vec<usize> {
        let n = self.args.len() + self.width(0, place.0) + self.width(1, place.1);
        let mut rep: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                i = p[i];
            }
            i
        }
        for f in facts {
            if let (Rel::Eq, Operand::Value(a), Operand::Value(b)) = (f.rel, f.a, f.b) {
                let (a, b) = (find(&mut rep, a as usize), find(&mut rep, b as usize));
                let (lo, hi) = (a.min(b), a.max(b));
                rep[hi] = lo;
            }
        }
        (0..n).map(|i| find(&mut rep, i)).collect()
    }

    /// Whether a fact is worth showing: it ties the two sides together (or a value to
    /// others by a factor), between the first values of their classes of equals.
    fn ties(&self, place: Place, f: &Fact, rep: &[usize]) -> bool {
        let is_rep = |o: Operand| match o {
            Operand::Value(i) => rep.get(i as usize) == Some(&(i as usize)),
            Operand::Const(_) => true,
        };
        let side = |o: Operand| match o {
            Operand::Value(i) => Some(self.owner(place, i as usize)),
            Operand::Const(_) => None,
        };
        match f.rel {
            Rel::Lin | Rel::Mul => is_rep(f.a) && is_rep(f.b) && is_rep(f.c),
            Rel::Exact => is_rep(f.a) && is_rep(f.b) && is_rep(f.c) && is_rep(f.e),
            Rel::Quot | Rel::Tri => is_rep(f.a) && is_rep(f.b) && is_rep(f.c),
            Rel::Eq => {
                // One equality per class and side: its first value against the first
                // value of the other side (or of the inputs) in the class.
                let (Operand::Value(a), Operand::Value(b)) = (f.a, f.b) else {
                    return false;
                };
                let (a, b) = (a as usize, b as usize);
                let (sa, sb) = (self.owner(place, a), self.owner(place, b));
                let first_of_side = (0..b).all(|j| rep[j] != rep[b] || self.owner(place, j) != sb);
                is_rep(f.a) && sa != sb && first_of_side
            }
            _ => {
                is_rep(f.a)
                    && is_rep(f.b)
                    && matches!(
                        (side(f.a), side(f.b)),
                        (Some(0), Some(1)) | (Some(1), Some(0))
                    )
            }
        }
    }

    fn describe(&self, place: Place, f: &Fact) -> String {
        let name = |o: Operand| match o {
            Operand::Const(c) => format!("{}", c as i32),
            Operand::Value(i) => self.value_name(place, i as usize),
        };
        if f.rel == Rel::Lin {
            return match f.d {
                0 => format!("{} = {} * {} + {}", name(f.a), f.k, name(f.b), name(f.c)),
                d => format!(
                    "{} = {} * {} + {} + {d}",
                    name(f.a),
                    f.k,
                    name(f.b),
                    name(f.c)
                ),
            };
        }
        if f.rel == Rel::Within {
            return format!("{} - {} <=u {}", name(f.a), name(f.b), f.k);
        }
        if f.rel == Rel::Parity {
            let even = matches!(f.b, Operand::Const(0));
            return format!("{} is {}", name(f.a), if even { "even" } else { "odd" });
        }
        if f.rel == Rel::Exact {
            return format!(
                "{} = {} * {} + {} (no wrap-around)",
                name(f.a),
                name(f.b),
                name(f.c),
                name(f.e)
            );
        }
        if f.rel == Rel::Tri {
            let mut t = format!("{} = {}", name(f.a), name(f.c));
            t += &match f.k {
                1 => format!(" + {0} * ({0} - 1) / 2", name(f.b)),
                k => format!(" + {k} * {0} * ({0} - 1) / 2", name(f.b)),
            };
            if f.d != 0 {
                t += &format!(" + {} * {}", f.d, name(f.b));
            }
            return t;
        }
        if f.rel == Rel::Quot {
            return format!("{} = {} /u {}", name(f.a), name(f.b), name(f.c));
        }
        if f.rel == Rel::Mul {
            let product = format!("{} = {} * {}", name(f.a), name(f.b), name(f.c));
            return if f.k == 0 {
                product
            } else {
                format!("{product} + {}", f.k)
            };
        }
        let rel = match f.rel {
            Rel::Eq => "=",
            Rel::Slt => "<s",
            Rel::Sle => "<=s",
            Rel::Ult => "<u",
            Rel::Ule => "<=u",
            Rel::Lin | Rel::Mul | Rel::Parity | Rel::Within | Rel::Exact | Rel::Quot | Rel::Tri => {
                "="
            }
        };
        format!("{} {rel} {}", name(f.a), name(f.b))
    }

    /// Whether `f` only says that an input is still in the register it came in
    /// (`$1 = left.$1`): true, and of no interest to people.
    fn unchanged_input(&self, place: Place, f: &Fact) -> bool {
        let (Rel::Eq, Operand::Value(a), Operand::Value(b)) = (f.rel, f.a, f.b) else {
            return false;
        };
        let (a, b) = (
            self.value_name(place, a as usize),
            self.value_name(place, b as usize),
        );
        [&a, &b].iter().any(|x| !x.contains('.'))
            && (b == format!("left.{a}")
                || b == format!("right.{a}")
                || a == format!("left.{b}")
                || a == format!("right.{b}"))
    }

    /// The conventional name of register `r` on the machine proved.
    fn reg_name(&self, r: Reg) -> String {
        use tamarin_mips::target::{Cs241, Mips32, Target};
        match self.sides[0].code {
            Code::Mips32(_) => Mips32::reg_name(r),
            Code::Cs241(_) => Cs241::reg_name(r),
        }
    }

    fn value_name(&self, place: Place, i: usize) -> String {
        let n = self.args.len();
        if i < n {
            return match self.sides[0].code {
                Code::Mips32(_) => format!("$a{i}"),
                Code::Cs241(c) => c
                    .inputs
                    .get(i)
                    .map_or(format!("input{i}"), |r| format!("${}", r.index())),
            };
        }
        let lw = self.width(0, place.0);
        let (side, at, k) = if i < n + lw {
            (0, place.0, i - n)
        } else {
            (1, place.1, i - n - lw)
        };
        let who = ["left", "right"][side];
        match at {
            At::Returned => format!(
                "{who}.{}",
                self.observe
                    .get(k)
                    .map_or("?".into(), |r| self.reg_name(*r))
            ),
            At::Start => format!("{who}.?"),
            At::Head(_) if k < 31 => {
                format!("{who}.{}", self.reg_name(Reg::from_bits(k as u32 + 1)))
            }
            At::Head(_) if k == 31 => format!("{who}.hi"),
            At::Head(_) if k == 32 => format!("{who}.lo"),
            At::Head(_) => {
                let a = self.words[side]
                    .iter()
                    .nth(k - REG_LOCATIONS)
                    .copied()
                    .unwrap_or(0);
                format!("{who}.mem[{a:#x}]")
            }
        }
    }
}

/// Of `varying`, the first of each set of values equal on every sample (one stands
/// for all in a fact).
fn distinct_columns(rows: &[Vec<u32>], varying: &[usize]) -> Vec<usize> {
    let mut seen: BTreeSet<Vec<u32>> = BTreeSet::new();
    varying
        .iter()
        .copied()
        .filter(|&i| seen.insert(rows.iter().map(|r| r[i]).collect()))
        .collect()
}

type Samples = BTreeMap<Place, Vec<Vec<u32>>>;

/// A place where one side runs alone: the place, the values it starts from, and each
/// feasible trip back to it (its guard and the values after it).
type LoneTrips = (Place, Vec<Term>, Vec<(Term, Vec<Term>)>);

/// A measure over the values of a place: value `a`, or `a - b` (unsigned).
type Measure = (usize, Option<usize>);

/// That measure `m` did not decrease (unsigned) from values `pre` to `post`.
fn not_decreased(s: &mut TermStore, m: Measure, pre: &[Term], post: &[Term]) -> Term {
    let measure = |s: &mut TermStore, v: &[Term]| -> Term {
        let at = |i: usize| v.get(i).copied();
        match (m, at(m.0)) {
            ((_, None), Some(a)) => a,
            ((_, Some(b)), Some(a)) => match at(b) {
                Some(b) => s.bin(BinOp::Sub, a, b),
                None => s.word(0),
            },
            (_, None) => s.word(0),
        }
    };
    let before = measure(s, pre);
    let after = measure(s, post);
    let down = s.bin(BinOp::Ult, after, before);
    s.not(down)
}

/// One trip of a round of pruning: from a place (the entry when `None`) and the
/// values it starts from, its guard, and the place and values it leads to.
struct Trip {
    from: Option<Place>,
    pre: Vec<Term>,
    guard: Term,
    to: Place,
    post: Vec<Term>,
}

struct SideRun {
    /// Each visit of a loop head: which head, and the state there.
    visits: Vec<(u8, Vec<u32>)>,
    returned: Option<Vec<u32>>,
}

/// Bugs planted in the checker, to show that the tests below catch them (this
/// thread's proofs only).
#[cfg(test)]
pub(crate) mod planted {
    pub use crate::planted::{has, plant};

    pub const NO_PRUNING: u32 = 1;
    pub const LONE_TRIPS_END: u32 = 2;
    /// A fact no state satisfies, added to the first place's invariant in the
    /// certificate only (the proof itself is not changed).
    pub const FALSE_FACT: u32 = 4;
    /// A side alone that goes from one loop to another and back is taken to end.
    pub const LONE_CYCLES: u32 = 8;
    /// Under a schedule of one side after the other, a left that faults before the
    /// right has started is taken to end alike with it.
    pub const FAULT_BEFORE_START: u32 = 16;
    /// A candidate of the search for a difference after many trips is kept without
    /// its replay showing one ([`crate::mips32::needle`]).
    pub const NEEDLE_UNREPLAYED: u32 = 32;
}

#[cfg(test)]
mod tests {
    use super::columns::{modular_factor, MAX_FACTOR};
    use super::*;
    use proptest::prelude::*;

    const HH: Place = (At::Head(0), At::Head(0));
    const H2H: Place = (At::Head(1), At::Head(0));
    const HR: Place = (At::Head(0), At::Returned);
    const H2R: Place = (At::Head(1), At::Returned);

    #[test]
    fn places_reached_are_those_the_arrows_lead_to_from_the_entry() {
        let arrows: BTreeSet<(Option<Place>, Place)> = [
            (None, HH),
            (Some(HH), H2H),
            (Some(H2H), HH),
            (Some(HR), H2R),
        ]
        .into();
        // `HR` was reached in an earlier round only: nothing leads there now.
        assert_eq!(reachable(&arrows), [HH, H2H].into());
        assert!(reachable(&BTreeSet::new()).is_empty());
    }

    #[test]
    fn a_side_alone_that_comes_back_to_a_place_it_left_is_a_cycle() {
        let one_way: BTreeSet<(Place, Place)> = [(HR, H2R), (HR, HR), (H2R, H2R)].into();
        assert!(!has_cycle(&one_way));
        let round: BTreeSet<(Place, Place)> = [(HR, H2R), (H2R, HR)].into();
        assert!(has_cycle(&round));
        // A way into the cycle from outside it does not hide it.
        let behind: BTreeSet<(Place, Place)> = [(HH, HR), (HR, H2R), (H2R, HR)].into();
        assert!(has_cycle(&behind));
    }

    #[test]
    fn heads_in_step_go_round_about_as_often_or_twice_as_often() {
        let heads = [vec![0x10], vec![0x20, 0x30]];
        let probe = |l: u64, r: [u64; 2]| [vec![l], r.to_vec()];
        // By ones against by eights and the rest: n + 1 against n / 8 + 1, n % 8 + 1.
        let chunks: Vec<_> = [100u64, 37, 64]
            .iter()
            .map(|&n| probe(n + 1, [n / 8 + 1, n % 8 + 1]))
            .collect();
        assert!(!in_step(&heads, &chunks));
        // Off by one (a rotated loop), or twice as often (unrolled by two): in step.
        let rotated: Vec<_> = [100u64, 37, 64]
            .iter()
            .map(|&n| probe(n + 1, [n, 1]))
            .collect();
        assert!(in_step(&heads, &rotated));
        let unrolled: Vec<_> = [100u64, 37, 64]
            .iter()
            .map(|&n| probe(n, [n / 2, 1]))
            .collect();
        assert!(in_step(&heads, &unrolled));
        // Too few probes tell nothing: lockstep first, as before.
        assert!(in_step(&heads, &chunks[..2]));
    }

    #[test]
    fn a_start_place_is_named_for_its_files() {
        assert_eq!(place_slug((At::Head(0), At::Start)), "head-start");
        assert_eq!(place_text((At::Returned, At::Start)), "returned/start");
    }

    #[test]
    fn an_offset_column_is_an_input_and_a_small_constant() {
        // Columns: input 0, input 1, then a value one below input 1.
        let rows = vec![vec![5, 10, 9], vec![6, 20, 19], vec![7, 0, u32::MAX]];
        let column: Vec<u32> = rows.iter().map(|r| r[2]).collect();
        assert_eq!(offset_column(&rows, &column, &[0, 1]), Some((1, -1)));
        // Equal to an input is no offset (that is an equality), and a far one none.
        let same: Vec<u32> = rows.iter().map(|r| r[1]).collect();
        assert_eq!(offset_column(&rows, &same, &[1]), None);
        let far: Vec<u32> = rows.iter().map(|r| r[1].wrapping_add(100)).collect();
        assert_eq!(offset_column(&rows, &far, &[0, 1]), None);
    }

    #[test]
    fn places_are_named_by_head() {
        assert_eq!(place_slug(HH), "head-head");
        assert_eq!(place_slug(H2R), "head2-returned");
        assert_eq!(place_text(H2H), "head2/head");
    }

    proptest! {
        /// Whatever the step and however far the value wrapped, the factor read off
        /// is one that gives the step, and no larger than the one that made it.
        #[test]
        fn a_factor_is_read_off_a_wrapped_step(k in -MAX_FACTOR..=MAX_FACTOR, dy: u32) {
            let dx = (k as i32 as u32).wrapping_mul(dy);
            match modular_factor(dx, dy) {
                None => prop_assert_eq!(dy, 0),
                Some(found) => {
                    prop_assert_eq!((found as i32 as u32).wrapping_mul(dy), dx);
                    prop_assert!(found.abs() <= k.abs());
                }
            }
        }

        /// A step that no factor gives is not given one.
        #[test]
        fn no_factor_where_none_gives_the_step(dx: u32, dy: u32) {
            if let Some(k) = modular_factor(dx, dy) {
                prop_assert_eq!((k as i32 as u32).wrapping_mul(dy), dx);
            }
        }
    }

    #[test]
    fn the_factor_of_a_sum_that_wrapped_many_times() {
        // s = 9 * s + b: two samples many trips apart.
        let (b, mut s) = (17u32, 39u32);
        let before = s;
        for _ in 0..40 {
            s = s.wrapping_mul(9).wrapping_add(b);
        }
        let (x0, x1) = (
            before.wrapping_mul(9).wrapping_add(b),
            s.wrapping_mul(9).wrapping_add(b),
        );
        assert_eq!(
            modular_factor(x1.wrapping_sub(x0), s.wrapping_sub(before)),
            Some(9)
        );
        assert_eq!(modular_factor(6, 4), None);
        assert_eq!(modular_factor(8, 4), Some(2));
        assert_eq!(modular_factor(5, 0), None);
    }
}
