//! Tool calling in a local model's own format, for the families whose chat template has one
//! ([`ToolDialect`]): Qwen2.5 and Qwen3 (Hermes style: the tools' signatures in the system
//! message inside `<tools></tools>`, each call `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`,
//! results in a user turn inside `<tool_response></tool_response>`, as their templates render
//! them), and Gemma 3, whose template has no tool role: Google's documented prompt for it
//! (the functions as a JSON list in the first turn, a call as the whole reply,
//! `{"name": …, "parameters": {…}}`, results back in a ```` ```tool_output ```` block). Each
//! reply is constrained by a grammar built from the session's tools that admits a well-formed
//! call in that format or an answer in plain text ([`native_grammar`]); calls are written as the
//! templates' `tojson` writes them (`", "` and `": "`), so an earlier call goes back into the
//! prompt as the model wrote it. Other models (SmolLM2) keep the compact format of
//! [`super::local`].

use serde_json::Value;

use super::local::{build_local_request, offered_locally, LocalRequest};
use super::local_grammar::{grammar_schema, Builder};
use super::local_json::{base_rules, json_text, literal, write_value, SPACED};
use crate::protocol::message::{Message, ToolCall, ToolSpec};
use crate::protocol::model::ModelRequest;

/// How a local model is asked for tool calls, from its chat template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolDialect {
    /// No format of its own (SmolLM2): the compact `{"tool":…}` reply of [`super::local`].
    Compact,
    /// Qwen's Hermes-style calls in `<tool_call>` tags.
    Hermes {
        /// The system text the template writes before the tools when the request has none
        /// (Qwen2.5: "You are Qwen, created by Alibaba Cloud. …"; Qwen3: none).
        default_system: Option<String>,
    },
    /// Gemma 3: a JSON call as the whole reply, as Google documents it.
    Gemma,
}

/// Qwen2.5's default system text, which its template writes before the tools.
const QWEN25_SYSTEM: &str = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";

impl ToolDialect {
    /// The dialect a model's chat template implies (`None`: the template is not known).
    pub fn from_chat_template(template: Option<&str>) -> ToolDialect {
        match template {
            Some(t) if t.contains("<|im_start|>") && t.contains("<tool_call>") => {
                ToolDialect::Hermes {
                    default_system: t.contains(QWEN25_SYSTEM).then(|| QWEN25_SYSTEM.to_string()),
                }
            }
            Some(t) if t.contains("<start_of_turn>") && t.contains("<end_of_turn>") => {
                ToolDialect::Gemma
            }
            Some(_) | None => ToolDialect::Compact,
        }
    }
}

/// The tools block Qwen's template appends to the system message (before `<|im_end|>`).
pub fn hermes_tools_block(tools: &[ToolSpec]) -> String {
    let mut out = String::from(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
    );
    for tool in tools {
        let mut parameters = String::new();
        write_value(&mut parameters, grammar_schema(tool), &Value::Null, SPACED);
        out.push_str(&format!(
            "\n{{\"type\": \"function\", \"function\": {{\"name\": {}, \"description\": {}, \"parameters\": {parameters}}}}}",
            json_text(&tool.name),
            json_text(&tool.description)
        ));
    }
    out.push_str(
        "\n</tools>\n\nFor each function call, return a json object with function name and \
         arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n\
         {\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>",
    );
    out
}

/// Google's function-calling prompt for Gemma (the JSON form), with the tools as a JSON list.
pub fn gemma_tools_block(tools: &[ToolSpec]) -> String {
    let listed: Vec<String> = tools
        .iter()
        .map(|tool| {
            let parameters = serde_json::to_string_pretty(grammar_schema(tool))
                .unwrap_or_else(|_| "{}".to_string())
                .replace('\n', "\n    ");
            format!(
                "  {{\n    \"name\": {},\n    \"description\": {},\n    \"parameters\": {parameters}\n  }}",
                json_text(&tool.name),
                json_text(&tool.description)
            )
        })
        .collect();
    format!(
        "You have access to functions. If you decide to invoke any of the function(s),\n\
         you MUST put it in the format of\n\
         {{\"name\": function name, \"parameters\": dictionary of argument name and its value}}\n\n\
         You SHOULD NOT include any other text in the response if you call a function\n[\n{}\n]",
        listed.join(",\n")
    )
}

/// Builds the local request for a model speaking `dialect` (the compact one for
/// [`ToolDialect::Compact`]). The tools' definitions go where the family expects them; earlier
/// calls and results are written in its format; the reply is the model's own turn, constrained
/// by [`native_grammar`] when tools are offered, up to the request's output limit (an answer is
/// written in the same completion).
pub fn build_native_request(req: &ModelRequest, dialect: &ToolDialect) -> LocalRequest {
    let default_system = match dialect {
        ToolDialect::Compact => return build_local_request(req),
        ToolDialect::Hermes { default_system } => default_system.as_deref(),
        ToolDialect::Gemma => None,
    };
    let offered = offered_locally(req);
    let given = req.system.clone().unwrap_or_default();
    let system = match (offered.is_empty(), dialect) {
        (true, _) => given,
        (false, ToolDialect::Gemma) if given.is_empty() => gemma_tools_block(&offered),
        (false, ToolDialect::Gemma) => format!("{}\n\n{given}", gemma_tools_block(&offered)),
        (false, ToolDialect::Hermes { .. } | ToolDialect::Compact) => {
            let head = if given.is_empty() {
                default_system.unwrap_or_default()
            } else {
                given.as_str()
            };
            let tools = hermes_tools_block(&offered);
            if head.is_empty() {
                tools
            } else {
                format!("{head}\n\n{tools}")
            }
        }
    };
    let mut messages: Vec<Value> = Vec::with_capacity(req.messages.len() + 1);
    if !system.is_empty() {
        messages.push(serde_json::json!({ "role": "system", "content": system }));
    }
    // Results of one batch of calls share one user turn, as the templates write them.
    let mut results: Vec<String> = Vec::new();
    for message in req.messages.iter() {
        if let Message::Tool {
            content, is_error, ..
        } = message
        {
            let content = if *is_error {
                format!("Error: {content}")
            } else {
                content.clone()
            };
            results.push(match dialect {
                ToolDialect::Gemma => format!("```tool_output\n{content}\n```"),
                ToolDialect::Hermes { .. } | ToolDialect::Compact => {
                    format!("<tool_response>\n{content}\n</tool_response>")
                }
            });
            continue;
        }
        if !results.is_empty() {
            let content = std::mem::take(&mut results).join("\n");
            messages.push(serde_json::json!({ "role": "user", "content": content }));
        }
        let (role, content) = match message {
            Message::User { text } => ("user", text.clone()),
            Message::Assistant { text, tool_calls } => (
                "assistant",
                render_native_turn(text, tool_calls, &req.tools, dialect),
            ),
            Message::Tool { .. } => continue,
        };
        messages.push(serde_json::json!({ "role": role, "content": content }));
    }
    if !results.is_empty() {
        messages.push(serde_json::json!({ "role": "user", "content": results.join("\n") }));
    }
    LocalRequest {
        messages,
        grammar: (!offered.is_empty()).then(|| native_grammar(&offered, dialect)),
        max_tokens: req.max_output_tokens,
        temperature: 0.0,
    }
}

/// An earlier assistant turn as the model wrote it in its format: its text, then each call.
pub fn render_native_turn(
    text: &str,
    tool_calls: &[ToolCall],
    tools: &[ToolSpec],
    dialect: &ToolDialect,
) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(tool_calls.len() + 1);
    if !text.is_empty() {
        parts.push(text.to_string());
    }
    for call in tool_calls {
        let arguments = serde_json::from_str::<Value>(&call.arguments)
            .unwrap_or_else(|_| Value::String(call.arguments.clone()));
        let schema = tools
            .iter()
            .find(|tool| tool.name == call.name)
            .map_or(&Value::Null, grammar_schema);
        let mut written = String::new();
        write_value(&mut written, &arguments, schema, SPACED);
        let name = json_text(&call.name);
        parts.push(match dialect {
            ToolDialect::Gemma => format!("{{\"name\": {name}, \"parameters\": {written}}}"),
            ToolDialect::Hermes { .. } | ToolDialect::Compact => {
                format!("<tool_call>\n{{\"name\": {name}, \"arguments\": {written}}}\n</tool_call>")
            }
        });
    }
    parts.join("\n")
}

/// The grammar of a reply offering `tools` in `dialect`'s format. Qwen: an optional thinking
/// block, then one or more calls, or text (which never holds `<t`, so a call can follow it);
/// Gemma: one call as the whole reply, or text that does not open with `{`. Arguments follow
/// each tool's schema as [`super::local_grammar`] reads it, with the templates' spacing.
pub fn native_grammar(tools: &[ToolSpec], dialect: &ToolDialect) -> String {
    let mut builder = Builder::new(SPACED);
    let arguments_key = match dialect {
        ToolDialect::Gemma => "parameters",
        ToolDialect::Hermes { .. } | ToolDialect::Compact => "arguments",
    };
    let mut names = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        let arguments = builder.expression(grammar_schema(tool), 0);
        let head = format!("{}, \"{arguments_key}\": ", json_text(&tool.name));
        builder
            .rules
            .push(format!("call{index} ::= {} {arguments}", literal(&head)));
        names.push(format!("call{index}"));
    }
    let call = format!("\"{{\\\"name\\\": \" ({}) \"}}\"", names.join(" | "));
    let mut out = match dialect {
        ToolDialect::Gemma => format!(
            "root ::= call | text\n\
             call ::= {call}\n\
             text ::= [^{{] [^\\x00]*\n"
        ),
        ToolDialect::Hermes { .. } | ToolDialect::Compact => format!(
            "root ::= think? (calls | text calls?)\n\
             think ::= \"<think>\" ([^<] | \"<\" [^/])* \"</think>\" [ \\n]*\n\
             calls ::= call (\"\\n\" call)*\n\
             call ::= \"<tool_call>\\n\" {call} \"\\n</tool_call>\"\n\
             text ::= ([^<] | \"<\" [^t])+\n"
        ),
    };
    for rule in &builder.rules {
        out.push_str(rule);
        out.push('\n');
    }
    out.push_str(&base_rules(SPACED));
    out
}
