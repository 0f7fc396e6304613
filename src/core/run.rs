//! The state of one run: its phase ([`Phase`], which holds the per-phase data), budget ledger,
//! guard and counters.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use super::todo::{TodoItem, TodoStatus};

use super::guard;
use super::log::{AgentConfig, BudgetLimits, Ledger};
use super::log::{EvidenceDelta, PauseReason};
use super::loop_guard::{LoopGuard, Verdict};
use super::phase::{ModelRetry, Phase};
use super::progress::{Progress, TRANSIENT_GRACE};
use super::tool_batch::{BatchSummary, FinishResult, ToolBatch};

/// Everything about the current (or last) run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Run number in the session, from 1.
    pub number: u32,
    /// The task (the message that started the run).
    pub task: String,
    /// Where the run's messages start in the transcript (its task).
    #[serde(default)]
    pub first_message: usize,
    /// Limits.
    pub limits: BudgetLimits,
    /// Spend so far.
    pub ledger: Ledger,
    /// Where it is.
    pub phase: Phase,
    /// Steps started.
    pub step: u32,
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
    /// Completions the stop hook blocked in this run.
    pub stop_hook_blocks: u32,
    /// Progress bookkeeping under the reflective rules (`None` under the first rules).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
}

impl RunState {
    /// A fresh run.
    /// A fresh run; `reflective` selects the reflective rules (see [`Progress`]).
    pub fn new(
        number: u32,
        task: String,
        limits: BudgetLimits,
        first_message: usize,
        reflective: bool,
    ) -> Self {
        Self {
            number,
            task,
            first_message,
            limits,
            ledger: Ledger::default(),
            phase: Phase::StepEnded,
            step: 0,
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
            stop_hook_blocks: 0,
            progress: reflective.then(Progress::default),
        }
    }

    /// Why the run waits for a person, if it does (see [`Phase::paused`]).
    pub fn paused(&self) -> Option<PauseReason> {
        self.phase.paused()
    }

    /// The run has ended (its outcome is recorded); nothing more happens in it.
    pub fn finished(&self) -> bool {
        matches!(self.phase, Phase::Finished(_))
    }

    /// A step has started and not finished.
    pub fn step_open(&self) -> bool {
        self.phase.step_open()
    }

    /// The resend the model call in flight is, if it is one.
    pub fn model_retry(&self) -> Option<ModelRetry> {
        self.phase.model_retry()
    }

    /// Todo items still open.
    pub fn open_todos(&self) -> impl Iterator<Item = &TodoItem> {
        self.todos.iter().filter(|t| t.status == TodoStatus::Open)
    }
}

impl RunState {
    /// Takes a complete tool batch's results: each is judged by the loop guard (the strongest
    /// verdict stands for the batch), and the error streak, per-tool counts, findings and the
    /// verifier's word move.
    pub(super) fn absorb(
        &mut self,
        batch: &ToolBatch,
        summary: &BatchSummary,
        config: &AgentConfig,
    ) {
        let mut verdict = Verdict::Continue;
        let mut any_new = false;
        for result in batch.results() {
            let slot = result.slot;
            let obs = guard::Observation {
                tool: &slot.call.name,
                args: &slot.args,
                raw_args: &slot.call.arguments,
                content: result.content,
                is_error: result.is_error,
                effect: config.tool(&slot.call.name).is_some_and(|d| !d.idempotent),
            };
            if let Some(progress) = self.progress.as_mut() {
                let judgement = progress.guard.observe(&obs, &config.guard);
                progress.note(&judgement);
                if judgement.novel {
                    any_new = true;
                    self.step_evidence.new_observations += 1;
                    self.step_evidence.new_calls.push(slot.call.id.clone());
                } else {
                    self.step_evidence.repeated_observations += 1;
                }
                // A transient failure (rate limit, timeout) may be retried twice before it
                // counts towards the error breaker.
                let transient = result.is_error && guard::is_transient(result.content);
                progress.transient_errors = if transient {
                    progress.transient_errors + 1
                } else {
                    0
                };
                if transient && progress.transient_errors <= TRANSIENT_GRACE {
                    self.record_stats(slot, result.content, result.is_error);
                    continue;
                }
            } else {
                let seen = self
                    .guard
                    .observe(&obs, &config.guard, &mut self.step_evidence);
                verdict = stronger(verdict, seen);
            }
            self.consecutive_errors = if result.is_error {
                self.consecutive_errors + 1
            } else {
                0
            };
            self.record_stats(slot, result.content, result.is_error);
        }
        let todos_open = self.open_todos().next().is_some();
        if let Some(progress) = self.progress.as_mut() {
            progress.batch_done(any_new, todos_open);
            self.step_evidence.quiet_steps =
                (progress.quiet_steps > 0).then_some(progress.quiet_steps);
            if let Some(account) = &summary.gave_up {
                progress.reflection = Some(account.clone());
            }
        }
        self.settle_finish(summary);
        self.verdict = verdict;
    }

    /// Per-tool counts and the recent findings and errors the handoff quotes.
    fn record_stats(&mut self, slot: &super::tool_batch::Slot, content: &str, is_error: bool) {
        let name = &slot.call.name;
        let errors = u32::from(is_error);
        // The tool's name is copied only the first time it is counted.
        match self.tool_stats.get_mut(name) {
            Some(stats) => *stats = (stats.0 + 1, stats.1 + errors),
            None => {
                self.tool_stats.insert(name.clone(), (1, errors));
            }
        }
        let mut line = name.clone();
        line.push_str(if is_error { " failed: " } else { " → " });
        line.extend(content.chars().take(200));
        let lines = if is_error {
            &mut self.errors
        } else {
            &mut self.findings
        };
        push_bounded(lines, line, 6);
    }

    fn settle_finish(&mut self, summary: &BatchSummary) {
        match &summary.finish {
            Some(FinishResult::Verified(text)) => {
                self.verification_failed = false;
                self.verified_summary = Some(text.clone());
            }
            Some(FinishResult::Failed) => self.verification_failed = true,
            Some(FinishResult::Unverified(_)) | None => {}
        }
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

/// Keeps the last `cap` entries.
pub fn push_bounded(queue: &mut VecDeque<String>, item: String, cap: usize) {
    if queue.len() == cap {
        queue.pop_front();
    }
    queue.push_back(item);
}
