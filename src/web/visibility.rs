//! Page Visibility and lifecycle wiring: while the tab is hidden, frozen or being unloaded the
//! session's core hears `Suspend`, and `Resume` when it is visible again, so hidden time is not
//! charged to the run's wall-clock budget. Only the tab that writes the session sends them.

use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use web_sys::EventTarget;

use crate::runtime::LiveSession;

type Listener = Closure<dyn FnMut(web_sys::Event)>;

/// The listeners of one session; dropping it removes them.
pub struct VisibilityWatch {
    listeners: Vec<(EventTarget, &'static str, Listener)>,
}

/// Whether the document is hidden now (`document.visibilityState === 'hidden'`).
fn hidden() -> bool {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return false;
    };
    js_sys::Reflect::get(&document, &"visibilityState".into())
        .ok()
        .and_then(|v| v.as_string())
        .is_some_and(|state| state == "hidden")
}

impl VisibilityWatch {
    /// Listens on the page for `live` (which passes it on only while this page writes).
    pub fn start(live: &Rc<LiveSession>) -> Option<Self> {
        let live: Weak<LiveSession> = Rc::downgrade(live);
        let window = web_sys::window()?;
        let document: EventTarget = window.document()?.into();
        let window: EventTarget = window.into();
        // (target, event, what it means): `None` reads the visibility state.
        let wiring: [(&EventTarget, &'static str, Option<bool>); 5] = [
            (&document, "visibilitychange", None),
            (&document, "freeze", Some(true)),
            (&document, "resume", None),
            (&window, "pagehide", Some(true)),
            (&window, "pageshow", None),
        ];
        let mut listeners = Vec::new();
        for (target, name, suspend) in wiring {
            let live = live.clone();
            let listener = Listener::new(move |_event: web_sys::Event| {
                if let Some(live) = live.upgrade() {
                    live.set_visible(!suspend.unwrap_or_else(hidden));
                }
            });
            if target
                .add_event_listener_with_callback(name, listener.as_ref().unchecked_ref())
                .is_ok()
            {
                listeners.push((target.clone(), name, listener));
            }
        }
        Some(Self { listeners })
    }
}

impl Drop for VisibilityWatch {
    fn drop(&mut self) {
        for (target, name, listener) in &self.listeners {
            let _ =
                target.remove_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
        }
    }
}
