//! A checked pair as text: its one-line summary, everything needed to reproduce it
//! by hand, and the `tamarin` command lines that repeat its comparisons and runs.

use std::fmt::Write as _;

use tamarin::Engine;
use tamarin::{InputSpec, Observable};

use super::spin::{HUGE_FUEL, HUGE_FUEL_TIMEOUT};
use super::PairResult;

impl PairResult {
    /// One line: index, shape, kind, each engine's verdicts, times.
    pub fn line(&self) -> String {
        let verdicts: Vec<String> = self
            .runs
            .iter()
            .map(|r| {
                format!(
                    "{} {} ({:.3} s, {} runs)",
                    r.engine.name(),
                    r.verdicts(),
                    r.time().as_secs_f64(),
                    r.directions().map(|d| d.runs).sum::<u64>()
                )
            })
            .collect();
        format!(
            "pair {:>6} {:<10} {:<16} {}; concrete {:>6.3} s{}{}",
            self.index,
            self.shape.name(),
            self.pair_kind.name(),
            verdicts.join(", "),
            self.concrete_time.as_secs_f64(),
            if self.missed.is_some() { " MISSED" } else { "" },
            if self.failed() { " FAILED" } else { "" },
        )
    }

    /// Everything needed to reproduce the pair by hand.
    pub fn reproducer(&self) -> String {
        let mut s = String::new();
        let verdicts: Vec<String> = self
            .runs
            .iter()
            .map(|r| {
                format!(
                    "{} forward {}{}",
                    r.engine.name(),
                    r.forward.kind,
                    match &r.backward {
                        Some(b) => format!(", backward {}", b.kind),
                        None => String::new(),
                    }
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "pair {} of seed {} (shape {}, {}): {}",
            self.index,
            self.seed,
            self.shape,
            self.pair_kind,
            verdicts.join("; ")
        );
        if !self.note.is_empty() {
            let _ = writeln!(s, "  made by: {}", self.note);
        }
        for r in &self.runs {
            if let Some(a) = &r.asymmetric_incomplete {
                let _ = writeln!(s, "  {} incomplete asymmetry: {a}", r.engine.name());
            }
        }
        if self.spec != InputSpec::default() || self.observe != [REG3] {
            let obs: Vec<String> = self.observe.iter().map(|o| o.to_string()).collect();
            let _ = writeln!(
                s,
                "  inputs: {}; observed: {}",
                match &self.spec {
                    InputSpec::Array { max_len, base } => format!(
                        "an array of at most {max_len} words{} ($1 address, $2 length)",
                        match (base, self.placement) {
                            (Some(b), Some(p)) => format!(" at {b:#x} ({p})"),
                            (Some(b), None) => format!(" at {b:#x}"),
                            (None, _) => " right after each program".to_string(),
                        }
                    ),
                    InputSpec::Registers(_) => "$1, $2".to_string(),
                },
                obs.join(", ")
            );
        }
        if let Some(c) = &self.spin {
            let _ = writeln!(
                s,
                "  auto with fuel {HUGE_FUEL} and a {} s time limit: {} in {:.2} s",
                HUGE_FUEL_TIMEOUT.as_secs_f64(),
                c.kind,
                c.time.as_secs_f64()
            );
        }
        let _ = writeln!(
            s,
            "  replay (the programs below saved as left.asm and right.asm):"
        );
        for r in &self.runs {
            let _ = writeln!(s, "    {}", self.compare_command(r.engine));
        }
        for f in &self.findings {
            let _ = write!(
                s,
                "  FAILED {} ({}): {}",
                f.kind.name(),
                f.engine.name(),
                f.detail
            );
            if let Some(v) = &f.inputs {
                let _ = write!(
                    s,
                    " [inputs {}; run each side: {} (and the same with right.asm)]",
                    describe_inputs(&self.spec, v),
                    self.run_command("left.asm", v)
                );
            }
            s.push('\n');
        }
        if let Some(v) = &self.missed {
            let by: Vec<&str> = self
                .runs
                .iter()
                .filter(|r| r.missed)
                .map(|r| r.engine.name())
                .collect();
            let _ = writeln!(
                s,
                "  missed difference ({}): {}",
                by.join(", "),
                describe_inputs(&self.spec, v)
            );
        }
        for r in &self.runs {
            for d in r.directions() {
                if !d.detail.is_empty() {
                    let _ = writeln!(s, "  {} {}: {}", r.engine.name(), d.kind, d.detail);
                }
            }
        }
        let _ = writeln!(
            s,
            "--- left ---\n{}--- right ---\n{}",
            self.left_text, self.right_text
        );
        s
    }
}

impl PairResult {
    /// The `tamarin compare` command line that repeats the comparison by `engine`,
    /// with the programs saved as `left.asm` and `right.asm`.
    pub fn compare_command(&self, engine: Engine) -> String {
        let mut c = format!(
            "tamarin compare left.asm right.asm --engine {} --fuel {}",
            engine.name(),
            self.fuel
        );
        if let InputSpec::Array { max_len, base } = &self.spec {
            let _ = write!(c, " --frontend array --max-len {max_len}");
            if let Some(b) = base {
                let _ = write!(c, " --array-base {b:#x}");
            }
        }
        if self.observe != [REG3] {
            let obs: Vec<String> = self.observe.iter().map(|o| o.to_string()).collect();
            let _ = write!(c, " --observe '{}'", obs.join(","));
        }
        c
    }

    /// The `tamarin run` command line that runs `program` on input `values` (in the
    /// layout's order) as the concrete checks do.
    pub fn run_command(&self, program: &str, values: &[u32]) -> String {
        let mut c = format!("tamarin run {program} --fuel {}", self.fuel);
        match &self.spec {
            InputSpec::Array { max_len, base } => {
                let len = values.first().copied().unwrap_or(0).min(*max_len) as usize;
                let elems: Vec<String> = values
                    .iter()
                    .skip(1)
                    .take(len)
                    .map(|v| format!("{v:#x}"))
                    .collect();
                let _ = write!(c, " --array '{}'", elems.join(","));
                if let Some(b) = base {
                    let _ = write!(c, " --array-base {b:#x}");
                }
            }
            InputSpec::Registers(regs) => {
                for (r, v) in regs.iter().zip(values) {
                    match r.index() {
                        1 => {
                            let _ = write!(c, " --r1 {v:#x}");
                        }
                        2 => {
                            let _ = write!(c, " --r2 {v:#x}");
                        }
                        _ => {
                            let _ = write!(c, " --reg '{r}={v:#x}'");
                        }
                    }
                }
            }
        }
        c
    }
}

/// The default observable, `$3`.
pub(super) const REG3: Observable = Observable::CS241_RESULT;

/// Input values (in the layout's order) in words: `$1 = a (0x…), $2 = b (0x…)`, or the
/// array (its length clamped as the frontend does) with the length.
pub fn describe_inputs(spec: &InputSpec, values: &[u32]) -> String {
    match spec {
        InputSpec::Registers(regs) => regs
            .iter()
            .zip(values)
            .map(|(r, v)| format!("{r} = {v} ({v:#x})"))
            .collect::<Vec<_>>()
            .join(", "),
        InputSpec::Array { max_len, .. } => {
            let len = values.first().copied().unwrap_or(0).min(*max_len) as usize;
            let elems: Vec<String> = values
                .iter()
                .skip(1)
                .take(len)
                .map(|&v| {
                    if (v as i32).unsigned_abs() <= 100_000 {
                        format!("{}", v as i32)
                    } else {
                        format!("{v:#x}")
                    }
                })
                .collect();
            format!("array [{}] (length {len})", elems.join(", "))
        }
    }
}
