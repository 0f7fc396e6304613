//! One labelled checkbox of the settings form, with a hint after it saying what "on" does.

use leptos::prelude::*;

/// The label, then the checkbox and its hint in one `field` box. The id is the test hook too.
#[component]
pub fn LabelledCheckbox(
    /// The checkbox's id and test hook.
    id: &'static str,
    /// The label's text.
    label: &'static str,
    /// What being checked means.
    hint: &'static str,
    /// Whether it is checked (set as a property, so it follows the settings).
    #[prop(into)]
    checked: Signal<bool>,
    /// Called with the new state after each change.
    on_change: Callback<bool>,
) -> impl IntoView {
    view! {
        <label for=id>{label}</label>
        <div class="field">
            <input
                id=id
                data-testid=id
                type="checkbox"
                prop:checked=move || checked.get()
                on:change=move |ev| on_change.run(event_target_checked(&ev))
            />
            <span class="hint">{hint}</span>
        </div>
    }
}
