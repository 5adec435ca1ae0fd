//! Checks over a degree-2 fact, split so that any solver settles them: the check in
//! bit-vectors with its products opaque ([`Products::Opaque`]: an uninterpreted
//! `mul64`, and each 32-bit product of words its low word), plus instances of lemmas
//! about products, each proved once, for all words, in its own file.
//!
//! Neither half alone is easy for cvc5. In bit-vectors, two multipliers fed the same
//! unknown word, or consecutive ones, defeat bit-blasting; in the integers, the
//! remainders modulo `2^32` of a sum do. Opaque products leave the bit-vector half
//! only wrap-around and congruence to decide, and the lemmas are plain polynomial
//! identities over the integers, where products of words cannot wrap:
//!
//! - **low word:** `a * b` (32 bits) is the low word of the 64-bit product (how the
//!   opaque check writes it);
//! - **zero:** a product with a zero word is 0;
//! - **next triangle:** `(y + 1) * y = y * (y - 1) + 2 y` where `y + 1` does not wrap
//!   ([`triangle_product`], the products of a sum of `i` and its closed form).
//!
//! An `unsat` of the opaque check holds for every function that satisfies the
//! asserted instances, the product among them; each lemma's own file, `unsat`, shows
//! the product satisfies every instance of it.

use rustc_hash::FxHashMap;

use crate::mips32::induct::triangle_in_64_bits;
#[cfg(doc)]
use crate::term::Products;
use crate::term::{integer_script, BinOp, Definition, Formula, Names, Node, Term, TermStore};

/// One lemma: the name of its file and what it says.
pub(super) struct Lemma {
    pub name: &'static str,
    pub what: &'static str,
    /// The logic of its file.
    pub logic: &'static str,
}

/// The lemmas, in the order of their files.
pub(super) const LEMMAS: [Lemma; 4] = [
    Lemma {
        name: "lemma-low-word",
        what: "for all words a, b: a * b (32 bits) is the low word of mul64(a, b), the 64-bit product",
        logic: "QF_BV",
    },
    Lemma {
        name: "lemma-zero",
        what: "for all words a, b: mul64(a, b) = 0 where a or b is 0",
        logic: "QF_NIA",
    },
    Lemma {
        name: "lemma-word-triangle",
        what: "for every word b: b * (b - 1) in 64 bits is mul64(b, b - 1), the product of b and the word b - 1 (how the checks restate the triangles of the invariant)",
        logic: "QF_UFBV",
    },
    Lemma {
        name: "lemma-next-triangle",
        what: "for every word y with y + 1 != 0: mul64(y + 1, y) = mul64(y, y - 1) + 2 y",
        logic: "QF_NIA",
    },
];

/// A check over a degree-2 fact restated for opaque products: each call of an
/// invariant replaced by its body at the call's arguments (so that every product is a
/// term of the check, products of constants folded to their values), each triangle
/// restated as the product of two words ([`triangle_product`], lemma
/// `lemma-word-triangle`), and the instances of the lemmas it assumes added. `None`
/// when the check has no triangle: it is written as before.
pub(super) fn opaque_check(
    store: &mut TermStore,
    definitions: &[Definition],
    formulas: &[Formula],
) -> Option<Vec<Formula>> {
    let inlined: Vec<Formula> = formulas
        .iter()
        .map(|f| inline(store, definitions, f))
        .collect();
    let mut roots = Vec::new();
    for f in &inlined {
        f.terms(&mut roots);
    }
    let mut restated: FxHashMap<Term, Term> = FxHashMap::default();
    for t in store.reachable(&roots) {
        if let Node::Bin(BinOp::Mul, x, _) = store.node(t) {
            if let Node::ZeroExt { by: 32, arg: b } = store.node(x) {
                if triangle_in_64_bits(store, b) == t {
                    let words = triangle_product(store, b);
                    restated.insert(t, words);
                }
            }
        }
    }
    if restated.is_empty() {
        return None;
    }
    let new_roots = store.substitute_all(&roots, restated);
    let mut next = new_roots.iter().copied();
    let mut out: Vec<Formula> = inlined.iter().map(|f| f.replace_terms(&mut next)).collect();
    let mut products: Vec<(Term, Term)> = store
        .reachable(&new_roots)
        .into_iter()
        .filter_map(|t| store.wide_product(t).or_else(|| narrow_product(store, t)))
        .collect();
    products.sort();
    products.dedup();
    out.extend(instances(store, &products).into_iter().map(Formula::Term));
    Some(out)
}

/// `f` with each call of a definition replaced by its body at the call's arguments.
fn inline(store: &mut TermStore, definitions: &[Definition], f: &Formula) -> Formula {
    match f {
        Formula::Term(t) => Formula::Term(*t),
        Formula::Call(name, args) => match definitions.iter().find(|d| &d.name == name) {
            Some(d) => {
                let map = d.params.iter().copied().zip(args.iter().copied()).collect();
                let body = store.substitute_all(&[d.body], map);
                Formula::Term(body.first().copied().unwrap_or(d.body))
            }
            None => f.clone(),
        },
        Formula::Not(g) => Formula::Not(Box::new(inline(store, definitions, g))),
        Formula::And(gs) => {
            Formula::And(gs.iter().map(|g| inline(store, definitions, g)).collect())
        }
        Formula::Or(gs) => Formula::Or(gs.iter().map(|g| inline(store, definitions, g)).collect()),
    }
}

/// The two words of a 32-bit product of words (neither a constant), which an opaque
/// check writes as the low word of theirs; in the order of [`TermStore::wide_product`].
fn narrow_product(store: &TermStore, t: Term) -> Option<(Term, Term)> {
    let Node::Bin(BinOp::Mul, a, b) = store.node(t) else {
        return None;
    };
    let words = store.width(t) == 32 && store.as_const(a).is_none();
    (words && store.as_const(b).is_none()).then_some(if a <= b { (a, b) } else { (b, a) })
}

/// The instances a check with these `products` assumes: the zero lemma of each
/// product, and the next-triangle lemma at each word whose triangle it holds, and at
/// the word below (a loop that counts up or down). The low-word lemma needs none:
/// an opaque check writes each 32-bit product as the low word of the wide one.
pub(super) fn instances(store: &mut TermStore, products: &[(Term, Term)]) -> Vec<Term> {
    let mut out = Vec::new();
    let mut triangles = Vec::new();
    for &(a, b) in products {
        out.push(zero(store, a, b));
        for (y, x) in [(a, b), (b, a)] {
            let minus_one = store.word(u32::MAX);
            if store.bin(BinOp::Add, y, minus_one) == x {
                triangles.push(y);
            }
        }
    }
    for y in triangles {
        out.push(next_triangle(store, y));
        let minus_one = store.word(u32::MAX);
        let below = store.bin(BinOp::Add, y, minus_one);
        out.push(next_triangle(store, below));
    }
    out.sort();
    out.dedup();
    out.retain(|&t| store.as_const(t) != Some(1));
    out
}

/// Each lemma's file: its name and text (the negated lemma over fresh words, in
/// integers; `None` if the translation failed, which it does not for these terms).
pub(super) fn files(store: &mut TermStore, title: &str) -> Vec<(&'static str, Option<String>)> {
    let a = store.new_var("a", 32);
    let b = store.new_var("b", 32);
    let y = store.new_var("y", 32);
    let stated = [
        None,
        Some(zero(store, a, b)),
        None,
        Some(next_triangle(store, y)),
    ];
    LEMMAS
        .iter()
        .zip(stated)
        .map(|(lemma, t)| {
            let comment = format!(
                "tamarin loop-proof certificate: {title}\nlemma: {}\nexpected: unsat",
                lemma.what
            );
            let text = match t {
                Some(t) => {
                    let negated = Formula::Not(Box::new(Formula::Term(t)));
                    integer_script(store, &[], &[negated], &comment, Names::Readable)
                }
                None if lemma.name == "lemma-low-word" => Some(low_word_text(&comment)),
                None => Some(word_triangle_text(&comment)),
            };
            (lemma.name, text)
        })
        .collect()
}

/// `b * (b - 1)` as the product of two words: `b` and the word `b - 1`, which is
/// `2^32 - 1` where `b` is 0 (and the product 0). How a closed form's `multu`
/// computes it, so that the opaque products of the invariant and of the program meet.
fn triangle_product(store: &mut TermStore, b: Term) -> Term {
    let minus_one = store.word(u32::MAX);
    let below = store.bin(BinOp::Add, b, minus_one);
    wide(store, b, below)
}

/// The file of `lemma-low-word`, in bit-vectors, where cvc5's rewriting settles it at
/// once. Written out, since the term store folds the low word of a product of words
/// into their 32-bit product, which would leave the file nothing to check.
fn low_word_text(comment: &str) -> String {
    commented(comment)
        + "(set-option :produce-models true)\n\
           (set-logic QF_BV)\n\
           (declare-const a (_ BitVec 32))\n\
           (declare-const b (_ BitVec 32))\n\
           (assert (not (= (bvmul a b) ((_ extract 31 0) (bvmul ((_ zero_extend 32) a) ((_ zero_extend 32) b))))))\n\
           (check-sat)\n"
}

/// `comment` as SMT-LIB comment lines.
fn commented(comment: &str) -> String {
    comment.lines().map(|l| format!("; {l}\n")).collect()
}

/// The file of `lemma-word-triangle`: `b * (b - 1)` in 64 bits, as the invariant
/// states it ([`triangle_in_64_bits`]), is the product of `b` and the word `b - 1`.
/// Where `b` is not 0 the two right operands are equal, and where it is, both
/// products are 0: so the file takes the 64-bit product as any function `times` that
/// is 0 where its left operand is 0 (asserted of the two operands that occur), and
/// asks for two different results. Neither bit-blasting (two multipliers over
/// operands equal only where `b` is not 0) nor the integers (remainders modulo
/// `2^64` of a square) settle the lemma stated of the product itself in cvc5.
fn word_triangle_text(comment: &str) -> String {
    let mut t = commented(comment);
    t.push_str(
        "; the 64-bit product is taken as any function `times` with times(0, x) = 0\n\
         (set-option :produce-models true)\n\
         (set-logic QF_UFBV)\n\
         (declare-fun times ((_ BitVec 64) (_ BitVec 64)) (_ BitVec 64))\n\
         (declare-const b (_ BitVec 32))\n\
         (define-fun wide () (_ BitVec 64) ((_ zero_extend 32) b))\n\
         (define-fun in-64-bits () (_ BitVec 64) (bvsub wide (_ bv1 64)))\n\
         (define-fun word () (_ BitVec 64) ((_ zero_extend 32) (bvadd b (_ bv4294967295 32))))\n\
         (assert (= (times (_ bv0 64) (bvsub (_ bv0 64) (_ bv1 64))) (_ bv0 64)))\n\
         (assert (= (times (_ bv0 64) ((_ zero_extend 32) (bvadd (_ bv0 32) (_ bv4294967295 32)))) (_ bv0 64)))\n\
         (assert (not (= (times wide in-64-bits) (times wide word))))\n\
         (check-sat)\n",
    );
    t
}

fn wide(store: &mut TermStore, a: Term, b: Term) -> Term {
    let (a, b) = (store.zero_ext(32, a), store.zero_ext(32, b));
    store.bin(BinOp::Mul, a, b)
}

fn implies(store: &mut TermStore, p: Term, q: Term) -> Term {
    let not_p = store.not(p);
    store.or(not_p, q)
}

/// `a = 0 or b = 0 -> mul64(a, b) = 0`.
fn zero(store: &mut TermStore, a: Term, b: Term) -> Term {
    let nought = store.word(0);
    let (za, zb) = (store.eq(a, nought), store.eq(b, nought));
    let either = store.or(za, zb);
    let product = wide(store, a, b);
    let nought = store.constant(64, 0);
    let is_zero = store.eq(product, nought);
    implies(store, either, is_zero)
}

/// `y + 1 != 0 -> mul64(y + 1, y) = mul64(y, y - 1) + 2 y`.
fn next_triangle(store: &mut TermStore, y: Term) -> Term {
    let one = store.word(1);
    let next = store.bin(BinOp::Add, y, one);
    let nought = store.word(0);
    let wraps = store.eq(next, nought);
    let holds = store.not(wraps);
    let after = triangle_product(store, next);
    let before = triangle_product(store, y);
    let wide_y = store.zero_ext(32, y);
    #[cfg(test)]
    let wide_y =
        if super::super::induct::planted::has(super::super::induct::planted::HALF_TRIANGLE_STEP) {
            store.constant(64, 0)
        } else {
            wide_y
        };
    let sum = store.bin(BinOp::Add, before, wide_y);
    let wide_y = store.zero_ext(32, y);
    let sum = store.bin(BinOp::Add, sum, wide_y);
    let equal = store.eq(after, sum);
    implies(store, holds, equal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mips32::induct::planted;

    /// Z3's answer to a lemma file.
    fn z3_answer(text: &str) -> z3::SatResult {
        let solver = z3::Solver::new();
        solver.from_string(text);
        solver.check()
    }

    #[test]
    fn every_lemma_file_states_its_lemma_and_is_unsat_and_a_wrong_step_is_not() {
        let mut s = TermStore::new();
        for (name, text) in files(&mut s, "t") {
            let text = text.expect("every lemma translates");
            assert!(text.contains("(set-logic QF_"), "{name}: {text}");
            // Each states its lemma: nothing folded it away.
            assert!(text.contains("(declare-const "), "{name}: {text}");
            assert_eq!(z3_answer(&text), z3::SatResult::Unsat, "{name}: {text}");
        }
        // A triangle that grows by y, not 2 y: its lemma file is satisfiable.
        planted::plant(planted::HALF_TRIANGLE_STEP);
        let mut s = TermStore::new();
        let wrong = files(&mut s, "t");
        planted::plant(0);
        let (name, text) = &wrong[3];
        assert_eq!(*name, "lemma-next-triangle");
        let text = text.as_deref().expect("the lemma translates");
        assert_eq!(z3_answer(text), z3::SatResult::Sat, "{text}");
    }

    #[test]
    fn only_a_check_with_a_triangle_is_restated_with_instances() {
        let mut s = TermStore::new();
        let (x, y) = (s.new_var("x", 32), s.new_var("y", 32));
        let plain = wide(&mut s, x, y);
        let nought = s.constant(64, 0);
        let f = s.eq(plain, nought);
        assert_eq!(opaque_check(&mut s, &[], &[Formula::Term(f)]), None);
        // The invariant's triangle, in 64 bits, inside a definition called at x.
        let p = s.new_var("p", 32);
        let t = triangle_in_64_bits(&mut s, p);
        let body = s.eq(t, nought);
        let d = Definition {
            name: "inv".into(),
            params: vec![p],
            body,
        };
        let call = Formula::Not(Box::new(Formula::Call("inv".into(), vec![x])));
        let out = opaque_check(&mut s, std::slice::from_ref(&d), &[call]).expect("a triangle");
        // The call inlined at x, the triangle restated as the product of words.
        let words = triangle_product(&mut s, x);
        let restated = s.eq(words, nought);
        assert_eq!(out[0], Formula::Not(Box::new(Formula::Term(restated))));
        // Zero of the product; next triangle at x and at x - 1.
        let instances: Vec<Term> = out[1..]
            .iter()
            .map(|f| match f {
                Formula::Term(t) => *t,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(instances.len(), 3, "{out:?}");
        let at_x = next_triangle(&mut s, x);
        assert!(instances.contains(&at_x));
    }
}
