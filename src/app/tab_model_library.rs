//! [`TabModelLibrary`]: the model list's storage, the browser's, through `web::model_library`.

use futures::future::{FutureExt, LocalBoxFuture};

use crate::ports::{
    ByteProgressFn, LibraryError, ModelLibrary, PickedModel, StorageUse, StoredModel,
};
use crate::web::model_library;

/// The model list's storage: the browser's, through `web::model_library`.
pub struct TabModelLibrary;

impl ModelLibrary for TabModelLibrary {
    type File = web_sys::File;

    fn stored(&self) -> LocalBoxFuture<'static, Result<Vec<StoredModel>, LibraryError>> {
        model_library::stored_models().boxed_local()
    }

    fn download(
        &self,
        url: String,
        on_progress: ByteProgressFn,
    ) -> LocalBoxFuture<'static, Result<StoredModel, LibraryError>> {
        async move {
            model_library::download_model(&url, move |p| on_progress(p.loaded, p.total)).await
        }
        .boxed_local()
    }

    fn store_file(
        &self,
        file: web_sys::File,
        on_progress: ByteProgressFn,
    ) -> LocalBoxFuture<'static, Result<PickedModel, LibraryError>> {
        async move {
            model_library::store_model_file(&file, move |p| on_progress(p.loaded, p.total)).await
        }
        .boxed_local()
    }

    fn remove(&self, url: String) -> LocalBoxFuture<'static, Result<(), LibraryError>> {
        async move { model_library::remove_model(&url).await }.boxed_local()
    }

    fn storage_use(&self) -> LocalBoxFuture<'static, Result<StorageUse, LibraryError>> {
        model_library::storage_use(model_library::KeepStorage::Read).boxed_local()
    }

    fn keep_storage(&self) -> LocalBoxFuture<'static, Result<StorageUse, LibraryError>> {
        model_library::storage_use(model_library::KeepStorage::Ask).boxed_local()
    }
}
