//! Groups of wrong submissions by their bug.
//!
//! Two disequivalent submissions fall into one group when
//!
//! 1. **proved equivalent**: `tamarin::compare` proves one equivalent to the other
//!    under the task's options (each new wrong submission is compared with the
//!    representative of every group so far, after a cheap concrete check on the
//!    witnesses already known, and on the inputs that told earlier pairs apart, rules
//!    out the groups it visibly differs from); or
//! 2. **same reference path** (a heuristic): the witnesses of the two take the same
//!    path through the reference (the same branch decisions and jump targets, in
//!    order, and the same ending, on the reference's concrete run), and each witness
//!    also makes the other submission differ from the reference.
//!
//! Groups of the first kind are classes; the second kind joins classes (union-find),
//! so a group is a set of classes linked by shared paths.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use tamarin::{InputLayout, Observed, Options};
use tamarin_mips::cpu::{Event, Machine, Tracer};
use tamarin_mips::{Instr, Outcome, Program};

/// How a member came into its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Join {
    /// The group's representative (its first submission).
    Representative,
    /// Proved equivalent to this submission (an index into the submissions).
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

/// The most witnesses of a group that the concrete check runs a newcomer on.
const CHECKED_WITNESSES: usize = 8;

impl<'a> Runner<'a> {
    pub fn new(opts: &'a Options, layout: &'a InputLayout, reference: &'a Program) -> Self {
        Runner {
            opts,
            layout,
            reference,
        }
    }

    fn run(&self, program: &Program, values: &[u32]) -> Option<(Outcome, Vec<Observed>)> {
        tamarin::run_observed(
            program,
            self.opts.machine_config(),
            self.layout,
            values,
            &self.opts.observe,
        )
    }

    /// Whether the comparison rules see a difference between `a` and `b` on `values`.
    pub fn differ(&self, a: &Program, b: &Program, values: &[u32]) -> bool {
        // Inputs outside the task's domain tell nothing apart.
        if !self.layout.admits(values) {
            return false;
        }
        match (self.run(a, values), self.run(b, values)) {
            (Some((oa, va)), Some((ob, vb))) => {
                tamarin::results_differ(self.opts.out_of_fuel, &oa, &va, &ob, &vb)
            }
            _ => false,
        }
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
}

/// Compares pairs `(representative, newcomer)`, all at once.
pub type PairProver<'a> = dyn FnMut(&[(usize, usize)]) -> Vec<PairOutcome> + 'a;

/// The most inputs that told two wrong submissions apart, kept to tell the next ones
/// apart without the solver.
const KEPT_SEPARATORS: usize = 32;

/// The root of `c` without path compression.
fn root_of(parent: &[usize], mut c: usize) -> usize {
    while parent[c] != c {
        c = parent[c];
    }
    c
}

/// Forms the groups of `items` (in the order given, which sets the representatives).
/// `compare` proves pairs `(representative, newcomer)` (submission indices) equivalent
/// or not, all of one call at once. Groups come largest first.
pub fn form(runner: &Runner, items: &[Item], compare: &mut PairProver) -> Vec<Group> {
    // 1. Classes of submissions proved equivalent to their representative.
    let mut classes: Vec<Vec<(usize, Join)>> = Vec::new(); // positions in `items`
                                                           // Inputs on which an earlier comparison of two wrong submissions saw them differ.
    let mut separators: Vec<Vec<u32>> = Vec::new();
    for (k, item) in items.iter().enumerate() {
        if runner.interrupted() {
            classes.push(vec![(k, Join::Representative)]);
            continue;
        }
        let mut candidates = Vec::new();
        let mut joined = None;
        for (c, class) in classes.iter().enumerate() {
            let rep = &items[class[0].0];
            if rep.bytes == item.bytes {
                joined = Some(c);
                break;
            }
            let seen_apart = class
                .iter()
                .take(CHECKED_WITNESSES)
                .map(|&(m, _)| items[m].witness)
                .chain([item.witness])
                .chain(separators.iter().map(Vec::as_slice))
                .any(|w| runner.differ(rep.program, item.program, w));
            if !seen_apart {
                candidates.push(c);
            }
        }
        if joined.is_none() && !candidates.is_empty() {
            let pairs: Vec<(usize, usize)> = candidates
                .iter()
                .map(|&c| (items[classes[c][0].0].index, item.index))
                .collect();
            let outcomes = compare(&pairs);
            joined = candidates
                .iter()
                .zip(&outcomes)
                .find(|(_, o)| o.equivalent)
                .map(|(&c, _)| c);
            for w in outcomes.into_iter().filter_map(|o| o.witness) {
                if separators.len() == KEPT_SEPARATORS {
                    separators.remove(0);
                }
                separators.push(w);
            }
        }
        match joined {
            Some(c) => {
                let rep = classes[c][0].0;
                classes[c].push((k, Join::Proved { with: rep }));
            }
            None => classes.push(vec![(k, Join::Representative)]),
        }
    }

    // 2. Classes joined by a shared reference path (both witnesses showing both bugs).
    let paths: Vec<u64> = items
        .iter()
        .map(|i| runner.reference_path(i.witness))
        .collect();
    let mut exposes: HashMap<(usize, usize), bool> = HashMap::new();
    let mut cross = |x: usize, y: usize| -> bool {
        *exposes
            .entry((x, y))
            .or_insert_with(|| runner.exposes(items[x].witness, items[y].program))
    };
    // Edges between classes: (a, b, x in a, y in b).
    let mut edges: Vec<(usize, usize, usize, usize)> = Vec::new();
    for a in 0..classes.len() {
        for b in a + 1..classes.len() {
            let found = classes[a].iter().find_map(|&(x, _)| {
                classes[b].iter().find_map(|&(y, _)| {
                    (paths[x] == paths[y] && cross(x, y) && cross(y, x)).then_some((x, y))
                })
            });
            if let Some((x, y)) = found {
                edges.push((a, b, x, y));
            }
        }
    }
    // Connected classes (union-find), each group reached by the edges from its
    // largest class, whose representative is the group's.
    let mut parent: Vec<usize> = (0..classes.len()).collect();
    fn root(parent: &mut [usize], mut c: usize) -> usize {
        while parent[c] != c {
            parent[c] = parent[parent[c]];
            c = parent[c];
        }
        c
    }
    for &(a, b, _, _) in &edges {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut starts: Vec<usize> = Vec::new();
    for c in 0..classes.len() {
        let r = root(&mut parent, c);
        match starts.iter_mut().find(|s| root_of(&parent, **s) == r) {
            Some(s) if classes[c].len() > classes[*s].len() => *s = c,
            Some(_) => {}
            None => starts.push(c),
        }
    }
    let mut group_of: Vec<Option<usize>> = vec![None; classes.len()];
    let mut groups: Vec<Group> = Vec::new();
    for start in starts {
        let g = groups.len();
        group_of[start] = Some(g);
        let mut members: Vec<(usize, Join)> = classes[start].clone();
        let mut queue = vec![start];
        while let Some(a) = queue.pop() {
            for &(p, q, x, y) in &edges {
                let (other, from, to) = if p == a {
                    (q, x, y)
                } else if q == a {
                    (p, y, x)
                } else {
                    continue;
                };
                if group_of[other].is_some() {
                    continue;
                }
                group_of[other] = Some(g);
                queue.push(other);
                let rep = classes[other][0].0;
                for &(m, join) in &classes[other] {
                    let join = if m == to {
                        Join::SamePath { with: from }
                    } else if m == rep {
                        Join::Proved { with: to }
                    } else {
                        join
                    };
                    members.push((m, join));
                }
            }
        }
        groups.push(Group { members });
    }
    // Positions in `items` to submission indices.
    let to_index = |k: usize| items[k].index;
    let mut groups: Vec<Group> = groups
        .into_iter()
        .map(|g| Group {
            members: g
                .members
                .into_iter()
                .map(|(m, join)| {
                    let join = match join {
                        Join::Representative => Join::Representative,
                        Join::Proved { with } => Join::Proved {
                            with: to_index(with),
                        },
                        Join::SamePath { with } => Join::SamePath {
                            with: to_index(with),
                        },
                    };
                    (to_index(m), join)
                })
                .collect(),
        })
        .collect();
    groups.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.representative().cmp(&b.representative()))
    });
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin::mips::asm::assemble;

    fn program(text: &str) -> Program {
        assemble("t.asm", text).expect("assembles")
    }

    #[test]
    fn proofs_and_paths_join_groups() {
        // The reference: $3 = max($1, $2).
        let reference = program(
            "slt $4, $1, $2\nbeq $4, $0, 2\nadd $3, $2, $0\njr $31\nadd $3, $1, $0\njr $31\n",
        );
        // Unsigned compare, twice (other code, same function); returns $1 always;
        // returns the minimum.
        let unsigned = program(
            "sltu $4, $1, $2\nbeq $4, $0, 2\nadd $3, $2, $0\njr $31\nadd $3, $1, $0\njr $31\n",
        );
        let unsigned2 =
            program("add $3, $2, $0\nsltu $7, $2, $1\nbeq $7, $0, 1\nadd $3, $1, $0\njr $31\n");
        let first = program("add $3, $1, $0\njr $31\n");
        let min = program(
            "slt $4, $1, $2\nbne $4, $0, 2\nadd $3, $2, $0\njr $31\nadd $3, $1, $0\njr $31\n",
        );
        let opts = Options::default();
        let layout = InputLayout::new(&opts.inputs, opts.stdin_len);
        let runner = Runner::new(&opts, &layout, &reference);
        let m1 = (-1i32) as u32;
        let w_unsigned = [m1, 0];
        let w_first = [m1, 0]; // the same input: the same path, and each shows the other
        let w_min = [1, 0];
        let items = [
            Item {
                index: 10,
                program: &unsigned,
                bytes: b"u",
                witness: &w_unsigned,
            },
            Item {
                index: 11,
                program: &first,
                bytes: b"f",
                witness: &w_first,
            },
            Item {
                index: 12,
                program: &min,
                bytes: b"m",
                witness: &w_min,
            },
            Item {
                index: 13,
                program: &unsigned2,
                bytes: b"v",
                witness: &w_unsigned,
            },
        ];
        let mut asked = Vec::new();
        let mut compare = |pairs: &[(usize, usize)]| -> Vec<PairOutcome> {
            asked.extend_from_slice(pairs);
            pairs
                .iter()
                .map(|&(a, b)| PairOutcome {
                    equivalent: (a, b) == (10, 13),
                    // Where `first` and the unsigned ones differ.
                    witness: ((a, b) == (10, 11)).then(|| vec![0, 1]),
                })
                .collect()
        };
        let groups = form(&runner, &items, &mut compare);
        // `min` differs from the others on its witness: never asked about. `first`
        // agrees with `unsigned` on every witness, so the solver is asked, and the
        // input it finds tells `first` and `unsigned2` apart without it.
        assert_eq!(asked, [(10, 11), (10, 13)]);
        assert_eq!(groups.len(), 2);
        assert_eq!(
            groups[0].members,
            [
                (10, Join::Representative),
                (13, Join::Proved { with: 10 }),
                (11, Join::SamePath { with: 10 }),
            ]
        );
        assert_eq!(
            groups[0].formed_by(),
            ["proved-equivalent", "same-reference-path"]
        );
        assert_eq!(groups[1].members, [(12, Join::Representative)]);
        // The reference takes one path on (-1, 0) and another on (1, 0).
        assert_ne!(
            runner.reference_path(&w_unsigned),
            runner.reference_path(&w_min)
        );
    }
}
