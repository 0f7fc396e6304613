//! What a person sees while the in-tab model writes a reply with tools offered. The reply is a
//! JSON object (`local_grammar`), so its raw text is only a preview of a call being written;
//! but when it is an answer, `{"tool":"answer","arguments":{"text":"…`, the text inside is what
//! the person will read, and it is shown (and kept by a cancel) as it is written.

use super::local_grammar::{ANSWER_KEY, ANSWER_TOOL};
use super::StreamDelta;

/// Follows one reply's raw text and says how each piece is shown.
#[derive(Debug)]
pub struct AnswerPreview {
    /// The answer's head, `{"tool":"answer","arguments":{"text":"`; empty when no answer is
    /// offered (every reply is then a call).
    head: String,
    /// The raw reply so far.
    raw: String,
    /// Whether the reply is an answer, once its start says so.
    answer: Option<bool>,
    /// Bytes of the answer's decoded text already shown.
    shown: usize,
}

impl AnswerPreview {
    /// A preview of a reply that may be an answer (`answer_offered`) or only a call.
    pub fn new(answer_offered: bool) -> Self {
        let head = if answer_offered {
            answer_head()
        } else {
            String::new()
        };
        Self {
            answer: (!answer_offered).then_some(false),
            head,
            raw: String::new(),
            shown: 0,
        }
    }

    /// The delta to show for the next piece of raw text: the answer's newly written text, or
    /// the raw text of a call as reasoning-like preview. `None` while it cannot be told yet
    /// (held back, shown with the piece that decides) or when nothing new is readable.
    pub fn push(&mut self, piece: &str) -> Option<StreamDelta> {
        self.raw.push_str(piece);
        match self.answer {
            Some(false) => Some(StreamDelta::Thinking(piece.to_string())),
            Some(true) => self.new_text(),
            None if self.raw.starts_with(&self.head) => {
                self.answer = Some(true);
                self.new_text()
            }
            None if self.head.starts_with(&self.raw) => None,
            None => {
                self.answer = Some(false);
                Some(StreamDelta::Thinking(self.raw.clone()))
            }
        }
    }

    /// The answer's text decoded so far, past what was shown.
    fn new_text(&mut self) -> Option<StreamDelta> {
        let text = decode_prefix(&self.raw[self.head.len()..]);
        let new = text
            .get(self.shown..)
            .filter(|new| !new.is_empty())?
            .to_string();
        self.shown = text.len();
        Some(StreamDelta::Text(new))
    }
}

/// The readable text of an answer cut at the token limit (`raw` the whole cut reply), if it is
/// one: what a person had read streaming, rather than the JSON it was written in.
pub fn cut_answer_text(raw: &str) -> Option<String> {
    raw.strip_prefix(answer_head().as_str()).map(decode_prefix)
}

/// How every answer starts, up to its text: `{"tool":"answer","arguments":{"text":"`.
fn answer_head() -> String {
    format!("{{\"tool\":\"{ANSWER_TOOL}\",\"arguments\":{{\"{ANSWER_KEY}\":\"")
}

/// The JSON string content at the start of `raw` (after its opening quote), decoded up to its
/// closing quote or to the last complete character: an escape cut by the end of `raw` waits for
/// the next piece.
fn decode_prefix(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => {
                let rest = chars.as_str();
                let Some((decoded, used)) = unescape(rest) else {
                    break;
                };
                out.push(decoded);
                chars = rest[used..].chars();
            }
            other => out.push(other),
        }
    }
    out
}

/// The character an escape stands for (`rest` is what follows the backslash) and the bytes it
/// took; `None` when `rest` ends before the escape does.
fn unescape(rest: &str) -> Option<(char, usize)> {
    let first = rest.chars().next()?;
    let simple = match first {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'u' => {
            let hex = rest.get(1..5)?;
            let code = u32::from_str_radix(hex, 16).ok();
            return Some((code.and_then(char::from_u32).unwrap_or('\u{fffd}'), 5));
        }
        other => other,
    };
    Some((simple, first.len_utf8()))
}
