//! SentencePiece tokenization (`tokenizer.ggml.model = "llama"`) on a small vocabulary made
//! here: merges by score, the leftmost among equal scores, byte fallback, the space prefix
//! llama.cpp adds at the start and after a special token when the model asks for it, and
//! spaces shown as spaces. The real-format check, id for id against llama.cpp on a Gemma-style
//! vocabulary, is tests/synthetic.rs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tabloop_engine::gguf::Gguf;
use tabloop_engine::tokenizer::Tokenizer;

/// A GGUF holding only a SentencePiece vocabulary: `<unk>`, `<s>`, `</s>`, the 256 byte
/// tokens, then `pieces` with their scores.
fn vocabulary(pieces: &[(&str, f32)], space_prefix: bool) -> Vec<u8> {
    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn key(out: &mut Vec<u8>, name: &str, kind: u32) {
        string(out, name);
        out.extend_from_slice(&kind.to_le_bytes());
    }
    let mut tokens: Vec<(String, f32, i32)> = vec![
        ("<unk>".into(), 0.0, 2),
        ("<s>".into(), 0.0, 3),
        ("</s>".into(), 0.0, 3),
    ];
    tokens.extend((0..=255u8).map(|b| (format!("<0x{b:02X}>"), 0.0, 6)));
    tokens.extend(pieces.iter().map(|(p, s)| (p.to_string(), *s, 1)));
    let mut out = b"GGUF".to_vec();
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&6u64.to_le_bytes());
    key(&mut out, "tokenizer.ggml.model", 8);
    string(&mut out, "llama");
    key(&mut out, "tokenizer.ggml.add_space_prefix", 7);
    out.push(u8::from(space_prefix));
    key(&mut out, "tokenizer.ggml.bos_token_id", 4);
    out.extend_from_slice(&1u32.to_le_bytes());
    for (name, item_type) in [
        ("tokenizer.ggml.tokens", 8u32),
        ("tokenizer.ggml.scores", 6),
        ("tokenizer.ggml.token_type", 5),
    ] {
        key(&mut out, name, 9);
        out.extend_from_slice(&item_type.to_le_bytes());
        out.extend_from_slice(&(tokens.len() as u64).to_le_bytes());
        for (text, score, kind) in &tokens {
            match item_type {
                8 => string(&mut out, text),
                6 => out.extend_from_slice(&score.to_le_bytes()),
                _ => out.extend_from_slice(&kind.to_le_bytes()),
            }
        }
    }
    out
}

fn tokenizer(pieces: &[(&str, f32)], space_prefix: bool) -> Tokenizer {
    Tokenizer::from_gguf(&Gguf::parse(&vocabulary(pieces, space_prefix)).unwrap()).unwrap()
}

/// The id of `pieces[i]`.
fn piece(i: u32) -> u32 {
    3 + 256 + i
}

#[test]
fn the_highest_scoring_merge_goes_first_and_the_leftmost_among_equals() {
    // "bc" scores higher than "ab": a + bc, where merging left to right would give ab + c
    let tok = tokenizer(
        &[
            ("a", -1.0),
            ("b", -1.0),
            ("c", -1.0),
            ("ab", -5.0),
            ("bc", -2.0),
        ],
        false,
    );
    assert_eq!(tok.encode("abc", false), [piece(0), piece(4)]);
    let tok = tokenizer(
        &[
            ("a", -1.0),
            ("b", -1.0),
            ("c", -1.0),
            ("ab", -2.0),
            ("bc", -2.0),
        ],
        false,
    );
    assert_eq!(tok.encode("abc", false), [piece(3), piece(2)]);
}

#[test]
fn a_character_that_is_no_token_is_spelled_by_its_bytes() {
    let tok = tokenizer(&[("a", -1.0)], false);
    assert_eq!(tok.encode("aé", false), [piece(0), 3 + 0xC3, 3 + 0xA9]);
    assert_eq!(tok.token_bytes(3 + 0xC3), [0xC3]);
}

#[test]
fn spaces_are_pieces_and_the_model_may_ask_for_one_before_the_text() {
    let pieces = [("\u{2581}", -1.0), ("a", -1.0), ("\u{2581}a", -0.5)];
    // Gemma: no prefix; a space inside the text is ▁
    let tok = tokenizer(&pieces, false);
    assert_eq!(tok.encode("a a", false), [piece(1), piece(2)]);
    assert_eq!(tok.token_bytes(piece(2)), b" a");
    // Llama 2: a space before the text, and again after a special token
    let tok = tokenizer(&pieces, true);
    assert_eq!(tok.encode("a", false), [piece(2)]);
    assert_eq!(tok.encode("<s>a", true), [1, piece(2)]);
    assert!(tok.add_bos());
    assert_eq!(tok.bos(), Some(1));
}
