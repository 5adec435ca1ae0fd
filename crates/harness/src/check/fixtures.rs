//! Pairs, verdicts and settings that the checks' unit tests share.

use std::time::Duration;

use tamarin::Engine;
use tamarin::InputSpec;

use super::engines::one_engine_checks;
use super::findings::{Direction, EngineRun, Kind};
use super::reproduce::REG3;
use super::CheckConfig;
use crate::generate::Shape;
use crate::pair::{Pair, PairKind, Placement};
use crate::prog::{Line, Op, Prog, Word, R};

pub(super) fn direction(kind: Kind, replayed: bool) -> Direction {
    Direction {
        kind,
        inputs: (kind == Kind::Disequivalent).then(|| vec![7, 9]),
        replayed,
        proof: None,
        incomplete: Vec::new(),
        detail: String::new(),
        runs: 0,
        time: Duration::ZERO,
        over_limit: false,
    }
}

pub(super) fn run(engine: Engine, forward: Direction, backward: Option<Direction>) -> EngineRun {
    one_engine_checks(PairKind::Mutant, engine, forward, backward, &mut Vec::new())
}

pub(super) fn prog(lines: Vec<Line>) -> Prog {
    Prog {
        lines,
        layout_sensitive: true,
    }
}

pub(super) fn op(o: Op) -> Line {
    Line::Op(o)
}

fn data(words: &[u32]) -> impl Iterator<Item = Line> + '_ {
    words.iter().map(|&w| Line::Data(Word::Num(w)))
}

fn array_pair(left: Prog, right: Prog, placement: Placement, base: u32) -> Pair {
    Pair {
        seed: 0,
        index: 0,
        shape: Shape::Array,
        kind: PairKind::Mutant,
        left,
        right,
        note: String::new(),
        inputs: InputSpec::Array {
            max_len: Shape::ARRAY_MAX_LEN,
            base: Some(base),
        },
        observe: vec![REG3],
        placement: Some(placement),
    }
}

/// `$3 = a[0]`, then six data words from address 8: with an empty array, the read
/// sees the first data word. The right program's first data word differs, so the
/// two differ exactly on the arrays of length 0.
pub(super) fn over_data_pair(planted: bool) -> Pair {
    let code = [op(Op::Lw(R(3), 0, R(1))), op(Op::Jr(R(31)))];
    let words = [5, 6, 7, 8, 9, 10];
    let mut right_words = words;
    if planted {
        right_words[0] = 0x15;
    }
    let left = prog(code.iter().cloned().chain(data(&words)).collect());
    let right = prog(code.iter().cloned().chain(data(&right_words)).collect());
    array_pair(left, right, Placement::OverData, 8)
}

/// The array at 0, over the first instructions: `$3 = 0; $3 += len` against
/// `$3 = len; $3 += 0`, equal unless array words replace them (with one element
/// equal to its first instruction, say, the left gives 1 and the right 0).
pub(super) fn over_code_pair() -> Pair {
    let left = prog(vec![
        op(Op::Add(R(3), R(0), R(0))),
        op(Op::Add(R(3), R(3), R(2))),
        op(Op::Jr(R(31))),
    ]);
    let right = prog(vec![
        op(Op::Add(R(3), R(2), R(0))),
        op(Op::Add(R(3), R(3), R(0))),
        op(Op::Jr(R(31))),
    ]);
    array_pair(left, right, Placement::OverCode, 0)
}

pub(super) fn small_config(engines: Vec<Engine>) -> CheckConfig {
    CheckConfig {
        inputs: 500,
        compare_timeout: Some(Duration::from_secs(5)),
        solver_timeout: Some(Duration::from_secs(1)),
        engines,
        spin_checks: false,
        ..CheckConfig::default()
    }
}
