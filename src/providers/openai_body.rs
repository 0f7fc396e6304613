//! [`request_body`]: the Chat Completions request as JSON text, written by serde from borrowed
//! views of the [`ModelRequest`] ([`ChatMessage`], [`ChatTool`]) without building a
//! `serde_json::Value` tree first. The body carries the whole transcript every step, so this is
//! the part of a step's cost that grows with history: a [`BodyCache`] keeps the transcript's
//! text between requests, so a step writes only the messages it added.
//! [`build_request`](super::openai::build_request) stays the readable definition of the same
//! object, and the tests hold the two equal. Members are declared in the order a `Value` map
//! writes them (sorted), so the text is the tree's byte for byte.

use std::borrow::Cow;

use serde::Serialize;

use crate::protocol::message::{Message, ToolCall, ToolSpec};
use crate::protocol::model::ModelRequest;

/// The messages array of the last body written, kept for the next one: a run's requests are
/// one lineage of transcripts that grow by a few messages a step, and writing the whole history
/// again every step cost time in proportion to it.
#[derive(Debug, Default)]
pub struct BodyCache {
    /// The system prompt the text opens with.
    system: Option<String>,
    /// The lineage of the transcript written (0: none, no list has it).
    lineage: u64,
    /// How many of its messages are written.
    written: usize,
    /// The array's elements as JSON, comma-separated, without the brackets.
    text: String,
}

/// One message of the request, as `message_json` shapes it.
#[derive(Serialize)]
struct ChatMessage<'a> {
    /// The text; null for a reply that only calls tools. A failed tool result is prefixed
    /// with `Error: `.
    content: Option<Cow<'a, str>>,
    role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tool_calls: Vec<ChatCall<'a>>,
}

/// A tool call of an assistant message.
#[derive(Serialize)]
struct ChatCall<'a> {
    function: ChatFunction<'a>,
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A call's function: its name and argument text.
#[derive(Serialize)]
struct ChatFunction<'a> {
    arguments: &'a str,
    name: &'a str,
}

/// A tool offered to the model.
#[derive(Serialize)]
struct ChatTool<'a> {
    function: ChatToolFunction<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A tool's name, description and JSON Schema.
#[derive(Serialize)]
struct ChatToolFunction<'a> {
    description: &'a str,
    name: &'a str,
    parameters: &'a serde_json::Value,
}

impl<'a> ChatMessage<'a> {
    fn new(role: &'static str, content: Option<Cow<'a, str>>) -> Self {
        ChatMessage {
            content,
            role,
            tool_call_id: None,
            tool_calls: Vec::new(),
        }
    }

    fn of(message: &'a Message) -> Self {
        match message {
            Message::User { text } => Self::new("user", Some(text.as_str().into())),
            Message::Assistant { text, tool_calls } => ChatMessage {
                tool_calls: tool_calls.iter().map(ChatCall::of).collect(),
                ..Self::new(
                    "assistant",
                    (!text.is_empty() || tool_calls.is_empty()).then(|| text.as_str().into()),
                )
            },
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } => ChatMessage {
                tool_call_id: Some(call_id),
                ..Self::new(
                    "tool",
                    Some(if *is_error {
                        format!("Error: {content}").into()
                    } else {
                        content.as_str().into()
                    }),
                )
            },
        }
    }
}

impl<'a> ChatCall<'a> {
    fn of(call: &'a ToolCall) -> Self {
        ChatCall {
            function: ChatFunction {
                arguments: &call.arguments,
                name: &call.name,
            },
            id: &call.id,
            kind: "function",
        }
    }
}

impl<'a> ChatTool<'a> {
    fn of(tool: &'a ToolSpec) -> Self {
        ChatTool {
            function: ChatToolFunction {
                description: &tool.description,
                name: &tool.name,
                parameters: &tool.parameters,
            },
            kind: "function",
        }
    }
}

/// Appends `value` as JSON text (these borrowed views always serialise).
fn append<T: Serialize + ?Sized>(value: &T, out: &mut String) {
    if let Ok(text) = serde_json::to_string(value) {
        out.push_str(&text);
    }
}

/// The streaming request body for `req` and `model` as UTF-8 JSON, as `build_request(req, model)`
/// would serialise it, writing only the messages `cache` does not hold yet: all of them when
/// `req` is not the transcript `cache` last saw grown at its end (another lineage, a compacted
/// transcript, another system prompt).
pub fn request_body(req: &ModelRequest, model: &str, cache: &mut BodyCache) -> Vec<u8> {
    if !req.messages.extends(cache.lineage, cache.written) || cache.system != req.system {
        cache.text.clear();
        cache.written = 0;
        cache.system = req.system.clone();
        if let Some(system) = &req.system {
            append(
                &ChatMessage::new("system", Some(system.as_str().into())),
                &mut cache.text,
            );
        }
    }
    for message in &req.messages[cache.written..] {
        if !cache.text.is_empty() {
            cache.text.push(',');
        }
        append(&ChatMessage::of(message), &mut cache.text);
    }
    cache.lineage = req.messages.lineage();
    cache.written = req.messages.len();
    // The object around the cached array, its members in sorted order, each value by serde.
    let mut out = String::with_capacity(cache.text.len() + 512);
    out.push_str("{\"max_completion_tokens\":");
    out.push_str(&req.max_output_tokens.to_string());
    out.push_str(",\"messages\":[");
    out.push_str(&cache.text);
    out.push_str("],\"model\":");
    append(&model, &mut out);
    out.push_str(",\"stream\":true,\"stream_options\":{\"include_usage\":true}");
    if !req.tools.is_empty() {
        out.push_str(",\"tools\":");
        let tools: Vec<ChatTool<'_>> = req.tools.iter().map(ChatTool::of).collect();
        append(&tools, &mut out);
    }
    out.push('}');
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::RequestMessages;
    use crate::providers::openai::build_request;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn request(system: Option<&str>, tools: Vec<ToolSpec>) -> ModelRequest {
        ModelRequest {
            system: system.map(str::to_string),
            messages: vec![
                Message::User {
                    text: "say \"hi\"\n".into(),
                },
                Message::Assistant {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "vfs".into(),
                        arguments: r#"{"op":"ls"}"#.into(),
                    }],
                },
                Message::Tool {
                    call_id: "c1".into(),
                    name: "vfs".into(),
                    content: "not found: /x".into(),
                    is_error: true,
                },
                Message::Tool {
                    call_id: "c2".into(),
                    name: "vfs".into(),
                    content: "ok ✓".into(),
                    is_error: false,
                },
                Message::Assistant {
                    text: "done".into(),
                    tool_calls: Vec::new(),
                },
                Message::Assistant {
                    text: "and one more".into(),
                    tool_calls: vec![ToolCall {
                        id: "c3".into(),
                        name: "noop".into(),
                        arguments: "{}".into(),
                    }],
                },
            ]
            .into(),
            tools,
            max_output_tokens: 4096,
        }
    }

    fn vfs() -> ToolSpec {
        ToolSpec {
            name: "vfs".into(),
            description: "files".into(),
            parameters: json!({ "type": "object", "properties": { "op": { "type": "string" } } }),
            local_parameters: None,
        }
    }

    #[test]
    fn a_cached_body_is_the_whole_body_as_the_transcript_grows_and_changes() {
        let mut cache = BodyCache::default();
        let full = request(Some("be brief"), vec![vfs()]);
        let list: Vec<Message> = full.messages.to_vec();
        let lineage = crate::protocol::request_messages::new_lineage();
        let grown = |n: usize, system: Option<&str>, lineage: u64| ModelRequest {
            system: system.map(str::to_string),
            messages: RequestMessages::shared(std::rc::Rc::new(list[..n].to_vec()), lineage),
            tools: vec![vfs()],
            max_output_tokens: 4096,
        };
        // Growing one lineage, asked twice at one length; another lineage shorter than the
        // text held (a compacted transcript), growing; then the system prompt gone.
        let other = crate::protocol::request_messages::new_lineage();
        let requests = [
            grown(1, Some("be brief"), lineage),
            grown(3, Some("be brief"), lineage),
            grown(3, Some("be brief"), lineage),
            grown(6, Some("be brief"), lineage),
            grown(2, Some("be brief"), other),
            grown(4, Some("be brief"), other),
            grown(5, None, other),
        ];
        for req in &requests {
            let cached = request_body(req, "gpt-4o-mini", &mut cache);
            assert_eq!(
                String::from_utf8(cached).unwrap(),
                build_request(req, "gpt-4o-mini").to_string()
            );
        }
    }

    #[test]
    fn the_body_is_the_request_object_as_text_byte_for_byte() {
        for req in [
            request(Some("be brief"), vec![vfs()]),
            request(None, vec![vfs(), vfs()]),
            request(None, Vec::new()),
        ] {
            assert_eq!(
                String::from_utf8(request_body(&req, "gpt-4o-mini", &mut BodyCache::default()))
                    .unwrap(),
                build_request(&req, "gpt-4o-mini").to_string()
            );
        }
    }
}
