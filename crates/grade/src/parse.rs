//! Parsers of the values that options and task files take: numbers, counts, word
//! lists, registers and observables. Each returns a message on failure, which the
//! command line and the task file put in their own words.

use tamarin::Observable;
use tamarin_mips::Reg;

/// Help text shared by every number argument.
pub const NUMBER_HELP: &str = "decimal (42), negative decimal (-7) or hex (0x2a)";

/// Parses a 32-bit machine word: decimal `0 ..= 4294967295`, negative decimal
/// `-2147483648 ..= -1` (stored as two's complement) or hexadecimal `0x0 ..= 0xffffffff`
/// (`-0x…` negates). Underscores between digits are allowed.
pub fn parse_word(text: &str) -> Result<u32, String> {
    let s = text.trim();
    let (negative, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (radix, digits) = match rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        Some(d) => (16, d),
        None => (10, rest),
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        if s.starts_with("--") {
            // A number option takes values that begin with `-`, so a missing value
            // swallows the next option: say so.
            return Err(format!(
                "`{text}` is an option, not a number: give the option its value ({NUMBER_HELP}) first"
            ));
        }
        return Err(format!("`{text}` is not a number; expected {NUMBER_HELP}"));
    }
    let out_of_range = || {
        format!(
            "`{text}` does not fit in 32 bits; a value must lie between -2147483648 and \
             4294967295 (0xffffffff)"
        )
    };
    let magnitude = u64::from_str_radix(&digits, radix).map_err(|_| out_of_range())?;
    if negative {
        if magnitude > 1 << 31 {
            return Err(out_of_range());
        }
        Ok((magnitude as u32).wrapping_neg())
    } else {
        u32::try_from(magnitude).map_err(|_| out_of_range())
    }
}

/// Parses a count (fuel, bounds): a non-negative decimal or `0x` hex number that fits
/// in 64 bits. Underscores between digits are allowed (`100_000_000`).
pub fn parse_count(text: &str) -> Result<u64, String> {
    let s = text.trim();
    let (radix, digits) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(d) => (16, d),
        None => (10, s.strip_prefix('+').unwrap_or(s)),
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!(
            "`{text}` is not a count; expected a non-negative decimal (1000) or hex (0x3e8) number"
        ));
    }
    u64::from_str_radix(&digits, radix)
        .map_err(|_| format!("`{text}` is too large; a count must fit in 64 bits"))
}

/// A comma-separated list of words, such as `1,-2,0x30`. A newtype, so that clap treats
/// the whole list as one value.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct WordList(pub Vec<u32>);

/// Parses a comma-separated list of words (see [`parse_word`]). Spaces around elements
/// are ignored; the empty string (or only spaces) is the empty list.
pub fn parse_word_list(text: &str) -> Result<WordList, String> {
    if text.trim().is_empty() {
        return Ok(WordList(Vec::new()));
    }
    text.split(',')
        .enumerate()
        .map(|(k, item)| {
            if item.trim().is_empty() {
                return Err(format!(
                    "element {} of the list `{text}` is empty; expected numbers separated by \
                     commas, such as 1,-2,0x30",
                    k + 1
                ));
            }
            parse_word(item).map_err(|e| format!("element {} of the list: {e}", k + 1))
        })
        .collect::<Result<Vec<u32>, String>>()
        .map(WordList)
}

/// Parses a register `$1` … `$31` (not `$0`, which cannot hold an input).
pub fn parse_reg(text: &str) -> Result<Reg, String> {
    let t = text.trim();
    let n = t.strip_prefix('$').unwrap_or(t);
    match n.parse::<u8>().ok().and_then(Reg::new) {
        Some(r) if r != Reg::ZERO => Ok(r),
        _ => Err(format!(
            "`{t}` is not a register that can hold an input; expected $1 … $31"
        )),
    }
}

/// Input registers, as one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegList(pub Vec<Reg>);

/// Parses a comma-separated list of input registers, none twice.
pub fn parse_reg_list(text: &str) -> Result<RegList, String> {
    let regs = text
        .split(',')
        .map(parse_reg)
        .collect::<Result<Vec<Reg>, String>>()?;
    let mut seen = regs.clone();
    seen.sort();
    seen.dedup();
    if seen.len() != regs.len() {
        return Err(format!("`{text}` names a register twice"));
    }
    Ok(RegList(regs))
}

/// Observables, as one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservableList(pub Vec<Observable>);

/// Parses a comma-separated list of observables. A register may also be named as
/// o32 names it (`v0`, `$a1`), for MIPS32 functions.
pub fn parse_observables(text: &str) -> Result<ObservableList, String> {
    let list = text
        .split(',')
        .map(|item| {
            let name = item.trim();
            let bare = name.trim_start_matches('$');
            let o32 = bare
                .starts_with(|c: char| c.is_ascii_alphabetic())
                .then(|| tamarin::mips::mips32::isa::reg_by_name(bare))
                .flatten();
            match o32 {
                Some(r) => Observable::parse(&format!("${}", r.index())),
                None => Observable::parse(item),
            }
        })
        .collect::<Result<Vec<Observable>, String>>()?;
    Ok(ObservableList(list))
}
