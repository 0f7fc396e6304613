//! The models kept in the browser, for the playground's model list: what is stored, a download
//! into storage, a picked file stored, a model removed, the storage's figures. Reached through
//! `www/model_library_bridge.js`; dropping a download's or a store's future aborts it.

use serde::Deserialize;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use crate::ports::{LibraryError, PickedModel, StorageUse, StoredModel};
use crate::web::abort::AbortOnDrop;
use crate::web::js_error::JsFailure;

#[wasm_bindgen(module = "/www/model_library_bridge.js")]
extern "C" {
    /// `libraryStored()`: every stored model (the bundled one as `""`).
    #[wasm_bindgen(catch, js_name = libraryStored)]
    fn library_stored() -> Result<js_sys::Promise, JsValue>;

    /// `libraryDownload(url, onProgress, signal)`: downloads a model into storage.
    #[wasm_bindgen(catch, js_name = libraryDownload)]
    fn library_download(
        url: &str,
        on_progress: &js_sys::Function,
        signal: &AbortSignal,
    ) -> Result<js_sys::Promise, JsValue>;

    /// `libraryStoreFile(file, onProgress, signal)`: checks and stores a picked GGUF file.
    #[wasm_bindgen(catch, js_name = libraryStoreFile)]
    fn library_store_file(
        file: &web_sys::File,
        on_progress: &js_sys::Function,
        signal: &AbortSignal,
    ) -> Result<js_sys::Promise, JsValue>;

    /// `libraryRemove(url)`: removes a model from storage.
    #[wasm_bindgen(catch, js_name = libraryRemove)]
    fn library_remove(url: &str) -> Result<js_sys::Promise, JsValue>;

    /// `libraryStorage(persist)`: `{ usage, quota, persisted }` of the site's storage.
    #[wasm_bindgen(catch, js_name = libraryStorage)]
    fn library_storage(persist: bool) -> Result<js_sys::Promise, JsValue>;
}

/// Bytes done of a download or a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct ByteProgress {
    /// Bytes so far.
    pub loaded: u64,
    /// All bytes, when known.
    pub total: Option<u64>,
}

/// Why an operation failed: `Stopped` for an abort, else the browser's words.
fn failure(error: &JsValue) -> LibraryError {
    let failure = JsFailure::from_js(error);
    if failure.is_abort() {
        LibraryError::Stopped
    } else {
        LibraryError::Failed(failure.message)
    }
}

async fn settle<T: serde::de::DeserializeOwned>(
    promise: Result<js_sys::Promise, JsValue>,
) -> Result<T, LibraryError> {
    let value = JsFuture::from(promise.map_err(|e| failure(&e))?)
        .await
        .map_err(|e| failure(&e))?;
    super::js_value::from_js(&value).map_err(|e| {
        LibraryError::Failed(format!(
            "unexpected answer from the model files module: {e}"
        ))
    })
}

fn progress_callback(
    mut on_progress: impl FnMut(ByteProgress) + 'static,
) -> Closure<dyn FnMut(JsValue)> {
    Closure::new(move |value: JsValue| {
        // A malformed report is only progress: skip it.
        if let Ok(report) = super::js_value::from_js::<ByteProgress>(&value) {
            on_progress(report);
        }
    })
}

/// Every model in browser storage.
pub async fn stored_models() -> Result<Vec<StoredModel>, LibraryError> {
    settle(library_stored()).await
}

/// Downloads the model at `url` (`""`: the bundled one) into browser storage. Fails with a
/// reason for a 404, a file that is not GGUF, a cut download or a full disk; nothing is kept
/// then, nor when the future is dropped (which aborts it).
pub async fn download_model(
    url: &str,
    on_progress: impl FnMut(ByteProgress) + 'static,
) -> Result<StoredModel, LibraryError> {
    with_progress(on_progress, |progress, signal| {
        library_download(url, progress, signal)
    })
    .await
}

/// Checks that `file` is a GGUF model and stores it; dropping the future aborts.
pub async fn store_model_file(
    file: &web_sys::File,
    on_progress: impl FnMut(ByteProgress) + 'static,
) -> Result<PickedModel, LibraryError> {
    with_progress(on_progress, |progress, signal| {
        library_store_file(file, progress, signal)
    })
    .await
}

/// A library call that reports its progress and can be aborted: `start` gets the progress
/// function and the abort signal. Dropping the future aborts the call.
async fn with_progress<T: serde::de::DeserializeOwned>(
    on_progress: impl FnMut(ByteProgress) + 'static,
    start: impl FnOnce(&js_sys::Function, &AbortSignal) -> Result<js_sys::Promise, JsValue>,
) -> Result<T, LibraryError> {
    let callback = progress_callback(on_progress);
    let abort = AbortOnDrop::new().map_err(|e| LibraryError::Failed(e.message))?;
    let result = settle(start(callback.as_ref().unchecked_ref(), &abort.signal())).await;
    drop(abort);
    drop(callback);
    result
}

/// Removes the model at `url` (`""`: the bundled one) from browser storage.
pub async fn remove_model(url: &str) -> Result<(), LibraryError> {
    settle::<u32>(library_remove(url)).await.map(|_| ())
}

/// How much storage the site uses and whether the browser keeps it; with
/// [`KeepStorage::Ask`], persistent storage is requested first.
pub async fn storage_use(keep: KeepStorage) -> Result<StorageUse, LibraryError> {
    let promise = library_storage(keep == KeepStorage::Ask).map_err(|e| failure(&e))?;
    let value = JsFuture::from(promise).await.map_err(|e| failure(&e))?;
    let field = |name: &str| js_sys::Reflect::get(&value, &name.into()).unwrap_or_default();
    let bytes = |name: &str| field(name).as_f64().filter(|n| *n >= 0.0).unwrap_or(0.0) as u64;
    Ok(StorageUse {
        usage: bytes("usage"),
        quota: bytes("quota"),
        persisted: field("persisted").as_bool(),
    })
}

/// Whether [`storage_use`] asks for persistent storage first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepStorage {
    /// Only read the figures.
    Read,
    /// Ask the browser to keep the storage, then read.
    Ask,
}
