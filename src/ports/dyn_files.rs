//! [`Files`] behind a pointer, so the session service (and the playground holding it) can hand
//! out the file volumes without naming the browser adapter.

use futures::future::LocalBoxFuture;

use super::{FileEntry, Files, FilesError, Volume};

/// A [`Files`] behind a pointer.
pub trait DynFiles {
    /// See [`Files::list`].
    fn list<'a>(
        &'a self,
        volume: &'a Volume,
    ) -> LocalBoxFuture<'a, Result<Vec<FileEntry>, FilesError>>;
    /// See [`Files::read`].
    fn read<'a>(
        &'a self,
        volume: &'a Volume,
        path: &'a str,
    ) -> LocalBoxFuture<'a, Result<String, FilesError>>;
    /// See [`Files::write`].
    fn write<'a>(
        &'a self,
        volume: &'a Volume,
        path: &'a str,
        content: &'a str,
    ) -> LocalBoxFuture<'a, Result<(), FilesError>>;
    /// See [`Files::delete`].
    fn delete<'a>(
        &'a self,
        volume: &'a Volume,
        path: &'a str,
    ) -> LocalBoxFuture<'a, Result<u64, FilesError>>;
}

impl<F: Files> DynFiles for F {
    fn list<'a>(
        &'a self,
        volume: &'a Volume,
    ) -> LocalBoxFuture<'a, Result<Vec<FileEntry>, FilesError>> {
        Box::pin(Files::list(self, volume))
    }
    fn read<'a>(
        &'a self,
        volume: &'a Volume,
        path: &'a str,
    ) -> LocalBoxFuture<'a, Result<String, FilesError>> {
        Box::pin(Files::read(self, volume, path))
    }
    fn write<'a>(
        &'a self,
        volume: &'a Volume,
        path: &'a str,
        content: &'a str,
    ) -> LocalBoxFuture<'a, Result<(), FilesError>> {
        Box::pin(Files::write(self, volume, path, content))
    }
    fn delete<'a>(
        &'a self,
        volume: &'a Volume,
        path: &'a str,
    ) -> LocalBoxFuture<'a, Result<u64, FilesError>> {
        Box::pin(Files::delete(self, volume, path))
    }
}
