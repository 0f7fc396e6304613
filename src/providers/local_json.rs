//! JSON as a local model's replies write it: compact for the compact reply, spaced as the
//! chat templates' `tojson` writes it for a family's own format ([`Separators`]), object keys
//! in a schema's order; and the grammar rules and literals every reply grammar shares.

use serde_json::Value;

/// Rules every grammar shares (JSON scalars, strings with the escapes serde_json writes, and any
/// value for schemas the grammar does not follow), with `sep`'s separators.
pub(super) fn base_rules(sep: Separators) -> String {
    let (colon, comma) = (literal(sep.colon), literal(sep.comma));
    format!(
        r#"string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" ["\\bfnrt]
integer ::= "-"? ("0" | [1-9] [0-9]{{0,15}})
number ::= integer ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
boolean ::= "true" | "false"
null ::= "null"
value ::= object | array | string | number | boolean | null
object ::= "{{" (string {colon} value ({comma} string {colon} value)*)? "}}"
array ::= "[" (value ({comma} value)*)? "]"
"#
    )
}

/// The separators a reply's JSON is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Separators {
    /// Between a key and its value.
    pub colon: &'static str,
    /// Between two members or items.
    pub comma: &'static str,
}

/// No whitespace at all (the compact reply, for models without a tool format of their own).
pub const COMPACT: Separators = Separators {
    colon: ":",
    comma: ",",
};

/// As Python's `json.dumps` writes by default, and so as the Jinja templates' `tojson` writes
/// the calls a model reads in its own format (`{"a": 1, "b": [1, 2]}`).
pub const SPACED: Separators = Separators {
    colon: ": ",
    comma: ", ",
};

/// Writes `value` with `sep`'s separators, object keys in `schema`'s order (a `oneOf` branch is chosen by the
/// `const` properties the value matches).
pub(super) fn write_value(out: &mut String, value: &Value, schema: &Value, sep: Separators) {
    let schema = match alternatives(schema) {
        Some(branches) => branches
            .iter()
            .find(|branch| consts_match(value, branch))
            .unwrap_or(&Value::Null),
        None => schema,
    };
    match value {
        Value::Object(object) => {
            let (required, optional) = key_order(schema);
            let mut keys: Vec<&String> = required
                .iter()
                .chain(optional.iter())
                .filter_map(|key| object.get_key_value(key).map(|(k, _)| k))
                .collect();
            let mut rest: Vec<&String> = object.keys().filter(|k| !keys.contains(k)).collect();
            rest.sort();
            keys.extend(rest);
            out.push('{');
            for (index, key) in keys.iter().enumerate() {
                if index > 0 {
                    out.push_str(sep.comma);
                }
                out.push_str(&json_text(key));
                out.push_str(sep.colon);
                let inner = schema
                    .pointer(&format!("/properties/{}", pointer_escape(key)))
                    .unwrap_or(&Value::Null);
                write_value(
                    out,
                    object.get(key.as_str()).unwrap_or(&Value::Null),
                    inner,
                    sep,
                );
            }
            out.push('}');
        }
        Value::Array(items) => {
            let inner = schema.get("items").unwrap_or(&Value::Null);
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(sep.comma);
                }
                write_value(out, item, inner, sep);
            }
            out.push(']');
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            out.push_str(&value.to_string());
        }
    }
}

/// Whether every `const` property of `branch` has that value in `value`.
fn consts_match(value: &Value, branch: &Value) -> bool {
    let Some(properties) = branch.get("properties").and_then(Value::as_object) else {
        return false;
    };
    properties
        .iter()
        .filter_map(|(key, schema)| schema.get("const").map(|c| (key, c)))
        .all(|(key, constant)| value.get(key) == Some(constant))
}

/// A JSON Pointer segment for `key`.
fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The branches of a `oneOf` or `anyOf`, when the schema has some.
pub(super) fn alternatives(schema: &Value) -> Option<&Vec<Value>> {
    ["oneOf", "anyOf"]
        .iter()
        .find_map(|key| schema.get(*key).and_then(Value::as_array))
        .filter(|branches| !branches.is_empty())
}

/// An object schema's keys in the order replies write them: the `required` ones in that order,
/// and the other properties by name.
pub fn key_order(schema: &Value) -> (Vec<String>, Vec<String>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return (Vec::new(), Vec::new());
    };
    let mut required: Vec<String> = Vec::new();
    for key in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if properties.contains_key(key) && !required.iter().any(|k| k == key) {
            required.push(key.to_string());
        }
    }
    let optional = properties
        .keys()
        .filter(|key| !required.contains(key))
        .cloned()
        .collect();
    (required, optional)
}

/// `text` as a JSON string.
pub(super) fn json_text(text: &str) -> String {
    crate::protocol::json_text(text)
}

/// `text` as a GBNF string literal.
pub(super) fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02X}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
