//! The file browser: the session's or the shared volume as a tree, the picked file's text,
//! and download, upload and delete (after a confirmation). File text is shown as text only.

use leptos::prelude::*;

use super::file_actions::{delete_picked, download_picked, pick, refresh, upload, FilesState};
use super::fold_panel::FoldPanel;
use super::state::AppState;
use super::transfer::take_picked;
use crate::view::{format_bytes, plural, TreeRow};

/// A folded panel. Hooks: `files` (the panel), `files-volume` (select: `session`/`shared`),
/// `files-refresh`, `file-tree` with rows `file-item` (`data-path`, `data-kind`),
/// `file-view`, `file-download`, `file-delete` then `file-confirm-delete` / `file-keep`,
/// `file-upload`, `files-error`.
#[component]
pub fn FileBrowser(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let files = FilesState::new();
    let open = RwSignal::new(false);
    // Listed again when unfolded, when the volume or the session changes, and as the session's
    // log grows (its tools may have written).
    Effect::new(move |_| {
        let _ = (app.shown.id.get(), files.shared.get());
        app.shown.summary.with(|s| s.records);
        if open.get() {
            refresh(app, files);
        }
    });
    let on_upload =
        move |ev: leptos::ev::Event| take_picked(&ev, |chosen| upload(app, files, chosen));
    let tree = move || {
        files
            .rows
            .get()
            .into_iter()
            .map(|row| tree_row(app, files, row))
            .collect_view()
    };
    // A count only for a listing of the volume shown; a folded panel has not read it.
    let count = move || {
        if !(open.get() && files.listed.get()) {
            return "this session's files and the shared ones".to_string();
        }
        let n = files
            .rows
            .with(|rows| rows.iter().filter(|r| !r.is_dir()).count());
        plural(n as u64, "file", "files")
    };
    view! {
        <FoldPanel class="files" testid="files" title="Files" summary=count unfolded=open>
            <div class="files-bar">
                <label for="files-volume">"Volume"</label>
                <select
                    id="files-volume"
                    data-testid="files-volume"
                    on:change=move |ev| {
                        files.picked.set(None);
                        files.error.set(None);
                        files.listed.set(false);
                        files.shared.set(event_target_value(&ev) == "shared");
                    }
                >
                    <option value="session">"This session"</option>
                    <option value="shared">"Shared by all sessions"</option>
                </select>
                <button
                    class="small"
                    data-testid="files-refresh"
                    on:click=move |_| {
                        files.error.set(None);
                        refresh(app, files);
                    }
                >
                    "Refresh"
                </button>
                <label class="button small" title="Upload text files into the picked folder">
                    "Upload…"
                    <input
                        type="file"
                        multiple
                        class="visually-hidden"
                        data-testid="file-upload"
                        on:change=on_upload
                    />
                </label>
            </div>
            {move || files.error.get().map(|e| view! {
                <p class="field-error" role="alert" data-testid="files-error">{e}</p>
            })}
            <div class="files-body">
                <ul class="file-tree" data-testid="file-tree" aria-label="Files of the volume">
                    {tree}
                </ul>
                <Show when=move || files.rows.with(Vec::is_empty)>
                    <p class="empty">
                        {move || if files.volume(app).is_some() {
                            "No files in this volume yet."
                        } else {
                            "This session has no files yet: start a task first."
                        }}
                    </p>
                </Show>
                {move || files.picked.get().map(|(row, content)| picked_view(app, files, row, content))}
            </div>
        </FoldPanel>
    }
}

fn tree_row(app: AppState, files: FilesState, row: TreeRow) -> impl IntoView {
    let path = row.path.clone();
    let picked = Signal::derive(move || {
        files
            .picked
            .with(|p| p.as_ref().is_some_and(|(r, _)| r.path == path))
    });
    let kind = if row.is_dir() { "dir" } else { "file" };
    let label = match row.size {
        Some(size) => format!("{} ({})", row.name, format_bytes(size)),
        None => format!("{}/", row.name),
    };
    let indent = format!("padding-inline-start: {}rem", 0.5 + row.depth as f64 * 1.1);
    let path = row.path.clone();
    view! {
        <li>
            <button
                class="file-item"
                class:picked=picked
                class:dir=row.is_dir()
                data-testid="file-item"
                data-kind=kind
                data-path=path
                style=indent
                aria-pressed=move || if picked.get() { "true" } else { "false" }
                on:click=move |_| pick(app, files, row.clone())
            >
                {label}
            </button>
        </li>
    }
}

fn picked_view(
    app: AppState,
    files: FilesState,
    row: TreeRow,
    content: Option<String>,
) -> impl IntoView {
    let what = if row.is_dir() { "folder" } else { "file" };
    let body = match (row.is_dir(), content) {
        (true, _) => view! {
            <p class="hint">"Uploads go into this folder. Delete removes everything in it."</p>
        }
        .into_any(),
        (false, Some(text)) => view! {
            <pre class="file-view" data-testid="file-view" tabindex="0" aria-label="File content">{text}</pre>
        }
        .into_any(),
        (false, None) => view! { <p class="hint">"Reading…"</p> }.into_any(),
    };
    view! {
        <section class="file-picked" aria-label=format!("Picked {what}")>
            <div class="file-picked-head">
                <code class="file-path">{row.path.clone()}</code>
                <Show when=move || !row.is_dir()>
                    <button class="small" data-testid="file-download" on:click=move |_| download_picked(app, files)>
                        "Download"
                    </button>
                </Show>
                <Show
                    when=move || files.confirming.get()
                    fallback=move || view! {
                        <button class="small danger-hover" data-testid="file-delete" on:click=move |_| files.confirming.set(true)>
                            "Delete"
                        </button>
                    }
                >
                    <span class="confirm-delete" role="group" aria-label=format!("Delete this {what}?")>
                        <button class="small danger" data-testid="file-confirm-delete" on:click=move |_| delete_picked(app, files)>
                            "Delete"
                        </button>
                        <button class="small" data-testid="file-keep" on:click=move |_| files.confirming.set(false)>
                            "Keep"
                        </button>
                    </span>
                </Show>
            </div>
            {body}
        </section>
    }
}
