//! The domain program's acceptance as one term over the inputs: the merged encoding of
//! the program (as [`unroll`] gives it for any program) on the comparison's inputs,
//! true exactly where it ends normally with `$3 = 1` within its own fuel. It joins the
//! input domain, so every query of either engine is asked inside the domain.
//!
//! The term must be exact: a proof covers the inputs it admits, so a term that admitted
//! fewer inputs than the program accepts would make a proof claim too much. Where the
//! encoding does not follow the program exactly (an uncovered part: a jump with too
//! many targets, code written or fetched from the inputs, its term budget), the
//! domain is refused instead ([`DomainError`]).

use tamarin_mips::cpu::{Config, Machine};
use tamarin_mips::memory::MEM_SIZE;

use super::unroll::{self, Setup};
use crate::io::{DomainProgram, InputLayout, InputSpec, Observable};
use crate::options::Options;
use crate::solver::{build_chain, Answer, Solver};
use crate::term::{BinOp, Term, TermStore};
use crate::verdict::Uncovered;

/// Terms the encoding of a domain program may build: a traversal of a tree of a dozen
/// nodes takes a few thousand.
pub const DOMAIN_TERMS: usize = 400_000;

/// Why a domain program's acceptance cannot be one exact term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DomainError {
    /// The encoding does not follow it exactly on some inputs (the part's kind).
    Uncovered(Uncovered),
    /// The input array cannot be placed after it for any length.
    Placement(String),
}

impl DomainError {
    /// The uncovered part an engine reports when it meets this error after the front
    /// door's check (its deadline passed meanwhile, say): the encoding's budget for a
    /// placement, which the front door always refuses first.
    pub fn uncovered(&self) -> Uncovered {
        match self {
            DomainError::Uncovered(why) => *why,
            DomainError::Placement(_) => Uncovered::Budget,
        }
    }
}

impl std::fmt::Display for DomainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DomainError::Uncovered(Uncovered::Budget) => write!(
                f,
                "its merged encoding needs more than {DOMAIN_TERMS} terms (or the time ran out): a shorter fuel of its own or a smaller domain helps"
            ),
            DomainError::Uncovered(why) => write!(
                f,
                "its merged encoding cannot follow it exactly ({}): a program with fixed jumps, that neither writes nor reads its own code, can be",
                why.kind()
            ),
            DomainError::Placement(e) => write!(f, "the inputs cannot be placed for it: {e}"),
        }
    }
}

/// Restricts `layout` to the inputs that the task's domain program accepts (nothing to
/// do without one): its acceptance joins the domain and its runs check concrete inputs.
/// Where the acceptance cannot be encoded exactly, no input is admitted (the front door
/// refuses such a task first, with the error).
pub(crate) fn restrict(
    store: &mut TermStore,
    layout: &mut InputLayout,
    opts: &Options,
) -> Result<(), DomainError> {
    let Some(program) = &opts.assume_program else {
        return Ok(());
    };
    let accepted = acceptance(store, layout, program, opts);
    let term = match &accepted {
        Ok(t) => *t,
        Err(_) => store.bool(false),
    };
    layout.restrict_to_program(program, opts.termination, Some(term));
    accepted.map(|_| ())
}

/// The inputs on which `domain` ends normally with `$3 = 1` within its fuel, as a term
/// of `store` over `layout`'s variables.
fn acceptance(
    store: &mut TermStore,
    layout: &InputLayout,
    domain: &DomainProgram,
    opts: &Options,
) -> Result<Term, DomainError> {
    let program = domain.program();
    if let Some(e) = layout.spec.placement_error(program) {
        return Err(DomainError::Placement(e.to_string()));
    }
    let zeros = vec![0u32; layout.vars().len()];
    let mut machine = Machine::new(program, Config::default());
    layout
        .load(&mut machine, &zeros)
        .map_err(|e| DomainError::Placement(e.to_string()))?;
    let observe = [Observable::CS241_RESULT];
    let setup = Setup {
        program,
        fuel: domain.fuel(),
        termination: opts.termination,
        observe: &observe,
        registers: machine.regs().gpr,
        symbolic_registers: layout.symbolic_registers(),
        symbolic_memory: layout.symbolic_memory(store, program),
        stdin: layout.symbolic_stdin().to_vec(),
        max_terms: store.len().saturating_add(DOMAIN_TERMS),
        stop: opts.budget().stop(),
    };
    // Its own chain, inside the domain so far (the array's length bound and the
    // preconditions) but not the one it is building: the unroller asks which targets
    // a jump may take and whether a loop goes on.
    let so_far = layout.domain(store);
    let mut solver = build_chain(&opts.solver, opts.budget().stop(), so_far);
    let mut ask = |s: &mut TermStore, q: &[Term]| solver.check(s, q);
    let summary = unroll::unroll(store, &setup, &mut ask);
    // An uncovered part that no input of the domain so far reaches costs nothing (a
    // store at an address computed from the inputs, say, that never lands in code).
    for &(why, cond) in &summary.uncovered {
        if store.as_const(cond) != Some(0) && solver.check(store, &[cond]) != Answer::Unsat {
            return Err(DomainError::Uncovered(why));
        }
    }
    let one = store.word(1);
    let mut ends = Vec::with_capacity(summary.done.len());
    for (_, end) in &summary.done {
        let Some(&r3) = end.observed.first().and_then(|o| o.first()) else {
            continue;
        };
        let is_one = store.eq(r3, one);
        ends.push(store.and(end.guard, is_one));
    }
    let mut accepted = store.or_all(ends);
    // Lengths whose array runs past the end of memory cannot be placed for it: such
    // inputs are outside (its concrete runs refuse them too).
    if let (InputSpec::Array { max_len, base }, Some(&len)) = (&layout.spec, layout.vars().first())
    {
        let base = base.unwrap_or(program.byte_len());
        let room = (MEM_SIZE as u64).saturating_sub(base as u64) / 4;
        if (*max_len as u64) > room {
            let bound = store.word(room.saturating_add(1).min(u32::MAX as u64) as u32);
            let fits = store.bin(BinOp::Ult, len, bound);
            accepted = store.and(accepted, fits);
        }
    }
    Ok(accepted)
}
