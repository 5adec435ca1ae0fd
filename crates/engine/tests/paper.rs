//! Every row of the report's examples (examples/paper/EXPECTED.md), with its verdict.

use tamarin::concolic::{compare, Options, Quiet, Report};
use tamarin::verdict::Verdict;
use tamarin_mips::loader::load_file;
use tamarin_mips::Program;

fn load(name: &str) -> Program {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name);
    load_file(&path, None).unwrap_or_else(|e| panic!("{e}"))
}

fn run(left: &str, right: &str, fuel: Option<u64>) -> Report {
    let mut opts = Options::default();
    if let Some(f) = fuel {
        opts.fuel = f;
    }
    compare(&load(left), &load(right), &opts, &mut Quiet)
}

fn inputs(r: &Report) -> (i32, i32) {
    match &r.verdict {
        Verdict::Disequivalent(cx) => (cx.inputs[0].1 as i32, cx.inputs[1].1 as i32),
        v => panic!("expected disequivalent, got {v:?}"),
    }
}

#[test]
fn fig1_against_fig1_right_is_equivalent() {
    let r = run("fig1-left.asm", "fig1-right.asm", None);
    assert!(
        matches!(r.verdict, Verdict::Equivalent(_)),
        "{:?}",
        r.verdict
    );
}

#[test]
fn fig1_against_literal_fig1_right_is_disequivalent() {
    let r = run("fig1-left.asm", "fig1-literal-right.asm", None);
    let _ = inputs(&r);
    if let Verdict::Disequivalent(cx) = &r.verdict {
        assert!(cx.left.status == tamarin_mips::Status::Done);
        assert!(matches!(cx.right.status, tamarin_mips::Status::Error(_)));
    }
}

#[test]
fn fig1_against_fig2_with_little_fuel_is_not_disequivalent() {
    let r = run("fig1-left.asm", "fig2-right.asm", Some(10));
    assert!(
        !matches!(r.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        r.verdict
    );
}

#[test]
fn fig1_against_fig2_is_disequivalent_with_different_inputs() {
    let r = run("fig1-left.asm", "fig2-right.asm", None);
    let (a, b) = inputs(&r);
    assert_ne!(a, b);
}

#[test]
fn fig5_needs_the_right_programs_condition() {
    let r = run("fig5-left.asm", "fig5-right.asm", None);
    let (_, b) = inputs(&r);
    assert_eq!(b, 100);
}

#[test]
fn fig8_needs_the_jump_target() {
    let r = run("fig8-left.asm", "fig8-right.asm", None);
    let (a, b) = inputs(&r);
    assert_eq!(a.wrapping_add(b), 16);
    assert_ne!(a, b);
}

#[test]
fn fig8_against_itself_is_equivalent() {
    let r = run("fig8-left.asm", "fig8-left.asm", None);
    assert!(
        matches!(r.verdict, Verdict::Equivalent(_)),
        "{:?}",
        r.verdict
    );
}

#[test]
fn fig12_against_fig1_is_equivalent() {
    let r = run("fig12-left.asm", "fig1-left.asm", None);
    assert!(
        matches!(r.verdict, Verdict::Equivalent(_)),
        "{:?}",
        r.verdict
    );
}
