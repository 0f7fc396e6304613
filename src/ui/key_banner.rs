//! The banner shown when a session cannot resume until the user enters its API key again.

use leptos::prelude::*;

use super::actions::resume;
use super::state::AppState;

/// Asks for the key (`data-testid="key-needed"`, Resume: `data-testid="resume"`).
#[component]
pub fn KeyBanner(
    /// The playground's state (its `key_needed`).
    app: AppState,
) -> impl IntoView {
    move || {
        app.key_needed.get().map(|why| {
            view! {
                <div class="banner key" role="status" data-testid="key-needed">
                    <div>
                        <strong>"Waiting for the API key."</strong>
                        " "
                        <span class="detail">{why}</span>
                    </div>
                    <button data-testid="resume" on:click=move |_| resume(app)>
                        "Resume"
                    </button>
                </div>
            }
        })
    }
}
