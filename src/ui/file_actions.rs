//! What the file browser's controls do: list a volume, open a file, download it, upload files
//! and delete, each through the session service (the tools' own volumes and path checks).

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::state::AppState;
use super::transfer::download;
use super::ui_error::UiError;
use crate::ports::Volume;
use crate::view::{download_name, file_tree, upload_path, TreeRow};

/// The browser's reactive state.
#[derive(Debug, Clone, Copy)]
pub struct FilesState {
    /// The volume shown: the session on screen's, or the shared one.
    pub shared: RwSignal<bool>,
    /// The tree of the volume shown.
    pub rows: RwSignal<Vec<TreeRow>>,
    /// The file or directory picked, with a file's text once read.
    pub picked: RwSignal<Option<(TreeRow, Option<String>)>>,
    /// The last failure, shown beside the browser.
    pub error: RwSignal<Option<String>>,
    /// A delete waits for its confirmation.
    pub confirming: RwSignal<bool>,
    /// `rows` is the listing of the volume shown (not a stale or missing one).
    pub listed: RwSignal<bool>,
}

impl FilesState {
    /// Nothing listed yet.
    pub fn new() -> Self {
        Self {
            shared: RwSignal::new(false),
            rows: RwSignal::new(Vec::new()),
            picked: RwSignal::new(None),
            error: RwSignal::new(None),
            confirming: RwSignal::new(false),
            listed: RwSignal::new(false),
        }
    }

    /// The volume shown, `None` on the session volume before the session has an id.
    pub fn volume(&self, app: AppState) -> Option<Volume> {
        if self.shared.get_untracked() {
            return Some(Volume::Shared);
        }
        app.shown.id.get_untracked().map(Volume::Session)
    }
}

impl Default for FilesState {
    fn default() -> Self {
        Self::new()
    }
}

/// Lists the volume shown again (keeping the pick if it still exists, and the last error: a
/// failed upload is still reported after the list is read again).
pub fn refresh(app: AppState, files: FilesState) {
    let Some(volume) = files.volume(app) else {
        files.rows.set(Vec::new());
        files.picked.set(None);
        files.listed.set(true);
        return;
    };
    spawn_local(async move {
        let listed = match app.service() {
            Ok(service) => service.list_files(&volume).await.map_err(UiError::from),
            Err(e) => Err(e),
        };
        match listed {
            Ok(entries) => {
                let rows = file_tree(&entries);
                let kept = files
                    .picked
                    .get_untracked()
                    .filter(|(row, _)| rows.iter().any(|r| r.path == row.path));
                if kept.is_none() {
                    files.picked.set(None);
                }
                files.rows.set(rows);
                files.listed.set(true);
            }
            Err(e) => files
                .error
                .set(Some(format!("Could not list the files: {e}"))),
        }
    });
}

/// Picks a row; a file is read for the viewer.
pub fn pick(app: AppState, files: FilesState, row: TreeRow) {
    files.confirming.set(false);
    files.error.set(None);
    if row.is_dir() {
        files.picked.set(Some((row, None)));
        return;
    }
    let Some(volume) = files.volume(app) else {
        return;
    };
    files.picked.set(Some((row.clone(), None)));
    spawn_local(async move {
        match read(app, &volume, &row.path).await {
            Ok(text) => files.picked.update(|picked| {
                if let Some((shown, content)) = picked {
                    if shown.path == row.path {
                        *content = Some(text);
                    }
                }
            }),
            Err(e) => files
                .error
                .set(Some(format!("Could not open {}: {e}", row.path))),
        }
    });
}

async fn read(app: AppState, volume: &Volume, path: &str) -> Result<String, UiError> {
    Ok(app.service()?.read_file(volume, path).await?)
}

/// Downloads the picked file under its own name.
pub fn download_picked(app: AppState, files: FilesState) {
    let (Some((row, _)), Some(volume)) = (files.picked.get_untracked(), files.volume(app)) else {
        return;
    };
    spawn_local(async move {
        let saved = match read(app, &volume, &row.path).await {
            Ok(text) => download(&download_name(&row.path), &text, "text/plain").await,
            Err(e) => Err(e),
        };
        if let Err(e) = saved {
            files.error.set(Some(format!("Download failed: {e}")));
        }
    });
}

/// Deletes the picked file (or directory, with everything in it).
pub fn delete_picked(app: AppState, files: FilesState) {
    files.confirming.set(false);
    files.error.set(None);
    let (Some((row, _)), Some(volume)) = (files.picked.get_untracked(), files.volume(app)) else {
        return;
    };
    spawn_local(async move {
        let deleted = match app.service() {
            Ok(service) => service
                .delete_file(&volume, &row.path)
                .await
                .map_err(UiError::from),
            Err(e) => Err(e),
        };
        match deleted {
            Ok(_) => {
                files.picked.set(None);
                refresh(app, files);
            }
            Err(e) => files
                .error
                .set(Some(format!("Could not delete {}: {e}", row.path))),
        }
    });
}

/// Stores the chosen files (as text) in the picked directory, or the root.
pub fn upload(app: AppState, files: FilesState, chosen: web_sys::FileList) {
    files.error.set(None);
    let Some(volume) = files.volume(app) else {
        files.error.set(Some(
            "Start a task first: the session's volume exists once the session does.".to_string(),
        ));
        return;
    };
    let dir = files
        .picked
        .get_untracked()
        .map(|(row, _)| {
            if row.is_dir() {
                row.path
            } else {
                row.path
                    .rsplit_once('/')
                    .map(|(dir, _)| dir.to_string())
                    .unwrap_or_default()
            }
        })
        .unwrap_or_default();
    let list: Vec<web_sys::File> = (0..chosen.length()).filter_map(|i| chosen.get(i)).collect();
    spawn_local(async move {
        for file in list {
            let path = upload_path(&dir, &file.name());
            if let Err(e) = upload_one(app, &volume, &path, &file).await {
                files
                    .error
                    .set(Some(format!("Upload of {path} failed: {e}")));
                break;
            }
        }
        refresh(app, files);
    });
}

async fn upload_one(
    app: AppState,
    volume: &Volume,
    path: &str,
    file: &web_sys::File,
) -> Result<(), UiError> {
    let bytes = JsFuture::from(file.array_buffer()).await.map_err(|e| {
        UiError::Browser(e.dyn_ref::<js_sys::Error>().map_or_else(
            || "the file could not be read".to_string(),
            |e| e.message().into(),
        ))
    })?;
    let text = text_of_upload(js_sys::Uint8Array::new(&bytes).to_vec())?;
    Ok(app.service()?.write_file(volume, path, &text).await?)
}

/// The volumes hold text: a file that is not UTF-8 is refused instead of being stored with its
/// bytes replaced.
fn text_of_upload(bytes: Vec<u8>) -> Result<String, UiError> {
    String::from_utf8(bytes).map_err(|_| UiError::NotText)
}
