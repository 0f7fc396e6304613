//! The transcript's messages as a fold snapshot stores them: each one a short externally tagged
//! tuple (`{"T":[call_id, name, content, is_error]}`) instead of the role-tagged object of the
//! protocol. A role-tagged enum is read by buffering every message before decoding it; this
//! form is read in one pass and is a third smaller, and the snapshot of a long session is mostly
//! its transcript, so opening one reads and parses markedly less.

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::protocol::decode::{
    external_variant, variant_content, wrong_kind, DecodeError, FromJson,
};
use crate::protocol::encode::ToJson;
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

/// Writes `messages` in the compact form, as [`serialize`] does through serde.
pub fn write(messages: &[Message], out: &mut String) {
    out.push('[');
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match message {
            Message::User { text } => {
                out.push_str("{\"U\":");
                text.write_json(out);
            }
            Message::Assistant { text, tool_calls } => {
                out.push_str("{\"A\":[");
                text.write_json(out);
                out.push(',');
                tool_calls.write_json(out);
                out.push(']');
            }
            Message::Tool {
                call_id,
                name,
                content,
                is_error,
            } => {
                out.push_str("{\"T\":[");
                call_id.write_json(out);
                out.push(',');
                name.write_json(out);
                out.push(',');
                content.write_json(out);
                out.push(',');
                is_error.write_json(out);
                out.push(']');
            }
        }
        out.push('}');
    }
    out.push(']');
}

/// Reads messages written by [`serialize`] (or [`write`]).
pub fn read(value: &Value) -> Result<Vec<Message>, DecodeError> {
    let Value::Array(items) = value else {
        return Err(wrong_kind("an array of messages", value));
    };
    items.iter().map(read_one).collect()
}

/// One message: `{"U": text}`, `{"A": [text, calls]}` or
/// `{"T": [call_id, name, content, is_error]}`.
fn read_one(value: &Value) -> Result<Message, DecodeError> {
    let (name, content) = external_variant(value)?;
    match name {
        "U" => Ok(Message::User {
            text: String::from_json(variant_content("U", content)?)?,
        }),
        "A" => {
            let (text, tool_calls) =
                <(String, Vec<ToolCall>)>::from_json(variant_content("A", content)?)?;
            Ok(Message::Assistant { text, tool_calls })
        }
        "T" => {
            let fields = variant_content("T", content)?;
            match fields.as_array().map(Vec::as_slice) {
                Some([call_id, name, content, is_error]) => Ok(Message::Tool {
                    call_id: String::from_json(call_id)?,
                    name: String::from_json(name)?,
                    content: String::from_json(content)?,
                    is_error: bool::from_json(is_error)?,
                }),
                Some(_) | None => Err(wrong_kind("[call id, name, content, is error]", fields)),
            }
        }
        other => Err(crate::protocol::decode::unknown_variant(other)),
    }
}
