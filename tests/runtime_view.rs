//! The playground's view models, built from real logs written by the core: the timeline, the
//! session summary, the live state of streamed output, the settings form and number texts.

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
use tabloop::core::{
    BudgetKind, BudgetLimits, Event, EvidenceDelta, Flight, Input, Record, StopReason,
    TransitionReason,
};
use tabloop::protocol::StreamDelta;
use tabloop::runtime::merge_provider;
use tabloop::runtime::options::{ProviderKind, ProviderOptions};
use tabloop::runtime::Notice;
use tabloop::view::*;

fn spent(steps: u32, tool_calls: u32, tokens: u64) -> LedgerSummary {
    LedgerSummary {
        steps,
        tool_calls,
        tokens,
        cost_usd: 0.0,
    }
}

fn evidence(new: u32, repeated: u32) -> Option<EvidenceDelta> {
    Some(EvidenceDelta {
        new_observations: new,
        repeated_observations: repeated,
    })
}

fn step(step: u32, reason: &str, before: LedgerSummary, after: LedgerSummary) -> StepMarker {
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
fn read_and_answer() -> Harness {
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
    assert_eq!(summary.phase, RunPhase::AwaitingApproval);

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
            phase: RunPhase::Finished {
                stop: StopReason::BudgetExhausted {
                    budget: BudgetKind::Steps
                }
            },
            spent: spent(1, 1, 110),
            limits: Some(limits),
            records: h.log.len() as u64,
            paused: None,
        }
    );
    assert_eq!(summary.phase.label(), "stopped: budget exhausted");
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
    assert_eq!(summary.phase, RunPhase::CallingModel);
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
fn the_summary_follows_a_run_in_flight() {
    let mut h = Harness::new(config());
    assert_eq!(SessionSummary::from_records(&h.log).phase, RunPhase::Idle);
    let effects = h.user("read the notes, then summarise them in one line please");
    let summary = SessionSummary::from_records(&h.log);
    assert!(summary.in_flight());
    assert_eq!(summary.phase, RunPhase::CallingModel);
    h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "notes.txt"}))]),
    );
    let summary = SessionSummary::from_records(&h.log);
    assert_eq!(
        (summary.in_flight(), summary.phase.clone(), summary.spent),
        (true, RunPhase::RunningTools, spent(1, 0, 0)),
        "the step in progress counts"
    );
    assert_eq!(summary.phase.label(), "running tools");
    h.tool_result("a", "notes", false);
    let summary = SessionSummary::from_records(&h.log);
    assert_eq!(
        summary.spent,
        spent(2, 1, 110),
        "step 1's spend, with step 2 under way"
    );
}

#[test]
fn model_text_is_kept_as_text_with_control_tokens_removed() {
    let mut h = Harness::new(config());
    let effects = h.user("hi");
    h.reply(
        &effects,
        text("<think>plan</think><img src=x onerror=alert(1)><|im_end|>"),
    );
    let timeline = Timeline::from_records(&h.log);
    assert_eq!(
        timeline.items()[2],
        TimelineItem::Assistant {
            text: "<img src=x onerror=alert(1)>".into()
        }
    );
}

#[test]
fn the_live_state_collects_deltas_until_the_reply_is_persisted() {
    let h = read_and_answer();
    let mut live = LiveState::default();
    assert!(live.apply(&Notice::Delta(StreamDelta::Text("The notes ".into()))));
    live.apply(&Notice::Delta(StreamDelta::Thinking("hmm".into())));
    live.apply(&Notice::Delta(StreamDelta::Text("say".into())));
    live.apply(&Notice::Delta(StreamDelta::ToolCallStarted {
        index: 0,
        id: "a".into(),
        name: "read_file".into(),
    }));
    assert_eq!(
        live,
        LiveState {
            streaming: "The notes say".into(),
            thinking: "hmm".into(),
            writing_tools: vec!["read_file".into()],
            storage_error: None,
        }
    );
    let reply: &Record = h
        .log
        .iter()
        .find(|r| matches!(r.event, Event::ModelReplied { .. }))
        .unwrap();
    let user: &Record = &h.log[1];
    assert!(!live.apply(&Notice::Persisted(user.clone())));
    assert!(live.apply(&Notice::Persisted(reply.clone())));
    assert_eq!(live, LiveState::default());

    assert!(live.apply(&Notice::StorageFailed("storage is full: quota".into())));
    assert_eq!(
        live.storage_error.as_deref(),
        Some("storage is full: quota")
    );
    assert!(live.apply(&Notice::StorageRecovered));
    assert!(!live.apply(&Notice::StorageRecovered));
    assert_eq!(live, LiveState::default());
}

#[test]
fn settings_become_options_and_never_show_the_key() {
    let settings = Settings {
        provider: ProviderKind::Openai,
        base_url: " https://example.test/v1 ".into(),
        api_key: "sk-secret".into(),
        model: "gpt-test".into(),
        max_steps: Some(7),
        gguf_url: "ignored.gguf".into(),
        ..Settings::default()
    };
    let options = settings.to_options(None);
    assert_eq!(
        options.provider,
        Some(ProviderOptions {
            kind: ProviderKind::Openai,
            base_url: Some("https://example.test/v1".into()),
            api_key: Some("sk-secret".into()),
            model: Some("gpt-test".into()),
        })
    );
    assert_eq!(options.budget.max_steps, Some(7));
    assert_eq!(options.session, None);
    assert!(!format!("{settings:?}").contains("sk-secret"));

    let local = Settings {
        gguf_url: "models/tiny.gguf".into(),
        ..Settings::default()
    };
    assert_eq!(
        local.to_options(Some("s9".into())).provider,
        Some(ProviderOptions {
            kind: ProviderKind::Local,
            base_url: Some("models/tiny.gguf".into()),
            api_key: None,
            model: None,
        })
    );
}

#[test]
fn a_resumed_session_keeps_its_provider_and_borrows_the_key() {
    let settings = Settings {
        provider: ProviderKind::Anthropic,
        api_key: "key".into(),
        model: "other-model".into(),
        ..Settings::default()
    };
    let stored = ProviderOptions {
        kind: ProviderKind::Anthropic,
        base_url: None,
        api_key: None,
        model: Some("stored-model".into()),
    };
    let options = settings.key_options("s1".into());
    assert_eq!(options.session.as_deref(), Some("s1"));
    assert_eq!(
        merge_provider(options.provider.clone(), Some(stored.clone())),
        Some(ProviderOptions {
            api_key: Some("key".into()),
            ..stored
        })
    );
    let local = ProviderOptions::default();
    assert_eq!(
        merge_provider(options.provider, Some(local.clone())),
        Some(local),
        "a key is never lent to another kind of provider"
    );
}

#[test]
fn the_provider_a_session_was_created_with_is_read_from_its_log() {
    let mut cfg = config();
    cfg.provider = json!({"kind": "openai", "baseUrl": null, "model": "m1"});
    let h = Harness::new(cfg);
    assert_eq!(
        stored_provider(&h.log),
        Some(ProviderOptions {
            kind: ProviderKind::Openai,
            base_url: None,
            api_key: None,
            model: Some("m1".into()),
        })
    );
    assert_eq!(stored_provider(&[]), None);
}

#[test]
fn form_values_parse_and_print() {
    assert_eq!(parse_max_steps(""), Ok(None));
    assert_eq!(parse_max_steps(" 12 "), Ok(Some(12)));
    assert!(parse_max_steps("0").is_err());
    assert!(parse_max_steps("many").is_err());
    for kind in [
        ProviderKind::Local,
        ProviderKind::Openai,
        ProviderKind::Anthropic,
    ] {
        assert_eq!(provider_from_value(provider_value(kind)), kind);
    }
    assert_eq!(provider_from_value("bogus"), ProviderKind::Local);
}

#[test]
fn numbers_read_well() {
    assert_eq!(format_count(1_234_567), "1,234,567");
    assert_eq!(format_count(999), "999");
    assert_eq!(format_cost(0.012345), "$0.0123");
    assert_eq!(format_bytes(512), "512 B");
    assert_eq!(format_bytes(3 * 1024 * 1024 / 2), "1.5 MiB");
    assert_eq!(
        spent(1, 1, 1234).text(),
        "1 step · 1 tool call · 1,234 tokens · $0.0000"
    );
    assert_eq!(
        spent(2, 0, 5).text(),
        "2 steps · 0 tool calls · 5 tokens · $0.0000"
    );
    assert_eq!(
        step_spend_text(&spent(1, 1, 110), Some(&spent(2, 3, 330))),
        "this step: 2 tool calls, 220 tokens, $0.0000 · run total: 2 steps · 3 tool calls · 330 tokens · $0.0000"
    );
    assert_eq!(
        step_spend_text(&spent(1, 1, 110), None),
        "in progress · run so far: 1 step · 1 tool call · 110 tokens · $0.0000"
    );
    let progress = DownloadProgress {
        phase: "download".into(),
        loaded: 1024 * 1024,
        total: Some(4 * 1024 * 1024),
        from_cache: false,
        per_second: None,
        note: None,
    };
    assert_eq!(
        progress.text(),
        "Downloading model: 1.0 MiB of 4.0 MiB (25%)"
    );
    assert_eq!(progress.fraction(), Some(0.25));
    assert!(!progress.done());
    let cached = DownloadProgress {
        phase: "cache".into(),
        loaded: 2048,
        total: None,
        from_cache: true,
        per_second: None,
        note: None,
    };
    assert_eq!(cached.text(), "Loading model from browser storage: 2.0 KiB");
    assert_eq!(cached.fraction(), None);
    let reading = DownloadProgress {
        phase: "prompt".into(),
        loaded: 120,
        total: Some(372),
        from_cache: true,
        per_second: None,
        note: None,
    };
    assert_eq!(reading.text(), "Reading the prompt: 120 of 372 tokens");
    assert!(!reading.done());
    let writing = DownloadProgress {
        phase: "writing".into(),
        loaded: 24,
        total: None,
        from_cache: true,
        per_second: Some(9.84),
        note: None,
    };
    assert_eq!(writing.text(), "Writing: 24 pieces (9.8/s)");
    let starting = DownloadProgress {
        phase: "init".into(),
        loaded: 10,
        total: Some(10),
        from_cache: true,
        per_second: None,
        note: Some("on the CPU: this browser has no WebGPU adapter".into()),
    };
    assert_eq!(
        starting.text(),
        "Starting the model (on the CPU: this browser has no WebGPU adapter)…"
    );
}

#[test]
fn a_remote_session_without_a_key_waits_for_one_and_a_local_one_never_does() {
    use tabloop::runtime::options::{AgentOptions, ProviderKind, ProviderOptions};
    use tabloop::view::missing_key;
    let remote = |key: Option<&str>| AgentOptions {
        provider: Some(ProviderOptions {
            kind: ProviderKind::Anthropic,
            base_url: None,
            api_key: key.map(str::to_string),
            model: Some("claude".into()),
        }),
        ..AgentOptions::default()
    };
    let why = missing_key(&remote(None)).expect("a key is needed");
    assert!(why.contains("the Anthropic API (claude)"), "{why}");
    assert_eq!(
        missing_key(&remote(Some("  "))).is_some(),
        true,
        "a blank key is no key"
    );
    assert_eq!(missing_key(&remote(Some("sk-x"))), None);
    assert_eq!(missing_key(&AgentOptions::default()), None);
    let local = AgentOptions {
        provider: Some(ProviderOptions::default()),
        ..AgentOptions::default()
    };
    assert_eq!(missing_key(&local), None);
}

#[test]
fn a_provider_pause_shows_in_the_summary_until_the_user_retries() {
    use tabloop::core::{Input, PauseReason};
    use tabloop::protocol::{ModelError, ModelErrorKind};
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let request = Harness::model_call(&effects);
    h.send(Input::ModelFailed {
        request,
        error: ModelError {
            kind: ModelErrorKind::Network,
            message: "offline".into(),
        },
    })
    .unwrap();
    let summary = SessionSummary::from_records(&h.log);
    assert!(summary.in_flight());
    assert!(summary.paused.as_deref().unwrap().contains("unreachable"));
    assert!(matches!(
        h.log.last().unwrap().event,
        tabloop::core::Event::RunPaused {
            reason: PauseReason::ProviderUnreachable { .. },
            ..
        }
    ));
    h.send(Input::RetryModel).unwrap();
    assert_eq!(SessionSummary::from_records(&h.log).paused, None);
}
