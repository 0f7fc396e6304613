//! What bounds a `run` call's wait, as the page passes it (`{ signal, pauseTimeoutMs }`), and
//! the outcome a call settled while its run is paused resolves to.

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::core::PauseReason;
use crate::runtime::{Pause, PauseWait};

/// A `run` call's bound: how long it waits on a pause, and the page's `AbortSignal`.
pub struct RunBound {
    /// The pause timeout (`pauseTimeoutMs`), or waiting until the run ends.
    pub wait: PauseWait,
    /// The page's signal, if it passed one.
    signal: Option<web_sys::AbortSignal>,
}

impl RunBound {
    /// Reads `{ signal, pauseTimeoutMs }`; anything missing or malformed leaves the default
    /// (wait until the run ends, no abort).
    pub fn from_options(options: &JsValue) -> Self {
        let field = |name: &str| {
            js_sys::Reflect::get(options, &name.into())
                .ok()
                .filter(|v| !v.is_undefined() && !v.is_null())
        };
        let wait = field("pauseTimeoutMs")
            .and_then(|v| v.as_f64())
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .map_or(PauseWait::UntilEnd, |ms| PauseWait::Settle(ms as u64));
        let signal = field("signal").and_then(|v| v.dyn_into::<web_sys::AbortSignal>().ok());
        Self { wait, signal }
    }

    /// Resolves when the signal aborts (at once if it already has); never without one.
    pub fn aborted(&self) -> LocalBoxFuture<'static, ()> {
        let Some(signal) = self.signal.clone() else {
            return futures::future::pending().boxed_local();
        };
        if signal.aborted() {
            return futures::future::ready(()).boxed_local();
        }
        // A signal aborts once: its listener resolves the promise once.
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            let _ = signal.add_event_listener_with_callback("abort", &resolve);
        });
        JsFuture::from(promise).map(|_| ()).boxed_local()
    }
}

/// `{ stopReason: 'paused', detail: { reason: 'provider_unreachable' | 'tool_unreachable' },
/// explanation, finalText: null }`: the run waits for its provider or a tool's server; `retry()`
/// (or the network's return) continues it.
pub fn paused_outcome(pause: &Pause) -> JsValue {
    let outcome = js_sys::Object::new();
    let detail = js_sys::Object::new();
    let set = |target: &js_sys::Object, key: &str, value: JsValue| {
        let _ = js_sys::Reflect::set(target, &key.into(), &value);
    };
    set(&detail, "reason", pause_kind(pause.reason).into());
    set(&outcome, "stopReason", "paused".into());
    set(&outcome, "detail", detail.into());
    set(&outcome, "explanation", pause.message.as_str().into());
    set(&outcome, "finalText", JsValue::NULL);
    outcome.into()
}

/// The pause's `kind` as the log writes it (`provider_unreachable`, `tool_unreachable`).
pub fn pause_kind(reason: PauseReason) -> &'static str {
    match reason {
        PauseReason::ProviderUnreachable { .. } => "provider_unreachable",
        PauseReason::ToolUnreachable => "tool_unreachable",
    }
}
