//! The transcript's messages as a fold snapshot stores them: each one a short externally tagged
//! tuple (`{"T":[call_id, name, content, is_error]}`) instead of the role-tagged object of the
//! protocol. A role-tagged enum is read by buffering every message before decoding it; this
//! form is read in one pass and is a third smaller, and the snapshot of a long session is mostly
//! its transcript, so opening one reads and parses markedly less.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::protocol::{Message, ToolCall};

#[derive(Serialize)]
enum Out<'a> {
    U(&'a str),
    A(&'a str, &'a [ToolCall]),
    T(&'a str, &'a str, &'a str, bool),
}

/// Writes `messages` in the compact form.
pub fn serialize<S: Serializer>(messages: &[Message], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(messages.iter().map(|message| match message {
        Message::User { text } => Out::U(text),
        Message::Assistant { text, tool_calls } => Out::A(text, tool_calls),
        Message::Tool {
            call_id,
            name,
            content,
            is_error,
        } => Out::T(call_id, name, content, *is_error),
    }))
}

/// A message read back from the compact form.
#[derive(Deserialize)]
enum In {
    U(String),
    A(String, Vec<ToolCall>),
    T(String, String, String, bool),
}

/// Reads messages written by [`serialize`].
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Message>, D::Error> {
    let messages = Vec::<In>::deserialize(deserializer)?;
    Ok(messages
        .into_iter()
        .map(|message| match message {
            In::U(text) => Message::User { text },
            In::A(text, tool_calls) => Message::Assistant { text, tool_calls },
            In::T(call_id, name, content, is_error) => Message::Tool {
                call_id,
                name,
                content,
                is_error,
            },
        })
        .collect())
}

/// Messages as one snapshot part stores them, written and read in the compact form.
#[derive(Serialize, Deserialize)]
pub struct Part(
    #[serde(serialize_with = "serialize_vec", deserialize_with = "deserialize")] pub Vec<Message>,
);

fn serialize_vec<S: Serializer>(messages: &[Message], serializer: S) -> Result<S::Ok, S::Error> {
    serialize(messages, serializer)
}
