//! Values across the JS boundary through serde-wasm-bindgen: a Rust value becomes a plain JS
//! object (maps as objects, 64-bit integers as numbers, as `JSON.parse` would give them) and a
//! JS value is read straight into a Rust type, with no JSON text in between.

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

/// Reads a `T` from a JS value. `undefined` fields read as absent, unknown fields are ignored.
pub fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T, serde_wasm_bindgen::Error> {
    serde_wasm_bindgen::from_value(value.clone())
}

/// A plain JS value for `value`. An integer beyond 2^53 has no exact JS number and
/// serde-wasm-bindgen refuses it: such a value (an imported log's, a synthetic session's
/// unbounded context window) goes as its JSON text through `JSON.parse` instead, which rounds
/// that number as the API always did. `null` if even that fails (never for our types).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    match value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()) {
        Ok(js) => js,
        Err(_) => js_sys::JSON::parse(&crate::protocol::json_text(value)).unwrap_or(JsValue::NULL),
    }
}
