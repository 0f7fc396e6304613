//! "Verify replay": proves, offline, that the session on screen did what its log says. The log's
//! model replies and tool results are fed back through a fresh agent (no network, no tool runs)
//! and every record must come out the same; the result is shown next to the button.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::state::AppState;
use super::ui_error::UiError;
use crate::core::verify_replay;

/// The button (`data-testid="verify-replay"`) and its result (`data-testid="verify-result"`).
#[component]
pub fn VerifyButton(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let result = RwSignal::new(None::<String>);
    let verify = move |_| {
        let Some(session) = app.shown.id.get_untracked() else {
            return;
        };
        result.set(Some("Verifying…".into()));
        spawn_local(async move {
            let records = match app.service() {
                Ok(service) => service.records(&session).await.map_err(UiError::from),
                Err(e) => Err(e),
            };
            let text = match records {
                Ok(records) => match verify_replay(&records) {
                    Ok(report) => match report.divergence {
                        None => format!(
                            "Replay verified: all {} records match ({} inputs fed back).",
                            report.records, report.inputs
                        ),
                        Some(d) => format!(
                            "Replay differs at record {}: the log has {} but the loop writes {}",
                            d.seq, d.expected, d.got
                        ),
                    },
                    Err(e) => format!("The log cannot be verified: {e}"),
                },
                Err(e) => format!("Could not load the session: {e}"),
            };
            result.set(Some(text));
        });
    };
    view! {
        <button
            data-testid="verify-replay"
            disabled=move || app.shown.id.with(Option::is_none)
            on:click=verify
        >
            "Verify replay"
        </button>
        <span class="verify-result" data-testid="verify-result" role="status">
            {move || result.get()}
        </span>
    }
}
