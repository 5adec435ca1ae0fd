//! The places of the product and the arrows between them: names for reports and
//! certificate files, places in reach, and cycles of a side alone.

use std::collections::BTreeSet;

use super::{At, Place};

/// Whether both sides are at loop heads: a step of the product from there is a
/// lockstep one (each side takes its trips), elsewhere one side runs alone.
pub(super) fn both_at_heads(place: Place) -> bool {
    place.0.is_head() && place.1.is_head()
}

/// A place in a file name: `head-returned`.
pub(super) fn place_slug(place: Place) -> String {
    format!("{}-{}", at_name(place.0), at_name(place.1))
}

/// A place for people: `head/returned`.
pub(super) fn place_text(place: Place) -> String {
    format!("{}/{}", at_name(place.0), at_name(place.1))
}

pub(super) fn invariant_name(place: Place) -> String {
    format!("inv.{}", place_slug(place))
}

/// `head` for a side's first (or only) loop head, `head2` for its second, ….
pub(super) fn at_name(at: At) -> String {
    match at {
        At::Head(0) => "head".into(),
        At::Head(i) => format!("head{}", u32::from(i) + 1),
        At::Returned => "returned".into(),
        At::Start => "start".into(),
    }
}

/// The places that `arrows` lead to from the entry (`None`), step by step.
pub(super) fn reachable(arrows: &BTreeSet<(Option<Place>, Place)>) -> BTreeSet<Place> {
    let mut out: BTreeSet<Place> = BTreeSet::new();
    let mut todo: Vec<Option<Place>> = vec![None];
    while let Some(from) = todo.pop() {
        for &(_, to) in arrows.iter().filter(|a| a.0 == from) {
            if out.insert(to) {
                todo.push(Some(to));
            }
        }
    }
    out
}

/// Whether the directed graph of `edges` has a cycle (of two or more places).
pub(super) fn has_cycle(edges: &BTreeSet<(Place, Place)>) -> bool {
    // Take away places that nothing leads to, until none are left or all that are
    // left lie on or behind a cycle.
    let mut left: BTreeSet<(Place, Place)> =
        edges.iter().filter(|(a, b)| a != b).copied().collect();
    loop {
        let sources: BTreeSet<Place> = left
            .iter()
            .map(|e| e.0)
            .filter(|p| !left.iter().any(|e| e.1 == *p))
            .collect();
        if sources.is_empty() {
            return !left.is_empty();
        }
        left.retain(|e| !sources.contains(&e.0));
    }
}
