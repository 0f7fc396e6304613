//! [`request_body`]: the Chat Completions request as JSON text, written straight from the
//! [`ModelRequest`] without building a `serde_json::Value` tree first. The body carries the
//! whole transcript every step, so this is the part of a step's cost that grows with history:
//! a [`BodyCache`] keeps the transcript's text between requests, so a step writes only the
//! messages it added. [`build_request`](super::openai::build_request) stays the readable
//! definition of the same object, and the tests hold the two equal.

use super::encode::{Object, ToJson};
use super::json::write_str;
use super::message::{Message, ToolCall, ToolSpec};
use super::model::ModelRequest;

/// The messages array of the last body written, kept for the next one: a run's requests are
/// one lineage of transcripts that grow by a few messages a step, and writing the whole history
/// again every step cost time in proportion to it.
#[derive(Debug, Default)]
pub struct BodyCache {
    /// The system prompt the text opens with.
    system: Option<String>,
    /// The lineage of the transcript written (0: none, no list has it).
    lineage: u64,
    /// How many of its messages are written.
    written: usize,
    /// The array's elements as JSON, comma-separated, without the brackets.
    text: String,
}

/// The streaming request body for `req` and `model` as UTF-8 JSON, as `build_request(req, model)`
/// would serialise it, writing only the messages `cache` does not hold yet: all of them when
/// `req` is not the transcript `cache` last saw grown at its end (another lineage, a compacted
/// transcript, another system prompt).
pub fn request_body(req: &ModelRequest, model: &str, cache: &mut BodyCache) -> Vec<u8> {
    if !req.messages.extends(cache.lineage, cache.written) || cache.system != req.system {
        cache.text.clear();
        cache.written = 0;
        cache.system = req.system.clone();
        if let Some(system) = &req.system {
            cache.text.push_str("{\"content\":");
            write_str(system, &mut cache.text);
            cache.text.push_str(",\"role\":\"system\"}");
        }
    }
    for message in &req.messages[cache.written..] {
        if !cache.text.is_empty() {
            cache.text.push(',');
        }
        write_message(message, &mut cache.text);
    }
    cache.lineage = req.messages.lineage();
    cache.written = req.messages.len();
    let mut out = String::with_capacity(cache.text.len() + 512);
    let mut body = Object::new(&mut out);
    body.member("\"max_completion_tokens\":", &req.max_output_tokens);
    body.key("\"messages\":");
    body.out.push('[');
    body.out.push_str(&cache.text);
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
    out.into_bytes()
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
    use crate::protocol::RequestMessages;
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
    fn a_cached_body_is_the_whole_body_as_the_transcript_grows_and_changes() {
        let mut cache = BodyCache::default();
        let full = request(Some("be brief"), vec![vfs()]);
        let list: Vec<Message> = full.messages.to_vec();
        let lineage = crate::protocol::request_messages::new_lineage();
        let grown = |n: usize, system: Option<&str>, lineage: u64| ModelRequest {
            system: system.map(str::to_string),
            messages: RequestMessages::shared(std::rc::Rc::new(list[..n].to_vec()), lineage),
            tools: vec![vfs()],
            max_output_tokens: 4096,
        };
        // Growing one lineage, asked twice at one length; another lineage shorter than the
        // text held (a compacted transcript), growing; then the system prompt gone.
        let other = crate::protocol::request_messages::new_lineage();
        let requests = [
            grown(1, Some("be brief"), lineage),
            grown(3, Some("be brief"), lineage),
            grown(3, Some("be brief"), lineage),
            grown(6, Some("be brief"), lineage),
            grown(2, Some("be brief"), other),
            grown(4, Some("be brief"), other),
            grown(5, None, other),
        ];
        for req in &requests {
            let cached = request_body(req, "gpt-4o-mini", &mut cache);
            assert_eq!(
                String::from_utf8(cached).unwrap(),
                build_request(req, "gpt-4o-mini").to_string()
            );
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
                String::from_utf8(request_body(&req, "gpt-4o-mini", &mut BodyCache::default()))
                    .unwrap(),
                build_request(&req, "gpt-4o-mini").to_string()
            );
        }
    }
}
