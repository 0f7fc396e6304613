//! The shapes the public JS API returns, in its camelCase: run outcomes and session summaries.
//! Pure data so they are tested natively.

use serde_json::Value;

use serde_json::json;

use crate::core::{Event, Record, RunOutcome, StopReason};

/// `{ stopReason, explanation, finalText, steps, usage, costUsd, handoff, detail }` of a run.
pub fn outcome_json(outcome: &RunOutcome) -> Value {
    let detail = match &outcome.stop {
        StopReason::BudgetExhausted { budget } => json!({ "budget": budget }),
        StopReason::NoProgress { detector } => json!({ "detector": detector }),
        StopReason::ConsecutiveErrors { count } => json!({ "count": count }),
        StopReason::NeedsHuman { reason } => json!({ "reason": reason }),
        StopReason::Completed
        | StopReason::VerifiedFinish
        | StopReason::UnverifiedFinish
        | StopReason::OutputLimit
        | StopReason::Cancelled
        | StopReason::FatalError
        | StopReason::GaveUp => Value::Null,
    };
    json!({
        "stopReason": outcome.stop.code(),
        "detail": detail,
        "explanation": outcome.explanation,
        "finalText": outcome.final_text,
        "steps": outcome.steps,
        "usage": {
            "inputTokens": outcome.usage.input_tokens,
            "outputTokens": outcome.usage.output_tokens,
            "cachedInputTokens": outcome.usage.cached_input_tokens,
        },
        "costUsd": outcome.cost_usd,
        "handoff": outcome.handoff,
    })
}

/// A record as the page sees it in `onEvent` and `events()`: `{ seq, at, type, ...fields }`,
/// the event's own fields (as the log writes them) after its position. The page's copy is built
/// to this shape by `web::js_value::record_to_js`, which a browser test holds to it.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct PublicRecord<'a> {
    /// The record's position in the session's log.
    pub seq: u64,
    /// When it was written (ms since the epoch).
    pub at: u64,
    /// The event, its `type` tag and fields inline.
    #[serde(flatten)]
    pub event: &'a Event,
}

impl<'a> From<&'a Record> for PublicRecord<'a> {
    fn from(record: &'a Record) -> Self {
        PublicRecord {
            seq: record.seq,
            at: record.at,
            event: &record.event,
        }
    }
}

/// The task of a session (its first user message), for session lists.
pub fn session_title(records: &[Record]) -> String {
    records
        .iter()
        .find_map(|r| {
            if let Event::UserMessage { text } = &r.event {
                Some(crate::core::task_title(text))
            } else {
                None
            }
        })
        .unwrap_or_default()
}

/// A stop hook's proposal as the page gets it: `{ stopReason, explanation, finalText }`.
pub fn stop_proposal_json(proposal: &crate::core::StopProposal) -> Value {
    json!({
        "stopReason": proposal.stop.code(),
        "explanation": proposal.explanation,
        "finalText": proposal.final_text,
    })
}
