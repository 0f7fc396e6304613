//! The transcript and its projection into a prompt. Older turns can be replaced by a summary
//! (compaction); the token estimate is kept incrementally so the check is O(1) per step.

use serde::{Deserialize, Serialize};

use crate::protocol::Message;

/// What the model is asked when older turns are compacted.
pub const COMPACTION_SYSTEM: &str = "You compress an agent's working history. Summarise the \
transcript below so the agent can continue without it: the task, what was tried, the facts \
found (with file names, values and URLs), what failed and why, and what remains. Be concrete \
and brief. Answer with the summary only.";

/// The conversation of a session, with an optional summary standing for compacted turns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    #[serde(with = "super::compact_messages")]
    messages: Vec<Message>,
    summary: Option<String>,
    first_live: usize,
    live_tokens: u64,
}

impl Transcript {
    /// Appends a message.
    pub fn push(&mut self, message: Message) {
        self.live_tokens += message.estimated_tokens();
        self.messages.push(message);
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

    /// The messages the model sees: the summary (if any) then the live turns.
    pub fn projected(&self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.messages.len() - self.first_live + 1);
        if let Some(summary) = &self.summary {
            out.push(Message::User {
                text: format!("[Summary of earlier work; older turns were compacted]\n{summary}"),
            });
        }
        out.extend_from_slice(&self.messages[self.first_live..]);
        out
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
        Transcript {
            messages: self.messages[stored.min(self.messages.len())..].to_vec(),
            summary: self.summary.clone(),
            first_live: self.first_live,
            live_tokens: self.live_tokens,
        }
    }

    /// Puts back the messages [`Transcript::without_first`] left out.
    pub fn restore_first(&mut self, mut first: Vec<Message>) {
        first.append(&mut self.messages);
        self.messages = first;
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

    fn user(t: &str) -> Message {
        Message::User { text: t.into() }
    }

    #[test]
    fn compaction_keeps_recent_turns_and_never_splits_tool_results_from_their_call() {
        let mut t = Transcript::default();
        t.push(user("task"));
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
    fn nothing_to_compact_in_a_short_transcript() {
        let mut t = Transcript::default();
        t.push(user("a"));
        t.push(user("b"));
        assert_eq!(t.compaction_cut(6), None);
    }
}
