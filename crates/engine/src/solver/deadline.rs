//! The deadline link: every query gets at most the time left of the comparison, and
//! past the deadline, or once the comparison is interrupted, the answer is `Unknown`
//! without asking the links after it. With it in the chain a comparison's time limit
//! holds however long one query could take, and Ctrl-C ends a search that is asking.

use std::time::{Duration, Instant};

use tamarin_mips::cpu::Stop;

use super::{Answer, IntegerLimits, QueryForm, Solver};
use crate::term::{Term, TermStore};

/// Why a query past the deadline was not asked.
pub const TIME_LIMIT_PASSED: &str = "the time limit of the comparison passed";

/// Why a query after an interrupt was not asked.
pub const INTERRUPTED: &str = "the comparison was interrupted";

/// An unknown answer this close to the deadline is taken to be the clamp's doing.
const CLAMP_SLACK: std::time::Duration = std::time::Duration::from_millis(50);

/// Clamps each query to the time left before the comparison's deadline, and answers
/// `Unknown` once its [`Stop`] is reached (nothing to watch: passes through).
pub struct DeadlineSolver<S> {
    inner: S,
    stop: Stop,
}

impl<S: Solver> DeadlineSolver<S> {
    pub fn new(inner: S, stop: Stop) -> Self {
        DeadlineSolver { inner, stop }
    }

    /// `ask`'s answer, given the time left (`None` without a deadline), unless no
    /// query may be asked now. A query cut short by the clamp is unknown because of
    /// the time limit, whatever words the backend used: it says so, so the advice
    /// names --timeout.
    fn within(&mut self, ask: impl FnOnce(&mut S, Option<Duration>) -> Answer) -> Answer {
        if let Some(why) = self.stopped() {
            return Answer::Unknown(why.into());
        }
        let Some(d) = self.stop.deadline else {
            return ask(&mut self.inner, None);
        };
        let answer = ask(
            &mut self.inner,
            Some(d.saturating_duration_since(Instant::now())),
        );
        if matches!(answer, Answer::Unknown(_)) && Instant::now() + CLAMP_SLACK >= d {
            return Answer::Unknown(TIME_LIMIT_PASSED.into());
        }
        answer
    }

    /// Why no query may be asked now, if none may.
    fn stopped(&self) -> Option<&'static str> {
        if !self.stop.reached() {
            return None;
        }
        Some(if self.stop.deadline.is_some_and(|d| Instant::now() >= d) {
            TIME_LIMIT_PASSED
        } else {
            INTERRUPTED
        })
    }
}

impl<S: Solver> Solver for DeadlineSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        self.within(|inner, left| {
            if let Some(left) = left {
                inner.limit_time(left);
            }
            inner.check(store, assertions)
        })
    }
    /// The same stop as every other query: nothing is asked once it is reached, a
    /// query gets at most the time left, and the interrupt ends it at once.
    fn check_as(
        &mut self,
        form: QueryForm,
        store: &mut TermStore,
        assertions: &[Term],
        limits: IntegerLimits,
    ) -> Answer {
        let interrupt = limits.interrupt.or(self.stop.flag);
        self.within(|inner, left| {
            let limits = IntegerLimits {
                time: left.map_or(limits.time, |left| limits.time.min(left)),
                interrupt,
                ..limits
            };
            inner.check_as(form, store, assertions, limits)
        })
    }
    pass_on!(
        limit_time,
        limit_work,
        failure,
        describe,
        cache_hits,
        warnings,
        backend_work
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// Records the limit it was given, and answers unsat.
    #[derive(Default)]
    struct Recorder {
        limits: Vec<Duration>,
        asked: u32,
        /// What each query in integers came with.
        integer_limits: Vec<IntegerLimits>,
    }

    impl Solver for Recorder {
        fn check(&mut self, _: &mut TermStore, _: &[Term]) -> Answer {
            self.asked += 1;
            Answer::Unsat
        }
        fn check_as(
            &mut self,
            _: QueryForm,
            _: &mut TermStore,
            _: &[Term],
            limits: IntegerLimits,
        ) -> Answer {
            self.integer_limits.push(limits);
            Answer::Unsat
        }
        fn limit_time(&mut self, left: Duration) {
            self.limits.push(left);
        }
        fn describe(&self) -> String {
            "recorder".into()
        }
    }

    #[test]
    fn each_query_gets_at_most_the_time_left_and_none_after_it() {
        let mut store = TermStore::new();
        let soon = Instant::now() + Duration::from_secs(30);
        let mut s = DeadlineSolver::new(Recorder::default(), Stop::at(Some(soon)));
        assert_eq!(s.check(&mut store, &[]), Answer::Unsat);
        assert_eq!(s.inner.limits.len(), 1);
        assert!(s.inner.limits[0] <= Duration::from_secs(30));
        assert!(s.inner.limits[0] > Duration::from_secs(20));

        let mut past = DeadlineSolver::new(Recorder::default(), Stop::at(Some(Instant::now())));
        assert_eq!(
            past.check(&mut store, &[]),
            Answer::Unknown(TIME_LIMIT_PASSED.into())
        );
        assert_eq!(
            past.inner.asked, 0,
            "the backend is not asked past the deadline"
        );

        let mut none = DeadlineSolver::new(Recorder::default(), Stop::default());
        assert_eq!(none.check(&mut store, &[]), Answer::Unsat);
        assert!(none.inner.limits.is_empty());
    }

    #[test]
    fn after_an_interrupt_nothing_is_asked() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        let mut store = TermStore::new();
        let later = Instant::now() + Duration::from_secs(600);
        for deadline in [None, Some(later)] {
            FLAG.store(false, Ordering::Relaxed);
            let stop = Stop::at(deadline).with_flag(Some(&FLAG));
            let mut s = DeadlineSolver::new(Recorder::default(), stop);
            assert_eq!(s.check(&mut store, &[]), Answer::Unsat);
            FLAG.store(true, Ordering::Relaxed);
            assert_eq!(
                s.check(&mut store, &[]),
                Answer::Unknown(INTERRUPTED.into())
            );
            assert_eq!(s.inner.asked, 1);
        }
        // Both: the time limit is the reason.
        let stop = Stop::at(Some(Instant::now())).with_flag(Some(&FLAG));
        let mut s = DeadlineSolver::new(Recorder::default(), stop);
        assert_eq!(
            s.check(&mut store, &[]),
            Answer::Unknown(TIME_LIMIT_PASSED.into())
        );
    }

    #[test]
    fn a_query_in_integers_keeps_to_the_same_stop() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        let mut store = TermStore::new();
        let limits = IntegerLimits::new(1_000, Duration::from_secs(600));
        let soon = Instant::now() + Duration::from_secs(30);
        let stop = Stop::at(Some(soon)).with_flag(Some(&FLAG));
        let mut s = DeadlineSolver::new(Recorder::default(), stop);
        assert_eq!(s.check_in_integers(&mut store, &[], limits), Answer::Unsat);
        let asked = s.inner.integer_limits[0];
        // At most the time left, the same work, and the comparison's interrupt.
        assert!(asked.time <= Duration::from_secs(30), "{asked:?}");
        assert_eq!(asked.work, 1_000);
        assert!(asked.interrupt.is_some_and(|f| std::ptr::eq(f, &FLAG)));
        FLAG.store(true, Ordering::Relaxed);
        assert_eq!(
            s.check_in_integers(&mut store, &[], limits),
            Answer::Unknown(INTERRUPTED.into())
        );
        assert_eq!(
            s.inner.integer_limits.len(),
            1,
            "nothing asked after the interrupt"
        );
        let mut past = DeadlineSolver::new(Recorder::default(), Stop::at(Some(Instant::now())));
        assert_eq!(
            past.check_in_integers(&mut store, &[], limits),
            Answer::Unknown(TIME_LIMIT_PASSED.into())
        );
        assert!(past.inner.integer_limits.is_empty());
    }
}
