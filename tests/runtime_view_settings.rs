//! The playground's settings: the form's values, the options they become, and which provider
//! and key a session uses.

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
use tabloop::runtime::merge_provider;
use tabloop::runtime::options::{ProviderKind, ProviderOptions};
use tabloop::view::*;

#[test]
fn settings_become_options_and_never_show_the_key() {
    let settings = Settings {
        provider: ProviderKind::Openai,
        base_url: " https://example.test/v1 ".into(),
        api_key: "sk-secret".into(),
        model: "gpt-test".into(),
        max_steps: Some(7),
        gguf_url: "ignored.gguf".into(),
        ..Settings::default()
    };
    let options = settings.to_options(None);
    assert_eq!(
        options.provider,
        Some(ProviderOptions {
            kind: ProviderKind::Openai,
            base_url: Some("https://example.test/v1".into()),
            api_key: Some("sk-secret".into()),
            model: Some("gpt-test".into()),
        })
    );
    assert_eq!(options.budget.given.max_steps, Some(7));
    assert_eq!(options.session, None);
    assert!(!format!("{settings:?}").contains("sk-secret"));

    let local = Settings {
        gguf_url: "models/tiny.gguf".into(),
        ..Settings::default()
    };
    assert_eq!(
        local.to_options(Some("s9".into())).provider,
        Some(ProviderOptions {
            kind: ProviderKind::Local,
            base_url: Some("models/tiny.gguf".into()),
            api_key: None,
            model: None,
        })
    );
}

#[test]
fn a_resumed_session_keeps_its_provider_and_borrows_the_key() {
    let settings = Settings {
        provider: ProviderKind::Anthropic,
        api_key: "key".into(),
        model: "other-model".into(),
        ..Settings::default()
    };
    let stored = ProviderOptions {
        kind: ProviderKind::Anthropic,
        base_url: None,
        api_key: None,
        model: Some("stored-model".into()),
    };
    let options = settings.key_options("s1".into());
    assert_eq!(options.session.as_deref(), Some("s1"));
    assert_eq!(
        merge_provider(options.provider.clone(), Some(stored.clone())),
        Some(ProviderOptions {
            api_key: Some("key".into()),
            ..stored
        })
    );
    let local = ProviderOptions::default();
    assert_eq!(
        merge_provider(options.provider, Some(local.clone())),
        Some(local),
        "a key is never lent to another kind of provider"
    );
}

#[test]
fn the_provider_a_session_was_created_with_is_read_from_its_log() {
    let mut cfg = config();
    cfg.provider = json!({"kind": "openai", "baseUrl": null, "model": "m1"});
    let h = Harness::new(cfg);
    assert_eq!(
        stored_provider(&h.log),
        Some(ProviderOptions {
            kind: ProviderKind::Openai,
            base_url: None,
            api_key: None,
            model: Some("m1".into()),
        })
    );
    assert_eq!(stored_provider(&[]), None);
}

#[test]
fn form_values_parse_and_print() {
    assert_eq!(parse_max_steps(""), Ok(None));
    assert_eq!(parse_max_steps(" 12 "), Ok(Some(12)));
    assert!(parse_max_steps("0").is_err());
    assert!(parse_max_steps("many").is_err());
    for kind in [
        ProviderKind::Local,
        ProviderKind::Openai,
        ProviderKind::Anthropic,
    ] {
        assert_eq!(provider_from_value(provider_value(kind)), kind);
    }
    assert_eq!(provider_from_value("bogus"), ProviderKind::Local);
}

#[test]
fn a_remote_session_without_a_key_waits_for_one_and_a_local_one_never_does() {
    use tabloop::runtime::options::{AgentOptions, ProviderKind, ProviderOptions};
    use tabloop::view::missing_key;
    let remote = |key: Option<&str>| AgentOptions {
        provider: Some(ProviderOptions {
            kind: ProviderKind::Anthropic,
            base_url: None,
            api_key: key.map(str::to_string),
            model: Some("claude".into()),
        }),
        ..AgentOptions::default()
    };
    let why = missing_key(&remote(None)).expect("a key is needed");
    assert!(why.contains("the Anthropic API (claude)"), "{why}");
    assert_eq!(
        missing_key(&remote(Some("  "))).is_some(),
        true,
        "a blank key is no key"
    );
    assert_eq!(missing_key(&remote(Some("sk-x"))), None);
    assert_eq!(missing_key(&AgentOptions::default()), None);
    let local = AgentOptions {
        provider: Some(ProviderOptions::default()),
        ..AgentOptions::default()
    };
    assert_eq!(missing_key(&local), None);
}
