//! Loop detection scenarios: the 193-call runaway replayed, the same action on changed state,
//! A-B-A-B thrashing, stagnation, repeated errors, and the guard surviving compaction.

#![allow(clippy::wildcard_enum_match_arm)]

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::Detector;

/// Answers each model call with `make(i)` and each tool call with `result(i)`, up to `n` rounds
/// or until the run ends. Returns the outcome, if any.
fn drive(
    h: &mut Harness,
    n: usize,
    make: impl Fn(usize) -> ToolCall,
    result: impl Fn(usize) -> (String, bool),
) -> Option<tabloop::core::RunOutcome> {
    let mut effects = h.user("find the rebuild function");
    for i in 0..n {
        let mut reply = calls(vec![make(i)]);
        reply.text = format!("ink responserath{}", "</think>".repeat(i % 3));
        effects = h.reply(&effects, reply);
        if let Some(outcome) = Harness::finished(&effects) {
            return Some(outcome);
        }
        let id = Harness::tool_calls(&effects)[0].call.clone();
        let (content, is_error) = result(i);
        effects = h.tool_result(&id, &content, is_error);
        if let Some(outcome) = Harness::finished(&effects) {
            return Some(outcome);
        }
    }
    None
}

fn guard_events(h: &Harness) -> Vec<(Detector, bool, usize)> {
    // (detector, stop, number of tool results seen before it)
    let mut results = 0;
    let mut out = Vec::new();
    for event in h.events() {
        match event {
            Event::ToolCallFinished { .. } | Event::ToolCallRejected { .. } => results += 1,
            Event::GuardTriggered { detector, stop, .. } => out.push((*detector, *stop, results)),
            _ => {}
        }
    }
    out
}

/// The run stopped for repetition: diagnosed at the third repeat and stopped at the fifth, after
/// `before` tool results that came first.
fn assert_stopped_by_repetition(h: &Harness, outcome: &tabloop::core::RunOutcome, before: usize) {
    assert_eq!(
        outcome.stop,
        StopReason::NoProgress {
            detector: Detector::Repetition
        }
    );
    assert_eq!(
        guard_events(h),
        vec![
            (Detector::Repetition, false, before + 3),
            (Detector::Repetition, true, before + 5)
        ]
    );
}

#[test]
fn a_runaway_repeating_one_call_is_diagnosed_at_three_and_stopped_at_five() {
    let mut h = Harness::new(config());
    let grep = |i: usize| {
        call(
            &format!("c{i}"),
            "grep",
            json!({"pattern": "rebuild", "path": "src/"}),
        )
    };
    let outcome = drive(&mut h, 193, grep, |_| {
        ("src/a.rs:10: fn rebuild()".into(), false)
    })
    .unwrap();
    assert_stopped_by_repetition(&h, &outcome, 0);
    let tool_calls = h
        .events()
        .filter(|e| matches!(e, Event::ToolCallStarted { .. }))
        .count();
    assert_eq!(tool_calls, 5, "stopped after 5 calls, not 193");
    let diagnosis =
        h.agent.state().transcript.all().iter().any(
            |m| matches!(m, Message::User { text } if text.contains("Diagnose before retrying")),
        );
    assert!(diagnosis, "the diagnosis prompt was injected");
    let handoff = outcome.handoff.unwrap();
    assert!(
        handoff.findings.iter().any(|f| f.contains("fn rebuild()")),
        "{handoff:?}"
    );
}

#[test]
fn the_same_action_on_changed_state_is_progress() {
    let mut h = Harness::new(config());
    let grep = |i: usize| {
        call(
            &format!("c{i}"),
            "grep",
            json!({"pattern": "TODO", "path": "notes.txt"}),
        )
    };
    let outcome = drive(&mut h, 8, grep, |i| {
        (format!("notes.txt: {} matches", i + 1), false)
    });
    assert_eq!(outcome, None);
    assert_eq!(guard_events(&h), vec![]);
}

#[test]
fn whitespace_and_key_order_do_not_disguise_a_repeat() {
    let mut h = Harness::new(config());
    let variants = [
        r#"{"pattern":"rebuild","path":"src/"}"#,
        r#"{ "path": "src/",  "pattern": "rebuild" }"#,
        r#"{"pattern":"  rebuild ","path":"src/"}"#,
        r#"{"path":"src/","pattern":"rebuild"}"#,
        "{\n\"pattern\": \"rebuild\",\n\"path\": \"src/\"\n}",
    ];
    let make = |i: usize| ToolCall {
        id: format!("c{i}"),
        name: "grep".into(),
        arguments: variants[i % 5].into(),
    };
    let outcome = drive(&mut h, 10, make, |_| ("src/a.rs:10".into(), false)).unwrap();
    assert_eq!(
        outcome.stop,
        StopReason::NoProgress {
            detector: Detector::Repetition
        }
    );
}

#[test]
fn two_actions_alternating_with_unchanged_results_are_thrashing() {
    let mut h = Harness::new(config());
    let make = |i: usize| {
        let path = if i.is_multiple_of(2) {
            "a.txt"
        } else {
            "b.txt"
        };
        call(&format!("c{i}"), "read_file", json!({"path": path}))
    };
    let outcome = drive(&mut h, 20, make, |i| (format!("contents {}", i % 2), false)).unwrap();
    assert_eq!(
        outcome.stop,
        StopReason::NoProgress {
            detector: Detector::Thrashing
        }
    );
    assert_eq!(
        guard_events(&h),
        vec![
            (Detector::Thrashing, false, 4),
            (Detector::Thrashing, true, 6)
        ]
    );
}

#[test]
fn identical_results_while_the_actions_vary_are_stagnation() {
    let mut h = Harness::new(config());
    let make = |i: usize| {
        call(
            &format!("c{i}"),
            "read_file",
            json!({"path": format!("dir/file{i}.txt")}),
        )
    };
    let outcome = drive(&mut h, 20, make, |_| ("(empty file)".into(), false)).unwrap();
    assert_eq!(
        outcome.stop,
        StopReason::NoProgress {
            detector: Detector::Stagnation
        }
    );
    assert_eq!(
        guard_events(&h),
        vec![
            (Detector::Stagnation, false, 5),
            (Detector::Stagnation, true, 8)
        ]
    );
}

#[test]
fn the_same_error_with_varying_arguments_is_a_repeated_error() {
    let mut cfg = config();
    cfg.max_consecutive_errors = 100;
    let mut h = Harness::new(cfg);
    let make = |i: usize| {
        call(
            &format!("c{i}"),
            "read_file",
            json!({"path": format!("f{i}")}),
        )
    };
    // Errors alternate with distinct successes, so neither the breaker nor stagnation fires.
    let result = |i: usize| {
        if i.is_multiple_of(2) {
            ("permission denied".to_string(), true)
        } else {
            (format!("ok {i}"), false)
        }
    };
    let outcome = drive(&mut h, 20, make, result).unwrap();
    assert_eq!(
        outcome.stop,
        StopReason::NoProgress {
            detector: Detector::RepeatedError
        }
    );
    assert_eq!(
        guard_events(&h),
        vec![
            (Detector::RepeatedError, false, 5),
            (Detector::RepeatedError, true, 9)
        ]
    );
}

#[test]
fn thresholds_are_configurable() {
    let mut cfg = config();
    cfg.guard.repeat_diagnose = 2;
    cfg.guard.repeat_stop = 3;
    let mut h = Harness::new(cfg);
    let grep = |i: usize| {
        call(
            &format!("c{i}"),
            "grep",
            json!({"pattern": "x", "path": "y"}),
        )
    };
    drive(&mut h, 10, grep, |_| ("same".into(), false)).unwrap();
    assert_eq!(
        guard_events(&h),
        vec![
            (Detector::Repetition, false, 2),
            (Detector::Repetition, true, 3)
        ]
    );
}

#[test]
fn the_loop_guard_survives_compaction() {
    let mut cfg = config();
    cfg.context_window = 2_000;
    cfg.max_output_tokens = 100;
    cfg.compaction_keep_recent = 2;
    let mut h = Harness::new(cfg);
    let big = "x".repeat(1_500);
    let mut effects = h.user("go");
    let mut compactions = 0;
    for i in 0..12 {
        if let Some(Effect::CallModel {
            purpose: tabloop::core::CallPurpose::Compaction,
            ..
        }) = effects
            .iter()
            .find(|e| matches!(e, Effect::CallModel { .. }))
        {
            compactions += 1;
            effects = h.reply(&effects, text("summary: grepped for rebuild, same result"));
        }
        effects = h.reply(
            &effects,
            calls(vec![call(
                &format!("c{i}"),
                "grep",
                json!({"pattern": "p", "path": "q"}),
            )]),
        );
        if Harness::finished(&effects).is_some() {
            break;
        }
        let id = Harness::tool_calls(&effects)[0].call.clone();
        effects = h.tool_result(&id, &big, false);
        if Harness::finished(&effects).is_some() {
            break;
        }
    }
    assert!(compactions >= 1, "the context was compacted");
    assert_eq!(
        guard_events(&h),
        vec![
            (Detector::Repetition, false, 3),
            (Detector::Repetition, true, 5)
        ]
    );
}

#[test]
fn a_long_run_keeps_the_guard_small_and_still_catches_a_runaway() {
    let mut h = Harness::new(config_with_steps(5_000));
    let guard_size = |h: &Harness| {
        let run = h.agent.state().run.as_ref().unwrap();
        serde_json::to_string(&run.guard).unwrap().len()
    };
    // 2,000 distinct reads with distinct results (progress), then the same grep over and over.
    let distinct = 2_000;
    let outcome = drive(
        &mut h,
        distinct + 50,
        |i| {
            if i < distinct {
                call(
                    &format!("c{i}"),
                    "read_file",
                    json!({ "path": format!("f{i}") }),
                )
            } else {
                call(
                    &format!("c{i}"),
                    "grep",
                    json!({"pattern": "x", "path": "src/"}),
                )
            }
        },
        |i| (format!("content {}", i.min(distinct)), false),
    )
    .unwrap();
    let after_all = guard_size(&h);
    assert_stopped_by_repetition(&h, &outcome, distinct);
    // What it remembers is bounded: the same size after 500 distinct observations as after
    // 2,000 (it would be four times larger if it kept them all).
    let mut short = Harness::new(config_with_steps(2_000));
    drive(
        &mut short,
        500,
        |i| {
            call(
                &format!("c{i}"),
                "read_file",
                json!({ "path": format!("f{i}") }),
            )
        },
        |i| (format!("content {i}"), false),
    );
    let at_500 = guard_size(&short);
    assert!(
        after_all < at_500 * 5 / 4,
        "guard {after_all} bytes after {distinct}, {at_500} after 500"
    );
}

fn config_with_steps(steps: u32) -> tabloop::core::AgentConfig {
    let mut cfg = config();
    cfg.budget.max_steps = Some(steps);
    cfg.budget.max_tool_calls = Some(steps);
    // No compaction: every step answers a tool call.
    cfg.context_window = 1_000_000_000;
    cfg
}
