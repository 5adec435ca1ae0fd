//! Why a comparison of two functions is not a proof: the reasons every search of them
//! (the paths, the merged encoding, the loop proof) gives.

/// Why a comparison is not a proof.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FunctionGap {
    /// Some run is longer than the fuel.
    Fuel,
    /// More paths than the limit.
    Paths,
    /// The time limit or an interrupt.
    Time,
    /// An input-dependent address or jump with too many values.
    Addresses,
    /// The solver could not decide the query (its reason).
    Solver(String),
    /// The solver's answer did not replay as a difference (a fault of this tool:
    /// please report it).
    Replay,
    /// For runs of any length: equal whenever both end was proved, but one may run on
    /// where the other ends.
    Termination,
    /// For runs of any length: no inductive invariant was found (why).
    Invariant(String),
}

impl FunctionGap {
    /// A stable name, for JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            FunctionGap::Fuel => "fuel",
            FunctionGap::Paths => "paths",
            FunctionGap::Time => "time",
            FunctionGap::Addresses => "symbolic-address",
            FunctionGap::Solver(_) => "solver-unknown",
            FunctionGap::Replay => "replay",
            FunctionGap::Termination => "termination",
            FunctionGap::Invariant(_) => "invariant",
        }
    }
}
