//! The run part of the settings form: every budget, the system prompt, the prices per model,
//! the loop guard and the fetch allow-list, a permission per tool and whether to forget the API
//! key once a session has it. Each field
//! is typed as text and parsed here, so a bad value is an error beside the field, never a
//! silent default.

use super::field_error::FieldError;
use std::collections::BTreeMap;

use super::model_prices::ModelPrices;
use crate::core::Permission;
use crate::runtime::options::{BudgetOptions, GuardOptions};

/// The tools the playground offers, with the permission each has unless the user changes it.
pub const PLAYGROUND_TOOLS: &[(&str, Permission)] = &[
    ("vfs", Permission::Allow),
    ("http_fetch", Permission::Ask),
    ("eval", Permission::Allow),
    ("todo", Permission::Allow),
    ("finish", Permission::Allow),
];

/// A budget field of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetField {
    /// Most steps.
    Steps,
    /// Most tool calls.
    ToolCalls,
    /// Most input tokens.
    InputTokens,
    /// Most output tokens.
    OutputTokens,
    /// Most spend in USD.
    CostUsd,
    /// Most active seconds.
    Seconds,
}

impl BudgetField {
    /// Every budget field, in the form's order.
    pub const ALL: [BudgetField; 6] = [
        BudgetField::Steps,
        BudgetField::ToolCalls,
        BudgetField::InputTokens,
        BudgetField::OutputTokens,
        BudgetField::CostUsd,
        BudgetField::Seconds,
    ];

    /// The field's id and test hook.
    pub fn id(self) -> &'static str {
        match self {
            BudgetField::Steps => "budget-steps",
            BudgetField::ToolCalls => "budget-tool-calls",
            BudgetField::InputTokens => "budget-input-tokens",
            BudgetField::OutputTokens => "budget-output-tokens",
            BudgetField::CostUsd => "budget-cost",
            BudgetField::Seconds => "budget-seconds",
        }
    }

    /// The field's label.
    pub fn label(self) -> &'static str {
        match self {
            BudgetField::Steps => "Max steps",
            BudgetField::ToolCalls => "Max tool calls",
            BudgetField::InputTokens => "Max input tokens",
            BudgetField::OutputTokens => "Max output tokens",
            BudgetField::CostUsd => "Max cost (USD)",
            BudgetField::Seconds => "Max time (s)",
        }
    }

    /// Parses `text` into `budget`: empty means no limit of this kind set here (the default
    /// applies); otherwise a positive number (whole, except for cost and time).
    pub fn apply(self, budget: &mut BudgetOptions, text: &str) -> Result<(), FieldError> {
        let budget = &mut budget.given;
        let text = text.trim();
        let whole = |what: &'static str| -> Result<Option<u64>, FieldError> {
            if text.is_empty() {
                return Ok(None);
            }
            match text.parse::<u64>() {
                Ok(n) if n > 0 => Ok(Some(n)),
                Ok(_) | Err(_) => Err(FieldError::NotPositiveWhole {
                    what,
                    text: text.to_string(),
                }),
            }
        };
        let decimal = |what: &'static str| -> Result<Option<f64>, FieldError> {
            if text.is_empty() {
                return Ok(None);
            }
            match text.parse::<f64>() {
                Ok(n) if n.is_finite() && n > 0.0 => Ok(Some(n)),
                Ok(_) | Err(_) => Err(FieldError::NotPositive {
                    what,
                    text: text.to_string(),
                }),
            }
        };
        match self {
            BudgetField::Steps => {
                budget.max_steps = whole("max steps")?.map(clamp_u32);
            }
            BudgetField::ToolCalls => {
                budget.max_tool_calls = whole("max tool calls")?.map(clamp_u32);
            }
            BudgetField::InputTokens => budget.max_input_tokens = whole("max input tokens")?,
            BudgetField::OutputTokens => budget.max_output_tokens = whole("max output tokens")?,
            BudgetField::CostUsd => budget.max_cost_usd = decimal("max cost")?,
            BudgetField::Seconds => {
                budget.max_wall_ms = decimal("max time")?.map(|s| (s * 1000.0).round() as u64);
            }
        }
        Ok(())
    }
}

fn clamp_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A price per million tokens typed in the form: empty is `None`, else a number ≥ 0.
pub fn parse_price(text: &str) -> Result<Option<f64>, FieldError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
        Ok(_) | Err(_) => Err(FieldError::NotAPrice {
            text: text.to_string(),
        }),
    }
}

/// The run options of the settings form.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSettings {
    /// Limits set in the form (unset ones keep the defaults).
    pub budget: BudgetOptions,
    /// System prompt (empty: the default).
    pub system: String,
    /// Prices typed per model.
    pub prices: ModelPrices,
    /// Loop-guard thresholds set in the form (unset ones keep the defaults).
    pub guard: GuardOptions,
    /// Hosts `http_fetch` may reach without asking (see `parse_allow_hosts`).
    pub allow_hosts: Vec<String>,
    /// Permission overrides by tool name.
    pub permissions: BTreeMap<String, Permission>,
    /// Forget the API key once the session it was entered for has started.
    pub forget_key: bool,
}

impl RunSettings {
    /// The system prompt to send, if one was written.
    pub fn system(&self) -> Option<String> {
        Some(self.system.trim().to_string()).filter(|s| !s.is_empty())
    }

    /// The permission of `tool` as the form shows it.
    pub fn permission(&self, tool: &str) -> Permission {
        self.permissions.get(tool).copied().unwrap_or_else(|| {
            PLAYGROUND_TOOLS
                .iter()
                .find(|(name, _)| *name == tool)
                .map_or(Permission::Ask, |(_, p)| *p)
        })
    }
}

/// The select value of a permission.
pub fn permission_value(permission: Permission) -> &'static str {
    match permission {
        Permission::Allow => "allow",
        Permission::Ask => "ask",
        Permission::Deny => "deny",
    }
}

/// The permission a select value stands for (`ask` for anything unknown: the safe choice).
pub fn permission_from_value(value: &str) -> Permission {
    match value {
        "allow" => Permission::Allow,
        "deny" => Permission::Deny,
        _ => Permission::Ask,
    }
}
