//! The local model's reply grammar for the schema shapes tools use: optional keys in a fixed
//! order, enums, arrays, unions, length and size bounds, and "any value" for what a grammar
//! does not follow. Bounds are checked through the engine's own grammar matcher: a reply the
//! grammar lets the model write must not be one the schema check refuses.
// Native only: the engine it checks grammars with is a native dev-dependency.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use tabloop::core::validate_schema as validate;
use tabloop::protocol::ToolSpec;
use tabloop::providers::local_grammar::REPLY_PREFIX;
use tabloop::providers::local_grammar::{render_call, reply_grammar};
use tabloop_engine::grammar::{Grammar, GrammarState};

fn tool(parameters: Value) -> ToolSpec {
    ToolSpec {
        name: "t".to_string(),
        description: "A tool.".to_string(),
        parameters,
        local_parameters: None,
    }
}

/// The rules the grammar adds for one tool (without root, final and the shared base rules).
fn own_rules(parameters: Value) -> Vec<String> {
    reply_grammar(&[tool(parameters)])
        .lines()
        .filter(|line| line.starts_with('r') && !line.starts_with("root"))
        .map(str::to_string)
        .collect()
}

#[test]
fn optional_keys_without_required_ones_may_start_at_any_key_and_keep_their_order() {
    assert_eq!(
        own_rules(
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}})
        ),
        vec![r#"r0 ::= "{" ("\"a\":" string ("," "\"b\":" integer)? | "\"b\":" integer)? "}""#]
    );
}

#[test]
fn enums_arrays_and_unions_become_alternatives_and_repetitions() {
    assert_eq!(
        own_rules(json!({
            "type": "object",
            "properties": {
                "mode": {"enum": ["a", 1]},
                "list": {"type": "array", "items": {"type": "boolean"}},
                "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "free": {"$ref": "#/x"},
            },
            "required": ["mode", "list", "either", "free"],
        })),
        vec![
            r#"r0 ::= "[" (boolean ("," boolean)*)? "]""#.to_string(),
            r#"r1 ::= (string | null)"#.to_string(),
            r#"r2 ::= "{" "\"mode\":" ("\"a\"" | "1") "," "\"list\":" r0 "," "\"either\":" r1 "," "\"free\":" value "}""#.to_string(),
        ]
    );
}

#[test]
fn a_call_is_rendered_in_the_grammar_order_whatever_order_its_arguments_came_in() {
    let schema =
        json!({"type": "object", "properties": {"b": {}, "a": {}, "c": {}}, "required": ["c"]});
    let arguments = json!({"a": 1, "b": [true], "c": "x", "extra": null});
    assert_eq!(
        render_call("t", &arguments, Some(&schema)),
        r#"{"tool":"t","arguments":{"c":"x","a":1,"b":[true],"extra":null}}"#
    );
}

/// Whether the grammar for a tool with `parameters` lets the model write a call with
/// `arguments` (as the reply's text after [`REPLY_PREFIX`], whole).
fn grammar_admits(parameters: &Value, arguments: &str) -> bool {
    let grammar = Grammar::parse(&reply_grammar(&[tool(parameters.clone())]))
        .unwrap_or_else(|e| panic!("the grammar parses: {e}"));
    let reply = format!("{{\"tool\":\"t\",\"arguments\":{arguments}}}");
    let after_prefix = reply.strip_prefix(REPLY_PREFIX).unwrap_or(&reply);
    let mut state = GrammarState::new(&grammar);
    state.advance(&grammar, after_prefix.as_bytes()).is_ok() && state.is_complete()
}

/// For each of `arguments`: whether the grammar admits it equals whether the schema does.
fn grammar_agrees_with_schema(parameters: Value, arguments: &[&str]) {
    for text in arguments {
        let value: Value = serde_json::from_str(text).unwrap();
        let schema_ok = validate(&parameters, &value).is_ok();
        assert_eq!(
            grammar_admits(&parameters, text),
            schema_ok,
            "{text}: the schema says {schema_ok}"
        );
    }
}

/// An object schema whose one, required, argument `key` is `schema`.
fn one_argument(key: &str, schema: Value) -> Value {
    json!({"type": "object", "properties": {key: schema}, "required": [key]})
}

#[test]
fn a_string_s_length_bounds_are_the_grammar_s_so_an_empty_summary_cannot_be_written() {
    // The finish tool's own schema: a summary of at least one character.
    let finish = one_argument("summary", json!({"type": "string", "minLength": 1}));
    grammar_agrees_with_schema(
        finish,
        &[
            r#"{"summary":""}"#,
            r#"{"summary":"391"}"#,
            r#"{"summary":"\n"}"#,
        ],
    );
    let short = one_argument(
        "code",
        json!({"type": "string", "minLength": 2, "maxLength": 3}),
    );
    grammar_agrees_with_schema(
        short,
        &[
            r#"{"code":"a"}"#,
            r#"{"code":"ab"}"#,
            r#"{"code":"a\"c"}"#,
            r#"{"code":"héé"}"#,
            r#"{"code":"abcd"}"#,
        ],
    );
}

#[test]
fn the_largest_bound_the_grammar_follows_is_followed_exactly() {
    let name = one_argument("name", json!({"type": "string", "maxLength": 256}));
    let args = |n: usize| format!(r#"{{"name":"{}"}}"#, "x".repeat(n));
    assert!(grammar_admits(&name, &args(256)));
    assert!(!grammar_admits(&name, &args(257)));
}

#[test]
fn an_array_s_size_bounds_are_the_grammar_s() {
    let tags = |bounds: Value| {
        let mut list = json!({"type": "array", "items": {"type": "integer"}});
        list.as_object_mut()
            .unwrap()
            .extend(bounds.as_object().unwrap().clone());
        one_argument("tags", list)
    };
    let sizes = [
        r#"{"tags":[]}"#,
        r#"{"tags":[1]}"#,
        r#"{"tags":[1,2]}"#,
        r#"{"tags":[1,2,3]}"#,
    ];
    grammar_agrees_with_schema(tags(json!({"minItems": 1, "maxItems": 2})), &sizes);
    grammar_agrees_with_schema(tags(json!({"maxItems": 2})), &sizes);
    grammar_agrees_with_schema(tags(json!({"minItems": 3})), &sizes);
    grammar_agrees_with_schema(tags(json!({"maxItems": 0})), &sizes);
}

#[test]
fn a_number_with_a_lower_bound_of_zero_or_more_cannot_be_written_negative() {
    let count = json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1},
            "x": {"type": "number", "minimum": 0},
        },
        "required": ["n", "x"],
    });
    grammar_agrees_with_schema(
        count,
        &[
            r#"{"n":1,"x":0}"#,
            r#"{"n":12,"x":0.5}"#,
            r#"{"n":0,"x":1}"#,
            r#"{"n":-3,"x":1}"#,
            r#"{"n":2,"x":-0.5}"#,
        ],
    );
}

#[test]
fn bounds_past_the_grammar_s_limit_are_left_to_the_schema_check() {
    // A 10,000-character bound would be 10,000 grammar rules: the grammar follows none of it.
    let long = one_argument("text", json!({"type": "string", "maxLength": 10000}));
    assert_eq!(own_rules(long.clone()).len(), 1);
    assert!(grammar_admits(&long, r#"{"text":"any length"}"#));
}
