//! The public `createAgent` options and how they become a core configuration. Pure data, so it
//! is tested natively; the browser API only parses JSON into [`AgentOptions`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::{
    finish_tool, give_up_tool, todo_tool, AgentConfig, BudgetLimits, Event, GuardThresholds,
    Permission, Price, Record, ToolDecl, ToolKind,
};
use crate::ports::HostToolSpec;
use crate::protocol::ToolSpec;

pub use super::guard_options::GuardOptions;
pub use super::options_error::OptionsError;

/// Which model answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// The model running in the tab (no key, no server).
    #[default]
    Local,
    /// Any OpenAI-compatible Chat Completions endpoint.
    Openai,
    /// The Anthropic Messages API.
    Anthropic,
    /// A function the page passes (`complete`), spoken to in the Chat Completions shape. Only
    /// the kind and model name enter the log; the function must be given again on resume.
    Custom,
}

/// Provider settings. The API key is used for requests only and never enters the log.
#[derive(Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderOptions {
    /// Which provider.
    #[serde(default)]
    pub kind: ProviderKind,
    /// Base URL (e.g. `https://api.openai.com/v1`); for `local`, the GGUF URL.
    pub base_url: Option<String>,
    /// API key (remote providers).
    pub api_key: Option<String>,
    /// Model name.
    pub model: Option<String>,
}

impl std::fmt::Debug for ProviderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderOptions")
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .finish()
    }
}

/// Budget options in the API's camelCase (`{ maxSteps: 10 }`): the core's [`BudgetLimits`],
/// where a `None` is a limit not given (the one below stands), not an unlimited one.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct BudgetOptions {
    /// The limits given.
    pub given: BudgetLimits,
}

impl Default for BudgetOptions {
    /// No limit given.
    fn default() -> Self {
        Self {
            given: BudgetLimits::NONE,
        }
    }
}

impl BudgetOptions {
    /// These options laid over `base`.
    pub fn over(&self, base: BudgetLimits) -> BudgetLimits {
        let given = self.given;
        BudgetLimits {
            max_steps: given.max_steps.or(base.max_steps),
            max_tool_calls: given.max_tool_calls.or(base.max_tool_calls),
            max_input_tokens: given.max_input_tokens.or(base.max_input_tokens),
            max_output_tokens: given.max_output_tokens.or(base.max_output_tokens),
            max_cost_usd: given.max_cost_usd.or(base.max_cost_usd),
            max_wall_ms: given.max_wall_ms.or(base.max_wall_ms),
        }
    }
}

/// Everything `createAgent` accepts.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentOptions {
    /// Session id; an existing session is resumed.
    pub session: Option<String>,
    /// The model; when `None`, a resumed session keeps the one it was created with and a new
    /// session uses the local model.
    pub provider: Option<ProviderOptions>,
    /// Run limits.
    #[serde(default)]
    pub budget: BudgetOptions,
    /// Tool names offered to the model; `None` offers every registered tool plus todo and finish.
    pub tools: Option<Vec<String>>,
    /// Per-tool permission overrides.
    #[serde(default)]
    pub permissions: BTreeMap<String, Permission>,
    /// System prompt.
    pub system: Option<String>,
    /// Prices for the cost budget; the built-in table's price of the model when `None`.
    pub price: Option<Price>,
    /// Context window of the model in tokens.
    pub context_window: Option<u64>,
    /// Output-token cap per call.
    pub max_output_tokens: Option<u32>,
    /// A final answer needs the finish tool's verifier to pass.
    #[serde(default)]
    pub require_finish: bool,
    /// Loop-guard thresholds; missing fields keep the defaults.
    #[serde(default)]
    pub guard: GuardOptions,
    /// Compact when the projected context passes this share of the window (0 < x ≤ 1).
    pub compaction_threshold: Option<f64>,
    /// Messages kept verbatim after a compaction.
    pub compaction_keep_recent: Option<usize>,
    /// Longest tool result kept in context, in characters; longer ones are cut with a note.
    pub max_tool_result_chars: Option<usize>,
    /// Failed tool calls in a row that stop the run.
    pub max_consecutive_errors: Option<u32>,
    /// The model sees only the current task's messages, not the earlier runs of the session;
    /// `None`: yes for the in-tab model (a small model copies its earlier replies), no otherwise.
    pub context_per_task: Option<bool>,
    /// Hosts the built-in `http_fetch` may reach without the user's approval (`example.com`,
    /// `*.example.com`, `host:port`; a loopback or private address only by an exact entry).
    /// Handed to the tools with each call, never written to the log: give it again on resume.
    #[serde(default)]
    pub allow_hosts: Vec<String>,
}

impl AgentOptions {
    /// The core configuration: the chosen tools (host tools from `registered`, plus the core's
    /// todo and finish), permissions applied, budgets laid over the defaults.
    pub fn to_config(&self, registered: &[HostToolSpec]) -> Result<AgentConfig, OptionsError> {
        let defaults = AgentConfig::default();
        let wanted: Vec<String> = match &self.tools {
            Some(names) => names.clone(),
            None => registered
                .iter()
                .map(|t| t.name.clone())
                .chain(["todo".to_string(), "finish".to_string()])
                .collect(),
        };
        let mut tools = Vec::new();
        for name in &wanted {
            let mut decl = match name.as_str() {
                "todo" => todo_tool(),
                "finish" => finish_tool(),
                "give_up" => give_up_tool(),
                other => {
                    let spec = registered
                        .iter()
                        .find(|t| t.name == other)
                        .ok_or_else(|| OptionsError::UnknownTool(other.to_string()))?;
                    host_decl(spec)
                }
            };
            if let Some(permission) = self.permissions.get(name) {
                decl.permission = *permission;
            }
            if !tools
                .iter()
                .any(|t: &ToolDecl| t.spec.name == decl.spec.name)
            {
                tools.push(decl);
            }
        }
        // The runtime always offers a way to concede (under the reflective rules).
        let reflective = self.guard.reflective != Some(false);
        if reflective && !tools.iter().any(|t| t.spec.name == "give_up") {
            tools.push(give_up_tool());
        }
        let provider = self.provider.clone().unwrap_or_default();
        check_provider(&provider)?;
        // A page's own `finish` tool is the verifier; the core declares the tool itself.
        let finish_verifier = registered.iter().any(|t| t.name == "finish");
        if self.require_finish && !finish_verifier {
            return Err(OptionsError::NoFinishVerifier);
        }
        let compaction_threshold = self
            .compaction_threshold
            .unwrap_or(defaults.compaction_threshold);
        if !(compaction_threshold > 0.0 && compaction_threshold <= 1.0) {
            return Err(OptionsError::Invalid(format!(
                "compactionThreshold must be in (0, 1], got {}",
                compaction_threshold
            )));
        }
        let max_observation_chars = self
            .max_tool_result_chars
            .unwrap_or(defaults.max_observation_chars);
        if max_observation_chars < 100 {
            return Err(OptionsError::Invalid(format!(
                "maxToolResultChars must be at least 100, got {max_observation_chars}"
            )));
        }
        let price = self.price.or_else(|| {
            provider
                .model
                .as_deref()
                .and_then(super::prices::builtin_price)
        });
        Ok(AgentConfig {
            provider: provider.describe(),
            system: self
                .system
                .clone()
                .or_else(|| Some(DEFAULT_SYSTEM.to_string())),
            tools,
            budget: self.budget.over(defaults.budget),
            price: price.unwrap_or_default(),
            guard: self.guard.over(GuardThresholds {
                // A small local model asks for the call that just succeeded again instead of
                // answering (see `core::repeat_success`).
                end_on_repeated_success: provider.kind == ProviderKind::Local,
                ..defaults.guard
            })?,
            compaction_threshold,
            compaction_keep_recent: self
                .compaction_keep_recent
                .unwrap_or(defaults.compaction_keep_recent),
            max_observation_chars,
            max_consecutive_errors: self
                .max_consecutive_errors
                .unwrap_or(defaults.max_consecutive_errors)
                .max(1),
            context_window: self.context_window.unwrap_or(match provider.kind {
                ProviderKind::Local => 4096,
                ProviderKind::Openai | ProviderKind::Anthropic | ProviderKind::Custom => 128_000,
            }),
            max_output_tokens: self.max_output_tokens.unwrap_or(match provider.kind {
                ProviderKind::Local => 256,
                ProviderKind::Openai | ProviderKind::Anthropic | ProviderKind::Custom => 4096,
            }),
            // The in-tab model writes each reply under a grammar that starts it afresh, so it
            // cannot continue a reply cut at the output limit (asked to, it wrapped the cut text
            // in a new answer, deeper each time): its first cut ends the run.
            max_output_recoveries: match provider.kind {
                ProviderKind::Local => 0,
                ProviderKind::Openai | ProviderKind::Anthropic | ProviderKind::Custom => {
                    defaults.max_output_recoveries
                }
            },
            context_per_task: self.context_per_task.unwrap_or(match provider.kind {
                ProviderKind::Local => true,
                ProviderKind::Openai | ProviderKind::Anthropic | ProviderKind::Custom => false,
            }),
            require_finish: self.require_finish,
            finish_verifier,
            ..defaults
        })
    }
}

fn check_provider(provider: &ProviderOptions) -> Result<(), OptionsError> {
    let name = match provider.kind {
        ProviderKind::Local | ProviderKind::Custom => return Ok(()),
        ProviderKind::Openai => "openai",
        ProviderKind::Anthropic => "anthropic",
    };
    if provider.model.as_deref().unwrap_or("").is_empty() {
        return Err(OptionsError::MissingProviderField(name, "a model"));
    }
    Ok(())
}

impl ProviderOptions {
    /// What the log keeps of the provider: everything but the key.
    pub fn describe(&self) -> Value {
        serde_json::json!({"kind": self.kind, "baseUrl": self.base_url, "model": self.model})
    }

    /// These options completed from a stored description of the same kind: a page resuming a
    /// session may give only the key, and keeps the base URL and model it was created with.
    pub fn completed_from(mut self, stored: &ProviderOptions) -> Self {
        if self.kind == stored.kind {
            self.base_url = self.base_url.or_else(|| stored.base_url.clone());
            self.model = self.model.or_else(|| stored.model.clone());
        }
        self
    }

    /// The provider a stored configuration describes (with no key).
    pub fn from_description(value: &Value) -> Option<Self> {
        let mut provider = ProviderOptions::deserialize(value).ok()?;
        provider.api_key = None;
        Some(provider)
    }
}

/// The provider a session was created with, from the first record of its log (a log that
/// describes none talks to the in-tab model).
pub fn stored_provider(records: &[Record]) -> Option<ProviderOptions> {
    let Event::SessionStarted { config, .. } = &records.first()?.event else {
        return None;
    };
    Some(ProviderOptions::from_description(&config.provider).unwrap_or_default())
}

impl From<BudgetLimits> for BudgetOptions {
    /// Every limit given (an unlimited one stays unlimited when laid over current limits that
    /// are unlimited there too).
    fn from(limits: BudgetLimits) -> Self {
        Self { given: limits }
    }
}

/// The system prompt used when the page gives none.
pub const DEFAULT_SYSTEM: &str = "You are tabloop, an agent that works in the user's browser tab. \
Use the tools to do the task; call one tool at a time when unsure. When the task is done, answer \
with the result (or call finish when it is offered).";

fn host_decl(spec: &HostToolSpec) -> ToolDecl {
    ToolDecl {
        spec: ToolSpec {
            name: spec.name.clone(),
            description: spec.description.clone(),
            parameters: spec.parameters.clone(),
            local_parameters: spec.local_parameters.clone(),
        },
        permission: spec.permission,
        idempotent: spec.idempotent,
        parallel_safe: spec.parallel_safe,
        kind: ToolKind::Host,
        approval_scope: spec.approval_scope.clone(),
    }
}
