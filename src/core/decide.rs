//! Decisions between steps: starting runs and steps (budget check first), reacting to model
//! replies (completion proposals, output-token recovery, compaction) and ending runs with a
//! structured stop reason and, when the run did not complete, a handoff report.

use super::agent::Agent;
use super::budget::cost_of;
use super::completion;
use super::error::InputError;
use super::log::HandoffReport;
use super::log::{BudgetKind, BudgetLimits};
use super::log::{
    CallPurpose, Event, HumanReason, InterruptCause, RunOutcome, StopReason, TransitionReason,
};
use super::loop_guard::{message as guard_message, Verdict};
use super::phase::Phase;
use super::tool_batch::{BatchSummary, FinishResult};
use crate::protocol::ModelReply;

impl Agent {
    pub(super) fn on_user_message(
        &mut self,
        text: String,
        budget: Option<BudgetLimits>,
    ) -> Result<(), InputError> {
        let active = self.state.active_run().is_some();
        self.emit(Event::UserMessage { text });
        if !active {
            let run = self.state.run.as_ref().map_or(1, |r| r.number + 1);
            let budget = budget.unwrap_or(self.state.config.budget);
            self.emit(Event::RunStarted { run, budget });
            self.start_step(TransitionReason::NextTurn);
        }
        Ok(())
    }

    pub(super) fn on_model_replied(
        &mut self,
        request: u64,
        reply: ModelReply,
    ) -> Result<(), InputError> {
        let purpose = self.in_flight(request)?;
        let cost_usd = cost_of(&reply.usage, &self.state.config.price);
        let text = reply.text.clone();
        self.emit(Event::ModelReplied {
            request,
            reply,
            cost_usd,
        });
        match purpose {
            CallPurpose::Compaction => {
                let upto = match self.state.active_run().map(|r| &r.phase) {
                    Some(Phase::AwaitingModel { cut, .. }) => cut.unwrap_or(0),
                    _ => 0,
                };
                self.emit(Event::Compacted {
                    summary: text.trim().to_string(),
                    upto,
                });
                self.end_step();
                self.start_step(TransitionReason::Compaction);
            }
            CallPurpose::Step => {
                if !self.end_on_repeated_success() {
                    self.after_step_work();
                }
            }
            CallPurpose::Reflection => self.after_reflection(),
        }
        Ok(())
    }

    pub(super) fn on_extend_budget(&mut self, budget: BudgetLimits) -> Result<(), InputError> {
        let exhausted = self.state.run.as_ref().is_some_and(|r| {
            matches!(&r.phase, Phase::Finished(o) if matches!(o.stop, StopReason::BudgetExhausted { .. }))
        });
        if !exhausted {
            return Err(InputError::NothingToExtend);
        }
        self.emit(Event::BudgetExtended { budget });
        self.start_step(TransitionReason::BudgetContinuation);
        Ok(())
    }

    /// Stops a run whose wall-clock budget ran out while it waited, keeping what the model
    /// call under way had streamed (`partial_reply`).
    pub(super) fn check_wall_clock(&mut self, partial_reply: String) {
        let Some(run) = self.state.active_run() else {
            return;
        };
        let extra = self.unrecorded_active_ms();
        if run
            .limits
            .max_wall_ms
            .is_some_and(|l| run.ledger.active_ms + extra >= l)
        {
            let explanation = budget_explanation(BudgetKind::WallClock);
            // The run is active, so interrupting cannot fail.
            let _ = self.interrupt_run(
                InterruptCause::Budget,
                StopReason::BudgetExhausted {
                    budget: BudgetKind::WallClock,
                },
                explanation,
                partial_reply,
            );
        }
    }

    fn unrecorded_active_ms(&self) -> u64 {
        if self.state.suspended || self.is_paused() {
            0
        } else {
            self.now.saturating_sub(self.state.last_at)
        }
    }

    /// Starts the next step: checks every budget first, compacts when the context is too large,
    /// then calls the model.
    pub(super) fn start_step(&mut self, reason: TransitionReason) {
        let Some(run) = self.state.active_run() else {
            return;
        };
        if let Some(kind) = run
            .ledger
            .exhausted(&run.limits, self.unrecorded_active_ms())
        {
            self.finish_run(
                StopReason::BudgetExhausted { budget: kind },
                budget_explanation(kind),
                None,
            );
            return;
        }
        let Some(reason) = self.due_reflection(reason) else {
            return;
        };
        let Some(run) = self.state.active_run() else {
            return;
        };
        let step = run.step + 1;
        let budget_before = run.ledger;
        let run_id = run.progress.is_some().then_some(run.number);
        let purpose = if matches!(reason, TransitionReason::Reflection { .. }) {
            CallPurpose::Reflection
        } else if !run.compacted_since_step && self.needs_compaction() {
            CallPurpose::Compaction
        } else {
            CallPurpose::Step
        };
        self.emit(Event::StepStarted {
            run: run_id,
            step,
            reason,
            budget_before,
        });
        self.call_model(purpose);
    }

    fn needs_compaction(&self) -> bool {
        let config = &self.state.config;
        let transcript = &self.state.transcript;
        let limit = (config.context_window as f64 * config.compaction_threshold) as u64;
        // With a context of the current run only, the earlier runs are never sent: only the
        // run's own messages count, and only a cut inside the run helps.
        let since = match self.state.active_run() {
            Some(run) if config.context_per_task => run.first_message,
            Some(_) | None => 0,
        };
        let projected =
            transcript.estimated_tokens_since(since) + u64::from(config.max_output_tokens);
        projected > limit
            && transcript
                .compaction_cut(config.compaction_keep_recent)
                .is_some_and(|cut| cut > since)
    }

    pub(super) fn call_model(&mut self, purpose: CallPurpose) {
        let request = self.state.next_request;
        self.emit(Event::ModelCallStarted { request, purpose });
    }

    pub(super) fn end_step(&mut self) {
        let Some(run) = self.state.active_run() else {
            return;
        };
        let event = Event::StepFinished {
            run: run.progress.is_some().then_some(run.number),
            step: run.step,
            budget_after: run.ledger,
            evidence_delta: run.step_evidence.clone(),
        };
        self.emit(event);
    }

    /// Decides what follows a step's model reply or its completed tool batch.
    pub(super) fn after_step_work(&mut self) {
        let Some(run) = self.state.active_run() else {
            return;
        };
        match &run.phase {
            Phase::Tools(_) => return self.advance_batch(),
            Phase::ResendDue(_)
            | Phase::AwaitingModel { .. }
            | Phase::AwaitingStopHook(_)
            | Phase::ProviderDown { .. }
            | Phase::Finished(_) => return,
            Phase::BatchDone(summary) => return self.after_batch(summary.clone()),
            Phase::StepEnded | Phase::Between => {}
        }
        // A reply with no tool calls: output-token recovery or a completion proposal.
        let config = &self.state.config;
        if run.output_recoveries > 0 {
            if run.output_recoveries > config.max_output_recoveries {
                let explanation = cut_explanation(run.output_recoveries);
                return self.finish_run(StopReason::OutputLimit, explanation, None);
            }
            let attempt = run.output_recoveries;
            self.end_step();
            return self.start_step(TransitionReason::OutputTokenRecovery { attempt });
        }
        let blockers = completion::blockers(run, config.require_finish, false);
        if blockers.is_empty() {
            let text = run.last_text.clone();
            return self.propose_stop(
                StopReason::Completed,
                "The model gave a final answer.".into(),
                Some(text),
            );
        }
        if run.consecutive_blocks >= config.max_completion_blocks {
            let explanation = format!(
                "Completion was blocked {} times in a row: {}",
                run.consecutive_blocks,
                blockers.join(" ")
            );
            let reason = HumanReason::CompletionBlocked { blockers };
            return self.finish_run(StopReason::NeedsHuman { reason }, explanation, None);
        }
        self.emit(Event::CompletionRejected { blockers });
        let consecutive = self.state.run.as_ref().map_or(1, |r| r.consecutive_blocks);
        self.end_step();
        self.start_step(TransitionReason::StopHookBlocked { consecutive });
    }

    fn after_batch(&mut self, batch: BatchSummary) {
        let Some(run) = self.state.active_run() else {
            return;
        };
        match batch.finish.clone() {
            Some(FinishResult::Verified(summary)) => {
                return self.propose_stop(
                    StopReason::VerifiedFinish,
                    "The finish tool's verifier passed.".into(),
                    Some(summary),
                );
            }
            Some(FinishResult::Unverified(summary)) => {
                return self.propose_stop(
                    StopReason::UnverifiedFinish,
                    "The model called finish, but no verifier is registered, so its claim was \
                     not checked."
                        .into(),
                    Some(summary),
                );
            }
            Some(FinishResult::Failed) | None => {}
        }
        if let Some(account) = batch.gave_up.clone() {
            let explanation = format!("The model gave up: {}", account.status);
            return self.finish_run(StopReason::GaveUp, explanation, None);
        }
        if run.progress.is_some() {
            if self.reflective_after_batch() {
                return;
            }
        } else if self.legacy_verdict() {
            return;
        }
        let run = self.state.active_run();
        let errors = run.map_or(0, |r| r.consecutive_errors);
        if errors >= self.state.config.max_consecutive_errors {
            let explanation = format!("{errors} tool calls failed in a row.");
            return self.finish_run(
                StopReason::ConsecutiveErrors { count: errors },
                explanation,
                None,
            );
        }
        self.next_after_batch(&batch);
    }

    /// The first rules' reading of the guard's verdict on a batch: stop, or inject a
    /// diagnosis. Returns whether the run ended.
    fn legacy_verdict(&mut self) -> bool {
        let Some(run) = self.state.active_run() else {
            return true;
        };
        let config = &self.state.config;
        match run.verdict.clone() {
            Verdict::Stop(detector) => {
                let message = guard_message(detector, true);
                self.emit(Event::GuardTriggered {
                    detector,
                    stop: true,
                    message: message.clone(),
                    evidence: Vec::new(),
                });
                self.finish_run(StopReason::NoProgress { detector }, message, None);
                return true;
            }
            Verdict::Diagnose(detector) => {
                if run.consecutive_errors < config.max_consecutive_errors {
                    self.emit(Event::GuardTriggered {
                        detector,
                        stop: false,
                        message: guard_message(detector, false),
                        evidence: Vec::new(),
                    });
                }
            }
            Verdict::Continue => {}
        }
        false
    }

    /// The step after a batch that did not end the run.
    fn next_after_batch(&mut self, batch: &BatchSummary) {
        let run = self.state.active_run();
        let recoveries = run.map_or(0, |r| r.output_recoveries);
        let reason = if batch.cut {
            if recoveries > self.state.config.max_output_recoveries {
                let explanation = cut_explanation(recoveries);
                return self.finish_run(StopReason::OutputLimit, explanation, None);
            }
            TransitionReason::OutputTokenRecovery {
                attempt: recoveries,
            }
        } else if batch.approval_decided {
            TransitionReason::ApprovalResumed
        } else {
            TransitionReason::ToolResults
        };
        self.end_step();
        self.start_step(reason);
    }

    /// Ends the run: closes the step, attaches a handoff report when it did not complete.
    pub(super) fn finish_run(
        &mut self,
        stop: StopReason,
        explanation: String,
        final_text: Option<String>,
    ) {
        if self
            .state
            .active_run()
            .is_some_and(|r| r.step > 0 && !r.finished())
        {
            self.end_step();
        }
        let Some(run) = self.state.active_run() else {
            return;
        };
        let handoff = match stop {
            StopReason::Completed | StopReason::VerifiedFinish | StopReason::UnverifiedFinish => {
                None
            }
            StopReason::BudgetExhausted { .. }
            | StopReason::NoProgress { .. }
            | StopReason::ConsecutiveErrors { .. }
            | StopReason::OutputLimit
            | StopReason::Cancelled
            | StopReason::NeedsHuman { .. }
            | StopReason::FatalError
            | StopReason::GaveUp => Some(HandoffReport::from_run(run)),
        };
        let outcome = RunOutcome {
            stop,
            explanation,
            final_text,
            steps: run.step,
            usage: run.ledger.usage,
            cost_usd: run.ledger.cost_usd,
            handoff,
        };
        self.emit(Event::RunFinished { outcome });
    }
}

fn budget_explanation(kind: BudgetKind) -> String {
    format!(
        "The run's {} budget is spent; see the handoff report for what was done.",
        kind.label()
    )
}

/// Why a run stopped at the output limit after `cuts` cut replies in a row.
fn cut_explanation(cuts: u32) -> String {
    if cuts == 1 {
        "The model's reply was cut at the output limit.".to_string()
    } else {
        format!("The model's replies were cut at the output limit {cuts} times in a row.")
    }
}
