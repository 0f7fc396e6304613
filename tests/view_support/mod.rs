//! What the view tests share: ledgers and step markers to compare with, and a run that reads
//! a file and answers.
#![allow(dead_code, clippy::unwrap_used)]

use crate::core_support::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::EvidenceDelta;
use tabloop::view::*;

pub fn spent(steps: u32, tool_calls: u32, tokens: u64) -> LedgerSummary {
    LedgerSummary {
        steps,
        tool_calls,
        tokens,
        cost_usd: 0.0,
    }
}

pub fn evidence(new: u32, repeated: u32) -> Option<EvidenceDelta> {
    Some(EvidenceDelta {
        new_observations: new,
        repeated_observations: repeated,
        ..EvidenceDelta::default()
    })
}

pub fn step(step: u32, reason: &str, before: LedgerSummary, after: LedgerSummary) -> StepMarker {
    StepMarker {
        run: 1,
        step,
        reason: reason.into(),
        before,
        after: Some(after),
        evidence: None,
    }
}

/// A run that reads a file and answers: user → tool call → result → final answer.
pub fn read_and_answer() -> Harness {
    let mut h = Harness::new(config());
    let effects = h.user("read the notes");
    let effects = h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "notes.txt"}))]),
    );
    assert_eq!(Harness::tool_calls(&effects).len(), 1);
    let effects = h.tool_result("a", "hello <b>world</b>", false);
    h.reply(&effects, text("The notes say hello."));
    h
}
