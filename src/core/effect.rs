//! What the core asks the outside world to do. The driver performs effects in order and must
//! finish persisting every `Persist` before it starts the actions that follow it.

use serde_json::Value;

use super::log::{CallPurpose, Record, RunOutcome};
use crate::protocol::ModelRequest;

/// One effect from [`super::Agent::poll`].
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Append this record to the session's log (durably before any later action).
    Persist(Record),
    /// Call the model with `body`, projected from the transcript when the call was decided.
    CallModel {
        /// Request id to answer with.
        request: u64,
        /// What the call is for.
        purpose: CallPurpose,
        /// Wait this long before sending (a resend after a cut stream); 0 for a first call.
        delay_ms: u64,
        /// The request to send.
        body: ModelRequest,
    },
    /// Run a host tool.
    CallTool(ToolInvocation),
    /// Ask a human to approve or deny a call.
    AskApproval {
        /// Call id.
        call: String,
        /// Tool name.
        tool: String,
        /// The exact arguments.
        args: Value,
        /// What an approval must quote back.
        args_hash: String,
        /// The call was interrupted by a reload and is not idempotent.
        after_interrupt: bool,
    },
    /// Abort in-flight work.
    Abort {
        /// A model request to abort.
        request: Option<u64>,
        /// Tool calls to abort.
        calls: Vec<String>,
    },
    /// Put this completion to the page's stop hook; answer with `Input::StopHookAnswered`.
    AskStopHook(super::StopProposal),
    /// The run ended.
    Finished(RunOutcome),
}

/// A host tool call, validated and permitted.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInvocation {
    /// Call id.
    pub call: String,
    /// Tool name.
    pub tool: String,
    /// Arguments, valid against the tool's schema.
    pub args: Value,
    /// `session:run:call`, stable across re-runs, for services that honour idempotency keys.
    pub idempotency_key: String,
    /// A human approved this call or its scope; the tool may use what the approval covers.
    pub approved: bool,
}
