//! The settings form's price per model, loop-guard thresholds and fetch allow-list: each parsed
//! (or refused with a message) and reaching the options a session starts or resumes with.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pretty_assertions::assert_eq;
use tabloop::core::{GuardThresholds, Price};
use tabloop::runtime::options::{GuardOptions, ProviderKind};
use tabloop::view::{
    check_guard, parse_allow_hosts, GuardField, ModelPrice, ModelPrices, Settings,
};

fn remote(model: &str) -> Settings {
    Settings {
        provider: ProviderKind::Openai,
        model: model.into(),
        ..Settings::default()
    }
}

#[test]
fn each_model_keeps_its_own_price_and_a_session_runs_at_its_models_price() {
    let mut settings = remote("model-a");
    settings.run.prices.set(
        "model-a",
        ModelPrice {
            input: Some(1000.0),
            output: None,
        },
    );
    settings.run.prices.set(
        "model-b",
        ModelPrice {
            input: Some(1.0),
            output: Some(2.0),
        },
    );
    assert_eq!(
        settings.to_options(None).price,
        Some(Price {
            input_per_mtok: 1000.0,
            output_per_mtok: 0.0,
            cached_input_per_mtok: 1000.0,
        })
    );
    settings.model = " model-b ".into();
    assert_eq!(
        settings.to_options(None).price.map(|p| p.output_per_mtok),
        Some(2.0)
    );
    settings.model = "gpt-4o".into();
    assert_eq!(
        settings.to_options(None).price,
        None,
        "an untyped model keeps the built-in table's price"
    );
    let local = Settings {
        run: settings.run.clone(),
        ..Settings::default()
    };
    assert_eq!(local.price_model(), "local");
    assert_eq!(local.to_options(None).price, None);
}

#[test]
fn the_price_table_survives_a_round_trip_and_unreadable_storage_is_an_empty_table() {
    let mut prices = ModelPrices::default();
    prices.set(
        "m",
        ModelPrice {
            input: Some(0.5),
            output: Some(4.0),
        },
    );
    assert_eq!(ModelPrices::from_json(&prices.to_json()), prices);
    assert_eq!(ModelPrices::from_json("{not json"), ModelPrices::default());
    prices.set("m", ModelPrice::default());
    assert_eq!(
        prices,
        ModelPrices::default(),
        "clearing both halves forgets the model"
    );
}

#[test]
fn guard_fields_parse_into_the_options_and_a_late_warning_is_named() {
    let mut guard = GuardOptions::default();
    GuardField::RepeatDiagnose.apply(&mut guard, "1").unwrap();
    GuardField::RepeatStop.apply(&mut guard, " 2 ").unwrap();
    GuardField::ErrorRepeatStop.apply(&mut guard, "9").unwrap();
    assert_eq!(
        guard,
        GuardOptions {
            repeat_diagnose: Some(1),
            repeat_stop: Some(2),
            error_repeat_stop: Some(9),
            ..GuardOptions::default()
        }
    );
    assert_eq!(check_guard(&guard), None);
    assert_eq!(
        GuardField::ThrashStop
            .apply(&mut guard, "0")
            .map_err(|e| e.to_string()),
        Err("a threshold must be a positive whole number, not \"0\"".to_string())
    );
    assert!(GuardField::ThrashStop.apply(&mut guard, "x").is_err());
    GuardField::StagnationDiagnose
        .apply(&mut guard, "8")
        .unwrap();
    assert_eq!(
        check_guard(&guard),
        Some(
            "invalid option: guard.stagnationDiagnose (8) must be at least 1 and below guard.stagnationStop (6)"
                .to_string()
        )
    );
    GuardField::StagnationDiagnose
        .apply(&mut guard, "")
        .unwrap();
    assert_eq!(
        guard.stagnation_diagnose, None,
        "an empty field keeps the default"
    );
    assert_eq!(
        GuardField::RepeatStop.default_value(),
        GuardThresholds::default().repeat_stop
    );
    let mut settings = Settings::default();
    settings.run.guard = guard.clone();
    assert_eq!(settings.to_options(None).guard, guard);
}

#[test]
fn the_allow_list_takes_hosts_and_refuses_urls_and_stray_wildcards() {
    assert_eq!(
        parse_allow_hosts("Example.com, *.example.org\n127.0.0.1:8080  [::1]:9 example.com"),
        Ok(vec![
            "example.com".to_string(),
            "*.example.org".to_string(),
            "127.0.0.1:8080".to_string(),
            "[::1]:9".to_string(),
        ])
    );
    assert_eq!(parse_allow_hosts("  \n"), Ok(Vec::new()));
    assert_eq!(
        parse_allow_hosts("https://example.com/x").map_err(|e| e.to_string()),
        Err("\"https://example.com/x\" is not a host: give the host alone (example.com), without scheme or path".to_string())
    );
    assert!(parse_allow_hosts("exa*mple.com").is_err());
    assert!(parse_allow_hosts("*.").is_err());
    assert!(parse_allow_hosts(".example.com").is_err());
    let mut settings = remote("m");
    settings.run.allow_hosts = vec!["example.com".into()];
    assert_eq!(
        settings.to_options(None).allow_hosts,
        vec!["example.com".to_string()]
    );
    assert_eq!(
        settings.key_options("s".into()).allow_hosts,
        vec!["example.com".to_string()],
        "a resumed session gets the list again"
    );
}

#[test]
fn the_reflective_rules_have_fields_with_their_defaults_as_placeholders() {
    let mut guard = GuardOptions::default();
    assert_eq!(GuardField::MaxReflections.default_value(), 2);
    assert_eq!(GuardField::MilestoneSteps.default_value(), 8);
    assert_eq!(GuardField::EndgamePercent.default_value(), 75);
    GuardField::MaxReflections.apply(&mut guard, "1").unwrap();
    GuardField::MilestoneSteps.apply(&mut guard, "12").unwrap();
    GuardField::EndgamePercent.apply(&mut guard, "150").unwrap();
    assert_eq!(
        (
            guard.max_reflections,
            guard.milestone_steps,
            guard.endgame_percent
        ),
        (Some(1), Some(12), Some(150))
    );
    // A share of a budget above all of it is named before a run starts.
    assert!(check_guard(&guard).is_some_and(|e| e.contains("endgamePercent")));
    GuardField::EndgamePercent.apply(&mut guard, "60").unwrap();
    assert_eq!(check_guard(&guard), None);
    let ids: Vec<&str> = GuardField::ALL.iter().map(|f| f.id()).collect();
    assert!(ids.contains(&"guard-milestone-steps"));
}
