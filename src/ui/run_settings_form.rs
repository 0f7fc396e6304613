//! The run part of the settings panel: budgets, the price of the model, system prompt, a
//! permission per tool, the loop guard and fetch allow-list, and whether the key is forgotten
//! once a session has started. Parsing lives in [`BudgetField`]; a bad value shows an error
//! beside its field.

use leptos::prelude::*;

use super::guard_settings_form::GuardSettingsForm;
use super::labelled_checkbox::LabelledCheckbox;
use super::labelled_input::{InputKind, LabelledInput};
use super::number_field::run_field;
use super::price_settings::PriceSettings;
use crate::view::{
    permission_from_value, permission_value, BudgetField, RunField, Settings, PLAYGROUND_TOOLS,
};

/// Hooks: one per budget field (`budget-tool-calls`, …), the price fields (see
/// [`PriceSettings`]), `system-prompt`, `permission-<tool>`, the guard fields (see
/// [`GuardSettingsForm`]), `forget-key`.
#[component]
pub fn RunSettingsForm(
    /// The settings being edited.
    settings: RwSignal<Settings>,
) -> impl IntoView {
    let budgets = BudgetField::ALL
        .into_iter()
        .filter(|f| *f != BudgetField::Steps)
        .map(|field| run_field(settings, RunField::Budget(field)))
        .collect_view();
    let permissions = PLAYGROUND_TOOLS
        .iter()
        .map(|(tool, _)| {
            let tool = *tool;
            let id = format!("permission-{tool}");
            view! {
                <label for=id.clone()>{tool}</label>
                <select
                    id=id.clone()
                    data-testid=id
                    prop:value=move || permission_value(settings.with(|s| s.run.permission(tool)))
                    on:change=move |ev| {
                        let permission = permission_from_value(&event_target_value(&ev));
                        settings.update(|s| {
                            s.run.permissions.insert(tool.to_string(), permission);
                        });
                    }
                >
                    <option value="allow">"allow"</option>
                    <option value="ask">"ask first"</option>
                    <option value="deny">"deny"</option>
                </select>
            }
        })
        .collect_view();
    view! {
        <details class="run-settings">
            <summary>"Budgets, prices, tools, loop guard and prompt"</summary>
            <div class="settings-grid">
                {budgets}
                <PriceSettings settings/>
                <LabelledInput
                    id="system-prompt"
                    label="System prompt"
                    kind=InputKind::Prose
                    placeholder="The default prompt"
                    value=Signal::derive(move || settings.with(|s| s.run.system.clone()))
                    on_input=Callback::new(move |text| settings.update(|s| s.run.system = text))
                />
                <span class="group-label" id="permissions-label">"Tool permissions"</span>
                <span class="hint">"Ask first: each call waits for your approval."</span>
                {permissions}
                <GuardSettingsForm settings/>
                <LabelledCheckbox
                    id="forget-key"
                    label="Forget the key"
                    hint="once the session has started (a reload then asks again)"
                    checked=Signal::derive(move || settings.with(|s| s.run.forget_key))
                    on_change=Callback::new(move |checked: bool| {
                        settings.update(|s| s.run.forget_key = checked);
                    })
                />
            </div>
        </details>
    }
}
