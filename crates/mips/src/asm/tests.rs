//! Tests of the whole assembler: words produced, errors reported, robustness.

use super::*;
use proptest::prelude::*;

fn words(src: &str) -> Vec<u32> {
    match assemble("t.asm", src) {
        Ok(p) => p.words().to_vec(),
        Err(e) => panic!("unexpected errors:\n{e}"),
    }
}

fn errors(src: &str) -> AsmErrors {
    match assemble("t.asm", src) {
        Ok(p) => panic!("expected errors, got {:x?}", p.words()),
        Err(e) => e,
    }
}

/// The single error of `src`, as (line, column, message).
fn error(src: &str) -> (u32, u32, String) {
    let e = errors(src);
    assert_eq!(e.errors.len(), 1, "{e}");
    let first = &e.errors[0];
    (first.line, first.column, first.message.clone())
}

fn assert_error(src: &str, line: u32, column: u32, needle: &str) {
    let (l, c, m) = error(src);
    assert_eq!((l, c), (line, column), "position of `{m}` in {src:?}");
    assert!(m.contains(needle), "message `{m}` lacks `{needle}`");
}

#[test]
fn every_instruction() {
    let src = "
        add $3, $1, $2
        sub $3, $1, $2
        mult $1, $2
        multu $1, $2
        div $1, $2
        divu $1, $2
        mfhi $3
        mflo $3
        lis $3
        lw $3, -4($30)
        sw $31, 8($30)
        slt $3, $1, $2
        sltu $3, $1, $2
        beq $1, $2, -1
        bne $1, $2, 3
        jr $31
        jalr $5
        .word 42
    ";
    assert_eq!(
        words(src),
        vec![
            0x0022_1820,
            0x0022_1822,
            0x0022_0018,
            0x0022_0019,
            0x0022_001a,
            0x0022_001b,
            0x0000_1810,
            0x0000_1812,
            0x0000_1814,
            0x8fc3_fffc,
            0xafdf_0008,
            0x0022_182a,
            0x0022_182b,
            0x1022_ffff,
            0x1422_0003,
            0x03e0_0008,
            0x00a0_0009,
            42,
        ]
    );
}

#[test]
fn upper_case_mnemonics_and_free_spacing() {
    assert_eq!(
        words("ADD $3,$1,$2\n\tJr\t$31\r\n.WORD 1"),
        vec![0x0022_1820, 0x03e0_0008, 1]
    );
    assert_eq!(words("lw $3 , 4 ( $5 )"), words("lw $3, 4($5)"));
}

#[test]
fn no_space_between_mnemonic_and_register() {
    assert_eq!(words("lis$31\n.word 7"), vec![0x0000_f814, 7]);
    assert_eq!(words("add$3,$1,$2"), vec![0x0022_1820]);
}

#[test]
fn comments_of_both_kinds() {
    let src = "; a whole-line comment\n# another\nadd $3, $1, $2 ; trailing\njr $31 # trailing\n";
    assert_eq!(words(src), vec![0x0022_1820, 0x03e0_0008]);
}

#[test]
fn labels_several_per_line_and_alone() {
    let src = "start:\na: b: c: beq $0, $0, end\n  mid:\nbne $0, $0, a\n.word c\nend: .word end\n";
    assert_eq!(
        words(src),
        vec![
            0x1000_0002, // to word 3 from word 0
            0x1400_fffe, // back to word 0 from word 1
            0,           // address of c
            12,          // address of end
        ]
    );
    // Labels are case-sensitive.
    assert_eq!(words("x: X: .word X"), vec![0]);
    // A label at the very end of the program names the address just past it.
    assert_eq!(words("beq $0, $0, done\ndone:"), vec![0x1000_0000]);
}

#[test]
fn word_values() {
    let src = ".word 0\n.word -1\n.word -2147483648\n.word 4294967295\n.word 0xFFFFFFFF\n.word 0x10\n.word here\nhere: .word 2147483647";
    assert_eq!(
        words(src),
        vec![
            0,
            0xffff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0xffff_ffff,
            16,
            28,
            0x7fff_ffff
        ]
    );
}

#[test]
fn immediates_at_the_edges() {
    assert_eq!(words("lw $1, -32768($2)")[0] & 0xffff, 0x8000);
    assert_eq!(words("sw $1, 32767($2)")[0] & 0xffff, 0x7fff);
    assert_eq!(words("lw $1, 0xffff($2)")[0] & 0xffff, 0xffff);
    assert_eq!(words("beq $1, $2, -32768")[0] & 0xffff, 0x8000);
    assert_eq!(words("bne $1, $2, 0x7fff")[0] & 0xffff, 0x7fff);
}

#[test]
fn every_word_carries_its_line() {
    let p = assemble("t", "; c\nadd $3, $1, $2\n\nl: lis $4\n.word l\n").unwrap();
    assert_eq!(p.line_of(0), Some(2));
    assert_eq!(p.line_of(4), Some(4));
    assert_eq!(p.line_of(8), Some(5));
    assert_eq!(p.line_of(12), None);
}

#[test]
fn empty_and_blank_sources_are_empty_programs() {
    for src in ["", "\n\n", "   ; nothing\n", "only_a_label:"] {
        assert!(words(src).is_empty(), "{src:?}");
    }
}

#[test]
fn unknown_mnemonic() {
    assert_error(
        "add $3, $1, $2\n  addi $3, $1, 4",
        2,
        3,
        "unknown mnemonic `addi`",
    );
    assert_error(".ascii 3", 1, 1, "unknown directive `.ascii`");
    assert_error("$3, $4", 1, 1, "expected an instruction");
}

#[test]
fn bad_register() {
    assert_error(
        "add $32, $1, $2",
        1,
        5,
        "expected a register like $3, found `$32`",
    );
    assert_error("jr $t0", 1, 4, "found `$t0`");
    assert_error("jr 31", 1, 4, "expected a register like $3, found `31`");
    assert_error("jr $", 1, 4, "found `$`");
    assert_error("mult $1", 1, 8, "found end of line (usage: mult $s, $t)");
}

#[test]
fn missing_comma() {
    assert_error(
        "add $3 $1, $2",
        1,
        8,
        "expected `,` after the first operand, found `$1`",
    );
    assert_error(
        "add $3, $1 $2",
        1,
        12,
        "expected `,` after the second operand",
    );
    assert_error("lw $3, 4 $5", 1, 10, "expected `(`");
    assert_error("lw $3, 4($5", 1, 12, "expected `)`");
}

#[test]
fn immediate_out_of_range() {
    assert_error("lw $3, 32768($5)", 1, 8, "offset out of range");
    assert_error("sw $3, -32769($5)", 1, 8, "offset out of range");
    assert_error("lw $3, 0x10000($5)", 1, 8, "offset out of range");
    assert_error(".word 4294967296", 1, 7, "number out of range");
    assert_error(".word -2147483649", 1, 7, "number out of range");
    assert_error(
        ".word 99999999999999999999999999",
        1,
        7,
        "number out of range",
    );
}

#[test]
fn branch_offset_out_of_range() {
    assert_error("beq $0, $0, 32768", 1, 13, "branch offset out of range");
    assert_error("bne $0, $0, -32769", 1, 13, "branch offset out of range");
    // A label 32768 words ahead is one word too far; 32767 ahead is fine.
    let far = |n: usize| format!("beq $0, $0, far\n{}far: jr $31\n", ".word 0\n".repeat(n));
    assert_eq!(words(&far(32767))[0], 0x1000_7fff);
    let (line, col, msg) = error(&far(32768));
    assert_eq!((line, col), (1, 13));
    assert!(msg.contains("too far"), "{msg}");
}

#[test]
fn duplicate_label() {
    let e = errors("x: add $3, $1, $2\n\n  x: jr $31");
    assert_eq!(e.errors.len(), 1, "{e}");
    let d = &e.errors[0];
    assert_eq!((d.line, d.column), (3, 3));
    assert!(
        d.message.contains("`x` is already defined on line 1"),
        "{}",
        d.message
    );
    assert_eq!(d.related.as_ref().map(|r| r.0.clone()), Some(0..1));
}

#[test]
fn undefined_label() {
    assert_error("beq $0, $0, nowhere", 1, 13, "undefined label `nowhere`");
    assert_error("jr $31\n.word Nowhere", 2, 7, "undefined label `Nowhere`");
    // Case matters.
    assert_error("loop: beq $0, $0, Loop", 1, 19, "undefined label `Loop`");
}

#[test]
fn bad_number() {
    assert_error(".word 12ab", 1, 7, "expected a number");
    assert_error(".word 0x", 1, 7, "expected a number");
    assert_error(".word 0xg1", 1, 7, "expected a number");
    assert_error(".word -0x5", 1, 7, "cannot be negative");
    assert_error("lw $1, 4x($2)", 1, 8, "expected a number");
    assert_error("beq $1, $2, 1.5", 1, 13, "expected a number");
}

#[test]
fn trailing_garbage() {
    assert_error(
        "jr $31 $31",
        1,
        8,
        "expected end of line after the operands, found `$31`",
    );
    assert_error("add $3, $1, $2, $4", 1, 15, "expected end of line");
    assert_error(".word 1 2", 1, 9, "expected end of line");
    assert_error("lis $3 @", 1, 8, "found `@`");
}

#[test]
fn bad_label_name() {
    assert_error("1abc: jr $31", 1, 1, "expected a label name");
    assert_error("  a.b: jr $31", 1, 3, "found `a.b`");
    assert_error(": jr $31", 1, 1, "expected a label name before `:`");
    assert_error(
        "beq $0, $0, a.b",
        1,
        13,
        "expected a label name or a number",
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    assert_error("; é\nadd $3, $1, $2 ééé", 2, 16, "found `ééé`");
    assert_error("é: jr $31", 1, 1, "found `é`");
}

#[test]
fn all_errors_are_reported_in_order() {
    let src = "bad1\nadd $3, $1, $2\njr $32\nbeq $0, $0, missing\nx:\nx:\n.word 0x\n";
    let e = errors(src);
    let lines: Vec<u32> = e.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, vec![1, 3, 4, 6, 7], "{e}");
    assert_eq!(e.more, 0);
    // A label before an error on its line is still defined.
    assert!(
        assemble("t", "ok: jr $99\nbeq $0, $0, ok")
            .unwrap_err()
            .errors
            .len()
            == 1
    );
}

#[test]
fn error_limit() {
    let src = "nope\n".repeat(250);
    let e = errors(&src);
    assert_eq!(e.errors.len(), MAX_ERRORS);
    assert_eq!(e.more, 150);
    assert_eq!(e.errors[99].line, 100);
    assert!(e.to_string().ends_with("150 more errors not shown"), "{e}");
    // Errors from both passes are merged in source order before the limit applies.
    let src = format!("beq $0, $0, missing\n{}", "nope\n".repeat(150));
    let e = errors(&src);
    assert_eq!((e.errors[0].line, e.errors.len(), e.more), (1, 100, 51));
}

#[test]
fn display_is_plain_text_with_a_caret() {
    let e = errors("add $3, $1, $2\n\tjr $32\n");
    assert_eq!(
        e.to_string(),
        "t.asm:2:5: error: expected a register like $3, found `$32` (registers are $0 to $31)\n\tjr $32\n\t   ^^^"
    );
    // Missing operands point just past the end of the line.
    let e = errors("mult $1");
    assert!(e.to_string().ends_with("mult $1\n       ^"), "{e}");
}

#[test]
fn display_of_a_huge_line_shows_a_window() {
    let src = format!("{}jr $99 {}", " ".repeat(10_000), "x".repeat(100_000));
    let text = errors(&src).to_string();
    assert!(text.len() < 500, "{}", text.len());
    assert!(text.starts_with("t.asm:1:10004: error:"), "{text}");
    assert!(
        text.contains("\n...    ") && text.contains(" jr $99 xxx"),
        "{text}"
    );
    assert!(text.contains("xxx...\n"), "{text}");
}

#[test]
fn many_labels() {
    let mut src = String::new();
    for i in 0..100_000 {
        src.push_str(&format!("l{i}: .word l{}\n", 99_999 - i));
    }
    let w = words(&src);
    assert_eq!(w.len(), 100_000);
    assert_eq!(w[0], 99_999 * 4);
    assert_eq!(w[99_999], 0);
}

#[test]
fn large_input_is_fast() {
    // About 2 MB; quadratic work would take minutes even in a debug build.
    let src = format!(
        "loop:\n{}",
        "add $3, $1, $2 ; comment\n.word loop\n".repeat(40_000)
    );
    let start = std::time::Instant::now();
    assert_eq!(words(&src).len(), 80_000);
    let bad = "jr $99 ".repeat(300_000);
    assert_eq!(errors(&bad).errors.len(), 1);
    let many_bad = "zz\n".repeat(500_000);
    assert_eq!(errors(&many_bad).more, 500_000 - MAX_ERRORS);
    assert!(start.elapsed().as_secs() < 20);
}

#[test]
fn odd_input_does_not_panic() {
    for src in [
        "\u{0}\u{1}\u{7f}",
        "é:",
        "add $3, $1, $2\u{feff}",
        "$$$$",
        ":::",
        "lw $1, ($2)",
        "lw",
        ".word",
        "beq",
        "\r\n\r\n",
        "x: x: x: x:",
        "🦀: jr $31",
        "lis $1 ; é\n.word -",
    ] {
        let _ = assemble("odd", src);
    }
}

#[test]
fn paper_examples_assemble() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/paper");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("examples/paper exists") {
        let path = entry.expect("readable directory").path();
        if path.extension().and_then(|e| e.to_str()) != Some("asm") {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("readable example");
        if let Err(e) = assemble(&path.display().to_string(), &src) {
            panic!("{e}");
        }
        count += 1;
    }
    assert!(count > 0);
    let src = std::fs::read_to_string(dir.join("fig1-left.asm")).expect("fig1-left.asm");
    assert_eq!(words(&src), vec![0x0022_1820, 0x03e0_0008]);
}

/// Source text made of the pieces assembly is made of, so that random strings get
/// past the lexer and exercise the parser and resolver.
fn asm_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("add"),
        Just("beq"),
        Just("lw"),
        Just(".word"),
        Just("lis"),
        Just("jr"),
        Just("$3"),
        Just("$31"),
        Just("$32"),
        Just(","),
        Just(":"),
        Just("("),
        Just(")"),
        Just("x"),
        Just("x:"),
        Just("-1"),
        Just("0x"),
        Just("0xffff"),
        Just("4294967296"),
        Just(" "),
        Just("\n"),
        Just(";"),
        Just("é"),
        Just("\u{0}"),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn never_panics_on_random_text(src in any::<String>()) {
        let _ = assemble("fuzz", &src);
    }

    #[test]
    fn never_panics_on_assembly_like_text(src in asm_like()) {
        match assemble("fuzz", &src) {
            Ok(p) => prop_assert!(p.line_of(0).is_some() || p.words().is_empty()),
            Err(e) => {
                prop_assert!(!e.errors.is_empty());
                for err in &e.errors {
                    prop_assert!(err.line >= 1 && err.column >= 1);
                    prop_assert!(src.get(err.span.clone()).is_some());
                }
                let _ = e.to_string();
            }
        }
    }
}
