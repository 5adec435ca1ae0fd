//! Compiler pairs: random WLP4-style programs ([`source`]), each compiled two ways
//! into CS241 assembly that imports the runtime's print: by a naive stack-machine code
//! generator ([`naive`]) and by a register-allocating one ([`regalloc`]), sometimes
//! with a planted bug ([`bugs`]). Both sides are linked with
//! `examples/runtime/print.asm` and compared on their output and `$3`.
//!
//! This is the corpus a compiler course compares: students' generated code against a
//! reference. Two compilations of one program without a bug are equal by
//! construction, so any difference between them (a disequivalent verdict, or a
//! concrete input on which they differ) is a failed check too: a bug of a code
//! generator, which the tests guard against with the interpreter ([`interp`]) as a
//! third oracle.

pub mod bugs;
pub mod course;
pub mod emit;
pub mod interp;
pub mod naive;
pub mod regalloc;
pub mod source;

use std::fmt;

use serde::{Deserialize, Serialize};
use tamarin::{InputSpec, Observable};
use tamarin_mips::asm::assemble_module;
use tamarin_mips::link::link;
use tamarin_mips::Program as Machine;

use crate::check::{check_assembled, CheckConfig, Finding, FindingKind, Kind, PairResult};
use crate::generate::Shape;
use crate::pair::{Pair, PairKind};
use crate::prog::Prog;
use crate::rng::Rng;
use bugs::{Bug, BugKind, Sites};
use source::{Frontend, Program};

/// The runtime's print, linked after every generated program.
pub const PRINT_ASM: &str = include_str!("../../../../examples/runtime/print.asm");

/// The path of [`PRINT_ASM`] from the repository's root (for the replay commands).
pub const PRINT_PATH: &str = "examples/runtime/print.asm";

/// How a compiler pair was made. In summaries and `meta.json`, by [`CompilerKind::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompilerKind {
    /// The naive compilation on both sides: the same text.
    NaiveNaive,
    /// Naive against register-allocating: equal by construction.
    NaiveRegalloc,
    /// Naive against register-allocating with a planted bug: may differ.
    BuggyRegalloc,
    /// Naive against naive with a planted bug: may differ.
    BuggyNaive,
}

impl CompilerKind {
    pub const ALL: [CompilerKind; 4] = [
        CompilerKind::NaiveNaive,
        CompilerKind::NaiveRegalloc,
        CompilerKind::BuggyRegalloc,
        CompilerKind::BuggyNaive,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CompilerKind::NaiveNaive => "naive-naive",
            CompilerKind::NaiveRegalloc => "naive-regalloc",
            CompilerKind::BuggyRegalloc => "naive-buggy-regalloc",
            CompilerKind::BuggyNaive => "naive-buggy-naive",
        }
    }

    /// The kind of [`Pair`] whose checks apply: identical (never disequivalent, one
    /// direction), rewrite (equal, both directions), mutant (either verdict).
    pub fn pair_kind(self) -> PairKind {
        match self {
            CompilerKind::NaiveNaive => PairKind::Identical,
            CompilerKind::NaiveRegalloc => PairKind::Rewrite,
            CompilerKind::BuggyRegalloc | CompilerKind::BuggyNaive => PairKind::Mutant,
        }
    }

    /// Whether the two sides compute the same function by construction.
    pub fn equal_by_construction(self) -> bool {
        matches!(self, CompilerKind::NaiveNaive | CompilerKind::NaiveRegalloc)
    }

    /// The relation the pair is built to have, in words (for `meta.json`).
    pub fn expected(self) -> &'static str {
        match self {
            CompilerKind::NaiveNaive => "identical",
            CompilerKind::NaiveRegalloc => "equivalent",
            CompilerKind::BuggyRegalloc | CompilerKind::BuggyNaive => "may-differ",
        }
    }
}

impl fmt::Display for CompilerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A code generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Codegen {
    Naive,
    Regalloc,
}

impl Codegen {
    pub fn name(self) -> &'static str {
        match self {
            Codegen::Naive => "naive",
            Codegen::Regalloc => "regalloc",
        }
    }

    /// Compiles `prog` (planting `bug`): the unlinked code and the bug sites met.
    pub fn compile(self, prog: &Program, bug: Option<Bug>) -> (Prog, Sites) {
        match self {
            Codegen::Naive => naive::compile(prog, bug),
            Codegen::Regalloc => regalloc::compile(prog, bug),
        }
    }
}

/// One side of a compiler pair.
#[derive(Clone, Debug)]
pub struct Side {
    pub codegen: Codegen,
    pub bug: Option<Bug>,
    /// The generated code, without its `.import print` line.
    pub code: Prog,
}

impl Side {
    fn new(prog: &Program, codegen: Codegen, bug: Option<Bug>) -> Side {
        Side {
            codegen,
            bug,
            code: codegen.compile(prog, bug).0,
        }
    }

    /// The unlinked assembly, as a student's compiler would print it.
    pub fn text(&self) -> String {
        format!(".import print\n{}", self.code.text())
    }

    /// The side linked with print: the program the machine runs.
    pub fn link(&self) -> Result<Machine, String> {
        let own = assemble_module("generated.asm", &self.text()).map_err(|e| e.to_string())?;
        let print = assemble_module(PRINT_PATH, PRINT_ASM).map_err(|e| e.to_string())?;
        let linked = link(vec![own, print]).map_err(|e| e.to_string())?;
        linked.into_program().map_err(|e| e.to_string())
    }

    fn describe(&self) -> String {
        match self.bug {
            Some(b) => format!("{} with bug {b}", self.codegen.name()),
            None => self.codegen.name().to_string(),
        }
    }
}

/// A program compiled two ways.
#[derive(Clone, Debug)]
pub struct CompilerPair {
    /// `make_compiler_pair(seed, index)` makes it again.
    pub seed: u64,
    pub index: u64,
    pub kind: CompilerKind,
    pub source: Program,
    pub left: Side,
    pub right: Side,
}

impl CompilerPair {
    /// The planted bug, if any (on whichever side).
    pub fn bug(&self) -> Option<Bug> {
        self.left.bug.or(self.right.bug)
    }

    pub fn inputs(&self) -> InputSpec {
        match self.source.frontend {
            Frontend::TwoInts => InputSpec::default(),
            Frontend::Array => InputSpec::Array {
                max_len: source::ARRAY_MAX_LEN,
                base: None,
            },
        }
    }

    /// `$3` and the output bytes.
    pub fn observe(&self) -> Vec<Observable> {
        vec![Observable::CS241_RESULT, Observable::Output]
    }

    pub fn note(&self) -> String {
        format!(
            "{} program; left {}, right {}; both linked with {PRINT_PATH} (add --link {PRINT_PATH} to the commands)",
            self.source.frontend.name(),
            self.left.describe(),
            self.right.describe()
        )
    }

    /// The pair as the soundness checks take it: the unlinked code as the programs
    /// (their texts and constants), the shape whose inputs and observables it has
    /// (output: `$1`, `$2`; array), and the pair kind whose checks apply.
    pub fn to_pair(&self) -> Pair {
        Pair {
            seed: self.seed,
            index: self.index,
            shape: match self.source.frontend {
                Frontend::TwoInts => Shape::Output,
                Frontend::Array => Shape::Array,
            },
            kind: self.kind.pair_kind(),
            left: self.left.code.clone(),
            right: self.right.code.clone(),
            note: self.note(),
            inputs: self.inputs(),
            observe: self.observe(),
            placement: None,
        }
    }

    /// The `tamarin compare` command for the pair dumped as `left.asm`, `right.asm`.
    pub fn compare_command(&self, dir: &str) -> String {
        let mut c = format!(
            "tamarin compare --link {PRINT_PATH} {dir}/left.asm {dir}/right.asm --observe output,'$3'"
        );
        if self.source.frontend == Frontend::Array {
            c.push_str(&format!(
                " --frontend array --max-len {}",
                source::ARRAY_MAX_LEN
            ));
        }
        c
    }

    /// The pair's `meta.json`.
    pub fn meta(&self) -> serde_json::Value {
        serde_json::json!({
            "seed": self.seed,
            "index": self.index,
            "kind": self.kind.name(),
            "expected": self.kind.expected(),
            "frontend": self.source.frontend.name(),
            "left": self.left.describe(),
            "right": self.right.describe(),
            "bug": self.bug().map(|b| serde_json::json!({"kind": b.kind.name(), "site": b.site})),
            "source": self.source.text(),
            "compare": self.compare_command("."),
        })
    }
}

/// Compiler pair `index` of the stream named by `seed`: frontends alternate, the kind
/// is drawn (15% naive-naive, 45% naive-regalloc, 25% buggy regalloc, 15% buggy
/// naive), a bug goes to one of its generator's sites of a kind it has, and the sides
/// are swapped half the time (naive-naive aside).
pub fn make_compiler_pair(seed: u64, index: u64) -> CompilerPair {
    let mut rng = Rng::for_item(seed, index);
    let frontend = if index.is_multiple_of(2) {
        Frontend::TwoInts
    } else {
        Frontend::Array
    };
    let source = source::generate(frontend, &mut rng);
    let mut kind = CompilerKind::ALL[rng.weighted(&[15, 45, 25, 15])];
    let naive = Side::new(&source, Codegen::Naive, None);
    let other = match kind {
        CompilerKind::NaiveNaive => naive.clone(),
        CompilerKind::NaiveRegalloc => Side::new(&source, Codegen::Regalloc, None),
        CompilerKind::BuggyRegalloc | CompilerKind::BuggyNaive => {
            let codegen = if kind == CompilerKind::BuggyRegalloc {
                Codegen::Regalloc
            } else {
                Codegen::Naive
            };
            let (_, sites) = codegen.compile(&source, None);
            let kinds: Vec<BugKind> = BugKind::ALL
                .into_iter()
                .filter(|&k| sites.count(k) > 0)
                .collect();
            if kinds.is_empty() {
                kind = CompilerKind::NaiveRegalloc;
                Side::new(&source, Codegen::Regalloc, None)
            } else {
                let k = *rng.pick(&kinds);
                let bug = Bug {
                    kind: k,
                    site: rng.below(sites.count(k)),
                };
                Side::new(&source, codegen, Some(bug))
            }
        }
    };
    let swapped = kind != CompilerKind::NaiveNaive && rng.chance(0.5);
    let (left, right) = if swapped {
        (other, naive)
    } else {
        (naive, other)
    };
    CompilerPair {
        seed,
        index,
        kind,
        source,
        left,
        right,
    }
}

/// Compares a compiler pair and checks every verdict as [`check_assembled`] does,
/// and, for a pair equal by construction, that no engine finds a difference and no
/// concrete input shows one ([`FindingKind::SameSourceDiffers`]).
pub fn check_compiler_pair(cp: &CompilerPair, cfg: &CheckConfig) -> PairResult {
    let pair = cp.to_pair();
    let (lp, rp) = match (cp.left.link(), cp.right.link()) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => panic!(
            "harness bug: generated code does not link: {e}\n{}\n{}",
            cp.left.text(),
            cp.right.text()
        ),
    };
    let mut r = check_assembled(&pair, &lp, &rp, cfg);
    r.left_text = cp.left.text();
    r.right_text = cp.right.text();
    if cp.kind.equal_by_construction() {
        let mut extra = Vec::new();
        for run in &r.runs {
            for d in run.directions() {
                if d.kind == Kind::Disequivalent {
                    extra.push(Finding {
                        kind: FindingKind::SameSourceDiffers,
                        engine: run.engine,
                        detail: format!(
                            "two compilations of one program ({}) are disequivalent{}",
                            cp.kind,
                            if d.replayed {
                                " (the counterexample replays: a code generator's bug)"
                            } else {
                                ""
                            }
                        ),
                        inputs: d.inputs.clone(),
                    });
                }
            }
        }
        if let (Some(v), Some(run)) = (&r.missed, r.runs.first()) {
            extra.push(Finding {
                kind: FindingKind::SameSourceDiffers,
                engine: run.engine,
                detail: format!(
                    "two compilations of one program ({}) differ on a concrete input: a code generator's bug",
                    cp.kind
                ),
                inputs: Some(v.clone()),
            });
        }
        r.findings.extend(extra);
    }
    r
}

/// What a linked side did on one input: its ending, compared with the interpreter's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run {
    Done { ret: u32, output: Vec<u8> },
    Fault(tamarin_mips::cpu::FaultKind),
    OutOfFuel,
}

/// Runs a linked side on `values` (in the layout's order of `spec`: `$1`, `$2`, or
/// the array's length then its elements) with `fuel` steps.
pub fn run_linked(program: &Machine, spec: &InputSpec, values: &[u32], fuel: u64) -> Option<Run> {
    use tamarin::{run_observed, InputLayout, Observed};
    use tamarin_mips::cpu::{Config, Status};
    let layout = InputLayout::new(spec, 0);
    let observe = [Observable::Output];
    let (o, obs) = run_observed(program, Config::with_fuel(fuel), &layout, values, &observe)?;
    Some(match o.status {
        Status::Done => Run::Done {
            ret: o.regs.result(),
            output: match obs.first() {
                Some(Observed::Bytes(b)) => b.clone(),
                _ => Vec::new(),
            },
        },
        Status::Error(f) => Run::Fault(f.kind),
        Status::OutOfFuel | Status::Stopped => Run::OutOfFuel,
    })
}

/// The interpreter's inputs for flat `values` of `frontend`'s layout.
pub fn interp_inputs(frontend: Frontend, values: &[u32]) -> interp::Inputs {
    match frontend {
        Frontend::TwoInts => interp::Inputs::Ints(
            values.first().copied().unwrap_or(0),
            values.get(1).copied().unwrap_or(0),
        ),
        Frontend::Array => {
            let len = values.first().copied().unwrap_or(0) as usize;
            interp::Inputs::Array(values.iter().skip(1).take(len).copied().collect())
        }
    }
}

/// Whether a machine run agrees with the interpreter's ending (a run out of fuel
/// agrees with anything: it says nothing).
pub fn agrees(run: &Run, ending: &interp::Ending) -> bool {
    use tamarin_mips::cpu::FaultKind;
    match (run, ending) {
        (Run::OutOfFuel, _) => true,
        (Run::Done { ret, output }, interp::Ending::Done { ret: r, output: o }) => {
            ret == r && output == o
        }
        (Run::Fault(FaultKind::DivisionByZero), interp::Ending::DivisionByZero) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::EDGE_INPUTS;

    /// Inputs of `frontend`'s layout: edge pairs, small and uniform values, and for
    /// arrays every length with small and edge elements.
    fn inputs(frontend: Frontend, rng: &mut Rng, n: usize) -> Vec<Vec<u32>> {
        (0..n)
            .map(|_| {
                let value = |r: &mut Rng| match r.below(3) {
                    0 => *r.pick(&EDGE_INPUTS),
                    1 => r.range(-8, 8) as i32 as u32,
                    _ => r.next_u32(),
                };
                match frontend {
                    Frontend::TwoInts => vec![value(rng), value(rng)],
                    Frontend::Array => {
                        let len = rng.below(source::ARRAY_MAX_LEN as usize + 1);
                        let mut v = vec![len as u32];
                        v.extend((0..source::ARRAY_MAX_LEN).map(|_| value(rng)));
                        v
                    }
                }
            })
            .collect()
    }

    /// Both code generators (no bug) agree with the interpreter on every program of
    /// many seeds, on many inputs each: a test of the generators, not of the tool.
    #[test]
    fn both_codegens_agree_with_the_interpreter() {
        let (mut runs, mut done, mut faults, mut printed) = (0, 0, 0, 0);
        for index in 0..160 {
            let mut rng = Rng::for_item(11, index);
            let frontend = if index % 2 == 0 {
                Frontend::TwoInts
            } else {
                Frontend::Array
            };
            let prog = source::generate(frontend, &mut rng);
            let spec = CompilerPair {
                seed: 0,
                index,
                kind: CompilerKind::NaiveNaive,
                source: prog.clone(),
                left: Side::new(&prog, Codegen::Naive, None),
                right: Side::new(&prog, Codegen::Regalloc, None),
            };
            let l = spec.left.link().unwrap();
            let r = spec.right.link().unwrap();
            for values in inputs(frontend, &mut rng, 40) {
                let want = interp::run(&prog, &interp_inputs(frontend, &values));
                assert!(
                    !matches!(want, interp::Ending::Broken(_)),
                    "{want:?}\n{}",
                    prog.text()
                );
                for (side, p) in [(&spec.left, &l), (&spec.right, &r)] {
                    let got = run_linked(p, &spec.inputs(), &values, 200_000).unwrap();
                    runs += 1;
                    match &got {
                        Run::Done { output, .. } => {
                            done += 1;
                            printed += usize::from(!output.is_empty());
                        }
                        Run::Fault(_) => faults += 1,
                        Run::OutOfFuel => {}
                    }
                    assert!(
                        agrees(&got, &want),
                        "program {index}, {} on {values:?}: {got:?}, interpreter {want:?}\n{}\n{}",
                        side.codegen.name(),
                        prog.text(),
                        side.text()
                    );
                }
            }
        }
        // The programs mostly end, sometimes divide by zero, and print.
        assert!(done > runs / 2, "{done} of {runs} ended, {faults} faults");
        assert!(
            faults > 0 && printed > runs / 3,
            "{faults} faults, {printed} printed"
        );
    }

    #[test]
    fn every_kind_and_bug_arises_and_links() {
        let mut kinds = std::collections::BTreeMap::new();
        let mut bugs = std::collections::BTreeSet::new();
        for index in 0..200 {
            let cp = make_compiler_pair(3, index);
            *kinds.entry(cp.kind).or_insert(0) += 1;
            if let Some(b) = cp.bug() {
                bugs.insert(b.kind);
                assert!(!cp.kind.equal_by_construction());
            }
            cp.left.link().unwrap();
            cp.right.link().unwrap();
            assert!(cp.left.text().starts_with(".import print\n"));
        }
        assert_eq!(kinds.len(), 4, "{kinds:?}");
        assert_eq!(bugs.len(), BugKind::ALL.len(), "{bugs:?}");
    }
}
