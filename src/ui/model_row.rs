//! One model of the model list: its name, where it comes from, its size and whether it is
//! stored, and its controls (use, download, cancel, remove). Everything from the model file or
//! its URL is rendered as text.

use leptos::prelude::*;

use super::model_list_state::{JobBytes, ModelList};
use crate::view::{format_bytes, ModelRow};

/// What a job's bar says: `12.0 MiB of 138.1 MiB (9%)`.
pub fn job_text(bytes: JobBytes) -> String {
    match bytes.total.filter(|t| *t > 0) {
        Some(total) => format!(
            "{} of {} ({:.0}%)",
            format_bytes(bytes.loaded),
            format_bytes(total),
            (bytes.loaded as f64 / total as f64).clamp(0.0, 1.0) * 100.0
        ),
        None => format_bytes(bytes.loaded),
    }
}

/// Share done of a job, for a `<progress>`.
pub fn job_fraction(bytes: JobBytes) -> Option<f64> {
    bytes
        .total
        .filter(|t| *t > 0)
        .map(|t| (bytes.loaded as f64 / t as f64).clamp(0.0, 1.0))
}

/// A row (`data-testid="model-row"` with `data-url`, `data-stored`, `data-chosen`). Hooks:
/// `model-title`, `model-status`, `model-use`, `model-download`, `model-cancel`,
/// `model-progress-bar`, `model-progress-bytes`, `model-remove`, `model-error`.
#[component]
pub fn ModelRowView(
    /// The list it belongs to.
    list: ModelList,
    /// The model.
    row: ModelRow,
) -> impl IntoView {
    let url = row.url.clone();
    let chosen = {
        let url = url.clone();
        Memo::new(move |_| list.settings.with(|s| s.gguf_url == url))
    };
    let job = {
        let url = url.clone();
        Memo::new(move |_| list.jobs.with(|j| j.get(&url).copied()))
    };
    let error = {
        let url = url.clone();
        move || list.errors.with(|e| e.get(&url).cloned())
    };
    let stored = row.stored.is_some();
    let can_prefetch = row.needs_download();
    let use_row = row.clone();
    let remove_row = row.clone();
    let prefetch_url = url.clone();
    let cancel_url = url.clone();
    view! {
        <li
            class="model-row"
            class:chosen=move || chosen.get()
            data-testid="model-row"
            data-url=url.clone()
            data-stored=if stored { "true" } else { "false" }
            data-chosen=move || if chosen.get() { "true" } else { "false" }
        >
            <div class="model-info">
                <span class="model-title" data-testid="model-title">{row.title.clone()}</span>
                <span class="model-detail">{row.detail.clone()}</span>
                <span class="model-status" data-testid="model-status">{row.status_text()}</span>
            </div>
            <div class="model-actions">
                {move || match job.get() {
                    Some(bytes) => {
                        let cancel_url = cancel_url.clone();
                        let cancel = row_button("small", "model-cancel", "Cancel", move || {
                            list.cancel(&cancel_url)
                        });
                        view! {
                            <progress
                                data-testid="model-progress-bar"
                                max="1"
                                value=job_fraction(bytes)
                            ></progress>
                            <span class="model-bytes" data-testid="model-progress-bytes">
                                {job_text(bytes)}
                            </span>
                            {cancel}
                        }
                            .into_any()
                    }
                    None => {
                        let use_row = use_row.clone();
                        let remove_row = remove_row.clone();
                        let prefetch_url = prefetch_url.clone();
                        let download = can_prefetch.then(|| {
                            row_button("small", "model-download", "Download", move || {
                                list.prefetch(prefetch_url.clone())
                            })
                        });
                        let remove = stored.then(|| {
                            row_button("small danger", "model-remove", "Remove", move || {
                                list.remove(&remove_row)
                            })
                        });
                        view! {
                            <button
                                class="small"
                                class:primary=move || !chosen.get()
                                data-testid="model-use"
                                aria-pressed=move || if chosen.get() { "true" } else { "false" }
                                disabled=move || chosen.get()
                                on:click=move |_| list.choose(&use_row)
                            >
                                {move || if chosen.get() { "In use" } else { "Use" }}
                            </button>
                            {download}
                            {remove}
                        }
                            .into_any()
                    }
                }}
            </div>
            {move || {
                error()
                    .map(|e| {
                        view! {
                            <span class="field-error" role="alert" data-testid="model-error">
                                {e}
                            </span>
                        }
                    })
            }}
        </li>
    }
}

/// One of a row's plain buttons (Download, Cancel, Remove): `act` on a click.
fn row_button(
    class: &'static str,
    testid: &'static str,
    label: &'static str,
    act: impl Fn() + 'static,
) -> impl IntoView {
    view! {
        <button class=class data-testid=testid on:click=move |_| act()>
            {label}
        </button>
    }
}
