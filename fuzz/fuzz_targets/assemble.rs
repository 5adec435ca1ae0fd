//! Assembler: any text either assembles or is rejected with messages that render;
//! whatever assembles survives disassembly and reassembly word for word.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tamarin_mips::asm::assemble;
use tamarin_mips::disasm::disassemble;
use tamarin_mips::loader::{parse_program, InputFormat};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        // The loader's path for text that is not UTF-8.
        let e = parse_program("fuzz.asm", data, InputFormat::Asm).expect_err("not UTF-8");
        let _ = e.to_string();
        return;
    };
    match assemble("fuzz.asm", text) {
        Ok(program) => {
            let words = program.words();
            for (k, _) in words.iter().enumerate() {
                let line = program.line_of(4 * k as u32);
                assert!(
                    line.is_some_and(|l| l >= 1),
                    "word {k} has no source line: {line:?}"
                );
            }
            let listing = disassemble(words);
            let again = assemble("disasm.asm", &listing).unwrap_or_else(|e| {
                panic!("the disassembly does not reassemble:\n{e}\n--- listing ---\n{listing}")
            });
            assert_eq!(
                again.words()[..],
                words[..],
                "reassembly changed the words\n--- listing ---\n{listing}"
            );
            assert_eq!(
                disassemble(again.words()),
                listing,
                "disassembly not stable"
            );
        }
        Err(errors) => {
            assert!(
                !errors.errors.is_empty() || errors.more > 0,
                "an error result with no errors"
            );
            for e in &errors.errors {
                assert!(
                    e.line >= 1 && e.column >= 1,
                    "line/column not 1-based: {e:?}"
                );
                let spans = std::iter::once(&e.span).chain(e.related.as_ref().map(|r| &r.0));
                for span in spans {
                    assert!(
                        span.start <= span.end && span.end <= text.len(),
                        "span outside the source: {e:?}"
                    );
                    assert!(
                        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
                        "span splits a character: {e:?}"
                    );
                }
            }
            let rendered = errors.to_string();
            assert!(!rendered.is_empty());
            // The same errors through the loader.
            let e = parse_program("fuzz.asm", data, InputFormat::Asm).expect_err("rejected");
            let _ = e.to_string();
        }
    }
});
