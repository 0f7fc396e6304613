//! The browser's network state (`navigator.onLine` and the `online` / `offline` events): a
//! remote model call fails fast with "offline" instead of waiting out its retries, and a run
//! paused for its provider is sent again when the network returns. Only the tab that writes a
//! session retries it.

use std::rc::{Rc, Weak};

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use wasm_bindgen::prelude::*;

use crate::protocol::{ModelError, ModelErrorKind};
use crate::runtime::LiveSession;

/// Whether the browser says it is online (`navigator.onLine`; online when it cannot tell).
pub fn online() -> bool {
    let Some(window) = web_sys::window() else {
        return true;
    };
    js_sys::Reflect::get(&window, &"navigator".into())
        .and_then(|navigator| js_sys::Reflect::get(&navigator, &"onLine".into()))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(true)
}

/// The error of a remote call made or cut while the browser is offline: a network failure, so
/// the run pauses (nothing lost) until the network returns.
pub fn offline_error() -> ModelError {
    ModelError {
        kind: ModelErrorKind::Network,
        message: "offline: the browser has no network connection; the run goes on when it returns"
            .into(),
    }
}

/// Resolves at the browser's next `offline` event; dropping it removes its listener.
pub fn went_offline() -> LocalBoxFuture<'static, ()> {
    let Some(window) = web_sys::window() else {
        return futures::future::pending().boxed_local();
    };
    let (sender, receiver) = futures::channel::oneshot::channel();
    let mut sender = Some(sender);
    let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
        if let Some(sender) = sender.take() {
            let _ = sender.send(());
        }
    });
    let target: web_sys::EventTarget = window.into();
    if target
        .add_event_listener_with_callback("offline", listener.as_ref().unchecked_ref())
        .is_err()
    {
        return futures::future::pending().boxed_local();
    }
    let guard = Listening {
        target,
        name: "offline",
        listener,
    };
    async move {
        let _guard = guard;
        if receiver.await.is_err() {
            futures::future::pending::<()>().await;
        }
    }
    .boxed_local()
}

/// An event listener, removed when dropped.
struct Listening {
    target: web_sys::EventTarget,
    name: &'static str,
    listener: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.name, self.listener.as_ref().unchecked_ref());
    }
}

/// Sends a session's paused model or tool call again when the network returns, and once at
/// start when the browser is online (a run paused before a reload goes on by itself once its
/// tab writes again); dropping it stops.
pub struct OnlineWatch {
    /// Held for its `Drop`, which removes the listener.
    _listening: Listening,
}

impl OnlineWatch {
    /// Listens for `online` on behalf of `live`.
    pub fn start(live: &Rc<LiveSession>) -> Option<Self> {
        if online() && live.is_writer() {
            // Refused (and nothing changes) when the run is not paused.
            let _ = live.retry_paused();
        }
        let live: Weak<LiveSession> = Rc::downgrade(live);
        let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            // A run that is not paused refuses the retry and nothing changes; one resumed
            // from the log paused is retried too.
            if let Some(live) = live.upgrade().filter(|l| l.is_writer()) {
                let _ = live.retry_paused();
            }
        });
        let target: web_sys::EventTarget = web_sys::window()?.into();
        target
            .add_event_listener_with_callback("online", listener.as_ref().unchecked_ref())
            .ok()?;
        Some(Self {
            _listening: Listening {
                target,
                name: "online",
                listener,
            },
        })
    }
}
