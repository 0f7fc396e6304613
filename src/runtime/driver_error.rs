//! [`DriverError`]: why a driver could not open its session or refused an input; the
//! driver and the snapshot-or-replay opening in `resume.rs` both return it.

use crate::core::{InputError, ReplayError};
use crate::ports::StoreError;

/// Why a session could not be opened or an input was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DriverError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The log cannot be replayed.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The core refused the input.
    #[error(transparent)]
    Input(#[from] InputError),
}
