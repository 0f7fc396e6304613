//! What differs between the remote providers a [`RemoteModel`](super::remote_client::RemoteModel)
//! speaks to: the endpoint path, the headers, the request body and the stream assembler. All of
//! it delegates to the pure protocol layer.

use crate::protocol::{ModelError, ModelReply, ModelRequest, StreamDelta};
use crate::providers::anthropic;
use crate::providers::openai_body::BodyCache;
use crate::providers::{openai, openai_body};
use crate::providers::{AnthropicStream, OpenAiStream, SseEvent};

/// A remote model API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI Chat Completions or a compatible server: `{base}/chat/completions`, bearer key.
    OpenAi,
    /// Anthropic Messages: `{base}/v1/messages`, `x-api-key` and the browser-access header.
    Anthropic,
}

impl Provider {
    /// The URL of the streaming endpoint under `base_url` (a trailing `/` is ignored).
    pub fn endpoint(self, base_url: &str) -> String {
        let base = base_url.trim_end_matches('/');
        match self {
            Provider::OpenAi => format!("{base}/chat/completions"),
            Provider::Anthropic => format!("{base}/v1/messages"),
        }
    }

    /// The request headers, authorisation included. Never log or display them.
    pub fn headers(self, api_key: &str) -> Vec<(String, String)> {
        match self {
            Provider::OpenAi => openai::headers(api_key),
            Provider::Anthropic => anthropic::headers(api_key),
        }
    }

    /// The streaming request body as JSON text (UTF-8); `cache` keeps what the next request of
    /// the same transcript can reuse.
    pub fn body(self, request: &ModelRequest, model: &str, cache: &mut BodyCache) -> Vec<u8> {
        match self {
            Provider::OpenAi => openai_body::request_body(request, model, cache),
            Provider::Anthropic => anthropic::build_request(request, model)
                .to_string()
                .into_bytes(),
        }
    }

    /// A fresh assembler for one response stream.
    pub fn assembler(self) -> Assembler {
        match self {
            Provider::OpenAi => Assembler::OpenAi(OpenAiStream::default()),
            Provider::Anthropic => Assembler::Anthropic(AnthropicStream::default()),
        }
    }
}

/// The provider's stream assembler.
#[derive(Debug)]
pub enum Assembler {
    /// Chat Completions chunks.
    OpenAi(OpenAiStream),
    /// Messages API events.
    Anthropic(AnthropicStream),
}

impl Assembler {
    /// Consumes one SSE event; returns the deltas it carried or the error it reported.
    pub fn push(&mut self, event: &SseEvent) -> Result<Vec<StreamDelta>, ModelError> {
        match self {
            Assembler::OpenAi(stream) => stream.push(event),
            Assembler::Anthropic(stream) => stream.push(event),
        }
    }

    /// Ends the stream: the reply, or `Truncated` when the end marker never came.
    pub fn finish(self) -> Result<ModelReply, ModelError> {
        match self {
            Assembler::OpenAi(stream) => stream.finish(),
            Assembler::Anthropic(stream) => stream.finish(),
        }
    }
}
