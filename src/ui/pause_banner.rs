//! The banner shown while a run is paused because the model provider or a tool's server could
//! not be reached, with a Retry button (like the storage banner: the run has not ended and nothing is lost). The
//! recorded message says it all (what failed, that nothing is lost); it is shown once.

use leptos::prelude::*;

use crate::view::SessionSummary;

/// A paused run (`data-testid="provider-error"`, Retry: `data-testid="retry-provider"`: the
/// names the first pause, the provider's, gave them).
#[component]
pub fn PauseBanner(
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
                    <p>{message}</p>
                    <button data-testid="retry-provider" on:click=move |_| on_retry.run(())>
                        "Retry"
                    </button>
                </div>
            }
        })
    }
}
