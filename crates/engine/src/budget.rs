//! The one budget of a comparison (or of a `check` or `explore`): what it may spend.
//!
//! A [`Budget`] holds the absolute deadline, the interrupt flag (Ctrl-C), the fuel of
//! every run and the bound on what the traces of the search may hold in memory. It is
//! made once, by [`Budget::start`], when the work begins (the front door, or a front end
//! that anchors it earlier by setting `Options::budget`); this is the one place where a time limit ([`Options::timeout`](crate::Options::timeout))
//! becomes a deadline. Everything else draws from it: the precondition check, the
//! engines, the solver chain's deadline link, every concrete run (through
//! [`Budget::machine_config`]) and every traced one (through its
//! [`TraceLimits`](crate::TraceLimits)), and `auto`'s phases, which take a
//! [`Budget::share`] of it. A share never reaches past its parent's deadline, so
//! there is one deadline per comparison, whatever splits it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tamarin_mips::cpu::{Config, Stop};

/// What a comparison may spend: a deadline, an interrupt flag, the fuel of a run and
/// the bytes its traces may hold. Cheap to copy; made by [`Budget::start`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// When the work began (what a time-limit reason counts from).
    started: Instant,
    /// The deadline and the interrupt flag, as a concrete run watches them.
    stop: Stop,
    /// Steps per run.
    fuel: u64,
    /// Bytes (as [`crate::trace`] estimates them) that the terms, conditions and
    /// checkpoints recorded by the search's traced runs may hold together.
    trace_bytes: usize,
}

impl Budget {
    /// The budget of work that begins now with the time limit `timeout`: its deadline
    /// is now plus the limit. This is the only place where a time limit becomes a
    /// deadline ([`Options::budget`](crate::Options::budget) calls it with the task's
    /// `timeout`, then sets its flag, fuel and trace bound). Without the builders, no
    /// flag and no bound on fuel or trace memory.
    pub fn start(timeout: Option<Duration>) -> Budget {
        let now = Instant::now();
        Budget {
            started: now,
            stop: Stop::at(timeout.map(|t| now + t)),
            fuel: u64::MAX,
            trace_bytes: usize::MAX,
        }
    }

    /// This budget, ending at `deadline` instead if that is earlier (never later).
    pub fn until(mut self, deadline: Instant) -> Budget {
        self.stop.deadline = Some(self.stop.deadline.map_or(deadline, |d| d.min(deadline)));
        self
    }

    /// This budget, also stopped once `flag` is raised.
    pub fn with_interrupt(mut self, flag: Option<&'static AtomicBool>) -> Budget {
        if flag.is_some() {
            self.stop.flag = flag;
        }
        self
    }

    /// This budget with another fuel per run.
    pub fn with_fuel(mut self, fuel: u64) -> Budget {
        self.fuel = fuel;
        self
    }

    /// This budget with another trace memory bound.
    pub fn with_trace_bytes(mut self, bytes: usize) -> Budget {
        self.trace_bytes = bytes;
        self
    }

    /// A sub-budget for work that may use at most `1/parts` of the time left (all of
    /// it without a deadline): its deadline is never later than this one's, and it
    /// keeps the interrupt flag, the fuel and the trace bound.
    pub fn share(&self, parts: u32) -> Budget {
        let mut b = *self;
        if let Some(left) = self.left() {
            b = b.until(Instant::now() + left / parts.max(1));
        }
        b
    }

    /// When the work began.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The deadline, if there is one.
    pub fn deadline(&self) -> Option<Instant> {
        self.stop.deadline
    }

    /// The time left before the deadline (`None` without one; zero once past).
    pub fn left(&self) -> Option<Duration> {
        self.stop
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.stop.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the work was interrupted from outside.
    pub fn interrupted(&self) -> bool {
        self.stop.flag.is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Whether the work must stop now: past the deadline or interrupted.
    pub fn exhausted(&self) -> bool {
        self.stop.reached()
    }

    /// The deadline and the flag, as the emulator and the solver chain watch them.
    pub fn stop(&self) -> Stop {
        self.stop
    }

    /// Steps per run.
    pub fn fuel(&self) -> u64 {
        self.fuel
    }

    /// The bytes the search's traces may hold.
    pub fn trace_bytes(&self) -> usize {
        self.trace_bytes
    }

    /// The settings of a concrete run within this budget: its fuel, the termination
    /// address, and a stop at the deadline or on an interrupt, so that no run outlives
    /// the work.
    pub fn machine_config(&self, termination: u32) -> Config {
        let mut c = Config::with_fuel(self.fuel);
        c.termination = termination;
        c.stop = self.stop;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    fn with_timeout(t: Option<Duration>) -> Budget {
        Budget::start(t)
    }

    #[test]
    fn start_anchors_the_deadline_once() {
        let before = Instant::now();
        let b = with_timeout(Some(Duration::from_secs(10)));
        let d = b.deadline().unwrap();
        assert!(d >= before + Duration::from_secs(10));
        assert!(d <= Instant::now() + Duration::from_secs(10));
        // Copies and later reads keep the same deadline.
        std::thread::sleep(Duration::from_millis(5));
        let c = b;
        assert_eq!(c.deadline(), Some(d));
        assert!(c.left().unwrap() < Duration::from_secs(10));
        assert!(!c.expired());
        assert!(with_timeout(None).deadline().is_none());
        assert!(with_timeout(None).left().is_none());
    }

    #[test]
    fn a_zero_limit_is_spent_at_once() {
        let b = with_timeout(Some(Duration::ZERO));
        assert!(b.expired());
        assert!(b.exhausted());
        assert_eq!(b.left(), Some(Duration::ZERO));
    }

    #[test]
    fn a_share_never_extends_the_parent() {
        let parent = with_timeout(Some(Duration::from_secs(100)));
        let half = parent.share(2);
        let d = half.deadline().unwrap();
        assert!(d <= parent.deadline().unwrap());
        let left = half.left().unwrap();
        assert!(left <= Duration::from_secs(50), "{left:?}");
        assert!(left >= Duration::from_secs(49), "{left:?}");
        // A share of a share is shorter still, and `share(1)` is the parent's rest.
        assert!(half.share(2).deadline().unwrap() <= d);
        assert!(parent.share(1).deadline().unwrap() <= parent.deadline().unwrap());
        assert!(parent.share(0).deadline().unwrap() <= parent.deadline().unwrap());
        // `until` only ever moves a deadline earlier.
        let later = parent.deadline().unwrap() + Duration::from_secs(5);
        assert_eq!(parent.until(later).deadline(), parent.deadline());
    }

    #[test]
    fn without_a_deadline_shares_have_none() {
        let b = with_timeout(None);
        assert!(b.share(2).deadline().is_none());
    }

    #[test]
    fn a_share_keeps_the_flag_fuel_and_trace_bound() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        let o = Options {
            timeout: Some(Duration::from_secs(30)),
            interrupt: Some(&FLAG),
            fuel: 1234,
            trace_limits: crate::TraceLimits {
                max_bytes: 4321,
                ..Default::default()
            },
            ..Default::default()
        };
        let b = o.budget();
        let s = b.share(3).share(2);
        assert_eq!(s.fuel(), 1234);
        assert_eq!(s.trace_bytes(), 4321);
        assert!(!s.exhausted());
        FLAG.store(true, Ordering::Relaxed);
        assert!(s.interrupted() && s.exhausted() && b.exhausted());
        assert!(s.machine_config(0).stop.reached());
        FLAG.store(false, Ordering::Relaxed);
        let c = s.machine_config(0x8000_0000);
        assert_eq!((c.fuel, c.termination), (1234, 0x8000_0000));
        assert_eq!(c.stop, s.stop());
    }
}
