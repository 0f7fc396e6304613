//! [`request_body`]: the Chat Completions request as JSON text, written straight from the
//! [`ModelRequest`] without building a `serde_json::Value` tree first. The body carries the
//! whole transcript every step, so this is the part of a step's cost that grows with history;
//! writing it directly costs about a third of building the tree, serialising and dropping it.
//! [`build_request`](super::openai::build_request) stays the readable definition of the same
//! object, and the tests hold the two equal.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::message::{Message, ToolCall, ToolSpec};
use super::model::ModelRequest;

/// The streaming request body for `req` and `model`, as `build_request(req, model)` would
/// serialise.
pub fn request_body(req: &ModelRequest, model: &str) -> String {
    // Writing to a String cannot fail: every key is a string and every number finite.
    serde_json::to_string(&Body { req, model }).unwrap_or_default()
}

struct Body<'a> {
    req: &'a ModelRequest,
    model: &'a str,
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("max_completion_tokens", &self.req.max_output_tokens)?;
        map.serialize_entry("messages", &Messages(self.req))?;
        map.serialize_entry("model", self.model)?;
        map.serialize_entry("stream", &true)?;
        map.serialize_entry("stream_options", &StreamOptions)?;
        if !self.req.tools.is_empty() {
            map.serialize_entry("tools", &Tools(&self.req.tools))?;
        }
        map.end()
    }
}

struct StreamOptions;

impl Serialize for StreamOptions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("include_usage", &true)?;
        map.end()
    }
}

/// The system prompt (as the first message) and the transcript.
struct Messages<'a>(&'a ModelRequest);

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        if let Some(system) = &self.0.system {
            seq.serialize_element(&System(system))?;
        }
        for message in &self.0.messages {
            seq.serialize_element(&Wire(message))?;
        }
        seq.end()
    }
}

struct System<'a>(&'a str);

impl Serialize for System<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("content", self.0)?;
        map.serialize_entry("role", "system")?;
        map.end()
    }
}

/// One message as `message_json` shapes it (keys in the order a `Value` map writes them).
struct Wire<'a>(&'a Message);

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.0 {
            Message::User { text } => {
                map.serialize_entry("content", text)?;
                map.serialize_entry("role", "user")?;
            }
            Message::Assistant { text, tool_calls } => {
                if text.is_empty() && !tool_calls.is_empty() {
                    map.serialize_entry("content", &())?;
                } else {
                    map.serialize_entry("content", text)?;
                }
                map.serialize_entry("role", "assistant")?;
                if !tool_calls.is_empty() {
                    map.serialize_entry("tool_calls", &Calls(tool_calls))?;
                }
            }
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } => {
                if *is_error {
                    map.serialize_entry("content", &format_args!("Error: {content}"))?;
                } else {
                    map.serialize_entry("content", content)?;
                }
                map.serialize_entry("role", "tool")?;
                map.serialize_entry("tool_call_id", call_id)?;
            }
        }
        map.end()
    }
}

struct Calls<'a>(&'a [ToolCall]);

impl Serialize for Calls<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for call in self.0 {
            seq.serialize_element(&Call(call))?;
        }
        seq.end()
    }
}

struct Call<'a>(&'a ToolCall);

impl Serialize for Call<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("function", &Function(self.0))?;
        map.serialize_entry("id", &self.0.id)?;
        map.serialize_entry("type", "function")?;
        map.end()
    }
}

struct Function<'a>(&'a ToolCall);

impl Serialize for Function<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("arguments", &self.0.arguments)?;
        map.serialize_entry("name", &self.0.name)?;
        map.end()
    }
}

struct Tools<'a>(&'a [ToolSpec]);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for tool in self.0 {
            seq.serialize_element(&Tool(tool))?;
        }
        seq.end()
    }
}

struct Tool<'a>(&'a ToolSpec);

impl Serialize for Tool<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("function", &ToolFunction(self.0))?;
        map.serialize_entry("type", "function")?;
        map.end()
    }
}

struct ToolFunction<'a>(&'a ToolSpec);

impl Serialize for ToolFunction<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("description", &self.0.description)?;
        map.serialize_entry("name", &self.0.name)?;
        map.serialize_entry("parameters", &self.0.parameters)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::openai::build_request;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn request(system: Option<&str>, tools: Vec<ToolSpec>) -> ModelRequest {
        ModelRequest {
            system: system.map(str::to_string),
            messages: vec![
                Message::User {
                    text: "say \"hi\"\n".into(),
                },
                Message::Assistant {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "vfs".into(),
                        arguments: r#"{"op":"ls"}"#.into(),
                    }],
                },
                Message::Tool {
                    call_id: "c1".into(),
                    name: "vfs".into(),
                    content: "not found: /x".into(),
                    is_error: true,
                },
                Message::Tool {
                    call_id: "c2".into(),
                    name: "vfs".into(),
                    content: "ok ✓".into(),
                    is_error: false,
                },
                Message::Assistant {
                    text: "done".into(),
                    tool_calls: Vec::new(),
                },
                Message::Assistant {
                    text: "and one more".into(),
                    tool_calls: vec![ToolCall {
                        id: "c3".into(),
                        name: "noop".into(),
                        arguments: "{}".into(),
                    }],
                },
            ]
            .into(),
            tools,
            max_output_tokens: 4096,
        }
    }

    fn vfs() -> ToolSpec {
        ToolSpec {
            name: "vfs".into(),
            description: "files".into(),
            parameters: json!({ "type": "object", "properties": { "op": { "type": "string" } } }),
            local_parameters: None,
        }
    }

    #[test]
    fn the_body_is_the_request_object_as_text_byte_for_byte() {
        for req in [
            request(Some("be brief"), vec![vfs()]),
            request(None, vec![vfs(), vfs()]),
            request(None, Vec::new()),
        ] {
            assert_eq!(
                request_body(&req, "gpt-4o-mini"),
                build_request(&req, "gpt-4o-mini").to_string()
            );
        }
    }
}
