//! What the driver tells the page: persisted records, streamed text, approvals to ask, storage
//! trouble and finished runs.

use serde_json::Value;

use crate::core::{Record, RunOutcome};
use crate::protocol::StreamDelta;

/// One notification from the driver.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// A record is durably in the log.
    Persisted(Record),
    /// Live output of the model call in flight (not persisted; the reply is).
    Delta(StreamDelta),
    /// A human must approve or deny a call.
    ApprovalNeeded {
        /// Call id.
        call: String,
        /// Tool name.
        tool: String,
        /// Exact arguments.
        args: Value,
        /// Hash the decision must quote.
        args_hash: String,
        /// The call was interrupted by a reload and is not idempotent.
        after_interrupt: bool,
    },
    /// The run ended.
    Finished(RunOutcome),
    /// Writing the log failed; the run is paused until `Command::RetryStorage`. Nothing that
    /// was already written is lost, and nothing runs before its record is written.
    StorageFailed(String),
    /// Storage works again and the run goes on.
    StorageRecovered,
}

/// Receives notices, each its own (a stored record is handed over, not copied). Called
/// synchronously from the driver's task.
pub type Observer = Box<dyn Fn(Notice)>;
