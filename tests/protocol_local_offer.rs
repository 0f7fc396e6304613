//! Which tools the local model is offered: a tool that needs a URL only once the conversation
//! holds one (with nothing to fetch, the default model took `http_fetch` for "Hello").
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod protocol_support;

use protocol_support::default_tools;
use tabloop::protocol::{Message, ModelRequest};
use tabloop::providers::{build_local_request, LocalRequest};

fn request(messages: Vec<Message>) -> LocalRequest {
    build_local_request(&ModelRequest {
        system: None,
        messages: messages.into(),
        tools: default_tools(),
        max_output_tokens: 256,
    })
}

/// Whether `http_fetch` is in the prompt's tool list and in the grammar.
fn offers_fetch(local: &LocalRequest) -> (bool, bool) {
    let prompt = local.messages[0]["content"].as_str().unwrap();
    let grammar = local.grammar.as_deref().unwrap();
    (
        prompt.contains("- http_fetch:"),
        grammar.contains("http_fetch"),
    )
}

#[test]
fn with_no_url_in_the_conversation_the_fetch_tool_is_not_offered() {
    let local = request(vec![Message::user("Hello, who are you?")]);
    assert_eq!(offers_fetch(&local), (false, false));
    // The others are.
    let prompt = local.messages[0]["content"].as_str().unwrap();
    for tool in ["- vfs:", "- eval:", "- todo:", "- finish:", "- answer:"] {
        assert!(prompt.contains(tool), "{tool} in {prompt}");
    }
}

#[test]
fn a_url_in_the_task_or_in_a_result_offers_it() {
    let task = request(vec![Message::user("What does https://example.com say?")]);
    assert_eq!(offers_fetch(&task), (true, true));
    let result = request(vec![
        Message::user("Fetch the link in links.txt."),
        Message::Assistant {
            text: String::new(),
            tool_calls: vec![tabloop::protocol::ToolCall {
                id: "c1".into(),
                name: "vfs".into(),
                arguments: r#"{"op":"read","path":"/links.txt"}"#.into(),
            }],
        },
        Message::Tool {
            call_id: "c1".into(),
            name: "vfs".into(),
            content: "1\thttp://example.org/a".into(),
            is_error: false,
        },
    ]);
    assert_eq!(offers_fetch(&result), (true, true));
}
