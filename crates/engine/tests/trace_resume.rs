//! Runs resumed from tracer checkpoints against runs traced from their first step, in
//! one term store: a run on inputs that share a traced run's first conditions, replayed
//! untraced up to a checkpoint there and traced from it, must record exactly the
//! conditions (the same terms), end the same way and observe the same terms as the
//! same run traced from the start. Programs with loops, arrays over memory, recursion
//! with stack frames and output; and a whole search either way.

mod common;

use proptest::prelude::*;
use tamarin::io::{InputLayout, InputSpec, Observable};
use tamarin::term::TermStore;
use tamarin::trace::{Checkpoint, PathCond, SymTracer, TraceLimits};
use tamarin::{Options, Quiet};
use tamarin_mips::cpu::{Config, Machine, Outcome, DEFAULT_TERMINATION};
use tamarin_mips::{Program, Reg};

/// The programs and how their inputs enter.
const PROGRAMS: [(&str, bool); 10] = [
    ("countdown printing", false),
    ("sum1000-loop.asm", false),
    ("triple-loop.asm", false),
    ("div7-sub.asm", false),
    ("fib-rec.asm", false),
    ("stirling-rec.asm", false),
    ("print-rec.asm", false),
    ("amax-fwd.asm", true),
    ("asum-bwd.asm", true),
    ("aneg-sltu.asm", true),
];

/// A countdown from `$1` that prints the low byte of its counter at every trip: output
/// written between conditions.
const COUNTDOWN: &str = "lis $10\n.word 0xffff000c\nlis $11\n.word 1\nadd $7, $1, $0\nloop:\nbeq $7, $0, done\nsw $7, 0($10)\nsub $7, $7, $11\nbeq $0, $0, loop\ndone:\njr $31\n";

fn program(name: &str) -> Program {
    if name == "countdown printing" {
        common::asm(name, COUNTDOWN)
    } else if name == "echo" {
        common::asm(name, ECHO)
    } else {
        common::proof_example(name)
    }
}

const FUEL: u64 = 20_000;

struct Setup {
    program: Program,
    store: TermStore,
    layout: InputLayout,
}

/// One traced run: its conditions, outcome, `$3` and output terms (as term numbers),
/// and checkpoints.
type Traced = (Vec<PathCond>, Outcome, Vec<u32>, Vec<Checkpoint>);

/// How a resumed run gets to its checkpoint.
#[derive(Clone, Copy, Debug)]
enum Reach {
    /// Its first steps replayed untraced.
    Replay,
    /// Placed in the checkpoint's state evaluated at its inputs (where the checkpoint
    /// allows; `None` when it does not).
    Place,
}

/// Traces one run.
fn trace(s: &mut Setup, values: &[u32], from: Option<(&Checkpoint, Reach)>) -> Option<Traced> {
    let mut m = Machine::new(&s.program, Config::with_fuel(FUEL));
    s.layout.load(&mut m, values).ok()?;
    let memory = s.layout.symbolic_memory(&mut s.store, &s.program);
    let symbolic = s.layout.symbolic_registers();
    let mut tracer = match from {
        Some((c, Reach::Replay)) => {
            // Replayed untraced to the checkpoint, where the machine must be.
            assert!(m.run_until(&mut tamarin_mips::NoTrace, c.steps()).is_none());
            assert!(
                c.matches(m.regs()),
                "the machine is not where the checkpoint was"
            );
            SymTracer::resume(&mut s.store, c, DEFAULT_TERMINATION, TraceLimits::default())
        }
        Some((c, Reach::Place)) => {
            let vals: Vec<u64> = values.iter().map(|&v| u64::from(v)).collect();
            if !c.place(&s.store, &vals, &mut m) {
                return None;
            }
            SymTracer::resume(&mut s.store, c, DEFAULT_TERMINATION, TraceLimits::default())
        }
        None => SymTracer::new(
            &mut s.store,
            m.regs(),
            &symbolic,
            s.program.words().clone(),
            DEFAULT_TERMINATION,
            false,
        )
        .with_memory(memory)
        .with_stdin(s.layout.symbolic_stdin().to_vec())
        .with_checkpoints(8, 0),
    };
    let outcome = m.run_to_outcome(&mut tracer);
    let observed: Vec<u32> = tracer
        .observe(&Observable::Reg(Reg::from_bits(3)))
        .into_iter()
        .chain(tracer.observe(&Observable::Output))
        .map(|t| t.index() as u32)
        .collect();
    let checkpoints = tracer.take_checkpoints();
    let (conds, _, _) = tracer.finish();
    Some((conds, outcome, observed, checkpoints))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_resumed_run_records_what_a_whole_trace_records(
        which in 0usize..PROGRAMS.len(),
        a in prop::collection::vec(prop_oneof![0u32..12, any::<u32>()], 7),
        b in prop::collection::vec(prop_oneof![0u32..12, any::<u32>()], 7),
    ) {
        let (name, array) = PROGRAMS[which];
        let mut store = TermStore::new();
        let spec = if array {
            InputSpec::Array { max_len: 6, base: None }
        } else {
            InputSpec::default()
        };
        let layout = InputLayout::declare(&mut store, &spec, 0);
        let mut s = Setup { program: program(name), store, layout };
        let norm = |v: &[u32]| s.layout.normalise(&v.iter().map(|&x| x as u64).collect::<Vec<_>>());
        let (a, b) = (norm(&a), norm(&b));
        let Some((_, _, _, checkpoints)) = trace(&mut s, &a, None) else { return Ok(()) };
        let Some((whole, outcome, observed, _)) = trace(&mut s, &b, None) else { return Ok(()) };
        // Only a checkpoint on b's own path applies to b; at most eight of them, the
        // first and last among them.
        // (A checkpoint at the last step of the fuel has nothing left to resume.)
        let applies: Vec<&Checkpoint> = checkpoints
            .iter()
            .filter(|c| whole.len() >= c.conds() && whole[..c.conds()] == c.conditions()[..])
            .filter(|c| c.steps() < FUEL)
            .collect();
        let step = applies.len().div_ceil(8).max(1);
        let picked = applies.iter().step_by(step).chain(applies.last());
        for c in picked {
            for reach in [Reach::Replay, Reach::Place] {
                let Some((conds, out, obs, _)) = trace(&mut s, &b, Some((c, reach))) else {
                    prop_assert!(matches!(reach, Reach::Place), "a replay runs");
                    continue;
                };
                prop_assert_eq!(&conds, &whole, "{} from {} conditions, {:?}", name, c.conds(), reach);
                prop_assert_eq!(out.status, outcome.status);
                prop_assert_eq!(out.steps, outcome.steps);
                prop_assert_eq!(&out.regs, &outcome.regs);
                prop_assert_eq!(&out.output, &outcome.output);
                prop_assert_eq!(&obs, &observed);
            }
        }
    }
}

/// Resuming makes some checkpoint apply on a loop (the property above tests nothing
/// if none ever does).
#[test]
fn a_loop_run_resumes_from_another_run_s_checkpoint() {
    let mut store = TermStore::new();
    let layout = InputLayout::declare(&mut store, &InputSpec::default(), 0);
    let mut s = Setup {
        program: common::proof_example("sum1000-loop.asm"),
        store,
        layout,
    };
    let (_, _, _, checkpoints) = trace(&mut s, &[40, 0], None).expect("runs");
    let (whole, _, _, _) = trace(&mut s, &[50, 0], None).expect("runs");
    let shared: Vec<&Checkpoint> = checkpoints
        .iter()
        .filter(|c| whole.len() >= c.conds() && whole[..c.conds()] == c.conditions()[..])
        .collect();
    assert!(
        shared.len() > 4,
        "{} shared checkpoints of {}, {} conditions",
        shared.len(),
        checkpoints.len(),
        whole.len()
    );
    let deepest = shared.last().expect("one");
    for reach in [Reach::Replay, Reach::Place] {
        let (conds, _, _, _) = trace(&mut s, &[50, 0], Some((deepest, reach))).expect("runs");
        assert_eq!(conds, whole, "{reach:?}");
    }
}

/// A whole comparison gives the same verdict, paths, runs and queries with and without
/// resuming (its queries are about the same conditions).
#[test]
fn a_comparison_gives_the_same_verdict_either_way() {
    let (l, r) = (
        common::proof_example("sumfuel-loop.asm"),
        common::proof_example("sumfuel-closed.asm"),
    );
    let mut on = Options::default();
    on.engine = tamarin::verdict::Engine::Concolic;
    on.fuel = 3_000;
    let mut off = on.clone();
    off.trace_resume = false;
    let a = tamarin::compare(&l, &r, &on, &mut Quiet).expect("compares");
    let b = tamarin::compare(&l, &r, &off, &mut Quiet).expect("compares");
    assert_eq!(a.verdict.name(), "equivalent");
    assert_eq!(a.verdict.name(), b.verdict.name());
    assert_eq!(a.stats.paths, b.stats.paths);
    assert_eq!(a.stats.runs, b.stats.runs);
}

/// Reads standard input to its end (-1), adding each byte that is not a space to `$3`
/// and printing it: input read before a checkpoint, and conditions on input bytes.
const ECHO: &str = "lis $10\n.word 0xffff0004\nlis $11\n.word 0xffff000c\nlis $12\n.word -1\n\
    lis $13\n.word 32\nadd $3, $0, $0\nloop:\nlw $5, 0($10)\nbeq $5, $12, done\n\
    beq $5, $13, loop\nadd $3, $3, $5\nsw $5, 0($11)\nbeq $0, $0, loop\ndone:\njr $31\n";

/// A run placed at a checkpoint (its state computed, not replayed) goes on exactly as
/// the whole run: with output written before the checkpoint, with stack frames in
/// memory, with an array in memory, and with standard input partly read.
#[test]
fn a_placed_run_ends_as_the_whole_run() {
    /// A program, how its inputs enter (an array or not, standard input bytes), and
    /// the inputs of a first run (whose checkpoints are taken) and of a second.
    struct Case {
        name: &'static str,
        array: bool,
        stdin: usize,
        first: Vec<u32>,
        second: Vec<u32>,
    }
    let case = |name, array, stdin, first, second| Case {
        name,
        array,
        stdin,
        first,
        second,
    };
    let cases = [
        case("countdown printing", false, 0, vec![40, 0], vec![50, 0]),
        case("fib-rec.asm", false, 0, vec![9, 0], vec![11, 0]),
        case("amax-fwd.asm", true, 0, vec![6, 0], vec![6, 1]),
        case(
            "echo",
            false,
            24,
            [0, 0].into_iter().chain(1..=24).collect(),
            [0, 0]
                .into_iter()
                .chain(1..=20)
                .chain([32, 7, 8, 9])
                .collect(),
        ),
    ];
    for Case {
        name,
        array,
        stdin,
        first,
        second,
    } in cases
    {
        let mut store = TermStore::new();
        let spec = if array {
            InputSpec::Array {
                max_len: 6,
                base: None,
            }
        } else {
            InputSpec::default()
        };
        let layout = InputLayout::declare(&mut store, &spec, stdin);
        let mut s = Setup {
            program: program(name),
            store,
            layout,
        };
        let pad = |mut v: Vec<u32>| {
            v.resize(if array { 7 } else { 2 + stdin }, 0);
            v
        };
        let (a, b) = (pad(first), pad(second));
        let (_, _, _, checkpoints) = trace(&mut s, &a, None).expect("runs");
        let (whole, outcome, observed, _) = trace(&mut s, &b, None).expect("runs");
        let deepest = checkpoints
            .iter()
            .rfind(|c| whole.len() >= c.conds() && whole[..c.conds()] == c.conditions()[..])
            .unwrap_or_else(|| panic!("{name}: no shared checkpoint"));
        let (conds, out, obs, _) =
            trace(&mut s, &b, Some((deepest, Reach::Place))).expect("placed");
        assert!(deepest.steps() > 0, "{name}");
        assert_eq!(conds, whole, "{name}");
        assert_eq!(out.status, outcome.status, "{name}");
        assert_eq!(out.steps, outcome.steps, "{name}");
        assert_eq!(out.regs, outcome.regs, "{name}");
        assert_eq!(out.output, outcome.output, "{name}");
        assert_eq!(obs, observed, "{name}");
    }
}
