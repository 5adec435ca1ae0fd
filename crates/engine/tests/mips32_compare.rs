//! MIPS32 functions compared, on the gcc objects in `examples/mips32`: proofs across
//! optimisation levels and between two algorithms, and differences found and replayed.

mod common;

use tamarin::mips::mips32::Image;
use tamarin::{compare_functions, FunctionOptions, FunctionSide, FunctionVerdict};

fn load(name: &str) -> Image {
    common::mips32_example(name)
}

fn compare(l: (&Image, &str), r: (&Image, &str), args: usize) -> FunctionVerdict {
    fn side<'a>((image, f): (&'a Image, &str)) -> FunctionSide<'a> {
        FunctionSide {
            image,
            entry: image.function(f).unwrap().addr,
        }
    }
    let opts = FunctionOptions {
        args,
        ..FunctionOptions::default()
    };
    let report = compare_functions(side(l), side(r), &opts).unwrap();
    eprintln!(
        "{}: {:?} in {:?}, {:?} paths",
        l.1, report.verdict, report.elapsed, report.paths
    );
    report.verdict
}

#[test]
fn popcount_at_two_levels_is_proved() {
    let (o0, o2) = (load("popcount-O0.o"), load("popcount-O2.o"));
    for (l, r) in [
        ((&o0, "popcount_loop"), (&o2, "popcount_loop")),
        ((&o2, "popcount_swar"), (&o0, "popcount_swar")),
    ] {
        assert_eq!(
            compare(l, r, 1),
            FunctionVerdict::Equivalent,
            "{} against {}",
            l.1,
            r.1
        );
    }
}

#[test]
#[ignore = "one solver query on the two joined ends: about 3 s in a release build"]
fn popcount_by_two_algorithms_is_proved() {
    let (o0, o2) = (load("popcount-O0.o"), load("popcount-O2.o"));
    let (l, r) = ((&o0, "popcount_loop"), (&o2, "popcount_swar"));
    assert_eq!(
        compare(l, r, 1),
        FunctionVerdict::Equivalent,
        "{} against {}",
        l.1,
        r.1
    );
}

#[test]
fn the_buggy_popcount_differs_on_the_top_bit() {
    let o2 = load("popcount-O2.o");
    let FunctionVerdict::Disequivalent(cx) =
        compare((&o2, "popcount_loop"), (&o2, "popcount_buggy"), 1)
    else {
        panic!("expected a difference");
    };
    assert!(cx.args[0] & 0x8000_0000 != 0, "{cx:?}");
    assert_eq!(cx.left.observed[0], cx.args[0].count_ones());
    assert_eq!(
        cx.right.observed[0],
        (cx.args[0] & 0x7fff_ffff).count_ones()
    );
}

#[test]
fn division_with_gcc_traps_is_decided() {
    let (o0, o2) = (load("divmod-O0.o"), load("divmod-O2.o"));
    assert_eq!(
        compare((&o0, "divmod"), (&o2, "divmod"), 2),
        FunctionVerdict::Equivalent
    );
    assert_eq!(
        compare((&o0, "divmod_unguarded"), (&o2, "divmod_unguarded"), 2),
        FunctionVerdict::Equivalent
    );
    // The unguarded one traps where the guarded one returns 0.
    let FunctionVerdict::Disequivalent(cx) = compare((&o2, "divmod"), (&o0, "divmod_unguarded"), 2)
    else {
        panic!("expected a difference");
    };
    assert!(
        cx.args[1] == 0 || (cx.args[0] == 0x8000_0000 && cx.args[1] == u32::MAX),
        "{cx:?}"
    );
}

#[test]
fn a_jump_table_and_a_call_are_followed() {
    let (o0, o2) = (load("grade-O0.o"), load("grade-O2.o"));
    assert_eq!(
        compare((&o0, "letter"), (&o2, "letter"), 2),
        FunctionVerdict::Equivalent
    );
}

/// Every path of `f` explored; on each input tried exactly one path's guard holds,
/// and it ends as the emulator's run does (the same fault, or the same `$v0`).
fn paths_agree_with_the_emulator(image: &Image, f: &str, args: usize, inputs: &[[u32; 4]]) {
    use tamarin::mips::mips32::{Machine, Status};
    use tamarin::mips32::explore::{explore, End, Function, Limits};
    use tamarin::solver::{build_chain, SolverConfig};
    use tamarin::term::{Evaluator, TermStore};

    let entry = image.function(f).unwrap().addr;
    let mut s = TermStore::new();
    let vars: Vec<_> = (0..args)
        .map(|k| s.new_var(&format!("$a{k}"), 32))
        .collect();
    let mut solver = build_chain(&SolverConfig::default(), Default::default(), Vec::new());
    let observe = [tamarin::mips::mips32::abi::V0];
    let func = Function {
        code: tamarin::mips32::explore::Code::Mips32(image),
        entry,
        args: &vars,
        observe: &observe,
        zero_allowed: true,
        cuts: &[],
    };
    let limits = Limits {
        fuel: 10_000,
        max_paths: 10_000,
        max_targets: 64,
    };
    let paths = explore(&mut s, &mut solver, &func, &limits, &|| false);
    for input in inputs {
        let values: Vec<u64> = input[..args].iter().map(|&v| v as u64).collect();
        let mut e = Evaluator::new(&s, &values);
        let taken: Vec<_> = paths.ends.iter().filter(|p| e.holds(p.guard)).collect();
        assert_eq!(
            taken.len(),
            1,
            "{f} on {input:?}: {} paths hold",
            taken.len()
        );
        let mut m = Machine::new(image, 10_000);
        let mut a = [0u32; 4];
        a[..args].copy_from_slice(&input[..args]);
        m.call(entry, &a);
        let status = m.run();
        match (&taken[0].end, status) {
            (End::Returned(obs), Status::Returned) => {
                assert_eq!(e.eval(obs[0]) as u32, m.regs().gpr[2], "{f} on {input:?}");
            }
            (End::Fault(k), Status::Error(fault)) => assert_eq!(*k, fault.kind, "{f} on {input:?}"),
            (End::OutOfFuel, Status::OutOfFuel) => {}
            (end, status) => panic!("{f} on {input:?}: path {end:?}, emulator {status:?}"),
        }
    }
}

fn inputs() -> Vec<[u32; 4]> {
    let edges = [
        0u32,
        1,
        2,
        7,
        10,
        0x7fff_ffff,
        0x8000_0000,
        u32::MAX,
        u32::MAX - 6,
        95,
        100,
        42,
    ];
    let mut out = Vec::new();
    let mut x = 0x1234_5678u32;
    for &a in &edges {
        for &b in &edges {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            out.push([a, b, x, x.rotate_left(7)]);
        }
    }
    out
}

#[test]
fn every_path_ends_as_the_emulator_does() {
    for level in ["O0", "O2"] {
        let pop = load(&format!("popcount-{level}.o"));
        for f in ["popcount_loop", "popcount_swar", "popcount_buggy"] {
            paths_agree_with_the_emulator(&pop, f, 1, &inputs());
        }
        let div = load(&format!("divmod-{level}.o"));
        for f in ["divmod", "divmod_unguarded"] {
            paths_agree_with_the_emulator(&div, f, 2, &inputs());
        }
        let grade = load(&format!("grade-{level}.o"));
        paths_agree_with_the_emulator(&grade, "letter", 2, &inputs());
    }
}

#[test]
fn preconditions_narrow_what_is_compared() {
    use tamarin::Precondition;
    let o2 = load("popcount-O2.o");
    let side = |f: &str| FunctionSide {
        image: &o2,
        entry: o2.function(f).unwrap().addr,
    };
    let with = |text: &str| FunctionOptions {
        args: 1,
        assume: vec![Precondition::parse(text).unwrap()],
        ..FunctionOptions::default()
    };
    // The two differ only where the top bit is set: excluded, they are equal.
    let r = compare_functions(
        side("popcount_loop"),
        side("popcount_buggy"),
        &with("$a0 >= 0"),
    )
    .unwrap();
    assert_eq!(r.verdict, FunctionVerdict::Equivalent);
    // Allowed, the difference is found inside the domain.
    let r = compare_functions(
        side("popcount_loop"),
        side("popcount_buggy"),
        &with("$a0 < -5"),
    )
    .unwrap();
    let FunctionVerdict::Disequivalent(cx) = r.verdict else {
        panic!("{:?}", r.verdict)
    };
    assert!((cx.args[0] as i32) < -5, "{cx:?}");
    // A register that is not an argument, and a domain with nothing in it.
    assert!(matches!(
        compare_functions(
            side("popcount_loop"),
            side("popcount_buggy"),
            &with("$a1 > 0")
        ),
        Err(tamarin::Error::Precondition { .. })
    ));
    assert!(matches!(
        compare_functions(
            side("popcount_loop"),
            side("popcount_buggy"),
            &with("$a0 > 0 && $a0 < 0")
        ),
        Err(tamarin::Error::Unsatisfiable { .. })
    ));
}

#[test]
fn a_needle_that_probes_miss_is_found_symbolically() {
    let (o0, o2) = (load("needle-O0.o"), load("needle-O2.o"));
    fn side<'a>(image: &'a Image, f: &str) -> FunctionSide<'a> {
        FunctionSide {
            image,
            entry: image.function(f).unwrap().addr,
        }
    }
    let opts = FunctionOptions {
        args: 1,
        ..FunctionOptions::default()
    };
    let r = compare_functions(side(&o0, "needle"), side(&o2, "haystack"), &opts).unwrap();
    // Found by the symbolic search (the probes ran no paths), and replayed.
    assert!(r.paths.0 > 0, "{r:?}");
    let FunctionVerdict::Disequivalent(cx) = r.verdict else {
        panic!("{:?}", r.verdict)
    };
    assert_eq!((cx.args[0] as i32 ^ 0x5a5a).wrapping_mul(3), 1_234_567 * 3);
    assert_eq!((cx.left.observed[0], cx.right.observed[0]), (1, 0));
    // The same function at two levels is proved.
    let r = compare_functions(side(&o0, "needle"), side(&o2, "needle"), &opts).unwrap();
    assert_eq!(r.verdict, FunctionVerdict::Equivalent);
}
