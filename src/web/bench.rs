//! The diagnostics behind the browser benchmark page: the core's per-step cost in wasm, and
//! synthetic session logs to open and list through the public API.

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
