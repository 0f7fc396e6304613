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
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
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
