//! The transcript and its projection into a prompt. Older turns can be replaced by a summary
//! (compaction); the token estimate is kept incrementally so the check is O(1) per step.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::protocol::request_messages::new_lineage;
use crate::protocol::{Message, RequestMessages};

/// What the model is asked when older turns are compacted.
pub const COMPACTION_SYSTEM: &str = "You compress an agent's working history. Summarise the \
transcript below so the agent can continue without it: the task, what was tried, the facts \
found (with file names, values and URLs), what failed and why, and what remains. Be concrete \
and brief. Answer with the summary only.";

/// The conversation of a session, with an optional summary standing for compacted turns.
///
/// The messages are shared with the requests projected from them (see [`RequestMessages`]):
/// a request is dropped before the next message arrives, so appending never copies them.
#[derive(Debug, Serialize, Deserialize)]
#[serde(from = "StoredTranscript")]
pub struct Transcript {
    #[serde(serialize_with = "super::compact_messages::serialize")]
    messages: Rc<Vec<Message>>,
    summary: Option<String>,
    first_live: usize,
    live_tokens: u64,
    /// The lineage of `messages`: they only ever grow at the end while it stands.
    #[serde(skip)]
    lineage: u64,
}

/// A transcript as a snapshot stores it; read, it starts a lineage of its own.
#[derive(Deserialize)]
struct StoredTranscript {
    #[serde(deserialize_with = "super::compact_messages::deserialize")]
    messages: Vec<Message>,
    summary: Option<String>,
    first_live: usize,
    live_tokens: u64,
}

impl From<StoredTranscript> for Transcript {
    fn from(stored: StoredTranscript) -> Self {
        Self::with_messages(
            stored.messages,
            stored.summary,
            stored.first_live,
            stored.live_tokens,
        )
    }
}

impl Default for Transcript {
    fn default() -> Self {
        Self::with_messages(Vec::new(), None, 0, 0)
    }
}

impl Clone for Transcript {
    /// A copy that grows on its own: it gets a lineage of its own.
    fn clone(&self) -> Self {
        Self {
            messages: self.messages.clone(),
            summary: self.summary.clone(),
            first_live: self.first_live,
            live_tokens: self.live_tokens,
            lineage: new_lineage(),
        }
    }
}

impl PartialEq for Transcript {
    /// The same conversation, whatever the lineage.
    fn eq(&self, other: &Self) -> bool {
        self.messages == other.messages
            && self.summary == other.summary
            && self.first_live == other.first_live
            && self.live_tokens == other.live_tokens
    }
}

impl Transcript {
    fn with_messages(
        messages: Vec<Message>,
        summary: Option<String>,
        first_live: usize,
        live_tokens: u64,
    ) -> Self {
        Self {
            messages: Rc::new(messages),
            summary,
            first_live,
            live_tokens,
            lineage: new_lineage(),
        }
    }

    /// Appends a message.
    pub fn push(&mut self, message: Message) {
        self.live_tokens += message.estimated_tokens();
        Rc::make_mut(&mut self.messages).push(message);
    }

    /// Every message ever added, compacted ones included (for display and reports).
    pub fn all(&self) -> &[Message] {
        &self.messages
    }

    /// Estimated tokens of the projected prompt (summary + live messages).
    pub fn estimated_tokens(&self) -> u64 {
        self.live_tokens
            + self
                .summary
                .as_ref()
                .map_or(0, |s| (s.len() as u64).div_ceil(4) + 8)
    }

    /// What [`Self::projected_since`] sends, in estimated tokens.
    pub fn estimated_tokens_since(&self, start: usize) -> u64 {
        if start <= self.first_live {
            return self.estimated_tokens();
        }
        self.messages[start.min(self.messages.len())..]
            .iter()
            .map(Message::estimated_tokens)
            .sum()
    }

    /// The messages from `start` on (a run's own), or, when a compaction reached past `start`,
    /// the summary and the live turns as [`Self::projected`] gives them.
    pub fn projected_since(&self, start: usize) -> RequestMessages {
        if start <= self.first_live {
            return self.projected();
        }
        RequestMessages::shared_from(self.messages.clone(), start, self.lineage)
    }

    /// The messages the model sees: the summary (if any) then the live turns. Before any
    /// compaction that is the whole transcript, shared rather than copied.
    pub fn projected(&self) -> RequestMessages {
        if self.summary.is_none() && self.first_live == 0 {
            return RequestMessages::shared(self.messages.clone(), self.lineage);
        }
        let mut out = Vec::with_capacity(self.messages.len() - self.first_live + 1);
        if let Some(summary) = &self.summary {
            out.push(Message::User {
                text: format!("[Summary of earlier work; older turns were compacted]\n{summary}"),
            });
        }
        out.extend_from_slice(&self.messages[self.first_live..]);
        out.into()
    }

    /// Where to cut for a compaction that keeps the last `keep_recent` messages verbatim: the
    /// cut never separates tool results from the call that produced them. `None` when there is
    /// nothing worth compacting.
    pub fn compaction_cut(&self, keep_recent: usize) -> Option<usize> {
        let mut cut = self.messages.len().saturating_sub(keep_recent.max(1));
        while cut > self.first_live && matches!(self.messages.get(cut), Some(Message::Tool { .. }))
        {
            cut -= 1;
        }
        (cut > self.first_live + 1).then_some(cut)
    }

    /// The text handed to the summariser: the previous summary and the turns up to `cut`.
    pub fn compaction_input(&self, cut: usize) -> String {
        let mut text = String::new();
        if let Some(summary) = &self.summary {
            text.push_str("Earlier summary:\n");
            text.push_str(summary);
            text.push_str("\n\n");
        }
        for message in &self.messages[self.first_live..cut.min(self.messages.len())] {
            text.push_str(&render(message));
            text.push('\n');
        }
        text
    }

    /// Replaces the turns before `upto` with `summary`.
    pub fn compact(&mut self, summary: String, upto: usize) {
        let upto = upto.clamp(self.first_live, self.messages.len());
        let removed: u64 = self.messages[self.first_live..upto]
            .iter()
            .map(Message::estimated_tokens)
            .sum();
        self.live_tokens -= removed;
        self.first_live = upto;
        self.summary = Some(summary);
    }

    /// This transcript without its first `stored` messages (a fold snapshot keeps those in
    /// parts written once): a copy of the rest, with the counts of the whole.
    pub fn without_first(&self, stored: usize) -> Transcript {
        Self::with_messages(
            self.messages[stored.min(self.messages.len())..].to_vec(),
            self.summary.clone(),
            self.first_live,
            self.live_tokens,
        )
    }

    /// Puts back the messages [`Transcript::without_first`] left out.
    pub fn restore_first(&mut self, mut first: Vec<Message>) {
        first.extend(self.messages.iter().cloned());
        self.messages = Rc::new(first);
        self.lineage = new_lineage();
    }

    /// Index the next message will get.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// True before the first message.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

fn render(message: &Message) -> String {
    match message {
        Message::User { text } => format!("USER: {text}"),
        Message::Assistant { text, tool_calls } => {
            let calls: Vec<String> = tool_calls
                .iter()
                .map(|c| format!("{}({})", c.name, c.arguments))
                .collect();
            if calls.is_empty() {
                format!("ASSISTANT: {text}")
            } else {
                format!("ASSISTANT: {text} [calls: {}]", calls.join(", "))
            }
        }
        Message::Tool {
            name,
            content,
            is_error,
            ..
        } => {
            let tag = if *is_error { "TOOL ERROR" } else { "TOOL" };
            let shown: String = content.chars().take(2000).collect();
            format!("{tag} {name}: {shown}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolCall;

    #[test]
    fn compaction_keeps_recent_turns_and_never_splits_tool_results_from_their_call() {
        let mut t = Transcript::default();
        t.push(Message::user("task"));
        t.push(Message::Assistant {
            text: "".into(),
            tool_calls: vec![ToolCall {
                id: "a".into(),
                name: "x".into(),
                arguments: "{}".into(),
            }],
        });
        t.push(Message::Tool {
            call_id: "a".into(),
            name: "x".into(),
            content: "r".into(),
            is_error: false,
        });
        t.push(Message::Assistant {
            text: "".into(),
            tool_calls: vec![ToolCall {
                id: "b".into(),
                name: "x".into(),
                arguments: "{}".into(),
            }],
        });
        t.push(Message::Tool {
            call_id: "b".into(),
            name: "x".into(),
            content: "r".into(),
            is_error: false,
        });
        // keep 1 would cut at the last tool result: the cut moves back to its call.
        assert_eq!(t.compaction_cut(1), Some(3));
        let before = t.estimated_tokens();
        t.compact("did x twice".into(), 3);
        assert!(t.estimated_tokens() < before);
        let projected = t.projected();
        assert_eq!(projected.len(), 3);
        assert!(matches!(&projected[0], Message::User { text } if text.contains("did x twice")));
        assert!(matches!(&projected[1], Message::Assistant { .. }));
    }

    #[test]
    fn projections_share_one_growing_lineage_until_compaction() {
        let mut t = Transcript::default();
        t.push(Message::user("a"));
        let first = t.projected();
        assert_eq!(first.len(), 1);
        drop(first);
        t.push(Message::user("b"));
        let second = t.projected();
        // The second extends the first without being compared to it.
        assert!(second.extends(t.lineage, 1));
        assert_eq!(&second[..], t.all());
        // A request still held when the transcript grows keeps what it was sent.
        t.push(Message::user("c"));
        assert_eq!(second.len(), 2);
        assert!(t.projected().extends(second.lineage(), 2));
        // A copy grows apart: it has a lineage of its own.
        let copy = t.clone();
        assert_eq!(copy, t);
        assert!(!copy.projected().extends(t.lineage, 0));
        // After compaction the projection starts with the summary: a new lineage.
        t.compact("sum".into(), 2);
        let compacted = t.projected();
        assert!(!compacted.extends(second.lineage(), 0));
        assert_eq!(compacted.len(), 2);
    }

    #[test]
    fn nothing_to_compact_in_a_short_transcript() {
        let mut t = Transcript::default();
        t.push(Message::user("a"));
        t.push(Message::user("b"));
        assert_eq!(t.compaction_cut(6), None);
    }
}
