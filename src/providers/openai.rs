//! OpenAI-compatible Chat Completions: the streaming request body, the request headers, and
//! [`OpenAiStream`], which assembles `chat.completion.chunk` events into a [`ModelReply`].

use serde_json::{json, Map, Value};

use super::openai_chunk::{fast_chunk, Chunk};
use super::sse::SseEvent;
use super::stream::{
    finish_from, is_complete_object, malformed, partial_reply, provider_error, reply, str_field,
    truncated, u64_field, FinishNames,
};
use crate::protocol::message::{Message, ToolCall, ToolSpec};
use crate::protocol::model::{FinishReason, ModelError, ModelReply, ModelRequest, Usage};
use crate::protocol::stream::StreamDelta;

pub use super::http_error::parse_error_body;

/// Chat Completions' `finish_reason` names.
const FINISH_NAMES: &FinishNames = &[
    ("stop", FinishReason::EndTurn),
    ("tool_calls", FinishReason::ToolUse),
    ("function_call", FinishReason::ToolUse),
    ("length", FinishReason::MaxTokens),
    ("content_filter", FinishReason::Refusal),
];

/// The body of a streaming Chat Completions request.
///
/// The output cap is sent as `max_completion_tokens` only. OpenAI deprecated `max_tokens`
/// and rejects it for its reasoning models (a hard 400), while compatible servers that predate
/// the new name ignore it and fall back to their own default limit (a soft failure). Sending
/// both is not an option: models that reject `max_tokens` reject the pair as well.
pub fn build_request(req: &ModelRequest, model: &str) -> Value {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if let Some(system) = &req.system {
        messages.push(json!({ "role": "system", "content": system }));
    }
    messages.extend(req.messages.iter().map(message_json));
    let mut body = stream_body(
        model,
        messages,
        "max_completion_tokens",
        req.max_output_tokens,
    );
    if !req.tools.is_empty() {
        body["tools"] = tools_json(&req.tools);
    }
    body
}

/// A streaming Chat Completions body before its tools: `messages` for `model`, usage asked for
/// in the last chunk, and the output cap `cap` under the name `cap_name` (this endpoint's
/// `max_completion_tokens`, see [`build_request`]; a page's custom provider reads `max_tokens`).
pub fn stream_body(model: &str, messages: Vec<Value>, cap_name: &str, cap: u32) -> Value {
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": { "include_usage": true },
    });
    body[cap_name] = json!(cap);
    body
}

/// The tools in Chat Completions form (a page's custom provider receives the same shape).
pub fn tools_json(tools: &[ToolSpec]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    }
                })
            })
            .collect(),
    )
}

/// Request headers for an OpenAI-compatible endpoint (bearer authorisation and JSON body).
pub fn headers(api_key: &str) -> Vec<(String, String)> {
    vec![
        ("authorization".to_string(), format!("Bearer {api_key}")),
        ("content-type".to_string(), "application/json".to_string()),
    ]
}

/// One transcript message in Chat Completions form. A failed tool result is prefixed with
/// `Error: ` because the format has no error flag.
pub(super) fn message_json(message: &Message) -> Value {
    match message {
        Message::User { text } => json!({ "role": "user", "content": text }),
        Message::Assistant { text, tool_calls } => {
            let mut obj = Map::new();
            obj.insert("role".into(), "assistant".into());
            let content = if text.is_empty() && !tool_calls.is_empty() {
                Value::Null
            } else {
                Value::String(text.clone())
            };
            obj.insert("content".into(), content);
            if !tool_calls.is_empty() {
                let calls = tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": { "name": call.name, "arguments": call.arguments },
                        })
                    })
                    .collect();
                obj.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(obj)
        }
        Message::Tool {
            call_id,
            content,
            is_error,
            ..
        } => {
            let content = if *is_error {
                format!("Error: {content}")
            } else {
                content.clone()
            };
            json!({ "role": "tool", "tool_call_id": call_id, "content": content })
        }
    }
}

/// One tool-call fragment of a delta, however it was read.
struct CallFragment<'a> {
    index: Option<u64>,
    id: Option<&'a str>,
    name: Option<&'a str>,
    arguments: Option<&'a str>,
}

/// A tool call being reassembled from its deltas.
#[derive(Debug, Default)]
struct PendingCall {
    /// The `index` the provider gave the call.
    index: usize,
    id: String,
    name: String,
    arguments: String,
    /// `ToolCallStarted` was reported.
    announced: bool,
}

/// Assembles a Chat Completions event stream into a [`ModelReply`].
///
/// Tool calls are reassembled by their `index`: the first delta of a call carries its id and
/// name, later ones carry argument fragments, and calls may interleave.
#[derive(Debug, Default)]
pub struct OpenAiStream {
    text: String,
    calls: Vec<PendingCall>,
    finish_reason: Option<String>,
    usage: Usage,
    model: String,
    done: bool,
    output_seen: bool,
}

impl OpenAiStream {
    /// Consumes one SSE event; returns the deltas it carried. `data: [DONE]` ends the stream
    /// (later events are ignored); an `{"error": ...}` object becomes a `Provider` error and
    /// invalid JSON a `Malformed` one.
    pub fn push(&mut self, ev: &SseEvent) -> Result<Vec<StreamDelta>, ModelError> {
        let data = ev.data.trim();
        if self.done || data.is_empty() {
            return Ok(Vec::new());
        }
        if data == "[DONE]" {
            self.done = true;
            return Ok(Vec::new());
        }
        // Most chunks are read into their serde shape; anything it refuses (invalid JSON, an
        // error member, an unexpected shape) takes the general reading below.
        if let Some(chunk) = fast_chunk(data) {
            return Ok(self.take_chunk(&chunk));
        }
        self.take_general(data)
    }

    /// Reads a chunk as a JSON tree: any shape, and the `error` member.
    pub(crate) fn take_general(&mut self, data: &str) -> Result<Vec<StreamDelta>, ModelError> {
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| malformed(format!("invalid JSON in stream chunk: {e}")))?;
        if let Some(error) = chunk.get("error") {
            return Err(stream_error(error));
        }
        if let (Some(model), true) = (str_field(&chunk, "model"), self.model.is_empty()) {
            self.model = model.to_string();
        }
        if let Some(usage @ Value::Object(_)) = chunk.get("usage") {
            self.usage = parse_usage(usage);
        }
        let mut deltas = Vec::new();
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            if let Some(delta) = choice.get("delta") {
                self.take_delta(delta, &mut deltas);
            }
            if let Some(reason) = str_field(choice, "finish_reason") {
                self.finish_reason = Some(reason.to_string());
            }
        }
        Ok(deltas)
    }

    /// Applies a chunk read into its serde shape, exactly as the general reading would.
    fn take_chunk(&mut self, chunk: &Chunk<'_>) -> Vec<StreamDelta> {
        if let (Some(model), true) = (&chunk.model, self.model.is_empty()) {
            self.model = model.to_string();
        }
        if let Some(usage) = &chunk.usage {
            self.usage = usage.usage();
        }
        let mut deltas = Vec::new();
        for choice in chunk.choices.iter().flatten() {
            if let Some(delta) = &choice.delta {
                self.take_texts(
                    [&delta.content, &delta.refusal].map(|s| s.as_deref()),
                    [&delta.reasoning_content, &delta.reasoning].map(|s| s.as_deref()),
                    &mut deltas,
                );
                for (position, call) in delta.tool_calls.iter().flatten().enumerate() {
                    let function = call.function.as_ref();
                    let fragment = CallFragment {
                        index: call.index,
                        id: call.id.as_deref(),
                        name: function.and_then(|f| f.name.as_deref()),
                        arguments: function.and_then(|f| f.arguments.as_deref()),
                    };
                    self.take_call_delta(position, fragment, &mut deltas);
                }
            }
            if let Some(reason) = &choice.finish_reason {
                self.finish_reason = Some(reason.to_string());
            }
        }
        deltas
    }

    /// Ends the stream. Without `[DONE]` and without a finish reason the reply is `Truncated`;
    /// its partial keeps the text and the tool calls whose arguments form a complete JSON object.
    pub fn finish(mut self) -> Result<ModelReply, ModelError> {
        self.calls.sort_by_key(|call| call.index);
        if !self.done && self.finish_reason.is_none() {
            let calls = self
                .calls
                .into_iter()
                .filter(|call| is_complete_object(&call.arguments))
                .map(into_tool_call)
                .collect();
            let partial = partial_reply(self.text, calls, self.usage, self.model);
            return Err(truncated(self.output_seen, partial, "[DONE]"));
        }
        let tool_calls: Vec<ToolCall> = self.calls.into_iter().map(into_tool_call).collect();
        let finish = finish_from(FINISH_NAMES, self.finish_reason.as_deref(), &tool_calls);
        Ok(reply(self.text, tool_calls, finish, self.usage, self.model))
    }

    /// Applies one choice `delta` object (the general reading).
    fn take_delta(&mut self, delta: &Value, deltas: &mut Vec<StreamDelta>) {
        self.take_texts(
            ["content", "refusal"].map(|key| str_field(delta, key)),
            ["reasoning_content", "reasoning"].map(|key| str_field(delta, key)),
            deltas,
        );
        let calls = delta.get("tool_calls").and_then(Value::as_array);
        for (position, call) in calls.into_iter().flatten().enumerate() {
            let function = call.get("function");
            let fragment = CallFragment {
                index: u64_field(call, "index"),
                id: str_field(call, "id"),
                name: function.and_then(|f| str_field(f, "name")),
                arguments: function.and_then(|f| str_field(f, "arguments")),
            };
            self.take_call_delta(position, fragment, deltas);
        }
    }

    /// Applies a delta's answer texts (content, refusal) and reasoning texts, in that order.
    fn take_texts(
        &mut self,
        answer: [Option<&str>; 2],
        reasoning: [Option<&str>; 2],
        deltas: &mut Vec<StreamDelta>,
    ) {
        for text in answer.into_iter().flatten().filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            self.output_seen = true;
            deltas.push(StreamDelta::Text(text.to_string()));
        }
        for text in reasoning.into_iter().flatten().filter(|t| !t.is_empty()) {
            deltas.push(StreamDelta::Thinking(text.to_string()));
        }
    }

    /// Applies one tool-call delta; a missing `index` falls back to its position in the array.
    fn take_call_delta(
        &mut self,
        position: usize,
        call: CallFragment<'_>,
        deltas: &mut Vec<StreamDelta>,
    ) {
        let index = call
            .index
            .and_then(|i| usize::try_from(i).ok())
            .unwrap_or(position);
        let slot = match self.calls.iter().position(|c| c.index == index) {
            Some(slot) => slot,
            None => {
                self.calls.push(PendingCall {
                    index,
                    ..PendingCall::default()
                });
                self.output_seen = true;
                self.calls.len() - 1
            }
        };
        let Some(pending) = self.calls.get_mut(slot) else {
            return;
        };
        if let Some(id) = call.id.filter(|id| !id.is_empty()) {
            if pending.id.is_empty() {
                pending.id = id.to_string();
            }
        }
        if let Some(name) = call.name {
            if pending.name.is_empty() {
                pending.name = name.to_string();
            }
        }
        if let Some(fragment) = call.arguments {
            pending.arguments.push_str(fragment);
        }
        if !pending.announced && !pending.name.is_empty() {
            pending.announced = true;
            deltas.push(StreamDelta::ToolCallStarted {
                index,
                id: call_id(pending),
                name: pending.name.clone(),
            });
        }
    }
}

/// The call's id, or `call_<index>` when the server sent none (some compatible servers do not).
fn call_id(call: &PendingCall) -> String {
    if call.id.is_empty() {
        format!("call_{}", call.index)
    } else {
        call.id.clone()
    }
}

/// A finished (or kept partial) call as a [`ToolCall`] with its raw argument text.
fn into_tool_call(call: PendingCall) -> ToolCall {
    ToolCall {
        id: call_id(&call),
        name: call.name,
        arguments: call.arguments,
    }
}

/// Usage from the final chunk: cached prompt tokens are split out of `prompt_tokens`.
fn parse_usage(usage: &Value) -> Usage {
    let prompt = u64_field(usage, "prompt_tokens").unwrap_or(0);
    let cached = usage
        .get("prompt_tokens_details")
        .and_then(|d| u64_field(d, "cached_tokens"))
        .unwrap_or(0);
    Usage {
        input_tokens: prompt.saturating_sub(cached),
        output_tokens: u64_field(usage, "completion_tokens").unwrap_or(0),
        cached_input_tokens: cached,
        cache_write_tokens: 0,
    }
}

/// The `Provider` error for an `error` member found in a stream chunk.
fn stream_error(error: &Value) -> ModelError {
    if let Value::String(text) = error {
        return provider_error("error", text);
    }
    let error_type = str_field(error, "type")
        .or_else(|| str_field(error, "code"))
        .unwrap_or("error");
    provider_error(error_type, str_field(error, "message").unwrap_or(""))
}
