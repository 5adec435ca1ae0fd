//! The domain link: adds the terms that bound the inputs (an array input's length is
//! at most its maximum) to every query, so no model names an input the comparison
//! cannot run and no engine has to remember to add them.

use super::{Answer, IntegerLimits, QueryForm, Solver};
use crate::term::{Term, TermStore};

/// Asks every query together with the input domain.
pub struct DomainSolver<S> {
    inner: S,
    domain: Vec<Term>,
}

impl<S: Solver> DomainSolver<S> {
    /// `domain`: Boolean terms every model must satisfy (none: passes through).
    pub fn new(inner: S, domain: Vec<Term>) -> Self {
        DomainSolver { inner, domain }
    }
}

impl<S: Solver> Solver for DomainSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        if self.domain.is_empty() {
            return self.inner.check(store, assertions);
        }
        let mut query = Vec::with_capacity(assertions.len() + self.domain.len());
        query.extend_from_slice(assertions);
        query.extend_from_slice(&self.domain);
        self.inner.check(store, &query)
    }
    /// The input bounds go with a query in integers too: its answer then speaks of
    /// the inputs the preconditions allow, as every other query's does.
    fn check_as(
        &mut self,
        form: QueryForm,
        store: &mut TermStore,
        assertions: &[Term],
        limits: IntegerLimits,
    ) -> Answer {
        let query: Vec<Term> = assertions.iter().chain(&self.domain).copied().collect();
        self.inner.check_as(form, store, &query, limits)
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

    /// Remembers the last query.
    #[derive(Default)]
    struct Last(Vec<Term>);

    impl Solver for Last {
        fn check(&mut self, _: &mut TermStore, assertions: &[Term]) -> Answer {
            self.0 = assertions.to_vec();
            Answer::Unsat
        }
        fn describe(&self) -> String {
            "last".into()
        }
    }

    #[test]
    fn every_query_carries_the_domain() {
        let mut s = TermStore::new();
        let x = s.new_var("len", 32);
        let k = s.word(8);
        let bound = s.bin(crate::term::BinOp::Ult, x, k);
        let q = s.eq(x, k);
        let mut d = DomainSolver::new(Last::default(), vec![bound]);
        assert_eq!(d.check(&mut s, &[q]), Answer::Unsat);
        assert_eq!(d.inner.0, vec![q, bound]);
        let mut none = DomainSolver::new(Last::default(), Vec::new());
        none.check(&mut s, &[q]);
        assert_eq!(none.inner.0, vec![q]);
    }

    #[test]
    fn a_query_in_integers_carries_the_domain() {
        let mut s = TermStore::new();
        let x = s.new_var("len", 32);
        let k = s.word(8);
        let bound = s.bin(crate::term::BinOp::Ult, x, k);
        let q = s.eq(x, k);
        let limits = IntegerLimits::new(1_000_000, std::time::Duration::from_secs(10));
        // `len == 8` alone has a model; with `len < 8` from the domain it has none.
        assert!(matches!(
            Last::default().check_in_integers(&mut s, &[q], limits),
            Answer::Sat(_)
        ));
        let mut d = DomainSolver::new(Last::default(), vec![bound]);
        assert_eq!(d.check_in_integers(&mut s, &[q], limits), Answer::Unsat);
    }
}
