//! The portfolio link: a query that the backend (with its own escalation) left unknown
//! is put at once to other SMT-LIB solvers (Yices 2, cvc5, …), each in its own process,
//! all in parallel; the first definite answer wins and the others are stopped.
//!
//! Solvers differ most on exactly the queries one of them cannot do (a Stirling-number
//! proof that Z3 4.8 cannot finish in a minute takes Yices 1.5 s; see docs/benchmarks-history.md), so
//! a portfolio is worth its processes only after the backend has given up. It is bounded
//! by wall-clock time (no other solver has Z3's deterministic limit), which is why it
//! comes last: a query the backend decides never depends on the machine's load.
//!
//! A `sat` answer is checked with the evaluator before it is believed; a member that
//! gives a model that does not satisfy the query is ignored (the answer stays unknown).

use std::time::{Duration, Instant};

use tamarin_mips::cpu::Stop;

use super::process::{Running, Script};
use super::{Answer, ProcessSolver, Solver};
use crate::term::{Evaluator, Term, TermStore};

/// How often the running members are looked at.
const POLL: Duration = Duration::from_millis(2);

/// A portfolio with less time than this left is not started.
const MIN_BUDGET: Duration = Duration::from_millis(50);

/// Puts the backend's unknowns to other solvers in parallel.
pub struct PortfolioSolver<S> {
    inner: S,
    members: Vec<ProcessSolver>,
    timeout: Duration,
    /// What is left of the comparison's time for the current query.
    limit: Option<Duration>,
    /// Whether the next query is held to a count of work ([`Solver::limit_work`]).
    work_limited: bool,
    /// Queries the portfolio decided, by member.
    decided: Vec<u64>,
    /// Sat answers whose model did not satisfy the query.
    bad_models: u64,
    /// The comparison's deadline and Ctrl-C: a race ends at once when it is reached.
    stop: Stop,
}

impl<S: Solver> PortfolioSolver<S> {
    /// `members` that are not installed are left out; `timeout` bounds each query's
    /// portfolio (and the comparison's time left bounds it too).
    pub fn new(inner: S, members: Vec<ProcessSolver>, timeout: Duration) -> Self {
        let members: Vec<ProcessSolver> = members.into_iter().filter(|m| m.installed()).collect();
        PortfolioSolver {
            decided: vec![0; members.len()],
            inner,
            members,
            timeout,
            limit: None,
            work_limited: false,
            bad_models: 0,
            stop: Stop::default(),
        }
    }

    /// Ends every race at once when `stop` is reached (the comparison's deadline, or
    /// Ctrl-C, which the clock alone does not see).
    pub fn with_stop(mut self, stop: Stop) -> Self {
        self.stop = stop;
        self
    }

    /// Queries decided by each member, by name.
    pub fn decided(&self) -> Vec<(String, u64)> {
        self.members
            .iter()
            .zip(&self.decided)
            .map(|(m, &n)| (m.label().to_string(), n))
            .collect()
    }

    /// Runs every member on the query until one answers sat (with a model that
    /// satisfies it) or unsat, all have answered, or `budget` is spent.
    fn race(
        &mut self,
        store: &mut TermStore,
        assertions: &[Term],
        budget: Duration,
    ) -> Option<Answer> {
        let deadline = Instant::now() + budget;
        let script = Script::new(store, assertions).ok()?;
        let mut running: Vec<(usize, Running)> = self
            .members
            .iter()
            .enumerate()
            .filter_map(|(k, m)| m.spawn(&script.text).ok().map(|r| (k, r)))
            .collect();
        let mut winner = None;
        while winner.is_none()
            && !running.is_empty()
            && Instant::now() < deadline
            && !self.stop.reached()
        {
            let mut k = 0;
            while k < running.len() {
                let exited = matches!(running[k].1.child.try_wait(), Ok(Some(_)) | Err(_));
                if !exited {
                    k += 1;
                    continue;
                }
                let (member, r) = running.swap_remove(k);
                let answer = script.answer(store, &r.output());
                match answer {
                    Ok(Answer::Unsat) => winner = Some((member, Answer::Unsat)),
                    Ok(Answer::Sat(m)) => {
                        let mut ev = Evaluator::new(store, &m.values);
                        if assertions.iter().all(|&a| ev.holds(a)) {
                            winner = Some((member, Answer::Sat(m)));
                        } else {
                            self.bad_models += 1;
                        }
                    }
                    // An unknown, or output that is not an answer: this member is out.
                    Ok(Answer::Unknown(_)) | Err(_) => {}
                }
                if winner.is_some() {
                    break;
                }
            }
            if winner.is_none() && !running.is_empty() {
                std::thread::sleep(POLL);
            }
        }
        for (_, r) in running {
            r.kill();
        }
        let (member, answer) = winner?;
        self.decided[member] += 1;
        Some(answer)
    }
}

impl<S: Solver> Solver for PortfolioSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        let start = Instant::now();
        let limit = self.limit.take();
        let counted = std::mem::take(&mut self.work_limited);
        let answer = self.inner.check(store, assertions);
        let Answer::Unknown(why) = answer else {
            return answer;
        };
        // A race is won on the clock: a query held to a count of work is not raced.
        if counted {
            return Answer::Unknown(why);
        }
        let left = limit.map_or(self.timeout, |l| l.saturating_sub(start.elapsed()));
        let budget = left.min(self.timeout);
        if self.members.is_empty() || budget < MIN_BUDGET {
            return Answer::Unknown(why);
        }
        match self.race(store, assertions, budget) {
            Some(decided) => decided,
            None => Answer::Unknown(why),
        }
    }

    fn limit_time(&mut self, left: Duration) {
        // Two limits on one query (a caller's and the deadline's): the shorter holds.
        self.limit = Some(self.limit.map_or(left, |l| l.min(left)));
        self.inner.limit_time(left);
    }

    fn limit_work(&mut self, units: u32) {
        self.work_limited = true;
        self.inner.limit_work(units);
    }

    fn describe(&self) -> String {
        if self.members.is_empty() {
            return self.inner.describe();
        }
        let names: Vec<&str> = self.members.iter().map(|m| m.label()).collect();
        format!(
            "{}; its unknowns put to {} in parallel",
            self.inner.describe(),
            names.join(", ")
        )
    }

    fn warnings(&self) -> Vec<String> {
        let mut w = self.inner.warnings();
        if self.bad_models > 0 {
            w.push(format!(
                "{} sat answer(s) of the solver portfolio had a model that does not satisfy \
                 the query, and were ignored",
                self.bad_models
            ));
        }
        w
    }
    pass_on!(failure, cache_hits, backend_work);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::BinOp;

    /// Answers unknown, always: the backend that gave up.
    struct GivesUp;
    impl Solver for GivesUp {
        fn check(&mut self, _: &mut TermStore, _: &[Term]) -> Answer {
            Answer::Unknown("rlimit".into())
        }
        fn describe(&self) -> String {
            "gives up".into()
        }
    }

    /// A fake solver: a shell command that prints `out` after `delay` seconds.
    fn fake(delay: &str, out: &str) -> ProcessSolver {
        let cmd = format!("sh -c 'cat >/dev/null; sleep {delay}; printf \"{out}\"'");
        ProcessSolver::from_name(&cmd, Duration::from_secs(10)).expect("a command line")
    }

    fn query(s: &mut TermStore) -> Vec<Term> {
        let x = s.new_var("x", 32);
        let k = s.word(42);
        vec![s.eq(x, k)]
    }

    #[test]
    fn the_first_definite_answer_wins_and_the_slow_member_is_stopped() {
        let mut s = TermStore::new();
        let q = query(&mut s);
        let members = vec![
            fake("5", "unsat\\n"),
            fake("0", "sat\\n((|x| #x0000002a))\\n"),
        ];
        let mut p = PortfolioSolver::new(GivesUp, members, Duration::from_secs(20));
        let start = Instant::now();
        let Answer::Sat(m) = p.check(&mut s, &q) else {
            panic!("the fast member's answer")
        };
        assert_eq!(m.values, vec![42]);
        assert!(
            start.elapsed() < Duration::from_secs(4),
            "the slow one was not awaited"
        );
        assert_eq!(p.decided().iter().map(|d| d.1).sum::<u64>(), 1);
    }

    /// A query held to a count of work is not raced (a race is won on the clock);
    /// the next one is.
    #[test]
    fn a_query_held_to_a_work_count_is_not_raced() {
        let mut s = TermStore::new();
        let q = query(&mut s);
        let members = vec![fake("0", "unsat\n")];
        let mut p = PortfolioSolver::new(GivesUp, members, Duration::from_secs(20));
        p.limit_work(1_000);
        assert_eq!(p.check(&mut s, &q), Answer::Unknown("rlimit".into()));
        assert_eq!(p.check(&mut s, &q), Answer::Unsat);
    }

    #[test]
    fn a_model_that_does_not_satisfy_the_query_is_not_believed() {
        // A planted bug: a member that answers sat with a wrong model.
        let mut s = TermStore::new();
        let q = query(&mut s);
        let members = vec![fake("0", "sat\\n((|x| #x00000007))\\n")];
        let mut p = PortfolioSolver::new(GivesUp, members, Duration::from_secs(20));
        assert_eq!(p.check(&mut s, &q), Answer::Unknown("rlimit".into()));
        assert_eq!(p.warnings().len(), 1);
    }

    #[test]
    fn unknowns_and_garbage_leave_the_backends_reason() {
        let mut s = TermStore::new();
        let q = query(&mut s);
        let members = vec![fake("0", "unknown\\n"), fake("0", "segmentation fault\\n")];
        let mut p = PortfolioSolver::new(GivesUp, members, Duration::from_secs(20));
        assert_eq!(p.check(&mut s, &q), Answer::Unknown("rlimit".into()));
    }

    /// A race against a member that would answer after 10 s: unknown, and soon.
    fn ends_without_waiting(p: &mut PortfolioSolver<GivesUp>) {
        let mut s = TermStore::new();
        let q = query(&mut s);
        let start = Instant::now();
        assert!(matches!(p.check(&mut s, &q), Answer::Unknown(_)));
        assert!(start.elapsed() < Duration::from_secs(3));
    }

    fn slow_portfolio() -> PortfolioSolver<GivesUp> {
        PortfolioSolver::new(
            GivesUp,
            vec![fake("10", "unsat\\n")],
            Duration::from_secs(20),
        )
    }

    #[test]
    fn the_time_left_bounds_the_race() {
        let mut p = slow_portfolio();
        p.limit_time(Duration::from_millis(300));
        ends_without_waiting(&mut p);
    }

    #[test]
    fn an_interrupt_ends_the_race_at_once() {
        static FLAG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
        let stop = Stop {
            deadline: None,
            flag: Some(&FLAG),
        };
        ends_without_waiting(&mut slow_portfolio().with_stop(stop));
    }

    #[test]
    fn a_definite_backend_answer_is_never_raced() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let one = s.word(1);
        let q = [s.bin(BinOp::Ult, x, one)];
        struct Unsat;
        impl Solver for Unsat {
            fn check(&mut self, _: &mut TermStore, _: &[Term]) -> Answer {
                Answer::Unsat
            }
            fn describe(&self) -> String {
                "unsat".into()
            }
        }
        // A member that would answer wrongly is never asked.
        let members = vec![fake("0", "sat\\n((|x| #x00000000))\\n")];
        let mut p = PortfolioSolver::new(Unsat, members, Duration::from_secs(20));
        assert_eq!(p.check(&mut s, &q), Answer::Unsat);
        assert_eq!(p.decided()[0].1, 0);
    }

    #[test]
    fn members_that_are_not_installed_are_left_out() {
        let missing =
            ProcessSolver::from_name("no-such-solver-here --flag", Duration::from_secs(1))
                .expect("a command line");
        let p = PortfolioSolver::new(GivesUp, vec![missing], Duration::from_secs(1));
        assert!(p.decided().is_empty());
        assert_eq!(p.describe(), "gives up");
    }
}
