//! The results store of `grade`: one SQLite file (WAL mode) whose rows are comparisons,
//! keyed by what decides their verdict, so that a rerun skips what is already known.
//!
//! A key is the SHA-256 of the tool's version, both programs' bytes and formats, and
//! the canonical string of the options that affect verdicts ([`key`]). Each result is
//! written in a transaction of its own as soon as it is known: a run stopped by
//! Ctrl-C, a crash or SIGKILL leaves every finished comparison in the file and nothing
//! half-written.
//!
//! Beside the results, a store keeps the run that wrote it last ([`RunRecord`]: the
//! class, the settings, which shard of how many) and the bytes of the programs that
//! run graded, so that `grade merge` can join the stores of a sharded run without the
//! files themselves.

use std::path::Path;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};
use tamarin_mips::InputFormat;

use crate::run::RunRecord;
use crate::Error;
use crate::{Record, Verdict, Witness};

/// What a row is: a submission against the reference, or two wrong submissions
/// against each other (for the groups).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Submission,
    Pair,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Submission => "submission",
            Role::Pair => "pair",
        }
    }
}

/// The key of one comparison: `left` against `right` under `options`.
pub fn key(left: (&[u8], InputFormat), right: (&[u8], InputFormat), options: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"tamarin grade\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    for (bytes, format) in [left, right] {
        h.update([match format {
            InputFormat::Asm => b'a',
            InputFormat::Bin => b'b',
            InputFormat::Merl => b'm',
        }]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.update((options.len() as u64).to_le_bytes());
    h.update(options.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// How a store keeps its transactions atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Journal {
    /// A write-ahead log: a commit is one append, and readers never see half of one.
    /// It needs memory shared between processes, which network file systems do not
    /// give.
    Wal,
    /// A rollback journal: one writer at a time, which is what a shard's own store
    /// has, and safe on a network file system.
    Rollback,
}

/// An open store.
pub struct Store {
    conn: Connection,
    path: String,
}

impl Store {
    /// Opens an existing store (never creates one, nor changes it but for the
    /// results and programs that [`Store::absorb`] and [`Store::put`] add), for
    /// `grade merge`.
    pub fn open_existing(path: &Path) -> Result<Store, Error> {
        let name = path.display().to_string();
        let fail = |message: String| Error::Store {
            path: name.clone(),
            message,
        };
        if !path.is_file() {
            return Err(fail("no such file".into()));
        }
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(|e| fail(e.to_string()))?;
        conn.busy_timeout(Duration::from_secs(30))
            .map_err(|e| fail(e.to_string()))?;
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'
                     AND name IN ('results', 'run', 'programs')",
                [],
                |r| r.get(0),
            )
            .map_err(|e| fail(e.to_string()))?;
        if tables != 3 {
            return Err(fail(
                "not a store of `tamarin grade` of this version (grade the class again with --store)"
                    .into(),
            ));
        }
        Ok(Store { conn, path: name })
    }

    /// Opens (or creates) the store at `path`, with the journal `journal`.
    pub fn open_with(path: &Path, journal: Journal) -> Result<Store, Error> {
        let name = path.display().to_string();
        let fail = |e: rusqlite::Error| Error::Store {
            path: name.clone(),
            message: e.to_string(),
        };
        let conn = Connection::open(path).map_err(fail)?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(fail)?;
        let mode = match journal {
            Journal::Wal => "WAL",
            Journal::Rollback => "DELETE",
        };
        let _: String = conn
            .query_row(&format!("PRAGMA journal_mode = {mode}"), [], |r| r.get(0))
            .map_err(fail)?;
        conn.execute_batch(
            "PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS results (
                 key      TEXT PRIMARY KEY,
                 role     TEXT NOT NULL,
                 path     TEXT NOT NULL,
                 verdict  TEXT NOT NULL,
                 witness  TEXT,
                 reasons  TEXT,
                 seconds  REAL NOT NULL,
                 message  TEXT,
                 tool     TEXT NOT NULL,
                 recorded INTEGER NOT NULL
             );
             CREATE TABLE IF NOT EXISTS run (
                 name  TEXT PRIMARY KEY,
                 value TEXT NOT NULL
             );
             CREATE TABLE IF NOT EXISTS programs (
                 sha   TEXT PRIMARY KEY,
                 bytes BLOB NOT NULL
             );",
        )
        .map_err(fail)?;
        Ok(Store { conn, path: name })
    }

    fn fail(&self, e: impl std::fmt::Display) -> Error {
        Error::Store {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// The result stored under `key`, if any.
    pub fn get(&self, key: &str) -> Result<Option<Record>, Error> {
        let row = self
            .conn
            .query_row(
                "SELECT verdict, witness, reasons, seconds, message FROM results WHERE key = ?1",
                [key],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, f64>(3)?,
                        r.get::<_, Option<String>>(4)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| self.fail(e))?;
        let Some((verdict, witness, reasons, seconds, message)) = row else {
            return Ok(None);
        };
        // A row this version cannot read (a field it does not know) is done again.
        let Some(verdict) = Verdict::parse(&verdict) else {
            return Ok(None);
        };
        let witness: Option<Witness> = match witness {
            Some(w) => match serde_json::from_str(&w) {
                Ok(w) => Some(w),
                Err(_) => return Ok(None),
            },
            None => None,
        };
        let reasons = match reasons {
            Some(r) => match serde_json::from_str(&r) {
                Ok(r) => r,
                Err(_) => return Ok(None),
            },
            None => Vec::new(),
        };
        Ok(Some(Record {
            verdict,
            witness,
            reasons,
            seconds,
            message,
            diagnostic: None,
        }))
    }

    /// Records `record` under `key`, in a transaction of its own.
    pub fn put(&mut self, key: &str, role: Role, path: &str, record: &Record) -> Result<(), Error> {
        let witness = record
            .witness
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| self.fail(e))?;
        let reasons = (!record.reasons.is_empty())
            .then(|| serde_json::to_string(&record.reasons))
            .transpose()
            .map_err(|e| self.fail(e))?;
        let recorded = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let store_path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| Error::Store {
            path: store_path,
            message: e.to_string(),
        })?;
        tx.execute(
            "INSERT OR REPLACE INTO results
                 (key, role, path, verdict, witness, reasons, seconds, message, tool, recorded)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                key,
                role.name(),
                path,
                record.verdict.name(),
                witness,
                reasons,
                record.seconds,
                record.message,
                env!("CARGO_PKG_VERSION"),
                recorded
            ],
        )
        .map_err(|e| Error::Store {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        tx.commit().map_err(|e| Error::Store {
            path: self.path.clone(),
            message: e.to_string(),
        })
    }
}

impl Store {
    /// Records the run that writes this store from now on (replacing the last one's).
    pub fn put_run(&mut self, run: &RunRecord) -> Result<(), Error> {
        let text = serde_json::to_string(run).map_err(|e| self.fail(e))?;
        self.conn
            .execute(
                "INSERT OR REPLACE INTO run (name, value) VALUES ('run', ?1)",
                [text],
            )
            .map_err(|e| self.fail(e))?;
        Ok(())
    }

    /// The run that wrote this store last, if it is one this version can read.
    pub fn run(&self) -> Result<Option<RunRecord>, Error> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT value FROM run WHERE name = 'run'", [], |r| r.get(0))
            .optional()
            .map_err(|e| self.fail(e))?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }

    /// Keeps programs' bytes, each under its SHA-256, in one transaction.
    pub fn put_programs<'a>(
        &mut self,
        programs: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> Result<(), Error> {
        let path = self.path.clone();
        let fail = |e: rusqlite::Error| Error::Store {
            path: path.clone(),
            message: e.to_string(),
        };
        let tx = self.conn.transaction().map_err(fail)?;
        {
            let mut insert = tx
                .prepare("INSERT OR IGNORE INTO programs (sha, bytes) VALUES (?1, ?2)")
                .map_err(fail)?;
            for (sha, bytes) in programs {
                insert.execute(params![sha, bytes]).map_err(fail)?;
            }
        }
        tx.commit().map_err(fail)
    }

    /// The bytes kept under `sha`, checked against it.
    pub fn program(&self, sha: &str) -> Result<Option<Vec<u8>>, Error> {
        let bytes: Option<Vec<u8>> = self
            .conn
            .query_row("SELECT bytes FROM programs WHERE sha = ?1", [sha], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.fail(e))?;
        Ok(bytes.filter(|b| content_id(b) == sha))
    }

    /// Copies every result and program of the store at `other` into this one (a
    /// result already here is kept: results under one key are equally valid).
    pub fn absorb(&mut self, other: &Path) -> Result<(), Error> {
        let other_name = other.display().to_string();
        self.conn
            .execute("ATTACH DATABASE ?1 AS other", [&other_name])
            .map_err(|e| self.fail(e))?;
        let copied = self.conn.execute_batch(
            "BEGIN;
             INSERT OR IGNORE INTO main.results SELECT key, role, path, verdict, witness,
                 reasons, seconds, message, tool, recorded FROM other.results;
             INSERT OR IGNORE INTO main.programs SELECT sha, bytes FROM other.programs;
             COMMIT;",
        );
        if copied.is_err() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        let detached = self.conn.execute_batch("DETACH DATABASE other");
        copied.map_err(|e| Error::Store {
            path: other_name,
            message: e.to_string(),
        })?;
        detached.map_err(|e| self.fail(e))
    }
}

/// The SHA-256 of `bytes`, in hex: how a store names a program's content.
pub fn content_id(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_every_part_apart() {
        let a = key((b"ab", InputFormat::Asm), (b"c", InputFormat::Asm), "o");
        assert_eq!(a.len(), 64);
        assert_eq!(
            a,
            key((b"ab", InputFormat::Asm), (b"c", InputFormat::Asm), "o")
        );
        for other in [
            key((b"a", InputFormat::Asm), (b"bc", InputFormat::Asm), "o"),
            key((b"ab", InputFormat::Bin), (b"c", InputFormat::Asm), "o"),
            key((b"ab", InputFormat::Asm), (b"c", InputFormat::Asm), "p"),
            key((b"c", InputFormat::Asm), (b"ab", InputFormat::Asm), "o"),
        ] {
            assert_ne!(a, other);
        }
    }

    #[test]
    fn a_record_comes_back_as_it_was_put() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.sqlite");
        let mut store = Store::open_with(&path, Journal::Wal).expect("open");
        let record = Record {
            verdict: Verdict::PossiblyEquivalent,
            witness: None,
            reasons: vec![serde_json::json!({"kind": "time-limit", "message": "m"})],
            seconds: 1.5,
            message: None,
            diagnostic: None,
        };
        store
            .put("k", Role::Submission, "a.asm", &record)
            .expect("put");
        drop(store);
        let store = Store::open_with(&path, Journal::Wal).expect("open again");
        let back = store.get("k").expect("get").expect("stored");
        assert_eq!(back.verdict, Verdict::PossiblyEquivalent);
        assert_eq!(back.reasons, record.reasons);
        assert_eq!(back.seconds, 1.5);
        assert!(store.get("other").expect("get").is_none());
    }
}
