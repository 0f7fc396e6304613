//! Values across the JS boundary as JSON text: `JSON.stringify` on the way in, `JSON.parse`
//! on the way out. Everything from and to pages then goes through the crate's one JSON text
//! reader and writer (`protocol::json`, `decode`, `encode`), which the bundle carries anyway,
//! instead of a second (de)serializer per type for JS values; the engine's own JSON is fast at
//! both ends.

use wasm_bindgen::JsValue;

use crate::protocol::decode::{self, FromJson};
use crate::protocol::encode::{self, ToJson};

/// Reads a `T` from a JS value as `JSON.stringify` writes it (functions and `undefined`
/// fields left out, as JSON has none); `undefined` itself reads as `null`.
pub fn from_js<T: FromJson>(value: &JsValue) -> Result<T, String> {
    let text = if value.is_undefined() {
        "null".to_string()
    } else {
        js_sys::JSON::stringify(value)
            .map_err(|e| super::js_error::JsFailure::from_js(&e).message)?
            .as_string()
            .unwrap_or_else(|| "null".to_string())
    };
    decode::from_str(&text).map_err(|e| e.to_string())
}

/// A JS value for `value`, as `JSON.parse` reads its JSON text (`null` if it cannot be read).
pub fn to_js(value: &(impl ToJson + ?Sized)) -> JsValue {
    js_sys::JSON::parse(&encode::to_string(value)).unwrap_or(JsValue::NULL)
}
