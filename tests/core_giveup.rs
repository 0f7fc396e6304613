//! The loop knowing when it is beaten (the reflective rules, default for new sessions): a
//! forced reflection before every runtime stop, stops that name the repeating calls, the
//! `give_up` tool, overdue milestones, the budget endgame, the repeated success answered by
//! the model, and honest repetitive runs left alone. Every scenario is also replayed and
//! verified, since the decisions must come out the same from the log.

#![allow(clippy::wildcard_enum_match_arm)]

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::{
    verify_replay, Agent, CallPurpose, Detector, HumanReason, OverdueAction, RunOutcome,
    TransitionReason,
};
use tabloop::protocol::ModelReply;

/// What a scripted model does at step `i` of a run (reflections are answered apart).
type Script<'a> = &'a dyn Fn(usize) -> ToolCall;

/// Drives a run: each step the model makes `script(i)`, the tool answers `result(i)`; a
/// reflection request gets `reflection`. Returns the outcome and the model requests made.
fn drive(
    h: &mut Harness,
    steps: usize,
    script: Script<'_>,
    result: &dyn Fn(usize) -> (String, bool),
    reflection: &dyn Fn() -> ModelReply,
) -> (Option<RunOutcome>, usize) {
    let mut effects = h.user("fix the bug in the parser");
    let mut requests = 0;
    let mut i = 0;
    while i < steps {
        let purpose = effects.iter().find_map(|e| match e {
            Effect::CallModel { purpose, .. } => Some(*purpose),
            _ => None,
        });
        requests += 1;
        if purpose == Some(CallPurpose::Reflection) {
            effects = h.reply(&effects, reflection());
        } else {
            let call = script(i);
            let id = call.id.clone();
            effects = h.reply(&effects, calls(vec![call]));
            if let Some(outcome) = Harness::finished(&effects) {
                return (Some(outcome), requests);
            }
            if !Harness::tool_calls(&effects).is_empty() {
                let (content, is_error) = result(i);
                effects = h.tool_result(&id, &content, is_error);
            }
            i += 1;
        }
        if let Some(outcome) = Harness::finished(&effects) {
            return (Some(outcome), requests);
        }
    }
    (None, requests)
}

fn reflect(give_up: bool) -> ModelReply {
    calls(vec![call(
        "r",
        "reflect",
        json!({
            "status": "The parser tests fail the same way whatever I change.",
            "tried": ["editing parse_header", "reverting it"],
            "stuck_on": ["the failing test does not exercise parse_header"],
            "next": "read the test itself",
            "give_up": give_up
        }),
    )])
}

fn assert_replays(h: &Harness) {
    let report = verify_replay(&h.log).map(|r| r.divergence);
    assert!(matches!(report, Ok(None)), "replay diverged: {report:?}");
    let replayed = Agent::replay(&h.log).map(|a| a.state().clone());
    assert!(
        replayed
            .as_ref()
            .is_ok_and(|state| state == h.agent.state()),
        "the replayed state differs"
    );
}

/// Per step: its run, number, new calls and quiet steps.
type StepFacts = (Option<u32>, u32, Vec<String>, Option<u32>);

fn reflections_before_stop(h: &Harness) -> usize {
    h.events()
        .filter(|e| {
            matches!(
                e,
                Event::StepStarted {
                    reason: TransitionReason::Reflection { .. },
                    ..
                }
            )
        })
        .count()
}

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
fn steps_carry_the_run_number_and_which_calls_were_new() {
    let mut h = Harness::new(reflective_config());
    let mut effects = h.user("read a");
    h.reply(
        &effects,
        calls(vec![call("c1", "read_file", json!({"path": "a"}))]),
    );
    effects = h.tool_result("c1", "alpha", false);
    h.reply(&effects, text("alpha"));
    // Evidence is the run's own: a new task starts counting afresh.
    let effects = h.user("read a again");
    h.reply(
        &effects,
        calls(vec![call("c2", "read_file", json!({"path": "a"}))]),
    );
    let effects = h.tool_result("c2", "alpha", false);
    h.reply(
        &effects,
        calls(vec![call("c3", "read_file", json!({"path": "a"}))]),
    );
    h.tool_result("c3", "alpha", false);
    let steps: Vec<StepFacts> = h
        .events()
        .filter_map(|e| match e {
            Event::StepFinished {
                run,
                step,
                evidence_delta,
                ..
            } => Some((
                *run,
                *step,
                evidence_delta.new_calls.clone(),
                evidence_delta.quiet_steps,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        steps,
        vec![
            (Some(1), 1, vec!["c1".to_string()], None),
            (Some(1), 2, vec![], None),
            (Some(2), 1, vec!["c2".to_string()], None),
            (Some(2), 2, vec![], Some(1)),
        ]
    );
}

#[test]
fn an_overdue_milestone_asks_for_a_reflection_then_a_person() {
    let mut config = reflective_config();
    let policy = config.guard.reflective.as_mut().unwrap();
    policy.milestone_steps = 4;
    policy.overdue = OverdueAction::AskHuman;
    let mut h = Harness::new(config);
    let mut effects = h.user("port the module");
    effects = h.reply(
        &effects,
        calls(vec![call(
            "t",
            "todo",
            json!({"items": [{"id": "1", "text": "port parser", "status": "open"}]}),
        )]),
    );
    let mut outcome = None;
    // Reads that alternate between two files, results unchanged: no detector at these
    // thresholds before the milestone (thrashing needs rounds of the same results).
    for i in 0..20 {
        if effects.iter().any(|e| {
            matches!(
                e,
                Effect::CallModel {
                    purpose: CallPurpose::Reflection,
                    ..
                }
            )
        }) {
            effects = h.reply(&effects, reflect(false));
        } else {
            let id = format!("c{i}");
            effects = h.reply(
                &effects,
                calls(vec![call(
                    &id,
                    "read_file",
                    json!({"path": format!("doc{}.md", i % 9)}),
                )]),
            );
            if !Harness::tool_calls(&effects).is_empty() {
                effects = h.tool_result(&id, &format!("page {}", i % 9), false);
            }
        }
        if let Some(o) = Harness::finished(&effects) {
            outcome = Some(o);
            break;
        }
    }
    let outcome = outcome.expect("ended");
    assert!(reflections_before_stop(&h) >= 1);
    match outcome.stop {
        StopReason::NeedsHuman {
            reason: HumanReason::MilestoneOverdue { todos },
        } => assert_eq!(todos, vec!["port parser".to_string()]),
        StopReason::NoProgress { .. } => {}
        other => panic!("{other:?}"),
    }
    assert_replays(&h);
}

#[test]
fn near_the_end_of_the_budget_a_quiet_run_is_asked_to_finish_or_give_up() {
    let mut config = reflective_config();
    config.budget.max_steps = Some(12);
    let mut h = Harness::new(config);
    // Each step reads one of three files again: nothing new after the first round, but no
    // detector reaches its stop either before the endgame.
    let script = |i: usize| {
        call(
            &format!("c{i}"),
            "read_file",
            json!({"path": format!("f{}", i % 3)}),
        )
    };
    let result = |i: usize| (format!("contents of file number {}", i % 3), false);
    let (outcome, _) = drive(&mut h, 12, &script, &result, &|| reflect(true));
    let asked: Vec<Detector> = h
        .events()
        .filter_map(|e| match e {
            Event::StepStarted {
                reason: TransitionReason::Reflection { trigger },
                ..
            } => Some(*trigger),
            _ => None,
        })
        .collect();
    assert!(!asked.is_empty());
    assert_eq!(outcome.unwrap().stop, StopReason::GaveUp);
    assert_replays(&h);
}

#[test]
fn a_repeat_of_the_call_that_just_succeeded_is_answered_by_the_model_not_the_runtime() {
    let mut config = reflective_config();
    config.guard.end_on_repeated_success = true;
    let mut h = Harness::new(config);
    let mut effects = h.user("read a");
    h.reply(
        &effects,
        calls(vec![call("c1", "read_file", json!({"path": "a"}))]),
    );
    effects = h.tool_result("c1", "alpha", false);
    effects = h.reply(
        &effects,
        calls(vec![call("c2", "read_file", json!({"path": "a"}))]),
    );
    assert!(
        Harness::tool_calls(&effects).is_empty(),
        "the repeat did not run"
    );
    assert!(
        h.request().tools.is_empty(),
        "the answer step offers no tools"
    );
    let effects = h.reply(&effects, text("The file a says alpha."));
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::Completed);
    assert_eq!(
        outcome.final_text.as_deref(),
        Some("The file a says alpha.")
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

#[test]
fn answers_refused_until_a_human_is_needed_say_so_in_stuck_on() {
    // A model that keeps answering in prose where a verified finish is required.
    let mut cfg = reflective_config();
    cfg.require_finish = true;
    let mut h = Harness::new(cfg);
    let mut effects = h.user("go");
    let mut outcome = None;
    for _ in 0..12 {
        effects = h.reply(&effects, text("the port is 8080"));
        if let Some(done) = Harness::finished(&effects) {
            outcome = Some(done);
            break;
        }
    }
    let outcome = outcome.expect("the run ended");
    assert!(
        matches!(outcome.stop, StopReason::NeedsHuman { .. }),
        "{:?}",
        outcome.stop
    );
    let stuck = outcome.handoff.unwrap().stuck_on;
    assert!(
        stuck
            .iter()
            .any(|l| l.contains("not accepted") && l.contains("no verified finish")),
        "{stuck:#?}"
    );
    assert_replays(&h);
}
