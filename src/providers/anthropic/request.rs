//! The Anthropic Messages request: headers, and the body with the system prompt at top level,
//! tool calls as `tool_use` blocks and tool results as `tool_result` blocks in user turns.

use serde_json::{Map, Value};

use serde_json::json;

use crate::protocol::message::{Message, ToolCall};
use crate::protocol::model::ModelRequest;
use crate::providers::stream::str_field;

/// The API version this module speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Headers every request needs besides the key. The direct-browser-access header is required
/// for CORS: without it the API refuses calls made from a web page.
pub const REQUIRED_HEADERS: [(&str, &str); 3] = [
    ("anthropic-version", ANTHROPIC_VERSION),
    ("anthropic-dangerous-direct-browser-access", "true"),
    ("content-type", "application/json"),
];

/// All request headers: `x-api-key` followed by [`REQUIRED_HEADERS`].
pub fn headers(api_key: &str) -> Vec<(String, String)> {
    let mut out = vec![("x-api-key".to_string(), api_key.to_string())];
    out.extend(
        REQUIRED_HEADERS
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string())),
    );
    out
}

/// The body of a streaming Messages request: the system prompt at top level, tool calls as
/// `tool_use` blocks, tool results as `tool_result` blocks (with `is_error`) in user turns, and
/// consecutive tool results merged into one user message. Empty text blocks, which the API
/// rejects, are left out.
pub fn build_request(req: &ModelRequest, model: &str) -> Value {
    let mut body = json!({
        "model": model,
        "max_tokens": req.max_output_tokens,
        "stream": true,
        "messages": messages_json(&req.messages),
    });
    if let Some(system) = req.system.as_ref().filter(|s| !s.is_empty()) {
        body["system"] = Value::String(system.clone());
    }
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.parameters,
                })
            })
            .collect();
        body["tools"] = Value::Array(tools);
    }
    body
}

/// One turn being built: its role and content blocks.
struct Turn {
    role: &'static str,
    blocks: Vec<Value>,
}

/// The transcript as alternating turns of content blocks.
fn messages_json(messages: &[Message]) -> Vec<Value> {
    let mut turns: Vec<Turn> = Vec::new();
    for message in messages {
        match message {
            Message::User { text } => {
                if text.is_empty() {
                    continue;
                }
                let block = json!({ "type": "text", "text": text });
                match turns.last_mut() {
                    Some(turn) if turn.role == "user" => turn.blocks.push(block),
                    Some(_) | None => turns.push(Turn {
                        role: "user",
                        blocks: vec![block],
                    }),
                }
            }
            Message::Assistant { text, tool_calls } => {
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(json!({ "type": "text", "text": text }));
                }
                blocks.extend(tool_calls.iter().map(tool_use_block));
                if !blocks.is_empty() {
                    turns.push(Turn {
                        role: "assistant",
                        blocks,
                    });
                }
            }
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } => {
                let block = json!({
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": content,
                    "is_error": is_error,
                });
                // Tool results must open their user turn, so they only join a turn that holds
                // nothing but tool results.
                match turns.last_mut() {
                    Some(turn) if turn.role == "user" && turn.blocks.iter().all(is_tool_result) => {
                        turn.blocks.push(block);
                    }
                    Some(_) | None => turns.push(Turn {
                        role: "user",
                        blocks: vec![block],
                    }),
                }
            }
        }
    }
    turns
        .into_iter()
        .map(|turn| json!({ "role": turn.role, "content": turn.blocks }))
        .collect()
}

/// Whether a content block is a `tool_result`.
fn is_tool_result(block: &Value) -> bool {
    str_field(block, "type") == Some("tool_result")
}

/// A `tool_use` block. The API needs `input` to be an object, so arguments that are not a JSON
/// object (the model emitted invalid JSON, already answered with an error result) become `{}`.
fn tool_use_block(call: &ToolCall) -> Value {
    let input = match serde_json::from_str::<serde_json::Value>(&call.arguments) {
        Ok(object @ Value::Object(_)) => object,
        Ok(_) | Err(_) => Value::Object(Map::new()),
    };
    json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": input })
}
