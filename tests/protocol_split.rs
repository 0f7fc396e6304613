//! Chunk boundaries must not matter: splitting a fixture stream anywhere (one split at every
//! byte, or many random splits) yields the same events and the same assembled reply.
// proptest is a native-only dev-dependency.
#![cfg(not(target_arch = "wasm32"))]

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use tabloop::protocol::{ModelError, ModelReply, StreamDelta};
use tabloop::providers::SseEvent;

mod protocol_support;
use protocol_support::{assemble_anthropic, assemble_openai, fixture, parse, parse_chunks};

type Assembled = (Vec<StreamDelta>, Result<ModelReply, ModelError>);
type Assembler = fn(&[SseEvent]) -> Assembled;

const CASES: [(&str, Assembler); 4] = [
    ("openai_text.sse", assemble_openai),
    ("openai_tool_calls.sse", assemble_openai),
    ("anthropic_tool_use.sse", assemble_anthropic),
    ("anthropic_thinking.sse", assemble_anthropic),
];

/// The fixture with LF line endings replaced by CRLF.
fn with_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for byte in bytes {
        if *byte == b'\n' {
            out.push(b'\r');
        }
        out.push(*byte);
    }
    out
}

/// Splits `bytes` at the given (unsorted, possibly repeated) cut points.
fn split_at<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for cut in cuts {
        chunks.push(&bytes[start..cut]);
        start = cut;
    }
    chunks.push(&bytes[start..]);
    chunks
}

#[test]
fn every_fixture_completes_without_error() {
    for (name, assemble) in CASES {
        let (_, reply) = assemble(&parse(&fixture(name)));
        assert!(reply.is_ok(), "{name}: {reply:?}");
    }
}

#[test]
fn a_split_at_every_byte_boundary_changes_nothing() {
    for (name, assemble) in CASES {
        for bytes in [fixture(name), with_crlf(&fixture(name))] {
            let whole = parse(&bytes);
            let expected = assemble(&whole);
            for cut in 0..=bytes.len() {
                let (events, ended_mid_event) = parse_chunks(&[&bytes[..cut], &bytes[cut..]]);
                assert_eq!(events, whole, "{name} split at {cut}");
                assert!(!ended_mid_event, "{name} split at {cut}");
                assert_eq!(assemble(&events), expected, "{name} split at {cut}");
            }
        }
    }
}

#[test]
fn crlf_line_endings_give_the_same_events_as_lf() {
    for (name, _) in CASES {
        assert_eq!(
            parse(&with_crlf(&fixture(name))),
            parse(&fixture(name)),
            "{name}"
        );
    }
}

proptest! {
    #[test]
    fn random_multi_splits_give_the_same_events_and_reply(
        case in 0..CASES.len(),
        crlf in any::<bool>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        let (name, assemble) = CASES[case];
        let bytes = if crlf { with_crlf(&fixture(name)) } else { fixture(name) };
        let whole = parse(&bytes);
        let (events, _) = parse_chunks(&split_at(&bytes, &cuts));
        prop_assert_eq!(&events, &whole);
        prop_assert_eq!(assemble(&events), assemble(&whole));
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_parser_or_the_assemblers(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        cuts in proptest::collection::vec(any::<usize>(), 0..10),
    ) {
        let (events, _) = parse_chunks(&split_at(&bytes, &cuts));
        let _ = assemble_openai(&events);
        let _ = assemble_anthropic(&events);
    }

    #[test]
    fn fixture_events_with_cut_data_never_panic_the_assemblers(
        case in 0..CASES.len(),
        victim in any::<usize>(),
        cut in any::<usize>(),
    ) {
        let (name, assemble) = CASES[case];
        let mut events = parse(&fixture(name));
        let index = victim % events.len();
        let data = &events[index].data;
        let mut at = cut % (data.len() + 1);
        while !data.is_char_boundary(at) {
            at -= 1;
        }
        events[index].data.truncate(at);
        let _ = assemble(&events);
        let _ = assemble_openai(&events);
        let _ = assemble_anthropic(&events);
    }
}
