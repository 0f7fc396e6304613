//! The agent's state and the fold that builds it: `apply` is the only place state changes, used
//! by live runs and by replay alike, so a replayed log rebuilds exactly the live state.

use serde::{Deserialize, Serialize};

use std::collections::BTreeSet;

use super::context::Transcript;
use super::flight::Flight;
use super::hygiene::strip_control_tokens;
use super::log::AgentConfig;
use super::log::{CallPurpose, Event, Millis, Record, TransitionReason};
use super::phase::{ModelRetry, Phase};
use super::reflection::{reflection_prompt, Reflection};
use super::run::{push_bounded, RunState};
use super::tool_batch::ToolBatch;
use crate::protocol::{Message, ModelErrorKind, Usage};

/// Name of the stand-in call that answers a malformed reply (neither a tool call nor a final
/// answer): it is rejected, so the model sees an error and the loop guards count it.
pub const MALFORMED_REPLY_CALL: &str = "invalid_reply";

/// Message injected when a reply was cut at the output limit.
pub const CONTINUE_PROMPT: &str =
    "Your last reply was cut off at the output limit. Continue exactly where it stopped.";

/// Everything the core knows about a session, folded from its log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentState {
    /// Session id.
    pub session: String,
    /// Configuration from `SessionStarted`.
    pub config: AgentConfig,
    /// Sequence number of the next record.
    pub next_seq: u64,
    /// Time of the last record.
    pub last_at: Millis,
    /// The tab is suspended (time is not charged).
    pub suspended: bool,
    /// The conversation.
    pub transcript: Transcript,
    /// The current or last run.
    pub run: Option<RunState>,
    /// Whether that run is in flight (the one fold that decides it).
    pub flight: Flight,
    /// Id of the next model request.
    pub next_request: u64,
    /// Text of the last user message (the task of a run it starts).
    pub last_user_text: String,
    /// Approval scopes (tool + key, e.g. a host) a human approved in this session.
    pub approved_scopes: BTreeSet<String>,
}

impl AgentState {
    /// The state right after `SessionStarted`.
    pub fn new(session: String, config: AgentConfig, at: Millis) -> Self {
        Self {
            session,
            config,
            next_seq: 1,
            last_at: at,
            suspended: false,
            transcript: Transcript::default(),
            run: None,
            next_request: 1,
            last_user_text: String::new(),
            flight: Flight::NoRun,
            approved_scopes: BTreeSet::new(),
        }
    }

    /// A copy of this state holding `transcript` instead of its own (a fold snapshot's head,
    /// which leaves most of the transcript to parts written once).
    pub fn with_transcript(&self, transcript: Transcript) -> Self {
        Self {
            session: self.session.clone(),
            config: self.config.clone(),
            next_seq: self.next_seq,
            last_at: self.last_at,
            suspended: self.suspended,
            transcript,
            run: self.run.clone(),
            flight: self.flight,
            next_request: self.next_request,
            last_user_text: self.last_user_text.clone(),
            approved_scopes: self.approved_scopes.clone(),
        }
    }

    /// The run, if one is in flight.
    pub fn active_run(&self) -> Option<&RunState> {
        self.run.as_ref().filter(|_| self.flight.in_flight())
    }

    fn active_run_mut(&mut self) -> Option<&mut RunState> {
        self.run.as_mut().filter(|_| self.flight.in_flight())
    }

    /// Folds one record into the state.
    pub fn apply(&mut self, record: &Record) {
        self.advance_clock(record.at, matches!(record.event, Event::Resumed));
        self.next_seq = record.seq + 1;
        self.flight.apply(&record.event);
        match &record.event {
            Event::SessionStarted { .. } => {}
            Event::StepFinished { .. } => {
                if let Some(run) = self.run.as_mut() {
                    run.phase.step_finished();
                }
            }
            Event::UserMessage { text } => self.on_user_message(text),
            Event::RunStarted { run, budget } => {
                // The task was the transcript's last message (a run starts at its task).
                let first_message = self.transcript.len().saturating_sub(1);
                self.run = Some(RunState::new(
                    *run,
                    self.last_user_text.clone(),
                    *budget,
                    first_message,
                    self.config.guard.reflective.is_some(),
                ));
            }
            Event::StepStarted { step, reason, .. } => self.on_step_started(*step, reason),
            Event::ModelCallStarted { request, purpose } => self.on_model_call(*request, *purpose),
            Event::ModelReplied {
                request,
                reply,
                cost_usd,
            } => self.on_reply(*request, reply, *cost_usd),
            Event::ModelFailed { error, .. } => {
                // A cut stream is resent (or resumed after a pause), so its partial reply never
                // joins the context: the next attempt must not follow a copy of its own start.
                // What the provider reported as used is still charged.
                if let ModelErrorKind::Truncated {
                    partial: Some(partial),
                } = &error.kind
                {
                    self.charge(&partial.usage, 0.0);
                }
                self.set_phase(Phase::Between);
            }
            Event::ModelCallAbandoned { partial_reply, .. } => {
                self.keep_partial_reply(partial_reply);
                self.set_phase(Phase::Between);
            }
            Event::ModelRetryScheduled { attempt, delay_ms } => {
                self.set_phase(Phase::ResendDue(ModelRetry {
                    attempt: *attempt,
                    delay_ms: *delay_ms,
                }));
            }
            Event::RunPaused { reason, .. } => {
                if let Some(run) = self.run.as_mut() {
                    run.phase.pause(*reason);
                }
            }
            Event::StopHookAsked { proposal } => {
                self.set_phase(Phase::AwaitingStopHook(proposal.clone()));
            }
            Event::StopHookDecided { verdict } => {
                if let Some(run) = self.run.as_mut() {
                    if matches!(run.phase, Phase::AwaitingStopHook(_)) {
                        run.phase = Phase::Between;
                    }
                    if let crate::core::StopVerdict::Block { reason } = verdict {
                        run.stop_hook_blocks += 1;
                        self.transcript.push(Message::User {
                            text: format!("Not done yet (the stop hook says): {reason}"),
                        });
                    }
                }
            }
            Event::RunUnpaused => {
                if let Some(run) = self.run.as_mut() {
                    run.phase.unpause();
                }
            }
            Event::Compacted { summary, upto } => {
                self.transcript.compact(summary.clone(), *upto);
                if let Some(run) = self.run.as_mut() {
                    run.compacted_since_step = true;
                }
                self.set_phase(Phase::Between);
            }
            Event::ToolCallRejected { call, message, .. } => {
                let counted = self.in_batch(|b| b.reject(call, message));
                self.count_call(counted);
            }
            Event::ApprovalRequested {
                call,
                after_interrupt,
                ..
            } => {
                self.in_batch(|b| b.ask(call, *after_interrupt));
            }
            Event::ApprovalDecided {
                call,
                approved,
                reason,
            } => {
                let scope = self.in_batch(|b| b.decide(call, *approved, reason.as_deref()));
                if let Some(scope) = scope.flatten() {
                    self.approved_scopes.insert(scope);
                }
            }
            Event::ToolCallStarted { call, attempt } => {
                let counted = self.in_batch(|b| b.start(call, *attempt));
                self.count_call(counted);
            }
            Event::ToolCallFinished {
                call,
                content,
                is_error,
            } => {
                let todos = self.in_batch(|b| b.finish(call, content.clone(), *is_error));
                if let (Some(run), Some(items)) = (self.run.as_mut(), todos.flatten()) {
                    run.todos = items;
                }
            }
            Event::ToolCallInterrupted { call, cause, .. } => {
                self.in_batch(|b| b.interrupt(call, *cause));
            }
            Event::GuardTriggered { stop, message, .. } => {
                if let Some(run) = self.run.as_mut() {
                    push_bounded(&mut run.errors, message.clone(), 6);
                }
                if !stop {
                    self.transcript.push(Message::User {
                        text: message.clone(),
                    });
                }
            }
            Event::CompletionRejected { blockers } => {
                if let Some(run) = self.run.as_mut() {
                    run.consecutive_blocks += 1;
                }
                let text = format!("Not done yet:\n- {}", blockers.join("\n- "));
                self.transcript.push(Message::User { text });
            }
            Event::BudgetExtended { budget } => {
                if let Some(run) = self.run.as_mut() {
                    run.limits = *budget;
                    // The run ended with its step, so it goes on between steps.
                    run.phase = Phase::StepEnded;
                }
            }
            Event::Suspended => self.suspended = true,
            Event::Resumed => self.suspended = false,
            Event::RunFinished { outcome } => {
                self.in_batch(ToolBatch::abandon_open);
                self.set_phase(Phase::Finished(Box::new(outcome.clone())));
            }
        }
    }

    /// Charges elapsed time to the active run: to `active_ms`, or to `suspended_ms` while the tab
    /// was suspended or closed (the gap before a `Resumed`).
    fn advance_clock(&mut self, at: Millis, resumed: bool) {
        let elapsed = at.saturating_sub(self.last_at);
        self.last_at = self.last_at.max(at);
        let suspended = self.suspended;
        if let Some(run) = self.active_run_mut() {
            // Time paused for a person is not charged, like time the tab was hidden.
            let suspended = suspended || resumed || run.paused().is_some();
            if suspended {
                run.ledger.suspended_ms += elapsed;
            } else {
                run.ledger.active_ms += elapsed;
            }
        }
    }

    fn on_user_message(&mut self, text: &str) {
        self.last_user_text = text.to_string();
        match self.active_run_mut() {
            Some(run) => run.queued.push(text.to_string()),
            None => self.transcript.push(Message::User {
                text: text.to_string(),
            }),
        }
    }

    fn on_step_started(&mut self, step: u32, reason: &TransitionReason) {
        let Some(run) = self.run.as_mut() else { return };
        run.step = step;
        run.ledger.steps += 1;
        run.step_evidence = Default::default();
        run.phase = Phase::Between;
        for text in run.queued.drain(..) {
            self.transcript.push(Message::User { text });
        }
        if let Some(progress) = run.progress.as_mut() {
            progress.answer_requested = *reason == TransitionReason::AnswerRequested;
            if let TransitionReason::Reflection { trigger } = reason {
                progress.reflection_started(*trigger);
            }
        }
        match reason {
            TransitionReason::OutputTokenRecovery { .. } => self.transcript.push(Message::User {
                text: CONTINUE_PROMPT.into(),
            }),
            TransitionReason::Reflection { trigger } => self.transcript.push(Message::User {
                text: reflection_prompt(*trigger),
            }),
            TransitionReason::NextTurn
            | TransitionReason::ToolResults
            | TransitionReason::Compaction
            | TransitionReason::StopHookBlocked { .. }
            | TransitionReason::BudgetContinuation
            | TransitionReason::ApprovalResumed
            | TransitionReason::Resumed
            | TransitionReason::AfterReflection
            | TransitionReason::AnswerRequested => {}
        }
    }

    fn on_model_call(&mut self, request: u64, purpose: CallPurpose) {
        self.next_request = request + 1;
        let cut = match purpose {
            CallPurpose::Compaction => self
                .transcript
                .compaction_cut(self.config.compaction_keep_recent),
            CallPurpose::Step | CallPurpose::Reflection => None,
        };
        if let Some(run) = self.run.as_mut() {
            if purpose == CallPurpose::Step {
                run.compacted_since_step = false;
            }
            run.phase.model_called(request, purpose, cut);
        }
    }

    /// What a step's model call had written when the user cancelled it joins the conversation
    /// as the model's message (a compaction's summary in progress is only dropped).
    fn keep_partial_reply(&mut self, partial_reply: &str) {
        let step_call = self.run.as_ref().is_some_and(|run| {
            matches!(
                run.phase,
                Phase::AwaitingModel {
                    purpose: CallPurpose::Step,
                    ..
                }
            )
        });
        let text = strip_control_tokens(partial_reply);
        if step_call && !text.is_empty() {
            self.transcript.push(Message::Assistant {
                text,
                tool_calls: Vec::new(),
            });
        }
    }

    fn on_reply(&mut self, request: u64, reply: &crate::protocol::ModelReply, cost_usd: f64) {
        self.charge(&reply.usage, cost_usd);
        let Some(run) = self.run.as_mut() else { return };
        let purpose = if let Phase::AwaitingModel { purpose, .. } = &run.phase {
            *purpose
        } else {
            CallPurpose::Step
        };
        if purpose == CallPurpose::Compaction {
            return;
        }
        if purpose == CallPurpose::Reflection {
            // The reflection joins the conversation as the model's words; it runs nothing.
            let reflection = Reflection::from_reply(reply);
            self.transcript.push(Message::Assistant {
                text: reflection.to_text(),
                tool_calls: Vec::new(),
            });
            if let Some(progress) = run.progress.as_mut() {
                progress.reflected(reflection);
            }
            run.phase = Phase::Between;
            return;
        }
        let text = strip_control_tokens(&reply.text);
        if !text.is_empty() {
            run.last_text = text.clone();
        }
        let cut = reply.finish == crate::protocol::FinishReason::MaxTokens;
        run.output_recoveries = if cut { run.output_recoveries + 1 } else { 0 };
        // A malformed reply is answered like a call: one stand-in call, rejected with an error.
        let malformed =
            reply.finish == crate::protocol::FinishReason::Malformed && reply.tool_calls.is_empty();
        let tool_calls = if malformed {
            vec![crate::protocol::ToolCall {
                id: format!("reply-{request}"),
                name: MALFORMED_REPLY_CALL.into(),
                arguments: String::new(),
            }]
        } else {
            reply.tool_calls.clone()
        };
        if malformed {
            run.last_text = String::new();
        }
        self.transcript.push(Message::Assistant {
            text,
            tool_calls: tool_calls.clone(),
        });
        if tool_calls.is_empty() {
            run.phase = Phase::Between;
            return;
        }
        run.consecutive_blocks = 0;
        run.phase = Phase::Tools(ToolBatch::of_reply(
            &self.config,
            &tool_calls,
            cut,
            malformed,
        ));
    }

    fn charge(&mut self, usage: &Usage, cost_usd: f64) {
        if let Some(run) = self.run.as_mut() {
            run.ledger.usage.add(usage);
            run.ledger.cost_usd += cost_usd;
        }
    }

    fn set_phase(&mut self, phase: Phase) {
        if let Some(run) = self.run.as_mut() {
            run.phase = phase;
        }
    }

    /// Folds a tool event into the batch in flight; when that leaves every call of the batch
    /// with its result, the batch is settled. `None` when no batch is in flight.
    fn in_batch<R>(&mut self, fold: impl FnOnce(&mut ToolBatch) -> R) -> Option<R> {
        let run = self.run.as_mut()?;
        let Phase::Tools(batch) = &mut run.phase else {
            return None;
        };
        let out = fold(batch);
        if batch.complete() {
            self.settle_batch();
        }
        Some(out)
    }

    /// A complete batch: the run takes its results, they join the transcript in call order,
    /// and the phase keeps what the batch came to for the next decision.
    fn settle_batch(&mut self) {
        let Some(run) = self.run.as_mut() else { return };
        if !matches!(run.phase, Phase::Tools(_)) {
            return;
        }
        let Phase::Tools(batch) = std::mem::replace(&mut run.phase, Phase::Between) else {
            return;
        };
        let summary = batch.summary(self.config.finish_verifier);
        run.absorb(&batch, &summary, &self.config);
        for message in batch.messages(self.config.max_observation_chars) {
            self.transcript.push(message);
        }
        run.phase = Phase::BatchDone(summary);
    }

    fn count_call(&mut self, counted: Option<bool>) {
        if let (Some(run), Some(true)) = (self.run.as_mut(), counted) {
            run.ledger.tool_calls += 1;
        }
    }
}
