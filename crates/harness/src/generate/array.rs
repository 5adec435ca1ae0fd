//! Array programs: `$1` the array's address, `$2` its length; loops over the elements,
//! fixed and computed indices, reads one past the end.

use super::{Gen, Shape, ADDR2, IN1, IN2, RES, ZERO};
use crate::prog::Op;

impl Gen<'_> {
    /// An array program: `$1` is only an address (copied to `$16` and `$17`), `$2` the
    /// length. Memory past the array is zero, so reading one past the end is defined;
    /// nothing is stored into the array or past it.
    pub(super) fn array_prog(&mut self) {
        self.array = true;
        self.pool = vec![IN2];
        self.recent = vec![IN2];
        if self.rng.chance(0.4) {
            self.ariths(1, 2);
        }
        for _ in 0..self.rng.range(1, 2) {
            match self.rng.weighted(&[60, 25, 15]) {
                0 => self.array_loop(),
                1 => self.array_fixed(),
                _ => self.array_indexed(),
            }
            if self.rng.chance(0.3) {
                self.ariths(1, 2);
            }
        }
        self.final_result();
        self.ret();
    }

    /// A loop over the elements: `i` from 0 to the length (sometimes one more), an
    /// accumulator (sum, maximum, count, or an arithmetic mix), maybe an early exit.
    fn array_loop(&mut self) {
        let four = self.four();
        let one = self.one();
        let i = self.keep();
        let acc = self.keep();
        let e = self.keep();
        self.op(Op::Add(i, ZERO, ZERO));
        self.op(Op::Add(ADDR2, IN1, ZERO));
        match self.rng.below(3) {
            0 => self.op(Op::Add(acc, ZERO, ZERO)),
            1 => {
                let c = self.constant();
                self.lis(acc, c);
            }
            _ => {
                let s = self.src();
                self.op(Op::Add(acc, s, ZERO));
            }
        }
        self.defined(acc);
        // The bound: the length, or one past it (the extra element reads as zero).
        let past = self.rng.chance(0.2);
        let bound = if past {
            let b = self.keep();
            self.op(Op::Add(b, IN2, one));
            Some(b)
        } else {
            None
        };
        let top = self.fresh("aloop");
        let done = self.fresh("adone");
        let exit = self.fresh("aexit");
        let mut early = false;
        self.label(&top);
        self.op(Op::Beq(i, bound.unwrap_or(IN2), done.clone()));
        let off = if self.rng.chance(0.1) { 4 } else { 0 };
        self.op(Op::Lw(e, off, ADDR2));
        self.defined(e);
        for _ in 0..self.rng.range(1, 2) {
            match self.rng.weighted(&[30, 20, 20, 10, 10, 10]) {
                0 => self.op(Op::Add(acc, acc, e)),
                1 => {
                    // The maximum (signed or unsigned).
                    let t = self.dest();
                    let skip = self.fresh("amax");
                    if self.rng.chance(0.7) {
                        self.op(Op::Slt(t, acc, e));
                    } else {
                        self.op(Op::Sltu(t, acc, e));
                    }
                    self.op(Op::Beq(t, ZERO, skip.clone()));
                    self.op(Op::Add(acc, e, ZERO));
                    self.label(&skip);
                }
                2 => {
                    // Count the elements below / equal to a constant or the length.
                    let t = self.dest();
                    let k = if self.rng.chance(0.3) {
                        IN2
                    } else {
                        let k = self.dest();
                        let c = self.rng.range(-3, 8) as i32 as u32;
                        self.lis(k, c);
                        k
                    };
                    let skip = self.fresh("acount");
                    if self.rng.chance(0.5) {
                        self.op(Op::Slt(t, e, k));
                        self.op(Op::Beq(t, ZERO, skip.clone()));
                    } else {
                        self.op(Op::Bne(e, k, skip.clone()));
                    }
                    self.op(Op::Add(acc, acc, one));
                    self.label(&skip);
                }
                3 => {
                    // Early exit on an element value.
                    let k = self.dest();
                    let c = if self.rng.chance(0.7) {
                        self.rng.range(-2, 6) as i32 as u32
                    } else {
                        self.constant()
                    };
                    self.lis(k, c);
                    let target = if self.rng.chance(0.5) {
                        early = true;
                        exit.clone()
                    } else {
                        done.clone()
                    };
                    if self.rng.chance(0.7) {
                        self.op(Op::Beq(e, k, target));
                    } else {
                        let t = self.dest();
                        self.op(Op::Slt(t, k, e));
                        self.op(Op::Bne(t, ZERO, target));
                    }
                }
                4 => {
                    let s = self.src();
                    self.op(Op::Mult(acc, s));
                    self.op(Op::Mflo(acc));
                    self.op(Op::Add(acc, acc, e));
                }
                _ => {
                    let s = self.src();
                    self.op(Op::Sub(acc, acc, s));
                    self.op(Op::Add(acc, acc, i));
                }
            }
        }
        self.op(Op::Add(ADDR2, ADDR2, four));
        self.op(Op::Add(i, i, one));
        self.op(Op::Beq(ZERO, ZERO, top));
        if early {
            // The exit returns the index or the element directly.
            let main = std::mem::take(&mut self.lines);
            self.label(&exit);
            let v = if self.rng.chance(0.5) { i } else { e };
            self.op(Op::Add(RES, v, ZERO));
            if self.rng.chance(0.4) {
                self.op(Op::Add(RES, RES, acc));
            }
            self.ret();
            let body = std::mem::replace(&mut self.lines, main);
            self.tail.extend(body);
        }
        self.label(&done);
        self.release(i);
        self.release(acc);
        self.release(e);
        if let Some(b) = bound {
            self.release(b);
        }
        self.defined(i);
        self.defined(acc);
    }

    /// Elements at fixed indices (the first, the second, ...), some guarded by the
    /// length, some not (past the end they read what the memory holds there).
    fn array_fixed(&mut self) {
        for _ in 0..self.rng.range(1, 3) {
            let k = self.rng.range(0, Shape::ARRAY_MAX_LEN as i64) as i16;
            let d = self.dest();
            if self.rng.chance(0.5) {
                // if (k < len) d = a[k] else d = something else.
                let kr = self.dest();
                self.lis(kr, k as u32);
                let t = self.dest();
                let skip = self.fresh("aguard");
                let end = self.fresh("aend");
                self.op(Op::Slt(t, kr, IN2));
                self.op(Op::Beq(t, ZERO, skip.clone()));
                self.op(Op::Lw(d, 4 * k, IN1));
                self.op(Op::Beq(ZERO, ZERO, end.clone()));
                self.label(&skip);
                let s = self.src();
                self.op(Op::Add(d, s, IN2));
                self.label(&end);
            } else {
                self.op(Op::Lw(d, 4 * k, IN1));
            }
            if self.rng.chance(0.5) {
                self.arith();
            }
        }
    }

    /// An element at an index computed from a value (`v mod (max_len + 1)`, so up to
    /// one past the longest array), or the last element of a non-empty array.
    fn array_indexed(&mut self) {
        let idx = self.keep();
        if self.rng.chance(0.6) {
            let k = self.dest();
            self.lis(k, Shape::ARRAY_MAX_LEN + 1);
            let v = self.src();
            self.op(Op::Divu(v, k));
            self.op(Op::Mfhi(idx));
            self.op(Op::Add(idx, idx, idx));
            self.op(Op::Add(idx, idx, idx));
            self.op(Op::Add(ADDR2, IN1, idx));
            let d = self.dest();
            self.op(Op::Lw(d, 0, ADDR2));
        } else {
            // a[len - 1] when len > 0, else a constant.
            let d = self.dest();
            let skip = self.fresh("aempty");
            let end = self.fresh("aend");
            self.op(Op::Beq(IN2, ZERO, skip.clone()));
            self.op(Op::Add(idx, IN2, IN2));
            self.op(Op::Add(idx, idx, idx));
            self.op(Op::Add(ADDR2, IN1, idx));
            self.op(Op::Lw(d, -4, ADDR2));
            self.op(Op::Beq(ZERO, ZERO, end.clone()));
            self.label(&skip);
            let c = self.constant();
            self.lis(d, c);
            self.label(&end);
        }
        self.release(idx);
    }
}
