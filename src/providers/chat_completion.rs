//! The Chat Completions objects a page-supplied ("custom") provider exchanges with the loop: the
//! request handed to the page's `complete` function, and [`CompletionAssembler`], which turns
//! what it returns — a `ChatCompletion` or a sequence of `ChatCompletionChunk`s — into a
//! [`ModelReply`]. Both shapes go through the one Chat Completions parser, [`OpenAiStream`]: a
//! whole completion is first rewritten as the single chunk that would have carried it.

use serde_json::{Map, Value};

use serde_json::json;

use super::openai::{build_request, OpenAiStream};
use super::sse::SseEvent;
use super::stream::malformed;
use crate::protocol::json_kind;
use crate::protocol::model::{ModelError, ModelReply, ModelRequest};
use crate::protocol::stream::StreamDelta;

/// The request object a custom provider receives: `{ model, messages, tools, tool_choice,
/// max_tokens, stream: true, stream_options }` as Chat Completions defines them.
///
/// The output cap is sent as `max_tokens`, the name in-browser engines (WebLLM) and most
/// compatible servers read; a page forwarding it to OpenAI itself can rename it.
pub fn custom_request(req: &ModelRequest, model: &str) -> Value {
    let mut body = build_request(req, model);
    if let Some(object) = body.as_object_mut() {
        object.remove("max_completion_tokens");
        object.insert("max_tokens".into(), json!(req.max_output_tokens));
        if !req.tools.is_empty() {
            object.insert("tool_choice".into(), json!("auto"));
        }
    }
    body
}

/// Assembles what a custom provider returned into a reply. Feed it either chunks
/// ([`CompletionAssembler::push_chunk`]) or one completion
/// ([`CompletionAssembler::push_completion`]), then [`CompletionAssembler::finish`] when the
/// provider's iterable ended.
#[derive(Debug, Default)]
pub struct CompletionAssembler {
    stream: OpenAiStream,
}

impl CompletionAssembler {
    /// One `ChatCompletionChunk` (any JSON value; a non-object is `Malformed`).
    pub fn push_chunk(&mut self, chunk: &Value) -> Result<Vec<StreamDelta>, ModelError> {
        if !chunk.is_object() {
            return Err(malformed(format!(
                "the custom provider yielded a {} where a ChatCompletionChunk object belongs",
                json_kind(chunk)
            )));
        }
        self.stream.push(&SseEvent {
            event: "message".into(),
            data: chunk.to_string(),
            id: None,
        })
    }

    /// One `ChatCompletionChunk` as JSON text, parsed once, by the stream's own parser. Text
    /// that is not an object is `Malformed`, as in [`CompletionAssembler::push_chunk`].
    pub fn push_chunk_text(&mut self, text: &str) -> Result<Vec<StreamDelta>, ModelError> {
        if !text.trim_start().starts_with('{') {
            let value = serde_json::from_str::<serde_json::Value>(text).map_err(|error| {
                malformed(format!("the custom provider's chunk is not JSON: {error}"))
            })?;
            return self.push_chunk(&value);
        }
        self.stream.push(&SseEvent {
            event: "message".into(),
            data: text.into(),
            id: None,
        })
    }

    /// A whole `ChatCompletion`: its `choices[].message` becomes one chunk's `choices[].delta`.
    pub fn push_completion(&mut self, completion: &Value) -> Result<Vec<StreamDelta>, ModelError> {
        let chunk = completion_as_chunk(completion)?;
        self.push_chunk(&chunk)
    }

    /// Ends the reply: the provider's iterable (or its single completion) is complete, which is
    /// the end marker a server's `data: [DONE]` would be. A reply without any choice is
    /// `Malformed`: nothing said what the model answered.
    pub fn finish(mut self, seen_any: bool) -> Result<ModelReply, ModelError> {
        if !seen_any {
            return Err(malformed(
                "the custom provider returned an empty stream (no ChatCompletionChunk)",
            ));
        }
        self.stream.push(&SseEvent {
            event: "message".into(),
            data: "[DONE]".into(),
            id: None,
        })?;
        self.stream.finish()
    }
}

/// The chunk that would have streamed `completion` in one piece.
pub fn completion_as_chunk(completion: &Value) -> Result<Value, ModelError> {
    let Some(object) = completion.as_object() else {
        return Err(malformed(format!(
            "the custom provider returned a {} where a ChatCompletion object belongs",
            json_kind(completion)
        )));
    };
    if let Some(error) = object.get("error") {
        return Ok(json!({ "error": error }));
    }
    let Some(choices) = object.get("choices").and_then(Value::as_array) else {
        return Err(malformed(
            "the custom provider's ChatCompletion has no choices array",
        ));
    };
    let mut chunk = Map::new();
    for key in ["id", "model", "usage"] {
        if let Some(value) = object.get(key) {
            chunk.insert(key.into(), value.clone());
        }
    }
    chunk.insert("object".into(), json!("chat.completion.chunk"));
    let choices: Vec<Value> = choices.iter().map(choice_as_delta).collect();
    chunk.insert("choices".into(), Value::Array(choices));
    Ok(Value::Object(chunk))
}

/// `{index, message, finish_reason}` as `{index, delta, finish_reason}`; each tool call gets the
/// `index` a stream would have given it.
fn choice_as_delta(choice: &Value) -> Value {
    let mut delta = Map::new();
    if let Some(message) = choice.get("message").and_then(Value::as_object) {
        for key in [
            "role",
            "content",
            "refusal",
            "reasoning_content",
            "reasoning",
        ] {
            if let Some(value) = message.get(key) {
                delta.insert(key.into(), value.clone());
            }
        }
        if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
            let calls = calls
                .iter()
                .enumerate()
                .map(|(index, call)| {
                    let mut call = call.as_object().cloned().unwrap_or_default();
                    call.insert("index".into(), json!(index));
                    Value::Object(call)
                })
                .collect();
            delta.insert("tool_calls".into(), Value::Array(calls));
        }
    }
    json!({
        "index": choice.get("index").cloned().unwrap_or(json!(0)),
        "delta": delta,
        "finish_reason": choice.get("finish_reason").cloned().unwrap_or(Value::Null),
    })
}
