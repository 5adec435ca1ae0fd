//! A seeded generator of random CS241 programs: inputs in `$1` and `$2`, the result in
//! `$3`, ending with `jr $31`, in the shapes of [`Shape`].
//!
//! Registers: `$1`, `$2` inputs, `$3` result, `$4`…`$13` temporaries, `$14` holds 4
//! and `$15` holds 1 when a program needs them (loaded first thing), `$16` and `$17`
//! hold addresses and are never read as data, `$30` the stack,
//! `$31` the return address. `$20`…`$27` are never used here: they are the scratch
//! registers of the equal rewrites in [`crate::mutate`].

use std::fmt;

use tamarin::io::{InputSpec, Observable};
use tamarin_mips::Reg;

use crate::prog::{Line, Op, Prog, Word, R};
use crate::rng::Rng;

/// The kinds of program the generator makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// add, sub, slt, sltu, mult/multu and div/divu with mflo/mfhi, lis constants.
    Straight,
    /// Forward `beq`/`bne` over blocks, nested, some with early returns.
    Branch,
    /// Counting loops with small bounds (constants, `input mod k`, clamped inputs);
    /// a few shapes do not terminate for some inputs.
    Loop,
    /// The stack (push/pop, fixed slots) and addresses computed from the inputs.
    Memory,
    /// Heavy on mult/div, division by an input included (which can fault).
    MultDiv,
    /// Procedure calls through `lis`/`.word label`/`jalr`, `$31` saved on the stack.
    Call,
    /// Computed jumps: a jump table indexed by an input modulo its size.
    JumpTable,
    /// Several of the above in a row.
    Mixed,
    /// Takes an array (`$1` its address, `$2` its length; the array frontend): loops
    /// over the elements (sums, maxima, counts, early exits), sometimes one past the
    /// end (whatever the memory holds there: zero, image data or code, as the pair's
    /// [`crate::pair::Placement`] has it), comparisons against the length. `$1` is
    /// only ever an address.
    Array,
    /// Writes bytes to the output address depending on the inputs (compared with the
    /// output observed as well as `$3`).
    Output,
}

impl Shape {
    pub const ALL: [Shape; 10] = [
        Shape::Straight,
        Shape::Branch,
        Shape::Loop,
        Shape::Memory,
        Shape::MultDiv,
        Shape::Call,
        Shape::JumpTable,
        Shape::Mixed,
        Shape::Array,
        Shape::Output,
    ];

    /// The most elements of an array input ([`Shape::Array`]).
    pub const ARRAY_MAX_LEN: u32 = 4;

    /// How the inputs enter this shape's programs.
    pub fn input_spec(self) -> InputSpec {
        match self {
            Shape::Array => InputSpec::Array {
                max_len: Shape::ARRAY_MAX_LEN,
                base: None,
            },
            _ => InputSpec::default(),
        }
    }

    /// What a comparison of this shape's programs observes.
    pub fn observables(self) -> Vec<Observable> {
        let res = Observable::Reg(Reg::from_bits(3));
        match self {
            Shape::Output => vec![res, Observable::Output],
            _ => vec![res],
        }
    }

    /// The shape named `name` (as [`Shape::name`] writes it).
    pub fn from_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Shape::Straight => "straight",
            Shape::Branch => "branch",
            Shape::Loop => "loop",
            Shape::Memory => "memory",
            Shape::MultDiv => "mult-div",
            Shape::Call => "call",
            Shape::JumpTable => "jump-table",
            Shape::Mixed => "mixed",
            Shape::Array => "array",
            Shape::Output => "output",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The fewest and most instructions of a generated program.
pub const MIN_OPS: usize = 5;
pub const MAX_OPS: usize = 60;

const ZERO: R = R(0);
const IN1: R = R(1);
const IN2: R = R(2);
const RES: R = R(3);
const FOUR: R = R(14);
const ONE: R = R(15);
/// Addresses (of a procedure, a table, a data area, an entry of one) live only in
/// these two: the generator never reads them as data, so that no result depends on
/// where the code lies (an equal rewrite that moves code must not change the function).
const ADDR: R = R(16);
const ADDR2: R = R(17);
const SP: R = R(30);
const RA: R = R(31);
const TEMPS: std::ops::RangeInclusive<u8> = 4..=13;

/// Constants that make arithmetic interesting.
const EDGE_CONSTANTS: [u32; 15] = [
    0,
    1,
    0xFFFF_FFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    2,
    3,
    4,
    7,
    10,
    16,
    0xFFFF,
    0x8000,
    0x7FFF,
    0xFFFF_FFFE,
];

/// Generates one program of `shape` (5 to 60 instructions).
pub fn generate(shape: Shape, rng: &mut Rng) -> Prog {
    let mut last = None;
    for _ in 0..64 {
        let p = Gen::new(rng).program(shape);
        let n = p.op_count();
        if (MIN_OPS..=MAX_OPS).contains(&n) {
            return p;
        }
        last = Some(p);
    }
    // Practically unreachable; a program of the wrong size is still a valid program.
    last.unwrap_or_else(|| Gen::new(rng).program(Shape::Straight))
}

struct Gen<'a> {
    rng: &'a mut Rng,
    lines: Vec<Line>,
    /// Procedures, tables and data areas, placed after the main program.
    tail: Vec<Line>,
    labels: u32,
    /// Registers that hold a value worth reading.
    pool: Vec<R>,
    /// The most recently written registers, newest last.
    recent: Vec<R>,
    /// Registers a temporary may not be (a live loop counter, an index).
    reserved: Vec<R>,
    uses_four: bool,
    uses_one: bool,
    layout_sensitive: bool,
    /// An array program: `$1` is an address, never data, and never an input to read.
    array: bool,
    /// An output program: blocks may write bytes to the output address in `$16`.
    output: bool,
}

impl<'a> Gen<'a> {
    fn new(rng: &'a mut Rng) -> Gen<'a> {
        Gen {
            rng,
            lines: Vec::new(),
            tail: Vec::new(),
            labels: 0,
            pool: vec![IN1, IN2],
            recent: vec![IN1, IN2],
            reserved: Vec::new(),
            uses_four: false,
            uses_one: false,
            layout_sensitive: false,
            array: false,
            output: false,
        }
    }

    fn program(mut self, shape: Shape) -> Prog {
        match shape {
            Shape::Straight => self.straight(),
            Shape::Branch => self.branching(),
            Shape::Loop => self.looping(),
            Shape::Memory => self.memory(),
            Shape::MultDiv => self.mult_div(),
            Shape::Call => self.call(),
            Shape::JumpTable => self.jump_table(),
            Shape::Mixed => self.mixed(),
            Shape::Array => self.array_prog(),
            Shape::Output => self.output_prog(),
        }
        self.finish()
    }

    fn finish(self) -> Prog {
        let mut lines = Vec::new();
        if self.uses_four {
            lines.push(Line::Op(Op::Lis(FOUR, Word::Num(4))));
        }
        if self.uses_one {
            lines.push(Line::Op(Op::Lis(ONE, Word::Num(1))));
        }
        lines.extend(self.lines);
        lines.extend(self.tail);
        Prog {
            lines,
            layout_sensitive: self.layout_sensitive,
        }
    }

    // ---- building blocks -----------------------------------------------------------

    fn op(&mut self, op: Op) {
        self.lines.push(Line::Op(op));
    }

    fn label(&mut self, l: &str) {
        self.lines.push(Line::Label(l.to_string()));
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.labels += 1;
        format!("{prefix}{}", self.labels)
    }

    fn four(&mut self) -> R {
        self.uses_four = true;
        FOUR
    }

    fn one(&mut self) -> R {
        self.uses_one = true;
        ONE
    }

    fn input(&mut self) -> R {
        if self.array {
            return IN2;
        }
        if self.rng.chance(0.5) {
            IN1
        } else {
            IN2
        }
    }

    /// A register to read: recent values are preferred so that results depend on
    /// much of the computation.
    fn src(&mut self) -> R {
        if self.rng.chance(0.05) {
            return ZERO;
        }
        if self.rng.chance(0.5) && !self.recent.is_empty() {
            let k = self.recent.len();
            let from = k.saturating_sub(3);
            return self.recent[from + self.rng.below(k - from)];
        }
        *self.rng.pick(&self.pool)
    }

    /// A register to write: a fresh temporary, a used one, rarely an input.
    fn dest(&mut self) -> R {
        let free: Vec<R> = TEMPS
            .map(R)
            .filter(|r| !self.reserved.contains(r) && !self.pool.contains(r))
            .collect();
        let used: Vec<R> = self
            .pool
            .iter()
            .copied()
            .filter(|r| TEMPS.contains(&r.0) && !self.reserved.contains(r))
            .collect();
        let r = if !self.array && self.rng.chance(0.08) {
            self.input()
        } else if !free.is_empty() && (used.len() < 3 || self.rng.chance(0.75)) {
            *self.rng.pick(&free)
        } else if !used.is_empty() {
            *self.rng.pick(&used)
        } else {
            *self.rng.pick(&free)
        };
        self.defined(r);
        r
    }

    /// A fresh temporary for a value the caller keeps (counter, index, address).
    fn keep(&mut self) -> R {
        let free: Vec<R> = TEMPS
            .map(R)
            .filter(|r| !self.reserved.contains(r))
            .collect();
        let r = *self.rng.pick(&free);
        self.reserved.push(r);
        if !self.pool.contains(&r) {
            self.pool.push(r);
        }
        r
    }

    fn release(&mut self, r: R) {
        self.reserved.retain(|&x| x != r);
    }

    fn defined(&mut self, r: R) {
        if !self.pool.contains(&r) {
            self.pool.push(r);
        }
        self.recent.push(r);
        if self.recent.len() > 6 {
            self.recent.remove(0);
        }
    }

    fn constant(&mut self) -> u32 {
        match self.rng.weighted(&[40, 40, 20]) {
            0 => *self.rng.pick(&EDGE_CONSTANTS),
            1 => self.rng.range(-20, 20) as i32 as u32,
            _ => self.rng.next_u32(),
        }
    }

    fn lis(&mut self, d: R, value: u32) {
        self.op(Op::Lis(d, Word::Num(value)));
    }

    /// One arithmetic group: a single instruction, or mult/div and its moves.
    fn arith(&mut self) {
        self.arith_weighted(&[30, 15, 12, 12, 8, 3])
    }

    fn arith_weighted(&mut self, w: &[u32]) {
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

    fn ariths(&mut self, lo: i64, hi: i64) {
        for _ in 0..self.rng.range(lo, hi) {
            self.arith();
        }
    }

    /// Writes `$3` from what the program computed.
    fn result(&mut self) {
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
    fn final_result(&mut self) {
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

    fn ret(&mut self) {
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
    fn if_stmt(&mut self, depth: u32) {
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

    // ---- shapes ---------------------------------------------------------------------

    fn straight(&mut self) {
        self.ariths(3, 12);
        self.final_result();
        self.ret();
    }

    fn branching(&mut self) {
        self.ariths(0, 3);
        for _ in 0..self.rng.range(1, 2) {
            let depth = self.rng.range(1, 3) as u32;
            self.if_stmt(depth);
        }
        self.ariths(0, 2);
        self.final_result();
        self.ret();
    }

    fn looping(&mut self) {
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
    fn loop_stmt(&mut self, may_spin: bool, nest: u32) {
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

    fn memory(&mut self) {
        self.ariths(0, 2);
        for _ in 0..self.rng.range(1, 3) {
            self.memory_segment();
            self.ariths(0, 2);
        }
        self.final_result();
        self.ret();
    }

    fn memory_segment(&mut self) {
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

    fn mult_div(&mut self) {
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

    fn call(&mut self) {
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

    fn jump_table(&mut self) {
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

    // ---- array and output shapes -----------------------------------------------------

    /// `sw v, 0($16)`: one byte out (`$16` holds the output address).
    fn out(&mut self) {
        let v = self.src();
        self.op(Op::Sw(v, 0, ADDR));
    }

    /// An array program: `$1` is only an address (copied to `$16` and `$17`), `$2` the
    /// length. Memory past the array is zero, so reading one past the end is defined;
    /// nothing is stored into the array or past it.
    fn array_prog(&mut self) {
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

    /// An output program: `$16` holds the output address; blocks, ifs and small
    /// counting loops write bytes of computed values.
    fn output_prog(&mut self) {
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

    fn mixed(&mut self) {
        self.ariths(1, 2);
        for _ in 0..self.rng.range(2, 3) {
            match self.rng.below(4) {
                0 => {
                    let d = self.rng.range(1, 2) as u32;
                    self.if_stmt(d);
                }
                1 => self.loop_stmt(false, 0),
                2 => self.memory_segment(),
                _ => self.arith_weighted(&[0, 0, 0, 50, 40, 10]),
            }
        }
        self.final_result();
        self.ret();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_assembles_within_size() {
        for shape in Shape::ALL {
            for seed in 0..200 {
                let mut rng = Rng::for_item(seed, shape as u64);
                let p = generate(shape, &mut rng);
                let n = p.op_count();
                assert!(
                    (MIN_OPS..=MAX_OPS).contains(&n),
                    "{shape}: {n} ops\n{}",
                    p.text()
                );
                p.assemble()
                    .unwrap_or_else(|e| panic!("{shape} seed {seed}:\n{}\n{e}", p.text()));
                assert!(p.lines.contains(&Line::Op(Op::Jr(RA))));
            }
        }
    }
}
