//! The small helpers the provider assemblers share to build their errors and partial replies.

use crate::protocol::message::ToolCall;
use crate::protocol::model::{FinishReason, ModelError, ModelErrorKind, ModelReply, Usage};

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
        message: redact_secrets(&message),
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

/// A provider's names for why it stopped, each with what it means to the loop.
pub(crate) type FinishNames = [(&'static str, FinishReason)];

/// The finish reason of a reply: the provider's `stop` name read through its `names`, or, when
/// it gave none (or one we do not know), inferred from whether the reply calls tools.
pub(crate) fn finish_from(
    names: &FinishNames,
    stop: Option<&str>,
    tool_calls: &[ToolCall],
) -> FinishReason {
    match stop.and_then(|stop| names.iter().find(|(name, _)| *name == stop)) {
        Some((_, finish)) => *finish,
        None if tool_calls.is_empty() => FinishReason::EndTurn,
        None => FinishReason::ToolUse,
    }
}

/// An assembled reply (the streaming providers carry no separate reasoning text).
pub(crate) fn reply(
    text: String,
    tool_calls: Vec<ToolCall>,
    finish: FinishReason,
    usage: Usage,
    model: String,
) -> ModelReply {
    ModelReply {
        text,
        tool_calls,
        finish,
        usage,
        model,
        reasoning: String::new(),
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
    reply(text, tool_calls, FinishReason::EndTurn, usage, model)
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

/// Replaces anything that looks like a secret key (a word starting with `sk-`, `sk_`, or the
/// token after `Bearer `) with `[redacted]`. Providers sometimes echo part of a rejected key.
pub fn redact_secrets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = next_secret(rest) {
        out.push_str(&rest[..start.0]);
        out.push_str(start.1);
        out.push_str("[redacted]");
        let tail = &rest[start.2..];
        let end = tail.find(|c: char| !is_key_char(c)).unwrap_or(tail.len());
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Finds the next secret: (byte offset of its start, prefix to keep, offset where the key body
/// starts).
fn next_secret(text: &str) -> Option<(usize, &'static str, usize)> {
    let mut best: Option<(usize, &'static str, usize)> = None;
    for (marker, keep) in [("sk-", "sk-"), ("sk_", "sk_"), ("Bearer ", "Bearer ")] {
        let mut from = 0;
        while let Some(found) = text[from..].find(marker) {
            let at = from + found;
            let boundary = text[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_ascii_alphanumeric());
            if boundary {
                if best.is_none_or(|b| at < b.0) {
                    best = Some((at, keep, at + marker.len()));
                }
                break;
            }
            from = at + marker.len();
        }
    }
    best
}

/// Characters a key (or its masked echo) is made of.
fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '*' | '.' | '…')
}
