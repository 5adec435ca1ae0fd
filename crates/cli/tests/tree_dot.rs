//! Pictures of path trees through the real binary: `paths --dot`, `compare
//! --tree-dot` with the counterexample's path highlighted, and `--svg` when Graphviz's
//! `dot` is installed.

use std::path::PathBuf;

use assert_cmd::Command;

fn tamarin() -> Command {
    Command::cargo_bin("tamarin").expect("the tamarin binary is built")
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name)
}

/// Leaves (one per path) are the filled boxes.
fn leaves(dot: &str) -> Vec<&str> {
    dot.lines()
        .filter(|l| l.contains("style=\"filled"))
        .collect()
}

/// The lines drawn in bold red.
fn highlighted(dot: &str) -> Vec<&str> {
    dot.lines().filter(|l| l.contains("color=red")).collect()
}

#[test]
fn paths_dot_has_a_leaf_per_path_and_conditions_on_edges() {
    let out = tamarin()
        .arg("paths")
        .arg(example("fig5-right.asm"))
        .args(["--dot", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let dot = String::from_utf8(out.stdout).unwrap();
    assert!(dot.starts_with("digraph paths {"), "{dot}");
    assert!(dot.trim_end().ends_with('}'), "{dot}");
    // As many leaves as `paths` lists paths, each with its result.
    let listed = tamarin()
        .arg("paths")
        .arg(example("fig5-right.asm"))
        .output()
        .unwrap();
    let text = String::from_utf8(listed.stdout).unwrap();
    let paths = text.lines().filter(|l| l.starts_with("path ")).count();
    assert_eq!(paths, 2, "{text}");
    let leaves = leaves(&dot);
    assert_eq!(leaves.len(), paths, "{dot}");
    assert!(leaves.iter().any(|l| l.contains("$3 = 200")), "{dot}");
    // The branch conditions label the edges.
    for cond in ["$2 == 100", "$2 != 100"] {
        assert!(
            dot.lines()
                .any(|l| l.contains("->") && l.contains(&format!("label=\"{cond}\""))),
            "{cond} in {dot}"
        );
    }
}

#[test]
fn paths_dot_to_a_file_keeps_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tree.dot");
    let out = tamarin()
        .arg("paths")
        .arg(example("fig5-left.asm"))
        .arg("--dot")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout).unwrap().contains("path 1:"));
    let dot = std::fs::read_to_string(&file).unwrap();
    assert_eq!(leaves(&dot).len(), 2, "{dot}");
    assert!(dot.contains("label=\"$1 == 42\""), "{dot}");
}

#[test]
fn compare_tree_dot_highlights_the_counterexample_path_on_each_side() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("both.dot");
    let out = tamarin()
        .arg("compare")
        .arg(example("fig5-left.asm"))
        .arg(example("fig5-right.asm"))
        .args(["--engine", "concolic", "--tree-dot"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "disequivalent");
    let dot = std::fs::read_to_string(&file).unwrap();
    let clusters: Vec<&str> = dot.split("subgraph cluster_").skip(1).collect();
    assert_eq!(clusters.len(), 2, "{dot}");
    // Left: $1 = 0 is not 42; right: $2 = 100 takes the doubling path.
    for (cluster, cond, result) in [
        (clusters[0], "$1 != 42", "$3 = "),
        (clusters[1], "$2 == 100", "$3 = 200"),
    ] {
        let marked_leaves: Vec<&str> = highlighted(cluster)
            .into_iter()
            .filter(|l| l.contains("style=\"filled"))
            .collect();
        assert_eq!(marked_leaves.len(), 1, "{cluster}");
        assert!(marked_leaves[0].contains(result), "{cluster}");
        let marked_edges: Vec<&str> = highlighted(cluster)
            .into_iter()
            .filter(|l| l.contains("->"))
            .collect();
        assert_eq!(marked_edges.len(), 1, "{cluster}");
        assert!(
            marked_edges[0].contains(&format!("label=\"{cond}\"")),
            "{cluster}"
        );
    }
}

#[test]
fn compare_tree_dot_without_paths_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bmc.dot");
    let out = tamarin()
        .arg("compare")
        .arg(example("fig5-left.asm"))
        .arg(example("fig5-right.asm"))
        .args(["--engine", "bmc", "--tree-dot"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let dot = std::fs::read_to_string(&file).unwrap();
    assert!(dot.contains("no path tree"), "{dot}");
    assert!(leaves(&dot).is_empty(), "{dot}");
}

#[test]
fn svg_through_graphviz() {
    if std::process::Command::new("dot")
        .arg("-V")
        .output()
        .is_err()
    {
        println!("skipped: Graphviz's `dot` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tree.svg");
    let out = tamarin()
        .arg("paths")
        .arg(example("fig5-right.asm"))
        .arg("--dot")
        .arg(&file)
        .arg("--svg")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&file).unwrap();
    assert!(svg.contains("<svg"), "{svg}");
    assert!(svg.contains("$2 == 100"), "{svg}");
}

#[test]
fn svg_needs_a_picture() {
    let out = tamarin()
        .arg("paths")
        .arg(example("fig5-right.asm"))
        .arg("--svg")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
