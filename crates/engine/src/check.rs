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
use crate::verdict::{run_observed, Incomplete};

/// An operation that fails on some input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: FaultKind,
    /// The address of the failing instruction.
    pub pc: u32,
    /// The fault's message for these inputs.
    pub message: String,
    /// The first inputs found that make it fail (replayed), by variable name.
    pub inputs: Vec<(String, u32)>,
    pub values: InputValues,
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
    let start = std::time::Instant::now();
    let exploration = explore(program, opts, observer);
    let config = opts.machine_config(start);
    // The layout `explore` used: only the order of the inputs and the frontend matter
    // for a replay, so a scratch store serves.
    let layout = InputLayout::declare(&mut TermStore::new(), &opts.inputs, opts.stdin_len);
    let mut findings: Vec<Finding> = Vec::new();
    let mut out_of_fuel = Vec::new();
    for path in &exploration.paths {
        match path.outcome.status {
            Status::Error(f) => {
                if findings.iter().any(|x| x.kind == f.kind && x.pc == f.pc) {
                    continue;
                }
                // Replay from scratch: report only what a plain run shows.
                let values: Vec<u32> = path.inputs.iter().map(|(_, v)| *v).collect();
                let replayed = run_observed(program, config, &layout, &values, &[]);
                if let Some((o, _)) = replayed {
                    if o.status == Status::Error(f) {
                        findings.push(Finding {
                            kind: f.kind,
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
    findings.sort_by_key(|f| (f.pc, f.kind));
    CheckReport {
        findings,
        out_of_fuel,
        exploration,
    }
}
