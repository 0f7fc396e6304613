//! [`CustomModel`]: a [`ModelClient`] over a function the page passes as its provider
//! (`{ kind: 'custom', model, complete }`), reached through `www/custom_bridge.js`. It sends the
//! Chat Completions request the protocol layer builds and assembles what comes back — a
//! `ChatCompletion` or an async iterable of `ChatCompletionChunk`s — with the same parser the
//! OpenAI client uses. Each request crosses to JS as a [`RequestDelta`] over the previous one:
//! the bridge keeps the messages it already holds, so a step costs the same at step 10 and at
//! step 10,000. Dropping the future aborts the signal the page's function was given.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::Value;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use crate::ports::ModelClient;
use crate::protocol::{ModelError, ModelErrorKind, ModelReply, ModelRequest, StreamDelta};
use crate::providers::stream::malformed;
use crate::providers::{CompletionAssembler, RequestDelta, SentTranscript};
use crate::web::abort::AbortOnDrop;
use crate::web::js_error::JsFailure;

#[wasm_bindgen(module = "/www/custom_bridge.js")]
extern "C" {
    /// `customTranscript()`: the bridge's copy of the last request's messages and tools.
    #[wasm_bindgen(js_name = customTranscript)]
    fn custom_transcript() -> JsValue;

    /// `customRequest(transcript, deltaJson, keep, sameTools)`: the whole request object, built
    /// from the transcript and a delta (which it then holds).
    #[wasm_bindgen(catch, js_name = customRequest)]
    fn custom_request_object(
        transcript: &JsValue,
        delta_json: &str,
        keep: u32,
        same_tools: bool,
    ) -> Result<JsValue, JsValue>;

    /// `customOpen(complete, request, signal)`: calls the page's function; returns an opaque
    /// handle at once (a failure to start fails the first `customNext`).
    #[wasm_bindgen(catch, js_name = customOpen)]
    fn custom_open(
        complete: &js_sys::Function,
        request: &JsValue,
        signal: &AbortSignal,
    ) -> Result<JsValue, JsValue>;

    /// `customNext(handle)`: the items ready, one a line (`chunk:` and a chunk's JSON,
    /// `completion:` and a completion's JSON, `end` where the call ended), or null once it
    /// ended.
    #[wasm_bindgen(catch, js_name = customNext)]
    fn custom_next(handle: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// The page's model function and the model name it is called with.
#[derive(Debug, Clone)]
pub struct CustomModel {
    /// `complete(request, { signal })`.
    complete: js_sys::Function,
    /// Sent as the request's `model`.
    model: String,
    /// What was last handed to the bridge, and the bridge's copy of it (shared by clones).
    sent: Rc<(RefCell<SentTranscript>, JsValue)>,
}

impl CustomModel {
    /// A client calling `complete` with `model` as the request's model name.
    pub fn new(complete: js_sys::Function, model: impl Into<String>) -> Self {
        CustomModel {
            complete,
            model: model.into(),
            sent: Rc::new((RefCell::default(), custom_transcript())),
        }
    }

    /// The whole request object for `request`, built by the bridge from the delta over the
    /// previous one. If the bridge refuses it, both sides start over with the whole request.
    fn request_object(&self, request: &ModelRequest) -> Result<JsValue, ModelError> {
        let (sent, transcript) = &*self.sent;
        let RequestDelta {
            keep,
            same_tools,
            body,
        } = sent.borrow_mut().delta(request, &self.model);
        let keep = u32::try_from(keep).unwrap_or(u32::MAX);
        custom_request_object(transcript, &body.to_string(), keep, same_tools).map_err(|error| {
            sent.borrow_mut().forget();
            provider_failure(&error)
        })
    }
}

thread_local! {
    /// `complete` functions `createAgent` was given, by session id, until that session launches.
    static OFFERED: RefCell<BTreeMap<String, js_sys::Function>> = const { RefCell::new(BTreeMap::new()) };
}

/// Keeps the page's `complete` function for `session` until the platform launches it.
pub fn offer(session: &str, complete: js_sys::Function) {
    OFFERED.with(|o| o.borrow_mut().insert(session.to_string(), complete));
}

/// The `complete` function offered for `session`, if any (each is taken once).
pub fn take_offered(session: &str) -> Option<js_sys::Function> {
    OFFERED.with(|o| o.borrow_mut().remove(session))
}

/// Reads `provider.complete` out of the `createAgent` options, if it is a function.
pub fn complete_function(options: &JsValue) -> Option<js_sys::Function> {
    let provider = js_sys::Reflect::get(options, &"provider".into()).ok()?;
    if !provider.is_object() {
        return None;
    }
    js_sys::Reflect::get(&provider, &"complete".into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()
}

/// The options with `provider.complete` left out (a shallow copy), so that they parse as data.
pub fn without_complete(options: &JsValue) -> JsValue {
    let Ok(provider) = js_sys::Reflect::get(options, &"provider".into()) else {
        return options.clone();
    };
    if !provider.is_object() {
        return options.clone();
    }
    let copy = js_sys::Object::assign(&js_sys::Object::new(), options.unchecked_ref());
    let provider_copy = js_sys::Object::assign(&js_sys::Object::new(), provider.unchecked_ref());
    // Deleting an own property of a fresh plain object cannot fail.
    let _ = js_sys::Reflect::delete_property(&provider_copy, &"complete".into());
    let _ = js_sys::Reflect::set(&copy, &"provider".into(), &provider_copy);
    copy.into()
}

impl ModelClient for CustomModel {
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        let body = self.request_object(request)?;
        let abort = AbortOnDrop::new()?;
        let handle = custom_open(&self.complete, &body, &abort.signal())
            .map_err(|error| provider_failure(&error))?;
        let mut assembler = CompletionAssembler::default();
        let mut seen_any = false;
        // Each hop to the page hands over every item ready by then: a provider answering from
        // data in hand costs one hop per call, not one per chunk. An `end` line ends the call.
        'call: while let Some(lines) = next_items(&handle).await? {
            for line in lines.split('\n') {
                let deltas = match Item::read(line)? {
                    Item::End => break 'call,
                    Item::Chunk(text) => assembler.push_chunk_text(text)?,
                    Item::Completion(text) => assembler.push_completion(&parse_item(text)?)?,
                };
                seen_any = true;
                for delta in deltas {
                    on_delta(delta);
                }
            }
        }
        abort.disarm();
        assembler.finish(seen_any)
    }
}

/// The items of a call the bridge has ready (`customNext`), one a line, or `None` once the call
/// ended.
async fn next_items(handle: &JsValue) -> Result<Option<String>, ModelError> {
    let promise = custom_next(handle).map_err(|error| provider_failure(&error))?;
    let items = JsFuture::from(promise)
        .await
        .map_err(|error| provider_failure(&error))?;
    Ok(items.as_string())
}

/// One line of what `customNext` handed over.
enum Item<'a> {
    /// A `ChatCompletionChunk`'s JSON.
    Chunk(&'a str),
    /// A whole `ChatCompletion`'s JSON.
    Completion(&'a str),
    /// The call ended.
    End,
}

impl<'a> Item<'a> {
    fn read(line: &'a str) -> Result<Self, ModelError> {
        if line == "end" {
            Ok(Item::End)
        } else if let Some(text) = line.strip_prefix("chunk:") {
            Ok(Item::Chunk(text))
        } else if let Some(text) = line.strip_prefix("completion:") {
            Ok(Item::Completion(text))
        } else {
            Err(malformed(
                "the custom provider bridge handed over a line that is no item",
            ))
        }
    }
}

/// A whole completion's JSON (the rare shape: it is rewritten as a chunk, so it is read as a tree).
fn parse_item(text: &str) -> Result<Value, ModelError> {
    serde_json::from_str::<serde_json::Value>(text)
        .map_err(|error| malformed(format!("the custom provider's reply is not JSON: {error}")))
}

/// The error for a rejected call: `Cancelled` for an abort; otherwise a `Provider` error of type
/// `custom_provider`, carrying what the page's function threw (not retried: the page decides).
fn provider_failure(error: &JsValue) -> ModelError {
    let cancelled = "the custom provider's call was cancelled";
    JsFailure::from_js(error).into_model_error(cancelled, |failure| ModelError {
        kind: ModelErrorKind::Provider {
            error_type: "custom_provider".to_string(),
        },
        message: format!(
            "the custom provider failed: {}: {}",
            failure.name, failure.message
        ),
    })
}
