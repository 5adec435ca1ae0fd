//! Calls to shared procedures as events (see `crate::shared`): the tracer lets the
//! concrete run execute the call, records its output as the procedure's number and
//! its arguments' terms, and afterwards treats what the call may have changed as
//! unknown ([`Unknown`]): a run that reads such a value before writing it is given up.
//!
//! A call's length depends on its arguments, so two inputs on one path of the caller
//! may take different numbers of steps. [`CallSlack`] keeps the run's ending the same
//! for every input on its path: a run that ends must end within the fuel even if every
//! call took its longest path, and a run that runs out of fuel must run out even if
//! every call took its shortest.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use tamarin_mips::cpu::Status;
use tamarin_mips::{Instr, Reg};

use super::{GaveUp, SymTracer};
use crate::io::Observable;
use crate::semantics::{Domain, Shadow, Val};
use crate::term::Term;
use tamarin_mips::cpu::Event;

/// A shared procedure, as the tracer uses it (`crate::shared` says which qualify).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Procedure {
    /// Its number in the comparison: the same on both sides.
    pub id: u16,
    /// Its body.
    pub words: Arc<[u32]>,
    /// The registers it reads, in order: a call's arguments.
    pub args: Vec<Reg>,
    /// The registers it leaves as it found them (bit `r` for `$r`).
    pub restored: u32,
    /// The most bytes below its entry `$30` that it writes.
    pub depth: u32,
    /// The fewest and most steps a call takes (its `jr $31` included).
    pub min_steps: u64,
    pub max_steps: u64,
}

impl Procedure {
    /// Its length in bytes.
    pub fn byte_len(&self) -> u32 {
        (self.words.len() as u32).saturating_mul(4)
    }
}

/// One program's shared procedures, by entry address.
pub type Calls = FxHashMap<u32, Arc<Procedure>>;

/// Bits of [`Unknown::regs`] beyond the 32 registers.
pub const HI: u64 = 1 << 32;
pub const LO: u64 = 1 << 33;

/// What the calls of a run left unknown.
#[derive(Clone, Debug, Default)]
pub struct Unknown {
    /// Registers (bit `r`), `hi` ([`HI`]) and `lo` ([`LO`]).
    pub regs: u64,
    /// Words below some call's entry `$30`.
    pub words: FxHashSet<u32>,
    /// Calls recorded as events so far.
    pub calls: u32,
}

impl Unknown {
    /// Whether `instr` reads something unknown.
    pub fn read_by(&self, instr: Instr) -> bool {
        self.regs != 0 && reads(instr) & self.regs != 0
    }

    /// `instr` wrote its destinations: they are known again.
    pub fn written_by(&mut self, instr: Instr) {
        self.regs &= !writes(instr);
    }

    /// Whether some observable of a run that ended shows something unknown.
    pub fn observed(&self, observe: &[Observable]) -> bool {
        observe.iter().any(|o| match *o {
            Observable::Reg(r) => self.regs & (1 << r.index()) != 0,
            Observable::Hi => self.regs & HI != 0,
            Observable::Lo => self.regs & LO != 0,
            Observable::Output => false,
            Observable::Mem { from, to } => self.words.iter().any(|&w| w >= from && w <= to),
        })
    }
}

fn bit(r: Reg) -> u64 {
    if r == Reg::ZERO {
        0
    } else {
        1 << r.index()
    }
}

/// What `instr` reads (registers, [`HI`], [`LO`]).
pub fn reads(instr: Instr) -> u64 {
    use Instr::*;
    match instr {
        Add { s, t, .. } | Sub { s, t, .. } | Slt { s, t, .. } | Sltu { s, t, .. } => {
            bit(s) | bit(t)
        }
        Mult { s, t } | Multu { s, t } | Div { s, t } | Divu { s, t } => bit(s) | bit(t),
        Mfhi { .. } => HI,
        Mflo { .. } => LO,
        Lis { .. } => 0,
        Lw { s, .. } => bit(s),
        Sw { t, s, .. } | Beq { s, t, .. } | Bne { s, t, .. } => bit(s) | bit(t),
        Jr { s } | Jalr { s } => bit(s),
    }
}

/// What `instr` writes.
pub fn writes(instr: Instr) -> u64 {
    use Instr::*;
    match instr {
        Add { d, .. } | Sub { d, .. } | Slt { d, .. } | Sltu { d, .. } => bit(d),
        Mfhi { d } | Mflo { d } | Lis { d } => bit(d),
        Mult { .. } | Multu { .. } | Div { .. } | Divu { .. } => HI | LO,
        Lw { t, .. } => bit(t),
        Jalr { .. } => bit(Reg::RA),
        Sw { .. } | Beq { .. } | Bne { .. } | Jr { .. } => 0,
    }
}

/// A call in progress.
#[derive(Clone, Debug)]
pub struct Active {
    pub proc: Arc<Procedure>,
    /// Where it returns to, and `$30` at its entry.
    pub ret: u32,
    pub sp: u32,
    pub steps: u64,
    /// The words it stored, in order.
    pub stores: Vec<(u32, u32)>,
}

/// How far the calls' lengths could move the run's end: see the module's doc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallSlack {
    /// Steps the calls could have taken beyond what they took.
    pub longer: u64,
    /// Steps the calls could have taken fewer.
    pub shorter: u64,
}

impl CallSlack {
    /// Whether a run that ended with `status` after `steps` of `fuel` steps ends the
    /// same way on every input of its path.
    pub fn holds(self, status: Status, steps: u64, fuel: u64) -> bool {
        match status {
            Status::Done | Status::Error(_) => steps.saturating_add(self.longer) <= fuel,
            Status::OutOfFuel => steps.saturating_sub(self.shorter) >= fuel,
            Status::Stopped => true,
        }
    }
}

/// The tracer's view of shared procedures.
#[derive(Clone, Debug, Default)]
pub struct CallTracking {
    pub procs: Option<Arc<Calls>>,
    pub active: Option<Active>,
    pub slack: CallSlack,
}

/// The width of a call's number in the output terms: no byte (8) and no word (32)
/// has it, so a call never equals a byte of output.
pub const CALL_MARK_WIDTH: u8 = 16;

impl SymTracer<'_> {
    /// Calls to these procedures (by entry) are recorded as events.
    pub fn with_calls(mut self, procs: Option<Arc<Calls>>) -> Self {
        self.calls.procs = procs.filter(|p| !p.is_empty());
        self
    }

    /// Whether the run, which ended with `status` after `steps` of `fuel` steps,
    /// stands for every input of its path despite its calls: no call was left
    /// unfinished, the calls' lengths cannot move its end, and no observable shows
    /// what a call left unknown.
    pub fn calls_hold(
        &self,
        status: Status,
        steps: u64,
        fuel: u64,
        observe: &[Observable],
    ) -> bool {
        let u = &self.run.unknown;
        if u.calls == 0 {
            return true;
        }
        self.calls.active.is_none()
            && self.calls.slack.holds(status, steps, fuel)
            && !(status == Status::Done && u.observed(observe))
    }

    /// Calls recorded as events in this run.
    pub fn call_events(&self) -> u32 {
        self.run.unknown.calls
    }

    /// While a call runs: counts its step and its stores. Returns whether the
    /// instruction at `pc` belongs to the caller again (the call ended before it).
    pub(super) fn in_call(&mut self, pc: u32, event: Event) -> bool {
        let Some(active) = &mut self.calls.active else {
            return true;
        };
        if pc != active.ret {
            active.steps += 1;
            match event {
                Event::Store { addr, value } => active.stores.push((addr, value)),
                Event::Input(_) => self.gave_up = Some(GaveUp::CallEffects),
                _ => {}
            }
            return false;
        }
        let Some(active) = self.calls.active.take() else {
            return true;
        };
        self.end_call(active);
        true
    }

    fn end_call(&mut self, a: Active) {
        let p = &a.proc;
        if a.steps < p.min_steps || a.steps > p.max_steps {
            // Not the procedure that was checked: never trust the event.
            self.gave_up = Some(GaveUp::CallEffects);
            return;
        }
        self.calls.slack.longer += p.max_steps - a.steps;
        self.calls.slack.shorter += a.steps - p.min_steps;
        for &(addr, value) in &a.stores {
            crate::semantics::store(
                &mut Shadow(self.store),
                &mut self.run.mem,
                Val::Conc(addr),
                Val::Conc(value),
            );
            if addr >= self.image_end {
                self.run.written.insert(addr);
            }
        }
        let low = a.sp - p.depth;
        let u = &mut self.run.unknown;
        u.words.extend((low..a.sp).step_by(4));
        u.regs |= (!u64::from(p.restored) & 0xffff_fffe) | HI | LO;
    }

    /// After a `jalr` to `target` that links `link`: starts a call event if `target`
    /// is a shared procedure's entry and the call qualifies. Otherwise the run follows
    /// the procedure as any other code.
    pub(super) fn maybe_call(&mut self, target: u32, link: u32) {
        let Some(p) = self
            .calls
            .procs
            .as_ref()
            .and_then(|m| m.get(&target))
            .cloned()
        else {
            return;
        };
        let Val::Conc(sp) = self.run.regs[Reg::SP.index()] else {
            return;
        };
        let end = target.saturating_add(p.byte_len());
        let args_known = p
            .args
            .iter()
            .all(|&r| self.run.unknown.regs & (1 << r.index()) == 0);
        let frame_clear = sp.is_multiple_of(4)
            && sp <= tamarin_mips::memory::MEM_SIZE
            && sp
                .checked_sub(p.depth)
                .is_some_and(|low| low >= self.image_end);
        // Stores at input-dependent addresses confined to the input array leave the
        // procedure's code and frame as they were when neither overlaps it.
        let low = sp.saturating_sub(p.depth);
        let overlaps = |(a, b): (u32, u32), (c, d): (u32, u32)| a < d && c < b;
        let confined = self
            .run
            .mem
            .region
            .is_some_and(|r| !overlaps(r, (target, end)) && !overlaps(r, (low, sp)));
        let code_intact = (!self.run.sym_stores || confined)
            && !self.run.mem.overlay.keys().any(|&k| k >= target && k < end);
        if !(args_known && frame_clear && code_intact) || (link >= target && link < end) {
            return;
        }
        let mark = self.store.constant(CALL_MARK_WIDTH, u64::from(p.id));
        self.run.outputs.push_back(mark);
        for &r in &p.args {
            let v = self.run.regs[r.index()];
            let t: Term = Shadow(self.store).term(v);
            self.run.outputs.push_back(t);
        }
        self.run.unknown.calls += 1;
        self.calls.active = Some(Active {
            proc: p,
            ret: link,
            sp,
            steps: 0,
            stores: Vec::new(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slack_keeps_endings_fixed() {
        let s = CallSlack {
            longer: 10,
            shorter: 5,
        };
        assert!(s.holds(Status::Done, 90, 100));
        assert!(!s.holds(Status::Done, 91, 100));
        assert!(s.holds(Status::OutOfFuel, 105, 100));
        assert!(!s.holds(Status::OutOfFuel, 104, 100));
    }

    #[test]
    fn reads_and_writes_cover_hi_and_lo() {
        let r = |n| Reg::new(n).unwrap();
        assert_eq!(reads(Instr::Mflo { d: r(3) }), LO);
        assert_eq!(writes(Instr::Div { s: r(1), t: r(2) }), HI | LO);
        assert_eq!(
            reads(Instr::Add {
                d: r(3),
                s: r(0),
                t: r(2)
            }),
            1 << 2
        );
        let mut u = Unknown {
            regs: HI | LO | (1 << 3),
            ..Unknown::default()
        };
        assert!(u.read_by(Instr::Mfhi { d: r(4) }));
        u.written_by(Instr::Mult { s: r(1), t: r(2) });
        assert!(!u.read_by(Instr::Mfhi { d: r(4) }));
        assert!(u.observed(&[Observable::Reg(r(3))]));
    }
}
