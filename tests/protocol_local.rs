//! The local-model protocol: prompt-described tools, the JSON Schema constraint, and lenient
//! parsing of what the model produced.

use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::protocol::{
    build_local_request, parse_local_output, FinishReason, LocalRequest, Message, ModelReply,
    ModelRequest, ToolCall, ToolSpec, Usage,
};

fn read_file() -> ToolSpec {
    ToolSpec {
        name: "read_file".to_string(),
        description: "Read a file from the workspace.".to_string(),
        parameters: json!({
            "type": "object",
            "properties": { "path": { "type": "string" } },
            "required": ["path"],
        }),
    }
}

fn write_file() -> ToolSpec {
    ToolSpec {
        name: "write_file".to_string(),
        description: "Write a file.".to_string(),
        parameters: json!({
            "type": "object",
            "properties": { "path": { "type": "string" }, "content": { "type": "string" } },
            "required": ["path", "content"],
        }),
    }
}

fn request(tools: Vec<ToolSpec>) -> ModelRequest {
    ModelRequest {
        system: Some("You are tabloop.".to_string()),
        messages: vec![
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
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c2".to_string(),
                    name: "write_file".to_string(),
                    arguments: r#"{"path":"b.txt","content":"hello"}"#.to_string(),
                }],
            },
            Message::Tool {
                call_id: "c2".to_string(),
                name: "write_file".to_string(),
                content: "disk full".to_string(),
                is_error: true,
            },
            Message::Assistant {
                text: "I could not write b.txt.".to_string(),
                tool_calls: vec![],
            },
        ],
        tools,
        max_output_tokens: 512,
    }
}

#[test]
fn the_schema_for_two_tools_is_one_of_each_call_shape_and_a_final_answer() {
    let built = build_local_request(&request(vec![read_file(), write_file()]));
    let format = built.response_format.map(|f| f.to_value());
    assert_eq!(
        format,
        Some(json!({
            "type": "json_schema",
            "json_schema": { "schema": { "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "tool": { "const": "read_file" },
                        "arguments": read_file().parameters,
                    },
                    "required": ["tool", "arguments"],
                    "additionalProperties": false,
                },
                {
                    "type": "object",
                    "properties": {
                        "tool": { "const": "write_file" },
                        "arguments": write_file().parameters,
                    },
                    "required": ["tool", "arguments"],
                    "additionalProperties": false,
                },
                {
                    "type": "object",
                    "properties": { "final": { "type": "string" } },
                    "required": ["final"],
                    "additionalProperties": false,
                },
            ] } },
        }))
    );
}

#[test]
fn the_serialised_schema_names_the_tool_before_its_arguments() {
    let built = build_local_request(&request(vec![read_file()]));
    let text = serde_json::to_string(&built).unwrap();
    let tool_at = text.find("\"tool\":{\"const\"").unwrap();
    let arguments_at = text.find("\"arguments\":{").unwrap();
    assert!(tool_at < arguments_at, "{text}");
}

#[test]
fn the_messages_describe_tools_in_the_system_prompt_and_results_as_user_text() {
    let built = build_local_request(&request(vec![read_file(), write_file()]));
    let system = "You are tabloop.\n\nYou can use these tools:\n\n\
        - read_file: Read a file from the workspace.\n  Parameters (JSON Schema): \
        {\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"],\"type\":\"object\"}\n\n\
        - write_file: Write a file.\n  Parameters (JSON Schema): \
        {\"properties\":{\"content\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"}},\"required\":[\"path\",\"content\"],\"type\":\"object\"}\n\n\
        Answer with exactly one JSON object and nothing else.\n\
        To call a tool: {\"tool\": \"<tool name>\", \"arguments\": {<arguments>}}\n\
        To give your final answer: {\"final\": \"<your answer>\"}\n\
        Call one tool at a time; its result will be sent back to you.";
    assert_eq!(
        built.messages,
        vec![
            json!({ "role": "system", "content": system }),
            json!({ "role": "user", "content": "Copy a.txt to b.txt" }),
            json!({ "role": "assistant", "content": "{\"tool\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}" }),
            json!({ "role": "user", "content": "Result of read_file (call c1):\nhello" }),
            json!({ "role": "assistant", "content": "{\"tool\":\"write_file\",\"arguments\":{\"content\":\"hello\",\"path\":\"b.txt\"}}" }),
            json!({ "role": "user", "content": "Error from write_file (call c2):\ndisk full" }),
            json!({ "role": "assistant", "content": "{\"final\":\"I could not write b.txt.\"}" }),
        ]
    );
    assert_eq!(built.max_tokens, 512);
}

#[test]
fn without_tools_the_request_is_free_text() {
    let mut req = request(vec![]);
    req.messages.truncate(1);
    req.messages.push(Message::Assistant {
        text: "Sure.".to_string(),
        tool_calls: vec![],
    });
    assert_eq!(
        build_local_request(&req),
        LocalRequest {
            messages: vec![
                json!({ "role": "system", "content": "You are tabloop." }),
                json!({ "role": "user", "content": "Copy a.txt to b.txt" }),
                json!({ "role": "assistant", "content": "Sure." }),
            ],
            response_format: None,
            max_tokens: 512,
            temperature: 0.0,
        }
    );
}

fn usage() -> Usage {
    Usage {
        input_tokens: 300,
        output_tokens: 20,
        cached_input_tokens: 0,
        cache_write_tokens: 0,
    }
}

fn reply(text: &str, tool_calls: Vec<ToolCall>, finish: FinishReason) -> ModelReply {
    ModelReply {
        text: text.to_string(),
        tool_calls,
        finish,
        usage: usage(),
        model: String::new(),
    }
}

#[test]
fn a_tool_object_becomes_one_tool_call() {
    let output = r#"{"tool": "read_file", "arguments": {"path": "notes/a.md"}}"#;
    assert_eq!(
        parse_local_output(output, true, usage(), "local-1".to_string()),
        reply(
            "",
            vec![ToolCall {
                id: "local-1".to_string(),
                name: "read_file".to_string(),
                arguments: r#"{"path":"notes/a.md"}"#.to_string(),
            }],
            FinishReason::ToolUse,
        )
    );
}

#[test]
fn a_final_object_becomes_the_answer_text() {
    assert_eq!(
        parse_local_output(
            r#" {"final": "Done: b.txt written."} "#,
            true,
            usage(),
            "x".to_string()
        ),
        reply("Done: b.txt written.", vec![], FinishReason::EndTurn)
    );
}

#[test]
fn prose_or_a_wrong_shape_is_a_malformed_reply_never_a_final_answer() {
    for output in [
        "Sure! The file says hello.",
        r#"{"answer": "42"}"#,
        r#"{"final": "x", "tool": 3}"#,
        r#"{"tool": "read_file", "arguments": {}, "final": "both"}"#,
        "[1, 2]",
        "42",
    ] {
        assert_eq!(
            parse_local_output(output, true, usage(), "x".to_string()),
            reply(output, vec![], FinishReason::Malformed),
            "{output}"
        );
    }
}

#[test]
fn a_call_with_arguments_that_are_not_an_object_keeps_them_for_the_schema_check() {
    let output = r#"{"tool": "read_file", "arguments": "a.txt"}"#;
    let call = |arguments: &str| ToolCall {
        id: "x".to_string(),
        name: "read_file".to_string(),
        arguments: arguments.to_string(),
    };
    assert_eq!(
        parse_local_output(output, true, usage(), "x".to_string()),
        reply("", vec![call(r#""a.txt""#)], FinishReason::ToolUse)
    );
    assert_eq!(
        parse_local_output(r#"{"tool": "read_file"}"#, true, usage(), "x".to_string()),
        reply("", vec![call("null")], FinishReason::ToolUse)
    );
}

#[test]
fn cut_json_is_the_raw_text_with_max_tokens() {
    let output = r#"{"tool": "write_file", "arguments": {"path": "b.txt", "content": "hel"#;
    assert_eq!(
        parse_local_output(output, true, usage(), "x".to_string()),
        reply(output, vec![], FinishReason::MaxTokens)
    );
}

#[test]
fn without_tools_even_json_is_plain_text() {
    let output = r#"{"final": "hi"}"#;
    assert_eq!(
        parse_local_output(output, false, usage(), "x".to_string()),
        reply(output, vec![], FinishReason::EndTurn)
    );
}

#[test]
fn a_call_wrapped_in_a_code_fence_is_still_understood() {
    let output = "```json\n{\"final\": \"ok\"}\n```";
    assert_eq!(
        parse_local_output(output, true, usage(), "x".to_string()),
        reply("ok", vec![], FinishReason::EndTurn)
    );
}
