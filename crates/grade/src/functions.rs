//! Grading MIPS32 functions: every submission's function of a name compared with the
//! reference's ([`grade_functions`]), and the wrong ones grouped by their bug
//! ([`group_functions`]).
//!
//! A group is proved, not guessed: two wrong submissions share one only when
//! `compare_functions` proves them equivalent to each other. The candidates are the
//! pairs that end alike on every witness of the class (each wrong submission's
//! counterexample), so a class with one common bug costs one proof per member.

use rayon::prelude::*;
use tamarin::{
    compare_functions, FunctionGap, FunctionOptions, FunctionRun, FunctionSide, FunctionVerdict,
};
use tamarin_mips::mips32::{calls, Image, Machine};

/// One submission to grade: its path and its image, or why it could not be read.
#[derive(Debug)]
pub struct FunctionEntry {
    pub path: String,
    pub image: Result<Image, String>,
}

/// A submission's grade.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionGrade {
    Equivalent,
    /// Arguments on which the two end differently, replayed on the emulator, and the
    /// two runs (the reference's first).
    Disequivalent {
        args: Vec<u32>,
        reference: FunctionRun,
        submission: FunctionRun,
    },
    /// No difference found, and what was not covered.
    PossiblyEquivalent(Vec<FunctionGap>),
    /// The file could not be graded: not a readable ELF file, no function of that
    /// name, or a call of a function it does not define.
    Unusable(String),
}

impl FunctionGrade {
    /// A stable name, for reports.
    pub fn name(&self) -> &'static str {
        match self {
            FunctionGrade::Equivalent => "equivalent",
            FunctionGrade::Disequivalent { .. } => "disequivalent",
            FunctionGrade::PossiblyEquivalent(_) => "possibly-equivalent",
            FunctionGrade::Unusable(_) => "unusable",
        }
    }
}

/// Whether `image` defines the function `name` and reaches no undefined function from
/// it; its entry when so.
pub fn function_entry(image: &Image, name: &str) -> Result<u32, String> {
    let Some(f) = image.function(name) else {
        return Err(format!("no function `{name}`"));
    };
    let reach = calls::reach(image, f.addr);
    if !reach.undefined.is_empty() {
        return Err(format!(
            "`{name}` calls {}, which the file does not define",
            reach.undefined.join(", ")
        ));
    }
    Ok(f.addr)
}

/// Grades every submission against the reference's function `name`, in `pool`.
/// `opts` are each comparison's (its time limit is per submission).
pub fn grade_functions(
    reference: FunctionSide<'_>,
    name: &str,
    subs: &[FunctionEntry],
    opts: &FunctionOptions,
    pool: &rayon::ThreadPool,
) -> Vec<FunctionGrade> {
    pool.install(|| {
        subs.par_iter()
            .map(|sub| {
                let image = match &sub.image {
                    Ok(image) => image,
                    Err(why) => return FunctionGrade::Unusable(why.clone()),
                };
                let entry = match function_entry(image, name) {
                    Ok(e) => e,
                    Err(why) => return FunctionGrade::Unusable(why),
                };
                let side = FunctionSide { image, entry };
                match compare_functions(reference, side, opts) {
                    Ok(report) => match report.verdict {
                        FunctionVerdict::Equivalent => FunctionGrade::Equivalent,
                        FunctionVerdict::Disequivalent(cx) => FunctionGrade::Disequivalent {
                            args: cx.args,
                            reference: cx.left,
                            submission: cx.right,
                        },
                        FunctionVerdict::PossiblyEquivalent(gaps) => {
                            FunctionGrade::PossiblyEquivalent(gaps)
                        }
                    },
                    Err(e) => FunctionGrade::Unusable(e.to_string()),
                }
            })
            .collect()
    })
}

/// The groups of wrong submissions (indices into `subs`, each group sorted, groups in
/// order of their first member); a wrong submission that shares its bug with none is
/// a group of its own. `name` is the function; `opts` bound each proof between two
/// wrong submissions.
pub fn group_functions(
    name: &str,
    subs: &[FunctionEntry],
    grades: &[FunctionGrade],
    opts: &FunctionOptions,
    pool: &rayon::ThreadPool,
) -> Vec<Vec<usize>> {
    let wrong: Vec<(usize, FunctionSide<'_>)> = (subs.iter().zip(grades).enumerate())
        .filter(|(_, (_, g))| matches!(g, FunctionGrade::Disequivalent { .. }))
        .filter_map(|(k, (sub, _))| {
            let image = sub.image.as_ref().ok()?;
            let entry = function_entry(image, name).ok()?;
            Some((k, FunctionSide { image, entry }))
        })
        .collect();
    let witnesses: Vec<&Vec<u32>> = grades
        .iter()
        .filter_map(|g| match g {
            FunctionGrade::Disequivalent { args, .. } => Some(args),
            _ => None,
        })
        .collect();
    // How each wrong submission ends on every witness.
    let signature = |side: FunctionSide<'_>| -> Vec<(String, Vec<u32>)> {
        witnesses
            .iter()
            .map(|args| {
                let mut m = Machine::new(side.image, opts.fuel);
                m.call(side.entry, args);
                let status = m.run();
                let observed = opts.observe.iter().map(|&r| m.regs().get(r)).collect();
                (format!("{status:?}"), observed)
            })
            .collect()
    };
    let signatures: Vec<Vec<(String, Vec<u32>)>> =
        pool.install(|| wrong.par_iter().map(|(_, side)| signature(*side)).collect());
    // Candidates: each wrong submission against the first earlier one of its
    // signature that heads a group; proved or kept apart.
    let mut heads: Vec<usize> = Vec::new();
    let mut group_of: Vec<usize> = vec![usize::MAX; wrong.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..wrong.len() {
        let candidates: Vec<usize> = heads
            .iter()
            .copied()
            .filter(|&h| signatures[h] == signatures[i])
            .collect();
        let joined = pool.install(|| {
            candidates.par_iter().find_first(|&&h| {
                matches!(
                    compare_functions(wrong[h].1, wrong[i].1, opts).map(|r| r.verdict),
                    Ok(FunctionVerdict::Equivalent)
                )
            })
        });
        match joined {
            Some(&h) => {
                group_of[i] = group_of[h];
                groups[group_of[h]].push(wrong[i].0);
            }
            None => {
                group_of[i] = groups.len();
                groups.push(vec![wrong[i].0]);
                heads.push(i);
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use tamarin_mips::mips32::image::{Symbol, SymbolKind};

    /// `f(a0, a1) = a0 + a1 + extra` (or `a0 - a1` with `sub`), as one function `f`.
    fn image(first: u32, extra: u16) -> Image {
        let words: [u32; 4] = [
            first,                      // addu/subu v0, a0, a1
            0x2442_0000 | extra as u32, // addiu v0, v0, extra
            0x03e0_0008,                // jr ra
            0x0000_0000,                // nop
        ];
        let mut img = Image::code(0x0040_0000, &words);
        img.symbols.insert(
            "f".into(),
            Symbol {
                addr: 0x0040_0000,
                size: 16,
                kind: SymbolKind::Function,
            },
        );
        img
    }

    const ADDU: u32 = 0x0085_1021;
    const SUBU: u32 = 0x0085_1023;

    #[test]
    fn a_class_is_graded_and_its_bugs_grouped_by_proof() {
        let reference = image(ADDU, 0);
        let subs = vec![
            FunctionEntry {
                path: "ok".into(),
                image: Ok(image(ADDU, 0)),
            },
            FunctionEntry {
                path: "plus-one-a".into(),
                image: Ok(image(ADDU, 1)),
            },
            FunctionEntry {
                path: "minus".into(),
                image: Ok(image(SUBU, 0)),
            },
            FunctionEntry {
                path: "plus-one-b".into(),
                image: Ok(image(ADDU, 1)),
            },
            FunctionEntry {
                path: "broken".into(),
                image: Err("not an ELF file".into()),
            },
            FunctionEntry {
                path: "nameless".into(),
                image: Ok(Image::default()),
            },
        ];
        let opts = FunctionOptions {
            args: 2,
            ..FunctionOptions::default()
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let side = FunctionSide {
            image: &reference,
            entry: 0x0040_0000,
        };
        let grades = grade_functions(side, "f", &subs, &opts, &pool);
        let names: Vec<&str> = grades.iter().map(FunctionGrade::name).collect();
        assert_eq!(
            names,
            [
                "equivalent",
                "disequivalent",
                "disequivalent",
                "disequivalent",
                "unusable",
                "unusable"
            ]
        );
        assert_eq!(grades[5], FunctionGrade::Unusable("no function `f`".into()));
        // The two off-by-ones are one bug; the subtraction is another.
        let groups = group_functions("f", &subs, &grades, &opts, &pool);
        assert_eq!(groups, vec![vec![1, 3], vec![2]]);
    }
}
