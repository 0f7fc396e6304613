//! The GBNF grammar that constrains a small local model's reply to one tool call or a final
//! answer, and the canonical text of such a reply. Both are compact and deterministic: no
//! whitespace anywhere, object keys in one fixed order (a schema's `required` order, then its
//! other properties by name). So a reply the model wrote, parsed and rendered back by
//! [`render_call`], is the very text it produced (what the next step's prompt needs to match
//! the KV cache through the model's own turn, though not all: the tokenizer may split that
//! text otherwise than the model did, `{"` for the model's `{` `"`).
//!
//! A final answer has the shape of a call too, to a reserved pseudo-tool ([`ANSWER_TOOL`]):
//! `{"tool":"answer","arguments":{"text":"…"}}`. Why: with a separate `{"final":…}` shape the
//! choice between calling and answering fell on the one token after `{"`, where SmolLM2-135M
//! rates `final` and `tool` about evenly (0.13 against 0.11 on the read-a-note task), so a
//! request that asked for a tool call got a made-up answer. With one shape the model picks a
//! name from the tool list after `{"tool":"`, where the tool the task names is the likely one.
//!
//! Schemas are read for the parts a grammar can use (`const`, `enum`, `oneOf`/`anyOf`, `type`,
//! `properties`, `required`, `items`, a string's length and an array's size bounds, and a
//! lower bound's sign for integers); anything else (`$ref`, `allOf`, patterns) becomes "any
//! JSON value" there: the core still checks every call against the tool's schema. Why the
//! bounds: a bound the grammar does not follow is one the model can break every time (asked
//! "What is 17 times 23?", SmolLM2-135M called `finish` with an empty summary three times in a
//! row, each refused by the schema's `minLength`, and the run stopped on consecutive errors).

use serde_json::Value;

use super::local_json::{
    alternatives, base_rules, json_text, key_order, literal, write_value, Separators, COMPACT,
};
use crate::protocol::message::ToolSpec;

/// Deepest schema nesting turned into rules; below it a value is any JSON.
const MAX_DEPTH: usize = 8;

/// Largest length or size bound written into a grammar: a repetition costs grammar rules in
/// proportion to its bounds, so a larger one is followed only as far as this (a lower bound)
/// or not at all (an upper bound); the core's schema check still holds the whole bound.
const MAX_BOUND: u64 = 256;

/// What every reply starts with. The request writes it as the start of the model's turn
/// (llama.cpp's assistant prefill) and the grammar admits what follows it, so the model begins
/// at the tool's name. Why: made to write `{"tool":"` itself under the grammar, SmolLM2-135M,
/// which wants prose there, is dragged through it one character at a time (`{` `"` `t` `oo` `l`)
/// and leaves it out of step (measured natively: the capital-of-France task then called
/// `finish("fonte")`; with the prefix written for it, it answers "Paris").
pub const REPLY_PREFIX: &str = "{\"tool\":\"";

/// The pseudo-tool a local model "calls" to answer the user; never executed.
pub const ANSWER_TOOL: &str = "answer";
/// The answer's one argument.
pub const ANSWER_KEY: &str = "text";

/// Whether a local model may answer through [`ANSWER_TOOL`]: not when a real tool has that
/// name (a call to it is then that tool's call).
pub fn answer_offered(tools: &[ToolSpec]) -> bool {
    !tools.iter().any(|tool| tool.name == ANSWER_TOOL)
}

/// The grammar for a reply to a request offering `tools`, after [`REPLY_PREFIX`]: the rest of
/// `{"tool":"<name>","arguments":{..}}` for one of them (arguments shaped by the tool's
/// `local_parameters`, else its `parameters`), or the start of the answer,
/// `{"tool":"answer","arguments":{"text":"` ([`answer_offered`]), which like a call whose one
/// argument is plain text ends at the text's opening quote (the text is written without the
/// grammar: `local_prose`).
pub fn reply_grammar(tools: &[ToolSpec]) -> String {
    let mut builder = Builder::default();
    let mut alternatives = Vec::with_capacity(tools.len() + 1);
    for (index, tool) in tools.iter().enumerate() {
        // A call whose one argument is plain text ends where that text starts (local_prose).
        if let Some(key) = prose_key(tool) {
            let head = after_prefix(&prose_head(&tool.name, key));
            builder
                .rules
                .push(format!("call{index} ::= {}", literal(&head)));
            alternatives.push(format!("call{index}"));
            continue;
        }
        let arguments = builder.expression(grammar_schema(tool), 0);
        let head = after_prefix(&format!(
            "{{\"tool\":{},\"arguments\":",
            json_text(&tool.name)
        ));
        builder.rules.push(format!(
            "call{index} ::= {} {arguments} \"}}\"",
            literal(&head)
        ));
        alternatives.push(format!("call{index}"));
    }
    let answer = answer_offered(tools);
    if answer {
        alternatives.push("final".to_string());
    }
    let mut out = format!("root ::= {}\n", alternatives.join(" | "));
    if answer {
        // The answer's text is written in plain text after the grammar's end (local_prose).
        let head = after_prefix(&prose_head(ANSWER_TOOL, ANSWER_KEY));
        out.push_str(&format!("final ::= {}\n", literal(&head)));
    }
    for rule in &builder.rules {
        out.push_str(rule);
        out.push('\n');
    }
    out.push_str(&base_rules(COMPACT));
    out
}

/// `head` without [`REPLY_PREFIX`] (every reply head starts with it).
fn after_prefix(head: &str) -> String {
    head.strip_prefix(REPLY_PREFIX).unwrap_or(head).to_string()
}

/// The schema the grammar follows for `tool`'s arguments.
pub fn grammar_schema(tool: &ToolSpec) -> &Value {
    tool.local_parameters.as_ref().unwrap_or(&tool.parameters)
}

/// `{"tool":<name>,"arguments":<arguments>}` exactly as the grammar has the model write it:
/// arguments' keys in the schema's order, no whitespace. `schema` is the tool's grammar schema
/// (`None` for a tool no longer offered: keys then come sorted).
pub fn render_call(name: &str, arguments: &Value, schema: Option<&Value>) -> String {
    let mut out = format!("{{\"tool\":{},\"arguments\":", json_text(name));
    write_value(&mut out, arguments, schema.unwrap_or(&Value::Null), COMPACT);
    out.push('}');
    out
}

/// The answer `text` as the grammar has the model write it (a call to [`ANSWER_TOOL`]).
pub fn render_final(text: &str) -> String {
    format!(
        "{{\"tool\":{},\"arguments\":{{{}:{}}}}}",
        json_text(ANSWER_TOOL),
        json_text(ANSWER_KEY),
        json_text(text)
    )
}

/// Collects the named rules of one grammar.
pub(super) struct Builder {
    /// The rules named so far, in order.
    pub(super) rules: Vec<String>,
    /// Schema rules named so far (`r0`, `r1`, …).
    named: usize,
    /// How values' JSON is written.
    sep: Separators,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new(COMPACT)
    }
}

impl Builder {
    /// No rules yet; values written with `sep`.
    pub(super) fn new(sep: Separators) -> Builder {
        Builder {
            rules: Vec::new(),
            named: 0,
            sep,
        }
    }

    /// `sep`'s comma as a grammar literal.
    fn comma(&self) -> String {
        literal(self.sep.comma)
    }

    /// A grammar expression for values matching `schema` (a rule name, a literal or a group).
    pub(super) fn expression(&mut self, schema: &Value, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return "value".into();
        }
        if let Some(constant) = schema.get("const") {
            return literal(&self.json(constant));
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            if !values.is_empty() {
                let shown: Vec<String> = values.iter().map(|v| literal(&self.json(v))).collect();
                return format!("({})", shown.join(" | "));
            }
        }
        if let Some(branches) = alternatives(schema) {
            let shown: Vec<String> = branches
                .iter()
                .map(|branch| self.expression(branch, depth + 1))
                .collect();
            return self.rule(format!("({})", shown.join(" | ")));
        }
        match schema.get("type") {
            Some(Value::String(kind)) => self.typed(kind, schema, depth),
            Some(Value::Array(kinds)) => {
                let shown: Vec<String> = kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|kind| self.typed(kind, schema, depth))
                    .collect();
                if shown.is_empty() {
                    "value".into()
                } else {
                    format!("({})", shown.join(" | "))
                }
            }
            Some(_) | None if schema.get("properties").is_some() => {
                self.typed("object", schema, depth)
            }
            Some(_) | None => "value".into(),
        }
    }

    /// The expression for one JSON type.
    fn typed(&mut self, kind: &str, schema: &Value, depth: usize) -> String {
        match kind {
            "string" => match bounds(schema, "minLength", "maxLength") {
                None => "string".into(),
                Some(bounds) => format!("\"\\\"\" char{} \"\\\"\"", bounds.repetition(0)),
            },
            "integer" | "number" => match lower_bound(schema) {
                Some(min) if min >= 0.0 => {
                    // Not negative: no sign; at least 1 (an integer): no leading zero either.
                    let digits = if kind == "integer" && min >= 1.0 {
                        "[1-9] [0-9]{0,15}"
                    } else {
                        "(\"0\" | [1-9] [0-9]{0,15})"
                    };
                    if kind == "integer" {
                        format!("({digits})")
                    } else {
                        format!("({digits} (\".\" [0-9]+)? ([eE] [-+]? [0-9]+)?)")
                    }
                }
                Some(_) | None => kind.to_string(),
            },
            "boolean" | "null" => kind.to_string(),
            "object" => self.object(schema, depth),
            "array" => {
                let item = match schema.get("items") {
                    Some(items) if items.is_object() => self.expression(items, depth + 1),
                    Some(_) | None => "value".into(),
                };
                match bounds(schema, "minItems", "maxItems") {
                    None if item == "value" => "array".into(),
                    None => {
                        let comma = self.comma();
                        self.rule(format!("\"[\" ({item} ({comma} {item})*)? \"]\""))
                    }
                    Some(Bounds { max: Some(0), .. }) => "\"[\" \"]\"".into(),
                    // The items after the first, one fewer than the array's bounds.
                    Some(bounds) if bounds.min == 0 => self.rule(format!(
                        "\"[\" ({item} ({} {item}){})? \"]\"",
                        self.comma(),
                        bounds.repetition(1)
                    )),
                    Some(bounds) => self.rule(format!(
                        "\"[\" {item} ({} {item}){} \"]\"",
                        self.comma(),
                        bounds.repetition(1)
                    )),
                }
            }
            _ => "value".into(),
        }
    }

    /// A closed object in [`key_order`]: the required keys, then each optional one or not.
    fn object(&mut self, schema: &Value, depth: usize) -> String {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return "object".into();
        };
        if properties.is_empty() {
            return "object".into();
        }
        let (required, optional) = key_order(schema);
        let pair = |builder: &mut Builder, key: &str| {
            let value = properties
                .get(key)
                .map_or_else(|| "value".to_string(), |s| builder.expression(s, depth + 1));
            let colon = builder.sep.colon;
            format!("{} {value}", literal(&format!("{}{colon}", json_text(key))))
        };
        let required: Vec<String> = required.iter().map(|key| pair(self, key)).collect();
        let optional: Vec<String> = optional.iter().map(|key| pair(self, key)).collect();
        let comma = self.comma();
        let body = if required.is_empty() {
            // Any in-order subset: the first one present, then each later one or not.
            let starts: Vec<String> = (0..optional.len())
                .map(|first| {
                    let mut parts = vec![optional[first].clone()];
                    parts.extend(
                        optional[first + 1..]
                            .iter()
                            .map(|p| format!("({comma} {p})?")),
                    );
                    parts.join(" ")
                })
                .collect();
            format!("\"{{\" ({})? \"}}\"", starts.join(" | "))
        } else {
            let mut parts = vec![required.join(&format!(" {comma} "))];
            parts.extend(optional.iter().map(|p| format!("({comma} {p})?")));
            format!("\"{{\" {} \"}}\"", parts.join(" "))
        };
        self.rule(body)
    }

    /// `value` as the reply writes it.
    fn json(&self, value: &Value) -> String {
        let mut out = String::new();
        write_value(&mut out, value, &Value::Null, self.sep);
        out
    }

    /// Adds `body` as a new rule and returns its name.
    fn rule(&mut self, body: String) -> String {
        let name = format!("r{}", self.named);
        self.named += 1;
        self.rules.push(format!("{name} ::= {body}"));
        name
    }
}

/// A length or size bound the grammar follows (see [`MAX_BOUND`]).
#[derive(Clone, Copy)]
struct Bounds {
    min: u64,
    max: Option<u64>,
}

impl Bounds {
    /// The GBNF repetition for these bounds less `less` (`{m,}` or `{m,n}`).
    fn repetition(self, less: u64) -> String {
        let min = self.min.saturating_sub(less);
        match self.max {
            Some(max) => format!("{{{min},{}}}", max.saturating_sub(less)),
            None => format!("{{{min},}}"),
        }
    }
}

/// The schema's `min_key`/`max_key` bounds as the grammar follows them; `None` when that is no
/// bound at all (no lower bound above 0, no upper bound up to [`MAX_BOUND`]).
fn bounds(schema: &Value, min_key: &str, max_key: &str) -> Option<Bounds> {
    let min = schema
        .get(min_key)
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(MAX_BOUND);
    let max = schema
        .get(max_key)
        .and_then(Value::as_u64)
        .filter(|max| *max <= MAX_BOUND && *max >= min);
    (min > 0 || max.is_some()).then_some(Bounds { min, max })
}

/// A number schema's lower bound (`minimum`, or above `exclusiveMinimum`).
fn lower_bound(schema: &Value) -> Option<f64> {
    let inclusive = schema.get("minimum").and_then(Value::as_f64);
    let exclusive = schema.get("exclusiveMinimum").and_then(Value::as_f64);
    match (inclusive, exclusive) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The schema keyword that marks a tool's one string argument as written in plain text by a
/// local model (`"x-plain-text": true`, in the tool's local schema). An annotation other
/// validators ignore.
pub const PLAIN_TEXT_KEYWORD: &str = "x-plain-text";

/// The argument of `tool` a local model writes in plain text: its local schema's one property,
/// required, a string marked [`PLAIN_TEXT_KEYWORD`].
pub fn prose_key(tool: &ToolSpec) -> Option<&str> {
    let schema = grammar_schema(tool);
    let properties = schema["properties"].as_object()?;
    let (key, property) = properties.iter().next().filter(|_| properties.len() == 1)?;
    let required = schema["required"].as_array()?;
    let marked = property["type"] == "string" && property[PLAIN_TEXT_KEYWORD] == true;
    (marked && required.iter().any(|r| r == key.as_str())).then_some(key.as_str())
}

/// `{"tool":"<tool>","arguments":{"<key>":"`: where the grammar ends a reply that answers.
pub fn prose_head(tool: &str, key: &str) -> String {
    format!(
        "{{\"tool\":{},\"arguments\":{{{}:\"",
        json_text(tool),
        json_text(key)
    )
}
