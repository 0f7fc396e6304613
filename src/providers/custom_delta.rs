//! [`SentTranscript`]: what a custom provider was last sent, so the next request carries only
//! what changed. A run's transcript grows by a few messages a step; serialising and re-parsing
//! all of it for every call made each step cost time in proportion to the history. The page
//! still receives the whole [`custom_request`](super::custom_request) object: the bridge keeps
//! the messages (and tools) it already has and appends the new ones.

use serde_json::Value;

use serde_json::json;

use super::openai::{message_json, stream_body, tools_json};
use crate::protocol::message::{Message, ToolSpec};
use crate::protocol::model::ModelRequest;

/// The part of a request the receiving side must build from its copy of the last one.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestDelta {
    /// How many wire messages (the system message included) of the previous request open this
    /// one unchanged; `body.messages` holds the rest.
    pub keep: usize,
    /// The tools are those of the previous request (`body` then has no `tools`).
    pub same_tools: bool,
    /// The request object with only the new messages and, unless `same_tools`, the tools.
    pub body: Value,
}

/// The system prompt, messages and tools most recently sent (empty before the first call).
#[derive(Debug, Default)]
pub struct SentTranscript {
    /// `None` until something was sent (or after [`SentTranscript::forget`]).
    system: Option<Option<String>>,
    messages: Vec<Message>,
    /// The lineage of the messages last sent (see [`RequestMessages`](crate::protocol::RequestMessages)).
    lineage: Option<u64>,
    tools: Vec<ToolSpec>,
}

impl SentTranscript {
    /// The delta that turns the previous request into the one for `req`, and remembers `req`
    /// as sent. Call it once per call, right before handing the delta over.
    pub fn delta(&mut self, req: &ModelRequest, model: &str) -> RequestDelta {
        let same_system = self.system.as_ref() == Some(&req.system);
        let kept = if !same_system {
            0
        } else if self
            .lineage
            .is_some_and(|lineage| req.messages.extends(lineage, self.messages.len()))
        {
            // The same transcript, grown: what was sent is still its start.
            self.messages.len()
        } else {
            self.messages
                .iter()
                .zip(&req.messages)
                .take_while(|(sent, now)| sent == now)
                .count()
        };
        let system_wire = usize::from(req.system.is_some());
        let mut messages = Vec::with_capacity(req.messages.len() - kept + 1);
        if !same_system {
            if let Some(system) = &req.system {
                messages.push(json!({ "role": "system", "content": system }));
            }
        }
        messages.extend(req.messages[kept..].iter().map(message_json));
        let keep = if same_system { system_wire + kept } else { 0 };
        let same_tools = same_system && !req.tools.is_empty() && self.tools == req.tools;
        let mut body = stream_body(model, messages, "max_tokens", req.max_output_tokens);
        if let Some(object) = body.as_object_mut() {
            if !req.tools.is_empty() {
                if !same_tools {
                    object.insert("tools".into(), tools_json(&req.tools));
                }
                object.insert("tool_choice".into(), json!("auto"));
            }
        }
        self.system = Some(req.system.clone());
        self.lineage = Some(req.messages.lineage());
        self.messages.truncate(kept);
        self.messages.extend_from_slice(&req.messages[kept..]);
        if !same_tools {
            self.tools = req.tools.clone();
        }
        RequestDelta {
            keep,
            same_tools,
            body,
        }
    }

    /// Forgets what was sent: the next delta carries the whole request. Call it when the
    /// receiving side may not hold the last request (its call failed before taking it).
    pub fn forget(&mut self) {
        *self = SentTranscript::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{RequestMessages, ToolCall};
    use crate::providers::custom_request;
    use pretty_assertions::assert_eq;

    /// What the bridge does with a delta: keep `keep` messages and the tools, append the rest.
    #[derive(Default)]
    struct Receiver {
        messages: Vec<Value>,
        tools: Option<Value>,
    }

    impl Receiver {
        fn apply(&mut self, delta: RequestDelta) -> Value {
            let mut body = delta.body;
            assert!(delta.keep <= self.messages.len(), "keeps more than it has");
            self.messages.truncate(delta.keep);
            if let Some(Value::Array(new)) = body.get("messages") {
                self.messages.extend(new.iter().cloned());
            }
            body["messages"] = Value::Array(self.messages.clone());
            if delta.same_tools {
                body["tools"] = self.tools.clone().unwrap_or(Value::Null);
            } else {
                self.tools = body.get("tools").cloned();
            }
            body
        }
    }

    fn tool(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: format!("{name} things"),
            parameters: json!({ "type": "object" }),
            local_parameters: None,
        }
    }

    fn step(i: usize) -> [Message; 2] {
        [
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: format!("c{i}"),
                    name: "noop".into(),
                    arguments: format!("{{\"i\":{i}}}"),
                }],
            },
            Message::Tool {
                call_id: format!("c{i}"),
                content: format!("ok {i}"),
                is_error: i.is_multiple_of(3),
                name: "noop".into(),
            },
        ]
    }

    fn request(system: Option<&str>, messages: &[Message], tools: &[ToolSpec]) -> ModelRequest {
        ModelRequest {
            system: system.map(str::to_string),
            messages: messages.to_vec().into(),
            tools: tools.to_vec(),
            max_output_tokens: 512,
        }
    }

    #[test]
    fn a_growing_transcript_is_sent_as_its_new_messages_and_rebuilt_whole() {
        let mut sent = SentTranscript::default();
        let mut receiver = Receiver::default();
        let tools = [tool("noop")];
        let mut messages = vec![Message::user("go")];
        for i in 0..5 {
            let req = request(Some("be brief"), &messages, &tools);
            let delta = sent.delta(&req, "m");
            let new = delta.body["messages"].as_array().map_or(0, Vec::len);
            if i == 0 {
                assert_eq!((delta.keep, delta.same_tools, new), (0, false, 2));
            } else {
                assert_eq!((delta.keep, delta.same_tools, new), (2 * i, true, 2));
            }
            assert_eq!(receiver.apply(delta), custom_request(&req, "m"));
            messages.extend(step(i));
        }
    }

    #[test]
    fn a_list_of_the_same_lineage_is_taken_as_grown_without_comparing_it() {
        let mut sent = SentTranscript::default();
        let tools = [tool("noop")];
        let lineage = crate::protocol::request_messages::new_lineage();
        let shared = |messages: Vec<Message>| {
            let mut req = request(None, &[], &tools);
            req.messages = RequestMessages::shared(std::rc::Rc::new(messages), lineage);
            req
        };
        let _ = sent.delta(&shared(vec![Message::user("go")]), "m");
        // Its lineage vouches that the first message is unchanged: it is not looked at.
        let delta = sent.delta(
            &shared(vec![Message::user("changed"), Message::user("next")]),
            "m",
        );
        assert_eq!(delta.keep, 1);
        assert_eq!(delta.body["messages"].as_array().map(Vec::len), Some(1));
        // A list of another lineage is compared with what was sent, and kept as far as they
        // agree.
        let other = request(None, &[Message::user("go"), Message::user("other")], &tools);
        assert_eq!(sent.delta(&other, "m").keep, 1);
        let differs = request(
            None,
            &[Message::user("changed"), Message::user("other")],
            &tools,
        );
        assert_eq!(sent.delta(&differs, "m").keep, 0);
    }

    #[test]
    fn a_rewritten_history_a_new_system_prompt_or_new_tools_are_sent_again() {
        let mut sent = SentTranscript::default();
        let mut receiver = Receiver::default();
        let mut messages = vec![Message::user("go")];
        messages.extend(step(0));
        messages.extend(step(1));
        let cases = [
            request(None, &messages, &[tool("noop")]),
            // Compaction: the history is replaced by a summary.
            request(
                None,
                &[Message::user("summary"), step(2)[0].clone()],
                &[tool("noop")],
            ),
            // A compaction call itself: no tools.
            request(None, &[Message::user("summary")], &[]),
            request(
                None,
                &[Message::user("summary")],
                &[tool("noop"), tool("vfs")],
            ),
            request(
                Some("now with rules"),
                &[Message::user("summary")],
                &[tool("noop")],
            ),
            request(Some("now with rules"), &messages, &[tool("noop")]),
            request(None, &messages, &[tool("noop")]),
        ];
        for req in cases {
            let delta = sent.delta(&req, "m");
            assert_eq!(receiver.apply(delta), custom_request(&req, "m"));
        }
    }

    #[test]
    fn after_forget_the_whole_request_is_sent() {
        let mut sent = SentTranscript::default();
        let req = request(Some("s"), &[Message::user("a")], &[tool("noop")]);
        sent.delta(&req, "m");
        sent.forget();
        let delta = sent.delta(&req, "m");
        assert_eq!(
            delta,
            RequestDelta {
                keep: 0,
                same_tools: false,
                body: custom_request(&req, "m"),
            }
        );
    }
}
