//! A tool that cannot reach its server (the network is gone) pauses the run instead of showing
//! the model an error: the call waits in its batch, nothing else starts, a retry sends it again
//! — as it was when it was never sent, after a person's approval when it may have reached its
//! server and is not safe to repeat — and the log replays and verifies.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::wildcard_enum_match_arm
)]

mod core_support;
use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::{verify_replay, Agent, InterruptCause, PauseReason, Permission, SlotState};

/// The test config plus `post(url)`: allowed, sequential, not idempotent (like an MCP tool that
/// changes something on its server).
fn with_post() -> tabloop::core::AgentConfig {
    let mut config = reflective_config();
    config
        .tools
        .push(host_tool("post", &["url"], Permission::Allow, false, false));
    config
}

/// A run whose one call, `post` as `p`, is running.
fn posting(config: tabloop::core::AgentConfig) -> Harness {
    let mut h = Harness::new(config);
    let effects = h.user("post it");
    h.reply(
        &effects,
        calls(vec![call(
            "p",
            "post",
            json!({"url": "https://example.test/a"}),
        )]),
    );
    h
}

fn unreachable(h: &mut Harness, call: &str, sent: bool) -> Vec<Effect> {
    h.send(Input::ToolUnreachable {
        call: call.into(),
        error: "offline: the browser has no network connection".into(),
        sent,
    })
    .unwrap()
}

fn paused(h: &Harness) -> Option<PauseReason> {
    h.agent.run().and_then(|r| r.paused())
}

fn slot_state(h: &Harness, call: &str) -> SlotState {
    match &h.agent.run().unwrap().phase {
        tabloop::core::Phase::Tools(batch) => batch.slot(call).unwrap().state.clone(),
        other => panic!("no batch: {other:?}"),
    }
}

/// The log folds back into the live state, and feeding its inputs again writes it byte for byte.
fn replays_and_verifies(h: &Harness) {
    assert_eq!(Agent::replay(&h.log).unwrap().state(), h.agent.state());
    assert_eq!(verify_replay(&h.log).unwrap().divergence, None);
}

#[test]
fn a_call_refused_offline_pauses_the_run_and_is_sent_again_as_it_was() {
    let mut h = Harness::new(with_post());
    let effects = h.user("post it, then read it back");
    let effects = h.reply(
        &effects,
        calls(vec![
            call("p", "post", json!({"url": "https://example.test/a"})),
            call("r", "read_file", json!({"path": "a"})),
        ]),
    );
    assert_eq!(Harness::tool_calls(&effects)[0].call, "p");
    let effects = unreachable(&mut h, "p", false);
    assert!(
        effects.is_empty(),
        "nothing starts while paused: {effects:?}"
    );
    assert_eq!(paused(&h), Some(PauseReason::ToolUnreachable));
    assert_eq!(slot_state(&h, "p"), SlotState::Pending);
    let kinds: Vec<&Event> = h.log.iter().rev().take(2).map(|r| &r.event).collect();
    assert!(matches!(
        kinds[1],
        Event::ToolCallInterrupted { call, cause: InterruptCause::Offline, error: Some(e) }
            if call == "p" && e.contains("offline")
    ));
    assert!(matches!(
        kinds[0],
        Event::RunPaused { reason: PauseReason::ToolUnreachable, message }
            if message.contains("post") && message.contains("was not sent")
    ));
    // The model never saw an error: the transcript has no result for the call yet.
    assert!(!h
        .log
        .iter()
        .any(|r| matches!(&r.event, Event::ToolCallFinished { call, .. } if call == "p")));

    // A tick or a hidden tab does not start it either.
    assert!(h.send(Input::tick()).unwrap().is_empty());
    let effects = h.send(Input::RetryPaused).unwrap();
    assert_eq!(paused(&h), None);
    let again = Harness::tool_calls(&effects);
    assert_eq!(again.len(), 1, "only the paused call: {effects:?}");
    assert_eq!(again[0].call, "p");
    assert_eq!(
        again[0].idempotency_key, "s1:1:p",
        "the same call, so a server can tell a resend"
    );
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::AskApproval { .. })),
        "never sent: no approval needed"
    );
    let effects = h.tool_result("p", "posted", false);
    assert_eq!(Harness::tool_calls(&effects)[0].call, "r");
    let effects = h.tool_result("r", "the post", false);
    let effects = h.reply(&effects, text("Posted and read back."));
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::Completed);
    // The resend is attempt 2 of the same call, not a new call of the model's.
    assert_eq!(h.agent.run().unwrap().ledger.tool_calls, 2);
    replays_and_verifies(&h);
}

#[test]
fn a_call_cut_by_the_network_asks_before_it_is_repeated_unless_it_is_idempotent() {
    let mut h = posting(with_post());
    unreachable(&mut h, "p", true);
    assert!(matches!(
        &h.log.last().unwrap().event,
        Event::RunPaused { message, .. } if message.contains("may have reached its server")
    ));
    let effects = h.send(Input::RetryPaused).unwrap();
    assert!(Harness::tool_calls(&effects).is_empty());
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::AskApproval { call, after_interrupt: true, .. } if call == "p"
    )));
    replays_and_verifies(&h);

    // An idempotent tool is simply sent again.
    let mut h = Harness::new(with_post());
    let effects = h.user("read it");
    h.reply(
        &effects,
        calls(vec![call("r", "read_file", json!({"path": "a"}))]),
    );
    unreachable(&mut h, "r", true);
    let effects = h.send(Input::RetryPaused).unwrap();
    assert_eq!(Harness::tool_calls(&effects)[0].call, "r");
    replays_and_verifies(&h);
}

#[test]
fn calls_already_running_finish_while_paused_and_the_batch_waits_for_the_paused_one() {
    let mut h = Harness::new(with_post());
    let effects = h.user("read both");
    let effects = h.reply(
        &effects,
        calls(vec![
            call("a", "read_file", json!({"path": "a"})),
            call("b", "read_file", json!({"path": "b"})),
        ]),
    );
    assert_eq!(Harness::tool_calls(&effects).len(), 2, "parallel-safe");
    unreachable(&mut h, "a", false);
    let effects = h.tool_result("b", "bee", false);
    assert!(
        effects.is_empty(),
        "the batch waits for the paused call: {effects:?}"
    );
    assert_eq!(slot_state(&h, "a"), SlotState::Pending);
    assert!(matches!(slot_state(&h, "b"), SlotState::Done { .. }));
    let effects = h.send(Input::RetryPaused).unwrap();
    assert_eq!(
        Harness::tool_calls(&effects)
            .iter()
            .map(|c| c.call.as_str())
            .collect::<Vec<_>>(),
        vec!["a"]
    );
    let effects = h.tool_result("a", "ay", false);
    Harness::model_call(&effects);
    replays_and_verifies(&h);
}

#[test]
fn a_run_paused_on_a_tool_stays_paused_across_a_reload_and_goes_on_after_a_retry() {
    let mut h = posting(with_post());
    unreachable(&mut h, "p", false);
    let mut agent = Agent::replay(&h.log).unwrap();
    agent.resume(h.now + 60_000);
    let effects: Vec<Effect> = std::iter::from_fn(|| agent.poll()).collect();
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::CallTool(_) | Effect::CallModel { .. })),
        "a reload does not send the paused call: {effects:?}"
    );
    assert_eq!(
        agent.run().unwrap().paused(),
        Some(PauseReason::ToolUnreachable)
    );
    agent.handle(Input::RetryPaused, h.now + 61_000).unwrap();
    let effects: Vec<Effect> = std::iter::from_fn(|| agent.poll()).collect();
    assert!(effects
        .iter()
        .any(|e| matches!(e, Effect::CallTool(c) if c.call == "p")));
}

#[test]
fn paused_time_is_not_charged_and_a_cancel_ends_the_paused_run_with_the_call_not_run() {
    let mut config = with_post();
    config.budget.max_wall_ms = Some(30_000);
    let mut h = posting(config);
    unreachable(&mut h, "p", false);
    h.tick(120_000);
    let effects = h.send(Input::tick()).unwrap();
    assert!(
        Harness::finished(&effects).is_none(),
        "two paused minutes are not charged to a 30 s budget"
    );
    let effects = h.send(Input::cancel()).unwrap();
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::Cancelled);
    assert_eq!(
        h.send(Input::RetryPaused),
        Err(InputError::NoActiveRun),
        "nothing to retry after the run ended"
    );
    replays_and_verifies(&h);
}

#[test]
fn an_unreachable_report_for_a_call_that_is_not_running_is_refused() {
    let mut h = posting(with_post());
    let wrong = h.send(Input::ToolUnreachable {
        call: "nope".into(),
        error: "offline".into(),
        sent: false,
    });
    assert_eq!(wrong, Err(InputError::UnexpectedCall("nope".into())));
    assert_eq!(
        h.send(Input::RetryPaused),
        Err(InputError::NotPaused),
        "a run that is not paused has nothing to retry"
    );
}
