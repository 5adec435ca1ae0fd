//! The lemma files of a certificate whose checks have opaque products
//! ([`crate::term::products`], which instantiates the lemmas): each proves one
//! lemma about the product of words, for all words, in the logic where cvc5 settles
//! it at once. An `unsat` of an opaque check holds for every function that satisfies
//! the asserted instances; each lemma's own file, `unsat`, shows that the product
//! satisfies every instance of it.

use crate::term::products::{next_triangle, zero};
use crate::term::{integer_script, Formula, Names, Term, TermStore};

/// One lemma: the name of its file, what it says, and how its file is written.
pub(super) struct Lemma {
    pub name: &'static str,
    pub what: &'static str,
    /// The logic of its file.
    pub logic: &'static str,
    /// Its file's text after `comment`; `None` if the translation to integers failed,
    /// which it does not for these terms.
    text: fn(&mut TermStore, &str) -> Option<String>,
}

/// The lemmas, in the order of their files.
pub(super) const LEMMAS: [Lemma; 4] = [
    Lemma {
        name: "lemma-low-word",
        what: "for all words a, b: a * b (32 bits) is the low word of mul64(a, b), the 64-bit product",
        logic: "QF_BV",
        text: |_, comment| Some(low_word_text(comment)),
    },
    Lemma {
        name: "lemma-zero",
        what: "for all words a, b: mul64(a, b) = 0 where a or b is 0",
        logic: "QF_NIA",
        text: |store, comment| {
            let (a, b) = (store.new_var("a", 32), store.new_var("b", 32));
            let lemma = zero(store, a, b);
            in_integers(store, lemma, comment)
        },
    },
    Lemma {
        name: "lemma-word-triangle",
        what: "for every word b: b * (b - 1) in 64 bits is mul64(b, b - 1), the product of b and the word b - 1 (how the checks restate the triangles of the invariant)",
        logic: "QF_UFBV",
        text: |_, comment| Some(word_triangle_text(comment)),
    },
    Lemma {
        name: "lemma-next-triangle",
        what: "for every word y with y + 1 != 0: mul64(y + 1, y) = mul64(y, y - 1) + 2 y",
        logic: "QF_NIA",
        text: |store, comment| {
            let y = store.new_var("y", 32);
            let lemma = next_triangle(store, y);
            in_integers(store, lemma, comment)
        },
    },
];

/// Each lemma with its file's text, `title` (what was proved) in its comment.
pub(super) fn files(store: &mut TermStore, title: &str) -> Vec<(&'static Lemma, Option<String>)> {
    LEMMAS
        .iter()
        .map(|lemma| {
            let comment = format!(
                "tamarin loop-proof certificate: {title}\nlemma: {}\nexpected: unsat",
                lemma.what
            );
            (lemma, (lemma.text)(store, &comment))
        })
        .collect()
}

/// The file of a lemma stated as a term: its negation, in integers.
fn in_integers(store: &mut TermStore, lemma: Term, comment: &str) -> Option<String> {
    let negated = Formula::Not(Box::new(Formula::Term(lemma)));
    integer_script(store, &[], &[negated], comment, Names::Readable)
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
/// states it ([`crate::term::products::triangle_in_64_bits`]), is the product of `b` and the word `b - 1`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::products::planted;

    /// Z3's answer to a lemma file.
    fn z3_answer(text: &str) -> z3::SatResult {
        let solver = z3::Solver::new();
        solver.from_string(text);
        solver.check()
    }

    #[test]
    fn every_lemma_file_states_its_lemma_and_is_unsat_and_a_wrong_step_is_not() {
        let mut s = TermStore::new();
        for (lemma, text) in files(&mut s, "t") {
            let (name, text) = (lemma.name, text.expect("every lemma translates"));
            assert!(
                text.contains(&format!("(set-logic {})", lemma.logic)),
                "{name}: {text}"
            );
            // Each states its lemma: nothing folded it away.
            assert!(text.contains("(declare-const "), "{name}: {text}");
            assert_eq!(z3_answer(&text), z3::SatResult::Unsat, "{name}: {text}");
        }
        // A triangle that grows by y, not 2 y: its lemma file is satisfiable.
        planted::plant(planted::HALF_TRIANGLE_STEP);
        let mut s = TermStore::new();
        let wrong = files(&mut s, "t");
        planted::plant(0);
        let (lemma, text) = &wrong[3];
        assert_eq!(lemma.name, "lemma-next-triangle");
        let text = text.as_deref().expect("the lemma translates");
        assert_eq!(z3_answer(text), z3::SatResult::Sat, "{text}");
    }
}
