//! Output programs: bytes written to the output address, depending on the inputs.

use super::{Gen, ADDR, ZERO};
use crate::prog::{Op, Word};

impl Gen<'_> {
    /// `sw v, 0($16)`: one byte out (`$16` holds the output address).
    pub(super) fn out(&mut self) {
        let v = self.src();
        self.op(Op::Sw(v, 0, ADDR));
    }

    /// An output program: `$16` holds the output address; blocks, ifs and small
    /// counting loops write bytes of computed values.
    pub(super) fn output_prog(&mut self) {
        self.output = true;
        self.op(Op::Lis(ADDR, Word::Num(0xFFFF_000C)));
        self.ariths(0, 2);
        for _ in 0..self.rng.range(1, 3) {
            match self.rng.weighted(&[30, 35, 25, 10]) {
                0 => {
                    self.arith();
                    self.out();
                }
                1 => {
                    let d = self.rng.range(1, 2) as u32;
                    self.if_stmt(d);
                }
                2 => self.output_loop(),
                _ => {
                    // A byte that is an input unchanged, or an input's comparison.
                    if self.rng.chance(0.5) {
                        let i = self.input();
                        self.op(Op::Sw(i, 0, ADDR));
                    } else {
                        let (a, b) = (self.input(), self.src());
                        let d = self.dest();
                        self.op(Op::Slt(d, a, b));
                        self.op(Op::Sw(d, 0, ADDR));
                    }
                }
            }
        }
        if self.rng.chance(0.3) {
            self.out();
        }
        self.final_result();
        self.ret();
    }

    /// Writes a byte per round, for a constant count or `input mod k` rounds.
    fn output_loop(&mut self) {
        let one = self.one();
        let c = self.keep();
        if self.rng.chance(0.5) {
            let n = self.rng.range(0, 4) as u32;
            self.lis(c, n);
        } else {
            let k = self.rng.range(2, 5) as u32;
            let kr = self.dest();
            self.lis(kr, k);
            let i = self.input();
            self.op(Op::Divu(i, kr));
            self.op(Op::Mfhi(c));
        }
        let acc = self.keep();
        let s = self.src();
        self.op(Op::Add(acc, s, ZERO));
        self.defined(acc);
        let top = self.fresh("oloop");
        let done = self.fresh("odone");
        self.label(&top);
        self.op(Op::Beq(c, ZERO, done.clone()));
        let s = self.src();
        if self.rng.chance(0.5) {
            self.op(Op::Add(acc, acc, s));
        } else {
            self.op(Op::Add(acc, acc, c));
        }
        self.op(Op::Sw(acc, 0, ADDR));
        self.op(Op::Sub(c, c, one));
        self.op(Op::Beq(ZERO, ZERO, top));
        self.label(&done);
        self.release(c);
        self.release(acc);
        self.defined(acc);
    }
}
