//! A minimal GGUF writer (version 3, metadata and F32 tensors) for fuzz targets that build a
//! file from structured input: the tokenizer target writes a vocabulary, merges and special ids
//! this way, so every execution reaches the tokenizer rather than the header checks.

/// One metadata value.
pub enum Meta {
    /// A string (type 8).
    Str(Vec<u8>),
    /// A u32 (type 4).
    U32(u32),
    /// A bool (type 7).
    Bool(bool),
    /// An array of strings.
    Strings(Vec<Vec<u8>>),
    /// An array of i32 (type 5).
    I32s(Vec<i32>),
    /// An array of f32 (type 6).
    F32s(Vec<f32>),
}

fn string(out: &mut Vec<u8>, s: &[u8]) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s);
}

/// The bytes of a GGUF file with `meta` and no tensors.
pub fn gguf(meta: &[(&str, Meta)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"GGUF");
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&(meta.len() as u64).to_le_bytes());
    for (key, value) in meta {
        string(&mut out, key.as_bytes());
        match value {
            Meta::Str(s) => {
                out.extend_from_slice(&8u32.to_le_bytes());
                string(&mut out, s);
            }
            Meta::U32(v) => {
                out.extend_from_slice(&4u32.to_le_bytes());
                out.extend_from_slice(&v.to_le_bytes());
            }
            Meta::Bool(v) => {
                out.extend_from_slice(&7u32.to_le_bytes());
                out.push(u8::from(*v));
            }
            Meta::Strings(items) => {
                out.extend_from_slice(&9u32.to_le_bytes());
                out.extend_from_slice(&8u32.to_le_bytes());
                out.extend_from_slice(&(items.len() as u64).to_le_bytes());
                for s in items {
                    string(&mut out, s);
                }
            }
            Meta::I32s(items) => {
                out.extend_from_slice(&9u32.to_le_bytes());
                out.extend_from_slice(&5u32.to_le_bytes());
                out.extend_from_slice(&(items.len() as u64).to_le_bytes());
                for v in items {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
            Meta::F32s(items) => {
                out.extend_from_slice(&9u32.to_le_bytes());
                out.extend_from_slice(&6u32.to_le_bytes());
                out.extend_from_slice(&(items.len() as u64).to_le_bytes());
                for v in items {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    out
}
