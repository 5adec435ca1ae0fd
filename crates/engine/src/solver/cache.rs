//! Caches in front of the backend, as in KLEE's solver chain: an exact query cache
//! and a counterexample cache that reuses earlier models that satisfy a new query.

use rustc_hash::FxHashMap;

use super::{Answer, Model, Solver};
use crate::term::{Evaluator, Term, TermStore};

/// How many recent models to try on a new query before calling the backend.
const MODELS_TRIED: usize = 16;

/// Answers repeated queries from memory and satisfiable ones from earlier models.
pub struct CachingSolver<S> {
    inner: S,
    exact: FxHashMap<Vec<Term>, Answer>,
    models: Vec<Model>,
    /// Queries answered here rather than by the next link.
    pub hits: u64,
}

impl<S: Solver> CachingSolver<S> {
    pub fn new(inner: S) -> Self {
        CachingSolver {
            inner,
            exact: FxHashMap::default(),
            models: Vec::new(),
            hits: 0,
        }
    }

    fn try_models(&self, store: &TermStore, assertions: &[Term]) -> Option<Model> {
        self.models.iter().rev().take(MODELS_TRIED).find_map(|m| {
            let mut ev = Evaluator::new(store, &m.values);
            assertions.iter().all(|&a| ev.holds(a)).then(|| Model {
                values: pad(&m.values, store.var_count()),
            })
        })
    }
}

fn pad(values: &[u64], n: usize) -> Vec<u64> {
    let mut v = values.to_vec();
    v.resize(n.max(v.len()), 0);
    v
}

impl<S: Solver> Solver for CachingSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        let mut key = assertions.to_vec();
        key.sort_unstable();
        key.dedup();
        if let Some(a) = self.exact.get(&key) {
            self.hits += 1;
            return match a {
                Answer::Sat(m) => Answer::Sat(Model {
                    values: pad(&m.values, store.var_count()),
                }),
                other => other.clone(),
            };
        }
        if let Some(m) = self.try_models(store, &key) {
            self.hits += 1;
            return Answer::Sat(m);
        }
        let answer = self.inner.check(store, &key);
        match &answer {
            Answer::Sat(m) => {
                self.models.push(m.clone());
                self.exact.insert(key, answer.clone());
            }
            Answer::Unsat => {
                self.exact.insert(key, Answer::Unsat);
            }
            // An unknown may become known with another attempt; never cache it.
            Answer::Unknown(_) => {}
        }
        answer
    }

    fn cache_hits(&self) -> u64 {
        self.hits + self.inner.cache_hits()
    }
    pass_on!(
        limit_time,
        limit_work,
        failure,
        describe,
        warnings,
        backend_work
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::BinOp;

    /// Counts the queries that reach it and answers from a fixed model.
    struct Backend {
        calls: u64,
    }

    impl Solver for Backend {
        fn check(&mut self, store: &mut TermStore, _: &[Term]) -> Answer {
            self.calls += 1;
            let mut values = vec![5; 1];
            values.resize(store.var_count(), 0);
            Answer::Sat(Model { values })
        }
        fn describe(&self) -> String {
            "test".into()
        }
    }

    #[test]
    fn repeated_and_already_satisfied_queries_skip_the_backend() {
        let mut s = TermStore::new();
        let x = s.new_var("x", 32);
        let (k5, k3) = (s.word(5), s.word(3));
        let is5 = s.eq(x, k5);
        let gt3 = s.bin(BinOp::Ult, k3, x);
        let mut c = CachingSolver::new(Backend { calls: 0 });
        assert!(matches!(c.check(&mut s, &[is5]), Answer::Sat(_)));
        assert!(
            matches!(c.check(&mut s, &[is5, is5]), Answer::Sat(_)),
            "same set"
        );
        assert!(
            matches!(c.check(&mut s, &[gt3]), Answer::Sat(_)),
            "x = 5 satisfies it"
        );
        assert_eq!(c.inner.calls, 1);
        assert_eq!(c.cache_hits(), 2);
    }
}
