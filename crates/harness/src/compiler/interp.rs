//! A tiny interpreter of the [`source`](super::source) AST: the third oracle, that
//! both code generators are tested against (a test of the generators, not of the tool).
//!
//! Semantics are the machine's: 32-bit wrapping arithmetic, truncating signed division
//! and remainder (`i32::MIN / -1` wraps, as `div` does), division by zero a fault
//! (which ends the run: both compilations fault, and a fault on both sides is never a
//! difference, so the output before it does not matter), `println` the bytes print
//! writes. Pointers are offsets in words into wain's array: they never leave the
//! array's range `0..=len` and are compared only with each other, so comparing offsets
//! is comparing the addresses unsigned.

use super::source::{BinOp, Expr, Frontend, Program, Stmt, Ty, NULL};

/// How a run of the interpreter ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `wain` returned `ret` (the final `$3`) after writing `output`.
    Done { ret: u32, output: Vec<u8> },
    /// A division or remainder by zero.
    DivisionByZero,
    /// The program broke a promise of the generator (an access out of the array, a
    /// runaway loop): a bug of the generator.
    Broken(String),
}

/// The inputs of a run: `$1`, `$2`, or an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inputs {
    Ints(u32, u32),
    Array(Vec<u32>),
}

struct Stop(Ending);

struct Interp<'a> {
    prog: &'a Program,
    array: Vec<i32>,
    output: Vec<u8>,
    /// Statements and calls left before the run counts as runaway.
    budget: u64,
}

/// Runs `prog` on `inputs`.
pub fn run(prog: &Program, inputs: &Inputs) -> Ending {
    let (a, b, array) = match (prog.frontend, inputs) {
        (Frontend::TwoInts, Inputs::Ints(a, b)) => (*a as i32, *b as i32, Vec::new()),
        (Frontend::Array, Inputs::Array(v)) => {
            (0, v.len() as i32, v.iter().map(|&x| x as i32).collect())
        }
        _ => return Ending::Broken("inputs of the wrong frontend".into()),
    };
    let mut it = Interp {
        prog,
        array,
        output: Vec::new(),
        budget: 1_000_000,
    };
    match it.call(&prog.wain, a, b, 0) {
        Ok(ret) => Ending::Done {
            ret: ret as u32,
            output: it.output,
        },
        Err(Stop(e)) => e,
    }
}

/// The bytes print writes for `n`: signed decimal and a newline.
pub fn print_bytes(n: i32) -> Vec<u8> {
    format!("{n}\n").into_bytes()
}

impl Interp<'_> {
    fn tick(&mut self) -> Result<(), Stop> {
        if self.budget == 0 {
            return Err(Stop(Ending::Broken("runaway program".into())));
        }
        self.budget -= 1;
        Ok(())
    }

    fn call(&mut self, p: &super::source::Proc, x: i32, y: i32, depth: usize) -> Result<i32, Stop> {
        self.tick()?;
        if depth > 64 {
            return Err(Stop(Ending::Broken("runaway recursion".into())));
        }
        let mut vars = vec![x, y];
        for ((_, ty), &init) in p.vars[2..].iter().zip(&p.inits) {
            vars.push(if *ty == Ty::Ptr { NULL } else { init });
        }
        self.block(&p.body, &mut vars, depth)?;
        self.expr(&p.ret, &mut vars, depth)
    }

    fn block(&mut self, body: &[Stmt], vars: &mut Vec<i32>, depth: usize) -> Result<(), Stop> {
        for s in body {
            self.stmt(s, vars, depth)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, vars: &mut Vec<i32>, depth: usize) -> Result<(), Stop> {
        self.tick()?;
        match s {
            Stmt::Assign(v, e) => {
                let x = self.expr(e, vars, depth)?;
                vars[*v] = x;
            }
            Stmt::Store(p, e) => {
                let at = self.expr(p, vars, depth)?;
                let x = self.expr(e, vars, depth)?;
                let slot = self.slot(at)?;
                self.array[slot] = x;
            }
            Stmt::Print(e) => {
                let x = self.expr(e, vars, depth)?;
                self.output.extend(print_bytes(x));
            }
            Stmt::If(c, t, e) => {
                let l = self.expr(&c.left, vars, depth)?;
                let r = self.expr(&c.right, vars, depth)?;
                if c.op.holds(l, r, false) {
                    self.block(t, vars, depth)?;
                } else {
                    self.block(e, vars, depth)?;
                }
            }
            Stmt::While(c, b) => loop {
                self.tick()?;
                let l = self.expr(&c.left, vars, depth)?;
                let r = self.expr(&c.right, vars, depth)?;
                // Pointer offsets are in 0..=len: signed order is their unsigned order.
                if !c.op.holds(l, r, false) {
                    break;
                }
                self.block(b, vars, depth)?;
            },
        }
        Ok(())
    }

    fn slot(&self, at: i32) -> Result<usize, Stop> {
        if at < 0 || at as usize >= self.array.len() {
            return Err(Stop(Ending::Broken(format!(
                "access to word {at} of an array of {}",
                self.array.len()
            ))));
        }
        Ok(at as usize)
    }

    fn expr(&mut self, e: &Expr, vars: &mut Vec<i32>, depth: usize) -> Result<i32, Stop> {
        Ok(match e {
            Expr::Num(n) => *n,
            Expr::Var(v) => vars[*v],
            Expr::Bin(op, l, r) => {
                let a = self.expr(l, vars, depth)?;
                let b = self.expr(r, vars, depth)?;
                match op {
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::Div | BinOp::Rem if b == 0 => return Err(Stop(Ending::DivisionByZero)),
                    BinOp::Div => a.wrapping_div(b),
                    BinOp::Rem => a.wrapping_rem(b),
                }
            }
            Expr::PtrAdd(p, i) => {
                let a = self.expr(p, vars, depth)?;
                let b = self.expr(i, vars, depth)?;
                a.wrapping_add(b)
            }
            Expr::Deref(p) => {
                let at = self.expr(p, vars, depth)?;
                self.array[self.slot(at)?]
            }
            Expr::Call(k, x, y) => {
                let a = self.expr(x, vars, depth)?;
                let b = self.expr(y, vars, depth)?;
                let prog = self.prog;
                self.call(&prog.helpers[*k], a, b, depth + 1)?
            }
        })
    }
}
