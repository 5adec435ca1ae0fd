//! Domain programs (`Options::assume_program`) through the front door: every witness is
//! inside the domain the program accepts (checked by running it here, on the machine
//! alone), a difference inside it is found, one outside it is never reported, a proof
//! covers exactly the inputs it accepts, and a program the encoding cannot follow
//! exactly is refused.

use proptest::prelude::*;
use tamarin::mips::asm::assemble;
use tamarin::mips::cpu::{Config, Machine, NoTrace, Status};
use tamarin::mips::{Program, Reg};
use tamarin::{compare, DomainProgram, Engine, Error, Options, Quiet, Verdict};

fn asm(text: &str) -> Program {
    assemble("t.asm", text).unwrap_or_else(|e| panic!("{e}"))
}

/// Accepts `0 <= $1 <= bound` with `$1 % k == r`, the remainder found by a loop that
/// subtracts `k` (so the domain program loops as many times as the input says).
fn checker(bound: i32, k: i32, r: i32) -> String {
    format!(
        "      add $3, $0, $0
      slt $4, $1, $0
      bne $4, $0, done
      lis $5
      .word {bound}
      slt $4, $5, $1
      bne $4, $0, done
      lis $6
      .word {k}
      add $7, $1, $0
loop: slt $4, $7, $6
      bne $4, $0, rem
      sub $7, $7, $6
      beq $0, $0, loop
rem:  lis $8
      .word {r}
      bne $7, $8, done
      lis $3
      .word 1
done: jr $31
"
    )
}

/// `$3 = 3 * $1`.
const TRIPLE: &str = "lis $4\n.word 3\nmult $1, $4\nmflo $3\njr $31\n";

/// `$3 = 3 * $1`, but 0 when `$1 == d`.
fn triple_but(d: i32) -> String {
    format!("lis $4\n.word 3\nmult $1, $4\nmflo $3\nlis $5\n.word {d}\nbne $1, $5, end\nadd $3, $0, $0\nend: jr $31\n")
}

/// Whether `program` accepts `$1 = x1, $2 = x2`, run on the machine alone.
fn accepts(program: &Program, x1: u32, x2: u32) -> bool {
    let mut m = Machine::new(program, Config::default());
    m.set_reg(Reg::from_bits(1), x1);
    m.set_reg(Reg::from_bits(2), x2);
    let out = m.run_to_outcome(&mut NoTrace);
    out.status == Status::Done && out.regs.get(Reg::from_bits(3)) == 1
}

fn opts(engine: Engine, domain: &Program) -> Options {
    let mut o = Options::default();
    o.engine = engine;
    o.solver.portfolio = Vec::new();
    o.assume_program = Some(DomainProgram::new("check.asm", domain.clone(), 10_000));
    o
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever the domain (a bound, a modulus and a remainder) and wherever the one
    /// difference lies, on either engine: a witness is accepted by the domain program,
    /// a difference inside the domain is found, and one outside is never reported nor
    /// stands in the way of a proof.
    #[test]
    fn witnesses_stay_inside_and_proofs_cover_the_domain(
        bound in 0i32..40, k in 1i32..5, r in 0i32..5, d in -5i32..45, bmc in any::<bool>(),
    ) {
        let r = r % k;
        let domain = asm(&checker(bound, k, r));
        let engine = if bmc { Engine::Bmc } else { Engine::Concolic };
        let o = opts(engine, &domain);
        let inside = (0..=bound).any(|x| x % k == r);
        let differs = d != 0 && accepts(&domain, d as u32, 0);
        match compare(&asm(TRIPLE), &asm(&triple_but(d)), &o, &mut Quiet) {
            Ok(report) => match report.verdict {
                Verdict::Disequivalent(cx) => {
                    let x = cx.inputs.first().map_or(0, |(_, v)| *v);
                    let y = cx.inputs.get(1).map_or(0, |(_, v)| *v);
                    prop_assert!(accepts(&domain, x, y), "witness {:?} outside", cx.inputs);
                    prop_assert!(differs);
                }
                Verdict::Equivalent(_) => prop_assert!(!differs),
                Verdict::PossiblyEquivalent(why) => prop_assert!(false, "undecided: {why:?}"),
            },
            Err(Error::Unsatisfiable { .. }) => prop_assert!(!inside),
            Err(e) => prop_assert!(false, "{e:?}"),
        }
    }
}

/// A domain program the merged encoding cannot follow exactly (a store to an address
/// read from the inputs, which may change its own code) is refused, with its name,
/// rather than trusted.
#[test]
fn a_domain_program_that_cannot_be_encoded_exactly_is_refused() {
    let jumps = asm("lis $3\n.word 1\nsw $1, 0($2)\njr $31\n");
    let e = compare(
        &asm(TRIPLE),
        &asm(TRIPLE),
        &opts(Engine::Auto, &jumps),
        &mut Quiet,
    )
    .unwrap_err();
    match e {
        Error::DomainProgram { name, message } => {
            assert_eq!(name, "check.asm");
            assert!(message.contains("cannot follow it exactly"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// The domain program's own fuel bounds the domain: an input on which it runs longer
/// is outside, so a difference there is not reported.
#[test]
fn inputs_the_domain_program_does_not_decide_within_its_fuel_are_outside() {
    // Accepts every multiple of 1 up to 40, after $1 turns of its loop.
    let domain = asm(&checker(40, 1, 0));
    let mut o = opts(Engine::Concolic, &domain);
    o.assume_program = Some(DomainProgram::new("check.asm", domain.clone(), 60));
    let far = compare(&asm(TRIPLE), &asm(&triple_but(30)), &o, &mut Quiet).expect("runs");
    assert!(
        matches!(far.verdict, Verdict::Equivalent(_)),
        "{:?}",
        far.verdict
    );
    let near = compare(&asm(TRIPLE), &asm(&triple_but(3)), &o, &mut Quiet).expect("runs");
    assert!(
        matches!(near.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        near.verdict
    );
}

/// An engine that cannot build the domain program's acceptance (the front door refuses
/// such a task first; an engine called directly, or one whose deadline passed during
/// the encoding, meets it) admits no input and says so: it never proves anything of an
/// empty domain.
#[test]
fn an_engine_that_cannot_encode_the_domain_claims_no_proof() {
    let writes = asm("lis $3\n.word 1\nsw $1, 0($2)\njr $31\n");
    let o = opts(Engine::Concolic, &writes);
    let (l, r) = (asm(TRIPLE), asm(&triple_but(3)));
    for report in [
        tamarin::concolic::compare(&l, &r, &o, &mut Quiet),
        tamarin::bmc::compare(&l, &r, &o, &mut Quiet),
    ] {
        match report.verdict {
            Verdict::PossiblyEquivalent(why) => {
                assert!(why.iter().any(|i| i.kind() == "code-write"), "{why:?}")
            }
            other => panic!("{other:?}"),
        }
    }
}
