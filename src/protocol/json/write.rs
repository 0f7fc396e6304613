//! JSON text written as serde_json writes it, byte for byte: compact, strings escaped with its
//! table (`\"`, `\\`, the short escapes of `\b \t \n \f \r`, every other control character as
//! `\u00xx` in lower-case hex, nothing else), integers in decimal, floats in their shortest
//! round-trip form by the same formatter (zmij), a non-finite float as `null`, object members in
//! the map's (sorted) order.

use serde_json::{Number, Value};

/// `value` as compact JSON text.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// Writes `value` as compact JSON text.
pub fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => write_bool(*b, out),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(key, out);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

/// Writes `true` or `false`.
pub fn write_bool(b: bool, out: &mut String) {
    out.push_str(if b { "true" } else { "false" });
}

/// Writes a number as serde_json stores it.
pub fn write_number(n: &Number, out: &mut String) {
    if let Some(u) = n.as_u64() {
        write_u64(u, out);
    } else if let Some(i) = n.as_i64() {
        write_i64(i, out);
    } else {
        write_f64(n.as_f64().unwrap_or(f64::NAN), out);
    }
}

/// Writes an unsigned integer.
pub fn write_u64(n: u64, out: &mut String) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Writes a signed integer.
pub fn write_i64(n: i64, out: &mut String) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Writes a float in its shortest round-trip form (`1.0`, `0.1`, `1e21`), `null` when it is
/// not finite.
pub fn write_f64(f: f64, out: &mut String) {
    if f.is_finite() {
        out.push_str(zmij::Buffer::new().format_finite(f));
    } else {
        out.push_str("null");
    }
}

/// Writes a single-precision float in its shortest round-trip form, `null` when it is not
/// finite (serde_json writes an `f32` with its own shortest digits, not as an `f64`).
pub fn write_f32(f: f32, out: &mut String) {
    if f.is_finite() {
        out.push_str(zmij::Buffer::new().format_finite(f));
    } else {
        out.push_str("null");
    }
}

/// Writes `s` as a quoted JSON string.
pub fn write_str(s: &str, out: &mut String) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let escape: &str = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0C => "\\f",
            b'\r' => "\\r",
            0x00..=0x1F => "",
            _ => continue,
        };
        // Every byte escaped is ASCII, so these cuts fall on char boundaries.
        out.push_str(s.get(start..i).unwrap_or_default());
        start = i + 1;
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xF)]));
        } else {
            out.push_str(escape);
        }
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

/// `value` as serde_json's pretty text: two spaces of indent, `": "` between key and value,
/// empty arrays and objects as `[]` and `{}`.
pub fn to_string_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_pretty(value, 0, &mut out);
    out
}

fn write_pretty(value: &Value, depth: usize, out: &mut String) {
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_pretty(item, depth + 1, out);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(members) if !members.is_empty() => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_str(key, out);
                out.push_str(": ");
                write_pretty(item, depth + 1, out);
            }
            newline(out, depth);
            out.push('}');
        }
        Value::Null
        | Value::Bool(_)
        | Value::Number(_)
        | Value::String(_)
        | Value::Array(_)
        | Value::Object(_) => write_value(value, out),
    }
}
