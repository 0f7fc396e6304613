//! Canonical forms and hashes: key-sorted, whitespace-normalised JSON for fingerprints, and
//! SHA-256 digests for approval binding and observation identity.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Key-sorted JSON text of `value` with compact separators. String contents are kept exactly.
/// Sorting is done here, not left to the JSON map type, so the result never depends on features.
pub fn canonical_json(value: &Value) -> String {
    canonical_text(value, false)
}

/// Like [`canonical_json`] but whitespace runs inside strings collapse to one space and ends are
/// trimmed, so `"foo "` and `"foo"` count as the same action.
pub fn normalized_json(value: &Value) -> String {
    canonical_text(value, true)
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

/// Every tool call is written out this way at least twice (its approval hash, the guard's
/// action), so the text goes into one buffer: serde_json escapes strings and prints numbers
/// straight into it, with no string of its own per key and value.
fn canonical_text(value: &Value, squash: bool) -> String {
    let mut out = Vec::new();
    write_canonical(value, &mut out, squash);
    // Only serde_json's output and whole UTF-8 strings were written.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn write_canonical(value: &Value, out: &mut Vec<u8>, squash: bool) {
    match value {
        // Writing to a Vec cannot fail.
        Value::Null | Value::Bool(_) | Value::Number(_) => {
            let _ = serde_json::to_writer(&mut *out, value);
        }
        Value::String(s) if squash && !is_squashed(s) => {
            let _ = serde_json::to_writer(&mut *out, &squash_whitespace(s));
        }
        Value::String(s) => {
            let _ = serde_json::to_writer(&mut *out, s);
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out, squash);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let _ = serde_json::to_writer(&mut *out, key);
                out.push(b':');
                write_canonical(v, out, squash);
            }
            out.push(b'}');
        }
    }
}

fn squash_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether [`squash_whitespace`] would leave `s` as it is: no whitespace but single spaces
/// between other characters.
fn is_squashed(s: &str) -> bool {
    !s.starts_with(' ')
        && !s.ends_with(' ')
        && !s.contains("  ")
        && !s.chars().any(|c| c.is_whitespace() && c != ' ')
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
    fn only_strings_squashing_would_change_are_squashed() {
        for s in [
            "",
            "a",
            "grep foo bar",
            " a",
            "a ",
            "a  b",
            "a\tb",
            "a\u{a0}b",
            "\n",
            "x\u{2003}y",
            "  ",
            " ",
            "é ü",
        ] {
            assert_eq!(is_squashed(s), squash_whitespace(s) == s, "{s:?}");
        }
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
