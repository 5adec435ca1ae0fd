//! Memory as the semantics sees it: words at concrete addresses, and one array term
//! for accesses at input-dependent addresses. Each driver implements [`SymMemory`]
//! over its own representation; loads, stores and observations are written once here.

use super::{Domain, Regs};
use crate::io::Observable;
use crate::term::Term;

/// A symbolic memory of 32-bit words.
pub trait SymMemory<D: Domain> {
    /// The word at concrete address `addr`.
    fn read(&mut self, d: &mut D, addr: u32) -> D::V;
    /// Stores `v` at concrete address `addr`.
    fn write(&mut self, d: &mut D, addr: u32, v: D::V);
    /// The whole memory as one array term (words written since the last call applied).
    fn array(&mut self, d: &mut D) -> Term;
    /// Makes array `m` the whole memory (after a store at an input-dependent address).
    fn set_array(&mut self, m: Term);
}

/// The word at `addr`: a read at a concrete address, a `select` from the array at an
/// input-dependent one (so aliasing is left to the solver).
pub fn load<D: Domain, M: SymMemory<D>>(d: &mut D, mem: &mut M, addr: D::V) -> D::V {
    match d.concrete(addr) {
        Some(a) => mem.read(d, a),
        None => {
            let m = mem.array(d);
            let a = d.term(addr);
            let t = d.store().select(m, a);
            d.value(t)
        }
    }
}

/// Stores `v` at `addr` (see [`load`]).
pub fn store<D: Domain, M: SymMemory<D>>(d: &mut D, mem: &mut M, addr: D::V, v: D::V) {
    match d.concrete(addr) {
        Some(a) => mem.write(d, a, v),
        None => {
            let m = mem.array(d);
            let (a, tv) = (d.term(addr), d.term(v));
            let m = d.store().store(m, a, tv);
            mem.set_array(m);
        }
    }
}

/// The terms of an observable (one per word or byte) in a state with registers
/// `regs`, memory `mem` and output bytes `output`.
pub fn observe<D: Domain, M: SymMemory<D>>(
    d: &mut D,
    regs: Regs<'_, D::V>,
    mem: &mut M,
    output: &[Term],
    what: &Observable,
) -> Vec<Term> {
    match *what {
        Observable::Reg(r) => vec![d.term(regs.get(r))],
        Observable::Hi => vec![d.term(regs.hi)],
        Observable::Lo => vec![d.term(regs.lo)],
        Observable::Output => output.to_vec(),
        Observable::Mem { from, to } => (from..=to)
            .step_by(4)
            .map(|a| {
                let v = mem.read(d, a);
                d.term(v)
            })
            .collect(),
    }
}
