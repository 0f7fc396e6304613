//! What a run is doing, in the few words a status bar shows: the coarse reading of the core's
//! [`Phase`]. Folds that read a log without the agent's state (the sessions digest) reach it
//! through the event table, in [`PhaseFold`](super::phase_fold::PhaseFold).

use serde::{Deserialize, Serialize};

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
