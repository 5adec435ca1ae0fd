//! Task files (`grade --task task.toml`): the settings of one assignment, kept beside
//! its reference so that every run of a course grades it the same way.
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
//! assume = []                   # input assumptions, as --assume takes them
//! ```
//!
//! A key given on the command line wins over the file; an unknown key is an error that
//! names its line.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diag::CliError;

/// A task file, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TaskFile {
    /// The reference solution, relative to the task file.
    pub reference: Option<PathBuf>,
    pub frontend: Option<String>,
    pub inputs: Option<List>,
    pub observe: Option<List>,
    pub fuel: Option<u64>,
    pub depth: Option<u64>,
    pub max_len: Option<u64>,
    pub stdin_len: Option<u64>,
    pub timeout: Option<u64>,
    pub engine: Option<String>,
    /// `same` or `different` (the default of grade).
    pub out_of_fuel: Option<String>,
    /// Preconditions on the inputs, in the language of `--assume`.
    #[serde(default)]
    pub assume: Vec<String>,
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

/// A task file, read, with where it lies.
#[derive(Debug)]
pub struct Task {
    pub path: PathBuf,
    pub file: TaskFile,
    /// The file's text, as read (a sharded run's store keeps it).
    pub text: String,
}

impl Task {
    /// Reads and parses `path`.
    pub fn read(path: &Path) -> Result<Task, CliError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
            what: "the task file",
            path: name.clone(),
            source,
        })?;
        Task::from_text(path, text)
    }

    /// A task file whose text was read before (from a store).
    pub fn from_text(path: &Path, text: String) -> Result<Task, CliError> {
        let file = parse(&path.display().to_string(), &text)?;
        Ok(Task {
            path: path.to_path_buf(),
            file,
            text,
        })
    }

    /// The reference's path, relative to the task file's folder.
    pub fn reference(&self) -> Option<PathBuf> {
        let r = self.file.reference.as_ref()?;
        let dir = self.path.parent().unwrap_or(Path::new(""));
        Some(if r.is_absolute() {
            r.clone()
        } else {
            dir.join(r)
        })
    }

    /// A value of the file that is not valid, as an error at the key's line.
    pub fn bad_value(&self, key: &str, message: impl std::fmt::Display) -> CliError {
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
        CliError::Task {
            path: self.path.display().to_string(),
            line,
            column,
            message: format!("`{key}`: {message}"),
        }
    }
}

/// Parses a task file's text; errors name the line and column.
pub fn parse(name: &str, text: &str) -> Result<TaskFile, CliError> {
    toml::from_str(text).map_err(|e: toml::de::Error| {
        let offset = e.span().map_or(0, |s| s.start).min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        CliError::Task {
            path: name.to_string(),
            line,
            column,
            message: e.message().to_string(),
        }
    })
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
            (Some(100), Some(9), Some(4), Some(2), Some(5))
        );
        assert_eq!(t.engine.as_deref(), Some("bmc"));
        assert_eq!(t.assume, ["$1 > 0"]);
    }

    #[test]
    fn an_unknown_key_is_an_error_at_its_line() {
        let e = parse("t.toml", "fuel = 10\n\n  fuell = 3\n").unwrap_err();
        match e {
            CliError::Task {
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
    }

    #[test]
    fn the_reference_is_relative_to_the_task_file() {
        let task = Task::from_text(
            Path::new("course/a1/task.toml"),
            "reference = \"ref.asm\"".into(),
        )
        .expect("valid");
        assert_eq!(task.reference(), Some(PathBuf::from("course/a1/ref.asm")));
    }
}
