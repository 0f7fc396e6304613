//! The banner shown while a run is paused because the model provider is unreachable, with a
//! Retry button (like the storage banner: the run has not ended and nothing is lost).

use leptos::prelude::*;

use crate::view::SessionSummary;

/// Provider trouble (`data-testid="provider-error"`, Retry: `data-testid="retry-provider"`).
#[component]
pub fn ProviderBanner(
    /// The session on screen (its `paused` message).
    #[prop(into)]
    summary: Signal<SessionSummary>,
    /// Called when the user asks to retry.
    on_retry: Callback<()>,
) -> impl IntoView {
    move || {
        summary.with(|s| s.paused.clone()).map(|message| {
            view! {
                <div class="banner storage" role="alert" data-testid="provider-error">
                    <div>
                        <strong>"The model provider is unreachable."</strong>
                        " The run is paused and nothing is lost. Retry when it is back. "
                        <span class="detail">{message}</span>
                    </div>
                    <button data-testid="retry-provider" on:click=move |_| on_retry.run(())>
                        "Retry"
                    </button>
                </div>
            }
        })
    }
}
