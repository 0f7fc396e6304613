//! Words for the core's enums and tool arguments, as the timeline shows them.

use crate::core::{Detector, InterruptCause, Rejection, TransitionReason};
use crate::protocol::ModelErrorKind;

use super::timeline_item::{TimelineItem, ToolStatus};

/// Why the loop went on to a step, in a few words.
pub fn transition_label(reason: &TransitionReason) -> String {
    match reason {
        TransitionReason::NextTurn => "new task".to_string(),
        TransitionReason::ToolResults => "tool results".to_string(),
        TransitionReason::Compaction => "after compaction".to_string(),
        TransitionReason::OutputTokenRecovery { attempt } => {
            format!("continue a cut reply (attempt {attempt})")
        }
        TransitionReason::StopHookBlocked { consecutive } => {
            format!("completion blocked ({consecutive} in a row)")
        }
        TransitionReason::BudgetContinuation => "budget extended".to_string(),
        TransitionReason::ApprovalResumed => "approval decided".to_string(),
        TransitionReason::Resumed => "resumed".to_string(),
    }
}

/// Which loop detector fired, in words.
pub fn detector_label(detector: Detector) -> &'static str {
    match detector {
        Detector::Repetition => "repetition",
        Detector::Thrashing => "thrashing",
        Detector::Stagnation => "stagnation",
        Detector::RepeatedError => "repeated error",
        Detector::RepeatedSuccess => "repeated success",
    }
}

/// Why a tool call was refused, in words.
pub fn rejection_label(rejection: Rejection) -> &'static str {
    match rejection {
        Rejection::UnknownTool => "unknown tool",
        Rejection::InvalidJson => "invalid JSON arguments",
        Rejection::SchemaViolation => "arguments do not match the schema",
        Rejection::DeniedByPolicy => "denied by policy",
        Rejection::CutAtOutputLimit => "cut at the output limit",
        Rejection::OverBudget => "over the tool-call budget",
        Rejection::CompletionBlocked => "completion is still blocked",
        Rejection::MalformedReply => "the reply was malformed",
        Rejection::RepeatsSuccess => "it repeats the call that just succeeded",
    }
}

/// Why a started tool call has no result, in words.
pub fn interrupt_label(cause: InterruptCause) -> &'static str {
    match cause {
        InterruptCause::Cancelled => "cancelled",
        InterruptCause::Reload => "the page was reloaded",
        InterruptCause::Budget => "the budget ran out",
    }
}

/// The status of a call refused without running.
pub(super) fn rejected(rejection: Rejection, message: &str) -> ToolStatus {
    let reason = match rejection {
        // The runtime's own sentence, whole: a label before it would say it twice ("it repeats
        // the call that just succeeded: Not run again: the same call had just succeeded.").
        Rejection::RepeatsSuccess => message.to_string(),
        Rejection::UnknownTool
        | Rejection::InvalidJson
        | Rejection::SchemaViolation
        | Rejection::DeniedByPolicy
        | Rejection::CutAtOutputLimit
        | Rejection::OverBudget
        | Rejection::CompletionBlocked
        | Rejection::MalformedReply => format!("{}: {message}", rejection_label(rejection)),
    };
    ToolStatus::Rejected { reason }
}

/// The item of a loop-detector note.
pub(super) fn guard(detector: Detector, stop: bool, message: &str) -> TimelineItem {
    TimelineItem::Guard {
        detector: detector_label(detector).to_string(),
        stop,
        message: message.to_string(),
    }
}

/// The arguments as indented JSON, or the raw text when the model sent invalid JSON.
pub fn pretty_args(raw: &str) -> String {
    crate::protocol::json::parse(raw)
        .map(|v| crate::protocol::json::to_string_pretty(&v))
        .unwrap_or_else(|_| raw.to_string())
}

/// What a person can do about a provider's refusal that settings fix, if anything: a refused
/// key is taken by the open session at its next task; a session keeps its model and address, so
/// a wrong one needs a new session.
pub(super) fn provider_hint(kind: &ModelErrorKind) -> Option<String> {
    match kind {
        ModelErrorKind::Http {
            status: status @ (401 | 403),
            ..
        } => Some(format!(
            "The provider refused the API key (HTTP {status}): enter the right one under Model & \
             budget and send the task again; this session takes the new key."
        )),
        ModelErrorKind::Http { status: 404, .. } => Some(
            "The provider has no such model or address (HTTP 404): check the base URL and model \
             under Model & budget. A session keeps the model it started with, so run the task \
             in a New session."
                .to_string(),
        ),
        ModelErrorKind::Http { .. }
        | ModelErrorKind::Provider { .. }
        | ModelErrorKind::Network
        | ModelErrorKind::FirstByteTimeout
        | ModelErrorKind::IdleTimeout
        | ModelErrorKind::Truncated { .. }
        | ModelErrorKind::Malformed
        | ModelErrorKind::Cancelled
        | ModelErrorKind::LocalModel => None,
    }
}
