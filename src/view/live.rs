//! What the playground shows that is not in the log: the text of the model call in flight (from
//! stream deltas) and a storage failure that pauses the run.

use crate::protocol::StreamDelta;
use crate::runtime::Notice;

/// Live, unpersisted state of an open session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveState {
    /// Visible text of the model call in flight.
    pub streaming: String,
    /// Reasoning text of the call in flight, when the provider exposes it.
    pub thinking: String,
    /// Tools the call in flight is writing calls to, in order.
    pub writing_tools: Vec<String>,
    /// Why writing the log failed; the run is paused until storage is retried.
    pub storage_error: Option<String>,
}

impl LiveState {
    /// Applies one notice; returns whether anything changed.
    pub fn apply(&mut self, notice: &Notice) -> bool {
        match notice {
            Notice::Persisted(record) => record.event.facts().ends_stream && self.clear_stream(),
            Notice::Delta(StreamDelta::Text(text)) => {
                self.streaming.push_str(text);
                !text.is_empty()
            }
            Notice::Delta(StreamDelta::Thinking(text)) => {
                self.thinking.push_str(text);
                !text.is_empty()
            }
            Notice::Delta(StreamDelta::ToolCallStarted { name, .. }) => {
                self.writing_tools.push(name.clone());
                true
            }
            Notice::ApprovalNeeded { .. } => false,
            Notice::Finished(_) => self.clear_stream(),
            Notice::StorageFailed(message) => {
                self.storage_error = Some(message.clone());
                true
            }
            Notice::StorageRecovered => self.storage_error.take().is_some(),
        }
    }

    /// Whether a model call is streaming output right now.
    pub fn is_streaming(&self) -> bool {
        !self.streaming.is_empty() || !self.thinking.is_empty() || !self.writing_tools.is_empty()
    }

    fn clear_stream(&mut self) -> bool {
        let changed = self.is_streaming();
        self.streaming.clear();
        self.thinking.clear();
        self.writing_tools.clear();
        changed
    }
}
