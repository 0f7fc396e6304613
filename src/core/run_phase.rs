//! What a run is doing, in the few words a status bar shows: the coarse reading of the core's
//! [`Phase`]. Folds that read a log without the agent's state (the sessions digest) reach it
//! through the event table ([`super::event_facts`]); a test holds both readings together.

use serde::{Deserialize, Serialize};

use super::event_facts::{ApprovalMove, EventFacts};
use super::log::StopReason;
use super::phase::Phase;
use super::run::RunState;

/// What the current run is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunPhase {
    /// No run has started yet.
    Idle,
    /// Between two actions of a run.
    Working,
    /// A model call is in flight.
    CallingModel,
    /// Tool calls are being checked or run.
    RunningTools,
    /// A tool call waits for a human.
    AwaitingApproval,
    /// The run ended.
    Finished {
        /// Why.
        stop: StopReason,
    },
}

impl RunPhase {
    /// The coarse phase of a session's current (or last) run, `None` before the first.
    pub fn of(run: Option<&RunState>) -> Self {
        run.map_or(RunPhase::Idle, |run| RunPhase::from(&run.phase))
    }
}

impl From<&Phase> for RunPhase {
    fn from(phase: &Phase) -> Self {
        match phase {
            Phase::StepEnded
            | Phase::Between
            | Phase::ResendDue(_)
            | Phase::BatchDone(_)
            | Phase::AwaitingStopHook(_)
            | Phase::ProviderDown { .. } => RunPhase::Working,
            Phase::AwaitingModel { .. } => RunPhase::CallingModel,
            Phase::Tools(batch) if batch.asks_approval() => RunPhase::AwaitingApproval,
            Phase::Tools(_) => RunPhase::RunningTools,
            Phase::Finished(outcome) => RunPhase::Finished {
                stop: outcome.stop.clone(),
            },
        }
    }
}

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
