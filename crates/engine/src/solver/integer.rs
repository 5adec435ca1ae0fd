//! A query asked in integers ([`crate::term::integer_script`]): for nonlinear checks
//! that bit-blasting leaves undecided (products of unknowns, quotients, facts that
//! hold without wrap-around).
//!
//! `unsat` of the integer query is `unsat` of the original (the translation allows
//! every behaviour of the machine). A model is kept only where the inputs' values it
//! gives satisfy the original query when evaluated on the machine's terms: the
//! translation's opaque terms may make a model that is no machine's, and such a
//! model is reported as unknown, never as `sat`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use z3::{Params, SatResult};

use super::z3::{fresh_context, in_context, InFlight};
use super::{Answer, Model, INTERRUPTED};
use crate::term::products::opaque_formulas;
use crate::term::{
    integer_script, smtlib_script_with, Evaluator, Formula, Names, Products, Term, TermStore,
};

/// What bounds a query in integers: `work` resource units (a count, so that the
/// answer is the same on any load), a time limit, and the flag that interrupts the
/// comparison (Ctrl-C), which ends the query at once.
#[derive(Clone, Copy, Debug)]
pub struct IntegerLimits {
    pub work: u32,
    pub time: Duration,
    pub interrupt: Option<&'static AtomicBool>,
}

impl IntegerLimits {
    /// `work` units within `time`, with no interrupt (the solver chain's
    /// [`super::DeadlineSolver`] adds the comparison's).
    pub fn new(work: u32, time: Duration) -> IntegerLimits {
        IntegerLimits {
            work,
            time,
            interrupt: None,
        }
    }
}

/// Asks Z3 whether `assertions` hold together, in integers, within `limits`.
/// Callers with a solver chain ask through [`super::Solver::check_in_integers`], which
/// adds the chain's input bounds, deadline and interrupt.
pub fn check_in_integers(
    store: &mut TermStore,
    assertions: &[Term],
    limits: IntegerLimits,
) -> Answer {
    let interrupted = || limits.interrupt.is_some_and(|f| f.load(Ordering::Relaxed));
    if interrupted() {
        return Answer::Unknown(INTERRUPTED.into());
    }
    let formulas: Vec<Formula> = assertions.iter().map(|&t| Formula::Term(t)).collect();
    let Some(text) = integer_script(store, &[], &formulas, "", Names::Indexed) else {
        return Answer::Unknown("the query has no integer form".into());
    };
    let vars = store.var_count();
    let values = solve_text(&text, "QF_NIA", limits, |solver| {
        let model = solver.get_model().ok_or("sat without a model")?;
        Ok((0..vars)
            .map(|i| {
                let v = z3::ast::Int::new_const(format!("v{i}"));
                model.eval(&v, true).and_then(|v| v.as_u64()).unwrap_or(0)
            })
            .collect::<Vec<u64>>())
    });
    match values {
        Ok(None) => Answer::Unsat,
        Err(why) if why == INTERRUPTED => Answer::Unknown(why),
        Err(why) => Answer::Unknown(format!("in integers: {why}")),
        Ok(Some(values)) => {
            let mut e = Evaluator::new(store, &values);
            if assertions.iter().all(|&t| e.holds(t)) {
                Answer::Sat(Model { values })
            } else {
                Answer::Unknown(
                    "in integers: a model that the machine's terms do not satisfy".into(),
                )
            }
        }
    }
}

/// Asks Z3 whether `assertions` are unsatisfiable with their products opaque
/// ([`crate::term::Products::Opaque`], logic `QF_UFBV`) and the instances of the lemmas
/// about products asserted ([`crate::term::products`]), within `limits`: for a query
/// over a degree-2 fact that neither bit-blasting nor the integers settle. Only
/// `unsat` is an answer: a model gives the products values that no machine computes.
/// Callers with a solver chain ask through [`super::Solver::check_opaque`].
pub fn check_opaque(store: &mut TermStore, assertions: &[Term], limits: IntegerLimits) -> Answer {
    let formulas: Vec<Formula> = assertions.iter().map(|&t| Formula::Term(t)).collect();
    let Some(opaque) = opaque_formulas(store, &[], &formulas) else {
        return Answer::Unknown("no triangle to make opaque".into());
    };
    let text = smtlib_script_with(store, &[], &opaque, "", Products::Opaque);
    match solve_text(&text, "QF_UFBV", limits, |_| Ok(())) {
        Ok(None) => Answer::Unsat,
        Ok(Some(())) => Answer::Unknown("with opaque products: a model of the lemmas only".into()),
        Err(why) if why == INTERRUPTED => Answer::Unknown(why),
        Err(why) => Answer::Unknown(format!("with opaque products: {why}")),
    }
}

/// Solves `text` in a fresh Z3 context for `logic` within `limits`: `None` when
/// unsatisfiable, else what `on_sat` reads off the solver; why not where Z3 gave
/// no answer.
fn solve_text<T>(
    text: &str,
    logic: &str,
    limits: IntegerLimits,
    on_sat: impl FnOnce(&z3::Solver) -> Result<T, String>,
) -> Result<Option<T>, String> {
    let interrupted = || limits.interrupt.is_some_and(|f| f.load(Ordering::Relaxed));
    if interrupted() {
        return Err(INTERRUPTED.into());
    }
    let ctx = fresh_context().ok_or("no Z3 context")?;
    in_context(&ctx, || {
        let solver = z3::Solver::new_for_logic(logic).unwrap_or_default();
        let mut p = Params::new();
        p.set_u32("rlimit", limits.work);
        p.set_u32(
            "timeout",
            limits.time.as_millis().clamp(1, u32::MAX as u128) as u32,
        );
        solver.set_params(&p);
        solver.from_string(text);
        let watched = limits.interrupt.map(InFlight::new);
        let result = solver.check();
        drop(watched);
        match result {
            SatResult::Unsat => Ok(None),
            SatResult::Unknown if interrupted() => Err(INTERRUPTED.into()),
            SatResult::Unknown => Err(solver.get_reason_unknown().unwrap_or_default()),
            SatResult::Sat => on_sat(&solver).map(Some),
        }
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::term::lift::planted;
    use crate::term::BinOp;

    /// One step of building a term over two 8-bit inputs.
    #[derive(Clone, Debug)]
    enum Step {
        Const(u64),
        Bin(usize, usize, usize),
        /// A shift or mask by a constant.
        ByConst(usize, usize, u64),
        Ite(usize, usize, usize, usize),
        /// Widened by zero or sign extension, worked on at 16 bits, and cut back.
        Wide(bool, usize, usize, usize),
        /// An equality (or inequality) test through `xor`, as compilers write it.
        Xor(u8, usize, usize),
    }

    /// Operators the translation says exactly, then those it leaves opaque.
    const EXACT: [BinOp; 5] = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::UDiv, BinOp::URem];
    const OPAQUE: [BinOp; 4] = [BinOp::BvOr, BinOp::BvXor, BinOp::SDiv, BinOp::SRem];
    const BY_CONST: [BinOp; 4] = [BinOp::Shl, BinOp::LShr, BinOp::AShr, BinOp::BvAnd];
    const MASKS: [u64; 5] = [0x0f, 0xf0, 0xff, 0x01, 0xfe];

    fn step() -> impl Strategy<Value = Step> {
        let ix = || 0usize..16;
        prop_oneof![
            1 => prop_oneof![any::<u8>().prop_map(u64::from), 0u64..4].prop_map(Step::Const),
            4 => (0..EXACT.len() + OPAQUE.len(), ix(), ix()).prop_map(|(o, a, b)| Step::Bin(o, a, b)),
            2 => (0..BY_CONST.len(), ix(), 0u64..10).prop_map(|(o, a, k)| Step::ByConst(o, a, k)),
            1 => (0usize..3, ix(), ix(), ix()).prop_map(|(o, c, a, b)| Step::Ite(o, c, a, b)),
            2 => (any::<bool>(), 0usize..6, ix(), ix()).prop_map(|(z, o, a, b)| Step::Wide(z, o, a, b)),
            1 => (0u8..3, ix(), ix()).prop_map(|(k, a, b)| Step::Xor(k, a, b)),
        ]
    }

    /// The terms built, the last one the term under test, and whether an operator
    /// the translation leaves opaque was used.
    fn build(s: &mut TermStore, steps: &[Step]) -> (Term, bool, [Term; 2]) {
        let x = s.new_var("x", 8);
        let y = s.new_var("y", 8);
        let mut words = vec![x, y];
        let mut opaque = false;
        for st in steps {
            let w = |i: usize| words[i % words.len()];
            let t = match *st {
                Step::Const(k) => s.constant(8, k),
                Step::Bin(o, a, b) => match EXACT.get(o) {
                    Some(&op) => s.bin(op, w(a), w(b)),
                    None => {
                        opaque = true;
                        s.bin(OPAQUE[o - EXACT.len()], w(a), w(b))
                    }
                },
                Step::ByConst(o, a, k) => {
                    let by = if BY_CONST[o] == BinOp::BvAnd {
                        MASKS[k as usize % MASKS.len()]
                    } else {
                        k
                    };
                    let c = s.constant(8, by);
                    s.bin(BY_CONST[o], w(a), c)
                }
                Step::Ite(o, c, a, b) => {
                    let cmp = [BinOp::Eq, BinOp::Ult, BinOp::Slt][o];
                    let cond = s.bin(cmp, w(c), w(a));
                    s.ite(cond, w(a), w(b))
                }
                // An equality test as compilers write it: `0 <u (x ^ y)`, `(x ^ y) <u
                // 1` or `(x ^ y) = 0`.
                Step::Xor(kind, a, b) => {
                    let x = s.bin(BinOp::BvXor, w(a), w(b));
                    let (zero, one) = (s.constant(8, 0), s.constant(8, 1));
                    let test = match kind % 3 {
                        0 => s.bin(BinOp::Ult, zero, x),
                        1 => s.bin(BinOp::Ult, x, one),
                        _ => s.eq(x, zero),
                    };
                    s.ite(test, w(a), w(b))
                }
                // The high half, or (from `o` of 3 on) the low half, which is taken
                // of the wide value's own remainder where it has one.
                Step::Wide(zero, o, a, b) => {
                    let widen = |s: &mut TermStore, t| {
                        if zero {
                            s.zero_ext(8, t)
                        } else {
                            s.sign_ext(8, t)
                        }
                    };
                    let (p, q) = (widen(s, w(a)), widen(s, w(b)));
                    let op = [BinOp::Mul, BinOp::Add, BinOp::Concat][o % 3];
                    let (p, q) = if op == BinOp::Concat {
                        (w(a), w(b))
                    } else {
                        (p, q)
                    };
                    let wide = s.bin(op, p, q);
                    if o < 3 {
                        s.extract(15, 8, wide)
                    } else {
                        s.extract(7, 0, wide)
                    }
                }
            };
            words.push(t);
        }
        (words[words.len() - 1], opaque, [x, y])
    }

    /// `f`'s answer with `bug` planted in the translation.
    fn with_planted(bug: u32, f: impl FnOnce() -> Answer) -> Answer {
        planted::plant(bug);
        let answer = f();
        planted::plant(0);
        answer
    }

    const LIMITS: IntegerLimits = IntegerLimits {
        work: 5_000_000,
        time: Duration::from_secs(10),
        interrupt: None,
    };

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// With its inputs fixed, a term's integer form can take the value the
        /// machine gives it, and (where nothing was left opaque) no other.
        #[test]
        fn a_terms_integer_form_takes_the_machines_value(
            steps in proptest::collection::vec(step(), 1..8),
            vx: u8,
            vy: u8,
        ) {
            let mut s = TermStore::new();
            let (t, opaque, [x, y]) = build(&mut s, &steps);
            let values = [u64::from(vx), u64::from(vy)];
            let value = Evaluator::new(&s, &values).eval(t);
            let (cx, cy, cv) = (s.constant(8, values[0]), s.constant(8, values[1]), s.constant(8, value));
            let fixed = [s.eq(x, cx), s.eq(y, cy)];
            let same = s.eq(t, cv);
            let other = s.not(same);
            let agrees = check_in_integers(&mut s, &[fixed[0], fixed[1], same], LIMITS);
            prop_assert!(!matches!(agrees, Answer::Unsat), "the machine's value ruled out: {steps:?}");
            let differs = check_in_integers(&mut s, &[fixed[0], fixed[1], other], LIMITS);
            prop_assert!(!matches!(differs, Answer::Sat(_)), "another value passed as the machine's: {steps:?}");
            if !opaque {
                prop_assert_eq!(differs, Answer::Unsat, "{:?}", steps);
            }
        }
    }

    #[test]
    fn twice_a_triangle_is_the_even_low_word_with_products_opaque_and_a_wrong_half_is_not() {
        // gcc's closed form of a sum of 2 i keeps the product's low word and clears
        // its low bit: `((n - 1) * n >> 1) << 1`. Twice the triangle of the fact (its
        // 64-bit product halved) is that, bit for bit once the products are one
        // opaque `mul64`; Z3 in integers would need the evenness of n (n - 1).
        let mut s = TermStore::new();
        let n = s.new_var("n", 32);
        let product = crate::term::products::triangle_in_64_bits(&mut s, n);
        let one = s.constant(64, 1);
        let half = s.bin(BinOp::LShr, product, one);
        let tri = s.extract(31, 0, half);
        let two = s.word(2);
        let twice = s.bin(BinOp::Mul, two, tri);
        let minus_one = s.word(u32::MAX);
        let below = s.bin(BinOp::Add, n, minus_one);
        let low = s.bin(BinOp::Mul, below, n);
        let one = s.word(1);
        let halved = s.bin(BinOp::LShr, low, one);
        let even = s.bin(BinOp::Shl, halved, one);
        let same = s.eq(twice, even);
        let differs = s.not(same);
        assert_eq!(check_opaque(&mut s, &[differs], LIMITS), Answer::Unsat);
        // The triangle is not the low word halved (bit 31 is the product's bit 32):
        // never `unsat`, whatever the opaque products allow.
        let wrong = s.eq(tri, halved);
        let differs = s.not(wrong);
        assert!(
            matches!(check_opaque(&mut s, &[differs], LIMITS), Answer::Unknown(_)),
            "a false claim proved"
        );
        // A query without a triangle is left alone.
        let plain = s.eq(low, even);
        assert!(matches!(
            check_opaque(&mut s, &[plain], LIMITS),
            Answer::Unknown(_)
        ));
    }

    #[test]
    fn a_quotient_by_repeated_subtraction_is_the_quotient_in_integers() {
        // n = q * d + r without wrap-around (the product of 64-bit extensions), r < d:
        // then q = n / d. Bit-blasting 64-bit products is hopeless; integers are not.
        let mut s = TermStore::new();
        let [n, q, d, r] = ["n", "q", "d", "r"].map(|name| s.new_var(name, 32));
        let wide = |s: &mut TermStore, t| s.zero_ext(32, t);
        let (wn, wq, wd, wr) = (
            wide(&mut s, n),
            wide(&mut s, q),
            wide(&mut s, d),
            wide(&mut s, r),
        );
        let prod = s.bin(BinOp::Mul, wq, wd);
        let sum = s.bin(BinOp::Add, prod, wr);
        let exact = s.eq(wn, sum);
        let below = s.bin(BinOp::Ult, r, d);
        let quotient = s.bin(BinOp::UDiv, n, d);
        let same = s.eq(q, quotient);
        let wrong = s.not(same);
        assert_eq!(
            check_in_integers(&mut s, &[exact, below, wrong], LIMITS),
            Answer::Unsat
        );
        // Without `r < d`, a model: one that the machine's terms satisfy.
        let Answer::Sat(m) = check_in_integers(&mut s, &[exact, wrong], LIMITS) else {
            panic!("expected a model");
        };
        let mut e = Evaluator::new(&s, &m.values);
        assert!(e.holds(exact) && e.holds(wrong));
    }

    #[test]
    fn equality_tests_through_xor_are_said_exactly() {
        // `(x ^ y) = 0`, `(x ^ y) <u 1` and `0 <u (x ^ y)`, with the inputs fixed equal
        // and unequal: the integer form says what the machine says, though `xor`
        // itself is opaque.
        for (vx, vy) in [(5u64, 5u64), (5, 6)] {
            for kind in 0..3 {
                let mut s = TermStore::new();
                let (x, y) = (s.new_var("x", 8), s.new_var("y", 8));
                let xor = s.bin(BinOp::BvXor, x, y);
                let (zero, one) = (s.constant(8, 0), s.constant(8, 1));
                let test = match kind {
                    0 => s.eq(xor, zero),
                    1 => s.bin(BinOp::Ult, xor, one),
                    _ => s.bin(BinOp::Ult, zero, xor),
                };
                let machine = Evaluator::new(&s, &[vx, vy]).holds(test);
                let wrong = if machine { s.not(test) } else { test };
                let (cx, cy) = (s.constant(8, vx), s.constant(8, vy));
                let fixed = [s.eq(x, cx), s.eq(y, cy), wrong];
                assert_eq!(
                    check_in_integers(&mut s, &fixed, LIMITS),
                    Answer::Unsat,
                    "{kind} {vx} {vy}"
                );
            }
        }
    }

    #[test]
    fn an_or_of_bits_that_do_not_meet_is_their_sum() {
        // `(x << 3) | (y >> 5)` on 8 bits, as gcc joins the halves of a shifted 64-bit
        // product: exact for every pair of values tried.
        for (vx, vy) in [
            (0u64, 0u64),
            (0xff, 0xff),
            (0x1f, 0xe0),
            (0x20, 0x1f),
            (7, 200),
        ] {
            let mut s = TermStore::new();
            let (x, y) = (s.new_var("x", 8), s.new_var("y", 8));
            let (three, five) = (s.constant(8, 3), s.constant(8, 5));
            let high = s.bin(BinOp::Shl, x, three);
            let low = s.bin(BinOp::LShr, y, five);
            let or = s.bin(BinOp::BvOr, high, low);
            let value = Evaluator::new(&s, &[vx, vy]).eval(or);
            let (cx, cy, cv) = (s.constant(8, vx), s.constant(8, vy), s.constant(8, value));
            let same = s.eq(or, cv);
            let other = s.not(same);
            let q = [s.eq(x, cx), s.eq(y, cy), other];
            assert_eq!(
                check_in_integers(&mut s, &q, LIMITS),
                Answer::Unsat,
                "{vx} {vy}"
            );
        }
    }

    #[test]
    fn nested_remainders_are_one_and_a_narrow_one_is_kept_under_a_wide_sum() {
        // `((x * y) + x) * 3 + y` on 8 bits: the machine's value, and no other, with
        // one remainder for the three wrapping operations.
        let mut s = TermStore::new();
        let (x, y) = (s.new_var("x", 8), s.new_var("y", 8));
        let three = s.constant(8, 3);
        let xy = s.bin(BinOp::Mul, x, y);
        let plus = s.bin(BinOp::Add, xy, x);
        let times = s.bin(BinOp::Mul, plus, three);
        let t = s.bin(BinOp::Add, times, y);
        let script = integer_script(&mut s, &[], &[Formula::Term(t)], "", Names::Indexed)
            .unwrap_or_default();
        // What each remainder is taken of is defined (`t<n>r`), and the remainder
        // (`t<n>`) is taken of that: the top one builds on those alone.
        let line = |name: String| {
            script
                .lines()
                .find(|l| l.starts_with(&format!("(define-fun {name} ")))
                .unwrap_or("")
        };
        let top = format!(
            "{} {}",
            line(format!("t{}", t.index())),
            line(format!("t{}r", t.index()))
        );
        let product = line(format!("t{}r", times.index()));
        assert!(top.contains(&format!(" t{}r", times.index())), "{script}");
        assert!(
            product.contains(&format!("(* t{}r 3)", plus.index())),
            "{script}"
        );
        assert_eq!(
            top.matches("(mod ").count() + product.matches("(mod ").count(),
            1,
            "{script}"
        );
        for (vx, vy) in [(200u64, 100u64), (255, 255), (16, 16), (3, 0)] {
            let value = Evaluator::new(&s, &[vx, vy]).eval(t);
            let (cx, cy, cv) = (s.constant(8, vx), s.constant(8, vy), s.constant(8, value));
            let same = s.eq(t, cv);
            let q = [s.eq(x, cx), s.eq(y, cy), s.not(same)];
            assert_eq!(
                check_in_integers(&mut s, &q, LIMITS),
                Answer::Unsat,
                "{vx} {vy}"
            );
        }
        // An 8-bit sum's 16-bit extension plus one stays below 257: the 16-bit sum
        // may not drop the 8-bit sum's own remainder.
        let sum = s.bin(BinOp::Add, x, y);
        let wide = s.zero_ext(8, sum);
        let one = s.constant(16, 1);
        let again = s.bin(BinOp::Add, wide, one);
        let limit = s.constant(16, 257);
        let below = s.bin(BinOp::Ult, again, limit);
        let q = [s.not(below)];
        assert_eq!(check_in_integers(&mut s, &q, LIMITS), Answer::Unsat);
        let planted = with_planted(planted::UNWRAP_ANY_WIDTH, || {
            check_in_integers(&mut s, &q, LIMITS)
        });
        assert_ne!(planted, Answer::Unsat, "the planted bug went unseen");
    }

    #[test]
    fn a_translation_that_forgets_wrap_around_is_caught() {
        // `x * y = 0` with neither 0 has models on the machine (16 * 16); in integers
        // without the `mod`, it has none.
        let mut s = TermStore::new();
        let (x, y) = (s.new_var("x", 8), s.new_var("y", 8));
        let zero = s.constant(8, 0);
        let product = s.bin(BinOp::Mul, x, y);
        let q = [
            s.eq(product, zero),
            s.bin(BinOp::Ult, zero, x),
            s.bin(BinOp::Ult, zero, y),
        ];
        assert!(matches!(
            check_in_integers(&mut s, &q, LIMITS),
            Answer::Sat(_)
        ));
        let planted = with_planted(planted::NO_WRAP, || check_in_integers(&mut s, &q, LIMITS));
        assert_eq!(planted, Answer::Unsat, "the planted bug went unseen");
    }

    #[test]
    fn a_raised_flag_interrupts_a_query_in_integers_in_flight() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        let mut s = TermStore::new();
        let hard = crate::solver::hard_query(&mut s);
        let limits = IntegerLimits {
            work: u32::MAX,
            time: Duration::from_secs(120),
            interrupt: Some(&FLAG),
        };
        let raiser = std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            FLAG.store(true, Ordering::SeqCst);
            std::time::Instant::now()
        });
        let answer = check_in_integers(&mut s, &hard, limits);
        let ended = std::time::Instant::now();
        let raised = raiser.join().expect("raiser");
        assert_eq!(answer, Answer::Unknown(INTERRUPTED.into()));
        // The watcher looks every 20 ms; the margin absorbs a loaded machine.
        let after = ended.saturating_duration_since(raised);
        assert!(
            after < Duration::from_millis(1500),
            "ended {after:?} after the flag"
        );
        // Raised, nothing is asked.
        assert_eq!(
            check_in_integers(&mut s, &hard, limits),
            Answer::Unknown(INTERRUPTED.into())
        );
    }
}
