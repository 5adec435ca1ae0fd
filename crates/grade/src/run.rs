//! The record of a grading run that a store keeps: the whole class (with each
//! submission's shard), the reference, the command line and task file the settings
//! came from, and when the run started and finished. `grade merge` rebuilds the
//! class's report from these records and the results, without the files.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tamarin_mips::InputFormat;

use crate::collect::Skipped;
use crate::shard::Shard;

/// The version of [`RunRecord`]'s layout; a record of another is not read.
pub const RUN_RECORD_VERSION: u32 = 1;

/// One grading run, as its store keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    pub version: u32,
    /// The tool's version.
    pub tool: String,
    pub shard: Shard,
    /// Names the class and its settings: shards of one run share it.
    pub fingerprint: String,
    /// The settings that decide verdicts, as the store's keys take them.
    pub canonical: String,
    /// `grade`'s arguments (after the program's name), for the settings.
    pub argv: Vec<String>,
    /// The task file the settings were read with.
    pub task: Option<TaskText>,
    pub reference: ProgramEntry,
    /// The whole class, in the order the run found it.
    pub submissions: Vec<ClassEntry>,
    /// Files that were found but are not programs.
    pub skipped: Vec<Skipped>,
    /// Seconds since the epoch.
    pub started: u64,
    /// When the shard had graded all of its submissions.
    pub finished: Option<u64>,
}

/// A task file's path and text.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskText {
    pub path: String,
    pub text: String,
}

/// A program by name and content.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProgramEntry {
    pub name: String,
    /// The SHA-256 of its bytes (which the store keeps under it).
    pub sha: String,
    /// `asm` or `bin`.
    pub format: String,
}

/// One submission of the class.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClassEntry {
    pub name: String,
    /// `None` for a file that could not be read at all.
    pub sha: Option<String>,
    /// `asm` or `bin`, when it was read.
    pub format: Option<String>,
    /// The shard that grades it.
    pub shard: usize,
    /// Why it could not be read, for a file that could not be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread: Option<String>,
}

impl ClassEntry {
    /// What decides its shard: the content, or for a file that could not be read, its
    /// name.
    pub fn shard_id(name: &str, sha: Option<&str>) -> String {
        match sha {
            Some(sha) => sha.to_string(),
            None => format!("unread:{name}"),
        }
    }
}

/// `asm`, `bin` or `merl`.
pub fn format_name(format: InputFormat) -> &'static str {
    format.name()
}

/// The format a record names.
pub fn parse_format(name: &str) -> Option<InputFormat> {
    match name {
        "asm" => Some(InputFormat::Asm),
        "bin" => Some(InputFormat::Bin),
        "merl" => Some(InputFormat::Merl),
        _ => None,
    }
}

/// The fingerprint of a run of `count` shards: the tool, the settings, the reference
/// and the class (names and contents), so that shards of one run share it and shards
/// of different runs do not.
pub fn fingerprint(
    canonical: &str,
    reference: &ProgramEntry,
    class: &[ClassEntry],
    count: usize,
) -> String {
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(b"tamarin grade run");
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(canonical.as_bytes());
    field(reference.sha.as_bytes());
    field(reference.format.as_bytes());
    field(&(count as u64).to_le_bytes());
    for entry in class {
        field(entry.name.as_bytes());
        field(entry.sha.as_deref().unwrap_or("-").as_bytes());
        field(entry.format.as_deref().unwrap_or("-").as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, sha: &str) -> ClassEntry {
        ClassEntry {
            name: name.into(),
            sha: Some(sha.into()),
            format: Some("asm".into()),
            shard: 1,
            unread: None,
        }
    }

    #[test]
    fn fingerprints_tell_runs_apart() {
        let reference = ProgramEntry {
            name: "r.asm".into(),
            sha: "00".into(),
            format: "asm".into(),
        };
        let class = vec![entry("a.asm", "11"), entry("b.asm", "22")];
        let base = fingerprint("opts", &reference, &class, 3);
        assert_eq!(base, fingerprint("opts", &reference, &class, 3));
        assert_ne!(base, fingerprint("other", &reference, &class, 3));
        assert_ne!(base, fingerprint("opts", &reference, &class, 4));
        assert_ne!(base, fingerprint("opts", &reference, &class[..1], 3));
        let renamed = vec![entry("a.asm", "11"), entry("c.asm", "22")];
        assert_ne!(base, fingerprint("opts", &reference, &renamed, 3));
        let changed = vec![entry("a.asm", "11"), entry("b.asm", "33")];
        assert_ne!(base, fingerprint("opts", &reference, &changed, 3));
    }

    #[test]
    fn formats_round_trip() {
        for f in [InputFormat::Asm, InputFormat::Bin] {
            assert_eq!(parse_format(format_name(f)), Some(f));
        }
        assert_eq!(parse_format("elf"), None);
    }
}
