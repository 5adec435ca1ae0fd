//! A loop proof's certificate on disk: one standalone SMT-LIB 2 file per obligation the
//! proof rests on ([`Obligations`]), each of which a correct proof makes every solver
//! answer `unsat`, and an index (`README` for people, `certificate.json` for tools).
//!
//! A file defines the invariant of each place as a Boolean function of the place's
//! values (`inv.head-head`, …), declares the inputs and the variables of the state a
//! check starts from, asserts the preconditions, the invariant of that state and the
//! negated obligation, and ends with `(check-sat)`. The terms are printed by the one
//! SMT-LIB printer ([`crate::term::to_smtlib`]'s), memory read as `ite` chains, so
//! the logic is `QF_BV`. A check over a fact that holds without wrap-around is written
//! in integers (`QF_NIA`); one over a degree-2 fact with opaque products and the
//! instances of lemmas it assumes, each lemma a file of its own (`QF_UFBV`,
//! [`lemmas`]): the forms in which cvc5, not only Z3, settles each file.

use std::fmt::Write as _;
use std::path::Path;

mod lemmas;

use super::induct::{Certificate, Obligations};
use crate::term::{
    integer_script, smtlib_script, smtlib_script_with, Formula, Names, Products, Term, TermStore,
};

/// One check file, as the index lists it.
struct Entry<'a> {
    file: String,
    kind: &'static str,
    what: &'a str,
    /// `QF_BV`; `QF_NIA` for a check written in integers; `QF_UFBV` for one with
    /// opaque products (or a lemma's logic).
    logic: &'static str,
}

/// Writes the certificate of `certificate` into `dir` (created if need be), with
/// `domain` (the preconditions) asserted in every file, and `title` (what was
/// proved) at the head of the index. Files of an earlier certificate in `dir` are
/// removed first. The number of checks written.
///
/// # Errors
///
/// What went wrong creating `dir` or writing a file, with its path.
pub fn write(
    store: &mut TermStore,
    certificate: &Certificate,
    domain: &[Term],
    dir: &Path,
    title: &str,
) -> Result<usize, String> {
    let o: &Obligations = &certificate.obligations;
    // The error names the file in `dir` at fault (the caller names `dir`).
    let at = |file: &str, e: std::io::Error| format!("{file}: {e}");
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    remove_stale(dir).map_err(|e| e.to_string())?;
    let width = o.checks.len().to_string().len().max(2);
    let mut index = Vec::new();
    for (k, check) in o.checks.iter().enumerate() {
        let file = format!("{:0width$}-{}.smt2", k + 1, check.name);
        let mut formulas = check.assertions.clone();
        formulas.extend(domain.iter().map(|&t| Formula::Term(t)));
        let comment = format!(
            "tamarin loop-proof certificate: {}\n{}: {}\nexpected: unsat",
            title,
            check.kind.name(),
            check.what
        );
        // A degree-2 fact: bit-vectors with opaque products and lemma instances.
        let opaque = check
            .in_integers
            .then(|| crate::term::products::opaque_formulas(store, &o.invariants, &formulas))
            .flatten();
        let (logic, text) = if let Some(opaque) = opaque {
            let text = smtlib_script_with(store, &[], &opaque, &comment, Products::Opaque);
            ("QF_UFBV", text)
        } else {
            let lifted = check
                .in_integers
                .then(|| integer_script(store, &o.invariants, &formulas, &comment, Names::Readable))
                .flatten();
            match lifted {
                Some(text) => ("QF_NIA", text),
                None => (
                    "QF_BV",
                    smtlib_script(store, &o.invariants, &formulas, &comment),
                ),
            }
        };
        let path = dir.join(&file);
        std::fs::write(&path, text).map_err(|e| at(&file, e))?;
        index.push(Entry {
            file,
            kind: check.kind.name(),
            what: check.what.as_str(),
            logic,
        });
    }
    if index.iter().any(|e| e.logic == "QF_UFBV") {
        // The lemmas that the opaque checks assume, each a check of its own.
        for (lemma, text) in lemmas::files(store, title) {
            let file = format!("{:0width$}-{}.smt2", index.len() + 1, lemma.name);
            let text = text.ok_or_else(|| format!("{file}: the lemma has no text in integers"))?;
            std::fs::write(dir.join(&file), text).map_err(|e| at(&file, e))?;
            index.push(Entry {
                file,
                kind: "lemma",
                what: lemma.what,
                logic: lemma.logic,
            });
        }
    }
    std::fs::write(dir.join("README"), readme_text(certificate, title, &index))
        .map_err(|e| at("README", e))?;
    std::fs::write(
        dir.join("certificate.json"),
        json_text(certificate, title, &index),
    )
    .map_err(|e| at("certificate.json", e))?;
    Ok(index.len())
}

/// Removes the check files an earlier certificate left (`NN-KIND-….smt2`), so that
/// `DIR/*.smt2` is this certificate's checks only.
fn remove_stale(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some((number, rest)) = name.split_once('-') else {
            continue;
        };
        let ours = !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit())
            && name.ends_with(".smt2")
            && [
                "initiation-",
                "consecution-",
                "exit-",
                "termination-",
                "lemma-",
            ]
            .iter()
            .any(|k| rest.starts_with(k));
        if ours && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

fn readme_text(c: &Certificate, title: &str, index: &[Entry]) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "Certificate of a loop proof by tamarin: {title}\n");
    let _ = writeln!(
        t,
        "Loop heads: left {}, right {}. Schedule: {}.\n",
        head(&c.heads[0]),
        head(&c.heads[1]),
        c.schedule.name()
    );
    let _ = writeln!(
        t,
        "Each .smt2 file is a standalone SMT-LIB 2 query (logic QF_BV, or another where marked) whose \
         unsatisfiability the proof\nrests on: every solver must answer `unsat` to each. \
         Re-check them with\n\n    for f in DIR/*.smt2; do cvc5 \"$f\"; done\n\n\
         A check over sums of products (a loop unrolled by two, a strength-reduced \
         counter) that cvc5's\nbit-blasting does not settle quickly, its translation \
         to integers does:\n\n    cvc5 --solve-bv-as-int=sum FILE\n"
    );
    if index.iter().any(|e| e.logic == "QF_NIA") {
        let _ = writeln!(
            t,
            "Checks marked QF_NIA use an invariant that holds without wrap-around (n = q * d + r \
             in the\nintegers): they are written in integers, each 32-bit value as its unsigned \
             reading in\n[0, 2^32), each operation that can wrap as its result mod 2^32 (left out \
             where the ranges\nof its operands show it cannot), division and remainder as div \
             and mod, and any other\noperation as a fresh value of its range. Every behaviour \
             of the machine is one of the\nintegers', so `unsat` there is `unsat` for the \
             machine. Where cvc5's nonlinear\nreasoning does not settle one quickly, \
             splitting on zero first does (a division):\n\n    \
             cvc5 --nl-ext-split-zero FILE\n"
        );
    }
    if index.iter().any(|e| e.kind == "lemma") {
        let _ = writeln!(
            t,
            "Checks marked QF_UFBV hold a degree-2 fact (a sum against its closed form). \
             They are written in\nbit-vectors with each 64-bit product of two words as \
             `mul64`, a function the file leaves\nunknown, each 32-bit product of two words \
             as the low word of theirs, and the invariant\nwritten out at each state \
             (its triangles b * (b - 1) as mul64(b, b - 1)). They assume\ninstances of the \
             lemma files (kind `lemma`), each of which proves its lemma of the\nproduct for \
             all words. An `unsat` holds for every function that satisfies the instances,\n\
             so for the product. Plain cvc5 settles each file, checks and lemmas alike.\n"
        );
    }
    let _ = writeln!(
        t,
        "The invariant (the inv.PLACE functions of the files, written out in QF_UFBV ones):"
    );
    for (place, facts) in &c.invariant {
        let _ = writeln!(t, "  {place}: {}", facts.join(", "));
    }
    let _ = writeln!(t, "\nThe checks (expected answer: unsat):");
    for e in index {
        let marked = if e.logic == "QF_BV" {
            String::new()
        } else {
            format!(" ({})", e.logic)
        };
        let _ = writeln!(t, "  {}{marked}\n    {}: {}", e.file, e.kind, e.what);
    }
    t
}

fn json_text(c: &Certificate, title: &str, index: &[Entry]) -> String {
    let checks: Vec<String> = index
        .iter()
        .map(|e| {
            format!(
                "    {{\"file\": {}, \"kind\": {}, \"checks\": {}, \"logic\": {}, \"expected\": \"unsat\"}}",
                quote(&e.file),
                quote(e.kind),
                quote(e.what),
                quote(e.logic)
            )
        })
        .collect();
    let invariant: Vec<String> = c
        .invariant
        .iter()
        .map(|(place, facts)| {
            let facts: Vec<String> = facts.iter().map(|f| quote(f)).collect();
            format!("    {}: [{}]", quote(place), facts.join(", "))
        })
        .collect();
    format!(
        "{{\n  \"proof\": {},\n  \"logic\": {},\n  \"heads\": {{\"left\": {}, \"right\": {}}},\n  \
         \"schedule\": {},\n  \"invariant\": {{\n{}\n  }},\n  \"checks\": [\n{}\n  ]\n}}\n",
        quote(title),
        // One logic where every check has it, else `mixed` (each check says its own).
        quote(match index.first().map(|e| e.logic) {
            Some(l) if index.iter().all(|e| e.logic == l) => l,
            None => "QF_BV",
            Some(_) => "mixed",
        }),
        quote(&head(&c.heads[0])),
        quote(&head(&c.heads[1])),
        quote(c.schedule.name()),
        invariant.join(",\n"),
        checks.join(",\n")
    )
}

/// A side's loop heads: `none`, or their addresses joined by commas.
fn head(heads: &[u32]) -> String {
    if heads.is_empty() {
        return "none".into();
    }
    let each: Vec<String> = heads.iter().map(|a| format!("0x{a:08x}")).collect();
    each.join(", ")
}

/// A JSON string.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::head;

    #[test]
    fn a_sides_heads_are_written_joined_by_commas() {
        assert_eq!(head(&[]), "none");
        assert_eq!(head(&[0x40_0010]), "0x00400010");
        assert_eq!(head(&[0x40_0010, 0x40_0018]), "0x00400010, 0x00400018");
    }
}
