//! The banner that offers a new build of the site. `www/offline/register.js` says when one is
//! installed and waiting (`data-tabloop-update="ready"` on `<html>` and the window event
//! `tabloop:update-ready`); the button asks it to switch (`tabloop:apply-update`), and the page
//! reloads once onto the new build's files.

use leptos::prelude::*;

const READY_EVENT: &str = "tabloop:update-ready";
const APPLY_EVENT: &str = "tabloop:apply-update";

/// Whether an update was offered before the playground mounted.
fn marked_ready() -> bool {
    document()
        .document_element()
        .and_then(|root| root.get_attribute("data-tabloop-update"))
        .is_some_and(|state| state == "ready")
}

/// The banner (`data-testid="update-banner"`, button `update-reload`).
#[component]
pub fn UpdateBanner() -> impl IntoView {
    let ready = RwSignal::new(marked_ready());
    let applying = RwSignal::new(false);
    let _ = window_event_listener_untyped(READY_EVENT, move |_| ready.set(true));
    let apply = move |_| {
        applying.set(true);
        if let Ok(event) = web_sys::Event::new(APPLY_EVENT) {
            let _ = window().dispatch_event(&event);
        }
    };
    view! {
        <Show when=move || ready.get()>
            <div class="update-banner" role="status" data-testid="update-banner">
                <span>
                    "A new version of tabloop is ready. Reload to use it; a run under way \
                     goes on after the reload."
                </span>
                <button
                    class="primary"
                    data-testid="update-reload"
                    prop:disabled=move || applying.get()
                    on:click=apply
                >
                    {move || if applying.get() { "Reloading…" } else { "Reload" }}
                </button>
            </div>
        </Show>
    }
}
