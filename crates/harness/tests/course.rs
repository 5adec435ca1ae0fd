//! The course corpus: both compilations of every program agree with the interpreter,
//! print something, end within the campaign's fuel, and the planted bugs are drawn
//! the same way every time.

use tamarin_harness::check::EDGE_INPUTS;
use tamarin_harness::compiler::course::{course_bugs, course_pairs, course_programs};
use tamarin_harness::compiler::source::{Frontend, ARRAY_MAX_LEN};
use tamarin_harness::compiler::{
    agrees, interp, interp_inputs, run_linked, Codegen, CompilerKind, Run,
};
use tamarin_harness::Rng;

/// Flat inputs of `frontend`'s layout: edge values, small values (the clamps' and
/// loops' interesting range) and uniform ones; arrays of every length.
fn inputs(frontend: Frontend, seed: u64, n: usize) -> Vec<Vec<u32>> {
    let mut rng = Rng::for_item(seed, 0);
    let value = |r: &mut Rng| match r.below(3) {
        0 => *r.pick(&EDGE_INPUTS),
        1 => r.range(-20, 120) as i32 as u32,
        _ => r.next_u32(),
    };
    let mut out: Vec<Vec<u32>> = match frontend {
        // The corners: zeros (division by zero), equal operands, the clamps' ends.
        Frontend::TwoInts => [(0, 0), (5, 5), (97, 0), (100, 31), (12, 12), (8, 3)]
            .iter()
            .map(|&(a, b)| vec![a, b])
            .collect(),
        Frontend::Array => (0..=ARRAY_MAX_LEN)
            .map(|len| {
                let mut v = vec![len];
                v.extend([3, u32::MAX, 7, 7]);
                v
            })
            .collect(),
    };
    while out.len() < n {
        out.push(match frontend {
            Frontend::TwoInts => vec![value(&mut rng), value(&mut rng)],
            Frontend::Array => {
                let mut v = vec![rng.below(ARRAY_MAX_LEN as usize + 1) as u32];
                v.extend((0..ARRAY_MAX_LEN).map(|_| value(&mut rng)));
                v
            }
        });
    }
    out
}

#[test]
fn course_programs_agree_with_the_interpreter_within_the_fuel() {
    let programs = course_programs();
    assert!(programs.len() >= 16);
    let pairs = course_pairs();
    for (k, cp) in programs.iter().enumerate() {
        let pair = &pairs
            .iter()
            .find(|p| p.name == cp.name && p.pair.kind == CompilerKind::NaiveRegalloc)
            .unwrap()
            .pair;
        let spec = pair.inputs();
        let sides = [Codegen::Naive, Codegen::Regalloc].map(|g| {
            let side = if g == Codegen::Naive {
                &pair.left
            } else {
                &pair.right
            };
            assert_eq!(side.codegen, g);
            (g, side.link().unwrap())
        });
        let mut printed = 0;
        for values in inputs(cp.program.frontend, k as u64, 40) {
            let want = interp::run(&cp.program, &interp_inputs(cp.program.frontend, &values));
            assert!(
                !matches!(want, interp::Ending::Broken(_)),
                "{}: {want:?} on {values:?}\n{}",
                cp.name,
                cp.program.text()
            );
            if let interp::Ending::Done { output, .. } = &want {
                printed += usize::from(!output.is_empty());
            }
            for (g, linked) in &sides {
                let got = run_linked(linked, &spec, &values, 20_000).unwrap();
                assert!(
                    got != Run::OutOfFuel,
                    "{} ({}) on {values:?} runs out of 20000 steps\n{}",
                    cp.name,
                    g.name(),
                    cp.program.text()
                );
                assert!(
                    agrees(&got, &want),
                    "{} ({}) on {values:?}: {got:?}, interpreter {want:?}\n{}",
                    cp.name,
                    g.name(),
                    cp.program.text()
                );
            }
        }
        assert!(printed > 0, "{} never prints", cp.name);
    }
}

#[test]
fn course_pairs_are_fixed() {
    let pairs = course_pairs();
    let programs = course_programs();
    assert_eq!(pairs.len(), 3 * programs.len());
    let mut names = std::collections::BTreeSet::new();
    for (k, cp) in programs.iter().enumerate() {
        assert!(names.insert(cp.name), "{} twice", cp.name);
        let bugs = course_bugs(&cp.program, k);
        assert_eq!(bugs.len(), 2, "{}", cp.name);
        assert_ne!(bugs[0], bugs[1], "{}", cp.name);
        assert_eq!(bugs, course_bugs(&cp.program, k));
        for (j, p) in pairs[3 * k..3 * k + 3].iter().enumerate() {
            assert_eq!(p.name, cp.name);
            assert_eq!(p.pair.index, (3 * k + j) as u64);
            let want = if j == 0 {
                CompilerKind::NaiveRegalloc
            } else {
                CompilerKind::BuggyRegalloc
            };
            assert_eq!(p.pair.kind, want);
            assert_eq!(p.pair.right.bug, (j > 0).then(|| bugs[j - 1]));
            assert!(p.pair.left.bug.is_none());
        }
    }
}
