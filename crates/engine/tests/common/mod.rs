//! Shared helpers and programs for the engine's integration tests.
#![allow(dead_code)]

use tamarin::concolic::{compare, Options, Quiet, Report};
use tamarin::verdict::{Counterexample, Verdict};
use tamarin_mips::asm::assemble;
use tamarin_mips::cpu::{run_program, Config, Frontend, Outcome, Status};
use tamarin_mips::loader::load_file;
use tamarin_mips::Program;

/// Assembles `text`, panicking with the assembler's messages on an error.
pub fn asm(name: &str, text: &str) -> Program {
    assemble(name, text).unwrap_or_else(|e| panic!("{name} does not assemble:\n{e}"))
}

/// Loads one of the report's examples from examples/paper.
pub fn paper(name: &str) -> Program {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name);
    load_file(&path, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Loads one of the gcc objects in examples/mips32.
pub fn mips32_example(name: &str) -> tamarin::mips::mips32::Image {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/mips32")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tamarin::mips::mips32::elf::read(name, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Loads one of the proof corpus's programs from examples/proofs.
pub fn proof_example(name: &str) -> Program {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/proofs")
        .join(name);
    load_file(&path, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Compares with the default options.
pub fn check(left: &Program, right: &Program) -> Report {
    compare(left, right, &Options::default(), &mut Quiet)
}

/// Compares with the given fuel.
pub fn check_fuel(left: &Program, right: &Program, fuel: u64) -> Report {
    let mut opts = Options::default();
    opts.fuel = fuel;
    compare(left, right, &opts, &mut Quiet)
}

/// The counterexample of a disequivalent verdict (panics on any other verdict).
pub fn counterexample(r: &Report) -> &Counterexample {
    match &r.verdict {
        Verdict::Disequivalent(cx) => cx,
        v => panic!("expected disequivalent, got {v:?}"),
    }
}

/// The counterexample's `$1` and `$2`.
pub fn inputs(cx: &Counterexample) -> (u32, u32) {
    assert_eq!(cx.inputs.len(), 2, "{:?}", cx.inputs);
    assert_eq!(cx.inputs[0].0, "$1");
    assert_eq!(cx.inputs[1].0, "$2");
    (cx.inputs[0].1, cx.inputs[1].1)
}

/// Runs `p` on `$1 = a`, `$2 = b` with the default fuel.
pub fn exec(p: &Program, a: u32, b: u32) -> Outcome {
    exec_fuel(p, a, b, Config::default().fuel)
}

/// Runs `p` on `$1 = a`, `$2 = b` with `fuel` steps.
pub fn exec_fuel(p: &Program, a: u32, b: u32, fuel: u64) -> Outcome {
    run_program(p, Config::with_fuel(fuel), &Frontend::TwoInts(a, b), &[]).expect("twoints setup")
}

/// Replays `(a, b)` on both programs independently of the engine and checks that the
/// runs show a difference by the report's rules, written out here once more: one
/// ends and the other fails, or both end with different `$3`.
pub fn assert_replay_differs(
    left: &Program,
    right: &Program,
    a: u32,
    b: u32,
) -> (Outcome, Outcome) {
    let (l, r) = (exec(left, a, b), exec(right, a, b));
    let differ = match (l.status, r.status) {
        (Status::Done, Status::Done) => l.regs.gpr[3] != r.regs.gpr[3],
        (Status::Done, Status::Error(_)) | (Status::Error(_), Status::Done) => true,
        _ => false,
    };
    assert!(
        differ,
        "no difference on ({a}, {b}): left {l:?}, right {r:?}"
    );
    (l, r)
}

/// Checks the counterexample of `r` replays to the outcomes it reports and shows a
/// difference; returns its inputs.
pub fn assert_counterexample(left: &Program, right: &Program, r: &Report) -> (u32, u32) {
    let cx = counterexample(r);
    let (a, b) = inputs(cx);
    let (l, rr) = assert_replay_differs(left, right, a, b);
    assert_eq!(l.status, cx.left.status, "left status as reported");
    assert_eq!(rr.status, cx.right.status, "right status as reported");
    assert_eq!(l.regs.gpr[3], cx.left.regs.gpr[3]);
    assert_eq!(rr.regs.gpr[3], cx.right.regs.gpr[3]);
    (a, b)
}

/// Panics unless the verdict is `equivalent`.
pub fn assert_equivalent(r: &Report) {
    assert!(
        matches!(r.verdict, Verdict::Equivalent(_)),
        "expected equivalent, got {:?}",
        r.verdict
    );
}

/// Panics if the verdict is `disequivalent`.
pub fn assert_not_disequivalent(r: &Report) {
    assert!(
        !matches!(r.verdict, Verdict::Disequivalent(_)),
        "expected no difference, got {:?}",
        r.verdict
    );
}

// ---------------------------------------------------------------------------------
// The programs of figure13.rs, named so that rules.rs can run every pair both ways.

/// (a) Keeps `$1`, `$2` on the stack while clobbering the registers; `$3 = 2*$1 + $2`.
pub const STACK_LEFT: &str = "
; push $1, push $2
lis $4
.word 4
sub $30, $30, $4
sw $1, 0($30)
sub $30, $30, $4
sw $2, 0($30)
; clobber the inputs
add $1, $0, $0
add $2, $0, $0
; pop $2 into $6, then $1 into $5
lw $6, 0($30)
add $30, $30, $4
lw $5, 0($30)
add $30, $30, $4
add $3, $5, $5
add $3, $3, $6
jr $31
";

/// (a) The same function without the stack.
pub const STACK_RIGHT: &str = "
add $3, $1, $1
add $3, $3, $2
jr $31
";

/// (a) Pops the wrong slot: `$6` gets the saved `$1`, so `$3 = 3*$1`.
pub const STACK_WRONG_SLOT: &str = "
lis $4
.word 4
sub $30, $30, $4
sw $1, 0($30)
sub $30, $30, $4
sw $2, 0($30)
add $1, $0, $0
add $2, $0, $0
lw $6, 4($30)      ; should be 0($30)
add $30, $30, $4
lw $5, 0($30)
add $30, $30, $4
add $3, $5, $5
add $3, $3, $6
jr $31
";

/// (b) Calls a procedure with `$31` saved on the stack; the procedure returns
/// `$1 + $2`, plus one when `$1 == 7`.
pub const CALL_LEFT: &str = "
lis $4
.word 4
sub $30, $30, $4
sw $31, 0($30)
lis $5
.word proc
jalr $5
lw $31, 0($30)
add $30, $30, $4
jr $31
proc:
add $3, $1, $2
lis $6
.word 7
bne $1, $6, procend
lis $7
.word 1
add $3, $3, $7
procend:
jr $31
";

/// (b) The same call structure; the procedure always returns `$1 + $2`.
pub const CALL_RIGHT: &str = "
lis $4
.word 4
sub $30, $30, $4
sw $31, 0($30)
lis $5
.word proc
jalr $5
lw $31, 0($30)
add $30, $30, $4
jr $31
proc:
add $3, $1, $2
jr $31
";

/// (c) The sum 1 + ... + n by a loop, n = `$1` clamped to 0..=10.
pub const LOOP_SUM: &str = "
lis $4
.word 10
slt $5, $4, $1      ; 10 < $1 ?
beq $5, $0, notbig
add $1, $4, $0
notbig:
slt $5, $1, $0      ; $1 < 0 ?
beq $5, $0, notneg
add $1, $0, $0
notneg:
add $3, $0, $0
lis $6
.word 1
loop:
beq $1, $0, done
add $3, $3, $1
sub $1, $1, $6
beq $0, $0, loop
done:
jr $31
";

/// (c) The same sum in closed form, n * (n + 1) / 2.
pub const LOOP_CLOSED: &str = "
lis $4
.word 10
slt $5, $4, $1
beq $5, $0, notbig
add $1, $4, $0
notbig:
slt $5, $1, $0
beq $5, $0, notneg
add $1, $0, $0
notneg:
lis $6
.word 1
add $7, $1, $6
mult $1, $7
mflo $3
lis $8
.word 2
div $3, $8
mflo $3
jr $31
";

/// (c) The loop with an off-by-one only for n == 5 (sums 1..4).
pub const LOOP_OFF_BY_ONE: &str = "
lis $4
.word 10
slt $5, $4, $1
beq $5, $0, notbig
add $1, $4, $0
notbig:
slt $5, $1, $0
beq $5, $0, notneg
add $1, $0, $0
notneg:
add $3, $0, $0
lis $6
.word 1
lis $8
.word 5
bne $1, $8, loop
sub $1, $1, $6      ; the slip
loop:
beq $1, $0, done
add $3, $3, $1
sub $1, $1, $6
beq $0, $0, loop
done:
jr $31
";

/// (d) Loops forever when `$1 < 0`, else returns `$1`.
pub const SPIN_NEGATIVE: &str = "
slt $4, $1, $0
beq $4, $0, ok
spin:
beq $0, $0, spin
ok:
add $3, $1, $0
jr $31
";

/// (d) Returns `$1`.
pub const RETURN_ONE: &str = "
add $3, $1, $0
jr $31
";

/// (d) Loops forever, whatever the inputs (after looking at them).
pub const SPIN_ALWAYS: &str = "
add $3, $1, $2
slt $4, $1, $2
spin:
beq $0, $0, spin
jr $31
";

/// (e) `$3 = $1 / $2`, failing when `$2 == 0`.
pub const DIV_PLAIN: &str = "
div $1, $2
mflo $3
jr $31
";

/// (e) `$3 = $1 / $2`, but 0 when `$2 == 0`.
pub const DIV_CHECKED: &str = "
beq $2, $0, zero
div $1, $2
mflo $3
jr $31
zero:
add $3, $0, $0
jr $31
";

/// (e) The same division as DIV_PLAIN, done another way round.
pub const DIV_PLAIN_TOO: &str = "
add $5, $2, $0
div $1, $5
mfhi $6
mflo $4
add $3, $4, $0
jr $31
";

/// (f) max($1, $2, $1 - $2, 0) by three nested levels of slt/beq.
pub const MAX_NESTED: &str = "
sub $4, $1, $2       ; c = a - b
slt $5, $1, $2       ; level 1: a < b ?
beq $5, $0, ageb
slt $5, $2, $4       ; level 2: b < c ?
beq $5, $0, bbig
slt $5, $4, $0       ; level 3: c < 0 ?
beq $5, $0, retc
add $3, $0, $0
jr $31
retc:
add $3, $4, $0
jr $31
bbig:
slt $5, $2, $0       ; level 3: b < 0 ?
beq $5, $0, retb
add $3, $0, $0
jr $31
retb:
add $3, $2, $0
jr $31
ageb:
slt $5, $1, $4       ; level 2: a < c ?
beq $5, $0, abig
slt $5, $4, $0       ; level 3: c < 0 ?
beq $5, $0, retc2
add $3, $0, $0
jr $31
retc2:
add $3, $4, $0
jr $31
abig:
slt $5, $1, $0       ; level 3: a < 0 ?
beq $5, $0, reta
add $3, $0, $0
jr $31
reta:
add $3, $1, $0
jr $31
";

/// (f) As MAX_NESTED, except that the innermost branch under a < b < c with c < 0
/// returns -1 instead of 0.
pub const MAX_NESTED_SLIP: &str = "
sub $4, $1, $2
slt $5, $1, $2
beq $5, $0, ageb
slt $5, $2, $4
beq $5, $0, bbig
slt $5, $4, $0
beq $5, $0, retc
lis $3
.word -1             ; the slip (MAX_NESTED returns 0 here)
jr $31
retc:
add $3, $4, $0
jr $31
bbig:
slt $5, $2, $0
beq $5, $0, retb
add $3, $0, $0
jr $31
retb:
add $3, $2, $0
jr $31
ageb:
slt $5, $1, $4
beq $5, $0, abig
slt $5, $4, $0
beq $5, $0, retc2
add $3, $0, $0
jr $31
retc2:
add $3, $4, $0
jr $31
abig:
slt $5, $1, $0
beq $5, $0, reta
add $3, $0, $0
jr $31
reta:
add $3, $1, $0
jr $31
";

/// (f) The same maximum by a running maximum and no nesting.
pub const MAX_SEQUENTIAL: &str = "
sub $4, $1, $2
add $3, $1, $0       ; m = a
slt $5, $3, $2       ; m < b ?
beq $5, $0, 1
add $3, $2, $0
slt $5, $3, $4       ; m < c ?
beq $5, $0, 1
add $3, $4, $0
slt $5, $3, $0       ; m < 0 ?
beq $5, $0, 1
add $3, $0, $0
jr $31
";

/// `$3` = low word of the signed product.
pub const MULT_LO: &str = "
mult $1, $2
mflo $3
jr $31
";

/// `$3` = low word of the unsigned product.
pub const MULTU_LO: &str = "
multu $1, $2
mflo $3
jr $31
";

/// `$3` = high word of the signed product.
pub const MULT_HI: &str = "
mult $1, $2
mfhi $3
jr $31
";

/// `$3` = high word of the unsigned product.
pub const MULTU_HI: &str = "
multu $1, $2
mfhi $3
jr $31
";

/// Every named program, for the self-comparison and symmetry tests.
pub const ALL_PROGRAMS: &[(&str, &str)] = &[
    ("STACK_LEFT", STACK_LEFT),
    ("STACK_RIGHT", STACK_RIGHT),
    ("STACK_WRONG_SLOT", STACK_WRONG_SLOT),
    ("CALL_LEFT", CALL_LEFT),
    ("CALL_RIGHT", CALL_RIGHT),
    ("LOOP_SUM", LOOP_SUM),
    ("LOOP_CLOSED", LOOP_CLOSED),
    ("LOOP_OFF_BY_ONE", LOOP_OFF_BY_ONE),
    ("SPIN_NEGATIVE", SPIN_NEGATIVE),
    ("RETURN_ONE", RETURN_ONE),
    ("SPIN_ALWAYS", SPIN_ALWAYS),
    ("DIV_PLAIN", DIV_PLAIN),
    ("DIV_CHECKED", DIV_CHECKED),
    ("DIV_PLAIN_TOO", DIV_PLAIN_TOO),
    ("MAX_NESTED", MAX_NESTED),
    ("MAX_NESTED_SLIP", MAX_NESTED_SLIP),
    ("MAX_SEQUENTIAL", MAX_SEQUENTIAL),
    ("MULT_LO", MULT_LO),
    ("MULTU_LO", MULTU_LO),
    ("MULT_HI", MULT_HI),
    ("MULTU_HI", MULTU_HI),
];

/// The pairs figure13.rs compares.
pub const PAIRS: &[(&str, &str)] = &[
    ("STACK_LEFT", "STACK_RIGHT"),
    ("STACK_WRONG_SLOT", "STACK_RIGHT"),
    ("CALL_LEFT", "CALL_RIGHT"),
    ("CALL_LEFT", "STACK_RIGHT"),
    ("LOOP_SUM", "LOOP_CLOSED"),
    ("LOOP_SUM", "LOOP_OFF_BY_ONE"),
    ("SPIN_NEGATIVE", "RETURN_ONE"),
    ("SPIN_ALWAYS", "RETURN_ONE"),
    ("SPIN_ALWAYS", "DIV_PLAIN"),
    ("DIV_PLAIN", "DIV_CHECKED"),
    ("DIV_PLAIN", "DIV_PLAIN_TOO"),
    ("MAX_NESTED", "MAX_NESTED_SLIP"),
    ("MAX_NESTED", "MAX_SEQUENTIAL"),
    ("MULT_LO", "MULTU_LO"),
    ("MULT_HI", "MULTU_HI"),
];

/// A named program, assembled.
pub fn named(name: &str) -> Program {
    let text = ALL_PROGRAMS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no program {name}"))
        .1;
    asm(name, text)
}

/// Compares with every engine and checks that they give the same verdict (on the
/// small pairs of these tests both engines cover every path); returns the concolic
/// report, then the bmc one.
pub fn compare_all(left: &Program, right: &Program, opts: &Options) -> (Report, Report) {
    use tamarin::verdict::Engine;
    let reports: Vec<Report> = [Engine::Concolic, Engine::Bmc, Engine::Auto]
        .into_iter()
        .map(|e| {
            let mut o = opts.clone();
            o.engine = e;
            tamarin::equiv::compare(left, right, &o, &mut Quiet)
        })
        .collect();
    let names: Vec<&str> = reports.iter().map(|r| r.verdict.name()).collect();
    let differ: Vec<bool> = reports
        .iter()
        .map(|r| matches!(r.verdict, Verdict::Disequivalent(_)))
        .collect();
    assert!(
        differ.iter().all(|&d| d == differ[0]),
        "the engines disagree on a difference (concolic, bmc, auto): {names:?}"
    );
    assert!(
        names.iter().all(|&n| n == names[0]),
        "the engines give different verdicts (concolic, bmc, auto): {names:?}"
    );
    let mut it = reports.into_iter();
    match (it.next(), it.next()) {
        (Some(c), Some(b)) => (c, b),
        _ => unreachable!("three reports"),
    }
}

/// Options whose verdicts do not depend on the machine's load: each query is bounded by
/// Z3's deterministic resource limit (generous), and the wall-clock limit per query is a
/// ten-minute backstop that a loaded machine does not reach.
pub fn load_proof() -> Options {
    let mut o = Options::default();
    o.solver.timeout = std::time::Duration::from_secs(600);
    o.solver.resource_limit = Some(2_000_000_000);
    // The portfolio is bounded by wall-clock time: left out, so no answer depends on it.
    o.solver.portfolio.clear();
    o
}

/// How many random inputs a proof is cross-checked on: `TAMARIN_PROOF_INPUTS`, or 5,000
/// (the long run in `.ci/run` uses 100,000).
pub fn proof_inputs() -> usize {
    std::env::var("TAMARIN_PROOF_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000)
}
