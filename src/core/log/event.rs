//! The event log: append-only facts from which every piece of agent state is folded.
//! Persist facts, never derived state. Changing a variant needs a schema bump and a migration.

use serde::{Deserialize, Serialize};

use super::budget::{BudgetLimits, Ledger};
use super::config::AgentConfig;
use super::guard::{Detector, EvidenceDelta};
use super::outcome::{
    CallPurpose, InterruptCause, PauseReason, Rejection, RunOutcome, StopProposal, StopVerdict,
    TransitionReason,
};
use crate::protocol::{ModelError, ModelReply};

/// Version of the event schema written by this build. Logs with a newer version are refused.
pub const SCHEMA_VERSION: u32 = 1;

/// Milliseconds since the Unix epoch, always supplied by the caller (the core has no clock).
pub type Millis = u64;

/// One persisted entry of a session's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Position in the session's log, from 0, contiguous.
    pub seq: u64,
    /// When the event happened.
    pub at: Millis,
    /// The fact.
    pub event: Event,
}

/// A fact in a session's log. Every variant is applied by `Agent::apply` during live runs and
/// during replay alike.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The first event of every log.
    SessionStarted {
        /// Event schema version of the writer.
        schema_version: u32,
        /// Session id.
        session: String,
        /// The session's configuration.
        config: AgentConfig,
    },
    /// A user message. Starts a run when none is active.
    UserMessage {
        /// The text.
        text: String,
    },
    /// A run began (with the budget it has).
    RunStarted {
        /// Run number within the session, from 1.
        run: u32,
        /// The run's limits.
        budget: BudgetLimits,
    },
    /// A step began.
    StepStarted {
        /// Run number (with `step`, the step's id in the session); absent in logs written
        /// before it was recorded.
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<u32>,
        /// Step number within the run, from 1.
        step: u32,
        /// Why the loop continued.
        reason: TransitionReason,
        /// Spend before the step.
        budget_before: Ledger,
    },
    /// A model call was sent.
    ModelCallStarted {
        /// Request id, unique in the session.
        request: u64,
        /// What the call is for.
        purpose: CallPurpose,
    },
    /// A model call returned a complete reply (raw, before hygiene).
    ModelReplied {
        /// Request id.
        request: u64,
        /// The reply.
        reply: ModelReply,
        /// Its cost in USD.
        cost_usd: f64,
    },
    /// A model call failed after the provider's own retries.
    ModelFailed {
        /// Request id.
        request: u64,
        /// What went wrong (a partial reply is kept inside).
        error: ModelError,
    },
    /// A failed call is sent again within the same step after `delay_ms`; its partial reply,
    /// if any, was dropped from the context.
    ModelRetryScheduled {
        /// Resend number within this step, from 1.
        attempt: u32,
        /// Wait before sending, in milliseconds.
        delay_ms: u64,
    },
    /// The run waits for a person (it has not ended; the step stays open). Time while paused is
    /// not charged.
    RunPaused {
        /// Why.
        reason: PauseReason,
        /// What the person is told.
        message: String,
    },
    /// A person asked to go on after a pause.
    RunUnpaused,
    /// A completion the core accepted is put to the page's stop hook.
    StopHookAsked {
        /// What would end the run.
        proposal: StopProposal,
    },
    /// The stop hook answered (or failed).
    StopHookDecided {
        /// Its answer.
        verdict: StopVerdict,
    },
    /// An in-flight model call was given up (cancel, reload, budget).
    ModelCallAbandoned {
        /// Request id.
        request: u64,
        /// The visible text it had streamed when the user cancelled it (empty otherwise); it
        /// joins the conversation as the model's message.
        #[serde(default)]
        partial_reply: String,
    },
    /// Older turns were replaced by a summary.
    Compacted {
        /// The summary the model wrote.
        summary: String,
        /// Transcript messages before this index are now covered by the summary.
        upto: usize,
    },
    /// A tool call was refused without running.
    ToolCallRejected {
        /// Call id.
        call: String,
        /// Why.
        rejection: Rejection,
        /// What the model is told.
        message: String,
    },
    /// A tool call waits for a human.
    ApprovalRequested {
        /// Call id.
        call: String,
        /// Hash of the exact arguments the approval is bound to.
        args_hash: String,
        /// The call was interrupted by a reload and is not idempotent.
        after_interrupt: bool,
    },
    /// A human decided.
    ApprovalDecided {
        /// Call id.
        call: String,
        /// Run it?
        approved: bool,
        /// Reason given, if any.
        reason: Option<String>,
    },
    /// A tool call is about to run. Persisted durably before the side effect.
    ToolCallStarted {
        /// Call id.
        call: String,
        /// Attempt number, from 1 (re-runs after interruption count up).
        attempt: u32,
    },
    /// A tool call returned.
    ToolCallFinished {
        /// Call id.
        call: String,
        /// The result as text.
        content: String,
        /// Whether it failed.
        is_error: bool,
    },
    /// A started tool call will never report (cancel, reload, budget), or its tool could not
    /// reach its server and it waits to be sent again (offline, network lost).
    ToolCallInterrupted {
        /// Call id.
        call: String,
        /// Why.
        cause: InterruptCause,
        /// What the tool said when it could not reach its server (offline, network lost).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A loop detector fired.
    GuardTriggered {
        /// Which one.
        detector: Detector,
        /// Stop the run (else: diagnose).
        stop: bool,
        /// What the model is told.
        message: String,
        /// The calls and observations that repeat, one line each (absent in older logs).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        evidence: Vec<String>,
    },
    /// A final answer was not accepted.
    CompletionRejected {
        /// What blocks completion.
        blockers: Vec<String>,
    },
    /// A step ended.
    StepFinished {
        /// Run number, as in `StepStarted`.
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<u32>,
        /// Step number.
        step: u32,
        /// Spend after the step.
        budget_after: Ledger,
        /// New evidence of the step.
        evidence_delta: EvidenceDelta,
    },
    /// The user raised the limits of a run that ran out of budget; it continues.
    BudgetExtended {
        /// New limits.
        budget: BudgetLimits,
    },
    /// The tab was hidden or frozen; time until `Resumed` is not charged.
    Suspended,
    /// The tab is active again (or the page was reopened).
    Resumed,
    /// The run ended.
    RunFinished {
        /// How.
        outcome: RunOutcome,
    },
}
