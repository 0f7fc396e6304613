//! MCP sampling as one call of a session's own model: a server's `sampling/createMessage`
//! parameters (its messages, system prompt and token limit) become a [`ModelRequest`] with no
//! tools, and the model's reply becomes the sampling result the server gets back. Images and
//! audio in the messages are described, not sent (the providers take text here); the token
//! limit is capped so a server cannot ask for more than [`MAX_SAMPLING_TOKENS`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::{FinishReason, Message, ModelReply, ModelRequest};

/// The most output tokens a server's sampling request gets, whatever it asks for.
pub const MAX_SAMPLING_TOKENS: u32 = 4096;
/// The output limit when a request names none.
const DEFAULT_SAMPLING_TOKENS: u32 = 512;

/// The parts of `sampling/createMessage` the model call uses.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingParams {
    /// The conversation the server wants continued.
    pub messages: Vec<SamplingMessage>,
    /// The server's system prompt, if any.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// The server's output limit.
    #[serde(default)]
    pub max_tokens: Option<u32>,
}

/// One message of a sampling request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SamplingMessage {
    /// "user" or "assistant".
    pub role: String,
    /// One content block or a list of them.
    pub content: Value,
}

/// The sampling result sent back to the server.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingResult {
    /// Always "assistant".
    pub role: &'static str,
    /// The reply as one text block.
    pub content: TextContent,
    /// The model that answered.
    pub model: String,
    /// Why it stopped, in MCP's words.
    pub stop_reason: &'static str,
}

/// A text content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextContent {
    /// Always "text".
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The text.
    pub text: String,
}

/// A sampling request that cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SamplingError {
    /// No messages, or a role other than user or assistant.
    #[error("invalid sampling request: {0}")]
    Invalid(String),
}

/// One content block (or a list) as text: images and audio described by size and type.
fn content_text(content: &Value) -> String {
    match content {
        Value::Array(parts) => parts
            .iter()
            .map(content_text)
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(block) => {
            let kind = block
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            match kind {
                "text" => block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                "image" | "audio" => {
                    let bytes = block
                        .get("data")
                        .and_then(Value::as_str)
                        .map_or(0, |d| d.len() * 3 / 4);
                    let mime = block
                        .get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    format!("[{kind} {mime}, {bytes} bytes, not shown]")
                }
                other => format!("[{other} content, not shown]"),
            }
        }
        Value::String(text) => text.clone(),
        Value::Null | Value::Bool(_) | Value::Number(_) => String::new(),
    }
}

/// The model request for a sampling request: no tools, the output limit capped.
pub fn sampling_request(params: &SamplingParams) -> Result<ModelRequest, SamplingError> {
    if params.messages.is_empty() {
        return Err(SamplingError::Invalid("no messages".into()));
    }
    let mut messages = Vec::with_capacity(params.messages.len());
    for message in &params.messages {
        let text = content_text(&message.content);
        messages.push(match message.role.as_str() {
            "user" => Message::User { text },
            "assistant" => Message::Assistant {
                text,
                tool_calls: Vec::new(),
            },
            other => return Err(SamplingError::Invalid(format!("unknown role {other:?}"))),
        });
    }
    Ok(ModelRequest {
        system: params.system_prompt.clone().filter(|s| !s.is_empty()),
        messages: messages.into(),
        tools: Vec::new(),
        max_output_tokens: params
            .max_tokens
            .unwrap_or(DEFAULT_SAMPLING_TOKENS)
            .clamp(1, MAX_SAMPLING_TOKENS),
    })
}

/// The sampling result for the model's reply.
pub fn sampling_result(reply: &ModelReply, fallback_model: &str) -> SamplingResult {
    let stop_reason = match reply.finish {
        FinishReason::MaxTokens => "maxTokens",
        FinishReason::EndTurn
        | FinishReason::ToolUse
        | FinishReason::Refusal
        | FinishReason::Malformed => "endTurn",
    };
    SamplingResult {
        role: "assistant",
        content: TextContent {
            kind: "text",
            text: reply.text.clone(),
        },
        model: if reply.model.is_empty() {
            fallback_model.to_string()
        } else {
            reply.model.clone()
        },
        stop_reason,
    }
}
