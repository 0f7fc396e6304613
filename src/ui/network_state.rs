//! The header's network badge: online, offline, or online with this build kept in the browser
//! for use without a network (a service worker serves the page).

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use crate::view::network_badge;

/// `navigator.{name}`.
fn navigator_field(name: &str) -> Option<JsValue> {
    let navigator = js_sys::Reflect::get(&window(), &"navigator".into()).ok()?;
    js_sys::Reflect::get(&navigator, &name.into()).ok()
}

/// `navigator.onLine` (online when the browser cannot say).
fn browser_online() -> bool {
    navigator_field("onLine")
        .and_then(|v| v.as_bool())
        .unwrap_or(true)
}

/// `navigator.serviceWorker`, where there is one.
fn worker_container() -> Option<web_sys::EventTarget> {
    navigator_field("serviceWorker")
        .filter(|c| c.is_object())
        .map(JsCast::unchecked_into)
}

/// Whether a service worker serves this page (`navigator.serviceWorker.controller`).
fn site_kept() -> bool {
    worker_container()
        .and_then(|c| js_sys::Reflect::get(&c, &"controller".into()).ok())
        .is_some_and(|controller| controller.is_object())
}

/// The badge (`data-testid="network-state"`, `data-state` = `online` | `offline-ready` |
/// `offline`).
#[component]
pub fn NetworkState() -> impl IntoView {
    let online = RwSignal::new(browser_online());
    let kept = RwSignal::new(site_kept());
    // The page lives as long as the header: its listeners are never removed.
    let _ = window_event_listener(ev::online, move |_| online.set(true));
    let _ = window_event_listener(ev::offline, move |_| online.set(false));
    if let Some(container) = worker_container() {
        // The first worker of a visit takes the page over once it has stored the site.
        let changed = Closure::<dyn FnMut()>::new(move || kept.set(site_kept()));
        let _ = container
            .add_event_listener_with_callback("controllerchange", changed.as_ref().unchecked_ref());
        changed.forget();
    }
    let badge = move || network_badge(online.get(), kept.get());
    view! {
        <span
            class=move || format!("network-state {}", badge().state)
            data-testid="network-state"
            data-state=move || badge().state
            title=move || badge().title
            role="status"
        >
            {move || badge().text}
        </span>
    }
}
