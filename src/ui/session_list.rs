//! The sidebar: stored sessions (click to open, delete), "New session" and Import.

use leptos::prelude::*;

use super::actions::{delete_session, new_session, show_session};
use super::import_button::ImportButton;
use super::state::{AppState, SessionRow};
use crate::view::plural;

/// The session list (`data-testid="session-list"`; rows `data-testid="session-item"` with
/// `data-session`; `new-session` and `delete-session` buttons).
#[component]
pub fn SessionList(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let shown = app.shown.id;
    view! {
        <nav class="sessions" aria-label="Sessions">
            <div class="sessions-head">
                <h2>"Sessions"</h2>
                <button class="primary small" data-testid="new-session" on:click=move |_| new_session(app)>
                    "New session"
                </button>
            </div>
            <ImportButton app/>
            <Show when=move || app.sessions.with(Vec::is_empty)>
                <p class="empty">"No sessions yet."</p>
            </Show>
            <ul class="session-list" data-testid="session-list">
                <For
                    each=move || app.sessions.get()
                    key=|row: &SessionRow| (row.session.clone(), row.summary.records, row.updated_at)
                    children=move |row: SessionRow| {
                        let id = row.session.clone();
                        let active = {
                            let id = id.clone();
                            move || shown.with(|s| s.as_deref() == Some(id.as_str()))
                        };
                        let open_id = id.clone();
                        let delete_id = id.clone();
                        let title = if row.summary.title.is_empty() {
                            "Untitled session".to_string()
                        } else {
                            row.summary.title.clone()
                        };
                        let tooltip = title.clone();
                        let state = if row.summary.in_flight {
                            "running".to_string()
                        } else {
                            row.summary.phase.label()
                        };
                        let meta = format!(
                            "{} · {}",
                            state,
                            plural(row.summary.records, "event", "events"),
                        );
                        view! {
                            <li class="session-row" class:active=active class:running=row.summary.in_flight>
                                <button
                                    class="session-open"
                                    data-testid="session-item"
                                    data-session=id.clone()
                                    title=tooltip
                                    on:click=move |_| show_session(app, open_id.clone())
                                >
                                    <span class="session-title">{title}</span>
                                    <span class="session-meta">{meta}</span>
                                </button>
                                <button
                                    class="icon danger-hover"
                                    data-testid="delete-session"
                                    aria-label="Delete session"
                                    title="Delete session"
                                    on:click=move |_| delete_session(app, delete_id.clone())
                                >
                                    "✕"
                                </button>
                            </li>
                        }
                    }
                />
            </ul>
        </nav>
    }
}
