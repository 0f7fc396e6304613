//! The light/dark switch in the header. The page follows `prefers-color-scheme` until the user
//! picks a theme; the pick is kept in `localStorage` and set as `data-theme` on `<html>`.

use leptos::prelude::*;

use crate::view::Theme;

/// The theme button (`data-testid="theme-toggle"`).
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let storage = window().local_storage().ok().flatten();
    let stored = storage
        .as_ref()
        .and_then(|s| s.get_item(Theme::STORAGE_KEY).ok().flatten());
    let theme = RwSignal::new(Theme::from_stored(stored.as_deref()));
    let system_dark = window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches());
    Effect::new(move |_| apply(theme.get()));
    let label = move || theme.get().toggle_label(system_dark);
    view! {
        <button
            class="icon theme-toggle"
            data-testid="theme-toggle"
            aria-label=label
            title=label
            on:click=move |_| theme.update(|t| *t = t.toggled(system_dark))
        >
            <span aria-hidden="true">
                {move || if theme.get().is_dark(system_dark) { "☀" } else { "☾" }}
            </span>
        </button>
    }
}

/// Puts the choice on the page and remembers it.
fn apply(theme: Theme) {
    let root = document().document_element();
    let storage = window().local_storage().ok().flatten();
    match theme.stored() {
        Some(value) => {
            if let Some(root) = root {
                let _ = root.set_attribute("data-theme", value);
            }
            if let Some(s) = storage {
                let _ = s.set_item(Theme::STORAGE_KEY, value);
            }
        }
        None => {
            if let Some(root) = root {
                let _ = root.remove_attribute("data-theme");
            }
            if let Some(s) = storage {
                let _ = s.remove_item(Theme::STORAGE_KEY);
            }
        }
    }
}
