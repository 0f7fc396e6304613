//! [`ModelLibrary`]: browser storage of model files as the model list needs it (list what is
//! stored, download a model into storage, store a picked file, remove a model, read the
//! storage's figures), the data it answers with, and its typed [`LibraryError`]. The
//! composition root implements it; dropping a returned future aborts the work.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde::Deserialize;

/// Why a library operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LibraryError {
    /// The operation was aborted (its future dropped, or the person stopped it).
    #[error("stopped")]
    Stopped,
    /// Anything else, in the browser's or the model files module's words.
    #[error("{0}")]
    Failed(String),
}

/// Where a stored model is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreKind {
    /// The Cache API.
    Cache,
    /// The origin private file system.
    Opfs,
    /// A picked file storage refused, used from the file until the page closes.
    Memory,
}

/// What browser storage holds of one model, as the model files module reports it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct StoredModel {
    /// The model's URL (`""` for the bundled model).
    pub url: String,
    /// Where it is kept; `None` when it is not.
    pub store: Option<StoreKind>,
    /// Its size when kept.
    pub bytes: Option<u64>,
}

/// A picked file once stored.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PickedModel {
    /// The key to load it by (the settings' model URL).
    pub url: String,
    /// The file's name.
    pub name: String,
    /// Where it is kept.
    pub store: Option<StoreKind>,
    /// Its size.
    pub bytes: Option<u64>,
    /// Why it is only used from the file until the page closes, when it is.
    pub note: Option<String>,
}

/// The browser storage this site uses (`navigator.storage.estimate()` and `persisted()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageUse {
    /// Bytes used by this site (models, sessions, the kept site).
    pub usage: u64,
    /// Bytes the browser lets it use.
    pub quota: u64,
    /// Whether the browser keeps it under storage pressure (`None`: it cannot say).
    pub persisted: Option<bool>,
}

/// Bytes done so far, and all bytes when known.
pub type ByteProgressFn = Rc<dyn Fn(u64, Option<u64>)>;

/// Browser storage of model files.
pub trait ModelLibrary {
    /// A file the person picked (the browser's `File`).
    type File;
    /// Every stored model (the bundled one as `""`).
    fn stored(&self) -> LocalBoxFuture<'static, Result<Vec<StoredModel>, LibraryError>>;
    /// Downloads the model at `url` into storage; the error says why it failed
    /// ([`LibraryError::Stopped`] when aborted). Nothing is kept on failure.
    fn download(
        &self,
        url: String,
        on_progress: ByteProgressFn,
    ) -> LocalBoxFuture<'static, Result<StoredModel, LibraryError>>;
    /// Checks that a picked file is GGUF and stores it.
    fn store_file(
        &self,
        file: Self::File,
        on_progress: ByteProgressFn,
    ) -> LocalBoxFuture<'static, Result<PickedModel, LibraryError>>;
    /// Removes the model at `url` from storage.
    fn remove(&self, url: String) -> LocalBoxFuture<'static, Result<(), LibraryError>>;
    /// How much browser storage the site uses, of what it may, and whether it is kept.
    fn storage_use(&self) -> LocalBoxFuture<'static, Result<StorageUse, LibraryError>>;
    /// Asks the browser to keep the site's storage (persistent storage), then reads it again.
    fn keep_storage(&self) -> LocalBoxFuture<'static, Result<StorageUse, LibraryError>>;
}
