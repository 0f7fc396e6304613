//! Incremental Server-Sent Events parser following the WHATWG HTML standard ("Server-sent
//! events", parsing an event stream). It owns only the bytes-to-events step: line splitting,
//! field interpretation and dispatch. It knows nothing about any provider.
//!
//! Bytes may arrive in chunks of any size: a line is decoded only once its terminator has
//! arrived, so UTF-8 sequences and CRLF pairs split across chunks are handled.

/// The UTF-8 byte order mark, stripped once from the start of the stream.
const BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type: the last `event:` field of the event, or `"message"` when there was none.
    pub event: String,
    /// The `data:` field values joined with `\n`.
    pub data: String,
    /// The last event id in effect when the event was dispatched. As in the standard it persists
    /// across events until another `id:` field changes it; an empty `id:` resets it to `None`.
    pub id: Option<String>,
}

/// Incremental event-stream parser. Feed it with [`SseParser::push`], then call
/// [`SseParser::finish`] at end of stream.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the current line whose terminator has not arrived yet.
    line: Vec<u8>,
    /// True once the first line was taken (the BOM can only precede it).
    past_first_line: bool,
    /// The previous chunk ended with CR: an LF starting the next chunk belongs to it.
    skip_lf: bool,
    /// The data buffer: each `data:` value followed by `\n`.
    data: String,
    /// The event type buffer.
    event_type: String,
    /// The last event id buffer.
    last_event_id: Option<String>,
    /// The reconnection time from the last valid `retry:` field.
    retry_ms: Option<u64>,
    /// A field line was seen since the last blank line.
    fields_pending: bool,
    /// Set by `finish` when the stream stopped inside an event.
    ended_mid_event: bool,
}

impl SseParser {
    /// Feeds the next chunk of bytes and returns the events it completed, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.skip_lf {
            if let Some((first, tail)) = rest.split_first() {
                self.skip_lf = false;
                if *first == b'\n' {
                    rest = tail;
                }
            }
        }
        while let Some(pos) = memchr::memchr2(b'\n', b'\r', rest) {
            if self.line.is_empty() {
                // The whole line is in this chunk: read it in place.
                self.take_line(&rest[..pos], &mut events);
            } else {
                self.line.extend_from_slice(&rest[..pos]);
                let mut line = std::mem::take(&mut self.line);
                self.take_line(&line, &mut events);
                line.clear();
                self.line = line;
            }
            let after = pos + 1;
            if rest[pos] == b'\r' {
                match rest.get(after) {
                    Some(b'\n') => {
                        rest = &rest[after + 1..];
                        continue;
                    }
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            rest = &rest[after..];
        }
        self.line.extend_from_slice(rest);
        events
    }

    /// Ends the stream. As the standard requires, an event whose terminating blank line never
    /// arrived is discarded, so this returns no event; whether that happened is reported by
    /// [`SseParser::ended_mid_event`]. The parser is reset for reuse, keeping that flag.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        self.ended_mid_event = self.fields_pending || !self.line.is_empty();
        let ended_mid_event = self.ended_mid_event;
        *self = SseParser {
            ended_mid_event,
            ..SseParser::default()
        };
        Vec::new()
    }

    /// Whether the last [`SseParser::finish`] found an incomplete event (a partial line, or field
    /// lines without their blank line) and discarded it.
    pub fn ended_mid_event(&self) -> bool {
        self.ended_mid_event
    }

    /// The reconnection time in milliseconds from the last valid `retry:` field, if any.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Interprets one line (its terminator already consumed).
    fn take_line(&mut self, mut bytes: &[u8], events: &mut Vec<SseEvent>) {
        if !self.past_first_line {
            self.past_first_line = true;
            bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
        }
        if bytes.is_empty() {
            self.dispatch(events);
            return;
        }
        // Valid UTF-8 (nearly every line) is checked by the fast validator and borrowed; only
        // a line with bad bytes takes the slower replacing decoder.
        let line = match std::str::from_utf8(bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        if line.starts_with(':') {
            return;
        }
        // A `data:` line (nearly every line of a stream) is the field up to its first colon
        // without searching for it.
        if let Some(value) = line.strip_prefix("data:") {
            self.fields_pending = true;
            self.field("data", value.strip_prefix(' ').unwrap_or(value));
            return;
        }
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        self.fields_pending = true;
        self.field(name, value);
    }

    /// Applies one field to the buffers; unknown fields are ignored.
    fn field(&mut self, name: &str, value: &str) {
        match name {
            "event" => value.clone_into(&mut self.event_type),
            "data" => {
                // Reserved first so that the `\n` after a single data line (nearly every
                // event) does not grow the fresh buffer a second time.
                self.data.reserve(value.len() + 1);
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => {
                self.last_event_id = (!value.is_empty()).then(|| value.to_string());
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
    }

    /// Handles a blank line: dispatches the buffered event if it has data, then resets.
    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        self.fields_pending = false;
        let event_type = std::mem::take(&mut self.event_type);
        let mut data = std::mem::take(&mut self.data);
        if data.is_empty() {
            return;
        }
        data.pop();
        events.push(SseEvent {
            event: if event_type.is_empty() {
                "message".to_string()
            } else {
                event_type
            },
            data,
            id: self.last_event_id.clone(),
        });
    }
}
