//! The local model's reply grammar for the schema shapes tools use: optional keys in a fixed
//! order, enums, arrays, unions, and "any value" for what a grammar does not follow.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use tabloop::protocol::local_grammar::{render_call, reply_grammar};
use tabloop::protocol::ToolSpec;

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
