//! Browser time: [`sleep`] over `setTimeout` (cancelled with `clearTimeout` when dropped),
//! [`now_ms`] from `Date.now()`, [`when_idle`] over `requestIdleCallback`, and
//! [`BrowserClock`], the [`Clock`] built from them and the next task (`www/next_task.js`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::channel::oneshot;
use wasm_bindgen::prelude::*;

use crate::core::Millis;
use crate::ports::Clock;

#[wasm_bindgen(module = "/www/next_task.js")]
extern "C" {
    /// A promise of the browser's next task (a message to ourselves: not throttled when hidden).
    #[wasm_bindgen(js_name = nextTask)]
    fn js_next_task() -> js_sys::Promise;
}

#[wasm_bindgen]
extern "C" {
    /// The global `setTimeout` (windows and workers alike); returns the timer handle.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &js_sys::Function, ms: f64) -> JsValue;

    /// The global `clearTimeout`.
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
}

/// How long an idle callback may wait for the page to be idle before it runs anyway.
const IDLE_DEADLINE_MS: f64 = 2_000.0;

/// Runs `work` once when the page is idle (`requestIdleCallback`; `setTimeout` where there is
/// none, as in workers of some browsers).
pub fn when_idle(work: impl FnOnce() + 'static) {
    let callback = Closure::once_into_js(work);
    let global = js_sys::global();
    let idle = js_sys::Reflect::get(&global, &"requestIdleCallback".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    match idle {
        Some(idle) => {
            let options = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&options, &"timeout".into(), &IDLE_DEADLINE_MS.into());
            let _ = idle.call2(&global, &callback, &options);
        }
        None => {
            set_timeout(callback.unchecked_ref(), 0.0);
        }
    }
}

/// Longest delay `setTimeout` accepts (a signed 32-bit count of milliseconds); longer ones fire
/// at once in browsers, so they are clamped to this.
const MAX_TIMEOUT_MS: u64 = i32::MAX as u64;

/// Milliseconds since the Unix epoch, from `Date.now()`.
pub fn now_ms() -> Millis {
    let now = js_sys::Date::now();
    if now.is_finite() && now > 0.0 {
        now as Millis
    } else {
        0
    }
}

/// A future that resolves after `ms` milliseconds. Dropping it clears the timer.
pub fn sleep(ms: u64) -> Sleep {
    let (sender, receiver) = oneshot::channel();
    let callback = Closure::once(move || {
        // The receiver is gone only if the sleep was dropped, and then nobody waits.
        let _ = sender.send(());
    });
    let handle = set_timeout(
        callback.as_ref().unchecked_ref(),
        ms.min(MAX_TIMEOUT_MS) as f64,
    );
    Sleep {
        receiver,
        handle,
        _callback: callback,
    }
}

/// The future returned by [`sleep`].
#[derive(Debug)]
pub struct Sleep {
    /// Fires when the timer callback runs.
    receiver: oneshot::Receiver<()>,
    /// The `setTimeout` handle, cleared on drop.
    handle: JsValue,
    /// Kept alive until the timer fired or was cleared.
    _callback: Closure<dyn FnMut()>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match Pin::new(&mut self.receiver).poll(cx) {
            // A cancelled sender cannot happen while the callback is owned here; treat it as
            // fired rather than hang.
            Poll::Ready(Ok(())) | Poll::Ready(Err(oneshot::Canceled)) => Poll::Ready(()),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        clear_timeout(&self.handle);
    }
}

/// The browser's clock: `Date.now()` and `setTimeout`.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now(&self) -> Millis {
        now_ms()
    }

    fn sleep(&self, ms: u64) -> impl Future<Output = ()> {
        sleep(ms)
    }

    fn soon(&self) -> impl Future<Output = ()> {
        let next = js_next_task();
        async move {
            // The promise only resolves; a dropped wait simply ignores it.
            let _ = wasm_bindgen_futures::JsFuture::from(next).await;
        }
    }
}
