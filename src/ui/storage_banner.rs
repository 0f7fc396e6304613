//! The banner shown while the session's log cannot be written, with a Retry button.

use leptos::prelude::*;

use crate::view::LiveState;

/// Storage trouble (`data-testid="storage-error"`, Retry: `data-testid="retry-storage"`).
#[component]
pub fn StorageBanner(
    /// Live state of the session (its `storage_error`).
    #[prop(into)]
    live: Signal<LiveState>,
    /// Called when the user asks to retry.
    on_retry: Callback<()>,
) -> impl IntoView {
    move || {
        live.with(|l| l.storage_error.clone()).map(|message| {
            view! {
                <div class="banner storage" role="alert" data-testid="storage-error">
                    <div>
                        <strong>"Saving the session failed."</strong>
                        " The run is paused and nothing is lost. Free some space, then retry. "
                        <span class="detail">{message}</span>
                    </div>
                    <button data-testid="retry-storage" on:click=move |_| on_retry.run(())>
                        "Retry"
                    </button>
                </div>
            }
        })
    }
}
