//! Proofs of bounded equivalence, cross-checked: pairs that agree only for non-obvious
//! reasons come out `equivalent`, a differential test of random and edge inputs (5,000
//! by default, 100,000 in the long run: `TAMARIN_PROOF_INPUTS`) finds no difference on
//! any of them, and each pair's one-instruction mutant comes out
//! `disequivalent` with a counterexample that replays. Every engine gives every verdict.
//! Queries are bounded by Z3's deterministic resource limit, not by the clock, so no
//! verdict here depends on the machine's load.

mod common;

use tamarin::concolic::{Options, Quiet, Report};
use tamarin::verdict::{outcomes_differ, Engine, Verdict};
use tamarin_mips::asm::assemble;
use tamarin_mips::cpu::{run_program, Config, Frontend};
use tamarin_mips::Program;

fn asm(text: &str) -> Program {
    assemble("test.asm", text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Inputs for the differential test: every pair of edge values, then pseudo-random
/// pairs (half of them small).
fn inputs(n: usize) -> impl Iterator<Item = (u32, u32)> {
    const EDGE: [u32; 12] = [
        0,
        1,
        2,
        3,
        7,
        100,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        0xFFFF_FFFE,
        0xFFFF,
        0x1_0000,
    ];
    let edges = EDGE.iter().flat_map(|&a| EDGE.iter().map(move |&b| (a, b)));
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let random = std::iter::repeat_with(move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let (a, b) = (state as u32, (state >> 32) as u32);
        if state & 1 == 0 {
            (a % 64, b % 64)
        } else {
            (a, b)
        }
    });
    edges.chain(random).take(n)
}

fn differential(left: &Program, right: &Program, fuel: u64, n: usize) {
    let config = Config::with_fuel(fuel);
    for (a, b) in inputs(n) {
        let f = Frontend::TwoInts(a, b);
        let l = run_program(left, config, &f, &[]).expect("runs");
        let r = run_program(right, config, &f, &[]).expect("runs");
        assert!(
            !outcomes_differ(&l, &r),
            "a proved pair differs on ({a}, {b}): {:?} vs {:?}",
            l.status,
            r.status
        );
    }
}

const ENGINES: [Engine; 3] = [Engine::Concolic, Engine::Bmc, Engine::Auto];

fn compare(left: &Program, right: &Program, opts: &Options, engine: Engine) -> Report {
    let mut opts = opts.clone();
    opts.engine = engine;
    tamarin::equiv::compare(left, right, &opts, &mut Quiet)
}

/// Asserts an `equivalent` verdict proved by `engine` (auto proves with either).
fn assert_proved(report: &Report, engine: Engine, what: &str) {
    let Verdict::Equivalent(p) = &report.verdict else {
        panic!(
            "{what}, {engine:?}: expected equivalent, got {:?}",
            report.verdict
        );
    };
    if engine != Engine::Auto {
        assert_eq!(p.engine, engine, "{what}");
    }
    assert_eq!(p.encoding.is_some(), p.engine == Engine::Bmc, "{what}");
}

/// Proves `left` ≡ `right` with every engine, cross-checks it, and refutes `mutant`
/// against `left` with every engine.
fn proved_and_mutant_refuted(left: &str, right: &str, mutant: &str) {
    let (l, r, m) = (asm(left), asm(right), asm(mutant));
    let opts = common::load_proof();
    for engine in ENGINES {
        assert_proved(&compare(&l, &r, &opts, engine), engine, "the pair");
    }
    differential(&l, &r, opts.fuel, common::proof_inputs());
    for engine in ENGINES {
        let report = compare(&l, &m, &opts, engine);
        let Verdict::Disequivalent(cx) = &report.verdict else {
            panic!(
                "the mutant, {engine:?}: expected disequivalent, got {:?}",
                report.verdict
            );
        };
        let f = Frontend::TwoInts(cx.inputs[0].1, cx.inputs[1].1);
        let lo = run_program(&l, Config::with_fuel(opts.fuel), &f, &[]).expect("runs");
        let mo = run_program(&m, Config::with_fuel(opts.fuel), &f, &[]).expect("runs");
        assert!(outcomes_differ(&lo, &mo), "the counterexample replays");
    }
}

#[test]
fn strength_reduction_of_a_multiplication() {
    let mult = "lis $4\n.word 8\nmult $1, $4\nmflo $3\njr $31\n";
    let shifts = "add $3, $1, $1\nadd $3, $3, $3\nadd $3, $3, $3\njr $31\n";
    let mutant = "add $3, $1, $1\nadd $3, $3, $3\nadd $3, $3, $1\njr $31\n";
    proved_and_mutant_refuted(mult, shifts, mutant);
}

#[test]
fn max_two_ways() {
    let a = "slt $4, $1, $2\nbeq $4, $0, first\nadd $3, $2, $0\njr $31\nfirst:\nadd $3, $1, $0\njr $31\n";
    let b = "slt $4, $2, $1\nbne $4, $0, first\nadd $3, $2, $0\njr $31\nfirst:\nadd $3, $1, $0\njr $31\n";
    // Unsigned comparison: differs when exactly one input is negative.
    let m = "sltu $4, $2, $1\nbne $4, $0, first\nadd $3, $2, $0\njr $31\nfirst:\nadd $3, $1, $0\njr $31\n";
    proved_and_mutant_refuted(a, b, m);
}

#[test]
fn absolute_value_two_ways() {
    let branchy =
        "slt $4, $1, $0\nbeq $4, $0, pos\nsub $3, $0, $1\njr $31\npos:\nadd $3, $1, $0\njr $31\n";
    // Multiply by the sign (1 or -1): abs(INT_MIN) is INT_MIN both ways.
    let by_sign = "slt $4, $1, $0\nadd $6, $4, $4\nlis $7\n.word 1\nsub $5, $7, $6\nmult $1, $5\nmflo $3\njr $31\n";
    let mutant = "slt $4, $1, $0\nadd $6, $4, $4\nlis $7\n.word 1\nsub $5, $7, $6\nmult $1, $5\nmfhi $3\njr $31\n";
    proved_and_mutant_refuted(branchy, by_sign, mutant);
}

#[test]
fn division_by_a_constant_against_repeated_subtraction() {
    // Quotient by 3 for inputs below 30 by subtraction, else by divu: the same function.
    let divu = "lis $4\n.word 3\ndivu $1, $4\nmflo $3\njr $31\n";
    let loop_ = "
        lis $4
        .word 3
        lis $5
        .word 30
        sltu $6, $1, $5
        bne $6, $0, small
        divu $1, $4
        mflo $3
        jr $31
        small:
        add $7, $1, $0      ; remainder so far
        add $3, $0, $0      ; quotient
        lis $8
        .word 1
        loop:
        sltu $6, $7, $4
        bne $6, $0, done
        sub $7, $7, $4
        add $3, $3, $8
        beq $0, $0, loop
        done:
        jr $31
    ";
    // Off by one: the loop stops while 3 is still left.
    let mutant = loop_.replace(
        "sltu $6, $7, $4\n        bne",
        "slt $6, $8, $7\n        beq",
    );
    proved_and_mutant_refuted(divu, loop_, &mutant);
}

#[test]
fn a_loop_against_its_closed_form_on_a_guarded_range() {
    // sum 1..$1 for 0 <= $1 <= 20, else 0.
    let guard = "
        slt $4, $1, $0
        bne $4, $0, zero
        lis $5
        .word 21
        slt $4, $1, $5
        beq $4, $0, zero
    ";
    let looped = format!(
        "{guard}
        add $3, $0, $0
        add $6, $0, $0
        lis $7
        .word 1
        loop:
        beq $6, $1, out
        add $6, $6, $7
        add $3, $3, $6
        beq $0, $0, loop
        out:
        jr $31
        zero:
        add $3, $0, $0
        jr $31
        "
    );
    let closed = format!(
        "{guard}
        lis $7
        .word 1
        add $6, $1, $7
        mult $1, $6
        mflo $3
        lis $8
        .word 2
        divu $3, $8
        mflo $3
        jr $31
        zero:
        add $3, $0, $0
        jr $31
        "
    );
    let mutant = closed.replace("add $6, $1, $7", "add $6, $1, $0");
    proved_and_mutant_refuted(&looped, &closed, &mutant);
}

#[test]
fn the_paper_proofs_are_cross_checked() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/paper");
    let load = |n: &str| {
        tamarin_mips::loader::load_file(&dir.join(n), None).unwrap_or_else(|e| panic!("{e}"))
    };
    for (l, r, fuel) in [
        ("fig1-left.asm", "fig1-right.asm", 10_000),
        ("fig12-left.asm", "fig1-left.asm", 10_000),
        ("fig8-left.asm", "fig8-left.asm", 10_000),
        ("fig1-left.asm", "fig2-right.asm", 10),
    ] {
        let (lp, rp) = (load(l), load(r));
        let mut opts = common::load_proof();
        opts.fuel = fuel;
        for engine in ENGINES {
            assert_proved(&compare(&lp, &rp, &opts, engine), engine, l);
        }
        differential(&lp, &rp, fuel, common::proof_inputs());
    }
}

/// A loop whose trip count is an input, against its closed form, on a range wide
/// enough that enumerating its paths runs out of budget: the merged encoding proves it
/// in one query, and `auto` falls back to it.
#[test]
fn the_merged_encoding_proves_what_path_enumeration_cannot_afford() {
    // sum 0..$1 (unsigned) for $1 < 300, else 0; against n * (n - 1) / 2.
    let guard = "lis $5\n.word 300\nsltu $4, $1, $5\nbeq $4, $0, zero\nlis $7\n.word 1\n";
    let looped = format!(
        "{guard}add $3, $0, $0\nadd $6, $0, $0\nloop:\nbeq $6, $1, out\nadd $3, $3, $6\nadd $6, $6, $7\nbeq $0, $0, loop\nout:\njr $31\nzero:\nadd $3, $0, $0\njr $31\n"
    );
    let closed = format!(
        "{guard}sub $6, $1, $7\nmultu $1, $6\nmflo $3\nlis $8\n.word 2\ndivu $3, $8\nmflo $3\njr $31\nzero:\nadd $3, $0, $0\njr $31\n"
    );
    let (l, r) = (asm(&looped), asm(&closed));
    let mut opts = common::load_proof();
    opts.max_runs = 100;
    let report = compare(&l, &r, &opts, Engine::Concolic);
    assert!(
        matches!(report.verdict, Verdict::PossiblyEquivalent(_)),
        "{:?}",
        report.verdict
    );
    assert_proved(&compare(&l, &r, &opts, Engine::Bmc), Engine::Bmc, "bmc");
    assert_proved(&compare(&l, &r, &opts, Engine::Auto), Engine::Bmc, "auto");
    differential(&l, &r, opts.fuel, common::proof_inputs());
    // Off by one in the closed form: n * (n + 1) / 2.
    let mutant = closed.replace("sub $6, $1, $7", "add $6, $1, $7");
    let report = compare(&l, &asm(&mutant), &opts, Engine::Bmc);
    assert!(
        matches!(report.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        report.verdict
    );
}

/// A recursive function (return addresses and saved registers on the stack, calls
/// through `jalr`) against the closed form, on a guarded range.
#[test]
fn a_recursive_sum_against_its_closed_form() {
    let recursive = r#"; sum 0..n recursively for 0 <= n < 20, else 0
lis $5
.word 20
sltu $6, $1, $5
beq $6, $0, zero
sw $31, -4($30)
lis $4
.word 4
sub $30, $30, $4
lis $8
.word sum
add $7, $1, $0
jalr $8
lis $4
.word 4
add $30, $30, $4
lw $31, -4($30)
jr $31
zero:
add $3, $0, $0
jr $31
; sum($7) -> $3, recursive
sum:
bne $7, $0, rec
add $3, $0, $0
jr $31
rec:
sw $31, -4($30)
sw $7, -8($30)
lis $4
.word 8
sub $30, $30, $4
lis $9
.word 1
sub $7, $7, $9
jalr $8
lis $4
.word 8
add $30, $30, $4
lw $7, -8($30)
lw $31, -4($30)
add $3, $3, $7
jr $31
"#;
    let closed = r#"lis $5
.word 20
sltu $6, $1, $5
beq $6, $0, zero
lis $7
.word 1
add $6, $1, $7
multu $1, $6
mflo $3
lis $8
.word 2
divu $3, $8
mflo $3
jr $31
zero:
add $3, $0, $0
jr $31
"#;
    // The mutant adds the constant 1 instead of the argument on the way back.
    let mutant = recursive.replace("add $3, $3, $7", "add $3, $3, $9");
    proved_and_mutant_refuted(closed, recursive, &mutant);
}

/// The array maximum's pair (forward, backward), its mutant, and proof options for
/// arrays of up to `max_len` elements.
fn array_maximum(max_len: u32) -> (Program, Program, Program, Options) {
    let load = common::proof_example;
    let mut opts = common::load_proof();
    opts.inputs = tamarin::InputSpec::Array {
        max_len,
        base: None,
    };
    (
        load("amax-fwd.asm"),
        load("amax-bwd.asm"),
        load("amax-bwd-mutant.asm"),
        opts,
    )
}

/// An array's maximum computed forward and backward: both programs have hundreds of
/// paths (one per order of the elements' records), and the final step proves each
/// forward path against the backward paths of its length pair by pair, most of them
/// decided as comparisons of inputs without the backend. Cross-checked on random
/// arrays (few distinct values, so that ties and equal maxima are common), and the
/// mutant that compares unsigned is refuted.
#[test]
fn an_array_maximum_two_ways_through_every_order_of_its_elements() {
    let (fwd, bwd, mutant, opts) = array_maximum(8);
    let report = compare(&fwd, &bwd, &opts, Engine::Concolic);
    assert_proved(&report, Engine::Concolic, "amax");
    assert!(
        report.stats.paths.0 > 500 && report.stats.paths.1 > 250,
        "{:?}",
        report.stats.paths
    );
    array_differential(&fwd, &bwd, opts.fuel, 8);
    let report = compare(&fwd, &mutant, &opts, Engine::Concolic);
    assert!(
        matches!(report.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        report.verdict
    );
}

/// Cross-checks two array programs on random arrays of up to `max_len` elements (few
/// distinct values, so that ties and equal maxima are common).
fn array_differential(left: &Program, right: &Program, fuel: u64, max_len: u64) {
    let config = Config::with_fuel(fuel);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..common::proof_inputs() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = (state % (max_len + 1)) as usize;
        let pick = [
            0u32,
            1,
            7,
            u32::MAX,
            0x8000_0000,
            0x7FFF_FFFF,
            5,
            0xFFFF_FFF0,
        ];
        let elems: Vec<u32> = (0..len)
            .map(|i| pick[((state >> (3 * i % 61)) & 7) as usize])
            .collect();
        let f = Frontend::Array { elems, base: None };
        let l = run_program(left, config, &f, &[]).expect("runs");
        let r = run_program(right, config, &f, &[]).expect("runs");
        assert!(!outcomes_differ(&l, &r), "a proved pair differs on {f:?}");
    }
}

/// The same maximum over up to 16 elements: 65,535 forward and 32,768 backward paths,
/// too many to enumerate. The merged encoding proves it: each loop iteration is one
/// state (its arms meet at the loop's head), each running maximum a chain that
/// normalizes to the same term in either order, and the query split on the length
/// folds to nothing. Under the default resource limit, so that losing either step
/// shows as an unknown rather than a slow test.
#[test]
fn an_array_maximum_of_sixteen_elements_is_proved_by_the_merged_encoding() {
    merged_encoding_proves_array_maximum(16, &[Engine::Bmc, Engine::Auto]);
}

/// At up to 32 elements the array has 33 lengths, and the merged encoding's query is
/// split into one case per length (it is not decided whole within the default
/// resource limit): fails if the split link takes fewer than 33 cases.
#[test]
#[ignore = "seconds of work: the long tier of .ci/run runs it (--ignored)"]
fn an_array_maximum_of_thirty_two_elements_is_proved_case_by_length() {
    merged_encoding_proves_array_maximum(32, &[Engine::Bmc]);
}

/// The array maximum over up to `max_len` elements is proved by each of `engines`
/// under the default resource limit, cross-checked on random arrays, and its mutant
/// refuted by the merged encoding. A 120 s limit only guards against a hang: each
/// proof takes about a second.
fn merged_encoding_proves_array_maximum(max_len: u32, engines: &[Engine]) {
    let (fwd, bwd, mutant, mut opts) = array_maximum(max_len);
    opts.solver.resource_limit = tamarin::solver::SolverConfig::default().resource_limit;
    opts.timeout = Some(std::time::Duration::from_secs(120));
    let name = format!("amax-{max_len}");
    for &engine in engines {
        assert_proved(&compare(&fwd, &bwd, &opts, engine), engine, &name);
    }
    array_differential(&fwd, &bwd, opts.fuel, u64::from(max_len));
    let report = compare(&fwd, &mutant, &opts, Engine::Bmc);
    assert!(
        matches!(report.verdict, Verdict::Disequivalent(_)),
        "{name}: {:?}",
        report.verdict
    );
}

/// A difference on a pair of paths that no run of the search takes together: the left
/// program branches on `$1 == 3`, the right on `$2 == 4`, and they differ only at
/// (3, 4), which neither the edge inputs nor either tree's own queries pick. The final
/// step finds it pair by pair (each left path has two right candidates), and says
/// `equivalent` for the pair that agrees there.
#[test]
fn the_final_step_finds_a_difference_on_a_pair_no_run_took() {
    // left: x == 3 ? (y != 4) : 1
    let left = asm("lis $4\n.word 3\nbne $1, $4, one\nlis $4\n.word 4\nsub $5, $2, $4\nsltu $3, $0, $5\njr $31\none:\nlis $3\n.word 1\njr $31\n");
    // right: y == 4 ? (x != 3) : 1, the same function
    let right = asm("lis $4\n.word 4\nbne $2, $4, one\nlis $4\n.word 3\nsub $5, $1, $4\nsltu $3, $0, $5\njr $31\none:\nlis $3\n.word 1\njr $31\n");
    // mutant: y == 4 ? 1 : 1, which differs at (3, 4) only
    let mutant = asm("lis $4\n.word 4\nbne $2, $4, one\nlis $3\n.word 1\njr $31\none:\nlis $3\n.word 1\njr $31\n");
    let opts = common::load_proof();
    let report = compare(&left, &right, &opts, Engine::Concolic);
    assert_proved(&report, Engine::Concolic, "the pair");
    let report = compare(&left, &mutant, &opts, Engine::Concolic);
    let Verdict::Disequivalent(cx) = &report.verdict else {
        panic!("expected disequivalent, got {:?}", report.verdict);
    };
    assert_eq!((cx.inputs[0].1, cx.inputs[1].1), (3, 4));
}
