//! The loop-guard thresholds and the fetch host allow-list of the settings form. Parsing lives
//! in [`GuardField`] and [`parse_allow_hosts`]; a bad value shows an error beside its field,
//! and a warning that would not come before its stop is named before a run is started.

use leptos::prelude::*;

use super::labelled_checkbox::LabelledCheckbox;
use super::number_field::run_field;
use crate::view::{check_guard, parse_allow_hosts, GuardField, RunField, Settings};

/// Hooks: `guard-reflective`, one per threshold (`guard-repeat-diagnose`, …), `guard-error`,
/// `allow-hosts`.
#[component]
pub fn GuardSettingsForm(
    /// The settings being edited.
    settings: RwSignal<Settings>,
) -> impl IntoView {
    let fields = GuardField::ALL
        .into_iter()
        .map(|field| run_field(settings, RunField::Guard(field)))
        .collect_view();
    let pairs = move || settings.with(|s| check_guard(&s.run.guard));
    let hosts_error = RwSignal::new(None::<String>);
    view! {
        <span class="group-label">"Loop guard"</span>
        <span class="hint">
            "Counts of tool results: the model is asked to reflect on where it stands (or warned), \
             then the run stops."
        </span>
        <LabelledCheckbox
            id="guard-reflective"
            label="Reflect and give up"
            hint="when a run is beaten (off: exact repeats only, no reflection, no give_up tool)"
            checked=Signal::derive(move || settings.with(|s| s.run.guard.reflective != Some(false)))
            on_change=Callback::new(move |on: bool| {
                settings.update(|s| s.run.guard.reflective = (!on).then_some(false));
            })
        />
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
