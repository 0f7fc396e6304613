//! Budget scenarios: the unsolvable-task drill, every budget kind, wall-clock time that does not
//! count suspended time, and continuing a run after its budget is raised.

#![allow(clippy::wildcard_enum_match_arm)]

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::{BudgetKind, BudgetLimits, Price, TransitionReason};

#[test]
fn the_unsolvable_task_drill_ends_inside_its_budget_with_a_handoff_report() {
    let mut cfg = config();
    cfg.budget = BudgetLimits {
        max_steps: Some(6),
        ..BudgetLimits::NONE
    };
    let mut h = Harness::new(cfg);
    // The model tries a different file each time; each read says "no password here".
    let outcome = h.read_until_finished(
        "Find the password in the vault",
        20,
        |i| format!("vault/{i}.txt"),
        |i| format!("vault/{i}.txt: no password here (entry {i})"),
    );
    let outcome = outcome.expect("the run ended");
    assert_eq!(
        outcome.stop,
        StopReason::BudgetExhausted {
            budget: BudgetKind::Steps
        }
    );
    assert_eq!(outcome.steps, 6);
    let model_calls = h
        .events()
        .filter(|e| matches!(e, Event::ModelCallStarted { .. }))
        .count();
    assert_eq!(model_calls, 6, "no model call beyond the budget");
    let report = outcome.handoff.expect("a handoff report");
    assert_eq!(report.task, "Find the password in the vault");
    assert_eq!(
        report.progress[0],
        "6 step(s), 6 tool call(s), 600 input and 60 output tokens, $0.0000."
    );
    assert_eq!(report.progress[1], "read_file: 6 call(s), 0 failed");
    assert_eq!(report.findings.len(), 6);
    assert!(report.findings[5].contains("vault/5.txt: no password here"));
    assert!(report.to_text().contains("Findings:"));
}

#[test]
fn the_cost_budget_uses_the_price_table() {
    let mut cfg = config();
    cfg.price = Price {
        input_per_mtok: 3.0,
        output_per_mtok: 15.0,
        cached_input_per_mtok: 0.3,
    };
    cfg.budget = BudgetLimits {
        max_cost_usd: Some(0.001),
        ..BudgetLimits::NONE
    };
    let mut h = Harness::new(cfg);
    // Each reply: 100 input, 10 output → $0.00045.
    let outcome = h.read_until_finished("go", 5, |i| format!("{i}"), |i| format!("r{i}"));
    let outcome = outcome.unwrap();
    assert_eq!(
        outcome.stop,
        StopReason::BudgetExhausted {
            budget: BudgetKind::Cost
        }
    );
    assert_eq!(outcome.steps, 3);
    assert!(
        (outcome.cost_usd - 0.00135).abs() < 1e-12,
        "{}",
        outcome.cost_usd
    );
}

#[test]
fn token_and_tool_call_budgets_stop_before_the_next_model_call() {
    // Each step spends 100 input tokens, 10 output tokens and one tool call.
    for (budget, kind, steps) in [
        (
            BudgetLimits {
                max_input_tokens: Some(250),
                ..BudgetLimits::NONE
            },
            BudgetKind::InputTokens,
            3,
        ),
        (
            BudgetLimits {
                max_output_tokens: Some(25),
                ..BudgetLimits::NONE
            },
            BudgetKind::OutputTokens,
            3,
        ),
        (
            BudgetLimits {
                max_tool_calls: Some(2),
                ..BudgetLimits::NONE
            },
            BudgetKind::ToolCalls,
            2,
        ),
    ] {
        let mut cfg = config();
        cfg.budget = budget;
        let mut h = Harness::new(cfg);
        let outcome = h.read_until_finished("go", 10, |i| format!("{i}"), |i| format!("r{i}"));
        let outcome = outcome.unwrap();
        assert_eq!(
            outcome.stop,
            StopReason::BudgetExhausted { budget: kind },
            "{kind:?}"
        );
        assert_eq!(outcome.steps, steps, "{kind:?}");
    }
}

#[test]
fn wall_clock_counts_active_time_only() {
    let mut cfg = config();
    cfg.budget = BudgetLimits {
        max_wall_ms: Some(60_000),
        ..BudgetLimits::NONE
    };
    let mut h = Harness::new(cfg);
    let effects = h.user("go");
    let request = Harness::model_call(&effects);
    h.tick(20_000);
    h.send(Input::Suspend).unwrap();
    h.tick(3_600_000); // an hour in a background tab
    h.send(Input::Resume).unwrap();
    h.tick(20_000);
    assert!(
        h.send(Input::tick()).unwrap().is_empty(),
        "40 s active is inside the budget"
    );
    h.send(Input::ModelReplied {
        request,
        reply: calls(vec![call("c", "read_file", json!({"path": "a"}))]),
    })
    .unwrap();
    let run = h.agent.run().unwrap();
    assert!(run.ledger.suspended_ms >= 3_600_000);
    assert!(run.ledger.active_ms < 60_000, "{}", run.ledger.active_ms);
    h.tick(30_000);
    let effects = h.send(Input::tick()).unwrap();
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(
        outcome.stop,
        StopReason::BudgetExhausted {
            budget: BudgetKind::WallClock
        }
    );
    assert_eq!(
        effects[0],
        tabloop::core::Effect::Abort {
            request: None,
            calls: vec!["c".into()]
        }
    );
}

#[test]
fn a_run_out_of_budget_continues_when_the_budget_is_raised() {
    let mut cfg = config();
    cfg.budget = BudgetLimits {
        max_steps: Some(1),
        ..BudgetLimits::NONE
    };
    let mut h = Harness::new(cfg);
    let effects = h.user("go");
    h.reply(
        &effects,
        calls(vec![call("c", "read_file", json!({"path": "a"}))]),
    );
    let effects = h.tool_result("c", "r", false);
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::BudgetExhausted {
            budget: BudgetKind::Steps
        }
    );
    let effects = h
        .send(Input::ExtendBudget {
            budget: BudgetLimits {
                max_steps: Some(5),
                ..BudgetLimits::NONE
            },
        })
        .unwrap();
    let effects = h.reply(&effects, text("found it"));
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::Completed
    );
    let reasons: Vec<_> = h
        .events()
        .filter_map(|e| match e {
            Event::StepStarted { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        vec![
            TransitionReason::NextTurn,
            TransitionReason::BudgetContinuation
        ]
    );
    assert_eq!(
        h.send(Input::ExtendBudget {
            budget: BudgetLimits::NONE
        }),
        Err(InputError::NothingToExtend)
    );
}

#[test]
fn a_run_can_get_its_own_budget() {
    let mut h = Harness::new(config());
    let effects = h
        .send(Input::UserMessage {
            text: "go".into(),
            budget: Some(BudgetLimits {
                max_steps: Some(1),
                ..BudgetLimits::NONE
            }),
        })
        .unwrap();
    h.reply(
        &effects,
        calls(vec![call("c", "read_file", json!({"path": "a"}))]),
    );
    let effects = h.tool_result("c", "r", false);
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::BudgetExhausted {
            budget: BudgetKind::Steps
        }
    );
}
