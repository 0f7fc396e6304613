//! The shapes the public JS API returns, in its camelCase: run outcomes and session summaries.
//! Pure data so they are tested natively.

use serde_json::{json, Value};

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

/// A record as the page sees it in `onEvent`: `{ seq, at, type, ...fields }`.
///
/// Written as text and parsed back: the text writer of the event is in the bundle anyway (the
/// log is stored as text), and a second writer into `Value` cost 20 KB of code.
pub fn record_json(record: &Record) -> Value {
    let mut event = serde_json::to_string(&record.event)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    if let Value::Object(map) = &mut event {
        map.insert("seq".into(), json!(record.seq));
        map.insert("at".into(), json!(record.at));
    }
    event
}

/// The task of a session (its first user message), for session lists.
pub fn session_title(records: &[Record]) -> String {
    records
        .iter()
        .find_map(|r| {
            if let Event::UserMessage { text } = &r.event {
                Some(text.chars().take(80).collect())
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
