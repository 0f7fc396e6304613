//! What follows a failed model call. A stream cut after output arrived (or gone silent) is sent
//! again within the same step, a bounded number of times with growing waits; the partial reply
//! is dropped from the context. When the provider stays down, or its client already used up its
//! own retries, the run pauses until a person asks to retry (see `pause.rs`): a transient fault never becomes a
//! terminal outcome. Anything else (a refused key, a bad request) ends the run as before.

use super::agent::Agent;
use super::log::{CallPurpose, Event, PauseReason, StopReason};
use super::phase::Phase;
use super::run::RunState;
use super::InputError;
use crate::protocol::{ModelError, ModelErrorKind};

/// Times a cut stream is sent again before the run pauses (codex retries a stream drop 5 times;
/// the provider client already retried what failed before any output).
pub const MAX_STREAM_RETRIES: u32 = 4;
/// Wait before the first resend; each further one doubles it.
pub const FIRST_RETRY_DELAY_MS: u64 = 250;

/// How a failed call is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureClass {
    /// Cut or stalled mid-reply: the loop sends the call again itself.
    Resend,
    /// The provider's client gave up after its own retries: the provider looks down.
    ProviderDown,
    /// Retrying cannot help (auth, bad request, a local model that cannot run).
    Fatal,
}

/// Classifies a failure. A pure function of the recorded error, so replay folds the same way.
pub fn classify(error: &ModelError) -> FailureClass {
    match &error.kind {
        ModelErrorKind::Truncated { partial: Some(_) } | ModelErrorKind::IdleTimeout => {
            FailureClass::Resend
        }
        ModelErrorKind::Truncated { partial: None }
        | ModelErrorKind::Network
        | ModelErrorKind::FirstByteTimeout => FailureClass::ProviderDown,
        ModelErrorKind::Http { .. } | ModelErrorKind::Provider { .. } => {
            if error.is_retryable() {
                FailureClass::ProviderDown
            } else {
                FailureClass::Fatal
            }
        }
        ModelErrorKind::Malformed | ModelErrorKind::Cancelled | ModelErrorKind::LocalModel => {
            FailureClass::Fatal
        }
    }
}

/// The wait before resend number `attempt` (from 1).
pub fn retry_delay_ms(attempt: u32) -> u64 {
    FIRST_RETRY_DELAY_MS.saturating_mul(1 << attempt.saturating_sub(1).min(16))
}

impl Agent {
    pub(super) fn on_model_failed(
        &mut self,
        request: u64,
        error: ModelError,
    ) -> Result<(), InputError> {
        let purpose = self.in_flight(request)?;
        let class = classify(&error);
        let explanation = format!("The model call failed: {error}");
        let retries = self
            .state
            .active_run()
            .and_then(RunState::model_retry)
            .map_or(0, |retry| retry.attempt);
        self.emit(Event::ModelFailed { request, error });
        match class {
            FailureClass::Resend if retries < MAX_STREAM_RETRIES => {
                let attempt = retries + 1;
                self.emit(Event::ModelRetryScheduled {
                    attempt,
                    delay_ms: retry_delay_ms(attempt),
                });
                self.call_model(purpose);
            }
            FailureClass::Resend | FailureClass::ProviderDown => {
                self.emit(Event::RunPaused {
                    reason: PauseReason::ProviderUnreachable { purpose },
                    message: format!(
                        "The model provider is unreachable ({explanation}). The run is paused; \
                         nothing is lost. Retry when the provider is back."
                    ),
                });
            }
            FailureClass::Fatal => self.finish_run(StopReason::FatalError, explanation, None),
        }
        Ok(())
    }

    pub(super) fn in_flight(&self, request: u64) -> Result<CallPurpose, InputError> {
        match self.state.active_run().map(|r| &r.phase) {
            Some(Phase::AwaitingModel {
                request: r,
                purpose,
                ..
            }) if *r == request => Ok(*purpose),
            _ => Err(InputError::StaleRequest(request)),
        }
    }
}
