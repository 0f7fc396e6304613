//! Holds the hand-written chunk scanner to the general (JSON tree) reading: over generated
//! chunks written with random escapes, whitespace and repeated members, some of them broken
//! on purpose, the assembler answers the same either way; and the scanner's strings and
//! numbers read as serde_json reads them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::json_scan::Cursor;
use super::openai_chunk::{fast_chunk, Chunk};
use super::{OpenAiStream, SseEvent};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// A small deterministic generator for the writer's choices (xorshift64).
struct Choices(u64);

impl Choices {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Writes `value` as JSON, escaping characters that need it in one of their spellings and
/// others now and then, with whitespace here and there and, sometimes, a member written twice
/// (once with an odd value, before or after its real one).
fn write(value: &Value, ch: &mut Choices, out: &mut String) {
    let space = |ch: &mut Choices, out: &mut String| {
        if ch.below(8) == 0 {
            out.push([' ', '\t', '\n', '\r'][ch.below(4) as usize]);
        }
    };
    space(ch, out);
    match value {
        Value::String(text) => write_str(text, ch, out),
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write(item, ch, out);
            }
            space(ch, out);
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            let mut first = true;
            for (key, item) in members {
                let twice = ch.below(10) == 0;
                let odd = ["null", "7", "\"x\"", "[]", "{}", "{\"content\":\"dup\"}"];
                let odd = odd[ch.below(odd.len() as u64) as usize];
                let after = ch.below(2) == 0;
                let mut member = |value: Option<&Value>, ch: &mut Choices, out: &mut String| {
                    if !std::mem::take(&mut first) {
                        out.push(',');
                    }
                    space(ch, out);
                    write_str(key, ch, out);
                    space(ch, out);
                    out.push(':');
                    match value {
                        Some(value) => write(value, ch, out),
                        None => out.push_str(odd),
                    }
                };
                if twice && !after {
                    member(None, ch, out);
                }
                member(Some(item), ch, out);
                if twice && after {
                    member(None, ch, out);
                }
            }
            space(ch, out);
            out.push('}');
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => out.push_str(&value.to_string()),
    }
    space(ch, out);
}

/// Writes a JSON string with a random choice among each character's valid spellings.
fn write_str(text: &str, ch: &mut Choices, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        let hex = |unit: u32, ch: &mut Choices| {
            let s = format!("\\u{unit:04x}");
            if ch.below(2) == 0 {
                s.to_uppercase().replace("\\U", "\\u")
            } else {
                s
            }
        };
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\t' => Some("\\t"),
            '\r' => Some("\\r"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '/' if ch.below(2) == 0 => Some("\\/"),
            _ => None,
        };
        let must = c < ' ' || c == '"' || c == '\\';
        if let (Some(short), true) = (short, must || ch.below(2) == 0) {
            out.push_str(short);
        } else if must || ch.below(6) == 0 {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&hex(u32::from(*unit), ch));
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
}

/// Breaks a chunk text in one of the ways a server or a cut stream might.
fn break_text(text: &str, ch: &mut Choices) -> String {
    let bounds: Vec<usize> = (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    let at = bounds[ch.below(bounds.len() as u64) as usize];
    let (head, tail) = text.split_at(at);
    let inserts = [
        "\"",
        "\\",
        ",",
        "}",
        "]",
        ":",
        "\u{1}",
        "\\x",
        "\\ud800",
        "\\udc00",
        "\\ud800\\u0041",
        "\\u12g4",
        "1e400",
        "-",
        "01",
        "nul",
        " ",
        "\u{a0}",
        "1.",
        "{",
        "[1,]",
    ];
    match ch.below(3) {
        0 => head.to_string(),
        1 => format!(
            "{head}{}{tail}",
            inserts[ch.below(inserts.len() as u64) as usize]
        ),
        _ => {
            let mut rest = tail.chars();
            rest.next();
            format!("{head}{}", rest.as_str())
        }
    }
}

/// Text that may need escapes: quotes, backslashes, control characters, non-ASCII, astral.
fn text() -> impl Strategy<Value = Value> {
    let chars = [
        'a',
        ' ',
        '"',
        '\\',
        '/',
        '\n',
        '\t',
        '\r',
        '\u{0}',
        '\u{8}',
        '\u{c}',
        '\u{1f}',
        '\u{7f}',
        'é',
        '€',
        '\u{2028}',
        '\u{ffff}',
        '😀',
        '\u{10ffff}',
    ];
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(chars.to_vec()), 0..24)
            .prop_map(|cs| Value::from(String::from_iter(cs))),
        1 => prop::sample::select(vec!["", "stop", "tool_calls", "length", "error", "call_1"])
            .prop_map(Value::from),
    ]
}

/// An odd value: a leaf of any type (numbers of every form), an array, or deep nesting.
fn odd() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..5).prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(1.5)),
        Just(json!(-0.0)),
        Just(json!(1e30)),
        Just(json!(2.5e-7)),
        text(),
        Just(json!({ "error": "nested" })),
    ];
    let deep = Just((0..40).fold(json!(1), |v, _| json!([v])));
    let tree = leaf.prop_recursive(2, 8, 3, |inner| {
        prop::collection::vec(inner, 0..3).prop_map(Value::Array)
    });
    prop_oneof![12 => tree, 1 => deep]
}

/// Usually `good`, sometimes an odd value.
fn or_odd(good: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![6 => good, 1 => odd()].boxed()
}

/// An object with some of `members` (each maybe odd) and perhaps a stray member.
fn object(members: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let picks: Vec<_> = members
        .into_iter()
        .map(|(key, value)| {
            prop::option::weighted(0.7, or_odd(value)).prop_map(move |v| v.map(|v| (key, v)))
        })
        .collect();
    let strays = prop::sample::select(vec!["x", "model", "content", "index", "error", "tools"]);
    (picks, prop::option::weighted(0.2, (strays, odd())))
        .prop_map(|(picked, stray)| {
            let mut out = Map::new();
            for (key, value) in picked.into_iter().flatten() {
                out.insert(key.to_string(), value);
            }
            if let Some((key, value)) = stray {
                out.insert(key.to_string(), value);
            }
            Value::Object(out)
        })
        .boxed()
}

/// A chunk-shaped value with the members real servers send, odd types mixed in.
fn chunk() -> impl Strategy<Value = Value> {
    let small = || (0u64..4).prop_map(Value::from).boxed();
    let function = object(vec![
        ("name", text().boxed()),
        ("arguments", text().boxed()),
    ]);
    let call = object(vec![
        ("index", small()),
        ("id", text().boxed()),
        ("type", Just(json!("function")).boxed()),
        ("function", function),
    ]);
    let delta = object(vec![
        ("role", Just(json!("assistant")).boxed()),
        ("content", text().boxed()),
        ("refusal", text().boxed()),
        ("reasoning_content", text().boxed()),
        ("reasoning", text().boxed()),
        (
            "tool_calls",
            prop::collection::vec(call, 0..3)
                .prop_map(Value::Array)
                .boxed(),
        ),
    ]);
    let choice = object(vec![
        ("index", small()),
        ("delta", delta),
        ("logprobs", Just(Value::Null).boxed()),
        ("finish_reason", text().boxed()),
    ]);
    let details = object(vec![("cached_tokens", small())]);
    let usage = object(vec![
        ("prompt_tokens", (0u64..2000).prop_map(Value::from).boxed()),
        ("completion_tokens", small()),
        ("total_tokens", small()),
        ("prompt_tokens_details", details),
    ]);
    let error = object(vec![("message", text().boxed()), ("type", text().boxed())]);
    let chunk = object(vec![
        ("id", Just(json!("chatcmpl-1")).boxed()),
        ("object", Just(json!("chat.completion.chunk")).boxed()),
        ("created", Just(json!(1_741_570_283)).boxed()),
        ("model", text().boxed()),
        ("usage", usage),
        (
            "choices",
            prop::collection::vec(choice, 0..3)
                .prop_map(Value::Array)
                .boxed(),
        ),
    ]);
    prop_oneof![12 => chunk, 1 => error.prop_map(|e| json!({ "error": e })), 1 => odd()]
}

/// How deep `value` nests.
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(depth).max().unwrap_or(0),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// The scanner-first assembler answers exactly as the general reading, chunk by chunk and
    /// at the end; a well-formed chunk without an error member is never left to the general
    /// reading.
    #[test]
    fn the_scanner_agrees_with_the_general_reading(
        chunks in prop::collection::vec((chunk(), any::<u64>(), 0u8..4), 1..6),
    ) {
        let mut fast = OpenAiStream::default();
        let mut general = OpenAiStream::default();
        for (value, seed, broken) in &chunks {
            let mut ch = Choices(seed | 1);
            let mut data = String::new();
            write(value, &mut ch, &mut data);
            if *broken == 0 {
                data = break_text(&data, &mut ch);
            } else if value.is_object() && value.get("error").is_none() && depth(value) < 20 {
                prop_assert!(fast_chunk(data.trim(), &mut Chunk::default()).is_some(), "declined: {}", data);
            }
            let event = SseEvent { event: "message".into(), data: data.clone(), id: None };
            let a = fast.push(&event);
            let trimmed = data.trim();
            if trimmed.is_empty() || trimmed == "[DONE]" {
                continue;
            }
            let b = general.take_general(trimmed);
            prop_assert_eq!(format!("{a:?}"), format!("{b:?}"), "chunk: {}", data);
        }
        prop_assert_eq!(format!("{:?}", fast.finish()), format!("{:?}", general.finish()));
    }

    /// A string the scanner accepts is one serde_json accepts, with the same text, and every
    /// string serde_json accepts the scanner accepts too.
    #[test]
    fn strings_unescape_as_serde_json_does(value in text(), seed in any::<u64>(), broken in 0u8..3) {
        let mut ch = Choices(seed | 1);
        let mut written = String::new();
        write_str(value.as_str().unwrap(), &mut ch, &mut written);
        if broken == 0 {
            written = break_text(&written, &mut ch);
        }
        let mut cursor = Cursor::new(&written);
        cursor.peek_value();
        let scanned = cursor.string().filter(|_| cursor.at_end()).map(|s| s.into_owned());
        let serde = serde_json::from_str::<String>(&written).ok();
        prop_assert_eq!(scanned, serde, "text: {:?}", written);
    }

    /// A number the scanner reads is one serde_json reads, and a `u64` exactly when serde_json
    /// stores one.
    #[test]
    fn numbers_read_as_serde_json_reads_them(text in "-?[0-9]{0,22}(\\.[0-9]{0,2})?([eE][-+]?[0-9]{0,3})?") {
        let mut cursor = Cursor::new(&text);
        let scanned = cursor.u64_or_absent(0).filter(|_| cursor.at_end());
        let serde = serde_json::from_str::<Value>(&text).ok();
        if let Some(value) = scanned {
            prop_assert!(serde.is_some(), "accepted {}", text);
            prop_assert_eq!(value, serde.as_ref().and_then(Value::as_u64));
        } else if serde.is_some() {
            // Declined only for an exponent of three digits, which serde_json may find out of range.
            prop_assert!(text.contains(['e', 'E']), "declined {}", text);
        }
    }
}

#[test]
fn escapes_surrogates_and_limits() {
    let read = |s: &str| Cursor::new(s).string().map(|s| s.into_owned());
    assert_eq!(
        read(r#""a\"\\\/\b\f\n\r\t""#).unwrap(),
        "a\"\\/\u{8}\u{c}\n\r\t"
    );
    assert_eq!(read(r#""\u00e9\u20AC\ud83d\ude00""#).unwrap(), "é€😀");
    assert!(matches!(
        Cursor::new(r#""plain é""#).string(),
        Some(std::borrow::Cow::Borrowed("plain é"))
    ));
    for bad in [
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83d\u0041""#,
        r#""\x""#,
        "\"\u{1}\"",
        r#""\u+123""#,
        "\"open",
    ] {
        assert!(read(bad).is_none(), "{bad}");
        assert!(serde_json::from_str::<String>(bad).is_err(), "{bad}");
    }
    let deep = format!("{{\"x\":{}1{}}}", "[".repeat(40), "]".repeat(40));
    let scan = |data: &str| fast_chunk(data, &mut Chunk::default()).is_some();
    assert!(!scan(&deep));
    assert!(serde_json::from_str::<Value>(&deep).is_ok());
    assert!(!scan(r#"{"model":"m"} x"#));
    assert!(!scan(r#"{"model":"m","error":null}"#));
    let data = r#"{"m\u006fdel":"a","model":7,"choices":[{"delta":{"content":"x"},"error":1}]}"#;
    let mut chunk = Chunk::default();
    fast_chunk(data, &mut chunk).unwrap();
    assert!(chunk.model.is_none());
    assert_eq!(
        chunk
            .choices
            .iter()
            .next()
            .unwrap()
            .delta
            .as_ref()
            .unwrap()
            .content
            .as_deref(),
        Some("x")
    );
}
