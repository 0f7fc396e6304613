//! The SSE parser against the WHATWG event-stream rules.

use pretty_assertions::assert_eq;
use tabloop::providers::{SseEvent, SseParser};

mod protocol_support;
use protocol_support::{parse, parse_chunks};

fn event(event: &str, data: &str, id: Option<&str>) -> SseEvent {
    SseEvent {
        event: event.to_string(),
        data: data.to_string(),
        id: id.map(str::to_string),
    }
}

#[test]
fn lf_crlf_and_cr_line_endings_give_the_same_events() {
    let expected = vec![event("message", "one", None), event("update", "two", None)];
    assert_eq!(
        parse(b"data: one\n\nevent: update\ndata: two\n\n"),
        expected
    );
    assert_eq!(
        parse(b"data: one\r\n\r\nevent: update\r\ndata: two\r\n\r\n"),
        expected
    );
    assert_eq!(
        parse(b"data: one\r\revent: update\rdata: two\r\r"),
        expected
    );
    assert_eq!(
        parse(b"data: one\r\n\nevent: update\rdata: two\n\r\n"),
        expected
    );
}

#[test]
fn a_crlf_split_between_chunks_counts_as_one_line_ending() {
    let (events, _) = parse_chunks(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
    assert_eq!(events, vec![event("message", "a\nb", None)]);
}

#[test]
fn a_cr_at_the_end_of_a_chunk_followed_by_other_bytes_ends_the_line() {
    let (events, _) = parse_chunks(&[b"data: a\r", b"\r", b"data: b\r\r"]);
    assert_eq!(
        events,
        vec![event("message", "a", None), event("message", "b", None)]
    );
}

#[test]
fn multi_line_data_is_joined_with_newlines() {
    assert_eq!(
        parse(b"data: first\ndata:\ndata: third\n\n"),
        vec![event("message", "first\n\nthird", None)]
    );
}

#[test]
fn comment_lines_are_ignored() {
    assert_eq!(
        parse(b": keep-alive\n\n: OPENROUTER PROCESSING\ndata: x\n: inside\n\n"),
        vec![event("message", "x", None)]
    );
}

#[test]
fn the_event_field_names_the_event_and_resets_after_dispatch() {
    assert_eq!(
        parse(b"event: ping\ndata: {}\n\ndata: plain\n\n"),
        vec![event("ping", "{}", None), event("message", "plain", None)]
    );
}

#[test]
fn a_leading_bom_is_stripped_once() {
    assert_eq!(
        parse(b"\xEF\xBB\xBFdata: x\n\n\xEF\xBB\xBFdata: y\n\n"),
        vec![event("message", "x", None)]
    );
}

#[test]
fn a_bom_split_across_chunks_is_still_stripped() {
    let (events, _) = parse_chunks(&[b"\xEF", b"\xBB", b"\xBFdata: x\n\n"]);
    assert_eq!(events, vec![event("message", "x", None)]);
}

#[test]
fn only_one_space_after_the_colon_is_removed() {
    assert_eq!(
        parse(b"data:no-space\n\ndata:  two spaces\n\n"),
        vec![
            event("message", "no-space", None),
            event("message", " two spaces", None)
        ]
    );
}

#[test]
fn a_field_without_colon_has_an_empty_value() {
    assert_eq!(
        parse(b"data\n\ndata\ndata\n\n"),
        vec![event("message", "", None), event("message", "\n", None)]
    );
}

#[test]
fn an_event_without_data_is_not_dispatched() {
    assert_eq!(parse(b"event: lonely\n\nid: 7\n\n"), vec![]);
}

#[test]
fn the_last_event_id_persists_until_reset_by_an_empty_id() {
    assert_eq!(
        parse(b"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: x\0y\ndata: d\n\n"),
        vec![
            event("message", "a", Some("1")),
            event("message", "b", Some("1")),
            event("message", "c", None),
            event("message", "d", None),
        ]
    );
}

#[test]
fn retry_with_digits_sets_the_reconnection_time_and_anything_else_is_ignored() {
    let mut parser = SseParser::default();
    parser.push(b"retry: 2500\n\nretry: 3s\n\n");
    assert_eq!(parser.retry_ms(), Some(2500));
}

#[test]
fn unknown_fields_are_ignored() {
    assert_eq!(
        parse(b"foo: bar\ndata: x\n\n"),
        vec![event("message", "x", None)]
    );
}

#[test]
fn utf8_split_across_chunks_is_decoded_whole() {
    let bytes = "data: café 🌤\n\n".as_bytes();
    let emoji_start = bytes.len() - 6;
    let (events, _) = parse_chunks(&[
        &bytes[..10],
        &bytes[10..emoji_start + 1],
        &bytes[emoji_start + 1..emoji_start + 3],
        &bytes[emoji_start + 3..],
    ]);
    assert_eq!(events, vec![event("message", "café 🌤", None)]);
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    assert_eq!(
        parse(b"data: a\xFFb\n\n"),
        vec![event("message", "a\u{FFFD}b", None)]
    );
}

#[test]
fn an_event_without_its_blank_line_is_dropped_and_reported_at_finish() {
    assert_eq!(
        parse_chunks(&[b"data: a\n\ndata: [DONE]\n"]),
        (vec![event("message", "a", None)], true)
    );
    assert_eq!(
        parse_chunks(&[b"data: a\n\ndata: [DO"]),
        (vec![event("message", "a", None)], true)
    );
}

#[test]
fn a_stream_ending_on_a_blank_line_did_not_end_mid_event() {
    assert_eq!(
        parse_chunks(&[b"data: a\n\n: bye\n"]),
        (vec![event("message", "a", None)], false)
    );
}

/// Every event of `stream` fed in pieces of `piece` bytes, as `push_each` hands them over.
fn each(stream: &[u8], piece: usize) -> Vec<SseEvent> {
    let mut parser = SseParser::default();
    let mut events = Vec::new();
    for chunk in stream.chunks(piece) {
        let fed = parser.push_each(chunk, |event| {
            events.push(event.clone());
            Ok::<(), ()>(())
        });
        assert_eq!(fed, Ok(()));
    }
    events
}

#[test]
fn push_each_hands_over_the_events_push_returns_whatever_the_pieces() {
    let stream = "\u{feff}event: a\r\nid: 7\ndata: x\n\ndata: y\r\ndata: z\r\n\r\n: note\n\
                  event: b\rdata: \u{e9}t\u{e9}\r\rid:\ndata: w\n\n"
        .as_bytes();
    let mut parser = SseParser::default();
    let whole = parser.push(stream);
    assert_eq!(
        whole,
        vec![
            event("a", "x", Some("7")),
            event("message", "y\nz", Some("7")),
            event("b", "\u{e9}t\u{e9}", Some("7")),
            event("message", "w", None),
        ]
    );
    for piece in 1..=stream.len() {
        assert_eq!(each(stream, piece), whole, "pieces of {piece}");
    }
}

#[test]
fn an_error_from_the_callback_stops_reading_and_is_returned() {
    let mut parser = SseParser::default();
    let mut seen = Vec::new();
    let result = parser.push_each(b"data: 1\n\ndata: 2\n\ndata: 3\n\n", |event| {
        seen.push(event.data.clone());
        if event.data == "2" {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert_eq!(result, Err("stop"));
    assert_eq!(seen, ["1", "2"]);
}
