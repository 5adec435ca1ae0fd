//! Numbers and inputs as people read them: a word signed and in hex, the inputs of a
//! run on one line. Below every report (and the fuel's sizing), above nothing.

use tamarin::InputValues;

/// A word read as a signed number.
pub fn signed(v: u32) -> i64 {
    v as i32 as i64
}

/// A word as `-1 (0xffffffff)`.
pub fn word(v: u32) -> String {
    format!("{} ({v:#010x})", signed(v))
}

/// The inputs of a counterexample, one line: `$1 = -1 (0xffffffff), …`.
pub fn inputs_line(values: &InputValues) -> String {
    inputs_shown(values, word)
}

/// The same, numbers in decimal only: `$1 = -1, $2 = 0`.
pub fn short_inputs_line(values: &InputValues) -> String {
    inputs_shown(values, |v| signed(v).to_string())
}

/// The inputs in one line, register values shown by `show`.
fn inputs_shown(values: &InputValues, show: fn(u32) -> String) -> String {
    let mut parts: Vec<String> = match &values.array {
        Some(elems) => {
            let items: Vec<String> = elems.iter().map(|&e| signed(e).to_string()).collect();
            vec![format!(
                "array = [{}] (length {})",
                items.join(", "),
                elems.len()
            )]
        }
        None => values
            .registers
            .iter()
            .map(|(n, v)| format!("{n} = {}", show(*v)))
            .collect(),
    };
    if !values.stdin.is_empty() {
        parts.push(format!(
            "stdin = {:?}",
            String::from_utf8_lossy(&values.stdin)
        ));
    }
    parts.join(", ")
}
