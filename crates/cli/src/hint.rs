//! Hints after a verdict: advice that the report's facts suggest but do not prove.
//!
//! The one hint so far: a difference found with the register frontend, where a program
//! reads memory at an address computed from `$1`, is most likely a program that takes
//! an array (`$1` its address, `$2` its length) compared with the wrong frontend.

use tamarin::{Counterexample, InputLayout, InputSpec, Options};
use tamarin_mips::cpu::{Event, Fault, FaultKind, Machine, Tracer};
use tamarin_mips::Instr;
use tamarin_mips::Program;

/// How far past `$1` (in bytes) a load may read and still count as an element.
const NEAR: u32 = 4 * 64;
/// How many loads of a run are looked at.
const LOADS: usize = 64;
/// How much `$1` is moved in the second run, which tells whether the address follows it.
const SHIFT: u32 = 0x100;

/// The hints for a comparison's counterexample (none for the array frontend).
pub fn hints(programs: [(&str, &Program); 2], opts: &Options, cx: &Counterexample) -> Vec<String> {
    let InputSpec::Registers(_) = &opts.inputs else {
        return Vec::new();
    };
    let Some(r1) = cx.inputs.iter().position(|(n, _)| n == "$1") else {
        return Vec::new();
    };
    let values: Vec<u32> = cx.inputs.iter().map(|&(_, v)| v).collect();
    for (name, program) in programs {
        if let Some((pc, offset)) = reads_from_r1(program, opts, &values, r1) {
            return vec![format!(
                "{name} reads memory at $1 + {offset} (lw at pc {pc:#010x}): if the programs \
                 take an array ($1 its address, $2 its length), compare them with --frontend array"
            )];
        }
    }
    Vec::new()
}

/// The pc and offset of the first load whose address is `$1` plus a small multiple of
/// 4 and moves with `$1` (checked by a second run with `$1` moved by [`SHIFT`]).
fn reads_from_r1(
    program: &Program,
    opts: &Options,
    values: &[u32],
    r1: usize,
) -> Option<(u32, u32)> {
    let base = values[r1];
    let first = loads(program, opts, values)?;
    let mut moved = values.to_vec();
    moved[r1] = base.wrapping_add(SHIFT);
    let second = loads(program, opts, &moved)?;
    first
        .iter()
        .zip(&second)
        .find(|((pc, a), (pc2, b))| {
            let offset = a.wrapping_sub(base);
            pc == pc2 && offset % 4 == 0 && offset <= NEAR && b.wrapping_sub(*a) == SHIFT
        })
        .map(|(&(pc, a), _)| (pc, a.wrapping_sub(base)))
}

/// The first [`LOADS`] loads of a run on `values` (pc and address), faulting ones
/// included.
fn loads(program: &Program, opts: &Options, values: &[u32]) -> Option<Vec<(u32, u32)>> {
    let layout = InputLayout::new(&opts.inputs, opts.stdin_len);
    let mut machine = Machine::new(program, opts.machine_config());
    layout.load(&mut machine, values).ok()?;
    let mut watch = Loads(Vec::new());
    machine.run_to_outcome(&mut watch);
    Some(watch.0)
}

struct Loads(Vec<(u32, u32)>);

impl Tracer for Loads {
    fn exec(&mut self, pc: u32, _instr: Instr, event: Event) {
        if let Event::Load { addr, .. } = event {
            if self.0.len() < LOADS {
                self.0.push((pc, addr));
            }
        }
    }

    fn fault(&mut self, instr: Option<Instr>, fault: Fault) {
        let access = matches!(
            fault.kind,
            FaultKind::UnalignedAccess | FaultKind::OutOfRangeAccess
        );
        if access && matches!(instr, Some(Instr::Lw { .. })) && self.0.len() < LOADS {
            self.0.push((fault.pc, fault.value));
        }
    }
}
