//! Incremental Server-Sent Events parser following the WHATWG HTML standard ("Server-sent
//! events", parsing an event stream). It owns only the bytes-to-events step: line splitting,
//! field interpretation and dispatch. It knows nothing about any provider.
//!
//! Bytes may arrive in chunks of any size: a line is decoded only once its terminator has
//! arrived, so UTF-8 sequences and CRLF pairs split across chunks are handled.

/// The UTF-8 byte order mark, stripped once from the start of the stream.
const BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// One dispatched event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    /// The event handed to [`SseParser::push_each`]'s callback; its buffers are reused, so a
    /// stream allocates per event only when an event outgrows them.
    ready: SseEvent,
    /// Set by `finish` when the stream stopped inside an event.
    ended_mid_event: bool,
}

impl SseParser {
    /// Feeds the next chunk of bytes and returns the events it completed, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let _ = self.push_each(chunk, |event| {
            events.push(event.clone());
            Ok::<(), ()>(())
        });
        events
    }

    /// Feeds the next chunk of bytes and hands each event it completes to `on_event` as soon
    /// as it is complete, while its bytes are still in cache, without allocating it. An error
    /// from `on_event` stops reading at once and is returned; the rest of the chunk is lost,
    /// so a caller stops feeding the parser then (as a stream that failed is abandoned).
    pub fn push_each<E>(
        &mut self,
        chunk: &[u8],
        mut on_event: impl FnMut(&SseEvent) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut failure = None;
        let mut sink = |event: &SseEvent| match on_event(event) {
            Ok(()) => true,
            Err(error) => {
                failure = Some(error);
                false
            }
        };
        self.feed(chunk, &mut sink);
        failure.map_or(Ok(()), Err)
    }

    /// Splits `chunk` into lines and takes each; stops when `sink` says so.
    fn feed(&mut self, chunk: &[u8], sink: &mut dyn FnMut(&SseEvent) -> bool) {
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
            let go_on = if self.line.is_empty() {
                // The whole line is in this chunk: read it in place.
                self.take_line(&rest[..pos], sink)
            } else {
                self.line.extend_from_slice(&rest[..pos]);
                let mut line = std::mem::take(&mut self.line);
                let go_on = self.take_line(&line, sink);
                line.clear();
                self.line = line;
                go_on
            };
            let after = pos + 1;
            if rest[pos] == b'\r' {
                match rest.get(after) {
                    Some(b'\n') => {
                        rest = &rest[after + 1..];
                        if !go_on {
                            return;
                        }
                        continue;
                    }
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            rest = &rest[after..];
            if !go_on {
                return;
            }
        }
        self.line.extend_from_slice(rest);
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

    /// Interprets one line (its terminator already consumed). False when `sink` asked to stop.
    fn take_line(&mut self, mut bytes: &[u8], sink: &mut dyn FnMut(&SseEvent) -> bool) -> bool {
        if !self.past_first_line {
            self.past_first_line = true;
            bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
        }
        if bytes.is_empty() {
            return self.dispatch(sink);
        }
        // Valid UTF-8 (nearly every line) is checked by the fast validator and borrowed; only
        // a line with bad bytes takes the slower replacing decoder.
        let line = match std::str::from_utf8(bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        if line.starts_with(':') {
            return true;
        }
        // A `data:` line (nearly every line of a stream) is the field up to its first colon
        // without searching for it.
        if let Some(value) = line.strip_prefix("data:") {
            self.fields_pending = true;
            self.field("data", value.strip_prefix(' ').unwrap_or(value));
            return true;
        }
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        self.fields_pending = true;
        self.field(name, value);
        true
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

    /// Handles a blank line: dispatches the buffered event if it has data, then resets. False
    /// when `sink` asked to stop.
    fn dispatch(&mut self, sink: &mut dyn FnMut(&SseEvent) -> bool) -> bool {
        self.fields_pending = false;
        if self.data.is_empty() {
            self.event_type.clear();
            return true;
        }
        self.data.pop();
        let ready = &mut self.ready;
        std::mem::swap(&mut ready.data, &mut self.data);
        if self.event_type.is_empty() {
            ready.event.clear();
            ready.event.push_str("message");
        } else {
            std::mem::swap(&mut ready.event, &mut self.event_type);
        }
        ready.id.clone_from(&self.last_event_id);
        let go_on = sink(ready);
        // The buffers go back for the next event.
        std::mem::swap(&mut ready.data, &mut self.data);
        self.data.clear();
        self.event_type.clear();
        go_on
    }
}
