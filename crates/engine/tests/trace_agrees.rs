//! The recorded trace agrees with the concrete run.
//!
//! Random small programs (straight-line code and forward branches over `$1`…`$8`,
//! ending in `jr $31`) are built from `Instr` values and run on random `$1`, `$2`
//! with a `SymTracer` watching. At those inputs every recorded path condition must
//! hold and the `$3` shadow must evaluate to the concrete `$3`; every branch
//! condition must be the one that held; and any other input that satisfies the
//! path conditions must run the same way (the soundness rule of `trace`). A second
//! family adds loads, stores and `jr` through input-dependent registers.

use proptest::prelude::*;
use tamarin::term::{Evaluator, Term, TermStore};
use tamarin::trace::{CondKind, PathCond, SymTracer, Val};
use tamarin_mips::cpu::{
    run_program, Config, Event, Fault, Frontend, Machine, Outcome, Status, Tracer,
    DEFAULT_TERMINATION,
};
use tamarin_mips::{Instr, Program, Reg};

/// One piece of a generated program.
#[derive(Clone, Debug)]
enum Item {
    /// A one-word instruction.
    Op(Instr),
    /// `lis $d` and its literal.
    Lis(Reg, u32),
    /// `beq`/`bne` skipping the next `skip` items (clamped to the end).
    Branch { beq: bool, s: Reg, t: Reg, skip: u8 },
    /// `beq $t, $0, 1` then `div`/`divu $s, $t`.
    GuardedDiv { signed: bool, s: Reg, t: Reg },
}

fn reg(n: u8) -> Reg {
    Reg::new(n).expect("register number")
}

fn src() -> impl Strategy<Value = Reg> {
    (0u8..=8).prop_map(reg)
}

fn dst() -> impl Strategy<Value = Reg> {
    (1u8..=8).prop_map(reg)
}

/// A stack slot below `$30`.
fn slot() -> impl Strategy<Value = i16> {
    (1i16..=4).prop_map(|k| -4 * k)
}

fn literal() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), 0u32..8, Just(u32::MAX), Just(0x8000_0000)]
}

fn item(wild: bool) -> BoxedStrategy<Item> {
    let base = prop_oneof![
        3 => (dst(), src(), src()).prop_map(|(d, s, t)| Item::Op(Instr::Add { d, s, t })),
        2 => (dst(), src(), src()).prop_map(|(d, s, t)| Item::Op(Instr::Sub { d, s, t })),
        2 => (dst(), src(), src()).prop_map(|(d, s, t)| Item::Op(Instr::Slt { d, s, t })),
        2 => (dst(), src(), src()).prop_map(|(d, s, t)| Item::Op(Instr::Sltu { d, s, t })),
        1 => (src(), src()).prop_map(|(s, t)| Item::Op(Instr::Mult { s, t })),
        1 => (src(), src()).prop_map(|(s, t)| Item::Op(Instr::Multu { s, t })),
        1 => (src(), src()).prop_map(|(s, t)| Item::Op(Instr::Div { s, t })),
        1 => (src(), src()).prop_map(|(s, t)| Item::Op(Instr::Divu { s, t })),
        2 => (any::<bool>(), src(), src()).prop_map(|(signed, s, t)| Item::GuardedDiv { signed, s, t }),
        2 => dst().prop_map(|d| Item::Op(Instr::Mfhi { d })),
        2 => dst().prop_map(|d| Item::Op(Instr::Mflo { d })),
        2 => (dst(), literal()).prop_map(|(d, v)| Item::Lis(d, v)),
        4 => (any::<bool>(), src(), src(), 0u8..4).prop_map(|(beq, s, t, skip)| Item::Branch { beq, s, t, skip }),
        2 => (src(), slot()).prop_map(|(t, i)| Item::Op(Instr::Sw { t, i, s: Reg::SP })),
        2 => (dst(), slot()).prop_map(|(t, i)| Item::Op(Instr::Lw { t, i, s: Reg::SP })),
    ];
    if !wild {
        return base.boxed();
    }
    // Accesses through an input-dependent base register, and jumps to one.
    let offset = prop_oneof![Just(0i16), Just(4), Just(-4), Just(2), Just(0x40)];
    prop_oneof![
        8 => base,
        1 => (src(), offset.clone(), dst()).prop_map(|(t, i, s)| Item::Op(Instr::Sw { t, i, s })),
        1 => (dst(), offset, dst()).prop_map(|(t, i, s)| Item::Op(Instr::Lw { t, i, s })),
        1 => dst().prop_map(|s| Item::Op(Instr::Jr { s })),
    ]
    .boxed()
}

/// Lays the items out as words, ending with `jr $31`.
fn build(items: &[Item]) -> Program {
    let size = |it: &Item| match it {
        Item::Op(_) | Item::Branch { .. } => 1,
        Item::Lis(..) | Item::GuardedDiv { .. } => 2,
    };
    let mut start = Vec::with_capacity(items.len() + 1);
    let mut at = 0usize;
    for it in items {
        start.push(at);
        at += size(it);
    }
    start.push(at); // the final jr
    let mut words = Vec::with_capacity(at + 1);
    for (k, it) in items.iter().enumerate() {
        match *it {
            Item::Op(i) => words.push(i.encode()),
            Item::Lis(d, v) => {
                words.push(Instr::Lis { d }.encode());
                words.push(v);
            }
            Item::Branch { beq, s, t, skip } => {
                let target = start[(k + 1 + skip as usize).min(items.len())];
                let i = (target - (start[k] + 1)) as i16;
                words.push(
                    if beq {
                        Instr::Beq { s, t, i }
                    } else {
                        Instr::Bne { s, t, i }
                    }
                    .encode(),
                );
            }
            Item::GuardedDiv { signed, s, t } => {
                words.push(
                    Instr::Beq {
                        s: t,
                        t: Reg::ZERO,
                        i: 1,
                    }
                    .encode(),
                );
                words.push(
                    if signed {
                        Instr::Div { s, t }
                    } else {
                        Instr::Divu { s, t }
                    }
                    .encode(),
                );
            }
        }
    }
    words.push(Instr::Jr { s: Reg::RA }.encode());
    Program::from_words(words)
}

fn input() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        0u32..8,
        (0u32..8).prop_map(|v| v.wrapping_neg()),
        Just(0x8000_0000)
    ]
}

/// A branch as the wrapper saw it: its pc, whether the operands were equal in the
/// concrete run, the term for their equality, and the condition it added (if any).
struct SeenBranch {
    pc: u32,
    equal: bool,
    eq: Term,
    cond: Option<usize>,
}

/// Forwards to the `SymTracer`, noting each branch on input-dependent operands.
struct Watch<'s> {
    inner: SymTracer<'s>,
    branches: Vec<SeenBranch>,
    image: ImageStores,
}

/// Notes whether a run stored into its own program image.
struct ImageStores {
    image_end: u32,
    hit: bool,
}

impl Tracer for ImageStores {
    fn exec(&mut self, _pc: u32, _instr: Instr, event: Event) {
        if let Event::Store { addr, .. } = event {
            self.hit |= addr < self.image_end;
        }
    }
}

impl Tracer for Watch<'_> {
    fn exec(&mut self, pc: u32, instr: Instr, event: Event) {
        let mut seen = None;
        if let (Instr::Beq { s, t, .. } | Instr::Bne { s, t, .. }, Event::Branch { taken }) =
            (instr, event)
        {
            let (a, b) = (self.inner.reg(s), self.inner.reg(t));
            if matches!(a, Val::Sym(_)) || matches!(b, Val::Sym(_)) {
                let (ta, tb) = (self.inner.term(a), self.inner.term(b));
                let eq = self.inner.store().eq(ta, tb);
                let equal = matches!(instr, Instr::Beq { .. }) == taken;
                seen = Some(SeenBranch {
                    pc,
                    equal,
                    eq,
                    cond: None,
                });
            }
        }
        self.image.exec(pc, instr, event);
        let before = self.inner.cond_count();
        self.inner.exec(pc, instr, event);
        if let Some(mut b) = seen {
            // The branch's condition comes last (a fetched word that depends on the
            // inputs is pinned before it).
            let count = self.inner.cond_count();
            let last = self.inner.last_cond();
            if count > before && last.is_some_and(|c| c.kind == CondKind::Branch) {
                b.cond = Some(count - 1);
            }
            self.branches.push(b);
        }
    }

    fn fault(&mut self, instr: Option<Instr>, fault: Fault) {
        self.inner.fault(instr, fault);
    }
}

/// Enough for every forward-only program; loops made by `jr` stop here.
const FUEL: u64 = 400;

fn run_plain(p: &Program, a: u32, b: u32) -> Outcome {
    run_program(p, Config::with_fuel(FUEL), &Frontend::TwoInts(a, b), &[]).expect("setup")
}

/// A plain run, and whether it stored into its program image.
fn run_watching_image(p: &Program, a: u32, b: u32) -> (Outcome, bool) {
    let mut m = Machine::new(p, Config::with_fuel(FUEL));
    m.apply(&Frontend::TwoInts(a, b)).expect("setup");
    let mut w = ImageStores {
        image_end: p.byte_len(),
        hit: false,
    };
    let o = m.run_to_outcome(&mut w);
    (o, w.hit)
}

fn same_way(x: &Status, y: &Status) -> bool {
    match (x, y) {
        (Status::Error(f), Status::Error(g)) => f.kind == g.kind && f.pc == g.pc,
        _ => x == y,
    }
}

fn word(ev: &mut Evaluator<'_>, v: Val) -> u32 {
    match v {
        Val::Conc(c) => c,
        Val::Sym(t) => ev.eval(t) as u32,
    }
}

fn check_program(
    items: &[Item],
    a: u32,
    b: u32,
    others: &[(u32, u32)],
) -> Result<(), TestCaseError> {
    check_program_with(items, a, b, others, false)
}

/// As [`check_program`]; `skip_code_stores` leaves out probes where a run stored
/// into the program image.
fn check_program_with(
    items: &[Item],
    a: u32,
    b: u32,
    others: &[(u32, u32)],
    skip_code_stores: bool,
) -> Result<(), TestCaseError> {
    let program = build(items);
    let mut store = TermStore::new();
    let v1 = store.new_var("$1", 32);
    let v2 = store.new_var("$2", 32);
    let mut machine = Machine::new(&program, Config::with_fuel(FUEL));
    machine.apply(&Frontend::TwoInts(a, b)).expect("setup");
    let tracer = SymTracer::new(
        &mut store,
        machine.regs(),
        &[(reg(1), v1), (reg(2), v2)],
        program.words().clone(),
        DEFAULT_TERMINATION,
        false,
    );
    let mut watch = Watch {
        inner: tracer,
        branches: Vec::new(),
        image: ImageStores {
            image_end: program.byte_len(),
            hit: false,
        },
    };
    let outcome = machine.run_to_outcome(&mut watch);
    let branches = watch.branches;
    let wrote_image = watch.image.hit;
    let (conds, _, regs): (Vec<PathCond>, _, [Val; 32]) = watch.inner.finish();

    // The traced run is the plain run.
    let plain = run_plain(&program, a, b);
    prop_assert_eq!(&outcome, &plain);
    if !items
        .iter()
        .any(|it| matches!(it, Item::Op(Instr::Jr { .. })))
    {
        prop_assert_ne!(outcome.status, Status::OutOfFuel, "forward branches only");
    }

    // One evaluator per point, (a, b) first: terms share subterms, so each point's
    // memo makes the checks below linear in the size of the trace.
    let mut points: Vec<(u32, u32)> = vec![(a, b)];
    points.extend_from_slice(others);
    let values: Vec<[u64; 2]> = points.iter().map(|&(x, y)| [x as u64, y as u64]).collect();
    let mut evs: Vec<Evaluator<'_>> = values.iter().map(|v| Evaluator::new(&store, v)).collect();

    for c in &conds {
        prop_assert!(
            evs[0].holds(c.cond),
            "{:?} condition at pc {:#x} is false: {}",
            c.kind,
            c.pc,
            store.readable(c.cond)
        );
    }
    if outcome.status == Status::Done {
        // $3 above all, and the other registers the programs write.
        for (r, (&v, &conc)) in regs
            .iter()
            .zip(&outcome.regs.gpr)
            .enumerate()
            .take(9)
            .skip(1)
        {
            prop_assert_eq!(word(&mut evs[0], v), conc, "${} shadow {:?}", r, v);
        }
    }
    // Which points lie on this path.
    let on_path: Vec<bool> = evs
        .iter_mut()
        .map(|e| conds.iter().all(|c| e.holds(c.cond)))
        .collect();

    // Branch directions: the recorded condition at a branch is the one that held.
    for (i, c) in conds
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind == CondKind::Branch)
    {
        let seen = branches.iter().find(|s| s.cond == Some(i));
        prop_assert!(
            seen.is_some(),
            "branch condition at {:#x} added by no symbolic branch",
            c.pc
        );
        let seen = seen.unwrap();
        prop_assert_eq!(seen.pc, c.pc);
        for (e, &(x, y)) in evs.iter_mut().zip(&points) {
            let expect = e.holds(seen.eq) == seen.equal;
            prop_assert_eq!(
                e.holds(c.cond),
                expect,
                "branch at {:#x} at ({}, {})",
                c.pc,
                x,
                y
            );
        }
    }
    // A branch adds only branch conditions, and every symbolic branch whose direction
    // could change is pinned by the path's conditions.
    for s in &branches {
        if let Some(i) = s.cond {
            prop_assert_eq!(conds[i].kind, CondKind::Branch, "at {:#x}", s.pc);
        }
        for ((e, &(x, y)), _) in evs
            .iter_mut()
            .zip(&points)
            .zip(&on_path)
            .filter(|(_, &on)| on)
        {
            prop_assert_eq!(
                e.holds(s.eq),
                s.equal,
                "branch at {:#x} not pinned at ({}, {})",
                s.pc,
                x,
                y
            );
        }
    }

    // Soundness: another input on this path runs it the same way, to the same $3.
    for ((e, &(x, y)), _) in evs
        .iter_mut()
        .zip(&points)
        .zip(&on_path)
        .skip(1)
        .filter(|(_, &on)| on)
    {
        let (o, probe_wrote_image) = run_watching_image(&program, x, y);
        if skip_code_stores && (wrote_image || probe_wrote_image) {
            // Stores into the code are a known hole (see the ignored tests at the end):
            // the words executed afterwards may depend on the inputs unpinned.
            continue;
        }
        prop_assert!(
            same_way(&o.status, &outcome.status),
            "({}, {}) satisfies the path of ({}, {}) but ends {:?}, not {:?}",
            x,
            y,
            a,
            b,
            o.status,
            outcome.status
        );
        if o.status == Status::Done {
            for (r, (&v, &conc)) in regs.iter().zip(&o.regs.gpr).enumerate().take(9).skip(1) {
                prop_assert_eq!(
                    word(e, v),
                    conc,
                    "${} at ({}, {}) on the path of ({}, {})",
                    r,
                    x,
                    y,
                    a,
                    b
                );
            }
        }
    }
    Ok(())
}

/// Inputs near `(a, b)` and a few random ones, to probe the path's conditions.
fn probes(a: u32, b: u32, extra: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut v = vec![
        (b, a),
        (a.wrapping_add(1), b),
        (a, b.wrapping_add(1)),
        (a ^ 0x8000_0000, b),
        (a, b ^ 0x8000_0000),
        (a.wrapping_sub(1), b.wrapping_sub(1)),
        (a, a),
        (0, 0),
    ];
    v.extend_from_slice(extra);
    v
}

fn extra() -> impl Strategy<Value = Vec<(u32, u32)>> {
    proptest::collection::vec((input(), input()), 4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn trace_agrees_with_the_run(
        items in proptest::collection::vec(item(false), 1..24),
        a in input(),
        b in input(),
        more in extra(),
    ) {
        check_program(&items, a, b, &probes(a, b, &more))?;
    }

    #[test]
    fn trace_agrees_with_input_dependent_addresses(
        items in proptest::collection::vec(item(true), 1..24),
        a in input(),
        b in input(),
        more in extra(),
    ) {
        check_program(&items, a, b, &probes(a, b, &more))?;
    }
}

/// A fixed program that exercises every kind of symbolic step once.
#[test]
fn every_kind_of_step_on_one_path() {
    use Instr::*;
    let (r1, r2, r3, r4, r5) = (reg(1), reg(2), reg(3), reg(4), reg(5));
    let items = vec![
        Item::Op(Add {
            d: r3,
            s: r1,
            t: r2,
        }),
        Item::Op(Slt {
            d: r4,
            s: r1,
            t: r2,
        }),
        Item::Branch {
            beq: true,
            s: r4,
            t: Reg::ZERO,
            skip: 1,
        },
        Item::Op(Sub {
            d: r3,
            s: r3,
            t: r1,
        }),
        Item::Op(Mult { s: r1, t: r2 }),
        Item::Op(Mfhi { d: r5 }),
        Item::Op(Sw {
            t: r5,
            i: -4,
            s: Reg::SP,
        }),
        Item::GuardedDiv {
            signed: true,
            s: r3,
            t: r2,
        },
        Item::Op(Mflo { d: r4 }),
        Item::Op(Lw {
            t: r3,
            i: -4,
            s: Reg::SP,
        }),
        Item::Op(Add {
            d: r3,
            s: r3,
            t: r4,
        }),
    ];
    for (a, b) in [
        (3, 9),
        (9, 3),
        (5, 0),
        (u32::MAX, 2),
        (0x8000_0000, u32::MAX),
    ] {
        check_program(&items, a, b, &probes(a, b, &[(1, 2), (7, 7)])).unwrap();
    }
}

/// A word stored from an input is then executed: the instruction that runs depends
/// on `$2`, so the path must pin `$2` (or at least the instruction it encodes).
#[test]
fn code_stored_from_an_input_is_pinned() {
    use Instr::*;
    let (r1, r3, r4) = (reg(1), reg(3), reg(4));
    let items = vec![
        Item::Lis(r4, 16), // words 0, 1
        Item::Op(Sw {
            t: reg(2),
            i: 0,
            s: r4,
        }), // word 2: overwrite word 4
        Item::Op(Add {
            d: r3,
            s: r1,
            t: Reg::ZERO,
        }), // word 3
        Item::Op(Add {
            d: r3,
            s: r1,
            t: r1,
        }), // word 4: replaced by $2
    ];
    let add = Add {
        d: r3,
        s: r3,
        t: r3,
    }
    .encode();
    let o = run_plain(&build(&items), 5, add);
    assert_eq!((o.status, o.regs.gpr[3]), (Status::Done, 10));
    assert!(matches!(
        run_plain(&build(&items), 5, 0).status,
        Status::Error(_)
    ));
    let probes = [(5, 0), (6, add), (5, Jr { s: reg(31) }.encode())];
    check_program_with(&items, 5, add, &probes, false).unwrap();
}

/// The same hole, end to end: the left program ends normally when `$2` encodes an
/// ordinary instruction and fails otherwise; the right one always fails. The engine
/// sees one path on each side, both failing, and calls them equivalent.
#[test]
fn compare_sees_code_stored_from_an_input() {
    use tamarin::concolic::{compare, Options, Quiet};
    use tamarin::verdict::Verdict;
    let items = vec![
        Item::Lis(reg(4), 16),
        Item::Op(Instr::Sw {
            t: reg(2),
            i: 0,
            s: reg(4),
        }),
        Item::Op(Instr::Add {
            d: reg(3),
            s: reg(1),
            t: Reg::ZERO,
        }),
        Item::Op(Instr::Add {
            d: reg(3),
            s: reg(1),
            t: reg(1),
        }),
    ];
    let left = build(&items);
    let right = Program::from_words(vec![0]);
    let add = Instr::Add {
        d: reg(3),
        s: reg(3),
        t: reg(3),
    }
    .encode();
    assert_eq!(run_plain(&left, 5, add).status, Status::Done);
    assert!(matches!(run_plain(&right, 5, add).status, Status::Error(_)));
    let report = compare(&left, &right, &Options::default(), &mut Quiet);
    match &report.verdict {
        Verdict::Disequivalent(cx) => {
            let (x, y) = (cx.inputs[0].1, cx.inputs[1].1);
            assert_eq!(run_plain(&left, x, y).status, Status::Done);
        }
        v => panic!("expected disequivalent, got {v:?}"),
    }
}
