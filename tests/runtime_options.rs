//! `createAgent` options become the core configuration: tools chosen and permissions applied,
//! budgets laid over the defaults, and API keys kept out of anything printed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::{BudgetLimits, Permission, ToolKind};
use tabloop::ports::HostToolSpec;
use tabloop::runtime::options::{AgentOptions, BudgetOptions, OptionsError};

fn registered() -> Vec<HostToolSpec> {
    serde_json::from_value(json!([
        {"name": "vfs", "description": "files", "parameters": {"type": "object"}, "permission": "allow", "idempotent": false, "parallelSafe": false},
        {"name": "http_fetch", "description": "web", "parameters": {"type": "object"}, "permission": "allow", "idempotent": true, "parallelSafe": true}
    ]))
    .unwrap()
}

#[test]
fn the_public_options_are_read_from_camel_case_json() {
    let options: AgentOptions = serde_json::from_value(json!({
        "session": "s1",
        "provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "apiKey": "sk-secret", "model": "gpt"},
        "budget": {"maxSteps": 7, "maxCostUsd": 0.5},
        "tools": ["http_fetch", "finish"],
        "permissions": {"http_fetch": "ask"},
        "system": "be brief"
    }))
    .unwrap();
    let config = options.to_config(&registered()).unwrap();
    let names: Vec<_> = config
        .tools
        .iter()
        .map(|t| (t.spec.name.as_str(), t.permission, t.kind))
        .collect();
    assert_eq!(
        names,
        vec![
            ("http_fetch", Permission::Ask, ToolKind::Host),
            ("finish", Permission::Allow, ToolKind::Finish),
            // The runtime always offers a way to concede.
            ("give_up", Permission::Allow, ToolKind::GiveUp)
        ]
    );
    assert_eq!(config.budget.max_steps, Some(7));
    assert_eq!(config.budget.max_cost_usd, Some(0.5));
    assert_eq!(
        config.budget.max_tool_calls,
        Some(100),
        "unset fields keep the defaults"
    );
    assert_eq!(config.system.as_deref(), Some("be brief"));
    assert!(
        !serde_json::to_string(&config)
            .unwrap()
            .contains("sk-secret"),
        "the key is not in the config"
    );
    assert!(
        !format!("{options:?}").contains("sk-secret"),
        "nor in debug output"
    );
}

#[test]
fn without_a_tool_list_every_registered_tool_and_the_core_tools_are_offered() {
    let config = AgentOptions::default().to_config(&registered()).unwrap();
    let names: Vec<_> = config.tools.iter().map(|t| t.spec.name.clone()).collect();
    assert_eq!(
        names,
        vec!["vfs", "http_fetch", "todo", "finish", "give_up"]
    );
    assert_eq!(config.context_window, 4096, "the local model's window");
}

#[test]
fn an_unknown_tool_or_an_incomplete_provider_is_refused() {
    let options: AgentOptions = serde_json::from_value(json!({"tools": ["nope"]})).unwrap();
    assert_eq!(
        options.to_config(&registered()),
        Err(OptionsError::UnknownTool("nope".into()))
    );
    let options: AgentOptions =
        serde_json::from_value(json!({"provider": {"kind": "anthropic"}})).unwrap();
    assert_eq!(
        options.to_config(&registered()),
        Err(OptionsError::MissingProviderField("anthropic", "a model"))
    );
}

#[test]
fn outcomes_and_records_have_the_public_shape() {
    use tabloop::core::{BudgetKind, Event, Record, RunOutcome, StopReason};
    use tabloop::protocol::Usage;
    use tabloop::view::public::{outcome_json, PublicRecord};
    let outcome = RunOutcome {
        stop: StopReason::BudgetExhausted {
            budget: BudgetKind::Steps,
        },
        explanation: "spent".into(),
        final_text: None,
        steps: 3,
        usage: Usage {
            input_tokens: 5,
            output_tokens: 2,
            cached_input_tokens: 1,
            cache_write_tokens: 0,
        },
        cost_usd: 0.25,
        handoff: None,
    };
    assert_eq!(
        outcome_json(&outcome),
        json!({
            "stopReason": "budget_exhausted", "detail": {"budget": "steps"}, "explanation": "spent",
            "finalText": null, "steps": 3, "costUsd": 0.25, "handoff": null,
            "usage": {"inputTokens": 5, "outputTokens": 2, "cachedInputTokens": 1}
        })
    );
    let record = Record {
        seq: 4,
        at: 9,
        event: Event::UserMessage { text: "hi".into() },
    };
    let public = |records: &[Record]| {
        let shown: Vec<PublicRecord<'_>> = records.iter().map(PublicRecord::from).collect();
        serde_json::to_value(shown).unwrap()
    };
    assert_eq!(
        serde_json::to_value(PublicRecord::from(&record)).unwrap(),
        json!({"type": "user_message", "text": "hi", "seq": 4, "at": 9})
    );
    let suspended = Record {
        seq: 5,
        at: 10,
        event: Event::Suspended,
    };
    assert_eq!(
        public(&[record.clone(), suspended]),
        json!([
            {"type": "user_message", "text": "hi", "seq": 4, "at": 9},
            {"type": "suspended", "seq": 5, "at": 10}
        ])
    );
    assert_eq!(public(&[]), json!([]));
}

#[test]
fn resuming_with_only_a_key_keeps_the_stored_model_and_base_url() {
    use tabloop::runtime::options::{ProviderKind, ProviderOptions};
    let stored: ProviderOptions =
        serde_json::from_value(json!({"kind": "openai", "baseUrl": "http://x/v1", "model": "gpt"}))
            .unwrap();
    let given: ProviderOptions =
        serde_json::from_value(json!({"kind": "openai", "apiKey": "k"})).unwrap();
    let merged = given.completed_from(&stored);
    assert_eq!(merged.base_url.as_deref(), Some("http://x/v1"));
    assert_eq!(merged.model.as_deref(), Some("gpt"));
    assert_eq!(merged.api_key.as_deref(), Some("k"));
    // Another kind is a deliberate switch: nothing is carried over.
    let local = ProviderOptions {
        kind: ProviderKind::Local,
        ..ProviderOptions::default()
    }
    .completed_from(&stored);
    assert_eq!(local.model, None);
}

#[test]
fn require_finish_without_a_registered_verifier_is_refused_and_with_one_is_accepted() {
    let options: AgentOptions =
        serde_json::from_value(json!({"tools": ["finish"], "requireFinish": true})).unwrap();
    assert_eq!(
        options.to_config(&registered()),
        Err(OptionsError::NoFinishVerifier)
    );
    let mut with_verifier = registered();
    with_verifier.push(
        serde_json::from_value(
            json!({"name": "finish", "description": "checks", "permission": "allow"}),
        )
        .unwrap(),
    );
    let config = options.to_config(&with_verifier).unwrap();
    assert!(config.finish_verifier && config.require_finish);
    let plain: AgentOptions = serde_json::from_value(json!({"tools": ["finish"]})).unwrap();
    assert!(!plain.to_config(&registered()).unwrap().finish_verifier);
}

#[test]
fn guard_compaction_and_result_size_options_reach_the_config() {
    let options: AgentOptions = serde_json::from_value(json!({
        "guard": {"repeatDiagnose": 2, "repeatStop": 3, "errorRepeatStop": 9},
        "compactionThreshold": 0.5,
        "compactionKeepRecent": 10,
        "maxToolResultChars": 500,
        "maxConsecutiveErrors": 5
    }))
    .unwrap();
    let config = options.to_config(&registered()).unwrap();
    let defaults = tabloop::core::GuardThresholds::default();
    assert_eq!(
        config.guard,
        tabloop::core::GuardThresholds {
            repeat_diagnose: 2,
            repeat_stop: 3,
            error_repeat_stop: 9,
            // The default provider is the local model, whose runs end on a repeated success.
            end_on_repeated_success: true,
            ..defaults
        }
    );
    let remote: AgentOptions = serde_json::from_value(json!({
        "provider": {"kind": "openai", "model": "gpt-4o", "apiKey": "k"}
    }))
    .unwrap();
    assert!(
        !remote
            .to_config(&registered())
            .unwrap()
            .guard
            .end_on_repeated_success
    );
    let turned_off: AgentOptions =
        serde_json::from_value(json!({"guard": {"endOnRepeatedSuccess": false}})).unwrap();
    assert!(
        !turned_off
            .to_config(&registered())
            .unwrap()
            .guard
            .end_on_repeated_success
    );
    assert_eq!(config.compaction_threshold, 0.5);
    assert_eq!(config.compaction_keep_recent, 10);
    assert_eq!(config.max_observation_chars, 500);
    assert_eq!(config.max_consecutive_errors, 5);
    for bad in [
        json!({"guard": {"repeatDiagnose": 5, "repeatStop": 5}}),
        json!({"guard": {"thrashDiagnose": 0}}),
        json!({"compactionThreshold": 1.5}),
        json!({"compactionThreshold": 0}),
        json!({"maxToolResultChars": 10}),
    ] {
        let options: AgentOptions = serde_json::from_value(bad.clone()).unwrap();
        assert!(
            matches!(
                options.to_config(&registered()),
                Err(OptionsError::Invalid(_))
            ),
            "{bad} is refused"
        );
    }
}

#[test]
fn the_built_in_price_table_prices_known_models_and_a_given_price_wins() {
    use tabloop::runtime::prices::builtin_price;
    let price = |m: &str| builtin_price(m).map(|p| (p.input_per_mtok, p.output_per_mtok));
    assert_eq!(price("gpt-4o-2024-08-06"), Some((2.5, 10.0)));
    assert_eq!(
        price("gpt-4o-mini"),
        Some((0.15, 0.6)),
        "longest prefix wins"
    );
    assert_eq!(price("claude-sonnet-4-5-20250929"), Some((3.0, 15.0)));
    assert_eq!(price("claude-opus-4-20250514"), Some((15.0, 75.0)));
    assert_eq!(price("claude-opus-4-5"), Some((5.0, 25.0)));
    assert_eq!(price("o3x"), None, "a prefix must end at a separator");
    assert_eq!(price("my-local-model"), None);
    let options: AgentOptions = serde_json::from_value(json!({
        "provider": {"kind": "openai", "model": "gpt-4o-mini", "apiKey": "k"},
        "budget": {"maxCostUsd": 1.0}
    }))
    .unwrap();
    let config = options.to_config(&registered()).unwrap();
    assert_eq!(
        config.price.output_per_mtok, 0.6,
        "the cost budget works unpriced"
    );
    let options: AgentOptions = serde_json::from_value(json!({
        "provider": {"kind": "openai", "model": "gpt-4o-mini"},
        "price": {"input_per_mtok": 1.0, "output_per_mtok": 2.0, "cached_input_per_mtok": 0.5}
    }))
    .unwrap();
    assert_eq!(
        options
            .to_config(&registered())
            .unwrap()
            .price
            .output_per_mtok,
        2.0
    );
}

#[test]
fn a_custom_provider_is_recorded_by_kind_and_model_only_and_keeps_its_model_on_resume() {
    use tabloop::runtime::options::ProviderOptions;
    let options: AgentOptions = serde_json::from_value(json!({
        "provider": {"kind": "custom", "model": "Llama-3.2-1B-Instruct-q4f16_1-MLC"},
        "tools": []
    }))
    .unwrap();
    let config = options.to_config(&registered()).unwrap();
    assert_eq!(
        config.provider,
        json!({"kind": "custom", "baseUrl": null, "model": "Llama-3.2-1B-Instruct-q4f16_1-MLC"})
    );
    assert_eq!(config.context_window, 128_000);
    let stored = ProviderOptions::from_description(&config.provider).unwrap();
    let given: ProviderOptions = serde_json::from_value(json!({"kind": "custom"})).unwrap();
    assert_eq!(
        given.completed_from(&stored).model.as_deref(),
        Some("Llama-3.2-1B-Instruct-q4f16_1-MLC")
    );
}

#[test]
fn the_in_tab_model_never_asks_to_continue_a_cut_reply_and_remote_ones_do() {
    let config = |provider: serde_json::Value| {
        let options: AgentOptions =
            serde_json::from_value(json!({ "provider": provider })).unwrap();
        options
            .to_config(&registered())
            .unwrap()
            .max_output_recoveries
    };
    assert_eq!(config(json!({"kind": "local"})), 0);
    assert_eq!(config(json!({"kind": "openai", "model": "m"})), 3);
}

#[test]
fn the_in_tab_model_sees_the_current_task_only_unless_told_otherwise() {
    let config = |options: serde_json::Value| {
        let options: AgentOptions = serde_json::from_value(options).unwrap();
        options.to_config(&registered()).unwrap().context_per_task
    };
    assert!(config(json!({"provider": {"kind": "local"}})));
    assert!(!config(
        json!({"provider": {"kind": "openai", "model": "m"}})
    ));
    assert!(!config(
        json!({"provider": {"kind": "local"}, "contextPerTask": false})
    ));
    assert!(config(
        json!({"provider": {"kind": "custom"}, "contextPerTask": true})
    ));
}

#[test]
fn the_guard_options_choose_the_rules_and_their_policy() {
    let default = AgentOptions::default().to_config(&registered()).unwrap();
    let policy = default.guard.reflective.expect("reflective by default");
    assert_eq!(policy, tabloop::core::ReflectivePolicy::default());

    let options: AgentOptions = serde_json::from_value(json!({
        "guard": {"milestoneSteps": 5, "overdue": "give_up", "endgamePercent": 80, "maxReflections": 1}
    }))
    .unwrap();
    let policy = options
        .to_config(&registered())
        .unwrap()
        .guard
        .reflective
        .unwrap();
    assert_eq!(
        (
            policy.milestone_steps,
            policy.overdue,
            policy.endgame_percent,
            policy.max_reflections
        ),
        (5, tabloop::core::OverdueAction::GiveUp, 80, 1)
    );

    let first: AgentOptions =
        serde_json::from_value(json!({"guard": {"reflective": false}})).unwrap();
    let config = first.to_config(&registered()).unwrap();
    assert_eq!(config.guard.reflective, None);
    assert!(config.tools.iter().all(|t| t.spec.name != "give_up"));

    let wrong: AgentOptions =
        serde_json::from_value(json!({"guard": {"endgamePercent": 120}})).unwrap();
    assert!(wrong.to_config(&registered()).is_err());
}

#[test]
fn budget_options_read_every_limit_in_camel_case_and_the_log_keeps_its_own_names() {
    let options: BudgetOptions = serde_json::from_value(json!({
        "maxSteps": 1, "maxToolCalls": 2, "maxInputTokens": 3,
        "maxOutputTokens": 4, "maxCostUsd": 0.5, "maxWallMs": 6
    }))
    .unwrap();
    let limits = BudgetLimits {
        max_steps: Some(1),
        max_tool_calls: Some(2),
        max_input_tokens: Some(3),
        max_output_tokens: Some(4),
        max_cost_usd: Some(0.5),
        max_wall_ms: Some(6),
    };
    assert_eq!(options, BudgetOptions { given: limits });
    assert_eq!(
        serde_json::to_value(limits).unwrap(),
        json!({
            "max_steps": 1, "max_tool_calls": 2, "max_input_tokens": 3,
            "max_output_tokens": 4, "max_cost_usd": 0.5, "max_wall_ms": 6
        })
    );
    let none: BudgetOptions = serde_json::from_value(json!({})).unwrap();
    assert_eq!(none, BudgetOptions::default(), "a limit not given is None");
}
