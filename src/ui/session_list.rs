//! The sidebar: stored sessions (search, click to open, delete after a confirmation), "New
//! session" and Import.

use leptos::prelude::*;

use super::actions::{delete_session, new_session, show_session};
use super::import_button::ImportButton;
use super::state::{AppState, SessionRow};
use crate::view::{plural, session_matches};

/// The session list (`data-testid="session-list"`; rows `data-testid="session-item"` with
/// `data-session`; `session-search`, `new-session`, `delete-session` then `confirm-delete` /
/// `keep-session`).
#[component]
pub fn SessionList(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let shown = app.shown.id;
    let query = RwSignal::new(String::new());
    let visible = move || {
        let q = query.get();
        app.sessions.with(|rows| {
            rows.iter()
                .filter(|r| session_matches(&r.summary.title, &r.session, &q))
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
                    key=|row: &SessionRow| (row.session.clone(), row.summary.records, row.updated_at)
                    children=move |row: SessionRow| {
                        let id = row.session.clone();
                        let active = {
                            let id = id.clone();
                            move || shown.with(|s| s.as_deref() == Some(id.as_str()))
                        };
                        let open_id = id.clone();
                        let delete_id = id.clone();
                        let confirming = RwSignal::new(false);
                        let title = if row.summary.title.is_empty() {
                            "Untitled session".to_string()
                        } else {
                            row.summary.title.clone()
                        };
                        let tooltip = title.clone();
                        let state = if row.summary.in_flight() {
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
                            <li class="session-row" class:active=active class:running=row.summary.in_flight()>
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
                                <Show
                                    when=move || confirming.get()
                                    fallback=move || {
                                        view! {
                                            <button
                                                class="icon danger-hover"
                                                data-testid="delete-session"
                                                aria-label="Delete session"
                                                title="Delete session"
                                                on:click=move |_| confirming.set(true)
                                            >
                                                "✕"
                                            </button>
                                        }
                                    }
                                >
                                    <span class="confirm-delete" role="group" aria-label="Delete this session?">
                                        <button
                                            class="small danger"
                                            data-testid="confirm-delete"
                                            on:click={
                                                let id = delete_id.clone();
                                                move |_| delete_session(app, id.clone())
                                            }
                                        >
                                            "Delete"
                                        </button>
                                        <button
                                            class="small"
                                            data-testid="keep-session"
                                            on:click=move |_| confirming.set(false)
                                        >
                                            "Keep"
                                        </button>
                                    </span>
                                </Show>
                            </li>
                        }
                    }
                />
            </ul>
        </nav>
    }
}
