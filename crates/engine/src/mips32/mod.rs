//! Two MIPS32 functions compared: each explored over the same inputs
//! ([`explore`]), their endings merged into one term per side, one query for an input
//! on which they end differently, and its answer replayed on the emulator before it
//! is believed ([`compare`]); and why two functions differ on one input, run by run
//! ([`explain`]).

pub mod certificate;
pub mod compare;
pub mod explain;
pub mod explore;
mod gap;
pub mod induct;
pub mod merged;
pub(crate) mod needle;
mod sampler;

pub use compare::{
    compare_functions, CertificateFiles, FunctionCounterexample, FunctionGap, FunctionOptions,
    FunctionReport, FunctionRun, FunctionSide, FunctionVerdict, UnboundedProof,
};
pub use explain::{explain_functions, FunctionExplanation, FunctionTrace, TraceStep};
pub use induct::{Certificate, Check, CheckKind, Obligations, Schedule};
