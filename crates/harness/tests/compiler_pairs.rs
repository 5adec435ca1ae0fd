//! Compiler pairs: two compilations of one program agree on every input tried (a
//! broken code generator fails here), planted bugs make some pairs differ, and the
//! checks find such a difference with a counterexample that replays.

use std::time::Duration;

use tamarin::Engine;
use tamarin_harness::check::{CheckConfig, Kind, EDGE_INPUTS};
use tamarin_harness::compiler::{
    check_compiler_pair, make_compiler_pair, run_linked, source::ARRAY_MAX_LEN, CompilerPair, Run,
};
use tamarin_harness::Rng;

/// Flat inputs for the pair's layout.
fn inputs(cp: &CompilerPair, n: usize) -> Vec<Vec<u32>> {
    let mut rng = Rng::for_item(99, cp.index);
    let array = matches!(cp.inputs(), tamarin::InputSpec::Array { .. });
    (0..n)
        .map(|_| {
            let value = |r: &mut Rng| match r.below(3) {
                0 => *r.pick(&EDGE_INPUTS),
                1 => r.range(-8, 8) as i32 as u32,
                _ => r.next_u32(),
            };
            if array {
                let mut v = vec![rng.below(ARRAY_MAX_LEN as usize + 1) as u32];
                v.extend((0..ARRAY_MAX_LEN).map(|_| value(&mut rng)));
                v
            } else {
                vec![value(&mut rng), value(&mut rng)]
            }
        })
        .collect()
}

/// The first input on which the linked sides differ (both faulting is no difference).
fn differs(cp: &CompilerPair, n: usize) -> Option<(Vec<u32>, Run, Run)> {
    let (l, r) = (cp.left.link().unwrap(), cp.right.link().unwrap());
    let spec = cp.inputs();
    inputs(cp, n).into_iter().find_map(|v| {
        let a = run_linked(&l, &spec, &v, 100_000).unwrap();
        let b = run_linked(&r, &spec, &v, 100_000).unwrap();
        let same = a == b
            || matches!((&a, &b), (Run::Fault(_), Run::Fault(_)))
            || a == Run::OutOfFuel
            || b == Run::OutOfFuel;
        (!same).then_some((v, a, b))
    })
}

#[test]
fn compilations_of_one_program_agree_and_planted_bugs_differ() {
    let mut differing_bugs = 0;
    for index in 0..60 {
        let cp = make_compiler_pair(5, index);
        let d = differs(&cp, 60);
        if cp.kind.equal_by_construction() {
            assert!(
                d.is_none(),
                "pair {index} ({}) differs: {d:?}\n{}\n--- left\n{}--- right\n{}",
                cp.kind,
                cp.source.text(),
                cp.left.text(),
                cp.right.text()
            );
        } else if d.is_some() {
            differing_bugs += 1;
        }
    }
    assert!(
        differing_bugs >= 3,
        "{differing_bugs} planted bugs changed a pair"
    );
}

#[test]
fn a_planted_bug_is_found_and_replays() {
    let cfg = CheckConfig {
        fuel: 20_000,
        inputs: 300,
        compare_timeout: Some(Duration::from_secs(4)),
        solver_timeout: Some(Duration::from_millis(500)),
        symmetric: false,
        engines: vec![Engine::Auto],
        spin_checks: false,
        ..CheckConfig::default()
    };
    // The first buggy pairs that differ on a simple input (the smallest programs
    // first, so that a debug build decides them quickly).
    let mut found = 0;
    let mut tried = 0;
    for index in 0..80 {
        let cp = make_compiler_pair(7, index);
        if cp.kind.equal_by_construction() || cp.source.text().len() > 500 {
            continue;
        }
        if differs(&cp, 40).is_none() {
            continue;
        }
        tried += 1;
        let r = check_compiler_pair(&cp, &cfg);
        assert!(!r.failed(), "{}", r.reproducer());
        if r.runs[0].forward.kind == Kind::Disequivalent {
            assert!(r.runs[0].forward.replayed, "{}", r.reproducer());
            found += 1;
            break;
        }
        if tried >= 3 {
            break;
        }
    }
    assert!(
        found >= 1,
        "no planted bug found in {tried} differing pairs"
    );
}
