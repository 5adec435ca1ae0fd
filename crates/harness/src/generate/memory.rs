//! Memory: the stack, fixed slots and computed addresses; procedure calls; jump
//! tables.

use super::{Gen, ADDR, ADDR2, RA, RES, SP, ZERO};
use crate::prog::{Line, Op, Word};

impl Gen<'_> {
    pub(super) fn memory(&mut self) {
        self.ariths(0, 2);
        for _ in 0..self.rng.range(1, 3) {
            self.memory_segment();
            self.ariths(0, 2);
        }
        self.final_result();
        self.ret();
    }

    pub(super) fn memory_segment(&mut self) {
        match self.rng.weighted(&[30, 25, 40, 5]) {
            0 => self.push_pop(),
            1 => self.fixed_slots(),
            2 => self.indexed(),
            _ => self.raw_address(),
        }
    }

    /// Pushes some values, clobbers registers, pops them back (maybe elsewhere).
    fn push_pop(&mut self) {
        let four = self.four();
        let mut saved = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let r = self.src();
            self.op(Op::Sub(SP, SP, four));
            self.op(Op::Sw(r, 0, SP));
            saved.push(r);
        }
        for &r in &saved {
            if r.0 != 0 && self.rng.chance(0.5) {
                self.op(Op::Add(r, ZERO, ZERO));
            }
        }
        self.ariths(0, 2);
        while let Some(r) = saved.pop() {
            let d = if r.0 != 0 && self.rng.chance(0.7) {
                self.defined(r);
                r
            } else {
                self.dest()
            };
            self.op(Op::Lw(d, 0, SP));
            self.op(Op::Add(SP, SP, four));
        }
    }

    /// Stores to fixed slots below `$30`, reads them (and maybe one never written).
    fn fixed_slots(&mut self) {
        let mut slots: Vec<i16> = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let off = -4 * self.rng.range(1, 8) as i16;
            let r = self.src();
            self.op(Op::Sw(r, off, SP));
            slots.push(off);
        }
        self.ariths(0, 2);
        for _ in 0..self.rng.range(1, 3) {
            let off = if self.rng.chance(0.85) {
                *self.rng.pick(&slots)
            } else {
                -4 * self.rng.range(1, 8) as i16
            };
            let d = self.dest();
            self.op(Op::Lw(d, off, SP));
        }
    }

    /// `4 * (input mod 16)` (sometimes `2 *`, unaligned when odd) added to a base: a
    /// data area of the program, an empty region, or the stack; stores and loads there.
    fn indexed(&mut self) {
        let idx = self.keep();
        let k = self.dest();
        self.lis(k, 16);
        let i = self.input();
        self.op(Op::Divu(i, k));
        self.op(Op::Mfhi(idx));
        self.op(Op::Add(idx, idx, idx));
        if self.rng.chance(0.9) {
            self.op(Op::Add(idx, idx, idx));
        }
        let base = ADDR;
        match self.rng.below(3) {
            0 => {
                let data = self.fresh("data");
                self.op(Op::Lis(base, Word::Label(data.clone())));
                self.tail.push(Line::Label(data));
                for _ in 0..16 {
                    let v = self.rng.range(-5, 40) as i32 as u32;
                    self.tail.push(Line::Data(Word::Num(v)));
                }
            }
            1 => self.lis(base, 0x2000),
            _ => {
                let k = self.dest();
                self.lis(k, 64);
                self.op(Op::Sub(base, SP, k));
            }
        }
        let addr = ADDR2;
        self.op(Op::Add(addr, idx, base));
        if self.rng.chance(0.75) {
            let v = self.src();
            self.op(Op::Sw(v, 0, addr));
        }
        for _ in 0..self.rng.range(1, 2) {
            let d = self.dest();
            if self.rng.chance(0.6) {
                let off = 4 * self.rng.range(0, 15) as i16;
                self.op(Op::Lw(d, off, base));
            } else {
                self.op(Op::Lw(d, 0, addr));
            }
        }
        self.release(idx);
    }

    /// A load (rarely a store) at an address that is an input: anywhere in memory, the
    /// program included, or a fault.
    fn raw_address(&mut self) {
        self.layout_sensitive = true;
        let a = self.input();
        if self.rng.chance(0.25) {
            let v = self.src();
            self.op(Op::Sw(v, 0, a));
        }
        let d = self.dest();
        self.op(Op::Lw(d, 0, a));
    }

    pub(super) fn call(&mut self) {
        let four = self.four();
        self.ariths(0, 2);
        self.op(Op::Sub(SP, SP, four));
        self.op(Op::Sw(RA, 0, SP));
        let procs: Vec<String> = (0..self.rng.range(1, 2))
            .map(|_| self.fresh("proc"))
            .collect();
        let calls = self.rng.range(1, 2);
        let mut kept = None;
        for n in 0..calls {
            if n > 0 {
                // Keep the first result and change an input between the calls.
                let k = self.keep();
                self.op(Op::Add(k, RES, ZERO));
                kept = Some(k);
                let i = self.input();
                let s = self.src();
                self.op(Op::Add(i, i, s));
            }
            let target = self.rng.pick(&procs).clone();
            self.op(Op::Lis(ADDR, Word::Label(target)));
            self.op(Op::Jalr(ADDR));
            self.defined(RES);
        }
        self.op(Op::Lw(RA, 0, SP));
        self.op(Op::Add(SP, SP, four));
        if let Some(k) = kept {
            if self.rng.chance(0.5) {
                self.op(Op::Add(RES, RES, k));
            } else {
                self.op(Op::Sub(RES, RES, k));
            }
            self.release(k);
        } else if self.rng.chance(0.3) {
            self.final_result();
        }
        self.ret();
        for name in procs {
            let main = std::mem::take(&mut self.lines);
            self.label(&name);
            self.ariths(1, 3);
            if self.rng.chance(0.4) {
                self.if_stmt(1);
            }
            if self.rng.chance(0.2) {
                self.push_pop();
            }
            self.result();
            self.ret();
            let body = std::mem::replace(&mut self.lines, main);
            self.tail.extend(body);
        }
    }

    pub(super) fn jump_table(&mut self) {
        self.ariths(0, 2);
        let k = self.rng.range(2, 5) as u32;
        // One past the table reads the first case's code as an address.
        let modulus = if self.rng.chance(0.05) {
            self.layout_sensitive = true;
            k + 1
        } else {
            k
        };
        let idx = self.keep();
        let kr = self.dest();
        self.lis(kr, modulus);
        let i = self.input();
        self.op(Op::Divu(i, kr));
        self.op(Op::Mfhi(idx));
        self.op(Op::Add(idx, idx, idx));
        self.op(Op::Add(idx, idx, idx));
        let table = self.fresh("table");
        let t = ADDR;
        self.op(Op::Lis(t, Word::Label(table.clone())));
        self.op(Op::Add(t, t, idx));
        self.op(Op::Lw(t, 0, t));
        self.op(Op::Jr(t));
        self.release(idx);
        let ncases = if k > 2 && self.rng.chance(0.3) {
            k - 1
        } else {
            k
        };
        let cases: Vec<String> = (0..ncases).map(|_| self.fresh("case")).collect();
        self.label(&table);
        for n in 0..k as usize {
            let c = cases[n.min(cases.len() - 1)].clone();
            self.lines.push(Line::Data(Word::Label(c)));
        }
        let join = self.fresh("join");
        let mut order: Vec<usize> = (0..cases.len()).collect();
        for n in (1..order.len()).rev() {
            let m = self.rng.below(n + 1);
            order.swap(n, m);
        }
        for &n in &order {
            self.label(&cases[n]);
            self.ariths(0, 2);
            self.result();
            if self.rng.chance(0.7) {
                self.op(Op::Beq(ZERO, ZERO, join.clone()));
            } else {
                self.ret();
            }
        }
        self.label(&join);
        if self.rng.chance(0.5) {
            let s = self.src();
            self.op(Op::Add(RES, RES, s));
        }
        self.ret();
    }
}
