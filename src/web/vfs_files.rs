//! [`Files`] over the tools' virtual filesystem (`www/tools/vfs.js`, reached through
//! `www/vfs_bridge.js`): the same database, volumes and path checks as the `vfs` tool.

use serde::Deserialize;

use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js_error::JsFailure;
use crate::ports::{FileEntry, Files, FilesError, Volume};

#[wasm_bindgen(module = "/www/vfs_bridge.js")]
extern "C" {
    #[wasm_bindgen(js_name = vfsFiles, catch)]
    fn vfs_files(volume: &str, session: &str) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = vfsContent, catch)]
    fn vfs_content(volume: &str, session: &str, path: &str) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = vfsWrite, catch)]
    fn vfs_write(
        volume: &str,
        session: &str,
        path: &str,
        content: &str,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = vfsDelete, catch)]
    fn vfs_delete(volume: &str, session: &str, path: &str) -> Result<js_sys::Promise, JsValue>;
}

/// The tools' file volumes, as the playground browses them.
#[derive(Debug, Clone, Copy, Default)]
pub struct VfsFiles;

/// What the bridge answers.
#[derive(Deserialize)]
struct Answer {
    ok: bool,
    #[serde(default)]
    value: Value,
    #[serde(default)]
    code: String,
    #[serde(default)]
    error: String,
}

/// A file as the bridge lists it.
#[derive(Deserialize)]
struct Listed {
    path: String,
    size: u64,
    mtime: u64,
}

/// The bridge's volume name and session id for `volume`.
fn volume_args(volume: &Volume) -> (&'static str, &str) {
    match volume {
        Volume::Session(session) => ("session", session.as_str()),
        Volume::Shared => ("shared", ""),
    }
}

/// Awaits a bridge call and reads its answer.
async fn call(promise: Result<js_sys::Promise, JsValue>) -> Result<Value, FilesError> {
    let unavailable = |e: JsValue| FilesError::Unavailable(JsFailure::from_js(&e).to_string());
    let answer = JsFuture::from(promise.map_err(unavailable)?)
        .await
        .map_err(unavailable)?;
    let answer: Answer = super::js_value::from_js(&answer)
        .map_err(|e| FilesError::Unavailable(format!("unreadable answer: {e}")))?;
    if answer.ok {
        return Ok(answer.value);
    }
    Err(match answer.code.as_str() {
        "not_found" => FilesError::NotFound(answer.error),
        "quota_exceeded" | "browser_quota_exceeded" => FilesError::Full(answer.error),
        "bad_path" | "bad_args" | "bad_context" | "is_dir" | "is_file" | "exists" | "too_large" => {
            FilesError::Refused(answer.error)
        }
        _ => FilesError::Unavailable(answer.error),
    })
}

impl Files for VfsFiles {
    async fn list(&self, volume: &Volume) -> Result<Vec<FileEntry>, FilesError> {
        let (kind, session) = volume_args(volume);
        let value = call(vfs_files(kind, session)).await?;
        let listed = <Vec<Listed> as Deserialize>::deserialize(&value)
            .map_err(|e| FilesError::Unavailable(format!("unreadable file list: {e}")))?;
        Ok(listed
            .into_iter()
            .map(|f| FileEntry {
                path: f.path,
                size: f.size,
                modified_at: f.mtime,
            })
            .collect())
    }

    async fn read(&self, volume: &Volume, path: &str) -> Result<String, FilesError> {
        let (kind, session) = volume_args(volume);
        let value = call(vfs_content(kind, session, path)).await?;
        value.as_str().map(str::to_string).ok_or_else(|| {
            FilesError::Unavailable(format!("a file's content is not text: {}", value))
        })
    }

    async fn write(&self, volume: &Volume, path: &str, content: &str) -> Result<(), FilesError> {
        let (kind, session) = volume_args(volume);
        call(vfs_write(kind, session, path, content))
            .await
            .map(drop)
    }

    async fn delete(&self, volume: &Volume, path: &str) -> Result<u64, FilesError> {
        let (kind, session) = volume_args(volume);
        let value = call(vfs_delete(kind, session, path)).await?;
        Ok(value.get("files").and_then(Value::as_u64).unwrap_or(0))
    }
}
