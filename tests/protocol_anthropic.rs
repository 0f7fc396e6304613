//! Anthropic Messages: request body, headers and stream assembly.

use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::protocol::{
    FinishReason, Message, ModelError, ModelErrorKind, ModelReply, ModelRequest, StreamDelta,
    ToolCall, ToolSpec, Usage,
};
use tabloop::providers::anthropic::{build_request, headers, parse_error_body, REQUIRED_HEADERS};

mod protocol_support;
use protocol_support::{assemble_anthropic, events_before, fixture, named_event, parse};

const MODEL: &str = "claude-sonnet-4-5-20250929";

fn weather_call() -> ToolCall {
    ToolCall {
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".to_string(),
        name: "get_weather".to_string(),
        arguments: r#"{"city": "Zürich", "unit": "celsius"}"#.to_string(),
    }
}

fn fixture_usage() -> Usage {
    Usage {
        input_tokens: 472,
        output_tokens: 89,
        cached_input_tokens: 1536,
        cache_write_tokens: 512,
    }
}

#[test]
fn text_and_a_tool_use_with_json_fragments_assemble_into_one_reply() {
    let (deltas, reply) = assemble_anthropic(&parse(&fixture("anthropic_tool_use.sse")));
    assert_eq!(
        deltas,
        vec![
            StreamDelta::Text("I'll check".to_string()),
            StreamDelta::Text(" the forecast for Zürich".to_string()),
            StreamDelta::Text(" 🌤.".to_string()),
            StreamDelta::ToolCallStarted {
                index: 0,
                id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".to_string(),
                name: "get_weather".to_string(),
            },
        ]
    );
    assert_eq!(
        reply,
        Ok(ModelReply {
            text: "I'll check the forecast for Zürich 🌤.".to_string(),
            tool_calls: vec![weather_call()],
            finish: FinishReason::ToolUse,
            usage: fixture_usage(),
            model: MODEL.to_string(),
            reasoning: String::new(),
        })
    );
}

#[test]
fn a_thinking_block_is_streamed_live_but_kept_out_of_the_reply() {
    let (deltas, reply) = assemble_anthropic(&parse(&fixture("anthropic_thinking.sse")));
    assert_eq!(
        deltas,
        vec![
            StreamDelta::Thinking("The user wants 27 × 453.".to_string()),
            StreamDelta::Thinking(" 27 × 453 = 12231.".to_string()),
            StreamDelta::Text("27 × 453 = 12,231.".to_string()),
        ]
    );
    assert_eq!(
        reply,
        Ok(ModelReply {
            text: "27 × 453 = 12,231.".to_string(),
            tool_calls: vec![],
            finish: FinishReason::EndTurn,
            usage: Usage {
                input_tokens: 96,
                output_tokens: 61,
                cached_input_tokens: 0,
                cache_write_tokens: 0,
            },
            model: MODEL.to_string(),
            reasoning: String::new(),
        })
    );
}

#[test]
fn ping_events_change_nothing() {
    let without_pings: Vec<_> = parse(&fixture("anthropic_tool_use.sse"))
        .into_iter()
        .filter(|e| e.event != "ping")
        .collect();
    assert_eq!(
        assemble_anthropic(&without_pings),
        assemble_anthropic(&parse(&fixture("anthropic_tool_use.sse")))
    );
}

#[test]
fn an_overloaded_error_event_after_output_is_a_provider_error() {
    let mut events = events_before("anthropic_tool_use.sse", "content_block_stop");
    events.push(named_event(
        "error",
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    ));
    let (deltas, reply) = assemble_anthropic(&events);
    assert_eq!(deltas.len(), 3);
    assert_eq!(
        reply,
        Err(ModelError {
            kind: ModelErrorKind::Provider {
                error_type: "overloaded_error".to_string(),
            },
            message: "provider error overloaded_error: Overloaded".to_string(),
        })
    );
}

#[test]
fn a_stream_cut_inside_tool_json_keeps_the_text_but_not_the_cut_call() {
    let events = events_before("anthropic_tool_use.sse", "celsius");
    let partial = ModelReply {
        text: "I'll check the forecast for Zürich 🌤.".to_string(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: Usage {
            output_tokens: 3,
            ..fixture_usage()
        },
        model: MODEL.to_string(),
        reasoning: String::new(),
    };
    assert_eq!(
        assemble_anthropic(&events).1,
        Err(ModelError {
            kind: ModelErrorKind::Truncated {
                partial: Some(Box::new(partial)),
            },
            message: "stream ended without message_stop".to_string(),
        })
    );
}

#[test]
fn a_stream_cut_after_the_tool_block_closed_keeps_the_call() {
    let events = events_before("anthropic_tool_use.sse", "message_delta");
    let partial = assemble_anthropic(&events).1.map_err(|e| e.kind);
    let Err(ModelErrorKind::Truncated { partial: Some(p) }) = partial else {
        panic!("expected a truncated reply with a partial, got {partial:?}");
    };
    assert_eq!(p.tool_calls, vec![weather_call()]);
}

#[test]
fn a_stream_cut_before_any_content_has_no_partial() {
    let events = events_before("anthropic_tool_use.sse", "text_delta");
    assert_eq!(
        assemble_anthropic(&events).1.map_err(|e| e.kind),
        Err(ModelErrorKind::Truncated { partial: None })
    );
}

#[test]
fn a_tool_use_without_input_fragments_has_empty_object_arguments() {
    let events = vec![
        named_event(
            "message_start",
            r#"{"type":"message_start","message":{"model":"m","usage":{"input_tokens":5,"output_tokens":1}}}"#,
        ),
        named_event(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"list_files","input":{}}}"#,
        ),
        named_event(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        ),
        named_event(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        named_event(
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12}}"#,
        ),
        named_event("message_stop", r#"{"type":"message_stop"}"#),
    ];
    assert_eq!(
        assemble_anthropic(&events).1.map(|r| r.tool_calls),
        Ok(vec![ToolCall {
            id: "toolu_1".to_string(),
            name: "list_files".to_string(),
            arguments: "{}".to_string(),
        }])
    );
}

#[test]
fn stop_reasons_map_to_our_finish_reasons() {
    let cases = [
        ("end_turn", FinishReason::EndTurn),
        ("stop_sequence", FinishReason::EndTurn),
        ("pause_turn", FinishReason::EndTurn),
        ("tool_use", FinishReason::ToolUse),
        ("max_tokens", FinishReason::MaxTokens),
        ("refusal", FinishReason::Refusal),
    ];
    for (reason, expected) in cases {
        let delta = json!({ "type": "message_delta", "delta": { "stop_reason": reason } });
        let events = vec![
            named_event("message_delta", &delta.to_string()),
            named_event("message_stop", r#"{"type":"message_stop"}"#),
        ];
        assert_eq!(
            assemble_anthropic(&events).1.map(|r| r.finish),
            Ok(expected),
            "{reason}"
        );
    }
}

#[test]
fn a_delta_for_an_unknown_block_is_malformed() {
    let events = vec![named_event(
        "content_block_delta",
        r#"{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"x"}}"#,
    )];
    assert_eq!(
        assemble_anthropic(&events).1.map_err(|e| e.kind),
        Err(ModelErrorKind::Malformed)
    );
}

#[test]
fn headers_allow_direct_browser_access() {
    assert_eq!(
        headers("sk-ant-test"),
        vec![
            ("x-api-key".to_string(), "sk-ant-test".to_string()),
            ("anthropic-version".to_string(), "2023-06-01".to_string()),
            (
                "anthropic-dangerous-direct-browser-access".to_string(),
                "true".to_string()
            ),
            ("content-type".to_string(), "application/json".to_string()),
        ]
    );
    assert_eq!(REQUIRED_HEADERS.len(), 3);
}

#[test]
fn the_request_merges_consecutive_tool_results_into_one_user_message() {
    let request = ModelRequest {
        system: Some("Be brief.".to_string()),
        messages: vec![
            Message::User {
                text: "Weather in Paris and Oslo?".to_string(),
            },
            Message::Assistant {
                text: "Checking both.".to_string(),
                tool_calls: vec![
                    ToolCall {
                        id: "toolu_a".to_string(),
                        name: "get_weather".to_string(),
                        arguments: r#"{"city":"Paris"}"#.to_string(),
                    },
                    ToolCall {
                        id: "toolu_b".to_string(),
                        name: "get_weather".to_string(),
                        arguments: r#"{"city":"Os"#.to_string(),
                    },
                ],
            },
            Message::Tool {
                call_id: "toolu_a".to_string(),
                name: "get_weather".to_string(),
                content: "18°C, cloudy".to_string(),
                is_error: false,
            },
            Message::Tool {
                call_id: "toolu_b".to_string(),
                name: "get_weather".to_string(),
                content: "invalid JSON arguments".to_string(),
                is_error: true,
            },
            Message::User {
                text: "Also Rome, please.".to_string(),
            },
        ]
        .into(),
        tools: vec![ToolSpec {
            local_parameters: None,
            name: "get_weather".to_string(),
            description: "Current weather for a city.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": { "city": { "type": "string" } },
                "required": ["city"],
            }),
        }],
        max_output_tokens: 2048,
    };
    assert_eq!(
        build_request(&request, MODEL),
        json!({
            "model": MODEL,
            "max_tokens": 2048,
            "stream": true,
            "system": "Be brief.",
            "messages": [
                { "role": "user", "content": [{ "type": "text", "text": "Weather in Paris and Oslo?" }] },
                { "role": "assistant", "content": [
                    { "type": "text", "text": "Checking both." },
                    { "type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": { "city": "Paris" } },
                    { "type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {} },
                ] },
                { "role": "user", "content": [
                    { "type": "tool_result", "tool_use_id": "toolu_a", "content": "18°C, cloudy", "is_error": false },
                    { "type": "tool_result", "tool_use_id": "toolu_b", "content": "invalid JSON arguments", "is_error": true },
                    { "type": "text", "text": "Also Rome, please." },
                ] },
            ],
            "tools": [{
                "name": "get_weather",
                "description": "Current weather for a city.",
                "input_schema": {
                    "type": "object",
                    "properties": { "city": { "type": "string" } },
                    "required": ["city"],
                },
            }],
        })
    );
}

#[test]
fn an_anthropic_error_body_names_its_error_type() {
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}"#;
    assert_eq!(
        parse_error_body(529, body, None),
        ModelError {
            kind: ModelErrorKind::Http {
                status: 529,
                retry_after_ms: None,
                should_retry: None,
            },
            message: "HTTP 529 overloaded_error: Overloaded".to_string(),
        }
    );
}
