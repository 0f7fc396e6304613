//! Forced reflection and the graceful give-up. When a detector fires, a milestone goes overdue
//! or most of the budget is spent with nothing new, the runtime does not simply push on: it
//! spends one step asking the model for a "status + path" reflection (what is known, what was
//! tried, where it is stuck, what it will do differently, or whether to give up), through a
//! request that offers only the `reflect` tool. If the run is still stuck afterwards, the
//! runtime stops it and the handoff names the repeating calls and the reflection's answer;
//! if the model gives up (in the reflection or with the `give_up` tool), the run ends
//! `gave_up`. Everything is decided from recorded facts, so a replay decides the same.

use super::agent::Agent;
use super::log::{Detector, Event, HumanReason, OverdueAction, StopReason, TransitionReason};
use super::progress::spent_percent;

impl Agent {
    /// Under the reflective rules, what a complete tool batch leads to when the run is not
    /// making progress: a forced reflection, or the stop. Returns whether it decided.
    pub(super) fn reflective_after_batch(&mut self) -> bool {
        let Some(run) = self.state.active_run() else {
            return false;
        };
        let (Some(progress), Some(policy)) = (&run.progress, self.state.config.guard.reflective)
        else {
            return false;
        };
        let stuck_after = progress.guard.stuck_since_reflection();
        let still_stuck = stuck_after.is_some_and(|n| n >= policy.stop_after_reflection);
        let finding = progress.finding.clone();
        let reflected = progress.reflections > 0;
        let can_reflect = progress.reflections < policy.max_reflections;
        let errors = run.consecutive_errors;
        if reflected && errors >= self.state.config.max_consecutive_errors {
            // Still failing after a reflection: the error breaker ends the run.
            return false;
        }
        if let Some(finding) = finding {
            let stop = finding.level == super::guard::Level::Stop;
            if reflected && (stop || still_stuck) || stop && !can_reflect {
                self.stop_no_progress(finding.detector, finding.evidence);
                return true;
            }
            if can_reflect {
                self.ask_reflection(finding.detector, finding.evidence);
                return true;
            }
            let message = super::loop_guard::message(finding.detector, false);
            self.emit(Event::GuardTriggered {
                detector: finding.detector,
                stop: false,
                message,
                evidence: finding.evidence,
            });
            return false;
        }
        if reflected && still_stuck {
            let trigger = progress.trigger.clone();
            let detector = trigger
                .as_ref()
                .map_or(Detector::Stagnation, |t| t.detector);
            let evidence = progress.guard.recent_calls();
            self.stop_no_progress(detector, evidence);
            return true;
        }
        if errors >= self.state.config.max_consecutive_errors && !reflected && can_reflect {
            let evidence = progress.guard.recent_calls();
            self.ask_reflection(Detector::ConsecutiveErrors, evidence);
            return true;
        }
        false
    }

    /// Before a step: a reflection that is due (an overdue milestone, the budget endgame), or
    /// the end of a run whose overdue milestone a reflection did not help. Returns the
    /// transition the step takes instead of `reason`, or `None` when the run ended.
    pub(super) fn due_reflection(&mut self, reason: TransitionReason) -> Option<TransitionReason> {
        let run = self.state.active_run()?;
        let (Some(progress), Some(policy)) = (&run.progress, self.state.config.guard.reflective)
        else {
            return Some(reason);
        };
        if matches!(
            reason,
            TransitionReason::Reflection { .. } | TransitionReason::AnswerRequested
        ) {
            return Some(reason);
        }
        let open: Vec<String> = run.open_todos().map(|t| t.text.clone()).collect();
        let milestone_due = policy.milestone_steps > 0
            && !open.is_empty()
            && progress.milestone_quiet >= policy.milestone_steps;
        if milestone_due && progress.milestone_reflected {
            if progress.milestone_quiet >= policy.milestone_steps + policy.milestone_steps / 2 {
                let explanation = format!(
                    "The open todo items made no progress for {} steps, and a reflection did \
                     not change that.",
                    progress.milestone_quiet
                );
                let stop = match policy.overdue {
                    OverdueAction::AskHuman => StopReason::NeedsHuman {
                        reason: HumanReason::MilestoneOverdue { todos: open },
                    },
                    OverdueAction::GiveUp => StopReason::NoProgress {
                        detector: Detector::OverdueMilestone,
                    },
                };
                self.finish_run(stop, explanation, None);
                return None;
            }
        } else if milestone_due && progress.reflections < policy.max_reflections {
            let evidence = open.iter().map(|t| format!("open todo: {t}")).collect();
            self.emit_diagnosis(Detector::OverdueMilestone, evidence);
            return Some(TransitionReason::Reflection {
                trigger: Detector::OverdueMilestone,
            });
        }
        let endgame_due = policy.endgame_percent > 0
            && !progress.endgame_asked
            && progress.quiet_steps >= policy.endgame_quiet_steps
            && spent_percent(&run.ledger, &run.limits) >= policy.endgame_percent;
        if endgame_due {
            let evidence = progress.guard.recent_calls();
            self.emit_diagnosis(Detector::BudgetEndgame, evidence);
            return Some(TransitionReason::Reflection {
                trigger: Detector::BudgetEndgame,
            });
        }
        Some(reason)
    }

    /// A reflection's reply arrived: the model gives up, or the run goes on.
    pub(super) fn after_reflection(&mut self) {
        let Some(run) = self.state.active_run() else {
            return;
        };
        let gave_up = run
            .progress
            .as_ref()
            .and_then(|p| p.reflection.as_ref())
            .is_some_and(|r| r.give_up);
        if gave_up {
            let explanation =
                "The model gave up when asked to reflect; the handoff says where it is stuck."
                    .to_string();
            return self.finish_run(StopReason::GaveUp, explanation, None);
        }
        self.end_step();
        self.start_step(TransitionReason::AfterReflection);
    }

    fn ask_reflection(&mut self, trigger: Detector, evidence: Vec<String>) {
        self.emit_diagnosis(trigger, evidence);
        self.end_step();
        self.start_step(TransitionReason::Reflection { trigger });
    }

    fn emit_diagnosis(&mut self, detector: Detector, evidence: Vec<String>) {
        let message = super::loop_guard::message(detector, false);
        self.emit(Event::GuardTriggered {
            detector,
            stop: false,
            message,
            evidence,
        });
    }

    fn stop_no_progress(&mut self, detector: Detector, evidence: Vec<String>) {
        let message = super::loop_guard::message(detector, true);
        self.emit(Event::GuardTriggered {
            detector,
            stop: true,
            message: message.clone(),
            evidence,
        });
        let stop = match detector {
            Detector::ConsecutiveErrors => StopReason::ConsecutiveErrors {
                count: self.state.active_run().map_or(0, |r| r.consecutive_errors),
            },
            Detector::Repetition
            | Detector::Thrashing
            | Detector::Stagnation
            | Detector::RepeatedError
            | Detector::RepeatedSuccess
            | Detector::OverdueMilestone
            | Detector::BudgetEndgame => StopReason::NoProgress { detector },
        };
        self.finish_run(stop, message, None);
    }
}
