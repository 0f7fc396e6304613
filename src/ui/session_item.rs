//! One row of the session list: open it, rename it in place (Enter saves, Esc gives up), or
//! delete it after a confirmation.

use leptos::prelude::*;

use super::actions::{delete_session, rename_session, show_session};
use super::state::{AppState, SessionRow};
use crate::runtime::MAX_NAME_CHARS;
use crate::view::plural;

/// Hooks: `session-item` (`data-session`), `rename-session` then `rename-input`,
/// `rename-save` / `rename-cancel`, `delete-session` then `confirm-delete` / `keep-session`.
#[component]
pub fn SessionItem(
    /// The playground's state.
    app: AppState,
    /// The session.
    row: SessionRow,
) -> impl IntoView {
    let id = StoredValue::new(row.session.clone());
    let title = StoredValue::new(row.title());
    let state = if row.summary.paused.is_some() {
        "paused".to_string()
    } else if row.summary.in_flight() {
        "running".to_string()
    } else {
        row.summary.phase().label()
    };
    let meta = StoredValue::new(format!(
        "{} · {}",
        state,
        plural(row.summary.records, "event", "events")
    ));
    let active = move || {
        app.shown
            .id
            .with(|s| s.as_deref() == Some(id.get_value().as_str()))
    };
    let confirming = RwSignal::new(false);
    let renaming = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let save = move || {
        renaming.set(false);
        rename_session(app, id.get_value(), draft.get_untracked());
    };
    let start_rename = move || {
        draft.set(title.get_value());
        renaming.set(true);
    };
    let editor = move || {
        let field = format!("rename-{}", id.get_value());
        view! {
            <span class="session-rename" role="group" aria-label="Rename this session">
                <label class="visually-hidden" for=field.clone()>"Session name"</label>
                <input
                    id=field
                    data-testid="rename-input"
                    type="text"
                    maxlength=MAX_NAME_CHARS.to_string()
                    prop:value=move || draft.get()
                    on:input=move |ev| draft.set(event_target_value(&ev))
                    on:keydown=move |ev| match ev.key().as_str() {
                        "Enter" => save(),
                        "Escape" => renaming.set(false),
                        _ => {}
                    }
                />
                <button class="small primary" data-testid="rename-save" on:click=move |_| save()>
                    "Save"
                </button>
                <button class="small" data-testid="rename-cancel" on:click=move |_| renaming.set(false)>
                    "Cancel"
                </button>
            </span>
        }
    };
    let opened = move || {
        view! {
            <button
                class="session-open"
                data-testid="session-item"
                data-session=id.get_value()
                title=title.get_value()
                on:click=move |_| show_session(app, id.get_value())
            >
                <span class="session-title">{title.get_value()}</span>
                <span class="session-meta">{meta.get_value()}</span>
            </button>
        }
    };
    let tools = move || {
        if confirming.get() {
            view! {
                <span class="confirm-delete" role="group" aria-label="Delete this session?">
                    <button class="small danger" data-testid="confirm-delete" on:click=move |_| delete_session(app, id.get_value())>
                        "Delete"
                    </button>
                    <button class="small" data-testid="keep-session" on:click=move |_| confirming.set(false)>
                        "Keep"
                    </button>
                </span>
            }
            .into_any()
        } else {
            view! {
                <button
                    class="icon"
                    data-testid="rename-session"
                    aria-label="Rename session"
                    title="Rename session"
                    on:click=move |_| start_rename()
                >
                    "✎"
                </button>
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
            .into_any()
        }
    };
    let body = move || {
        if renaming.get() {
            editor().into_any()
        } else {
            view! { {opened()} {tools} }.into_any()
        }
    };
    view! {
        <li class="session-row" class:active=active class:running=row.summary.in_flight()>
            {body}
        </li>
    }
}
