//! The loop-guard thresholds and the fetch host allow-list of the settings form. Parsing lives
//! in [`GuardField`] and [`parse_allow_hosts`]; a bad value shows an error beside its field,
//! and a warning that would not come before its stop is named before a run is started.

use leptos::prelude::*;

use super::number_field::{edit_run, number_field, FieldText};
use crate::view::{check_guard, parse_allow_hosts, GuardField, Settings};

/// Hooks: `guard-reflective`, one per threshold (`guard-repeat-diagnose`, …), `guard-error`,
/// `allow-hosts`.
#[component]
pub fn GuardSettingsForm(
    /// The settings being edited.
    settings: RwSignal<Settings>,
) -> impl IntoView {
    let fields = GuardField::ALL
        .into_iter()
        .map(|field| guard_input(settings, field))
        .collect_view();
    let pairs = move || settings.with(|s| check_guard(&s.run.guard));
    let hosts_error = RwSignal::new(None::<String>);
    view! {
        <span class="group-label">"Loop guard"</span>
        <span class="hint">
            "Counts of tool results: the model is asked to reflect on where it stands (or warned), \
             then the run stops."
        </span>
        <label for="guard-reflective">"Reflect and give up"</label>
        <div class="field">
            <input
                type="checkbox"
                id="guard-reflective"
                data-testid="guard-reflective"
                prop:checked=move || settings.with(|s| s.run.guard.reflective != Some(false))
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    settings.update(|s| s.run.guard.reflective = (!on).then_some(false));
                }
            />
            <span class="hint">
                "when a run is beaten (off: exact repeats only, no reflection, no give_up tool)"
            </span>
        </div>
        {fields}
        {move || pairs().map(|e| view! {
            <span></span>
            <span class="field-error" role="alert" data-testid="guard-error">{e}</span>
        })}
        <label for="allow-hosts">"Fetch allow-list"</label>
        <div class="field wide">
            <textarea
                id="allow-hosts"
                data-testid="allow-hosts"
                rows="2"
                spellcheck="false"
                placeholder="example.com, *.example.org, localhost:8080"
                on:input=move |ev| match parse_allow_hosts(&event_target_value(&ev)) {
                    Ok(hosts) => {
                        hosts_error.set(None);
                        settings.update(|s| s.run.allow_hosts = hosts);
                    }
                    Err(e) => hosts_error.set(Some(e.to_string())),
                }
            ></textarea>
            <span class="hint">
                "http_fetch reaches these hosts when its permission is allow (others are refused); \
                 with ask first, each new host is asked about once."
            </span>
            {move || hosts_error.get().map(|e| view! { <span class="field-error" role="alert">{e}</span> })}
        </div>
    }
}

fn guard_input(settings: RwSignal<Settings>, field: GuardField) -> impl IntoView {
    let text = FieldText {
        id: field.id(),
        label: field.label(),
        inputmode: "numeric",
        placeholder: field.default_value().to_string(),
        value: String::new(),
    };
    number_field(text, move |typed| {
        edit_run(settings, |run| field.apply(&mut run.guard, typed))
    })
}
