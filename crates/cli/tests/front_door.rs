//! The command-line tool and the grading library reach the engine through its crate
//! root only: no `tamarin::<module>::` path in their source (the machine crate,
//! `tamarin-mips`, is its own front door). The grading library knows no command line:
//! neither clap nor the CLI crate is among its dependencies.

use std::path::Path;

#[test]
fn the_cli_imports_only_the_engines_crate_root() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let grade = Path::new(env!("CARGO_MANIFEST_DIR")).join("../grade/src");
    let mut stack = vec![cli, grade];
    let mut offenders = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read");
            for (n, line) in text.lines().enumerate() {
                // `tamarin::name::…` where `name` is lower case is a module path.
                let mut rest = line;
                while let Some(at) = rest.find("tamarin::") {
                    let after = &rest[at + "tamarin::".len()..];
                    let word: String = after
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    let is_module = word.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                        && after[word.len()..].starts_with("::");
                    let preceded = rest[..at].ends_with('_') || rest[..at].ends_with("tamarin");
                    if is_module && !preceded && word != "mips" {
                        offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                    }
                    rest = after;
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "module paths into the engine:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_grading_library_knows_no_command_line() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../grade/Cargo.toml");
    let text = std::fs::read_to_string(manifest).expect("read the library's manifest");
    for line in text.lines() {
        let name = line.split(['.', '=']).next().unwrap_or("").trim();
        assert!(
            !matches!(
                name,
                "clap" | "clap_complete" | "clap_mangen" | "tamarin-cli" | "indicatif" | "ariadne"
            ),
            "the grading library depends on {name}"
        );
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../grade/src");
    for entry in std::fs::read_dir(src).expect("read src") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(
            !text.contains("clap::") && !text.contains("tamarin_cli"),
            "{} uses the command line",
            path.display()
        );
    }
}
