//! Import a session from a JSON-lines file.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::AppState;
use super::transfer::import;

/// A file picker (`<input type="file" data-testid="import">`) styled as a button.
#[component]
pub fn ImportButton(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let on_change = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        if let Some(file) = input.files().and_then(|files| files.get(0)) {
            import(app, file);
        }
        // The same file can be picked again after a failed import.
        input.set_value("");
    };
    view! {
        <label class="button import" title="Import a session exported as JSON lines">
            "Import session…"
            <input
                type="file"
                class="visually-hidden"
                data-testid="import"
                accept=".jsonl,.ndjson,.json,.txt,application/x-ndjson,application/json,text/plain"
                on:change=on_change
            />
        </label>
    }
}
