//! A run that waits for the network: a tool whose server cannot be reached (the browser is
//! offline, or the network went while the call ran) pauses the run instead of handing the model
//! an error it can do nothing about, and a retry sends the paused call again — the model call of
//! a provider that was down, or the tool call, which waited in its batch meanwhile. Nothing else
//! of the batch starts while the run is paused; calls already running finish as usual.

use super::agent::Agent;
use super::log::{Event, InterruptCause, PauseReason};
use super::tool_batch::SlotState;
use super::InputError;

impl Agent {
    /// The tool of `call` could not reach its server: the call goes back into its batch
    /// (recorded with what the tool said) and the run pauses.
    pub(super) fn on_tool_unreachable(
        &mut self,
        call: String,
        error: String,
        sent: bool,
    ) -> Result<(), InputError> {
        let tool = match self.slot(&call) {
            Some(slot) if slot.state == SlotState::Running => slot.call.name.clone(),
            _ => return Err(InputError::UnexpectedCall(call)),
        };
        let cause = if sent {
            InterruptCause::NetworkLost
        } else {
            InterruptCause::Offline
        };
        let message = pause_message(&tool, &error, sent);
        self.emit(Event::ToolCallInterrupted {
            call,
            cause,
            error: Some(error),
        });
        if !self.is_paused() {
            self.emit(Event::RunPaused {
                reason: PauseReason::ToolUnreachable,
                message,
            });
        }
        Ok(())
    }

    /// The user (or the network's return) asks to go on after the run paused: the paused model
    /// call is sent again, or the batch that waited goes on.
    pub(super) fn on_retry_paused(&mut self) -> Result<(), InputError> {
        let run = self.state.active_run().ok_or(InputError::NoActiveRun)?;
        match run.paused() {
            None => Err(InputError::NotPaused),
            Some(PauseReason::ProviderUnreachable { purpose }) => {
                self.emit(Event::RunUnpaused);
                self.call_model(purpose);
                Ok(())
            }
            Some(PauseReason::ToolUnreachable) => {
                self.emit(Event::RunUnpaused);
                self.advance_batch();
                Ok(())
            }
        }
    }

    /// Whether the active run waits for a person or the network.
    pub(super) fn is_paused(&self) -> bool {
        self.state
            .active_run()
            .is_some_and(|r| r.paused().is_some())
    }
}

/// What the person is told; a call that may have reached its server says why it may ask first.
fn pause_message(tool: &str, error: &str, sent: bool) -> String {
    let again = if sent {
        "the network went while the call ran, so it may have reached its server; it is sent \
         again when the network returns (or on Retry), after your approval if the tool is not \
         safe to repeat."
    } else {
        "the call was not sent, and is sent when the network returns (or on Retry)."
    };
    format!(
        "The tool {tool} cannot reach its server ({error}). The run is paused and nothing is \
         lost: {again}"
    )
}
