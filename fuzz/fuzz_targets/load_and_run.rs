//! Loader and emulator: any bytes either load or are rejected with a message; any
//! loaded program runs to an outcome (never a panic) on a few inputs, and a reset
//! machine reruns to the same outcome.
//!
//! Byte 0 picks the mode: bit 0 maps the rest onto mostly valid instructions
//! (see `tamarin_fuzz::biased_word`) instead of taking it as raw words; bits 1..=3
//! the array length; bits 4..=5 where the array goes. The next bytes give the inputs.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use tamarin_fuzz::{word_at, words};
use tamarin_mips::cpu::{run_program, Config, Frontend, Machine, NoTrace, Outcome, Status};
use tamarin_mips::loader::{parse_binary, to_binary};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::Program;

const FUEL: u64 = 10_000;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    // The loader on the bytes as they are.
    match parse_binary("fuzz.mips", body) {
        Ok(p) => {
            assert_eq!(p.words().len(), body.len() / 4);
            assert_eq!(to_binary(p.words()), body, "load/save round trip");
        }
        Err(e) => {
            assert!(body.len() % 4 != 0, "whole words rejected: {e}");
            let _ = e.to_string();
        }
    }
    // The program actually run: whole words, raw or biased.
    let ws = words(body, mode & 1 == 1);
    let program = parse_binary("fuzz.mips", &to_binary(&ws)).expect("whole words load");
    assert_eq!(program.words()[..], ws[..]);

    let (a, b) = (word_at(body, 0), word_at(body, 4));
    let stdin = &body[..body.len().min(6)];
    let n = usize::from((mode >> 1) & 7);
    let elems: Vec<u32> = (0..n).map(|k| word_at(body, 8 + 4 * k)).collect();
    let base = match (mode >> 4) & 3 {
        0 => None,
        1 => Some(program.byte_len() + 4 * u32::from(mode >> 6)),
        2 => Some(a),
        _ => Some(MEM_SIZE - 8),
    };
    let frontends = [
        Frontend::TwoInts(a, b),
        Frontend::TwoInts(0, 0),
        Frontend::TwoInts(u32::MAX, 0x8000_0000),
        Frontend::Array { elems, base },
        Frontend::Array {
            elems: vec![],
            base: None,
        },
    ];
    for f in &frontends {
        check(&program, f, stdin);
    }
});

fn check(program: &Program, frontend: &Frontend, stdin: &[u8]) {
    let config = Config::with_fuel(FUEL);
    let first = run_program(program, config, frontend, stdin);
    let mut m = Machine::new(program, config);
    let setup = m.apply(frontend);
    assert_eq!(
        setup.is_ok(),
        first.is_ok(),
        "setup disagrees with run_program"
    );
    let Ok(first) = first else {
        let _ = setup.expect_err("checked").to_string();
        return;
    };
    invariants(&first);
    m.set_input(Arc::from(stdin));
    let o1 = m.run_to_outcome(&mut NoTrace);
    assert_eq!(o1, first, "a machine differs from run_program");

    // Reset and rerun: the same outcome, even after self-modifying stores.
    m.reset();
    m.apply(frontend).expect("setup succeeded before");
    m.set_input(Arc::from(stdin));
    let o2 = m.run_to_outcome(&mut NoTrace);
    assert_eq!(o2, first, "rerun after reset differs");

    // A fresh clone of a reset machine also agrees.
    m.reset();
    let mut c = m.clone();
    c.apply(frontend).expect("setup succeeded before");
    c.set_input(Arc::from(stdin));
    assert_eq!(
        c.run_to_outcome(&mut NoTrace),
        first,
        "clone after reset differs"
    );
}

fn invariants(o: &Outcome) {
    assert!(o.steps <= FUEL, "{} steps with fuel {FUEL}", o.steps);
    assert_eq!(o.regs.gpr[0], 0, "$0 is not 0");
    assert!(
        o.output.len() as u64 <= o.steps,
        "more output bytes than steps"
    );
    match o.status {
        Status::OutOfFuel => assert_eq!(o.steps, FUEL, "out of fuel early"),
        Status::Done => assert!(o.steps >= 1, "done without a step"),
        Status::Error(f) => {
            let _ = f.to_string();
        }
        Status::Stopped => panic!("a run with no stop was stopped"),
    }
}
