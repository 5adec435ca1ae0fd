//! Arithmetic, results and branches, and the shapes made of them: straight-line code,
//! nested branches, and mult/div.

use super::{Gen, RA, RES, ZERO};
use crate::prog::{Op, R};

impl Gen<'_> {
    /// One arithmetic group: a single instruction, or mult/div and its moves.
    pub(super) fn arith(&mut self) {
        self.arith_weighted(&[30, 15, 12, 12, 8, 3])
    }

    pub(super) fn arith_weighted(&mut self, w: &[u32]) {
        match self.rng.weighted(w) {
            0 => {
                let (s, t) = (self.src(), self.src());
                let d = self.dest();
                if self.rng.chance(0.5) {
                    self.op(Op::Add(d, s, t));
                } else {
                    self.op(Op::Sub(d, s, t));
                }
            }
            1 => {
                let (s, t) = (self.src(), self.src());
                let d = self.dest();
                if self.rng.chance(0.5) {
                    self.op(Op::Slt(d, s, t));
                } else {
                    self.op(Op::Sltu(d, s, t));
                }
            }
            2 => {
                let c = self.constant();
                let d = self.dest();
                self.lis(d, c);
            }
            3 => {
                let (s, t) = (self.src(), self.src());
                if self.rng.chance(0.5) {
                    self.op(Op::Mult(s, t));
                } else {
                    self.op(Op::Multu(s, t));
                }
                self.moves();
            }
            4 => {
                // By a non-zero constant: never faults.
                let k = *self.rng.pick(&[
                    2u32,
                    3,
                    7,
                    10,
                    16,
                    0xFFFF_FFFF,
                    0xFFFF_FFFE,
                    0x8000_0000,
                    0x7FFF_FFFF,
                ]);
                let s = self.src();
                let kr = self.dest();
                self.lis(kr, k);
                self.divide(s, kr);
                self.moves();
            }
            _ => {
                // By a value: faults when it is zero.
                let (s, t) = (self.src(), self.src());
                self.divide(s, t);
                self.moves();
            }
        }
    }

    fn divide(&mut self, s: R, t: R) {
        if self.rng.chance(0.5) {
            self.op(Op::Div(s, t));
        } else {
            self.op(Op::Divu(s, t));
        }
    }

    /// mflo and/or mfhi after a mult or div.
    fn moves(&mut self) {
        match self.rng.below(3) {
            0 => {
                let d = self.dest();
                self.op(Op::Mflo(d));
            }
            1 => {
                let d = self.dest();
                self.op(Op::Mfhi(d));
            }
            _ => {
                let d = self.dest();
                self.op(Op::Mflo(d));
                let d = self.dest();
                self.op(Op::Mfhi(d));
            }
        }
    }

    pub(super) fn ariths(&mut self, lo: i64, hi: i64) {
        for _ in 0..self.rng.range(lo, hi) {
            self.arith();
        }
    }

    /// Writes `$3` from what the program computed.
    pub(super) fn result(&mut self) {
        let k = self.recent.len();
        let a = match self.recent.last() {
            Some(&r) if self.rng.chance(0.7) => r,
            _ => self.src(),
        };
        let b = if k >= 2 && self.rng.chance(0.5) {
            self.recent[k - 2]
        } else {
            self.src()
        };
        match self.rng.weighted(&[40, 25, 10, 25]) {
            0 => self.op(Op::Add(RES, a, b)),
            1 => self.op(Op::Sub(RES, a, b)),
            2 => self.op(Op::Slt(RES, a, b)),
            _ => self.op(Op::Add(RES, a, ZERO)),
        }
        self.defined(RES);
    }

    /// `$3` from the program's values, sometimes folding in an earlier `$3`.
    pub(super) fn final_result(&mut self) {
        if self.pool.contains(&RES) && self.rng.chance(0.4) {
            let s = self.src();
            self.op(Op::Add(RES, RES, s));
        } else if !(self.pool.contains(&RES) && self.rng.chance(0.2)) {
            self.result();
            // Fold in one more recent value, so that more of the work shows.
            if self.rng.chance(0.5) {
                let k = self.recent.len();
                let from = k.saturating_sub(4);
                let r = self.recent[from + self.rng.below(k - from)];
                if self.rng.chance(0.5) {
                    self.op(Op::Add(RES, RES, r));
                } else {
                    self.op(Op::Sub(RES, RES, r));
                }
            }
        }
    }

    pub(super) fn ret(&mut self) {
        self.op(Op::Jr(RA));
    }

    /// A conditional branch to `target`: register against register, a comparison
    /// against zero, or an input against a constant.
    fn cond_branch(&mut self, target: &str) {
        let eq = self.rng.chance(0.5);
        let (s, t) = match self.rng.below(3) {
            0 => (self.src(), self.src()),
            1 => {
                let (a, b) = (self.src(), self.src());
                let d = self.dest();
                if self.rng.chance(0.6) {
                    self.op(Op::Slt(d, a, b));
                } else {
                    self.op(Op::Sltu(d, a, b));
                }
                (d, ZERO)
            }
            _ => {
                let c = if self.rng.chance(0.7) {
                    self.rng.range(-3, 12) as i32 as u32
                } else {
                    self.constant()
                };
                let k = self.dest();
                self.lis(k, c);
                let i = self.input();
                (i, k)
            }
        };
        let target = target.to_string();
        if eq {
            self.op(Op::Beq(s, t, target));
        } else {
            self.op(Op::Bne(s, t, target));
        }
    }

    /// if / if-else / if with an early return, blocks nested up to `depth`.
    pub(super) fn if_stmt(&mut self, depth: u32) {
        let else_l = self.fresh("else");
        self.cond_branch(&else_l);
        self.block(depth.saturating_sub(1));
        match self.rng.weighted(&[45, 35, 20]) {
            0 => {
                let end_l = self.fresh("endif");
                self.op(Op::Beq(ZERO, ZERO, end_l.clone()));
                self.label(&else_l);
                self.block(depth.saturating_sub(1));
                self.label(&end_l);
            }
            1 => self.label(&else_l),
            _ => {
                self.result();
                self.ret();
                self.label(&else_l);
            }
        }
    }

    fn block(&mut self, depth: u32) {
        for _ in 0..self.rng.range(1, 3) {
            if depth > 0 && self.rng.chance(0.35) {
                self.if_stmt(depth);
            } else {
                self.arith();
            }
            if self.output && self.rng.chance(0.35) {
                self.out();
            }
            if self.rng.chance(0.2) {
                self.result();
            }
        }
    }

    pub(super) fn straight(&mut self) {
        self.ariths(3, 12);
        self.final_result();
        self.ret();
    }

    pub(super) fn branching(&mut self) {
        self.ariths(0, 3);
        for _ in 0..self.rng.range(1, 2) {
            let depth = self.rng.range(1, 3) as u32;
            self.if_stmt(depth);
        }
        self.ariths(0, 2);
        self.final_result();
        self.ret();
    }

    pub(super) fn mult_div(&mut self) {
        for _ in 0..self.rng.range(2, 6) {
            match self.rng.below(4) {
                0 => {
                    // Guarded division by a value.
                    let (s, t) = (self.src(), self.src());
                    let skip = self.fresh("nodiv");
                    self.op(Op::Beq(t, ZERO, skip.clone()));
                    self.divide(s, t);
                    self.moves();
                    self.label(&skip);
                }
                1 => {
                    // INT_MIN / -1 territory.
                    let k = self.dest();
                    self.lis(k, 0xFFFF_FFFF);
                    let i = self.src();
                    self.divide(i, k);
                    self.moves();
                }
                _ => self.arith_weighted(&[10, 5, 5, 30, 20, 20]),
            }
        }
        self.final_result();
        self.ret();
    }
}
