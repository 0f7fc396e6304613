//! Values across the JS boundary as JSON text: `JSON.stringify` on the way in, `JSON.parse`
//! on the way out, serde_json in between.

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

/// Reads a `T` from a JS value as `JSON.stringify` writes it (functions and `undefined`
/// fields left out, as JSON has none); `undefined` itself reads as `null`.
pub fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T, String> {
    let text = if value.is_undefined() {
        "null".to_string()
    } else {
        js_sys::JSON::stringify(value)
            .map_err(|e| super::js_error::JsFailure::from_js(&e).message)?
            .as_string()
            .unwrap_or_else(|| "null".to_string())
    };
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

/// A JS value for `value`, as `JSON.parse` reads its JSON text (`null` if it cannot be read).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    js_sys::JSON::parse(&crate::protocol::json_text(value)).unwrap_or(JsValue::NULL)
}
