//! The MIPS32 datapath as terms: one function per operation class of
//! `tamarin_mips::mips32::cpu`, computing the same value over the term language. The
//! property tests at the end hold each against the emulator's function on random
//! operands, so the two cannot drift apart.

use tamarin_mips::mips32::isa::{
    AluOp, BitOp, BranchCond, ImmOp, MulDivOp, PartOp, ShiftOp, TrapCond,
};

use crate::term::{BinOp, Term, TermStore};

/// `d = a op b` for the register-register operations (`add`/`sub` without their
/// overflow trap, `movn`/`movz` as `a`: the driver decides whether they write).
pub fn alu(s: &mut TermStore, op: AluOp, a: Term, b: Term) -> Term {
    let amount = |s: &mut TermStore| {
        let m = s.word(31);
        s.bin(BinOp::BvAnd, a, m)
    };
    match op {
        AluOp::Add | AluOp::Addu => s.bin(BinOp::Add, a, b),
        AluOp::Sub | AluOp::Subu => s.bin(BinOp::Sub, a, b),
        AluOp::And => s.bin(BinOp::BvAnd, a, b),
        AluOp::Or => s.bin(BinOp::BvOr, a, b),
        AluOp::Xor => s.bin(BinOp::BvXor, a, b),
        AluOp::Nor => {
            let o = s.bin(BinOp::BvOr, a, b);
            not(s, o)
        }
        AluOp::Slt => less(s, BinOp::Slt, a, b),
        AluOp::Sltu => less(s, BinOp::Ult, a, b),
        AluOp::Sllv => {
            let n = amount(s);
            s.bin(BinOp::Shl, b, n)
        }
        AluOp::Srlv => {
            let n = amount(s);
            s.bin(BinOp::LShr, b, n)
        }
        AluOp::Srav => {
            let n = amount(s);
            s.bin(BinOp::AShr, b, n)
        }
        AluOp::Rotrv => {
            let n = amount(s);
            rotate_right(s, b, n)
        }
        AluOp::Movn | AluOp::Movz => a,
        AluOp::Mul => s.bin(BinOp::Mul, a, b),
    }
}

/// The condition that `add a, b` (or `sub`, with `subtract`) overflows as signed.
pub fn overflows(s: &mut TermStore, subtract: bool, a: Term, b: Term) -> Term {
    let r = if subtract {
        s.bin(BinOp::Sub, a, b)
    } else {
        s.bin(BinOp::Add, a, b)
    };
    let sa = sign(s, a);
    let sb = sign(s, b);
    let sr = sign(s, r);
    // Addition overflows when both operands share a sign the result lacks;
    // subtraction when they differ and the result's sign is not the first's.
    let operands = if subtract { s.ne(sa, sb) } else { s.eq(sa, sb) };
    let flipped = s.ne(sr, sa);
    s.and(operands, flipped)
}

/// `t = a op imm` (`addi` without its trap).
pub fn imm(s: &mut TermStore, op: ImmOp, a: Term, imm: u32) -> Term {
    let k = s.word(imm);
    match op {
        ImmOp::Addi | ImmOp::Addiu => s.bin(BinOp::Add, a, k),
        ImmOp::Slti => less(s, BinOp::Slt, a, k),
        ImmOp::Sltiu => less(s, BinOp::Ult, a, k),
        ImmOp::Andi => s.bin(BinOp::BvAnd, a, k),
        ImmOp::Ori => s.bin(BinOp::BvOr, a, k),
        ImmOp::Xori => s.bin(BinOp::BvXor, a, k),
        ImmOp::Lui => k,
    }
}

/// A shift of `v` by the constant `sa`.
pub fn shift(s: &mut TermStore, op: ShiftOp, v: Term, sa: u32) -> Term {
    let n = s.word(sa & 31);
    match op {
        ShiftOp::Sll => s.bin(BinOp::Shl, v, n),
        ShiftOp::Srl => s.bin(BinOp::LShr, v, n),
        ShiftOp::Sra => s.bin(BinOp::AShr, v, n),
        ShiftOp::Rotr => rotate_right(s, v, n),
    }
}

/// New `(hi, lo)` of a multiply or divide; for a division the caller has split off
/// the zero divisor (where the term's `x / 0` is SMT-LIB's, not the machine's).
pub fn mul_div(
    s: &mut TermStore,
    op: MulDivOp,
    a: Term,
    b: Term,
    hi: Term,
    lo: Term,
) -> (Term, Term) {
    let wide = |s: &mut TermStore, signed: bool| {
        let (x, y) = if signed {
            (s.sign_ext(32, a), s.sign_ext(32, b))
        } else {
            (s.zero_ext(32, a), s.zero_ext(32, b))
        };
        s.bin(BinOp::Mul, x, y)
    };
    let acc = |s: &mut TermStore| s.bin(BinOp::Concat, hi, lo);
    let product = match op {
        MulDivOp::Mult => wide(s, true),
        MulDivOp::Multu => wide(s, false),
        MulDivOp::Madd | MulDivOp::Maddu | MulDivOp::Msub | MulDivOp::Msubu => {
            let signed = matches!(op, MulDivOp::Madd | MulDivOp::Msub);
            let p = wide(s, signed);
            let acc = acc(s);
            if matches!(op, MulDivOp::Madd | MulDivOp::Maddu) {
                s.bin(BinOp::Add, acc, p)
            } else {
                s.bin(BinOp::Sub, acc, p)
            }
        }
        MulDivOp::Div => {
            return (s.bin(BinOp::SRem, a, b), s.bin(BinOp::SDiv, a, b));
        }
        MulDivOp::Divu => {
            return (s.bin(BinOp::URem, a, b), s.bin(BinOp::UDiv, a, b));
        }
    };
    (s.extract(63, 32, product), s.extract(31, 0, product))
}

/// A one-operand bit operation.
pub fn bit(s: &mut TermStore, op: BitOp, v: Term) -> Term {
    match op {
        BitOp::Clz => leading_zeros(s, v),
        BitOp::Clo => {
            let n = not(s, v);
            leading_zeros(s, n)
        }
        BitOp::Seb => {
            let b = s.extract(7, 0, v);
            s.sign_ext(24, b)
        }
        BitOp::Seh => {
            let h = s.extract(15, 0, v);
            s.sign_ext(16, h)
        }
        BitOp::Wsbh => {
            let b = [24, 16, 8, 0].map(|lo| s.extract(lo + 7, lo, v));
            // Bytes 3 2 1 0 become 2 3 0 1.
            let hi = s.bin(BinOp::Concat, b[1], b[0]);
            let lo = s.bin(BinOp::Concat, b[3], b[2]);
            s.bin(BinOp::Concat, hi, lo)
        }
    }
}

/// `ext`: bits `[pos, pos + size)` of `v`, zero-extended.
pub fn extract_bits(s: &mut TermStore, v: Term, pos: u8, size: u8) -> Term {
    let (pos, size) = (pos.min(31), size.clamp(1, 32 - pos.min(31)));
    let f = s.extract(pos + size - 1, pos, v);
    if size == 32 {
        f
    } else {
        s.zero_ext(32 - size, f)
    }
}

/// `ins`: `t` with bits `[pos, pos + size)` taken from the low bits of `v`.
pub fn insert_bits(s: &mut TermStore, t: Term, v: Term, pos: u8, size: u8) -> Term {
    let (pos, size) = (pos.min(31), size.clamp(1, 32 - pos.min(31)));
    let mut out = s.extract(size - 1, 0, v);
    if pos > 0 {
        let low = s.extract(pos - 1, 0, t);
        out = s.bin(BinOp::Concat, out, low);
    }
    if pos + size < 32 {
        let high = s.extract(31, pos + size, t);
        out = s.bin(BinOp::Concat, high, out);
    }
    out
}

/// The unaligned word accesses at byte `k` of the aligned `word`: the register's new
/// value (`lwl`, `lwr`) or the word to store (`swl`, `swr`), big-endian.
pub fn part(s: &mut TermStore, op: PartOp, k: u32, reg: Term, word: Term) -> (Term, Term) {
    let k = (k & 3) as u8;
    // Bits of a word by byte: byte 0 is bits 31..24.
    let bytes = |s: &mut TermStore, w: Term, from: u8, to: u8| -> Option<Term> {
        // Bytes from..to (exclusive) of `w`, as one term.
        (from < to).then(|| s.extract(31 - 8 * from, 32 - 8 * to, w))
    };
    let join = |s: &mut TermStore, a: Option<Term>, b: Option<Term>| match (a, b) {
        (Some(a), Some(b)) => s.bin(BinOp::Concat, a, b),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => unreachable!("a word has bytes"),
    };
    match op {
        PartOp::Lwl => {
            let top = bytes(s, word, k, 4);
            let keep = bytes(s, reg, 4 - k, 4);
            (join(s, top, keep), word)
        }
        PartOp::Lwr => {
            let keep = bytes(s, reg, 0, 3 - k);
            let bottom = bytes(s, word, 0, k + 1);
            (join(s, keep, bottom), word)
        }
        PartOp::Swl => {
            let keep = bytes(s, word, 0, k);
            let top = bytes(s, reg, 0, 4 - k);
            (reg, join(s, keep, top))
        }
        PartOp::Swr => {
            let bottom = bytes(s, reg, 3 - k, 4);
            let keep = bytes(s, word, k + 1, 4);
            (reg, join(s, bottom, keep))
        }
    }
}

/// The condition under which a branch is taken.
pub fn branch_cond(s: &mut TermStore, cond: BranchCond, a: Term, b: Term) -> Term {
    let zero = s.word(0);
    match cond {
        BranchCond::Eq => s.eq(a, b),
        BranchCond::Ne => s.ne(a, b),
        BranchCond::Lez => {
            let gt = s.bin(BinOp::Slt, zero, a);
            s.not(gt)
        }
        BranchCond::Gtz => s.bin(BinOp::Slt, zero, a),
        BranchCond::Ltz => s.bin(BinOp::Slt, a, zero),
        BranchCond::Gez => {
            let lt = s.bin(BinOp::Slt, a, zero);
            s.not(lt)
        }
    }
}

/// The condition under which a trap is taken.
pub fn trap_cond(s: &mut TermStore, cond: TrapCond, a: Term, b: Term) -> Term {
    match cond {
        TrapCond::Eq => s.eq(a, b),
        TrapCond::Ne => s.ne(a, b),
        TrapCond::Ge => {
            let lt = s.bin(BinOp::Slt, a, b);
            s.not(lt)
        }
        TrapCond::Geu => {
            let lt = s.bin(BinOp::Ult, a, b);
            s.not(lt)
        }
        TrapCond::Lt => s.bin(BinOp::Slt, a, b),
        TrapCond::Ltu => s.bin(BinOp::Ult, a, b),
    }
}

fn not(s: &mut TermStore, v: Term) -> Term {
    let ones = s.word(u32::MAX);
    s.bin(BinOp::BvXor, v, ones)
}

fn less(s: &mut TermStore, op: BinOp, a: Term, b: Term) -> Term {
    let c = s.bin(op, a, b);
    let (one, zero) = (s.word(1), s.word(0));
    s.ite(c, one, zero)
}

fn sign(s: &mut TermStore, v: Term) -> Term {
    s.extract(31, 31, v)
}

/// `v` rotated right by `n` (already below 32): `(v >> n) | (v << (32 - n))`, where a
/// shift by 32 gives 0 as SMT-LIB says, so `n = 0` gives `v`.
fn rotate_right(s: &mut TermStore, v: Term, n: Term) -> Term {
    let w = s.word(32);
    let back = s.bin(BinOp::Sub, w, n);
    let r = s.bin(BinOp::LShr, v, n);
    let l = s.bin(BinOp::Shl, v, back);
    s.bin(BinOp::BvOr, r, l)
}

/// The number of leading zero bits of `v`, as a chain of tests from the top bit.
fn leading_zeros(s: &mut TermStore, v: Term) -> Term {
    let mut out = s.word(32);
    for bit in 0..32u8 {
        let b = s.extract(bit, bit, v);
        let one = s.constant(1, 1);
        let set = s.eq(b, one);
        let n = s.word(31 - bit as u32);
        out = s.ite(set, n, out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Evaluator;
    use proptest::prelude::*;
    use tamarin_mips::mips32::cpu as concrete;

    const ALU: [AluOp; 15] = [
        AluOp::Addu,
        AluOp::Subu,
        AluOp::And,
        AluOp::Or,
        AluOp::Xor,
        AluOp::Nor,
        AluOp::Slt,
        AluOp::Sltu,
        AluOp::Sllv,
        AluOp::Srlv,
        AluOp::Srav,
        AluOp::Rotrv,
        AluOp::Mul,
        AluOp::Add,
        AluOp::Sub,
    ];

    /// The term over two inputs, evaluated at `(x, y)`, and folded from constants.
    fn both(build: impl Fn(&mut TermStore, Term, Term) -> Term, x: u32, y: u32) -> (u64, u64) {
        let mut s = TermStore::new();
        let (a, b) = (s.new_var("a", 32), s.new_var("b", 32));
        let t = build(&mut s, a, b);
        let vars = [x as u64, y as u64];
        let evaluated = Evaluator::new(&s, &vars).eval(t);
        let (ka, kb) = (s.word(x), s.word(y));
        let f = build(&mut s, ka, kb);
        let folded = s.as_const(f).expect("constants fold");
        (evaluated, folded)
    }

    fn edge() -> impl Strategy<Value = u32> {
        prop_oneof![
            Just(0u32),
            Just(1),
            Just(31),
            Just(32),
            Just(u32::MAX),
            Just(0x8000_0000),
            Just(0x7fff_ffff),
            any::<u32>()
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn the_datapath_agrees_with_the_emulator(x in edge(), y in edge(), k in 0usize..15,
                                                 sa in 0u32..32, pos in 0u8..32, size in 1u8..33,
                                                 hi in any::<u32>(), lo in any::<u32>()) {
            let op = ALU[k];
            let want = concrete::alu(op, x, y) as u64;
            prop_assert_eq!(both(|s, a, b| alu(s, op, a, b), x, y), (want, want), "{:?}", op);
            for sh in [ShiftOp::Sll, ShiftOp::Srl, ShiftOp::Sra, ShiftOp::Rotr] {
                let want = concrete::shift(sh, x, sa) as u64;
                prop_assert_eq!(both(|s, a, _| shift(s, sh, a, sa), x, y), (want, want), "{:?}", sh);
            }
            for im in [ImmOp::Addiu, ImmOp::Slti, ImmOp::Sltiu, ImmOp::Andi, ImmOp::Ori, ImmOp::Xori, ImmOp::Lui] {
                let want = concrete::imm_op(im, x, y) as u64;
                prop_assert_eq!(both(|s, a, _| imm(s, im, a, y), x, y), (want, want), "{:?}", im);
            }
            for bo in [BitOp::Clz, BitOp::Clo, BitOp::Seb, BitOp::Seh, BitOp::Wsbh] {
                let want = concrete::bit_op(bo, x) as u64;
                prop_assert_eq!(both(|s, a, _| bit(s, bo, a), x, y), (want, want), "{:?}", bo);
            }
            let size = size.min(32 - pos);
            let want = concrete::extract(x, pos, size) as u64;
            prop_assert_eq!(both(|s, a, _| extract_bits(s, a, pos, size), x, y), (want, want));
            let want = concrete::insert(x, y, pos, size) as u64;
            prop_assert_eq!(both(|s, a, b| insert_bits(s, a, b, pos, size), x, y), (want, want));
            for md in [MulDivOp::Mult, MulDivOp::Multu, MulDivOp::Madd, MulDivOp::Maddu,
                       MulDivOp::Msub, MulDivOp::Msubu, MulDivOp::Div, MulDivOp::Divu] {
                if matches!(md, MulDivOp::Div | MulDivOp::Divu) && y == 0 {
                    continue;
                }
                let (h, l) = concrete::mul_div(md, x, y, hi, lo);
                let pick = |first: bool| move |s: &mut TermStore, a: Term, b: Term| {
                    let (th, tl) = (s.word(hi), s.word(lo));
                    let (rh, rl) = mul_div(s, md, a, b, th, tl);
                    if first { rh } else { rl }
                };
                prop_assert_eq!(both(pick(true), x, y), (h as u64, h as u64), "{:?} hi", md);
                prop_assert_eq!(both(pick(false), x, y), (l as u64, l as u64), "{:?} lo", md);
            }
            for po in [PartOp::Lwl, PartOp::Lwr, PartOp::Swl, PartOp::Swr] {
                for kk in 0..4 {
                    let (r, w) = concrete::part(po, kk, x, y);
                    let want = if matches!(po, PartOp::Lwl | PartOp::Lwr) { r } else { w } as u64;
                    let got = both(|s, a, b| {
                        let (r, w) = part(s, po, kk, a, b);
                        if matches!(po, PartOp::Lwl | PartOp::Lwr) { r } else { w }
                    }, x, y);
                    prop_assert_eq!(got, (want, want), "{:?} at byte {}", po, kk);
                }
            }
            for bc in [BranchCond::Eq, BranchCond::Ne, BranchCond::Lez, BranchCond::Gtz, BranchCond::Ltz, BranchCond::Gez] {
                let want = concrete::branch_taken(bc, x, y) as u64;
                prop_assert_eq!(both(|s, a, b| branch_cond(s, bc, a, b), x, y), (want, want), "{:?}", bc);
            }
            for tc in [TrapCond::Eq, TrapCond::Ne, TrapCond::Ge, TrapCond::Geu, TrapCond::Lt, TrapCond::Ltu] {
                let want = concrete::trap_taken(tc, x, y) as u64;
                prop_assert_eq!(both(|s, a, b| trap_cond(s, tc, a, b), x, y), (want, want), "{:?}", tc);
            }
            for sub in [false, true] {
                let want = if sub {
                    (x as i32).checked_sub(y as i32).is_none()
                } else {
                    (x as i32).checked_add(y as i32).is_none()
                } as u64;
                prop_assert_eq!(both(|s, a, b| overflows(s, sub, a, b), x, y), (want, want), "overflow (sub: {})", sub);
            }
        }
    }
}
