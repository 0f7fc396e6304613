//! Wire types only: the messages a model sees, tool specs, provider requests and replies, and the
//! pure stream parsers that turn provider bytes into them. No I/O, no clock, no browser types.

pub mod anthropic;
pub mod chat_completion;
pub mod custom_delta;
pub mod http_error;
pub mod local;
pub mod local_grammar;
pub mod local_prompt;
pub mod local_prose;
pub mod message;
pub mod model;
pub mod openai;
pub mod openai_body;
mod openai_chunk;
pub mod request_messages;
pub mod retry;
pub mod sse;
pub mod stream;

pub use anthropic::AnthropicStream;
pub use chat_completion::{custom_request, CompletionAssembler};
pub use custom_delta::{RequestDelta, SentTranscript};
pub use http_error::{parse_error_body, should_retry_header};
pub use local::{
    build_local_request, parse_local_output, LocalRequest, LOCAL_TOOL_REPLY_MAX_TOKENS,
};
pub use message::{Message, ToolCall, ToolSpec};
pub use model::{FinishReason, ModelError, ModelErrorKind, ModelReply, ModelRequest, Usage};
pub use openai::OpenAiStream;
pub use request_messages::RequestMessages;
pub use retry::{parse_retry_after, GiveUpReason, RetryDecision, RetryPolicy, StreamRetryRule};
pub use sse::{SseEvent, SseParser};
pub use stream::StreamDelta;

/// `value` as compact JSON text, as serde_json writes it. The crate's types always serialise
/// (their maps have string keys); were one ever to fail, the text is `null`.
pub fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}
