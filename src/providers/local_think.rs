//! A local model's thinking, kept apart from its answer. Qwen3 may open a reply with a
//! `<think>…</think>` block (its chat template turns thinking off by default with an empty block
//! before the reply, which this leaves alone; a template rendered elsewhere may not): the block
//! goes into the reply's `reasoning`, kept in the log, and never into the answer a person reads
//! or the prompts after it, as Qwen3's own template drops it from earlier turns. While the reply
//! streams, what is inside a tagged block ([`TagStream`]) is shown as thinking, the rest as text.

use crate::protocol::StreamDelta;

/// Opens a thinking block.
pub const THINK_OPEN: &str = "<think>";
/// Closes a thinking block.
pub const THINK_CLOSE: &str = "</think>";

/// A reply split at its thinking block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thought<'a> {
    /// The block's text without its tags and the line breaks around it; empty when none.
    pub reasoning: &'a str,
    /// What follows the block (leading whitespace removed), or the whole reply without one.
    pub rest: &'a str,
    /// Whether the block was still open at the reply's end (cut at the output limit).
    pub unclosed: bool,
}

/// Splits `text` at a thinking block it opens with (after whitespace). A reply that does not
/// open with one is all answer; one that never closes it is all reasoning.
pub fn split_thinking(text: &str) -> Thought<'_> {
    let Some(inside) = text.trim_start().strip_prefix(THINK_OPEN) else {
        return Thought {
            reasoning: "",
            rest: text,
            unclosed: false,
        };
    };
    match inside.find(THINK_CLOSE) {
        Some(end) => Thought {
            reasoning: inside[..end].trim_matches('\n'),
            rest: inside[end + THINK_CLOSE.len()..].trim_start(),
            unclosed: false,
        },
        None => Thought {
            reasoning: inside.trim_matches('\n'),
            rest: "",
            unclosed: true,
        },
    }
}

/// Streams a reply as deltas: text inside one of its tag pairs as `Thinking` (without the tags),
/// the rest as `Text`. A piece that may be the start of a tag is held back until it is told
/// apart, so a tag split across pieces never shows.
#[derive(Debug)]
pub struct TagStream {
    /// The pairs of opening and closing tags whose insides are thinking.
    tags: &'static [(&'static str, &'static str)],
    /// The closing tag awaited, inside a block.
    inside: Option<&'static str>,
    /// Text held back: it may be the start of a tag.
    held: String,
    /// Whether the text shown next starts the answer (at the start or after a block): its
    /// leading whitespace is not shown, as the parsed reply does not keep it.
    at_start: bool,
}

/// Qwen's tagged blocks: its thinking, and its tool calls (shown as a preview, as a call's raw
/// JSON is for other models).
pub const QWEN_TAGS: &[(&str, &str)] =
    &[(THINK_OPEN, THINK_CLOSE), ("<tool_call>", "</tool_call>")];

/// Thinking blocks only.
pub const THINK_TAGS: &[(&str, &str)] = &[(THINK_OPEN, THINK_CLOSE)];

impl TagStream {
    /// A stream that shows the insides of `tags` as thinking.
    pub fn new(tags: &'static [(&'static str, &'static str)]) -> TagStream {
        TagStream {
            tags,
            inside: None,
            held: String::new(),
            at_start: true,
        }
    }

    /// The deltas for the next piece of the reply.
    pub fn push(&mut self, piece: &str) -> Vec<StreamDelta> {
        self.held.push_str(piece);
        let mut out = Vec::new();
        loop {
            match self.inside {
                Some(close) => match self.held.find(close) {
                    Some(at) => {
                        emit(&mut out, StreamDelta::Thinking(self.held[..at].to_string()));
                        self.held.drain(..at + close.len());
                        self.inside = None;
                        self.at_start = true;
                    }
                    None => {
                        let keep = held_back(&self.held, &[close]);
                        let shown: String = self.held.drain(..self.held.len() - keep).collect();
                        emit(&mut out, StreamDelta::Thinking(shown));
                        return out;
                    }
                },
                None => {
                    let first = self
                        .tags
                        .iter()
                        .filter_map(|(open, close)| {
                            self.held.find(open).map(|at| (at, open, close))
                        })
                        .min_by_key(|(at, _, _)| *at);
                    match first {
                        Some((at, open, close)) => {
                            let text = self.held[..at].to_string();
                            self.text(&mut out, text);
                            self.held.drain(..at + open.len());
                            self.inside = Some(close);
                        }
                        None => {
                            let opens: Vec<&str> =
                                self.tags.iter().map(|(open, _)| *open).collect();
                            let keep = held_back(&self.held, &opens);
                            let shown: String = self.held.drain(..self.held.len() - keep).collect();
                            self.text(&mut out, shown);
                            return out;
                        }
                    }
                }
            }
        }
    }

    /// What was held back, once the reply has ended.
    pub fn finish(&mut self) -> Vec<StreamDelta> {
        let rest = std::mem::take(&mut self.held);
        let mut out = Vec::new();
        match self.inside {
            Some(_) => emit(&mut out, StreamDelta::Thinking(rest)),
            None => self.text(&mut out, rest),
        }
        out
    }

    /// Shows `text` as answer text, without the whitespace that opens the answer.
    fn text(&mut self, out: &mut Vec<StreamDelta>, text: String) {
        let shown = if self.at_start {
            text.trim_start().to_string()
        } else {
            text
        };
        if !shown.is_empty() {
            self.at_start = false;
        }
        emit(out, StreamDelta::Text(shown));
    }
}

/// Pushes `delta` unless its text is empty.
fn emit(out: &mut Vec<StreamDelta>, delta: StreamDelta) {
    let empty = match &delta {
        StreamDelta::Text(text) | StreamDelta::Thinking(text) => text.is_empty(),
        StreamDelta::ToolCallStarted { .. } => false,
    };
    if !empty {
        out.push(delta);
    }
}

/// How many bytes at the end of `text` may begin one of `tags` (held back until told apart).
fn held_back(text: &str, tags: &[&str]) -> usize {
    tags.iter()
        .flat_map(|tag| {
            (1..tag.len())
                .rev()
                .filter(move |n| text.ends_with(&tag[..*n]))
                .take(1)
        })
        .max()
        .unwrap_or(0)
}
