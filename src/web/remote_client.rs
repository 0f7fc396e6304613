//! [`RemoteModel`]: a [`ModelClient`] for OpenAI-compatible and Anthropic APIs over `fetch` and
//! Server-Sent Events. It sends the request the protocol layer builds, streams the reply through
//! [`SseParser`] and the provider's assembler, forwards deltas as they arrive, and retries as
//! [`RetryPolicy`] decides: a failed request (status, network, no first byte) up to
//! `max_retries` times, a stream that failed before any delta was forwarded once, a stream that
//! already forwarded output never (so no delta is ever sent twice). Dropping the future aborts
//! the request at once.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use crate::ports::ModelClient;
use crate::protocol::{ModelError, ModelErrorKind, ModelReply, ModelRequest, StreamDelta};
use crate::providers::openai_body::BodyCache;
use crate::providers::{
    parse_error_body, parse_retry_after, should_retry_header, RetryDecision, RetryPolicy, SseParser,
};
use crate::web::http_stream::{post_json, HttpStream, Timeouts};
use crate::web::provider::Provider;
use crate::web::timer::{now_ms, sleep};

/// Most bytes of an error response body read for the error message.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// A remote model reached with an API key from the browser.
#[derive(Clone)]
pub struct RemoteModel {
    /// Which API the server speaks.
    pub provider: Provider,
    /// API root, e.g. `https://api.openai.com/v1` or `https://api.anthropic.com`.
    pub base_url: String,
    /// The API key; sent only in the provider's auth header, never shown or logged. A cell:
    /// the person may enter another while the session is open (`set_api_key`).
    api_key: RefCell<String>,
    /// Model name sent with each request.
    pub model: String,
    /// When and how long to wait before sending a failed call again.
    pub policy: RetryPolicy,
    /// Time-to-first-byte and idle limits of each attempt.
    pub timeouts: Timeouts,
    /// The transcript's text in the last request, which the next one extends.
    bodies: Rc<RefCell<BodyCache>>,
}

impl RemoteModel {
    /// A client with the default retry policy and timeouts.
    pub fn new(
        provider: Provider,
        base_url: impl Into<String>,
        api_key: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        RemoteModel {
            provider,
            base_url: base_url.into(),
            api_key: RefCell::new(api_key.into()),
            model: model.into(),
            policy: RetryPolicy::default(),
            timeouts: Timeouts::default(),
            bodies: Rc::default(),
        }
    }

    /// One attempt: send, check the status, stream the body. Sets `forwarded` as soon as a delta
    /// went to `on_delta`.
    async fn attempt(
        &self,
        call: &PreparedCall,
        on_delta: &mut dyn FnMut(StreamDelta),
        forwarded: &mut bool,
    ) -> Result<ModelReply, Failure> {
        let stream = post_json(&call.url, &call.headers, &call.body, self.timeouts)
            .await
            .map_err(Failure::request)?;
        let status = stream.status();
        if !(200..300).contains(&status) {
            return Err(Failure::request(error_response(status, stream).await));
        }
        read_reply(self.provider, stream, on_delta, forwarded).await
    }
}

impl fmt::Debug for RemoteModel {
    /// Shows everything but the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteModel")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &"[redacted]")
            .field("model", &self.model)
            .field("policy", &self.policy)
            .field("timeouts", &self.timeouts)
            .finish()
    }
}

impl ModelClient for RemoteModel {
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        let call = PreparedCall {
            url: self.provider.endpoint(&self.base_url),
            headers: self.provider.headers(&self.api_key.borrow()),
            body: self
                .provider
                .body(request, &self.model, &mut self.bodies.borrow_mut()),
        };
        let mut retries = 0;
        let mut forwarded = false;
        loop {
            let failure = match self.attempt(&call, on_delta, &mut forwarded).await {
                Ok(reply) => return Ok(reply),
                Err(failure) => failure,
            };
            let jitter = js_sys::Math::random();
            // Once a delta was forwarded the stream rule applies whatever failed, and it never
            // retries: a retry would stream the same output again.
            let decision = match failure.phase {
                Phase::Request if !forwarded => self.policy.decide(retries, &failure.error, jitter),
                Phase::Request | Phase::Stream => {
                    self.policy
                        .decide_mid_stream(retries, &failure.error, forwarded, jitter)
                }
            };
            match decision {
                RetryDecision::Retry { delay_ms } => {
                    sleep(delay_ms).await;
                    retries += 1;
                }
                RetryDecision::GiveUp { .. } => return Err(failure.error),
            }
        }
    }

    fn set_api_key(&self, key: &str) {
        *self.api_key.borrow_mut() = key.to_string();
    }
}

/// The parts of a request that stay the same across attempts.
struct PreparedCall {
    /// Endpoint URL.
    url: String,
    /// Headers, auth included.
    headers: Vec<(String, String)>,
    /// JSON body, UTF-8.
    body: Vec<u8>,
}

/// Where an attempt failed, which selects the retry rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before a success status arrived (network, first-byte timeout, error status).
    Request,
    /// While a success response was streaming.
    Stream,
}

/// A failed attempt.
#[derive(Debug)]
struct Failure {
    /// Where it failed.
    phase: Phase,
    /// What failed.
    error: ModelError,
}

impl Failure {
    /// A failure before streaming began.
    fn request(error: ModelError) -> Self {
        Failure {
            phase: Phase::Request,
            error,
        }
    }

    /// A failure while streaming.
    fn stream(error: ModelError) -> Self {
        Failure {
            phase: Phase::Stream,
            error,
        }
    }
}

/// The error for a non-success response: its body parsed, its `retry-after` honoured.
async fn error_response(status: u16, stream: HttpStream) -> ModelError {
    let retry_after_ms = parse_retry_after(stream.headers(), now_ms());
    let directive = should_retry_header(stream.headers());
    // An error body that cannot be read still leaves the status to report.
    let body = stream
        .read_text(MAX_ERROR_BODY_BYTES)
        .await
        .unwrap_or_default();
    let mut error = parse_error_body(status, &body, retry_after_ms);
    if let (Some(directive), ModelErrorKind::Http { should_retry, .. }) =
        (directive, &mut error.kind)
    {
        *should_retry = Some(directive);
    }
    error
}

/// Streams a success response through the SSE parser and the provider's assembler, forwarding
/// deltas. A connection lost mid-body ends the stream, so the assembler reports the cut
/// (`Truncated`, with the partial reply when output had arrived).
async fn read_reply(
    provider: Provider,
    mut stream: HttpStream,
    on_delta: &mut dyn FnMut(StreamDelta),
    forwarded: &mut bool,
) -> Result<ModelReply, Failure> {
    let mut parser = SseParser::default();
    let mut assembler = provider.assembler();
    loop {
        let bytes = match stream.next_chunk().await {
            Ok(Some(bytes)) => bytes,
            Ok(None) => break,
            Err(error) => match error.kind {
                ModelErrorKind::Network => break,
                ModelErrorKind::Http { .. }
                | ModelErrorKind::Provider { .. }
                | ModelErrorKind::FirstByteTimeout
                | ModelErrorKind::IdleTimeout
                | ModelErrorKind::Truncated { .. }
                | ModelErrorKind::Malformed
                | ModelErrorKind::Cancelled
                | ModelErrorKind::LocalModel => return Err(Failure::stream(error)),
            },
        };
        parser.push_each(&bytes, |event| {
            for delta in assembler.push(event).map_err(Failure::stream)? {
                *forwarded = true;
                on_delta(delta);
            }
            Ok(())
        })?;
    }
    parser.finish();
    assembler.finish().map_err(Failure::stream)
}
