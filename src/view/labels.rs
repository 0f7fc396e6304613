//! Words for the core's enums and tool arguments, as the timeline shows them.

use crate::core::{Detector, EvidenceDelta, InterruptCause, Rejection, TransitionReason};
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
        TransitionReason::Reflection { trigger } => {
            format!("reflection asked ({})", detector_label(*trigger))
        }
        TransitionReason::AfterReflection => "after reflection".to_string(),
        TransitionReason::AnswerRequested => "answer requested".to_string(),
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
        Detector::ConsecutiveErrors => "failing calls",
        Detector::OverdueMilestone => "overdue milestone",
        Detector::BudgetEndgame => "budget endgame",
    }
}

/// Why a tool call was refused, in words: the label a card shows before the refusal's own
/// message. None where that message is the runtime's own sentence and says it whole (a label
/// would say it twice: "it repeats the call that just succeeded: Not run again: …").
pub fn rejection_label(rejection: Rejection) -> Option<&'static str> {
    match rejection {
        Rejection::UnknownTool => Some("unknown tool"),
        Rejection::InvalidJson => Some("invalid JSON arguments"),
        Rejection::SchemaViolation => Some("arguments do not match the schema"),
        Rejection::DeniedByPolicy => Some("denied by policy"),
        Rejection::CutAtOutputLimit => Some("cut at the output limit"),
        Rejection::OverBudget => Some("over the tool-call budget"),
        Rejection::CompletionBlocked => Some("completion is still blocked"),
        Rejection::MalformedReply => Some("the reply was malformed"),
        Rejection::RepeatsSuccess => None,
    }
}

/// Why a started tool call has no result, in words.
pub fn interrupt_label(cause: InterruptCause) -> &'static str {
    match cause {
        InterruptCause::Cancelled => "cancelled",
        InterruptCause::Reload => "the page was reloaded",
        InterruptCause::Budget => "the budget ran out",
        InterruptCause::Offline => "offline: waits to be sent",
        InterruptCause::NetworkLost => "the network went: waits to be sent again",
    }
}

/// The status of a call refused without running.
pub(super) fn rejected(rejection: Rejection, message: &str) -> ToolStatus {
    let reason = match rejection_label(rejection) {
        Some(label) => format!("{label}: {message}"),
        None => message.to_string(),
    };
    ToolStatus::Rejected { reason }
}

/// The item of a loop-detector note.
pub(super) fn guard(
    detector: Detector,
    stop: bool,
    message: &str,
    evidence: &[String],
) -> TimelineItem {
    TimelineItem::Guard {
        detector: detector_label(detector).to_string(),
        stop,
        message: message.to_string(),
        evidence: evidence.to_vec(),
    }
}

/// The arguments as indented JSON, or the raw text when the model sent invalid JSON.
pub fn pretty_args(raw: &str) -> String {
    serde_json::from_str::<serde_json::Value>(raw)
        .and_then(|v| serde_json::to_string_pretty(&v))
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

/// What a step added to the evidence, in words: new and repeated observations, and how long
/// nothing new has come in (the context grows while what the run knows does not).
pub fn step_evidence_text(delta: &EvidenceDelta) -> String {
    let mut text = format!(
        "{}, {} repeated",
        super::plural(
            u64::from(delta.new_observations),
            "new observation",
            "new observations"
        ),
        delta.repeated_observations
    );
    if let Some(quiet) = delta.quiet_steps.filter(|q| *q > 1) {
        text.push_str(&format!("; nothing new for {quiet} steps"));
    }
    text
}
