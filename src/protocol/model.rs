//! A model call: the request the core projects, the reply a provider assembles, and the errors a
//! provider can report.

use serde::{Deserialize, Serialize};

use super::message::{ToolCall, ToolSpec};
use super::request_messages::RequestMessages;

/// Everything a provider needs for one call. Built by the core from the event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// System prompt, if any.
    pub system: Option<String>,
    /// The transcript, oldest first.
    pub messages: RequestMessages,
    /// Tools the model may call; empty for calls that must answer in text (compaction).
    pub tools: Vec<ToolSpec>,
    /// Upper bound on output tokens for this call.
    pub max_output_tokens: u32,
}

/// Why a model stopped producing output, mapped from each provider's own names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// Natural end of turn (`end_turn`, `stop`, `stop_sequence`).
    EndTurn,
    /// The model wants its tool calls run (`tool_use`, `tool_calls`).
    ToolUse,
    /// Cut at the output limit (`max_tokens`, `length`): the core may ask it to continue.
    MaxTokens,
    /// The provider refused or filtered the output (`refusal`, `content_filter`).
    Refusal,
    /// The reply fits none of the shapes the model was asked for (a local model's output that
    /// is neither a tool call nor a final answer): the core answers it with an error the model
    /// sees and the loop guards count, never as a final answer.
    Malformed,
}

/// Token usage of one call as the provider reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens billed at the full input price (excluding cached ones).
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's cache (read), billed at the cached price.
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Prompt tokens written to the provider's cache, billed at the input price.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Adds another call's usage to this one.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

/// A complete reply, assembled from a stream or a single response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelReply {
    /// Visible text.
    pub text: String,
    /// Tool calls in the order the model made them.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped.
    pub finish: FinishReason,
    /// Token usage.
    pub usage: Usage,
    /// The model that answered, as the provider named it.
    #[serde(default)]
    pub model: String,
    /// What the model thought before it replied (a local Qwen3's `<think>…</think>` block): kept
    /// in the log, never part of the answer the person reads nor of the prompts after it. Empty
    /// when it wrote none, and then not stored (records without it read as before).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
}

/// What went wrong with a model call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelErrorKind {
    /// A non-success HTTP status.
    Http {
        /// The status code.
        status: u16,
        /// Server-directed wait in milliseconds, from `retry-after-ms` / `retry-after`.
        retry_after_ms: Option<u64>,
        /// The server's own verdict on retrying, which overrides the status: from the
        /// `x-should-retry` header, or `false` for a 429 that means a spend limit or an exhausted
        /// quota (retrying cannot help).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[serde(default)]
        should_retry: Option<bool>,
    },
    /// The provider reported an error inside the stream (SSE `error` event).
    Provider {
        /// The provider's error type, e.g. `overloaded_error`.
        error_type: String,
    },
    /// The network failed before a response arrived.
    Network,
    /// No first byte within the time-to-first-byte limit.
    FirstByteTimeout,
    /// The stream went silent longer than the idle limit.
    IdleTimeout,
    /// The stream ended before the provider's end marker. `partial` holds what arrived.
    Truncated {
        /// Text and complete tool calls received before the cut, if any output arrived.
        partial: Option<Box<ModelReply>>,
    },
    /// The response could not be parsed.
    Malformed,
    /// The call was aborted on request.
    Cancelled,
    /// The local model could not be loaded or run.
    LocalModel,
}

/// A failed model call. Messages never contain API keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error, Deserialize)]
#[error("{message}")]
pub struct ModelError {
    /// Classification used for retry decisions.
    pub kind: ModelErrorKind,
    /// Human-readable description.
    pub message: String,
}

impl ModelError {
    /// Whether the same request may be sent again (the official SDKs' matrix: network errors,
    /// timeouts before output, 408, 409, 429, 5xx incl. 529, a provider error event of a
    /// transient type — Anthropic's `overloaded_error`, `rate_limit_error`, `api_error` and
    /// OpenAI's `server_error`, its 5xx sent inside a stream — and a stream cut before any output).
    pub fn is_retryable(&self) -> bool {
        match &self.kind {
            ModelErrorKind::Http {
                status,
                should_retry,
                ..
            } => should_retry
                .unwrap_or(matches!(status, 408 | 409 | 429) || (500..=599).contains(status)),
            ModelErrorKind::Provider { error_type } => {
                matches!(
                    error_type.as_str(),
                    "overloaded_error" | "rate_limit_error" | "api_error" | "server_error"
                )
            }
            ModelErrorKind::Network | ModelErrorKind::FirstByteTimeout => true,
            ModelErrorKind::Truncated { partial } => partial.is_none(),
            ModelErrorKind::IdleTimeout
            | ModelErrorKind::Malformed
            | ModelErrorKind::Cancelled
            | ModelErrorKind::LocalModel => false,
        }
    }
}
