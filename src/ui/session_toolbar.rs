//! The session's header: its title and the run controls (Cancel, Continue with more budget,
//! Export).

use leptos::prelude::*;

use super::actions::{cancel, continue_with_more_budget};
use super::state::{AppState, Role};
use super::transfer::export;
use super::verify_button::VerifyButton;

/// Title and actions of the session on screen. Hooks: `session-title`, `cancel`,
/// `continue-budget`, `export`.
#[component]
pub fn SessionToolbar(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let summary = app.shown.summary;
    let title = move || {
        summary.with(|s| {
            if s.title.is_empty() {
                "New session".to_string()
            } else {
                s.title.clone()
            }
        })
    };
    // Only the tab that runs the session can stop it (Esc does the same).
    let in_flight =
        move || summary.with(|s| s.in_flight()) && app.shown.role.get() != Role::Follower;
    let can_extend = move || summary.with(|s| s.extended_limits().is_some());
    let continue_label = move || {
        summary.with(|s| match s.extended_limits().and_then(|l| l.max_steps) {
            Some(steps) => format!("Continue with more budget ({steps} steps)"),
            None => "Continue with more budget".to_string(),
        })
    };
    view! {
        <div class="session-toolbar">
            <div class="session-heading">
                <h2 data-testid="session-title">{title}</h2>
                <span class="session-id">{move || app.shown.id.get().unwrap_or_default()}</span>
            </div>
            <div class="toolbar-actions">
                <Show when=can_extend>
                    <button
                        class="primary"
                        data-testid="continue-budget"
                        on:click=move |_| continue_with_more_budget(app)
                    >
                        {continue_label}
                    </button>
                </Show>
                <Show when=in_flight>
                    <button class="danger" data-testid="cancel" on:click=move |_| cancel(app)>
                        "Cancel run" <kbd>"Esc"</kbd>
                    </button>
                </Show>
                <button
                    data-testid="export"
                    disabled=move || app.shown.id.with(Option::is_none)
                    on:click=move |_| export(app)
                >
                    "Export"
                </button>
                <VerifyButton app/>
            </div>
        </div>
    }
}
