//! Composition root: the only place concrete adapters are named. Mounts the playground.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::Playground;

/// Mounts the playground into `#tabloop-playground` when the page has one. Pages that embed
/// tabloop only for its API have none, and get no UI.
pub fn start() {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("tabloop-playground"))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(root) = root {
        leptos::mount::mount_to(root, || view! { <Playground/> }).forget();
    }
}
