//! The local-model protocol: prompt-described tools, the grammar constraint, and lenient
//! parsing of what the model produced.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod protocol_support;

use pretty_assertions::assert_eq;
use protocol_support::{copy_task_after_its_read, default_tools, write_file};
use serde_json::json;
use tabloop::protocol::{
    FinishReason, Message, ModelReply, ModelRequest, ToolCall, ToolSpec, Usage,
};
use tabloop::providers::local::NEXT_STEP_HINT;
use tabloop::providers::{
    build_local_request, parse_local_output, LocalRequest, LOCAL_TOOL_REPLY_MAX_TOKENS,
};

fn read_file() -> ToolSpec {
    ToolSpec {
        local_parameters: None,
        name: "read_file".to_string(),
        description: "Read a file from the workspace.".to_string(),
        parameters: json!({
            "type": "object",
            "properties": { "path": { "type": "string" } },
            "required": ["path"],
        }),
    }
}

fn request(tools: Vec<ToolSpec>) -> ModelRequest {
    ModelRequest {
        system: Some("You are tabloop.".to_string()),
        messages: copy_task_after_its_read()
            .into_iter()
            .chain([
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
            ])
            .collect::<Vec<_>>()
            .into(),
        tools,
        max_output_tokens: 512,
    }
}

#[test]
fn the_grammar_for_two_tools_is_each_call_shape_and_a_final_answer_without_whitespace() {
    // The grammar admits what follows the turn's start the request writes for the model.
    let built = build_local_request(&request(vec![read_file(), write_file()]));
    let grammar = built.grammar.unwrap();
    let (own, base) = grammar.split_at(grammar.find("string ::=").unwrap());
    assert_eq!(
        own,
        concat!(
            "root ::= call0 | call1 | final\n",
            // An answer ends at its text's opening quote: the text is written as plain text.
            "final ::= \"answer\\\",\\\"arguments\\\":{\\\"text\\\":\\\"\"\n",
            "r0 ::= \"{\" \"\\\"path\\\":\" string \"}\"\n",
            "call0 ::= \"read_file\\\",\\\"arguments\\\":\" r0 \"}\"\n",
            "r1 ::= \"{\" \"\\\"path\\\":\" string \",\" \"\\\"content\\\":\" string \"}\"\n",
            "call1 ::= \"write_file\\\",\\\"arguments\\\":\" r1 \"}\"\n",
        )
    );
    assert!(base.starts_with("string ::= "), "{base}");
    assert!(
        !grammar.contains(" space"),
        "no optional whitespace: {grammar}"
    );
}

#[test]
fn the_messages_describe_tools_in_the_system_prompt_and_results_as_user_text() {
    let built = build_local_request(&request(vec![read_file(), write_file()]));
    let system = "Reply with one JSON object only.\n\
        To call a tool: {\"tool\":\"<name>\",\"arguments\":{...}}\n\
        Call one tool at a time; its result comes back to you.\n\
        Copy names, paths and text from the task word for word, without adding any.\n\
        Tools:\n\
        - answer: Reply to the user in words, when no tool is needed or the task is done. Arguments: text*\n\
        - read_file: Read a file from the workspace. Arguments: path*\n\
        - write_file: Write a file. Arguments: path*, content*\n\
        (* = required)\n\n\
        You are tabloop.";
    assert_eq!(
        built.messages,
        vec![
            json!({ "role": "system", "content": system }),
            json!({ "role": "user", "content": "Copy a.txt to b.txt" }),
            json!({ "role": "assistant", "content": "{\"tool\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}" }),
            json!({ "role": "user", "content": format!("Result of read_file:\nhello\n{NEXT_STEP_HINT}") }),
            json!({ "role": "assistant", "content": "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"b.txt\",\"content\":\"hello\"}}" }),
            json!({ "role": "user", "content": format!("Error from write_file:\ndisk full\n{NEXT_STEP_HINT}") }),
            json!({ "role": "assistant", "content": "{\"tool\":\"answer\",\"arguments\":{\"text\":\"I could not write b.txt.\"}}" }),
            // the start of the model's new turn, which the runtime continues
            json!({ "role": "assistant", "content": "{\"tool\":\"" }),
        ]
    );
    assert_eq!(built.max_tokens, LOCAL_TOOL_REPLY_MAX_TOKENS);
}

#[test]
fn a_todo_list_appended_to_the_system_text_leaves_the_tool_prompt_in_front_unchanged() {
    let plain = build_local_request(&request(vec![read_file()]));
    let mut with_todos = request(vec![read_file()]);
    with_todos.system = Some("You are tabloop.\n\nCurrent todo list:\n[ ] a: write".to_string());
    let with_todos = build_local_request(&with_todos);
    let text = |r: &LocalRequest| r.messages[0]["content"].as_str().unwrap().to_string();
    let (plain, changed) = (text(&plain), text(&with_todos));
    assert!(changed.starts_with(&plain), "{changed}");
    assert!(
        plain.starts_with("Reply with one JSON object only."),
        "{plain}"
    );
}

#[test]
fn the_compact_prompt_lists_enums_types_and_long_descriptions_cut_to_one_sentence() {
    let vfs = ToolSpec {
        local_parameters: None,
        name: "vfs".to_string(),
        description: "Virtual filesystem stored in the browser. One tool, several operations selected by `op`: read, write and more.".to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "op": { "type": "string", "enum": ["read", "write"] },
                "limit": { "type": "integer" },
                "content": { "type": "string" },
                "path": { "type": "string" },
            },
            "required": ["op"],
        }),
    };
    let todo = ToolSpec {
        local_parameters: None,
        name: "todo".to_string(),
        description: "Replace your task list.".to_string(),
        parameters: json!({
            "type": "object",
            "properties": { "items": { "type": "array", "items": { "type": "object",
                "properties": { "id": {}, "text": {}, "status": {} } } } },
            "required": ["items"],
        }),
    };
    let prompt = tabloop::providers::local_prompt::compact_tool_prompt(&[vfs, todo]);
    assert!(
        prompt.contains("- vfs: Virtual filesystem stored in the browser. Arguments: op* (read|write), path, content, limit (integer)\n"),
        "{prompt}"
    );
    assert!(
        prompt.contains(
            "- todo: Replace your task list. Arguments: items* (list of {id, status, text})\n"
        ),
        "{prompt}"
    );
}

#[test]
fn the_reply_is_the_turns_start_and_what_the_model_generated_after_it() {
    let built = build_local_request(&request(vec![read_file()]));
    let generated = r#"read_file","arguments":{"path":"a.txt"}}"#;
    let text = built.reply_text(generated);
    assert_eq!(text, r#"{"tool":"read_file","arguments":{"path":"a.txt"}}"#);
    let parsed = parse_local_output(&text, &[read_file()], usage(), "x".to_string());
    assert_eq!(parsed.finish, FinishReason::ToolUse);
    assert_eq!(parsed.tool_calls[0].arguments, r#"{"path":"a.txt"}"#);
    // Without tools the request writes no start and the text is what was generated.
    let mut free = request(vec![]);
    free.messages.make_mut().truncate(1);
    assert_eq!(build_local_request(&free).reply_text("Sure."), "Sure.");
}

#[test]
fn a_caller_limit_below_the_tool_reply_cap_is_kept() {
    let mut req = request(vec![read_file()]);
    req.max_output_tokens = 40;
    assert_eq!(build_local_request(&req).max_tokens, 40);
}

#[test]
fn without_tools_the_request_is_free_text() {
    let mut req = request(vec![]);
    req.messages.make_mut().truncate(1);
    req.messages.make_mut().push(Message::Assistant {
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
            grammar: None,
            max_tokens: 512,
            temperature: 0.0,
        }
    );
}

/// The tools a parsed reply was offered.
fn offered() -> Vec<ToolSpec> {
    vec![read_file(), write_file()]
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
        reasoning: String::new(),
    }
}

#[test]
fn a_tool_object_becomes_one_tool_call() {
    let output = r#"{"tool": "read_file", "arguments": {"path": "notes/a.md"}}"#;
    assert_eq!(
        parse_local_output(output, &offered(), usage(), "local-1".to_string()),
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
            &offered(),
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
            parse_local_output(output, &offered(), usage(), "x".to_string()),
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
        parse_local_output(output, &offered(), usage(), "x".to_string()),
        reply("", vec![call(r#""a.txt""#)], FinishReason::ToolUse)
    );
    assert_eq!(
        parse_local_output(
            r#"{"tool": "read_file"}"#,
            &offered(),
            usage(),
            "x".to_string()
        ),
        reply("", vec![call("null")], FinishReason::ToolUse)
    );
}

#[test]
fn cut_json_is_the_raw_text_with_max_tokens() {
    let output = r#"{"tool": "write_file", "arguments": {"path": "b.txt", "content": "hel"#;
    assert_eq!(
        parse_local_output(output, &offered(), usage(), "x".to_string()),
        reply(output, vec![], FinishReason::MaxTokens)
    );
}

#[test]
fn without_tools_even_json_is_plain_text() {
    let output = r#"{"final": "hi"}"#;
    assert_eq!(
        parse_local_output(output, &[], usage(), "x".to_string()),
        reply(output, vec![], FinishReason::EndTurn)
    );
}

#[test]
fn a_call_wrapped_in_a_code_fence_is_still_understood() {
    let output = "```json\n{\"final\": \"ok\"}\n```";
    assert_eq!(
        parse_local_output(output, &offered(), usage(), "x".to_string()),
        reply("ok", vec![], FinishReason::EndTurn)
    );
}

#[test]
fn the_default_tools_prompt_stays_small_for_a_small_model() {
    let prompt = tabloop::providers::local_prompt::compact_tool_prompt(&default_tools());
    // SmolLM2's tokenizer makes 308 tokens of this prompt (the whole request of the newcomer's
    // task was 1,417 before); at about 4 characters per token this bound keeps it near 350.
    if std::env::var_os("TABLOOP_PRINT_PROMPT").is_some() {
        eprintln!("{prompt}");
    }
    for name in ["vfs", "eval", "http_fetch", "todo", "finish"] {
        assert!(
            prompt.contains(&format!("\n- {name}: ")),
            "{name} missing:\n{prompt}"
        );
    }
    assert!(
        prompt.chars().count() <= 1_800,
        "{} chars:\n{prompt}",
        prompt.chars().count()
    );
}

/// The default tools' vfs, with its per-operation schema for local models.
fn vfs_tool() -> ToolSpec {
    default_tools()
        .into_iter()
        .find(|tool| tool.name == "vfs")
        .unwrap()
}

#[test]
fn the_vfs_grammar_makes_content_a_required_argument_of_a_write_before_its_path() {
    let grammar = tabloop::providers::local_grammar::reply_grammar(&[vfs_tool()]);
    let write = grammar
        .lines()
        .find(|line| line.contains(r#""\"write\"""#))
        .unwrap();
    assert_eq!(
        write.split_once(" ::= ").unwrap().1,
        r#""{" "\"op\":" "\"write\"" "," "\"content\":" string "," "\"path\":" string "}""#
    );
}

#[test]
fn a_reply_the_model_wrote_comes_back_in_the_next_prompt_as_the_same_text() {
    // The KV cache holds the model's own tokens; the next prompt matches it only if the turn is
    // rendered back byte for byte (key order of the grammar, no whitespace).
    let outputs = [
        r#"{"tool":"vfs","arguments":{"op":"write","content":"hello \"you\"\n","path":"/notes.txt"}}"#,
        r#"{"tool":"vfs","arguments":{"op":"read","path":"/a.txt","limit":3,"offset":2}}"#,
        r#"{"tool":"todo","arguments":{"items":[{"id":"1","text":"buy milk","status":"done"}]}}"#,
        r#"{"tool":"answer","arguments":{"text":"Paris"}}"#,
        // Cut at the output limit: kept raw, and not wrapped (escaped) in an answer.
        r#"{"tool":"finish","arguments":{"summary":"Create a todo.md file. This"#,
    ];
    for output in outputs {
        let reply = parse_local_output(output, &default_tools(), usage(), "c1".to_string());
        let mut req = ModelRequest {
            system: None,
            messages: vec![Message::User {
                text: "task".to_string(),
            }]
            .into(),
            tools: default_tools(),
            max_output_tokens: 100,
        };
        req.messages.make_mut().push(Message::Assistant {
            text: reply.text.clone(),
            tool_calls: reply.tool_calls.clone(),
        });
        let built = build_local_request(&req);
        assert_eq!(built.messages[2]["content"], json!(output));
    }
}

#[test]
fn a_per_operation_schema_is_listed_as_each_operation_with_its_required_arguments() {
    let prompt = tabloop::providers::local_prompt::compact_tool_prompt(&[vfs_tool()]);
    assert!(
        prompt.contains("- vfs: Virtual filesystem stored in the browser. Arguments: op* = read (path) | write (content, path) | edit (path, old_string, new_string) | list (path) | glob (pattern) | grep (pattern) | delete (path) | move (path, to) | stat (path)\n"),
        "{prompt}"
    );
}

#[test]
fn a_call_to_the_answer_pseudo_tool_is_the_answer_text() {
    let output = r#"{"tool":"answer","arguments":{"text":"Paris"}}"#;
    assert_eq!(
        parse_local_output(output, &offered(), usage(), "x".to_string()),
        reply("Paris", vec![], FinishReason::EndTurn)
    );
    // Any other argument makes it a call (to a tool that does not exist: the core refuses it).
    let other = r#"{"tool":"answer","arguments":{"text":"Paris","extra":1}}"#;
    assert_eq!(
        parse_local_output(other, &offered(), usage(), "x".to_string()).finish,
        FinishReason::ToolUse
    );
}

#[test]
fn a_real_tool_named_answer_takes_the_name_and_the_answer_shape_is_not_offered() {
    let answer_tool = ToolSpec {
        name: "answer".to_string(),
        ..read_file()
    };
    let built = build_local_request(&request(vec![answer_tool.clone()]));
    let grammar = built.grammar.unwrap();
    assert!(grammar.starts_with("root ::= call0\n"), "{grammar}");
    assert!(!grammar.contains("final ::="), "{grammar}");
    let system = built.messages[0]["content"].as_str().unwrap();
    assert!(!system.contains("Reply to the user"), "{system}");
    let output = r#"{"tool":"answer","arguments":{"text":"Paris"}}"#;
    let parsed = parse_local_output(output, &[answer_tool], usage(), "x".to_string());
    assert_eq!(parsed.finish, FinishReason::ToolUse);
    assert_eq!(parsed.tool_calls[0].name, "answer");
}
