//! Stop hooks: a completion the core accepted (a final answer, or a finish call) is put to the
//! page's hook before the run ends, when this tab registered one. A block sends the reason to
//! the model and the run continues (`stop_hook_blocked{consecutive}`), up to
//! `max_completion_blocks` blocks, then the run needs a human; a hook that throws, times out or
//! is missing is reported as such and ends the run needing a human: it never silently passes.
//!
//! Whether a hook is registered is a live setting of the tab ([`Agent::set_stop_hook`]), not a
//! fact of the log; every question and answer is recorded.

use super::agent::Agent;
use super::log::{Event, HumanReason, StopProposal, StopReason, StopVerdict, TransitionReason};
use super::phase::Phase;
use super::InputError;

impl Agent {
    /// Registers (or removes) the page's stop hook for the proposals that follow.
    pub fn set_stop_hook(&mut self, registered: bool) {
        self.stop_hook = registered;
    }

    /// Ends the run with an accepted completion, or first asks the stop hook when there is one.
    pub(super) fn propose_stop(
        &mut self,
        stop: StopReason,
        explanation: String,
        final_text: Option<String>,
    ) {
        if !self.stop_hook {
            return self.finish_run(stop, explanation, final_text);
        }
        let proposal = StopProposal {
            stop,
            explanation,
            final_text,
        };
        self.emit(Event::StopHookAsked { proposal });
    }

    pub(super) fn on_stop_hook_answered(&mut self, verdict: StopVerdict) -> Result<(), InputError> {
        let proposal = match self.state.active_run().map(|r| &r.phase) {
            Some(Phase::AwaitingStopHook(proposal)) => proposal.clone(),
            _ => return Err(InputError::NoStopProposal),
        };
        self.emit(Event::StopHookDecided {
            verdict: verdict.clone(),
        });
        match verdict {
            StopVerdict::Allow => {
                self.finish_run(proposal.stop, proposal.explanation, proposal.final_text)
            }
            StopVerdict::Block { reason } => {
                let blocks = self.state.active_run().map_or(0, |r| r.stop_hook_blocks);
                if blocks > self.state.config.max_completion_blocks {
                    let explanation = format!(
                        "The stop hook blocked completion {blocks} times; the last reason: {reason}"
                    );
                    let reason = HumanReason::StopHookBlocked { reason };
                    self.finish_run(StopReason::NeedsHuman { reason }, explanation, None);
                    return Ok(());
                }
                self.end_step();
                self.start_step(TransitionReason::StopHookBlocked {
                    consecutive: blocks,
                });
            }
            StopVerdict::Failed { message } => {
                let explanation = format!(
                    "The stop hook failed ({message}), so nobody decided whether the run may end."
                );
                let reason = HumanReason::StopHookFailed { message };
                self.finish_run(StopReason::NeedsHuman { reason }, explanation, None);
            }
        }
        Ok(())
    }
}
