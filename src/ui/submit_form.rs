//! A form submitted in place: the browser does not navigate, the caller's handler runs. Enter
//! in one of its inputs submits it too.

use leptos::prelude::*;

/// A `<form>` of class `class` whose submit calls `on_submit`.
#[component]
pub fn SubmitForm(
    /// The form's classes.
    class: &'static str,
    /// Called on each submit.
    on_submit: Callback<()>,
    /// The form's fields and buttons.
    children: Children,
) -> impl IntoView {
    view! {
        <form
            class=class
            on:submit=move |ev| {
                ev.prevent_default();
                on_submit.run(());
            }
        >
            {children()}
        </form>
    }
}
