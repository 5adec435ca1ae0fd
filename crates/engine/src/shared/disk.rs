//! The results of [`super::check`] kept on disk between processes, in a directory the
//! caller names (`Options::procedure_cache`; the command line uses the user's cache
//! directory): one small text file per body, named by the body's hash, that holds the
//! body itself (a file whose words differ is another body's, and ignored) and what the
//! check found. A file that cannot be read or parsed is as good as none: the check is
//! made again. The format number changes whenever the check's rules do.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tamarin_mips::Reg;

use super::Procedure;

/// The check's rules and this file's layout, as one number.
pub const FORMAT: u32 = 1;

fn file(dir: &Path, words: &[u32]) -> PathBuf {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &w in words {
        h = crate::term::mix64(h ^ u64::from(w));
    }
    dir.join(format!(
        "shared-procedure-{FORMAT}-{}-{h:016x}.txt",
        env!("CARGO_PKG_VERSION")
    ))
}

fn words_line(words: &[u32]) -> String {
    let mut s = String::from("words");
    for w in words {
        let _ = write!(s, " {w:08x}");
    }
    s
}

/// What an earlier process found for `words`: `Some(None)` refused, `Some(Some(p))`
/// qualified, `None` not known.
pub fn load(dir: &Path, words: &[u32]) -> Option<Option<Arc<Procedure>>> {
    let text = std::fs::read_to_string(file(dir, words)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != format!("tamarin shared procedure {FORMAT}")
        || lines.next()? != words_line(words)
    {
        return None;
    }
    let mut fields = std::collections::HashMap::new();
    for line in lines {
        let (k, v) = line.split_once(' ').unwrap_or((line, ""));
        fields.insert(k, v);
    }
    match *fields.get("result")? {
        "refused" => return Some(None),
        "qualifies" => {}
        _ => return None,
    }
    let num = |k: &str| -> Option<u64> { fields.get(k)?.parse().ok() };
    let args = fields
        .get("args")?
        .split_whitespace()
        .map(|a| a.parse::<u8>().ok().and_then(Reg::new))
        .collect::<Option<Vec<Reg>>>()?;
    let steps: Vec<u64> = fields
        .get("steps")?
        .split_whitespace()
        .map(|s| s.parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    let [min_steps, max_steps] = steps[..] else {
        return None;
    };
    Some(Some(Arc::new(Procedure {
        id: 0,
        words: Arc::from(words.to_vec()),
        args,
        restored: u32::try_from(num("restored")?).ok()?,
        depth: u32::try_from(num("depth")?).ok()?,
        min_steps,
        max_steps,
    })))
}

/// Keeps what the check found for `words` (errors are ignored: the cache is a saving,
/// never needed).
pub fn save(dir: &Path, words: &[u32], found: Option<&Procedure>) {
    let mut text = format!("tamarin shared procedure {FORMAT}\n{}\n", words_line(words));
    match found {
        None => text.push_str("result refused\n"),
        Some(p) => {
            let args: Vec<String> = p.args.iter().map(|r| r.index().to_string()).collect();
            let _ = write!(
                text,
                "result qualifies\nargs {}\nrestored {}\ndepth {}\nsteps {} {}\n",
                args.join(" "),
                p.restored,
                p.depth,
                p.min_steps,
                p.max_steps
            );
        }
    }
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let path = file(dir, words);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_comes_back_and_another_body_s_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let words = [1u32, 2, 3];
        assert_eq!(load(dir.path(), &words), None);
        let p = Procedure {
            id: 0,
            words: Arc::from(words.to_vec()),
            args: vec![Reg::new(1).unwrap(), Reg::new(7).unwrap()],
            restored: 0xffff_fff0,
            depth: 64,
            min_steps: 10,
            max_steps: 300,
        };
        save(dir.path(), &words, Some(&p));
        assert_eq!(load(dir.path(), &words), Some(Some(Arc::new(p))));
        save(dir.path(), &[4, 5], None);
        assert_eq!(load(dir.path(), &[4, 5]), Some(None));
        // A file that names other words is not believed.
        let f = file(dir.path(), &[4, 5]);
        let text = std::fs::read_to_string(&f)
            .unwrap()
            .replace("00000005", "00000006");
        std::fs::write(&f, text).unwrap();
        assert_eq!(load(dir.path(), &[4, 5]), None);
    }
}
