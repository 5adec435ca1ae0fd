//! The soundness harness in `cargo test`: a few hundred seeded pairs across every
//! shape, every verdict checked concretely (see `tamarin_harness::check`). The long
//! version is `long_soundness` (ignored) or, better, the `soundness` binary in release:
//!
//! ```text
//! cargo run --release -p tamarin-harness --bin soundness -- --pairs 20000 --seed 1
//! cargo test --release -p tamarin-harness --test soundness -- --ignored
//! ```
//!
//! `TAMARIN_SOUNDNESS_PAIRS` and `TAMARIN_SOUNDNESS_SEED` change the fast test's size
//! and seed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tamarin_harness::check::{check_pair, CheckConfig, Kind, Summary};
use tamarin_harness::{make_pair, Shape};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Checks pairs `0..pairs` of `seed` on `jobs` threads.
fn run(seed: u64, pairs: u64, jobs: usize, cfg: &CheckConfig) -> Summary {
    let summary = Mutex::new(Summary::new(5));
    let next = AtomicU64::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= pairs {
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

#[test]
fn fast_soundness() {
    let seed = env_u64("TAMARIN_SOUNDNESS_SEED", 1);
    // 25 pairs per shape.
    let pairs = env_u64("TAMARIN_SOUNDNESS_PAIRS", 25 * Shape::ALL.len() as u64);
    let cfg = CheckConfig {
        fuel: 2000,
        inputs: 2000,
        compare_timeout: Some(Duration::from_millis(1500)),
        solver_timeout: Some(Duration::from_millis(500)),
        depth: None,
        symmetric: true,
    };
    let start = Instant::now();
    let s = run(seed, pairs, 2, &cfg);
    eprintln!("{s}fast soundness: {:.1} s", start.elapsed().as_secs_f64());
    assert_sound(&s);
    // The harness itself works: every shape was checked, and both kinds of answer arose.
    assert_eq!(s.pairs, pairs);
    for shape in Shape::ALL {
        assert!(s.by_shape.contains_key(&shape), "no {shape} pair");
    }
    // The array frontend and the output observable are exercised.
    for shape in [Shape::Array, Shape::Output] {
        let n: u64 = s.by_shape.get(&shape).map_or(0, |m| m.values().sum());
        assert!(
            n >= pairs / Shape::ALL.len() as u64,
            "{n} {shape} pairs: {s}"
        );
    }
    let kind = |k| s.verdicts.get(&k).copied().unwrap_or(0);
    assert!(kind(Kind::Disequivalent) >= pairs / 10, "{s}");
    assert!(kind(Kind::Equivalent) >= pairs / 3, "{s}");
    assert!(s.rewrite_disequivalent.is_empty(), "a wrong rewrite: {s}");
}

#[test]
#[ignore = "long: about two hours on two cores; the soundness binary does the same with progress"]
fn long_soundness() {
    let seed = env_u64("TAMARIN_SOUNDNESS_SEED", 1);
    let pairs = env_u64("TAMARIN_SOUNDNESS_PAIRS", 20_000);
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let s = run(seed, pairs, jobs, &CheckConfig::default());
    eprintln!("{s}");
    assert_sound(&s);
}
