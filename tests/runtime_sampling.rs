//! An MCP server's sampling request becomes one call of the session's model with no tools (its
//! output limit capped, images described), and the model's reply the result the server gets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::protocol::{FinishReason, Message, ModelReply, Usage};
use tabloop::runtime::sampling::{
    sampling_request, sampling_result, SamplingError, SamplingParams, MAX_SAMPLING_TOKENS,
};

fn params(value: serde_json::Value) -> SamplingParams {
    serde_json::from_value(value).unwrap()
}

#[test]
fn a_sampling_request_becomes_a_model_request_with_no_tools() {
    let request = sampling_request(&params(json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is 2+2?"}},
            {"role": "assistant", "content": {"type": "text", "text": "4"}},
            {"role": "user", "content": [{"type": "text", "text": "And this?"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]}
        ],
        "systemPrompt": "You are a helpful test server.",
        "maxTokens": 100,
        "temperature": 0.7
    })))
    .unwrap();
    assert_eq!(
        request.system.as_deref(),
        Some("You are a helpful test server.")
    );
    assert_eq!(
        request.messages.to_vec(),
        vec![
            Message::User {
                text: "What is 2+2?".into()
            },
            Message::Assistant {
                text: "4".into(),
                tool_calls: vec![]
            },
            Message::User {
                text: "And this?\n[image image/png, 3 bytes, not shown]".into()
            },
        ]
    );
    assert!(request.tools.is_empty());
    assert_eq!(request.max_output_tokens, 100);
}

#[test]
fn the_output_limit_is_capped_and_defaulted() {
    let greedy = sampling_request(&params(json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}], "maxTokens": 1_000_000}))).unwrap();
    assert_eq!(greedy.max_output_tokens, MAX_SAMPLING_TOKENS);
    let silent = sampling_request(&params(
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]}),
    ))
    .unwrap();
    assert_eq!(silent.max_output_tokens, 512);
}

#[test]
fn empty_or_odd_requests_are_refused() {
    assert_eq!(
        sampling_request(&params(json!({"messages": []}))),
        Err(SamplingError::Invalid("no messages".into()))
    );
    assert_eq!(
        sampling_request(&params(
            json!({"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]})
        )),
        Err(SamplingError::Invalid("unknown role \"system\"".into()))
    );
}

#[test]
fn the_reply_becomes_the_sampling_result() {
    let reply = ModelReply {
        text: "4".into(),
        tool_calls: vec![],
        finish: FinishReason::MaxTokens,
        usage: Usage::default(),
        model: String::new(),
        reasoning: String::new(),
    };
    assert_eq!(
        serde_json::to_value(sampling_result(&reply, "session-model")).unwrap(),
        json!({"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "session-model", "stopReason": "maxTokens"})
    );
}
