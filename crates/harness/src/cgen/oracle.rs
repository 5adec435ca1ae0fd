//! The oracle: a generated function compiled by `mips-linux-gnu-gcc` (always
//! `-fno-pic -mno-abicalls -fwrapv`, at one level) into a relocatable object, which is
//! linked with a caller ([`MAIN`]) into a static program. The program runs under
//! `qemu-mips` on many inputs at once (its `main` calls `f` once for each four
//! arguments and prints one line per call); our emulator calls `f` in the object (as
//! [`tamarin_mips::mips32::elf::read`] loads it) on the same inputs. They must agree:
//! the printed value is `$v0` when our run returns, and qemu dies of `SIGTRAP` (what
//! qemu-mips 7.2 raises for gcc's `teq ..., 7` division check) exactly when our run
//! ends in [`FaultKind::Trap`]. Anything else is a [`Finding`].
//!
//! The levels are held against each other too: a function without undefined
//! behaviour computes the same value at every level, so on an input where no level
//! traps, qemu's values must all be equal (a difference is a bug of the generator or
//! of gcc, not of the emulator, and is reported as such).

use std::fmt;
use std::fs;
use std::io::ErrorKind;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tamarin_mips::mips32::{elf, FaultKind, Image, Machine, Status};

use super::Func;

/// The cross compiler.
pub const GCC: &str = "mips-linux-gnu-gcc";
/// The user-mode emulator.
pub const QEMU: &str = "qemu-mips";
/// What to install when either is missing.
pub const INSTALL: &str =
    "install gcc-mips-linux-gnu and qemu-user (Debian: apt-get install gcc-mips-linux-gnu qemu-user)";
/// The flags of every compilation, besides the level.
pub const FLAGS: [&str; 3] = ["-fno-pic", "-mno-abicalls", "-fwrapv"];
/// Inputs per qemu process.
pub const BATCH: usize = 64;
/// Instructions per run of our emulator.
pub const DEFAULT_FUEL: u64 = 1 << 26;

/// The caller: for each four arguments, clears the stack below its frame (our
/// machine's stack starts zeroed), calls `f` and prints the result on a line of its
/// own, unbuffered, so that the lines printed before a trap are all there.
pub const MAIN: &str = r#"#include <stdio.h>
#include <stdlib.h>
int f(int, int, int, int);
static void __attribute__((noinline)) clear(void) {
    volatile char z[65536];
    for (int i = 0; i < 65536; i++) z[i] = 0;
}
int main(int argc, char **argv) {
    setvbuf(stdout, 0, _IONBF, 0);
    for (int i = 1; i + 3 < argc; i += 4) {
        int a = (int)strtoul(argv[i], 0, 0), b = (int)strtoul(argv[i + 1], 0, 0);
        int c = (int)strtoul(argv[i + 2], 0, 0), d = (int)strtoul(argv[i + 3], 0, 0);
        clear();
        printf("%d\n", f(a, b, c, d));
    }
    return 0;
}
"#;

/// An optimisation level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    O0,
    O1,
    O2,
    Os,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::O0, Level::O1, Level::O2, Level::Os];

    /// `O0`, `O1`, `O2`, `Os`.
    pub fn name(self) -> &'static str {
        match self {
            Level::O0 => "O0",
            Level::O1 => "O1",
            Level::O2 => "O2",
            Level::Os => "Os",
        }
    }

    /// gcc's flag: `-O0`, ...
    pub fn flag(self) -> &'static str {
        match self {
            Level::O0 => "-O0",
            Level::O1 => "-O1",
            Level::O2 => "-O2",
            Level::Os => "-Os",
        }
    }

    /// `O2` or `-O2`.
    pub fn parse(s: &str) -> Result<Level, String> {
        let t = s.trim().trim_start_matches('-');
        Level::ALL
            .into_iter()
            .find(|l| l.name() == t)
            .ok_or_else(|| format!("unknown level {s:?}: expected O0, O1, O2 or Os"))
    }

    /// `O0,O1,O2,Os`: a list separated by commas.
    pub fn parse_list(s: &str) -> Result<Vec<Level>, String> {
        let mut out = Vec::new();
        for part in s.split(',').filter(|p| !p.trim().is_empty()) {
            let l = Level::parse(part)?;
            if !out.contains(&l) {
                out.push(l);
            }
        }
        if out.is_empty() {
            return Err("no levels given".to_string());
        }
        Ok(out)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.flag())
    }
}

/// How one call ended, on either side.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Returned this value (printed by the program; `$v0` for us).
    Value(i32),
    /// gcc's division check trapped (`SIGTRAP` under qemu, [`FaultKind::Trap`] for us).
    Trap,
    /// Anything else: another signal, a timeout, another fault, fuel spent. Never
    /// agrees with anything.
    Fault(String),
}

impl Outcome {
    /// Whether the two sides agree.
    pub fn agrees(&self, other: &Outcome) -> bool {
        matches!(
            (self, other),
            (Outcome::Value(a), Outcome::Value(b)) if a == b
        ) || (*self == Outcome::Trap && *other == Outcome::Trap)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Value(v) => write!(f, "{v}"),
            Outcome::Trap => f.write_str("trap"),
            Outcome::Fault(s) => f.write_str(s),
        }
    }
}

/// What a finding is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// qemu and our emulator differ on an input.
    Disagree { qemu: Outcome, ours: Outcome },
    /// qemu's values differ between two levels on an input where none trapped (the
    /// generator's or gcc's fault, not the emulator's).
    Levels {
        other: Level,
        value: Outcome,
        other_value: Outcome,
    },
    /// The function did not compile, link or load.
    Build(String),
}

/// A disagreement: which level, which input, what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub input: Option<[i32; 4]>,
    pub kind: FindingKind,
}

impl Finding {
    /// `disagree`, `levels` or `build`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            FindingKind::Disagree { .. } => "disagree",
            FindingKind::Levels { .. } => "levels",
            FindingKind::Build(_) => "build",
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let input = self.input.map_or(String::new(), |[a, b, c, d]| {
            format!(" f({a}, {b}, {c}, {d})")
        });
        match &self.kind {
            FindingKind::Disagree { qemu, ours } => {
                write!(f, "{}{input}: qemu {qemu}, ours {ours}", self.level)
            }
            FindingKind::Levels {
                other,
                value,
                other_value,
            } => write!(
                f,
                "{}{input}: qemu gives {value} at {} but {other_value} at {other}",
                self.level, self.level
            ),
            FindingKind::Build(e) => write!(f, "{}: cannot build: {e}", self.level),
        }
    }
}

/// The two tools, found on the `PATH`.
#[derive(Clone, Debug)]
pub struct Tools {
    pub gcc: String,
    pub qemu: String,
}

impl Tools {
    /// `mips-linux-gnu-gcc` and `qemu-mips`, or why not (with what to install).
    pub fn find() -> Result<Tools, String> {
        for tool in [GCC, QEMU] {
            let ok = Command::new(tool)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                return Err(format!("{tool} is not installed: {INSTALL}"));
            }
        }
        Ok(Tools {
            gcc: GCC.to_string(),
            qemu: QEMU.to_string(),
        })
    }
}

/// One function compiled at one level.
#[derive(Clone, Debug)]
pub struct Build {
    pub level: Level,
    pub source: PathBuf,
    /// The relocatable object (`gcc -c`): what our emulator runs.
    pub object: PathBuf,
    /// The object linked with [`MAIN`], static: what qemu runs.
    pub exe: PathBuf,
    /// The object as loaded.
    pub image: Image,
}

impl Build {
    /// Deletes the object and the program (not the source).
    pub fn remove_files(&self) {
        fs::remove_file(&self.object).ok();
        fs::remove_file(&self.exe).ok();
    }
}

/// One level's check of a function.
#[derive(Clone, Debug)]
pub struct LevelCheck {
    pub level: Level,
    /// qemu's outcome and ours on each input (empty if it did not build).
    pub qemu: Vec<Outcome>,
    pub ours: Vec<Outcome>,
    /// Instructions our emulator ran, over all inputs.
    pub steps: u64,
    /// The size of `f` in the object, in bytes.
    pub code_bytes: u32,
    pub findings: Vec<Finding>,
}

impl LevelCheck {
    /// Inputs on which the two sides agree.
    pub fn agreements(&self) -> usize {
        self.qemu
            .iter()
            .zip(&self.ours)
            .filter(|(q, o)| q.agrees(o))
            .count()
    }

    /// Agreements on a trap.
    pub fn traps(&self) -> usize {
        self.qemu
            .iter()
            .zip(&self.ours)
            .filter(|(q, o)| **q == Outcome::Trap && **o == Outcome::Trap)
            .count()
    }
}

/// A function's check at every level.
#[derive(Clone, Debug)]
pub struct FuncCheck {
    pub levels: Vec<LevelCheck>,
    /// Between levels.
    pub level_findings: Vec<Finding>,
}

impl FuncCheck {
    /// Every finding, the levels' first.
    pub fn findings(&self) -> Vec<&Finding> {
        self.levels
            .iter()
            .flat_map(|l| &l.findings)
            .chain(&self.level_findings)
            .collect()
    }

    pub fn agreements(&self) -> usize {
        self.levels.iter().map(LevelCheck::agreements).sum()
    }

    pub fn traps(&self) -> usize {
        self.levels.iter().map(LevelCheck::traps).sum()
    }

    /// Calls compared (inputs times levels that built).
    pub fn runs(&self) -> usize {
        self.levels.iter().map(|l| l.qemu.len()).sum()
    }

    pub fn steps(&self) -> u64 {
        self.levels.iter().map(|l| l.steps).sum()
    }
}

/// The findings of one level: every input on which qemu's outcome and ours disagree.
pub fn compare(
    level: Level,
    inputs: &[[i32; 4]],
    qemu: &[Outcome],
    ours: &[Outcome],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        let missing = || Outcome::Fault("no outcome".to_string());
        let q = qemu.get(k).cloned().unwrap_or_else(missing);
        let o = ours.get(k).cloned().unwrap_or_else(missing);
        if !q.agrees(&o) {
            out.push(Finding {
                level,
                input: Some(*input),
                kind: FindingKind::Disagree { qemu: q, ours: o },
            });
        }
    }
    out
}

/// The findings between levels: inputs where no level trapped or faulted under qemu
/// but two levels print different values (each input reported once, against the
/// first level).
pub fn compare_levels(inputs: &[[i32; 4]], levels: &[LevelCheck]) -> Vec<Finding> {
    let built: Vec<&LevelCheck> = levels
        .iter()
        .filter(|l| l.qemu.len() == inputs.len())
        .collect();
    let Some(first) = built.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        if built
            .iter()
            .any(|l| !matches!(l.qemu[k], Outcome::Value(_)))
        {
            continue;
        }
        if let Some(other) = built[1..].iter().find(|l| l.qemu[k] != first.qemu[k]) {
            out.push(Finding {
                level: first.level,
                input: Some(*input),
                kind: FindingKind::Levels {
                    other: other.level,
                    value: first.qemu[k].clone(),
                    other_value: other.qemu[k].clone(),
                },
            });
        }
    }
    out
}

/// Runs `f` of `image` on each input in our emulator.
pub fn run_ours(
    image: &Image,
    inputs: &[[i32; 4]],
    fuel: u64,
) -> Result<(Vec<Outcome>, u64), String> {
    let f = image
        .function("f")
        .ok_or_else(|| "the object defines no function f".to_string())?;
    let mut m = Machine::new(image, fuel);
    let mut steps = 0;
    let mut out = Vec::with_capacity(inputs.len());
    for input in inputs {
        m.call(f.addr, &input.map(|x| x as u32));
        let status = m.run();
        steps += m.steps();
        out.push(match status {
            Status::Returned => Outcome::Value(m.regs().gpr[2] as i32),
            Status::Error(fault) if fault.kind == FaultKind::Trap => Outcome::Trap,
            Status::Error(fault) if fault.kind == FaultKind::UndefinedCall => {
                Outcome::Fault(format!(
                    "{fault} ({})",
                    image.undefined_jump(fault.value).unwrap_or("unknown")
                ))
            }
            Status::Error(fault) => Outcome::Fault(fault.to_string()),
            Status::OutOfFuel => Outcome::Fault(format!("out of fuel after {fuel} steps")),
            Status::Stopped => Outcome::Fault("stopped".to_string()),
        });
    }
    Ok((out, steps))
}

/// Waits for `child` at most `limit`; `None` (and the child killed) past it.
fn wait_for(child: &mut Child, limit: Duration) -> std::io::Result<Option<ExitStatus>> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(500);
    loop {
        if let Some(s) = child.try_wait()? {
            return Ok(Some(s));
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    }
}

/// What a qemu process that ended early says about its next input.
fn ended(status: Option<ExitStatus>, limit: Duration) -> Outcome {
    match status {
        None => Outcome::Fault(format!("qemu ran past {} s", limit.as_secs_f64())),
        Some(s) => match s.signal() {
            Some(5) => Outcome::Trap,
            Some(sig) => Outcome::Fault(format!("qemu killed by signal {sig}")),
            None => Outcome::Fault(format!("qemu exited with {s} before printing")),
        },
    }
}

static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

/// A folder of builds, the caller's object compiled once, and the tools.
#[derive(Debug)]
pub struct Oracle {
    pub tools: Tools,
    dir: PathBuf,
    main_obj: PathBuf,
    /// Instructions per run of our emulator.
    pub fuel: u64,
    /// Time limit of one qemu process.
    pub timeout: Duration,
    /// Whether `dir` is removed when the oracle is dropped.
    remove: bool,
}

impl Oracle {
    /// An oracle working in `dir` (kept), or in a new temporary folder (removed when
    /// it is dropped). Fails if a tool is missing (saying what to install) or the
    /// caller does not compile.
    pub fn new(dir: Option<&Path>) -> Result<Oracle, String> {
        let tools = Tools::find()?;
        let (dir, remove) = match dir {
            Some(d) => (d.to_path_buf(), false),
            None => (
                std::env::temp_dir().join(format!(
                    "tamarin-mips32-oracle-{}-{}",
                    std::process::id(),
                    NEXT_DIR.fetch_add(1, Ordering::Relaxed)
                )),
                true,
            ),
        };
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let oracle = Oracle {
            tools,
            main_obj: dir.join("main.o"),
            dir,
            fuel: DEFAULT_FUEL,
            timeout: Duration::from_secs(20),
            remove,
        };
        let main_c = oracle.dir.join("main.c");
        fs::write(&main_c, MAIN).map_err(|e| format!("cannot write {}: {e}", main_c.display()))?;
        oracle.gcc(&[
            "-O1".as_ref(),
            "-c".as_ref(),
            "-o".as_ref(),
            oracle.main_obj.as_os_str(),
            main_c.as_os_str(),
        ])?;
        Ok(oracle)
    }

    /// The folder it works in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn gcc(&self, args: &[&std::ffi::OsStr]) -> Result<(), String> {
        let out = Command::new(&self.tools.gcc)
            .args(FLAGS)
            .args(args)
            .current_dir(&self.dir)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.tools.gcc))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{} {} failed: {}",
                self.tools.gcc,
                args.iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// Compiles `source` (written to `stem.c`) at `level` into `stem-LEVEL.o`, links
    /// it with the caller into `stem-LEVEL`, and loads the object.
    pub fn build(&self, stem: &str, source: &str, level: Level) -> Result<Build, String> {
        let c = self.dir.join(format!("{stem}.c"));
        fs::write(&c, source).map_err(|e| format!("cannot write {}: {e}", c.display()))?;
        let object = self.dir.join(format!("{stem}-{}.o", level.name()));
        let exe = self.dir.join(format!("{stem}-{}", level.name()));
        self.gcc(&[
            level.flag().as_ref(),
            "-c".as_ref(),
            "-o".as_ref(),
            object.as_os_str(),
            c.as_os_str(),
        ])?;
        self.gcc(&[
            "-static".as_ref(),
            "-o".as_ref(),
            exe.as_os_str(),
            self.main_obj.as_os_str(),
            object.as_os_str(),
        ])?;
        let bytes =
            fs::read(&object).map_err(|e| format!("cannot read {}: {e}", object.display()))?;
        let image = elf::read(&object.display().to_string(), &bytes).map_err(|e| e.to_string())?;
        Ok(Build {
            level,
            source: c,
            object,
            exe,
            image,
        })
    }

    /// Runs `exe` under qemu on every input, [`BATCH`] a process; after a process
    /// dies on an input, the next one starts after it.
    pub fn run_qemu(&self, exe: &Path, inputs: &[[i32; 4]]) -> Result<Vec<Outcome>, String> {
        let mut out = Vec::with_capacity(inputs.len());
        let printed = exe.with_extension("out");
        while out.len() < inputs.len() {
            let start = out.len();
            let batch = &inputs[start..(start + BATCH).min(inputs.len())];
            let file = fs::File::create(&printed)
                .map_err(|e| format!("cannot create {}: {e}", printed.display()))?;
            let mut child = Command::new(&self.tools.qemu)
                .arg(exe)
                .args(batch.iter().flatten().map(|v| v.to_string()))
                .stdin(Stdio::null())
                .stdout(file)
                .stderr(Stdio::null())
                .current_dir(&self.dir)
                .spawn()
                .map_err(|e| format!("cannot run {}: {e}", self.tools.qemu))?;
            let status = wait_for(&mut child, self.timeout)
                .map_err(|e| format!("waiting for {}: {e}", self.tools.qemu))?;
            let text = match fs::read_to_string(&printed) {
                Ok(t) => t,
                Err(e) if e.kind() == ErrorKind::NotFound => String::new(),
                Err(e) => return Err(format!("cannot read {}: {e}", printed.display())),
            };
            // Whole lines only: a line cut short by a signal is not a result.
            let whole = text.rfind('\n').map_or("", |k| &text[..k]);
            for line in whole.lines() {
                let v = line
                    .trim()
                    .parse::<i32>()
                    .map_err(|_| format!("qemu printed {line:?}, expected a number"))?;
                out.push(Outcome::Value(v));
            }
            let done = out.len() - start;
            if done > batch.len() {
                return Err(format!(
                    "qemu printed {done} lines for {} inputs",
                    batch.len()
                ));
            }
            if done < batch.len() {
                out.push(ended(status, self.timeout));
            } else if !status.is_some_and(|s| s.success()) {
                return Err(format!("qemu ended with {status:?} after its last input"));
            }
        }
        fs::remove_file(&printed).ok();
        Ok(out)
    }

    /// Builds `func` at `level` (as `stem`) and runs it on `inputs` both ways.
    pub fn check_level(
        &self,
        stem: &str,
        source: &str,
        level: Level,
        inputs: &[[i32; 4]],
        keep: bool,
    ) -> LevelCheck {
        let mut lc = LevelCheck {
            level,
            qemu: Vec::new(),
            ours: Vec::new(),
            steps: 0,
            code_bytes: 0,
            findings: Vec::new(),
        };
        let build_error = |lc: &mut LevelCheck, e: String| {
            lc.findings.push(Finding {
                level,
                input: None,
                kind: FindingKind::Build(e),
            });
        };
        let b = match self.build(stem, source, level) {
            Ok(b) => b,
            Err(e) => {
                build_error(&mut lc, e);
                return lc;
            }
        };
        lc.code_bytes = b.image.function("f").map_or(0, |s| s.size);
        if !b.image.undefined.is_empty() {
            // Our emulator runs the object alone: a call of the C library (gcc making
            // a loop a memset) would end every run. The generator avoids them.
            let names: Vec<&str> = b.image.undefined.iter().map(|u| u.name.as_str()).collect();
            if !keep {
                b.remove_files();
            }
            build_error(
                &mut lc,
                format!(
                    "the object calls {}, outside it: the generator must avoid that",
                    names.join(", ")
                ),
            );
            return lc;
        }
        let runs = self
            .run_qemu(&b.exe, inputs)
            .and_then(|q| run_ours(&b.image, inputs, self.fuel).map(|o| (q, o)));
        if keep {
            fs::remove_file(&b.exe).ok();
        } else {
            b.remove_files();
        }
        match runs {
            Ok((qemu, (ours, steps))) => {
                lc.findings = compare(level, inputs, &qemu, &ours);
                lc.qemu = qemu;
                lc.ours = ours;
                lc.steps = steps;
            }
            Err(e) => build_error(&mut lc, e),
        }
        lc
    }

    /// Checks `func` at each level on `inputs`, and the levels against each other.
    /// With `keep`, its source and objects stay in the oracle's folder (as
    /// `STEM.c`, `STEM-LEVEL.o`, with [`Oracle::stem`]); otherwise they are removed.
    pub fn check(
        &self,
        func: &Func,
        levels: &[Level],
        inputs: &[[i32; 4]],
        keep: bool,
    ) -> FuncCheck {
        let stem = Oracle::stem(func);
        let source = func.source();
        let checks: Vec<LevelCheck> = levels
            .iter()
            .map(|&l| self.check_level(&stem, &source, l, inputs, keep))
            .collect();
        if !keep {
            fs::remove_file(self.dir.join(format!("{stem}.c"))).ok();
        }
        let level_findings = compare_levels(inputs, &checks);
        FuncCheck {
            levels: checks,
            level_findings,
        }
    }

    /// The file stem of `func`'s builds: `fINDEX`, with a hash of the mutation for a
    /// mutant.
    pub fn stem(func: &Func) -> String {
        match &func.mutation {
            None => format!("f{:05}", func.index),
            Some(m) => {
                let h = m.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
                });
                format!("f{:05}-m{:08x}", func.index, h as u32)
            }
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        if self.remove {
            fs::remove_dir_all(&self.dir).ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse() {
        assert_eq!(
            Level::parse_list("O0,-O2,Os,O0").unwrap(),
            vec![Level::O0, Level::O2, Level::Os]
        );
        assert!(Level::parse_list("O3").is_err());
        assert!(Level::parse_list("").is_err());
        assert_eq!(Level::O1.to_string(), "-O1");
    }

    #[test]
    fn only_equal_values_and_two_traps_agree() {
        use Outcome::*;
        assert!(Value(3).agrees(&Value(3)));
        assert!(Trap.agrees(&Trap));
        assert!(!Value(3).agrees(&Value(4)));
        assert!(!Trap.agrees(&Value(0)));
        assert!(!Fault("x".into()).agrees(&Fault("x".into())));
    }

    #[test]
    fn a_planted_difference_is_a_finding() {
        let ins = [[1, 2, 3, 4], [0, 0, 0, 0], [5, 6, 7, 8]];
        let qemu = vec![Outcome::Value(10), Outcome::Trap, Outcome::Value(-1)];
        assert!(compare(Level::O2, &ins, &qemu, &qemu).is_empty());
        let mut ours = qemu.clone();
        ours[2] = Outcome::Value(0);
        ours[1] = Outcome::Value(7);
        let found = compare(Level::O2, &ins, &qemu, &ours);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].input, Some([0, 0, 0, 0]));
        assert_eq!(found[1].to_string(), "-O2 f(5, 6, 7, 8): qemu -1, ours 0");
        // A missing outcome is a finding too.
        assert_eq!(compare(Level::O0, &ins, &qemu, &qemu[..1]).len(), 2);
    }

    #[test]
    fn levels_that_print_different_values_are_a_finding() {
        let ins = [[1, 2, 3, 4], [0, 0, 0, 0]];
        let level = |level, qemu: Vec<Outcome>| LevelCheck {
            level,
            ours: qemu.clone(),
            qemu,
            steps: 0,
            code_bytes: 0,
            findings: Vec::new(),
        };
        let same = [
            level(Level::O0, vec![Outcome::Value(1), Outcome::Trap]),
            level(Level::O2, vec![Outcome::Value(1), Outcome::Value(9)]),
        ];
        assert!(compare_levels(&ins, &same).is_empty());
        let differ = [
            level(Level::O0, vec![Outcome::Value(1), Outcome::Trap]),
            level(Level::O2, vec![Outcome::Value(2), Outcome::Value(9)]),
        ];
        let found = compare_levels(&ins, &differ);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind_name(), "levels");
    }
}
