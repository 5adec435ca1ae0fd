//! Preconditions (`Options::assume`) through the front door: they change verdicts the
//! right way on every engine, every counterexample satisfies them, and preconditions
//! that do not fit the inputs, or that no input satisfies, are refused.

use proptest::prelude::*;
use tamarin::mips::asm::assemble;
use tamarin::mips::Program;
use tamarin::{
    compare, Engine, Error, InputLayout, InputSpec, Options, Precondition, Quiet, Verdict,
};

fn asm(text: &str) -> Program {
    assemble("t.asm", text).expect("assembles")
}

/// Signed maximum of $1 and $2 into $3.
const MAX_SIGNED: &str = "slt $4, $1, $2\nadd $3, $1, $0\nbeq $4, $0, 1\nadd $3, $2, $0\njr $31\n";
/// The same with an unsigned comparison: differs only when the signs differ.
const MAX_UNSIGNED: &str =
    "sltu $4, $1, $2\nadd $3, $1, $0\nbeq $4, $0, 1\nadd $3, $2, $0\njr $31\n";

/// Counts the array's elements into $3.
const COUNT: &str = "add $3, $2, $0\njr $31\n";
/// Counts the elements that are at least 1 (a loop over the array).
const COUNT_POSITIVE: &str = "\
      lis $4
      .word 4
      lis $5
      .word 1
      add $3, $0, $0
      add $6, $1, $0      ; p
      mult $2, $4
      mflo $7
      add $7, $1, $7      ; end
loop: beq $6, $7, done
      lw $8, 0($6)
      add $6, $6, $4
      slt $9, $8, $5      ; x < 1 ?
      bne $9, $0, loop
      add $3, $3, $5
      beq $0, $0, loop
done: jr $31
";

fn opts(engine: Engine, assume: &[&str]) -> Options {
    let mut o = Options::default();
    o.engine = engine;
    o.solver.portfolio = Vec::new();
    o.assume = assume
        .iter()
        .map(|t| Precondition::parse(t).expect("parses"))
        .collect();
    o
}

fn array_opts(engine: Engine, assume: &[&str]) -> Options {
    let mut o = opts(engine, assume);
    // The merged encoding of the counting loop grows hard fast with the length.
    let max_len = if engine == Engine::Bmc { 2 } else { 4 };
    o.inputs = InputSpec::Array {
        max_len,
        base: None,
    };
    o
}

fn verdict(l: &str, r: &str, o: &Options) -> Verdict {
    compare(&asm(l), &asm(r), o, &mut Quiet)
        .expect("the task is valid")
        .verdict
}

/// Whether the counterexample's inputs satisfy `o`'s preconditions.
fn admitted(o: &Options, inputs: &[(String, u32)]) -> bool {
    let layout = InputLayout::new(&o.inputs, o.stdin_len);
    let values: Vec<u32> = inputs.iter().map(|(_, v)| *v).collect();
    o.assume.iter().all(|p| p.holds(&layout, &values))
}

#[test]
fn a_difference_outside_the_domain_is_no_difference() {
    for engine in [Engine::Concolic, Engine::Bmc, Engine::Auto] {
        let without = verdict(MAX_SIGNED, MAX_UNSIGNED, &opts(engine, &[]));
        assert!(
            matches!(without, Verdict::Disequivalent(_)),
            "{engine:?}: {without:?}"
        );
        let o = opts(engine, &["$1 >= 0", "$2 >= 0"]);
        let with = verdict(MAX_SIGNED, MAX_UNSIGNED, &o);
        assert!(
            matches!(with, Verdict::Equivalent(_)),
            "{engine:?}: {with:?}"
        );
        // A domain that still allows a sign difference keeps the difference, and its
        // witness lies inside the domain.
        let o = opts(engine, &["-5 <= $1 <= 5", "u$2 < 10"]);
        match verdict(MAX_SIGNED, MAX_UNSIGNED, &o) {
            Verdict::Disequivalent(cx) => assert!(admitted(&o, &cx.inputs), "{cx:?}"),
            v => panic!("{engine:?}: {v:?}"),
        }
    }
}

#[test]
fn quantified_array_preconditions_on_both_engines() {
    for engine in [Engine::Concolic, Engine::Bmc] {
        let without = verdict(COUNT, COUNT_POSITIVE, &array_opts(engine, &[]));
        match &without {
            Verdict::Disequivalent(cx) => {
                assert!(cx.inputs.iter().skip(1).any(|&(_, v)| (v as i32) < 1))
            }
            v => panic!("{engine:?}: {v:?}"),
        }
        let o = array_opts(engine, &["all a: 1 <= a <= 26"]);
        let with = verdict(COUNT, COUNT_POSITIVE, &o);
        assert!(
            matches!(with, Verdict::Equivalent(_)),
            "{engine:?}: {with:?}"
        );
        // Only the first element is constrained: the others still differ.
        let o = array_opts(engine, &["len >= 2", "a[0] >= 1"]);
        match verdict(COUNT, COUNT_POSITIVE, &o) {
            Verdict::Disequivalent(cx) => {
                assert!(admitted(&o, &cx.inputs), "{cx:?}");
                assert!(cx.inputs[0].1 >= 2, "{cx:?}");
            }
            v => panic!("{engine:?}: {v:?}"),
        }
    }
}

#[test]
fn first_inputs_outside_the_domain_are_not_run() {
    // The default first inputs (0, 0) break the precondition; a difference that only
    // they show must not be reported.
    let left = "add $3, $1, $2\njr $31\n";
    let right = "bne $1, $0, 3\nlis $3\n.word 7\njr $31\nadd $3, $1, $2\njr $31\n";
    let o = opts(Engine::Concolic, &["$1 != 0"]);
    let v = verdict(left, right, &o);
    assert!(matches!(v, Verdict::Equivalent(_)), "{v:?}");
    let v = verdict(left, right, &opts(Engine::Concolic, &[]));
    assert!(matches!(v, Verdict::Disequivalent(_)), "{v:?}");
}

#[test]
fn preconditions_that_do_not_fit_are_refused() {
    let p = asm(MAX_SIGNED);
    let e = compare(&p, &p, &opts(Engine::Auto, &["$3 > 0"]), &mut Quiet).unwrap_err();
    match e {
        Error::Precondition {
            text,
            span,
            message,
        } => {
            assert_eq!(text, "$3 > 0");
            assert_eq!(span, 0..2);
            assert!(message.contains("not an input"), "{message}");
        }
        e => panic!("{e:?}"),
    }
    let e = compare(
        &p,
        &p,
        &opts(Engine::Auto, &["$1 > 5", "$1 < 3"]),
        &mut Quiet,
    )
    .unwrap_err();
    assert!(matches!(e, Error::Unsatisfiable { .. }), "{e:?}");
    let e = compare(&p, &p, &opts(Engine::Auto, &["len > 0"]), &mut Quiet).unwrap_err();
    assert!(matches!(e, Error::Precondition { .. }), "{e:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever the preconditions (random ranges of both inputs), every witness
    /// satisfies them, on both engines.
    #[test]
    fn every_witness_satisfies_the_preconditions(
        lo1 in -50i32..50, w1 in 0i32..100, lo2 in -50i32..50, w2 in 0i32..100,
        unsigned in any::<bool>(), bmc in any::<bool>(),
    ) {
        let u = if unsigned { "u" } else { "" };
        let a = format!("{lo1} <= $1 <= {}", lo1 + w1);
        let b = format!("{lo2} <= {u}$2 && {u}$2 <= {}", lo2 + w2);
        let engine = if bmc { Engine::Bmc } else { Engine::Concolic };
        let o = opts(engine, &[&a, &b]);
        // Differ where $1 + $2 is odd.
        let left = "add $3, $1, $2\njr $31\n";
        let right = "add $3, $1, $2\nlis $5\n.word 2\ndivu $3, $5\nmflo $3\nmult $3, $5\nmflo $3\njr $31\n";
        // The admitted box of $2, and whether some admitted pair has an odd sum.
        let (lo2b, hi2) = (if unsigned { lo2.max(0) } else { lo2 }, lo2 + w2);
        let empty = hi2 < lo2b;
        let odd = !empty && (w1 > 0 || hi2 > lo2b || (lo1 + lo2b) % 2 != 0);
        match compare(&asm(left), &asm(right), &o, &mut Quiet) {
            Ok(r) => match r.verdict {
                Verdict::Disequivalent(cx) => {
                    prop_assert!(admitted(&o, &cx.inputs), "{:?}", cx);
                    prop_assert!(odd);
                }
                Verdict::Equivalent(_) => prop_assert!(!odd),
                Verdict::PossiblyEquivalent(_) => {}
            },
            Err(Error::Unsatisfiable { .. }) => prop_assert!(empty),
            Err(e) => prop_assert!(false, "{e:?}"),
        }
    }
}
