//! Numbers, registers and label names: the text of single tokens.

use crate::isa::Reg;

/// A number as written: its value and whether it was hexadecimal (hex immediates
/// are read as raw bit patterns, decimal ones as signed values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Number {
    pub value: i64,
    pub hex: bool,
}

/// Why a token is not a usable number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumError {
    /// Not of the form `-?[0-9]+` or `0x[0-9a-fA-F]+`.
    Malformed,
    /// `-0x…`: the dialect has no negative hexadecimal numbers.
    NegativeHex,
    /// Well formed but too large for any operand (kept apart so that the message
    /// can say "out of range" rather than "not a number").
    TooLarge,
}

/// Reads a decimal (optionally negative) or `0x` hexadecimal number.
pub(crate) fn parse_number(text: &str) -> Result<Number, NumError> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let hex_digits = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X"));
    let (digits, radix) = match hex_digits {
        Some(_) if negative => return Err(NumError::NegativeHex),
        Some(d) => (d, 16),
        None => (body, 10),
    };
    if digits.is_empty() {
        return Err(NumError::Malformed);
    }
    let mut value: i64 = 0;
    let mut too_large = false;
    for c in digits.chars() {
        let d = c.to_digit(radix).ok_or(NumError::Malformed)?;
        // Keep checking the remaining digits after an overflow, so that `99999999999x`
        // is reported as malformed rather than as too large.
        match value
            .checked_mul(i64::from(radix))
            .and_then(|v| v.checked_add(i64::from(d)))
        {
            Some(v) => value = v,
            None => too_large = true,
        }
    }
    if too_large {
        return Err(NumError::TooLarge);
    }
    Ok(Number {
        value: if negative { -value } else { value },
        hex: radix == 16,
    })
}

/// Reads `$0` … `$31`; `None` for anything else (`$32`, `$t0`, `$`).
pub(crate) fn parse_register(text: &str) -> Option<Reg> {
    let digits = text.strip_prefix('$')?;
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Reg::new(digits.parse().ok()?)
}

/// Whether `text` is a label name: `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_label_name(text: &str) -> bool {
    let mut bytes = text.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether a word token is meant as a number (so a malformed one gets a number error,
/// not a label error).
pub(crate) fn looks_numeric(text: &str) -> bool {
    matches!(text.bytes().next(), Some(b) if b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let n = |v, hex| Ok(Number { value: v, hex });
        assert_eq!(parse_number("0"), n(0, false));
        assert_eq!(parse_number("-32768"), n(-32768, false));
        assert_eq!(parse_number("0xFFFFffff"), n(0xffff_ffff, true));
        assert_eq!(parse_number("0X10"), n(16, true));
        assert_eq!(parse_number("0x0000000000000000001"), n(1, true));
        assert_eq!(parse_number("-"), Err(NumError::Malformed));
        assert_eq!(parse_number("0x"), Err(NumError::Malformed));
        assert_eq!(parse_number("12ab"), Err(NumError::Malformed));
        assert_eq!(parse_number("1-2"), Err(NumError::Malformed));
        assert_eq!(parse_number("--1"), Err(NumError::Malformed));
        assert_eq!(parse_number("-0x1"), Err(NumError::NegativeHex));
        assert_eq!(
            parse_number("99999999999999999999999"),
            Err(NumError::TooLarge)
        );
        assert_eq!(
            parse_number("99999999999999999999999z"),
            Err(NumError::Malformed)
        );
    }

    #[test]
    fn registers() {
        assert_eq!(parse_register("$0"), Reg::new(0));
        assert_eq!(parse_register("$31"), Reg::new(31));
        assert_eq!(parse_register("$07"), Reg::new(7));
        for bad in [
            "$32",
            "$",
            "$t0",
            "$-1",
            "$007",
            "3",
            "$99999999999999999999",
        ] {
            assert_eq!(parse_register(bad), None, "{bad}");
        }
    }

    #[test]
    fn label_names() {
        assert!(is_label_name("_a1"));
        assert!(is_label_name("Loop"));
        for bad in ["", "1a", "a.b", "a-b", "é", ".word"] {
            assert!(!is_label_name(bad), "{bad}");
        }
    }
}
