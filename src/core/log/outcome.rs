//! How runs, steps and tool calls turn out, as the log records them: transition and stop
//! reasons, the run outcome, rejections and interruptions. Plain data.

use serde::{Deserialize, Serialize};

use super::budget::BudgetKind;
use super::guard::Detector;
use super::handoff::HandoffReport;
use crate::protocol::Usage;

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
    /// A detector, an overdue milestone or the budget endgame forces a "status + path"
    /// reflection before the run goes on.
    Reflection {
        /// What asked for it.
        trigger: Detector,
    },
    /// The model reflected and goes on.
    AfterReflection,
    /// The model asked again for the call that had just succeeded; it must answer now.
    AnswerRequested,
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
    /// The page's stop hook kept blocking completion.
    StopHookBlocked {
        /// The reason of the last block.
        reason: String,
    },
    /// The page's stop hook threw, timed out or is missing, so nobody decided the proposal.
    StopHookFailed {
        /// What went wrong.
        message: String,
    },
    /// Open todos went on with no new evidence, and a reflection did not change that.
    MilestoneOverdue {
        /// The overdue items.
        todos: Vec<String>,
    },
}

/// A completion the core accepted, put to the page's stop hook before the run ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopProposal {
    /// How the run would end.
    pub stop: StopReason,
    /// The sentence the outcome would carry.
    pub explanation: String,
    /// The final answer or finish summary.
    pub final_text: Option<String>,
}

/// What the page's stop hook answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StopVerdict {
    /// The run may end.
    Allow,
    /// Not done: the reason goes to the model and the run continues.
    Block {
        /// What the model is told.
        reason: String,
    },
    /// The hook threw, timed out or is missing.
    Failed {
        /// What went wrong.
        message: String,
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
    /// The model gave up (the `give_up` tool or a reflection), saying where it is stuck.
    GaveUp,
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
            StopReason::GaveUp => "gave_up",
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
    /// A tool could not reach its server (the network is gone); retrying sends the call again.
    /// The call waits in its batch, put back by the interruption recorded before the pause.
    ToolUnreachable,
}

/// What a model call was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallPurpose {
    /// A step of the loop.
    Step,
    /// Summarising older turns.
    Compaction,
    /// A forced "status + path" reflection (see `core::reflect`).
    Reflection,
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
    /// The reply was cut at the output limit, so the call may be incomplete.
    CutAtOutputLimit,
    /// The tool-call budget is spent.
    OverBudget,
    /// `finish` was called while the completion check still fails.
    CompletionBlocked,
    /// The reply was neither a tool call nor a final answer in the required format.
    MalformedReply,
    /// The call had just succeeded; the run ended with its result instead.
    RepeatsSuccess,
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
    /// The browser was offline: the call failed before it was sent, so it is sent again as it
    /// is when the run goes on.
    Offline,
    /// The network went while the call ran: it may have reached its server, so a call that is
    /// not idempotent is sent again only once a person approves.
    NetworkLost,
}
