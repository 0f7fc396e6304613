//! Errors of the core: inputs that do not fit the current state, and logs that cannot be replayed.

/// An input the core refused; nothing was recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// A reply or failure for a request that is not in flight (late, after cancel or reload).
    #[error("model request {0} is not in flight")]
    StaleRequest(u64),
    /// A result or decision for a call the current batch does not have or is not waiting on.
    #[error("tool call {0} is not waiting for this input")]
    UnexpectedCall(String),
    /// An approval quoting other arguments than the ones asked about.
    #[error(
        "approval for call {call} does not match its arguments (expected {expected}, got {got})"
    )]
    ApprovalMismatch {
        /// Call id.
        call: String,
        /// Hash of the arguments awaiting approval.
        expected: String,
        /// Hash quoted by the approval.
        got: String,
    },
    /// Nothing is running.
    #[error("no run is in progress")]
    NoActiveRun,
    /// A stop hook answer when no proposal waits for one.
    #[error("no completion is waiting for the stop hook")]
    NoStopProposal,
    /// `RetryPaused` when the run is not paused.
    #[error("the run is not paused, so there is nothing to retry")]
    NotPaused,
    /// `ExtendBudget` when the last run did not run out of budget.
    #[error("the last run did not stop on a budget, so there is nothing to extend")]
    NothingToExtend,
}

/// A log that cannot be turned back into an agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The log is empty.
    #[error("the log is empty")]
    Empty,
    /// The first record is not `SessionStarted`.
    #[error("the log does not begin with session_started")]
    NoSessionStart,
    /// Written by a newer build.
    #[error("the log has event schema version {found}, newer than this build's {supported}; refusing to read it")]
    FutureSchema {
        /// Version in the log.
        found: u32,
        /// Newest version this build reads.
        supported: u32,
    },
    /// Sequence numbers are not contiguous from 0.
    #[error("record {found} found where record {expected} was expected")]
    Gap {
        /// Expected seq.
        expected: u64,
        /// Found seq.
        found: u64,
    },
    /// A line that is not a record.
    #[error("line {line} is not a valid record: {message}")]
    Malformed {
        /// 1-based line number.
        line: usize,
        /// Parser message.
        message: String,
    },
    /// Fork point beyond the log.
    #[error("step {0} is not in the log")]
    NoSuchStep(u32),
    /// Fork from a run the log does not have.
    #[error("run {0} is not in the log")]
    NoSuchRun(u32),
}
