//! The sans-IO agent: [`Agent::handle`] takes an input with the current time, decides, and
//! queues effects that [`Agent::poll`] hands out. Every decision is recorded as events, and
//! every event is folded by [`AgentState::apply`], so replaying the log rebuilds the same agent.

use std::collections::VecDeque;

use super::context::COMPACTION_SYSTEM;
use super::effect::{Effect, ToolInvocation};
use super::error::InputError;
use super::event_facts::Ask;
use super::log::AgentConfig;
use super::log::{
    CallPurpose, Event, InterruptCause, Millis, Record, StopReason, TransitionReason,
    SCHEMA_VERSION,
};
use super::phase::Phase;
use super::run::RunState;
use super::state::AgentState;
use super::tool_batch::{Slot, SlotState};
use crate::protocol::{Message, ModelRequest};

/// One session's loop.
#[derive(Debug, Clone)]
pub struct Agent {
    pub(super) state: AgentState,
    pub(super) outbox: VecDeque<Effect>,
    pub(super) now: Millis,
    /// This tab registered a stop hook (a live setting, not a fact of the log).
    pub(super) stop_hook: bool,
}

impl Agent {
    /// Starts a new session. Poll the `SessionStarted` record out and persist it.
    pub fn new(session: impl Into<String>, config: AgentConfig, now: Millis) -> Self {
        let session = session.into();
        let event = Event::SessionStarted {
            schema_version: SCHEMA_VERSION,
            session: session.clone(),
            config: config.clone(),
        };
        let record = Record {
            seq: 0,
            at: now,
            event,
        };
        let mut agent = Self {
            state: AgentState::new(session, config, now),
            outbox: VecDeque::new(),
            now,
            stop_hook: false,
        };
        agent.outbox.push_back(Effect::Persist(record));
        agent
    }

    /// Builds an agent from a folded state (used by replay).
    pub(super) fn from_state(state: AgentState) -> Self {
        let now = state.last_at;
        Self {
            state,
            outbox: VecDeque::new(),
            now,
            stop_hook: false,
        }
    }

    /// Feeds one input. Afterwards drain [`Agent::poll`] until it returns `None`.
    pub fn handle(&mut self, input: super::Input, now: Millis) -> Result<(), InputError> {
        use super::Input;
        self.now = now.max(self.state.last_at);
        match input {
            Input::UserMessage { text, budget } => self.on_user_message(text, budget),
            Input::ModelReplied { request, reply } => self.on_model_replied(request, reply),
            Input::ModelFailed { request, error } => self.on_model_failed(request, error),
            Input::ToolFinished {
                call,
                content,
                is_error,
            } => self.on_tool_finished(call, content, is_error),
            Input::ApprovalDecided {
                call,
                args_hash,
                approved,
                reason,
            } => self.on_approval(call, args_hash, approved, reason),
            Input::ExtendBudget { budget } => self.on_extend_budget(budget),
            Input::Cancel { partial_reply } => self.on_cancel(partial_reply),
            Input::ToolUnreachable { call, error, sent } => {
                self.on_tool_unreachable(call, error, sent)
            }
            Input::RetryPaused => self.on_retry_paused(),
            Input::StopHookAnswered { verdict } => self.on_stop_hook_answered(verdict),
            Input::Suspend => {
                // Only a run is charged for time; an idle session records no suspension.
                if !self.state.suspended && self.state.active_run().is_some() {
                    self.emit(Event::Suspended);
                }
                Ok(())
            }
            Input::Resume => {
                if self.state.suspended {
                    self.emit(Event::Resumed);
                }
                Ok(())
            }
            Input::Tick { partial_reply } => {
                self.check_wall_clock(partial_reply);
                Ok(())
            }
        }
    }

    /// The next effect to perform, in order. `Persist` effects come before the actions they
    /// guard; the driver appends all records drained together in one atomic batch before it
    /// starts any action.
    pub fn poll(&mut self) -> Option<Effect> {
        self.outbox.pop_front()
    }

    /// The request for the model call in flight, projected from the transcript: what the
    /// `CallModel` effect carries.
    fn model_request(&self) -> Option<ModelRequest> {
        let run = self.state.active_run()?;
        let Phase::AwaitingModel { purpose, cut, .. } = &run.phase else {
            return None;
        };
        let config = &self.state.config;
        Some(match purpose {
            CallPurpose::Step | CallPurpose::Reflection => ModelRequest {
                system: self.system_prompt(run),
                messages: if config.context_per_task {
                    self.state.transcript.projected_since(run.first_message)
                } else {
                    self.state.transcript.projected()
                },
                // A reflection offers only `reflect`; a step that must answer offers nothing.
                tools: if *purpose == CallPurpose::Reflection {
                    vec![super::reflection::reflect_spec()]
                } else if run.progress.as_ref().is_some_and(|p| p.answer_requested) {
                    Vec::new()
                } else {
                    config.tools.iter().map(|t| t.spec.clone()).collect()
                },
                max_output_tokens: config.max_output_tokens,
            },
            CallPurpose::Compaction => ModelRequest {
                system: Some(COMPACTION_SYSTEM.to_string()),
                messages: vec![Message::User {
                    text: self.state.transcript.compaction_input(cut.unwrap_or(0)),
                }]
                .into(),
                tools: Vec::new(),
                max_output_tokens: config.max_output_tokens.min(1024),
            },
        })
    }

    /// After a replay on page load: records the gap as suspended time and re-issues what was in
    /// flight. A model call is sent again; a tool call that had started is marked interrupted and
    /// re-run only if idempotent, otherwise a human is asked; pending approvals are asked again.
    pub fn resume(&mut self, now: Millis) {
        self.now = now.max(self.state.last_at);
        let Some(run) = self.state.active_run() else {
            return;
        };
        let phase = run.phase.clone();
        self.emit(Event::Resumed);
        match phase {
            Phase::AwaitingModel {
                request, purpose, ..
            } => {
                self.emit(Event::ModelCallAbandoned {
                    request,
                    partial_reply: String::new(),
                });
                self.call_model(purpose);
            }
            Phase::Tools(batch) => {
                for slot in &batch.slots {
                    match slot.state {
                        SlotState::Running => self.emit(Event::ToolCallInterrupted {
                            call: slot.call.id.clone(),
                            cause: InterruptCause::Reload,
                            error: None,
                        }),
                        SlotState::AwaitingApproval { after_interrupt } => self
                            .outbox
                            .push_back(self.ask_effect(slot, after_interrupt)),
                        SlotState::Pending | SlotState::Done { .. } => {}
                    }
                }
                self.advance_batch();
            }
            // The question to the stop hook is asked (and recorded) again.
            Phase::AwaitingStopHook(proposal) => self.emit(Event::StopHookAsked { proposal }),
            // Cut (by a fork) between two steps: the next one starts now.
            Phase::StepEnded => self.start_step(TransitionReason::Resumed),
            Phase::BatchDone(_) => self.after_step_work(),
            // The step started but its model call was never recorded.
            Phase::Between | Phase::ResendDue(_) => self.call_model(CallPurpose::Step),
            // Paused for a person (provider unreachable): it stays paused.
            Phase::ProviderDown { .. } | Phase::Finished(_) => {}
        }
    }

    /// The folded state (read-only), for views and tests.
    pub fn state(&self) -> &AgentState {
        &self.state
    }

    /// The current or last run.
    pub fn run(&self) -> Option<&RunState> {
        self.state.run.as_ref()
    }

    /// Records an event: folds it, queues it for persistence, then queues the action it implies.
    pub(super) fn emit(&mut self, event: Event) {
        let record = Record {
            seq: self.state.next_seq,
            at: self.now,
            event,
        };
        self.state.apply(&record);
        let action = self.implied_effect(&record.event);
        self.outbox.push_back(Effect::Persist(record));
        if let Some(action) = action {
            self.outbox.push_back(action);
        }
    }

    /// The effect an event asks for (the event table's [`Ask`]), built from the state it
    /// leaves.
    fn implied_effect(&self, event: &Event) -> Option<Effect> {
        match event.facts().asks? {
            Ask::Model { request, purpose } => Some(Effect::CallModel {
                request,
                purpose,
                delay_ms: self
                    .state
                    .active_run()
                    .and_then(RunState::model_retry)
                    .map_or(0, |retry| retry.delay_ms),
                body: self.model_request()?,
            }),
            Ask::Tool { call } => {
                let slot = self.slot(call)?;
                let host = match slot.kind {
                    Some(super::ToolKind::Host) => true,
                    // Without a verifier the core records the claim itself.
                    Some(super::ToolKind::Finish) => self.state.config.finish_verifier,
                    Some(super::ToolKind::Todo | super::ToolKind::GiveUp) | None => false,
                };
                host.then(|| {
                    Effect::CallTool(ToolInvocation {
                        call: call.to_string(),
                        tool: slot.call.name.clone(),
                        args: slot.args.clone(),
                        approved: self.approved(slot),
                        idempotency_key: format!(
                            "{}:{}:{}",
                            self.state.session,
                            self.run_number(),
                            call
                        ),
                    })
                })
            }
            Ask::Approval {
                call,
                after_interrupt,
            } => self
                .slot(call)
                .map(|slot| self.ask_effect(slot, after_interrupt)),
            Ask::Finished(outcome) => Some(Effect::Finished(outcome.clone())),
            Ask::StopHook(proposal) => Some(Effect::AskStopHook(proposal.clone())),
        }
    }

    pub(super) fn ask_effect(&self, slot: &Slot, after_interrupt: bool) -> Effect {
        Effect::AskApproval {
            call: slot.call.id.clone(),
            tool: slot.call.name.clone(),
            args: slot.args.clone(),
            args_hash: slot.args_hash.clone(),
            after_interrupt,
        }
    }

    pub(super) fn slot(&self, call: &str) -> Option<&Slot> {
        let run = self.state.run.as_ref()?;
        let Phase::Tools(batch) = &run.phase else {
            return None;
        };
        batch.slot(call)
    }

    pub(super) fn run_number(&self) -> u32 {
        self.state.run.as_ref().map_or(0, |r| r.number)
    }

    fn system_prompt(&self, run: &RunState) -> Option<String> {
        let base = self.state.config.system.clone();
        if run.todos.is_empty() {
            return base;
        }
        let list: Vec<String> = run
            .todos
            .iter()
            .map(|t| {
                format!(
                    "[{}] {}: {}",
                    if t.status == super::TodoStatus::Done {
                        "x"
                    } else {
                        " "
                    },
                    t.id,
                    t.text
                )
            })
            .collect();
        Some(
            format!(
                "{}\n\nCurrent todo list:\n{}",
                base.unwrap_or_default(),
                list.join("\n")
            )
            .trim()
            .to_string(),
        )
    }

    fn on_cancel(&mut self, partial_reply: String) -> Result<(), InputError> {
        self.interrupt_run(
            InterruptCause::Cancelled,
            StopReason::Cancelled,
            "The user cancelled the run.".into(),
            partial_reply,
        )
    }

    /// Aborts whatever is in flight and ends the run; `partial_reply` is what the model call
    /// given up had streamed, kept as its message.
    pub(super) fn interrupt_run(
        &mut self,
        cause: InterruptCause,
        stop: StopReason,
        explanation: String,
        partial_reply: String,
    ) -> Result<(), InputError> {
        let run = self.state.active_run().ok_or(InputError::NoActiveRun)?;
        let mut abort_request = None;
        let mut abort_calls = Vec::new();
        match &run.phase {
            Phase::AwaitingModel { request, .. } => abort_request = Some(*request),
            Phase::Tools(batch) => {
                abort_calls = batch
                    .slots
                    .iter()
                    .filter(|s| matches!(s.state, SlotState::Running))
                    .map(|s| s.call.id.clone())
                    .collect();
            }
            Phase::StepEnded
            | Phase::Between
            | Phase::ResendDue(_)
            | Phase::BatchDone(_)
            | Phase::AwaitingStopHook(_)
            | Phase::ProviderDown { .. }
            | Phase::Finished(_) => {}
        }
        if abort_request.is_some() || !abort_calls.is_empty() {
            self.outbox.push_back(Effect::Abort {
                request: abort_request,
                calls: abort_calls.clone(),
            });
        }
        if let Some(request) = abort_request {
            self.emit(Event::ModelCallAbandoned {
                request,
                partial_reply,
            });
        }
        for call in abort_calls {
            self.emit(Event::ToolCallInterrupted {
                call,
                cause,
                error: None,
            });
        }
        self.finish_run(stop, explanation, None);
        Ok(())
    }
}
