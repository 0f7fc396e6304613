//! The repeat guard: a run the reply has already written is held back, the more the longer it
//! is; JSON's punctuation is never a run under a grammar; on the bundled model, a story that
//! looped until its token limit now ends, and so does a free-text answer that looped over its
//! lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use pretty_assertions::assert_eq;
use tabloop_engine::repetition::{breaks_run, RepeatGuard};
use tabloop_engine::sampling::Sampling;
use tabloop_engine::session::{Session, Step};

const GUARD: RepeatGuard = RepeatGuard {
    multiplier: 1.0,
    base: 2.0,
    allowed: 2,
};

/// Token 9 is the only one that ends a run.
fn penalties(output: &[u32]) -> Vec<f32> {
    let mut logits = vec![0.0; 10];
    GUARD.penalize(&mut logits, output, |token| token == 9);
    logits
}

#[test]
fn the_penalties_listed_are_what_penalize_takes_off() {
    let output = [1, 2, 3, 4, 5, 1, 2, 3, 6, 1, 2, 3];
    let mut listed = vec![0.0; 10];
    for (token, penalty) in GUARD.penalties(&output, |token| token == 9) {
        listed[token as usize] -= penalty;
    }
    assert_eq!(listed, penalties(&output));
    assert!(listed.iter().any(|l| *l != 0.0));
}

#[test]
fn the_token_that_would_repeat_a_run_is_held_back_by_the_run_s_length() {
    // 1 2 3 4 … 1 2 3: writing 4 next would repeat a run of 3 (1 × 2^(3−2)).
    let logits = penalties(&[1, 2, 3, 4, 5, 1, 2, 3]);
    assert_eq!(logits[4], -2.0);
    assert!(
        logits.iter().enumerate().all(|(t, l)| t == 4 || *l == 0.0),
        "{logits:?}"
    );
    // A run of 2 (… 2 3 then 2 3): at `allowed`, 1 × 2^0.
    assert_eq!(penalties(&[2, 3, 4, 2, 3])[4], -1.0);
    // A run of 1 is free.
    assert_eq!(penalties(&[3, 4, 3]), vec![0.0; 10]);
}

#[test]
fn the_longest_earlier_run_decides() {
    // 5 followed "2 3" once and "1 2 3" once: the run of 3 counts (1 × 2^(3−2)).
    let logits = penalties(&[2, 3, 5, 7, 1, 2, 3, 5, 8, 1, 2, 3]);
    assert_eq!(logits[5], -2.0);
    // A loop matches itself across its own repeats: "2 3 5 1" written twice, then "2 3" again
    // repeats a run of 6.
    assert_eq!(penalties(&[2, 3, 5, 1, 2, 3, 5, 1, 2, 3])[5], -16.0);
}

#[test]
fn a_run_stops_at_a_breaking_token_which_is_never_held_back() {
    // "1 9 2 3 … 9 2 3": the run is "2 3" (the 9 breaks it), and the 9 after it is free.
    let logits = penalties(&[1, 9, 2, 3, 9, 6, 1, 9, 2, 3]);
    assert_eq!(logits[9], 0.0);
    // After a breaking token nothing is held back at all.
    assert_eq!(penalties(&[1, 2, 9, 1, 2, 9]), vec![0.0; 10]);
}

#[test]
fn quotes_backslashes_braces_and_line_breaks_end_runs() {
    for text in ["\"", "\",\"", "\\n", "}}", "{", "a\nb"] {
        assert!(breaks_run(text.as_bytes()), "{text:?}");
    }
    for text in [" cat", "She", " is", ".", ":"] {
        assert!(!breaks_run(text.as_bytes()), "{text:?}");
    }
}

#[test]
fn a_story_that_looped_until_its_limit_ends() {
    // The default tools' prompt and grammar as the tab sends them, and the first task people
    // try: greedy decoding wrote "She is a cat that loves to learn and is very intelligent."
    // again and again until the limit.
    let prompt = include_str!("fixtures/story_prompt.txt");
    let grammar = include_str!("fixtures/story_grammar.gbnf");
    let (text, end) = write(prompt, Some(grammar), 256);
    assert_eq!(end, Step::Stop, "{text}");
    assert!(
        text.starts_with(r#"finish","arguments":{"summary":""#),
        "{text}"
    );
}

/// A completion of `prompt` on the bundled model, greedy, under `grammar` if given: its text
/// and how it ended.
fn write(prompt: &str, grammar: Option<&str>, max_tokens: usize) -> (String, Step) {
    let mut session = Session::load(support::model_bytes(), 1024, 1).unwrap();
    session
        .begin(prompt, grammar, Sampling::Greedy, max_tokens)
        .unwrap();
    while session.feed(64).unwrap() > 0 {}
    let mut text = Vec::new();
    let end = loop {
        match session.next(0.0).unwrap() {
            Step::Token(bytes) => text.extend(bytes),
            end @ (Step::Stop | Step::Length) => break end,
        }
    };
    (String::from_utf8(text).unwrap(), end)
}

#[test]
fn a_free_text_answer_that_looped_over_its_lines_ends() {
    // "List the files", answered in words (the model chose to answer instead of calling vfs):
    // the answer's plain-text prompt as the tab sends it. With line breaks ending runs, greedy
    // decoding wrote "The list of files that …" line after line until the limit (in the tab on
    // a CPU with 7-bit activations: "- todo:" 256 pieces long). In free text a loop of lines is
    // a run like any other.
    let prompt = include_str!("fixtures/list_prompt.txt");
    let (text, end) = write(prompt, None, 256);
    assert_eq!(end, Step::Stop, "{text}");
    assert!(text.starts_with("The list of files"), "{text}");
}
