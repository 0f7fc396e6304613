//! Where a run is, with the data of each phase inside its variant (the tool batch in flight,
//! what a complete batch came to, the resend in flight, the completion put to the stop hook,
//! the pause for a person) so illegal states cannot be built, and the moves the fold makes
//! between them that read the phase it leaves.

use serde::{Deserialize, Serialize};

use super::log::{CallPurpose, PauseReason, RunOutcome, StopProposal};
use super::tool_batch::{BatchSummary, ToolBatch};

/// Where a run is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Phase {
    /// Between two steps: the last one finished (or none started yet) and the next has not
    /// started.
    StepEnded,
    /// Inside a step, before its model call or between its model call and what follows.
    Between,
    /// A resend of the step's model call after a cut stream is due (never seen between two
    /// inputs: the call follows at once and carries it).
    ResendDue(ModelRetry),
    /// Waiting for a model reply.
    AwaitingModel {
        /// The request in flight.
        request: u64,
        /// What it is for.
        purpose: CallPurpose,
        /// For compaction: where the transcript will be cut.
        cut: Option<usize>,
        /// The request is a resend after a cut stream: which one, and its wait.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry: Option<ModelRetry>,
    },
    /// Running (or deciding) the tool calls of the last reply; a batch whose tool could not
    /// reach its server holds the run's pause ([`ToolBatch::waits_for_network`]).
    Tools(ToolBatch),
    /// Every tool call of the last reply has its result; the next decision reads what the
    /// batch came to.
    BatchDone(BatchSummary),
    /// A completion the core accepted waits for the page's stop hook.
    AwaitingStopHook(StopProposal),
    /// The run waits for a person because its model provider was unreachable; going on sends
    /// a call for `purpose` again.
    ProviderDown {
        /// What the failed call was for.
        purpose: CallPurpose,
    },
    /// The run ended.
    Finished(Box<RunOutcome>),
}

/// A resend of a step's model call after a cut stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelRetry {
    /// Resend number within the step, from 1.
    pub attempt: u32,
    /// Wait before sending, in milliseconds.
    pub delay_ms: u64,
}

impl Phase {
    /// Why the run waits for a person, if it does: its provider was unreachable, or a tool of
    /// its batch could not reach its server.
    pub fn paused(&self) -> Option<PauseReason> {
        if let Phase::ProviderDown { purpose } = self {
            return Some(PauseReason::ProviderUnreachable { purpose: *purpose });
        }
        self.batch()
            .filter(|batch| batch.waits_for_network)
            .map(|_| PauseReason::ToolUnreachable)
    }

    /// The resend the model call in flight is, if it is one.
    pub fn model_retry(&self) -> Option<ModelRetry> {
        let Phase::AwaitingModel { retry, .. } = self else {
            return None;
        };
        *retry
    }

    /// The tool batch in flight, if any.
    pub fn batch(&self) -> Option<&ToolBatch> {
        let Phase::Tools(batch) = self else {
            return None;
        };
        Some(batch)
    }

    /// A step has started and not finished.
    pub fn step_open(&self) -> bool {
        !matches!(self, Phase::StepEnded)
    }

    /// The step ended: a run that was between two moves of it is now between steps (a batch,
    /// a model call or a question still open stays, as a cancel that follows ends them).
    pub(super) fn step_finished(&mut self) {
        if matches!(
            self,
            Phase::Between | Phase::ResendDue(_) | Phase::BatchDone(_)
        ) {
            *self = Phase::StepEnded;
        }
    }

    /// A model call for `purpose` was sent: it is a resend when one was due.
    pub(super) fn model_called(&mut self, request: u64, purpose: CallPurpose, cut: Option<usize>) {
        let retry = if let Phase::ResendDue(retry) = self {
            Some(*retry)
        } else {
            None
        };
        *self = Phase::AwaitingModel {
            request,
            purpose,
            cut,
            retry,
        };
    }

    /// The run waits for a person: a provider that was unreachable becomes the phase; a tool
    /// that could not reach its server holds the pause in its batch, which waits meanwhile.
    pub(super) fn pause(&mut self, reason: PauseReason) {
        match (reason, self) {
            (PauseReason::ProviderUnreachable { purpose }, phase) => {
                *phase = Phase::ProviderDown { purpose };
            }
            (PauseReason::ToolUnreachable, phase) => phase.set_waiting_for_network(true),
        }
    }

    /// A person asked to go on after a pause.
    pub(super) fn unpause(&mut self) {
        if let Phase::ProviderDown { .. } = self {
            *self = Phase::Between;
        }
        self.set_waiting_for_network(false);
    }

    fn set_waiting_for_network(&mut self, waits: bool) {
        if let Phase::Tools(batch) = self {
            batch.waits_for_network = waits;
        }
    }
}
