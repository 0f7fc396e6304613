//! Budget data as the log records it: which budget ran out, a run's limits and the ledger of
//! what it spent. Wall-clock time counts only while the tab was active; suspended time is kept
//! apart.

use serde::{Deserialize, Serialize};

use crate::protocol::Usage;

/// Which budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    /// Loop steps (model calls of the main loop).
    Steps,
    /// Tool calls executed or rejected.
    ToolCalls,
    /// Input tokens, cached ones included.
    InputTokens,
    /// Output tokens.
    OutputTokens,
    /// Money, from the model's price table.
    Cost,
    /// Active wall-clock time.
    WallClock,
}

impl BudgetKind {
    /// A short human name.
    pub fn label(self) -> &'static str {
        match self {
            BudgetKind::Steps => "step",
            BudgetKind::ToolCalls => "tool-call",
            BudgetKind::InputTokens => "input-token",
            BudgetKind::OutputTokens => "output-token",
            BudgetKind::Cost => "cost",
            BudgetKind::WallClock => "wall-clock",
        }
    }
}

/// Limits of one run; `None` means unlimited. The aliases read the same limits in the page
/// API's camelCase (`maxSteps`, …), where the options hold them (see `BudgetOptions`); the log
/// writes the names of the fields.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BudgetLimits {
    /// Most loop steps.
    #[serde(alias = "maxSteps")]
    pub max_steps: Option<u32>,
    /// Most tool calls.
    #[serde(alias = "maxToolCalls")]
    pub max_tool_calls: Option<u32>,
    /// Most input tokens (cached included).
    #[serde(alias = "maxInputTokens")]
    pub max_input_tokens: Option<u64>,
    /// Most output tokens.
    #[serde(alias = "maxOutputTokens")]
    pub max_output_tokens: Option<u64>,
    /// Most spend in USD.
    #[serde(alias = "maxCostUsd")]
    pub max_cost_usd: Option<f64>,
    /// Most active wall-clock milliseconds.
    #[serde(alias = "maxWallMs")]
    pub max_wall_ms: Option<u64>,
}

impl BudgetLimits {
    /// No limit of any kind (as options: no limit given, so every one of the base stands).
    pub const NONE: Self = Self {
        max_steps: None,
        max_tool_calls: None,
        max_input_tokens: None,
        max_output_tokens: None,
        max_cost_usd: None,
        max_wall_ms: None,
    };
}

impl Default for BudgetLimits {
    fn default() -> Self {
        Self {
            max_steps: Some(25),
            max_tool_calls: Some(100),
            max_input_tokens: None,
            max_output_tokens: None,
            max_cost_usd: None,
            max_wall_ms: Some(30 * 60 * 1000),
        }
    }
}

/// What a run has spent so far. Persisted as `budget_before` / `budget_after` of every step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Loop steps started.
    pub steps: u32,
    /// Tool calls made (including rejected ones).
    pub tool_calls: u32,
    /// Tokens used.
    pub usage: Usage,
    /// Spend in USD.
    pub cost_usd: f64,
    /// Active wall-clock milliseconds.
    pub active_ms: u64,
    /// Milliseconds the tab was suspended or closed (not charged).
    pub suspended_ms: u64,
}

impl Ledger {
    /// Input tokens counted against the budget: uncached, cached and cache writes.
    pub fn input_tokens(&self) -> u64 {
        self.usage.input_tokens + self.usage.cached_input_tokens + self.usage.cache_write_tokens
    }
}
