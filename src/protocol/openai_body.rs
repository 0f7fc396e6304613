//! [`request_body`]: the Chat Completions request as JSON text, written straight from the
//! [`ModelRequest`] without building a `serde_json::Value` tree first. The body carries the
//! whole transcript every step, so this is the part of a step's cost that grows with history;
//! writing it directly costs about a third of building the tree, serialising and dropping it.
//! [`build_request`](super::openai::build_request) stays the readable definition of the same
//! object, and the tests hold the two equal. [`request_body_cached`] keeps the transcript's text
//! between requests, so a step writes only the messages it added.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::message::{Message, ToolCall, ToolSpec};
use super::model::ModelRequest;

/// The streaming request body for `req` and `model`, as `build_request(req, model)` would
/// serialise.
pub fn request_body(req: &ModelRequest, model: &str) -> String {
    let bytes = request_body_cached(req, model, &mut BodyCache::default());
    // Only JSON text is ever written to it.
    String::from_utf8(bytes).unwrap_or_default()
}

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
    text: Vec<u8>,
}

/// [`request_body`] as UTF-8 bytes, writing only the messages `cache` does not hold yet: all of
/// them when `req` is not the transcript `cache` last saw grown at its end (another lineage, a
/// compacted transcript, another system prompt).
pub fn request_body_cached(req: &ModelRequest, model: &str, cache: &mut BodyCache) -> Vec<u8> {
    if !req.messages.extends(cache.lineage, cache.written) || cache.system != req.system {
        cache.text.clear();
        cache.written = 0;
        cache.system = req.system.clone();
        if let Some(system) = &req.system {
            write_json(&mut cache.text, &System(system));
        }
    }
    for message in &req.messages[cache.written..] {
        if !cache.text.is_empty() {
            cache.text.push(b',');
        }
        write_json(&mut cache.text, &Wire(message));
    }
    cache.lineage = req.messages.lineage();
    cache.written = req.messages.len();
    // The keys in the order a `Value` map writes them, as `build_request` has them.
    let mut out = Vec::with_capacity(cache.text.len() + 512);
    out.extend_from_slice(b"{\"max_completion_tokens\":");
    write_json(&mut out, &req.max_output_tokens);
    out.extend_from_slice(b",\"messages\":[");
    out.extend_from_slice(&cache.text);
    out.extend_from_slice(b"],\"model\":");
    write_json(&mut out, model);
    out.extend_from_slice(b",\"stream\":true,\"stream_options\":{\"include_usage\":true}");
    if !req.tools.is_empty() {
        out.extend_from_slice(b",\"tools\":");
        write_json(&mut out, &Tools(&req.tools));
    }
    out.push(b'}');
    out
}

/// Appends `value` as JSON to `out`. Cannot fail: every key written is a string and every
/// number finite.
fn write_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(out, value);
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
            let cached = request_body_cached(req, "gpt-4o-mini", &mut cache);
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
                request_body(&req, "gpt-4o-mini"),
                build_request(&req, "gpt-4o-mini").to_string()
            );
        }
    }
}
