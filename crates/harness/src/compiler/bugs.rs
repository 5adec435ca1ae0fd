//! Planted compiler bugs: mistakes students make, applied at one site of one side's
//! code generator. A bug may or may not change the function (a comparison that never
//! sees equal operands, a clobbered register nobody reads again), so its pairs are
//! checked as mutants are: a verdict either way is fine, as long as it is sound.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A kind of planted bug. Each code generator counts the sites where it could plant
/// each kind; a [`Bug`] names one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BugKind {
    /// A signed `<` (or `>`) compiled as `<=` (`>=`): off by one at equal operands.
    LtAsLe,
    /// `==` compiled as `!=` or the reverse.
    EqAsNe,
    /// A comparison signed where it should be unsigned or the reverse (`slt`/`sltu`).
    Signedness,
    /// A variable's frame slot off by one word (naive: a load; regalloc: the restore
    /// of a saved register).
    FrameOffset,
    /// A register the caller needs, overwritten by a call (naive: `$29` not saved
    /// around a call; regalloc: a register the callee writes but does not save).
    ClobberedRegister,
    /// The operands of `-`, `/` or `%` swapped.
    OperandOrder,
}

impl BugKind {
    pub const ALL: [BugKind; 6] = [
        BugKind::LtAsLe,
        BugKind::EqAsNe,
        BugKind::Signedness,
        BugKind::FrameOffset,
        BugKind::ClobberedRegister,
        BugKind::OperandOrder,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BugKind::LtAsLe => "lt-as-le",
            BugKind::EqAsNe => "eq-as-ne",
            BugKind::Signedness => "signedness",
            BugKind::FrameOffset => "frame-offset",
            BugKind::ClobberedRegister => "clobbered-register",
            BugKind::OperandOrder => "operand-order",
        }
    }

    fn index(self) -> usize {
        BugKind::ALL.iter().position(|&k| k == self).unwrap_or(0)
    }
}

impl fmt::Display for BugKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One planted bug: its kind and which of the generator's sites of that kind (from
/// 0, in the order the generator meets them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bug {
    pub kind: BugKind,
    pub site: usize,
}

impl fmt::Display for Bug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at site {}", self.kind, self.site)
    }
}

/// The sites a code generator meets, per kind, and the bug it plants (if any).
#[derive(Clone, Debug, Default)]
pub struct Sites {
    bug: Option<Bug>,
    seen: [usize; 6],
}

impl Sites {
    pub fn new(bug: Option<Bug>) -> Sites {
        Sites { bug, seen: [0; 6] }
    }

    /// Counts one site of `kind`: whether the bug is planted here.
    pub fn hit(&mut self, kind: BugKind) -> bool {
        let n = &mut self.seen[kind.index()];
        let here = self.bug == Some(Bug { kind, site: *n });
        *n += 1;
        here
    }

    /// Sites of `kind` met so far.
    pub fn count(&self, kind: BugKind) -> usize {
        self.seen[kind.index()]
    }
}

/// The comparison a code generator emits for `c` at this site, with the planted bug
/// if it is here: the operator, and whether it compares unsigned.
pub fn emitted_comparison(
    sites: &mut Sites,
    c: &super::source::Cond,
) -> (super::source::CmpOp, bool) {
    use super::source::CmpOp;
    let unsigned = c.pointers != sites.hit(BugKind::Signedness);
    let op = match c.op {
        CmpOp::Lt if sites.hit(BugKind::LtAsLe) => CmpOp::Le,
        CmpOp::Gt if sites.hit(BugKind::LtAsLe) => CmpOp::Ge,
        CmpOp::Eq if sites.hit(BugKind::EqAsNe) => CmpOp::Ne,
        CmpOp::Ne if sites.hit(BugKind::EqAsNe) => CmpOp::Eq,
        op => op,
    };
    (op, unsigned)
}
