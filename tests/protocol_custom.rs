//! The custom provider's Chat Completions shapes: the request a page's `complete` receives, and
//! replies given as one `ChatCompletion` or as `ChatCompletionChunk`s, both assembled by the one
//! Chat Completions parser.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use tabloop::protocol::{
    FinishReason, Message, ModelErrorKind, ModelReply, ModelRequest, StreamDelta, ToolCall,
    ToolSpec, Usage,
};
use tabloop::providers::{custom_request, CompletionAssembler};

fn request() -> ModelRequest {
    ModelRequest {
        system: Some("be brief".into()),
        messages: vec![Message::User { text: "hi".into() }].into(),
        tools: vec![ToolSpec {
            local_parameters: None,
            name: "vfs".into(),
            description: "files".into(),
            parameters: json!({"type": "object"}),
        }],
        max_output_tokens: 77,
    }
}

fn assemble_chunks(chunks: &[Value]) -> (Vec<StreamDelta>, Result<ModelReply, ModelErrorKind>) {
    let mut assembler = CompletionAssembler::default();
    let mut deltas = Vec::new();
    for chunk in chunks {
        match assembler.push_chunk(chunk) {
            Ok(more) => deltas.extend(more),
            Err(e) => return (deltas, Err(e.kind)),
        }
    }
    (
        deltas,
        assembler.finish(!chunks.is_empty()).map_err(|e| e.kind),
    )
}

#[test]
fn the_request_is_chat_completions_with_max_tokens_and_tool_choice() {
    let body = custom_request(&request(), "my-model");
    assert_eq!(body["model"], "my-model");
    assert_eq!(body["max_tokens"], 77);
    assert_eq!(body.get("max_completion_tokens"), None);
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(body["stream"], true);
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    );
    assert_eq!(body["tools"][0]["function"]["name"], "vfs");
}

#[test]
fn a_request_without_tools_has_no_tool_choice() {
    let mut req = request();
    req.tools.clear();
    let body = custom_request(&req, "m");
    assert_eq!(body.get("tool_choice"), None);
    assert_eq!(body.get("tools"), None);
}

#[test]
fn a_whole_completion_with_tool_calls_becomes_the_same_reply_as_its_stream() {
    let completion = json!({
        "id": "c1", "object": "chat.completion", "model": "webllm-x",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "vfs", "arguments": "{\"op\":\"list\"}"}},
                {"id": "b", "type": "function", "function": {"name": "todo", "arguments": "{}"}}
            ]}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 2}}
    });
    let mut assembler = CompletionAssembler::default();
    let deltas = assembler.push_completion(&completion).unwrap();
    assert_eq!(
        deltas,
        vec![
            StreamDelta::ToolCallStarted {
                index: 0,
                id: "a".into(),
                name: "vfs".into()
            },
            StreamDelta::ToolCallStarted {
                index: 1,
                id: "b".into(),
                name: "todo".into()
            },
        ]
    );
    assert_eq!(
        assembler.finish(true).unwrap(),
        ModelReply {
            text: String::new(),
            tool_calls: vec![
                ToolCall {
                    id: "a".into(),
                    name: "vfs".into(),
                    arguments: "{\"op\":\"list\"}".into()
                },
                ToolCall {
                    id: "b".into(),
                    name: "todo".into(),
                    arguments: "{}".into()
                },
            ],
            finish: FinishReason::ToolUse,
            usage: Usage {
                input_tokens: 10,
                output_tokens: 5,
                cached_input_tokens: 2,
                cache_write_tokens: 0
            },
            model: "webllm-x".into(),
            reasoning: String::new(),
        }
    );
}

#[test]
fn chunks_stream_text_and_an_ended_iterable_counts_as_done() {
    let chunks = [
        json!({"model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": null}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}),
    ];
    let (deltas, reply) = assemble_chunks(&chunks);
    assert_eq!(
        deltas,
        vec![
            StreamDelta::Text("Hel".into()),
            StreamDelta::Text("lo".into())
        ]
    );
    let reply = reply.unwrap();
    assert_eq!(reply.text, "Hello");
    assert_eq!(reply.finish, FinishReason::EndTurn);
    assert_eq!(reply.usage.output_tokens, 2);
}

#[test]
fn a_finish_reason_length_is_the_output_limit() {
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"content": "cut"}, "finish_reason": "length"}]}),
    ];
    assert_eq!(
        assemble_chunks(&chunks).1.unwrap().finish,
        FinishReason::MaxTokens
    );
}

#[test]
fn malformed_replies_are_malformed_errors() {
    let cases = [
        json!("just text"),
        json!({"object": "chat.completion"}),
        json!([1, 2]),
    ];
    for case in cases {
        let mut assembler = CompletionAssembler::default();
        let kind = assembler.push_completion(&case).unwrap_err().kind;
        assert_eq!(kind, ModelErrorKind::Malformed, "{case}");
    }
    assert_eq!(
        assemble_chunks(&[json!(42)]).1.unwrap_err(),
        ModelErrorKind::Malformed
    );
    assert_eq!(
        assemble_chunks(&[]).1.unwrap_err(),
        ModelErrorKind::Malformed
    );
}

#[test]
fn an_error_object_is_a_provider_error() {
    let mut assembler = CompletionAssembler::default();
    let error = assembler
        .push_completion(&json!({"error": {"type": "overloaded_error", "message": "busy"}}))
        .unwrap_err();
    assert_eq!(
        error.kind,
        ModelErrorKind::Provider {
            error_type: "overloaded_error".into()
        }
    );
    assert!(error.message.contains("busy"));
}

#[test]
fn chunks_given_as_text_assemble_the_same_reply_as_chunks_given_as_values() {
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "line one\nchunk:two"}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "a", "type": "function", "function": {"name": "vfs", "arguments": "{\"op\":\"list\"}"}}]}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}),
    ];
    let mut from_text = CompletionAssembler::default();
    let mut deltas = Vec::new();
    for chunk in &chunks {
        deltas.extend(from_text.push_chunk_text(&chunk.to_string()).unwrap());
    }
    let (value_deltas, value_reply) = assemble_chunks(&chunks);
    assert_eq!(deltas, value_deltas);
    assert_eq!(from_text.finish(true).unwrap(), value_reply.unwrap());
}

#[test]
fn chunk_text_that_is_not_an_object_is_malformed() {
    for text in ["42", "null", "\"text\"", "[1]", "{not json", " "] {
        let mut assembler = CompletionAssembler::default();
        let error = assembler.push_chunk_text(text).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Malformed, "{text}");
    }
}
