//! What goes into a run and what comes out of it: the kinds of input (registers, an
//! array, standard input bytes) and the observables that a comparison compares.
//!
//! The layout fixes one order of input variables, so a model from the solver, a
//! counterexample and a replay command all mean the same values.

use std::fmt;

use tamarin_mips::cpu::{Frontend, Machine, Outcome, SetupError};
use tamarin_mips::memory::MEM_SIZE;
use tamarin_mips::{Program, Reg};

use crate::term::{BinOp, Term, TermStore};

/// How the inputs enter the programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSpec {
    /// These registers hold the inputs (the twoints frontend: `$1`, `$2`).
    Registers(Vec<Reg>),
    /// An array of `0..=max_len` words, placed at `base` (default: right after each
    /// program's image); `$1` holds its address and `$2` its length.
    Array { max_len: u32, base: Option<u32> },
}

impl InputSpec {
    /// Why the array cannot be placed for `program` whatever its length, if it cannot:
    /// an unaligned base, or one outside memory. (Lengths that run past the end of
    /// memory are a property of some inputs, and each engine reports them as such.)
    pub fn placement_error(&self, program: &Program) -> Option<SetupError> {
        let InputSpec::Array { base, .. } = self else {
            return None;
        };
        let base = base.unwrap_or(program.byte_len());
        if !base.is_multiple_of(4) {
            Some(SetupError::ArrayUnaligned(base))
        } else if base > MEM_SIZE {
            Some(SetupError::ArrayTooLarge { base, len: 0 })
        } else {
            None
        }
    }
}

impl Default for InputSpec {
    fn default() -> Self {
        InputSpec::Registers(vec![Reg::from_bits(1), Reg::from_bits(2)])
    }
}

/// Something compared when both runs end normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Observable {
    Reg(Reg),
    Hi,
    Lo,
    /// The bytes written to the output address.
    Output,
    /// The words at addresses `from` to `to`, both included.
    Mem {
        from: u32,
        to: u32,
    },
}

impl Observable {
    /// The result register of the CS241 convention, observed when nothing else is
    /// asked for.
    pub const CS241_RESULT: Observable =
        Observable::Reg(<tamarin_mips::target::Cs241 as tamarin_mips::target::Abi>::RESULT);
}

impl fmt::Display for Observable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Observable::Reg(r) => write!(f, "{r}"),
            Observable::Hi => f.write_str("hi"),
            Observable::Lo => f.write_str("lo"),
            Observable::Output => f.write_str("output"),
            Observable::Mem { from, to } => write!(f, "mem:{from:#x}..{to:#x}"),
        }
    }
}

/// The most words one `mem:` observable may cover.
pub const MAX_OBSERVED_WORDS: u32 = 65_536;

impl Observable {
    /// Parses `$N`, `hi`, `lo`, `output` or `mem:A..B` (numbers decimal or `0x` hex;
    /// word-aligned, inside memory, at most [`MAX_OBSERVED_WORDS`] words).
    pub fn parse(text: &str) -> Result<Observable, String> {
        let t = text.trim();
        match t {
            "hi" => return Ok(Observable::Hi),
            "lo" => return Ok(Observable::Lo),
            "output" => return Ok(Observable::Output),
            _ => {}
        }
        if let Some(n) = t.strip_prefix('$') {
            return match n.parse::<u8>().ok().and_then(Reg::new) {
                Some(r) => Ok(Observable::Reg(r)),
                None => Err(format!("`{t}` is not a register; expected $0 … $31")),
            };
        }
        if let Some(range) = t.strip_prefix("mem:") {
            let Some((a, b)) = range.split_once("..") else {
                return Err(format!("`{t}`: expected a range like mem:0x100..0x10c"));
            };
            let num = |s: &str| -> Result<u32, String> {
                let s = s.trim();
                let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                    Some(h) => u32::from_str_radix(h, 16),
                    None => s.parse::<u32>(),
                };
                v.map_err(|_| format!("`{s}` in `{t}` is not an address"))
            };
            let (from, to) = (num(a)?, num(b)?);
            let observable = Observable::Mem { from, to };
            return match observable.validate() {
                Ok(()) => Ok(observable),
                Err(e) => Err(format!("`{t}`: {e}")),
            };
        }
        Err(format!(
            "`{t}` is not an observable; expected $N, hi, lo, output or mem:A..B"
        ))
    }

    /// Why no run can show this observable, if none can: a `mem:` range that is not
    /// word-aligned, is reversed, reaches past the end of memory or covers more than
    /// [`MAX_OBSERVED_WORDS`] words.
    pub fn validate(&self) -> Result<(), String> {
        let Observable::Mem { from, to } = *self else {
            return Ok(());
        };
        if from % 4 != 0 || to % 4 != 0 {
            return Err("addresses must be multiples of 4".into());
        }
        if from > to || to >= MEM_SIZE {
            return Err(format!(
                "expected A..B with A <= B < {MEM_SIZE:#x} (both included)"
            ));
        }
        if (to - from) / 4 + 1 > MAX_OBSERVED_WORDS {
            return Err(format!("it covers more than {MAX_OBSERVED_WORDS} words"));
        }
        Ok(())
    }
}

/// The word of `program`'s initial memory at aligned address `addr` (zero past the
/// image).
pub fn image_word(program: &Program, addr: u32) -> u32 {
    program
        .words()
        .get((addr / 4) as usize)
        .copied()
        .unwrap_or(0)
}

/// A value observed on a concrete run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observed {
    Word(u32),
    Bytes(Vec<u8>),
    Words(Vec<u32>),
}

/// Reads `what` from a machine after its run.
pub fn observe(machine: &Machine, outcome: &Outcome, what: &Observable) -> Observed {
    match *what {
        Observable::Reg(r) => Observed::Word(outcome.regs.get(r)),
        Observable::Hi => Observed::Word(outcome.regs.hi),
        Observable::Lo => Observed::Word(outcome.regs.lo),
        Observable::Output => Observed::Bytes(outcome.output.clone()),
        Observable::Mem { from, to } => Observed::Words(
            (from..=to)
                .step_by(4)
                .map(|a| machine.read_word(a))
                .collect(),
        ),
    }
}

/// The input variables of a comparison and how their values become a run's inputs.
#[derive(Clone, Debug)]
pub struct InputLayout {
    pub spec: InputSpec,
    /// Bytes of standard input that are inputs (after them, reads give -1).
    pub stdin_len: usize,
    vars: Vec<Term>,
    names: Vec<String>,
    /// The preconditions, as terms of the store the layout was declared in.
    assumed: Vec<Term>,
    /// The preconditions, for checking concrete inputs (none: every input is allowed).
    admission: Option<InputFilter>,
}

/// A program that says which inputs are in the domain (a precondition no formula of
/// `--assume` can state, such as "a valid tree"): it runs on the same inputs as the
/// programs compared, placed the same way (an array after its own image unless the
/// task fixes the base), in a machine of its own, and an input is in the domain when
/// it ends normally with `$3 = 1` within its own fuel. Concrete inputs are checked by
/// running it ([`InputLayout::admits`]); the engines add its merged encoding to every
/// query, so every model the solver gives, and every counterexample, is inside.
#[derive(Clone, Debug)]
pub struct DomainProgram {
    name: String,
    program: std::sync::Arc<Program>,
    fuel: u64,
}

impl DomainProgram {
    /// The domain that `program` (named `name` in reports) accepts within `fuel` steps.
    pub fn new(name: impl Into<String>, program: Program, fuel: u64) -> DomainProgram {
        DomainProgram {
            name: name.into(),
            program: std::sync::Arc::new(program),
            fuel,
        }
    }

    /// Its name, as reports give it.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Steps it may take before an input counts as outside the domain.
    pub fn fuel(&self) -> u64 {
        self.fuel
    }

    /// Whether a run of it on `values` (placed by `layout`) ends normally with `$3 = 1`
    /// within its fuel; `termination` is the task's termination address.
    pub fn accepts(&self, layout: &InputLayout, termination: u32, values: &[u32]) -> bool {
        let mut config = tamarin_mips::cpu::Config::default();
        config.fuel = self.fuel;
        config.termination = termination;
        let mut machine = Machine::new(&self.program, config);
        if layout.load(&mut machine, values).is_err() {
            return false;
        }
        let outcome = machine.run_to_outcome(&mut tamarin_mips::cpu::NoTrace);
        outcome.status == tamarin_mips::cpu::Status::Done && outcome.regs.result() == 1
    }
}

/// A Boolean term over a layout's variables, in a store of its own whose variables
/// are declared in the layout's order (so input values index them directly), and a
/// domain program: what concrete inputs must satisfy.
#[derive(Clone)]
pub(crate) struct InputFilter {
    inner: std::sync::Arc<(TermStore, Term)>,
    /// The domain program, the layout that places inputs for it, and the termination
    /// address.
    program: Option<std::sync::Arc<(DomainProgram, InputLayout, u32)>>,
}

impl fmt::Debug for InputFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InputFilter")
    }
}

impl InputFilter {
    pub(crate) fn new(store: TermStore, term: Term) -> InputFilter {
        InputFilter {
            inner: std::sync::Arc::new((store, term)),
            program: None,
        }
    }

    /// Admits what it admitted and the domain program accepts too.
    fn with_program(
        mut self,
        program: DomainProgram,
        layout: InputLayout,
        termination: u32,
    ) -> InputFilter {
        self.program = Some(std::sync::Arc::new((program, layout, termination)));
        self
    }

    /// Admits every input.
    fn admit_all() -> InputFilter {
        let mut store = TermStore::new();
        let term = store.bool(true);
        InputFilter::new(store, term)
    }

    /// Admits no input.
    pub(crate) fn refuse_all() -> InputFilter {
        let mut store = TermStore::new();
        let term = store.bool(false);
        InputFilter::new(store, term)
    }

    /// Whether `values` satisfy the term, and the domain program accepts them.
    pub(crate) fn admits(&self, values: &[u32]) -> bool {
        let (store, term) = &*self.inner;
        let vars: Vec<u64> = values.iter().map(|&v| v as u64).collect();
        crate::term::Evaluator::new(store, &vars).holds(*term)
            && self
                .program
                .as_ref()
                .is_none_or(|p| p.0.accepts(&p.1, p.2, values))
    }
}

/// The inputs of one run, for reports and replay commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputValues {
    /// Register inputs by name (`$1` …), empty for the array frontend.
    pub registers: Vec<(String, u32)>,
    /// The array, for the array frontend.
    pub array: Option<Vec<u32>>,
    /// Standard input bytes.
    pub stdin: Vec<u8>,
}

impl InputLayout {
    /// The layout alone, for concrete runs and reports (its variables live in a store
    /// of their own).
    pub fn new(spec: &InputSpec, stdin_len: usize) -> InputLayout {
        InputLayout::declare(&mut TermStore::new(), spec, stdin_len)
    }

    /// Declares the input variables in `store`.
    pub fn declare(store: &mut TermStore, spec: &InputSpec, stdin_len: usize) -> InputLayout {
        let mut vars = Vec::new();
        let mut names = Vec::new();
        let mut var = |store: &mut TermStore, name: String, width: u8| {
            vars.push(store.new_var(&name, width));
            names.push(name);
        };
        match spec {
            InputSpec::Registers(regs) => {
                for r in regs {
                    var(store, r.to_string(), 32);
                }
            }
            InputSpec::Array { max_len, .. } => {
                var(store, "len".into(), 32);
                for k in 0..*max_len {
                    var(store, format!("a[{k}]"), 32);
                }
            }
        }
        for k in 0..stdin_len {
            var(store, format!("in[{k}]"), 8);
        }
        InputLayout {
            spec: spec.clone(),
            stdin_len,
            vars,
            names,
            assumed: Vec::new(),
            admission: None,
        }
    }

    /// Restricts the inputs: `assumed` (terms of the store the layout was declared in)
    /// join the [`domain`](Self::domain), and `filter` decides concrete inputs.
    pub(crate) fn restrict(&mut self, assumed: Vec<Term>, filter: InputFilter) {
        self.assumed = assumed;
        self.admission = Some(filter);
    }

    /// Restricts the inputs to those that `program` accepts as well: concrete inputs
    /// are checked by running it ([`DomainProgram::accepts`]), and `accepted`, its
    /// acceptance as a term of the layout's store (from the merged encoding; `None` for
    /// a layout that only checks concrete inputs), joins the [`domain`](Self::domain).
    pub fn restrict_to_program(
        &mut self,
        program: &DomainProgram,
        termination: u32,
        accepted: Option<Term>,
    ) {
        if let Some(t) = accepted {
            self.assumed.push(t);
        }
        let plain = InputLayout::new(&self.spec, self.stdin_len);
        let filter = self.admission.take().unwrap_or_else(InputFilter::admit_all);
        self.admission = Some(filter.with_program(program.clone(), plain, termination));
    }

    /// Whether `values` (in the layout's order) satisfy the preconditions.
    pub fn admits(&self, values: &[u32]) -> bool {
        self.admission.as_ref().is_none_or(|a| a.admits(values))
    }

    /// Whether some precondition restricts the inputs.
    pub fn is_restricted(&self) -> bool {
        self.admission.is_some()
    }

    /// The input variables, in order.
    pub fn vars(&self) -> &[Term] {
        &self.vars
    }

    /// Their names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Constraints every input satisfies: the array length is at most `max_len`, and
    /// the preconditions hold.
    pub fn domain(&self, store: &mut TermStore) -> Vec<Term> {
        let mut domain = match (&self.spec, self.vars.first()) {
            (InputSpec::Array { max_len, .. }, Some(&len)) => {
                let bound = store.word(max_len.saturating_add(1));
                vec![store.bin(BinOp::Ult, len, bound)]
            }
            _ => Vec::new(),
        };
        domain.extend_from_slice(&self.assumed);
        domain
    }

    /// `-bound <= v <= bound` for every input variable (for small counterexamples).
    pub fn small(&self, store: &mut TermStore, bound: u32) -> Vec<Term> {
        self.vars
            .iter()
            .map(|&v| {
                let w = store.width(v);
                let span = (bound as u64) * 2 + 1;
                if span >= crate::term::mask(w) {
                    return store.bool(true);
                }
                let b = store.constant(w, bound as u64);
                let shifted = store.bin(BinOp::Add, v, b);
                let limit = store.constant(w, span);
                store.bin(BinOp::Ult, shifted, limit)
            })
            .collect()
    }

    /// Values for every variable from `values` (missing ones are 0), with the array
    /// length clamped to its bound.
    pub fn normalise(&self, values: &[u64]) -> Vec<u32> {
        let mut v: Vec<u32> = (0..self.vars.len())
            .map(|i| values.get(i).copied().unwrap_or(0) as u32)
            .collect();
        if let (InputSpec::Array { max_len, .. }, Some(len)) = (&self.spec, v.first_mut()) {
            *len = (*len).min(*max_len);
        }
        for k in 0..self.stdin_len {
            if let Some(b) = v.get_mut(self.vars.len() - self.stdin_len + k) {
                *b &= 0xff;
            }
        }
        v
    }

    /// The frontend and standard input of a run on `values`.
    pub fn run_inputs(&self, values: &[u32]) -> (Frontend, Vec<u8>) {
        let get = |i: usize| values.get(i).copied().unwrap_or(0);
        let frontend = match &self.spec {
            InputSpec::Registers(_) => Frontend::TwoInts(0, 0),
            InputSpec::Array { max_len, base } => {
                let len = get(0).min(*max_len) as usize;
                Frontend::Array {
                    elems: (0..len).map(|k| get(1 + k)).collect(),
                    base: *base,
                }
            }
        };
        let first = self.vars.len() - self.stdin_len;
        let stdin = (0..self.stdin_len).map(|k| get(first + k) as u8).collect();
        (frontend, stdin)
    }

    /// Prepares a machine (fresh or reset) for a run on `values`: places the array or
    /// sets the input registers, and gives it the standard input bytes. The one way
    /// every engine, replay and the harness set up a run.
    pub fn load(&self, machine: &mut Machine, values: &[u32]) -> Result<(), SetupError> {
        let (frontend, stdin) = self.run_inputs(values);
        machine.apply(&frontend)?;
        self.set_registers(machine, values);
        machine.set_input(std::sync::Arc::from(stdin));
        Ok(())
    }

    /// Sets the register inputs on a machine (after the frontend is applied).
    pub fn set_registers(&self, machine: &mut Machine, values: &[u32]) {
        if let InputSpec::Registers(regs) = &self.spec {
            for (k, &r) in regs.iter().enumerate() {
                machine.set_reg(r, values.get(k).copied().unwrap_or(0));
            }
        }
    }

    /// The registers that hold input terms at the start of a run.
    pub fn symbolic_registers(&self) -> Vec<(Reg, Term)> {
        match &self.spec {
            InputSpec::Registers(regs) => regs
                .iter()
                .copied()
                .zip(self.vars.iter().copied())
                .collect(),
            InputSpec::Array { .. } => match self.vars.first() {
                Some(&len) => vec![(Reg::from_bits(2), len)],
                None => Vec::new(),
            },
        }
    }

    /// The memory words that hold input terms at the start of a run of `program`: the
    /// array's slots, each `len > k ? a[k] : w` where `w` is the word the image (or
    /// zero memory) has there, since the machine places only the array's `len` words.
    /// The slots may lie over the program's data or code; a slot that is executed is
    /// code fetched from an input-dependent word, which every engine must cover.
    pub fn symbolic_memory(&self, store: &mut TermStore, program: &Program) -> Vec<(u32, Term)> {
        let InputSpec::Array { max_len, base } = &self.spec else {
            return Vec::new();
        };
        let base = base.unwrap_or(program.byte_len());
        let Some(&len) = self.vars.first() else {
            return Vec::new();
        };
        (0..*max_len)
            .filter_map(|k| {
                let addr = base.checked_add(k.checked_mul(4)?)?;
                if addr >= MEM_SIZE {
                    return None;
                }
                let kk = store.word(k);
                let present = store.bin(BinOp::Ult, kk, len);
                let elem = *self.vars.get(1 + k as usize)?;
                let old = store.word(image_word(program, addr));
                Some((addr, store.ite(present, elem, old)))
            })
            .collect()
    }

    /// The standard input variables (8 bits each), in order.
    pub fn symbolic_stdin(&self) -> &[Term] {
        &self.vars[self.vars.len() - self.stdin_len..]
    }

    /// The inputs of a run, as reported.
    pub fn describe(&self, values: &[u32]) -> InputValues {
        let (frontend, stdin) = self.run_inputs(values);
        match (&self.spec, frontend) {
            (InputSpec::Array { .. }, Frontend::Array { elems, .. }) => InputValues {
                registers: Vec::new(),
                array: Some(elems),
                stdin,
            },
            _ => InputValues {
                registers: self
                    .names
                    .iter()
                    .take(self.vars.len() - self.stdin_len)
                    .cloned()
                    .zip(values.iter().copied())
                    .collect(),
                array: None,
                stdin,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observables_parse_and_print() {
        for text in ["$3", "hi", "lo", "output", "mem:0x100..0x10c"] {
            let o = Observable::parse(text).unwrap();
            assert_eq!(o.to_string(), text);
        }
        assert_eq!(
            Observable::parse("mem:256..268"),
            Ok(Observable::Mem {
                from: 0x100,
                to: 0x10c
            })
        );
        for bad in [
            "$32",
            "$x",
            "mem:1..8",
            "mem:8..4",
            "mem:0x0",
            "pc",
            "mem:0..0x1000000",
        ] {
            assert!(Observable::parse(bad).is_err(), "{bad}");
        }
        // Values built directly are held to the same rules.
        let mem = |from, to| Observable::Mem { from, to }.validate();
        assert_eq!(mem(0x100, 0x10c), Ok(()));
        assert!(mem(1, 8).is_err());
        assert!(mem(8, 4).is_err());
        assert!(mem(0, MEM_SIZE).is_err());
        assert!(mem(0, MAX_OBSERVED_WORDS * 4).is_err());
        assert_eq!(Observable::Hi.validate(), Ok(()));
    }

    #[test]
    fn array_layout_clamps_and_places() {
        let mut s = TermStore::new();
        let l = InputLayout::declare(
            &mut s,
            &InputSpec::Array {
                max_len: 3,
                base: None,
            },
            1,
        );
        assert_eq!(l.names(), ["len", "a[0]", "a[1]", "a[2]", "in[0]"]);
        let v = l.normalise(&[9, 1, 2, 3, 0x1ff]);
        assert_eq!(v, vec![3, 1, 2, 3, 0xff]);
        let (f, stdin) = l.run_inputs(&[2, 7, 8, 9, 65]);
        assert_eq!(
            f,
            Frontend::Array {
                elems: vec![7, 8],
                base: None
            }
        );
        assert_eq!(stdin, b"A");
        let program = Program::from_words(vec![7, 8, 9, 10]);
        let slots = l.symbolic_memory(&mut s, &program);
        assert_eq!(slots.len(), 3);
        assert_eq!(slots[0].0, 16, "right after the image");
        assert_eq!(l.describe(&[2, 7, 8, 9, 65]).array, Some(vec![7, 8]));
    }

    #[test]
    fn array_slots_past_the_length_keep_the_image_words_under_them() {
        let mut s = TermStore::new();
        let spec = InputSpec::Array {
            max_len: 3,
            base: Some(4),
        };
        let l = InputLayout::declare(&mut s, &spec, 0);
        // The array covers words 1, 2 and 3; the image has words 0 to 2.
        let program = Program::from_words(vec![0x11, 0x22, 0x33]);
        let slots = l.symbolic_memory(&mut s, &program);
        let addrs: Vec<u32> = slots.iter().map(|&(a, _)| a).collect();
        assert_eq!(addrs, [4, 8, 12]);
        for len in 0..=3u64 {
            let values = [len, 0xa0, 0xa1, 0xa2];
            let got: Vec<u64> = slots
                .iter()
                .map(|&(_, t)| crate::term::eval(&s, &values, t))
                .collect();
            // What the machine holds at 4, 8 and 12 after placing `len` words.
            let mut m = Machine::new(&program, Default::default());
            let (frontend, _) = l.run_inputs(&values.map(|v| v as u32));
            m.apply(&frontend).unwrap();
            let want: Vec<u64> = addrs.iter().map(|&a| m.read_word(a) as u64).collect();
            assert_eq!(got, want, "len {len}");
        }
    }

    #[test]
    fn placements_that_no_length_fits_are_refused() {
        let program = Program::from_words(vec![0; 4]);
        let at = |base| InputSpec::Array {
            max_len: 2,
            base: Some(base),
        };
        assert_eq!(at(0).placement_error(&program), None);
        assert_eq!(at(MEM_SIZE).placement_error(&program), None);
        assert_eq!(
            at(6).placement_error(&program),
            Some(SetupError::ArrayUnaligned(6))
        );
        assert!(at(MEM_SIZE + 4).placement_error(&program).is_some());
        assert_eq!(InputSpec::default().placement_error(&program), None);
    }
}
