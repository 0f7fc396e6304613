//! The public `createAgent` options and how they become a core configuration. Pure data, so it
//! is tested natively; the browser API only parses JSON into [`AgentOptions`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::{
    finish_tool, todo_tool, AgentConfig, ApprovalScope, BudgetLimits, Permission, Price, ToolDecl,
    ToolKind,
};
use crate::protocol::ToolSpec;

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
}

/// Provider settings. The API key is used for requests only and never enters the log.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderOptions {
    /// Which provider.
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

/// Budget options in the API's camelCase; missing fields keep the defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BudgetOptions {
    /// Most steps.
    pub max_steps: Option<u32>,
    /// Most tool calls.
    pub max_tool_calls: Option<u32>,
    /// Most input tokens.
    pub max_input_tokens: Option<u64>,
    /// Most output tokens.
    pub max_output_tokens: Option<u64>,
    /// Most spend in USD.
    pub max_cost_usd: Option<f64>,
    /// Most active wall-clock milliseconds.
    pub max_wall_ms: Option<u64>,
}

impl BudgetOptions {
    /// These options laid over `base`.
    pub fn over(&self, base: BudgetLimits) -> BudgetLimits {
        BudgetLimits {
            max_steps: self.max_steps.or(base.max_steps),
            max_tool_calls: self.max_tool_calls.or(base.max_tool_calls),
            max_input_tokens: self.max_input_tokens.or(base.max_input_tokens),
            max_output_tokens: self.max_output_tokens.or(base.max_output_tokens),
            max_cost_usd: self.max_cost_usd.or(base.max_cost_usd),
            max_wall_ms: self.max_wall_ms.or(base.max_wall_ms),
        }
    }
}

/// Everything `createAgent` accepts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentOptions {
    /// Session id; an existing session is resumed.
    pub session: Option<String>,
    /// The model; when `None`, a resumed session keeps the one it was created with and a new
    /// session uses the local model.
    pub provider: Option<ProviderOptions>,
    /// Run limits.
    pub budget: BudgetOptions,
    /// Tool names offered to the model; `None` offers every registered tool plus todo and finish.
    pub tools: Option<Vec<String>>,
    /// Per-tool permission overrides.
    pub permissions: BTreeMap<String, Permission>,
    /// System prompt.
    pub system: Option<String>,
    /// Prices for the cost budget.
    pub price: Option<Price>,
    /// Context window of the model in tokens.
    pub context_window: Option<u64>,
    /// Output-token cap per call.
    pub max_output_tokens: Option<u32>,
    /// A final answer needs the finish tool's verifier to pass.
    pub require_finish: bool,
}

/// A tool as the page registered it (the JS registry's spec without `execute`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostToolSpec {
    /// Name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// JSON Schema of its arguments.
    #[serde(default = "empty_object_schema")]
    pub parameters: Value,
    /// Default permission.
    #[serde(default = "default_permission")]
    pub permission: Permission,
    /// Safe to re-run.
    #[serde(default)]
    pub idempotent: bool,
    /// Safe to run alongside others.
    #[serde(default)]
    pub parallel_safe: bool,
    /// What an approval also covers: `{ urlHost: "<argument>" }` = later calls to that host.
    #[serde(default)]
    pub approval_scope: Option<ApprovalScope>,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object"})
}

fn default_permission() -> Permission {
    Permission::Ask
}

/// Options that cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// A tool name nobody registered.
    #[error("unknown tool \"{0}\": register it with tabloop.registerTool first")]
    UnknownTool(String),
    /// `requireFinish` with nothing to check the claim.
    #[error("requireFinish needs a finish verifier: register a tool named \"finish\" with tabloop.registerTool before createAgent")]
    NoFinishVerifier,
    /// A remote provider without what it needs.
    #[error("the {0} provider needs {1}")]
    MissingProviderField(&'static str, &'static str),
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
        let provider = self.provider.clone().unwrap_or_default();
        check_provider(&provider)?;
        // A page's own `finish` tool is the verifier; the core declares the tool itself.
        let finish_verifier = registered.iter().any(|t| t.name == "finish");
        if self.require_finish && !finish_verifier {
            return Err(OptionsError::NoFinishVerifier);
        }
        Ok(AgentConfig {
            provider: provider.describe(),
            system: self
                .system
                .clone()
                .or_else(|| Some(DEFAULT_SYSTEM.to_string())),
            tools,
            budget: self.budget.over(defaults.budget),
            price: self.price.unwrap_or_default(),
            context_window: self.context_window.unwrap_or(match provider.kind {
                ProviderKind::Local => 4096,
                ProviderKind::Openai | ProviderKind::Anthropic => 128_000,
            }),
            max_output_tokens: self.max_output_tokens.unwrap_or(match provider.kind {
                ProviderKind::Local => 256,
                ProviderKind::Openai | ProviderKind::Anthropic => 4096,
            }),
            require_finish: self.require_finish,
            finish_verifier,
            ..defaults
        })
    }
}

fn check_provider(provider: &ProviderOptions) -> Result<(), OptionsError> {
    let name = match provider.kind {
        ProviderKind::Local => return Ok(()),
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
        let mut provider: ProviderOptions = serde_json::from_value(value.clone()).ok()?;
        provider.api_key = None;
        Some(provider)
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
        },
        permission: spec.permission,
        idempotent: spec.idempotent,
        parallel_safe: spec.parallel_safe,
        kind: ToolKind::Host,
        approval_scope: spec.approval_scope.clone(),
    }
}
