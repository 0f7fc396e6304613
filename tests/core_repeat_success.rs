//! A model that asks again for the call that just succeeded (as small local models do once a
//! task is done): with `end_on_repeated_success` the runtime does not run it again and ends the
//! run with that call's result; without it, or when anything differs, the call runs.

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::{Agent, Detector, Rejection};

fn harness(end_on_repeated_success: bool) -> Harness {
    let mut cfg = config();
    cfg.guard.end_on_repeated_success = end_on_repeated_success;
    Harness::new(cfg)
}

/// The task, one read that returns `result` (an error when `is_error`), then `again` as the
/// next reply. Returns the effects of that reply.
fn read_then(h: &mut Harness, result: &str, is_error: bool, again: ToolCall) -> Vec<Effect> {
    let effects = h.user("read notes.txt");
    let _ = h.reply(
        &effects,
        calls(vec![call("c1", "read_file", json!({"path": "notes.txt"}))]),
    );
    let effects = h.tool_result("c1", result, is_error);
    h.reply(&effects, calls(vec![again]))
}

fn started(h: &Harness) -> usize {
    h.events()
        .filter(|e| matches!(e, Event::ToolCallStarted { .. }))
        .count()
}

#[test]
fn the_same_call_right_after_its_success_ends_the_run_with_its_result() {
    let mut h = harness(true);
    // Same value, other key order and spacing: still the same call.
    let again = ToolCall {
        id: "c2".into(),
        name: "read_file".into(),
        arguments: r#"{ "path" : "notes.txt" }"#.into(),
    };
    let effects = read_then(&mut h, "hello", false, again);
    let outcome = Harness::finished(&effects).expect("the run ended");
    assert_eq!(outcome.stop, StopReason::Completed);
    assert_eq!(
        outcome.final_text.as_deref(),
        Some(
            "The read_file call succeeded; the model asked for the same call again, so the run \
             ends here. Its result:\nhello"
        )
    );
    assert_eq!(started(&h), 1, "the repeat was not run");
    let rejected = h.events().any(|e| {
        matches!(e, Event::ToolCallRejected { call, rejection: Rejection::RepeatsSuccess, .. } if call == "c2")
    });
    assert!(rejected, "the repeat is answered in the log");
    let guard = h.events().any(|e| {
        matches!(
            e,
            Event::GuardTriggered {
                detector: Detector::RepeatedSuccess,
                stop: true,
                ..
            }
        )
    });
    assert!(guard, "the runtime's decision is recorded");
    // Every call in the transcript has its result (a later run may go to any provider).
    let last = h.agent.state().transcript.all().last().cloned();
    assert!(matches!(last, Some(Message::Tool { call_id, is_error: true, .. }) if call_id == "c2"));
    // Decided from the recorded reply: a replay decides the same.
    assert_eq!(Agent::replay(&h.log).unwrap().state(), h.agent.state());
}

#[test]
fn without_the_setting_the_repeat_runs() {
    let mut h = harness(false);
    let effects = read_then(
        &mut h,
        "hello",
        false,
        call("c2", "read_file", json!({"path": "notes.txt"})),
    );
    assert_eq!(Harness::finished(&effects), None);
    assert_eq!(Harness::tool_calls(&effects).len(), 1);
    assert_eq!(started(&h), 2);
}

#[test]
fn a_different_call_or_a_repeat_after_an_error_runs() {
    let mut other_args = harness(true);
    let effects = read_then(
        &mut other_args,
        "hello",
        false,
        call("c2", "read_file", json!({"path": "b.txt"})),
    );
    assert_eq!(
        (Harness::finished(&effects), started(&other_args)),
        (None, 2)
    );

    let mut other_tool = harness(true);
    let effects = read_then(
        &mut other_tool,
        "hello",
        false,
        call("c2", "grep", json!({"pattern": "x", "path": "notes.txt"})),
    );
    assert_eq!(
        (Harness::finished(&effects), started(&other_tool)),
        (None, 2)
    );

    let mut after_error = harness(true);
    let effects = read_then(
        &mut after_error,
        "no such file",
        true,
        call("c2", "read_file", json!({"path": "notes.txt"})),
    );
    assert_eq!(
        (Harness::finished(&effects), started(&after_error)),
        (None, 2)
    );
}

#[test]
fn an_open_todo_keeps_the_run_going() {
    let mut h = harness(true);
    let effects = h.user("note it and read notes.txt");
    let effects = h.reply(
        &effects,
        calls(vec![call(
            "t1",
            "todo",
            json!({"items": [{"id": "1", "text": "read notes.txt", "status": "open"}]}),
        )]),
    );
    let _ = h.reply(
        &effects,
        calls(vec![call("c1", "read_file", json!({"path": "notes.txt"}))]),
    );
    let effects = h.tool_result("c1", "hello", false);
    let effects = h.reply(
        &effects,
        calls(vec![call("c2", "read_file", json!({"path": "notes.txt"}))]),
    );
    assert_eq!(Harness::finished(&effects), None, "the todo is still open");
    let ran_again = h
        .events()
        .any(|e| matches!(e, Event::ToolCallStarted { call, .. } if call == "c2"));
    assert!(ran_again);
}

#[test]
fn a_long_result_is_quoted_cut() {
    let mut h = harness(true);
    let long = "x".repeat(2_000);
    let effects = read_then(
        &mut h,
        &long,
        false,
        call("c2", "read_file", json!({"path": "notes.txt"})),
    );
    let text = Harness::finished(&effects)
        .and_then(|o| o.final_text)
        .unwrap();
    let quoted = text.rsplit('\n').next().unwrap();
    assert_eq!(quoted.chars().count(), 601);
    assert!(quoted.ends_with('…'));
}
