//! Provider adapters over the wire types of `protocol/`: request bodies and headers, stream
//! assembly for OpenAI-compatible, Anthropic and page-supplied (custom) providers, the local
//! model's prompting and reply grammars, SSE parsing, error bodies and the retry policy. Pure
//! and sans-IO like the core: bytes and values in, requests, replies and decisions out.

pub mod anthropic;
pub mod chat_completion;
pub mod custom_delta;
pub mod http_error;
pub mod local;
pub mod local_grammar;
pub mod local_json;
pub mod local_native;
pub mod local_native_reply;
pub mod local_prompt;
pub mod local_prose;
pub mod local_think;
pub mod openai;
pub mod openai_body;
mod openai_chunk;
pub mod retry;
pub mod sse;
pub(crate) mod stream;

pub use anthropic::AnthropicStream;
pub use chat_completion::{custom_request, CompletionAssembler};
pub use custom_delta::{RequestDelta, SentTranscript};
pub use http_error::{parse_error_body, should_retry_header};
pub use local::{
    build_local_request, parse_local_output, LocalRequest, LOCAL_TOOL_REPLY_MAX_TOKENS,
};
pub use local_native::{build_native_request, ToolDialect};
pub use local_native_reply::{parse_native_output, NativePreview};
pub use openai::OpenAiStream;
pub use retry::{parse_retry_after, GiveUpReason, RetryDecision, RetryPolicy, StreamRetryRule};
pub use sse::{SseEvent, SseParser};
