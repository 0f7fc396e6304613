//! Ending a small local model's run when it repeats its last successful call. SmolLM2-135M,
//! shown the result of a call that did what it asked, writes the very same call again (at every
//! later step, for every tool tried: a write, a read, an eval), so the run never ends on its
//! own. An identical call right after its own success brings no new evidence, so the runtime
//! decides here instead of the model: the repeat is not run again, and the reply becomes the
//! answer, saying so and giving the result the call returned.

use serde_json::Value;

use super::message::{Message, ToolCall};
use super::model::{FinishReason, ModelReply, ModelRequest};

/// Most characters of the earlier result quoted in the answer.
const MAX_QUOTED_CHARS: usize = 600;

/// `reply`, or, when it is one call identical (same tool, same arguments as JSON values) to the
/// call the request ends with and that call's result was not an error, the answer that ends
/// the run: what happened and the result. Any other reply is returned unchanged.
pub fn end_on_repeat(request: &ModelRequest, mut reply: ModelReply) -> ModelReply {
    let [call] = reply.tool_calls.as_slice() else {
        return reply;
    };
    let Some((previous, content)) = last_successful_call(&request.messages) else {
        return reply;
    };
    if previous.name != call.name || !same_arguments(&previous.arguments, &call.arguments) {
        return reply;
    }
    reply.text = format!(
        "The {name} call succeeded; the model asked for the same call again, so the run ends \
         here. Its result:\n{quoted}",
        name = call.name,
        quoted = quote(content),
    );
    reply.tool_calls.clear();
    reply.finish = FinishReason::EndTurn;
    reply
}

/// The call the conversation ends with, when it was the only call of its turn and its result
/// (the last message) is not an error, with that result.
fn last_successful_call(messages: &[Message]) -> Option<(&ToolCall, &str)> {
    let [.., Message::Assistant { tool_calls, .. }, Message::Tool {
        call_id,
        content,
        is_error: false,
        ..
    }] = messages
    else {
        return None;
    };
    match tool_calls.as_slice() {
        [call] if call.id == *call_id => Some((call, content.as_str())),
        _ => None,
    }
}

/// Whether two argument texts are the same JSON value (key order and spacing aside), or the
/// same text when either is not JSON.
fn same_arguments(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(a), Ok(b)) => a == b,
        (Ok(_) | Err(_), Ok(_) | Err(_)) => a.trim() == b.trim(),
    }
}

/// `content`, cut to [`MAX_QUOTED_CHARS`] with `…`.
fn quote(content: &str) -> String {
    let content = content.trim();
    if content.chars().count() <= MAX_QUOTED_CHARS {
        return content.to_string();
    }
    let mut cut: String = content.chars().take(MAX_QUOTED_CHARS).collect();
    cut.push('…');
    cut
}
