//! The soundness harness in `cargo test`: a few hundred seeded pairs across every
//! shape under the concolic engine, and a few dozen more under the concolic and bmc
//! engines with the huge-fuel check on their loop pairs, every verdict checked
//! concretely (see `tamarin_harness::check`). The long
//! version is `long_soundness` (ignored) or, better, the `soundness` binary in release:
//!
//! ```text
//! cargo run --release -p tamarin-harness --bin soundness -- --pairs 20000 --seed 1 --engine all
//! cargo test --release -p tamarin-harness --test soundness -- --ignored
//! ```
//!
//! `TAMARIN_SOUNDNESS_PAIRS`, `TAMARIN_SOUNDNESS_BMC_PAIRS` and `TAMARIN_SOUNDNESS_SEED`
//! change the fast tests' sizes and seed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tamarin::Engine;
use tamarin_harness::check::{check_pair, spins, CheckConfig, Kind, Summary};
use tamarin_harness::{make_pair, Placement, Shape};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Checks pairs `start..start + pairs` of `seed` on `jobs` threads.
fn run(seed: u64, start: u64, pairs: u64, jobs: usize, cfg: &CheckConfig) -> Summary {
    let summary = Mutex::new(Summary::new(5));
    let next = AtomicU64::new(start);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= start + pairs {
                    break;
                }
                let r = check_pair(&make_pair(seed, i), cfg);
                summary.lock().unwrap().add(&r);
            });
        }
    });
    summary.into_inner().unwrap()
}

fn assert_sound(s: &Summary) {
    let repro = s.reproducers.join("\n");
    assert_eq!(
        s.failures(),
        0,
        "{} failed check(s):\n{s}\n{repro}",
        s.failures()
    );
}

/// The settings of the fast runs: short limits, both directions, 2,000 inputs; the
/// huge-fuel check (g) where `spin_checks` (about a second each).
fn fast_config(engines: Vec<Engine>, spin_checks: bool) -> CheckConfig {
    CheckConfig {
        fuel: 2000,
        inputs: 2000,
        compare_timeout: Some(Duration::from_millis(1500)),
        solver_timeout: Some(Duration::from_millis(500)),
        depth: None,
        symmetric: true,
        engines,
        spin_checks,
    }
}

#[test]
fn fast_soundness() {
    let seed = env_u64("TAMARIN_SOUNDNESS_SEED", 1);
    // 4 pairs per shape (the default `cargo test` stays near two minutes on two cores;
    // `.ci/run` asks for 20 per shape in a release build).
    let pairs = env_u64("TAMARIN_SOUNDNESS_PAIRS", 4 * Shape::ALL.len() as u64);
    // The huge-fuel checks run in `fast_soundness_bmc`, on a few pairs.
    let cfg = fast_config(vec![Engine::Concolic], false);
    let start = Instant::now();
    let s = run(seed, 0, pairs, 2, &cfg);
    eprintln!("{s}fast soundness: {:.1} s", start.elapsed().as_secs_f64());
    assert_sound(&s);
    // The harness itself works: every shape was checked, and both kinds of answer arose.
    assert_eq!(s.pairs, pairs);
    let concolic = s.engine(Engine::Concolic).expect("the concolic engine ran");
    for shape in Shape::ALL {
        assert!(concolic.by_shape.contains_key(&shape), "no {shape} pair");
    }
    // The array frontend and the output observable are exercised.
    for shape in [Shape::Array, Shape::Output] {
        let n: u64 = concolic
            .by_shape
            .get(&shape)
            .map_or(0, |m| m.values().sum());
        assert!(
            n >= pairs / Shape::ALL.len() as u64,
            "{n} {shape} pairs: {s}"
        );
    }
    assert!(concolic.verdicts(Kind::Disequivalent) >= pairs / 10, "{s}");
    assert!(concolic.verdicts(Kind::Equivalent) >= pairs / 3, "{s}");
    assert!(s.rewrite_disequivalent.is_empty(), "a wrong rewrite: {s}");
    // Every array pair has a placement, and arrays lie over data and code too.
    let arrays: u64 = concolic
        .by_shape
        .get(&Shape::Array)
        .map_or(0, |m| m.values().sum());
    assert_eq!(s.placements.values().sum::<u64>(), arrays, "{s}");
    if arrays >= 16 {
        for p in [Placement::OverData, Placement::OverCode] {
            assert!(s.placements.contains_key(&p), "no {p} pair: {s}");
        }
    }
    assert_eq!(s.spin_checks, 0);
}

/// The bounded model checker on pairs of its own (from index 250, after those
/// `fast_soundness` can be asked for),
/// each verdict checked as the concolic ones are, and against the concolic engine's
/// verdicts on the same pairs (check (f)).
#[test]
fn fast_soundness_bmc() {
    let seed = env_u64("TAMARIN_SOUNDNESS_SEED", 1);
    // 2 pairs per shape (`.ci/run` asks for 8 per shape in a release build).
    let pairs = env_u64("TAMARIN_SOUNDNESS_BMC_PAIRS", 2 * Shape::ALL.len() as u64);
    let first = 25 * Shape::ALL.len() as u64;
    let cfg = fast_config(vec![Engine::Concolic, Engine::Bmc], true);
    let start = Instant::now();
    let s = run(seed, first, pairs, 2, &cfg);
    eprintln!(
        "{s}fast soundness, bmc: {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert_sound(&s);
    assert_eq!(s.pairs, pairs);
    for engine in [Engine::Concolic, Engine::Bmc] {
        let e = s.engine(engine).expect("the engine ran");
        for shape in Shape::ALL {
            assert!(e.by_shape.contains_key(&shape), "no {shape} pair");
        }
        assert_eq!(e.pair_verdicts.values().sum::<u64>(), pairs, "{s}");
    }
    // The bounded model checker decides pairs both ways, with proofs of its own.
    let bmc = s.engine(Engine::Bmc).expect("bmc ran");
    assert!(bmc.pairs(Kind::Disequivalent) >= pairs / 10, "{s}");
    assert!(bmc.pairs(Kind::Equivalent) >= pairs / 4, "{s}");
    assert_eq!(
        bmc.proofs.keys().copied().collect::<Vec<_>>(),
        ["bmc"],
        "{s}"
    );
    assert!(s.rewrite_disequivalent.is_empty(), "a wrong rewrite: {s}");
    // The huge-fuel check ran on its loop pairs (one of the default twenty, two of
    // the first forty), each ending soon after its one-second limit.
    let spins = (first..first + pairs)
        .filter(|&i| spins(&make_pair(seed, i)))
        .count() as u64;
    assert_eq!(s.spin_checks, spins, "{s}");
    if pairs >= 2 * Shape::ALL.len() as u64 {
        assert!(s.spin_checks >= 1, "{s}");
    }
}

#[test]
#[ignore = "long: hours on two cores; the soundness binary does the same with progress"]
fn long_soundness() {
    let seed = env_u64("TAMARIN_SOUNDNESS_SEED", 1);
    let pairs = env_u64("TAMARIN_SOUNDNESS_PAIRS", 20_000);
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cfg = CheckConfig {
        engines: tamarin_harness::ENGINES.to_vec(),
        ..CheckConfig::default()
    };
    let s = run(seed, 0, pairs, jobs, &cfg);
    eprintln!("{s}");
    assert_sound(&s);
}
