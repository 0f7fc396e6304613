//! Canonical forms and hashes: key-sorted, whitespace-normalised JSON for fingerprints, and
//! SHA-256 digests for approval binding and observation identity.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Key-sorted JSON text of `value` with compact separators. String contents are kept exactly.
/// Sorting is done here, not left to the JSON map type, so the result never depends on features.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out, false);
    out
}

/// Like [`canonical_json`] but whitespace runs inside strings collapse to one space and ends are
/// trimmed, so `"foo "` and `"foo"` count as the same action.
pub fn normalized_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out, true);
    out
}

/// The form of a call's arguments by which two calls count as the same action: normalised JSON
/// when they parsed (`args`), else the trimmed text. The loop guard and the repeated-success rule
/// share it, so both mean the same thing by "the same call".
pub fn action_arguments(args: &Value, raw: &str) -> String {
    if args.is_null() {
        raw.trim().to_string()
    } else {
        normalized_json(args)
    }
}

fn write_canonical(value: &Value, out: &mut String, squash: bool) {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => out.push_str(&value.to_string()),
        Value::String(s) => {
            let text = if squash {
                squash_whitespace(s)
            } else {
                s.clone()
            };
            out.push_str(&crate::protocol::json_text(&text));
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out, squash);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&crate::protocol::json_text(key));
                out.push(':');
                if let Some(v) = map.get(*key) {
                    write_canonical(v, out, squash);
                }
            }
            out.push('}');
        }
    }
}

fn squash_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Full SHA-256 of `parts` (length-prefixed so boundaries matter), as lowercase hex. Written
/// by table: a `format!` per byte was a tenth of the core's work on a step (every tool call
/// is hashed).
pub fn sha256_hex(parts: &[&str]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = hash_parts(parts);
    let mut out = String::with_capacity(2 * digest.len());
    for byte in digest {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    out
}

/// The first 64 bits of SHA-256 of `parts`, for counting fingerprints in maps.
pub fn hash64(parts: &[&str]) -> u64 {
    let digest = hash_parts(parts);
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(bytes)
}

fn hash_parts(parts: &[&str]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().into()
}

/// Hash an approval is bound to: the tool and its exact (canonical) arguments.
pub fn args_hash(tool: &str, args: &Value) -> String {
    sha256_hex(&[tool, &canonical_json(args)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let a = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": null}});
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"x":null,"y":[1,{"c":3,"d":2}]},"b":1}"#
        );
    }

    #[test]
    fn normalized_json_squashes_whitespace_in_strings_only_for_fingerprints() {
        let a = json!({"q": "  grep   foo \n"});
        assert_eq!(normalized_json(&a), r#"{"q":"grep foo"}"#);
        assert_eq!(canonical_json(&a), r#"{"q":"  grep   foo \n"}"#);
    }

    #[test]
    fn the_hex_digest_is_each_byte_as_two_lowercase_digits() {
        for parts in [&["x"][..], &["read_file", r#"{"path":"/a"}"#], &[""]] {
            let expected: String = hash_parts(parts)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(sha256_hex(parts), expected);
        }
    }

    #[test]
    fn hashes_depend_on_part_boundaries() {
        assert_ne!(hash64(&["ab", "c"]), hash64(&["a", "bc"]));
        assert_eq!(sha256_hex(&["x"]).len(), 64);
    }
}
