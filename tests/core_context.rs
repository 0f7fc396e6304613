//! What a model call carries of the session: every run's messages, or with `context_per_task`
//! (the in-tab model's default) the current run's only, while the log keeps them all.

#![allow(clippy::wildcard_enum_match_arm)]

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::CallPurpose;

/// A session whose first run read a file and answered at length, then a second task (with the
/// effects it asked for).
fn second_task(context_per_task: bool) -> (Harness, Vec<Effect>) {
    let mut cfg = config();
    cfg.context_per_task = context_per_task;
    let mut h = Harness::new(cfg);
    let effects = h.user("tell me a long story");
    let effects = h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "story.txt"}))]),
    );
    Harness::tool_calls(&effects);
    let effects = h.tool_result("a", "Once upon a time", false);
    let effects = h.reply(&effects, text("Once upon a time, a cat lived in a tab."));
    assert!(Harness::finished(&effects).is_some());
    let effects = h.user("What files do I have?");
    (h, effects)
}

#[test]
fn with_context_per_task_a_new_task_is_sent_alone() {
    let (h, _) = second_task(true);
    assert_eq!(
        h.request().messages.to_vec(),
        vec![Message::User {
            text: "What files do I have?".into()
        }]
    );
    // The log and the session's transcript keep the first run.
    assert_eq!(h.agent.state().transcript.len(), 5);
}

#[test]
fn by_default_a_new_task_is_sent_after_the_earlier_runs() {
    let (h, _) = second_task(false);
    let messages = h.request().messages.to_vec();
    assert_eq!(messages.len(), 5);
    assert_eq!(
        messages[0],
        Message::User {
            text: "tell me a long story".into()
        }
    );
}

#[test]
fn within_a_task_every_step_sees_the_task_and_its_steps() {
    let (mut h, effects) = second_task(true);
    let effects = h.reply(
        &effects,
        calls(vec![call("b", "read_file", json!({"path": "/"}))]),
    );
    Harness::tool_calls(&effects);
    h.tool_result("b", "story.txt", false);
    let messages = h.request().messages.to_vec();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(
        messages[0],
        Message::User {
            text: "What files do I have?".into()
        }
    );
}

#[test]
fn earlier_runs_left_out_of_the_context_never_make_a_compaction() {
    let mut cfg = config();
    cfg.context_per_task = true;
    cfg.context_window = 2_000;
    cfg.max_output_tokens = 100;
    cfg.compaction_keep_recent = 2;
    let mut h = Harness::new(cfg);
    // Runs that each fill most of the window, one after another.
    for i in 0..4 {
        let effects = h.user(&format!("task {i}"));
        assert!(
            effects.iter().all(|e| !matches!(
                e,
                Effect::CallModel {
                    purpose: CallPurpose::Compaction,
                    ..
                }
            )),
            "run {i} started with a compaction"
        );
        let effects = h.reply(&effects, text(&"y".repeat(4_000)));
        assert!(Harness::finished(&effects).is_some());
    }
}

#[test]
fn a_task_s_requests_share_its_messages_step_to_step_and_a_new_task_starts_afresh() {
    // So a client that remembers what it sent (the custom provider's deltas) sees only what is
    // new, and nothing is copied per step.
    let (mut h, effects) = second_task(true);
    let first = h.request().messages;
    let effects = h.reply(
        &effects,
        calls(vec![call("b", "read_file", json!({"path": "/"}))]),
    );
    Harness::tool_calls(&effects);
    let effects = h.tool_result("b", "story.txt", false);
    let next = h.request().messages;
    assert!(next.extends(first.lineage(), first.len()));
    assert_eq!(next[..first.len()], first[..]);
    let effects = h.reply(&effects, text("You have story.txt."));
    assert!(Harness::finished(&effects).is_some());
    h.user("And now?");
    let third = h.request().messages;
    assert!(
        !third.extends(next.lineage(), next.len()),
        "another task's messages"
    );
    assert_eq!(third.len(), 1);
}
