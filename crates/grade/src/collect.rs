//! Which files are submissions: files named on the command line, the program files
//! inside folders (recursively), and the files that glob patterns match.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Error;

/// The extensions of program files, looked for in folders and glob matches.
pub const PROGRAM_EXTENSIONS: [&str; 5] = ["asm", "s", "mips", "bin", "merl"];

/// A file that was found but is not graded, and why.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// The submissions (sorted, each once) and the files passed over.
#[derive(Debug, Default)]
pub struct Found {
    pub submissions: Vec<PathBuf>,
    pub skipped: Vec<Skipped>,
}

fn is_program(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| PROGRAM_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

fn has_glob_chars(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Expands the command line's submission arguments. A path that exists is taken as
/// it is (a file is a submission whatever its name; a folder is searched); one that
/// does not and has `*`, `?` or `[` is a glob pattern. A name that is neither is an
/// error, and so is a pattern that matches nothing. `reference` is never a submission.
pub fn collect(args: &[PathBuf], reference: &Path) -> Result<Found, Error> {
    let mut found = Found::default();
    let mut seen = HashSet::new();
    let reference = std::fs::canonicalize(reference).ok();
    let mut add = |found: &mut Found, path: PathBuf, explicit: bool| {
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if Some(&canonical) == reference.as_ref() {
            if explicit {
                found.skipped.push(Skipped {
                    path: path.display().to_string(),
                    reason: "it is the reference".into(),
                });
            }
            return;
        }
        if seen.insert(canonical) {
            found.submissions.push(path);
        }
    };
    for arg in args {
        let text = arg.to_string_lossy();
        if std::fs::symlink_metadata(arg).is_ok() {
            if arg.is_dir() {
                let mut files = Vec::new();
                walk(arg, &mut files, &mut found.skipped).map_err(|source| Error::Read {
                    what: "the folder",
                    path: arg.display().to_string(),
                    source,
                })?;
                files.sort();
                for f in files {
                    add(&mut found, f, false);
                }
            } else {
                add(&mut found, arg.clone(), true);
            }
        } else if has_glob_chars(&text) {
            let paths = glob::glob(&text)
                .map_err(|e| Error::Usage(format!("`{text}` is not a glob pattern: {e}")))?;
            let mut matched = 0;
            let mut files = Vec::new();
            for p in paths {
                let p = p.map_err(|e| Error::Read {
                    what: "a match of",
                    path: e.path().display().to_string(),
                    source: std::io::Error::new(e.error().kind(), e.error().to_string()),
                })?;
                matched += 1;
                if p.is_dir() {
                    walk(&p, &mut files, &mut found.skipped).map_err(|source| Error::Read {
                        what: "the folder",
                        path: p.display().to_string(),
                        source,
                    })?;
                } else if is_program(&p) {
                    files.push(p);
                } else {
                    found.skipped.push(Skipped {
                        path: p.display().to_string(),
                        reason: not_a_program(),
                    });
                }
            }
            if matched == 0 {
                return Err(Error::Usage(format!("no file matches `{text}`")));
            }
            files.sort();
            for f in files {
                add(&mut found, f, false);
            }
        } else {
            return Err(Error::Read {
                what: "the submission",
                path: text.into_owned(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        }
    }
    found.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    found.skipped.dedup_by(|a, b| a.path == b.path);
    Ok(found)
}

fn not_a_program() -> String {
    "not a program file (.asm, .s, .mips or .bin)".into()
}

/// Every program file under `dir`; other files go to `skipped`. Hidden files and
/// folders (a name starting with `.`) are passed over without a word, and links to
/// folders are not followed.
fn walk(dir: &Path, files: &mut Vec<PathBuf>, skipped: &mut Vec<Skipped>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&path, files, skipped)?;
        } else if kind.is_symlink() && path.is_dir() {
            skipped.push(Skipped {
                path: path.display().to_string(),
                reason: "a link to a folder (not followed)".into(),
            });
        } else if is_program(&path) {
            files.push(path);
        } else {
            skipped.push(Skipped {
                path: path.display().to_string(),
                reason: not_a_program(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_globs_and_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        std::fs::create_dir_all(d.join("a/deep")).unwrap();
        std::fs::create_dir_all(d.join(".git")).unwrap();
        for f in [
            "a/x.asm",
            "a/deep/y.MIPS",
            "a/notes.txt",
            "a/.hidden.asm",
            ".git/z.asm",
            "b.s",
            "c.bin",
            "ref.asm",
        ] {
            std::fs::write(d.join(f), "").unwrap();
        }
        let found = collect(
            &[
                d.join("a"),
                PathBuf::from(format!("{}/*.[sb]*", d.display())),
                d.join("a/x.asm"),
                d.join("ref.asm"),
            ],
            &d.join("ref.asm"),
        )
        .expect("found");
        let rel: Vec<String> = found
            .submissions
            .iter()
            .map(|p| p.strip_prefix(d).unwrap().display().to_string())
            .collect();
        assert_eq!(rel, ["a/deep/y.MIPS", "a/x.asm", "b.s", "c.bin"]);
        let skipped: Vec<&str> = found
            .skipped
            .iter()
            .map(|s| s.path.rsplit('/').next().unwrap())
            .collect();
        assert_eq!(skipped, ["notes.txt", "ref.asm"]);
        assert!(collect(&[d.join("*.nothing")], &d.join("ref.asm")).is_err());
        assert!(collect(&[d.join("missing.asm")], &d.join("ref.asm")).is_err());
    }
}
