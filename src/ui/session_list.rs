//! The sidebar: stored sessions (search by name, first message or id; each row opens, renames
//! or deletes its session), "New session" and Import.

use leptos::prelude::*;

use super::actions::new_session;
use super::import_button::ImportButton;
use super::session_item::SessionItem;
use super::state::{AppState, SessionRow};
use crate::view::session_matches;

/// The session list (`data-testid="session-list"`; rows `data-testid="session-item"` with
/// `data-session`, see [`SessionItem`]; `session-search`, `new-session`).
#[component]
pub fn SessionList(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let query = RwSignal::new(String::new());
    let visible = move || {
        let q = query.get();
        app.sessions.with(|rows| {
            rows.iter()
                .filter(|r| {
                    let name = r.name.as_deref().unwrap_or_default();
                    session_matches(&format!("{name}\n{}", r.summary.title), &r.session, &q)
                })
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        <nav class="sessions" aria-label="Sessions">
            <div class="sessions-head">
                <h2>"Sessions"</h2>
                <button class="primary small" data-testid="new-session" on:click=move |_| new_session(app)>
                    "New session"
                </button>
            </div>
            <ImportButton app/>
            <label class="visually-hidden" for="session-search">"Search sessions"</label>
            <input
                id="session-search"
                data-testid="session-search"
                type="search"
                placeholder="Search sessions"
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))
            />
            <Show when=move || app.sessions.with(Vec::is_empty)>
                <p class="empty">"No sessions yet."</p>
            </Show>
            <ul class="session-list" data-testid="session-list">
                <For
                    each=visible
                    key=|row: &SessionRow| {
                        (row.session.clone(), row.summary.records, row.updated_at, row.name.clone())
                    }
                    children=move |row: SessionRow| view! { <SessionItem app row/> }
                />
            </ul>
        </nav>
    }
}
