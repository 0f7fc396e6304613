//! Replays, natively and without a fuzzer, every input of the fuzz corpora (fuzz/corpus/) and
//! every input a fuzzer ever crashed on (fuzz/regressions/), through the same checks the fuzz
//! targets run (fuzz/src/checks.rs). scripts/fuzz.sh runs the fuzzers themselves.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

#[path = "../fuzz/src/checks.rs"]
mod checks;
#[path = "../fuzz/src/gguf_writer.rs"]
mod gguf_writer;
#[path = "../fuzz/src/inert_html.rs"]
mod inert_html;

use std::fs;
use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) -> usize {
    let mut count = 0;
    for dir in ["fuzz/corpus", "fuzz/regressions"] {
        let dir = Path::new(dir).join(target);
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let data = fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{} fails its check", path.display());
            count += 1;
        }
    }
    count
}

#[test]
fn gguf_inputs_found_by_fuzzing_are_refused_or_loaded_cleanly() {
    assert!(replay("gguf", checks::check_gguf) > 0);
}

#[test]
fn tokenizer_inputs_found_by_fuzzing_encode_cleanly() {
    assert!(replay("tokenizer", checks::check_tokenizer) > 0);
}

#[test]
fn grammar_inputs_found_by_fuzzing_compile_and_match_cleanly() {
    assert!(replay("grammar", checks::check_grammar) > 0);
}

#[test]
fn sse_and_provider_inputs_found_by_fuzzing_parse_cleanly() {
    assert!(replay("sse_providers", checks::check_sse_providers) > 0);
}

#[test]
fn mcp_sampling_inputs_found_by_fuzzing_are_read_cleanly() {
    assert!(replay("mcp_sampling", checks::check_mcp_sampling) > 0);
}

#[test]
fn markdown_inputs_found_by_fuzzing_render_to_inert_html() {
    assert!(replay("markdown", checks::check_markdown) > 0);
}
