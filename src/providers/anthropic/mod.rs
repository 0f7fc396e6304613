//! Anthropic Messages API: the streaming request body and the headers a browser call needs
//! ([`request`]), and [`AnthropicStream`], which assembles the typed SSE events into a
//! [`ModelReply`](crate::protocol::ModelReply) ([`assembler`]).

pub mod assembler;
pub mod request;

pub use super::http_error::parse_error_body;
pub use assembler::AnthropicStream;
pub use request::{build_request, headers, ANTHROPIC_VERSION, REQUIRED_HEADERS};
