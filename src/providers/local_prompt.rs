//! The tool prompt for small local models: one short line per tool (first sentence of its
//! description, argument names with their types) and the two reply shapes. A 135M model reads
//! a prompt at tens of tokens per second in a tab, so every token here is waiting time; the
//! full JSON Schemas stay in the grammar, which is what keeps the calls well-formed.

use serde_json::Value;

use super::local_grammar::{answer_offered, ANSWER_KEY, ANSWER_TOOL};
use crate::protocol::message::{Message, ToolSpec};
use crate::protocol::model::ModelRequest;

/// Longest tool description kept, in characters (cut at a word boundary).
const MAX_DESCRIPTION_CHARS: usize = 110;
/// Most enum values listed for an argument; longer lists show the first ones and `…`.
const MAX_ENUM_VALUES: usize = 9;
/// What the answer pseudo-tool is for, as the prompt lists it.
const ANSWER_DESCRIPTION: &str =
    "Reply to the user in words, when no tool is needed or the task is done.";
/// Most arguments listed per tool (required ones first); the grammar still admits the rest.
const MAX_ARGUMENTS: usize = 16;
/// Optional arguments listed before the others (the rest follow in name order, as the schema
/// arrives with sorted keys): the ones a first task needs most.
const COMMON_ARGUMENTS: [&str; 2] = ["path", "content"];

/// The reply format and the tool lines, e.g.
///
/// ```text
/// Reply with one JSON object only.
/// To call a tool: {"tool":"<name>","arguments":{...}}
/// Call one tool at a time; its result comes back to you.
/// Copy names, paths and text from the task word for word, without adding any.
/// Tools:
/// - answer: Reply to the user in words, when no tool is needed or the task is done. Arguments: text*
/// - vfs: Virtual filesystem stored in the browser. Arguments: op* (read|write|…), path, content
/// (* = required)
/// ```
pub fn compact_tool_prompt(tools: &[ToolSpec]) -> String {
    // The "Copy …" line: without it SmolLM2-135M wrote "Hello, World!" for "write the text
    // hello" and `17 * 23 = 4217` as the code of an eval (measured natively on the scenarios).
    let mut out = String::from(
        "Reply with one JSON object only.\n\
         To call a tool: {\"tool\":\"<name>\",\"arguments\":{...}}\n\
         Call one tool at a time; its result comes back to you.\n\
         Copy names, paths and text from the task word for word, without adding any.\n\
         Tools:\n",
    );
    if answer_offered(tools) {
        // The answer is listed as one more tool (measured on SmolLM2-135M: a separate "To
        // answer the user: …" line made it answer tasks that asked for a call, or write
        // `17 * 23 = 4217` as the code of an eval), first and saying when it is the one: at
        // the tool's name the model rated `answer` and the `f` of `finish` evenly on a
        // question (0.018 each; it then wrote `finish` with an empty summary), 0.028 against
        // 0.019 so.
        out.push_str(&format!(
            "- {ANSWER_TOOL}: {ANSWER_DESCRIPTION} Arguments: {ANSWER_KEY}*\n"
        ));
    }
    for tool in tools {
        out.push_str(&format!(
            "- {}: {}",
            tool.name,
            short_description(&tool.description)
        ));
        match tool.local_parameters.as_ref().and_then(branch_list) {
            Some(branches) => out.push_str(&format!(" Arguments: {branches}")),
            None => {
                let arguments = argument_list(&tool.parameters);
                if !arguments.is_empty() {
                    out.push_str(&format!(" Arguments: {arguments}"));
                }
            }
        }
        out.push('\n');
    }
    out.push_str("(* = required)");
    out
}

/// The first sentence of `description`, at most [`MAX_DESCRIPTION_CHARS`] long.
fn short_description(description: &str) -> String {
    let text = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = match text.find(". ") {
        Some(end) => &text[..=end],
        None => text.as_str(),
    };
    if first.chars().count() <= MAX_DESCRIPTION_CHARS {
        return first.to_string();
    }
    let mut cut = String::new();
    for word in first.split(' ') {
        if cut.chars().count() + word.chars().count() + 1 > MAX_DESCRIPTION_CHARS {
            break;
        }
        if !cut.is_empty() {
            cut.push(' ');
        }
        cut.push_str(word);
    }
    cut.push('…');
    cut
}

/// For a `oneOf` whose branches each fix one argument with `const` (the operation), that argument
/// and each branch's value with its other required arguments:
/// `op* = read (path) | write (path, content)`. `None` for any other schema.
fn branch_list(schema: &Value) -> Option<String> {
    let branches = schema.get("oneOf").and_then(Value::as_array)?;
    let mut key: Option<&str> = None;
    let mut shown = Vec::with_capacity(branches.len());
    for branch in branches {
        let properties = branch.get("properties").and_then(Value::as_object)?;
        let (name, constant) = properties
            .iter()
            .find_map(|(name, p)| p.get("const").map(|c| (name.as_str(), c)))?;
        if key.is_some_and(|k| k != name) {
            return None;
        }
        key = Some(name);
        let value = constant
            .as_str()
            .map_or_else(|| constant.to_string(), str::to_string);
        let (required, _) = super::local_json::key_order(branch);
        let rest: Vec<&str> = required
            .iter()
            .map(String::as_str)
            .filter(|k| *k != name)
            .collect();
        shown.push(if rest.is_empty() {
            value
        } else {
            format!("{value} ({})", rest.join(", "))
        });
    }
    Some(format!("{}* = {}", key?, shown.join(" | ")))
}

/// `op* (read|write), path, content, limit (integer)`: required first (in `required` order),
/// then `path` and `content`, then the rest by name; strings show no type, other types show theirs.
fn argument_list(schema: &Value) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Required ones in the schema's `required` order, then the common ones, then by name.
    let mut names: Vec<&str> = required
        .iter()
        .copied()
        .filter(|k| properties.contains_key(*k))
        .collect();
    names.extend(
        COMMON_ARGUMENTS
            .iter()
            .copied()
            .filter(|k| properties.contains_key(*k) && !required.contains(k)),
    );
    names.extend(
        properties
            .keys()
            .map(String::as_str)
            .filter(|k| !required.contains(k) && !COMMON_ARGUMENTS.contains(k)),
    );
    let shown: Vec<String> = names
        .iter()
        .take(MAX_ARGUMENTS)
        .map(|name| {
            let mark = if required.contains(name) { "*" } else { "" };
            match properties.get(*name).map(type_hint) {
                Some(hint) if !hint.is_empty() => format!("{name}{mark} ({hint})"),
                Some(_) | None => format!("{name}{mark}"),
            }
        })
        .collect();
    let mut list = shown.join(", ");
    if names.len() > MAX_ARGUMENTS {
        list.push_str(", …");
    }
    list
}

/// `read|write|…` for an enum, `list of {id, text, status}` for an array of objects, the type
/// name for a non-string, nothing for a plain string.
fn type_hint(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let mut shown: Vec<String> = values
            .iter()
            .take(MAX_ENUM_VALUES)
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        if values.len() > MAX_ENUM_VALUES {
            shown.push("…".to_string());
        }
        return shown.join("|");
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") | None => String::new(),
        Some("array") => {
            let keys: Vec<&String> = schema
                .pointer("/items/properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().collect())
                .unwrap_or_default();
            if keys.is_empty() {
                "list".to_string()
            } else {
                let keys: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
                format!("list of {{{}}}", keys.join(", "))
            }
        }
        Some(other) => other.to_string(),
    }
}

/// A request whose rendered prompt starts the way a session's first step does (`system` and
/// `tools` as the session would send them, then a user turn), asking for one token: reading it
/// leaves that prefix in the runtime's KV cache, so the first step reads only the task.
pub fn warm_up_request(system: Option<String>, tools: Vec<ToolSpec>) -> ModelRequest {
    ModelRequest {
        system,
        messages: vec![Message::User {
            text: String::new(),
        }]
        .into(),
        tools,
        max_output_tokens: 1,
    }
}
