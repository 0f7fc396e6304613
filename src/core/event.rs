//! The event log: append-only facts from which every piece of agent state is folded.
//! Persist facts, never derived state. Changing a variant needs a schema bump and a migration.

use serde::{Deserialize, Serialize};

use super::budget::{BudgetKind, BudgetLimits, Ledger};
use super::config::AgentConfig;
use super::handoff::HandoffReport;
use crate::protocol::{ModelError, ModelReply, Usage};

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

/// Why the loop went on to another step. Every transition carries one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TransitionReason {
    /// A user message started or continued the run.
    NextTurn,
    /// Tool results came back and the model must see them.
    ToolResults,
    /// The context was compacted before continuing.
    Compaction,
    /// The last reply was cut at the output limit; the model is asked to continue.
    OutputTokenRecovery {
        /// How many cut replies in a row, from 1.
        attempt: u32,
    },
    /// A completion proposal was rejected; the blockers go back to the model.
    StopHookBlocked {
        /// How many rejections in a row, from 1.
        consecutive: u32,
    },
    /// The user extended an exhausted budget.
    BudgetContinuation,
    /// A human decided a pending approval.
    ApprovalResumed,
    /// The log was reopened (after a reload or a fork) between two steps; the run goes on.
    Resumed,
}

/// Which loop detector fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detector {
    /// The same action on the same state with no new evidence.
    Repetition,
    /// Two actions alternating (A-B-A-B) with unchanged results.
    Thrashing,
    /// Observations stopped changing while the actions varied.
    Stagnation,
    /// The same error kept coming back.
    RepeatedError,
}

/// Why a human is needed before the run can go on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HumanReason {
    /// Completion proposals kept being rejected.
    CompletionBlocked {
        /// The blockers of the last rejection.
        blockers: Vec<String>,
    },
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StopReason {
    /// A final answer passed the completion check.
    Completed,
    /// The finish tool's verifier passed.
    VerifiedFinish,
    /// The model called `finish` but no verifier is registered, so nothing checked the claim.
    UnverifiedFinish,
    /// A budget ran out.
    BudgetExhausted {
        /// Which one.
        budget: BudgetKind,
    },
    /// A loop detector stopped the run.
    NoProgress {
        /// Which detector.
        detector: Detector,
    },
    /// Too many failures in a row.
    ConsecutiveErrors {
        /// How many.
        count: u32,
    },
    /// Replies kept being cut at the output limit.
    OutputLimit,
    /// The user cancelled.
    Cancelled,
    /// A human must act.
    NeedsHuman {
        /// Why.
        reason: HumanReason,
    },
    /// The model or the runtime failed in a way the loop cannot recover from.
    FatalError,
}

impl StopReason {
    /// The snake_case name used in the public API (`stopReason`).
    pub fn code(&self) -> &'static str {
        match self {
            StopReason::Completed => "completed",
            StopReason::VerifiedFinish => "verified_finish",
            StopReason::UnverifiedFinish => "unverified_finish",
            StopReason::BudgetExhausted { .. } => "budget_exhausted",
            StopReason::NoProgress { .. } => "no_progress",
            StopReason::ConsecutiveErrors { .. } => "consecutive_errors",
            StopReason::OutputLimit => "output_limit",
            StopReason::Cancelled => "cancelled",
            StopReason::NeedsHuman { .. } => "needs_human",
            StopReason::FatalError => "fatal_error",
        }
    }
}

/// The result of a run, as the public API reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// Why it stopped.
    pub stop: StopReason,
    /// A sentence a person can read.
    pub explanation: String,
    /// The final answer or finish summary, if any.
    pub final_text: Option<String>,
    /// Steps taken.
    pub steps: u32,
    /// Tokens used by the run.
    pub usage: Usage,
    /// Spend of the run in USD.
    pub cost_usd: f64,
    /// Progress, findings and where it is stuck, for runs that did not complete.
    pub handoff: Option<HandoffReport>,
}

/// Why a run waits for a person before it goes on (it has not ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PauseReason {
    /// The model provider kept failing in a way that may pass; retrying resends the call.
    ProviderUnreachable {
        /// What the failed call was for.
        purpose: CallPurpose,
    },
}

/// What a model call was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallPurpose {
    /// A step of the loop.
    Step,
    /// Summarising older turns.
    Compaction,
}

/// Why a tool call was not executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// No such tool is offered.
    UnknownTool,
    /// The arguments are not valid JSON.
    InvalidJson,
    /// The arguments do not match the tool's JSON Schema.
    SchemaViolation,
    /// The tool's policy is deny.
    DeniedByPolicy,
    /// A human denied it.
    DeniedByUser,
    /// The reply was cut at the output limit, so the call may be incomplete.
    CutAtOutputLimit,
    /// The tool-call budget is spent.
    OverBudget,
    /// `finish` was called while the completion check still fails.
    CompletionBlocked,
    /// The reply was neither a tool call nor a final answer in the required format.
    MalformedReply,
}

/// Why a started tool call has no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptCause {
    /// The user cancelled the run.
    Cancelled,
    /// The page was closed or reloaded while it ran.
    Reload,
    /// A budget ran out while it ran.
    Budget,
}

/// What a step added to the evidence the run has gathered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceDelta {
    /// Observations never seen before in this run.
    pub new_observations: u32,
    /// Observations identical to earlier ones.
    pub repeated_observations: u32,
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
    /// An in-flight model call was given up (cancel, reload, budget).
    ModelCallAbandoned {
        /// Request id.
        request: u64,
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
    /// A started tool call will never report (cancel, reload, budget).
    ToolCallInterrupted {
        /// Call id.
        call: String,
        /// Why.
        cause: InterruptCause,
    },
    /// A loop detector fired.
    GuardTriggered {
        /// Which one.
        detector: Detector,
        /// Stop the run (else: diagnose).
        stop: bool,
        /// What the model is told.
        message: String,
    },
    /// A final answer was not accepted.
    CompletionRejected {
        /// What blocks completion.
        blockers: Vec<String>,
    },
    /// A step ended.
    StepFinished {
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
