//! Argument types shared by the subcommands: numbers, word lists, the input format and
//! the frontend (how a run's inputs enter the machine).

use clap::{Args, ValueEnum};
use tamarin_mips::cpu::DEFAULT_TERMINATION;
use tamarin_mips::{Frontend, InputFormat, Reg};

pub use tamarin_grade::parse::{
    parse_count, parse_reg, parse_word, parse_word_list, WordList, NUMBER_HELP,
};

/// How a program file is to be read, on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputFormatArg {
    /// Assembly text.
    Asm,
    /// Big-endian binary words.
    Bin,
    /// A MERL module (CS241's relocatable format).
    Merl,
}

impl From<InputFormatArg> for InputFormat {
    fn from(f: InputFormatArg) -> InputFormat {
        match f {
            InputFormatArg::Asm => InputFormat::Asm,
            InputFormatArg::Bin => InputFormat::Bin,
            InputFormatArg::Merl => InputFormat::Merl,
        }
    }
}

/// `--input-format` and `--link`, for commands that read program files.
#[derive(Clone, Debug, Default, Args)]
pub struct InputFormatOpt {
    /// How to read program files; by default from the extension (.asm/.s: assembly,
    /// .mips/.bin: binary, read as MERL when it starts with the MERL cookie; .merl:
    /// MERL).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,
    /// A module (.asm or .merl) linked after each program, as cs241.linker does
    /// (repeatable, in order): the program's `.import`s are resolved against the
    /// modules' `.export`s, such as a runtime's `print`, `init`, `new` and `delete`.
    #[arg(long, value_name = "FILE")]
    pub link: Vec<std::path::PathBuf>,
}

impl InputFormatOpt {
    /// The format to force, if one was given.
    pub fn format(&self) -> Option<InputFormat> {
        self.input_format.map(InputFormat::from)
    }
}

/// `--termination`, for commands that run programs.
#[derive(Clone, Copy, Debug, Args)]
pub struct TerminationOpt {
    /// The address whose jump ends a run normally (the initial $31) [default: 0x8123456C].
    #[arg(long, value_name = "ADDR", value_parser = parse_word, allow_hyphen_values = true,
          default_value_t = DEFAULT_TERMINATION, hide_default_value = true)]
    pub termination: u32,
}

/// How the tool prints its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Lines for people.
    #[default]
    Text,
    /// One JSON object.
    Json,
}

/// The inputs of one concrete run: `$1`/`$2`, or an array.
#[derive(Clone, Debug, Default, Args)]
pub struct FrontendArgs {
    /// The initial value of $1: decimal (42), negative decimal (-7) or hex (0x2a,
    /// -0x2a) [default: 0].
    #[arg(long, value_name = "N", value_parser = parse_word, allow_hyphen_values = true,
          conflicts_with = "array")]
    pub r1: Option<u32>,
    /// The initial value of $2 [default: 0].
    #[arg(long, value_name = "N", value_parser = parse_word, allow_hyphen_values = true,
          conflicts_with = "array")]
    pub r2: Option<u32>,
    /// Run with the array frontend: these words are placed in memory, $1 holds their
    /// address and $2 their number.
    #[arg(long, value_name = "N,N,…", value_parser = parse_word_list, allow_hyphen_values = true,
          group = "array_source")]
    pub array: Option<WordList>,
    /// Read $1 and $2 from standard input: on a terminal with the prompts `Enter value
    /// for register 1: ` and `… 2: ` (on stderr), otherwise as two numbers separated by
    /// white space. On a terminal this is the default when none of --r1, --r2, --reg,
    /// --array, --array-stdin, --stdin - is given and PROG is not `-`; piped input is
    /// read only with this flag or --array-stdin.
    #[arg(long, conflicts_with_all = ["r1", "r2", "array_source"])]
    pub twoints: bool,
    /// Read an array from standard input and run with the array frontend: on a
    /// terminal with the prompts `Enter length of array: ` and `Enter array element 0: `
    /// …, otherwise as a length and that many numbers separated by white space.
    #[arg(long, group = "array_source", conflicts_with_all = ["r1", "r2"])]
    pub array_stdin: bool,
    /// Where the array is placed (default: the first word after the program).
    #[arg(long, value_name = "ADDR", value_parser = parse_word, requires = "array_source",
          allow_hyphen_values = true)]
    pub array_base: Option<u32>,
    /// Set another register before the run, as `$N=V` (repeatable; applied after
    /// --r1/--r2 and the array).
    #[arg(long = "reg", value_name = "$N=V", value_parser = parse_reg_assignment,
          allow_hyphen_values = true)]
    pub regs: Vec<(Reg, u32)>,
}

/// Parses `$N=V` (or `N=V`): a register from 1 to 31 and a word.
pub fn parse_reg_assignment(text: &str) -> Result<(Reg, u32), String> {
    let Some((r, v)) = text.split_once('=') else {
        return Err(format!("`{text}`: expected $N=V, such as $5=-3"));
    };
    let reg = parse_reg(r)?;
    Ok((reg, parse_word(v)?))
}

/// Parses a memory range `A..B`: word-aligned addresses (numbers as for [`parse_word`]),
/// both included, inside memory and at most [`tamarin::MAX_OBSERVED_WORDS`] words.
pub fn parse_mem_range(text: &str) -> Result<(u32, u32), String> {
    let Some((a, b)) = text.split_once("..") else {
        return Err(format!(
            "`{text}`: expected a range of addresses A..B, such as 0x0..0x1c"
        ));
    };
    let (from, to) = (parse_word(a)?, parse_word(b)?);
    tamarin::Observable::Mem { from, to }
        .validate()
        .map_err(|e| format!("`{text}`: {e}"))?;
    Ok((from, to))
}

impl FrontendArgs {
    /// The first of these CS241 input options given, if any (refused with a MIPS32
    /// function, whose inputs are `--a0`..`--a3`).
    pub fn cs241_option_given(&self) -> Option<&'static str> {
        [
            (
                "--r1/--r2/--reg",
                self.r1.is_some() || self.r2.is_some() || !self.regs.is_empty(),
            ),
            ("--array", self.array.is_some() || self.array_stdin),
            ("--twoints", self.twoints),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }

    /// The frontend these arguments describe.
    pub fn frontend(&self) -> Frontend {
        match &self.array {
            Some(WordList(elems)) => Frontend::Array {
                elems: elems.clone(),
                base: self.array_base,
            },
            None => Frontend::TwoInts(self.r1.unwrap_or(0), self.r2.unwrap_or(0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(parse_word("0"), Ok(0));
        assert_eq!(parse_word("42"), Ok(42));
        assert_eq!(parse_word("+42"), Ok(42));
        assert_eq!(parse_word("-1"), Ok(0xffff_ffff));
        assert_eq!(parse_word("-2147483648"), Ok(0x8000_0000));
        assert_eq!(parse_word("4294967295"), Ok(u32::MAX));
        assert_eq!(parse_word("0xFFFF000c"), Ok(0xffff_000c));
        assert_eq!(parse_word("0X10"), Ok(16));
        assert_eq!(parse_word("-0x10"), Ok(16u32.wrapping_neg()));
        assert_eq!(parse_word("1_000"), Ok(1000));
        assert_eq!(parse_word(" 7 "), Ok(7));
        for bad in [
            "",
            "-",
            "0x",
            "abc",
            "1.5",
            "12a",
            "0xg",
            "--1",
            "4294967296",
            "-2147483649",
            "0x100000000",
            "99999999999999999999999",
        ] {
            let e = parse_word(bad).unwrap_err();
            assert!(e.contains(&format!("`{bad}`")), "{e}");
        }
    }

    #[test]
    fn memory_ranges() {
        assert_eq!(parse_mem_range("0x0..0x1c"), Ok((0, 0x1c)));
        assert_eq!(parse_mem_range("8..8"), Ok((8, 8)));
        assert!(parse_mem_range("2..8")
            .unwrap_err()
            .contains("multiples of 4"));
        assert!(parse_mem_range("8..4").is_err());
        assert!(parse_mem_range("0..0x100000")
            .unwrap_err()
            .contains("65536"));
        assert!(parse_mem_range("0x10").is_err());
        assert!(parse_mem_range("x..4").is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("100_000_000"), Ok(100_000_000));
        assert_eq!(parse_count("0x10"), Ok(16));
        assert!(parse_count("-1").is_err());
        assert!(parse_count("x").is_err());
        assert!(parse_count("99999999999999999999999").is_err());
    }

    #[test]
    fn word_lists() {
        assert_eq!(parse_word_list("1,2,3"), Ok(WordList(vec![1, 2, 3])));
        assert_eq!(
            parse_word_list(" -1 , 0x10 "),
            Ok(WordList(vec![u32::MAX, 16]))
        );
        assert_eq!(parse_word_list(""), Ok(WordList(vec![])));
        assert!(parse_word_list("1,,2").unwrap_err().contains("element 2"));
        assert!(parse_word_list("1,x").unwrap_err().contains("element 2"));
        assert!(parse_word_list("1,").is_err());
    }
}
