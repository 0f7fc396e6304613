//! The view of a session at a glance: labels for the run phase and the limits for "continue
//! with more budget". The summary itself is folded in the core ([`SessionDigest`]).

use crate::core::{BudgetLimits, RunPhase, SessionDigest, StopReason};

/// A session at a glance, as the playground shows it.
pub type SessionSummary = SessionDigest;

impl RunPhase {
    /// A short label for the status bar.
    pub fn label(&self) -> String {
        match self {
            RunPhase::Idle => "idle".to_string(),
            RunPhase::Working => "working".to_string(),
            RunPhase::CallingModel => "calling the model".to_string(),
            RunPhase::RunningTools => "running tools".to_string(),
            RunPhase::AwaitingApproval => "awaiting approval".to_string(),
            // A completion is not a stop; an unchecked finish says so.
            RunPhase::Finished {
                stop: StopReason::Completed,
            } => "completed".to_string(),
            RunPhase::Finished {
                stop: StopReason::VerifiedFinish,
            } => "completed: verified".to_string(),
            RunPhase::Finished {
                stop: StopReason::UnverifiedFinish,
            } => "finished: not verified".to_string(),
            RunPhase::Finished { stop } => format!("stopped: {}", stop.code().replace('_', " ")),
        }
    }
}

impl SessionDigest {
    /// The limits for "continue with more budget": every limit of the run doubled, when the
    /// last run stopped because a budget ran out.
    pub fn extended_limits(&self) -> Option<BudgetLimits> {
        let RunPhase::Finished {
            stop: StopReason::BudgetExhausted { .. },
        } = self.phase()
        else {
            return None;
        };
        self.limits().map(|limits| doubled(&limits))
    }
}

/// Every limit doubled (unlimited ones stay unlimited; a zero limit becomes one).
pub fn doubled(limits: &BudgetLimits) -> BudgetLimits {
    BudgetLimits {
        max_steps: limits.max_steps.map(|n| n.saturating_mul(2).max(1)),
        max_tool_calls: limits.max_tool_calls.map(|n| n.saturating_mul(2).max(1)),
        max_input_tokens: limits.max_input_tokens.map(|n| n.saturating_mul(2).max(1)),
        max_output_tokens: limits.max_output_tokens.map(|n| n.saturating_mul(2).max(1)),
        max_cost_usd: limits
            .max_cost_usd
            .map(|c| if c > 0.0 { c * 2.0 } else { 0.01 }),
        max_wall_ms: limits.max_wall_ms.map(|n| n.saturating_mul(2).max(1)),
    }
}
