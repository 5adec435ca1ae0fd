//! The command-line tool reaches the engine through its crate root only: no
//! `tamarin::<module>::` path in its source (the machine crate, `tamarin-mips`, is its
//! own front door).

#[test]
fn the_cli_imports_only_the_engines_crate_root() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
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
