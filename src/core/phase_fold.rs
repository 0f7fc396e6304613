//! [`PhaseFold`]: a run's [`RunPhase`] read from its log alone, through the event table
//! ([`super::event_facts`]), for folds without the agent's state (the sessions digest).

use serde::{Deserialize, Serialize};

use super::event_facts::{ApprovalMove, EventFacts};
use super::run_phase::RunPhase;

/// The [`RunPhase`] folded from a log alone, through the event table: what the last event
/// that moves the phase entered, read as the agent's [`Phase`] reads (tool calls waiting for
/// approval while others run count as waiting).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseFold {
    /// The phase.
    pub phase: RunPhase,
    /// Tool calls of the batch in flight that wait for approval.
    pub open_approvals: u32,
}

impl Default for PhaseFold {
    fn default() -> Self {
        Self {
            phase: RunPhase::Idle,
            open_approvals: 0,
        }
    }
}

impl PhaseFold {
    /// Takes one event's facts.
    pub fn follow(&mut self, facts: &EventFacts<'_>) {
        self.open_approvals = match facts.approval {
            ApprovalMove::Keep => self.open_approvals,
            ApprovalMove::Ask => self.open_approvals + 1,
            ApprovalMove::Answer => self.open_approvals.saturating_sub(1),
            ApprovalMove::Clear => 0,
        };
        if let Some(phase) = &facts.phase {
            self.phase = phase.clone();
        }
        let tools = matches!(
            self.phase,
            RunPhase::RunningTools | RunPhase::AwaitingApproval
        );
        if tools && self.open_approvals > 0 {
            self.phase = RunPhase::AwaitingApproval;
        }
    }
}
