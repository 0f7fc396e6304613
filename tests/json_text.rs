//! The plain JSON reader and writer (`protocol::json`) against serde_json: the same value or
//! the same error message (with its line and column) for every text, valid or not, and the same
//! bytes written for every value.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(not(target_arch = "wasm32"))]

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{json, Value};
use tabloop::protocol::json;

/// What serde_json makes of `text`: the value written back (so `-0.0` and `0.0`, `1.0` and `1`
/// differ) or the error's message.
fn serde_reading(text: &str) -> Result<String, String> {
    serde_json::from_str::<Value>(text)
        .map(|v| serde_json::to_string(&v).unwrap())
        .map_err(|e| e.to_string())
}

fn plain_reading(text: &str) -> Result<String, String> {
    json::parse(text)
        .map(|v| serde_json::to_string(&v).unwrap())
        .map_err(|e| e.to_string())
}

fn agree(text: &str) {
    assert_eq!(plain_reading(text), serde_reading(text), "reading {text:?}");
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        assert_eq!(json::parse(text).unwrap(), value, "{text:?}");
        assert_eq!(
            json::to_string(&value),
            serde_json::to_string(&value).unwrap()
        );
        assert_eq!(
            json::to_string_pretty(&value),
            serde_json::to_string_pretty(&value).unwrap()
        );
    }
}

#[test]
fn values_read_as_serde_reads_them() {
    for text in [
        "null",
        "true",
        "false",
        "0",
        "-0",
        "1",
        "-1",
        "0.0",
        "-0.0",
        "1.5",
        "1e5",
        "1E+5",
        "1e-5",
        "2.5e-7",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "1.7976931348623157e308",
        "1.8e308",
        "-1.8e308",
        "1e400",
        "1e-400",
        "4.9e-324",
        "2.4e-324",
        "0e99999999999",
        "1e99999999999",
        "1e-99999999999",
        "-1e-99999999999",
        "0.000e99999999999",
        "0.001e99999999999",
        "1.00000000000000000000000000001",
        "0.1",
        "0.30000000000000004",
        "9007199254740993",
        "1e2147483647",
        "1e2147483648",
        "12345678901234567890123e-5",
        "1234567890123456789012.5",
        "0.12345678901234567890123",
        r#""""#,
        r#""a\"b\\c\/d""#,
        r#""\b\f\n\r\t""#,
        r#""\u0041\u00e9\u4e2d""#,
        r#""\ud83d\ude00""#,
        r#""é中😀""#,
        "[]",
        "{}",
        "[1,2,3]",
        r#"{"a":1,"b":[true,null],"a":2}"#,
        " \t\n\r[ 1 , { } ] \n",
        r#"{"z":1,"a":2,"m":{"y":[],"b":{}}}"#,
    ] {
        agree(text);
    }
}

#[test]
fn errors_read_as_serde_reads_them() {
    for text in [
        "",
        " ",
        "n",
        "nul",
        "nulx",
        "tru",
        "fals",
        "x",
        "-",
        "-a",
        "01",
        "-01",
        "1.",
        "1.x",
        "1e",
        "1e+",
        "1ex",
        "1.e5",
        ".5",
        "+1",
        "1 2",
        "[",
        "[1",
        "[1,",
        "[1,]",
        "[1 2]",
        "{",
        "{\"a\"",
        "{\"a\":",
        "{\"a\":1",
        "{\"a\":1,",
        "{\"a\":1,}",
        "{1:2}",
        "{\"a\" 1}",
        "{\"a\":1 \"b\":2}",
        "{,}",
        "[,]",
        "\"",
        "\"abc",
        "\"\\",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\u12",
        "\"\\u12g4\"",
        "\"\\udc00\"",
        "\"\\ud800\"",
        "\"\\ud800x\"",
        "\"\\ud800\\n\"",
        "\"\\ud800\\u0041\"",
        "\"\\ud800\\",
        "\"\\ud800",
        "\"a\u{1}b\"",
        "\"a\nb\"",
        "[1]\n  x",
        "{\n\"a\":\n[1,\n2,]}",
        "1e99999999999999",
        "1.5e2147483648",
        "123456789012345678901234567890e99999999999",
        "[1e400]",
        "{\"a\":-}",
    ] {
        agree(text);
    }
}

#[test]
fn nesting_stops_where_serde_stops() {
    for depth in [126, 127, 128, 129, 200] {
        agree(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
        agree(&format!(
            "{}1{}",
            "{\"a\":[".repeat(depth / 2),
            "]}".repeat(depth / 2)
        ));
    }
}

#[test]
fn strings_are_written_as_serde_writes_them() {
    let all_ascii: String = (0u8..128).map(char::from).collect();
    for s in [
        all_ascii.as_str(),
        "",
        "plain",
        "é中😀\u{7f}\u{80}\u{2028}",
        "\"\\/",
    ] {
        let value = json!(s);
        assert_eq!(
            json::to_string(&value),
            serde_json::to_string(&value).unwrap()
        );
    }
}

#[test]
fn floats_are_written_as_serde_writes_them() {
    for f in [
        0.0,
        -0.0,
        1.0,
        0.1,
        1e21,
        1e-7,
        123456.789,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
    ] {
        let value = json!(f);
        assert_eq!(
            json::to_string(&value),
            serde_json::to_string(&value).unwrap()
        );
        let mut out = String::new();
        json::write_f64(f, &mut out);
        assert_eq!(out, serde_json::to_string(&f).unwrap());
    }
    for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut out = String::new();
        json::write_f64(f, &mut out);
        assert_eq!(out, serde_json::to_string(&f).unwrap());
    }
}

/// Pieces that JSON text is made of, and ways of getting them wrong.
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "\\u",
        "d83d",
        "de00",
        "dc00",
        "00e9",
        "0",
        "1",
        "9",
        "12",
        "-",
        "+",
        ".",
        "e",
        "E",
        "null",
        "true",
        "false",
        "nul",
        " ",
        "\n",
        "\t",
        "a",
        "é",
        "😀",
        "\u{1}",
        "\u{7f}",
        "\"k\"",
        "\"v\"",
        "1.5",
        "1e400",
        "18446744073709551616",
    ])
}

/// A JSON value of any shape, with awkward strings and numbers.
fn value() -> impl Strategy<Value = Value> {
    let number = prop_oneof![
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        (-400i32..400, any::<u32>()).prop_map(|(e, m)| Value::from(f64::from(m) * 10f64.powi(e))),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        number,
        any::<String>().prop_map(Value::from),
        "[\"\\\\\\x00-\\x1f a-z\u{e9}\u{1f600}]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\"\\\\]{0,4}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_text_of_json_pieces_reads_alike(pieces in prop::collection::vec(token(), 0..12)) {
        agree(&pieces.concat());
    }

    #[test]
    fn any_value_is_written_and_read_alike(value in value()) {
        agree(&serde_json::to_string(&value).unwrap());
        agree(&serde_json::to_string_pretty(&value).unwrap());
    }

    #[test]
    fn a_mangled_text_reads_alike(value in value(), at in any::<prop::sample::Index>(), piece in token(), cut in 0usize..3) {
        let text = serde_json::to_string(&value).unwrap();
        let mut boundaries: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        let start = boundaries[at.index(boundaries.len())];
        boundaries.retain(|&i| i >= start);
        let end = boundaries[cut.min(boundaries.len() - 1)];
        agree(&format!("{}{}{}", &text[..start], piece, &text[end..]));
    }

    #[test]
    fn any_number_text_reads_alike(
        sign in prop::sample::select(vec!["", "-"]),
        int in "0|[1-9][0-9]{0,30}|0[0-9]",
        frac in prop::option::of("[0-9]{0,25}"),
        exp in prop::option::of(("[eE]", prop::sample::select(vec!["", "+", "-"]), "[0-9]{0,12}")),
    ) {
        let mut text = format!("{sign}{int}");
        if let Some(frac) = frac {
            text.push('.');
            text.push_str(&frac);
        }
        if let Some((e, s, digits)) = exp {
            text.push_str(&format!("{e}{s}{digits}"));
        }
        agree(&text);
        agree(&format!("[{text}]"));
    }
}
