//! Linking: the assembler's `.import`/`.export`, MERL files and the linker, checked
//! against assembling the same text as one flat program (`docs/merl.md`).

use proptest::prelude::*;
use tamarin_mips::asm::{assemble, assemble_module};
use tamarin_mips::cpu::run_program;
use tamarin_mips::loader::{parse_linked, InputFormat};
use tamarin_mips::{link, merl, Config, Frontend, LinkError, LoadError, Module};

fn module(path: &str, text: &str) -> Module {
    assemble_module(path, text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn word_labels_become_relocations_imports_and_exports() {
    let m = module(
        "a.asm",
        ".import print\n.export main\nmain: lis $1\n.word main\nlis $5\n.word print\n\
         jalr $5\nlis $2\n.word end\njr $31\nend:\n",
    );
    assert_eq!(m.relocs, vec![4, 24]);
    assert_eq!(m.imports.len(), 1);
    assert_eq!(
        (m.imports[0].name.as_str(), m.imports[0].addr),
        ("print", 12)
    );
    assert_eq!(m.exports.len(), 1);
    assert_eq!((m.exports[0].name.as_str(), m.exports[0].addr), ("main", 0));
    assert_eq!(m.words[1], 0);
    assert_eq!(m.words[3], 0);
    assert_eq!(m.words[6], 32);
}

#[test]
fn assembling_a_program_refuses_imports_but_not_exports() {
    let e = assemble("p.asm", ".import print\njr $31\n").unwrap_err();
    assert_eq!(e.errors[0].line, 1);
    assert!(e.errors[0].message.contains("needs linking"), "{e}");
    assert!(assemble("p.asm", ".export f\nf: jr $31\n").is_ok());
}

#[test]
fn directive_errors_are_located() {
    let cases = [
        (
            ".import x\nbeq $0, $0, x\n",
            2,
            13,
            "branch to imported label `x`",
        ),
        (".import x\nx: jr $31\n", 1, 9, "imported but also defined"),
        (
            ".export y\njr $31\n",
            1,
            9,
            "exported label `y` is not defined",
        ),
        (".import z\n.export z\n", 2, 9, "cannot be exported"),
        (".import\n", 1, 8, "expected a label name"),
        (".export 12\n", 1, 9, "expected a label name"),
        (".import a b\n", 1, 11, "end of line"),
    ];
    for (text, line, column, what) in cases {
        let e = assemble_module("m.asm", text).unwrap_err();
        let first = &e.errors[0];
        assert_eq!((first.line, first.column), (line, column), "{text:?}: {e}");
        assert!(first.message.contains(what), "{text:?}: {e}");
    }
}

#[test]
fn a_directive_with_an_error_takes_no_word() {
    // The label after the bad directive is still at address 0, so the branch before
    // it is reported, not mislocated.
    let e = assemble_module("m.asm", ".import 1\nx: beq $0, $0, x\n").unwrap_err();
    assert_eq!(e.errors.len(), 1, "{e}");
}

#[test]
fn unresolved_imports_name_the_label_and_file() {
    let e = parse_linked(
        (
            "main.asm",
            b".import print\nlis $5\n.word print\njalr $5\n",
            InputFormat::Asm,
        ),
        &[],
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, LoadError::Link(LinkError::Unresolved { .. })));
    assert!(text.contains("`print` (imported by main.asm)"), "{text}");
}

#[test]
fn linked_modules_resolve_each_other() {
    let main = b".import f\nadd $10, $31, $0\nlis $5\n.word f\njalr $5\nlis $3\n.word data\nlw $3, 0($3)\njr $10\ndata: .word 5\n";
    let lib =
        b".export f\nf: lis $1\n.word 7\nlis $2\n.word cell\nsw $1, 0($2)\njr $31\ncell: .word 0\n";
    let p = parse_linked(
        ("main.asm", main, InputFormat::Asm),
        &[("lib.asm", lib, InputFormat::Asm)],
    )
    .unwrap();
    // f is at 36, right after main's 9 words; lib's `cell` at 36 + 24.
    assert_eq!(p.words()[2], 36);
    assert_eq!(p.words()[9 + 3], 60);
    // Source lines are main's only.
    assert_eq!(p.line_of(0), Some(2));
    assert_eq!(p.line_of(36), None);
    let out = run_program(&p, Config::with_fuel(100), &Frontend::TwoInts(0, 0), &[]).unwrap();
    assert_eq!(out.status, tamarin_mips::Status::Done);
    assert_eq!(out.regs.gpr[3], 5);
    assert_eq!(out.regs.gpr[1], 7);
    // A binary image cannot be linked after a program.
    let e = parse_linked(
        ("main.asm", main, InputFormat::Asm),
        &[("lib.mips", &[0, 0, 0, 0], InputFormat::Bin)],
    )
    .unwrap_err();
    assert!(matches!(e, LoadError::NotLinkable { .. }), "{e}");
}

#[test]
fn duplicate_exports_are_refused() {
    let a = b".export f\nf: jr $31\n";
    let e = parse_linked(
        ("a.asm", a, InputFormat::Asm),
        &[("b.asm", a, InputFormat::Asm)],
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("`f`") && text.contains("a.asm") && text.contains("b.asm"),
        "{text}"
    );
}

#[test]
fn a_linked_merl_file_keeps_unresolved_imports_and_round_trips() {
    let a = module("a.asm", ".import g\n.export f\nf: lis $5\n.word g\njr $5\n");
    let b = module(
        "b.asm",
        ".import h\n.export g\ng: lis $5\n.word h\n.word f2\nf2: jr $31\n",
    );
    let l = link(vec![a, b]).unwrap();
    assert_eq!(l.imports.len(), 1);
    assert_eq!(l.imports[0].name, "h");
    assert_eq!(l.imports[0].file.as_ref(), "b.asm");
    l.check().unwrap();
    let bytes = merl::write(&l);
    let back = merl::read("b.asm", &bytes).unwrap();
    // Everything but the lines (not in a MERL file) and the files (the reader's).
    assert_eq!(back.words, l.words);
    assert_eq!(back.relocs, l.relocs);
    assert_eq!(back.imports, l.imports);
    assert_eq!(back.exports.len(), 2);
    assert_eq!(back.exports[1].addr, l.exports[1].addr);
}

// ---------------------------------------------------------------------------------------
// Property: a program split into modules, each assembled to MERL, read back, linked and
// loaded, is the program assembled whole.

#[derive(Clone, Debug)]
enum Op {
    Add(u8, u8, u8),
    Sub(u8, u8, u8),
    Slt(u8, u8, u8),
    Num(u8, u32),
    /// `lis $d` / `.word Lj`
    Addr(u8, usize),
    /// `lw $t, 0($6)` after `$6` = the address of Lj.
    Load(u8, usize),
    /// `beq $s, $t, Lj`, when Lj is in the same module.
    Beq(u8, u8, usize),
    /// `.word Lj` as data in the code.
    Data(usize),
}

fn reg() -> impl Strategy<Value = u8> {
    1u8..=5
}

fn op(labels: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        (reg(), reg(), reg()).prop_map(|(d, s, t)| Op::Add(d, s, t)),
        (reg(), reg(), reg()).prop_map(|(d, s, t)| Op::Sub(d, s, t)),
        (reg(), reg(), reg()).prop_map(|(d, s, t)| Op::Slt(d, s, t)),
        (reg(), any::<u32>()).prop_map(|(d, v)| Op::Num(d, v)),
        (reg(), 0..labels).prop_map(|(d, j)| Op::Addr(d, j)),
        (reg(), 0..labels).prop_map(|(d, j)| Op::Load(d, j)),
        (reg(), reg(), 0..labels).prop_map(|(s, t, j)| Op::Beq(s, t, j)),
        (0..labels).prop_map(Op::Data),
    ]
}

/// Blocks of operations (block k is labelled `Lk`) and where the second module starts.
fn program() -> impl Strategy<Value = (Vec<Vec<Op>>, usize)> {
    (2usize..8).prop_flat_map(|n| {
        (
            prop::collection::vec(prop::collection::vec(op(n), 0..6), n),
            1..n,
        )
    })
}

/// The text of blocks `range` of `blocks`, whose second module starts at `split`;
/// `modules`: write the `.import`/`.export` lines a module needs.
fn text(blocks: &[Vec<Op>], range: std::ops::Range<usize>, split: usize, modules: bool) -> String {
    let module_of = |j: usize| j >= split;
    let here = module_of(range.start);
    let mut s = String::new();
    if modules {
        for j in 0..blocks.len() {
            if module_of(j) != here {
                s.push_str(&format!(".import L{j}\n"));
            } else {
                s.push_str(&format!(".export L{j}\n"));
            }
        }
    }
    for k in range {
        s.push_str(&format!("L{k}:\n"));
        for op in &blocks[k] {
            s.push_str(&match *op {
                Op::Add(d, a, b) => format!("add ${d}, ${a}, ${b}\n"),
                Op::Sub(d, a, b) => format!("sub ${d}, ${a}, ${b}\n"),
                Op::Slt(d, a, b) => format!("slt ${d}, ${a}, ${b}\n"),
                Op::Num(d, v) => format!("lis ${d}\n.word {v}\n"),
                Op::Addr(d, j) => format!("lis ${d}\n.word L{j}\n"),
                Op::Load(t, j) => format!("lis $6\n.word L{j}\nlw ${t}, 0($6)\n"),
                Op::Beq(a, b, j) if module_of(j) == module_of(k) => {
                    format!("beq ${a}, ${b}, L{j}\n")
                }
                Op::Beq(a, b, _) => format!("beq ${a}, ${b}, 1\n"),
                Op::Data(j) => format!(".word L{j}\n"),
            });
        }
        if k + 1 == blocks.len() {
            s.push_str("add $3, $1, $2\njr $31\n");
        }
    }
    s
}

fn via_merl(path: &str, text: &str) -> Module {
    let m = module(path, text);
    merl::read(path, &merl::write(&m)).unwrap_or_else(|e| panic!("{e}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn linked_merl_modules_run_as_the_flat_program(
        (blocks, split) in program(),
        r1 in any::<u32>(),
        r2 in any::<u32>(),
    ) {
        let n = blocks.len();
        let flat = assemble("flat.asm", &text(&blocks, 0..n, split, false))
            .unwrap_or_else(|e| panic!("{e}"));
        let a = via_merl("a.merl", &text(&blocks, 0..split, split, true));
        let b = via_merl("b.merl", &text(&blocks, split..n, split, true));
        let linked = link(vec![a, b]).unwrap();
        prop_assert!(linked.imports.is_empty());
        prop_assert!(linked.check().is_ok());
        // The linked module written to MERL and read back is the same program.
        let again = merl::read("l.merl", &merl::write(&linked)).unwrap();
        prop_assert_eq!(&again.words, &linked.words);
        let program = linked.into_program().unwrap();
        prop_assert_eq!(program.words(), flat.words());
        let config = Config::with_fuel(500);
        let input = Frontend::TwoInts(r1, r2);
        let want = run_program(&flat, config, &input, &[]).unwrap();
        let got = run_program(&program, config, &input, &[]).unwrap();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn loading_at_an_address_moves_every_label(
        (blocks, split) in program(),
        alpha in (0u32..0x1000).prop_map(|a| a * 4),
    ) {
        let n = blocks.len();
        let m = via_merl("m.merl", &text(&blocks, 0..n, split, false));
        let at_zero = m.relocated(0);
        let moved = m.relocated(alpha);
        for (i, (&w0, &w)) in at_zero.iter().zip(&moved).enumerate() {
            let relocated = m.relocs.contains(&(i as u32 * 4));
            prop_assert_eq!(w, if relocated { w0.wrapping_add(alpha) } else { w0 });
        }
    }

    #[test]
    fn reading_any_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        let mut b = bytes.clone();
        if b.len() >= 12 {
            b[..4].copy_from_slice(&merl::COOKIE.to_be_bytes());
            let len = (b.len() as u32).to_be_bytes();
            b[4..8].copy_from_slice(&len);
        }
        if let Ok(m) = merl::read("x.merl", &b) {
            prop_assert!(m.check().is_ok());
        }
        let _ = merl::read("x.merl", &bytes);
    }
}
