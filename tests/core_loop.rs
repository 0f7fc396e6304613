//! Loop scenarios: completion proposals, the finish verifier, todos, output-token recovery,
//! consecutive errors and cancellation — each asserting the whole event sequence.

#![allow(clippy::wildcard_enum_match_arm)]

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::TransitionReason;

#[test]
fn a_final_answer_with_no_tool_call_completes_the_run() {
    let mut h = Harness::new(config());
    let effects = h.user("What is 2+2?");
    let effects = h.reply(&effects, text("4"));
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::Completed);
    assert_eq!(outcome.final_text.as_deref(), Some("4"));
    assert_eq!(outcome.steps, 1);
    assert_eq!(
        h.kinds(0),
        vec![
            "session_started",
            "user_message",
            "run_started",
            "step_started:next_turn",
            "model_call_started:step",
            "model_replied",
            "step_finished",
            "run_finished:completed",
        ]
    );
}

#[test]
fn tool_results_go_back_to_the_model_and_each_step_records_its_budget_and_evidence() {
    let mut h = Harness::new(config());
    let effects = h.user("read notes");
    let effects = h.reply(
        &effects,
        calls(vec![call("c1", "read_file", json!({"path": "notes.txt"}))]),
    );
    let invocations = Harness::tool_calls(&effects);
    assert_eq!(invocations.len(), 1);
    assert_eq!(invocations[0].args, json!({"path": "notes.txt"}));
    assert_eq!(invocations[0].idempotency_key, "s1:1:c1");
    let effects = h.tool_result("c1", "hello", false);
    let request = h.request();
    assert_eq!(
        request.messages.last().unwrap(),
        &Message::Tool {
            call_id: "c1".into(),
            name: "read_file".into(),
            content: "hello".into(),
            is_error: false
        }
    );
    h.reply(&effects, text("It says hello."));
    let steps: Vec<_> = h
        .events()
        .filter_map(|e| match e {
            Event::StepFinished {
                step,
                budget_after,
                evidence_delta,
                ..
            } => Some((
                *step,
                budget_after.steps,
                budget_after.tool_calls,
                evidence_delta.new_observations,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(steps, vec![(1, 1, 1, 1), (2, 2, 1, 0)]);
    let reasons: Vec<_> = h
        .events()
        .filter_map(|e| match e {
            Event::StepStarted {
                reason,
                budget_before,
                ..
            } => Some((reason.clone(), budget_before.steps)),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        vec![
            (TransitionReason::NextTurn, 0),
            (TransitionReason::ToolResults, 1)
        ]
    );
}

#[test]
fn an_open_todo_blocks_completion_until_it_is_done() {
    let mut h = Harness::new(config());
    let effects = h.user("plan and do");
    let todo_open = json!({"items": [{"id": "1", "text": "check file", "status": "open"}]});
    let effects = h.reply(&effects, calls(vec![call("t1", "todo", todo_open)]));
    assert_eq!(
        Harness::tool_calls(&effects),
        vec![],
        "todo runs inside the core"
    );
    let effects = h.reply(&effects, text("All done."));
    assert_eq!(Harness::finished(&effects), None);
    let rejected: Vec<_> = h
        .events()
        .filter_map(|e| match e {
            Event::CompletionRejected { blockers } => Some(blockers.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        rejected,
        vec![vec!["Open todo items: \"check file\" (1). Finish them or mark them done with the todo tool.".to_string()]]
    );
    let todo_done = json!({"items": [{"id": "1", "text": "check file", "status": "done"}]});
    let effects = h.reply(&effects, calls(vec![call("t2", "todo", todo_done)]));
    let effects = h.reply(&effects, text("All done."));
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::Completed
    );
    let reasons: Vec<_> = h
        .kinds(0)
        .into_iter()
        .filter(|k| k.starts_with("step_started"))
        .collect();
    assert_eq!(
        reasons,
        vec![
            "step_started:next_turn",
            "step_started:tool_results",
            "step_started:stop_hook_blocked",
            "step_started:tool_results",
        ]
    );
}

#[test]
fn a_premature_finish_is_rejected_by_the_verifier_and_fed_back_as_an_error() {
    let mut h = Harness::new(config());
    let effects = h.user("fix the bug");
    let effects = h.reply(
        &effects,
        calls(vec![call("f1", "finish", json!({"summary": "fixed"}))]),
    );
    let invocations = Harness::tool_calls(&effects);
    assert_eq!(invocations[0].tool, "finish", "the host runs the verifier");
    let effects = h.tool_result("f1", "Verification failed: 2 tests fail", true);
    assert_eq!(Harness::finished(&effects), None);
    let request = h.request();
    assert!(
        matches!(request.messages.last().unwrap(), Message::Tool { is_error: true, content, .. } if content.contains("2 tests fail"))
    );
    // A plain final answer now is blocked by the failed verification.
    let effects = h.reply(&effects, text("Done, it is fixed."));
    assert_eq!(Harness::finished(&effects), None);
    let _ = h.reply(
        &effects,
        calls(vec![call(
            "f2",
            "finish",
            json!({"summary": "fixed for real"}),
        )]),
    );
    let effects = h.tool_result("f2", "ok", false);
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::VerifiedFinish);
    assert_eq!(outcome.final_text.as_deref(), Some("fixed for real"));
}

#[test]
fn finish_is_refused_without_running_the_verifier_while_a_todo_is_open() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let todo = json!({"items": [{"id": "a", "text": "step a", "status": "open"}]});
    let effects = h.reply(
        &effects,
        calls(vec![
            call("t", "todo", todo),
            call("f", "finish", json!({"summary": "x"})),
        ]),
    );
    assert_eq!(Harness::tool_calls(&effects), vec![]);
    assert!(h
        .kinds(0)
        .contains(&"tool_call_rejected:completion_blocked".to_string()));
}

#[test]
fn require_finish_blocks_a_plain_final_answer() {
    let mut cfg = config();
    cfg.require_finish = true;
    let mut h = Harness::new(cfg);
    let effects = h.user("go");
    let effects = h.reply(&effects, text("done"));
    assert_eq!(Harness::finished(&effects), None);
    h.reply(
        &effects,
        calls(vec![call("f", "finish", json!({"summary": "done"}))]),
    );
    let effects = h.tool_result("f", "verified", false);
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::VerifiedFinish
    );
}

#[test]
fn completion_blocks_are_capped_then_the_run_needs_a_human() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let todo = json!({"items": [{"id": "a", "text": "never done", "status": "open"}]});
    let mut effects = h.reply(&effects, calls(vec![call("t", "todo", todo)]));
    for _ in 0..8 {
        effects = h.reply(&effects, text("done"));
        assert_eq!(Harness::finished(&effects), None);
    }
    let effects = h.reply(&effects, text("done"));
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop.code(), "needs_human");
    assert!(
        outcome.explanation.contains("8 times in a row"),
        "{}",
        outcome.explanation
    );
    let rejections = h
        .events()
        .filter(|e| matches!(e, Event::CompletionRejected { .. }))
        .count();
    assert_eq!(rejections, 8);
}

#[test]
fn a_reply_cut_at_max_tokens_is_continued_at_most_three_times_in_a_row() {
    let mut h = Harness::new(config());
    let mut effects = h.user("write a long essay");
    for attempt in 1..=3 {
        effects = h.reply(&effects, cut_text("part"));
        assert_eq!(Harness::finished(&effects), None);
        let request = h.request();
        assert_eq!(
            request.messages.last().unwrap(),
            &Message::User {
                text: tabloop::core::CONTINUE_PROMPT.into()
            },
            "attempt {attempt}"
        );
    }
    let effects = h.reply(&effects, cut_text("part"));
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::OutputLimit
    );
    let reasons: Vec<_> = h
        .kinds(0)
        .into_iter()
        .filter(|k| k.starts_with("step_started"))
        .collect();
    assert_eq!(
        reasons,
        vec![
            "step_started:next_turn",
            "step_started:output_token_recovery",
            "step_started:output_token_recovery",
            "step_started:output_token_recovery",
        ]
    );
}

#[test]
fn a_recovered_reply_resets_the_output_token_counter() {
    let mut h = Harness::new(config());
    let effects = h.user("essay");
    let effects = h.reply(&effects, cut_text("part one"));
    let effects = h.reply(&effects, text("part two, the end"));
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::Completed
    );
}

#[test]
fn tool_calls_in_a_cut_reply_are_never_executed() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let mut reply = calls(vec![call("c", "read_file", json!({"path": "a"}))]);
    reply.finish = tabloop::protocol::FinishReason::MaxTokens;
    let effects = h.reply(&effects, reply);
    assert_eq!(Harness::tool_calls(&effects), vec![]);
    assert!(h
        .kinds(0)
        .contains(&"tool_call_rejected:cut_at_output_limit".to_string()));
    assert!(h
        .kinds(0)
        .contains(&"step_started:output_token_recovery".to_string()));
}

#[test]
fn three_consecutive_tool_failures_stop_the_run() {
    let mut h = Harness::new(config());
    let mut effects = h.user("go");
    for (i, path) in ["a", "b", "c"].iter().enumerate() {
        h.reply(
            &effects,
            calls(vec![call(
                &format!("c{i}"),
                "read_file",
                json!({"path": path}),
            )]),
        );
        effects = h.tool_result(&format!("c{i}"), &format!("ENOENT: {path}"), true);
    }
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::ConsecutiveErrors { count: 3 });
    assert!(outcome.handoff.is_some());
}

#[test]
fn a_success_between_failures_resets_the_breaker() {
    let mut h = Harness::new(config());
    let mut effects = h.user("go");
    for (i, (path, fail)) in [
        ("a", true),
        ("b", true),
        ("c", false),
        ("d", true),
        ("e", true),
    ]
    .iter()
    .enumerate()
    {
        h.reply(
            &effects,
            calls(vec![call(
                &format!("c{i}"),
                "read_file",
                json!({"path": path}),
            )]),
        );
        effects = h.tool_result(&format!("c{i}"), &format!("result {path}"), *fail);
    }
    assert_eq!(Harness::finished(&effects), None);
}

#[test]
fn cancelling_mid_tool_aborts_it_and_ends_the_run_keeping_the_transcript_well_formed() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let effects = h.reply(
        &effects,
        calls(vec![call("slow", "read_file", json!({"path": "big"}))]),
    );
    assert_eq!(Harness::tool_calls(&effects).len(), 1);
    let effects = h.send(Input::cancel()).unwrap();
    assert_eq!(
        effects[0],
        Effect::Abort {
            request: None,
            calls: vec!["slow".into()]
        }
    );
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::Cancelled
    );
    assert_eq!(
        h.kinds(0)[h.log.len() - 3..].to_vec(),
        vec![
            "tool_call_interrupted",
            "step_finished",
            "run_finished:cancelled"
        ]
    );
    // A late result is refused, and the transcript answers the call.
    assert_eq!(
        h.send(Input::ToolFinished {
            call: "slow".into(),
            content: "x".into(),
            is_error: false
        }),
        Err(InputError::UnexpectedCall("slow".into()))
    );
    let last = h.agent.state().transcript.all().last().unwrap().clone();
    assert!(
        matches!(last, Message::Tool { is_error: true, ref content, .. } if content.contains("cancelled"))
    );
    // The session continues with a new run.
    let effects = h.user("try again");
    assert_eq!(h.agent.run().unwrap().number, 2);
    Harness::model_call(&effects);
}

#[test]
fn cancelling_while_the_model_thinks_aborts_the_request() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let request = Harness::model_call(&effects);
    let effects = h.send(Input::cancel()).unwrap();
    assert_eq!(
        effects[0],
        Effect::Abort {
            request: Some(request),
            calls: vec![]
        }
    );
    assert_eq!(
        h.send(Input::ModelReplied {
            request,
            reply: text("late")
        }),
        Err(InputError::StaleRequest(request))
    );
}

#[test]
fn leaked_control_tokens_never_reach_the_context() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let mut reply = calls(vec![call("c", "read_file", json!({"path": "a"}))]);
    reply.text = "ink</think>rath<|im_end|>".into();
    let effects = h.reply(&effects, reply);
    h.tool_result("c", "data", false);
    let _ = effects;
    let request = h.request();
    let assistant = request
        .messages
        .iter()
        .find(|m| matches!(m, Message::Assistant { .. }))
        .unwrap();
    assert!(matches!(assistant, Message::Assistant { text, .. } if text == "inkrath"));
}

#[test]
fn a_user_message_during_a_run_joins_the_next_step() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let effects = h.reply(
        &effects,
        calls(vec![call("c", "read_file", json!({"path": "a"}))]),
    );
    assert!(h
        .send(Input::UserMessage {
            text: "also check b".into(),
            budget: None
        })
        .unwrap()
        .is_empty());
    h.tool_result("c", "data", false);
    let _ = effects;
    let request = h.request();
    assert_eq!(
        request.messages.last().unwrap(),
        &Message::User {
            text: "also check b".into()
        }
    );
}

#[test]
fn a_failed_model_call_that_retrying_cannot_help_ends_the_run_with_a_fatal_error() {
    use tabloop::protocol::{ModelError, ModelErrorKind};
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let request = Harness::model_call(&effects);
    let error = ModelError {
        kind: ModelErrorKind::Http {
            status: 401,
            retry_after_ms: None,
            should_retry: None,
        },
        message: "invalid API key".into(),
    };
    let effects = h.send(Input::ModelFailed { request, error }).unwrap();
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::FatalError);
    assert!(outcome.explanation.contains("invalid API key"));
}
