//! Every solver backend gives the paper's verdicts. External solvers are skipped (with a
//! note on stderr) when their binary is not installed; `.ci/run` installs them.

use std::path::Path;

use tamarin::concolic::{compare, Options, Quiet};
use tamarin::solver::ProcessSolver;
use tamarin::verdict::Verdict;
use tamarin_mips::loader::load_file;
use tamarin_mips::Program;

fn paper(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name);
    load_file(&path, None).unwrap_or_else(|e| panic!("{e}"))
}

fn available(name: &str) -> bool {
    let ok = ProcessSolver::from_name(name, std::time::Duration::from_secs(5))
        .and_then(|p| p.probe())
        .is_ok();
    if !ok {
        eprintln!("skipping {name}: not installed");
    }
    ok
}

fn verdicts_with(solver: &str) {
    let rows: &[(&str, &str, &str)] = &[
        ("fig1-left.asm", "fig1-right.asm", "equivalent"),
        ("fig1-left.asm", "fig2-right.asm", "disequivalent"),
        ("fig5-left.asm", "fig5-right.asm", "disequivalent"),
        ("fig8-left.asm", "fig8-right.asm", "disequivalent"),
        ("fig8-left.asm", "fig8-left.asm", "equivalent"),
        ("fig12-left.asm", "fig1-left.asm", "equivalent"),
    ];
    for (l, r, want) in rows {
        let mut opts = Options::default();
        opts.solver.external = Some(solver.to_string());
        let report = compare(&paper(l), &paper(r), &opts, &mut Quiet);
        assert_eq!(
            report.verdict.name(),
            *want,
            "{solver}: {l} {r}: {:?}",
            report.verdict
        );
        if let Verdict::Disequivalent(cx) = &report.verdict {
            assert!(!cx.inputs.is_empty());
        }
    }
}

#[test]
fn cvc5_gives_the_paper_verdicts() {
    if available("cvc5") {
        verdicts_with("cvc5");
    }
}

#[test]
fn yices_gives_the_paper_verdicts() {
    if available("yices") {
        verdicts_with("yices");
    }
}

#[test]
fn the_z3_binary_gives_the_paper_verdicts() {
    if available("z3") {
        verdicts_with("z3");
    }
}

#[test]
fn a_missing_solver_is_reported_not_trusted() {
    let p = ProcessSolver::from_name(
        "no-such-solver-binary --flag",
        std::time::Duration::from_secs(1),
    )
    .expect("parses");
    assert!(p.probe().is_err());
    let mut opts = Options::default();
    opts.solver.external = Some("no-such-solver-binary".into());
    // Without the portfolio, which would answer in its place.
    opts.solver.portfolio.clear();
    // They differ only where $1 + $2 == 12345, which only a solver finds.
    let report = compare(
        &paper("../needle/left.asm"),
        &paper("../needle/right.asm"),
        &opts,
        &mut Quiet,
    );
    // The edge runs show no difference and every query is unknown.
    assert_eq!(
        report.verdict.name(),
        "possibly-equivalent",
        "{:?}",
        report.verdict
    );
}
