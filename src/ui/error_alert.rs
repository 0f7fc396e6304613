//! The page's alert: the last error of an action, until dismissed.

use leptos::prelude::*;

/// An error message (`.error`, `role="alert"`, `data-testid="error"`).
#[component]
pub fn ErrorAlert(
    /// The message; `None` hides the alert.
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    move || {
        error.get().map(|message| {
            view! {
                <div class="error" role="alert" data-testid="error">
                    <span class="message">{message}</span>
                    <button class="link" aria-label="Dismiss" on:click=move |_| error.set(None)>
                        "Dismiss"
                    </button>
                </div>
            }
        })
    }
}
