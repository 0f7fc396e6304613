//! What the model list needs from the browser's model storage, as a trait the composition root
//! implements (the UI never builds adapters): list what is stored, download a model into
//! storage, store a picked file, remove a model, read the storage's figures. Dropping a
//! returned future aborts the work.
//! Also where the chosen model is remembered between visits (`localStorage`).

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use leptos::prelude::*;

use crate::view::{PickedModel, StorageUse, StoredModel};

/// Bytes done so far, and all bytes when known.
pub type ByteProgressFn = Rc<dyn Fn(u64, Option<u64>)>;

/// Browser storage of model files.
pub trait ModelLibrary {
    /// Every stored model (the bundled one as `""`).
    fn stored(&self) -> LocalBoxFuture<'static, Result<Vec<StoredModel>, String>>;
    /// Downloads the model at `url` into storage; the error says why it failed (`"stopped"`
    /// when aborted). Nothing is kept on failure.
    fn download(
        &self,
        url: String,
        on_progress: ByteProgressFn,
    ) -> LocalBoxFuture<'static, Result<StoredModel, String>>;
    /// Checks that a picked file is GGUF and stores it.
    fn store_file(
        &self,
        file: web_sys::File,
        on_progress: ByteProgressFn,
    ) -> LocalBoxFuture<'static, Result<PickedModel, String>>;
    /// Removes the model at `url` from storage.
    fn remove(&self, url: String) -> LocalBoxFuture<'static, Result<(), String>>;
    /// How much browser storage the site uses, of what it may, and whether it is kept.
    fn storage_use(&self) -> LocalBoxFuture<'static, Result<StorageUse, String>>;
    /// Asks the browser to keep the site's storage (persistent storage), then reads it again.
    fn keep_storage(&self) -> LocalBoxFuture<'static, Result<StorageUse, String>>;
}

/// The library the composition root provides (stored locally: it is not `Send`).
pub type LibraryContext = StoredValue<Rc<dyn ModelLibrary>, LocalStorage>;

/// Where the chosen model's URL is kept in `localStorage` (empty: the bundled model).
const CHOICE_KEY: &str = "tabloop.local-model";

/// The model chosen on an earlier visit (`""` for the bundled one, or when storage is off).
pub fn stored_model_choice() -> String {
    window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|storage| storage.get_item(CHOICE_KEY).ok().flatten())
        .unwrap_or_default()
}

/// Remembers the chosen model for the next visit (best effort: storage may be off).
pub fn save_model_choice(url: &str) {
    if let Some(storage) = window().local_storage().ok().flatten() {
        let _ = if url.is_empty() {
            storage.remove_item(CHOICE_KEY)
        } else {
            storage.set_item(CHOICE_KEY, url)
        };
    }
}
