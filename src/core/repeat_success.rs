//! Ending a run whose model asks again for the call that just succeeded. SmolLM2-135M, shown
//! the result of a call that did what it asked, writes the very same call again (at every later
//! step, for every tool tried: a write, a read, an eval), so its run never ends on its own. An
//! identical call right after its own success brings no new evidence, so the runtime decides
//! instead of the model, when the configuration asks for it
//! ([`GuardThresholds::end_on_repeated_success`](super::GuardThresholds)): the repeat is not
//! run, and the run ends with the result the call returned as its answer. Everything is decided
//! from the recorded reply, so a replay decides the same.

use serde_json::Value;

use super::agent::Agent;
use super::completion;
use super::fingerprint::action_arguments;
use super::log::{Detector, Event, Rejection, StopReason, TransitionReason};
use super::loop_guard::message as guard_message;
use super::phase::Phase;
use crate::protocol::{Message, ToolCall};

/// Most characters of the earlier result quoted in the answer.
const MAX_QUOTED_CHARS: usize = 600;

/// What the model is told when it repeats a call that just succeeded, under the reflective
/// rules.
const ANSWER_NOW: &str = "Not run again: the same call had just succeeded, so its result is \
already above. Answer the task now in words (no tool call).";

/// What the repeated call is told.
const NOT_RUN_AGAIN: &str = "Not run again: the same call had just succeeded.";

impl Agent {
    /// After a step's reply was recorded: when it is one call identical to the call that just
    /// succeeded (and nothing else keeps the run open), rejects it; under the first rules the
    /// run ends with that call's result, under the reflective rules the next step must answer
    /// (and a call there ends the run `no_progress`). Returns whether it decided.
    pub(super) fn end_on_repeated_success(&mut self) -> bool {
        let Some(run) = self.state.active_run() else {
            return false;
        };
        let told_to_answer = run.progress.as_ref().is_some_and(|p| p.answer_requested);
        if told_to_answer && matches!(run.phase, Phase::Tools(_)) {
            let message = "The model was asked to answer and called a tool again.".to_string();
            self.emit(Event::GuardTriggered {
                detector: Detector::RepeatedSuccess,
                stop: true,
                message: message.clone(),
                evidence: Vec::new(),
            });
            self.finish_run(
                StopReason::NoProgress {
                    detector: Detector::RepeatedSuccess,
                },
                message,
                None,
            );
            return true;
        }
        if !self.state.config.guard.end_on_repeated_success || !matches!(run.phase, Phase::Tools(_))
        {
            return false;
        }
        // The pattern first (three messages looked at); the completion check builds texts.
        let Some((call, answer)) = repeated_success(self.state.transcript.all()) else {
            return false;
        };
        if !completion::blockers(run, self.state.config.require_finish, false).is_empty() {
            return false;
        }
        if run.progress.is_some() {
            // The reflective rules: the model, not the runtime, answers. The repeat is not run
            // and the next step offers no tools, so its reply is the model's own answer.
            self.emit(Event::ToolCallRejected {
                call,
                rejection: Rejection::RepeatsSuccess,
                message: ANSWER_NOW.into(),
            });
            self.emit(Event::GuardTriggered {
                detector: Detector::RepeatedSuccess,
                stop: false,
                message: ANSWER_NOW.into(),
                evidence: Vec::new(),
            });
            self.end_step();
            self.start_step(TransitionReason::AnswerRequested);
            return true;
        }
        self.emit(Event::ToolCallRejected {
            call,
            rejection: Rejection::RepeatsSuccess,
            message: NOT_RUN_AGAIN.into(),
        });
        let message = guard_message(Detector::RepeatedSuccess, true);
        self.emit(Event::GuardTriggered {
            detector: Detector::RepeatedSuccess,
            stop: true,
            message: message.clone(),
            evidence: Vec::new(),
        });
        self.propose_stop(StopReason::Completed, message, Some(answer));
        true
    }
}

/// When a conversation ends with a lone call, its success, and the same lone call again: the
/// new call's id and the answer that ends the run, quoting the result.
pub fn repeated_success(messages: &[Message]) -> Option<(String, String)> {
    let [.., Message::Assistant {
        tool_calls: previous,
        ..
    }, Message::Tool {
        call_id,
        content,
        is_error: false,
        ..
    }, Message::Assistant {
        tool_calls: again, ..
    }] = messages
    else {
        return None;
    };
    let ([previous], [again]) = (previous.as_slice(), again.as_slice()) else {
        return None;
    };
    if previous.id != *call_id || !same_call(previous, again) {
        return None;
    }
    let answer = format!(
        "The {name} call succeeded; the model asked for the same call again, so the run ends \
         here. Its result:\n{quoted}",
        name = again.name,
        quoted = quote(content),
    );
    Some((again.id.clone(), answer))
}

/// The same tool with the same arguments, as the loop guard counts the same action.
fn same_call(a: &ToolCall, b: &ToolCall) -> bool {
    let form = |call: &ToolCall| {
        let args =
            serde_json::from_str::<serde_json::Value>(&call.arguments).unwrap_or(Value::Null);
        action_arguments(&args, &call.arguments)
    };
    a.name == b.name && form(a) == form(b)
}

/// `content`, cut to [`MAX_QUOTED_CHARS`] with `…`.
fn quote(content: &str) -> String {
    let content = content.trim();
    if content.chars().count() <= MAX_QUOTED_CHARS {
        return content.to_string();
    }
    let mut cut: String = content.chars().take(MAX_QUOTED_CHARS).collect();
    cut.push('…');
    cut
}
