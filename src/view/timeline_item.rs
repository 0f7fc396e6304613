//! The items a timeline is made of. Plain data: every text in them is shown as text, never as
//! markup.

use crate::core::{EvidenceDelta, Reflection, RunOutcome, StopReason};

use super::format::LedgerSummary;

/// One entry of a session's timeline.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineItem {
    /// A message from the user.
    User {
        /// The text.
        text: String,
    },
    /// Visible text of a model reply (control tokens removed).
    Assistant {
        /// The text.
        text: String,
    },
    /// A tool call the model made, with what became of it.
    ToolCall(ToolCallView),
    /// The start of a loop step, completed with its spend once the step ends.
    Step(StepMarker),
    /// A loop detector fired.
    Guard {
        /// Which detector, in words.
        detector: String,
        /// Whether it stopped the run.
        stop: bool,
        /// What the model was told.
        message: String,
        /// The repeating calls and observations it saw.
        evidence: Vec<String>,
    },
    /// A forced reflection: the model's account of where it stands.
    Reflection(Reflection),
    /// A final answer was not accepted.
    CompletionRejected {
        /// What blocks completion.
        blockers: Vec<String>,
    },
    /// Older turns were replaced by a summary.
    Compaction {
        /// The summary.
        summary: String,
    },
    /// Something the runtime did that is worth a line (a budget extension).
    Note {
        /// The line.
        text: String,
    },
    /// The end of a run.
    RunFinished(RunEnd),
    /// A model or storage failure.
    Error {
        /// Where it came from.
        source: ErrorSource,
        /// What went wrong.
        message: String,
    },
}

impl TimelineItem {
    /// A stable short name of the item's kind (the UI's `data-kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            TimelineItem::User { .. } => "user",
            TimelineItem::Assistant { .. } => "assistant",
            TimelineItem::ToolCall(_) => "tool_call",
            TimelineItem::Step(_) => "step",
            TimelineItem::Guard { .. } => "guard",
            TimelineItem::Reflection(_) => "reflection",
            TimelineItem::CompletionRejected { .. } => "completion_rejected",
            TimelineItem::Compaction { .. } => "compaction",
            TimelineItem::Note { .. } => "note",
            TimelineItem::RunFinished(_) => "run_finished",
            TimelineItem::Error { .. } => "error",
        }
    }
}

/// A tool call and its current state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallView {
    /// Call id.
    pub call: String,
    /// Tool name as the model wrote it.
    pub name: String,
    /// Arguments, pretty-printed when they are JSON.
    pub args: String,
    /// What became of it.
    pub status: ToolStatus,
}

/// Where a tool call stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolStatus {
    /// Not checked or started yet.
    Pending,
    /// Waiting for a human to approve or deny it.
    AwaitingApproval {
        /// It was interrupted by a reload and is not safe to run twice.
        after_interrupt: bool,
    },
    /// A human approved it; it starts next.
    Approved,
    /// Running.
    Running {
        /// Attempt number, from 1.
        attempt: u32,
    },
    /// It returned.
    Finished {
        /// The result text.
        result: String,
        /// Whether it failed.
        is_error: bool,
    },
    /// It was refused without running.
    Rejected {
        /// Why, in words.
        reason: String,
    },
    /// It will never report a result.
    Interrupted {
        /// Why, in words.
        cause: String,
    },
}

impl ToolStatus {
    /// Whether nothing more will happen to the call.
    pub fn is_final(&self) -> bool {
        match self {
            ToolStatus::Pending
            | ToolStatus::AwaitingApproval { .. }
            | ToolStatus::Approved
            | ToolStatus::Running { .. } => false,
            ToolStatus::Finished { .. }
            | ToolStatus::Rejected { .. }
            | ToolStatus::Interrupted { .. } => true,
        }
    }

    /// A short label: `pending`, `awaiting approval`, `running`, `done`, `error`, ...
    pub fn label(&self) -> &'static str {
        match self {
            ToolStatus::Pending => "pending",
            ToolStatus::AwaitingApproval { .. } => "awaiting approval",
            ToolStatus::Approved => "approved",
            ToolStatus::Running { .. } => "running",
            ToolStatus::Finished {
                is_error: false, ..
            } => "done",
            ToolStatus::Finished { is_error: true, .. } => "error",
            ToolStatus::Rejected { .. } => "rejected",
            ToolStatus::Interrupted { .. } => "interrupted",
        }
    }
}

/// A step of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct StepMarker {
    /// Run number within the session.
    pub run: u32,
    /// Step number within the run.
    pub step: u32,
    /// Why the loop went on, in words.
    pub reason: String,
    /// Spend before the step.
    pub before: LedgerSummary,
    /// Spend after the step, once it ended.
    pub after: Option<LedgerSummary>,
    /// What the step added to the evidence, once it ended.
    pub evidence: Option<EvidenceDelta>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    /// The stop reason's code (`completed`, `budget_exhausted`, ...).
    pub stop: &'static str,
    /// Whether a budget ran out (the run can be continued with more).
    pub budget_stop: bool,
    /// A sentence a person can read.
    pub explanation: String,
    /// The final answer or finish summary, if any.
    pub final_text: Option<String>,
    /// The final text is the model's message just above (shown there, not again here); not so
    /// for a finish summary, nor for an answer the runtime ended the run with.
    pub shown_above: bool,
    /// The handoff report as plain text, for runs that did not complete.
    pub handoff: Option<String>,
}

impl RunEnd {
    /// The view of a run's outcome; `above` is the model's last message before it, if any.
    pub fn of(outcome: &RunOutcome, above: Option<&str>) -> Self {
        Self {
            stop: outcome.stop.code(),
            budget_stop: matches!(outcome.stop, StopReason::BudgetExhausted { .. }),
            explanation: outcome.explanation.clone(),
            final_text: outcome.final_text.clone(),
            shown_above: outcome
                .final_text
                .as_deref()
                .is_some_and(|text| above.is_some_and(|above| above.trim() == text.trim())),
            handoff: outcome.handoff.as_ref().map(|h| h.to_text()),
        }
    }

    /// Whether the run reached its goal.
    pub fn succeeded(&self) -> bool {
        matches!(self.stop, "completed" | "verified_finish")
    }
}

/// Where an error item came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorSource {
    /// The model call failed.
    Model,
    /// Writing the log failed.
    Storage,
    /// Opening or running the session failed.
    Session,
}

impl ErrorSource {
    /// A short label for the item's heading.
    pub fn label(self) -> &'static str {
        match self {
            ErrorSource::Model => "Model error",
            ErrorSource::Storage => "Storage error",
            ErrorSource::Session => "Session error",
        }
    }
}
