//! [`LocalModel`]: a [`ModelClient`] over the in-tab model (wllama), reached through
//! `www/local_bridge.js`. A call builds the local request (tools described in the prompt, the
//! reply constrained by their schemas), streams the generated text to `on_delta`, and maps the
//! output back to text or a tool call. Dropping the future aborts the generation.

use serde::Deserialize;

use std::cell::Cell;

use futures::channel::mpsc;
use futures::{FutureExt, StreamExt};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::ports::ModelClient;
use crate::protocol::{
    FinishReason, ModelError, ModelErrorKind, ModelReply, ModelRequest, StreamDelta, Usage,
};
use crate::providers::local_prose::{plain_request, prose_of, prose_reply, ChoicePreview};
use crate::providers::{
    build_local_request, build_native_request, parse_local_output, parse_native_output,
    LocalRequest, NativePreview, ToolDialect,
};
use crate::web::abort::AbortOnDrop;
use crate::web::http_stream::Timeouts;
use crate::web::js_error::JsFailure;
use crate::web::local_bridge::{
    bridge_chat_template, bridge_complete, bridge_forget, bridge_load, bridge_unload,
};
use crate::web::timer::{now_ms, sleep};

/// Where to find the model module and the model file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocalLoadOptions {
    /// The JS module exporting `loadLocalModel`, relative to the page; `None` for
    /// `www/local/local_model.js`.
    pub module_url: Option<String>,
    /// The GGUF file; `None` for the module's default model.
    pub model_url: Option<String>,
}

/// Progress of the model, as the module reports it: loading it, then each completion.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LoadProgress {
    /// `download`, `cache` or `init` while loading; `prompt` (tokens read) and `writing`
    /// (pieces generated) during a completion, `idle` (what it wrote) once it ended; `ready`
    /// once the page's warm-up has read the prompt's start (tokens).
    pub phase: String,
    /// Bytes loaded so far.
    pub loaded: u64,
    /// Total bytes, when known.
    pub total: Option<u64>,
    /// Whether the bytes come from browser storage rather than the network.
    pub from_cache: bool,
    /// While writing: pieces per second so far.
    #[serde(default)]
    pub per_second: Option<f64>,
    /// When starting: where the model runs (`on the CPU: this browser has no WebGPU adapter`).
    #[serde(default)]
    pub note: Option<String>,
}

/// A started in-tab model.
#[derive(Debug)]
pub struct LocalModel {
    /// The bridge's opaque model handle.
    handle: JsValue,
    /// Name reported in replies (the GGUF file name, or `local`).
    name: String,
    /// How the model is asked for tool calls, from its chat template.
    dialect: ToolDialect,
    /// Calls made so far, for tool-call ids.
    calls: Cell<u64>,
    /// Liveness limits of each call: first token, and silence between tokens.
    timeouts: Cell<Timeouts>,
    /// The progress callback, kept alive in case the module reports late.
    _progress: Closure<dyn FnMut(JsValue)>,
}

/// Liveness limits of the in-tab model. Generous on purpose: a small CPU processes a long prompt
/// at about 10 tokens/s before the first token comes. They catch a stuck worker, not a slow one.
pub const LOCAL_TIMEOUTS: Timeouts = Timeouts {
    first_byte_ms: 600_000,
    idle_ms: 60_000,
};

impl LocalModel {
    /// Downloads (or reads from browser storage) and starts the model, reporting progress.
    /// Dropping the future aborts the load. Errors are `LocalModel` (unsupported browser,
    /// missing module, failed download or start) or `Cancelled`.
    pub async fn load(
        options: &LocalLoadOptions,
        mut on_progress: impl FnMut(LoadProgress) + 'static,
    ) -> Result<Self, ModelError> {
        let progress = Closure::<dyn FnMut(JsValue)>::new(move |value: JsValue| {
            // A malformed report is only progress: skip it.
            if let Ok(report) = super::js_value::from_js::<LoadProgress>(&value) {
                on_progress(report);
            }
        });
        let abort = AbortOnDrop::new()?;
        let promise = bridge_load(
            options.module_url.as_deref().unwrap_or(""),
            options.model_url.as_deref().unwrap_or(""),
            progress.as_ref().unchecked_ref(),
            &abort.signal(),
        )
        .map_err(|error| local_failure(&error))?;
        let handle = JsFuture::from(promise)
            .await
            .map_err(|error| local_failure(&error))?;
        abort.disarm();
        let template = bridge_chat_template(&handle)
            .ok()
            .and_then(|t| t.as_string());
        Ok(LocalModel {
            dialect: ToolDialect::from_chat_template(template.as_deref()),
            handle,
            name: model_name(options.model_url.as_deref()),
            calls: Cell::new(0),
            timeouts: Cell::new(LOCAL_TIMEOUTS),
            _progress: progress,
        })
    }

    /// Changes the liveness limits of later calls.
    pub fn set_timeouts(&self, timeouts: Timeouts) {
        self.timeouts.set(timeouts);
    }

    /// Stops the model and frees its memory (after a running call ends).
    pub async fn unload(self) -> Result<(), ModelError> {
        self.release().await
    }

    /// [`LocalModel::unload`] for a shared model: later calls on it fail with "the local model
    /// was unloaded" (used when another model replaces it).
    pub async fn release(&self) -> Result<(), ModelError> {
        let promise = bridge_unload(&self.handle).map_err(|error| local_failure(&error))?;
        JsFuture::from(promise)
            .await
            .map(|_| ())
            .map_err(|error| local_failure(&error))
    }

    /// A tool-call id unique in this tab: `local_<time>_<call number>`.
    fn next_call_id(&self) -> String {
        let n = self.calls.get() + 1;
        self.calls.set(n);
        format!("local_{}_{n}", now_ms())
    }
}

impl Drop for LocalModel {
    /// The progress callback goes with this model, but the module may still report (a
    /// completion's idle report comes a task after it ended): the bridge stops passing them on.
    fn drop(&mut self) {
        bridge_forget(&self.handle);
    }
}

impl ModelClient for LocalModel {
    /// Streams the generated text: as `Text` when no tools are offered; when they are, the output
    /// is a JSON object, a call's raw JSON shown as `Thinking` (`ChoicePreview`; the reply is
    /// authoritative either way), and when the model chooses to answer, its text is a second
    /// completion in plain text (`local_prose`), streamed as `Text`.
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        if self.dialect != ToolDialect::Compact {
            return self.complete_native(request, on_delta).await;
        }
        let local = build_local_request(request);
        let tools_offered = local.grammar.is_some();
        // With tools offered the reply is JSON: a call's raw text is a preview, an answer's
        // head shows nothing. The start of the turn the request wrote for the model comes
        // first, so a call is shown whole and an answer is recognised by its head.
        let mut choice = ChoicePreview::new(&request.tools);
        let mut as_delta = |text: String| {
            if tools_offered {
                choice.push(&text)
            } else {
                Some(StreamDelta::Text(text))
            }
        };
        let mut prefix = Some(local.reply_text("")).filter(|p| !p.is_empty());
        let output = self
            .generate(&local, &mut |text: String| {
                if let Some(prefix) = prefix.take() {
                    as_delta(prefix).into_iter().for_each(&mut *on_delta);
                }
                as_delta(text).into_iter().for_each(&mut *on_delta);
            })
            .await?;
        let text = local.reply_text(&output.text);
        let mut usage = Usage {
            input_tokens: output.input_tokens,
            output_tokens: output.output_tokens,
            ..Usage::default()
        };
        let mut reply = match prose_of(&text, &request.tools) {
            Some(prose) => {
                let plain = plain_request(&local, request.max_output_tokens);
                let written = self
                    .generate(&plain, &mut |text: String| {
                        on_delta(StreamDelta::Text(text))
                    })
                    .await?;
                // The same prompt, read from the cache: only what was written counts again.
                usage.output_tokens += written.output_tokens;
                let cut = written.finish == BridgeFinish::Length;
                prose_reply(&prose, &written.text, cut, usage, self.next_call_id())
            }
            None => {
                let mut reply =
                    parse_local_output(&text, &request.tools, usage, self.next_call_id());
                if output.finish == BridgeFinish::Length && reply.finish == FinishReason::EndTurn {
                    reply.finish = FinishReason::MaxTokens;
                }
                reply
            }
        };
        reply.model = self.name.clone();
        Ok(reply)
    }
}

impl LocalModel {
    /// [`ModelClient::complete`] for a model with a tool-call format of its own
    /// (`local_native`): one completion, its thinking and calls streamed as `Thinking`, its
    /// answer as `Text`.
    async fn complete_native(
        &self,
        request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        let local = build_native_request(request, &self.dialect);
        let tools_offered = local.grammar.is_some();
        let mut preview = NativePreview::new(&self.dialect, tools_offered);
        let output = self
            .generate(&local, &mut |text: String| {
                preview.push(&text).into_iter().for_each(&mut *on_delta);
            })
            .await?;
        preview.finish().into_iter().for_each(&mut *on_delta);
        let usage = Usage {
            input_tokens: output.input_tokens,
            output_tokens: output.output_tokens,
            ..Usage::default()
        };
        let offered: &[_] = if tools_offered { &request.tools } else { &[] };
        let mut reply = parse_native_output(
            &output.text,
            offered,
            &self.dialect,
            usage,
            self.next_call_id(),
        );
        if output.finish == BridgeFinish::Length && reply.finish == FinishReason::EndTurn {
            reply.finish = FinishReason::MaxTokens;
        }
        reply.model = self.name.clone();
        Ok(reply)
    }

    /// Runs one completion of `local` on the bridge, handing each piece of text to `on_text`;
    /// the output once it ends. Errors: the liveness limits, a failed or aborted completion.
    async fn generate(
        &self,
        local: &LocalRequest,
        on_text: &mut dyn FnMut(String),
    ) -> Result<BridgeOutput, ModelError> {
        let request = super::js_value::to_js(local);
        let (sender, mut receiver) = mpsc::unbounded::<String>();
        let forward = Closure::<dyn FnMut(String)>::new(move |text: String| {
            // The receiver lives as long as this call; after that there is nobody to tell.
            let _ = sender.unbounded_send(text);
        });
        // Declared after `forward`, so dropped (and aborting) before the callback goes away.
        let abort = AbortOnDrop::new()?;
        let promise = bridge_complete(
            &self.handle,
            &request,
            forward.as_ref().unchecked_ref(),
            &abort.signal(),
        )
        .map_err(|error| local_failure(&error))?;
        let mut done = JsFuture::from(promise).fuse();
        let limits = self.timeouts.get();
        let mut got_output = false;
        let result = loop {
            // A fresh timer per wait: every token restarts the idle limit.
            let wait = if got_output {
                limits.idle_ms
            } else {
                limits.first_byte_ms
            };
            let mut timer = sleep(wait).fuse();
            futures::select_biased! {
                text = receiver.select_next_some() => {
                    got_output = true;
                    on_text(text);
                }
                result = done => break result,
                () = timer => {
                    abort.abort();
                    let (kind, what) = if got_output {
                        (ModelErrorKind::IdleTimeout, "stopped producing tokens")
                    } else {
                        (ModelErrorKind::FirstByteTimeout, "produced no token")
                    };
                    return Err(ModelError {
                        kind,
                        message: format!("the local model {what} for {wait} ms"),
                    });
                }
            }
        };
        while let Ok(text) = receiver.try_recv() {
            on_text(text);
        }
        let output: BridgeOutput =
            result
                .map_err(|error| local_failure(&error))
                .and_then(|value| {
                    super::js_value::from_js(&value).map_err(|error| ModelError {
                        kind: ModelErrorKind::LocalModel,
                        message: format!("unexpected reply from the local model: {error}"),
                    })
                })?;
        if output.finish == BridgeFinish::Abort {
            return Err(ModelError {
                kind: ModelErrorKind::Cancelled,
                message: "the local model was stopped".to_string(),
            });
        }
        Ok(output)
    }
}

/// What `bridgeComplete` resolves to.
#[derive(Debug, Deserialize)]
struct BridgeOutput {
    /// All generated text.
    text: String,
    /// Why generation ended.
    finish: BridgeFinish,
    /// Prompt tokens.
    input_tokens: u64,
    /// Generated tokens.
    output_tokens: u64,
}

/// Why the local model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum BridgeFinish {
    /// End of answer.
    Stop,
    /// The token limit.
    Length,
    /// Aborted.
    Abort,
}

/// The error for a rejected bridge call: `Cancelled` for an abort, `LocalModel` otherwise.
fn local_failure(error: &JsValue) -> ModelError {
    JsFailure::from_js(error).into_model_error("the local model was stopped", |failure| {
        ModelError {
            kind: ModelErrorKind::LocalModel,
            message: format!("local model: {}", failure.message),
        }
    })
}

/// The model's name: the last path segment of its URL without `.gguf`, or `local`.
fn model_name(model_url: Option<&str>) -> String {
    model_url
        .and_then(|url| url.split(['?', '#']).next())
        .and_then(|path| path.rsplit('/').next())
        .map(|file| file.trim_end_matches(".gguf"))
        .filter(|name| !name.is_empty())
        .unwrap_or("local")
        .to_string()
}
