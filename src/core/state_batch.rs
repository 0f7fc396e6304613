//! The part of the state fold that concerns a reply's tool calls: approvals, interruptions,
//! results, and folding a completed batch into the transcript with the loop guard's verdict.

use serde_json::Value;

use super::fingerprint::args_hash;
use super::log::InterruptCause;
use super::log::{AgentConfig, ToolKind};
use super::loop_guard::{Observation, Verdict};
use super::run::{push_bounded, Phase, Slot, SlotState, TodoItem};
use super::state::{AgentState, BatchSummary};
use crate::protocol::{Message, ToolCall};

impl AgentState {
    pub(super) fn on_approval(&mut self, call: &str, approved: bool, reason: &Option<String>) {
        if let Some(Phase::Tools(batch)) = self.run.as_mut().map(|r| &mut r.phase) {
            batch.approval_decided = true;
        }
        if approved {
            let mut scope = None;
            self.with_slot(call, |slot| {
                slot.approved = true;
                slot.state = SlotState::Pending;
                scope = slot.scope.clone();
            });
            if let Some(scope) = scope {
                // The approval covers its scope (e.g. the host) for the rest of the session,
                // including calls of this reply that wait on the same question.
                if let Some(Phase::Tools(batch)) = self.run.as_mut().map(|r| &mut r.phase) {
                    for slot in &mut batch.slots {
                        let waiting = matches!(
                            slot.state,
                            SlotState::AwaitingApproval {
                                after_interrupt: false
                            }
                        );
                        if waiting && slot.scope.as_ref() == Some(&scope) {
                            slot.approved = true;
                            slot.state = SlotState::Pending;
                        }
                    }
                }
                self.approved_scopes.insert(scope);
            }
        } else {
            let why = reason.as_deref().unwrap_or("no reason given");
            self.finish_slot(
                call,
                format!("Denied by the user: {why}. The call was not run."),
                true,
            );
        }
    }

    pub(super) fn on_interrupted(&mut self, call: &str, cause: InterruptCause) {
        match cause {
            InterruptCause::Reload => self.with_slot(call, |slot| {
                slot.state = SlotState::Pending;
                slot.interrupted = true;
                // An approval covered the first attempt only.
                slot.approved = false;
            }),
            InterruptCause::Cancelled | InterruptCause::Budget => {
                let why = if cause == InterruptCause::Cancelled {
                    "the run was cancelled"
                } else {
                    "the budget ran out"
                };
                self.finish_slot(
                    call,
                    format!("Interrupted: {why} before the call returned."),
                    true,
                );
            }
        }
    }

    /// A successful `todo` call replaces the list at once, so a later call of the same reply
    /// (such as `finish`) sees it.
    pub(super) fn take_todo_list(&mut self, call: &str) {
        let Some(run) = self.run.as_mut() else { return };
        let Phase::Tools(batch) = &run.phase else {
            return;
        };
        let Some(slot) = batch.slots.iter().find(|s| s.call.id == call) else {
            return;
        };
        if slot.kind == Some(ToolKind::Todo) {
            if let Some(items) = parse_todos(&slot.args) {
                run.todos = items;
            }
        }
    }

    pub(super) fn with_slot(&mut self, call: &str, f: impl FnOnce(&mut Slot)) {
        if let Some(Phase::Tools(batch)) = self.run.as_mut().map(|r| &mut r.phase) {
            if let Some(slot) = batch.slot_mut(call) {
                f(slot);
            }
        }
    }

    pub(super) fn finish_slot(&mut self, call: &str, content: String, is_error: bool) {
        self.with_slot(call, |slot| {
            slot.state = SlotState::Done { content, is_error }
        });
        self.complete_batch_if_done();
    }

    /// When every call of the batch has its result: the results join the transcript in call
    /// order, each is judged by the loop guard, and the counters move.
    fn complete_batch_if_done(&mut self) {
        let Some(run) = self.run.as_mut() else { return };
        let Phase::Tools(batch) = &run.phase else {
            return;
        };
        if !batch.complete() {
            return;
        }
        let batch = batch.clone();
        let mut summary = BatchSummary {
            approval_decided: batch.approval_decided,
            cut: batch.cut,
            verified: false,
            unverified_finish: None,
        };
        let mut verdicts = Vec::new();
        for slot in &batch.slots {
            let SlotState::Done { content, is_error } = &slot.state else {
                continue;
            };
            let obs = Observation {
                tool: &slot.call.name,
                args: &slot.args,
                raw_args: &slot.call.arguments,
                content,
                is_error: *is_error,
            };
            verdicts.push(
                run.guard
                    .observe(&obs, &self.config.guard, &mut run.step_evidence),
            );
            run.consecutive_errors = if *is_error {
                run.consecutive_errors + 1
            } else {
                0
            };
            let stats = run
                .tool_stats
                .entry(slot.call.name.clone())
                .or_insert((0, 0));
            stats.0 += 1;
            let brief: String = content.chars().take(200).collect();
            if *is_error {
                stats.1 += 1;
                push_bounded(
                    &mut run.errors,
                    format!("{} failed: {brief}", slot.call.name),
                    6,
                );
            } else {
                push_bounded(
                    &mut run.findings,
                    format!("{} → {brief}", slot.call.name),
                    6,
                );
            }
            match slot.kind {
                // Only a verifier that actually ran counts; a refused finish call does not.
                Some(ToolKind::Finish) if slot.attempts > 0 && !self.config.finish_verifier => {
                    if !*is_error {
                        summary.unverified_finish = Some(finish_summary(&slot.args));
                    }
                }
                Some(ToolKind::Finish) if slot.attempts > 0 => {
                    if *is_error {
                        run.verification_failed = true;
                    } else {
                        run.verification_failed = false;
                        run.verified_summary = Some(finish_summary(&slot.args));
                        summary.verified = true;
                    }
                }
                Some(ToolKind::Todo) | Some(ToolKind::Host) | Some(ToolKind::Finish) | None => {}
            }
            let shown = truncate(content, self.config.max_observation_chars);
            self.transcript.push(Message::Tool {
                call_id: slot.call.id.clone(),
                name: slot.call.name.clone(),
                content: shown,
                is_error: *is_error,
            });
        }
        run.verdict = verdicts.into_iter().fold(Verdict::Continue, stronger);
        run.phase = Phase::Between;
        self.last_batch = Some(summary);
    }

    /// At the end of a run every unanswered call gets a result, so the transcript stays
    /// well-formed (each tool call answered) for the next run.
    pub(super) fn abandon_open_calls(&mut self) {
        let Some(run) = self.run.as_mut() else { return };
        let Phase::Tools(batch) = &mut run.phase else {
            return;
        };
        for slot in &mut batch.slots {
            if !matches!(slot.state, SlotState::Done { .. }) {
                slot.state = SlotState::Done {
                    content: "Not run: the run ended before this call could run.".into(),
                    is_error: true,
                };
            }
        }
        self.complete_batch_if_done();
    }
}

fn stronger(a: Verdict, b: Verdict) -> Verdict {
    match (&a, &b) {
        (Verdict::Stop(_), _) => a,
        (_, Verdict::Stop(_)) => b,
        (Verdict::Diagnose(_), _) => a,
        (Verdict::Continue, _) => b,
    }
}

pub(super) fn new_slot(config: &AgentConfig, call: &ToolCall) -> Slot {
    let args = parse_args(&call.arguments).unwrap_or(Value::Null);
    let scope = config
        .tool(&call.name)
        .and_then(|d| d.approval_scope.as_ref())
        .and_then(|scope| scope.key(&args))
        .map(|key| format!("{}\u{0}{key}", call.name));
    Slot {
        scope,
        args_hash: args_hash(&call.name, &args),
        kind: config.tool(&call.name).map(|d| d.kind),
        call: call.clone(),
        args,
        state: SlotState::Pending,
        approved: false,
        interrupted: false,
        attempts: 0,
    }
}

/// Parses model-produced argument text; an empty string means no arguments.
pub fn parse_args(raw: &str) -> Result<Value, serde_json::Error> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(raw)
}

fn parse_todos(args: &Value) -> Option<Vec<TodoItem>> {
    serde_json::from_value(args.get("items")?.clone()).ok()
}

fn finish_summary(args: &Value) -> String {
    args.get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn truncate(content: &str, max_chars: usize) -> String {
    let total = content.chars().count();
    if total <= max_chars {
        return content.to_string();
    }
    let kept: String = content.chars().take(max_chars).collect();
    format!("{kept}\n[... {} more characters cut]", total - max_chars)
}
