//! The timeline of a session: what the playground lists, one item per thing a person wants to
//! see (messages, tool calls with their results, step markers, notes, run ends), folded from the
//! log one record at a time. A tool call's result, approval and rejection update the call's own
//! item, found through an index from call id to item.

use std::collections::{BTreeSet, HashMap};

use crate::core::{fold_records, strip_control_tokens, CallPurpose, Event, PauseReason, Record};

use super::format::LedgerSummary;
use super::labels::{
    guard, interrupt_label, pretty_args, provider_hint, rejected, transition_label,
};
use super::timeline_item::{
    ErrorSource, RunEnd, StepMarker, TimelineItem, ToolCallView, ToolStatus,
};

/// A session's timeline, built incrementally with [`Timeline::push`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    items: Vec<TimelineItem>,
    /// Bumped whenever an item changes after it was added (keys for re-rendering).
    revisions: Vec<u32>,
    /// Call id → index of its tool-call item.
    calls: HashMap<String, usize>,
    /// Request id → what the model call was for (compaction replies are not assistant text).
    purposes: HashMap<u64, CallPurpose>,
    /// Indices of tool calls waiting for a human.
    awaiting: BTreeSet<usize>,
    /// Indices of tool calls without a final status (pending, approved, running, awaiting).
    open: BTreeSet<usize>,
    /// Step number → index of the step marker of the current run.
    steps: HashMap<u32, usize>,
    /// The current or last run, 0 before the first.
    run: u32,
    /// Seq of the next record expected; earlier ones are duplicates.
    next_seq: u64,
    /// The model sees each task alone (the session's `context_per_task`).
    tasks_alone: bool,
    /// What the run waits for while it is paused (says what its end retries).
    paused: Option<PauseReason>,
}

impl Timeline {
    /// A timeline of a whole log.
    pub fn from_records(records: &[Record]) -> Self {
        fold_records(records, Self::push)
    }

    /// The items, oldest first.
    pub fn items(&self) -> &[TimelineItem] {
        &self.items
    }

    /// A key per item that changes whenever the item does: (index, revision).
    pub fn keys(&self) -> Vec<(usize, u32)> {
        self.revisions.iter().copied().enumerate().collect()
    }

    /// The keys of the items in `range` (clipped to the items there are).
    pub fn keys_in(&self, range: std::ops::Range<usize>) -> Vec<(usize, u32)> {
        let end = range.end.min(self.revisions.len());
        let start = range.start.min(end);
        (start..end)
            .zip(self.revisions[start..end].iter().copied())
            .collect()
    }

    /// Index of the marker of step `step` of the latest run, for jumping to it.
    pub fn step_index(&self, step: u32) -> Option<usize> {
        self.items.iter().rposition(|item| match item {
            TimelineItem::Step(marker) => marker.run == self.run && marker.step == step,
            TimelineItem::User { .. }
            | TimelineItem::Assistant { .. }
            | TimelineItem::ToolCall(_)
            | TimelineItem::Guard { .. }
            | TimelineItem::Reflection(_)
            | TimelineItem::CompletionRejected { .. }
            | TimelineItem::Compaction { .. }
            | TimelineItem::Note { .. }
            | TimelineItem::RunFinished(_)
            | TimelineItem::Error { .. } => false,
        })
    }

    /// The current or last run number (0 before the first run).
    pub fn run(&self) -> u32 {
        self.run
    }

    /// Whether the next task is sent to the model without the earlier ones: the session sends
    /// each task alone and has had one already.
    pub fn next_task_alone(&self) -> bool {
        self.tasks_alone && self.run > 0
    }

    /// Seq of the next record this timeline expects.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Tool calls waiting for a human decision, oldest first.
    pub fn pending_approvals(&self) -> Vec<ToolCallView> {
        self.awaiting
            .iter()
            .filter_map(|i| match self.items.get(*i) {
                Some(TimelineItem::ToolCall(call)) => Some(call.clone()),
                Some(_) | None => None,
            })
            .collect()
    }

    /// Folds one record in. Records already seen (seq below [`Timeline::next_seq`]) are
    /// ignored, so a log loaded from storage and live notices may overlap. Returns whether the
    /// record was new.
    pub fn push(&mut self, record: &Record) -> bool {
        if record.seq < self.next_seq {
            return false;
        }
        self.next_seq = record.seq + 1;
        self.apply(&record.event);
        true
    }

    /// Adds an error that is not in the log (storage trouble, a failed open).
    pub fn push_error(&mut self, source: ErrorSource, message: String) {
        self.add(TimelineItem::Error { source, message });
    }

    fn apply(&mut self, event: &Event) {
        match event {
            Event::UserMessage { text } => self.add(TimelineItem::User { text: text.clone() }),
            Event::RunStarted { run, .. } => {
                self.run = *run;
                self.steps.clear();
            }
            Event::StepStarted {
                step,
                reason,
                budget_before,
                ..
            } => {
                self.steps.insert(*step, self.items.len());
                self.add(TimelineItem::Step(StepMarker {
                    run: self.run,
                    step: *step,
                    reason: transition_label(reason),
                    before: LedgerSummary::of(budget_before),
                    after: None,
                    evidence: None,
                }));
            }
            Event::StepFinished {
                step,
                budget_after,
                evidence_delta,
                ..
            } => {
                if let Some(index) = self.steps.get(step).copied() {
                    self.edit(index, |item| {
                        if let TimelineItem::Step(marker) = item {
                            marker.after = Some(LedgerSummary::of(budget_after));
                            marker.evidence = Some(evidence_delta.clone());
                        }
                    });
                }
            }
            Event::ModelCallStarted { request, purpose } => {
                self.purposes.insert(*request, *purpose);
            }
            Event::ModelReplied { request, reply, .. } => {
                match self.purposes.remove(request) {
                    Some(CallPurpose::Compaction) => return,
                    Some(CallPurpose::Reflection) => {
                        let reflection = crate::core::Reflection::from_reply(reply);
                        return self.add(TimelineItem::Reflection(reflection));
                    }
                    Some(CallPurpose::Step) | None => {}
                }
                let text = strip_control_tokens(&reply.text);
                if !text.is_empty() {
                    self.add(TimelineItem::Assistant { text });
                }
                for call in &reply.tool_calls {
                    self.calls.insert(call.id.clone(), self.items.len());
                    self.open.insert(self.items.len());
                    self.add(TimelineItem::ToolCall(ToolCallView {
                        call: call.id.clone(),
                        name: call.name.clone(),
                        args: pretty_args(&call.arguments),
                        status: ToolStatus::Pending,
                    }));
                }
            }
            Event::ModelFailed { request, error } => {
                self.purposes.remove(request);
                self.push_error(ErrorSource::Model, error.message.clone());
                if let Some(text) = provider_hint(&error.kind) {
                    self.add(TimelineItem::Note { text });
                }
            }
            Event::ModelCallAbandoned {
                request,
                partial_reply,
            } => {
                let purpose = self.purposes.remove(request);
                let text = strip_control_tokens(partial_reply);
                if purpose != Some(CallPurpose::Compaction) && !text.is_empty() {
                    self.add(TimelineItem::Assistant { text });
                    self.add(TimelineItem::Note {
                        text: "Stopped while the model was writing: what it had written is kept above.".into(),
                    });
                }
            }
            Event::ModelRetryScheduled { attempt, delay_ms } => self.add(TimelineItem::Note {
                text: format!(
                    "The reply was cut off; the call is sent again in {delay_ms} ms (resend {attempt})."
                ),
            }),
            Event::RunPaused { reason, message } => {
                self.paused = Some(*reason);
                self.add(TimelineItem::Note {
                    text: message.clone(),
                });
            }
            Event::StopHookAsked { .. } => self.add(TimelineItem::Note {
                text: "The result is put to the page's stop hook.".to_string(),
            }),
            Event::StopHookDecided { verdict } => self.add(TimelineItem::Note {
                text: match verdict {
                    crate::core::StopVerdict::Allow => "The stop hook accepted the result.".into(),
                    crate::core::StopVerdict::Block { reason } => {
                        format!("The stop hook blocked completion: {reason}")
                    }
                    crate::core::StopVerdict::Failed { message } => {
                        format!("The stop hook failed: {message}")
                    }
                },
            }),
            Event::RunUnpaused => {
                let text = match self.paused.take() {
                    Some(PauseReason::ToolUnreachable) => "Sending the paused tool call again; the run goes on.",
                    Some(PauseReason::ProviderUnreachable { .. }) | None => {
                        "Retrying the model provider; the run goes on."
                    }
                };
                self.add(TimelineItem::Note {
                    text: text.to_string(),
                });
            }
            Event::Compacted { summary, .. } => self.add(TimelineItem::Compaction {
                summary: summary.clone(),
            }),
            Event::ToolCallRejected {
                call,
                rejection,
                message,
            } => self.set_status(call, rejected(*rejection, message)),
            Event::ApprovalRequested {
                call,
                after_interrupt,
                ..
            } => self.set_status(
                call,
                ToolStatus::AwaitingApproval {
                    after_interrupt: *after_interrupt,
                },
            ),
            Event::ApprovalDecided {
                call,
                approved,
                reason,
            } => {
                let status = if *approved {
                    ToolStatus::Approved
                } else {
                    ToolStatus::Rejected {
                        reason: match reason {
                            Some(r) if !r.trim().is_empty() => format!("denied by the user: {r}"),
                            Some(_) | None => "denied by the user".to_string(),
                        },
                    }
                };
                self.set_status(call, status);
            }
            Event::ToolCallStarted { call, attempt } => {
                self.set_status(call, ToolStatus::Running { attempt: *attempt })
            }
            Event::ToolCallFinished {
                call,
                content,
                is_error,
            } => self.set_status(
                call,
                ToolStatus::Finished {
                    result: content.clone(),
                    is_error: *is_error,
                },
            ),
            Event::ToolCallInterrupted { call, cause, .. } => self.set_status(
                call,
                ToolStatus::Interrupted {
                    cause: interrupt_label(*cause).to_string(),
                },
            ),
            Event::GuardTriggered {
                detector,
                stop,
                message,
                evidence,
            } => self.add(guard(*detector, *stop, message, evidence)),
            Event::CompletionRejected { blockers } => self.add(TimelineItem::CompletionRejected {
                blockers: blockers.clone(),
            }),
            Event::BudgetExtended { budget } => self.add(TimelineItem::Note {
                text: match budget.max_steps {
                    Some(steps) => {
                        format!("Budget extended (up to {steps} steps); the run goes on.")
                    }
                    None => "Budget extended; the run goes on.".to_string(),
                },
            }),
            Event::RunFinished { outcome } => {
                self.close_open_calls();
                let above = match self.items.last() {
                    Some(TimelineItem::Assistant { text }) => Some(text.as_str()),
                    Some(_) | None => None,
                };
                let end = RunEnd::of(outcome, above);
                self.add(TimelineItem::RunFinished(end));
            }
            Event::SessionStarted { config, .. } => self.tasks_alone = config.context_per_task,
            Event::Suspended | Event::Resumed => {}
        }
    }

    fn add(&mut self, item: TimelineItem) {
        self.items.push(item);
        self.revisions.push(0);
    }

    fn edit(&mut self, index: usize, change: impl FnOnce(&mut TimelineItem)) {
        if let (Some(item), Some(revision)) =
            (self.items.get_mut(index), self.revisions.get_mut(index))
        {
            change(item);
            *revision += 1;
        }
    }

    fn set_status(&mut self, call: &str, status: ToolStatus) {
        let Some(index) = self.calls.get(call).copied() else {
            return;
        };
        if matches!(status, ToolStatus::AwaitingApproval { .. }) {
            self.awaiting.insert(index);
        } else {
            self.awaiting.remove(&index);
        }
        if status.is_final() {
            self.open.remove(&index);
        } else {
            self.open.insert(index);
        }
        self.edit(index, |item| {
            if let TimelineItem::ToolCall(view) = item {
                view.status = status;
            }
        });
    }

    /// Calls a run leaves without a result when it ends (undecided approvals, calls of a
    /// sequential batch that never started) are marked as not run.
    fn close_open_calls(&mut self) {
        self.awaiting.clear();
        for index in std::mem::take(&mut self.open) {
            self.edit(index, |item| {
                if let TimelineItem::ToolCall(view) = item {
                    view.status = ToolStatus::Interrupted {
                        cause: "the run ended first".to_string(),
                    };
                }
            });
        }
    }
}
