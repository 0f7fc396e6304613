//! The in-tab model's reply as a person sees it while it is written: an answer's text, or a
//! call's raw JSON as a preview (`AnswerPreview`).

use pretty_assertions::assert_eq;
use tabloop::protocol::local_answer_preview::AnswerPreview;
use tabloop::protocol::StreamDelta;

/// Feeds `raw` to a preview in pieces of `size` bytes (on char boundaries) and gathers what it
/// shows, as (visible text, reasoning-like preview).
fn previewed(raw: &str, size: usize, answer_offered: bool) -> (String, String) {
    let mut preview = AnswerPreview::new(answer_offered);
    let (mut text, mut thinking) = (String::new(), String::new());
    let mut rest = raw;
    while !rest.is_empty() {
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        match preview.push(&rest[..cut]) {
            Some(StreamDelta::Text(t)) => text.push_str(&t),
            Some(StreamDelta::Thinking(t)) => thinking.push_str(&t),
            other => assert_eq!(other, None),
        }
        rest = &rest[cut..];
    }
    (text, thinking)
}

#[test]
fn an_answer_being_written_shows_its_text_whatever_the_pieces() {
    let raw =
        r#"{"tool":"answer","arguments":{"text":"Tabs \"pile\" up:\n- one\\two\tthree é 🙂"}}"#;
    for size in 1..=raw.len() {
        assert_eq!(
            previewed(raw, size, true),
            (
                "Tabs \"pile\" up:\n- one\\two\tthree é 🙂".to_string(),
                String::new()
            ),
            "pieces of {size}"
        );
    }
    // Cut in the middle (a cancel): what was readable so far, no half escape.
    assert_eq!(
        previewed(
            r#"{"tool":"answer","arguments":{"text":"Once upon a\"#,
            3,
            true
        )
        .0,
        "Once upon a"
    );
}

#[test]
fn a_call_being_written_is_previewed_whole_and_never_as_text() {
    let raw = r#"{"tool":"vfs","arguments":{"op":"list","path":"/"}}"#;
    for size in 1..=raw.len() {
        assert_eq!(previewed(raw, size, true), (String::new(), raw.to_string()));
    }
    // A tool the page named `answer` is a call like any other.
    let answer_call = r#"{"tool":"answer","arguments":{"text":"x"}}"#;
    assert_eq!(
        previewed(answer_call, 4, false),
        (String::new(), answer_call.to_string())
    );
}
