//! One program alone: the inputs that make it fail, one finding per failing site.
//!
//! Every operation that can fail on some input is a branch point of the trace (a
//! divisor, an access address, a jump target or a fetched word that depends on the
//! inputs), so enumerating the program's paths ([`crate::concolic::explore`]) reaches every
//! failure within the fuel and depth; each is replayed concretely before it is reported.

use tamarin_mips::cpu::{FaultKind, Status};
use tamarin_mips::Program;

use crate::concolic::{explore, Exploration, PathReport};
use crate::io::{InputLayout, InputValues};
use crate::options::Options;
use crate::report::Observer;
use crate::term::TermStore;
use crate::verdict::{run_observed, FuelPolicy, Incomplete};

/// What a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingKind {
    /// A run-time error.
    Fault(FaultKind),
    /// A run that does not end within the fuel (a finding only under
    /// [`FuelPolicy::Different`](crate::FuelPolicy::Different)).
    OutOfFuel,
}

impl FindingKind {
    /// The stable name: the fault's (`division-by-zero`, …) or `out-of-fuel`.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Fault(f) => f.name(),
            FindingKind::OutOfFuel => "out-of-fuel",
        }
    }
}

impl std::fmt::Display for FindingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FindingKind::Fault(k) => write!(f, "{k}"),
            FindingKind::OutOfFuel => f.write_str("out of fuel"),
        }
    }
}

/// An operation that fails on some input, or (under the `different` fuel policy) a
/// run that does not end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    /// The address of the failing instruction (for a run out of fuel: of the
    /// instruction it would have executed next).
    pub pc: u32,
    /// The fault's message for these inputs.
    pub message: String,
    /// The first inputs found that make it fail (replayed), by variable name.
    pub inputs: Vec<(String, u32)>,
    pub values: InputValues,
}

/// The path's first inputs replayed from scratch, if the run does not end within the
/// fuel there either.
fn spins(
    program: &Program,
    config: tamarin_mips::cpu::Config,
    layout: &InputLayout,
    path: &PathReport,
    fuel: u64,
) -> Option<Finding> {
    let values: Vec<u32> = path.inputs.iter().map(|(_, v)| *v).collect();
    if !layout.admits(&values) {
        return None;
    }
    let mut m = tamarin_mips::cpu::Machine::new(program, config);
    layout.load(&mut m, &values).ok()?;
    let outcome = m.run_to_outcome(&mut tamarin_mips::cpu::NoTrace);
    (outcome.status == Status::OutOfFuel).then(|| Finding {
        kind: FindingKind::OutOfFuel,
        pc: m.pc(),
        message: format!("no end within {fuel} steps"),
        inputs: path.inputs.clone(),
        values: path.values.clone(),
    })
}

/// What `check` found and how complete the search was.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// One per failing site (kind and pc), in order of address.
    pub findings: Vec<Finding>,
    /// Paths whose runs did not end within the fuel.
    pub out_of_fuel: Vec<PathReport>,
    pub exploration: Exploration,
}

impl CheckReport {
    /// Empty when every path within the fuel and depth was explored.
    pub fn incomplete(&self) -> &[Incomplete] {
        &self.exploration.incomplete
    }
}

/// Finds inputs that make `program` fail. The crate root's `check`, the front door,
/// checks the task first and turns a solver failure into an error.
pub fn check(program: &Program, opts: &Options, observer: &mut dyn Observer) -> CheckReport {
    // One budget for the exploration and the replays after it.
    let opts = &opts.started();
    let exploration = explore(program, opts, observer);
    let config = opts.machine_config();
    // The layout `explore` used: only the order of the inputs and the frontend matter
    // for a replay, so a scratch store serves.
    let mut store = TermStore::new();
    let mut layout = InputLayout::declare(&mut store, &opts.inputs, opts.stdin_len);
    let _ = layout.assume(&mut store, &opts.assume);
    let mut findings: Vec<Finding> = Vec::new();
    let mut out_of_fuel = Vec::new();
    for path in &exploration.paths {
        match path.outcome.status {
            Status::Error(f) => {
                if findings
                    .iter()
                    .any(|x| x.kind == FindingKind::Fault(f.kind) && x.pc == f.pc)
                {
                    continue;
                }
                // Replay from scratch: report only what a plain run shows.
                let values: Vec<u32> = path.inputs.iter().map(|(_, v)| *v).collect();
                let replayed = run_observed(program, config, &layout, &values, &[]);
                if let Some((o, _)) = replayed {
                    if o.status == Status::Error(f) {
                        findings.push(Finding {
                            kind: FindingKind::Fault(f.kind),
                            pc: f.pc,
                            message: f.to_string(),
                            inputs: path.inputs.clone(),
                            values: path.values.clone(),
                        });
                    }
                }
            }
            Status::OutOfFuel => out_of_fuel.push(path.clone()),
            // A run cut short by the time limit: its path is partial, and the
            // exploration already reports why.
            Status::Done | Status::Stopped => {}
        }
    }
    if opts.out_of_fuel == FuelPolicy::Different {
        // One finding for running out of fuel: the first such path, replayed.
        if let Some(finding) = out_of_fuel
            .iter()
            .find_map(|p| spins(program, config, &layout, p, opts.fuel))
        {
            findings.push(finding);
        }
    }
    findings.sort_by_key(|f| (f.pc, f.kind));
    CheckReport {
        findings,
        out_of_fuel,
        exploration,
    }
}
