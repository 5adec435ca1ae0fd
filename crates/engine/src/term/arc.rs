//! Arcs of the 2^w circle: the values an affine comparison of one input with a
//! constant allows (`x + c <u k`, `x + c <s k`, `x + c == k` and their negations).
//!
//! Each such comparison allows exactly one arc; the unary step of the solver chain
//! decides inputs from them, and the concolic search summarises a path's prefix with
//! them (one arc per input in place of a loop's many exit tests).

use super::{mask, BinOp, Node, Term, TermStore};

/// An arc of the circle of `width`-bit values: `len` values from `start` upward,
/// wrapping (`len` = 2^width: all of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arc {
    pub start: u64,
    pub len: u64,
}

impl Arc {
    pub fn full(width: u8) -> Arc {
        Arc {
            start: 0,
            len: mask(width) + 1,
        }
    }

    /// Whether `v` lies on the arc.
    pub fn contains(self, v: u64, width: u8) -> bool {
        (v.wrapping_sub(self.start) & mask(width)) < self.len
    }

    /// A superset of `self ∩ other` as one arc; `None` when they are disjoint.
    pub fn meet(self, other: Arc, width: u8) -> Option<Arc> {
        let pieces = self.pieces(other, width);
        let a = pieces.iter().map(|p| p.0).min()?;
        let b = pieces.iter().map(|p| p.1).max()?;
        Some(Arc {
            start: (self.start + a) & mask(width),
            len: b - a,
        })
    }

    /// `self ∩ other` as at most two pieces `[a, b)` of offsets from `self.start`, in
    /// ascending order: `other` taken relative to `self.start` (where it may wrap
    /// once), cut to `[0, self.len)`.
    fn pieces(self, other: Arc, width: u8) -> Vec<(u64, u64)> {
        let size = mask(width) + 1;
        let off = other.start.wrapping_sub(self.start) & mask(width);
        let end = off + other.len;
        let mut pieces = Vec::with_capacity(2);
        let mut piece = |a: u64, b: u64| {
            let (a, b) = (a.min(self.len), b.min(self.len));
            if a < b {
                pieces.push((a, b));
            }
        };
        if end <= size {
            piece(off, end);
        } else {
            piece(0, end - size);
            piece(off, size);
        }
        pieces
    }
}

/// `x + c` as (x, c) when `t` is an input plus a constant.
fn affine(store: &TermStore, t: Term) -> Option<(Term, u64)> {
    match store.node(t) {
        Node::Var { .. } => Some((t, 0)),
        Node::Bin(BinOp::Add, x, k) => match (store.node(x), store.as_const(k)) {
            (Node::Var { .. }, Some(c)) => Some((x, c)),
            _ => None,
        },
        _ => None,
    }
}

/// The arc of values of its input that conjunct `c` allows, exactly (the comparison of
/// `x + off` with a constant is an arc of `y = x + off`, and shifting back by `off` is
/// a bijection), when `c` is an affine comparison with a constant.
pub fn arc_of(store: &TermStore, c: Term) -> Option<(Term, Arc)> {
    let (inner, negated) = match store.node(c) {
        Node::Not(x) => (x, true),
        _ => (c, false),
    };
    let Node::Bin(op, a, b) = store.node(inner) else {
        return None;
    };
    let (t, k, var_left) = match (store.as_const(a), store.as_const(b)) {
        (None, Some(k)) => (a, k, true),
        (Some(k), None) => (b, k, false),
        _ => return None,
    };
    let (x, off) = affine(store, t)?;
    let w = store.width(x);
    let m = mask(w);
    let size = m + 1;
    let sign = 1u64 << (w - 1);
    // The allowed values of `y = x + off` as an arc, then shifted back by `off`.
    let y_arc = match (op, var_left, negated) {
        (BinOp::Eq, _, false) => Arc { start: k, len: 1 },
        (BinOp::Eq, _, true) => Arc {
            start: (k + 1) & m,
            len: size - 1,
        },
        // y <u k / !(y <u k) = y >=u k / k <u y / !(k <u y) = y <=u k
        (BinOp::Ult, true, false) => Arc { start: 0, len: k },
        (BinOp::Ult, true, true) => Arc {
            start: k,
            len: size - k,
        },
        (BinOp::Ult, false, false) => Arc {
            start: (k + 1) & m,
            len: m - k,
        },
        (BinOp::Ult, false, true) => Arc {
            start: 0,
            len: k + 1,
        },
        // Signed: the same on the circle shifted by the sign bit.
        (BinOp::Slt, true, false) => Arc {
            start: sign,
            len: (k ^ sign),
        },
        (BinOp::Slt, true, true) => Arc {
            start: k,
            len: size - (k ^ sign),
        },
        (BinOp::Slt, false, false) => Arc {
            start: (k + 1) & m,
            len: m - (k ^ sign),
        },
        (BinOp::Slt, false, true) => Arc {
            start: sign,
            len: (k ^ sign) + 1,
        },
        _ => return None,
    };
    Some((
        x,
        Arc {
            start: y_arc.start.wrapping_sub(off) & m,
            len: y_arc.len,
        },
    ))
}

/// What two arcs have in common, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meet {
    Empty,
    One(Arc),
    /// Two separate arcs (one arc's ends both reach into the other).
    Two,
}

impl Arc {
    /// The values on both arcs, exactly.
    pub fn intersect(self, other: Arc, width: u8) -> Meet {
        let size = mask(width) + 1;
        if self.len >= size {
            return if other.len == 0 {
                Meet::Empty
            } else {
                Meet::One(other)
            };
        }
        if other.len >= size {
            return if self.len == 0 {
                Meet::Empty
            } else {
                Meet::One(self)
            };
        }
        // Neither is the whole circle, so the pieces of `self`'s own offsets do not
        // wrap.
        let pieces = self.pieces(other, width);
        match pieces[..] {
            [] => Meet::Empty,
            [(a, b)] => Meet::One(Arc {
                start: (self.start + a) & mask(width),
                len: b - a,
            }),
            [(a1, b1), (a2, b2)] if b1 == a2 => Meet::One(Arc {
                start: (self.start + a1) & mask(width),
                len: b2 - a1,
            }),
            _ => Meet::Two,
        }
    }

    /// Whether the arc holds every value of its width.
    pub fn is_full(self, width: u8) -> bool {
        self.len > mask(width)
    }

    /// The conjunct `x` on this arc: `x == start` for one value, else
    /// `x - start <u len` (`true` for the whole circle).
    pub fn as_term(self, store: &mut TermStore, x: Term) -> Term {
        let w = store.width(x);
        if self.is_full(w) {
            return store.bool(true);
        }
        if self.len == 1 {
            let k = store.constant(w, self.start);
            return store.eq(x, k);
        }
        let off = store.constant(w, self.start.wrapping_neg() & mask(w));
        let y = store.bin(BinOp::Add, x, off);
        let len = store.constant(w, self.len);
        store.bin(BinOp::Ult, y, len)
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use proptest::prelude::*;

    /// A random affine comparison of an input with a constant: (operator: 0 `==`,
    /// 1 `<u`, 2 `<s`; input on the left; negated; offset; constant).
    pub fn comparison() -> impl Strategy<Value = (u8, bool, bool, u32, u32)> {
        let k = prop_oneof![
            0u32..10,
            Just(u32::MAX),
            Just(0x8000_0000),
            Just(0x7FFF_FFFF),
            any::<u32>()
        ];
        (0u8..3, any::<bool>(), any::<bool>(), k.clone(), k)
    }

    /// The term of a [`comparison`] of `x`.
    pub fn build(
        s: &mut TermStore,
        x: Term,
        (op, var_left, negated, c, k): (u8, bool, bool, u32, u32),
    ) -> Term {
        let c = s.word(c);
        let y = s.bin(BinOp::Add, x, c);
        let k = s.word(k);
        let (a, b) = if var_left { (y, k) } else { (k, y) };
        let t = match op {
            0 => s.eq(a, b),
            1 => s.bin(BinOp::Ult, a, b),
            _ => s.bin(BinOp::Slt, a, b),
        };
        if negated {
            s.not(t)
        } else {
            t
        }
    }

    /// Values worth probing near the ends of arcs built from constants `c` and `k`.
    pub fn probes_near(c: u32, k: u32, mut probes: Vec<u32>) -> Vec<u32> {
        for base in [k, k.wrapping_sub(c), 0, 0x8000_0000] {
            for d in [0u32, 1, 2, u32::MAX, u32::MAX - 1] {
                probes.push(base.wrapping_add(d));
            }
        }
        probes
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{build, comparison, probes_near};
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn arcs_meet_as_supersets() {
        let a = Arc { start: 10, len: 10 }; // 10..20
        let b = Arc { start: 15, len: 10 }; // 15..25
        assert_eq!(a.meet(b, 32), Some(Arc { start: 15, len: 5 }));
        let c = Arc { start: 30, len: 5 };
        assert_eq!(a.meet(c, 32), None);
        // Wrapping: 0xffff_fffe..0x0000_0002 meets 0..10.
        let w = Arc {
            start: 0xFFFF_FFFE,
            len: 4,
        };
        assert_eq!(
            w.meet(Arc { start: 0, len: 10 }, 32),
            Some(Arc { start: 0, len: 2 })
        );
    }

    proptest! {
        /// The arc of a comparison holds exactly the values that satisfy it.
        #[test]
        fn an_arc_holds_exactly_the_solutions(cmp in comparison(), probes in prop::collection::vec(any::<u32>(), 64)) {
            let mut s = TermStore::new();
            let x = s.new_var("x", 32);
            let t = build(&mut s, x, cmp);
            let Some((_, arc)) = arc_of(&s, t) else { return Ok(()) };
            let (_, _, _, c, k) = cmp;
            for v in probes_near(c, k, probes) {
                let holds = crate::term::eval(&s, &[v as u64], t) == 1;
                prop_assert_eq!(holds, arc.contains(v as u64, 32), "{:#x} and {} on {:?}", v, s.readable(t), arc);
            }
        }

        /// The exact meet of two comparisons' arcs holds what both allow, and its
        /// term means the same; `Two` only when the common values are not one arc.
        #[test]
        fn an_exact_meet_is_the_conjunction(a in comparison(), b in comparison(), probes in prop::collection::vec(any::<u32>(), 64)) {
            let mut s = TermStore::new();
            let x = s.new_var("x", 32);
            let (ta, tb) = (build(&mut s, x, a), build(&mut s, x, b));
            let (Some((_, aa)), Some((_, ab))) = (arc_of(&s, ta), arc_of(&s, tb)) else { return Ok(()) };
            let meet = aa.intersect(ab, 32);
            let mut probes = probes_near(a.3, a.4, probes_near(b.3, b.4, probes));
            probes.extend([aa.start, ab.start].map(|v| v as u32));
            probes.extend([aa.start + aa.len, ab.start + ab.len].map(|v| v as u32));
            let term = match meet {
                Meet::One(m) => Some(m.as_term(&mut s, x)),
                Meet::Empty => Some(s.bool(false)),
                Meet::Two => None,
            };
            for v in probes {
                let both = crate::term::eval(&s, &[v as u64], ta) == 1 && crate::term::eval(&s, &[v as u64], tb) == 1;
                match meet {
                    Meet::Two => {}
                    Meet::Empty => prop_assert!(!both, "{:#x} on both, meet empty", v),
                    Meet::One(m) => prop_assert_eq!(both, m.contains(v as u64, 32), "{:#x} on {:?}", v, m),
                }
                if let Some(t) = term {
                    prop_assert_eq!(both, crate::term::eval(&s, &[v as u64], t) == 1, "{:#x}: the meet's term", v);
                }
            }
        }
    }

    #[test]
    fn arcs_that_overlap_at_both_ends_meet_in_two_pieces() {
        // 0..100 against 90..(10 + 2^32): 0..10 and 90..100.
        let a = Arc { start: 0, len: 100 };
        let b = Arc {
            start: 90,
            len: (1u64 << 32) - 80,
        };
        assert_eq!(a.intersect(b, 32), Meet::Two);
        // Touching across the wrap point of the smaller arc is still one arc.
        let c = Arc {
            start: 0xFFFF_FFF0,
            len: 0x20,
        };
        let d = Arc {
            start: 0,
            len: 0x8000_0000,
        };
        assert_eq!(
            c.intersect(d, 32),
            Meet::One(Arc {
                start: 0,
                len: 0x10
            })
        );
        assert_eq!(a.intersect(Arc::full(32), 32), Meet::One(a));
        assert_eq!(a.intersect(Arc { start: 200, len: 5 }, 32), Meet::Empty);
    }
}
