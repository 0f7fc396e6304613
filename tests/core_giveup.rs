//! The loop knowing when it is beaten (the reflective rules, default for new sessions): a
//! forced reflection before every runtime stop, stops that name the repeating calls, the
//! `give_up` tool, and honest repetitive runs left alone (overdue todos, the budget endgame and
//! the repeated success are in core_escalation.rs). Every scenario is also replayed and
//! verified, since the decisions must come out the same from the log.

#![allow(clippy::wildcard_enum_match_arm)]

mod core_support;

use core_support::prelude::*;
use core_support::reflective::*;
use pretty_assertions::assert_eq;
use tabloop::core::{CallPurpose, Detector};

#[test]
fn a_noisy_edit_test_revert_cycle_is_stopped_after_a_reflection_naming_the_calls() {
    let mut h = Harness::new(reflective_config());
    let script = |i: usize| match i % 4 {
        0 => call(
            &format!("c{i}"),
            "write_file",
            json!({"path": "src/parse.rs", "text": "fix A"}),
        ),
        2 => call(
            &format!("c{i}"),
            "write_file",
            json!({"path": "src/parse.rs", "text": "orig"}),
        ),
        _ => call(
            &format!("c{i}"),
            "grep",
            json!({"pattern": "FAIL", "path": "test.log"}),
        ),
    };
    let result = |i: usize| match i % 4 {
        0 | 2 => ("ok".to_string(), false),
        _ => (
            format!(
                "[2026-12-05T04:{:02}:11Z] FAIL test_header (run {i}, {}ms)",
                i,
                400 + i * 7
            ),
            false,
        ),
    };
    // write_file asks for approval: approve each as it comes.
    let mut effects = h.user("fix the bug in the parser");
    let mut requests = 0;
    let mut outcome = None;
    for i in 0..30 {
        requests += 1;
        let reflection = effects.iter().any(|e| {
            matches!(
                e,
                Effect::CallModel {
                    purpose: CallPurpose::Reflection,
                    ..
                }
            )
        });
        if reflection {
            effects = h.reply(&effects, reflect(false));
        } else {
            let c = script(i);
            let id = c.id.clone();
            effects = h.reply(&effects, calls(vec![c]));
            if let Some(Effect::AskApproval { args_hash, .. }) = effects
                .iter()
                .find(|e| matches!(e, Effect::AskApproval { .. }))
            {
                effects = h
                    .send(Input::ApprovalDecided {
                        call: id.clone(),
                        args_hash: args_hash.clone(),
                        approved: true,
                        reason: None,
                    })
                    .unwrap();
            }
            if !Harness::tool_calls(&effects).is_empty() {
                let (content, err) = result(i);
                effects = h.tool_result(&id, &content, err);
            }
        }
        if let Some(o) = Harness::finished(&effects) {
            outcome = Some(o);
            break;
        }
    }
    let outcome = outcome.expect("the run ended inside its budget");
    assert!(
        matches!(outcome.stop, StopReason::NoProgress { .. }),
        "{:?}",
        outcome.stop
    );
    assert!(requests <= 12, "{requests} requests");
    assert!(reflections_before_stop(&h) >= 1);
    let stuck = outcome.handoff.unwrap().stuck_on;
    assert!(stuck.iter().any(|l| l.contains("grep(")), "{stuck:#?}");
    assert!(
        stuck.iter().any(|l| l.contains("does not exercise")),
        "the reflection's answer is in the handoff: {stuck:#?}"
    );
    assert_replays(&h);
}

#[test]
fn distinct_but_similar_failing_searches_end_no_progress_with_a_reflection_first() {
    let mut h = Harness::new(reflective_config());
    let names = [
        "parse_header",
        "read_header",
        "header_len",
        "split_header",
        "HeaderMap",
        "hdr",
        "headers",
        "parse_line",
        "line_end",
        "crlf",
        "lf",
        "eol",
    ];
    let script = |i: usize| {
        call(
            &format!("c{i}"),
            "grep",
            json!({"pattern": names[i % names.len()], "path": "src"}),
        )
    };
    let result = |i: usize| {
        (
            format!("grep: no match for {} in src", names[i % names.len()]),
            false,
        )
    };
    let (outcome, requests) = drive(&mut h, 30, &script, &result, &|| reflect(false));
    let outcome = outcome.expect("ended inside the budget");
    assert_eq!(
        outcome.stop,
        StopReason::NoProgress {
            detector: Detector::Stagnation
        }
    );
    assert!(requests <= 12, "{requests} requests");
    assert_eq!(reflections_before_stop(&h), 1);
    assert!(outcome
        .handoff
        .unwrap()
        .stuck_on
        .iter()
        .any(|l| l.contains("grep(")));
    assert_replays(&h);
}

#[test]
fn a_reflection_that_gives_up_ends_the_run_gave_up_with_its_account() {
    let mut h = Harness::new(reflective_config());
    let script = |i: usize| call(&format!("c{i}"), "read_file", json!({"path": "missing.rs"}));
    let result = |_| ("error: no such file: missing.rs".to_string(), true);
    let (outcome, _) = drive(&mut h, 30, &script, &result, &|| reflect(true));
    let outcome = outcome.unwrap();
    assert_eq!(outcome.stop, StopReason::GaveUp);
    assert_eq!(outcome.final_text, None);
    let handoff = outcome.handoff.unwrap();
    assert!(handoff
        .stuck_on
        .iter()
        .any(|l| l.contains("does not exercise")));
    assert!(handoff.progress.iter().any(|l| l.starts_with("tried: ")));
    assert_replays(&h);
}

#[test]
fn tool_errors_in_a_row_ask_for_a_reflection_before_the_breaker_stops_the_run() {
    let mut h = Harness::new(reflective_config());
    let script = |i: usize| {
        call(
            &format!("c{i}"),
            "read_file",
            json!({"path": format!("f{i}.rs")}),
        )
    };
    let result = |i: usize| {
        (
            format!(
                "error {i}: permission denied ({})",
                ["a", "bb", "ccc", "dddd", "e"][i % 5]
            ),
            true,
        )
    };
    let (outcome, requests) = drive(&mut h, 30, &script, &result, &|| reflect(false));
    let outcome = outcome.unwrap();
    assert!(
        matches!(
            outcome.stop,
            StopReason::ConsecutiveErrors { .. } | StopReason::NoProgress { .. }
        ),
        "{:?}",
        outcome.stop
    );
    assert_eq!(reflections_before_stop(&h), 1, "{:#?}", h.kinds(0));
    assert!(requests <= 8, "{requests}");
    assert_replays(&h);
}

#[test]
fn transient_errors_are_retried_without_a_diagnosis() {
    let mut h = Harness::new(reflective_config());
    let mut effects = h.user("read the report");
    for (i, (content, err)) in [
        ("429 Too Many Requests: rate limit, try again", true),
        ("503 Service Unavailable", true),
        ("report: 12 rows", false),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("c{i}");
        h.reply(
            &effects,
            calls(vec![call(&id, "read_file", json!({"path": "r.csv"}))]),
        );
        effects = h.tool_result(&id, content, err);
    }
    let effects = h.reply(&effects, text("The report has 12 rows."));
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::Completed
    );
    assert!(!h
        .events()
        .any(|e| matches!(e, Event::GuardTriggered { .. })));
    assert_replays(&h);
}

#[test]
fn honest_paging_through_a_long_file_is_never_diagnosed() {
    let mut h = Harness::new(reflective_config());
    let outcome = h.read_until_finished(
        "summarise the log",
        20,
        |i| format!("log.txt#{}", i * 50),
        |i| {
            (0..6)
                .map(|l| {
                    format!(
                        "{} GET /api/item/{} {}",
                        i * 50 + l,
                        (i * 13 + l * 7) % 97,
                        200 + (l % 3) * 100
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        },
    );
    assert_eq!(outcome, None, "the run went on for all 20 pages");
    assert!(!h
        .events()
        .any(|e| matches!(e, Event::GuardTriggered { .. })));
    let quiet = h.events().filter_map(|e| match e {
        Event::StepFinished { evidence_delta, .. } => evidence_delta.quiet_steps,
        _ => None,
    });
    assert_eq!(quiet.count(), 0, "every page was new evidence");
}

#[test]
fn the_give_up_tool_ends_the_run_gave_up_never_completed() {
    let mut h = Harness::new(reflective_config());
    let effects = h.user("make the test pass");
    h.reply(
        &effects,
        calls(vec![call("c1", "read_file", json!({"path": "flaky.rs"}))]),
    );
    let effects = h.tool_result("c1", "no match in 48 files", false);
    let effects = h.reply(
        &effects,
        calls(vec![call(
            "g",
            "give_up",
            json!({"reason": "The test needs a network.", "stuck_on": ["no network tool"], "tried": ["grep"]}),
        )]),
    );
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::GaveUp);
    assert_eq!(outcome.stop.code(), "gave_up");
    let handoff = outcome.handoff.unwrap();
    assert!(
        handoff
            .stuck_on
            .contains(&"reflection: no network tool".to_string()),
        "{:?}",
        handoff.stuck_on
    );
    // No detector had fired: the latest calls say what was tried.
    assert!(
        handoff.stuck_on.iter().any(|l| l.contains("read_file(")),
        "{:?}",
        handoff.stuck_on
    );
    assert_replays(&h);
}

#[test]
fn a_reflection_request_offers_only_the_reflect_tool_and_says_why() {
    let mut h = Harness::new(reflective_config());
    let mut effects = h.user("find it");
    for i in 0..8 {
        if effects.iter().any(|e| {
            matches!(
                e,
                Effect::CallModel {
                    purpose: CallPurpose::Reflection,
                    ..
                }
            )
        }) {
            let request = h.request();
            let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(names, vec!["reflect"]);
            let last = request.messages.last().unwrap();
            assert!(format!("{last:?}").contains("Stop and reflect"));
            return;
        }
        let id = format!("c{i}");
        h.reply(
            &effects,
            calls(vec![call(
                &id,
                "grep",
                json!({"pattern": "x", "path": "src"}),
            )]),
        );
        effects = h.tool_result(&id, "no match", false);
    }
    panic!("no reflection was asked");
}
