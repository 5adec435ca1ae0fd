//! Counting loops, some of which do not end for some inputs.

use super::{Gen, ZERO};
use crate::prog::Op;

impl Gen<'_> {
    pub(super) fn looping(&mut self) {
        self.ariths(0, 2);
        self.loop_stmt(true, 1);
        if self.rng.chance(0.25) {
            self.loop_stmt(true, 0);
        }
        self.final_result();
        self.ret();
    }

    /// A counting loop. Bounds: a constant, `input mod k`, an input clamped to
    /// `0..=K`; with `may_spin`, an input clamped only from above (negative inputs count
    /// down through 2^32) or a count down by 2 from `input mod 8` (odd never hits 0).
    pub(super) fn loop_stmt(&mut self, may_spin: bool, nest: u32) {
        let c = self.keep();
        let kinds: &[u32] = if may_spin {
            &[25, 25, 25, 12, 8]
        } else {
            &[35, 35, 30]
        };
        let kind = self.rng.weighted(kinds);
        let mut step = self.one();
        match kind {
            0 => {
                let n = self.rng.range(0, if nest == 0 { 4 } else { 12 }) as u32;
                self.lis(c, n);
            }
            1 | 4 => {
                let k = if kind == 4 {
                    8
                } else {
                    self.rng.range(2, if nest == 0 { 5 } else { 12 }) as u32
                };
                let kr = self.dest();
                self.lis(kr, k);
                let i = self.input();
                self.op(Op::Divu(i, kr));
                self.op(Op::Mfhi(c));
                if kind == 4 {
                    step = self.dest();
                    self.lis(step, 2);
                    self.reserved.push(step);
                }
            }
            _ => {
                // c = input, then c = min(c, K) and, unless it may spin, max(c, 0).
                let i = self.input();
                self.op(Op::Add(c, i, ZERO));
                let k = self.rng.range(1, 10) as u32;
                let kr = self.dest();
                self.lis(kr, k);
                let t = self.dest();
                let skip = self.fresh("clamp");
                self.op(Op::Slt(t, kr, c));
                self.op(Op::Beq(t, ZERO, skip.clone()));
                self.op(Op::Add(c, kr, ZERO));
                self.label(&skip);
                if kind == 2 {
                    let skip = self.fresh("clamp");
                    self.op(Op::Slt(t, c, ZERO));
                    self.op(Op::Beq(t, ZERO, skip.clone()));
                    self.op(Op::Add(c, ZERO, ZERO));
                    self.label(&skip);
                }
            }
        }
        let acc = self.keep();
        if self.rng.chance(0.5) {
            let s = self.src();
            self.op(Op::Add(acc, s, ZERO));
        } else {
            let v = self.rng.range(0, 3) as u32;
            self.lis(acc, v);
        }
        self.defined(acc);
        let top = self.fresh("loop");
        let done = self.fresh("done");
        let up = kind <= 1 && self.rng.chance(0.4);
        let i = if up {
            let i = self.keep();
            self.op(Op::Add(i, ZERO, ZERO));
            Some(i)
        } else {
            None
        };
        self.label(&top);
        match i {
            Some(i) => self.op(Op::Beq(i, c, done.clone())),
            None => self.op(Op::Beq(c, ZERO, done.clone())),
        }
        for _ in 0..self.rng.range(1, 3) {
            match self.rng.weighted(&[30, 15, 15, 15, 10, 15]) {
                0 => {
                    let s = self.src();
                    self.op(Op::Add(acc, acc, s));
                }
                1 => {
                    let s = self.src();
                    self.op(Op::Sub(acc, acc, s));
                }
                2 => self.op(Op::Add(acc, acc, c)),
                3 => {
                    let s = self.src();
                    self.op(Op::Mult(acc, s));
                    self.op(Op::Mflo(acc));
                }
                4 if nest > 0 => self.loop_stmt(false, nest - 1),
                _ => self.if_stmt(1),
            }
        }
        match i {
            Some(i) => self.op(Op::Add(i, i, step)),
            None => self.op(Op::Sub(c, c, step)),
        }
        self.op(Op::Beq(ZERO, ZERO, top));
        self.label(&done);
        self.release(c);
        self.release(acc);
        self.release(step);
        if let Some(i) = i {
            self.release(i);
        }
        self.defined(acc);
    }
}
