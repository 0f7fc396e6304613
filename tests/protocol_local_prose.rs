//! Answers the local model writes in plain text: the grammar ends where an answer's text (or
//! `finish`'s summary) starts, and that text is a second completion without JSON around it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod protocol_support;

use pretty_assertions::assert_eq;
use protocol_support::default_tools;
use serde_json::json;
use tabloop::protocol::{FinishReason, Message, ModelRequest, StreamDelta, ToolSpec, Usage};
use tabloop::providers::build_local_request;
use tabloop::providers::local_prose::{
    plain_request, prose_key, prose_of, prose_reply, ChoicePreview, Prose,
};

fn tool(name: &str, parameters: serde_json::Value) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: name.into(),
        parameters,
        local_parameters: None,
    }
}

#[test]
fn the_grammar_ends_where_an_answer_or_a_summary_starts() {
    let local = build_local_request(&ModelRequest {
        system: None,
        messages: vec![Message::User {
            text: "What is 2+2?".into(),
        }]
        .into(),
        tools: default_tools(),
        max_output_tokens: 256,
    });
    let grammar = local.grammar.clone().unwrap();
    assert!(
        grammar.contains("final ::= \"answer\\\",\\\"arguments\\\":{\\\"text\\\":\\\"\"\n"),
        "{grammar}"
    );
    assert!(
        grammar.contains(" ::= \"finish\\\",\\\"arguments\\\":{\\\"summary\\\":\\\"\"\n"),
        "{grammar}"
    );
    // What the model wrote under it, after the turn's start: an answer, a summary, or a call.
    let answered = local.reply_text(r#"answer","arguments":{"text":""#);
    assert_eq!(prose_of(&answered, &default_tools()), Some(Prose::Answer));
    let finished = local.reply_text(r#"finish","arguments":{"summary":""#);
    assert_eq!(
        prose_of(&finished, &default_tools()),
        Some(Prose::Call {
            tool: "finish".into(),
            key: "summary".into()
        })
    );
    let called = local.reply_text(r#"eval","arguments":{"code":"2+2"}}"#);
    assert_eq!(prose_of(&called, &default_tools()), None);
}

#[test]
fn the_text_is_asked_for_without_the_turn_s_json_start_or_a_grammar() {
    let local = build_local_request(&ModelRequest {
        system: Some("Be brief.".into()),
        messages: vec![Message::User {
            text: "What is 2+2?".into(),
        }]
        .into(),
        tools: default_tools(),
        max_output_tokens: 256,
    });
    let plain = plain_request(&local, 256);
    assert_eq!(plain.messages, local.messages[..local.messages.len() - 1]);
    assert_eq!(plain.messages.last().unwrap()["role"], "user");
    assert_eq!(plain.grammar, None);
    assert_eq!(plain.max_tokens, 256);
    assert_eq!(plain.temperature, local.temperature);
}

#[test]
fn the_text_becomes_the_answer_or_the_call_s_argument() {
    let usage = Usage {
        input_tokens: 30,
        output_tokens: 7,
        ..Usage::default()
    };
    let answer = prose_reply(&Prose::Answer, "2 + 2 = 4", false, usage, "c1".into());
    assert_eq!(
        (answer.text.as_str(), answer.tool_calls.len(), answer.finish),
        ("2 + 2 = 4", 0, FinishReason::EndTurn)
    );
    assert_eq!(answer.usage, usage);
    let cut = prose_reply(&Prose::Answer, "Once upon", true, usage, "c1".into());
    assert_eq!(cut.finish, FinishReason::MaxTokens);
    let summary = Prose::Call {
        tool: "finish".into(),
        key: "summary".into(),
    };
    let finish = prose_reply(
        &summary,
        " \"Bonjour\" in French.\n",
        false,
        usage,
        "c2".into(),
    );
    assert_eq!(finish.finish, FinishReason::ToolUse);
    assert_eq!(finish.tool_calls[0].id, "c2");
    assert_eq!(finish.tool_calls[0].name, "finish");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&finish.tool_calls[0].arguments).unwrap(),
        json!({"summary": "\"Bonjour\" in French."})
    );
}

#[test]
fn a_tool_s_one_required_string_marked_plain_text_is_written_so() {
    let marked = |extra: serde_json::Value| {
        let mut parameters = json!({
            "type": "object",
            "properties": {"reply": {"type": "string", "x-plain-text": true}},
            "required": ["reply"]
        });
        if let (Some(p), Some(e)) = (parameters.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        tool("say", parameters)
    };
    assert_eq!(prose_key(&marked(json!({}))), Some("reply"));
    // Not required, a second property, or no mark: an ordinary call.
    assert_eq!(prose_key(&marked(json!({"required": []}))), None);
    assert_eq!(
        prose_key(&marked(json!({"properties": {
            "reply": {"type": "string", "x-plain-text": true},
            "to": {"type": "string"}
        }}))),
        None
    );
    let unmarked = tool(
        "eval",
        json!({"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}),
    );
    assert_eq!(prose_key(&unmarked), None);
    assert_eq!(
        prose_key(&tabloop::core::finish_tool().spec),
        Some("summary")
    );
}

/// Feeds `raw` to a preview in pieces of `size` bytes (on char boundaries) and gathers the
/// reasoning-like preview it shows; text it must never show.
fn previewed(raw: &str, size: usize, offered: &[ToolSpec]) -> String {
    let mut preview = ChoicePreview::new(offered);
    let mut thinking = String::new();
    let mut rest = raw;
    while !rest.is_empty() {
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        match preview.push(&rest[..cut]) {
            Some(StreamDelta::Thinking(t)) => thinking.push_str(&t),
            other => assert_eq!(other, None),
        }
        rest = &rest[cut..];
    }
    thinking
}

#[test]
fn while_the_model_chooses_a_call_is_previewed_whole_and_an_answer_s_head_not_at_all() {
    let tools = default_tools();
    let call = r#"{"tool":"vfs","arguments":{"op":"list","path":"/"}}"#;
    for size in 1..=call.len() {
        assert_eq!(previewed(call, size, &tools), call, "pieces of {size}");
    }
    for head in [
        r#"{"tool":"answer","arguments":{"text":""#,
        r#"{"tool":"finish","arguments":{"summary":""#,
    ] {
        for size in 1..=head.len() {
            assert_eq!(
                previewed(head, size, &tools),
                "",
                "{head} in pieces of {size}"
            );
        }
    }
    // A page's own tool named `answer` (no answer offered then) is a call like any other.
    let answer_call = r#"{"tool":"answer","arguments":{"text":"x"}}"#;
    let page_tool = tool(
        "answer",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    );
    assert_eq!(previewed(answer_call, 4, &[page_tool]), answer_call);
}
