//! What the outside world tells the core. Each input comes with the current time.

use super::log::BudgetLimits;
use crate::protocol::{ModelError, ModelReply};

/// One input to [`super::Agent::handle`].
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// The user sent a message (starts a run when idle, joins the next step otherwise).
    UserMessage {
        /// The text.
        text: String,
        /// Limits for a run this message starts; the session default when `None`.
        budget: Option<BudgetLimits>,
    },
    /// A model call returned.
    ModelReplied {
        /// The request id from `Effect::CallModel`.
        request: u64,
        /// The reply.
        reply: ModelReply,
    },
    /// A model call failed after the provider's retries.
    ModelFailed {
        /// The request id.
        request: u64,
        /// What went wrong.
        error: ModelError,
    },
    /// A tool call returned.
    ToolFinished {
        /// Call id from `Effect::CallTool`.
        call: String,
        /// Result text.
        content: String,
        /// Whether it failed.
        is_error: bool,
    },
    /// A tool call could not reach its tool's server because the network is gone: the run
    /// pauses and the call is sent again when it goes on ([`Input::RetryPaused`]).
    ToolUnreachable {
        /// Call id from `Effect::CallTool`.
        call: String,
        /// What the tool said.
        error: String,
        /// The call may have reached its server (the network went while it ran) rather than
        /// failing before it was sent.
        sent: bool,
    },
    /// A human decided a pending approval. `args_hash` must match the request's.
    ApprovalDecided {
        /// Call id.
        call: String,
        /// The hash from `Effect::AskApproval`.
        args_hash: String,
        /// Run it?
        approved: bool,
        /// Why, if denied.
        reason: Option<String>,
    },
    /// Raise the limits of a run that ran out of budget and continue it.
    ExtendBudget {
        /// The new limits.
        budget: BudgetLimits,
    },
    /// The user cancelled the run.
    Cancel {
        /// The visible text the model had streamed in the call being cancelled (empty when
        /// none was under way): kept, so neither the person nor the next turn loses what the
        /// model had already written.
        partial_reply: String,
    },
    /// Go on after the run paused because its model provider or a tool's server was
    /// unreachable: the paused model call or tool call is sent again.
    RetryPaused,
    /// The page's stop hook answered the proposal of `Effect::AskStopHook`.
    StopHookAnswered {
        /// Its answer.
        verdict: super::StopVerdict,
    },
    /// The tab was hidden or frozen.
    Suspend,
    /// The tab is active again.
    Resume,
    /// Time passed; lets the wall-clock budget stop a run while it waits.
    Tick {
        /// The visible text the model call under way has streamed so far (empty when none is):
        /// kept as its message if the time budget stops the run, as a cancel keeps it.
        partial_reply: String,
    },
}

impl Input {
    /// A cancel with nothing streamed to keep.
    pub fn cancel() -> Self {
        Self::Cancel {
            partial_reply: String::new(),
        }
    }

    /// A tick with nothing streamed to keep.
    pub fn tick() -> Self {
        Self::Tick {
            partial_reply: String::new(),
        }
    }
}
