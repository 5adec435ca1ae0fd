//! Why the front door refuses a task: [`Error`].
//!
//! A task that can be carried out gives a report, whatever it finds; a search that ends
//! without a verdict is not an error but a `PossiblyEquivalent` verdict (or an
//! incomplete exploration) with its reasons. An error is a task that cannot be carried
//! out as given: inputs that cannot be placed, an observable no run can show, or a
//! solver that is not one.

use tamarin_mips::cpu::SetupError;
use tamarin_mips::Program;

use crate::io::{InputLayout, Observable};
use crate::options::Options;
use crate::report::Stats;
use crate::solver::ProcessSolver;
use crate::solver::{build_chain, Answer, Solver};
use crate::term::TermStore;

/// Why [`compare`](crate::compare), [`check`](crate::check()) or
/// [`explore`](crate::explore) could not do their job.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input array cannot be placed for a program, whatever its length: its base is
    /// not a multiple of 4 or lies past the end of memory (see
    /// [`InputSpec::placement_error`](crate::InputSpec::placement_error)). A length that
    /// runs past the end of memory is not an error: it is a property of some inputs,
    /// which the engines report as such.
    #[error("cannot place the input array: {0}")]
    Setup(SetupError),
    /// An observable that no run can show: a `mem:` range that is not word-aligned, is
    /// reversed, reaches past the end of memory or covers more than
    /// [`MAX_OBSERVED_WORDS`](crate::MAX_OBSERVED_WORDS) words (the rules of
    /// [`Observable::parse`]).
    #[error("cannot observe `{observable}`: {message}")]
    Observable {
        observable: Observable,
        message: String,
    },
    /// The solver command (see
    /// [`SolverConfig::external`](crate::SolverConfig::external)) cannot be used: it
    /// cannot be split into words, cannot be started, or does not answer a first query
    /// like an SMT-LIB solver. Checked before the search begins.
    #[error("the solver `{command}` cannot be used: {message}")]
    Solver { command: String, message: String },
    /// The solver stopped answering like one during the search. Its answers were taken
    /// as unknowns, so nothing wrong was concluded, but the report would only list
    /// them: the run is the tool's failure, not the programs'.
    #[error("the solver `{command}` failed during the search: {message}")]
    SolverFailed { command: String, message: String },
    /// A deterministic task ([`Options::deterministic`]) with a part that only the
    /// clock bounds: a piped solver, a portfolio race, or Z3 without a resource
    /// limit.
    #[error("a comparison decided by counts alone cannot use {what}: it is bounded by the clock")]
    NotDeterministic { what: String },
    /// The domain program ([`Options::assume_program`]) cannot be encoded exactly, or
    /// the inputs cannot be placed for it.
    #[error("the domain program {name} cannot be used: {message}")]
    DomainProgram { name: String, message: String },
    /// A precondition ([`Options::assume`]) that does not fit the inputs: it names a
    /// register that is not an input, an array without the array frontend, a byte of
    /// standard input that is not an input, or mixes numbers and truths. `span` is the
    /// byte range of `text` at fault.
    #[error("precondition `{text}`: {message}")]
    Precondition {
        text: String,
        span: std::ops::Range<usize>,
        message: String,
    },
    /// No input satisfies all the preconditions together, so every claim about the
    /// inputs they allow would hold vacuously: the task is refused instead.
    #[error("no input satisfies the preconditions {}", preconditions.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(" and "))]
    Unsatisfiable { preconditions: Vec<String> },
    /// The certificate of a loop proof ([`FunctionOptions::certificate`]) could not
    /// be written: the folder cannot be made, or a file in it cannot be written.
    ///
    /// [`FunctionOptions::certificate`]: crate::FunctionOptions::certificate
    #[error("cannot write the certificate to {dir}: {message}")]
    Certificate { dir: String, message: String },
}

impl Options {
    /// Refuses a task that cannot be carried out for `programs` (the two programs of a
    /// comparison, or the one that is checked or explored): an input array that cannot
    /// be placed, an observable out of range, or a solver command that does not work.
    /// The entries call it first; a front end that prepares output (clears a folder)
    /// before the search calls it before that, so a refused task changes nothing.
    pub fn validate(&self, programs: &[&Program]) -> Result<(), Error> {
        for program in programs {
            if let Some(e) = self.inputs.placement_error(program) {
                return Err(Error::Setup(e));
            }
        }
        for &observable in &self.observe {
            if let Err(message) = observable.validate() {
                return Err(Error::Observable {
                    observable,
                    message,
                });
            }
        }
        self.validate_preconditions()?;
        self.validate_determinism()?;
        if let Some(command) = &self.solver.external {
            let unusable = |message| Error::Solver {
                command: command.clone(),
                message,
            };
            ProcessSolver::from_name(command, self.solver.timeout)
                .map_err(unusable)?
                .probe()
                .map_err(unusable)?;
        }
        Ok(())
    }

    /// Refuses, in a deterministic task, the parts of the solver chain that only the
    /// clock bounds.
    fn validate_determinism(&self) -> Result<(), Error> {
        if !self.deterministic {
            return Ok(());
        }
        let what = if let Some(command) = &self.solver.external {
            format!("the solver `{command}` (a pipe answers within a time limit)")
        } else if !self.solver.portfolio.is_empty() {
            format!("a portfolio ({})", self.solver.portfolio.join(", "))
        } else if self.solver.resource_limit.is_none() {
            "Z3 without a resource limit".to_string()
        } else {
            return Ok(());
        };
        Err(Error::NotDeterministic { what })
    }

    /// Refuses preconditions that do not fit the inputs, or that no input satisfies
    /// (asked of the solver chain within the task's budget: an answer left undecided,
    /// by the solver, the deadline or an interrupt, lets the task go on, and the
    /// search then reports what it could not do).
    fn validate_preconditions(&self) -> Result<(), Error> {
        if self.assume.is_empty() && self.assume_program.is_none() {
            return Ok(());
        }
        let mut store = TermStore::new();
        let mut layout = InputLayout::declare(&mut store, &self.inputs, self.stdin_len);
        for p in &self.assume {
            p.lower(&mut store, &layout)
                .map_err(|e| Error::Precondition {
                    text: p.text().to_string(),
                    span: e.span,
                    message: e.message,
                })?;
        }
        let _ = layout.assume(&mut store, &self.assume);
        if let Err(e) = crate::bmc::domain::restrict(&mut store, &mut layout, self) {
            return Err(Error::DomainProgram {
                name: self
                    .assume_program
                    .as_ref()
                    .map_or_else(String::new, |p| p.name().to_string()),
                message: e.to_string(),
            });
        }
        let domain = layout.domain(&mut store);
        let mut solver = build_chain(&self.solver, self.budget().stop(), domain);
        if solver.check(&mut store, &[]) == Answer::Unsat {
            let mut preconditions: Vec<String> =
                self.assume.iter().map(|p| p.text().to_string()).collect();
            if let Some(p) = &self.assume_program {
                preconditions.push(format!("assume-program {}", p.name()));
            }
            return Err(Error::Unsatisfiable { preconditions });
        }
        Ok(())
    }

    /// The error of a search whose solver stopped answering like one (recorded in
    /// `stats`), if it did.
    pub(crate) fn solver_failure(&self, stats: &Stats) -> Result<(), Error> {
        match &stats.solver_failure {
            Some(message) => Err(Error::SolverFailed {
                command: self
                    .solver
                    .external
                    .clone()
                    .unwrap_or_else(|| "z3".to_string()),
                message: message.clone(),
            }),
            None => Ok(()),
        }
    }
}
