//! Local models that call tools in their own format: Qwen's Hermes-style `<tool_call>` blocks
//! and Gemma 3's JSON call. A request with tools renders them where the family's template puts
//! them; the model's native reply parses back into the structured call; the grammar built from
//! the tools admits a well-formed call and refuses a malformed one (checked with the engine's
//! own matcher); and Qwen3's thinking block is kept apart from the answer. What the engine
//! writes under these grammars is in protocol_local_native_engine.rs.
// Native only: the engine it checks grammars with is a native dev-dependency.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod protocol_support;

use pretty_assertions::assert_eq;
use protocol_support::{copy_task_after_its_read, write_file};
use serde_json::{json, Value};
use tabloop::protocol::{
    FinishReason, Message, ModelReply, ModelRequest, StreamDelta, ToolCall, ToolSpec, Usage,
};
use tabloop::providers::local_native::native_grammar;
use tabloop::providers::local_think::{TagStream, QWEN_TAGS};
use tabloop::providers::{build_native_request, parse_native_output, NativePreview, ToolDialect};
use tabloop_engine::grammar::{Grammar, GrammarState};

fn qwen3() -> ToolDialect {
    ToolDialect::Hermes {
        default_system: None,
    }
}

fn read_file() -> ToolSpec {
    ToolSpec {
        local_parameters: None,
        name: "read_file".to_string(),
        description: "Read a file.".to_string(),
        parameters: json!({
            "type": "object",
            "properties": { "path": { "type": "string" }, "limit": { "type": "integer" } },
            "required": ["path"],
        }),
    }
}

fn tools() -> Vec<ToolSpec> {
    vec![read_file(), write_file()]
}

/// A task, the model's first call and its result: what the second step's prompt holds.
fn request(system: Option<&str>) -> ModelRequest {
    ModelRequest {
        system: system.map(str::to_string),
        messages: copy_task_after_its_read().into(),
        tools: tools(),
        max_output_tokens: 300,
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: 50,
        output_tokens: 20,
        ..Usage::default()
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.to_string(),
        name: name.to_string(),
        arguments: arguments.to_string(),
    }
}

fn reply(text: &str, calls: Vec<ToolCall>, finish: FinishReason, reasoning: &str) -> ModelReply {
    ModelReply {
        text: text.to_string(),
        tool_calls: calls,
        finish,
        usage: usage(),
        model: String::new(),
        reasoning: reasoning.to_string(),
    }
}

/// Whether `dialect`'s grammar for [`tools`] lets the model write `text`, whole.
fn grammar_admits(dialect: &ToolDialect, text: &str) -> bool {
    let grammar = Grammar::parse(&native_grammar(&tools(), dialect))
        .unwrap_or_else(|e| panic!("the grammar parses: {e}"));
    let mut state = GrammarState::new(&grammar);
    state.advance(&grammar, text.as_bytes()).is_ok() && state.is_complete()
}

const QWEN_CALL: &str =
    "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"b.txt\", \"content\": \"hello\"}}\n</tool_call>";

#[test]
fn qwen_tools_go_into_the_system_message_and_calls_and_results_are_written_as_its_template_writes_them(
) {
    let local = build_native_request(&request(Some("You are tabloop.")), &qwen3());
    let tools_block = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
        You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n\
        {\"type\": \"function\", \"function\": {\"name\": \"read_file\", \"description\": \"Read a file.\", \"parameters\": {\"properties\": {\"limit\": {\"type\": \"integer\"}, \"path\": {\"type\": \"string\"}}, \"required\": [\"path\"], \"type\": \"object\"}}}\n\
        {\"type\": \"function\", \"function\": {\"name\": \"write_file\", \"description\": \"Write a file.\", \"parameters\": {\"properties\": {\"content\": {\"type\": \"string\"}, \"path\": {\"type\": \"string\"}}, \"required\": [\"path\", \"content\"], \"type\": \"object\"}}}\n\
        </tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n\
        <tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";
    assert_eq!(
        local.messages,
        vec![
            json!({"role": "system", "content": format!("You are tabloop.\n\n{tools_block}")}),
            json!({"role": "user", "content": "Copy a.txt to b.txt"}),
            json!({"role": "assistant", "content": "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>"}),
            json!({"role": "user", "content": "<tool_response>\nhello\n</tool_response>"}),
        ]
    );
    // the model's turn is the template's own (no reply prefix), its length the request's
    assert_eq!(local.max_tokens, 300);
    // Qwen2.5 writes its default system text before the tools when the session gives none
    let qwen25 = ToolDialect::Hermes {
        default_system: Some(
            "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.".into(),
        ),
    };
    assert_eq!(
        build_native_request(&request(None), &qwen25).messages[0]["content"],
        json!(format!(
            "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.\n\n{tools_block}"
        ))
    );
    assert_eq!(
        build_native_request(&request(None), &qwen3()).messages[0]["content"],
        json!(tools_block)
    );
}

#[test]
fn a_qwen_call_parses_into_the_structured_call_and_goes_back_into_the_prompt_as_written() {
    let parsed = parse_native_output(QWEN_CALL, &tools(), &qwen3(), usage(), "c2".into());
    assert_eq!(
        parsed,
        reply(
            "",
            vec![call(
                "c2",
                "write_file",
                json!({"path": "b.txt", "content": "hello"})
            )],
            FinishReason::ToolUse,
            ""
        )
    );
    let mut next = request(None);
    next.messages.make_mut().push(Message::Assistant {
        text: parsed.text,
        tool_calls: parsed.tool_calls,
    });
    let messages = build_native_request(&next, &qwen3()).messages;
    assert_eq!(messages.last().unwrap()["content"], json!(QWEN_CALL));
}

#[test]
fn results_of_one_batch_share_a_user_turn_and_errors_say_so() {
    let mut req = request(None);
    req.messages.make_mut().push(Message::Tool {
        call_id: "c9".to_string(),
        name: "write_file".to_string(),
        content: "disk full".to_string(),
        is_error: true,
    });
    let messages = build_native_request(&req, &qwen3()).messages;
    assert_eq!(
        messages.last().unwrap()["content"],
        json!("<tool_response>\nhello\n</tool_response>\n<tool_response>\nError: disk full\n</tool_response>")
    );
}

#[test]
fn qwen_parses_two_calls_text_before_a_call_a_cut_call_and_a_malformed_one() {
    let two = format!("{QWEN_CALL}\n<tool_call>\n{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"b.txt\"}}}}\n</tool_call>");
    let parsed = parse_native_output(&two, &tools(), &qwen3(), usage(), "c".into());
    assert_eq!(
        parsed.tool_calls,
        vec![
            call(
                "c",
                "write_file",
                json!({"path": "b.txt", "content": "hello"})
            ),
            call("c_1", "read_file", json!({"path": "b.txt"})),
        ]
    );
    let with_text = format!("I will copy it.\n{QWEN_CALL}");
    let parsed = parse_native_output(&with_text, &tools(), &qwen3(), usage(), "c".into());
    assert_eq!(
        (parsed.text.as_str(), parsed.tool_calls.len(), parsed.finish),
        ("I will copy it.", 1, FinishReason::ToolUse)
    );
    let cut = "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"b.t";
    assert_eq!(
        parse_native_output(cut, &tools(), &qwen3(), usage(), "c".into()),
        reply(cut, vec![], FinishReason::MaxTokens, "")
    );
    let no_arguments = "<tool_call>\n{\"name\": \"write_file\"}\n</tool_call>";
    assert_eq!(
        parse_native_output(no_arguments, &tools(), &qwen3(), usage(), "c".into()).finish,
        FinishReason::Malformed
    );
    assert_eq!(
        parse_native_output("It is done.", &tools(), &qwen3(), usage(), "c".into()),
        reply("It is done.", vec![], FinishReason::EndTurn, "")
    );
}

#[test]
fn the_qwen_grammar_admits_well_formed_calls_and_answers_and_refuses_malformed_calls() {
    let dialect = qwen3();
    for good in [
        QWEN_CALL.to_string(),
        format!("{QWEN_CALL}\n{QWEN_CALL}"),
        "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\", \"limit\": 3}}\n</tool_call>".to_string(),
        "The file says hello.".to_string(),
        format!("Copying.\n{QWEN_CALL}"),
        format!("<think>\nRead it first.\n</think>\n\n{QWEN_CALL}"),
    ] {
        assert!(grammar_admits(&dialect, &good), "admits {good:?}");
    }
    for bad in [
        // a tool nobody offered
        "<tool_call>\n{\"name\": \"delete_all\", \"arguments\": {}}\n</tool_call>",
        // a required argument missing
        "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"b.txt\"}}\n</tool_call>",
        // an argument of the wrong type
        "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\", \"limit\": \"3\"}}\n</tool_call>",
        // not the template's spacing, and no closing tag
        "<tool_call>\n{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n</tool_call>",
        "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}",
        // text after a call
        "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call> done",
    ] {
        assert!(!grammar_admits(&dialect, bad), "refuses {bad:?}");
    }
}

#[test]
fn a_thinking_block_is_kept_apart_from_the_answer_and_from_the_call() {
    let thought = "<think>\nThe user wants a copy. Read a.txt first.\n</think>\n\n";
    assert_eq!(
        parse_native_output(
            &format!("{thought}{QWEN_CALL}"),
            &tools(),
            &qwen3(),
            usage(),
            "c".into()
        ),
        reply(
            "",
            vec![call(
                "c",
                "write_file",
                json!({"path": "b.txt", "content": "hello"})
            )],
            FinishReason::ToolUse,
            "The user wants a copy. Read a.txt first."
        )
    );
    // without tools too: the answer is what follows the block
    assert_eq!(
        parse_native_output(
            "<think>\n2 + 2 is 4.\n</think>\n\nIt is 4.",
            &[],
            &qwen3(),
            usage(),
            "c".into()
        ),
        reply("It is 4.", vec![], FinishReason::EndTurn, "2 + 2 is 4.")
    );
    // a block cut at the limit has no answer yet
    assert_eq!(
        parse_native_output("<think>\nLet me see", &[], &qwen3(), usage(), "c".into()),
        reply("", vec![], FinishReason::MaxTokens, "Let me see")
    );
    // an answer that only mentions the tag is an answer
    assert_eq!(
        parse_native_output("Use <think> tags.", &[], &qwen3(), usage(), "c".into()).text,
        "Use <think> tags."
    );
}

#[test]
fn while_a_qwen_reply_streams_its_thinking_and_calls_show_as_thinking_and_the_tags_never_show() {
    let mut stream = TagStream::new(QWEN_TAGS);
    let mut deltas = Vec::new();
    for piece in [
        "<thi",
        "nk>\nhm",
        "m\n</th",
        "ink>\n\nSure: <",
        "b>ok</b> ",
        "<tool_",
        "call>\n{}\n<",
        "/tool_call>",
    ] {
        deltas.extend(stream.push(piece));
    }
    deltas.extend(stream.finish());
    let text: String = deltas
        .iter()
        .filter_map(|d| match d {
            StreamDelta::Text(t) => Some(t.as_str()),
            StreamDelta::Thinking(_) | StreamDelta::ToolCallStarted { .. } => None,
        })
        .collect();
    let thinking: String = deltas
        .iter()
        .filter_map(|d| match d {
            StreamDelta::Thinking(t) => Some(t.as_str()),
            StreamDelta::Text(_) | StreamDelta::ToolCallStarted { .. } => None,
        })
        .collect();
    assert_eq!(text, "Sure: <b>ok</b> ");
    assert_eq!(thinking, "\nhmm\n\n{}\n");
    // with no tools, a reply with no block streams as it comes
    let mut plain = NativePreview::new(&qwen3(), false);
    assert_eq!(plain.push("Hi"), vec![StreamDelta::Text("Hi".into())]);
}

const GEMMA_CALL: &str =
    "{\"name\": \"write_file\", \"parameters\": {\"path\": \"b.txt\", \"content\": \"hello\"}}";

#[test]
fn gemma_gets_googles_function_prompt_in_its_first_turn_and_results_as_tool_output() {
    let local = build_native_request(&request(Some("You are tabloop.")), &ToolDialect::Gemma);
    let system = local.messages[0]["content"].as_str().unwrap();
    assert!(
        system.starts_with(
            "You have access to functions. If you decide to invoke any of the function(s),\n\
             you MUST put it in the format of\n\
             {\"name\": function name, \"parameters\": dictionary of argument name and its value}\n\n\
             You SHOULD NOT include any other text in the response if you call a function\n[\n  {\n    \"name\": \"read_file\",\n    \"description\": \"Read a file.\",\n    \"parameters\": {\n      \"properties\": {"
        ),
        "{system}"
    );
    assert!(system.ends_with("\n]\n\nYou are tabloop."), "{system}");
    let listed: Value = serde_json::from_str(
        &system[system.find("\n[\n").unwrap() + 1..system.rfind("\n]").unwrap() + 2],
    )
    .unwrap();
    assert_eq!(listed[1]["parameters"], write_file().parameters);
    assert_eq!(
        local.messages[2..].to_vec(),
        vec![
            json!({"role": "assistant", "content": "{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.txt\"}}"}),
            json!({"role": "user", "content": "```tool_output\nhello\n```"}),
        ]
    );
}

#[test]
fn a_gemma_call_parses_into_the_structured_call_and_its_grammar_refuses_malformed_ones() {
    let expected = reply(
        "",
        vec![call(
            "g",
            "write_file",
            json!({"path": "b.txt", "content": "hello"}),
        )],
        FinishReason::ToolUse,
        "",
    );
    assert_eq!(
        parse_native_output(
            GEMMA_CALL,
            &tools(),
            &ToolDialect::Gemma,
            usage(),
            "g".into()
        ),
        expected
    );
    let fenced = format!("```json\n{GEMMA_CALL}\n```");
    assert_eq!(
        parse_native_output(&fenced, &tools(), &ToolDialect::Gemma, usage(), "g".into()),
        expected
    );
    assert_eq!(
        parse_native_output("Paris.", &tools(), &ToolDialect::Gemma, usage(), "g".into()),
        reply("Paris.", vec![], FinishReason::EndTurn, "")
    );
    assert!(grammar_admits(&ToolDialect::Gemma, GEMMA_CALL));
    assert!(grammar_admits(&ToolDialect::Gemma, "Paris is the capital."));
    for bad in [
        "{\"name\": \"delete_all\", \"parameters\": {}}",
        "{\"name\": \"write_file\", \"arguments\": {\"path\": \"b.txt\", \"content\": \"x\"}}",
        "{\"name\": \"write_file\", \"parameters\": {\"path\": \"b.txt\"}}",
        "{\"name\": \"write_file\", \"parameters\": {\"path\": \"b.txt\", \"content\": \"x\"}} and more",
    ] {
        assert!(!grammar_admits(&ToolDialect::Gemma, bad), "refuses {bad:?}");
    }
}

#[test]
fn the_format_is_the_one_the_chat_template_implies() {
    let qwen3_template = "{%- if tools %}{{- '<|im_start|>system\\n' }}…<tool_call>…{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}<|im_end|>";
    assert_eq!(
        ToolDialect::from_chat_template(Some(qwen3_template)),
        qwen3()
    );
    let qwen25_template = "<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|> <tool_call>";
    assert_eq!(
        ToolDialect::from_chat_template(Some(qwen25_template)),
        ToolDialect::Hermes {
            default_system: Some(
                "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.".into()
            )
        }
    );
    assert_eq!(
        ToolDialect::from_chat_template(Some("<start_of_turn>user\n…<end_of_turn>")),
        ToolDialect::Gemma
    );
    // SmolLM2's ChatML has no tool format: the compact reply
    assert_eq!(
        ToolDialect::from_chat_template(Some("<|im_start|>system\n…<|im_end|>")),
        ToolDialect::Compact
    );
    assert_eq!(ToolDialect::from_chat_template(None), ToolDialect::Compact);
}
