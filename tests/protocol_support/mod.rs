//! Helpers shared by the `protocol_*` test crates: fixture loading and whole-stream runs.
#![cfg(test)]
#![allow(dead_code)]

use tabloop::protocol::{ModelError, ModelReply, StreamDelta};
use tabloop::providers::{AnthropicStream, OpenAiStream, SseEvent, SseParser};

/// The bytes of `tests/fixtures/sse/<name>`.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/sse/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Parses the chunks in order, then finishes; returns the events and `ended_mid_event`.
pub fn parse_chunks(chunks: &[&[u8]]) -> (Vec<SseEvent>, bool) {
    let mut parser = SseParser::default();
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.push(chunk));
    }
    events.extend(parser.finish());
    (events, parser.ended_mid_event())
}

/// Parses a whole stream delivered as one chunk.
pub fn parse(bytes: &[u8]) -> Vec<SseEvent> {
    parse_chunks(&[bytes]).0
}

/// Runs events through an OpenAI assembler; stops at the first error.
pub fn assemble_openai(events: &[SseEvent]) -> (Vec<StreamDelta>, Result<ModelReply, ModelError>) {
    let mut stream = OpenAiStream::default();
    let mut deltas = Vec::new();
    for event in events {
        match stream.push(event) {
            Ok(more) => deltas.extend(more),
            Err(error) => return (deltas, Err(error)),
        }
    }
    (deltas, stream.finish())
}

/// Runs events through an Anthropic assembler; stops at the first error.
pub fn assemble_anthropic(
    events: &[SseEvent],
) -> (Vec<StreamDelta>, Result<ModelReply, ModelError>) {
    let mut stream = AnthropicStream::default();
    let mut deltas = Vec::new();
    for event in events {
        match stream.push(event) {
            Ok(more) => deltas.extend(more),
            Err(error) => return (deltas, Err(error)),
        }
    }
    (deltas, stream.finish())
}

/// An SSE event of the default type.
pub fn data_event(data: &str) -> SseEvent {
    SseEvent {
        event: "message".to_string(),
        data: data.to_string(),
        id: None,
    }
}

/// An SSE event of a named type.
pub fn named_event(event: &str, data: &str) -> SseEvent {
    SseEvent {
        event: event.to_string(),
        data: data.to_string(),
        id: None,
    }
}

/// The fixture's events up to (not including) the first event whose data contains `marker`.
pub fn events_before(name: &str, marker: &str) -> Vec<SseEvent> {
    parse(&fixture(name))
        .into_iter()
        .take_while(|e| !e.data.contains(marker))
        .collect()
}

/// The five default tools as the playground offers them: the host tools' specs (as the JS
/// registry gives them; fixture copied from www/tools) plus the core's todo and finish.
pub fn default_tools() -> Vec<tabloop::protocol::ToolSpec> {
    let host: Vec<tabloop::protocol::ToolSpec> =
        serde_json::from_str(include_str!("../fixtures/default_host_tools.json"))
            .unwrap_or_default();
    host.into_iter()
        .chain([
            tabloop::core::todo_tool().spec,
            tabloop::core::finish_tool().spec,
        ])
        .collect()
}

/// The `write_file(path, content)` tool the local-model tests offer.
pub fn write_file() -> tabloop::protocol::ToolSpec {
    tabloop::protocol::ToolSpec {
        local_parameters: None,
        name: "write_file".to_string(),
        description: "Write a file.".to_string(),
        parameters: serde_json::json!({
            "type": "object",
            "properties": { "path": { "type": "string" }, "content": { "type": "string" } },
            "required": ["path", "content"],
        }),
    }
}

/// "Copy a.txt to b.txt", the model's read of a.txt and its result: the conversation the
/// local-model tests build their second step on.
pub fn copy_task_after_its_read() -> Vec<tabloop::protocol::Message> {
    use tabloop::protocol::{Message, ToolCall};
    vec![
        Message::User {
            text: "Copy a.txt to b.txt".to_string(),
        },
        Message::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: "c1".to_string(),
                name: "read_file".to_string(),
                arguments: r#"{"path":"a.txt"}"#.to_string(),
            }],
        },
        Message::Tool {
            call_id: "c1".to_string(),
            name: "read_file".to_string(),
            content: "hello".to_string(),
            is_error: false,
        },
    ]
}
