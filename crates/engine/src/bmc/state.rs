//! One symbolic state of the merged encoding: the machine at one program counter for
//! every input that satisfies its guard, and how two such states become one.
//!
//! Invariant: the states waiting in the unroller partition the inputs whose runs are
//! still going (each such input is in exactly one state), so the guards of two states
//! never overlap and `ite(guard_a, a, b)` is the merged value.

use std::collections::BTreeMap;

use crate::semantics::machine::initial_word;
use crate::semantics::SymMemory;
use crate::term::{BinOp, Node, Term, TermStore};

/// The memory of a state: `base` (an array term; `None`: the initial memory) with
/// `overlay`, the words written at concrete addresses since, on top.
#[derive(Clone, Debug)]
pub struct Mem {
    pub base: Option<Term>,
    pub overlay: BTreeMap<u32, Term>,
}

/// A state's memory with what reading it needs: the program image and the initial
/// memory as an array.
pub struct MemView<'m> {
    pub mem: &'m mut Mem,
    pub image: &'m [u32],
    pub initial_array: Term,
}

impl SymMemory<TermStore> for MemView<'_> {
    fn read(&mut self, s: &mut TermStore, addr: u32) -> Term {
        let image = self.image;
        read(s, self.mem, addr, &|a| initial_word(image, a))
    }

    fn write(&mut self, _: &mut TermStore, addr: u32, v: Term) {
        self.mem.overlay.insert(addr, v);
    }

    fn array(&mut self, s: &mut TermStore) -> Term {
        materialize(s, self.mem, self.initial_array)
    }

    fn set_array(&mut self, m: Term) {
        self.mem.base = Some(m);
    }
}

/// The machine at `pc` for the inputs satisfying [`State::guard`].
#[derive(Clone, Debug)]
pub struct State {
    pub pc: u32,
    /// The path condition, without the fuel condition.
    pub path: Term,
    /// `steps < fuel` as of the last instruction that needed it (later instructions
    /// only raise the count, so the latest such condition implies every earlier one).
    pub fuel_ok: Option<Term>,
    /// Instructions executed so far, as a 64-bit term, and its concrete bounds.
    pub steps: Term,
    pub min_steps: u64,
    pub max_steps: u64,
    pub regs: [Term; 32],
    pub hi: Term,
    pub lo: Term,
    pub mem: Mem,
    /// Bytes of standard input consumed.
    pub reads: usize,
    /// Bytes written to standard output (8-bit terms).
    pub output: Vec<Term>,
    /// Terms the path condition confines to a few constants (`x == k` was assumed,
    /// or states that knew `x` were merged): a jump or branch on them needs no solver.
    pub known: Vec<(Term, Vec<u64>)>,
    /// At a loop head, the wave of arrivals it belongs to: the unroller lets a head's
    /// waiting states into the body together, once the body is empty, and states that
    /// arrive after that belong to the next wave. So states of two iterations never
    /// meet at the head. 0 elsewhere.
    pub wave: u32,
}

/// Most facts a state remembers.
const MAX_KNOWN: usize = 32;
/// Most values one fact lists.
const MAX_VALUES: usize = 64;

/// States meet and merge when they agree on this: the pc, the wave (at a loop head:
/// which iteration, see [`State::wave`]), the input read, the output written, and the
/// stack pointer when it is a constant (calls at different depths stay apart, so stack
/// addresses stay constants instead of becoming `ite`s; which register that is, the
/// target's convention says).
pub type Key = (u32, u32, usize, usize, Option<u64>);

impl State {
    /// The condition under which an input is in this state.
    pub fn guard(&self, s: &mut TermStore) -> Term {
        match self.fuel_ok {
            Some(f) => s.and(self.path, f),
            None => self.path,
        }
    }

    /// The merge key (see [`Key`]), with register `stack` as the stack pointer.
    pub fn key(&self, s: &TermStore, stack: usize) -> Key {
        (
            self.pc,
            self.wave,
            self.reads,
            self.output.len(),
            s.as_const(self.regs[stack & 31]),
        )
    }

    /// Moves the inputs satisfying `cond` into a new state (returned unless none can);
    /// `self` keeps the others.
    pub fn split(&mut self, s: &mut TermStore, cond: Term) -> Option<State> {
        match self.decide(s, cond).map(u64::from) {
            Some(0) => None,
            Some(_) => {
                let moved = self.clone();
                self.path = s.bool(false);
                Some(moved)
            }
            None => {
                let mut moved = self.clone();
                moved.assume(s, cond);
                let n = s.not(cond);
                self.assume(s, n);
                Some(moved)
            }
        }
    }

    /// Restricts the state to the inputs satisfying `cond` as well.
    pub fn assume(&mut self, s: &mut TermStore, cond: Term) {
        if self.decide(s, cond) == Some(true) {
            return;
        }
        self.path = s.and(self.path, cond);
        let (inner, negated) = match s.node(cond) {
            Node::Not(c) => (c, true),
            _ => (cond, false),
        };
        let Node::Bin(BinOp::Eq, x, k) = s.node(inner) else {
            return;
        };
        let Some(k) = s.as_const(k) else { return };
        match (self.known.iter().position(|(t, _)| *t == x), negated) {
            (Some(i), true) => self.known[i].1.retain(|&v| v != k),
            (Some(i), false) => self.known[i].1 = vec![k],
            (None, true) => {}
            (None, false) => {
                if self.known.len() >= MAX_KNOWN {
                    self.known.remove(0);
                }
                self.known.push((x, vec![k]));
            }
        }
    }

    /// The value of `cond` if the path condition decides it through a known term.
    pub fn decide(&self, s: &TermStore, cond: Term) -> Option<bool> {
        if let Some(c) = s.as_const(cond) {
            return Some(c != 0);
        }
        let (inner, negated) = match s.node(cond) {
            Node::Not(c) => (c, true),
            _ => (cond, false),
        };
        let Node::Bin(BinOp::Eq, x, k) = s.node(inner) else {
            return None;
        };
        let k = s.as_const(k)?;
        let values = self.values(x)?;
        let holds = match values {
            [v] => *v == k,
            _ if !values.contains(&k) => false,
            _ => return None,
        };
        Some(holds != negated)
    }

    /// Whether the state's guard folded to false (no input is in it).
    pub fn is_dead(&self, s: &TermStore) -> bool {
        s.as_const(self.path) == Some(0) || self.fuel_ok.and_then(|f| s.as_const(f)) == Some(0)
    }

    /// The constants that the path condition allows for `t`, if it confines it.
    pub fn values(&self, t: Term) -> Option<&[u64]> {
        self.known
            .iter()
            .find(|&&(x, _)| x == t)
            .map(|(_, v)| v.as_slice())
    }
}

/// The word at concrete address `addr` of `mem` (`initial` reads the initial memory).
pub fn read(s: &mut TermStore, mem: &Mem, addr: u32, initial: &dyn Fn(u32) -> u32) -> Term {
    if let Some(&v) = mem.overlay.get(&addr) {
        return v;
    }
    match mem.base {
        Some(m) => {
            let k = s.word(addr);
            s.select(m, k)
        }
        None => s.word(initial(addr)),
    }
}

/// Applies the overlay to the base, giving the whole memory as one array term.
pub fn materialize(s: &mut TermStore, mem: &mut Mem, initial_array: Term) -> Term {
    let mut m = mem.base.unwrap_or(initial_array);
    for (&a, &v) in &mem.overlay {
        let k = s.word(a);
        m = s.store(m, k, v);
    }
    mem.overlay.clear();
    mem.base = Some(m);
    m
}

/// Merges state `b` into state `a` (both at one key, with disjoint guards).
pub fn merge(
    s: &mut TermStore,
    a: &mut State,
    b: State,
    initial: &dyn Fn(u32) -> u32,
    initial_array: Term,
) {
    let ga = a.guard(s);
    let gb = b.guard(s);
    let pick = |s: &mut TermStore, x: Term, y: Term| s.ite(ga, x, y);
    for r in 0..32 {
        a.regs[r] = pick(s, a.regs[r], b.regs[r]);
    }
    a.hi = pick(s, a.hi, b.hi);
    a.lo = pick(s, a.lo, b.lo);
    for k in 0..a.output.len().min(b.output.len()) {
        a.output[k] = pick(s, a.output[k], b.output[k]);
    }
    a.steps = pick(s, a.steps, b.steps);
    a.min_steps = a.min_steps.min(b.min_steps);
    a.max_steps = a.max_steps.max(b.max_steps);
    merge_memory(s, &mut a.mem, ga, b.mem, gb, initial, initial_array);
    a.path = s.or(ga, gb);
    a.fuel_ok = None;
    // A fact survives a merge as the union of both sides' values.
    a.known
        .retain_mut(|(x, values)| match b.known.iter().find(|(y, _)| y == x) {
            Some((_, more)) => {
                for &v in more {
                    if !values.contains(&v) {
                        values.push(v);
                    }
                }
                values.len() <= MAX_VALUES
            }
            None => false,
        });
}

fn merge_memory(
    s: &mut TermStore,
    a: &mut Mem,
    ga: Term,
    mut b: Mem,
    gb: Term,
    initial: &dyn Fn(u32) -> u32,
    initial_array: Term,
) {
    if a.base == b.base {
        // Same array underneath: merge the overlays word by word.
        let keys: std::collections::BTreeSet<u32> =
            a.overlay.keys().chain(b.overlay.keys()).copied().collect();
        for k in keys {
            let x = read(s, a, k, initial);
            let y = read(s, &b, k, initial);
            let v = s.ite(ga, x, y);
            a.overlay.insert(k, v);
        }
        return;
    }
    // Different arrays: find their common ancestor in the store chains, then replay
    // each side's later stores guarded by its own condition.
    let ma = materialize(s, a, initial_array);
    let mb = materialize(s, &mut b, initial_array);
    let (chain_a, _) = s.store_chain(ma);
    let (chain_b, _) = s.store_chain(mb);
    let arrays_a = arrays_of(s, ma, chain_a.len());
    let arrays_b = arrays_of(s, mb, chain_b.len());
    let in_a: rustc_hash::FxHashSet<Term> = arrays_a.iter().copied().collect();
    let common_b = arrays_b.iter().position(|m| in_a.contains(m));
    let (common, extra_b) = match common_b {
        Some(i) => (arrays_b[i], i),
        None => (initial_array, chain_b.len()),
    };
    let extra_a = arrays_a
        .iter()
        .position(|&m| m == common)
        .unwrap_or(chain_a.len());
    let mut m = common;
    for (g, chain, n) in [(ga, &chain_a, extra_a), (gb, &chain_b, extra_b)] {
        // Stores outermost first: replay the newest last.
        for &(addr, v) in chain.iter().take(n).rev() {
            let old = s.select(m, addr);
            let val = s.ite(g, v, old);
            m = s.store(m, addr, val);
        }
    }
    a.base = Some(m);
    a.overlay.clear();
}

/// The arrays along a store chain: `m`, its inner array, and so on (`n + 1` of them).
fn arrays_of(s: &TermStore, m: Term, n: usize) -> Vec<Term> {
    let mut out = Vec::with_capacity(n + 1);
    let mut at = m;
    out.push(at);
    for _ in 0..n {
        match s.node(at) {
            crate::term::Node::Store(inner, _, _) => {
                at = inner;
                out.push(at);
            }
            _ => break,
        }
    }
    out
}
