//! Composition root: the only place concrete adapters are named. Mounts the playground.

use leptos::prelude::*;

use crate::ui::Playground;

/// Mounts the playground on the page body. Called once by the wasm entry point.
pub fn start() {
    leptos::mount::mount_to_body(|| view! { <Playground/> });
}
