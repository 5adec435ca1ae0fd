//! Groups of wrong submissions by their bug.
//!
//! Two disequivalent submissions fall into one group when a chain of links joins them
//! (union-find). The links are found cheapest first, and a costlier kind is spent only
//! where the cheaper ones left two submissions apart:
//!
//! 1. **identical**: the same bytes (a proof of equivalence that costs nothing);
//! 2. **same reference path** (a heuristic, concrete runs only): the witnesses of the
//!    two take the same path through the reference (the same branch decisions and jump
//!    targets, in order, and the same ending, on the reference's concrete run), and
//!    each witness also makes the other submission differ from the reference;
//! 3. **proved equivalent**: `tamarin::compare` proves one equivalent to the other,
//!    under the task's options with small budgets in counts ([`PAIR_WORK`],
//!    [`PAIR_RUNS`]), so that a pair the solver cannot settle quickly is left apart the
//!    same way on any load. A newcomer is compared with one representative of each
//!    group it is not yet in, in submission order, and only where concrete runs on every
//!    known input (the witnesses of all wrong submissions, and the inputs that told
//!    earlier pairs apart) do not show them to differ.
//!
//! The whole has a wall-clock limit (`--group-timeout`), a safety net: where it cuts
//! grouping, or cuts a proof, what is not yet decided stays apart (joined only by the
//! links already found, never by a guess) and [`Formed::cut_by_wall_clock`] says so.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use tamarin::{InputLayout, Observed, Options, DEFAULT_RESOURCE_LIMIT};
use tamarin_mips::cpu::{Event, Machine, Tracer};
use tamarin_mips::{Instr, Outcome, Program};

/// Solver work (Z3's resource units, `SolverConfig::work_budget`) of one proof between
/// two wrong submissions, for each phase of the engine: two first tries at the default
/// resource limit, about two seconds of Z3's work. Two wrong submissions with the same
/// bug are usually as easy to compare as a submission and the reference (the proofs of
/// the example classes take a small part of it); a pair that needs more is left apart,
/// at a cost of seconds, where the clock used to decide it after a minute.
pub const PAIR_WORK: u64 = 2 * DEFAULT_RESOURCE_LIMIT as u64;

/// Runs (each runs both programs on one input) of one proof between two wrong
/// submissions, for each phase of the path search: enough for the paths of a loop over
/// a short array, few enough that the runs cost well under a second at any fuel.
pub const PAIR_RUNS: u64 = 256;

/// The default wall-clock limit of the whole grouping (`--group-timeout`), in seconds:
/// a safety net well above what the budgets of the proofs need on a class of hundreds.
pub const DEFAULT_GROUP_TIMEOUT_SECS: u64 = 120;

/// The options of one proof between two wrong submissions: the task's, within the
/// budgets [`PAIR_WORK`] and [`PAIR_RUNS`] (or the task's own, when smaller), with a time
/// limit that ends by `deadline` (a safety net). `None` when no time is left.
pub fn pair_options(opts: &Options, deadline: Deadline) -> Option<Options> {
    let mut o = opts.clone();
    o.solver.work_budget = Some(
        opts.solver
            .work_budget
            .map_or(PAIR_WORK, |w| w.min(PAIR_WORK)),
    );
    o.max_runs = opts.max_runs.min(PAIR_RUNS);
    match deadline.left() {
        Some(left) if left.is_zero() => return None,
        Some(left) => o.timeout = Some(opts.timeout.map_or(left, |t| t.min(left))),
        None => {}
    }
    Some(o)
}

/// The settings a stored proof between two wrong submissions was made under: the
/// task's (`canonical`) and the budgets, not the time limits (a result that a time
/// limit cut is not stored), so that a rerun finds it whatever its limits.
pub fn pair_canonical(canonical: &str) -> String {
    format!("{canonical}|pair-work={PAIR_WORK}|pair-runs={PAIR_RUNS}")
}

/// When grouping must end (`--group-timeout`), if ever.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline(Option<Instant>);

impl Deadline {
    /// `limit` from now; `None` (no limit), or one too far to reach, never ends.
    pub fn after(limit: Option<Duration>) -> Deadline {
        Deadline(limit.and_then(|l| Instant::now().checked_add(l)))
    }

    /// A deadline already past: grouping cut before it starts.
    pub fn passed_already() -> Deadline {
        Deadline(Some(Instant::now()))
    }

    /// The time left (zero once past); `None` without a limit.
    pub fn left(&self) -> Option<Duration> {
        self.0.map(|d| d.saturating_duration_since(Instant::now()))
    }

    pub fn passed(&self) -> bool {
        self.left().is_some_and(|l| l.is_zero())
    }
}

/// How a member came into its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Join {
    /// The group's representative.
    Representative,
    /// Proved equivalent to this submission (an index into the submissions), or the
    /// same bytes.
    Proved { with: usize },
    /// Its witness takes the same path through the reference as this one's.
    SamePath { with: usize },
}

impl Join {
    pub fn name(self) -> &'static str {
        match self {
            Join::Representative => "representative",
            Join::Proved { .. } => "proved-equivalent",
            Join::SamePath { .. } => "same-reference-path",
        }
    }

    pub fn with(self) -> Option<usize> {
        match self {
            Join::Representative => None,
            Join::Proved { with } | Join::SamePath { with } => Some(with),
        }
    }
}

/// A group: its members (submission indices), the representative first.
#[derive(Clone, Debug)]
pub struct Group {
    pub members: Vec<(usize, Join)>,
}

impl Group {
    pub fn representative(&self) -> usize {
        self.members[0].0
    }

    /// The kinds of link in the group, in a fixed order.
    pub fn formed_by(&self) -> Vec<&'static str> {
        let mut kinds = Vec::new();
        for kind in ["proved-equivalent", "same-reference-path"] {
            if self.members.iter().any(|(_, j)| j.name() == kind) {
                kinds.push(kind);
            }
        }
        kinds
    }
}

/// A wrong submission, as grouping needs it.
pub struct Item<'a> {
    /// Its index among the submissions.
    pub index: usize,
    pub program: &'a Program,
    pub bytes: &'a [u8],
    /// The input values of its witness.
    pub witness: &'a [u32],
}

/// Concrete runs on witnesses, with the task's settings.
pub struct Runner<'a> {
    opts: &'a Options,
    layout: &'a InputLayout,
    reference: &'a Program,
}

/// What a concrete run gives: how it ended and what it left in the observed places.
pub type RunResult = (Outcome, Vec<Observed>);

impl<'a> Runner<'a> {
    pub fn new(opts: &'a Options, layout: &'a InputLayout, reference: &'a Program) -> Self {
        Runner {
            opts,
            layout,
            reference,
        }
    }

    /// A run of `program` on `values`; `None` for inputs outside the task's domain
    /// (which tell nothing apart) or that cannot be loaded.
    pub fn run(&self, program: &Program, values: &[u32]) -> Option<RunResult> {
        if !self.layout.admits(values) {
            return None;
        }
        tamarin::run_observed(
            program,
            self.opts.machine_config(),
            self.layout,
            values,
            &self.opts.observe,
        )
    }

    /// Whether the comparison rules see a difference between two runs on one input.
    pub fn results_differ(&self, a: Option<&RunResult>, b: Option<&RunResult>) -> bool {
        match (a, b) {
            (Some((oa, va)), Some((ob, vb))) => {
                tamarin::results_differ(self.opts.out_of_fuel, oa, va, ob, vb)
            }
            _ => false,
        }
    }

    /// Whether the comparison rules see a difference between `a` and `b` on `values`.
    pub fn differ(&self, a: &Program, b: &Program, values: &[u32]) -> bool {
        self.results_differ(self.run(a, values).as_ref(), self.run(b, values).as_ref())
    }

    /// Whether the search was interrupted from outside (Ctrl-C).
    pub fn interrupted(&self) -> bool {
        self.opts.interrupted()
    }

    /// Whether `values` make `program` differ from the reference.
    pub fn exposes(&self, values: &[u32], program: &Program) -> bool {
        self.differ(self.reference, program, values)
    }

    /// The path the reference takes on `values`: a hash of its branch decisions and
    /// jump targets, in order, and how the run ended.
    pub fn reference_path(&self, values: &[u32]) -> u64 {
        struct PathHash(std::collections::hash_map::DefaultHasher);
        impl Tracer for PathHash {
            fn exec(&mut self, pc: u32, _instr: Instr, event: Event) {
                match event {
                    Event::Branch { taken } => (0u8, pc, taken as u32).hash(&mut self.0),
                    Event::Jump { target, .. } => (1u8, pc, target).hash(&mut self.0),
                    _ => {}
                }
            }
        }
        let mut tracer = PathHash(Default::default());
        let mut machine = Machine::new(self.reference, self.opts.machine_config());
        if self.layout.load(&mut machine, values).is_err() {
            return 0;
        }
        let outcome = machine.run_to_outcome(&mut tracer);
        outcome.status.name().hash(&mut tracer.0);
        tracer.0.finish()
    }
}

/// What the comparison of two wrong submissions found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairOutcome {
    /// Proved equivalent.
    pub equivalent: bool,
    /// Inputs on which they differ, when the comparison found some.
    pub witness: Option<Vec<u32>>,
    /// Left undecided by the wall clock (its time limit, or a query the limit cut),
    /// not by its budgets: on another load it might have been decided.
    pub cut_by_wall_clock: bool,
}

/// Compares pairs `(representative, newcomer)`, all at once.
pub type PairProver<'a> = dyn FnMut(&[(usize, usize)]) -> Vec<PairOutcome> + 'a;

/// The groups formed, and whether the wall clock cut the forming.
#[derive(Clone, Debug, Default)]
pub struct Formed {
    /// Largest first.
    pub groups: Vec<Group>,
    /// The grouping's time limit passed, or a proof was cut by its own: some pairs
    /// were left apart undecided.
    pub cut_by_wall_clock: bool,
}

/// The most inputs that told two wrong submissions apart, kept (beside the witnesses)
/// to tell the next ones apart without the solver.
const KEPT_SEPARATORS: usize = 32;

/// Forms the groups of `items` (in the order given, which sets the order of the work
/// and so the representatives): identical ones, then shared reference paths, then
/// proofs, where `compare` proves pairs `(representative, newcomer)` (submission
/// indices) equivalent or not, all of one call at once. Nothing is started once
/// `deadline` has passed (or after Ctrl-C): what is undecided then stays apart.
pub fn form(
    runner: &Runner,
    items: &[Item],
    deadline: Deadline,
    compare: &mut PairProver,
) -> Formed {
    let mut links = Links::new(items.len());
    let mut probes = Probes::new(runner, items);
    let mut cut = link_identical(items, &mut links, deadline);
    if !cut {
        cut = link_same_paths(runner, items, &mut probes, &mut links, deadline);
    }
    if !cut {
        cut = link_by_proofs(runner, items, &mut probes, &mut links, deadline, compare);
    }
    Formed {
        groups: assemble(items, &links),
        cut_by_wall_clock: cut,
    }
}

/// The kind of a link between two wrong submissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    Proved,
    SamePath,
}

/// The links found, as a union-find of positions in the items, with the links that
/// joined two groups (a spanning forest: each group's members reached from its
/// representative by one chain).
struct Links {
    parent: Vec<usize>,
    /// `(a, b, kind)`, in the order found.
    joins: Vec<(usize, usize, Link)>,
}

impl Links {
    fn new(n: usize) -> Links {
        Links {
            parent: (0..n).collect(),
            joins: Vec::new(),
        }
    }

    fn root(&self, mut c: usize) -> usize {
        while self.parent[c] != c {
            c = self.parent[c];
        }
        c
    }

    /// Joins the groups of `a` and `b`; false when they were one already.
    fn join(&mut self, a: usize, b: usize, kind: Link) -> bool {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra == rb {
            return false;
        }
        self.parent[ra.max(rb)] = ra.min(rb);
        self.joins.push((a, b, kind));
        true
    }

    fn together(&self, a: usize, b: usize) -> bool {
        self.root(a) == self.root(b)
    }
}

/// Known inputs (the witnesses, then the inputs that told pairs apart) and the runs of
/// each wrong submission and of the reference on them, each made once, when first
/// needed.
struct Probes<'r, 'a> {
    runner: &'r Runner<'r>,
    inputs: Vec<Vec<u32>>,
    /// Each item's witness, as an index into `inputs`.
    witness_of: Vec<usize>,
    /// Separators kept, as indices into `inputs` (the oldest first).
    separators: Vec<usize>,
    /// `(row, input)`: a row is an item's position, or `items.len()` for the reference.
    runs: HashMap<(usize, usize), Option<RunResult>>,
    programs: Vec<&'a Program>,
}

impl<'r, 'a> Probes<'r, 'a> {
    fn new(runner: &'r Runner<'r>, items: &[Item<'a>]) -> Probes<'r, 'a> {
        let mut probes = Probes {
            runner,
            inputs: Vec::new(),
            witness_of: Vec::new(),
            separators: Vec::new(),
            runs: HashMap::new(),
            programs: items.iter().map(|i| i.program).collect(),
        };
        for item in items {
            let p = probes.add(item.witness);
            probes.witness_of.push(p);
        }
        probes
    }

    /// The index of `values` among the inputs, added if new.
    fn add(&mut self, values: &[u32]) -> usize {
        match self.inputs.iter().position(|v| v == values) {
            Some(p) => p,
            None => {
                self.inputs.push(values.to_vec());
                self.inputs.len() - 1
            }
        }
    }

    /// Keeps `values`, inputs that told two wrong submissions apart.
    fn add_separator(&mut self, values: &[u32]) {
        let p = self.add(values);
        if self.witness_of.contains(&p) || self.separators.contains(&p) {
            return;
        }
        if self.separators.len() == KEPT_SEPARATORS {
            self.separators.remove(0);
        }
        self.separators.push(p);
    }

    /// Makes the run of `row` on input `input`, unless it was made before.
    fn make(&mut self, row: usize, input: usize) {
        let (runner, inputs, programs) = (self.runner, &self.inputs, &self.programs);
        self.runs.entry((row, input)).or_insert_with(|| {
            let program = programs.get(row).copied().unwrap_or(runner.reference);
            runner.run(program, &inputs[input])
        });
    }

    /// Whether rows `a` and `b` differ on input `p`.
    fn differ_on(&mut self, a: usize, b: usize, p: usize) -> bool {
        self.make(a, p);
        self.make(b, p);
        let get = |row: usize| self.runs.get(&(row, p)).and_then(Option::as_ref);
        self.runner.results_differ(get(a), get(b))
    }

    /// Whether `x`'s witness makes `y` differ from the reference.
    fn exposes(&mut self, x: usize, y: usize) -> bool {
        let reference = self.programs.len();
        self.differ_on(reference, y, self.witness_of[x])
    }

    /// Whether items `a` and `b` differ on a known input: their own witnesses first,
    /// then the others', then the separators.
    fn visibly_differ(&mut self, a: usize, b: usize) -> bool {
        let mut order = vec![self.witness_of[b], self.witness_of[a]];
        order.extend(self.witness_of.iter().copied());
        order.extend(self.separators.iter().copied());
        let mut tried = Vec::with_capacity(order.len());
        for p in order {
            if tried.contains(&p) {
                continue;
            }
            tried.push(p);
            if self.differ_on(a, b, p) {
                return true;
            }
        }
        false
    }
}

/// Links submissions with the same bytes (each to the first of them). Whether the
/// deadline had passed.
fn link_identical(items: &[Item], links: &mut Links, deadline: Deadline) -> bool {
    for k in 0..items.len() {
        if deadline.passed() {
            return true;
        }
        if let Some(j) = (0..k).find(|&j| items[j].bytes == items[k].bytes) {
            links.join(j, k, Link::Proved);
        }
    }
    false
}

/// Links submissions whose witnesses take the same path through the reference, each
/// witness exposing the other's bug too. Whether the deadline cut it.
fn link_same_paths(
    runner: &Runner,
    items: &[Item],
    probes: &mut Probes,
    links: &mut Links,
    deadline: Deadline,
) -> bool {
    let mut paths = Vec::with_capacity(items.len());
    for item in items {
        if deadline.passed() {
            return true;
        }
        paths.push(runner.reference_path(item.witness));
    }
    for y in 0..items.len() {
        for x in 0..y {
            if runner.interrupted() {
                return false;
            }
            if deadline.passed() {
                return true;
            }
            if paths[x] == paths[y]
                && !links.together(x, y)
                && probes.exposes(x, y)
                && probes.exposes(y, x)
            {
                links.join(x, y, Link::SamePath);
            }
        }
    }
    false
}

/// Proves pairs equivalent where the cheaper links left them apart: each submission,
/// in order, against the first representative (a submission not proved equivalent to
/// an earlier one) of each group it is not in that no known input tells apart from it.
/// Whether the wall clock cut it (the deadline, or a proof's own time limit).
fn link_by_proofs(
    runner: &Runner,
    items: &[Item],
    probes: &mut Probes,
    links: &mut Links,
    deadline: Deadline,
    compare: &mut PairProver,
) -> bool {
    let mut cut = false;
    let mut reps: Vec<usize> = Vec::new();
    for k in 0..items.len() {
        if runner.interrupted() {
            break;
        }
        if deadline.passed() {
            return true;
        }
        if (0..k).any(|j| items[j].bytes == items[k].bytes) {
            continue; // proved by its bytes: its first copy stands for it
        }
        let candidates = proof_candidates(&reps, k, probes, links);
        if candidates.is_empty() {
            reps.push(k);
            continue;
        }
        let pairs: Vec<(usize, usize)> = candidates
            .iter()
            .map(|&j| (items[j].index, items[k].index))
            .collect();
        let outcomes = compare(&pairs);
        let mut proved = false;
        for (&j, outcome) in candidates.iter().zip(&outcomes) {
            cut |= outcome.cut_by_wall_clock;
            if outcome.equivalent {
                links.join(j, k, Link::Proved);
                proved = true;
            }
            if let Some(w) = &outcome.witness {
                probes.add_separator(w);
            }
        }
        if !proved {
            reps.push(k);
        }
    }
    cut
}

/// The representatives that `k` is compared with: of each group that `k` is not in,
/// the first that no known input tells apart from `k`.
fn proof_candidates(reps: &[usize], k: usize, probes: &mut Probes, links: &Links) -> Vec<usize> {
    let mut groups_tried: Vec<usize> = Vec::new();
    let mut candidates = Vec::new();
    for &j in reps {
        let root = links.root(j);
        if root == links.root(k) || groups_tried.contains(&root) {
            continue;
        }
        if !probes.visibly_differ(j, k) {
            groups_tried.push(root);
            candidates.push(j);
        }
    }
    candidates
}

/// The groups of the links: each group's representative is the first member of its
/// largest set of proved-equivalent members, and every other member is reached from
/// it by one chain of links (each member naming the one it is linked to). Largest
/// first, then by their representatives' order.
fn assemble(items: &[Item], links: &Links) -> Vec<Group> {
    let n = items.len();
    let mut proved = Links::new(n);
    for &(a, b, kind) in &links.joins {
        if kind == Link::Proved {
            proved.join(a, b, kind);
        }
    }
    let mut class_size = vec![0usize; n];
    for m in 0..n {
        class_size[proved.root(m)] += 1;
    }
    let mut groups: Vec<Group> = Vec::new();
    for root in (0..n).filter(|&m| links.root(m) == m) {
        let members: Vec<usize> = (0..n).filter(|&m| links.root(m) == root).collect();
        let rep = members
            .iter()
            .copied()
            .max_by_key(|&m| (class_size[proved.root(m)], std::cmp::Reverse(m)))
            .unwrap_or(root);
        let chain = reach(rep, &links.joins);
        let members = chain
            .into_iter()
            .map(|(m, join)| {
                (
                    items[m].index,
                    join.map_or(Join::Representative, |(with, kind)| {
                        let with = items[with].index;
                        match kind {
                            Link::Proved => Join::Proved { with },
                            Link::SamePath => Join::SamePath { with },
                        }
                    }),
                )
            })
            .collect();
        groups.push(Group { members });
    }
    groups.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.representative().cmp(&b.representative()))
    });
    groups
}

/// The members reached from `start` over the links (a forest, so one chain each), in
/// the order reached, each with the member it was reached from and the link's kind.
fn reach(start: usize, joins: &[(usize, usize, Link)]) -> Vec<(usize, Option<(usize, Link)>)> {
    let mut reached: Vec<(usize, Option<(usize, Link)>)> = vec![(start, None)];
    let mut next = 0;
    while next < reached.len() {
        let from = reached[next].0;
        next += 1;
        for &(a, b, kind) in joins {
            let to = if a == from {
                b
            } else if b == from {
                a
            } else {
                continue;
            };
            if reached.iter().all(|&(m, _)| m != to) {
                reached.push((to, Some((from, kind))));
            }
        }
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin::mips::asm::assemble;

    fn program(text: &str) -> Program {
        assemble("t.asm", text).expect("assembles")
    }

    /// The reference: $3 = max($1, $2).
    fn max() -> Program {
        program("slt $4, $1, $2\nbeq $4, $0, 2\nadd $3, $2, $0\njr $31\nadd $3, $1, $0\njr $31\n")
    }

    /// Unsigned compare, twice (other code, same function); returns $1 always; returns
    /// the minimum.
    fn wrong_ones() -> [Program; 4] {
        [
            program(
                "sltu $4, $1, $2\nbeq $4, $0, 2\nadd $3, $2, $0\njr $31\nadd $3, $1, $0\njr $31\n",
            ),
            program("add $3, $1, $0\njr $31\n"),
            program(
                "slt $4, $1, $2\nbne $4, $0, 2\nadd $3, $2, $0\njr $31\nadd $3, $1, $0\njr $31\n",
            ),
            program("add $3, $2, $0\nsltu $7, $2, $1\nbeq $7, $0, 1\nadd $3, $1, $0\njr $31\n"),
        ]
    }

    const M1: u32 = u32::MAX; // -1

    /// The wrong ones as items 10 to 13, each with a witness: `unsigned` and `first`
    /// on the same input (the same path, and each shows the other), `unsigned2` on an
    /// input that takes the reference's other path.
    fn items(p: &[Program; 4]) -> Vec<Item<'_>> {
        const WITNESSES: [[u32; 2]; 4] = [[M1, 0], [M1, 0], [1, 0], [0, M1]];
        p.iter()
            .zip(&WITNESSES)
            .zip([&b"u"[..], b"f", b"m", b"v"])
            .enumerate()
            .map(|(i, ((program, witness), bytes))| Item {
                index: 10 + i,
                program,
                bytes,
                witness,
            })
            .collect()
    }

    /// The members of each group, as submission indices with their joins.
    fn members(formed: &Formed) -> Vec<Vec<(usize, Join)>> {
        formed.groups.iter().map(|g| g.members.clone()).collect()
    }

    #[test]
    fn cheap_links_come_first_and_proofs_only_join_groups_still_apart() {
        let reference = max();
        let wrong = wrong_ones();
        let opts = Options::default();
        let layout = InputLayout::new(&opts.inputs, opts.stdin_len);
        let runner = Runner::new(&opts, &layout, &reference);
        let mut asked = Vec::new();
        let mut compare = |pairs: &[(usize, usize)]| -> Vec<PairOutcome> {
            asked.extend_from_slice(pairs);
            pairs
                .iter()
                .map(|&(a, b)| PairOutcome {
                    equivalent: (a, b) == (10, 13),
                    ..PairOutcome::default()
                })
                .collect()
        };
        let formed = form(&runner, &items(&wrong), Deadline::after(None), &mut compare);
        // `first` joins `unsigned` by the reference's path, so no proof is spent on
        // them; `min` differs from every other on its witness. Only `unsigned2`,
        // which agrees with `unsigned` on every known input, is put to the solver,
        // against the first representative of that group.
        assert_eq!(asked, [(10, 13)]);
        assert!(!formed.cut_by_wall_clock);
        assert_eq!(
            members(&formed),
            [
                vec![
                    (10, Join::Representative),
                    (11, Join::SamePath { with: 10 }),
                    (13, Join::Proved { with: 10 }),
                ],
                vec![(12, Join::Representative)],
            ]
        );
        assert_eq!(
            formed.groups[0].formed_by(),
            ["proved-equivalent", "same-reference-path"]
        );
        // The reference takes one path on (-1, 0) and another on (1, 0).
        assert_ne!(
            runner.reference_path(&[M1, 0]),
            runner.reference_path(&[1, 0])
        );
    }

    /// The unsigned maximum, but 0 on (5, 5), with `$k` for a scratch register.
    fn quirk(k: u32) -> Program {
        program(&format!(
            "lis ${k}\n.word 5\nbne $1, ${k}, 3\nbne $2, ${k}, 2\nadd $3, $0, $0\njr $31\n\
             sltu $4, $1, $2\nbeq $4, $0, 2\nadd $3, $2, $0\njr $31\nadd $3, $1, $0\njr $31\n"
        ))
    }

    #[test]
    fn inputs_that_told_a_pair_apart_rule_out_later_pairs() {
        let reference = max();
        let unsigned = &wrong_ones()[0];
        let (c, e) = (quirk(5), quirk(6));
        let opts = Options::default();
        let layout = InputLayout::new(&opts.inputs, opts.stdin_len);
        let runner = Runner::new(&opts, &layout, &reference);
        // `c` and `e` agree with `unsigned` on every witness, and with each other on the
        // reference's path; the solver tells `unsigned` and `c` apart on (5, 5), which
        // then tells `unsigned` and `e` apart without it.
        let all = [
            Item {
                index: 10,
                program: unsigned,
                bytes: b"u",
                witness: &[M1, 0],
            },
            Item {
                index: 11,
                program: &c,
                bytes: b"c",
                witness: &[0, M1],
            },
            Item {
                index: 12,
                program: &e,
                bytes: b"e",
                witness: &[0, M1],
            },
        ];
        let mut asked = Vec::new();
        let mut compare = |pairs: &[(usize, usize)]| -> Vec<PairOutcome> {
            asked.extend_from_slice(pairs);
            vec![
                PairOutcome {
                    witness: Some(vec![5, 5]),
                    ..PairOutcome::default()
                };
                pairs.len()
            ]
        };
        let formed = form(&runner, &all, Deadline::after(None), &mut compare);
        assert_eq!(asked, [(10, 11)]);
        assert_eq!(
            members(&formed),
            [
                vec![
                    (11, Join::Representative),
                    (12, Join::SamePath { with: 11 })
                ],
                vec![(10, Join::Representative)],
            ]
        );
    }

    #[test]
    fn a_cut_grouping_never_joins_wrongly() {
        let reference = max();
        let wrong = wrong_ones();
        let opts = Options::default();
        let layout = InputLayout::new(&opts.inputs, opts.stdin_len);
        let runner = Runner::new(&opts, &layout, &reference);
        let mut all = items(&wrong);
        // The same bytes as `unsigned`: identical, but not linked once the time is up.
        all.push(Item {
            index: 14,
            program: &wrong[0],
            bytes: b"u",
            witness: &[M1, 0],
        });
        let mut never = |_: &[(usize, usize)]| -> Vec<PairOutcome> {
            panic!("no proof is started once the deadline has passed")
        };
        let formed = form(&runner, &all, Deadline::passed_already(), &mut never);
        assert!(formed.cut_by_wall_clock);
        let alone: Vec<Vec<(usize, Join)>> =
            (10..15).map(|i| vec![(i, Join::Representative)]).collect();
        assert_eq!(members(&formed), alone);

        // A proof cut by its time limit joins nothing, and says that the clock cut.
        let mut cut = |pairs: &[(usize, usize)]| -> Vec<PairOutcome> {
            vec![
                PairOutcome {
                    cut_by_wall_clock: true,
                    ..PairOutcome::default()
                };
                pairs.len()
            ]
        };
        let formed = form(&runner, &items(&wrong), Deadline::after(None), &mut cut);
        assert!(formed.cut_by_wall_clock);
        assert_eq!(formed.groups.len(), 3, "{:?}", formed.groups);
        assert!(formed
            .groups
            .iter()
            .all(|g| g.members.iter().all(|&(m, _)| m != 13) || g.members.len() == 1));
    }

    #[test]
    fn proofs_between_wrong_submissions_are_bounded_by_counts() {
        let mut opts = Options::default();
        opts.timeout = Some(Duration::from_secs(30));
        let o = pair_options(&opts, Deadline::after(None)).expect("time left");
        assert_eq!(o.solver.work_budget, Some(PAIR_WORK));
        assert_eq!(o.max_runs, PAIR_RUNS);
        assert_eq!(o.timeout, Some(Duration::from_secs(30)));
        // The deadline shortens the time limit, never the budgets.
        let soon =
            pair_options(&opts, Deadline::after(Some(Duration::from_secs(5)))).expect("time left");
        assert!(soon.timeout <= Some(Duration::from_secs(5)));
        assert_eq!(soon.solver.work_budget, o.solver.work_budget);
        assert_eq!(soon.max_runs, o.max_runs);
        assert!(pair_options(&opts, Deadline::passed_already()).is_none());
        // The task's own smaller budgets stay.
        opts.max_runs = 10;
        opts.solver.work_budget = Some(1000);
        let small = pair_options(&opts, Deadline::after(None)).expect("time left");
        assert_eq!((small.max_runs, small.solver.work_budget), (10, Some(1000)));
        assert_ne!(pair_canonical("x"), "x");

        // The same pair under the same budgets: the same verdict after the same runs
        // and queries, within the budget.
        let wrong = wrong_ones();
        let o = pair_options(&Options::default(), Deadline::after(None)).expect("time left");
        let run = || {
            let r =
                tamarin::compare(&wrong[0], &wrong[3], &o, &mut tamarin::Quiet).expect("compares");
            assert!(r.stats.solver.work <= 3 * PAIR_WORK, "{:?}", r.stats.solver);
            (
                format!("{:?}", r.verdict),
                r.stats.runs,
                r.stats.solver.queries,
            )
        };
        let first = run();
        assert!(first.0.starts_with("Equivalent"), "{first:?}");
        assert_eq!(run(), first);
    }
}
