//! The playground's settings form as data, and the session options it stands for. The API key
//! lives only in memory: it is never persisted, and `Debug` hides it.

use super::field_error::FieldError;
use crate::core::BudgetLimits;
use crate::runtime::options::{AgentOptions, BudgetOptions, ProviderKind, ProviderOptions};

use super::run_settings::RunSettings;

/// What the settings panel holds.
#[derive(Clone, Default, PartialEq)]
pub struct Settings {
    /// Which model answers.
    pub provider: ProviderKind,
    /// Base URL of a remote provider (empty: the provider's default).
    pub base_url: String,
    /// API key of a remote provider (memory only).
    pub api_key: String,
    /// Model name (required for remote providers).
    pub model: String,
    /// Most steps per run (empty: the default).
    pub max_steps: Option<u32>,
    /// GGUF file of the local model (empty: the bundled default).
    pub gguf_url: String,
    /// Budgets, system prompt, price, tool permissions, key handling.
    pub run: RunSettings,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field(
                "api_key",
                &if self.api_key.is_empty() {
                    ""
                } else {
                    "<redacted>"
                },
            )
            .field("model", &self.model)
            .field("max_steps", &self.max_steps)
            .field("gguf_url", &self.gguf_url)
            .field("run", &self.run)
            .finish()
    }
}

impl Settings {
    /// The options to start a new session with (`session` names it; `None` picks an id).
    pub fn to_options(&self, session: Option<String>) -> AgentOptions {
        let some = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        let provider = match self.provider {
            ProviderKind::Local => ProviderOptions {
                kind: ProviderKind::Local,
                base_url: some(&self.gguf_url),
                api_key: None,
                model: None,
            },
            ProviderKind::Openai | ProviderKind::Anthropic | ProviderKind::Custom => {
                ProviderOptions {
                    kind: self.provider,
                    base_url: some(&self.base_url),
                    api_key: some(&self.api_key),
                    model: some(&self.model),
                }
            }
        };
        AgentOptions {
            session,
            provider: Some(provider),
            budget: BudgetOptions {
                given: BudgetLimits {
                    max_steps: self.max_steps.or(self.run.budget.given.max_steps),
                    ..self.run.budget.given
                },
            },
            permissions: self.run.permissions.clone(),
            system: self.run.system(),
            price: self.run.prices.price(&self.price_model()),
            guard: self.run.guard.clone(),
            allow_hosts: self.run.allow_hosts.clone(),
            ..AgentOptions::default()
        }
    }
}

impl Settings {
    /// The model the price fields are for: the model name of a remote provider, `local` for
    /// the in-tab model.
    pub fn price_model(&self) -> String {
        match self.provider {
            ProviderKind::Local => "local".to_string(),
            ProviderKind::Openai | ProviderKind::Anthropic | ProviderKind::Custom => {
                self.model.trim().to_string()
            }
        }
    }

    /// The options to reopen a stored session with: only the key of these settings, for their
    /// kind of provider, and the fetch allow-list (which, like the key, is not in the log). The session service keeps the provider the session was created with
    /// and lends it the key only when it is of the same kind (keys are never stored).
    pub fn key_options(&self, session: String) -> AgentOptions {
        let key = Some(self.api_key.trim().to_string()).filter(|k| !k.is_empty());
        AgentOptions {
            session: Some(session),
            provider: Some(ProviderOptions {
                kind: self.provider,
                base_url: None,
                api_key: key,
                model: None,
            }),
            allow_hosts: self.run.allow_hosts.clone(),
            ..AgentOptions::default()
        }
    }
}

/// The value of the provider select for a kind.
pub fn provider_value(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Local => "local",
        ProviderKind::Openai => "openai",
        ProviderKind::Anthropic => "anthropic",
        ProviderKind::Custom => "custom",
    }
}

/// The kind a provider select value stands for (`local` for anything unknown).
pub fn provider_from_value(value: &str) -> ProviderKind {
    match value {
        "openai" => ProviderKind::Openai,
        "anthropic" => ProviderKind::Anthropic,
        _ => ProviderKind::Local,
    }
}

/// The max-steps field parsed: empty means the default, anything else must be a positive
/// whole number.
pub fn parse_max_steps(text: &str) -> Result<Option<u32>, FieldError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        Ok(_) | Err(_) => Err(FieldError::NotPositiveWhole {
            what: "max steps",
            text: text.to_string(),
        }),
    }
}

/// Why a session cannot be reopened yet: its remote provider needs an API key and none was
/// given (keys are never stored, so after a reload the user must enter it again).
pub fn missing_key(options: &AgentOptions) -> Option<String> {
    let provider = options.provider.as_ref()?;
    let name = match provider.kind {
        ProviderKind::Local => return None,
        ProviderKind::Openai => "an OpenAI-compatible API",
        ProviderKind::Anthropic => "the Anthropic API",
        ProviderKind::Custom => {
            return Some(
                "This session uses a model the embedding page provides (a custom provider); \
                 reopen it from that page, which passes its complete function again."
                    .to_string(),
            )
        }
    };
    if provider
        .api_key
        .as_deref()
        .is_some_and(|k| !k.trim().is_empty())
    {
        return None;
    }
    let model = provider.model.as_deref().unwrap_or("its model");
    Some(format!(
        "This session talks to {name} ({model}). API keys are never stored, so enter the key \
         under Model & budget (same provider), then press Resume."
    ))
}
