//! Helpers of the reflective-rules scenarios (tests/core_giveup.rs, tests/core_escalation.rs):
//! a scripted run that answers reflection requests apart, a reflection reply, and the replay
//! check every scenario ends with.

use tabloop::core::{verify_replay, Agent, CallPurpose, RunOutcome, TransitionReason};
use tabloop::protocol::ModelReply;

use super::prelude::*;

/// What a scripted model does at step `i` of a run (reflections are answered apart).
pub type Script<'a> = &'a dyn Fn(usize) -> ToolCall;

/// Drives a run: each step the model makes `script(i)`, the tool answers `result(i)`; a
/// reflection request gets `reflection`. Returns the outcome and the model requests made.
pub fn drive(
    h: &mut Harness,
    steps: usize,
    script: Script<'_>,
    result: &dyn Fn(usize) -> (String, bool),
    reflection: &dyn Fn() -> ModelReply,
) -> (Option<RunOutcome>, usize) {
    let mut effects = h.user("fix the bug in the parser");
    let mut requests = 0;
    let mut i = 0;
    while i < steps {
        let purpose = effects.iter().find_map(|e| match e {
            Effect::CallModel { purpose, .. } => Some(*purpose),
            _ => None,
        });
        requests += 1;
        if purpose == Some(CallPurpose::Reflection) {
            effects = h.reply(&effects, reflection());
        } else {
            let call = script(i);
            let id = call.id.clone();
            effects = h.reply(&effects, calls(vec![call]));
            if let Some(outcome) = Harness::finished(&effects) {
                return (Some(outcome), requests);
            }
            if !Harness::tool_calls(&effects).is_empty() {
                let (content, is_error) = result(i);
                effects = h.tool_result(&id, &content, is_error);
            }
            i += 1;
        }
        if let Some(outcome) = Harness::finished(&effects) {
            return (Some(outcome), requests);
        }
    }
    (None, requests)
}

pub fn reflect(give_up: bool) -> ModelReply {
    calls(vec![call(
        "r",
        "reflect",
        json!({
            "status": "The parser tests fail the same way whatever I change.",
            "tried": ["editing parse_header", "reverting it"],
            "stuck_on": ["the failing test does not exercise parse_header"],
            "next": "read the test itself",
            "give_up": give_up
        }),
    )])
}

pub fn assert_replays(h: &Harness) {
    let report = verify_replay(&h.log).map(|r| r.divergence);
    assert!(matches!(report, Ok(None)), "replay diverged: {report:?}");
    let replayed = Agent::replay(&h.log).map(|a| a.state().clone());
    assert!(
        replayed
            .as_ref()
            .is_ok_and(|state| state == h.agent.state()),
        "the replayed state differs"
    );
}

/// Per step: its run, number, new calls and quiet steps.
pub type StepFacts = (Option<u32>, u32, Vec<String>, Option<u32>);

pub fn reflections_before_stop(h: &Harness) -> usize {
    h.events()
        .filter(|e| {
            matches!(
                e,
                Event::StepStarted {
                    reason: TransitionReason::Reflection { .. },
                    ..
                }
            )
        })
        .count()
}
