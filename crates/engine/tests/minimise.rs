//! The concrete minimiser of counterexamples (`tamarin::minimise`): on array sums with
//! a planted bug, the minimised counterexample still differs on an independent run,
//! satisfies the preconditions, is never larger than the one the engine found without
//! it, and is as small as the bug allows.

use proptest::prelude::*;
use tamarin::mips::asm::assemble;
use tamarin::mips::cpu::{run_program, Config, Frontend, Status};
use tamarin::{compare, Counterexample, Engine, InputSpec, Options, Precondition, Quiet, Verdict};

/// The sum of the array (`$1` its address, `$2` its length) into `$3`, then `bug`.
fn sum(bug: &str) -> String {
    format!(
        "lis $4\n.word 4\nlis $11\n.word 1\nadd $3, $0, $0\nadd $5, $1, $0\nadd $6, $0, $0\n\
         loop: beq $6, $2, done\nlw $7, 0($5)\nadd $3, $3, $7\nadd $5, $5, $4\nadd $6, $6, $11\n\
         beq $0, $0, loop\ndone:\n{bug}\njr $31\n"
    )
}

/// The planted bugs: each with what the smallest counterexample looks like.
#[derive(Clone, Copy, Debug)]
enum Bug {
    /// One too many when the array has at least `k` elements: the smallest
    /// counterexample is `k` zeros.
    OffByOneFrom(u32),
    /// The last element subtracted instead of added: one element of magnitude 1.
    LastSignSlip,
}

impl Bug {
    fn code(self) -> String {
        match self {
            Bug::OffByOneFrom(k) => format!(
                "lis $9\n.word {k}\nslt $10, $2, $9\nbne $10, $0, out\nadd $3, $3, $11\nout:"
            ),
            // $7 still holds the last element loaded (when there is one).
            Bug::LastSignSlip => "beq $2, $0, out\nsub $3, $3, $7\nsub $3, $3, $7\nout:".into(),
        }
    }
}

/// An independent check of a precondition on a concrete array.
type Admits = fn(&[u32]) -> bool;

/// Preconditions: their text and an independent check of a concrete array.
const PRECONDITIONS: [(&str, Admits); 4] = [
    ("true", |_| true),
    ("len >= 2", |a| a.len() >= 2),
    ("all x: -50 <= x <= 50", |a| {
        a.iter().all(|&x| (-50..=50).contains(&(x as i32)))
    }),
    ("all x: 0 <= x", |a| a.iter().all(|&x| x as i32 >= 0)),
];

fn run(bug: Option<Bug>, array: &[u32]) -> (Status, u32) {
    let text = sum(&bug.map(Bug::code).unwrap_or_default());
    let program = assemble("p.asm", &text).expect("assembles");
    let frontend = Frontend::Array {
        elems: array.to_vec(),
        base: None,
    };
    let o = run_program(&program, Config::with_fuel(10_000), &frontend, &[]).expect("fits");
    (o.status, o.regs.gpr[3])
}

/// (length, sum of magnitudes) of a counterexample's array.
fn size(cx: &Counterexample) -> (usize, u64) {
    let a = cx.values.array.as_ref().expect("an array");
    (
        a.len(),
        a.iter().map(|&x| (x as i32).unsigned_abs() as u64).sum(),
    )
}

fn counterexample(bug: Bug, opts: &Options) -> Option<Counterexample> {
    let left = assemble("sum.asm", &sum("")).expect("assembles");
    let right = assemble("bug.asm", &sum(&bug.code())).expect("assembles");
    match compare(&left, &right, opts, &mut Quiet)
        .expect("a valid task")
        .verdict
    {
        Verdict::Disequivalent(cx) => Some(*cx),
        _ => None,
    }
}

fn bug() -> impl Strategy<Value = Bug> {
    prop_oneof![
        (1u32..=8).prop_map(Bug::OffByOneFrom),
        Just(Bug::LastSignSlip)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn minimised_counterexamples_are_sound_and_small(
        bug in bug(),
        max_len in 1u32..=8,
        pre in 0usize..PRECONDITIONS.len(),
        first in proptest::collection::vec(any::<u32>(), 9),
        bmc in any::<bool>(),
    ) {
        let (text, admits) = PRECONDITIONS[pre];
        if pre == 1 && max_len < 2 {
            return Ok(()); // no input satisfies it (the front door refuses such a task)
        }
        let mut opts = Options::default();
        opts.inputs = InputSpec::Array { max_len, base: None };
        opts.assume = vec![Precondition::parse(text).expect("parses")];
        // Random first inputs, so the engine's counterexample is not already small.
        opts.init_inputs = first[..=max_len as usize].to_vec();
        opts.init_inputs[0] = max_len;
        // The merged encoding of the loop grows fast with the length.
        opts.engine = if bmc && max_len <= 3 { Engine::Bmc } else { Engine::Concolic };
        opts.minimise = false;
        let raw = counterexample(bug, &opts);
        opts.minimise = true;
        let small = counterexample(bug, &opts);
        let (Some(raw), Some(small)) = (raw, small) else {
            // The bug cannot show within the length and the preconditions.
            let shows = match bug {
                Bug::OffByOneFrom(k) => k <= max_len,
                Bug::LastSignSlip => true,
            };
            prop_assert!(!shows, "a difference was expected for {bug:?}");
            return Ok(());
        };
        let array = small.values.array.clone().expect("an array");
        // An independent concrete run still shows the difference.
        prop_assert_ne!(run(None, &array), run(Some(bug), &array), "{:?}", small);
        prop_assert!(admits(&array), "{text} broken by {array:?}");
        prop_assert!(size(&small) <= size(&raw), "{:?} grew to {:?}", raw.values, small.values);
        // As small as the bug allows.
        let min_len = if pre == 1 { 2 } else { 0 };
        match bug {
            Bug::OffByOneFrom(k) => {
                prop_assert_eq!(size(&small), ((k as usize).max(min_len), 0), "{:?}", array);
            }
            Bug::LastSignSlip => {
                prop_assert_eq!(size(&small), (min_len.max(1), 1), "{:?}", array);
            }
        }
    }
}

/// The example that motivated dropping elements: an off-by-one from 4 elements on
/// arrays of up to 16 shows on 4 zeros, and the report counts the steps.
#[test]
fn off_by_one_shows_on_the_shortest_array() {
    let mut opts = Options::default();
    opts.inputs = InputSpec::Array {
        max_len: 16,
        base: None,
    };
    opts.engine = Engine::Concolic;
    let left = assemble("sum.asm", &sum("")).unwrap();
    let right = assemble("bug.asm", &sum(&Bug::OffByOneFrom(4).code())).unwrap();
    let report = compare(&left, &right, &opts, &mut Quiet).unwrap();
    let Verdict::Disequivalent(cx) = &report.verdict else {
        panic!("expected a difference, got {:?}", report.verdict);
    };
    assert_eq!(cx.values.array.as_deref(), Some(&[0, 0, 0, 0][..]));
    assert!(report.stats.shrink_steps > 0, "{:?}", report.stats);
    assert!(report.stats.shrink_replays >= report.stats.shrink_steps);
    assert!(report.stats.shrink_replays <= 2_000);
}
