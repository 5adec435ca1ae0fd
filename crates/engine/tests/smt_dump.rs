//! The SMT-LIB printer: the text of a query means what the terms mean.
//!
//! Random queries built with the term builders are printed with `to_smtlib`, parsed
//! back by Z3 (in-process through the `z3` crate, and with the `z3` binary when it is
//! on PATH) and must get the answer `Z3Solver` gives on the terms; models of either
//! must satisfy the assertions under the concrete evaluator. Then the query dumps of
//! a whole comparison.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use proptest::prelude::*;
use tamarin::concolic::{compare, Options, Quiet};
use tamarin::solver::{Answer, Solver, Z3Mode, Z3Solver};
use tamarin::term::{to_smtlib, BinOp, Evaluator, Term, TermStore};
use tamarin::verdict::Verdict;
use tamarin_mips::loader::load_file;
use z3::ast::BV;
use z3::{Params, SatResult};

/// Per query; an unknown answer on either side skips the comparison.
const TIMEOUT: Duration = Duration::from_secs(2);

/// One step of building a query: each refers to earlier terms by index (taken
/// modulo the size of the pool it reads).
#[derive(Clone, Debug)]
enum Step {
    Const(u64),
    Bin(usize, usize, usize),
    Ite(usize, usize, usize),
    /// The high or low half of a widened signed or unsigned product.
    WideMul {
        signed: bool,
        high: bool,
        a: usize,
        b: usize,
    },
    /// `extract(hi, lo, a)`, zero- or sign-extended back to the pool's width.
    Slice {
        hi: u8,
        lo: u8,
        a: usize,
        sign: bool,
    },
    /// `concat(low half of a, high half of b)`.
    Swap(usize, usize),
    Cmp(usize, usize, usize),
    Not(usize),
    And(usize, usize),
    Or(usize, usize),
    /// A read at `at` of a memory filled with `fill` and then stored into at each
    /// address with each value, in turn (only in 32-bit queries).
    Read {
        fill: usize,
        stores: Vec<(usize, usize)>,
        at: usize,
    },
}

const BV_OPS: [BinOp; 8] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::UDiv,
    BinOp::URem,
    BinOp::SDiv,
    BinOp::SRem,
    BinOp::BvAnd,
];
const CMP_OPS: [BinOp; 3] = [BinOp::Eq, BinOp::Ult, BinOp::Slt];

fn step() -> impl Strategy<Value = Step> {
    let ix = || 0usize..64;
    prop_oneof![
        1 => prop_oneof![any::<u64>(), 0u64..4, Just(u64::MAX)].prop_map(Step::Const),
        4 => (0..BV_OPS.len(), ix(), ix()).prop_map(|(o, a, b)| Step::Bin(o, a, b)),
        1 => (ix(), ix(), ix()).prop_map(|(c, a, b)| Step::Ite(c, a, b)),
        1 => (any::<bool>(), any::<bool>(), ix(), ix())
            .prop_map(|(signed, high, a, b)| Step::WideMul { signed, high, a, b }),
        1 => (0u8..32, 0u8..32, ix(), any::<bool>()).prop_map(|(x, y, a, sign)| Step::Slice {
            hi: x.max(y),
            lo: x.min(y),
            a,
            sign
        }),
        1 => (ix(), ix()).prop_map(|(a, b)| Step::Swap(a, b)),
        3 => (0..CMP_OPS.len(), ix(), ix()).prop_map(|(o, a, b)| Step::Cmp(o, a, b)),
        1 => ix().prop_map(Step::Not),
        1 => (ix(), ix()).prop_map(|(a, b)| Step::And(a, b)),
        1 => (ix(), ix()).prop_map(|(a, b)| Step::Or(a, b)),
        1 => (ix(), proptest::collection::vec((ix(), ix()), 0..4), ix())
            .prop_map(|(fill, stores, at)| Step::Read { fill, stores, at }),
    ]
}

/// A query: the store, its assertions.
struct Query {
    store: TermStore,
    assertions: Vec<Term>,
    width: u8,
}

/// Builds the terms of `steps` over inputs of `width` bits named as the engine
/// names them, plus one with a plain name.
fn build(width: u8, steps: &[Step], picks: &[usize]) -> Query {
    let mut s = TermStore::new();
    let mut bvs: Vec<Term> = vec![
        s.new_var("$1", width),
        s.new_var("$2", width),
        s.new_var("x", width),
    ];
    for k in [0u64, 1, u64::MAX, 1 << (width - 1)] {
        bvs.push(s.constant(width, k));
    }
    let mut bools: Vec<Term> = Vec::new();
    let half = width / 2;
    for st in steps {
        let bv = |i: usize| bvs[i % bvs.len()];
        match st {
            // Memory holds 32-bit words at 32-bit addresses.
            Step::Read { .. } if width != 32 => continue,
            Step::Read { fill, stores, at } => {
                let mut m = s.const_array(bv(*fill));
                for &(a, v) in stores {
                    m = s.store(m, bv(a), bv(v));
                }
                let t = s.select(m, bv(*at));
                bvs.push(t);
                continue;
            }
            _ => {}
        }
        match *st {
            Step::Const(k) => {
                let t = s.constant(width, k);
                bvs.push(t);
            }
            Step::Bin(o, a, b) => {
                let t = s.bin(BV_OPS[o], bv(a), bv(b));
                bvs.push(t);
            }
            Step::Ite(c, a, b) => {
                if bools.is_empty() {
                    continue;
                }
                let c = bools[c % bools.len()];
                let t = s.ite(c, bv(a), bv(b));
                bvs.push(t);
            }
            // 64-bit products can take Z3 seconds; 16-bit ones show the same printing.
            Step::WideMul { .. } if width > 16 => continue,
            Step::WideMul { signed, high, a, b } => {
                let (x, y) = (bv(a), bv(b));
                let (x, y) = if signed {
                    (s.sign_ext(width, x), s.sign_ext(width, y))
                } else {
                    (s.zero_ext(width, x), s.zero_ext(width, y))
                };
                let p = s.bin(BinOp::Mul, x, y);
                let t = if high {
                    s.extract(2 * width - 1, width, p)
                } else {
                    s.extract(width - 1, 0, p)
                };
                bvs.push(t);
            }
            Step::Slice { hi, lo, a, sign } => {
                let (hi, lo) = (hi % width, lo % width);
                let (hi, lo) = (hi.max(lo), hi.min(lo));
                let part = s.extract(hi, lo, bv(a));
                let by = width - (hi - lo + 1);
                let t = if sign {
                    s.sign_ext(by, part)
                } else {
                    s.zero_ext(by, part)
                };
                bvs.push(t);
            }
            Step::Swap(a, b) => {
                let low = s.extract(half - 1, 0, bv(a));
                let high = s.extract(width - 1, half, bv(b));
                let t = s.bin(BinOp::Concat, low, high);
                bvs.push(t);
            }
            Step::Cmp(o, a, b) => {
                let t = s.bin(CMP_OPS[o], bv(a), bv(b));
                bools.push(t);
            }
            Step::Not(a) if !bools.is_empty() => {
                let t = s.not(bools[a % bools.len()]);
                bools.push(t);
            }
            Step::And(a, b) if !bools.is_empty() => {
                let t = s.and(bools[a % bools.len()], bools[b % bools.len()]);
                bools.push(t);
            }
            Step::Or(a, b) if !bools.is_empty() => {
                let t = s.or(bools[a % bools.len()], bools[b % bools.len()]);
                bools.push(t);
            }
            Step::Not(_) | Step::And(..) | Step::Or(..) | Step::Read { .. } => {}
        }
    }
    if bools.is_empty() {
        let (a, b) = (bvs[0], bvs.last().copied().unwrap_or(bvs[1]));
        bools.push(s.bin(BinOp::Ult, a, b));
    }
    let assertions = picks.iter().map(|&p| bools[p % bools.len()]).collect();
    Query {
        store: s,
        assertions,
        width,
    }
}

/// The answer of the terms, from the engine's backend.
fn backend(q: &mut Query) -> Answer {
    Z3Solver::new(Z3Mode::Fresh, TIMEOUT).check(&mut q.store, &q.assertions)
}

/// Whether every assertion holds at `values`.
fn satisfies(store: &TermStore, assertions: &[Term], values: &[u64]) -> bool {
    let mut ev = Evaluator::new(store, values);
    assertions.iter().all(|&a| ev.holds(a))
}

/// Parses `text` into a fresh in-process solver and checks it; returns the answer
/// and, when sat, the model's values of `vars` (name and width, in input order).
fn parsed(text: &str, asserted: usize, vars: &[(&str, u8)]) -> (SatResult, Option<Vec<u64>>) {
    let solver = z3::Solver::new();
    let mut p = Params::new();
    p.set_u32("timeout", TIMEOUT.as_millis() as u32);
    solver.set_params(&p);
    solver.from_string(text);
    assert_eq!(
        solver.get_assertions().len(),
        asserted,
        "the text did not parse:\n{text}"
    );
    let result = solver.check();
    if result != SatResult::Sat {
        return (result, None);
    }
    let model = solver.get_model().expect("a model");
    let values = vars
        .iter()
        .map(|&(name, width)| {
            let c = BV::new_const(name, width as u32);
            model
                .eval(&c, true)
                .and_then(|v| v.as_u64())
                .expect("model value")
        })
        .collect();
    (result, Some(values))
}

fn answer_name(r: SatResult) -> &'static str {
    match r {
        SatResult::Sat => "sat",
        SatResult::Unsat => "unsat",
        SatResult::Unknown => "unknown",
    }
}

/// One `z3 -in` process for the whole test binary, fed query after query.
struct Z3Binary {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn start_z3_binary() -> Option<Mutex<Z3Binary>> {
    let mut child = Command::new("z3")
        .arg("-in")
        .arg(format!("-t:{}", TIMEOUT.as_millis()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdin = child.stdin.take()?;
    let stdout = BufReader::new(child.stdout.take()?);
    Some(Mutex::new(Z3Binary {
        _child: child,
        stdin,
        stdout,
    }))
}

/// The `z3` binary's answer to `text` (its first line of output), if there is a
/// `z3` on PATH.
fn z3_binary(text: &str) -> Option<String> {
    static BINARY: OnceLock<Option<Mutex<Z3Binary>>> = OnceLock::new();
    let z3 = BINARY.get_or_init(start_z3_binary).as_ref()?;
    let mut z3 = z3.lock().unwrap_or_else(|e| e.into_inner());
    // A process that will not take input (no real z3 behind the name) is no z3.
    z3.stdin.write_all(text.as_bytes()).ok()?;
    z3.stdin.write_all(b"(reset)\n").ok()?;
    z3.stdin.flush().ok()?;
    let mut line = String::new();
    if z3.stdout.read_line(&mut line).ok()? == 0 {
        return None;
    }
    Some(line.trim().to_string())
}

fn check_query(q: &mut Query) -> Result<(), TestCaseError> {
    let text = to_smtlib(&mut q.store, &q.assertions, "a random query\nsecond line");
    prop_assert!(text.contains("(check-sat)"));
    prop_assert!(text.starts_with("; a random query\n; second line\n"));
    let ours = backend(q);
    let names: Vec<&str> = (0..q.store.var_count() as u32)
        .map(|i| q.store.var_name(i))
        .collect();
    let vars: Vec<(&str, u8)> = names.iter().map(|&n| (n, q.width)).collect();
    let (theirs, values) = parsed(&text, q.assertions.len(), &vars);
    if matches!(ours, Answer::Unknown(_)) || theirs == SatResult::Unknown {
        return Ok(());
    }
    prop_assert_eq!(ours.name(), answer_name(theirs), "\n{}", text);
    if let Answer::Sat(m) = &ours {
        prop_assert!(
            satisfies(&q.store, &q.assertions, &m.values),
            "backend model {:?}",
            m.values
        );
    }
    if let Some(v) = values {
        prop_assert!(
            satisfies(&q.store, &q.assertions, &v),
            "model of the text {:?}\n{}",
            v,
            text
        );
    }
    if let Some(line) = z3_binary(&text) {
        if line != "unknown" && line != "timeout" {
            prop_assert_eq!(line.as_str(), ours.name(), "z3 binary on\n{}", text);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn printed_queries_get_the_backends_answer(
        width in prop_oneof![4 => Just(8u8), 1 => Just(16u8), 1 => Just(32u8)],
        steps in proptest::collection::vec(step(), 1..24),
        picks in proptest::collection::vec(any::<usize>(), 1..4),
    ) {
        check_query(&mut build(width, &steps, &picks))?;
    }
}

#[test]
fn fixed_queries_with_both_answers() {
    // sat: $1 + $2 == 7 and $1 <u 3; unsat: additionally $1 == 5.
    let mut s = TermStore::new();
    let a = s.new_var("$1", 32);
    let b = s.new_var("$2", 32);
    let sum = s.bin(BinOp::Add, a, b);
    let seven = s.word(7);
    let three = s.word(3);
    let five = s.word(5);
    let c1 = s.eq(sum, seven);
    let c2 = s.bin(BinOp::Ult, a, three);
    let c3 = s.eq(a, five);
    let mut sat = Query {
        store: s,
        assertions: vec![c1, c2],
        width: 32,
    };
    check_query(&mut sat).unwrap();
    let text = to_smtlib(&mut sat.store, &sat.assertions, "");
    assert_eq!(parsed(&text, 2, &[]).0, SatResult::Sat);
    let mut unsat = Query {
        store: sat.store,
        assertions: vec![c1, c2, c3],
        width: 32,
    };
    check_query(&mut unsat).unwrap();
    let text = to_smtlib(&mut unsat.store, &unsat.assertions, "");
    assert_eq!(parsed(&text, 3, &[]).0, SatResult::Unsat);
    // Division by zero means the same in the text: x / 0 == all ones is valid.
    let mut s = TermStore::new();
    let x = s.new_var("$1", 32);
    let zero = s.word(0);
    let q = s.bin(BinOp::UDiv, x, zero);
    let ones = s.word(u32::MAX);
    let wrong = s.ne(q, ones);
    let mut q = Query {
        store: s,
        assertions: vec![wrong],
        width: 32,
    };
    check_query(&mut q).unwrap();
    assert_eq!(backend(&mut q), Answer::Unsat);
}

fn paper(name: &str) -> tamarin_mips::Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name);
    load_file(&path, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Reads the dumps in `dir`: (file name, text, answer in the comment).
fn dumps(dir: &Path) -> Vec<(String, String, String)> {
    let mut v: Vec<(String, String, String)> = std::fs::read_dir(dir)
        .expect("dump dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.starts_with("query-") && n.ends_with(".smt2")
        })
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read dump");
            let answer = text
                .lines()
                .find_map(|l| l.strip_prefix("; answer: "))
                .unwrap_or_else(|| panic!("{} has no answer comment:\n{text}", p.display()))
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                text,
                answer,
            )
        })
        .collect();
    v.sort();
    v
}

fn check_dumps(dir: &Path) -> usize {
    let files = dumps(dir);
    for (name, text, answer) in &files {
        assert!(text.contains("(check-sat)"), "{name}");
        assert!(
            ["sat", "unsat", "unknown"].contains(&answer.as_str()),
            "{name}: {answer}"
        );
        let asserted = text.lines().filter(|l| l.starts_with("(assert ")).count();
        let (result, _) = parsed(text, asserted, &[]);
        if answer != "unknown" && result != SatResult::Unknown {
            assert_eq!(answer_name(result), answer, "{name}:\n{text}");
        }
        if let Some(line) = z3_binary(text) {
            if answer != "unknown" && line != "unknown" && line != "timeout" {
                assert_eq!(&line, answer, "z3 binary on {name}");
            }
        }
    }
    files.len()
}

#[test]
fn comparison_dumps_replayable_queries() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut opts = Options::default();
    opts.solver.dump_dir = Some(dir.path().to_path_buf());
    // They differ only where $1 + $2 == 12345: a difference only the solver finds.
    let report = compare(
        &paper("../needle/left.asm"),
        &paper("../needle/right.asm"),
        &opts,
        &mut Quiet,
    );
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            assert_eq!(cx.inputs[0].1.wrapping_add(cx.inputs[1].1), 12345)
        }
        v => panic!("expected disequivalent, got {v:?}"),
    }
    let n = check_dumps(dir.path());
    assert!(n >= 1, "no queries dumped");
    // Some query found $1 + $2 == 12345.
    assert!(dumps(dir.path()).iter().any(|(_, _, a)| a == "sat"));
}

#[test]
fn without_caches_every_query_is_dumped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut opts = Options::default();
    opts.solver.dump_dir = Some(dir.path().to_path_buf());
    opts.solver.caching = false;
    let report = compare(
        &paper("../needle/left.asm"),
        &paper("../needle/left.asm"),
        &opts,
        &mut Quiet,
    );
    assert!(
        matches!(report.verdict, Verdict::Equivalent(_)),
        "{:?}",
        report.verdict
    );
    // Queries the chain decides before the backend (an input fixed by `x == k`) are
    // not dumped; every other one is.
    let n = check_dumps(dir.path());
    assert!(n as u64 <= report.stats.solver.queries);
    assert!(n >= 1, "the needle's path needs the backend: {n} queries");
}
