//! [`LiveError`]: why a live session refused an input or could not end a run call, typed for
//! its callers (the JS API turns it into a JS `Error` with its `Display` text; the playground
//! shows that text).

/// Why a live session refused an input, or a run call ended without an outcome.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiveError {
    /// Another tab writes the session; this one follows it read-only.
    #[error(
        "another tab writes this session ({session}); this tab follows it read-only, so the \
         input was refused (it takes over when that tab closes)"
    )]
    Follower {
        /// The session id.
        session: String,
    },
    /// An approval decision named a call that waits for none.
    #[error("no approval is pending for call {call}")]
    NoPendingApproval {
        /// The call id.
        call: String,
    },
    /// The session could not be opened or its driver stopped with an error.
    #[error("{0}")]
    Failed(String),
    /// The session is not open in this tab (no live session to send the input to).
    #[error("this session is not open in this tab")]
    NotOpen,
    /// The session's driver stopped before the run ended.
    #[error("the session stopped")]
    Stopped,
}
