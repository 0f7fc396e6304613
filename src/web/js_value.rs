//! Values across the JS boundary through serde-wasm-bindgen: a Rust value becomes a plain JS
//! object (maps as objects, 64-bit integers as numbers, as `JSON.parse` would give them) and a
//! JS value is read straight into a Rust type, with no JSON text in between.

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::{JsCast, JsValue};

use crate::core::Record;

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

thread_local! {
    /// The keys a record's position is written under, made once.
    static POSITION_KEYS: (JsValue, JsValue) = (JsValue::from_str("seq"), JsValue::from_str("at"));
}

/// A record as `onEvent` and `events()` hand it to the page: the shape of
/// [`crate::view::public::PublicRecord`], `{ seq, at, type, ...fields }`, keys in that order.
///
/// Built as the position's object with the event's own object assigned onto it, not by
/// serializing `PublicRecord` whole: its flattened event would take serde's map path, whose
/// keys serde-wasm-bindgen decodes into new JS strings on every call, where a struct's field
/// names are decoded once and cached. On the harness (`benches/compare/ab.mjs`, six records a
/// step) the map path cost about 4 % of a step.
pub fn record_to_js(record: &Record) -> JsValue {
    let shown = js_sys::Object::new();
    POSITION_KEYS.with(|(seq, at)| {
        // Setting a property on a new plain object cannot fail. Positions and times are far
        // below 2^53, so they are exact as JS numbers.
        let _ = js_sys::Reflect::set(&shown, seq, &JsValue::from_f64(record.seq as f64));
        let _ = js_sys::Reflect::set(&shown, at, &JsValue::from_f64(record.at as f64));
    });
    let event = to_js(&record.event);
    js_sys::Object::assign(&shown, event.unchecked_ref()).into()
}
