//! [`AnthropicStream`]: assembles the Messages API's typed SSE events (`message_start`,
//! `content_block_*`, `message_delta`, `message_stop`, `ping`, `error`) into a [`ModelReply`].

use serde_json::Value;

use crate::protocol::message::ToolCall;
use crate::protocol::model::{FinishReason, ModelError, ModelReply, Usage};
use crate::protocol::stream::StreamDelta;
use crate::providers::sse::SseEvent;
use crate::providers::stream::{
    finish_from, malformed, partial_reply, provider_error, reply, str_field, truncated, u64_field,
    FinishNames,
};

/// The Messages API's `stop_reason` names.
const FINISH_NAMES: &FinishNames = &[
    ("end_turn", FinishReason::EndTurn),
    ("stop_sequence", FinishReason::EndTurn),
    ("pause_turn", FinishReason::EndTurn),
    ("tool_use", FinishReason::ToolUse),
    ("max_tokens", FinishReason::MaxTokens),
    ("model_context_window_exceeded", FinishReason::MaxTokens),
    ("refusal", FinishReason::Refusal),
];

/// What a content block holds while it streams.
#[derive(Debug)]
enum BlockKind {
    /// Visible text (appended to the reply as it arrives).
    Text,
    /// Reasoning, shown live only.
    Thinking,
    /// A tool call whose input JSON arrives in fragments.
    ToolUse {
        id: String,
        name: String,
        /// Concatenated `partial_json` fragments.
        json: String,
        /// The `input` given in `content_block_start`, used when no fragment arrives.
        initial_input: Option<String>,
        /// `content_block_stop` arrived: the input is complete.
        closed: bool,
    },
    /// A block type this assembler does not use (e.g. `redacted_thinking`).
    Other,
}

/// One content block, keyed by the provider's `index`.
#[derive(Debug)]
struct Block {
    index: u64,
    kind: BlockKind,
}

/// Assembles a Messages event stream into a [`ModelReply`].
///
/// Tool input is the concatenation of a block's `input_json_delta` fragments, taken once at
/// `content_block_stop` (an empty input means `{}`); it stays the raw JSON text in
/// [`ToolCall::arguments`], validated later by the core.
#[derive(Debug, Default)]
pub struct AnthropicStream {
    blocks: Vec<Block>,
    text: String,
    tool_count: usize,
    stop_reason: Option<String>,
    usage: Usage,
    model: String,
    stopped: bool,
    output_seen: bool,
}

impl AnthropicStream {
    /// Consumes one SSE event; returns the deltas it carried. An `error` event becomes a
    /// `Provider` error with the provider's error type; `ping` and unknown events are ignored.
    pub fn push(&mut self, ev: &SseEvent) -> Result<Vec<StreamDelta>, ModelError> {
        if ev.data.trim().is_empty() {
            return Ok(Vec::new());
        }
        let data = serde_json::from_str::<serde_json::Value>(&ev.data)
            .map_err(|e| malformed(format!("invalid JSON in {} event: {e}", ev.event)))?;
        let event_type = str_field(&data, "type").unwrap_or(ev.event.as_str());
        let mut deltas = Vec::new();
        match event_type {
            "message_start" => {
                if let Some(message) = data.get("message") {
                    if let Some(model) = str_field(message, "model") {
                        self.model = model.to_string();
                    }
                    if let Some(usage) = message.get("usage") {
                        self.take_usage(usage);
                    }
                }
            }
            "content_block_start" => self.start_block(&data, &mut deltas)?,
            "content_block_delta" => self.take_delta(&data, &mut deltas)?,
            "content_block_stop" => {
                let index = block_index(&data)?;
                if let Some(BlockKind::ToolUse { closed, .. }) = self.block_mut(index) {
                    *closed = true;
                }
            }
            "message_delta" => {
                if let Some(reason) = data.get("delta").and_then(|d| str_field(d, "stop_reason")) {
                    self.stop_reason = Some(reason.to_string());
                }
                if let Some(usage) = data.get("usage") {
                    self.take_usage(usage);
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let error = data.get("error").unwrap_or(&Value::Null);
                let error_type = str_field(error, "type").unwrap_or("error");
                return Err(provider_error(
                    error_type,
                    str_field(error, "message").unwrap_or(""),
                ));
            }
            _ => {}
        }
        Ok(deltas)
    }

    /// Ends the stream. Without `message_stop` the reply is `Truncated`; its partial keeps the
    /// text and only the tool calls whose block closed, never one whose JSON was cut.
    pub fn finish(self) -> Result<ModelReply, ModelError> {
        let stopped = self.stopped;
        let mut tool_calls = Vec::new();
        for block in self.blocks {
            if let BlockKind::ToolUse {
                id,
                name,
                json,
                initial_input,
                closed,
            } = block.kind
            {
                if closed || stopped {
                    tool_calls.push(ToolCall {
                        id,
                        name,
                        arguments: final_arguments(json, initial_input),
                    });
                }
            }
        }
        if !stopped {
            let partial = partial_reply(self.text, tool_calls, self.usage, self.model);
            return Err(truncated(self.output_seen, partial, "message_stop"));
        }
        let finish = finish_from(FINISH_NAMES, self.stop_reason.as_deref(), &tool_calls);
        Ok(reply(self.text, tool_calls, finish, self.usage, self.model))
    }

    /// Handles `content_block_start`.
    fn start_block(
        &mut self,
        data: &Value,
        deltas: &mut Vec<StreamDelta>,
    ) -> Result<(), ModelError> {
        let index = block_index(data)?;
        let block = data
            .get("content_block")
            .ok_or_else(|| malformed("content_block_start without content_block"))?;
        let kind = match str_field(block, "type") {
            Some("text") => {
                if let Some(text) = str_field(block, "text").filter(|t| !t.is_empty()) {
                    self.push_text(text, deltas);
                }
                BlockKind::Text
            }
            Some("thinking") => BlockKind::Thinking,
            Some("tool_use") => {
                let id = str_field(block, "id").unwrap_or("").to_string();
                let name = str_field(block, "name").unwrap_or("").to_string();
                let initial_input = block
                    .get("input")
                    .filter(|input| input.as_object().is_some_and(|o| !o.is_empty()))
                    .map(serde_json::Value::to_string);
                deltas.push(StreamDelta::ToolCallStarted {
                    index: self.tool_count,
                    id: id.clone(),
                    name: name.clone(),
                });
                self.tool_count += 1;
                self.output_seen = true;
                BlockKind::ToolUse {
                    id,
                    name,
                    json: String::new(),
                    initial_input,
                    closed: false,
                }
            }
            Some(_) | None => BlockKind::Other,
        };
        self.blocks.retain(|b| b.index != index);
        self.blocks.push(Block { index, kind });
        Ok(())
    }

    /// Handles `content_block_delta`.
    fn take_delta(
        &mut self,
        data: &Value,
        deltas: &mut Vec<StreamDelta>,
    ) -> Result<(), ModelError> {
        let index = block_index(data)?;
        let delta = data
            .get("delta")
            .ok_or_else(|| malformed("content_block_delta without delta"))?;
        if self.block_mut(index).is_none() {
            return Err(malformed(format!(
                "delta for unknown content block {index}"
            )));
        }
        match str_field(delta, "type") {
            Some("text_delta") => {
                if let Some(text) = str_field(delta, "text").filter(|t| !t.is_empty()) {
                    self.push_text(text, deltas);
                }
            }
            Some("input_json_delta") => {
                if let Some(BlockKind::ToolUse { json, .. }) = self.block_mut(index) {
                    json.push_str(str_field(delta, "partial_json").unwrap_or(""));
                }
            }
            Some("thinking_delta") => {
                if let Some(text) = str_field(delta, "thinking").filter(|t| !t.is_empty()) {
                    deltas.push(StreamDelta::Thinking(text.to_string()));
                }
            }
            Some(_) | None => {}
        }
        Ok(())
    }

    /// Appends visible text and reports it.
    fn push_text(&mut self, text: &str, deltas: &mut Vec<StreamDelta>) {
        self.text.push_str(text);
        self.output_seen = true;
        deltas.push(StreamDelta::Text(text.to_string()));
    }

    /// The block with this index, if it was started.
    fn block_mut(&mut self, index: u64) -> Option<&mut BlockKind> {
        self.blocks
            .iter_mut()
            .find(|b| b.index == index)
            .map(|b| &mut b.kind)
    }

    /// Applies the usage fields present (counts in `message_delta` are cumulative, so a present
    /// field replaces the earlier value).
    fn take_usage(&mut self, usage: &Value) {
        if let Some(n) = u64_field(usage, "input_tokens") {
            self.usage.input_tokens = n;
        }
        if let Some(n) = u64_field(usage, "output_tokens") {
            self.usage.output_tokens = n;
        }
        if let Some(n) = u64_field(usage, "cache_read_input_tokens") {
            self.usage.cached_input_tokens = n;
        }
        if let Some(n) = u64_field(usage, "cache_creation_input_tokens") {
            self.usage.cache_write_tokens = n;
        }
    }
}

/// The `index` of a content-block event.
fn block_index(data: &Value) -> Result<u64, ModelError> {
    u64_field(data, "index").ok_or_else(|| malformed("content block event without index"))
}

/// A tool call's argument text: the fragments, else the input given at block start, else `{}`.
fn final_arguments(json: String, initial_input: Option<String>) -> String {
    if !json.trim().is_empty() {
        json
    } else {
        initial_input.unwrap_or_else(|| "{}".to_string())
    }
}
