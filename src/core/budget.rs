//! The budget check made before every model call, and the cost of a call at the model's
//! prices.

use super::log::{BudgetKind, BudgetLimits, Ledger, Price};
use crate::protocol::Usage;

impl Ledger {
    /// The first budget that is spent, checked before a model call. `extra_active_ms` is the
    /// active time since the last persisted event.
    pub fn exhausted(&self, limits: &BudgetLimits, extra_active_ms: u64) -> Option<BudgetKind> {
        let over = |spent: u64, limit: Option<u64>| limit.is_some_and(|l| spent >= l);
        if over(u64::from(self.steps), limits.max_steps.map(u64::from)) {
            return Some(BudgetKind::Steps);
        }
        if over(
            u64::from(self.tool_calls),
            limits.max_tool_calls.map(u64::from),
        ) {
            return Some(BudgetKind::ToolCalls);
        }
        if over(self.input_tokens(), limits.max_input_tokens) {
            return Some(BudgetKind::InputTokens);
        }
        if over(self.usage.output_tokens, limits.max_output_tokens) {
            return Some(BudgetKind::OutputTokens);
        }
        if limits.max_cost_usd.is_some_and(|l| self.cost_usd >= l) {
            return Some(BudgetKind::Cost);
        }
        if over(self.active_ms + extra_active_ms, limits.max_wall_ms) {
            return Some(BudgetKind::WallClock);
        }
        None
    }
}

/// Cost in USD of one call's usage at the given prices.
pub fn cost_of(usage: &Usage, price: &Price) -> f64 {
    let per = |tokens: u64, per_mtok: f64| tokens as f64 * per_mtok / 1_000_000.0;
    per(
        usage.input_tokens + usage.cache_write_tokens,
        price.input_per_mtok,
    ) + per(usage.cached_input_tokens, price.cached_input_per_mtok)
        + per(usage.output_tokens, price.output_per_mtok)
}
