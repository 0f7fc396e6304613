//! One labelled number field of the settings form: each edit is applied through the caller's
//! parser, or the reason it was refused is shown beside the field (the settings keep their last
//! good value).

use crate::view::{FieldError, RunField, RunSettings, Settings};
use leptos::prelude::*;

/// What a number field shows: its id (also its `data-testid`), label, soft-keyboard hint
/// (`numeric` or `decimal`), placeholder and the text it starts with.
pub struct FieldText {
    /// Element id and test hook.
    pub id: &'static str,
    /// The label's text.
    pub label: &'static str,
    /// The `inputmode` attribute.
    pub inputmode: &'static str,
    /// Shown while the field is empty.
    pub placeholder: String,
    /// The text it starts with (set as a property: an edited input ignores its attribute).
    pub value: String,
}

/// The label and field; `apply` stores a parsed value or says why the text was refused.
pub fn number_field(
    text: FieldText,
    apply: impl Fn(&str) -> Result<(), FieldError> + 'static,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    view! {
        <label for=text.id>{text.label}</label>
        <div class="field">
            <input
                id=text.id
                data-testid=text.id
                type="text"
                inputmode=text.inputmode
                placeholder=text.placeholder
                prop:value=text.value
                on:input=move |ev| {
                    error.set(apply(&event_target_value(&ev)).err().map(|e| e.to_string()))
                }
            />
            {move || error.get().map(|e| view! { <span class="field-error" role="alert">{e}</span> })}
        </div>
    }
}

/// The labelled field of a budget or a loop-guard threshold, empty at first (the settings'
/// value stands until it is edited).
pub fn run_field(settings: RwSignal<Settings>, field: RunField) -> impl IntoView {
    let text = FieldText {
        id: field.id(),
        label: field.label(),
        inputmode: field.inputmode(),
        placeholder: field.placeholder(),
        value: String::new(),
    };
    number_field(text, move |typed| {
        edit_run(settings, |run| field.apply(run, typed))
    })
}

/// Applies `edit` to a copy of the run settings and keeps the copy only when the edit accepts
/// the text: a refused text leaves the settings as they were.
fn edit_run(
    settings: RwSignal<Settings>,
    edit: impl FnOnce(&mut RunSettings) -> Result<(), FieldError>,
) -> Result<(), FieldError> {
    let mut run = settings.with_untracked(|s| s.run.clone());
    edit(&mut run)?;
    settings.update(|s| s.run = run);
    Ok(())
}
