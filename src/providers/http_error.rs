//! Turning a non-2xx provider response into a [`ModelError`], and keeping secrets out of error
//! messages. The body shapes of OpenAI-compatible servers and of Anthropic are both understood.

use serde_json::Value;

use super::stream::{redact_secrets, str_field};
use crate::protocol::model::{ModelError, ModelErrorKind};

/// Longest excerpt of a non-JSON body kept in an error message, in characters.
const MAX_BODY_EXCERPT: usize = 300;

/// Builds the error for a non-success HTTP response from its status, body and the server-directed
/// wait (see `retry::parse_retry_after`). The message names the status, the provider's error type
/// and its message; it never contains request headers, and API keys echoed by the provider are
/// redacted.
pub fn parse_error_body(status: u16, body: &str, retry_after_ms: Option<u64>) -> ModelError {
    let parsed = serde_json::from_str::<serde_json::Value>(body).ok();
    let detail = parsed.as_ref().and_then(describe);
    let should_retry =
        (status == 429 && parsed.as_ref().is_some_and(is_quota_exhausted)).then_some(false);
    let message = match detail {
        Some((Some(error_type), text)) => format!("HTTP {status} {error_type}: {text}"),
        Some((None, text)) => format!("HTTP {status}: {text}"),
        None => {
            let excerpt = excerpt(body);
            if excerpt.is_empty() {
                format!("HTTP {status}")
            } else {
                format!("HTTP {status}: {excerpt}")
            }
        }
    };
    ModelError {
        kind: ModelErrorKind::Http {
            status,
            retry_after_ms,
            should_retry,
        },
        message: redact_secrets(&message),
    }
}

/// A 429 that is a spend limit (Anthropic `enforced_spend_limit_reached`) or an exhausted quota
/// (OpenAI `insufficient_quota`), not a rate limit: waiting does not help.
fn is_quota_exhausted(body: &Value) -> bool {
    let error = body.get("error");
    let fields = [
        error.and_then(|e| e.get("type")),
        error.and_then(|e| e.get("code")),
        error
            .and_then(|e| e.get("details"))
            .and_then(|d| d.get("error_code")),
    ];
    fields
        .iter()
        .filter_map(|f| f.and_then(Value::as_str))
        .any(|code| {
            matches!(
                code,
                "insufficient_quota" | "enforced_spend_limit_reached" | "billing_error"
            )
        })
}

/// The server's `x-should-retry` header (`true` / `false`), if present.
pub fn should_retry_header(headers: &[(String, String)]) -> Option<bool> {
    headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("x-should-retry"))
        .and_then(|(_, value)| match value.trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        })
}

/// The error type and message of a JSON error body: `{"error": {"type", "message"}}` (both
/// providers; OpenAI may give `code` instead of `type`), `{"error": "text"}`, or a top-level
/// `message` / `detail`.
fn describe(value: &Value) -> Option<(Option<String>, String)> {
    match value.get("error") {
        Some(error @ Value::Object(_)) => {
            let error_type = str_field(error, "type")
                .or_else(|| str_field(error, "code"))
                .map(str::to_string);
            let text = str_field(error, "message").unwrap_or("").to_string();
            Some((error_type, text))
        }
        Some(Value::String(text)) => Some((None, text.clone())),
        Some(_) | None => str_field(value, "message")
            .or_else(|| str_field(value, "detail"))
            .map(|text| (None, text.to_string())),
    }
}

/// The body with whitespace collapsed, cut to [`MAX_BODY_EXCERPT`] characters.
fn excerpt(body: &str) -> String {
    let collapsed = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= MAX_BODY_EXCERPT {
        return collapsed;
    }
    let mut cut: String = collapsed.chars().take(MAX_BODY_EXCERPT).collect();
    cut.push('…');
    cut
}
