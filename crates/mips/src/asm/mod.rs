//! The assembler for the CS241 dialect.
//!
//! One pass over the lines ([`lexer`] then [`parser`], one line at a time) emits the
//! words and records label definitions and label uses; a second pass over the uses
//! patches the words. Both passes are linear in the size of the source. Errors do not
//! stop assembly: each line is parsed independently, so every line with a problem is
//! reported (up to a limit).

mod diag;
mod lexer;
mod number;
mod parser;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use crate::isa::Reg;
use crate::link::{Module, Symbol};
use crate::program::Program;
use diag::{Diag, Located, Sink};
use parser::{BranchOp, Operand, Outcome, Stmt};

/// At most this many errors are kept in [`AsmErrors::errors`]; the rest are only counted.
pub const MAX_ERRORS: usize = 100;

/// One assembler error, located in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub column: u32,
    /// Byte range of the offending text within the whole source (empty at the end
    /// of a line when something is missing there).
    pub span: std::ops::Range<usize>,
    /// What was wrong, including what was expected.
    pub message: String,
    /// What was expected there, in a few words (e.g. "a register like $3"), for a
    /// renderer's label; `None` where the error is not about a missing thing.
    pub expected: Option<String>,
    /// Another place worth showing, with a note (e.g. where a duplicated label was
    /// first defined).
    pub related: Option<(std::ops::Range<usize>, String)>,
}

/// All errors found in one file (up to a limit), with the file's name and text so
/// that they can be rendered with context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors {
    pub path: String,
    pub source: String,
    /// The first errors, in source order (at most [`MAX_ERRORS`]).
    pub errors: Vec<AsmError>,
    /// Errors found beyond the limit and not kept.
    pub more: usize,
}

/// Plain text: `path:line:col: error: message`, the source line and a caret per error.
impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, e) in self.errors.iter().enumerate() {
            if n > 0 {
                writeln!(f)?;
            }
            writeln!(
                f,
                "{}:{}:{}: error: {}",
                self.path, e.line, e.column, e.message
            )?;
            diag::write_snippet(f, &self.source, &e.span)?;
        }
        if self.more > 0 {
            if !self.errors.is_empty() {
                writeln!(f)?;
            }
            let s = if self.more == 1 { "" } else { "s" };
            write!(f, "{} more error{s} not shown", self.more)?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}

/// Where a label was defined.
struct LabelDef {
    /// Index of the word it labels.
    index: usize,
    line: u32,
    span: Range<usize>,
}

/// What a label use becomes once the label's address is known.
#[derive(Clone, Copy)]
enum Use {
    Word,
    Branch { op: BranchOp, s: Reg, t: Reg },
}

/// A word waiting for a label's address.
struct Fixup {
    index: usize,
    kind: Use,
    label: Range<usize>,
    line: u32,
    line_start: usize,
}

/// Where an `.import` or `.export` directive named its label.
struct Directive {
    span: Range<usize>,
    line: u32,
    line_start: usize,
}

/// The state of one assembly.
struct Assembler<'a> {
    source: &'a str,
    words: Vec<u32>,
    lines: Vec<u32>,
    labels: HashMap<&'a str, LabelDef>,
    fixups: Vec<Fixup>,
    /// `.import` directives: each label's first, where it is.
    imports: HashMap<&'a str, Directive>,
    /// `.export` directives, in source order.
    exports: Vec<Directive>,
    /// Words holding a local label's address (REL entries), by index.
    relocs: Vec<usize>,
    /// Words holding an imported label's address (ESR entries), by index.
    uses: Vec<(usize, &'a str)>,
    /// Whether `.import` is refused: the text is to be a whole program by itself.
    flat: bool,
    /// Errors from reading the lines, in source order.
    syntax: Sink,
    /// Errors from resolving labels, in source order.
    resolve: Sink,
}

impl<'a> Assembler<'a> {
    fn text(&self, span: &Range<usize>) -> &'a str {
        self.source.get(span.clone()).unwrap_or("")
    }

    fn define(&mut self, span: Range<usize>, line: u32, line_start: usize) {
        let name = self.text(&span);
        if let Some(first) = self.labels.get(name) {
            if self.syntax.is_full() {
                self.syntax.more += 1;
            } else {
                let mut diag = Diag::new(
                    span,
                    format!(
                        "label {} is already defined on line {}; labels must be unique",
                        diag::quote(name),
                        first.line
                    ),
                );
                diag.related = Some((first.span.clone(), "first defined here".to_string()));
                self.syntax.push(Located {
                    diag,
                    line,
                    line_start,
                });
            }
            return;
        }
        let def = LabelDef {
            index: self.words.len(),
            line,
            span,
        };
        self.labels.insert(name, def);
    }

    /// Appends one word (a placeholder where a label is still to be resolved).
    fn emit(&mut self, stmt: Stmt, line: u32, line_start: usize) {
        let index = self.words.len();
        let fixup = |kind, label| Fixup {
            index,
            kind,
            label,
            line,
            line_start,
        };
        let word = match stmt {
            Stmt::Instr(i) => i.encode(),
            Stmt::Branch {
                op,
                s,
                t,
                target: Operand::Value(i),
            } => op.build(s, t, i).encode(),
            Stmt::Branch {
                op,
                s,
                t,
                target: Operand::Label(label),
            } => {
                let f = fixup(Use::Branch { op, s, t }, label);
                self.fixups.push(f);
                0
            }
            Stmt::Word(Operand::Value(v)) => v,
            Stmt::Word(Operand::Label(label)) => {
                let f = fixup(Use::Word, label);
                self.fixups.push(f);
                0
            }
            // Directives emit no word (the driver hands them to `directive`).
            Stmt::Import(_) | Stmt::Export(_) => return,
        };
        self.words.push(word);
        self.lines.push(line);
    }

    /// Patches every label use, reporting undefined labels and branches too far away.
    fn resolve(&mut self) {
        for f in std::mem::take(&mut self.fixups) {
            let name = self.text(&f.label);
            let Some(def) = self.labels.get(name) else {
                if self.imports.contains_key(name) {
                    match f.kind {
                        Use::Word => self.uses.push((f.index, name)),
                        Use::Branch { .. } => report(&mut self.resolve, &f, || {
                            Diag::new(
                                f.label.clone(),
                                format!(
                                    "branch to imported label {}: a branch's offset cannot be \
                                     linked; load the address with `lis` and `.word {name}`, \
                                     then `jr` or `jalr`",
                                    diag::quote(name)
                                ),
                            )
                            .expecting("a label defined in this file")
                        }),
                    }
                    continue;
                }
                report(&mut self.resolve, &f, || {
                    Diag::new(
                        f.label.clone(),
                        format!(
                            "undefined label {}: no line defines `{name}:`",
                            diag::quote(name)
                        ),
                    )
                    .expecting("a defined label")
                });
                continue;
            };
            let word = match f.kind {
                // Addresses above 4 GiB cannot occur: the loader caps programs at 16 MiB.
                Use::Word => {
                    self.relocs.push(f.index);
                    (def.index as u64 * 4) as u32
                }
                Use::Branch { op, s, t } => {
                    let offset = def.index as i64 - (f.index as i64 + 1);
                    let Ok(i) = i16::try_from(offset) else {
                        report(&mut self.resolve, &f, || {
                            let mut diag = Diag::new(
                                f.label.clone(),
                                format!(
                                    "branch target {} is too far away: the offset is {offset} \
                                     words, but a branch reaches only -32768 to 32767 words",
                                    diag::quote(name)
                                ),
                            );
                            diag.related =
                                Some((def.span.clone(), "label defined here".to_string()));
                            diag
                        });
                        continue;
                    };
                    op.build(s, t, i).encode()
                }
            };
            if let Some(w) = self.words.get_mut(f.index) {
                *w = word;
            }
        }
        self.check_directives();
    }

    /// Records an `.import` or `.export` directive.
    fn directive(&mut self, stmt: Stmt, line: u32, line_start: usize) {
        let (span, import) = match stmt {
            Stmt::Import(span) => (span, true),
            Stmt::Export(span) => (span, false),
            _ => return,
        };
        let d = Directive {
            span,
            line,
            line_start,
        };
        if !import {
            self.exports.push(d);
        } else if self.flat {
            self.syntax.push(Located {
                diag: Diag::new(
                    d.span.clone(),
                    format!(
                        "`.import {}` needs linking: this program must be linked with a \
                         module that exports the label",
                        self.text(&d.span)
                    ),
                ),
                line,
                line_start,
            });
        } else {
            let name = self.text(&d.span);
            self.imports.entry(name).or_insert(d);
        }
    }

    /// An imported label must not be defined here; an exported one must be.
    fn check_directives(&mut self) {
        let mut found = Vec::new();
        for d in self.imports.values() {
            let name = self.text(&d.span);
            if let Some(def) = self.labels.get(name) {
                let mut diag = Diag::new(
                    d.span.clone(),
                    format!(
                        "label {} is imported but also defined on line {}; a label is \
                         either imported or defined here",
                        diag::quote(name),
                        def.line
                    ),
                );
                diag.related = Some((def.span.clone(), "defined here".to_string()));
                found.push((diag, d.line, d.line_start));
            }
        }
        for d in &self.exports {
            let name = self.text(&d.span);
            if self.imports.contains_key(name) {
                found.push((
                    Diag::new(
                        d.span.clone(),
                        format!(
                            "label {} is imported, so it cannot be exported",
                            diag::quote(name)
                        ),
                    ),
                    d.line,
                    d.line_start,
                ));
            } else if !self.labels.contains_key(name) {
                found.push((
                    Diag::new(
                        d.span.clone(),
                        format!(
                            "exported label {} is not defined: no line defines `{name}:`",
                            diag::quote(name)
                        ),
                    )
                    .expecting("a defined label"),
                    d.line,
                    d.line_start,
                ));
            }
        }
        found.sort_by_key(|(d, _, _)| d.span.start);
        for (diag, line, line_start) in found {
            self.resolve.push(Located {
                diag,
                line,
                line_start,
            });
        }
    }
}

/// Records an error found at fixup `f`, building the message only if it will be kept.
fn report(sink: &mut Sink, f: &Fixup, make: impl FnOnce() -> Diag) {
    if sink.is_full() {
        sink.more += 1;
    } else {
        sink.push(Located {
            diag: make(),
            line: f.line,
            line_start: f.line_start,
        });
    }
}

/// Assembles `source` (named `path` in messages) into a program by itself: `.import`
/// is an error (see [`assemble_module`] for text to be linked), `.export` is allowed
/// and changes nothing.
pub fn assemble(path: &str, source: &str) -> Result<Program, AsmErrors> {
    let module = assemble_text(path, source, true)?;
    Ok(match module.lines {
        Some(lines) => Program::with_lines(module.words, lines),
        None => Program::from_words(module.words),
    })
}

/// Assembles `source` (named `path` in messages and in the module's symbols) into a
/// module: its code as if loaded at address 0, a relocation for every `.word` of a
/// label defined here, an import for every `.word` of an `.import`ed label and an
/// export for every `.export`. A branch to an imported label is an error, as in
/// `cs241.linkasm`: a branch's offset cannot be filled in by a linker.
pub fn assemble_module(path: &str, source: &str) -> Result<Module, AsmErrors> {
    assemble_text(path, source, false)
}

fn assemble_text(path: &str, source: &str, flat: bool) -> Result<Module, AsmErrors> {
    let mut asm = Assembler {
        source,
        words: Vec::new(),
        lines: Vec::new(),
        labels: HashMap::new(),
        fixups: Vec::new(),
        imports: HashMap::new(),
        exports: Vec::new(),
        relocs: Vec::new(),
        uses: Vec::new(),
        flat,
        syntax: Sink::default(),
        resolve: Sink::default(),
    };
    let mut toks = Vec::new();
    let mut defined = Vec::new();
    let mut line_start = 0;
    for (n, text) in source.split('\n').enumerate() {
        let line = u32::try_from(n + 1).unwrap_or(u32::MAX);
        toks.clear();
        lexer::lex_line(text, line_start, &mut toks);
        let outcome = parser::parse_line(source, &toks, &mut defined);
        for span in defined.drain(..) {
            asm.define(span, line, line_start);
        }
        match outcome {
            Outcome::Empty => {}
            Outcome::Stmt(stmt @ (Stmt::Import(_) | Stmt::Export(_))) => {
                asm.directive(stmt, line, line_start)
            }
            Outcome::Stmt(stmt) => asm.emit(stmt, line, line_start),
            Outcome::Error { diag, takes_word } => {
                asm.syntax.push(Located {
                    diag,
                    line,
                    line_start,
                });
                if takes_word {
                    asm.words.push(0);
                    asm.lines.push(line);
                }
            }
        }
        line_start += text.len() + 1;
    }
    asm.resolve();
    if asm.syntax.kept.is_empty() && asm.resolve.kept.is_empty() {
        let file: Arc<str> = Arc::from(path);
        let addr = |index: usize| (index as u64 * 4) as u32;
        let symbol = |name: &str, index: usize| Symbol {
            name: name.to_string(),
            addr: addr(index),
            file: file.clone(),
        };
        let imports = asm.uses.iter().map(|&(i, name)| symbol(name, i)).collect();
        let mut seen = std::collections::HashSet::new();
        let exports = asm
            .exports
            .iter()
            .filter_map(|d| {
                let name = asm.text(&d.span);
                let def = asm.labels.get(name)?;
                // `.export x` twice exports it once.
                seen.insert(name).then(|| symbol(name, def.index))
            })
            .collect();
        return Ok(Module {
            relocs: asm.relocs.iter().map(|&i| addr(i)).collect(),
            imports,
            exports,
            words: asm.words,
            lines: Some(asm.lines),
        });
    }
    let (errors, more) = diag::finish(source, asm.syntax, asm.resolve);
    Err(AsmErrors {
        path: path.to_string(),
        source: source.to_string(),
        errors,
        more,
    })
}
