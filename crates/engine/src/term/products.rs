//! Products of words made opaque, so that a solver settles a query over a degree-2
//! fact (a sum against its closed form) by bit-vector reasoning and congruence alone:
//! the query in bit-vectors with each 64-bit product of two words an unknown function
//! ([`Products::Opaque`]), each triangle of the invariant restated as the product of
//! two words, and the instances of lemmas about products asserted. The lemmas are
//! proved once, for all words, by the certificate's lemma files
//! (`mips32::certificate`); here they are only instantiated:
//!
//! - **zero:** a product with a zero word is 0;
//! - **next triangle:** `(y + 1) * y = y * (y - 1) + 2 y` where `y + 1` does not wrap
//!   ([`triangle_product`], the products of a sum of `i` and its closed form);
//! - **low word** and **word triangle** need no instances: the opaque text writes a
//!   32-bit product of words as the low word of theirs, and the triangles restated.
//!
//! Bit-blasting cannot relate two multipliers fed words that are equal only under a
//! query's assumptions, nor consecutive ones; in the integers, the remainders modulo
//! `2^32` of a sum defeat cvc5 (and the evenness of `n (n - 1)` defeats Z3). With the
//! products opaque, neither is needed. An `unsat` holds for every function that
//! satisfies the instances, so for the product.

use rustc_hash::FxHashMap;

#[cfg(doc)]
use super::Products;
use super::{BinOp, Definition, Formula, Node, Term, TermStore};

/// `b * (b - 1)` in 64 bits, where it cannot wrap around (0 where `b` is 0): twice
/// the triangular number of a degree-2 fact of the loop proof. Restated as the
/// product of two words ([`triangle_product`]) where products are opaque.
pub(crate) fn triangle_in_64_bits(s: &mut TermStore, b: Term) -> Term {
    let wide = s.zero_ext(32, b);
    let one = s.constant(64, 1);
    let below = s.bin(BinOp::Sub, wide, one);
    s.bin(BinOp::Mul, wide, below)
}

/// `b * (b - 1)` as the product of two words: `b` and the word `b - 1`, which is
/// `2^32 - 1` where `b` is 0 (and the product 0). How a closed form's `multu`
/// computes it, so that the opaque products of the invariant and of the program meet.
pub(crate) fn triangle_product(store: &mut TermStore, b: Term) -> Term {
    let minus_one = store.word(u32::MAX);
    let below = store.bin(BinOp::Add, b, minus_one);
    wide(store, b, below)
}

/// A check over a degree-2 fact restated for opaque products: each call of an
/// invariant replaced by its body at the call's arguments (so that every product is a
/// term of the check, products of constants folded to their values), each triangle
/// restated as the product of two words ([`triangle_product`], lemma
/// `lemma-word-triangle`), and the instances of the lemmas it assumes added. `None`
/// when the check has no triangle: it is written as before.
pub(crate) fn opaque_formulas(
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
        .filter_map(|t| store.wide_product(t).or_else(|| store.word_product(t)))
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

/// The instances a check with these `products` assumes: the zero lemma of each
/// product, and the next-triangle lemma at each word whose triangle it holds, and at
/// the word below (a loop that counts up or down). The low-word lemma needs none:
/// an opaque check writes each 32-bit product as the low word of the wide one.
pub(crate) fn instances(store: &mut TermStore, products: &[(Term, Term)]) -> Vec<Term> {
    let minus_one = store.word(u32::MAX);
    let mut out = Vec::new();
    let mut triangles = Vec::new();
    for &(a, b) in products {
        out.push(zero(store, a, b));
        for (y, x) in [(a, b), (b, a)] {
            if store.bin(BinOp::Add, y, minus_one) == x {
                triangles.push(y);
            }
        }
    }
    for y in triangles {
        out.push(next_triangle(store, y));
        let below = store.bin(BinOp::Add, y, minus_one);
        out.push(next_triangle(store, below));
    }
    out.sort();
    out.dedup();
    out.retain(|&t| store.as_const(t) != Some(1));
    out
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
pub(crate) fn zero(store: &mut TermStore, a: Term, b: Term) -> Term {
    let nought = store.word(0);
    let (za, zb) = (store.eq(a, nought), store.eq(b, nought));
    let either = store.or(za, zb);
    let product = wide(store, a, b);
    let nought = store.constant(64, 0);
    let is_zero = store.eq(product, nought);
    implies(store, either, is_zero)
}

/// `y + 1 != 0 -> mul64(y + 1, y) = mul64(y, y - 1) + 2 y`.
pub(crate) fn next_triangle(store: &mut TermStore, y: Term) -> Term {
    let one = store.word(1);
    let next = store.bin(BinOp::Add, y, one);
    let nought = store.word(0);
    let wraps = store.eq(next, nought);
    let holds = store.not(wraps);
    let after = triangle_product(store, next);
    let before = triangle_product(store, y);
    let wide_y = store.zero_ext(32, y);
    let step = store.bin(BinOp::Add, wide_y, wide_y);
    #[cfg(test)]
    let step = if planted::has(planted::HALF_TRIANGLE_STEP) {
        wide_y
    } else {
        step
    };
    let sum = store.bin(BinOp::Add, before, step);
    let equal = store.eq(after, sum);
    implies(store, holds, equal)
}

/// Bugs planted in the lemmas' instances and files, to show that the tests catch them
/// (this thread only).
#[cfg(test)]
pub(crate) mod planted {
    pub use crate::planted::{has, plant};

    /// The next-triangle lemma says a triangle grows by `y`, not `2 y`.
    pub const HALF_TRIANGLE_STEP: u32 = 1 << 14;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_check_with_a_triangle_is_restated_with_instances() {
        let mut s = TermStore::new();
        let (x, y) = (s.new_var("x", 32), s.new_var("y", 32));
        let plain = wide(&mut s, x, y);
        let nought = s.constant(64, 0);
        let f = s.eq(plain, nought);
        assert_eq!(opaque_formulas(&mut s, &[], &[Formula::Term(f)]), None);
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
        let out = opaque_formulas(&mut s, std::slice::from_ref(&d), &[call]).expect("a triangle");
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
