//! Budget meters and the per-step chart, folded from real logs written by the core: a meter per
//! configured budget, one chart point per finished step, loop-guard marks where detectors fired.

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
use tabloop::core::Event;
use tabloop::view::{chart_layout, RunMeters, StepPoint, MAX_BARS};

#[test]
fn every_configured_budget_gets_a_meter_with_its_limit() {
    let mut cfg = config();
    cfg.budget.max_steps = Some(10);
    cfg.budget.max_tool_calls = Some(20);
    cfg.budget.max_input_tokens = Some(1_000);
    cfg.budget.max_output_tokens = Some(500);
    cfg.budget.max_cost_usd = Some(0.5);
    cfg.budget.max_wall_ms = Some(60_000);
    let mut h = Harness::new(cfg);
    h.read_until_finished("read", 2, |i| format!("f{i}"), |i| format!("content {i}"));
    let meters = RunMeters::from_records(&h.log);
    let keys: Vec<&str> = meters.meters().iter().map(|m| m.key).collect();
    assert_eq!(
        keys,
        [
            "steps",
            "tool_calls",
            "input_tokens",
            "output_tokens",
            "cost",
            "time"
        ]
    );
    let steps = &meters.meters()[0];
    assert_eq!(steps.text, "3 / 10");
    assert!((steps.fraction - 0.3).abs() < 1e-9, "{}", steps.fraction);
    assert_eq!(meters.meters()[1].text, "2 / 20");
    assert_eq!(meters.points().len(), 2, "two steps have finished");
    assert!(meters.points().iter().all(|p| p.tokens > 0));
}

#[test]
fn a_run_without_limits_has_no_meters_and_a_new_run_starts_the_chart_afresh() {
    let mut cfg = config();
    cfg.budget.max_steps = None;
    cfg.budget.max_tool_calls = None;
    let mut h = Harness::new(cfg);
    let effects = h.user("one");
    h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "a"}))]),
    );
    let effects = h.tool_result("a", "r", false);
    let effects = h.reply(&effects, text("done"));
    assert!(Harness::finished(&effects).is_some());
    let first = RunMeters::from_records(&h.log);
    assert_eq!(first.meters(), Vec::new());
    assert_eq!(first.points().len(), 2);
    let effects = h.user("second run");
    h.reply(&effects, text("done"));
    let meters = RunMeters::from_records(&h.log);
    assert_eq!(meters.points().len(), 1, "only the second run's step");
}

#[test]
fn a_looping_run_shows_its_guard_marks_on_the_chart() {
    let mut h = Harness::new(config());
    h.read_until_finished("loop", 12, |_| "same".into(), |_| "same content".into());
    let fired = h
        .events()
        .filter(|e| matches!(e, Event::GuardTriggered { .. }))
        .count();
    assert!(fired > 0, "the loop guard fired");
    let meters = RunMeters::from_records(&h.log);
    assert_eq!(meters.guards().len(), fired);
    let chart = chart_layout(meters.points(), meters.guards(), 600.0, 120.0);
    assert_eq!(chart.bars.len(), meters.points().len());
    assert_eq!(chart.marks.len(), fired);
    assert!(chart.marks.iter().all(|m| m.x > 0.0 && m.x < 600.0));
    assert!(chart.description.contains(&format!("{fired} loop-guard")));
}

#[test]
fn the_chart_scales_to_its_box_and_groups_long_runs() {
    let points: Vec<StepPoint> = (1..=1_000)
        .map(|step| StepPoint {
            step,
            tokens: u64::from(step % 50) * 10,
            cost_usd: f64::from(step) / 1e5,
        })
        .collect();
    let chart = chart_layout(&points, &[], 600.0, 100.0);
    assert!(chart.bars.len() <= MAX_BARS, "{}", chart.bars.len());
    assert_eq!(chart.max_tokens, 490);
    let tallest = chart.bars.iter().map(|b| b.height).fold(0.0, f64::max);
    assert!((tallest - 100.0).abs() < 1e-9);
    assert!(chart
        .bars
        .iter()
        .all(|b| b.x >= 0.0 && b.x + b.width <= 600.0 + 1e-9));
    assert!(chart.cost_path.starts_with('M'));
    assert_eq!(chart_layout(&[], &[], 600.0, 100.0).bars, Vec::new());
}
