//! A local model's reply in its own tool-call format ([`ToolDialect`]) turned back into a
//! structured reply: its thinking block apart ([`split_thinking`]), each call as a [`ToolCall`],
//! the rest as the answer; and the same reply streamed as a preview ([`NativePreview`]).

use serde_json::Value;

use super::local_native::ToolDialect;
use super::local_think::{split_thinking, TagStream, QWEN_TAGS, THINK_TAGS};
use crate::protocol::message::{ToolCall, ToolSpec};
use crate::protocol::model::{FinishReason, ModelReply, Usage};
use crate::protocol::StreamDelta;

const CALL_OPEN: &str = "<tool_call>";
const CALL_CLOSE: &str = "</tool_call>";

/// Parses what a model speaking `dialect` wrote, when `offered` tools were offered (none: the
/// text is the answer). A thinking block goes to `reasoning`; calls become tool calls (finish
/// `ToolUse`, ids `call_id`, then `call_id_1`, …) with any text before them as the reply's text;
/// a call cut short is the raw text with `MaxTokens`, and a call that is not a name with an
/// arguments object is the raw text with `Malformed`; a thinking block that never closed is
/// `MaxTokens` with no answer. Never fails.
pub fn parse_native_output(
    text: &str,
    offered: &[ToolSpec],
    dialect: &ToolDialect,
    usage: Usage,
    call_id: String,
) -> ModelReply {
    let thought = split_thinking(text);
    let mut reply = ModelReply {
        text: thought.rest.to_string(),
        tool_calls: Vec::new(),
        finish: FinishReason::EndTurn,
        usage,
        model: String::new(),
        reasoning: thought.reasoning.to_string(),
    };
    if thought.unclosed {
        reply.finish = FinishReason::MaxTokens;
        return reply;
    }
    if offered.is_empty() {
        return reply;
    }
    let parsed = match dialect {
        ToolDialect::Gemma => gemma_calls(thought.rest),
        ToolDialect::Hermes { .. } | ToolDialect::Compact => hermes_calls(thought.rest),
    };
    match parsed {
        Calls::None => {}
        Calls::Made { text, calls } => {
            reply.text = text.to_string();
            reply.tool_calls = calls
                .into_iter()
                .enumerate()
                .map(|(index, (name, arguments))| ToolCall {
                    id: if index == 0 {
                        call_id.clone()
                    } else {
                        format!("{call_id}_{index}")
                    },
                    name,
                    arguments,
                })
                .collect();
            reply.finish = FinishReason::ToolUse;
        }
        Calls::Cut => reply.finish = FinishReason::MaxTokens,
        Calls::Malformed => reply.finish = FinishReason::Malformed,
    }
    reply
}

/// The calls found in a reply.
enum Calls<'a> {
    /// No call: the reply is an answer.
    None,
    /// Calls (name, arguments as JSON text) after `text`.
    Made {
        text: &'a str,
        calls: Vec<(String, String)>,
    },
    /// A call cut short.
    Cut,
    /// A call that is not one.
    Malformed,
}

/// Qwen's calls: text, then `<tool_call>` blocks.
fn hermes_calls(reply: &str) -> Calls<'_> {
    let Some(first) = reply.find(CALL_OPEN) else {
        return Calls::None;
    };
    let mut calls = Vec::new();
    let mut rest = &reply[first..];
    while let Some(after) = rest.trim_start().strip_prefix(CALL_OPEN) {
        let Some(end) = after.find(CALL_CLOSE) else {
            return Calls::Cut;
        };
        match call_object(after[..end].trim(), "arguments") {
            Ok(call) => calls.push(call),
            Err(outcome) => return outcome,
        }
        rest = &after[end + CALL_CLOSE.len()..];
    }
    if !rest.trim().is_empty() {
        return Calls::Malformed;
    }
    Calls::Made {
        text: reply[..first].trim_end(),
        calls,
    }
}

/// Gemma's call: the whole reply is `{"name": …, "parameters": {…}}` (a Markdown fence around
/// it is allowed); anything else is an answer.
fn gemma_calls(reply: &str) -> Calls<'_> {
    let trimmed = reply.trim();
    let inner = match trimmed.strip_prefix("```") {
        Some(fenced) => {
            let body = fenced.split_once('\n').map_or("", |(_, body)| body);
            body.trim_end().strip_suffix("```").unwrap_or(body).trim()
        }
        None => trimmed,
    };
    if !inner.starts_with('{') {
        return Calls::None;
    }
    match call_object(inner, "parameters") {
        Ok(call) => Calls::Made {
            text: "",
            calls: vec![call],
        },
        Err(outcome) => outcome,
    }
}

/// `{"name": <string>, "<key>": <object>}` as (name, arguments' JSON text).
fn call_object<'a>(json: &str, key: &str) -> Result<(String, String), Calls<'a>> {
    let value: Value = serde_json::from_str(json).map_err(|error| {
        if error.is_eof() {
            Calls::Cut
        } else {
            Calls::Malformed
        }
    })?;
    let name = value.get("name").and_then(Value::as_str);
    let arguments = value.get(key).filter(|a| a.is_object());
    let fields = value.as_object().map_or(0, serde_json::Map::len);
    match (name, arguments) {
        (Some(name), Some(arguments)) if fields == 2 => {
            Ok((name.to_string(), arguments.to_string()))
        }
        (Some(_) | None, Some(_) | None) => Err(Calls::Malformed),
    }
}

/// What a person sees while a model speaking its own format writes: thinking and calls as
/// thinking, the answer as text.
#[derive(Debug)]
pub enum NativePreview {
    /// Tagged blocks (Qwen's thinking and calls; thinking alone without tools).
    Tags(TagStream),
    /// Gemma with tools: a reply that opens with `{` is a call, shown as thinking.
    Gemma {
        /// Whether the reply is a call, once its first character says so.
        call: Option<bool>,
    },
}

impl NativePreview {
    /// A preview of a reply in `dialect`'s format, with tools offered or not.
    pub fn new(dialect: &ToolDialect, tools_offered: bool) -> NativePreview {
        match (dialect, tools_offered) {
            (ToolDialect::Gemma, true) => NativePreview::Gemma { call: None },
            (ToolDialect::Hermes { .. } | ToolDialect::Compact, true) => {
                NativePreview::Tags(TagStream::new(QWEN_TAGS))
            }
            (ToolDialect::Gemma | ToolDialect::Hermes { .. } | ToolDialect::Compact, false) => {
                NativePreview::Tags(TagStream::new(THINK_TAGS))
            }
        }
    }

    /// The deltas for the next piece.
    pub fn push(&mut self, piece: &str) -> Vec<StreamDelta> {
        match self {
            NativePreview::Tags(tags) => tags.push(piece),
            NativePreview::Gemma { call } => {
                if call.is_none() {
                    if let Some(first) = piece.trim_start().chars().next() {
                        *call = Some(first == '{');
                    }
                }
                match call {
                    Some(true) => vec![StreamDelta::Thinking(piece.to_string())],
                    Some(false) => vec![StreamDelta::Text(piece.to_string())],
                    None => Vec::new(),
                }
            }
        }
    }

    /// What was held back, once the reply has ended.
    pub fn finish(&mut self) -> Vec<StreamDelta> {
        match self {
            NativePreview::Tags(tags) => tags.finish(),
            NativePreview::Gemma { .. } => Vec::new(),
        }
    }
}
