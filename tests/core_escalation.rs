//! What the reflective rules escalate besides a repeating pattern: an open todo gone overdue,
//! a budget mostly spent with nothing new, the repeat of a call that just succeeded, answers
//! refused until a person is needed; and the run number and new calls each step records.

#![allow(clippy::wildcard_enum_match_arm)]

mod core_support;

use core_support::prelude::*;
use core_support::reflective::*;
use pretty_assertions::assert_eq;
use tabloop::core::{CallPurpose, Detector, HumanReason, OverdueAction, TransitionReason};

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
