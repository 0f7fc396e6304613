//! The tool calls of one reply and their fold: each tool event moves one slot (asked, approved,
//! started, finished, interrupted), and a batch whose every call has its result sums itself up
//! in a [`BatchSummary`] for the next decision. The run and the transcript around it take what
//! the batch reports; the batch itself reads nothing outside its slots.

use serde::{Deserialize, Serialize};

use serde_json::Value;

use super::fingerprint::args_hash;
use super::log::{AgentConfig, InterruptCause, ToolKind};
use super::reflection::{give_up_reflection, Reflection};
use super::todo::TodoItem;
use crate::protocol::{Message, ToolCall};

/// The tool calls of one reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolBatch {
    /// One slot per call, in the model's order.
    pub slots: Vec<Slot>,
    /// Every host tool involved is parallel-safe: start them together.
    pub parallel: bool,
    /// The reply was cut at the output limit: no call runs.
    pub cut: bool,
    /// A human decided an approval during this batch.
    pub approval_decided: bool,
    /// The reply was malformed: the batch holds one stand-in call that is rejected with an
    /// error the model sees (see [`super::MALFORMED_REPLY_CALL`]).
    pub malformed: bool,
    /// A call's tool could not reach its server: the run is paused and nothing more of the
    /// batch starts until it goes on (`PauseReason::ToolUnreachable`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waits_for_network: bool,
}

/// One tool call of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slot {
    /// The call as the model made it.
    pub call: ToolCall,
    /// Parsed arguments (`Null` when they are not JSON).
    pub args: Value,
    /// How the tool is executed, if it exists.
    pub kind: Option<ToolKind>,
    /// Hash of tool + canonical arguments.
    pub args_hash: String,
    /// The approval scope this call falls in (`tool` + key), if its tool has one.
    pub scope: Option<String>,
    /// Where the call is.
    pub state: SlotState,
    /// A human approved it (bound to `args_hash`).
    pub approved: bool,
    /// A reload interrupted it; if not idempotent a human must approve a re-run.
    pub interrupted: bool,
    /// Attempts started.
    pub attempts: u32,
}

/// Where a tool call is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SlotState {
    /// Not started and not refused yet.
    Pending,
    /// Waiting for a human.
    AwaitingApproval {
        /// Asked again after a reload interrupted it.
        after_interrupt: bool,
    },
    /// Started; the result has not come back.
    Running,
    /// Has its result.
    Done {
        /// Result text.
        content: String,
        /// Whether it failed.
        is_error: bool,
    },
}

/// What a complete tool batch left for the next decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchSummary {
    /// A human decided an approval during the batch.
    pub approval_decided: bool,
    /// The reply was cut at the output limit.
    pub cut: bool,
    /// What the batch's last `finish` call that ran came to, if one ran.
    pub finish: Option<FinishResult>,
    /// A `give_up` call ran: the model's account of where it is stuck.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gave_up: Option<Reflection>,
}

/// What a `finish` call that ran came to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FinishResult {
    /// Its verifier passed; the summary the model gave.
    Verified(String),
    /// Its verifier failed.
    Failed,
    /// It was accepted with no verifier to run: the summary, an unchecked claim.
    Unverified(String),
}

/// One call's result as the run around the batch takes it.
pub struct CallResult<'a> {
    /// The slot.
    pub slot: &'a Slot,
    /// Result text.
    pub content: &'a str,
    /// Whether it failed.
    pub is_error: bool,
}

impl ToolBatch {
    /// The batch for a reply's `calls`. `finish` never runs alongside other calls: it is
    /// checked after the calls before it.
    pub(super) fn of_reply(
        config: &AgentConfig,
        calls: &[ToolCall],
        cut: bool,
        malformed: bool,
    ) -> Self {
        let slots: Vec<Slot> = calls.iter().map(|c| new_slot(config, c)).collect();
        let parallel = slots.iter().all(|s| match s.kind {
            Some(ToolKind::Finish | ToolKind::GiveUp) => false,
            Some(ToolKind::Host) => config.tool(&s.call.name).is_some_and(|d| d.parallel_safe),
            Some(ToolKind::Todo) | None => true,
        });
        Self {
            slots,
            parallel,
            cut,
            approval_decided: false,
            malformed,
            waits_for_network: false,
        }
    }

    /// True when every call has a result.
    pub fn complete(&self) -> bool {
        self.slots
            .iter()
            .all(|s| matches!(s.state, SlotState::Done { .. }))
    }

    /// True when a call waits for a human's approval.
    pub fn asks_approval(&self) -> bool {
        self.slots
            .iter()
            .any(|s| matches!(s.state, SlotState::AwaitingApproval { .. }))
    }

    /// The slot of `call`.
    pub fn slot(&self, call: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.call.id == call)
    }

    fn slot_mut(&mut self, call: &str) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|s| s.call.id == call)
    }

    /// `call` was refused before it ran. Returns whether it counts as a call of the model's
    /// (a malformed reply's stand-in call does not).
    pub(super) fn reject(&mut self, call: &str, message: &str) -> bool {
        self.finish(call, message.to_string(), true);
        !self.malformed
    }

    /// `call` waits for a human.
    pub(super) fn ask(&mut self, call: &str, after_interrupt: bool) {
        if let Some(slot) = self.slot_mut(call) {
            slot.state = SlotState::AwaitingApproval { after_interrupt };
        }
    }

    /// A human decided `call`. Returns the approval scope an approval covers for the rest of
    /// the session, if the call's tool has one.
    pub(super) fn decide(
        &mut self,
        call: &str,
        approved: bool,
        reason: Option<&str>,
    ) -> Option<String> {
        self.approval_decided = true;
        if !approved {
            let why = reason.unwrap_or("no reason given");
            let content = format!("Denied by the user: {why}. The call was not run.");
            self.finish(call, content, true);
            return None;
        }
        let slot = self.slot_mut(call)?;
        slot.approved = true;
        slot.state = SlotState::Pending;
        let scope = slot.scope.clone()?;
        // The approval covers calls of this reply that wait on the same question too.
        for slot in &mut self.slots {
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
        Some(scope)
    }

    /// Attempt `attempt` of `call` started. Returns whether it counts as a new call (a re-run
    /// after a reload does not).
    pub(super) fn start(&mut self, call: &str, attempt: u32) -> bool {
        if let Some(slot) = self.slot_mut(call) {
            slot.state = SlotState::Running;
            slot.attempts = attempt;
        }
        attempt == 1
    }

    /// `call` returned. A successful `todo` call returns its new list, which replaces the run's
    /// at once so a later call of the same reply (such as `finish`) sees it.
    pub(super) fn finish(
        &mut self,
        call: &str,
        content: String,
        is_error: bool,
    ) -> Option<Vec<TodoItem>> {
        let slot = self.slot_mut(call)?;
        slot.state = SlotState::Done { content, is_error };
        match slot.kind {
            Some(ToolKind::Todo) if !is_error => parse_todos(&slot.args),
            Some(ToolKind::Todo | ToolKind::Host | ToolKind::Finish | ToolKind::GiveUp) | None => {
                None
            }
        }
    }

    /// `call` was cut short: a reload or a network lost while it ran puts it back (it may have
    /// run, and its approval covered the first attempt only); one refused offline before it was
    /// sent is put back as it was; a cancel or a spent budget gives it an error result.
    pub(super) fn interrupt(&mut self, call: &str, cause: InterruptCause) {
        let why = match cause {
            InterruptCause::Reload | InterruptCause::NetworkLost => {
                if let Some(slot) = self.slot_mut(call) {
                    slot.state = SlotState::Pending;
                    slot.interrupted = true;
                    slot.approved = false;
                }
                return;
            }
            InterruptCause::Offline => {
                if let Some(slot) = self.slot_mut(call) {
                    slot.state = SlotState::Pending;
                }
                return;
            }
            InterruptCause::Cancelled => "the run was cancelled",
            InterruptCause::Budget => "the budget ran out",
        };
        let content = format!("Interrupted: {why} before the call returned.");
        self.finish(call, content, true);
    }

    /// At the end of a run every unanswered call gets a result, so the transcript stays
    /// well-formed (each tool call answered) for the next run.
    pub(super) fn abandon_open(&mut self) {
        for slot in &mut self.slots {
            if !matches!(slot.state, SlotState::Done { .. }) {
                slot.state = SlotState::Done {
                    content: "Not run: the run ended before this call could run.".into(),
                    is_error: true,
                };
            }
        }
    }

    /// The results, in call order.
    pub fn results(&self) -> impl Iterator<Item = CallResult<'_>> {
        self.slots.iter().filter_map(|slot| match &slot.state {
            SlotState::Done { content, is_error } => Some(CallResult {
                slot,
                content,
                is_error: *is_error,
            }),
            SlotState::Pending | SlotState::AwaitingApproval { .. } | SlotState::Running => None,
        })
    }

    /// What the batch came to. Only a finish call that actually ran counts; a refused one does
    /// not. With `finish_verifier` off, an accepted finish is an unchecked claim.
    pub fn summary(&self, finish_verifier: bool) -> BatchSummary {
        let finish = self
            .results()
            .filter(|r| r.slot.kind == Some(ToolKind::Finish) && r.slot.attempts > 0)
            .last()
            .and_then(|r| {
                let summary = finish_summary(&r.slot.args);
                match (finish_verifier, r.is_error) {
                    (true, false) => Some(FinishResult::Verified(summary)),
                    (true, true) => Some(FinishResult::Failed),
                    (false, false) => Some(FinishResult::Unverified(summary)),
                    // A claim nobody checks cannot fail.
                    (false, true) => None,
                }
            });
        let gave_up = self
            .results()
            .find(|r| r.slot.kind == Some(ToolKind::GiveUp) && r.slot.attempts > 0 && !r.is_error)
            .map(|r| give_up_reflection(&r.slot.args));
        BatchSummary {
            approval_decided: self.approval_decided,
            cut: self.cut,
            finish,
            gave_up,
        }
    }

    /// The results as the model sees them, in call order, each cut to `max_chars`.
    pub fn messages(&self, max_chars: usize) -> Vec<Message> {
        self.results()
            .map(|r| Message::Tool {
                call_id: r.slot.call.id.clone(),
                name: r.slot.call.name.clone(),
                content: truncate(r.content, max_chars),
                is_error: r.is_error,
            })
            .collect()
    }
}

fn new_slot(config: &AgentConfig, call: &ToolCall) -> Slot {
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
    Vec::deserialize(args.get("items")?).ok()
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
