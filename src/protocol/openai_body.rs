//! [`request_body`]: the Chat Completions request as JSON text, written straight from the
//! [`ModelRequest`] without building a `serde_json::Value` tree first. The body carries the
//! whole transcript every step, so this is the part of a step's cost that grows with history;
//! writing it directly costs about a third of building the tree, serialising and dropping it.
//! [`build_request`](super::openai::build_request) stays the readable definition of the same
//! object, and the tests hold the two equal.

use super::encode::{Object, ToJson};
use super::json::write_str;
use super::message::{Message, ToolCall, ToolSpec};
use super::model::ModelRequest;

/// The streaming request body for `req` and `model`, as `build_request(req, model)` would
/// serialise.
pub fn request_body(req: &ModelRequest, model: &str) -> String {
    let mut out = String::new();
    let mut body = Object::new(&mut out);
    body.member("\"max_completion_tokens\":", &req.max_output_tokens);
    body.key("\"messages\":");
    body.out.push('[');
    if let Some(system) = &req.system {
        body.out.push_str("{\"content\":");
        write_str(system, body.out);
        body.out.push_str(",\"role\":\"system\"}");
    }
    for (i, message) in req.messages.iter().enumerate() {
        if i > 0 || req.system.is_some() {
            body.out.push(',');
        }
        write_message(message, body.out);
    }
    body.out.push(']');
    body.member("\"model\":", model);
    body.key("\"stream\":true,\"stream_options\":{\"include_usage\":true}");
    if !req.tools.is_empty() {
        body.key("\"tools\":");
        body.out.push('[');
        for (i, tool) in req.tools.iter().enumerate() {
            if i > 0 {
                body.out.push(',');
            }
            write_tool(tool, body.out);
        }
        body.out.push(']');
    }
    body.end();
    out
}

/// One message as `message_json` shapes it (keys in the order a `Value` map writes them).
fn write_message(message: &Message, out: &mut String) {
    let mut map = Object::new(out);
    match message {
        Message::User { text } => {
            map.member("\"content\":", text);
            map.key("\"role\":\"user\"");
        }
        Message::Assistant { text, tool_calls } => {
            if text.is_empty() && !tool_calls.is_empty() {
                map.key("\"content\":null");
            } else {
                map.member("\"content\":", text);
            }
            map.key("\"role\":\"assistant\"");
            if !tool_calls.is_empty() {
                map.key("\"tool_calls\":");
                map.out.push('[');
                for (i, call) in tool_calls.iter().enumerate() {
                    if i > 0 {
                        map.out.push(',');
                    }
                    write_call(call, map.out);
                }
                map.out.push(']');
            }
        }
        Message::Tool {
            call_id,
            content,
            is_error,
            ..
        } => {
            if *is_error {
                map.member("\"content\":", &format!("Error: {content}"));
            } else {
                map.member("\"content\":", content);
            }
            map.key("\"role\":\"tool\"");
            map.member("\"tool_call_id\":", call_id);
        }
    }
    map.end();
}

fn write_call(call: &ToolCall, out: &mut String) {
    out.push_str("{\"function\":{\"arguments\":");
    write_str(&call.arguments, out);
    out.push_str(",\"name\":");
    write_str(&call.name, out);
    out.push_str("},\"id\":");
    write_str(&call.id, out);
    out.push_str(",\"type\":\"function\"}");
}

fn write_tool(tool: &ToolSpec, out: &mut String) {
    out.push_str("{\"function\":{\"description\":");
    write_str(&tool.description, out);
    out.push_str(",\"name\":");
    write_str(&tool.name, out);
    out.push_str(",\"parameters\":");
    tool.parameters.write_json(out);
    out.push_str("},\"type\":\"function\"}");
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
