//! The recorded trace agrees with the concrete run for array inputs, standard input and
//! output: random programs read array elements (present or past the end), read input
//! bytes, write output bytes and branch on what they read; at the run's inputs every path
//! condition holds, and `$3`, `$2` and the output bytes evaluate to their concrete values.

use std::sync::Arc;

use proptest::prelude::*;
use tamarin::io::{InputLayout, InputSpec, Observable};
use tamarin::term::{Evaluator, TermStore};
use tamarin::trace::SymTracer;
use tamarin_mips::asm::assemble;
use tamarin_mips::cpu::{Config, Machine, Status, DEFAULT_TERMINATION};
use tamarin_mips::Reg;

#[derive(Clone, Debug)]
enum Item {
    Arith(&'static str, u8, u8, u8),
    /// `lw $d, 4k($1)`: element k (zero past the array).
    Element(u8, u8),
    /// Read one input byte into `$d`.
    Read(u8),
    /// Write the low byte of `$s`.
    Write(u8),
    /// Skip the next item when `$s` and `$t` are equal (`beq`) or not (`bne`).
    Skip(bool, u8, u8),
}

fn r() -> impl Strategy<Value = u8> {
    2u8..=8
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        (
            prop_oneof![Just("add"), Just("sub"), Just("slt"), Just("sltu")],
            3u8..=8,
            r(),
            r()
        )
            .prop_map(|(op, d, s, t)| Item::Arith(op, d, s, t)),
        (3u8..=8, 0u8..6).prop_map(|(d, k)| Item::Element(d, k)),
        (3u8..=8).prop_map(Item::Read),
        r().prop_map(Item::Write),
        (any::<bool>(), r(), r()).prop_map(|(b, s, t)| Item::Skip(b, s, t)),
    ]
}

fn render(items: &[Item]) -> String {
    let mut s = String::from("lis $9\n.word 0xffff0004\nlis $10\n.word 0xffff000c\n");
    for (k, it) in items.iter().enumerate() {
        s.push_str(&format!("i{k}:\n"));
        match it {
            Item::Arith(op, d, a, b) => s.push_str(&format!("{op} ${d}, ${a}, ${b}\n")),
            Item::Element(d, e) => s.push_str(&format!("lw ${d}, {}($1)\n", 4 * e)),
            Item::Read(d) => s.push_str(&format!("lw ${d}, 0($9)\n")),
            Item::Write(v) => s.push_str(&format!("sw ${v}, 0($10)\n")),
            Item::Skip(beq, a, b) => {
                let m = if *beq { "beq" } else { "bne" };
                s.push_str(&format!("{m} ${a}, ${b}, i{}\n", k + 2));
            }
        }
    }
    let n = items.len();
    s.push_str(&format!("i{n}:\ni{}:\njr $31\n", n + 1));
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn trace_agrees_with_arrays_stdin_and_output(
        items in prop::collection::vec(item(), 1..20),
        array in prop::collection::vec(prop_oneof![any::<u32>(), 0u32..4], 0..5),
        stdin in prop::collection::vec(any::<u8>(), 0..3),
        back in prop_oneof![3 => Just(None), 1 => (1u32..8).prop_map(Some)],
    ) {
        let text = render(&items);
        let program = assemble("gen.asm", &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let max_len = 5;
        let mut store = TermStore::new();
        // The array after the image, or `back` words before its end: over the last
        // instructions, which the run may then execute as array words.
        let base = back.map(|k| program.byte_len().saturating_sub(4 * k));
        let layout = InputLayout::declare(&mut store, &InputSpec::Array { max_len, base }, 2);
        // Values: len, a[0..5], in[0..2]; stdin shorter than 2 bytes is padded by the
        // layout (the run sees exactly stdin_len bytes).
        let mut values: Vec<u64> = vec![array.len() as u64];
        values.extend((0..max_len as usize).map(|k| *array.get(k).unwrap_or(&0) as u64));
        values.extend((0..2).map(|k| *stdin.get(k).unwrap_or(&0) as u64));
        let values = layout.normalise(&values);
        let (frontend, input) = layout.run_inputs(&values);
        let config = Config::default();
        let mut m = Machine::new(&program, config);
        m.apply(&frontend).map_err(|e| TestCaseError::fail(e.to_string()))?;
        m.set_input(Arc::from(input));
        let memory = layout.symbolic_memory(&mut store, &program);
        let symbolic = layout.symbolic_registers();
        let stdin_terms = layout.symbolic_stdin().to_vec();
        let mut tracer = SymTracer::new(
            &mut store,
            m.regs(),
            &symbolic,
            program.words().clone(),
            DEFAULT_TERMINATION,
            false,
        )
        .with_memory(memory)
        .with_stdin(stdin_terms);
        let outcome = m.run_to_outcome(&mut tracer);
        let out_terms = tracer.observe(&Observable::Output);
        let r3 = tracer.observe(&Observable::Reg(Reg::from_bits(3)));
        let r2 = tracer.observe(&Observable::Reg(Reg::from_bits(2)));
        let (conds, _, _) = tracer.finish();
        let vals: Vec<u64> = values.iter().map(|&v| v as u64).collect();
        let mut ev = Evaluator::new(&store, &vals);
        for c in &conds {
            prop_assert!(ev.holds(c.cond), "{} does not hold\n{text}", store.readable(c.cond));
        }
        if base.is_none() {
            prop_assert_eq!(outcome.status, Status::Done, "{}", text);
        } else if outcome.status != Status::Done {
            // An array word ran as code and failed (or looped): the conditions held,
            // which is what matters for a run that does not end normally.
            return Ok(());
        }
        prop_assert_eq!(ev.eval(r3[0]) as u32, outcome.regs.gpr[3], "$3\n{}", text);
        prop_assert_eq!(ev.eval(r2[0]) as u32, outcome.regs.gpr[2], "$2\n{}", text);
        let bytes: Vec<u8> = out_terms.iter().map(|&t| ev.eval(t) as u8).collect();
        prop_assert_eq!(bytes, outcome.output.clone(), "output\n{}", text);
    }
}
