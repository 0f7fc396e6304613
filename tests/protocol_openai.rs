//! OpenAI-compatible Chat Completions: request body, stream assembly and error bodies.

use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::protocol::{
    FinishReason, Message, ModelError, ModelErrorKind, ModelReply, ModelRequest, StreamDelta,
    ToolCall, ToolSpec, Usage,
};
use tabloop::providers::openai::{build_request, headers, parse_error_body};

mod protocol_support;
use protocol_support::{assemble_openai, data_event, events_before, fixture, parse};

const MODEL: &str = "gpt-4o-mini-2024-07-18";

fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "model": MODEL,
        "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
    })
    .to_string()
}

#[test]
fn a_text_stream_assembles_text_usage_and_stop() {
    let (deltas, reply) = assemble_openai(&parse(&fixture("openai_text.sse")));
    let words = ["The", " café", " opens", " at", " 8", " a.m.", " ☕"];
    assert_eq!(
        deltas,
        words
            .iter()
            .map(|w| StreamDelta::Text(w.to_string()))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        reply,
        Ok(ModelReply {
            text: "The café opens at 8 a.m. ☕".to_string(),
            tool_calls: vec![],
            finish: FinishReason::EndTurn,
            usage: Usage {
                input_tokens: 210,
                output_tokens: 17,
                cached_input_tokens: 1024,
                cache_write_tokens: 0,
            },
            model: MODEL.to_string(),
            reasoning: String::new(),
        })
    );
}

#[test]
fn two_parallel_tool_calls_interleaved_by_index_are_reassembled() {
    let (deltas, reply) = assemble_openai(&parse(&fixture("openai_tool_calls.sse")));
    assert_eq!(
        deltas,
        vec![
            StreamDelta::ToolCallStarted {
                index: 0,
                id: "call_Qx7bN2mVt4".to_string(),
                name: "read_file".to_string(),
            },
            StreamDelta::ToolCallStarted {
                index: 1,
                id: "call_R8kLp3sWz9".to_string(),
                name: "search".to_string(),
            },
        ]
    );
    assert_eq!(
        reply,
        Ok(ModelReply {
            text: String::new(),
            tool_calls: vec![
                ToolCall {
                    id: "call_Qx7bN2mVt4".to_string(),
                    name: "read_file".to_string(),
                    arguments: r#"{"path": "notes/café.md"}"#.to_string(),
                },
                ToolCall {
                    id: "call_R8kLp3sWz9".to_string(),
                    name: "search".to_string(),
                    arguments: r#"{"query": "naïve 🌤 forecast", "limit": 5}"#.to_string(),
                },
            ],
            finish: FinishReason::ToolUse,
            usage: Usage {
                input_tokens: 812,
                output_tokens: 64,
                cached_input_tokens: 0,
                cache_write_tokens: 0,
            },
            model: MODEL.to_string(),
            reasoning: String::new(),
        })
    );
}

#[test]
fn usage_splits_cached_prompt_tokens_out_of_input_tokens() {
    let usage = json!({
        "choices": [],
        "usage": {
            "prompt_tokens": 5000, "completion_tokens": 300, "total_tokens": 5300,
            "prompt_tokens_details": { "cached_tokens": 4096 },
        },
    });
    let events = vec![
        data_event(&chunk(json!({ "content": "ok" }), Some("stop"))),
        data_event(&usage.to_string()),
        data_event("[DONE]"),
    ];
    let (_, reply) = assemble_openai(&events);
    assert_eq!(
        reply.map(|r| r.usage),
        Ok(Usage {
            input_tokens: 904,
            output_tokens: 300,
            cached_input_tokens: 4096,
            cache_write_tokens: 0,
        })
    );
}

#[test]
fn finish_reasons_map_to_our_finish_reasons() {
    let cases = [
        ("stop", FinishReason::EndTurn),
        ("tool_calls", FinishReason::ToolUse),
        ("function_call", FinishReason::ToolUse),
        ("length", FinishReason::MaxTokens),
        ("content_filter", FinishReason::Refusal),
    ];
    for (name, expected) in cases {
        let events = vec![
            data_event(&chunk(json!({ "content": "x" }), Some(name))),
            data_event("[DONE]"),
        ];
        assert_eq!(
            assemble_openai(&events).1.map(|r| r.finish),
            Ok(expected),
            "{name}"
        );
    }
}

#[test]
fn finish_reason_length_keeps_the_text_and_reports_max_tokens() {
    let events = vec![
        data_event(&chunk(json!({ "content": "Once upon a" }), None)),
        data_event(&chunk(json!({}), Some("length"))),
        data_event("[DONE]"),
    ];
    let (_, reply) = assemble_openai(&events);
    assert_eq!(
        reply,
        Ok(ModelReply {
            text: "Once upon a".to_string(),
            tool_calls: vec![],
            finish: FinishReason::MaxTokens,
            usage: Usage::default(),
            model: MODEL.to_string(),
            reasoning: String::new(),
        })
    );
}

#[test]
fn a_stream_cut_before_any_output_is_truncated_without_partial() {
    let events = events_before("openai_text.sse", "\"The\"");
    let (_, reply) = assemble_openai(&events);
    assert_eq!(
        reply,
        Err(ModelError {
            kind: ModelErrorKind::Truncated { partial: None },
            message: "stream ended without [DONE]".to_string(),
        })
    );
}

#[test]
fn a_stream_cut_after_output_is_truncated_with_the_partial_reply() {
    let events = events_before("openai_text.sse", "\" a.m.\"");
    let (_, reply) = assemble_openai(&events);
    let partial = ModelReply {
        text: "The café opens at 8".to_string(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: Usage::default(),
        model: MODEL.to_string(),
        reasoning: String::new(),
    };
    assert_eq!(
        reply,
        Err(ModelError {
            kind: ModelErrorKind::Truncated {
                partial: Some(Box::new(partial)),
            },
            message: "stream ended without [DONE]".to_string(),
        })
    );
}

#[test]
fn a_cut_tool_call_is_left_out_of_the_partial_but_a_complete_one_is_kept() {
    let events = events_before("openai_tool_calls.sse", "\\\"limit\\\": 5}");
    let (_, reply) = assemble_openai(&events);
    let partial = ModelReply {
        text: String::new(),
        tool_calls: vec![ToolCall {
            id: "call_Qx7bN2mVt4".to_string(),
            name: "read_file".to_string(),
            arguments: r#"{"path": "notes/café.md"}"#.to_string(),
        }],
        finish: FinishReason::EndTurn,
        usage: Usage::default(),
        model: MODEL.to_string(),
        reasoning: String::new(),
    };
    assert_eq!(
        reply,
        Err(ModelError {
            kind: ModelErrorKind::Truncated {
                partial: Some(Box::new(partial)),
            },
            message: "stream ended without [DONE]".to_string(),
        })
    );
}

#[test]
fn a_finish_reason_without_done_still_completes_the_reply() {
    let events = vec![data_event(&chunk(json!({ "content": "hi" }), Some("stop")))];
    assert_eq!(
        assemble_openai(&events).1.map(|r| r.text),
        Ok("hi".to_string())
    );
}

#[test]
fn an_error_object_in_the_stream_is_a_provider_error() {
    let events = vec![
        data_event(&chunk(json!({ "content": "Hel" }), None)),
        data_event(
            r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#,
        ),
    ];
    let (deltas, reply) = assemble_openai(&events);
    assert_eq!(deltas, vec![StreamDelta::Text("Hel".to_string())]);
    assert_eq!(
        reply,
        Err(ModelError {
            kind: ModelErrorKind::Provider {
                error_type: "server_error".to_string(),
            },
            message:
                "provider error server_error: The server had an error while processing your request."
                    .to_string(),
        })
    );
}

#[test]
fn invalid_json_in_a_data_line_is_malformed_not_a_panic() {
    let (_, reply) = assemble_openai(&[data_event("{\"choices\": [")]);
    assert_eq!(reply.map_err(|e| e.kind), Err(ModelErrorKind::Malformed));
}

#[test]
fn events_after_done_are_ignored() {
    let events = vec![
        data_event(&chunk(json!({ "content": "a" }), Some("stop"))),
        data_event("[DONE]"),
        data_event("not json at all"),
    ];
    assert_eq!(
        assemble_openai(&events).1.map(|r| r.text),
        Ok("a".to_string())
    );
}

#[test]
fn reasoning_content_is_streamed_as_thinking_but_not_kept() {
    let events = vec![
        data_event(&chunk(
            json!({ "reasoning_content": "Let me think." }),
            None,
        )),
        data_event(&chunk(json!({ "content": "42" }), Some("stop"))),
        data_event("[DONE]"),
    ];
    let (deltas, reply) = assemble_openai(&events);
    assert_eq!(
        deltas,
        vec![
            StreamDelta::Thinking("Let me think.".to_string()),
            StreamDelta::Text("42".to_string())
        ]
    );
    assert_eq!(reply.map(|r| r.text), Ok("42".to_string()));
}

fn sample_request() -> ModelRequest {
    ModelRequest {
        system: Some("You are a careful assistant.".to_string()),
        messages: vec![
            Message::User {
                text: "What is in notes/todo.md?".to_string(),
            },
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".to_string(),
                    name: "read_file".to_string(),
                    arguments: r#"{"path":"notes/todo.md"}"#.to_string(),
                }],
            },
            Message::Tool {
                call_id: "call_1".to_string(),
                name: "read_file".to_string(),
                content: "- buy milk".to_string(),
                is_error: false,
            },
            Message::Assistant {
                text: "It says: buy milk.".to_string(),
                tool_calls: vec![],
            },
        ]
        .into(),
        tools: vec![ToolSpec {
            local_parameters: None,
            name: "read_file".to_string(),
            description: "Read a file from the workspace.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": { "path": { "type": "string" } },
                "required": ["path"],
            }),
        }],
        max_output_tokens: 1024,
    }
}

#[test]
fn the_request_body_carries_system_tools_calls_and_results() {
    assert_eq!(
        build_request(&sample_request(), "gpt-4o-mini"),
        json!({
            "model": "gpt-4o-mini",
            "stream": true,
            "stream_options": { "include_usage": true },
            "max_completion_tokens": 1024,
            "messages": [
                { "role": "system", "content": "You are a careful assistant." },
                { "role": "user", "content": "What is in notes/todo.md?" },
                {
                    "role": "assistant",
                    "content": null,
                    "tool_calls": [{
                        "id": "call_1",
                        "type": "function",
                        "function": { "name": "read_file", "arguments": "{\"path\":\"notes/todo.md\"}" },
                    }],
                },
                { "role": "tool", "tool_call_id": "call_1", "content": "- buy milk" },
                { "role": "assistant", "content": "It says: buy milk." },
            ],
            "tools": [{
                "type": "function",
                "function": {
                    "name": "read_file",
                    "description": "Read a file from the workspace.",
                    "parameters": {
                        "type": "object",
                        "properties": { "path": { "type": "string" } },
                        "required": ["path"],
                    },
                },
            }],
        })
    );
}

#[test]
fn a_request_without_tools_omits_the_tools_field_and_marks_failed_results() {
    let request = ModelRequest {
        system: None,
        messages: vec![Message::Tool {
            call_id: "c9".to_string(),
            name: "fetch".to_string(),
            content: "timeout".to_string(),
            is_error: true,
        }]
        .into(),
        tools: vec![],
        max_output_tokens: 256,
    };
    assert_eq!(
        build_request(&request, "m"),
        json!({
            "model": "m",
            "stream": true,
            "stream_options": { "include_usage": true },
            "max_completion_tokens": 256,
            "messages": [{ "role": "tool", "tool_call_id": "c9", "content": "Error: timeout" }],
        })
    );
}

#[test]
fn headers_carry_the_bearer_key() {
    assert_eq!(
        headers("sk-test"),
        vec![
            ("authorization".to_string(), "Bearer sk-test".to_string()),
            ("content-type".to_string(), "application/json".to_string()),
        ]
    );
}

#[test]
fn an_error_body_becomes_an_http_error_with_the_key_redacted() {
    let body = r#"{"error":{"message":"Incorrect API key provided: sk-proj-abc1*********************xyz9. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
    assert_eq!(
        parse_error_body(401, body, None),
        ModelError {
            kind: ModelErrorKind::Http {
                status: 401,
                retry_after_ms: None,
                should_retry: None,
            },
            message: "HTTP 401 invalid_request_error: Incorrect API key provided: sk-[redacted] You can find your API key at https://platform.openai.com/account/api-keys.".to_string(),
        }
    );
}

#[test]
fn a_non_json_error_body_is_quoted_briefly_with_the_retry_after_kept() {
    let body = format!(
        "<html>\n<body>502 Bad Gateway</body>\n</html>{}",
        "x".repeat(400)
    );
    let error = parse_error_body(502, &body, Some(1500));
    assert_eq!(
        error.kind,
        ModelErrorKind::Http {
            status: 502,
            retry_after_ms: Some(1500),
            should_retry: None,
        }
    );
    assert_eq!(error.message.chars().count(), "HTTP 502: ".len() + 301);
    assert!(error
        .message
        .starts_with("HTTP 502: <html> <body>502 Bad Gateway</body> </html>xxx"));
}

#[test]
fn an_empty_error_body_gives_just_the_status() {
    assert_eq!(parse_error_body(503, "", None).message, "HTTP 503");
}
