//! Values across the JS boundary through serde-wasm-bindgen: a Rust value becomes a plain JS
//! object (maps as objects, 64-bit integers as numbers, as `JSON.parse` would give them) and a
//! JS value is read straight into a Rust type, with no JSON text in between.

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

/// Reads a `T` from a JS value. `undefined` fields read as absent, unknown fields are ignored.
pub fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T, serde_wasm_bindgen::Error> {
    serde_wasm_bindgen::from_value(value.clone())
}

/// A plain JS value for `value` (`null` for a value serde cannot write, which our types never
/// are: their maps have string keys and their numbers fit a double).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}
