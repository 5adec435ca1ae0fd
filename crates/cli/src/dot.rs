//! Pictures of path trees: Graphviz DOT (`paths --dot`, `compare --tree-dot`), and SVG
//! through the `dot` program (`--svg`).
//!
//! The tree is a trie of the paths' readable conditions: one edge per condition,
//! labelled with it, and one leaf per path, labelled with the path's result and
//! coloured by how it ends. In a comparison, each program is a cluster, and the path
//! that the counterexample takes is drawn bold and red.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use tamarin::{Options, PathReport, Report, Verdict};
use tamarin_mips::{Program, Status};

use crate::diag::CliError;
use tamarin_grade::text::{short_inputs_line, signed, status_line};

/// Text for a double-quoted DOT string: backslashes, quotes and line breaks escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// How a leaf ends, for its colour.
fn fill(o: &tamarin_mips::cpu::Outcome, partial: bool) -> &'static str {
    if partial {
        return "#e0e0e0";
    }
    match o.status {
        Status::Done => "#d5f5d5",
        Status::Error(_) => "#f9d0c4",
        Status::OutOfFuel => "#fff0b0",
        Status::Stopped => "#e0e0e0",
    }
}

/// A path's result in a few words: `done after 4 steps, $3 = 100`, the error, or out
/// of fuel.
fn result(o: &tamarin_mips::cpu::Outcome) -> String {
    let mut text = status_line(o);
    if o.status == Status::Done {
        text.push_str(&format!(", $3 = {}", signed(o.regs.result())));
    }
    text
}

/// One leaf of the picture: a path's label and colour.
struct Leaf {
    label: String,
    fill: &'static str,
    dashed: bool,
}

#[derive(Default)]
struct Node {
    /// Each next condition and the node it leads to, in the order first seen.
    children: Vec<(String, usize)>,
    /// The leaves of the paths that end here.
    leaves: Vec<usize>,
}

/// The trie of one program's paths.
struct Trie {
    nodes: Vec<Node>,
    leaves: Vec<Leaf>,
    /// The nodes on the highlighted path, and its leaf.
    marked: Vec<usize>,
    marked_leaf: Option<usize>,
}

impl Trie {
    fn new(paths: &[PathReport]) -> Trie {
        let mut t = Trie {
            nodes: vec![Node::default()],
            leaves: Vec::new(),
            marked: Vec::new(),
            marked_leaf: None,
        };
        for (k, p) in paths.iter().enumerate() {
            let mut label = format!(
                "path {}\n{}\n{}",
                k + 1,
                result(&p.outcome),
                short_inputs_line(&p.values)
            );
            if p.partial {
                label.push_str("\n(too long to trace to the end)");
            }
            t.add(
                &p.conditions,
                Leaf {
                    label,
                    fill: fill(&p.outcome, p.partial),
                    dashed: p.partial,
                },
            );
        }
        t
    }

    /// Adds a path; returns the nodes along it (root first) and its leaf.
    fn add(&mut self, conditions: &[String], leaf: Leaf) -> (Vec<usize>, usize) {
        let along = self.walk(conditions, true);
        let end = *along.last().unwrap_or(&0);
        let id = self.leaves.len();
        self.leaves.push(leaf);
        self.nodes[end].leaves.push(id);
        (along, id)
    }

    /// The nodes along `conditions`, root first: made as needed with `grow`, else as
    /// far as they go.
    fn walk(&mut self, conditions: &[String], grow: bool) -> Vec<usize> {
        let mut at = 0;
        let mut along = vec![0];
        for c in conditions {
            let next = self.nodes[at]
                .children
                .iter()
                .find(|(k, _)| k == c)
                .map(|&(_, n)| n);
            at = match next {
                Some(n) => n,
                None if grow => {
                    let n = self.nodes.len();
                    self.nodes.push(Node::default());
                    self.nodes[at].children.push((c.clone(), n));
                    n
                }
                None => break,
            };
            along.push(at);
        }
        along
    }

    /// Marks the path with `conditions`: the listed path that has them, or, when the
    /// search never ran it (the counterexample was made smaller after the search), a
    /// leaf of its own for it.
    fn mark(&mut self, conditions: &[String], outcome: &tamarin_mips::cpu::Outcome) {
        let along = self.walk(conditions, false);
        let end = *along.last().unwrap_or(&0);
        if along.len() == conditions.len() + 1 {
            if let Some(&leaf) = self.nodes[end].leaves.first() {
                let label = &mut self.leaves[leaf].label;
                label.push_str(&format!("\ncounterexample: {}", result(outcome)));
                self.marked = along;
                self.marked_leaf = Some(leaf);
                return;
            }
        }
        let leaf = Leaf {
            label: format!(
                "the counterexample's path\n{}\n(not run by the search)",
                result(outcome)
            ),
            fill: fill(outcome, false),
            dashed: false,
        };
        let (along, leaf) = self.add(conditions, leaf);
        self.marked = along;
        self.marked_leaf = Some(leaf);
    }

    /// Whether node `n` is drawn as its one path's leaf (a path's end with nothing
    /// below it), so that the last condition's edge leads into the leaf itself.
    fn inline(&self, n: usize) -> bool {
        n > 0 && self.nodes[n].children.is_empty() && self.nodes[n].leaves.len() == 1
    }

    /// The DOT statement of leaf `leaf`, as node `name`.
    fn leaf_node(&self, name: &str, leaf: usize) -> String {
        let l = &self.leaves[leaf];
        let on = self.marked_leaf == Some(leaf);
        let mut style = String::from("filled");
        if l.dashed {
            style.push_str(",dashed");
        }
        if on {
            style.push_str(",bold");
        }
        format!(
            "    {name} [shape=box, style=\"{style}\", fillcolor=\"{}\", label=\"{}\"{}];\n",
            l.fill,
            escape(&l.label),
            if on { ", color=red, penwidth=3" } else { "" }
        )
    }

    /// The nodes and edges, with ids prefixed by `id`.
    fn write(&self, out: &mut String, id: &str, title: &str) {
        const BOLD: &str = "color=red, fontcolor=red, penwidth=2.5, style=bold";
        let marked_edge =
            |from: usize, to: usize| self.marked.windows(2).any(|w| w[0] == from && w[1] == to);
        out.push_str(&format!(
            "    {id}n0 [shape=box, style=rounded, label=\"{}\"];\n",
            escape(title)
        ));
        for n in 1..self.nodes.len() {
            if self.inline(n) {
                out.push_str(&self.leaf_node(&format!("{id}n{n}"), self.nodes[n].leaves[0]));
            } else {
                let on = self.marked.contains(&n);
                out.push_str(&format!(
                    "    {id}n{n} [shape=point, width=0.08{}];\n",
                    if on { ", color=red" } else { "" }
                ));
            }
        }
        for (n, node) in self.nodes.iter().enumerate() {
            for (cond, child) in &node.children {
                let style = if marked_edge(n, *child) {
                    format!(", {BOLD}")
                } else {
                    String::new()
                };
                out.push_str(&format!(
                    "    {id}n{n} -> {id}n{child} [label=\"{}\"{style}];\n",
                    escape(cond)
                ));
            }
            if self.inline(n) {
                continue;
            }
            // Paths that end where others go on (a run too long to trace to its end),
            // or with no condition at all: a leaf of their own.
            for &leaf in &node.leaves {
                out.push_str(&self.leaf_node(&format!("{id}l{leaf}"), leaf));
                let edge = if self.marked_leaf == Some(leaf) {
                    BOLD
                } else {
                    "style=dashed, arrowhead=none"
                };
                out.push_str(&format!("    {id}n{n} -> {id}l{leaf} [{edge}];\n"));
            }
        }
    }
}

const HEADER: &str =
    "    fontname=\"Helvetica\";\n    node [fontname=\"Helvetica\", fontsize=10];\n    \
                      edge [fontname=\"Helvetica\", fontsize=9];\n";

/// The DOT of one program's path tree.
pub fn paths_dot(title: &str, paths: &[PathReport]) -> String {
    let mut out = String::from("digraph paths {\n");
    out.push_str(HEADER);
    Trie::new(paths).write(&mut out, "", title);
    out.push_str("}\n");
    out
}

/// One side of a comparison's picture: its name, its paths and, for a difference, the
/// conditions and the outcome of the counterexample's run.
pub struct Side<'a> {
    pub title: String,
    pub paths: &'a [PathReport],
    pub highlight: Option<(Vec<String>, &'a tamarin_mips::cpu::Outcome)>,
}

/// The DOT of both programs' path trees, one cluster each, the counterexample's path
/// highlighted; `no_tree` says why there are none when the report kept no paths.
pub fn compare_dot(left: Side<'_>, right: Side<'_>, no_tree: Option<&str>) -> String {
    let mut out = String::from("digraph compare {\n    compound=true;\n");
    out.push_str(HEADER);
    for (id, side) in [("L", left), ("R", right)] {
        out.push_str(&format!(
            "  subgraph cluster_{id} {{\n    label=\"{}\";\n",
            escape(&side.title)
        ));
        match no_tree {
            Some(why) => out.push_str(&format!(
                "    {id}none [shape=note, label=\"{}\"];\n",
                escape(why)
            )),
            None => {
                let mut trie = Trie::new(side.paths);
                if let Some((conditions, outcome)) = &side.highlight {
                    trie.mark(conditions, outcome);
                }
                trie.write(&mut out, id, "start");
            }
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// A `--tree-dot` file: not `-`, since standard output carries the report.
pub fn parse_picture_file(text: &str) -> Result<std::path::PathBuf, String> {
    if text == "-" {
        return Err("the picture needs a file: standard output carries the report".into());
    }
    Ok(std::path::PathBuf::from(text))
}

/// Writes a picture to `dest` (`-`: standard output), as DOT or, with `svg`, as SVG
/// rendered by Graphviz's `dot`.
pub fn write_picture(dest: &Path, dot: &str, svg: bool) -> Result<(), CliError> {
    let bytes = if svg {
        render_svg(dot)?
    } else {
        dot.as_bytes().to_vec()
    };
    let failed = |source| CliError::Write {
        path: dest.display().to_string(),
        source,
    };
    if dest == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes)
            .and_then(|()| out.flush())
            .map_err(failed)
    } else {
        std::fs::write(dest, bytes).map_err(failed)
    }
}

/// SVG from DOT, through the `dot` program.
fn render_svg(dot: &str) -> Result<Vec<u8>, CliError> {
    let missing = |e: std::io::Error| {
        CliError::Usage(format!(
            "--svg needs Graphviz's `dot` program ({e}); install graphviz, or leave out --svg to write DOT"
        ))
    };
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(missing)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(dot.as_bytes()).map_err(missing)?;
    }
    let output = child.wait_with_output().map_err(missing)?;
    if !output.status.success() {
        return Err(CliError::Usage(format!(
            "Graphviz's `dot` could not render the picture: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(output.stdout)
}

/// Writes both programs' path trees of a comparison to `dest`, the counterexample's
/// path highlighted (the report must come from options with `keep_paths`).
#[allow(clippy::too_many_arguments)]
pub fn write_compare(
    dest: &Path,
    svg: bool,
    programs: (&Program, &Program),
    names: (&Path, &Path),
    opts: &Options,
    report: &Report,
) -> Result<(), CliError> {
    let (lpaths, rpaths) = &report.paths;
    let no_tree = (lpaths.is_empty() && rpaths.is_empty()).then_some(
        "no path tree: the verdict came from bounded model checking, which follows no \
         single path (--engine concolic draws one)",
    );
    let cx = match &report.verdict {
        Verdict::Disequivalent(cx) => Some(cx),
        _ => None,
    };
    let values: Vec<u32> = cx
        .map(|cx| cx.inputs.iter().map(|&(_, v)| v).collect())
        .unwrap_or_default();
    let highlight = |program: &Program, outcome| {
        cx.and_then(|_| tamarin::path_conditions(program, opts, &values).ok())
            .map(|c| (c, outcome))
    };
    let left = Side {
        title: format!("left: {}", names.0.display()),
        paths: lpaths,
        highlight: cx.and_then(|cx| highlight(programs.0, &cx.left)),
    };
    let right = Side {
        title: format!("right: {}", names.1.display()),
        paths: rpaths,
        highlight: cx.and_then(|cx| highlight(programs.1, &cx.right)),
    };
    write_picture(dest, &compare_dot(left, right, no_tree), svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped() {
        assert_eq!(escape("a \"b\" \\ c\nd"), "a \\\"b\\\" \\\\ c\\nd");
    }
}
