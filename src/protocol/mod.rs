//! Wire types only: the messages a model sees, tool specs, provider requests and replies, and the
//! pure stream parsers that turn provider bytes into them. No I/O, no clock, no browser types.

pub mod message;
pub mod model;

pub use message::{Message, ToolCall, ToolSpec};
pub use model::{FinishReason, ModelError, ModelErrorKind, ModelReply, ModelRequest, Usage};
