//! The deadline link: every query gets at most the time left of the comparison, and
//! past the deadline the answer is `Unknown` without asking the backend. With it in the
//! chain a comparison's time limit holds however long one query could take.

use std::time::Instant;

use super::{Answer, Solver};
use crate::term::{Term, TermStore};

/// Why a query past the deadline was not asked.
pub const TIME_LIMIT_PASSED: &str = "the time limit of the comparison passed";

/// An unknown answer this close to the deadline is taken to be the clamp's doing.
const CLAMP_SLACK: std::time::Duration = std::time::Duration::from_millis(50);

/// Clamps each query to the time left before `deadline` (no deadline: passes through).
pub struct DeadlineSolver<S> {
    inner: S,
    deadline: Option<Instant>,
}

impl<S: Solver> DeadlineSolver<S> {
    pub fn new(inner: S, deadline: Option<Instant>) -> Self {
        DeadlineSolver { inner, deadline }
    }
}

impl<S: Solver> Solver for DeadlineSolver<S> {
    fn check(&mut self, store: &TermStore, assertions: &[Term]) -> Answer {
        if let Some(d) = self.deadline {
            let left = d.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Answer::Unknown(TIME_LIMIT_PASSED.into());
            }
            self.inner.limit_time(left);
            let answer = self.inner.check(store, assertions);
            // A query cut short by the clamp is unknown because of the time limit,
            // whatever words the backend used: say so, so the advice names --timeout.
            if matches!(answer, Answer::Unknown(_)) && Instant::now() + CLAMP_SLACK >= d {
                return Answer::Unknown(TIME_LIMIT_PASSED.into());
            }
            return answer;
        }
        self.inner.check(store, assertions)
    }
    fn limit_time(&mut self, left: std::time::Duration) {
        self.inner.limit_time(left);
    }
    fn failure(&self) -> Option<String> {
        self.inner.failure()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn cache_hits(&self) -> u64 {
        self.inner.cache_hits()
    }
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Records the limit it was given, and answers sat.
    #[derive(Default)]
    struct Recorder {
        limits: Vec<Duration>,
        asked: u32,
    }

    impl Solver for Recorder {
        fn check(&mut self, _: &TermStore, _: &[Term]) -> Answer {
            self.asked += 1;
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
        let store = TermStore::new();
        let soon = Instant::now() + Duration::from_secs(30);
        let mut s = DeadlineSolver::new(Recorder::default(), Some(soon));
        assert_eq!(s.check(&store, &[]), Answer::Unsat);
        assert_eq!(s.inner.limits.len(), 1);
        assert!(s.inner.limits[0] <= Duration::from_secs(30));
        assert!(s.inner.limits[0] > Duration::from_secs(20));

        let mut past = DeadlineSolver::new(Recorder::default(), Some(Instant::now()));
        assert_eq!(
            past.check(&store, &[]),
            Answer::Unknown(TIME_LIMIT_PASSED.into())
        );
        assert_eq!(
            past.inner.asked, 0,
            "the backend is not asked past the deadline"
        );

        let mut none = DeadlineSolver::new(Recorder::default(), None);
        assert_eq!(none.check(&store, &[]), Answer::Unsat);
        assert!(none.inner.limits.is_empty());
    }
}
