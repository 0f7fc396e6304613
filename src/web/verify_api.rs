//! `tabloop.verifyReplay(jsonl)`: checks a recorded session offline. The log's model replies and
//! tool results are fed back through a fresh agent (no network, no tool runs) and every record
//! it writes must equal the log's; resolves `{ ok, records, inputs, divergence }` where
//! `divergence` is `{ seq, expected, got }` at the first difference, or `null`.

use wasm_bindgen::prelude::*;

use crate::core::{parse_jsonl, verify_replay as verify};

/// Verifies a session exported as JSON lines; throws when the text is not a readable log.
#[wasm_bindgen(js_name = verifyReplay)]
pub fn verify_replay(jsonl: String) -> Result<JsValue, JsValue> {
    let fail = |e: &dyn std::fmt::Display| JsValue::from(js_sys::Error::new(&e.to_string()));
    let records = parse_jsonl(&jsonl).map_err(|e| fail(&e))?;
    let report = verify(&records).map_err(|e| fail(&e))?;
    let value = serde_json::json!({
        "ok": report.divergence.is_none(),
        "records": report.records,
        "inputs": report.inputs,
        "divergence": report.divergence,
    });
    Ok(super::js_value::to_js(&value))
}
