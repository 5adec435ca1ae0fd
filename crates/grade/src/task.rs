//! Task files (`--task task.toml`): the settings of one assignment, kept beside its
//! reference so that every run of a course grades it the same way, and so that a
//! student's `tamarin compare --task task.toml mine.asm` gets the verdict `grade` gives.
//!
//! ```toml
//! reference = "reference.asm"   # relative to the task file
//! frontend = "twoints"          # or "array"
//! inputs = ["$1", "$2"]         # or "$1,$2"
//! observe = ["$3"]              # or "$3,output"
//! fuel = 1000
//! max-len = 16
//! timeout = 30                  # seconds per submission
//! engine = "auto"
//! unbounded = true              # prove for runs of any length (loop invariants)
//! solver-rlimit = 2000000       # Z3's resource limit, once for the task
//! assume = []                   # input assumptions, as --assume takes them
//! ```
//!
//! Every search option of the command line is a key, with the same name ([`KEYS`]);
//! a key given on the command line wins over the file; an unknown key is an error that
//! names its line.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::parse::{parse_word, parse_word_list};

use crate::Error;

/// Every key a task file may hold, in the order `grade --help` lists them.
pub const KEYS: &[&str] = &[
    "reference",
    "frontend",
    "inputs",
    "observe",
    "engine",
    "unbounded",
    "fuel",
    "depth",
    "max-len",
    "array-base",
    "stdin-len",
    "init-inputs",
    "timeout",
    "group-timeout",
    "max-runs",
    "solver",
    "solver-timeout",
    "solver-rlimit",
    "solver-work",
    "portfolio",
    "out-of-fuel",
    "assume",
    "assume-program",
    "assume-fuel",
    "input-format",
    "link",
    "termination",
    "dump-trace",
    "dump-smt",
    "force",
];

/// A task file, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TaskFile {
    /// The reference solution, relative to the task file.
    pub reference: Option<PathBuf>,
    pub frontend: Option<String>,
    pub inputs: Option<List>,
    pub observe: Option<List>,
    pub engine: Option<String>,
    /// Prove for runs of any length (`--unbounded`).
    pub unbounded: Option<bool>,
    /// Steps per run, or `"auto"`: sized from the reference's runs (see `fuel`).
    pub fuel: Option<Fuel>,
    pub depth: Option<u64>,
    pub max_len: Option<u64>,
    pub array_base: Option<Word>,
    pub stdin_len: Option<u64>,
    pub init_inputs: Option<Words>,
    pub timeout: Option<u64>,
    /// `grade`'s wall-clock limit on grouping, in seconds (0: none).
    pub group_timeout: Option<f64>,
    pub max_runs: Option<u64>,
    pub solver: Option<String>,
    pub solver_timeout: Option<u64>,
    pub solver_rlimit: Option<u64>,
    pub solver_work: Option<u64>,
    pub portfolio: Option<List>,
    /// `same` or `different` (the default under a task).
    pub out_of_fuel: Option<String>,
    /// Preconditions on the inputs, in the language of `--assume`.
    #[serde(default)]
    pub assume: Vec<String>,
    /// A domain program (relative to the task file): an input is in the domain when it
    /// ends with `$3 = 1` within `assume-fuel` steps.
    pub assume_program: Option<PathBuf>,
    pub assume_fuel: Option<u64>,
    pub input_format: Option<String>,
    /// Modules linked after every program (relative to the task file): `.asm` or
    /// `.merl`, such as the runtime a compiler's output imports.
    pub link: Option<Vec<PathBuf>>,
    pub termination: Option<Word>,
    pub dump_trace: Option<bool>,
    /// Relative to the task file.
    pub dump_smt: Option<PathBuf>,
    pub force: Option<bool>,
}

/// The fuel of a task: a number of steps, or `"auto"` (sized from the reference's
/// runs on the domain: see [`crate::fuel`]). Anything else is an error at its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fuel {
    Steps(u64),
    Auto,
}

impl Fuel {
    /// The value as the command line writes it: a count, or `auto`.
    pub fn parse(text: &str) -> Result<Fuel, String> {
        if text.trim() == "auto" {
            return Ok(Fuel::Auto);
        }
        crate::parse::parse_count(text)
            .map(Fuel::Steps)
            .map_err(|e| format!("{e}, or `auto` (sized from the reference's runs)"))
    }
}

impl<'de> Deserialize<'de> for Fuel {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Fuel, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Fuel;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number of steps or \"auto\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Fuel, E> {
                Ok(Fuel::Steps(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Fuel, E> {
                u64::try_from(v)
                    .map(Fuel::Steps)
                    .map_err(|_| E::custom("the fuel must not be negative"))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Fuel, E> {
                match v {
                    "auto" => Ok(Fuel::Auto),
                    _ => Err(E::custom(format!(
                        "expected a number of steps or \"auto\", found \"{v}\""
                    ))),
                }
            }
        }
        de.deserialize_any(Visitor)
    }
}

/// A list written as one comma-separated string or as an array of strings.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum List {
    One(String),
    Many(Vec<String>),
}

impl List {
    /// The comma-separated form the command line takes.
    pub fn joined(&self) -> String {
        match self {
            List::One(s) => s.clone(),
            List::Many(items) => items.join(","),
        }
    }
}

/// A machine word written as a number or as a string the command line takes
/// (`"0x10000"`, `"-7"`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Word {
    Number(i64),
    Text(String),
}

impl Word {
    pub(crate) fn value(&self) -> Result<u32, String> {
        match self {
            Word::Number(n) => parse_word(&n.to_string()),
            Word::Text(t) => parse_word(t),
        }
    }
}

/// Words written as an array of numbers or as one comma-separated string.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Words {
    Numbers(Vec<i64>),
    Text(String),
}

impl Words {
    pub(crate) fn values(&self) -> Result<Vec<u32>, String> {
        match self {
            Words::Numbers(ns) => ns.iter().map(|n| parse_word(&n.to_string())).collect(),
            Words::Text(t) => parse_word_list(t).map(|l| l.0),
        }
    }
}

/// A task file, read, with where it lies.
#[derive(Debug)]
pub struct Task {
    pub path: PathBuf,
    pub file: TaskFile,
    /// The file's text, as read (a sharded run's store keeps it).
    pub text: String,
    /// The keys the file sets.
    keys: Vec<String>,
}

impl Task {
    /// Reads and parses `path`.
    pub fn read(path: &Path) -> Result<Task, Error> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            what: "the task file",
            path: name.clone(),
            source,
        })?;
        Task::from_text(path, text)
    }

    /// A task file whose text was read before (from a store).
    pub fn from_text(path: &Path, text: String) -> Result<Task, Error> {
        let file = parse(&path.display().to_string(), &text)?;
        let keys = toml::from_str::<toml::Table>(&text)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        Ok(Task {
            path: path.to_path_buf(),
            file,
            text,
            keys,
        })
    }

    /// Whether the file sets `key` (kebab-case).
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    /// `path` of the file, relative to the task file's folder, written without `.`
    /// and with each `..` taken back against the folder before it
    /// (`tasks/x/../../files/ref.asm` is `files/ref.asm`), as reports show it: when
    /// both spellings name the same existing file (a `..` after a symbolic link does
    /// not), else as joined.
    pub(crate) fn relative(&self, r: &Path) -> PathBuf {
        let dir = self.path.parent().unwrap_or(Path::new(""));
        if r.is_absolute() {
            return r.to_path_buf();
        }
        let joined = dir.join(r);
        let normal = lexically_normal(&joined);
        let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if normal == joined || same(&joined, &normal) {
            normal
        } else {
            joined
        }
    }

    /// The reference's path, relative to the task file's folder.
    pub fn reference(&self) -> Option<PathBuf> {
        Some(self.relative(self.file.reference.as_ref()?))
    }

    /// A value of the file that is not valid, as an error at the key's line.
    pub fn bad_value(&self, key: &str, message: impl std::fmt::Display) -> Error {
        let text = std::fs::read_to_string(&self.path).unwrap_or_default();
        let (line, column) = text
            .lines()
            .enumerate()
            .find(|(_, l)| {
                let l = l.trim_start();
                l.strip_prefix(key)
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            })
            .map(|(n, l)| (n + 1, l.len() - l.trim_start().len() + 1))
            .unwrap_or((1, 1));
        Error::Task {
            path: self.path.display().to_string(),
            line,
            column,
            message: format!("`{key}`: {message}"),
        }
    }
}

/// Parses a task file's text; errors name the line and column.
pub fn parse(name: &str, text: &str) -> Result<TaskFile, Error> {
    toml::from_str(text).map_err(|e: toml::de::Error| {
        let offset = e.span().map_or(0, |s| s.start).min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Error::Task {
            path: name.to_string(),
            line,
            column,
            message: e.message().to_string(),
        }
    })
}

/// `path` without `.` components, and with each `..` that follows a folder name taken
/// back against it. Lexical only (a symbolic link is not followed), so a `..` that
/// would climb above the path's start is kept.
fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_read() {
        let t = parse(
            "t.toml",
            "reference = \"r.asm\"\nfrontend = \"array\"\ninputs = [\"$1\", \"$4\"]\n\
             observe = \"$3,output\"\nfuel = 100\ndepth = 9\nmax-len = 4\nstdin-len = 2\n\
             timeout = 5\nengine = \"bmc\"\nassume = [\"$1 > 0\"]\n",
        )
        .expect("a valid task");
        assert_eq!(t.reference, Some(PathBuf::from("r.asm")));
        assert_eq!(t.inputs.map(|l| l.joined()), Some("$1,$4".to_string()));
        assert_eq!(t.observe.map(|l| l.joined()), Some("$3,output".to_string()));
        assert_eq!(
            (t.fuel, t.depth, t.max_len, t.stdin_len, t.timeout),
            (Some(Fuel::Steps(100)), Some(9), Some(4), Some(2), Some(5))
        );
        assert_eq!(t.engine.as_deref(), Some("bmc"));
        assert_eq!(t.assume, ["$1 > 0"]);
    }

    #[test]
    fn an_unknown_key_is_an_error_at_its_line() {
        let e = parse("t.toml", "fuel = 10\n\n  fuell = 3\n").unwrap_err();
        match e {
            Error::Task {
                line,
                column,
                message,
                ..
            } => {
                assert_eq!((line, column), (3, 3));
                assert!(message.contains("fuell"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let e = parse("t.toml", "fuel = \"many\"\n").unwrap_err();
        assert!(e.to_string().starts_with("t.toml:1:"), "{e}");
        assert!(e.to_string().contains("\"auto\""), "{e}");
        let e = parse("t.toml", "\nfuel = -3\n").unwrap_err();
        assert!(e.to_string().starts_with("t.toml:2:"), "{e}");
        let auto = parse("t.toml", "fuel = \"auto\"\n").expect("auto is a fuel");
        assert_eq!(auto.fuel, Some(Fuel::Auto));
        assert_eq!(Fuel::parse("auto"), Ok(Fuel::Auto));
        assert_eq!(Fuel::parse("0x10"), Ok(Fuel::Steps(16)));
        assert!(Fuel::parse("lots").is_err());
    }

    #[test]
    fn the_reference_is_relative_to_the_task_file() {
        let task = Task::from_text(
            Path::new("course/a1/task.toml"),
            "reference = \"ref.asm\"".into(),
        )
        .expect("valid");
        assert_eq!(task.reference(), Some(PathBuf::from("course/a1/ref.asm")));
        // Shown as a person would write it (`..` taken back, `.` left out) when both
        // spellings name the same file.
        let dir = tempfile::tempdir().expect("a temporary folder");
        let files = dir.path().join("files");
        std::fs::create_dir_all(dir.path().join("tasks/x")).expect("folders");
        std::fs::create_dir_all(&files).expect("folders");
        std::fs::write(files.join("ref.asm"), "jr $31\n").expect("a reference");
        let task = Task::from_text(
            &dir.path().join("tasks/x/task.toml"),
            "reference = \"./../../files/ref.asm\"".into(),
        )
        .expect("valid");
        assert_eq!(task.reference(), Some(files.join("ref.asm")));
        // A file that is not there is named as joined (its error says where it looked).
        let task = Task::from_text(
            Path::new("tasks/x/task.toml"),
            "reference = \"../../files/none.asm\"".into(),
        )
        .expect("valid");
        assert_eq!(
            task.reference(),
            Some(PathBuf::from("tasks/x/../../files/none.asm"))
        );
        let task = Task::from_text(Path::new("task.toml"), "reference = \"../r.asm\"".into())
            .expect("valid");
        assert_eq!(task.reference(), Some(PathBuf::from("../r.asm")));
    }
}
