//! The concolic search of the report's Figure 4, extended to a complete enumeration.
//!
//! Both programs are run, with tracing, on every input the search picks; their path
//! trees ([`tree`]) are grown side by side. The sides take turns as driver: the driver's
//! deepest open branch point is turned into a query (its path prefix, and none of the
//! conditions already seen there), and the answer becomes the next input, run on both
//! programs and compared concretely. Each new pair of paths seen on one input gets a
//! difference query (inputs on both paths on which the results differ). When both
//! trees are closed, one more query per left path checks it against every right path;
//! if all are unsatisfiable, the programs agree on every input within the bounds.

mod shrink;
mod summary;
pub mod tree;

pub use crate::options::Options;
pub use crate::report::{Observer, PathReport, Progress, Quiet, Report, Side, Stats};

use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};

use tamarin_mips::cpu::{Config, Machine, Outcome, Status};
use tamarin_mips::Program;

use crate::io::{observe, InputLayout, Observed};

use crate::budget::Budget;
use crate::solver::{build_chain, Answer, CountingSolver, Solver};
use crate::term::{Term, TermStore};
use crate::trace::{self, PathCond, SymTracer, TraceLimits};
use crate::verdict::{self, Counterexample, Coverage, Incomplete, Proof};
use summary::Summaries;
use tree::{NodeId, NodeState, PathTree};

/// A path that some run took.
struct Leaf {
    /// Where the path ends in its side's tree.
    node: NodeId,
    /// The inputs of the first run that took this path, and what that run did.
    first_inputs: Vec<u32>,
    first_outcome: Outcome,
    outcome: LeafOutcome,
    /// The observables' terms, for paths that end normally.
    observed: Vec<Vec<Term>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LeafOutcome {
    Done,
    Error,
    OutOfFuel,
    /// The tracer gave up on the run: its conditions are only a prefix of its path.
    Partial,
}

impl LeafOutcome {
    /// What the comparison rules see: a partial path's ending is not known.
    fn ending(self) -> verdict::Ending {
        match self {
            LeafOutcome::Done => verdict::Ending::Done,
            LeafOutcome::Error => verdict::Ending::Error,
            LeafOutcome::OutOfFuel => verdict::Ending::OutOfFuel,
            LeafOutcome::Partial => verdict::Ending::Unknown,
        }
    }
}

struct SideState {
    program: Program,
    machine: Machine,
    tree: PathTree,
    /// The tree's prefixes in summary form: what queries carry in place of them.
    summaries: Summaries,
    /// Tracer checkpoints at some nodes (every [`CHECKPOINT_EVERY`] conditions along
    /// the paths), for runs whose inputs are known to follow a node's prefix.
    checkpoints: FxHashMap<NodeId, std::sync::Arc<trace::Checkpoint>>,
    stack: Vec<NodeId>,
    leaves: Vec<Leaf>,
    /// Its shared procedures, by entry.
    calls: Option<std::sync::Arc<trace::Calls>>,
}

/// The edge values a comparison tries first, in this order, before the solver picks
/// inputs: where hand-written arithmetic most often goes wrong (signs, overflow).
const FIRST_EDGES: [u32; 7] = [
    0,
    1,
    u32::MAX,
    0x8000_0000,
    0x7FFF_FFFF,
    0x8000_0001,
    0x7FFF_FFFE,
];
/// The most runs spent on [`FIRST_EDGES`] (many inputs, such as a long array, would
/// otherwise spend hundreds).
const MAX_EDGE_RUNS: usize = 64;
/// The fuel the edge runs may spend together, at most: with a large `--fuel`, edge
/// inputs that spin would otherwise cost that much each (fewer runs, not a clock, so
/// the search stays the same on any machine).
const EDGE_FUEL: u64 = 1_000_000;

/// The most right paths the final proof step joins into one query about a left path;
/// with more, it asks path by path ([`Search::prove_by_pairs`]).
const MAX_DISJUNCTS: usize = 64;
/// The most backend work (Z3's resource units) one left path's pairs may cost before
/// the final proof step asks disjunctions first.
const PAIR_BACKEND_BUDGET: u64 = 1_000_000;

/// The least trace memory worth a run: with less left, the search stops (a short run
/// of a few dozen steps records about this much).
const MIN_RUN_TRACE_BYTES: usize = 16 << 10;

/// How many path conditions apart the tracer takes checkpoints.
const CHECKPOINT_EVERY: usize = 8;

/// Fresh inputs for restarts: edge values first, then a fixed pseudo-random sequence.
const EDGE_VALUES: [u32; 8] = [0, 1, u32::MAX, 0x8000_0000, 0x7FFF_FFFF, 2, 16, 100];

struct Search<'o> {
    opts: &'o Options,
    /// Why the domain program's acceptance could not be built (then no input is
    /// admitted, and no proof may be claimed).
    domain_refused: Option<crate::verdict::Uncovered>,
    observer: &'o mut dyn Observer,
    store: TermStore,
    layout: InputLayout,
    jump_targets: FxHashSet<Term>,
    restarts_tried: u64,
    /// Whether the depth bound is lifted: the hunt within it found no difference, and
    /// the proof follows the deeper paths.
    unbounded: bool,
    sides: Vec<SideState>,
    solver: CountingSolver<Box<dyn Solver>>,
    pairs_seen: FxHashSet<(usize, usize)>,
    pending_pairs: Vec<(usize, usize)>,
    stats: Stats,
    start: Instant,
    /// What the search may spend (read once from the options, when it begins).
    budget: Budget,
    /// The bytes its traced runs have recorded, as [`TraceLimits::max_bytes`] counts
    /// them: each run may record what is left of the budget's.
    trace_bytes: usize,
    last_progress: Instant,
    found: Option<(Counterexample, usize, usize)>,
    stopped: Option<Incomplete>,
    /// Unknown answers whose question was then settled another way (a disjunction
    /// asked again path by path), which leave nothing uncovered.
    settled: u64,
    /// Unknown answers to difference queries during the search: the final proof step
    /// asks about every pair again, so they count only if it does not run to its end.
    deferred: u64,
    /// Whether the final proof step asks one disjunction per left path before pairs
    /// (see [`Search::prove`]).
    disjunctions_first: bool,
}

/// Compares two programs, following every call.
pub fn compare(
    left: &Program,
    right: &Program,
    opts: &Options,
    observer: &mut dyn Observer,
) -> Report {
    compare_calling(left, right, Default::default(), opts, observer)
}

/// Compares two programs; calls to the procedures in `calls` (one map per side, the
/// same procedure under the same number on both) are recorded as events.
pub fn compare_calling(
    left: &Program,
    right: &Program,
    calls: [trace::Calls; 2],
    opts: &Options,
    observer: &mut dyn Observer,
) -> Report {
    Search::new(&[left, right], calls.into(), opts, observer).run()
}

/// Explores every path of one program (for `check` and `paths`).
pub fn explore(program: &Program, opts: &Options, observer: &mut dyn Observer) -> Exploration {
    Search::new(&[program], Vec::new(), opts, observer).run_alone()
}

/// The paths of one program and how complete the enumeration is.
#[derive(Clone, Debug)]
pub struct Exploration {
    pub paths: Vec<PathReport>,
    /// Empty when every path within the fuel and depth was enumerated.
    pub incomplete: Vec<Incomplete>,
    pub stats: Stats,
    pub input_names: Vec<String>,
}

/// The readable path conditions of one traced run of `program` on `values` (in the
/// order of the input variables, as [`InputLayout::normalise`] takes them): the same
/// conditions, in the same words, as [`explore`] lists for the path that these inputs
/// take. A run too long to trace to its end gives a prefix of its conditions.
pub fn path_conditions(program: &Program, opts: &Options, values: &[u32]) -> Vec<String> {
    let mut store = TermStore::new();
    let layout = InputLayout::declare(&mut store, &opts.inputs, opts.stdin_len);
    let values = layout.normalise(&values.iter().map(|&v| v as u64).collect::<Vec<_>>());
    let budget = opts.budget();
    let mut machine = Machine::new(program, budget.machine_config(opts.termination));
    if layout.load(&mut machine, &values).is_err() {
        return Vec::new();
    }
    let symbolic = layout.symbolic_registers();
    let memory = layout.symbolic_memory(&mut store, program);
    let limits = TraceLimits {
        stop: budget.stop(),
        max_bytes: budget.trace_bytes(),
        ..opts.trace_limits
    };
    let mut tracer = SymTracer::new(
        &mut store,
        machine.regs(),
        &symbolic,
        program.words().clone(),
        opts.termination,
        false,
    )
    .with_memory(memory)
    .with_stdin(layout.symbolic_stdin().to_vec())
    .with_limits(limits);
    machine.run_to_outcome(&mut tracer);
    let (conds, _, _) = tracer.finish();
    conds
        .iter()
        .map(|c| store.readable(c.cond).to_string())
        .collect()
}

impl<'o> Search<'o> {
    fn new(
        programs: &[&Program],
        calls: Vec<trace::Calls>,
        opts: &'o Options,
        observer: &'o mut dyn Observer,
    ) -> Self {
        let mut store = TermStore::new();
        let mut layout = InputLayout::declare(&mut store, &opts.inputs, opts.stdin_len);
        // The front door validated the preconditions; ones that do not fit admit nothing.
        let _ = layout.assume(&mut store, &opts.assume);
        // The front door refused a domain program it could not encode exactly; one that
        // fails here (its budget's deadline passed meanwhile) admits no input, and the
        // search says so rather than prove anything of an empty domain.
        let domain_refused = crate::bmc::domain::restrict(&mut store, &mut layout, opts)
            .err()
            .map(|e| e.uncovered());
        let domain = layout.domain(&mut store);
        let now = Instant::now();
        let budget = opts.budget();
        let config = budget.machine_config(opts.termination);
        // Procedures both programs contain, compared by their calls (checked once,
        // alone, before any call is trusted, by the caller: `equiv`).
        let calls: Vec<Option<std::sync::Arc<trace::Calls>>> = calls
            .into_iter()
            .map(|c| Some(std::sync::Arc::new(c)))
            .chain(std::iter::repeat(None))
            .take(programs.len())
            .collect();
        let sides = programs
            .iter()
            .zip(calls)
            .map(|(&p, calls)| SideState {
                calls,
                program: p.clone(),
                machine: Machine::new(p, config),
                tree: PathTree::default(),
                summaries: Summaries::new(domain.clone()),
                checkpoints: FxHashMap::default(),
                stack: Vec::new(),
                leaves: Vec::new(),
            })
            .collect();
        let solver = build_chain(&opts.solver, config.stop, domain);
        Search {
            opts,
            domain_refused,
            observer,
            store,
            layout,
            jump_targets: FxHashSet::default(),
            restarts_tried: 0,
            unbounded: false,
            sides,
            stats: Stats {
                solver_name: solver.describe(),
                ..Stats::default()
            },
            solver,
            pairs_seen: FxHashSet::default(),
            pending_pairs: Vec::new(),
            start: now,
            budget,
            trace_bytes: 0,
            last_progress: now,
            found: None,
            stopped: None,
            settled: 0,
            deferred: 0,
            disjunctions_first: false,
        }
    }

    fn config(&self) -> Config {
        self.budget.machine_config(self.opts.termination)
    }

    fn named(&self, inputs: &[u32]) -> Vec<(String, u32)> {
        self.layout
            .names()
            .iter()
            .cloned()
            .zip(inputs.iter().copied())
            .collect()
    }

    /// The depth-first search, until every side's tree is closed, a difference is
    /// found, or a budget runs out.
    fn search(&mut self) {
        let init: Vec<u64> = self.opts.init_inputs.iter().map(|&v| v as u64).collect();
        let init = self.layout.normalise(&init);
        if self.layout.admits(&init) {
            self.try_inputs(&init);
        } else if let Answer::Sat(model) = self.ask(&[]) {
            // The first inputs break a precondition: the solver picks the first run,
            // anywhere in the domain (a program without a branch has no node for it
            // to aim at).
            let inputs = self.inputs_of(&model.values);
            self.try_inputs(&inputs);
        } else {
            for side in 0..self.sides.len() {
                self.push(side, 0);
            }
        }
        if self.sides.len() == 2 {
            self.try_edges(&init);
        }
        let n = self.sides.len();
        let mut turn = 0usize;
        while self.found.is_none() && self.stopped.is_none() {
            self.check_budget();
            if self.stopped.is_some() {
                break;
            }
            if let Some((l, r)) = self.pending_pairs.pop() {
                self.difference_query(l, r);
                continue;
            }
            let Some(side) = (0..n)
                .map(|k| (turn + k) % n)
                .find(|&s| !self.sides[s].stack.is_empty())
            else {
                if self.lift_depth_bound() {
                    continue;
                }
                break;
            };
            let Some(node) = self.sides[side].stack.pop() else {
                break;
            };
            self.sides[side].tree.node_mut(node).queued = false;
            self.explore(side, node);
            turn = (side + 1) % n;
        }
    }

    /// Runs both programs on edge inputs, in a fixed order: every input at one edge
    /// value, then each input alone at each edge value (the others as first tried).
    /// Cheap concrete runs that find the usual sign and overflow slips at once, and
    /// whose paths the search then needs not ask the solver for.
    fn try_edges(&mut self, init: &[u32]) {
        let n = init.len();
        let mut tried: rustc_hash::FxHashSet<Vec<u32>> = rustc_hash::FxHashSet::default();
        tried.insert(init.to_vec());
        let all = FIRST_EDGES.iter().map(|&e| vec![e as u64; n]);
        let one = (0..n).flat_map(|i| {
            FIRST_EDGES.iter().map(move |&e| {
                let mut v: Vec<u64> = init.iter().map(|&x| x as u64).collect();
                v[i] = e as u64;
                v
            })
        });
        let most = usize::try_from(EDGE_FUEL / self.opts.fuel.max(1))
            .unwrap_or(usize::MAX)
            .clamp(2, MAX_EDGE_RUNS);
        for values in all.chain(one) {
            if tried.len() > most || self.found.is_some() {
                return;
            }
            let inputs = self.layout.normalise(&values);
            if !tried.insert(inputs.clone()) {
                continue;
            }
            self.check_budget();
            if self.stopped.is_some() {
                return;
            }
            let partial = self.stats.partial_runs;
            self.try_inputs(&inputs);
            if self.stats.partial_runs > partial {
                // The tracer could not follow this run to its end; more edge runs
                // would cost as much and teach the search nothing.
                return;
            }
        }
    }

    /// In a comparison whose hunt within the depth bound ended without a difference,
    /// reopens the paths it cut there so that the proof follows them (whether it
    /// did).
    fn lift_depth_bound(&mut self) -> bool {
        // Runs the tracer could not follow to their end (too many conditions or terms)
        // would be as partial deeper down: the bound stays, with both reasons.
        if self.unbounded
            || self.sides.len() < 2
            || self.found.is_some()
            || self.stats.partial_runs > 0
        {
            return false;
        }
        self.unbounded = true;
        let mut reopened = false;
        for side in 0..self.sides.len() {
            let cut: Vec<NodeId> = (0..self.sides[side].tree.len())
                .filter(|&id| self.sides[side].tree.node(id).state == NodeState::Cut)
                .collect();
            for id in cut {
                self.sides[side].tree.node_mut(id).state = NodeState::Open;
                self.push(side, id);
                reopened = true;
            }
        }
        reopened
    }

    fn run(mut self) -> Report {
        self.search();
        let mut proof_queries = 0;
        self.settled += self.deferred;
        let mut coverage = self.coverage();
        self.settled -= self.deferred;
        if self.found.is_none() && coverage.incomplete.is_empty() {
            proof_queries = self.prove();
            if self.stopped.is_none() && !self.config().stop.reached() {
                self.settled += self.deferred;
            }
        }
        coverage = self.coverage();
        self.finish(coverage, proof_queries)
    }

    fn check_budget(&mut self) {
        let paths = self
            .sides
            .iter()
            .map(|s| s.leaves.len() as u64)
            .max()
            .unwrap_or(0);
        if self.opts.max_paths.is_some_and(|m| paths >= m) {
            self.stopped = Some(Incomplete::PathBudget { paths });
        } else if self.stats.runs >= self.opts.max_runs {
            self.stopped = Some(Incomplete::RunBudget {
                runs: self.stats.runs,
            });
        } else if self.budget.interrupted() {
            self.stopped = Some(Incomplete::Interrupted);
        } else if self.trace_bytes_left() < MIN_RUN_TRACE_BYTES && self.stats.partial_runs > 0 {
            // What the runs recorded all but fills the trace memory: a run now could
            // hardly be traced.
            self.stopped = Some(Incomplete::TraceLimit {
                runs: self.stats.partial_runs,
            });
        } else if self.budget.expired() {
            self.stopped = Some(Incomplete::Timeout {
                millis: self.budget.started().elapsed().as_millis() as u64,
            });
        }
        if self.last_progress.elapsed() >= Duration::from_millis(100) {
            self.last_progress = Instant::now();
            let p = Progress {
                runs: self.stats.runs,
                paths: self.path_counts(),
                queries: self.solver.stats.queries,
                elapsed: self.start.elapsed(),
            };
            self.observer.progress(&p);
        }
    }

    /// The bytes of the trace memory that the runs so far left.
    fn trace_bytes_left(&self) -> usize {
        self.budget.trace_bytes().saturating_sub(self.trace_bytes)
    }

    fn path_counts(&self) -> (u64, u64) {
        let count = |k: usize| self.sides.get(k).map_or(0, |s| s.leaves.len() as u64);
        (count(0), count(1))
    }

    /// Explores one program alone and reports its paths.
    fn run_alone(mut self) -> Exploration {
        self.search();
        let coverage = self.coverage();
        let paths = self.path_reports(0);
        self.stats.paths = self.path_counts();
        self.stats.solver = self.solver.stats.clone();
        self.stats.warnings = self.solver.warnings();
        self.stats.solver_failure = self.solver.failure();
        self.stats.jump_targets = self.jump_targets.len() as u64;
        self.stats.total = self.start.elapsed();
        let exploration = Exploration {
            paths,
            incomplete: coverage.incomplete,
            stats: std::mem::take(&mut self.stats),
            input_names: self.layout.names().to_vec(),
        };
        self.free_later();
        exploration
    }

    /// The paths of one side, as first seen, for reports.
    fn path_reports(&self, side: usize) -> Vec<PathReport> {
        self.sides[side]
            .leaves
            .iter()
            .map(|leaf| PathReport {
                inputs: self.named(&leaf.first_inputs),
                values: self.layout.describe(&leaf.first_inputs),
                outcome: leaf.first_outcome.clone(),
                conditions: self.sides[side]
                    .tree
                    .conds_to(leaf.node)
                    .iter()
                    .map(|&c| self.store.readable(c).to_string())
                    .collect(),
                partial: leaf.outcome == LeafOutcome::Partial,
            })
            .collect()
    }

    /// Asks about `node`'s remainder and follows the answer.
    fn explore(&mut self, side: usize, node: NodeId) {
        let tree = &self.sides[side].tree;
        if tree.node(node).state != NodeState::Open || tree.node(node).leaf.is_some() {
            return;
        }
        if !self.unbounded && self.sides[side].tree.node(node).depth >= self.opts.depth {
            let covered = self.sides[side].tree.children_cover(&mut self.store, node);
            self.sides[side].tree.node_mut(node).state = if covered {
                NodeState::Closed
            } else {
                NodeState::Cut
            };
            return;
        }
        let Some(query) = self.remainder(side, node) else {
            self.sides[side].tree.node_mut(node).state = NodeState::Closed;
            return;
        };
        match self.ask(&query) {
            Answer::Unsat => self.sides[side].tree.node_mut(node).state = NodeState::Closed,
            Answer::Unknown(_) => self.sides[side].tree.node_mut(node).state = NodeState::Unknown,
            Answer::Sat(model) => {
                let before = self.sides[side].tree.node(node).children.len();
                self.push(side, node);
                let inputs = self.inputs_of(&model.values);
                self.try_inputs_along(&inputs, Some((side, node)));
                if self.found.is_none() && self.sides[side].tree.node(node).children.len() == before
                {
                    self.stats.restarts += 1;
                    self.sides[side].tree.node_mut(node).state = NodeState::Diverged;
                    self.restart();
                }
            }
        }
    }

    /// The query for `node`'s remainder: its prefix (summarised) and none of its
    /// children's conditions. `None` when the remainder is empty without asking
    /// (complementary children, or a prefix the summary shows infeasible).
    fn remainder(&mut self, side: usize, node: NodeId) -> Option<Vec<Term>> {
        let s = &mut self.sides[side];
        let none = s.tree.none_of_children(&mut self.store, node)?;
        let mut query = s.summaries.conjuncts(&mut self.store, &s.tree, node)?;
        query.push(none);
        Some(query)
    }

    /// The summarised prefix of a path (`None`: no input takes it).
    fn path_query(&mut self, side: usize, leaf: usize) -> Option<Vec<Term>> {
        let s = &mut self.sides[side];
        let node = s.leaves[leaf].node;
        s.summaries.conjuncts(&mut self.store, &s.tree, node)
    }

    /// Whether no input takes both left path `l` and right path `r`, as their
    /// summaries' arcs show.
    fn exclusive(&mut self, l: usize, r: usize) -> bool {
        let (left, right) = self.sides.split_at_mut(1);
        let (a, b) = (&mut left[0], &mut right[0]);
        let (ln, rn) = (a.leaves[l].node, b.leaves[r].node);
        a.summaries
            .exclusive(&mut self.store, &a.tree, ln, &mut b.summaries, &b.tree, rn)
    }

    /// After a run left its predicted path: keep searching from fresh inputs (edge
    /// values, then pseudo-random ones), which may reach paths the solver could not.
    fn restart(&mut self) {
        let n = self.layout.vars().len();
        let k = self.restarts_tried;
        self.restarts_tried += 1;
        let values: Vec<u64> = (0..n)
            .map(|i| {
                let e = EDGE_VALUES.len() as u64;
                if k < e {
                    EDGE_VALUES[((k + i as u64) % e) as usize] as u64
                } else {
                    // splitmix64 of (k, i): deterministic, well spread.
                    crate::term::mix64(((k << 8) | i as u64).wrapping_add(0x9E37_79B9_7F4A_7C15))
                }
            })
            .collect();
        let inputs = self.layout.normalise(&values);
        self.try_inputs(&inputs);
    }

    fn ask(&mut self, query: &[Term]) -> Answer {
        let answer = self.solver.check(&mut self.store, query);
        // Past the time limit or after an interrupt the chain answers unknown without
        // asking; the search stops for that reason too (the final proof step asks
        // without looking at the budget between queries).
        if matches!(answer, Answer::Unknown(_)) && self.config().stop.reached() {
            self.check_budget();
        }
        answer
    }

    fn inputs_of(&self, values: &[u64]) -> Vec<u32> {
        self.layout.normalise(values)
    }

    fn push(&mut self, side: usize, node: NodeId) {
        let s = &mut self.sides[side];
        let n = s.tree.node_mut(node);
        if n.state == NodeState::Open && !n.queued && n.leaf.is_none() {
            n.queued = true;
            s.stack.push(node);
        }
    }

    /// Runs both programs on `inputs`, records their paths, compares them.
    fn try_inputs(&mut self, inputs: &[u32]) {
        self.try_inputs_along(inputs, None);
    }

    /// [`Search::try_inputs`], for inputs that satisfy the prefix of `along`'s node
    /// (a side and a node of its tree): that side's run goes on from the deepest
    /// checkpoint on the prefix.
    fn try_inputs_along(&mut self, inputs: &[u32], along: Option<(usize, NodeId)>) {
        if !self.layout.admits(inputs) {
            return;
        }
        self.stats.runs += 1;
        let at = |side: usize| along.filter(|&(s, _)| s == side).map(|(_, n)| n);
        let (lo, lobs, ll) = self.run_side(0, inputs, at(0));
        if self.sides.len() < 2 {
            return;
        }
        let (ro, robs, rl) = self.run_side(1, inputs, at(1));
        if verdict::results_differ(self.opts.out_of_fuel, &lo, &lobs, &ro, &robs) {
            self.confirm(inputs, ll, rl);
            return;
        }
        if self.pairs_seen.insert((ll, rl)) {
            self.pending_pairs.push((ll, rl));
        }
    }

    /// Replays a suspected difference on fresh machines; keeps it only if it shows.
    fn confirm(&mut self, inputs: &[u32], ll: usize, rl: usize) {
        let Some(cx) = self.replay(inputs) else {
            self.stats.restarts += 1;
            return;
        };
        let cx = self.shrink(cx, ll, rl);
        let cx = self.minimise(cx);
        self.found = Some((cx, ll, rl));
    }

    /// The shared concrete minimiser, when the options ask for it.
    fn minimise(&mut self, cx: Counterexample) -> Counterexample {
        if !self.opts.minimise {
            return cx;
        }
        let replayer = crate::minimise::Replayer {
            left: &self.sides[0].program,
            right: &self.sides[1].program,
            config: self.config(),
            layout: &self.layout,
            observe: &self.opts.observe,
            policy: self.opts.out_of_fuel,
        };
        let (cx, done) = crate::minimise::minimise(&replayer, cx, crate::minimise::MAX_REPLAYS);
        self.stats.shrink_steps += done.steps;
        self.stats.shrink_replays += done.replays;
        cx
    }

    fn replay(&self, inputs: &[u32]) -> Option<Counterexample> {
        verdict::replay(
            &self.sides[0].program,
            &self.sides[1].program,
            self.config(),
            &self.layout,
            inputs,
            &self.opts.observe,
            self.opts.out_of_fuel,
        )
    }

    /// The deepest checkpoint on the prefix of `node`, and the node it belongs to.
    fn checkpoint_for(
        &self,
        side: usize,
        node: NodeId,
    ) -> Option<(NodeId, std::sync::Arc<trace::Checkpoint>)> {
        let s = &self.sides[side];
        let mut at = Some(node);
        while let Some(n) = at {
            if let Some(c) = s.checkpoints.get(&n) {
                return Some((n, c.clone()));
            }
            at = s.tree.node(n).parent;
        }
        None
    }

    /// Runs one side with tracing; returns its outcome, what it observed, and its leaf.
    /// With `along`, a node whose prefix the inputs satisfy, the run's first steps are
    /// replayed untraced up to the deepest checkpoint on that prefix.
    fn run_side(
        &mut self,
        side: usize,
        inputs: &[u32],
        along: Option<NodeId>,
    ) -> (Outcome, Vec<Observed>, usize) {
        let termination = self.opts.termination;
        let record = self.opts.dump_trace;
        let symbolic = self.layout.symbolic_registers();
        let memory = self
            .layout
            .symbolic_memory(&mut self.store, &self.sides[side].program);
        // The input array's words: accesses at input-dependent addresses inside them
        // keep the rest of memory concrete (see `trace`).
        let region = memory
            .iter()
            .map(|&(a, _)| a)
            .min()
            .zip(memory.iter().map(|&(a, _)| a.saturating_add(4)).max());
        let stdin_terms = self.layout.symbolic_stdin().to_vec();
        let resume = along
            .filter(|_| !record && self.opts.trace_resume)
            .and_then(|n| {
                self.checkpoint_for(side, n)
                    .map(|(at, c)| (c, at, self.sides[side].tree.node(n).depth))
            });
        let trace_room = self.trace_bytes_left();
        let s = &mut self.sides[side];
        s.machine.reset();
        if self.layout.load(&mut s.machine, inputs).is_err() {
            // An array that does not fit this program's memory: the run cannot start,
            // so the path stays unexplored.
            let outcome = s.machine.run_to_outcome(&mut tamarin_mips::NoTrace);
            let (leaf, _, _) = self.record_path(
                side,
                inputs,
                &[],
                None,
                &outcome,
                Vec::new(),
                (true, false, false),
            );
            return (outcome, Vec::new(), leaf);
        }
        let limits = TraceLimits {
            stop: self.budget.stop(),
            // Half of what is left, so that one long run leaves room for the short
            // runs on other inputs that may still find a difference.
            max_bytes: trace_room / 2,
            ..self.opts.trace_limits
        };
        let image = s.program.words().clone();
        // Resume from the checkpoint where there is one: the machine is placed in the
        // checkpoint's state at these inputs, or where it cannot be, replays the steps
        // untraced and must be where the checkpoint says it was (else the run is
        // traced from the start).
        let store = &self.store;
        let resumed = resume.filter(|(c, _, _)| {
            let values: Vec<u64> = inputs.iter().map(|&v| u64::from(v)).collect();
            c.place(store, &values, &mut s.machine)
                || (s
                    .machine
                    .run_until(&mut tamarin_mips::NoTrace, c.steps())
                    .is_none()
                    && c.matches(s.machine.regs()))
        });
        if resumed.is_none() && s.machine.steps() > 0 {
            s.machine.reset();
            let _ = self.layout.load(&mut s.machine, inputs);
        }
        let calls = s.calls.clone();
        let mut tracer = match &resumed {
            Some((c, _, _)) => SymTracer::resume(&mut self.store, c, termination, limits),
            None => SymTracer::new(
                &mut self.store,
                s.machine.regs(),
                &symbolic,
                image,
                termination,
                record,
            )
            .with_memory(memory)
            .with_array_region(region)
            .with_stdin(stdin_terms)
            .with_limits(limits),
        }
        .with_calls(calls);
        let from = resumed.as_ref().map_or(0, |&(_, _, depth)| depth + 1);
        // The run's conditions begin with the checkpoint's node's prefix.
        let below = resumed.as_ref().map(|(c, at, _)| (*at, c.conds()));
        if !record && self.opts.trace_resume {
            tracer = tracer.with_checkpoints(CHECKPOINT_EVERY, from);
        }
        let outcome = s.machine.run_to_outcome(&mut tracer);
        // A run cut short by the time limit or an interrupt is partial too, but says
        // nothing about trace limits: the search's own stop reason covers it.
        let cut_short =
            outcome.status == Status::Stopped || tracer.gave_up() == Some(trace::GaveUp::Deadline);
        // A run whose calls do not stand for every input of its path is partial too.
        let by_calls = !cut_short
            && (tracer.gave_up() == Some(trace::GaveUp::CallEffects)
                || !tracer.calls_hold(
                    outcome.status,
                    outcome.steps,
                    self.opts.fuel,
                    &self.opts.observe,
                ));
        self.stats.call_events += u64::from(tracer.call_events());
        let partial = tracer.gave_up().is_some() || cut_short || by_calls;
        let observed_terms: Vec<Vec<Term>> = self
            .opts
            .observe
            .iter()
            .map(|o| tracer.observe(o))
            .collect();
        let checkpoints = tracer.take_checkpoints();
        self.trace_bytes = self.trace_bytes.saturating_add(tracer.bytes_used());
        // Only the conditions after the checkpoint are new: the ones before are its
        // node's prefix, in the tree already.
        let (conds, steps, _) = tracer.finish_from(below.map_or(0, |(_, n)| n));
        for c in &conds {
            if c.kind == trace::CondKind::JumpTarget {
                self.jump_targets.insert(c.cond);
            }
        }
        let observed: Vec<Observed> = self
            .opts
            .observe
            .iter()
            .map(|o| observe(&self.sides[side].machine, &outcome, o))
            .collect();
        if !self.sides[side].machine.output().is_empty() {
            match side {
                0 => self.stats.wrote_output.0 = true,
                _ => self.stats.wrote_output.1 = true,
            }
        }
        if record {
            let mut text = trace::render(&self.store, &steps);
            text.push_str(&format!("    => {}", outcome.status.name()));
            if let Status::Error(f) = outcome.status {
                text.push_str(&format!(" ({f})"));
            } else if outcome.status == Status::Done {
                for (o, terms) in self.opts.observe.iter().zip(&observed_terms) {
                    let shown: Vec<String> = terms
                        .iter()
                        .map(|&t| self.store.readable(t).to_string())
                        .collect();
                    text.push_str(&format!(", {o} = {}", shown.join(" ")));
                }
            }
            let named = self.named(inputs);
            let which = if side == 0 { Side::Left } else { Side::Right };
            self.observer.trace(which, &named, &text);
        }
        let (leaf, first, along) = self.record_path(
            side,
            inputs,
            &conds,
            below,
            &outcome,
            observed_terms,
            (partial, cut_short, by_calls),
        );
        // Each checkpoint belongs to the node its conditions lead to (`along[d]` is
        // the node after `first + d` conditions).
        if !checkpoints.is_empty() {
            let s = &mut self.sides[side];
            for c in checkpoints {
                let at = c.conds().checked_sub(first).and_then(|d| along.get(d));
                if let Some(&node) = at {
                    s.checkpoints
                        .entry(node)
                        .or_insert_with(|| std::sync::Arc::new(c));
                }
            }
        }
        (outcome, observed, leaf)
    }

    /// Records a run's path in its side's tree: `conds` are its conditions after the
    /// `below` node's prefix (a node and its depth; the root when `None`). Returns its
    /// leaf, and the nodes along it from the `below` node on with that depth: the
    /// nodes above were queued when they were made.
    #[allow(clippy::too_many_arguments)]
    fn record_path(
        &mut self,
        side: usize,
        inputs: &[u32],
        conds: &[PathCond],
        below: Option<(NodeId, usize)>,
        outcome: &Outcome,
        observed: Vec<Vec<Term>>,
        (partial, cut_short, by_calls): (bool, bool, bool),
    ) -> (usize, usize, Vec<NodeId>) {
        let terms: Vec<Term> = conds.iter().map(|c| c.cond).collect();
        let s = &mut self.sides[side];
        let (start, first) = below.unwrap_or((0, 0));
        debug_assert_eq!(s.tree.node(start).depth, first, "a checkpoint's node");
        let (along, _) = s.tree.insert_below(start, &terms);
        let end = along.last().copied().unwrap_or(0);
        let existing = s.tree.node(end).leaf;
        let leaf = match existing {
            Some(l) => l,
            None => {
                let l = s.leaves.len();
                s.leaves.push(Leaf {
                    node: end,
                    first_inputs: inputs.to_vec(),
                    first_outcome: outcome.clone(),
                    observed,
                    outcome: match outcome.status {
                        _ if partial => LeafOutcome::Partial,
                        Status::Done => LeafOutcome::Done,
                        Status::Error(_) => LeafOutcome::Error,
                        Status::OutOfFuel => LeafOutcome::OutOfFuel,
                        Status::Stopped => LeafOutcome::Partial,
                    },
                });
                if partial {
                    // The path goes on past what was recorded: nothing under this
                    // node is known, so it is never closed.
                    if cut_short {
                        self.stats.stopped_runs += 1;
                    } else if by_calls {
                        self.stats.call_partial_runs += 1;
                    } else {
                        self.stats.partial_runs += 1;
                    }
                    if s.tree.node(end).children.is_empty() {
                        s.tree.node_mut(end).state = NodeState::Partial;
                    }
                } else {
                    let n = s.tree.node_mut(end);
                    n.leaf = Some(l);
                    n.state = NodeState::Closed;
                }
                l
            }
        };
        for &n in &along {
            self.push(side, n);
        }
        (leaf, first, along)
    }

    /// The condition that two paths' results differ (given both are followed).
    fn diff(&mut self, l: usize, r: usize) -> Term {
        let (left, right) = (&self.sides[0].leaves[l], &self.sides[1].leaves[r]);
        let policy = self.opts.out_of_fuel;
        match verdict::rule(policy, left.outcome.ending(), right.outcome.ending()) {
            verdict::Rule::Same => self.store.bool(false),
            verdict::Rule::Different => self.store.bool(true),
            verdict::Rule::CompareObservables => {
                let (a, b) = (left.observed.clone(), right.observed.clone());
                verdict::observed_differ(&mut self.store, &a, &b)
            }
        }
    }

    /// The inputs on which left path `l` and right path `r` are both taken and differ
    /// (`None`: no input takes both).
    fn difference_region(&mut self, l: usize, r: usize) -> Option<Vec<Term>> {
        let d = self.diff(l, r);
        let mut q = self.path_query(0, l)?;
        q.extend(self.path_query(1, r)?);
        q.push(d);
        Some(q)
    }

    fn difference_query(&mut self, l: usize, r: usize) {
        let d = self.diff(l, r);
        if self.store.as_const(d) == Some(0) {
            return;
        }
        let Some(q) = self.difference_region(l, r) else {
            return;
        };
        self.stats.difference_queries += 1;
        match self.ask(&q) {
            Answer::Sat(m) => {
                let inputs = self.inputs_of(&m.values);
                self.try_inputs(&inputs);
                if self.found.is_none() {
                    self.stats.restarts += 1;
                }
            }
            Answer::Unknown(_) => self.deferred += 1,
            Answer::Unsat => {}
        }
    }

    /// The final step: for each left path, is there a right path and an input on
    /// both on which the results differ? Returns the queries asked.
    fn prove(&mut self) -> u64 {
        let (nl, nr) = (self.sides[0].leaves.len(), self.sides[1].leaves.len());
        if (nl as u64).saturating_mul(nr as u64) > self.opts.max_pairs {
            // Pairs that their arcs keep apart (other array lengths, other trip
            // counts) cost nothing: only the others count against the budget.
            let mut live = 0u64;
            for l in 0..nl {
                live += (0..nr).filter(|&r| !self.exclusive(l, r)).count() as u64;
            }
            if live > self.opts.max_pairs {
                self.stopped = Some(Incomplete::TooManyPairs { pairs: live });
                return 0;
            }
        }
        // Pairs that exclude each other outright (a condition on one path whose
        // negation is on the other) are skipped: the negated conditions of the side
        // whose paths are shorter in all are looked up in the other side's tree, so the
        // work does not grow with the long side's paths' lengths (a loop of n trips
        // has paths of every length up to n).
        let total = |side: &SideState| -> usize {
            side.leaves
                .iter()
                .map(|l| side.tree.node(l.node).depth)
                .sum()
        };
        let short = usize::from(total(&self.sides[1]) <= total(&self.sides[0]));
        let long = 1 - short;
        let ancestry = self.sides[long].tree.ancestry();
        let short_negated: Vec<Vec<Term>> = self.sides[short]
            .leaves
            .iter()
            .map(|leaf| {
                let conds = self.sides[short].tree.conds_to(leaf.node);
                conds.iter().map(|&c| self.store.not(c)).collect()
            })
            .collect();
        let opposed = |s: &[SideState], l: usize, r: usize| -> bool {
            let (k, other) = if short == 1 { (r, l) } else { (l, r) };
            let end = s[long].leaves[other].node;
            short_negated[k].iter().any(|&n| ancestry.on_path(n, end))
        };
        let mut asked = 0;
        for l in 0..nl {
            let Some(mut q) = self.path_query(0, l) else {
                continue;
            };
            let mut candidates = Vec::new();
            for r in 0..nr {
                let d = self.diff(l, r);
                if self.store.as_const(d) == Some(0) || self.exclusive(l, r) {
                    continue;
                }
                if opposed(&self.sides, l, r) {
                    continue;
                }
                candidates.push((r, d));
            }
            if candidates.is_empty() {
                continue;
            }
            let mut any = self.store.bool(false);
            for &(r, d) in &candidates {
                let Some(path) = self.path_query(1, r) else {
                    continue;
                };
                let path = self.store.and_all(path);
                let both = self.store.and(path, d);
                any = self.store.or(any, both);
            }
            q.push(any);
            // One disjunction over the right paths, or a query per pair. Pairs first
            // while they are cheap (decided in the chain, such as comparisons of
            // inputs, or easy for the backend); once one left path's pairs cost the
            // backend more than PAIR_BACKEND_BUDGET units of work, disjunctions first
            // (pair queries that divide cost more than one query over every path). A
            // disjunction left unknown, or one too large to build, is asked pair by
            // pair.
            let pairs_first = candidates.len() > MAX_DISJUNCTS
                || (candidates.len() > 1 && !self.disjunctions_first);
            let mut answer = None;
            if pairs_first {
                q.pop();
                let budget = (candidates.len() <= MAX_DISJUNCTS).then_some(PAIR_BACKEND_BUDGET);
                answer = self.prove_by_pairs(l, &q, &mut asked, budget);
                if answer.is_none() {
                    self.disjunctions_first = true;
                    q.push(any);
                }
            }
            let answer = match answer {
                Some(a) => a,
                None => {
                    asked += 1;
                    self.stats.difference_queries += 1;
                    match self.ask(&q) {
                        Answer::Unknown(why) if !self.config().stop.reached() => {
                            // Too hard as one disjunction: path by path instead.
                            self.settled += 1;
                            q.pop();
                            self.prove_by_pairs(l, &q, &mut asked, None)
                                .unwrap_or(Answer::Unknown(why))
                        }
                        answer => answer,
                    }
                }
            };
            if let Answer::Sat(m) = answer {
                let inputs = self.inputs_of(&m.values);
                self.try_inputs(&inputs);
                if self.found.is_some() {
                    return asked;
                }
                self.stats.restarts += 1;
            }
        }
        asked
    }

    /// Whether some input of left path `l` (its summarised prefix `left`) takes a
    /// right path on which the results differ, asked path by path: the right tree is
    /// walked from its root under `left`, a subtree entered only where some input of
    /// `l` reaches it (its children cover their parent: the tree is closed), and each
    /// right path reached gets its own difference query. Small conjunctive queries in
    /// place of one disjunction over every right path, which the solver may not decide
    /// (an array's maximum computed two ways). A node is entered with a model of its
    /// query where one is known, and the child whose condition that model satisfies
    /// is entered with it, without a query. `Unknown` when some pair's query was;
    /// `None` when the walk cost the backend more than `budget` units of work, and
    /// was given up.
    fn prove_by_pairs(
        &mut self,
        l: usize,
        left: &[Term],
        asked: &mut u64,
        budget: Option<u64>,
    ) -> Option<Answer> {
        let mut undecided = None;
        let work_before = self.solver.backend_work();
        let first: Vec<u64> = self.sides[0].leaves[l]
            .first_inputs
            .iter()
            .map(|&v| v as u64)
            .collect();
        let left_node = self.sides[0].leaves[l].node;
        let mut stack: Vec<(NodeId, Option<Vec<u64>>)> = vec![(0, Some(first))];
        while let Some((n, model)) = stack.pop() {
            if self.found.is_some() || self.config().stop.reached() {
                return Some(Answer::Unknown(crate::solver::TIME_LIMIT_PASSED.into()));
            }
            if budget.is_some_and(|b| self.solver.backend_work().saturating_sub(work_before) > b) {
                return None;
            }
            let node = self.sides[1].tree.node(n);
            if let Some(r) = node.leaf {
                let d = self.diff(l, r);
                if self.store.as_const(d) == Some(0) {
                    continue;
                }
                let Some(path) = self.path_query(1, r) else {
                    continue;
                };
                let mut q = left.to_vec();
                q.extend(path);
                q.push(d);
                self.stats.difference_queries += 1;
                *asked += 1;
                match self.ask(&q) {
                    Answer::Sat(m) => return Some(Answer::Sat(m)),
                    Answer::Unsat => {}
                    Answer::Unknown(why) => undecided = Some(why),
                }
                continue;
            }
            let children: Vec<(Term, NodeId)> = node.children.iter().rev().copied().collect();
            // The child the model takes: entered with it, unasked.
            let taken = model.as_ref().and_then(|m| {
                let mut ev = crate::term::Evaluator::new(&self.store, m);
                children
                    .iter()
                    .find(|&&(c, _)| ev.holds(c))
                    .map(|&(_, id)| id)
            });
            for (_, c) in children {
                if Some(c) == taken {
                    stack.push((c, model.clone()));
                    continue;
                }
                let (a, b) = self.sides.split_at_mut(1);
                let (a, b) = (&mut a[0], &mut b[0]);
                if a.summaries.exclusive(
                    &mut self.store,
                    &a.tree,
                    left_node,
                    &mut b.summaries,
                    &b.tree,
                    c,
                ) {
                    continue;
                }
                let Some(mut q) = b.summaries.conjuncts(&mut self.store, &b.tree, c) else {
                    continue;
                };
                q.extend_from_slice(left);
                *asked += 1;
                match self.ask(&q) {
                    Answer::Unsat => {}
                    Answer::Sat(m) => stack.push((c, Some(m.values))),
                    Answer::Unknown(_) => {
                        // Entering a subtree that no input reaches costs queries,
                        // never coverage: this unknown decides nothing.
                        self.settled += 1;
                        stack.push((c, None));
                    }
                }
            }
        }
        Some(match undecided {
            Some(why) => Answer::Unknown(why),
            None => Answer::Unsat,
        })
    }

    fn coverage(&self) -> Coverage {
        let mut incomplete = Vec::new();
        let mut cut = 0;
        let mut unknown_nodes = 0;
        let mut diverged = 0;
        for s in &self.sides {
            for n in s.tree.nodes() {
                match n.state {
                    NodeState::Cut => cut += 1,
                    NodeState::Unknown => unknown_nodes += 1,
                    NodeState::Diverged => diverged += 1,
                    NodeState::Open if self.found.is_none() && self.stopped.is_none() => {
                        // Cannot happen after a full search; count it as unexplored.
                        unknown_nodes += 1
                    }
                    _ => {}
                }
            }
        }
        if cut > 0 {
            incomplete.push(Incomplete::DepthCut {
                points: cut,
                depth: self.opts.depth,
            });
        }
        if let Some(what) = self.domain_refused {
            incomplete.push(Incomplete::Encoding { what });
        }
        let solver = &self.solver.stats;
        let unknown = solver.unknown.saturating_sub(self.settled);
        if unknown > 0 || unknown_nodes > 0 {
            incomplete.push(Incomplete::SolverUnknown {
                queries: unknown.max(unknown_nodes),
                reason: match solver.unknown_reason() {
                    r if r.is_empty() => "unknown".into(),
                    r => r,
                },
            });
        }
        if diverged > 0 || self.stats.restarts > 0 {
            incomplete.push(Incomplete::Diverged {
                runs: self.stats.restarts.max(diverged),
            });
        }
        let stopped_by_trace = matches!(self.stopped, Some(Incomplete::TraceLimit { .. }));
        if self.stats.partial_runs > 0 && !stopped_by_trace {
            incomplete.push(Incomplete::TraceLimit {
                runs: self.stats.partial_runs,
            });
        }
        if self.stats.call_partial_runs > 0 {
            incomplete.push(Incomplete::CallEffects {
                runs: self.stats.call_partial_runs,
            });
        }
        match &self.stopped {
            Some(s) => incomplete.push(s.clone()),
            None if self.stats.stopped_runs > 0 => incomplete.push(if self.budget.interrupted() {
                Incomplete::Interrupted
            } else {
                Incomplete::Timeout {
                    millis: self.budget.started().elapsed().as_millis() as u64,
                }
            }),
            None => {}
        }
        Coverage { incomplete }
    }

    fn finish(mut self, coverage: Coverage, proof_queries: u64) -> Report {
        let count = |s: &SideState, want: Option<LeafOutcome>| {
            s.leaves
                .iter()
                .filter(|l| want.is_none_or(|w| l.outcome == w))
                .count() as u64
        };
        let proof = Proof {
            engine: verdict::Engine::Concolic,
            encoding: None,
            paths: (count(&self.sides[0], None), count(&self.sides[1], None)),
            out_of_fuel: (
                count(&self.sides[0], Some(LeafOutcome::OutOfFuel)),
                count(&self.sides[1], Some(LeafOutcome::OutOfFuel)),
            ),
            queries: proof_queries,
            fuel: self.opts.fuel,
            unbounded: None,
        };
        self.stats.paths = self.path_counts();
        self.stats.out_of_fuel_paths = proof.out_of_fuel;
        self.stats.jump_targets = self.jump_targets.len() as u64;
        self.stats.solver = self.solver.stats.clone();
        self.stats.warnings = self.solver.warnings();
        self.stats.solver_failure = self.solver.failure();
        self.stats.total = self.start.elapsed();
        let cx = self.found.take().map(|(cx, _, _)| cx);
        let paths = if self.opts.keep_paths {
            (self.path_reports(0), self.path_reports(1))
        } else {
            Default::default()
        };
        let report = Report {
            verdict: verdict::decide(cx, coverage, proof),
            stats: std::mem::take(&mut self.stats),
            input_names: self.layout.names().to_vec(),
            paths,
            notes: Vec::new(),
        };
        self.free_later();
        report
    }

    /// Hands what the runs recorded (the path trees with their checkpoints, the terms)
    /// to a thread that frees it, so that the report does not wait for that: after a
    /// long loop it is millions of small nodes, seconds of work, and a deadline must
    /// hold however much was recorded.
    fn free_later(&mut self) {
        let sides = std::mem::take(&mut self.sides);
        let store = std::mem::take(&mut self.store);
        let recorded = (sides, store);
        // Where no thread can be made, the closure (and all it holds) is freed here.
        let _ = std::thread::Builder::new()
            .name("tamarin-free".into())
            .spawn(move || drop(recorded));
    }
}
