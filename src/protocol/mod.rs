//! Wire types only: the messages a model sees, tool specs, model requests and replies, and the
//! deltas a reply streams as. No logic beyond their own accessors, no I/O, no clock, no browser
//! types. The provider adapters that speak these to each provider are in `providers/`.

pub mod message;
pub mod model;
pub mod request_messages;
pub mod stream;

pub use message::{Message, ToolCall, ToolSpec};
pub use model::{FinishReason, ModelError, ModelErrorKind, ModelReply, ModelRequest, Usage};
pub use request_messages::RequestMessages;
pub use stream::StreamDelta;

/// `value` as compact JSON text, as serde_json writes it. The crate's types always serialise
/// (their maps have string keys); were one ever to fail, the text is `null`.
pub fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(TEXT_CAPACITY);
    write_json(&mut out, value);
    into_text(out)
}

/// Room for a typical logged record's text, so most are written without growing the buffer
/// (serde_json's own `to_string` starts at 128 bytes and grows twice for a step's record).
pub const TEXT_CAPACITY: usize = 384;

/// Appends `value`'s compact JSON text to `out` (`null` if it cannot be written), so several
/// texts can share one buffer.
pub fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let start = out.len();
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.truncate(start);
        out.extend_from_slice(b"null");
    }
}

/// The text [`write_json`] wrote into `out`.
pub fn into_text(out: Vec<u8>) -> String {
    // serde_json writes UTF-8 only.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The JSON Schema name of a value's kind (`"null"`, `"boolean"`, `"number"`, `"string"`,
/// `"array"`, `"object"`), for messages that say what arrived instead of what was expected.
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
