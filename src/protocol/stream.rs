//! What a streaming assembler reports while a reply is still arriving ([`StreamDelta`]), and the
//! small helpers the provider assemblers share to build their errors and partial replies.

use super::message::ToolCall;
use super::model::{FinishReason, ModelError, ModelErrorKind, ModelReply, Usage};

/// A piece of a reply as it streams in, for live UI updates. The assembled
/// [`ModelReply`] is authoritative; deltas are only a preview of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamDelta {
    /// Visible text appended to the reply.
    Text(String),
    /// Reasoning text the provider exposed; shown live, never kept in the reply.
    Thinking(String),
    /// The model began a tool call; its arguments are still arriving.
    ToolCallStarted {
        /// Position of the call among this reply's tool calls (0-based).
        index: usize,
        /// Provider-assigned call id.
        id: String,
        /// Name of the tool being called.
        name: String,
    },
}

/// A `Malformed` error: the provider sent something that is not its documented format.
pub(crate) fn malformed(message: impl Into<String>) -> ModelError {
    ModelError {
        kind: ModelErrorKind::Malformed,
        message: message.into(),
    }
}

/// A `Provider` error from an error object received inside a stream.
pub(crate) fn provider_error(error_type: &str, detail: &str) -> ModelError {
    let message = if detail.is_empty() {
        format!("provider error {error_type}")
    } else {
        format!("provider error {error_type}: {detail}")
    };
    ModelError {
        kind: ModelErrorKind::Provider {
            error_type: error_type.to_string(),
        },
        message: super::http_error::redact_secrets(&message),
    }
}

/// A `Truncated` error. `partial` is kept only when some output (text or a tool call) arrived,
/// so that a cut before any output stays retryable.
pub(crate) fn truncated(output_seen: bool, partial: ModelReply, end_marker: &str) -> ModelError {
    ModelError {
        kind: ModelErrorKind::Truncated {
            partial: output_seen.then(|| Box::new(partial)),
        },
        message: format!("stream ended without {end_marker}"),
    }
}

/// The finish reason to use when the provider gave none (or one we do not know).
pub(crate) fn inferred_finish(tool_calls: &[ToolCall]) -> FinishReason {
    if tool_calls.is_empty() {
        FinishReason::EndTurn
    } else {
        FinishReason::ToolUse
    }
}

/// The reply carried inside a `Truncated` error. Its finish reason is `EndTurn` only because the
/// type needs one: the error kind, not this field, says the reply was cut.
pub(crate) fn partial_reply(
    text: String,
    tool_calls: Vec<ToolCall>,
    usage: Usage,
    model: String,
) -> ModelReply {
    ModelReply {
        text,
        tool_calls,
        finish: FinishReason::EndTurn,
        usage,
        model,
    }
}

/// Whether raw tool-call argument text is a complete JSON object (used to keep only finished
/// calls in a partial reply: a cut object never parses).
pub(crate) fn is_complete_object(arguments: &str) -> bool {
    matches!(
        serde_json::from_str::<serde_json::Value>(arguments),
        Ok(serde_json::Value::Object(_))
    )
}

/// Reads a non-negative integer field, treating anything else as absent.
pub(crate) fn u64_field(value: &serde_json::Value, key: &str) -> Option<u64> {
    value.get(key).and_then(serde_json::Value::as_u64)
}

/// Reads a string field, treating anything else as absent.
pub(crate) fn str_field<'a>(value: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(serde_json::Value::as_str)
}
