//! The engine's module graph: which top-level module uses which, read from the source.
//! It must have no loop, and ARCHITECTURE.md must show it as it is (the block between
//! the `module-graph` markers is this test's rendering; the failure message prints it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The files of each top-level module of `src` (lib.rs, the front door, is left out).
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(src).expect("src") {
        let path = entry.expect("entry").path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if path.is_dir() {
            let mut files = Vec::new();
            collect(&path, &mut files);
            out.entry(stem).or_insert_with(Vec::new).extend(files);
        } else if path.extension().is_some_and(|e| e == "rs") && stem != "lib" {
            out.entry(stem).or_insert_with(Vec::new).push(path);
        }
    }
    out
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The modules that the code (not the comments) of `files` names as `crate::m`.
fn uses(files: &[PathBuf], known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).expect("source");
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            let mut rest = code;
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if known.contains(&name) {
                    out.insert(name);
                }
                // `use crate::{a, b}` names several.
                if let Some(list) = rest.strip_prefix('{') {
                    let inside = list.split('}').next().unwrap_or("");
                    for part in inside.split(',') {
                        let name = part.trim().split("::").next().unwrap_or("").trim();
                        if known.contains(name) {
                            out.insert(name.to_string());
                        }
                    }
                }
            }
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    let known: BTreeSet<String> = mods.keys().cloned().collect();
    mods.iter()
        .map(|(m, files)| {
            let mut deps = uses(files, &known);
            deps.remove(m);
            (m.clone(), deps)
        })
        .collect()
}

/// The modules in dependency order (each after everything it uses), or the loop.
fn order(g: &BTreeMap<String, BTreeSet<String>>) -> Result<Vec<String>, Vec<String>> {
    let mut done: Vec<String> = Vec::new();
    let mut left: BTreeSet<String> = g.keys().cloned().collect();
    while !left.is_empty() {
        let ready: Vec<String> = left
            .iter()
            .filter(|m| g[*m].iter().all(|d| done.contains(d)))
            .cloned()
            .collect();
        if ready.is_empty() {
            return Err(left.into_iter().collect());
        }
        for m in ready {
            left.remove(&m);
            done.push(m);
        }
    }
    Ok(done)
}

fn render(g: &BTreeMap<String, BTreeSet<String>>, order: &[String]) -> String {
    let mut out = String::new();
    for m in order {
        let deps: Vec<&str> = order
            .iter()
            .filter(|d| g[m].contains(*d))
            .map(String::as_str)
            .collect();
        if deps.is_empty() {
            out.push_str(&format!("{m}\n"));
        } else {
            out.push_str(&format!("{m} → {}\n", deps.join(", ")));
        }
    }
    out
}

#[test]
fn the_engine_has_no_import_loop_and_the_map_shows_its_graph() {
    let g = graph();
    assert!(
        g.contains_key("semantics") && g.contains_key("verdict"),
        "{g:?}"
    );
    let order = order(&g).unwrap_or_else(|left| panic!("an import loop among {left:?}"));
    let rendered = render(&g, &order);
    let map = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ARCHITECTURE.md"),
    )
    .expect("ARCHITECTURE.md");
    let block = map
        .split("<!-- module-graph -->\n```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n<!-- /module-graph -->").next())
        .unwrap_or("");
    assert_eq!(
        block, rendered,
        "ARCHITECTURE.md's module graph is out of date; it is now:\n{rendered}"
    );
}

#[test]
fn a_loop_is_found() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    g.insert("c".to_string(), BTreeSet::new());
    assert_eq!(order(&g), Err(vec!["a".to_string(), "b".to_string()]));
}
