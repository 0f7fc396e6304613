//! What a streaming assembler reports while a reply is still arriving ([`StreamDelta`]).

/// A piece of a reply as it streams in, for live UI updates. The assembled
/// [`ModelReply`] is authoritative; deltas are only a preview of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamDelta {
    /// Visible text appended to the reply.
    Text(String),
    /// Reasoning text the provider exposed; shown live, never part of the reply's text (a local
    /// model's thinking block is kept in the reply's `reasoning`).
    Thinking(String),
    /// The model began a tool call; its arguments are still arriving.
    ToolCallStarted {
        /// Position of the call among this reply's tool calls (0-based).
        index: usize,
        /// Provider-assigned call id.
        id: String,
        /// Name of the tool being called.
        name: String,
    },
}
