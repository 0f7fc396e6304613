//! The run part of the settings form: each budget field parsed (or refused with a message),
//! prices, system prompt and tool permissions reaching the session options; and the session
//! search of the sidebar.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pretty_assertions::assert_eq;
use tabloop::core::{BudgetLimits, Permission, Price};
use tabloop::runtime::options::BudgetOptions;
use tabloop::view::{
    parse_price, permission_from_value, BudgetField, GuardField, RunField, RunSettings, Settings,
};

#[test]
fn every_budget_field_parses_into_its_limit() {
    let mut budget = BudgetOptions::default();
    for (field, text) in [
        (BudgetField::Steps, "12"),
        (BudgetField::ToolCalls, "30"),
        (BudgetField::InputTokens, "200000"),
        (BudgetField::OutputTokens, " 8000 "),
        (BudgetField::CostUsd, "0.25"),
        (BudgetField::Seconds, "90.5"),
    ] {
        field.apply(&mut budget, text).unwrap();
    }
    assert_eq!(
        budget,
        BudgetOptions {
            given: BudgetLimits {
                max_steps: Some(12),
                max_tool_calls: Some(30),
                max_input_tokens: Some(200_000),
                max_output_tokens: Some(8_000),
                max_cost_usd: Some(0.25),
                max_wall_ms: Some(90_500),
            }
        }
    );
    BudgetField::CostUsd.apply(&mut budget, "").unwrap();
    assert_eq!(
        budget.given.max_cost_usd, None,
        "an empty field sets no limit"
    );
}

#[test]
fn bad_budget_values_are_refused_with_a_message_and_change_nothing() {
    let mut budget = BudgetOptions::default();
    assert_eq!(
        BudgetField::ToolCalls
            .apply(&mut budget, "-3")
            .map_err(|e| e.to_string()),
        Err("max tool calls must be a positive whole number, not \"-3\"".to_string())
    );
    assert!(BudgetField::CostUsd.apply(&mut budget, "lots").is_err());
    assert!(BudgetField::Seconds.apply(&mut budget, "0").is_err());
    assert!(BudgetField::Steps.apply(&mut budget, "2.5").is_err());
    assert_eq!(budget, BudgetOptions::default());
    assert!(parse_price("-1").is_err());
    assert_eq!(parse_price("3"), Ok(Some(3.0)));
}

#[test]
fn the_run_settings_reach_the_session_options() {
    let mut settings = Settings::default();
    BudgetField::CostUsd
        .apply(&mut settings.run.budget, "0.5")
        .unwrap();
    settings.run.system = "  Answer in French.  ".into();
    settings.provider = tabloop::runtime::options::ProviderKind::Openai;
    settings.model = "my-model".into();
    settings.run.prices.set(
        "my-model",
        tabloop::view::ModelPrice {
            input: Some(3.0),
            output: Some(15.0),
        },
    );
    settings
        .run
        .permissions
        .insert("http_fetch".into(), permission_from_value("deny"));
    let options = settings.to_options(None);
    assert_eq!(options.budget.given.max_cost_usd, Some(0.5));
    assert_eq!(options.system.as_deref(), Some("Answer in French."));
    assert_eq!(
        options.price,
        Some(Price {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
            cached_input_per_mtok: 3.0,
        })
    );
    assert_eq!(
        options.permissions.get("http_fetch"),
        Some(&Permission::Deny)
    );
    assert_eq!(settings.run.permission("http_fetch"), Permission::Deny);
    assert_eq!(
        settings.run.permission("vfs"),
        Permission::Allow,
        "the tool's default"
    );
    assert_eq!(permission_from_value("nonsense"), Permission::Ask);
    let plain = Settings::default().to_options(None);
    assert_eq!((plain.system, plain.price), (None, None));
}

#[test]
fn a_session_search_matches_every_word_in_title_or_id_ignoring_case() {
    use tabloop::view::session_matches;
    assert!(session_matches("Fetch Example.org", "s-12", ""));
    assert!(session_matches(
        "Fetch Example.org",
        "s-12",
        "example FETCH"
    ));
    assert!(session_matches("Fetch Example.org", "s-12", "s-1"));
    assert!(!session_matches("Fetch Example.org", "s-12", "fetch docs"));
}

#[test]
fn a_run_field_shows_and_parses_its_budget_or_guard_threshold_into_the_run_settings() {
    let budget = RunField::Budget(BudgetField::ToolCalls);
    let guard = RunField::Guard(GuardField::RepeatStop);
    assert_eq!(
        (budget.id(), budget.label(), budget.inputmode()),
        ("budget-tool-calls", "Max tool calls", "decimal")
    );
    assert_eq!(budget.placeholder(), "no limit set");
    assert_eq!(
        (guard.id(), guard.inputmode()),
        ("guard-repeat-stop", "numeric")
    );
    assert_eq!(
        guard.placeholder(),
        GuardField::RepeatStop.default_value().to_string()
    );
    let mut run = RunSettings::default();
    budget.apply(&mut run, "30").unwrap();
    guard.apply(&mut run, "9").unwrap();
    assert_eq!(run.budget.given.max_tool_calls, Some(30));
    assert_eq!(run.guard.repeat_stop, Some(9));
    assert!(guard.apply(&mut run, "x").is_err());
}
