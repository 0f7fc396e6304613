//! A JSON Schema validator for tool arguments, covering the keywords tool schemas use: `type`,
//! `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, length, size and
//! range bounds, `oneOf` / `anyOf` / `allOf`, and `format: "uri"` (asserted: an absolute URI, a
//! scheme and `:`, with no spaces; so a tool asked about before it runs, such as `http_fetch`,
//! is never put to a person with a URL that is not one). Other formats and unknown keywords are
//! ignored, as the spec allows.

use serde_json::{Map, Value};

use crate::protocol::json_kind;

/// Validates `value` against `schema`; on failure, every problem with its JSON path.
pub fn validate(schema: &Value, value: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    check(schema, value, "arguments", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn check(schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            errors.push(format!("{path}: no value is allowed here"));
        }
        return;
    };
    if let Some(expected) = schema.get("type") {
        if !type_matches(expected, value) {
            errors.push(format!(
                "{path}: expected {}, got {}",
                type_name(expected),
                json_kind(value)
            ));
            return;
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            errors.push(format!(
                "{path}: must be one of {}",
                Value::Array(allowed.clone())
            ));
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            errors.push(format!("{path}: must be {}", constant));
        }
    }
    match value {
        Value::Object(map) => check_object(schema, map, path, errors),
        Value::Array(items) => check_array(schema, items, path, errors),
        Value::String(s) => check_string(schema, s, path, errors),
        Value::Number(n) => check_number(schema, n.as_f64().unwrap_or(f64::NAN), path, errors),
        Value::Null | Value::Bool(_) => {}
    }
    check_combinators(schema, value, path, errors);
}

fn check_object(
    schema: &Map<String, Value>,
    map: &Map<String, Value>,
    path: &str,
    errors: &mut Vec<String>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !map.contains_key(name) {
                errors.push(format!("{path}: missing required property \"{name}\""));
            }
        }
    }
    for (key, item) in map {
        let child = format!("{path}.{key}");
        match properties.and_then(|p| p.get(key)) {
            Some(sub) => check(sub, item, &child, errors),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    errors.push(format!("{path}: unknown property \"{key}\""));
                }
                Some(sub @ Value::Object(_)) => check(sub, item, &child, errors),
                _ => {}
            },
        }
    }
}

fn check_array(schema: &Map<String, Value>, items: &[Value], path: &str, errors: &mut Vec<String>) {
    if let Some(sub) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            check(sub, item, &format!("{path}[{i}]"), errors);
        }
    }
    bounds(
        schema,
        "minItems",
        "maxItems",
        items.len(),
        "items",
        path,
        errors,
    );
}

fn check_string(schema: &Map<String, Value>, s: &str, path: &str, errors: &mut Vec<String>) {
    bounds(
        schema,
        "minLength",
        "maxLength",
        s.chars().count(),
        "characters",
        path,
        errors,
    );
    if schema.get("format").and_then(Value::as_str) == Some("uri") && !is_absolute_uri(s) {
        errors.push(format!(
            "{path}: must be an absolute URI (a scheme, then ':', e.g. https://example.org/)"
        ));
    }
}

/// RFC 3986's absolute URI, as far as its first part: a scheme (a letter, then letters, digits,
/// `+`, `-` or `.`), `:`, something after it, and no whitespace or control characters.
fn is_absolute_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut scheme_chars = scheme.chars();
    scheme_chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme_chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn check_number(schema: &Map<String, Value>, n: f64, path: &str, errors: &mut Vec<String>) {
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        if n < min {
            errors.push(format!("{path}: must be at least {}", min));
        }
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
        if n > max {
            errors.push(format!("{path}: must be at most {}", max));
        }
    }
}

fn bounds(
    schema: &Map<String, Value>,
    min_key: &str,
    max_key: &str,
    len: usize,
    unit: &str,
    path: &str,
    errors: &mut Vec<String>,
) {
    let len = len as u64;
    if let Some(min) = schema.get(min_key).and_then(Value::as_u64) {
        if len < min {
            errors.push(format!("{path}: needs at least {min} {unit}"));
        }
    }
    if let Some(max) = schema.get(max_key).and_then(Value::as_u64) {
        if len > max {
            errors.push(format!("{path}: allows at most {max} {unit}"));
        }
    }
}

fn check_combinators(
    schema: &Map<String, Value>,
    value: &Value,
    path: &str,
    errors: &mut Vec<String>,
) {
    let passes = |sub: &Value| {
        let mut sub_errors = Vec::new();
        check(sub, value, path, &mut sub_errors);
        sub_errors.is_empty()
    };
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for sub in all {
            check(sub, value, path, errors);
        }
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        if !any.iter().any(passes) {
            errors.push(format!(
                "{path}: matches none of the allowed shapes (anyOf)"
            ));
        }
    }
    if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
        let matched = one.iter().filter(|s| passes(s)).count();
        if matched != 1 {
            errors.push(format!(
                "{path}: must match exactly one shape (oneOf), matched {matched}"
            ));
        }
    }
}

fn type_matches(expected: &Value, value: &Value) -> bool {
    match expected {
        Value::String(t) => single_type_matches(t, value),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .any(|t| single_type_matches(t, value)),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => true,
    }
}

fn single_type_matches(t: &str, value: &Value) -> bool {
    match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        _ => true,
    }
}

fn type_name(expected: &Value) -> String {
    match expected {
        Value::String(t) => t.clone(),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_) => {
            expected.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 500},
                "mode": {"enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    #[test]
    fn a_uri_format_is_an_absolute_uri() {
        let url = json!({"type": "string", "format": "uri"});
        for good in [
            "https://example.org/a?b=1",
            "http://127.0.0.1:9/x",
            "mailto:a@b.c",
        ] {
            assert_eq!(validate(&url, &json!(good)), Ok(()), "{good}");
        }
        for bad in [
            "http_fetch",
            "example.org/page",
            "/notes.txt",
            "https:",
            "1http://x",
            "https://a b",
        ] {
            assert!(validate(&url, &json!(bad)).is_err(), "{bad}");
        }
        // Other formats are annotations only.
        assert_eq!(
            validate(&json!({"type": "string", "format": "email"}), &json!("x")),
            Ok(())
        );
    }

    #[test]
    fn valid_arguments_pass() {
        assert_eq!(
            validate(
                &schema(),
                &json!({"path": "a.txt", "limit": 10, "tags": ["x"]})
            ),
            Ok(())
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_path() {
        let errors = validate(
            &schema(),
            &json!({"limit": 1.5, "mode": "c", "tags": [1, "y", "z"], "extra": true}),
        )
        .unwrap_err();
        assert_eq!(
            errors,
            vec![
                "arguments: missing required property \"path\"".to_string(),
                "arguments: unknown property \"extra\"".to_string(),
                "arguments.limit: expected integer, got number".to_string(),
                "arguments.mode: must be one of [\"a\",\"b\"]".to_string(),
                "arguments.tags[0]: expected string, got number".to_string(),
                "arguments.tags: allows at most 2 items".to_string(),
            ]
        );
    }

    #[test]
    fn a_non_object_is_refused() {
        assert_eq!(
            validate(&schema(), &json!([1])),
            Err(vec!["arguments: expected object, got array".to_string()])
        );
    }

    #[test]
    fn one_of_needs_exactly_one_match() {
        let s = json!({"oneOf": [{"type": "string"}, {"type": "string", "minLength": 2}]});
        assert_eq!(validate(&s, &json!("a")), Ok(()));
        assert!(validate(&s, &json!("ab")).is_err());
        assert!(validate(&s, &json!(3)).is_err());
    }
}
