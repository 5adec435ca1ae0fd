//! Numbers with their nouns, in the right number: `1 run`, `2 runs`, `1 query`,
//! `3 queries`. Every report says counts through [`count`], so none says `1 runs` or
//! `path(s)`.

/// The plural of an English noun as the reports use them: `query` → `queries`,
/// `match` → `matches`, `run` → `runs`. The last word of a phrase is the one inflected
/// (`branch point` → `branch points`).
pub fn plural_of(noun: &str) -> String {
    let consonant_y = noun.len() >= 2
        && noun.ends_with('y')
        && !noun[..noun.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    if consonant_y {
        format!("{}ies", &noun[..noun.len() - 1])
    } else if noun.ends_with(['s', 'x', 'z']) || noun.ends_with("ch") || noun.ends_with("sh") {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// `noun` for one, its plural for any other number.
pub fn noun(n: u64, noun: &str) -> String {
    if n == 1 {
        noun.to_string()
    } else {
        plural_of(noun)
    }
}

/// `1 path`, `2 paths`, `0 queries`.
pub fn count(n: u64, what: &str) -> String {
    format!("{n} {}", noun(n, what))
}

/// `""` for one, `"s"` for any other number: for nouns with a regular plural.
pub fn s(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_with_their_number() {
        assert_eq!(count(1, "run"), "1 run");
        assert_eq!(count(2, "run"), "2 runs");
        assert_eq!(count(0, "run"), "0 runs");
        assert_eq!(count(1, "solver query"), "1 solver query");
        assert_eq!(count(5, "solver query"), "5 solver queries");
        assert_eq!(count(1, "branch point"), "1 branch point");
        assert_eq!(count(3, "branch point"), "3 branch points");
        assert_eq!(count(2, "match"), "2 matches");
        assert_eq!(count(2, "day"), "2 days");
        assert_eq!(noun(1, "finding"), "finding");
        assert_eq!(s(1), "");
        assert_eq!(s(7), "s");
    }
}
