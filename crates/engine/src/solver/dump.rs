//! Writes every query that passes through as a standalone SMT-LIB 2 file, with the
//! answer the chain gave as a comment, so a query can be replayed with `z3 FILE`. The
//! text reads memory as the backends do (through the one array lowering).

use std::path::PathBuf;

use super::{Answer, Solver};
use crate::term::{to_smtlib, Term, TermStore};

/// Dumps queries to a directory, then passes them on.
pub struct DumpingSolver<S> {
    inner: S,
    dir: PathBuf,
    count: u64,
    /// The first write error, if any (dumping never stops the search).
    pub error: Option<String>,
}

impl<S: Solver> DumpingSolver<S> {
    pub fn new(inner: S, dir: PathBuf) -> Self {
        DumpingSolver {
            inner,
            dir,
            count: 0,
            error: None,
        }
    }
}

impl<S: Solver> Solver for DumpingSolver<S> {
    fn check(&mut self, store: &mut TermStore, assertions: &[Term]) -> Answer {
        let answer = self.inner.check(store, assertions);
        self.count += 1;
        let comment = format!(
            "tamarin query {}\nanswer: {}{}",
            self.count,
            answer.name(),
            match &answer {
                Answer::Unknown(why) => format!(" ({why})"),
                _ => String::new(),
            }
        );
        let text = to_smtlib(store, assertions, &comment);
        let path = self.dir.join(format!("query-{:05}.smt2", self.count));
        if let Err(e) = std::fs::write(&path, text) {
            self.error
                .get_or_insert_with(|| format!("{}: {e}", path.display()));
        }
        answer
    }

    fn warnings(&self) -> Vec<String> {
        let mut w = self.inner.warnings();
        if let Some(e) = &self.error {
            w.push(format!("could not write an SMT-LIB query file: {e}"));
        }
        w
    }
    pass_on!(
        limit_time,
        limit_work,
        failure,
        describe,
        cache_hits,
        backend_work
    );
}
