//! The playground's session summary, the live state of streamed output and number texts,
//! built from real logs written by the core.

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
use tabloop::core::{Event, Record, RunPhase, StopReason};
use tabloop::protocol::StreamDelta;
use tabloop::runtime::Notice;
use tabloop::view::*;
use view_support::*;

#[test]
fn the_summary_follows_a_run_in_flight() {
    let mut h = Harness::new(config());
    assert_eq!(
        *SessionSummary::from_records(&h.log).phase(),
        RunPhase::Idle
    );
    let effects = h.user("read the notes, then summarise them in one line please");
    let summary = SessionSummary::from_records(&h.log);
    assert!(summary.in_flight());
    assert_eq!(*summary.phase(), RunPhase::CallingModel);
    h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "notes.txt"}))]),
    );
    let summary = SessionSummary::from_records(&h.log);
    assert_eq!(
        (
            summary.in_flight(),
            summary.phase().clone(),
            summary.spent()
        ),
        (true, RunPhase::RunningTools, spent(1, 0, 0)),
        "the step in progress counts"
    );
    assert_eq!(summary.phase().label(), "running tools");
    h.tool_result("a", "notes", false);
    let summary = SessionSummary::from_records(&h.log);
    assert_eq!(
        summary.spent(),
        spent(2, 1, 110),
        "step 1's spend, with step 2 under way"
    );
}

/// The status bar: a completion reads as one, an unchecked finish says so, the rest as stops.
#[test]
fn a_finished_run_reads_as_completed_unverified_or_stopped() {
    let label = |stop| RunPhase::Finished { stop }.label();
    assert_eq!(label(StopReason::Completed), "completed");
    assert_eq!(label(StopReason::VerifiedFinish), "completed: verified");
    assert_eq!(
        label(StopReason::UnverifiedFinish),
        "finished: not verified"
    );
    assert_eq!(label(StopReason::Cancelled), "stopped: cancelled");
    assert_eq!(
        label(StopReason::ConsecutiveErrors { count: 3 }),
        "stopped: consecutive errors"
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
    let ready = DownloadProgress {
        phase: "ready".into(),
        loaded: 310,
        total: Some(310),
        from_cache: true,
        per_second: None,
        note: None,
    };
    assert_eq!(ready.text(), "Ready: 310 tokens of the prompt read ahead");
    assert!(ready.done());
    // A reply ended: the header no longer says the model is writing.
    let idle = |loaded, per_second| DownloadProgress {
        phase: "idle".into(),
        loaded,
        total: Some(loaded),
        from_cache: true,
        per_second,
        note: None,
    };
    assert_eq!(
        idle(18, Some(34.8)).text(),
        "Ready: the last reply was 18 pieces (34.8/s)"
    );
    assert_eq!(idle(1, None).text(), "Ready: the last reply was 1 piece");
    assert_eq!(idle(0, None).text(), "Ready");
    assert!(idle(18, Some(34.8)).done() && idle(0, None).done());
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
    h.send(Input::RetryPaused).unwrap();
    assert_eq!(SessionSummary::from_records(&h.log).paused, None);
}
