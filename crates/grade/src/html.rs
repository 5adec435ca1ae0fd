//! `grade --html DIR`: the report as one standalone page, `DIR/index.html` (inline
//! CSS, no script). Every submission has a section of its own with an `id`, so that a
//! link can point at it; everything that comes from a file is escaped.

use std::fmt::Write as _;
use std::path::Path;

use crate::report::{join_words, plural, Model, Row};
use crate::Error;
use crate::Verdict;

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: #1f2328; background: #f6f8fa; margin: 0; }
main { max-width: 1080px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 12px; border-bottom: 1px solid #d0d7de; padding-bottom: 6px; }
h3 { font-size: 16px; margin: 0 0 8px; }
.sub { color: #57606a; margin: 0 0 18px; }
code, pre { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: #f6f8fa; border: 1px solid #d8dee4; border-radius: 6px; padding: 8px 10px;
      overflow-x: auto; margin: 6px 0; white-space: pre-wrap; word-break: break-all; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 12px 0 8px; }
.card { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 16px;
        min-width: 130px; }
.card .n { font-size: 26px; font-weight: 600; }
.card .l { color: #57606a; font-size: 13px; }
.box { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 14px 18px;
       margin: 0 0 14px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
.box table { background: none; }
table.members { table-layout: fixed; }
table.members td:first-child { width: 48%; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid #eaeef2; vertical-align: top; }
th { font-size: 13px; color: #57606a; font-weight: 600; background: #f6f8fa; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.list { border: 1px solid #d0d7de; border-radius: 8px; overflow: hidden; }
.badge { display: inline-block; border-radius: 12px; padding: 1px 9px; font-size: 12.5px;
         font-weight: 600; white-space: nowrap; }
.equivalent { background: #dafbe1; color: #116329; }
.disequivalent { background: #ffebe9; color: #a40e26; }
.possibly-equivalent { background: #fff8c5; color: #7d4e00; }
.does-not-assemble { background: #eaeef2; color: #424a53; }
.card.equivalent, .card.disequivalent, .card.possibly-equivalent, .card.does-not-assemble { border-color: transparent; }
.muted { color: #57606a; }
.kv { display: grid; grid-template-columns: 150px 1fr; gap: 4px 12px; margin: 6px 0; }
.kv div:nth-child(odd) { color: #57606a; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
section.sub-detail { scroll-margin-top: 12px; }
section.sub-detail:target { outline: 2px solid #0969da; }
ul.reasons { margin: 6px 0; padding-left: 20px; }
"#;

fn badge(v: Verdict) -> String {
    format!("<span class=\"badge {0}\">{0}</span>", v.name())
}

/// Writes `dir/index.html` (creating `dir`).
pub fn write(dir: &Path, m: &Model) -> Result<(), Error> {
    let fail = |source| Error::OutputDir {
        flag: "--html",
        path: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let path = dir.join("index.html");
    std::fs::write(&path, page(m)).map_err(|source| Error::Write {
        path: path.display().to_string(),
        source,
    })
}

/// The page.
pub fn page(m: &Model) -> String {
    let mut h = String::new();
    let anchors: Vec<String> = m
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| r.anchor(i))
        .collect();
    let link = |path: &str| -> String {
        match m.rows.iter().position(|r| r.path == path) {
            Some(i) => format!(
                "<a href=\"#{}\"><code>{}</code></a>",
                anchors[i],
                escape(path)
            ),
            None => format!("<code>{}</code>", escape(path)),
        }
    };
    let total = m.rows.len() + m.not_graded.len();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>tamarin grade: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
        escape(&m.reference)
    );
    let _ = write!(
        h,
        "<h1>Grades against <code>{}</code></h1>\n<p class=\"sub\">{total} submission{} \
         graded in {:.1} s; {} from the store{}.</p>\n",
        escape(&m.reference),
        plural(total),
        m.seconds,
        m.stored(),
        if m.interrupted {
            format!(
                "; <strong>interrupted</strong>: {} not graded",
                m.not_graded.len()
            )
        } else if !m.not_graded.is_empty() {
            format!("; <strong>{} not graded</strong>", m.not_graded.len())
        } else {
            String::new()
        }
    );

    let _ = writeln!(h, "<p class=\"sub\">{}</p>", escape(&m.task.line()));
    for w in m.task.fuel_warnings() {
        let _ = writeln!(h, "<p class=\"sub\">Warning: {}</p>", escape(w));
    }
    if m.grouping_cut_by_wall_clock {
        let _ = writeln!(
            h,
            "<p class=\"sub\"><strong>{}</strong></p>",
            escape(crate::report::GROUPING_CUT)
        );
    }
    if let Some(shards) = &m.shards {
        let _ = writeln!(h, "<p class=\"sub\">{}</p>", escape(&shards.line()));
    }
    if let Some(shard) = &m.shard {
        let _ = writeln!(
            h,
            "<p class=\"sub\">Shard {} of {}: the groups are formed when the shards are merged.</p>",
            shard.index, shard.count
        );
    }

    // Summary.
    h.push_str("<div class=\"cards\">\n");
    for v in Verdict::ALL {
        let _ = writeln!(
            h,
            "<div class=\"card {0}\"><div class=\"n\">{1}</div><div class=\"l\">{0}</div></div>",
            v.name(),
            m.count(v)
        );
    }
    let _ = write!(
        h,
        "<div class=\"card\"><div class=\"n\">{}</div><div class=\"l\">groups of wrong submissions</div></div>\n</div>\n",
        m.groups.len()
    );
    if !m.skipped.is_empty() {
        h.push_str("<p class=\"muted\">Skipped: ");
        let items: Vec<String> = m
            .skipped
            .iter()
            .map(|s| format!("<code>{}</code> ({})", escape(&s.path), escape(&s.reason)))
            .collect();
        h.push_str(&items.join(", "));
        h.push_str(".</p>\n");
    }

    // Groups.
    if !m.groups.is_empty() {
        h.push_str(
            "<h2>Groups of wrong submissions</h2>\n<p class=\"muted\">Members joined by \
             <em>proved equivalent</em> behave the same as the one they are linked to on \
             every input within the bounds; members joined by <em>same reference path</em> \
             fail on inputs that take the same path through the reference (a heuristic).</p>\n",
        );
        for g in &m.groups {
            let n = g.members.len();
            let _ = write!(
                h,
                "<div class=\"box\" id=\"group-{}\">\n<h3>Group {} &middot; {n} submission{}</h3>\n<table class=\"members\">\n",
                g.id,
                g.id,
                plural(n)
            );
            for (path, how, with) in &g.members {
                // The member linked to, by its file name (its whole path is a title).
                let how_html = match with {
                    Some(w) => {
                        let name = w.rsplit(['/', '\\']).next().unwrap_or(w);
                        let short = match m.rows.iter().position(|r| &r.path == w) {
                            Some(i) => format!(
                                "<a href=\"#{}\" title=\"{}\"><code>{}</code></a>",
                                anchors[i],
                                escape(w),
                                escape(name)
                            ),
                            None => format!("<code>{}</code>", escape(name)),
                        };
                        format!("{} {short}", escape(join_words(how, Some("")).trim_end()))
                    }
                    None => "representative".into(),
                };
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td class=\"muted\">{how_html}</td></tr>",
                    link(path)
                );
            }
            h.push_str("</table>\n");
            if let Some(w) = &m.rows[g.representative].witness {
                witness(&mut h, w);
            }
            // A member joined by the path of its witness fails on inputs of its own.
            for (w, path) in g.own_witnesses(m) {
                let _ = writeln!(
                    h,
                    "<p class=\"muted\"><code>{}</code> (same reference path) on its own witness:</p>",
                    escape(path)
                );
                witness(&mut h, w);
            }
            h.push_str("</div>\n");
        }
    }

    // The list.
    h.push_str("<h2>Submissions</h2>\n<div class=\"list\"><table>\n<tr><th>submission</th><th>verdict</th><th>group</th><th class=\"num\">seconds</th><th>detail</th></tr>\n");
    for (i, r) in m.rows.iter().enumerate() {
        let group = r
            .group
            .map(|g| format!("<a href=\"#group-{g}\">G{g}</a>"))
            .unwrap_or_default();
        let detail = match r.verdict {
            Verdict::Equivalent => String::new(),
            Verdict::Disequivalent => r
                .witness
                .as_ref()
                .map(|w| format!("differs on <code>{}</code>", escape(&w.inputs_short)))
                .unwrap_or_default(),
            Verdict::PossiblyEquivalent => escape(&r.reason_kinds().join(", ")),
            Verdict::DoesNotAssemble => {
                escape(&r.short_message(r.message.as_deref().unwrap_or("")))
            }
        };
        let stored = if r.from_store {
            " <span class=\"muted\">(stored)</span>"
        } else {
            ""
        };
        let _ = writeln!(
            h,
            "<tr><td><a href=\"#{}\"><code>{}</code></a></td><td>{}</td><td>{group}</td>\
             <td class=\"num\">{:.2}{stored}</td><td>{detail}</td></tr>",
            anchors[i],
            escape(&r.path),
            badge(r.verdict),
            r.seconds,
        );
    }
    for p in &m.not_graded {
        let _ = writeln!(
            h,
            "<tr><td><code>{}</code></td><td class=\"muted\">not graded</td><td></td><td></td><td></td></tr>",
            escape(p)
        );
    }
    h.push_str("</table></div>\n");

    // Details.
    h.push_str("<h2>Details</h2>\n");
    for (i, r) in m.rows.iter().enumerate() {
        details(&mut h, r, &anchors[i]);
    }
    h.push_str(
        "<p class=\"muted\">Made by <code>tamarin grade</code>. Rerun a <code>tamarin run</code> \
         line to see a difference for yourself.</p>\n</main>\n</body>\n</html>\n",
    );
    h
}

fn witness(h: &mut String, w: &crate::report::WitnessModel) {
    let _ = write!(
        h,
        "<div class=\"kv\"><div>differs on</div><div><code>{}</code></div>\
         <div>reference</div><div><code>{}</code></div>\
         <div>submission</div><div><code>{}</code></div></div>\n\
         <pre>{}\n{}</pre>\n",
        escape(&w.inputs_line),
        escape(&w.reference),
        escape(&w.submission),
        escape(&w.replay_reference),
        escape(&w.replay_submission)
    );
}

fn details(h: &mut String, r: &Row, anchor: &str) {
    let _ = write!(
        h,
        "<section class=\"box sub-detail\" id=\"{}\">\n<h3><code>{}</code> {}</h3>\n\
         <div class=\"kv\"><div>time</div><div>{:.3} s{}</div>",
        escape(anchor),
        escape(&r.path),
        badge(r.verdict),
        r.seconds,
        if r.from_store {
            " (from the store)"
        } else {
            ""
        }
    );
    if let Some(g) = r.group {
        let _ = write!(
            h,
            "<div>group</div><div><a href=\"#group-{g}\">G{g}</a></div>"
        );
    }
    h.push_str("</div>\n");
    match r.verdict {
        Verdict::Equivalent => {}
        Verdict::Disequivalent => {
            if let Some(w) = &r.witness {
                witness(h, w);
            }
            for w in &r.warnings {
                let _ = writeln!(
                    h,
                    "<p>Warning: {} ({})</p>",
                    escape(&w.message),
                    escape(&w.advice)
                );
            }
        }
        Verdict::PossiblyEquivalent => {
            h.push_str("<p>No difference found, but the search was incomplete:</p>\n<ul class=\"reasons\">\n");
            for t in r.reason_texts() {
                let _ = writeln!(h, "<li>{}</li>", escape(&t));
            }
            h.push_str("</ul>\n");
        }
        Verdict::DoesNotAssemble => {
            let text = match &r.diagnostic {
                Some(d) => d.text.clone(),
                None => r.message.clone().unwrap_or_default(),
            };
            let _ = writeln!(h, "<pre>{}</pre>", escape(text.trim_end()));
        }
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_from_files_is_escaped() {
        assert_eq!(
            escape("<b a=\"x\">&'</b>"),
            "&lt;b a=&quot;x&quot;&gt;&amp;&#39;&lt;/b&gt;"
        );
    }
}
