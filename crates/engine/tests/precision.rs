//! Precision past the report: pairs that only one feature can separate, and the same
//! pairs with the difference removed, which must not be called disequivalent.

mod common;

use tamarin::concolic::{Options, Report};
use tamarin::io::{InputSpec, Observable, Observed};
use tamarin::verdict::Verdict;
use tamarin_mips::asm::assemble;
use tamarin_mips::{Program, Reg};

fn asm(text: &str) -> Program {
    assemble("test.asm", text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Compares with every engine (they must agree on a difference); the concolic report.
/// Compares with Z3's deterministic resource limit in place of the wall-clock one, so
/// that no verdict here depends on the machine's load.
fn run(l: &str, r: &str, opts: &Options) -> Report {
    let mut opts = opts.clone();
    opts.solver = common::load_proof().solver;
    common::compare_all(&asm(l), &asm(r), &opts).0
}

fn diseq(report: &Report) -> tamarin::verdict::Counterexample {
    match &report.verdict {
        Verdict::Disequivalent(cx) => (**cx).clone(),
        v => panic!("expected disequivalent, got {v:?}"),
    }
}

fn not_diseq(report: &Report) {
    assert!(
        !matches!(report.verdict, Verdict::Disequivalent(_)),
        "{:?}",
        report.verdict
    );
}

/// A jump table on `$1 mod 4`: entry `third` is what case 2 returns.
fn jump_table(third: u32) -> String {
    format!(
        "
        lis $4
        .word 4
        divu $1, $4
        mfhi $5          ; $5 = $1 mod 4
        add $5, $5, $5
        add $5, $5, $5   ; * 4
        lis $6
        .word table
        add $6, $6, $5
        lw $7, 0($6)
        jr $7
        c0: lis $3
        .word 10
        jr $31
        c1: lis $3
        .word 11
        jr $31
        c2: lis $3
        .word {third}
        jr $31
        c3: lis $3
        .word 13
        jr $31
        table: .word c0
        .word c1
        .word c2
        .word c3
        "
    )
}

#[test]
fn a_jump_table_is_explored_entry_by_entry() {
    let r = run(&jump_table(12), &jump_table(99), &Options::default());
    let cx = diseq(&r);
    assert_eq!(cx.inputs[0].1 % 4, 2);
    assert!(r.stats.jump_targets >= 1);
    let same = run(&jump_table(12), &jump_table(12), &Options::default());
    assert!(
        matches!(same.verdict, Verdict::Equivalent(_)),
        "{:?}",
        same.verdict
    );
}

#[test]
fn division_by_an_input_is_a_branch_point() {
    // Left divides by $2; right never fails. Only $2 == 0 separates them.
    let l = "div $1, $2\nlis $3\n.word 1\njr $31\n";
    let r = "lis $3\n.word 1\njr $31\n";
    let cx = diseq(&run(l, r, &Options::default()));
    assert_eq!(cx.inputs[1].1, 0);
    let guarded = "beq $2, $0, out\ndiv $1, $2\nout:\nlis $3\n.word 1\njr $31\n";
    let same = run(guarded, r, &Options::default());
    assert!(
        matches!(same.verdict, Verdict::Equivalent(_)),
        "{:?}",
        same.verdict
    );
}

fn array_opts(max_len: u32) -> Options {
    let mut o = Options::default();
    o.inputs = InputSpec::Array {
        max_len,
        base: None,
    };
    o
}

/// Sums the array ($1 = address, $2 = length); `skip_fourth` leaves out element 3.
fn array_sum(skip_fourth: bool) -> String {
    let skip = if skip_fourth {
        "lis $9\n.word 3\nbeq $6, $9, next\n"
    } else {
        ""
    };
    format!(
        "
        lis $8
        .word 1
        lis $10
        .word 4
        add $3, $0, $0
        add $6, $0, $0     ; index
        add $7, $1, $0     ; pointer
        loop:
        beq $6, $2, done
        {skip}
        lw $5, 0($7)
        add $3, $3, $5
        next:
        add $7, $7, $10
        add $6, $6, $8
        beq $0, $0, loop
        done:
        jr $31
        "
    )
}

#[test]
fn arrays_differ_only_from_the_fourth_element() {
    let r = run(&array_sum(false), &array_sum(true), &array_opts(6));
    let cx = diseq(&r);
    let array = cx.values.array.clone().expect("an array counterexample");
    assert!(array.len() >= 4, "{array:?}");
    assert_ne!(array[3], 0);
    let same = run(&array_sum(false), &array_sum(false), &array_opts(6));
    not_diseq(&same);
}

#[test]
fn an_empty_array_is_an_input_too() {
    // Left reads the first element even when there is none (memory past the array is
    // zero); right returns 7 on an empty array.
    let l = "lw $3, 0($1)\njr $31\n";
    let r = "bne $2, $0, some\nlis $3\n.word 7\njr $31\nsome:\nlw $3, 0($1)\njr $31\n";
    let cx = diseq(&run(l, r, &array_opts(4)));
    assert_eq!(cx.values.array, Some(vec![]));
}

fn observe(list: &[Observable]) -> Options {
    let mut o = Options::default();
    o.observe = list.to_vec();
    o
}

#[test]
fn output_only_differences_need_the_output_observed() {
    // Both leave $3 alone; they print $1's low byte, or print it twice when $1 == 65.
    let l = "lis $4\n.word 0xffff000c\nsw $1, 0($4)\njr $31\n";
    let r = "lis $4\n.word 0xffff000c\nsw $1, 0($4)\nlis $5\n.word 65\nbne $1, $5, end\nsw $1, 0($4)\nend:\njr $31\n";
    not_diseq(&run(l, r, &Options::default()));
    let report = run(l, r, &observe(&[Observable::Output]));
    let cx = diseq(&report);
    assert_eq!(cx.inputs[0].1, 65);
    assert_eq!(cx.observed[0].0, "output");
    assert_eq!(cx.observed[0].1, Observed::Bytes(vec![65]));
    assert_eq!(cx.observed[0].2, Observed::Bytes(vec![65, 65]));
}

#[test]
fn output_bytes_are_compared_symbolically() {
    // Same number of bytes; the byte differs only when $1's low byte is 0x2a.
    let l = "lis $4\n.word 0xffff000c\nsw $1, 0($4)\njr $31\n";
    let r = "lis $4\n.word 0xffff000c\nlis $5\n.word 42\nbne $1, $5, out\nadd $1, $1, $1\nout:\nsw $1, 0($4)\njr $31\n";
    let cx = diseq(&run(l, r, &observe(&[Observable::Output])));
    assert_eq!(cx.inputs[0].1, 42);
}

#[test]
fn memory_only_differences_need_the_range_observed() {
    // Right also stores $1 at 0x1000 when $2 == 5.
    let l = "jr $31\n";
    let r = "lis $4\n.word 5\nbne $2, $4, end\nlis $6\n.word 0x1000\nsw $1, 0($6)\nend:\njr $31\n";
    let mem = Observable::Mem {
        from: 0x1000,
        to: 0x1004,
    };
    not_diseq(&run(l, r, &Options::default()));
    let cx = diseq(&run(l, r, &observe(&[mem])));
    assert_eq!(cx.inputs[1].1, 5);
    assert_ne!(cx.inputs[0].1, 0);
    assert_eq!(cx.observed[0].0, "mem:0x1000..0x1004");
}

#[test]
fn other_registers_and_hi_lo_can_be_observed() {
    // The right clears hi and lo after taking the product's low word: the same $3, a
    // different hi wherever the product does not fit in 32 bits.
    let l = "mult $1, $2\nmflo $3\njr $31\n";
    let r = "mult $1, $2\nmflo $3\nmult $0, $0\njr $31\n";
    let none = run(l, r, &Options::default());
    assert!(
        matches!(none.verdict, Verdict::Equivalent(_)),
        "{:?}",
        none.verdict
    );
    let cx = diseq(&run(
        l,
        r,
        &observe(&[Observable::Reg(Reg::from_bits(3)), Observable::Hi]),
    ));
    assert_eq!(cx.observed.len(), 2);
    let (a, b) = (cx.inputs[0].1 as i32, cx.inputs[1].1 as i32);
    assert_ne!((i64::from(a) * i64::from(b)) >> 32, 0, "{a} * {b}");
}

#[test]
fn chosen_input_registers() {
    // The result depends on $5, which is an input only when named.
    let l = "lis $4\n.word 9\nbne $5, $4, end\nlis $3\n.word 1\nend:\njr $31\n";
    let r = "jr $31\n";
    let mut o = Options::default();
    let regs = vec![Reg::from_bits(1), Reg::from_bits(5)];
    not_diseq(&run(l, r, &o));
    o.inputs = InputSpec::Registers(regs);
    let cx = diseq(&run(l, r, &o));
    assert_eq!(cx.inputs[1], ("$5".to_string(), 9));
}

#[test]
fn standard_input_bytes_are_inputs() {
    // Left returns the first byte read; right returns it unless it is 'q'.
    let l = "lis $4\n.word 0xffff0004\nlw $3, 0($4)\njr $31\n";
    let r = "lis $4\n.word 0xffff0004\nlw $3, 0($4)\nlis $5\n.word 113\nbne $3, $5, end\nadd $3, $0, $0\nend:\njr $31\n";
    not_diseq(&run(l, r, &Options::default()));
    let mut o = Options::default();
    o.stdin_len = 2;
    let cx = diseq(&run(l, r, &o));
    assert_eq!(cx.values.stdin.first(), Some(&b'q'));
}
