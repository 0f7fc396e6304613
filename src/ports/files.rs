//! The file volumes the tools read and write, as a person browses them: every file of a
//! volume, one file's text, a write and a delete. The browser adapter keeps them in the
//! tools' own store and checks every path with the tools' own rules, so a path that the `vfs`
//! tool would refuse (`..`, control characters, ...) is refused here too and nothing escapes
//! the volume's root.

use std::future::Future;

use serde::{Deserialize, Serialize};

use crate::core::Millis;

/// Which volume: the files of one session, or the ones every session shares.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "session", rename_all = "snake_case")]
pub enum Volume {
    /// The volume of the session with this id.
    Session(String),
    /// The volume shared by all sessions.
    Shared,
}

/// One stored file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Path from the volume root, starting with `/` (`/notes/todo.md`).
    pub path: String,
    /// Size in UTF-8 bytes.
    pub size: u64,
    /// Time of the last write.
    pub modified_at: Millis,
}

/// Why a file operation failed; the message is meant for the person browsing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilesError {
    /// The path is not allowed (it would leave the root, or names a directory, ...).
    #[error("{0}")]
    Refused(String),
    /// No such file.
    #[error("{0}")]
    NotFound(String),
    /// The volume's quota or the browser's storage is full; nothing was written.
    #[error("{0}")]
    Full(String),
    /// Storage could not be reached or answered something unreadable.
    #[error("file storage failed: {0}")]
    Unavailable(String),
}

/// The file volumes.
pub trait Files {
    /// Every file of `volume`, in path order (an empty list for a volume never written).
    fn list(&self, volume: &Volume) -> impl Future<Output = Result<Vec<FileEntry>, FilesError>>;

    /// The whole text of the file at `path`.
    fn read(&self, volume: &Volume, path: &str)
        -> impl Future<Output = Result<String, FilesError>>;

    /// Creates or replaces the file at `path` with `content`.
    fn write(
        &self,
        volume: &Volume,
        path: &str,
        content: &str,
    ) -> impl Future<Output = Result<(), FilesError>>;

    /// Deletes the file at `path` (a directory with everything in it when `path` names one);
    /// returns how many files went.
    fn delete(&self, volume: &Volume, path: &str) -> impl Future<Output = Result<u64, FilesError>>;
}
