//! The concolic comparison: any two programs compare without a panic; a
//! `disequivalent` verdict's counterexample replays from scratch; an `equivalent`
//! verdict is not contradicted by any concrete input tried here.
//!
//! Byte 0: bit 0 takes the programs as raw words instead of mostly valid
//! instructions (`tamarin_fuzz::biased_word`). Byte 1: the split point, in words,
//! between the left and the right program. The rest: the words of both programs
//! (each at most `MAX_WORDS` long).
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use tamarin::{compare, outcomes_differ, Engine, Options, Quiet, Verdict};
use tamarin_fuzz::{word_at, words};
use tamarin_mips::cpu::{run_program, Config, Frontend, Outcome};
use tamarin_mips::loader::{parse_binary, to_binary};
use tamarin_mips::Program;

const FUEL: u64 = 200;
const MAX_WORDS: usize = 48;

fn options() -> Options {
    let mut o = Options::default();
    o.fuel = FUEL;
    o.depth = 8;
    // The path search, as this target has always fuzzed it.
    o.engine = Engine::Concolic;
    o.max_runs = 50;
    o.solver.timeout = Duration::from_millis(200);
    // A backstop so that one input cannot stall the fuzzer.
    o.timeout = Some(Duration::from_secs(10));
    o
}

fn run(p: &Program, a: u32, b: u32) -> Outcome {
    run_program(p, Config::with_fuel(FUEL), &Frontend::TwoInts(a, b), &[])
        .expect("twoints never fails to set up")
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let biased = data[0] & 1 == 0;
    let body = &data[2..];
    let ws = words(body, biased);
    let split = usize::from(data[1]).min(ws.len());
    let (l, r) = ws.split_at(split);
    let load = |w: &[u32]| {
        let w = &w[..w.len().min(MAX_WORDS)];
        parse_binary("fuzz.mips", &to_binary(w)).expect("whole words load")
    };
    let (left, right) = (load(l), load(r));

    // Registers for inputs, `$3` observed, Z3 in process: every such task can be done.
    let report = compare(&left, &right, &options(), &mut Quiet).expect("a valid task");
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            assert_eq!(cx.inputs.len(), 2, "{:?}", cx.inputs);
            let (a, b) = (cx.inputs[0].1, cx.inputs[1].1);
            let (lo, ro) = (run(&left, a, b), run(&right, a, b));
            assert!(
                outcomes_differ(&lo, &ro),
                "counterexample ({a:#x}, {b:#x}) does not replay:\nleft {lo:?}\nright {ro:?}"
            );
            assert_eq!(
                cx.left, lo,
                "the counterexample's left outcome is not the replay's"
            );
            assert_eq!(
                cx.right, ro,
                "the counterexample's right outcome is not the replay's"
            );
        }
        Verdict::Equivalent(proof) => {
            assert_eq!(proof.fuel, FUEL);
            let probes = [
                (0, 0),
                (1, 2),
                (2, 1),
                (u32::MAX, 1),
                (0x8000_0000, u32::MAX),
                (7, 7),
                (word_at(body, 0), word_at(body, 4)),
                (
                    word_at(body, body.len().saturating_sub(8)),
                    word_at(body, body.len().saturating_sub(4)),
                ),
            ];
            for (a, b) in probes {
                let (lo, ro) = (run(&left, a, b), run(&right, a, b));
                assert!(
                    !outcomes_differ(&lo, &ro),
                    "'equivalent', but ({a:#x}, {b:#x}) tells them apart:\nleft {lo:?}\nright {ro:?}"
                );
            }
        }
        Verdict::PossiblyEquivalent(reasons) => {
            assert!(!reasons.is_empty(), "possibly-equivalent with no reason");
            for r in reasons {
                let _ = r.to_string();
            }
        }
    }
});
