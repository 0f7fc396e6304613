//! The settings form: which model answers and the step budget. The API key stays in memory.

use leptos::prelude::*;

use super::fold_panel::FoldPanel;
use super::labelled_input::{InputKind, LabelledInput};
use super::model_chooser::ModelChooser;
use super::run_settings_form::RunSettingsForm;
use super::storage_use::StorageUseLine;
use crate::runtime::options::ProviderKind;
use crate::view::{
    model_title, parse_max_steps, provider_from_value, provider_value, DownloadProgress, Settings,
};

/// Provider kind, base URL, API key (`type="password"`, never stored), model name, max steps,
/// and for the local model the model chooser ([`ModelChooser`]). Hooks: `provider-kind`,
/// `base-url`, `api-key`, `model-name`, `max-steps`.
#[component]
pub fn SettingsPanel(
    /// The settings being edited.
    settings: RwSignal<Settings>,
    /// Whether the panel is unfolded.
    open: RwSignal<bool>,
    /// The in-tab model's progress (the chooser notices a model a run stored).
    #[prop(into)]
    progress: Signal<Option<DownloadProgress>>,
) -> impl IntoView {
    let steps_text = RwSignal::new(String::new());
    // Whether the panel is unfolded now, by the person or by the page.
    let shown = RwSignal::new(false);
    let steps_error = RwSignal::new(None::<String>);
    let on_steps = Callback::new(move |value: String| {
        match parse_max_steps(&value) {
            Ok(steps) => {
                steps_error.set(None);
                settings.update(|s| s.max_steps = steps);
            }
            Err(e) => steps_error.set(Some(e.to_string())),
        }
        steps_text.set(value);
    });
    // A view that draws itself again whenever the error changes.
    let steps_error_text = move || {
        move || {
            steps_error
                .get()
                .map(|e| view! { <span class="field-error">{e}</span> })
        }
    };
    let is_local = move || settings.with(|s| s.provider == ProviderKind::Local);
    let summary = move || {
        settings.with(|s| match s.provider {
            ProviderKind::Local => {
                format!("Local model, in this tab · {}", model_title(&s.gguf_url))
            }
            ProviderKind::Custom => "The embedding page's model".to_string(),
            ProviderKind::Openai | ProviderKind::Anthropic => {
                let name = if s.provider == ProviderKind::Openai {
                    "OpenAI-compatible"
                } else {
                    "Anthropic"
                };
                match s.model.trim() {
                    "" => format!("{name}: choose a model"),
                    model => format!("{name} · {model}"),
                }
            }
        })
    };
    // A text field of the settings: `get` reads it, `set` stores an edit.
    let text_field = move |id: &'static str,
                           label: &'static str,
                           kind: InputKind,
                           get: fn(&Settings) -> String,
                           set: fn(&mut Settings, String)| {
        view! {
            <LabelledInput
                id=id
                label=label
                kind=kind
                placeholder=(kind == InputKind::Secret).then_some("kept in memory only, never saved")
                value=Signal::derive(move || settings.with(get))
                on_input=Callback::new(move |text| settings.update(|s| set(s, text)))
            />
        }
    };
    view! {
        <FoldPanel
            class="settings"
            title="Model & budget"
            summary=summary
            open=open
            unfolded=shown
        >
            <div class="settings-grid">
                <label for="provider-kind">"Provider"</label>
                <select
                    id="provider-kind"
                    data-testid="provider-kind"
                    prop:value=move || provider_value(settings.with(|s| s.provider))
                    on:change=move |ev| {
                        let kind = provider_from_value(&event_target_value(&ev));
                        settings.update(|s| s.provider = kind);
                    }
                >
                    <option value="local">"Local (in this tab)"</option>
                    <option value="openai">"OpenAI-compatible"</option>
                    <option value="anthropic">"Anthropic"</option>
                </select>
                <Show
                    when=is_local
                    fallback=move || {
                        view! {
                            {text_field("base-url", "Base URL", InputKind::Verbatim, |s| s.base_url.clone(), |s, v| s.base_url = v)}
                            {text_field("api-key", "API key", InputKind::Secret, |s| s.api_key.clone(), |s, v| s.api_key = v)}
                            {text_field("model-name", "Model", InputKind::Verbatim, |s| s.model.clone(), |s, v| s.model = v)}
                        }
                    }
                >
                    <span class="group-label model-label">"Model"</span>
                    <ModelChooser settings progress/>
                </Show>
                <LabelledInput
                    id="max-steps"
                    label="Max steps"
                    kind=InputKind::Count
                    placeholder="25"
                    value=steps_text
                    on_input=on_steps
                    beside=steps_error_text
                />
            </div>
            <RunSettingsForm settings/>
            <p class="hint">
                {move || {
                    if is_local() {
                        "A model is downloaded once, then loaded from browser storage. The \
                         chosen model is used by new sessions."
                    } else {
                        "Settings apply to new sessions; a new key also reaches the session \
                         on screen at its next task. The key is used for requests only: it is \
                         never saved and never written to the log."
                    }
                }}
            </p>
            <StorageUseLine open=shown/>
        </FoldPanel>
    }
}
