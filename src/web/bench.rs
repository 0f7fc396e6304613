//! The diagnostics behind the browser benchmarks and tests: the core's per-step cost and the
//! stream parser's throughput in wasm, and synthetic session logs to open and list through the
//! public API. On the site's `window.tabloop` only (cargo feature `diagnostics`): the library
//! package an embedding page imports leaves them out.

use wasm_bindgen::prelude::*;

use crate::core::to_jsonl;
use crate::runtime::synthetic::{session_log, SyntheticSession};

/// Mean microseconds of one synthetic loop step after a history of `events` events, over
/// `samples` steps (each on a fresh copy of the session, after one untimed warm-up step).
#[wasm_bindgen(js_name = benchCoreStep)]
pub fn bench_core_step(events: u32, samples: u32) -> f64 {
    let Some(performance) = web_sys::window().and_then(|w| w.performance()) else {
        return f64::NAN;
    };
    let session = SyntheticSession::with_history(events as usize);
    let mut total_ms = 0.0;
    for _ in 0..samples.max(1) {
        let mut copy = session.clone();
        copy.step();
        let start = performance.now();
        copy.step();
        total_ms += performance.now() - start;
        drop(copy);
    }
    total_ms * 1000.0 / f64::from(samples.max(1))
}

/// The JSON-lines log of a finished synthetic session `session` with at least `events` records,
/// for `importSession`.
#[wasm_bindgen(js_name = benchSessionLog)]
pub fn bench_session_log(events: u32, session: &str) -> String {
    to_jsonl(&session_log(events as usize, session))
}

/// The log of session `session` with one completed run per text of `texts` (a JSON array of
/// strings), as JSON lines: how the playground's markdown is tested with hostile payloads.
#[wasm_bindgen(js_name = benchRepliesLog)]
pub fn bench_replies_log(session: String, texts: String) -> Result<String, JsValue> {
    let texts: Vec<String> =
        serde_json::from_str(&texts).map_err(|e| JsValue::from_str(&e.to_string()))?;
    Ok(to_jsonl(&crate::runtime::synthetic::replies_log(
        &session, &texts,
    )))
}

/// Parsing throughput in MB/s (10^6 bytes per second) of a synthetic Chat Completions event
/// stream of `text_chunks` content deltas, fed in pieces of `piece` bytes (SSE framing, then
/// chunk assembly), over `repeats` parses after one untimed warm-up. NaN if it fails to parse.
#[wasm_bindgen(js_name = benchParseStream)]
pub fn bench_parse_stream(text_chunks: u32, piece: u32, repeats: u32) -> f64 {
    use crate::runtime::synthetic_stream::{chat_completion_sse, parse_chat_completion_sse};
    let Some(performance) = web_sys::window().and_then(|w| w.performance()) else {
        return f64::NAN;
    };
    let bytes = chat_completion_sse(text_chunks as usize);
    if parse_chat_completion_sse(&bytes, piece as usize).is_err() {
        return f64::NAN;
    }
    let repeats = repeats.max(1);
    let start = performance.now();
    for _ in 0..repeats {
        if parse_chat_completion_sse(&bytes, piece as usize).is_err() {
            return f64::NAN;
        }
    }
    let seconds = (performance.now() - start) / 1000.0;
    (bytes.len() as f64 * f64::from(repeats)) / seconds / 1e6
}
