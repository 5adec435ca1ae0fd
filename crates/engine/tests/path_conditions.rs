//! `tamarin::path_conditions`: the conditions of one traced run are, word for word,
//! those that `tamarin::explore` lists for the path the run takes.

mod common;

use tamarin::{explore, path_conditions, InputSpec, Options, Quiet};

fn agree(name: &str, program: &tamarin::mips::Program, opts: &Options, extra: &[Vec<u32>]) {
    let e = explore(program, opts, &mut Quiet).expect("explores");
    assert!(e.incomplete.is_empty(), "{name}: {:?}", e.incomplete);
    let listed: Vec<&Vec<String>> = e.paths.iter().map(|p| &p.conditions).collect();
    for p in &e.paths {
        let values: Vec<u32> = p.inputs.iter().map(|&(_, v)| v).collect();
        let traced = path_conditions(program, opts, &values).expect("traces");
        assert_eq!(traced, p.conditions, "{name} on {:?}", p.inputs);
    }
    // Other inputs take one of the listed paths, with its conditions.
    for values in extra {
        let traced = path_conditions(program, opts, values).expect("traces");
        assert!(
            listed.contains(&&traced),
            "{name} on {values:?}: {traced:?} is not among {listed:?}"
        );
    }
}

#[test]
fn registers_take_the_listed_paths() {
    let opts = Options::default();
    let extra = vec![
        vec![5, 100],
        vec![42, 7],
        vec![u32::MAX, 0x8000_0000],
        vec![42, 100],
    ];
    for name in [
        "fig5-left.asm",
        "fig5-right.asm",
        "fig8-left.asm",
        "fig1-left.asm",
    ] {
        agree(name, &common::paper(name), &opts, &extra);
    }
}

#[test]
fn arrays_take_the_listed_paths() {
    let mut opts = Options::default();
    opts.inputs = InputSpec::Array {
        max_len: 3,
        base: None,
    };
    let extra = vec![
        vec![0, 9, 9, 9],
        vec![2, 5, u32::MAX, 0],
        vec![3, 1, 2, 3],
        vec![7, 1, 2, 3], // a length past the maximum is the maximum
    ];
    for name in ["amax-fwd.asm", "asum-fwd.asm"] {
        agree(name, &common::proof_example(name), &opts, &extra);
    }
}

#[test]
fn an_array_that_does_not_fit_is_an_error() {
    let mut opts = Options::default();
    opts.inputs = InputSpec::Array {
        max_len: 3,
        base: Some(6),
    };
    let program = common::paper("fig5-left.asm");
    assert!(matches!(
        path_conditions(&program, &opts, &[1, 2, 3, 4]),
        Err(tamarin::Error::Setup(_))
    ));
}
