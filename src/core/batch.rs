//! Moving a reply's tool calls forward. First every undecided call is checked (unknown tool,
//! invalid JSON, schema violation, deny, budget) and approvals are asked for; then calls start:
//! all together when every tool is parallel-safe, otherwise one at a time in the model's order.
//! `todo` runs inside the core; `finish` runs only when the completion check passes.

use serde::Deserialize;
use serde_json::Value;

use super::agent::Agent;
use super::log::{Event, Rejection};
use super::log::{Permission, ToolKind};
use super::schema;
use super::todo::{TodoItem, TodoStatus};
use super::tool_batch::{parse_args, Slot, SlotState, ToolBatch};
use super::{completion, InputError};

impl Agent {
    pub(super) fn on_tool_finished(
        &mut self,
        call: String,
        content: String,
        is_error: bool,
    ) -> Result<(), InputError> {
        match self.slot(&call).map(|s| &s.state) {
            Some(SlotState::Running) => {}
            _ => return Err(InputError::UnexpectedCall(call)),
        }
        self.emit(Event::ToolCallFinished {
            call,
            content,
            is_error,
        });
        self.after_step_work();
        Ok(())
    }

    pub(super) fn on_approval(
        &mut self,
        call: String,
        args_hash: String,
        approved: bool,
        reason: Option<String>,
    ) -> Result<(), InputError> {
        let slot = self
            .slot(&call)
            .ok_or_else(|| InputError::UnexpectedCall(call.clone()))?;
        if !matches!(slot.state, SlotState::AwaitingApproval { .. }) {
            return Err(InputError::UnexpectedCall(call));
        }
        if slot.args_hash != args_hash {
            return Err(InputError::ApprovalMismatch {
                call,
                expected: slot.args_hash.clone(),
                got: args_hash,
            });
        }
        self.emit(Event::ApprovalDecided {
            call,
            approved,
            reason,
        });
        self.after_step_work();
        Ok(())
    }

    /// Checks, asks and starts what it can; when every call has its result the state folds the
    /// batch into the transcript and the step moves on.
    pub(super) fn advance_batch(&mut self) {
        if self.is_paused() {
            // A call waits for its tool's server: nothing more starts until the run goes on.
            return;
        }
        let Some(batch) = self.current_batch() else {
            return self.after_step_work();
        };
        for slot in batch.slots.iter().filter(|s| s.state == SlotState::Pending) {
            if let Some((rejection, message)) = self.refusal(slot, &batch) {
                self.emit(Event::ToolCallRejected {
                    call: slot.call.id.clone(),
                    rejection,
                    message,
                });
            } else if self.needs_approval(slot) {
                let after_interrupt = slot.interrupted;
                let args_hash = slot.args_hash.clone();
                self.emit(Event::ApprovalRequested {
                    call: slot.call.id.clone(),
                    args_hash,
                    after_interrupt,
                });
            }
        }
        // Start calls until none can start: a started `todo` finishes at once, which may free
        // the next call of a sequential batch.
        while let Some(batch) = self.current_batch() {
            let next = if batch.parallel {
                batch.slots.iter().find(|s| s.state == SlotState::Pending)
            } else {
                batch
                    .slots
                    .iter()
                    .find(|s| !matches!(s.state, SlotState::Done { .. }))
                    .filter(|s| s.state == SlotState::Pending)
            };
            let Some(slot) = next else { break };
            self.start_call(slot);
        }
        if self.current_batch().is_none() {
            self.after_step_work();
        }
    }

    /// The batch of the active run while it still has calls without results.
    fn current_batch(&self) -> Option<ToolBatch> {
        self.state.active_run()?.phase.batch().cloned()
    }

    fn refusal(&self, slot: &Slot, batch: &ToolBatch) -> Option<(Rejection, String)> {
        let config = &self.state.config;
        let name = &slot.call.name;
        if batch.malformed {
            return Some((Rejection::MalformedReply, MALFORMED_MESSAGE.into()));
        }
        if batch.cut {
            return Some((
                Rejection::CutAtOutputLimit,
                format!("The reply was cut at the output limit, so this {name} call may be incomplete; it was not run. Send it again, shorter."),
            ));
        }
        let Some(decl) = config.tool(name) else {
            let names: Vec<&str> = config.tools.iter().map(|t| t.spec.name.as_str()).collect();
            return Some((
                Rejection::UnknownTool,
                format!(
                    "Unknown tool \"{name}\". Available tools: {}. Nothing was run.",
                    names.join(", ")
                ),
            ));
        };
        if let Err(err) = parse_args(&slot.call.arguments) {
            return Some((
                Rejection::InvalidJson,
                format!("The arguments for {name} are not valid JSON ({err}). Nothing was run."),
            ));
        }
        if let Err(errors) = schema::validate(&decl.spec.parameters, &slot.args) {
            return Some((
                Rejection::SchemaViolation,
                format!(
                    "Invalid arguments for {name}: {}. Nothing was run.",
                    errors.join("; ")
                ),
            ));
        }
        if decl.permission == Permission::Deny {
            return Some((
                Rejection::DeniedByPolicy,
                format!("The tool {name} is denied by policy. Nothing was run."),
            ));
        }
        let run = self.state.active_run()?;
        if slot.attempts == 0
            && run
                .limits
                .max_tool_calls
                .is_some_and(|l| run.ledger.tool_calls >= l)
        {
            return Some((
                Rejection::OverBudget,
                "The tool-call budget is spent. Nothing was run.".into(),
            ));
        }
        None
    }

    /// `finish` is refused at its turn (after earlier calls of the reply ran) while anything
    /// still blocks completion.
    fn finish_blockers(&self) -> Vec<String> {
        self.state
            .active_run()
            .map_or_else(Vec::new, |run| completion::blockers(run, false, true))
    }

    fn needs_approval(&self, slot: &Slot) -> bool {
        if self.approved(slot) {
            return false;
        }
        let Some(decl) = self.state.config.tool(&slot.call.name) else {
            return false;
        };
        decl.permission == Permission::Ask || (slot.interrupted && !decl.idempotent)
    }

    /// A human approved this call, or an earlier call of the same scope (e.g. host).
    pub(super) fn approved(&self, slot: &Slot) -> bool {
        slot.approved
            || (!slot.interrupted
                && slot
                    .scope
                    .as_ref()
                    .is_some_and(|s| self.state.approved_scopes.contains(s)))
    }

    fn start_call(&mut self, slot: &Slot) {
        let call = slot.call.id.clone();
        if slot.kind == Some(ToolKind::Finish) {
            let blockers = self.finish_blockers();
            if !blockers.is_empty() {
                let message = format!("Cannot finish yet: {}", blockers.join(" "));
                self.emit(Event::ToolCallRejected {
                    call,
                    rejection: Rejection::CompletionBlocked,
                    message,
                });
                return;
            }
        }
        self.emit(Event::ToolCallStarted {
            call: call.clone(),
            attempt: slot.attempts + 1,
        });
        // The calls the core answers itself finish at once.
        let answer = match slot.kind {
            Some(ToolKind::Finish) if !self.state.config.finish_verifier => {
                Some((UNVERIFIED_FINISH.to_string(), false))
            }
            Some(ToolKind::GiveUp) => Some((GAVE_UP.to_string(), false)),
            Some(ToolKind::Todo) => Some(run_todo(&slot.args)),
            _ => None,
        };
        if let Some((content, is_error)) = answer {
            self.emit(Event::ToolCallFinished {
                call,
                content,
                is_error,
            });
        }
    }
}

/// What the model is told when its reply was neither a tool call nor a final answer.
const MALFORMED_MESSAGE: &str = "Error: your reply was neither a tool call nor a final answer in \
the required format, so nothing was run. Answer with exactly one JSON object: {\"tool\": \
\"<tool name>\", \"arguments\": {...}} to call a tool, or {\"tool\": \"answer\", \"arguments\": \
{\"text\": \"<answer>\"}} to answer.";

/// The result of a `give_up` call (the run ends with it).
const GAVE_UP: &str = "Noted: the run ends here as given up.";

/// The result of a `finish` call when no verifier is registered.
const UNVERIFIED_FINISH: &str =
    "Accepted without verification: no verifier is registered, so the claim was not checked.";

/// The core's own todo tool: replaces the list and shows it back.
fn run_todo(args: &Value) -> (String, bool) {
    let items = Vec::<TodoItem>::deserialize(args.get("items").unwrap_or(&Value::Null));
    match items {
        Ok(items) => {
            let open = items
                .iter()
                .filter(|t| t.status == TodoStatus::Open)
                .count();
            let mut text = format!("Todo list saved: {open} open, {} done.", items.len() - open);
            for item in &items {
                let mark = if item.status == TodoStatus::Done {
                    "x"
                } else {
                    " "
                };
                text.push_str(&format!("\n[{mark}] {}: {}", item.id, item.text));
            }
            (text, false)
        }
        Err(err) => (format!("The todo list could not be read: {err}"), true),
    }
}
