//! The playground's timeline, built from real logs written by the core: calls and results,
//! approvals, cancels, provider failures and budget stops. The summary and live state are in
//! runtime_view_summary.rs, the settings in runtime_view_settings.rs.

#![allow(
    clippy::wildcard_enum_match_arm,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod core_support;
mod view_support;

use core_support::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::{
    BudgetKind, BudgetLimits, Event, Flight, Input, PhaseFold, StopReason, TransitionReason,
};
use tabloop::view::*;
use view_support::*;

#[test]
fn a_tool_call_gets_its_result_and_the_run_ends_completed() {
    let h = read_and_answer();
    let timeline = Timeline::from_records(&h.log);
    assert_eq!(
        timeline.items(),
        &[
            TimelineItem::User {
                text: "read the notes".into()
            },
            TimelineItem::Step(StepMarker {
                evidence: evidence(1, 0),
                ..step(1, "new task", spent(0, 0, 0), spent(1, 1, 110))
            }),
            TimelineItem::ToolCall(ToolCallView {
                call: "a".into(),
                name: "read_file".into(),
                args: "{\n  \"path\": \"notes.txt\"\n}".into(),
                status: ToolStatus::Finished {
                    result: "hello <b>world</b>".into(),
                    is_error: false,
                },
            }),
            TimelineItem::Step(StepMarker {
                evidence: evidence(0, 0),
                ..step(2, "tool results", spent(1, 1, 110), spent(2, 1, 220))
            }),
            TimelineItem::Assistant {
                text: "The notes say hello.".into()
            },
            TimelineItem::RunFinished(RunEnd {
                stop: "completed",
                budget_stop: false,
                explanation: "The model gave a final answer.".into(),
                final_text: Some("The notes say hello.".into()),
                shown_above: true,
                handoff: None,
            }),
        ]
    );
    let kinds: Vec<&str> = timeline.items().iter().map(TimelineItem::kind).collect();
    assert_eq!(
        kinds,
        [
            "user",
            "step",
            "tool_call",
            "step",
            "assistant",
            "run_finished"
        ]
    );
    assert_eq!(timeline.run(), 1);
    assert_eq!(timeline.next_seq(), h.log.len() as u64);
}

#[test]
fn an_answer_the_runtime_ended_the_run_with_is_shown_with_the_run_s_end() {
    // The model asks again for the read that just succeeded: the run ends with its result as
    // the answer, which no model message above holds.
    let mut cfg = config();
    cfg.guard.end_on_repeated_success = true;
    let mut h = Harness::new(cfg);
    let effects = h.user("read the notes");
    let read = || calls(vec![call("a", "read_file", json!({"path": "notes.txt"}))]);
    let _ = h.reply(&effects, read());
    let effects = h.tool_result("a", "hello", false);
    let again = calls(vec![call("b", "read_file", json!({"path": "notes.txt"}))]);
    let _ = h.reply(&effects, again);
    let timeline = Timeline::from_records(&h.log);
    let Some(TimelineItem::RunFinished(end)) = timeline.items().last() else {
        panic!("the run finished last: {:?}", timeline.items().last());
    };
    assert_eq!(end.stop, "completed");
    assert!(end
        .final_text
        .as_deref()
        .is_some_and(|t| t.ends_with("Its result:\nhello")));
    assert!(
        !end.shown_above,
        "no model message above holds it: it is shown with the end"
    );
    // The repeat shows the runtime's own sentence, once (not a label saying it again).
    let repeat = timeline.items().iter().find_map(|item| match item {
        TimelineItem::ToolCall(c) if c.call == "b" => Some(c.status.clone()),
        _ => None,
    });
    assert_eq!(
        repeat,
        Some(ToolStatus::Rejected {
            reason: "Not run again: the same call had just succeeded.".into()
        })
    );
}

#[test]
fn an_item_changed_after_it_was_added_gets_a_new_key() {
    let h = read_and_answer();
    let mut timeline = Timeline::default();
    let tool_started = h
        .log
        .iter()
        .position(|r| matches!(r.event, Event::ToolCallStarted { .. }))
        .unwrap();
    for record in &h.log[..tool_started] {
        timeline.push(record);
    }
    assert_eq!(timeline.keys(), vec![(0, 0), (1, 0), (2, 0)]);
    timeline.push(&h.log[tool_started]);
    assert_eq!(
        timeline.keys(),
        vec![(0, 0), (1, 0), (2, 1)],
        "the call started"
    );
}

#[test]
fn records_seen_before_are_ignored_so_a_loaded_log_and_live_notices_may_overlap() {
    let h = read_and_answer();
    let mut timeline = Timeline::from_records(&h.log[..6]);
    let mut summary = SessionSummary::from_records(&h.log[..6]);
    for record in &h.log[3..] {
        timeline.push(record);
        summary.push(record);
    }
    assert_eq!(timeline, Timeline::from_records(&h.log));
    assert_eq!(summary, SessionSummary::from_records(&h.log));
    assert!(!timeline.push(&h.log[2]), "a duplicate is not new");
}

#[test]
fn approvals_rejections_and_denials_show_on_the_calls() {
    let mut h = Harness::new(config());
    let effects = h.user("clean up");
    h.reply(
        &effects,
        calls(vec![
            call("w", "write_file", json!({"path": "a", "text": "x"})),
            call("d", "delete_all", json!({})),
            call("u", "no_such_tool", json!({})),
        ]),
    );
    let timeline = Timeline::from_records(&h.log);
    let pending = timeline.pending_approvals();
    assert_eq!(
        pending,
        vec![ToolCallView {
            call: "w".into(),
            name: "write_file".into(),
            args: "{\n  \"path\": \"a\",\n  \"text\": \"x\"\n}".into(),
            status: ToolStatus::AwaitingApproval {
                after_interrupt: false
            },
        }]
    );
    let summary = SessionSummary::from_records(&h.log);
    assert_eq!(*summary.phase(), RunPhase::AwaitingApproval);

    let args_hash = h
        .events()
        .find_map(|e| match e {
            Event::ApprovalRequested { args_hash, .. } => Some(args_hash.clone()),
            _ => None,
        })
        .unwrap();
    h.send(Input::ApprovalDecided {
        call: "w".into(),
        args_hash,
        approved: false,
        reason: Some("not now".into()),
    })
    .unwrap();
    let timeline = Timeline::from_records(&h.log);
    assert_eq!(timeline.pending_approvals(), vec![]);
    let statuses: Vec<(String, ToolStatus)> = timeline
        .items()
        .iter()
        .filter_map(|item| match item {
            TimelineItem::ToolCall(c) => Some((c.call.clone(), c.status.clone())),
            _ => None,
        })
        .collect();
    let denied_message = h
        .events()
        .find_map(|e| match e {
            Event::ToolCallRejected { call, message, .. } if call == "d" => Some(message.clone()),
            _ => None,
        })
        .unwrap();
    let unknown_message = h
        .events()
        .find_map(|e| match e {
            Event::ToolCallRejected { call, message, .. } if call == "u" => Some(message.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        statuses,
        vec![
            (
                "w".to_string(),
                ToolStatus::Rejected {
                    reason: "denied by the user: not now".into()
                }
            ),
            (
                "d".to_string(),
                ToolStatus::Rejected {
                    reason: format!("denied by policy: {denied_message}")
                }
            ),
            (
                "u".to_string(),
                ToolStatus::Rejected {
                    reason: format!("unknown tool: {unknown_message}")
                }
            ),
        ]
    );
}

#[test]
fn a_run_cancelled_while_a_call_awaits_approval_leaves_it_not_run() {
    let mut h = Harness::new(config());
    let effects = h.user("write it");
    h.reply(
        &effects,
        calls(vec![call(
            "w",
            "write_file",
            json!({"path": "a", "text": "x"}),
        )]),
    );
    h.send(Input::cancel()).unwrap();
    let timeline = Timeline::from_records(&h.log);
    assert_eq!(timeline.pending_approvals(), vec![]);
    let call = timeline.items().iter().find_map(|item| match item {
        TimelineItem::ToolCall(c) => Some(c.status.clone()),
        _ => None,
    });
    assert_eq!(
        call,
        Some(ToolStatus::Interrupted {
            cause: "the run ended first".into()
        })
    );
    let end = timeline.items().last().unwrap();
    match end {
        TimelineItem::RunFinished(end) => {
            assert_eq!((end.stop, end.budget_stop), ("cancelled", false));
            assert!(end
                .handoff
                .as_deref()
                .unwrap()
                .starts_with("Task: write it\n"));
        }
        other => panic!("expected the run's end, got {other:?}"),
    }
}

#[test]
fn what_the_model_wrote_before_a_cancel_stays_on_screen_marked_as_cut_off() {
    let mut h = Harness::new(config());
    h.user("write a long story");
    h.send(Input::Cancel {
        partial_reply: "Once upon a".into(),
    })
    .unwrap();
    let timeline = Timeline::from_records(&h.log);
    let items = timeline.items();
    let at = items
        .iter()
        .position(|item| matches!(item, TimelineItem::Assistant { text } if text == "Once upon a"))
        .expect("the partial reply is shown");
    assert!(
        matches!(&items[at + 1], TimelineItem::Note { text } if text.starts_with("Stopped while the model was writing")),
        "{:?}",
        items[at + 1]
    );
    assert!(
        matches!(items.last(), Some(TimelineItem::RunFinished(end)) if end.stop == "cancelled")
    );
}

#[test]
fn a_refused_key_or_a_missing_model_says_what_to_do_and_other_failures_do_not() {
    let notes = |status: u16| {
        let mut h = Harness::new(config());
        let effects = h.user("hello");
        h.fail(
            &effects,
            tabloop::protocol::ModelError {
                kind: tabloop::protocol::ModelErrorKind::Http {
                    status,
                    retry_after_ms: None,
                    should_retry: None,
                },
                message: format!("HTTP {status}"),
            },
        );
        Timeline::from_records(&h.log)
            .items()
            .iter()
            .filter_map(|item| match item {
                TimelineItem::Note { text } => Some(text.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    for status in [401, 403] {
        assert_eq!(
            notes(status),
            vec![format!(
                "The provider refused the API key (HTTP {status}): enter the right one under \
                 Model & budget and send the task again; this session takes the new key."
            )]
        );
    }
    assert_eq!(
        notes(404),
        vec![
            "The provider has no such model or address (HTTP 404): check the base URL and model \
             under Model & budget. A session keeps the model it started with, so run the task in \
             a New session."
                .to_string()
        ]
    );
    assert_eq!(notes(400), Vec::<String>::new());
}

#[test]
fn a_budget_stop_offers_doubled_limits_and_continuing_puts_the_run_back_in_flight() {
    let mut cfg = config();
    cfg.budget.max_steps = Some(1);
    let mut h = Harness::new(cfg);
    let effects = h.user("look around");
    let effects = h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "x"}))]),
    );
    assert!(Harness::finished(&effects).is_none());
    h.tool_result("a", "content", false);
    let summary = SessionSummary::from_records(&h.log);
    let limits = BudgetLimits {
        max_steps: Some(1),
        max_tool_calls: Some(200),
        max_input_tokens: None,
        max_output_tokens: None,
        max_cost_usd: None,
        max_wall_ms: None,
    };
    assert_eq!(
        summary,
        SessionSummary {
            session: "s1".into(),
            title: "look around".into(),
            flight: Flight::Ended { run: 1 },
            phase: PhaseFold {
                phase: RunPhase::Finished {
                    stop: StopReason::BudgetExhausted {
                        budget: BudgetKind::Steps
                    }
                },
                open_approvals: 0,
            },
            // The spend's ledger is checked through its summary and limits below.
            spend: summary.spend,
            records: h.log.len() as u64,
            paused: None,
        }
    );
    assert_eq!(
        (summary.spent(), summary.limits(), summary.spend.step_start),
        (spent(1, 1, 110), Some(limits), None),
        "the one step's spend, closed"
    );
    assert_eq!(summary.phase().label(), "stopped: budget exhausted");
    let doubled = summary.extended_limits().unwrap();
    assert_eq!(
        doubled,
        BudgetLimits {
            max_steps: Some(2),
            max_tool_calls: Some(400),
            ..limits
        }
    );
    let timeline = Timeline::from_records(&h.log);
    match timeline.items().last().unwrap() {
        TimelineItem::RunFinished(end) => {
            assert_eq!((end.stop, end.budget_stop), ("budget_exhausted", true))
        }
        other => panic!("expected the run's end, got {other:?}"),
    }

    h.send(Input::ExtendBudget { budget: doubled }).unwrap();
    let summary = SessionSummary::from_records(&h.log);
    assert!(summary.in_flight());
    assert_eq!(*summary.phase(), RunPhase::CallingModel);
    assert_eq!(summary.extended_limits(), None);
    let timeline = Timeline::from_records(&h.log);
    let tail: Vec<&str> = timeline
        .items()
        .iter()
        .rev()
        .take(2)
        .map(TimelineItem::kind)
        .collect();
    assert_eq!(tail, ["step", "note"]);
    match timeline.items().last().unwrap() {
        TimelineItem::Step(marker) => assert_eq!(
            (marker.step, marker.reason.as_str()),
            (
                2,
                transition_label(&TransitionReason::BudgetContinuation).as_str()
            )
        ),
        other => panic!("expected a step marker, got {other:?}"),
    }
}

#[test]
fn the_timeline_says_when_the_next_task_is_read_without_the_earlier_ones() {
    for alone in [true, false] {
        let mut cfg = config();
        cfg.context_per_task = alone;
        let mut h = Harness::new(cfg);
        assert!(
            !Timeline::from_records(&h.log).next_task_alone(),
            "no task yet"
        );
        let effects = h.user("What is 2+2?");
        h.reply(&effects, text("4"));
        assert_eq!(Timeline::from_records(&h.log).next_task_alone(), alone);
    }
}
