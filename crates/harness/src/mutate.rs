//! Mutants (one small change that may or may not change the function) and equal
//! rewrites (changes that never change it), so that both disequivalent and equivalent
//! pairs arise.

use crate::prog::{Line, Op, Prog, Word, R};
use crate::rng::Rng;

/// The registers an equal rewrite may clobber: never used by the generator.
pub const SCRATCH: std::ops::RangeInclusive<u8> = 20..=27;

/// Where a rewrite spills a register: far below anything the generator puts on the
/// stack (its slots and pushes stay within 64 bytes below `$30`).
pub const SPILL_OFFSET: i16 = -1000;

const ZERO: R = R(0);

/// Builds a three-register instruction (`add`, `sub`, `slt`, `sltu`).
type ThreeReg = fn(R, R, R) -> Op;
const SP: R = R(30);

fn op_positions(p: &Prog) -> Vec<usize> {
    p.lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| matches!(l, Line::Op(_)).then_some(i))
        .collect()
}

fn op_at(p: &Prog, i: usize) -> &Op {
    match &p.lines[i] {
        Line::Op(op) => op,
        _ => unreachable!("op_positions only returns instructions"),
    }
}

/// Every register field of an instruction, mutable.
fn regs_mut(op: &mut Op) -> Vec<&mut R> {
    match op {
        Op::Add(d, s, t) | Op::Sub(d, s, t) | Op::Slt(d, s, t) | Op::Sltu(d, s, t) => {
            vec![d, s, t]
        }
        Op::Mult(s, t) | Op::Multu(s, t) | Op::Div(s, t) | Op::Divu(s, t) => vec![s, t],
        Op::Mfhi(d) | Op::Mflo(d) | Op::Lis(d, _) | Op::Jr(d) | Op::Jalr(d) => vec![d],
        Op::Lw(t, _, s) | Op::Sw(t, _, s) => vec![t, s],
        Op::Beq(s, t, _) | Op::Bne(s, t, _) => vec![s, t],
    }
}

/// The registers a program mentions, with `$0` to `$3`.
fn registers_of(p: &Prog) -> Vec<R> {
    let mut regs: Vec<R> = (0..4).map(R).collect();
    for line in &p.lines {
        if let Line::Op(op) = line {
            let mut op = op.clone();
            for r in regs_mut(&mut op) {
                if !regs.contains(r) && r.0 != 30 && r.0 != 31 {
                    regs.push(*r);
                }
            }
        }
    }
    regs
}

/// One small change, described. `None` when no change applies or the result does not
/// assemble (a caller retries with another random choice).
pub fn mutate(p: &Prog, rng: &mut Rng) -> Option<(Prog, String)> {
    for _ in 0..20 {
        if let Some(m) = try_mutate(p, rng) {
            if m.0 != *p && m.0.assemble().is_ok() {
                return Some(m);
            }
        }
    }
    None
}

fn try_mutate(p: &Prog, rng: &mut Rng) -> Option<(Prog, String)> {
    let ops = op_positions(p);
    let mut q = p.clone();
    let kind = rng.weighted(&[30, 25, 15, 10, 10, 10]);
    match kind {
        0 => {
            // Opcode swap.
            let swappable: Vec<usize> = ops
                .iter()
                .copied()
                .filter(|&i| {
                    matches!(
                        op_at(p, i),
                        Op::Add(..)
                            | Op::Sub(..)
                            | Op::Slt(..)
                            | Op::Sltu(..)
                            | Op::Mflo(_)
                            | Op::Mfhi(_)
                            | Op::Mult(..)
                            | Op::Multu(..)
                            | Op::Div(..)
                            | Op::Divu(..)
                    )
                })
                .collect();
            let i = *rng.pick_opt(&swappable)?;
            let new = match op_at(p, i).clone() {
                Op::Add(d, s, t) => Op::Sub(d, s, t),
                Op::Sub(d, s, t) => Op::Add(d, s, t),
                Op::Slt(d, s, t) => Op::Sltu(d, s, t),
                Op::Sltu(d, s, t) => Op::Slt(d, s, t),
                Op::Mflo(d) => Op::Mfhi(d),
                Op::Mfhi(d) => Op::Mflo(d),
                Op::Mult(s, t) => Op::Multu(s, t),
                Op::Multu(s, t) => Op::Mult(s, t),
                Op::Div(s, t) => Op::Divu(s, t),
                Op::Divu(s, t) => Op::Div(s, t),
                other => other,
            };
            let what = format!("opcode swap at line {i}: `{}` -> `{new}`", op_at(p, i));
            q.lines[i] = Line::Op(new);
            Some((q, what))
        }
        1 => {
            // One register operand replaced by another register of the program.
            let i = *rng.pick_opt(&ops)?;
            let regs = registers_of(p);
            let mut op = op_at(p, i).clone();
            let before = op.clone();
            {
                let mut fields = regs_mut(&mut op);
                let k = rng.below(fields.len());
                let old = *fields[k];
                let choices: Vec<R> = regs.iter().copied().filter(|&r| r != old).collect();
                *fields[k] = *rng.pick_opt(&choices)?;
            }
            let what = format!("register swap at line {i}: `{before}` -> `{op}`");
            q.lines[i] = Line::Op(op);
            Some((q, what))
        }
        2 => {
            // Off-by-one constant.
            let lis: Vec<usize> = ops
                .iter()
                .copied()
                .filter(|&i| matches!(op_at(p, i), Op::Lis(_, Word::Num(_))))
                .collect();
            let i = *rng.pick_opt(&lis)?;
            let Op::Lis(d, Word::Num(c)) = op_at(p, i).clone() else {
                return None;
            };
            let c2 = if rng.chance(0.5) {
                c.wrapping_add(1)
            } else {
                c.wrapping_sub(1)
            };
            let new = Op::Lis(d, Word::Num(c2));
            let what = format!(
                "constant off by one at line {i}: {} -> {}",
                c as i32, c2 as i32
            );
            q.lines[i] = Line::Op(new);
            Some((q, what))
        }
        3 => {
            // Branch flipped.
            let br: Vec<usize> = ops
                .iter()
                .copied()
                .filter(|&i| matches!(op_at(p, i), Op::Beq(s, t, _) | Op::Bne(s, t, _) if s != t))
                .collect();
            let i = *rng.pick_opt(&br)?;
            let new = match op_at(p, i).clone() {
                Op::Beq(s, t, l) => Op::Bne(s, t, l),
                Op::Bne(s, t, l) => Op::Beq(s, t, l),
                other => other,
            };
            let what = format!("branch flipped at line {i}: `{}` -> `{new}`", op_at(p, i));
            q.lines[i] = Line::Op(new);
            Some((q, what))
        }
        4 => {
            // Deletion (never of a jump: the program keeps its exits).
            let del: Vec<usize> = ops
                .iter()
                .copied()
                .filter(|&i| !matches!(op_at(p, i), Op::Jr(_) | Op::Jalr(_)))
                .collect();
            let i = *rng.pick_opt(&del)?;
            let what = format!("deleted line {i}: `{}`", op_at(p, i));
            q.lines.remove(i);
            Some((q, what))
        }
        _ => {
            // Duplication (not of `jr`, whose copy would be unreachable).
            let dup: Vec<usize> = ops
                .iter()
                .copied()
                .filter(|&i| !matches!(op_at(p, i), Op::Jr(_)))
                .collect();
            let i = *rng.pick_opt(&dup)?;
            let what = format!("duplicated line {i}: `{}`", op_at(p, i));
            q.lines.insert(i + 1, p.lines[i].clone());
            Some((q, what))
        }
    }
}

/// One change that keeps the program's function, described. None for a
/// layout-sensitive program: it may read its own code as data, so even an in-place
/// rewrite (a commuted `add` is another word) can change what it computes.
pub fn rewrite(p: &Prog, rng: &mut Rng) -> Option<(Prog, String)> {
    for _ in 0..20 {
        if let Some(m) = try_rewrite(p, rng) {
            if m.0.assemble().is_ok() {
                return Some(m);
            }
        }
    }
    None
}

/// Up to `n` rewrites in a row; the descriptions of those that applied.
pub fn rewrite_n(p: &Prog, rng: &mut Rng, n: usize) -> (Prog, Vec<String>) {
    let mut q = p.clone();
    let mut what = Vec::new();
    for _ in 0..n {
        if let Some((r, w)) = rewrite(&q, rng) {
            q = r;
            what.push(w);
        }
    }
    (q, what)
}

/// A scratch register the program does not mention yet: each rewrite gets its own, so
/// that no rewrite clobbers another's temporary.
fn scratch(p: &Prog, rng: &mut Rng) -> Option<R> {
    let used = registers_of(p);
    let free: Vec<R> = SCRATCH.map(R).filter(|r| !used.contains(r)).collect();
    rng.pick_opt(&free).copied()
}

fn try_rewrite(p: &Prog, rng: &mut Rng) -> Option<(Prog, String)> {
    if p.layout_sensitive {
        return None;
    }
    let ops = op_positions(p);
    let mut q = p.clone();
    let kind = rng.weighted(&[20, 10, 15, 15, 15, 15, 10]);
    let pick = |rng: &mut Rng, f: &dyn Fn(&Op) -> bool| -> Option<usize> {
        let c: Vec<usize> = ops.iter().copied().filter(|&i| f(op_at(p, i))).collect();
        rng.pick_opt(&c).copied()
    };
    let s1 = scratch(p, rng)?;
    match kind {
        0 => {
            // Commute.
            let i = pick(
                rng,
                &|op| matches!(op, Op::Add(_, s, t) | Op::Mult(s, t) | Op::Multu(s, t) | Op::Beq(s, t, _) | Op::Bne(s, t, _) if s != t),
            )?;
            let new = match op_at(p, i).clone() {
                Op::Add(d, s, t) => Op::Add(d, t, s),
                Op::Mult(s, t) => Op::Mult(t, s),
                Op::Multu(s, t) => Op::Multu(t, s),
                Op::Beq(s, t, l) => Op::Beq(t, s, l),
                Op::Bne(s, t, l) => Op::Bne(t, s, l),
                other => other,
            };
            let what = format!("commuted line {i}: `{}` -> `{new}`", op_at(p, i));
            q.lines[i] = Line::Op(new);
            Some((q, what))
        }
        1 => {
            // x + 0 == x - 0.
            let i = pick(
                rng,
                &|op| matches!(op, Op::Add(_, _, t) | Op::Sub(_, _, t) if *t == ZERO),
            )?;
            let new = match op_at(p, i).clone() {
                Op::Add(d, s, t) => Op::Sub(d, s, t),
                Op::Sub(d, s, t) => Op::Add(d, s, t),
                other => other,
            };
            let what = format!("line {i}: `{}` -> `{new}`", op_at(p, i));
            q.lines[i] = Line::Op(new);
            Some((q, what))
        }
        2 => {
            // s + t == s - (0 - t).
            let i = pick(rng, &|op| matches!(op, Op::Add(..)))?;
            let Op::Add(d, s, t) = op_at(p, i).clone() else {
                return None;
            };
            q.lines.splice(
                i..=i,
                [Line::Op(Op::Sub(s1, ZERO, t)), Line::Op(Op::Sub(d, s, s1))],
            );
            Some((
                q,
                format!(
                    "line {i}: `{}` as a subtraction of the negation",
                    op_at(p, i)
                ),
            ))
        }
        3 => {
            // c == (c - 1) + 1.
            let i = pick(rng, &|op| matches!(op, Op::Lis(_, Word::Num(_))))?;
            let Op::Lis(d, Word::Num(c)) = op_at(p, i).clone() else {
                return None;
            };
            q.lines.splice(
                i..=i,
                [
                    Line::Op(Op::Lis(d, Word::Num(c.wrapping_sub(1)))),
                    Line::Op(Op::Lis(s1, Word::Num(1))),
                    Line::Op(Op::Add(d, d, s1)),
                ],
            );
            Some((
                q,
                format!(
                    "line {i}: constant {} split as ({} + 1)",
                    c as i32,
                    c.wrapping_sub(1) as i32
                ),
            ))
        }
        4 => {
            // Dead code into a scratch register.
            let i = *rng.pick_opt(&ops)?;
            let regs = registers_of(p);
            let a = *rng.pick(&regs);
            let b = *rng.pick(&regs);
            let dead = match rng.below(5) {
                0 => Op::Add(s1, a, b),
                1 => Op::Sub(s1, a, b),
                2 => Op::Slt(s1, a, b),
                3 => Op::Sltu(s1, a, b),
                _ => Op::Lis(s1, Word::Num(rng.next_u32())),
            };
            let what = format!("dead `{dead}` inserted before line {i}");
            q.lines.insert(i, Line::Op(dead));
            Some((q, what))
        }
        5 => {
            // A stack temporary instead of a register.
            let i = pick(rng, &|op| {
                matches!(op, Op::Add(..) | Op::Sub(..) | Op::Slt(..) | Op::Sltu(..))
            })?;
            let (d, s, t, mk): (R, R, R, ThreeReg) = match op_at(p, i).clone() {
                Op::Add(d, s, t) => (d, s, t, Op::Add),
                Op::Sub(d, s, t) => (d, s, t, Op::Sub),
                Op::Slt(d, s, t) => (d, s, t, Op::Slt),
                Op::Sltu(d, s, t) => (d, s, t, Op::Sltu),
                _ => return None,
            };
            if s == SP || t == SP {
                return None;
            }
            let new = if t == s { mk(d, s1, s1) } else { mk(d, s1, t) };
            q.lines.splice(
                i..=i,
                [
                    Line::Op(Op::Sw(s, SPILL_OFFSET, SP)),
                    Line::Op(Op::Lw(s1, SPILL_OFFSET, SP)),
                    Line::Op(new),
                ],
            );
            Some((
                q,
                format!("line {i}: `{}` through a stack temporary", op_at(p, i)),
            ))
        }
        _ => {
            // Repeat an instruction whose repetition changes nothing.
            let i = pick(rng, &|op| match op {
                Op::Add(d, s, t) | Op::Sub(d, s, t) | Op::Slt(d, s, t) | Op::Sltu(d, s, t) => {
                    d != s && d != t
                }
                Op::Mflo(_) | Op::Mfhi(_) | Op::Lis(..) => true,
                _ => false,
            })?;
            q.lines.insert(i + 1, p.lines[i].clone());
            Some((q, format!("line {i}: `{}` repeated", op_at(p, i))))
        }
    }
}

trait PickOpt {
    fn pick_opt<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T>;
}

impl PickOpt for Rng {
    fn pick_opt<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(self.pick(items))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, Shape};

    #[test]
    fn mutants_and_rewrites_assemble() {
        for shape in Shape::ALL {
            for seed in 0..100 {
                let mut rng = Rng::for_item(seed, 100 + shape as u64);
                let p = generate(shape, &mut rng);
                if let Some((m, _)) = mutate(&p, &mut rng) {
                    assert_ne!(m, p);
                    m.assemble().expect("mutant assembles");
                }
                let (r, _) = rewrite_n(&p, &mut rng, 3);
                r.assemble().expect("rewrite assembles");
            }
        }
    }
}
