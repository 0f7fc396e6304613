//! Stop hooks: an accepted completion is put to the page's hook; a block continues the run with
//! the reason, the cap ends it needing a human, and a failed hook is reported, never passed.
#![allow(
    clippy::wildcard_enum_match_arm,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod core_support;

use core_support::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::{Agent, Effect, HumanReason, Input, StopProposal, StopReason, StopVerdict};
use tabloop::protocol::Message;

fn hooked() -> Harness {
    let mut h = Harness::new(config());
    h.agent.set_stop_hook(true);
    h
}

fn asked(effects: &[Effect]) -> Option<StopProposal> {
    effects.iter().find_map(|e| match e {
        Effect::AskStopHook(p) => Some(p.clone()),
        _ => None,
    })
}

fn answer(h: &mut Harness, verdict: StopVerdict) -> Vec<Effect> {
    h.send(Input::StopHookAnswered { verdict }).unwrap()
}

#[test]
fn a_final_answer_is_put_to_the_hook_and_ends_only_when_it_allows() {
    let mut h = hooked();
    let effects = h.user("go");
    let effects = h.reply(&effects, text("done"));
    assert_eq!(
        Harness::finished(&effects),
        None,
        "not ended before the hook answered"
    );
    assert_eq!(
        asked(&effects),
        Some(StopProposal {
            stop: StopReason::Completed,
            explanation: "The model gave a final answer.".into(),
            final_text: Some("done".into()),
        })
    );
    let effects = answer(&mut h, StopVerdict::Allow);
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::Completed);
    assert_eq!(outcome.final_text.as_deref(), Some("done"));
    assert_eq!(Agent::replay(&h.log).unwrap().state(), h.agent.state());
}

#[test]
fn a_block_sends_the_reason_to_the_model_and_continues_with_stop_hook_blocked() {
    let mut h = hooked();
    let effects = h.user("go");
    let _ = h.reply(&effects, text("done"));
    let effects = answer(
        &mut h,
        StopVerdict::Block {
            reason: "the tests still fail".into(),
        },
    );
    assert_eq!(Harness::finished(&effects), None);
    let kinds = h.kinds(0);
    assert_eq!(
        kinds[kinds.len() - 4..].to_vec(),
        vec![
            "stop_hook_decided",
            "step_finished",
            "step_started:stop_hook_blocked",
            "model_call_started:step"
        ]
    );
    let request = h.request();
    assert!(matches!(
        request.messages.last().unwrap(),
        Message::User { text } if text.contains("the tests still fail")
    ));
    // A finish call that passes its verifier is put to the hook too.
    let _ = h.reply(
        &effects,
        calls(vec![call("f", "finish", json!({"summary": "fixed"}))]),
    );
    let effects = h.tool_result("f", "verified", false);
    assert_eq!(asked(&effects).unwrap().stop, StopReason::VerifiedFinish);
}

#[test]
fn the_block_cap_ends_the_run_needing_a_human() {
    let mut h = hooked();
    let mut effects = h.user("go");
    for i in 0..8 {
        let _ = h.reply(&effects, text("done"));
        effects = answer(
            &mut h,
            StopVerdict::Block {
                reason: format!("no {i}"),
            },
        );
        assert_eq!(Harness::finished(&effects), None, "block {i} continues");
    }
    let _ = h.reply(&effects, text("done"));
    let effects = answer(
        &mut h,
        StopVerdict::Block {
            reason: "still no".into(),
        },
    );
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(
        outcome.stop,
        StopReason::NeedsHuman {
            reason: HumanReason::StopHookBlocked {
                reason: "still no".into()
            }
        }
    );
}

#[test]
fn a_hook_that_fails_is_reported_and_never_passes() {
    let mut h = hooked();
    let effects = h.user("go");
    let _ = h.reply(&effects, text("done"));
    let effects = answer(
        &mut h,
        StopVerdict::Failed {
            message: "the hook timed out after 30000 ms".into(),
        },
    );
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop.code(), "needs_human");
    assert!(outcome.explanation.contains("timed out"));
    assert_eq!(
        outcome.final_text, None,
        "the unchecked answer is not reported as final"
    );
}

#[test]
fn without_a_hook_nothing_is_asked_and_a_stray_answer_is_refused() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let effects = h.reply(&effects, text("done"));
    assert_eq!(asked(&effects), None);
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::Completed
    );
    assert_eq!(
        h.send(Input::StopHookAnswered {
            verdict: StopVerdict::Allow
        }),
        Err(tabloop::core::InputError::NoStopProposal)
    );
}

#[test]
fn a_question_pending_at_a_reload_is_asked_again() {
    let mut h = hooked();
    let effects = h.user("go");
    let _ = h.reply(&effects, text("done"));
    let mut agent = Agent::replay(&h.log).unwrap();
    agent.resume(h.now + 100);
    let mut again = None;
    while let Some(effect) = agent.poll() {
        if let Effect::AskStopHook(p) = effect {
            again = Some(p);
        }
    }
    assert_eq!(again.unwrap().final_text.as_deref(), Some("done"));
}
