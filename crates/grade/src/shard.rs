//! Shards: `grade --shard K/N` grades the K-th of N slices of a class, so that N
//! machines (a cluster's array job) grade it together and `grade merge` joins them.
//!
//! The slices depend on the submissions' contents only: the distinct contents are
//! sorted by their SHA-256 and dealt out in turn. So a slice is the same on every
//! rerun and whatever order the files were found in, copies of one file fall in one
//! slice (and are graded once), and slices differ in size by at most one content.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The K-th (from 1) of N slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The whole class, as a run without `--shard` grades it.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    pub fn is_whole(self) -> bool {
        self.count == 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The most shards: more than any cluster's array job takes.
pub const MAX_SHARDS: usize = 100_000;

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let expected =
            || format!("`{text}` is not a shard: expected K/N with 1 <= K <= N, e.g. 2/8");
        let (k, n) = text.split_once('/').ok_or_else(expected)?;
        let k: usize = k.trim().parse().map_err(|_| expected())?;
        let n: usize = n.trim().parse().map_err(|_| expected())?;
        if k == 0 || n == 0 || k > n {
            return Err(expected());
        }
        if n > MAX_SHARDS {
            return Err(format!("`{text}`: at most {MAX_SHARDS} shards"));
        }
        Ok(Shard { index: k, count: n })
    }
}

/// The shard (1 to `count`) of each submission, given each one's content id (equal
/// ids for equal contents).
pub fn assign(ids: &[&str], count: usize) -> Vec<usize> {
    let count = count.max(1);
    let distinct: BTreeMap<&str, usize> = {
        let mut sorted: Vec<&str> = ids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        sorted
            .into_iter()
            .enumerate()
            .map(|(rank, id)| (id, rank % count + 1))
            .collect()
    };
    ids.iter().map(|id| distinct[id]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shards_parse_and_refuse() {
        assert_eq!("2/8".parse(), Ok(Shard { index: 2, count: 8 }));
        assert_eq!(" 1 / 1".parse::<Shard>().map(Shard::is_whole), Ok(true));
        for bad in [
            "0/4",
            "5/4",
            "4",
            "a/b",
            "1/0",
            "-1/4",
            "1/4/2",
            "",
            "1/1000001",
        ] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn copies_share_a_shard_and_sizes_are_even() {
        let ids = ["c", "a", "b", "a", "d", "e"];
        let shards = assign(&ids, 2);
        assert_eq!(shards[1], shards[3], "copies of one content");
        // Distinct contents a b c d e, dealt out in turn: 1 2 1 2 1.
        assert_eq!(shards, vec![1, 1, 2, 1, 2, 1]);
    }

    proptest! {
        /// Every submission is in exactly one shard, the shards do not depend on the
        /// order the submissions were found in, and their sizes (in distinct
        /// contents) differ by at most one.
        #[test]
        fn shards_partition_the_class_whatever_its_order(
            ids in proptest::collection::vec(0u8..40, 0..60),
            count in 1usize..9,
            rotate in 0usize..60,
        ) {
            let names: Vec<String> = ids.iter().map(|i| format!("{i:02}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let shards = assign(&refs, count);
            prop_assert!(shards.iter().all(|&s| (1..=count).contains(&s)));
            let mut rotated = refs.clone();
            if !rotated.is_empty() {
                let by = rotate % rotated.len();
                rotated.rotate_left(by);
            }
            let again = assign(&rotated, count);
            for (id, shard) in rotated.iter().zip(&again) {
                let first = refs.iter().position(|r| r == id).expect("same ids");
                prop_assert_eq!(shards[first], *shard);
            }
            let mut per_shard = vec![std::collections::BTreeSet::new(); count];
            for (id, &shard) in refs.iter().zip(&shards) {
                per_shard[shard - 1].insert(*id);
            }
            let sizes: Vec<usize> = per_shard.iter().map(|s| s.len()).collect();
            let (lo, hi) = (sizes.iter().min().copied(), sizes.iter().max().copied());
            prop_assert!(hi.unwrap_or(0) - lo.unwrap_or(0) <= 1, "{:?}", sizes);
        }
    }
}
