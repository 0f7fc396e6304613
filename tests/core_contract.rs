//! The loop reports what happened: a finish nobody verified is not called verified, a dropped
//! stream is retried and then pauses instead of ending the run, a malformed reply is an error the
//! guards count, completion rules only name what can block, and a fork reaches any run.
#![allow(clippy::wildcard_enum_match_arm)]

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;

#[test]
fn finish_without_a_verifier_ends_unverified_and_never_reaches_the_host() {
    let mut cfg = config();
    cfg.finish_verifier = false;
    let mut h = Harness::new(cfg);
    let effects = h.user("go");
    let effects = h.reply(
        &effects,
        calls(vec![call("f1", "finish", json!({"summary": "all done"}))]),
    );
    assert_eq!(Harness::tool_calls(&effects), vec![], "no host call");
    let outcome = Harness::finished(&effects).expect("the run ended");
    assert_eq!(outcome.stop, StopReason::UnverifiedFinish);
    assert_eq!(outcome.stop.code(), "unverified_finish");
    assert_eq!(outcome.final_text.as_deref(), Some("all done"));
    assert!(outcome.explanation.contains("no verifier"));
    let result = h.events().find_map(|e| match e {
        Event::ToolCallFinished {
            content, is_error, ..
        } => Some((content.clone(), *is_error)),
        _ => None,
    });
    let (content, is_error) = result.unwrap();
    assert!(!is_error);
    assert!(content.contains("not checked"), "{content}");
    // Replay folds the same decision.
    let replayed = tabloop::core::Agent::replay(&h.log).unwrap();
    assert_eq!(replayed.state(), h.agent.state());
}

#[test]
fn finish_with_a_verifier_is_run_by_the_host_and_verified_only_when_it_passes() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let effects = h.reply(
        &effects,
        calls(vec![call("f1", "finish", json!({"summary": "all done"}))]),
    );
    assert_eq!(Harness::tool_calls(&effects)[0].tool, "finish");
    let effects = h.tool_result("f1", "checked", false);
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::VerifiedFinish
    );
}

fn malformed(text: &str) -> tabloop::protocol::ModelReply {
    tabloop::protocol::ModelReply {
        finish: tabloop::protocol::FinishReason::Malformed,
        ..core_support::text(text)
    }
}

#[test]
fn a_malformed_reply_is_an_error_the_model_sees_never_a_final_answer() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let effects = h.reply(&effects, malformed("Sure! I will read the file."));
    assert_eq!(Harness::finished(&effects), None, "not a final answer");
    assert_eq!(
        h.kinds(0)[h.kinds(0).len() - 4..].to_vec(),
        vec![
            "tool_call_rejected:malformed_reply",
            "step_finished",
            "step_started:tool_results",
            "model_call_started:step",
        ]
    );
    let request = h.request();
    match &request.messages[request.messages.len() - 2..] {
        [Message::Assistant { text, tool_calls }, Message::Tool {
            is_error, content, ..
        }] => {
            assert_eq!(
                text, "Sure! I will read the file.",
                "the model sees what it wrote"
            );
            assert_eq!(tool_calls[0].name, tabloop::core::MALFORMED_REPLY_CALL);
            assert!(*is_error);
            assert!(content.contains("neither a tool call nor a final answer"));
        }
        other => panic!("unexpected tail {other:#?}"),
    }
    let run = h.agent.run().unwrap();
    assert_eq!(run.consecutive_errors, 1, "the error breaker counts it");
    assert_eq!(run.ledger.tool_calls, 0, "no tool-call budget is charged");
}

#[test]
fn malformed_replies_in_a_row_stop_the_run_through_the_error_breaker() {
    let mut h = Harness::new(config());
    let mut effects = h.user("go");
    for _ in 0..3 {
        effects = h.reply(&effects, malformed("not json"));
    }
    let outcome = Harness::finished(&effects).expect("stopped");
    assert_eq!(outcome.stop, StopReason::ConsecutiveErrors { count: 3 });
    assert_eq!(
        tabloop::core::Agent::replay(&h.log).unwrap().state(),
        h.agent.state()
    );
}

fn cut_stream(partial: &str) -> tabloop::protocol::ModelError {
    tabloop::protocol::ModelError {
        kind: tabloop::protocol::ModelErrorKind::Truncated {
            partial: Some(Box::new(core_support::text(partial))),
        },
        message: "the stream ended before its end marker".into(),
    }
}

#[test]
fn a_cut_stream_is_resent_in_the_same_step_with_backoff_and_its_partial_text_dropped() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    assert_eq!(Harness::delay_of(&effects), 0);
    let effects = h.fail(&effects, cut_stream("PARTIAL"));
    assert_eq!(Harness::delay_of(&effects), 250, "the first resend waits");
    let request = h.request();
    assert!(
        !format!("{:?}", request.messages).contains("PARTIAL"),
        "the partial reply is not in the context"
    );
    let effects = h.fail(&effects, cut_stream("PARTIAL"));
    assert_eq!(Harness::delay_of(&effects), 500, "and the wait doubles");
    let effects = h.reply(&effects, text("whole answer"));
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::Completed);
    assert_eq!(outcome.steps, 1, "resends take no step");
    assert_eq!(
        h.kinds(0),
        vec![
            "session_started",
            "user_message",
            "run_started",
            "step_started:next_turn",
            "model_call_started:step",
            "model_failed",
            "model_retry_scheduled",
            "model_call_started:step",
            "model_failed",
            "model_retry_scheduled",
            "model_call_started:step",
            "model_replied",
            "step_finished",
            "run_finished:completed",
        ]
    );
}

#[test]
fn a_provider_that_stays_down_pauses_the_run_and_retry_goes_on_in_the_same_step() {
    let mut h = Harness::new(config());
    let mut effects = h.user("go");
    for _ in 0..=tabloop::core::MAX_STREAM_RETRIES {
        effects = h.fail(&effects, cut_stream("x"));
    }
    assert_eq!(Harness::finished(&effects), None, "no terminal outcome");
    assert!(
        effects.is_empty(),
        "nothing is sent while paused: {effects:?}"
    );
    let run = h.agent.run().unwrap();
    assert!(run.paused().is_some() && run.step_open());
    assert!(
        h.agent.state().flight.in_flight(),
        "the run is still in flight"
    );
    assert!(matches!(
        h.log.last().unwrap().event,
        Event::RunPaused { ref message, .. } if message.contains("unreachable")
    ));
    // Paused time is not charged to the wall-clock budget.
    let active_before = h.agent.run().unwrap().ledger.active_ms;
    h.tick(60_000);
    let effects = h.send(tabloop::core::Input::RetryPaused).unwrap();
    assert_eq!(
        Harness::delay_of(&effects),
        0,
        "a retry the user asked for is sent at once"
    );
    let run = h.agent.run().unwrap();
    assert!(run.paused().is_none());
    assert!(run.ledger.active_ms - active_before < 1_000);
    assert!(run.ledger.suspended_ms >= 60_000);
    let effects = h.reply(&effects, text("back"));
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!((outcome.stop, outcome.steps), (StopReason::Completed, 1));
    assert_eq!(
        tabloop::core::Agent::replay(&h.log).unwrap().state(),
        h.agent.state()
    );
    assert_eq!(
        h.send(tabloop::core::Input::RetryPaused),
        Err(tabloop::core::InputError::NoActiveRun)
    );
}

#[test]
fn a_client_that_used_up_its_retries_pauses_at_once_and_a_refused_key_is_fatal() {
    let http = |status: u16| tabloop::protocol::ModelError {
        kind: tabloop::protocol::ModelErrorKind::Http {
            status,
            retry_after_ms: None,
            should_retry: None,
        },
        message: format!("HTTP {status}"),
    };
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let effects = h.fail(&effects, http(503));
    assert!(effects.is_empty());
    assert!(h.agent.run().unwrap().paused().is_some());

    let mut h = Harness::new(config());
    let effects = h.user("go");
    let effects = h.fail(&effects, http(401));
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::FatalError
    );
}

#[test]
fn a_paused_run_stays_paused_when_the_page_is_reopened() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let _ = h.fail(
        &effects,
        tabloop::protocol::ModelError {
            kind: tabloop::protocol::ModelErrorKind::Network,
            message: "offline".into(),
        },
    );
    let mut agent = tabloop::core::Agent::replay(&h.log).unwrap();
    agent.resume(h.now + 5_000);
    let mut actions = Vec::new();
    while let Some(effect) = agent.poll() {
        if !matches!(effect, tabloop::core::Effect::Persist(_)) {
            actions.push(effect);
        }
    }
    assert_eq!(actions, vec![], "no call is sent until the user retries");
    assert!(agent.run().unwrap().paused().is_some());
}

/// Two runs of two steps each: a read, then an answer.
fn two_runs() -> Harness {
    let mut h = Harness::new(config());
    for (run, task) in [(1, "first"), (2, "second")] {
        let effects = h.user(task);
        let id = format!("r{run}");
        let _ = h.reply(
            &effects,
            calls(vec![call(
                &id,
                "read_file",
                json!({"path": format!("{task}.txt")}),
            )]),
        );
        let effects = h.tool_result(&id, &format!("{task} content"), false);
        let effects = h.reply(&effects, text(&format!("{task} done")));
        assert!(Harness::finished(&effects).is_some());
    }
    h
}

#[test]
fn a_fork_reaches_any_step_of_any_run() {
    let h = two_runs();
    let forked = tabloop::core::Agent::fork_run(&h.log, 1, 1, "f1").unwrap();
    let mut agent = tabloop::core::Agent::replay(&forked).unwrap();
    assert_eq!(agent.run().unwrap().number, 1, "the copy resumes run 1");
    assert_eq!(agent.run().unwrap().task, "first");
    assert!(!format!("{:?}", agent.state().transcript).contains("second"));
    agent.resume(h.now + 10);
    let mut asked = false;
    while let Some(effect) = agent.poll() {
        asked |= matches!(effect, tabloop::core::Effect::CallModel { .. });
    }
    assert!(asked, "it goes on with step 2 of run 1");
    // Without a run the last run that has the step is used, as before.
    let last = tabloop::core::Agent::fork(&h.log, 1, "f2").unwrap();
    assert_eq!(
        tabloop::core::Agent::replay(&last)
            .unwrap()
            .run()
            .unwrap()
            .number,
        2
    );
    // Step 0 of run 2: the copy holds run 1 whole and run 2 before its first step.
    let start = tabloop::core::Agent::fork_run(&h.log, 2, 0, "f3").unwrap();
    assert!(matches!(
        start.last().unwrap().event,
        Event::RunStarted { run: 2, .. }
    ));
    assert_eq!(
        tabloop::core::Agent::fork_run(&h.log, 3, 1, "f4").err(),
        Some(tabloop::core::ReplayError::NoSuchRun(3))
    );
    assert_eq!(
        tabloop::core::Agent::fork_run(&h.log, 1, 7, "f5").err(),
        Some(tabloop::core::ReplayError::NoSuchStep(7))
    );
}

#[test]
fn a_hidden_tab_suspends_a_run_and_an_idle_session_records_nothing() {
    let mut h = Harness::new(config());
    let before = h.log.len();
    assert_eq!(h.send(tabloop::core::Input::Suspend).unwrap(), vec![]);
    assert_eq!(
        h.log.len(),
        before,
        "no run, nothing charged, nothing recorded"
    );
    let effects = h.user("go");
    h.send(tabloop::core::Input::Suspend).unwrap();
    h.tick(30_000);
    h.send(tabloop::core::Input::Resume).unwrap();
    let effects = h.reply(&effects, text("done"));
    let ledger = match &h.log[h.log.len() - 2].event {
        Event::StepFinished { budget_after, .. } => *budget_after,
        other => panic!("{other:?}"),
    };
    assert!(ledger.suspended_ms >= 30_000);
    assert!(ledger.active_ms < 1_000, "{ledger:?}");
    assert!(Harness::finished(&effects).is_some());
}

#[test]
fn finish_is_checked_only_after_every_call_before_it_has_its_result() {
    let mut cfg = config();
    // Even a finish declared parallel-safe waits for the calls before it.
    for tool in &mut cfg.tools {
        tool.parallel_safe = true;
    }
    let mut h = Harness::new(cfg);
    let effects = h.user("go");
    let effects = h.reply(
        &effects,
        calls(vec![
            call("w", "write_file", json!({"path": "a", "text": "x"})),
            call("r", "read_file", json!({"path": "a"})),
            call("f", "finish", json!({"summary": "done"})),
        ]),
    );
    let asked: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            tabloop::core::Effect::AskApproval { call, .. } => Some(call.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asked, vec!["w"]);
    assert_eq!(
        Harness::tool_calls(&effects),
        vec![],
        "nothing runs before w is decided"
    );
    let hash = h
        .agent
        .run()
        .and_then(|r| match &r.phase {
            tabloop::core::Phase::Tools(b) => Some(b.slots[0].args_hash.clone()),
            _ => None,
        })
        .unwrap();
    let effects = h
        .send(tabloop::core::Input::ApprovalDecided {
            call: "w".into(),
            args_hash: hash,
            approved: true,
            reason: None,
        })
        .unwrap();
    let names: Vec<_> = Harness::tool_calls(&effects)
        .into_iter()
        .map(|i| i.tool)
        .collect();
    assert_eq!(names, vec!["write_file"]);
    let effects = h.tool_result("w", "written", false);
    let names: Vec<_> = Harness::tool_calls(&effects)
        .into_iter()
        .map(|i| i.tool)
        .collect();
    assert_eq!(names, vec!["read_file"]);
    let effects = h.tool_result("r", "x", false);
    let names: Vec<_> = Harness::tool_calls(&effects)
        .into_iter()
        .map(|i| i.tool)
        .collect();
    assert_eq!(names, vec!["finish"], "the verifier runs last");
    let effects = h.tool_result("f", "ok", false);
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::VerifiedFinish
    );
}
