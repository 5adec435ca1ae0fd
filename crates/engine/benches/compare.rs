//! Comparison timings: every paper pair and a growing family of nested conditions, in
//! process, for each way of driving Z3. Prints a Markdown table for BENCHMARKS.md.
//!
//! Run: `cargo bench -p tamarin --bench compare` (add `-- --quick` for fewer repeats,
//! any other word to keep only the cases whose name contains it, and `-- --solvers` to
//! compare the solver backends instead of the Z3 modes, `-- --check` for `check` and
//! `paths` against random testing, `-- --engines` for proofs with each engine, one
//! table per family (`--depth=N` sets the concolic depth bound), and
//! `-- --engines --solvers` for the proofs with each engine and each solver backend).

use std::path::Path;
use std::time::{Duration, Instant};

use tamarin::concolic::{Options, Quiet, Report};
use tamarin::equiv::compare;
use tamarin::solver::Z3Mode;
use tamarin::verdict::{Engine, Verdict};
use tamarin_mips::asm::assemble;
use tamarin_mips::loader::load_file;
use tamarin_mips::Program;

fn paper(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/paper")
        .join(name);
    match load_file(&path, None) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

/// N nested conditions (alternately on $1 and $2); only the innermost path sets
/// `$3 = innermost`, every other path leaves `$3 = 0`.
pub fn nested(n: usize, innermost: u32) -> Program {
    let mut s = String::new();
    for k in 0..n {
        let reg = if k % 2 == 0 { 1 } else { 2 };
        s.push_str(&format!(
            "lis $6\n.word {k}\nslt $5, $6, ${reg}\nbeq $5, $0, out\n"
        ));
    }
    s.push_str(&format!("lis $3\n.word {innermost}\nout:\njr $31\n"));
    match assemble("nested.asm", &s) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

/// The same function as [`nested`] written differently: each level tests
/// `$r < k + 1` and leaves when it holds (`bne`), rather than leaving unless `k < $r`.
fn nested_rewritten(n: usize, innermost: u32) -> Program {
    let mut s = String::new();
    for k in 0..n {
        let reg = if k % 2 == 0 { 1 } else { 2 };
        s.push_str(&format!(
            "lis $6\n.word {}\nslt $5, ${reg}, $6\nbne $5, $0, out\n",
            k + 1
        ));
    }
    s.push_str(&format!("lis $3\n.word {innermost}\nout:\njr $31\n"));
    asm(&s)
}

struct Case {
    name: String,
    left: Program,
    right: Program,
    fuel: Option<u64>,
    /// Extra settings (inputs, observables) for the precision cases.
    setup: fn(&mut Options),
}

fn asm(text: &str) -> Program {
    match assemble("bench.asm", text) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn no_setup(_: &mut Options) {}

/// Pairs that only the precision features separate (see crates/engine/tests/precision.rs).
fn precision_cases() -> Vec<Case> {
    let table = |third: u32| {
        asm(&format!(
            "lis $4\n.word 4\ndivu $1, $4\nmfhi $5\nadd $5, $5, $5\nadd $5, $5, $5\n\
             lis $6\n.word table\nadd $6, $6, $5\nlw $7, 0($6)\njr $7\n\
             c0: lis $3\n.word 10\njr $31\nc1: lis $3\n.word 11\njr $31\n\
             c2: lis $3\n.word {third}\njr $31\nc3: lis $3\n.word 13\njr $31\n\
             table: .word c0\n.word c1\n.word c2\n.word c3\n"
        ))
    };
    let alias = asm(
        "lis $4\n.word 16\ndivu $1, $4\nmfhi $5\nadd $5, $5, $5\nadd $5, $5, $5\n\
         lis $6\n.word 0x1000\nadd $5, $5, $6\nsw $2, 0($5)\nlis $7\n.word 0x100c\n\
         lw $3, 0($7)\njr $31\n",
    );
    let zero = asm("lis $3\n.word 0\njr $31\n");
    let sum = |skip: bool| {
        let skip = if skip {
            "lis $9\n.word 3\nbeq $6, $9, next\n"
        } else {
            ""
        };
        asm(&format!(
            "lis $8\n.word 1\nlis $10\n.word 4\nadd $3, $0, $0\nadd $6, $0, $0\n\
             add $7, $1, $0\nloop:\nbeq $6, $2, done\n{skip}lw $5, 0($7)\n\
             add $3, $3, $5\nnext:\nadd $7, $7, $10\nadd $6, $6, $8\n\
             beq $0, $0, loop\ndone:\njr $31\n"
        ))
    };
    let out1 = asm("lis $4\n.word 0xffff000c\nsw $1, 0($4)\njr $31\n");
    let out2 = asm(
        "lis $4\n.word 0xffff000c\nsw $1, 0($4)\nlis $5\n.word 65\nbne $1, $5, end\n\
         sw $1, 0($4)\nend:\njr $31\n",
    );
    fn array(o: &mut Options) {
        o.inputs = tamarin::io::InputSpec::Array {
            max_len: 6,
            base: None,
        };
    }
    fn output(o: &mut Options) {
        o.observe = vec![tamarin::io::Observable::Output];
    }
    let case = |name: &str, left: Program, right: Program, setup: fn(&mut Options)| Case {
        name: name.to_string(),
        left,
        right,
        fuel: None,
        setup,
    };
    vec![
        case("jump table (differ)", table(12), table(99), no_setup),
        case("jump table (same)", table(12), table(12), no_setup),
        case("aliasing store/load", alias, zero, no_setup),
        case(
            "array sum, 4th element (differ)",
            sum(false),
            sum(true),
            array,
        ),
        case("array sum (same)", sum(false), sum(false), array),
        case("output only (differ)", out1, out2, output),
    ]
}

fn cases() -> Vec<Case> {
    let pairs: &[(&str, &str, Option<u64>)] = &[
        ("fig1-left.asm", "fig1-right.asm", None),
        ("fig1-left.asm", "fig1-literal-right.asm", None),
        ("fig1-left.asm", "fig2-right.asm", Some(10)),
        ("fig1-left.asm", "fig2-right.asm", None),
        ("fig5-left.asm", "fig5-right.asm", None),
        ("fig8-left.asm", "fig8-right.asm", None),
        ("fig8-left.asm", "fig8-left.asm", None),
        ("fig12-left.asm", "fig1-left.asm", None),
    ];
    let mut out: Vec<Case> = pairs
        .iter()
        .map(|&(l, r, fuel)| Case {
            name: format!(
                "{} / {}{}",
                l.trim_end_matches(".asm"),
                r.trim_end_matches(".asm"),
                fuel.map_or(String::new(), |f| format!(" (fuel {f})"))
            ),
            left: paper(l),
            right: paper(r),
            fuel,
            setup: no_setup,
        })
        .collect();
    for n in [5, 10, 20, 40] {
        out.push(Case {
            name: format!("nested N={n} (differ)"),
            left: nested(n, 1),
            right: nested(n, 2),
            fuel: None,
            setup: no_setup,
        });
        out.push(Case {
            name: format!("nested N={n} (same)"),
            left: nested(n, 1),
            right: nested(n, 1),
            fuel: None,
            setup: no_setup,
        });
    }
    out.extend(precision_cases());
    for bound in [5, 10, 20, 40] {
        out.push(Case {
            name: format!("loop vs closed form, $1 <= {bound} (same)"),
            left: sum_loop(bound),
            right: sum_closed(bound),
            fuel: None,
            setup: no_setup,
        });
    }
    out
}

/// `1 + … + $1` by a loop for `0 <= $1 <= bound`, else 0.
fn sum_loop(bound: u32) -> Program {
    asm(&format!(
        "slt $4, $1, $0\nbne $4, $0, zero\nlis $5\n.word {}\nslt $4, $1, $5\nbeq $4, $0, zero\n\
         add $3, $0, $0\nadd $6, $0, $0\nlis $7\n.word 1\nloop:\nbeq $6, $1, out\n\
         add $6, $6, $7\nadd $3, $3, $6\nbeq $0, $0, loop\nout:\njr $31\nzero:\nadd $3, $0, $0\njr $31\n",
        bound + 1
    ))
}

/// The same by `$1 * ($1 + 1) / 2`.
fn sum_closed(bound: u32) -> Program {
    asm(&format!(
        "slt $4, $1, $0\nbne $4, $0, zero\nlis $5\n.word {}\nslt $4, $1, $5\nbeq $4, $0, zero\n\
         lis $7\n.word 1\nadd $6, $1, $7\nmult $1, $6\nmflo $3\nlis $8\n.word 2\ndivu $3, $8\n\
         mflo $3\njr $31\nzero:\nadd $3, $0, $0\njr $31\n",
        bound + 1
    ))
}

/// The options of `case` (the concolic engine unless `tune` says otherwise).
fn options(case: &Case, tune: impl Fn(&mut Options)) -> Options {
    let mut opts = Options::default();
    if let Some(f) = case.fuel {
        opts.fuel = f;
    }
    opts.engine = Engine::Concolic;
    tune(&mut opts);
    (case.setup)(&mut opts);
    opts
}

/// Median time of `case` over `repeats` comparisons (after one warm-up: the first
/// query of a thread pays for Z3's context), with `tune` applied to the options.
fn time_with(case: &Case, repeats: usize, tune: impl Fn(&mut Options)) -> (Duration, Report) {
    let opts = options(case, tune);
    let mut report = compare(&case.left, &case.right, &opts, &mut Quiet);
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let start = Instant::now();
        report = compare(&case.left, &case.right, &opts, &mut Quiet);
        times.push(start.elapsed());
    }
    times.sort();
    (times[times.len() / 2], report)
}

fn time(case: &Case, mode: Z3Mode, repeats: usize) -> (Duration, Report) {
    time_with(case, repeats, |o| o.solver.z3_mode = mode)
}

/// Median time of `case` with an external solver (`None`: Z3 in process).
fn time_external(case: &Case, solver: Option<&str>, repeats: usize) -> (Duration, Report) {
    time_with(case, repeats, |o| {
        o.solver.external = solver.map(str::to_string)
    })
}

/// Z3 in process, and the external solvers that are installed.
fn available_backends() -> Vec<(&'static str, Option<&'static str>)> {
    [
        ("z3 in process", None),
        ("z3 binary", Some("z3")),
        ("cvc5", Some("cvc5")),
        ("yices", Some("yices")),
    ]
    .into_iter()
    .filter(|(_, cmd)| {
        cmd.is_none_or(|c| {
            tamarin::solver::ProcessSolver::from_name(c, Duration::from_secs(5))
                .and_then(|p| p.probe())
                .is_ok()
        })
    })
    .collect()
}

/// `--solvers`: every backend on every case (external ones only where installed).
fn solvers_table(filters: &[&String], repeats: usize) {
    let backends = available_backends();
    let names: Vec<&str> = backends.iter().map(|(n, _)| *n).collect();
    println!("| case | verdict | queries | {} |", names.join(" | "));
    println!("|---|---|---|{}", "---|".repeat(names.len()));
    for case in cases() {
        if !filters.is_empty() && !filters.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        let mut cells = Vec::new();
        let mut verdict = String::new();
        let mut queries = 0;
        for (_, cmd) in &backends {
            let (t, r) = time_external(&case, *cmd, repeats);
            if verdict.is_empty() {
                verdict = r.verdict.name().to_string();
                queries = r.stats.solver.queries;
            }
            assert_eq!(verdict, r.verdict.name(), "{} with {cmd:?}", case.name);
            cells.push(format!("{:.2} ms", t.as_secs_f64() * 1e3));
        }
        println!(
            "| {} | {verdict} | {queries} | {} |",
            case.name,
            cells.join(" | ")
        );
    }
}

/// `--check`: one program alone. Time for `check` to find a needle (a division by zero
/// for exactly one input) and for `explore` to list every path of the nested family,
/// against random testing of the same program on the plain emulator.
fn check_table(repeats: usize) {
    use tamarin::check::check;
    use tamarin::concolic::explore;
    use tamarin_mips::cpu::{Config, Frontend, Machine, NoTrace};
    let needle = asm("lis $4\n.word 123456789\nsub $5, $1, $4\ndiv $2, $5\nmflo $3\njr $31\n");
    let median = |f: &mut dyn FnMut()| {
        let mut t: Vec<Duration> = (0..repeats)
            .map(|_| {
                let s = Instant::now();
                f();
                s.elapsed()
            })
            .collect();
        t.sort();
        t[t.len() / 2]
    };
    let opts = Options::default();
    // Random testing: inputs per second on the plain emulator (one reused machine).
    let random_rate = |p: &Program| {
        let mut m = Machine::new(p, Config::default());
        let mut x = 0x9E37_79B9u32;
        let n = 2_000_000u32;
        let start = Instant::now();
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            m.reset();
            let _ = m.apply(&Frontend::TwoInts(x, x.rotate_left(7)));
            let _ = m.run(&mut NoTrace);
        }
        n as f64 / start.elapsed().as_secs_f64()
    };
    println!("| program | search | median | paths | paths/s | random inputs/s | expected time for random testing |");
    println!("|---|---|---|---|---|---|---|");
    let mut found = 0;
    let t = median(&mut || {
        found = check(&needle, &opts, &mut Quiet).findings.len();
    });
    assert_eq!(found, 1);
    let paths = explore(&needle, &opts, &mut Quiet).paths.len();
    let rate = random_rate(&needle);
    println!(
        "| needle: div by ($1 - 123456789) | check finds it | {:.2} ms | {paths} | {:.0} | {:.2e} | {:.0} s (2^32 / rate) |",
        t.as_secs_f64() * 1e3,
        paths as f64 / t.as_secs_f64(),
        rate,
        4_294_967_296f64 / rate
    );
    for n in [5, 10, 20, 40] {
        let p = nested(n, 1);
        let mut count = 0;
        let t = median(&mut || {
            count = explore(&p, &opts, &mut Quiet).paths.len();
        });
        let rate = random_rate(&p);
        // Exiting at level k >= 2 needs one input positive but at most k (the other
        // above k - 1): about k in 2^33 random inputs. The rarest, k = 2, takes about
        // 2^32 inputs on average.
        println!(
            "| nested N={n} | paths lists all | {:.2} ms | {count} | {:.0} | {:.2e} | {:.0} s for the rarest path (2^32 / rate), and no proof that all were seen |",
            t.as_secs_f64() * 1e3,
            count as f64 / t.as_secs_f64(),
            rate,
            4_294_967_296f64 / rate
        );
    }
}

/// `k` if-then-else blocks in sequence, each on one bit of `$1` (the sign bit of `$1`
/// doubled `i` times), adding one of two constants to `$3`: `2^k` paths, all feasible.
fn branches(k: u32) -> Program {
    let mut s = String::from("add $3, $0, $0\nadd $4, $1, $0\n");
    for i in 0..k {
        let (a, b) = branch_values(i);
        s.push_str(&format!(
            "slt $5, $4, $0\nbeq $5, $0, else{i}\nlis $6\n.word {a}\nbeq $0, $0, join{i}\n\
             else{i}:\nlis $6\n.word {b}\njoin{i}:\nadd $3, $3, $6\nadd $4, $4, $4\n"
        ));
    }
    s.push_str("jr $31\n");
    asm(&s)
}

/// What block `i` of [`branches`] adds when the bit is set, and when it is not.
fn branch_values(i: u32) -> (u32, u32) {
    (i * i + 7, 3 * i + 1)
}

/// The same function as [`branches`] written differently: start from the sum of the
/// `else` constants and add the difference only when the bit is set (one arm per
/// block).
fn branches_delta(k: u32) -> Program {
    let base: u32 = (0..k).map(|i| branch_values(i).1).sum();
    let mut s = format!("lis $3\n.word {base}\nadd $4, $1, $0\n");
    for i in 0..k {
        let (a, b) = branch_values(i);
        s.push_str(&format!(
            "slt $5, $4, $0\nbeq $5, $0, skip{i}\nlis $6\n.word {}\nadd $3, $3, $6\n\
             skip{i}:\nadd $4, $4, $4\n",
            a.wrapping_sub(b)
        ));
    }
    s.push_str("jr $31\n");
    asm(&s)
}

/// `$1 + ($1 - 1) + … + 1` by a loop counting down, for `0 <= $1 <= bound`, else 0
/// (the same function as [`sum_loop`]).
fn sum_countdown(bound: u32) -> Program {
    asm(&format!(
        "slt $4, $1, $0\nbne $4, $0, zero\nlis $5\n.word {}\nslt $4, $1, $5\nbeq $4, $0, zero\n\
         add $3, $0, $0\nadd $6, $1, $0\nlis $7\n.word 1\nloop:\nbeq $6, $0, out\n\
         add $3, $3, $6\nsub $6, $6, $7\nbeq $0, $0, loop\nout:\njr $31\nzero:\nadd $3, $0, $0\njr $31\n",
        bound + 1
    ))
}

/// A family of proofs for `--engines`: a title, its equivalent pairs, and larger ones
/// that only bmc is timed on (the other engines would take minutes).
struct Family {
    title: &'static str,
    cases: Vec<Case>,
    bmc_only: Vec<Case>,
}

fn proof_case(name: String, left: Program, right: Program, fuel: Option<u64>) -> Case {
    Case {
        name,
        left,
        right,
        fuel,
        setup: no_setup,
    }
}

/// `0 + 1 + … + $1` by a recursive function for `0 <= $1 < 20` (unsigned), else 0:
/// return addresses and saved registers on the stack, calls through `jalr`.
const RECURSIVE_SUM: &str = "lis $5\n.word 20\nsltu $6, $1, $5\nbeq $6, $0, zero\n\
    sw $31, -4($30)\nlis $4\n.word 4\nsub $30, $30, $4\nlis $8\n.word sum\nadd $7, $1, $0\n\
    jalr $8\nlis $4\n.word 4\nadd $30, $30, $4\nlw $31, -4($30)\njr $31\n\
    zero:\nadd $3, $0, $0\njr $31\n\
    sum:\nbne $7, $0, rec\nadd $3, $0, $0\njr $31\n\
    rec:\nsw $31, -4($30)\nsw $7, -8($30)\nlis $4\n.word 8\nsub $30, $30, $4\nlis $9\n.word 1\n\
    sub $7, $7, $9\njalr $8\nlis $4\n.word 8\nadd $30, $30, $4\nlw $7, -8($30)\n\
    lw $31, -4($30)\nadd $3, $3, $7\njr $31\n";

/// The equivalent pairs of `crates/engine/tests/proofs.rs`.
fn project_proofs() -> Vec<Case> {
    let guard =
        "slt $4, $1, $0\nbne $4, $0, zero\nlis $5\n.word 21\nslt $4, $1, $5\nbeq $4, $0, zero\n";
    let wide = "lis $5\n.word 300\nsltu $4, $1, $5\nbeq $4, $0, zero\nlis $7\n.word 1\n";
    let pairs = [
        (
            "strength reduction of a multiplication",
            "lis $4\n.word 8\nmult $1, $4\nmflo $3\njr $31\n".to_string(),
            "add $3, $1, $1\nadd $3, $3, $3\nadd $3, $3, $3\njr $31\n".to_string(),
        ),
        (
            "max two ways",
            "slt $4, $1, $2\nbeq $4, $0, first\nadd $3, $2, $0\njr $31\nfirst:\nadd $3, $1, $0\njr $31\n".to_string(),
            "slt $4, $2, $1\nbne $4, $0, first\nadd $3, $2, $0\njr $31\nfirst:\nadd $3, $1, $0\njr $31\n".to_string(),
        ),
        (
            "absolute value two ways",
            "slt $4, $1, $0\nbeq $4, $0, pos\nsub $3, $0, $1\njr $31\npos:\nadd $3, $1, $0\njr $31\n".to_string(),
            "slt $4, $1, $0\nadd $6, $4, $4\nlis $7\n.word 1\nsub $5, $7, $6\nmult $1, $5\nmflo $3\njr $31\n".to_string(),
        ),
        (
            "division by 3 against repeated subtraction below 30",
            "lis $4\n.word 3\ndivu $1, $4\nmflo $3\njr $31\n".to_string(),
            "lis $4\n.word 3\nlis $5\n.word 30\nsltu $6, $1, $5\nbne $6, $0, small\ndivu $1, $4\n\
             mflo $3\njr $31\nsmall:\nadd $7, $1, $0\nadd $3, $0, $0\nlis $8\n.word 1\nloop:\n\
             sltu $6, $7, $4\nbne $6, $0, done\nsub $7, $7, $4\nadd $3, $3, $8\nbeq $0, $0, loop\n\
             done:\njr $31\n".to_string(),
        ),
        (
            "loop against closed form, 0 <= $1 <= 20",
            format!(
                "{guard}add $3, $0, $0\nadd $6, $0, $0\nlis $7\n.word 1\nloop:\nbeq $6, $1, out\n\
                 add $6, $6, $7\nadd $3, $3, $6\nbeq $0, $0, loop\nout:\njr $31\nzero:\n\
                 add $3, $0, $0\njr $31\n"
            ),
            format!(
                "{guard}lis $7\n.word 1\nadd $6, $1, $7\nmult $1, $6\nmflo $3\nlis $8\n.word 2\n\
                 divu $3, $8\nmflo $3\njr $31\nzero:\nadd $3, $0, $0\njr $31\n"
            ),
        ),
        (
            "loop against closed form, 0 <= $1 < 300 (unsigned)",
            format!(
                "{wide}add $3, $0, $0\nadd $6, $0, $0\nloop:\nbeq $6, $1, out\nadd $3, $3, $6\n\
                 add $6, $6, $7\nbeq $0, $0, loop\nout:\njr $31\nzero:\nadd $3, $0, $0\njr $31\n"
            ),
            format!(
                "{wide}sub $6, $1, $7\nmultu $1, $6\nmflo $3\nlis $8\n.word 2\ndivu $3, $8\n\
                 mflo $3\njr $31\nzero:\nadd $3, $0, $0\njr $31\n"
            ),
        ),
        (
            "recursive sum against closed form, 0 <= $1 < 20",
            RECURSIVE_SUM.to_string(),
            "lis $5\n.word 20\nsltu $6, $1, $5\nbeq $6, $0, zero\nlis $7\n.word 1\n\
             add $6, $1, $7\nmultu $1, $6\nmflo $3\nlis $8\n.word 2\ndivu $3, $8\nmflo $3\n\
             jr $31\nzero:\nadd $3, $0, $0\njr $31\n"
                .to_string(),
        ),
    ];
    pairs
        .into_iter()
        .map(|(name, l, r)| proof_case(name.to_string(), asm(&l), asm(&r), None))
        .collect()
}

/// Every family of `--engines`.
fn families() -> Vec<Family> {
    let paper_pairs: [(&str, &str, Option<u64>); 4] = [
        ("fig1-left.asm", "fig1-right.asm", None),
        ("fig1-left.asm", "fig2-right.asm", Some(10)),
        ("fig8-left.asm", "fig8-left.asm", None),
        ("fig12-left.asm", "fig1-left.asm", None),
    ];
    let paper_cases = paper_pairs
        .iter()
        .map(|&(l, r, fuel)| {
            proof_case(
                format!(
                    "{} / {}{}",
                    l.trim_end_matches(".asm"),
                    r.trim_end_matches(".asm"),
                    fuel.map_or(String::new(), |f| format!(" (fuel {f})"))
                ),
                paper(l),
                paper(r),
                fuel,
            )
        })
        .collect();
    let mut project = project_proofs();
    project.extend(
        precision_cases()
            .into_iter()
            .filter(|c| c.name.ends_with("(same)")),
    );
    let grow =
        |title: &'static str, all: &[u32], bmc_only: &[u32], make: &dyn Fn(u32) -> Case| Family {
            title,
            cases: all.iter().map(|&n| make(n)).collect(),
            bmc_only: bmc_only.iter().map(|&n| make(n)).collect(),
        };
    vec![
        Family {
            title: "paper",
            cases: paper_cases,
            bmc_only: Vec::new(),
        },
        Family {
            title: "project proofs",
            cases: project,
            bmc_only: Vec::new(),
        },
        grow(
            "nested conditions, against itself",
            &[5, 10, 20, 40, 80],
            &[],
            &|n| {
                proof_case(
                    format!("nested N={n} (same)"),
                    nested(n as usize, 1),
                    nested(n as usize, 1),
                    None,
                )
            },
        ),
        grow(
            "nested conditions, against a rewritten copy",
            &[5, 10, 20, 40, 80],
            &[160, 320],
            &|n| {
                proof_case(
                    format!("nested N={n} (rewritten)"),
                    nested(n as usize, 1),
                    nested_rewritten(n as usize, 1),
                    None,
                )
            },
        ),
        grow(
            "if-then-else blocks in sequence",
            &[2, 4, 6, 8, 10],
            &[12, 16, 20],
            &|k| {
                proof_case(
                    format!("{k} blocks ({} paths)", 1u64 << k),
                    branches(k),
                    branches_delta(k),
                    None,
                )
            },
        ),
        grow(
            "loop against closed form",
            &[5, 10, 20, 40, 80, 160],
            &[320],
            &|b| {
                proof_case(
                    format!("loop vs closed form, $1 <= {b}"),
                    sum_loop(b),
                    sum_closed(b),
                    None,
                )
            },
        ),
        grow(
            "loop against loop",
            &[5, 10, 20, 40, 80, 160],
            &[320],
            &|b| {
                proof_case(
                    format!("count up vs count down, $1 <= {b}"),
                    sum_loop(b),
                    sum_countdown(b),
                    None,
                )
            },
        ),
    ]
}

/// Runs `case` with each engine, interleaved: one warm-up each, then as many rounds
/// (at most `repeats`, at least one) as fit in `budget`; the median per engine.
fn time_engines(
    case: &Case,
    engines: &[Engine],
    repeats: usize,
    budget: Duration,
    tune: impl Fn(&mut Options),
) -> Vec<(Duration, Report)> {
    let opts: Vec<Options> = engines
        .iter()
        .map(|&e| {
            options(case, |o| {
                o.engine = e;
                tune(o)
            })
        })
        .collect();
    let run = |o: &Options| {
        let start = Instant::now();
        let r = compare(&case.left, &case.right, o, &mut Quiet);
        (start.elapsed(), r)
    };
    let warm: Vec<(Duration, Report)> = opts.iter().map(run).collect();
    let round: Duration = warm.iter().map(|(t, _)| *t).sum();
    let rounds = (budget.as_secs_f64() / round.as_secs_f64().max(1e-9)) as usize;
    let rounds = rounds.clamp(1, repeats);
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); engines.len()];
    let mut last: Vec<Option<Report>> = vec![None; engines.len()];
    for _ in 0..rounds {
        for (i, o) in opts.iter().enumerate() {
            let (t, r) = run(o);
            // Only a solver timeout may change a verdict from one run to the next.
            assert!(
                r.verdict.name() == warm[i].1.verdict.name()
                    || [&r, &warm[i].1].iter().any(|r| r.stats.solver.unknown > 0),
                "{}: verdict changed between runs",
                case.name
            );
            times[i].push(t);
            last[i] = Some(r);
        }
    }
    times
        .into_iter()
        .zip(last)
        .map(|(mut t, r)| {
            t.sort();
            (t[t.len() / 2], r.expect("at least one round"))
        })
        .collect()
}

fn ms(t: Duration) -> String {
    format!("{:.2} ms", t.as_secs_f64() * 1e3)
}

/// A verdict, short, with the engine that proved it or the first reason it did not.
fn short(r: &Report) -> String {
    match &r.verdict {
        Verdict::Equivalent(p) => format!("equivalent ({})", p.engine.name()),
        Verdict::PossiblyEquivalent(why) => match why.first() {
            Some(w) => format!("possibly-equivalent (`{w:?}`)"),
            None => "possibly-equivalent".to_string(),
        },
        v => v.name().to_string(),
    }
}

/// The unrolling counts of a bmc proof, `left / right`.
fn encoding(r: &Report) -> (String, String) {
    match &r.verdict {
        Verdict::Equivalent(p) => match &p.encoding {
            Some((l, rr)) => (
                format!("{} / {}", l.steps, rr.steps),
                format!("{} / {}", l.merges, rr.merges),
            ),
            None => ("–".into(), "–".into()),
        },
        _ => ("–".into(), "–".into()),
    }
}

const ENGINES: [Engine; 3] = [Engine::Concolic, Engine::Bmc, Engine::Auto];

/// The solver timeout of the rows only bmc is timed on (the default is 5 s, which the
/// one query of the largest rows comes close to on a loaded machine).
const BMC_ONLY_SOLVER_TIMEOUT: Duration = Duration::from_secs(30);

/// `--engines`: every proof family with each engine, one table per family.
fn engines_table(filters: &[&String], repeats: usize, budget: Duration, depth: Option<usize>) {
    let keep =
        |c: &&Case| filters.is_empty() || filters.iter().any(|f| c.name.contains(f.as_str()));
    for family in families() {
        let cases: Vec<(&Case, bool)> = family
            .cases
            .iter()
            .filter(keep)
            .map(|c| (c, true))
            .chain(family.bmc_only.iter().filter(keep).map(|c| (c, false)))
            .collect();
        if cases.is_empty() {
            continue;
        }
        println!("\n#### {}\n", family.title);
        println!("| case | concolic | time | queries | paths | bmc | time | queries | steps | merges | auto | time | queries | bmc / concolic | auto / concolic |");
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (case, all) in cases {
            let engines: &[Engine] = if all { &ENGINES } else { &[Engine::Bmc] };
            let t = time_engines(case, engines, repeats, budget, |o| {
                if let Some(d) = depth {
                    o.depth = d;
                }
                if !all {
                    o.solver.timeout = BMC_ONLY_SOLVER_TIMEOUT;
                }
            });
            let b = &t[if all { 1 } else { 0 }];
            let (steps, merges) = encoding(&b.1);
            let cells = |r: Option<&(Duration, Report)>, paths: bool| match r {
                Some((t, r)) => {
                    let mut c = vec![short(r), ms(*t), r.stats.solver.queries.to_string()];
                    if paths {
                        c.push(format!("{} / {}", r.stats.paths.0, r.stats.paths.1));
                    }
                    c.join(" | ")
                }
                None => if paths {
                    "– | – | – | –"
                } else {
                    "– | – | –"
                }
                .to_string(),
            };
            let ratio = |r: Option<&(Duration, Report)>| match (r, all) {
                (Some((x, _)), true) => {
                    format!("{:.2}", x.as_secs_f64() / t[0].0.as_secs_f64().max(1e-9))
                }
                _ => "–".to_string(),
            };
            let (c, a) = if all {
                (Some(&t[0]), Some(&t[2]))
            } else {
                (None, None)
            };
            println!(
                "| {} | {} | {} | {steps} | {merges} | {} | {} | {} |",
                case.name,
                cells(c, true),
                cells(Some(b), false),
                cells(a, false),
                ratio(Some(b)),
                ratio(a),
            );
        }
    }
}

/// The proofs that `--engines --solvers` times unless filters name others (an external
/// solver starts a process per query, so the large rows would take minutes).
const SOLVER_CASES: [&str; 13] = [
    "fig1-left / fig1-right",
    "fig8-left / fig8-left",
    "fig12-left / fig1-left",
    "max two ways",
    "absolute value two ways",
    "division by 3 against repeated subtraction below 30",
    "jump table (same)",
    "array sum (same)",
    "nested N=20 (rewritten)",
    "6 blocks (64 paths)",
    "loop vs closed form, $1 <= 20",
    "count up vs count down, $1 <= 20",
    "nested N=80 (rewritten)",
];

/// `--engines --solvers`: the proofs with each engine and each solver backend.
fn engines_solvers_table(filters: &[&String], repeats: usize, budget: Duration) {
    let backends = available_backends();
    let names: Vec<&str> = backends.iter().map(|(n, _)| *n).collect();
    println!(
        "| case | engine | verdict | queries | {} |",
        names.join(" | ")
    );
    println!("|---|---|---|---|{}", "---|".repeat(names.len()));
    for family in families() {
        for case in &family.cases {
            let keep = if filters.is_empty() {
                SOLVER_CASES.contains(&case.name.as_str())
            } else {
                filters.iter().any(|f| case.name.contains(f.as_str()))
            };
            if !keep {
                continue;
            }
            let per_backend: Vec<Vec<(Duration, Report)>> = backends
                .iter()
                .map(|(_, cmd)| {
                    time_engines(case, &ENGINES, repeats, budget, |o| {
                        o.solver.external = cmd.map(str::to_string)
                    })
                })
                .collect();
            for (i, e) in ENGINES.iter().enumerate() {
                let first = &per_backend[0][i].1;
                let cells: Vec<String> = per_backend
                    .iter()
                    .map(|b| {
                        if b[i].1.verdict.name() == first.verdict.name() {
                            ms(b[i].0)
                        } else {
                            format!("{} ({})", ms(b[i].0), b[i].1.verdict.name())
                        }
                    })
                    .collect();
                println!(
                    "| {} | {} | {} | {} | {} |",
                    case.name,
                    e.name(),
                    short(first),
                    first.stats.solver.queries,
                    cells.join(" | ")
                );
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    // Any other argument that is not a flag filters cases by substring.
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if args.iter().any(|a| a == "--check") {
        check_table(if quick { 3 } else { 15 });
        return;
    }
    if args.iter().any(|a| a == "--engines") {
        // The rounds of one case (every engine, interleaved) stop after about this long.
        let budget = Duration::from_secs(if quick { 1 } else { 3 });
        // `--depth=N`: the concolic search's depth bound (default 50).
        let depth = args
            .iter()
            .find_map(|a| a.strip_prefix("--depth="))
            .map(|d| d.parse().expect("--depth=N"));
        if args.iter().any(|a| a == "--solvers") {
            engines_solvers_table(&filters, if quick { 1 } else { 3 }, budget);
        } else {
            engines_table(&filters, if quick { 3 } else { 15 }, budget, depth);
        }
        return;
    }
    if args.iter().any(|a| a == "--solvers") {
        solvers_table(&filters, if quick { 1 } else { 5 });
        return;
    }
    let repeats = if quick { 3 } else { 15 };
    println!("| case | verdict | auto (default): median | runs | queries | restarts | incremental: median | fresh: median | auto / fresh | incremental / fresh |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for case in cases() {
        if !filters.is_empty() && !filters.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        let (fresh, report) = time(&case, Z3Mode::Fresh, repeats);
        let (incr, report2) = time(&case, Z3Mode::Incremental, repeats);
        let (auto, report3) = time(&case, Z3Mode::Auto, repeats);
        assert_eq!(
            report.verdict.name(),
            report3.verdict.name(),
            "{}",
            case.name
        );
        assert_eq!(
            report.verdict.name(),
            report2.verdict.name(),
            "{}",
            case.name
        );
        println!(
            "| {} | {} | {:.2} ms | {} | {} | {} | {:.2} ms | {:.2} ms | {:.2} | {:.2} |",
            case.name,
            report.verdict.name(),
            auto.as_secs_f64() * 1e3,
            report3.stats.runs,
            report3.stats.solver.queries,
            report3.stats.restarts,
            incr.as_secs_f64() * 1e3,
            fresh.as_secs_f64() * 1e3,
            auto.as_secs_f64() / fresh.as_secs_f64().max(1e-9),
            incr.as_secs_f64() / fresh.as_secs_f64().max(1e-9),
        );
    }
}
