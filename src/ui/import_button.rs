//! Import a session from a JSON-lines file.

use leptos::prelude::*;

use super::state::AppState;
use super::transfer::{import, take_picked};

/// A file picker (`<input type="file" data-testid="import">`) styled as a button.
#[component]
pub fn ImportButton(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let on_change = move |ev: leptos::ev::Event| {
        take_picked(&ev, |files| {
            if let Some(file) = files.get(0) {
                import(app, file);
            }
        });
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
