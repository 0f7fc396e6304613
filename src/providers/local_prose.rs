//! Answers a small local model writes as plain text. Under the reply grammar the model chooses
//! what to do by a tool's name after `{"tool":"`; when it chooses to answer (the answer
//! pseudo-tool, or a tool whose one argument is marked plain text, such as `finish`'s summary),
//! the grammar ends at the opening quote of that text, and the text is written in a second
//! completion of the same prompt without the turn's JSON start and without a grammar: the
//! model's own way of answering. Why: inside a JSON string SmolLM2-135M wrote "finiSh" for
//! "Hello, who are you?", "2+2" for "What is 2+2?" and "fini" for a translation; asked the same
//! prompt with no JSON around it, it wrote "2 + 2 = 4" and "\"Bonjour\" in French." (native
//! scenarios: 8 of 13 tasks with plain answers against 6 of 13, the answers read as answers).
//! The second completion starts where the cache already is (the prompt up to the turn), so it
//! costs only its own tokens.

use serde_json::Value;

use super::local::LocalRequest;
use super::local_grammar::{answer_offered, prose_head, ANSWER_KEY, ANSWER_TOOL};
pub use super::local_grammar::{prose_key, PLAIN_TEXT_KEYWORD};
use crate::protocol::message::{ToolCall, ToolSpec};
use crate::protocol::model::{FinishReason, ModelReply, Usage};
use crate::protocol::StreamDelta;

/// An answer the model chose to write, before its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prose {
    /// The answer pseudo-tool: the text is the reply's text.
    Answer,
    /// A call whose one argument `key` is the text.
    Call {
        /// The tool's name.
        tool: String,
        /// Its argument.
        key: String,
    },
}

/// Every answer's head among `offered`, with what it chose.
fn prose_heads(offered: &[ToolSpec]) -> Vec<(String, Prose)> {
    let answer =
        answer_offered(offered).then(|| (prose_head(ANSWER_TOOL, ANSWER_KEY), Prose::Answer));
    let calls = offered.iter().filter_map(|tool| {
        let key = prose_key(tool)?;
        let prose = Prose::Call {
            tool: tool.name.clone(),
            key: key.to_string(),
        };
        Some((prose_head(&tool.name, key), prose))
    });
    answer.into_iter().chain(calls).collect()
}

/// What a whole reply `raw` chose, when it is the head of an answer among `offered`.
pub fn prose_of(raw: &str, offered: &[ToolSpec]) -> Option<Prose> {
    prose_heads(offered)
        .into_iter()
        .find_map(|(head, prose)| (raw == head).then_some(prose))
}

/// What a person sees while the model chooses, with tools offered: a call's raw JSON as a
/// reasoning-like preview; nothing of an answer's head (its text comes as plain text after it).
/// A reply that may still become a head is held back until it is told apart.
#[derive(Debug)]
pub struct ChoicePreview {
    /// The heads of the answers offered.
    heads: Vec<String>,
    /// The raw reply so far.
    raw: String,
    /// Whether the reply is a call, once its start says so.
    call: Option<bool>,
}

impl ChoicePreview {
    /// A preview of a reply to a request offering `offered`.
    pub fn new(offered: &[ToolSpec]) -> Self {
        Self {
            heads: prose_heads(offered)
                .into_iter()
                .map(|(head, _)| head)
                .collect(),
            raw: String::new(),
            call: None,
        }
    }

    /// The delta to show for the next piece of the raw reply, if any.
    pub fn push(&mut self, piece: &str) -> Option<StreamDelta> {
        if self.call == Some(true) {
            return Some(StreamDelta::Thinking(piece.to_string()));
        }
        self.raw.push_str(piece);
        if self.call.is_some() || self.heads.iter().any(|head| head.starts_with(&self.raw)) {
            // An answer's head, or still possibly one: nothing to show.
            if self.heads.iter().any(|head| head == &self.raw) {
                self.call = Some(false);
            }
            return None;
        }
        self.call = Some(true);
        Some(StreamDelta::Thinking(std::mem::take(&mut self.raw)))
    }
}

/// The request that writes the text: `local` without the turn's JSON start and without a
/// grammar, up to `max_tokens`.
pub fn plain_request(local: &LocalRequest, max_tokens: u32) -> LocalRequest {
    let mut messages = local.messages.clone();
    if messages.last().is_some_and(|m| m["role"] == "assistant") {
        messages.pop();
    }
    LocalRequest {
        messages,
        grammar: None,
        max_tokens,
        temperature: local.temperature,
    }
}

/// The reply for `prose` written as `text`: an answer's text as written, a call's argument
/// trimmed; `cut` when the text reached its token limit (an answer is then `MaxTokens`; a call
/// keeps the text it has).
pub fn prose_reply(
    prose: &Prose,
    text: &str,
    cut: bool,
    usage: Usage,
    call_id: String,
) -> ModelReply {
    let (text, tool_calls, finish) = match prose {
        // As written, so the text streamed is the answer.
        Prose::Answer => (
            text.to_string(),
            Vec::new(),
            if cut {
                FinishReason::MaxTokens
            } else {
                FinishReason::EndTurn
            },
        ),
        Prose::Call { tool, key } => {
            let mut arguments = serde_json::Map::new();
            arguments.insert(key.clone(), Value::String(text.trim().to_string()));
            let call = ToolCall {
                id: call_id,
                name: tool.clone(),
                arguments: Value::Object(arguments).to_string(),
            };
            (String::new(), vec![call], FinishReason::ToolUse)
        }
    };
    ModelReply {
        text,
        tool_calls,
        finish,
        usage,
        model: String::new(),
        reasoning: String::new(),
    }
}
