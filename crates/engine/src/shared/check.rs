//! The one symbolic check of a procedure alone, before any call to it is treated as an
//! event: every path of its body, run at address 0 with `$1`…`$29` as inputs, is
//! enumerated by the concolic search, then traced once more to read off what it does.
//! The procedure qualifies when on every path
//! - it returns (through `$31`, which [`super::body`] made sure of) within
//!   [`PROC_FUEL`] steps, without a fault and without reading standard input;
//! - `$30` is what it was at the entry;
//! - it stores only below its entry `$30` (at most [`MAX_DEPTH`] bytes below) and to
//!   the output port, and loads only words it stored itself on that path;
//! - no address and no jump depends on its inputs (each path's accesses are then the
//!   same for every input that takes it, so the concrete run speaks for them all).
//!
//! What it reads is then only its registers: its arguments are the registers whose
//! input terms occur in some path's conditions or output, and a register it leaves as
//! it found it on every path is restored. Everything else it may change (the other
//! registers, `hi`, `lo`, the words below its entry `$30`) is left unknown after a
//! call. Since the exploration ran at one stack address, [`super::body`]'s static
//! rules are what make the result hold at any other.

use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashSet;
use tamarin_mips::cpu::{Event, Fault, Machine, Status, Tracer};
use tamarin_mips::{Instr, Program, Reg};

use super::Procedure;
use crate::io::{InputLayout, InputSpec, Observable};
use crate::options::Options;
use crate::report::Quiet;
use crate::term::{Term, TermStore};
use crate::trace::{CondKind, SymTracer};

/// Steps one call may take on any path.
pub const PROC_FUEL: u64 = 20_000;

/// The most bytes below its entry `$30` a procedure may write.
pub const MAX_DEPTH: u32 = 64 * 1024;

/// Units of solver work the exploration may spend (a fixed count, so that whether a
/// procedure qualifies does not depend on the machine's load).
pub const PROC_WORK: u64 = 200_000_000;

/// The wall-clock limit of the exploration, a safety net.
pub const PROC_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a check did not qualify the body, or whether it was cut short.
#[derive(Debug, PartialEq, Eq)]
pub enum Checked {
    Qualifies(Procedure),
    /// The body does something a call event cannot stand for.
    Refused(&'static str),
    /// The exploration was cut by the clock or an interrupt: not known.
    Cut,
}

/// The registers that are the exploration's inputs.
fn input_regs() -> Vec<Reg> {
    (1..=29).filter_map(Reg::new).collect()
}

/// Checks the body `words` (see the module's rules); `interrupt` stops it early.
pub fn check(words: &[u32], interrupt: Option<&'static std::sync::atomic::AtomicBool>) -> Checked {
    let program = Program::from_words(words.to_vec());
    let regs = input_regs();
    let mut opts = Options {
        fuel: PROC_FUEL,
        depth: 1000,
        inputs: InputSpec::Registers(regs.clone()),
        observe: vec![Observable::Output],
        timeout: Some(PROC_TIMEOUT),
        interrupt,
        minimise: false,
        ..Options::default()
    };
    // Counts, not the clock, decide whether a procedure qualifies: a fixed work for
    // Z3 in process and no race of other solvers.
    opts.solver.work_budget = Some(PROC_WORK);
    opts.solver.portfolio = Vec::new();
    opts.solver.external = None;
    let explored = crate::concolic::explore(&program, &opts, &mut Quiet);
    if explored.incomplete.iter().any(|r| r.cut_by_wall_clock()) {
        return Checked::Cut;
    }
    if !explored.incomplete.is_empty() {
        return Checked::Refused("its paths could not all be enumerated");
    }
    let mut store = TermStore::new();
    let layout = InputLayout::declare(&mut store, &opts.inputs, 0);
    let vars: Vec<Term> = layout.vars().to_vec();
    let mut args = FxHashSet::default();
    let mut restored = u32::MAX;
    let (mut min_steps, mut max_steps, mut depth) = (u64::MAX, 0u64, 0u32);
    for path in &explored.paths {
        if path.partial || path.outcome.status != Status::Done {
            return Checked::Refused("some path does not return");
        }
        let values: Vec<u32> = path.inputs.iter().map(|&(_, v)| v).collect();
        let traced = match trace_path(&mut store, &layout, &program, &opts, &values) {
            Ok(t) => t,
            Err(why) => return Checked::Refused(why),
        };
        let mut roots: Vec<Term> = traced.conds.clone();
        roots.extend(&traced.output);
        for v in store.vars_of(&roots) {
            args.insert(v);
        }
        for (k, r) in regs.iter().enumerate() {
            if traced.regs[r.index()] != Some(vars[k]) {
                restored &= !(1 << r.index());
            }
        }
        min_steps = min_steps.min(traced.steps);
        max_steps = max_steps.max(traced.steps);
        depth = depth.max(traced.depth);
    }
    if explored.paths.is_empty() {
        return Checked::Refused("no path was found");
    }
    let mut arg_regs: Vec<Reg> = args
        .into_iter()
        .filter_map(|v| regs.get(v as usize).copied())
        .collect();
    arg_regs.sort_unstable_by_key(|r| r.index());
    Checked::Qualifies(Procedure {
        id: 0,
        words: Arc::from(words.to_vec()),
        args: arg_regs,
        restored: restored & !1,
        depth,
        min_steps,
        max_steps,
    })
}

/// What one path does, read off one traced run.
struct Traced {
    conds: Vec<Term>,
    output: Vec<Term>,
    /// Each register's final term, where it is symbolic.
    regs: [Option<Term>; 32],
    steps: u64,
    /// Bytes below the entry `$30` it wrote.
    depth: u32,
}

/// Records the run's memory accesses beside the symbolic tracer.
struct Accesses<'t, 's> {
    sym: &'t mut SymTracer<'s>,
    sp: u32,
    stored: FxHashSet<u32>,
    lowest: u32,
    refused: Option<&'static str>,
    steps: u64,
}

impl Tracer for Accesses<'_, '_> {
    fn exec(&mut self, pc: u32, instr: Instr, event: Event) {
        self.steps += 1;
        match event {
            Event::Store { addr, .. } => {
                if addr >= self.sp || self.sp - addr > MAX_DEPTH {
                    self.refused
                        .get_or_insert("it stores outside its stack frame");
                }
                self.lowest = self.lowest.min(addr);
                self.stored.insert(addr);
            }
            Event::Load { addr, .. } if !self.stored.contains(&addr) => {
                self.refused
                    .get_or_insert("it loads a word it did not store");
            }
            Event::Input(_) => {
                self.refused.get_or_insert("it reads standard input");
            }
            _ => {}
        }
        self.sym.exec(pc, instr, event);
    }

    fn fault(&mut self, instr: Option<Instr>, fault: Fault) {
        self.refused.get_or_insert("it faults");
        self.sym.fault(instr, fault);
    }
}

fn trace_path(
    store: &mut TermStore,
    layout: &InputLayout,
    program: &Program,
    opts: &Options,
    values: &[u32],
) -> Result<Traced, &'static str> {
    let mut machine = Machine::new(program, opts.machine_config());
    layout
        .load(&mut machine, values)
        .map_err(|_| "its inputs cannot be loaded")?;
    let sp = machine.regs().gpr[Reg::SP.index()];
    let mut sym = SymTracer::new(
        store,
        machine.regs(),
        &layout.symbolic_registers(),
        program.words().clone(),
        opts.termination,
        false,
    );
    let mut acc = Accesses {
        sym: &mut sym,
        sp,
        stored: FxHashSet::default(),
        lowest: sp,
        refused: None,
        steps: 0,
    };
    let outcome = machine.run_to_outcome(&mut acc);
    if let Some(why) = acc.refused {
        return Err(why);
    }
    let (steps, depth) = (acc.steps, sp - acc.lowest);
    if outcome.status != Status::Done || sym.gave_up().is_some() {
        return Err("some path does not return");
    }
    if sym.reg(Reg::SP) != crate::semantics::Val::Conc(sp) {
        return Err("it does not restore $30");
    }
    let output = sym.observe(&Observable::Output);
    let mut regs = [None; 32];
    for (k, slot) in regs.iter_mut().enumerate() {
        if let crate::semantics::Val::Sym(t) = sym.reg(Reg::from_bits(k as u32)) {
            *slot = Some(t);
        }
    }
    let (conds, _, _) = sym.finish();
    if conds
        .iter()
        .any(|c| matches!(c.kind, CondKind::Address | CondKind::JumpTarget))
    {
        return Err("an address or a jump depends on its inputs");
    }
    Ok(Traced {
        conds: conds.iter().map(|c| c.cond).collect(),
        output,
        regs,
        steps,
        depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin_mips::asm::assemble;

    fn words(src: &str) -> Vec<u32> {
        assemble("p.asm", src).expect("assembles").words().to_vec()
    }

    #[test]
    fn the_runtime_print_qualifies_with_one_argument() {
        let src = include_str!("../../../../examples/runtime/print.asm");
        let Checked::Qualifies(p) = check(&words(src), None) else {
            panic!("print should qualify");
        };
        assert_eq!(p.args, vec![Reg::new(1).unwrap()]);
        // Every register print uses is saved and restored.
        for r in 1..=29 {
            assert!(p.restored & (1 << r) != 0, "${r}");
        }
        assert!(p.depth >= 24 + 4 && p.depth <= 24 + 44, "{}", p.depth);
        assert!(p.min_steps < p.max_steps);
    }

    /// A print in another style: digits pushed through a pointer that walks down from
    /// `$30` and popped until it meets `$30` again, unsigned division.
    const POINTER_PRINT: &str = "sw $1, -4($30)\nsw $3, -8($30)\nsw $4, -12($30)\n\
        sw $5, -16($30)\nsw $6, -20($30)\nsw $7, -24($30)\nsw $8, -28($30)\nsw $9, -32($30)\n\
        lis $3\n.word -32\nadd $30, $30, $3\nlis $3\n.word 0xffff000c\nlis $4\n.word 10\n\
        lis $5\n.word 4\nadd $6, $1, $0\nslt $7, $1, $0\nbeq $7, $0, 4\nlis $8\n.word 45\n\
        sw $8, 0($3)\nsub $6, $0, $6\nadd $9, $30, $0\nloop:\ndivu $6, $4\nmfhi $7\n\
        sub $9, $9, $5\nsw $7, 0($9)\nmflo $6\nbne $6, $0, loop\nlis $7\n.word 48\nout:\n\
        lw $8, 0($9)\nadd $8, $8, $7\nsw $8, 0($3)\nadd $9, $9, $5\nbne $9, $30, out\n\
        sw $4, 0($3)\nlis $3\n.word 32\nadd $30, $30, $3\nlw $1, -4($30)\nlw $3, -8($30)\n\
        lw $4, -12($30)\nlw $5, -16($30)\nlw $6, -20($30)\nlw $7, -24($30)\nlw $8, -28($30)\n\
        lw $9, -32($30)\njr $31\n";

    #[test]
    fn a_print_that_walks_its_frame_with_a_pointer_qualifies() {
        let img = words(POINTER_PRINT);
        assert!(crate::shared::leaf_body(&img, 0).is_some());
        let Checked::Qualifies(p) = check(&img, None) else {
            panic!("qualifies");
        };
        assert_eq!(p.args, vec![Reg::new(1).unwrap()]);
    }

    #[test]
    fn a_clobbered_register_is_not_restored() {
        let Checked::Qualifies(p) = check(&words("add $3, $1, $2\njr $31\n"), None) else {
            panic!("qualifies");
        };
        assert_eq!(p.restored & (1 << 3), 0);
        assert!(p.restored & (1 << 1) != 0);
        // $3's value is not output, so no argument is needed for its effects.
        assert!(p.args.is_empty());
    }

    #[test]
    fn loads_of_the_callers_stack_are_refused() {
        let src = "lw $3, 0($30)\nlis $4\n.word 0xffff000c\nsw $3, 0($4)\njr $31\n";
        assert!(matches!(check(&words(src), None), Checked::Refused(_)));
        let above = "sw $1, 4($30)\njr $31\n";
        assert!(matches!(check(&words(above), None), Checked::Refused(_)));
    }
}
