//! A folding panel of the side bar (`<details>`): a title, a one-line summary of what is inside
//! (shown folded too), and the contents.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// `<details class={class}>` with `<summary>` holding `settings-title` and `settings-summary`.
#[component]
pub fn FoldPanel(
    /// The panel's class (`files`, `settings`).
    class: &'static str,
    /// Its `data-testid`, when it has one.
    #[prop(optional)]
    testid: Option<&'static str>,
    /// The title.
    title: &'static str,
    /// The summary beside the title.
    #[prop(into)]
    summary: Signal<String>,
    /// Unfolds or folds the panel from outside, when given.
    #[prop(optional, into)]
    open: Option<Signal<bool>>,
    /// Set to whether the panel is unfolded each time the person or the page folds it.
    unfolded: RwSignal<bool>,
    /// The contents.
    children: Children,
) -> impl IntoView {
    view! {
        <details
            class=class
            data-testid=testid
            prop:open=move || open.is_some_and(|open| open.get())
            on:toggle=move |ev| {
                let now = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
                    .is_some_and(|d| d.open());
                unfolded.set(now);
            }
        >
            <summary>
                <span class="settings-title">{title}</span>
                <span class="settings-summary">{summary}</span>
            </summary>
            {children()}
        </details>
    }
}
