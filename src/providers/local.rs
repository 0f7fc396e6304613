//! Requests to and replies from a small local model (SmolLM2 through llama.cpp / wllama) whose
//! chat template has no tool calling. Tools are described in the system prompt, and a GBNF
//! grammar built from their schemas (one `{tool, arguments}` shape per tool, the answer being a
//! call to the `answer` pseudo-tool) admits only well-formed calls. Replies are parsed back
//! strictly: output that is neither a call nor an answer is a malformed reply (an error the
//! model is shown), never a final answer. Earlier turns are rendered exactly as the grammar had
//! the model write them (the same text; the KV cache still stops there when the tokenizer
//! splits that text otherwise than the model's tokens did).

use serde::Serialize;
use serde_json::Value;

use super::local_grammar::{
    answer_offered, grammar_schema, render_call, render_final, reply_grammar, ANSWER_KEY,
    ANSWER_TOOL, REPLY_PREFIX,
};
use super::local_prompt::compact_tool_prompt;
use crate::protocol::message::{Message, ToolCall, ToolSpec};
use crate::protocol::model::{FinishReason, ModelReply, ModelRequest, Usage};

/// A chat request for the local runtime.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LocalRequest {
    /// OpenAI-style `{role, content}` messages with plain-text content (`system`, `user`,
    /// `assistant` only).
    pub messages: Vec<Value>,
    /// The GBNF grammar admitting the rest of one tool call or a final answer after the last
    /// message, [`REPLY_PREFIX`] ([`reply_grammar`]); `None` (free text) when no tools are
    /// offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grammar: Option<String>,
    /// Upper bound on generated tokens.
    pub max_tokens: u32,
    /// Sampling temperature: 0 (greedy), so a small model's tool calls are reproducible.
    pub temperature: f32,
}

impl LocalRequest {
    /// The whole reply, from what the runtime generated: the start of the turn the request
    /// wrote for the model (a last assistant message, [`REPLY_PREFIX`]) followed by `generated`.
    pub fn reply_text(&self, generated: &str) -> String {
        match self.messages.last() {
            Some(last) if last["role"] == "assistant" => {
                format!(
                    "{}{generated}",
                    last["content"].as_str().unwrap_or_default()
                )
            }
            Some(_) | None => generated.to_string(),
        }
    }
}

/// Most tokens a reply may take when tools are offered: a tool call or a short answer fits, and
/// a model that runs on (a small model can write JSON without end) is cut here; the cut reply
/// comes back as `MaxTokens`.
pub const LOCAL_TOOL_REPLY_MAX_TOKENS: u32 = 160;

/// The line after each tool result when tools are offered. Why: SmolLM2-135M, shown a result
/// alone, writes the call it just made again (a two-step task stopped after its first call);
/// told what comes next, it went on to the second call (measured natively on the scenarios).
pub const NEXT_STEP_HINT: &str = "Call the next tool the task needs, or answer if it is done.";

/// Builds the local request. With tools, the system message starts with the compact tool
/// prompt ([`compact_tool_prompt`]) and then the given system text: what stays the same from step
/// to step comes first, so the runtime's KV cache keeps it (a todo list appended to the system
/// text changes only the end). Tool results become user messages (`Result of <name>:` or
/// `Error from <name>:`, then [`NEXT_STEP_HINT`]) because the template has no tool role;
/// earlier assistant turns are rendered as the JSON objects the model would have produced, and
/// the model's new turn starts with [`REPLY_PREFIX`] (a last assistant message the runtime
/// continues; the reply text is that prefix plus what the model wrote).
pub fn build_local_request(req: &ModelRequest) -> LocalRequest {
    let offered = offered_locally(req);
    let tools_offered = !offered.is_empty();
    let given = req.system.clone().unwrap_or_default();
    let system = if tools_offered {
        let tools = compact_tool_prompt(&offered);
        if given.is_empty() {
            tools
        } else {
            format!("{tools}\n\n{given}")
        }
    } else {
        given
    };
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !system.is_empty() {
        messages.push(text_message("system", system));
    }
    for message in &req.messages {
        let (role, content) = match message {
            Message::User { text } => ("user", text.clone()),
            Message::Assistant { text, tool_calls } => {
                ("assistant", render_assistant(text, tool_calls, &req.tools))
            }
            Message::Tool {
                call_id: _,
                name,
                content,
                is_error,
            } => {
                // No call id: the local model makes one call per reply, and an id is tokens
                // the model reads at every later step.
                let head = if *is_error { "Error from" } else { "Result of" };
                let text = if tools_offered {
                    format!("{head} {name}:\n{content}\n{NEXT_STEP_HINT}")
                } else {
                    format!("{head} {name}:\n{content}")
                };
                ("user", text)
            }
        };
        messages.push(text_message(role, content));
    }
    if tools_offered {
        messages.push(text_message("assistant", REPLY_PREFIX.to_string()));
    }
    LocalRequest {
        messages,
        grammar: tools_offered.then(|| reply_grammar(&offered)),
        max_tokens: if tools_offered {
            req.max_output_tokens.min(LOCAL_TOOL_REPLY_MAX_TOKENS)
        } else {
            req.max_output_tokens
        },
        temperature: 0.0,
    }
}

/// The tools offered to the local model: all of the request's, but one that needs a URL (a
/// required argument of `format: uri`) only once the conversation holds one. Why: with nothing
/// to fetch, SmolLM2-135M took `http_fetch` for "Hello, who are you?", "What time is it?" and a
/// haiku, copying its own name and description into the call (`{"url":"http_fetch","body":
/// "truncated to 100 KB"}`), three refusals and the run stopped; with no such tool offered
/// it answered them (native scenarios, 13 tasks).
pub(super) fn offered_locally(req: &ModelRequest) -> std::borrow::Cow<'_, [ToolSpec]> {
    let holds_url = req.messages.iter().any(|message| {
        let text = match message {
            Message::User { text } | Message::Assistant { text, .. } => text,
            Message::Tool { content, .. } => content,
        };
        text.contains("http://") || text.contains("https://")
    });
    if holds_url || !req.tools.iter().any(needs_url) {
        return std::borrow::Cow::Borrowed(&req.tools);
    }
    std::borrow::Cow::Owned(
        req.tools
            .iter()
            .filter(|t| !needs_url(t))
            .cloned()
            .collect(),
    )
}

/// Whether `tool` has a required argument that is a URL.
fn needs_url(tool: &ToolSpec) -> bool {
    let schema = &tool.parameters;
    let Some(required) = schema["required"].as_array() else {
        return false;
    };
    required
        .iter()
        .filter_map(Value::as_str)
        .any(|key| schema["properties"][key]["format"].as_str() == Some("uri"))
}

/// `{"role", "content"}`.
fn text_message(role: &str, content: String) -> Value {
    serde_json::json!({ "role": role, "content": content })
}

/// An assistant turn as the model would have written it: one `{"tool", "arguments"}` object per
/// call (after any text), else `{"final": text}` when tools are offered, else the plain text.
fn render_assistant(text: &str, tool_calls: &[ToolCall], tools: &[ToolSpec]) -> String {
    if tool_calls.is_empty() {
        // A reply kept as the raw JSON the model wrote (a call cut at the output limit) goes
        // back as it is. Why: wrapped as an answer, its JSON came back escaped inside the
        // answer's text, and the default model copied that nesting into its next replies
        // (a cut `finish`, then "What files do I have?" answered `{\"tool\":\"finiSh\",…`).
        return if tools.is_empty() || text.starts_with(REPLY_PREFIX) {
            text.to_string()
        } else {
            render_final(text)
        };
    }
    let mut lines: Vec<String> = Vec::with_capacity(tool_calls.len() + 1);
    if !text.is_empty() {
        lines.push(text.to_string());
    }
    lines.extend(tool_calls.iter().map(|call| {
        // Arguments that are not valid JSON are embedded as a string.
        let arguments = serde_json::from_str::<serde_json::Value>(&call.arguments)
            .unwrap_or_else(|_| Value::String(call.arguments.clone()));
        let schema = tools
            .iter()
            .find(|tool| tool.name == call.name)
            .map(grammar_schema);
        render_call(&call.name, &arguments, schema)
    }));
    lines.join("\n")
}

/// Parses what the local model produced. When tools were offered (`offered` is not empty), a
/// call to the answer pseudo-tool (`{"tool":"answer","arguments":{"text":".."}}`, see
/// [`ANSWER_TOOL`]) or `{"final": ".."}` is the answer text (`EndTurn`); any other `{"tool": ..,
/// "arguments": {..}}` becomes one tool call (arguments re-serialised as JSON text, finish `ToolUse`; a call
/// whose arguments are not an object keeps them as they are, so the core rejects it against the
/// tool's schema). A JSON object cut short
/// (the model hit its token limit) is returned as raw text with `MaxTokens` (an answer's text is
/// never cut inside JSON: it is written as plain text, `local_prose`); anything else is the
/// raw text with `Malformed`. Without tools the text is the answer. This never fails.
pub fn parse_local_output(
    text: &str,
    offered: &[ToolSpec],
    usage: Usage,
    call_id: String,
) -> ModelReply {
    let mut reply = ModelReply {
        text: text.to_string(),
        tool_calls: Vec::new(),
        finish: FinishReason::EndTurn,
        usage,
        model: String::new(),
        reasoning: String::new(),
    };
    if offered.is_empty() {
        return reply;
    }
    let candidate = strip_code_fence(text.trim());
    match serde_json::from_str::<serde_json::Value>(candidate) {
        Ok(Value::Object(object)) => {
            let tool = object.get("tool").and_then(Value::as_str);
            let arguments = object.get("arguments").filter(|a| a.is_object());
            if let (Some(ANSWER_TOOL), Some(text)) = (tool, answer_text(arguments)) {
                if answer_offered(offered) && object.len() == 2 {
                    text.clone_into(&mut reply.text);
                    return reply;
                }
            }
            let answer = object.get("final").and_then(Value::as_str);
            match (tool, arguments, answer) {
                (Some(name), Some(arguments), None) => {
                    reply.tool_calls.push(ToolCall {
                        id: call_id,
                        name: name.to_string(),
                        arguments: arguments.to_string(),
                    });
                    reply.text = String::new();
                    reply.finish = FinishReason::ToolUse;
                }
                (Some(name), None, None) => {
                    let raw = object
                        .get("arguments")
                        .map_or("null".into(), Value::to_string);
                    reply.tool_calls.push(ToolCall {
                        id: call_id,
                        name: name.to_string(),
                        arguments: raw,
                    });
                    reply.text = String::new();
                    reply.finish = FinishReason::ToolUse;
                }
                (None, None, Some(answer)) if object.len() == 1 => {
                    answer.clone_into(&mut reply.text)
                }
                _ => reply.finish = FinishReason::Malformed,
            }
        }
        Ok(_) => reply.finish = FinishReason::Malformed,
        Err(error) => {
            reply.finish = if error.is_eof() && candidate.starts_with('{') {
                FinishReason::MaxTokens
            } else {
                FinishReason::Malformed
            };
        }
    }
    reply
}

/// The text of an answer's arguments, `{"text": ".."}` and nothing else.
fn answer_text(arguments: Option<&Value>) -> Option<&str> {
    let arguments = arguments?.as_object()?;
    if arguments.len() != 1 {
        return None;
    }
    arguments.get(ANSWER_KEY)?.as_str()
}

/// The inside of a Markdown code fence (```` ```json ... ``` ````), or the text unchanged.
fn strip_code_fence(text: &str) -> &str {
    let Some(inner) = text.strip_prefix("```") else {
        return text;
    };
    let inner = inner.strip_suffix("```").unwrap_or(inner);
    let inner = inner.strip_prefix("json").unwrap_or(inner);
    inner.trim()
}
