//! The local provider's model chooser: the bundled model, the recommended ones, and what the
//! user stored, each with its size and whether it is stored; a custom URL; a picked `.gguf`
//! file. The choice is remembered and used by new sessions (the page then loads it in place of
//! the model loaded before, which is unloaded).

use leptos::prelude::*;

use super::labelled_input::{InputKind, LabelledInput};
use super::model_list_state::{ModelList, FILE_JOB};
use super::model_row::{job_fraction, job_text, ModelRowView};
use super::transfer::take_picked;
use crate::view::{check_model_url, DownloadProgress};

/// The chooser (`data-testid="model-list"` holds the rows). Hooks: `model-url`,
/// `model-url-add`, `model-url-error`, `model-file`, `model-file-progress`,
/// `model-file-cancel`, `model-file-error`, `model-notice`.
#[component]
pub fn ModelChooser(
    /// The settings whose model is chosen here.
    settings: RwSignal<crate::view::Settings>,
    /// The page's model progress: a finished download by a run changes what is stored.
    #[prop(into)]
    progress: Signal<Option<DownloadProgress>>,
) -> impl IntoView {
    let list = ModelList::new(settings);
    list.refresh();
    // A run that downloaded its model stored it: show that once the model starts.
    Effect::new(move |was_init: Option<bool>| {
        let init = progress.with(|p| p.as_ref().is_some_and(|p| p.phase == "init"));
        if init && was_init == Some(false) {
            list.refresh();
        }
        init
    });
    let rows = Memo::new(move |_| list.rows());
    let typed = RwSignal::new(String::new());
    let add = move || match check_model_url(&typed.get_untracked()) {
        Ok(url) => list.add_url(url),
        Err(e) => list.url_error.set(Some(e.to_string())),
    };
    let file_job = Memo::new(move |_| list.jobs.with(|j| j.get(FILE_JOB).copied()));
    view! {
        <div class="model-chooser">
            <ul class="model-list" data-testid="model-list" aria-label="Models">
                <For
                    each=move || rows.get()
                    key=|row| (row.url.clone(), row.stored, row.stored_bytes)
                    children=move |row| view! { <ModelRowView list row/> }
                />
            </ul>
            <div class="model-add">
                <LabelledInput
                    id="model-url"
                    label="Model URL"
                    kind=InputKind::Url
                    placeholder="https://…/model.gguf"
                    value=typed
                    on_input=Callback::new(move |text| typed.set(text))
                    on_enter=Callback::new(move |()| add())
                />
                <button class="small" data-testid="model-url-add" on:click=move |_| add()>
                    "Download and use"
                </button>
            </div>
            {move || {
                list.url_error
                    .get()
                    .map(|e| {
                        view! {
                            <span class="field-error" role="alert" data-testid="model-url-error">
                                {e}
                            </span>
                        }
                    })
            }}
            <div class="model-add">
                <label for="model-file">"Or a file"</label>
                <input
                    id="model-file"
                    data-testid="model-file"
                    type="file"
                    accept=".gguf"
                    on:change=move |ev| {
                        take_picked(&ev, |files| {
                            if let Some(file) = files.get(0) {
                                list.pick_file(file);
                            }
                        })
                    }
                />
            </div>
            {move || {
                file_job
                    .get()
                    .map(|bytes| {
                        view! {
                            <div class="model-file-job" data-testid="model-file-progress">
                                <progress max="1" value=job_fraction(bytes)></progress>
                                <span class="model-bytes">{format!("Storing: {}", job_text(bytes))}</span>
                                <button
                                    class="small"
                                    data-testid="model-file-cancel"
                                    on:click=move |_| list.cancel(FILE_JOB)
                                >
                                    "Cancel"
                                </button>
                            </div>
                        }
                    })
            }}
            {move || {
                list.file_error
                    .get()
                    .map(|e| {
                        view! {
                            <span class="field-error" role="alert" data-testid="model-file-error">
                                {e}
                            </span>
                        }
                    })
            }}
            {move || {
                list.notice
                    .get()
                    .map(|n| view! { <p class="hint" data-testid="model-notice">{n}</p> })
            }}
        </div>
    }
}
