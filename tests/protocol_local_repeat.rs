//! A small local model that repeats its last successful call verbatim: the runtime ends the
//! run with that call's result instead of running it again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use tabloop::protocol::local_repeat::end_on_repeat;
use tabloop::protocol::{FinishReason, Message, ModelReply, ModelRequest, ToolCall, Usage};

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.to_string(),
        name: name.to_string(),
        arguments: arguments.to_string(),
    }
}

/// A request whose conversation ends with `calls` and the result of the first one.
fn after(calls: Vec<ToolCall>, content: &str, is_error: bool) -> ModelRequest {
    let first = calls[0].clone();
    ModelRequest {
        system: None,
        messages: vec![
            Message::User {
                text: "Write hello into /notes.txt".to_string(),
            },
            Message::Assistant {
                text: String::new(),
                tool_calls: calls,
            },
            Message::Tool {
                call_id: first.id,
                name: first.name,
                content: content.to_string(),
                is_error,
            },
        ]
        .into(),
        tools: vec![],
        max_output_tokens: 100,
    }
}

fn calling(call: ToolCall) -> ModelReply {
    ModelReply {
        text: String::new(),
        tool_calls: vec![call],
        finish: FinishReason::ToolUse,
        usage: Usage::default(),
        model: "local".to_string(),
    }
}

const WRITE: &str = r#"{"op":"write","path":"/notes.txt","content":"hello"}"#;

#[test]
fn the_same_call_right_after_its_success_ends_the_run_with_its_result() {
    let request = after(vec![call("c1", "vfs", WRITE)], r#"{"bytes":5}"#, false);
    // Same value, other key order and spacing: still the same call.
    let again = r#"{ "path": "/notes.txt", "op": "write", "content": "hello" }"#;
    let reply = end_on_repeat(&request, calling(call("c2", "vfs", again)));
    assert_eq!(reply.finish, FinishReason::EndTurn);
    assert!(reply.tool_calls.is_empty());
    assert_eq!(
        reply.text,
        "The vfs call succeeded; the model asked for the same call again, so the run ends here. \
         Its result:\n{\"bytes\":5}"
    );
    assert_eq!(reply.model, "local");
}

#[test]
fn a_different_call_a_repeat_after_an_error_or_an_answer_is_left_alone() {
    let request = after(vec![call("c1", "vfs", WRITE)], "ok", false);
    let read = calling(call("c2", "vfs", r#"{"op":"read","path":"/notes.txt"}"#));
    assert_eq!(end_on_repeat(&request, read.clone()), read);
    let other_tool = calling(call("c2", "eval", WRITE));
    assert_eq!(end_on_repeat(&request, other_tool.clone()), other_tool);

    let failed = after(vec![call("c1", "vfs", WRITE)], "disk full", true);
    let retry = calling(call("c2", "vfs", WRITE));
    assert_eq!(end_on_repeat(&failed, retry.clone()), retry);

    let answer = ModelReply {
        text: "Done.".to_string(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: Usage::default(),
        model: String::new(),
    };
    assert_eq!(end_on_repeat(&request, answer.clone()), answer);
}

#[test]
fn only_a_lone_call_whose_result_ends_the_conversation_counts() {
    // Two calls in the earlier turn: the last message answers only one of them.
    let two = after(
        vec![call("c1", "vfs", WRITE), call("c2", "eval", "{}")],
        "ok",
        false,
    );
    let again = calling(call("c3", "vfs", WRITE));
    assert_eq!(end_on_repeat(&two, again.clone()), again);
    // A user message after the result: the user asked for more.
    let mut followed = after(vec![call("c1", "vfs", WRITE)], "ok", false);
    followed.messages.make_mut().push(Message::User {
        text: "Once more".to_string(),
    });
    assert_eq!(end_on_repeat(&followed, again.clone()), again);
}

#[test]
fn a_long_result_is_quoted_cut() {
    let long = "x".repeat(2_000);
    let request = after(vec![call("c1", "vfs", WRITE)], &long, false);
    let reply = end_on_repeat(&request, calling(call("c2", "vfs", WRITE)));
    let quoted = reply.text.rsplit('\n').next().unwrap();
    assert_eq!(quoted.chars().count(), 601);
    assert!(quoted.ends_with('…'));
}
