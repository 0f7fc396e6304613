//! A streaming HTTP POST through `gloo_net::http`: sends a JSON body with headers, hands back the
//! status and response headers, then the body as byte chunks read from the response's
//! `ReadableStream`. Every failure of a request becomes a [`ModelError`] in one function,
//! [`request_failure`]. Two
//! liveness timers guard it: time to first byte (from sending until the first body bytes) and
//! the idle gap between chunks. A timer that fires aborts the request through its
//! `AbortController`, as does dropping the [`HttpStream`] or the future that opens it.

use std::future::Future;
use std::pin::pin;

use futures::future::{select, Either};
use gloo_net::http::{Headers, Method, Request, RequestBuilder};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::ReadableStreamDefaultReader;

use crate::core::Millis;
use crate::protocol::{ModelError, ModelErrorKind};
use crate::web::abort::AbortOnDrop;
use crate::web::js_error::JsFailure;
use crate::web::timer::{now_ms, sleep};

/// Liveness limits of one streamed request, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// From sending the request until the first body bytes arrive.
    pub first_byte_ms: u64,
    /// Longest silence between two body chunks once the first arrived.
    pub idle_ms: u64,
}

impl Default for Timeouts {
    /// 60 s to the first byte, 30 s between chunks.
    fn default() -> Self {
        Timeouts {
            first_byte_ms: 60_000,
            idle_ms: 30_000,
        }
    }
}

/// An open response: status and headers, and the body still streaming. Dropping it aborts the
/// request.
#[derive(Debug)]
pub struct HttpStream {
    /// The HTTP status.
    status: u16,
    /// Response headers visible to the page (lower-case names).
    headers: Vec<(String, String)>,
    /// The body reader; `None` once the body ended or failed.
    reader: Option<ReadableStreamDefaultReader>,
    /// The liveness limits.
    timeouts: Timeouts,
    /// When the time-to-first-byte limit expires.
    first_byte_deadline: Millis,
    /// Whether body bytes arrived (switches from the first-byte to the idle limit).
    first_chunk_seen: bool,
    /// Aborts the request when this stream is dropped or a timer fires.
    abort: AbortOnDrop,
}

/// Sends `body` as a POST to `url` with `headers` and waits for the response headers, within
/// the time-to-first-byte limit. Errors: `Network` when `fetch` rejects (DNS, refused
/// connection, CORS), `FirstByteTimeout` when no response came in time. Header values never
/// appear in error messages.
pub async fn post_json(
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
    timeouts: Timeouts,
) -> Result<HttpStream, ModelError> {
    let started = now_ms();
    let abort = AbortOnDrop::new()?;
    let request = build_request(url, headers, body, &abort)?;
    let response = match within(request.send(), timeouts.first_byte_ms).await {
        Some(Ok(response)) => response,
        Some(Err(error)) => {
            return Err(request_failure(Stage::Fetch, JsFailure::from_gloo(&error)))
        }
        None => {
            abort.abort();
            return Err(first_byte_timeout(timeouts.first_byte_ms));
        }
    };
    let reader = response.body().map(|body| {
        body.get_reader()
            .unchecked_into::<ReadableStreamDefaultReader>()
    });
    Ok(HttpStream {
        status: response.status(),
        headers: response.headers().entries().collect(),
        reader,
        timeouts,
        first_byte_deadline: started.saturating_add(timeouts.first_byte_ms),
        first_chunk_seen: false,
        abort,
    })
}

impl HttpStream {
    /// Whether dropping this stream aborts its request: until the body has been read to its end.
    pub fn aborts_on_drop(&self) -> bool {
        self.abort.is_armed()
    }

    /// The HTTP status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The response headers the page may read, names in lower case. Cross-origin responses
    /// expose only CORS-safelisted headers and those listed in `access-control-expose-headers`.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The next chunk of body bytes, or `None` at the end of the body. Errors:
    /// `FirstByteTimeout` / `IdleTimeout` when a timer fired (the request is then aborted),
    /// `Network` when the connection broke mid-body. After an error the stream reports its end.
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, ModelError> {
        loop {
            let Some(reader) = &self.reader else {
                return Ok(None);
            };
            let limit = if self.first_chunk_seen {
                self.timeouts.idle_ms
            } else {
                self.first_byte_deadline.saturating_sub(now_ms())
            };
            let outcome = within(JsFuture::from(reader.read()), limit).await;
            let result = match outcome {
                Some(Ok(result)) => result,
                Some(Err(error)) => {
                    self.reader = None;
                    return Err(request_failure(Stage::Read, JsFailure::from_js(&error)));
                }
                None => {
                    self.reader = None;
                    self.abort.abort();
                    return Err(if self.first_chunk_seen {
                        idle_timeout(self.timeouts.idle_ms)
                    } else {
                        first_byte_timeout(self.timeouts.first_byte_ms)
                    });
                }
            };
            let done = js_sys::Reflect::get(&result, &JsValue::from_str("done"))
                .map(|done| done.is_truthy())
                .unwrap_or(true);
            if done {
                self.reader = None;
                self.abort.settle();
                return Ok(None);
            }
            let bytes = js_sys::Reflect::get(&result, &JsValue::from_str("value"))
                .ok()
                .and_then(|value| value.dyn_into::<js_sys::Uint8Array>().ok())
                .map(|array| array.to_vec())
                .unwrap_or_default();
            if !bytes.is_empty() {
                self.first_chunk_seen = true;
                return Ok(Some(bytes));
            }
        }
    }

    /// Reads the rest of the body as text (invalid UTF-8 replaced), keeping at most `max_bytes`.
    /// Used for error bodies; the liveness timers still apply.
    pub async fn read_text(mut self, max_bytes: usize) -> Result<String, ModelError> {
        let mut bytes = Vec::new();
        while let Some(chunk) = self.next_chunk().await? {
            let room = max_bytes.saturating_sub(bytes.len());
            bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if bytes.len() >= max_bytes {
                break;
            }
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Runs `future` for at most `ms` milliseconds; `None` when the time ran out first.
async fn within<T>(future: impl Future<Output = T>, ms: u64) -> Option<T> {
    let future = pin!(future);
    match select(future, sleep(ms)).await {
        Either::Left((value, _)) => Some(value),
        Either::Right(((), _)) => None,
    }
}

/// The `Request` for a JSON POST carrying the abort signal. The headers are checked here, so
/// that a bad value is reported by name (never by value: it may be an API key).
fn build_request(
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
    abort: &AbortOnDrop,
) -> Result<Request, ModelError> {
    let js_headers = web_sys::Headers::new()
        .map_err(|_| network("cannot create a Headers object in this browser"))?;
    for (name, value) in headers {
        js_headers
            .set(name, value)
            .map_err(|_| network(format!("invalid value for request header {name}")))?;
    }
    RequestBuilder::new(url)
        .method(Method::POST)
        .headers(Headers::from_raw(js_headers))
        .abort_signal(Some(&abort.signal()))
        // Bytes, not a string: a string is decoded to UTF-16 here and encoded again by `fetch`,
        // which for a long transcript costs more than the copy.
        .body(js_sys::Uint8Array::from(body))
        .map_err(|error| request_failure(Stage::Build(url), JsFailure::from_gloo(&error)))
}

/// Where a request failed, which words its error.
#[derive(Debug, Clone, Copy)]
enum Stage<'a> {
    /// Building the request for this URL (a malformed URL or body).
    Build(&'a str),
    /// `fetch` rejected before the response headers (DNS, refused connection, CORS, abort).
    Fetch,
    /// Reading the body (connection lost, abort).
    Read,
}

/// The one mapping of an HTTP failure to a [`ModelError`]: an abort is `Cancelled` at every
/// stage, anything else `Network` with the stage's wording and the browser's message.
fn request_failure(stage: Stage<'_>, failure: JsFailure) -> ModelError {
    failure.into_model_error("the request was aborted", |failure| {
        network(match stage {
            Stage::Build(url) => format!("invalid request to {url}: {}", failure.message),
            Stage::Fetch => format!("request failed: {}", failure.message),
            Stage::Read => format!("connection lost while reading: {}", failure.message),
        })
    })
}

/// A `Network` error.
fn network(message: impl Into<String>) -> ModelError {
    ModelError {
        kind: ModelErrorKind::Network,
        message: message.into(),
    }
}

/// A `FirstByteTimeout` error.
fn first_byte_timeout(ms: u64) -> ModelError {
    ModelError {
        kind: ModelErrorKind::FirstByteTimeout,
        message: format!("no response within {ms} ms"),
    }
}

/// An `IdleTimeout` error.
fn idle_timeout(ms: u64) -> ModelError {
    ModelError {
        kind: ModelErrorKind::IdleTimeout,
        message: format!("the stream was silent for more than {ms} ms"),
    }
}
