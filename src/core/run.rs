//! The state of one run: its phase, budget ledger, guard, counters and the tool batch in flight.
//! Per-phase data lives inside the phase variants so illegal states cannot be built.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::log::ToolKind;
use super::log::{BudgetLimits, Ledger};
use super::log::{CallPurpose, EvidenceDelta, RunOutcome};
use super::loop_guard::{LoopGuard, Verdict};
use crate::protocol::ToolCall;

/// Where a run is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Phase {
    /// Between steps while the next decision is made (never seen between two inputs).
    Between,
    /// Waiting for a model reply.
    AwaitingModel {
        /// The request in flight.
        request: u64,
        /// What it is for.
        purpose: CallPurpose,
        /// For compaction: where the transcript will be cut.
        cut: Option<usize>,
    },
    /// Running (or deciding) the tool calls of the last reply.
    Tools(ToolBatch),
    /// The run ended.
    Finished(Box<RunOutcome>),
}

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
}

impl ToolBatch {
    /// True when every call has a result.
    pub fn complete(&self) -> bool {
        self.slots
            .iter()
            .all(|s| matches!(s.state, SlotState::Done { .. }))
    }

    /// The slot of `call`.
    pub fn slot_mut(&mut self, call: &str) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|s| s.call.id == call)
    }
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

/// One item of the model's task list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// Stable id chosen by the model.
    pub id: String,
    /// What to do.
    pub text: String,
    /// `open` or `done`.
    pub status: TodoStatus,
}

/// Whether a todo is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Still to do: blocks completion.
    Open,
    /// Done.
    Done,
}

/// Everything about the current (or last) run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Run number in the session, from 1.
    pub number: u32,
    /// The task (the message that started the run).
    pub task: String,
    /// Limits.
    pub limits: BudgetLimits,
    /// Spend so far.
    pub ledger: Ledger,
    /// Where it is.
    pub phase: Phase,
    /// Steps started.
    pub step: u32,
    /// A step has started and not finished.
    pub step_open: bool,
    /// Evidence gathered in the current step.
    pub step_evidence: EvidenceDelta,
    /// Loop detection.
    pub guard: LoopGuard,
    /// The guard's verdict on the last completed batch.
    pub verdict: Verdict,
    /// Failed observations in a row.
    pub consecutive_errors: u32,
    /// Completion proposals rejected in a row.
    pub consecutive_blocks: u32,
    /// Replies cut at the output limit in a row.
    pub output_recoveries: u32,
    /// The last verifier run failed (and none passed since).
    pub verification_failed: bool,
    /// The finish tool's verifier passed; holds the summary.
    pub verified_summary: Option<String>,
    /// The model's task list.
    pub todos: Vec<TodoItem>,
    /// User messages that arrived mid-step, added at the next step.
    pub queued: Vec<String>,
    /// Calls and errors per tool (for reports).
    pub tool_stats: BTreeMap<String, (u32, u32)>,
    /// Recent successful observations (for the handoff report).
    pub findings: VecDeque<String>,
    /// Recent errors (for the handoff report).
    pub errors: VecDeque<String>,
    /// The last assistant text.
    pub last_text: String,
    /// A compaction already ran since the last main step (never twice in a row).
    pub compacted_since_step: bool,
    /// Resends of the current step's model call after cut streams.
    pub model_retries: u32,
    /// Wait before the model call in flight was sent (a resend), if any.
    pub model_retry_delay_ms: Option<u64>,
    /// The run waits for a person (e.g. the provider is unreachable).
    pub paused: Option<super::log::PauseReason>,
    /// A completion waits for the page's stop hook.
    pub stop_hook_pending: Option<super::log::StopProposal>,
    /// Completions the stop hook blocked in this run.
    pub stop_hook_blocks: u32,
}

impl RunState {
    /// A fresh run.
    pub fn new(number: u32, task: String, limits: BudgetLimits) -> Self {
        Self {
            number,
            task,
            limits,
            ledger: Ledger::default(),
            phase: Phase::Between,
            step: 0,
            step_open: false,
            step_evidence: EvidenceDelta::default(),
            guard: LoopGuard::default(),
            verdict: Verdict::Continue,
            consecutive_errors: 0,
            consecutive_blocks: 0,
            output_recoveries: 0,
            verification_failed: false,
            verified_summary: None,
            todos: Vec::new(),
            queued: Vec::new(),
            tool_stats: BTreeMap::new(),
            findings: VecDeque::new(),
            errors: VecDeque::new(),
            last_text: String::new(),
            compacted_since_step: false,
            model_retries: 0,
            model_retry_delay_ms: None,
            paused: None,
            stop_hook_pending: None,
            stop_hook_blocks: 0,
        }
    }

    /// Whether the run has ended.
    pub fn finished(&self) -> bool {
        matches!(self.phase, Phase::Finished(_))
    }

    /// Todo items still open.
    pub fn open_todos(&self) -> impl Iterator<Item = &TodoItem> {
        self.todos.iter().filter(|t| t.status == TodoStatus::Open)
    }
}

/// Keeps the last `cap` entries.
pub fn push_bounded(queue: &mut VecDeque<String>, item: String, cap: usize) {
    if queue.len() == cap {
        queue.pop_front();
    }
    queue.push_back(item);
}
