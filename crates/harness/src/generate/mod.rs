//! A seeded generator of random CS241 programs: inputs in `$1` and `$2`, the result in
//! `$3`, ending with `jr $31`, in the shapes of [`Shape`].
//!
//! Registers: `$1`, `$2` inputs, `$3` result, `$4`…`$13` temporaries, `$14` holds 4
//! and `$15` holds 1 when a program needs them (loaded first thing), `$16` and `$17`
//! hold addresses and are never read as data, `$30` the stack,
//! `$31` the return address. `$20`…`$27` are never used here: they are the scratch
//! registers of the equal rewrites in [`crate::mutate`].

mod array;
mod loops;
mod memory;
mod output;
mod straight;

use std::fmt;

use serde::{Deserialize, Serialize};
use tamarin::{InputSpec, Observable};

use crate::prog::{Line, Op, Prog, Word, R};
use crate::rng::Rng;

/// The kinds of program the generator makes (in summary files, by [`Shape::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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
        let res = Observable::CS241_RESULT;
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

/// One program being built: the builders of the shapes (a file per family of shapes)
/// are methods on it.
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
