//! Grading CS241 MIPS submissions against a reference, as a library: the task (the
//! settings of an assignment, from a task file and a command line), the results store
//! (SQLite), the groups of wrong submissions, the report model with its text, JSON,
//! CSV and HTML forms, the JSON reports of the other commands, the record of a run,
//! its shards and their merge, and the Slurm job scripts; and a class of MIPS32
//! functions graded and grouped ([`functions`]).
//!
//! It reaches the engine through the `tamarin` crate's root only, and knows nothing of
//! a command line: no argument parser, no exit status, no terminal. Its errors are one
//! [`Error`] type, which the command-line tool turns into its own.

pub mod class;
pub mod collect;
pub mod error;
pub mod fuel;
pub mod functions;
pub mod groups;
pub mod html;
pub mod json;
pub mod parse;
pub mod record;
pub mod report;
pub mod run;
pub mod settings;
pub mod shard;
pub mod slurm;
pub mod store;
pub mod task;
pub mod text;
pub mod values;
pub mod words;

pub use error::Error;
pub use record::{Diagnostic, Record, Verdict, Witness, WitnessSide};
pub use settings::{Frontend, Line, Search, Settings};
pub use task::Task;

/// The version of every JSON report's layout (`"schema"`, the first field of each
/// command's object): raised when a field changes meaning or goes away. The layouts are
/// JSON Schemas in `docs/schema/`.
pub const SCHEMA_VERSION: u32 = 1;

/// The tool's version, as the run records and the store's keys take it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
