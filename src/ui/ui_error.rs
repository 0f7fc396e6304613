//! [`UiError`]: why a playground action failed, typed; the playground shows its `Display` text.

use crate::runtime::{LiveError, ServiceError};

/// Why a playground action failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UiError {
    /// The page was mounted without a session service.
    #[error("the session service is not available on this page")]
    NoService,
    /// The session service refused or failed.
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// The live session refused an input.
    #[error(transparent)]
    Live(#[from] LiveError),
    /// The session's remote provider needs a key the settings do not hold.
    #[error("enter the session's API key under Model & budget first")]
    KeyNeeded,
    /// An uploaded file is not UTF-8 text.
    #[error("it is not a UTF-8 text file (the volumes hold text only)")]
    NotText,
    /// The browser refused (a file read, a download), in its words.
    #[error("{0}")]
    Browser(String),
}
