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
        | StopReason::FatalError => Value::Null,
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

/// A record as the page sees it in `onEvent` and `events()`, as JSON text: `{ seq, at, type,
/// ...fields }`. The event's own text (the log's writer, which the bundle has anyway) with the
/// position spliced in front, so the page parses it once and nothing is written twice.
pub fn record_text(record: &Record) -> String {
    let event = crate::protocol::json_text(&record.event);
    // An event is always an object (`{"type":…}`): its fields follow `seq` and `at`.
    let fields = event.strip_prefix('{').unwrap_or("\"type\":null}");
    format!(r#"{{"seq":{},"at":{},{fields}"#, record.seq, record.at)
}

/// Records as one JSON array text (`events()`).
pub fn records_text(records: &[Record]) -> String {
    let mut text = String::from("[");
    for (i, record) in records.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&record_text(record));
    }
    text.push(']');
    text
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
