//! A session at a glance, folded from its log one record at a time: its title, whether a run
//! is in flight (the core's own [`Flight`] fold), what the loop is doing and what the current
//! run has spent. Plain data the sessions index stores next to the records and the playground
//! shows.

use serde::{Deserialize, Serialize};

use super::flight::Flight;
use super::log::{BudgetLimits, Event, Ledger, Record, StopReason};

/// Version of the [`SessionDigest`] layout and fold; a stored digest of another version is
/// rebuilt. (3: a title cut from a longer task ends with "…".)
pub const DIGEST_SCHEMA: u32 = 3;

/// Longest session title, in characters.
pub const TITLE_CHARS: usize = 80;

/// A session's title from its task: the task itself, or when longer than [`TITLE_CHARS`] its
/// start, cut after a whole word where one ends in the last quarter, with "…" in place of the
/// rest (a title that just stops mid-sentence reads as the whole task).
pub fn task_title(task: &str) -> String {
    if task.chars().count() <= TITLE_CHARS {
        return task.to_string();
    }
    // One character is left for the "…".
    let kept: String = task.chars().take(TITLE_CHARS - 1).collect();
    let start = match kept.rfind(char::is_whitespace) {
        Some(at) if kept[..at].chars().count() >= TITLE_CHARS * 3 / 4 => &kept[..at],
        Some(_) | None => kept.as_str(),
    };
    format!("{}…", start.trim_end())
}

/// What the current run is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunPhase {
    /// No run has started yet.
    Idle,
    /// Between two actions of a run.
    Working,
    /// A model call is in flight.
    CallingModel,
    /// Tool calls are being checked or run.
    RunningTools,
    /// A tool call waits for a human.
    AwaitingApproval,
    /// The run ended.
    Finished {
        /// Why.
        stop: StopReason,
    },
}

/// What a run had spent at some point, as the timeline and status bar show it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SpentSummary {
    /// Steps started.
    pub steps: u32,
    /// Tool calls made.
    pub tool_calls: u32,
    /// Input (cached included) plus output tokens.
    pub tokens: u64,
    /// Spend in USD.
    pub cost_usd: f64,
}

impl SpentSummary {
    /// The summary of a ledger.
    pub fn of(ledger: &Ledger) -> Self {
        Self {
            steps: ledger.steps,
            tool_calls: ledger.tool_calls,
            tokens: ledger.input_tokens() + ledger.usage.output_tokens,
            cost_usd: ledger.cost_usd,
        }
    }
}

/// A session at a glance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionDigest {
    /// Session id (empty until the log's first record).
    pub session: String,
    /// The first user message, cut to 80 characters.
    pub title: String,
    /// Whether the current or last run is in flight, folded as the agent folds it.
    pub flight: Flight,
    /// What the run is doing.
    pub phase: RunPhase,
    /// Spend of the current or last run.
    pub spent: SpentSummary,
    /// Limits of the current or last run.
    pub limits: Option<BudgetLimits>,
    /// Records folded so far.
    pub records: u64,
    /// The run is paused for the user (the provider is unreachable): what they are told.
    #[serde(default)]
    pub paused: Option<String>,
}

impl Default for SessionDigest {
    fn default() -> Self {
        Self {
            session: String::new(),
            title: String::new(),
            flight: Flight::NoRun,
            phase: RunPhase::Idle,
            spent: SpentSummary::default(),
            limits: None,
            records: 0,
            paused: None,
        }
    }
}

impl SessionDigest {
    /// The summary of a whole log.
    pub fn from_records(records: &[Record]) -> Self {
        let mut summary = Self::default();
        for record in records {
            summary.push(record);
        }
        summary
    }

    /// A run started (or was continued) and has not finished.
    pub fn in_flight(&self) -> bool {
        self.flight.in_flight()
    }

    /// The current or last run, 0 before the first.
    pub fn run(&self) -> u32 {
        self.flight.run()
    }

    /// Folds one record in; records already seen are ignored.
    pub fn push(&mut self, record: &Record) {
        if record.seq < self.records {
            return;
        }
        self.records = record.seq + 1;
        self.flight.apply(&record.event);
        match &record.event {
            Event::SessionStarted { session, .. } => self.session = session.clone(),
            Event::UserMessage { text } => {
                if self.title.is_empty() {
                    self.title = task_title(text);
                }
            }
            Event::RunStarted { budget, .. } => {
                self.limits = Some(*budget);
                self.spent = SpentSummary::default();
                self.phase = RunPhase::Working;
            }
            Event::BudgetExtended { budget } => {
                self.limits = Some(*budget);
                self.phase = RunPhase::Working;
            }
            Event::StepStarted { budget_before, .. } => {
                // The step counts as taken from its start, as the ledger charges it.
                self.spend(budget_before);
                self.spent.steps = budget_before.steps + 1;
            }
            Event::StepFinished { budget_after, .. } => self.spend(budget_after),
            Event::ModelCallStarted { .. } => self.phase = RunPhase::CallingModel,
            Event::ModelReplied { reply, .. } => {
                self.phase = if reply.tool_calls.is_empty() {
                    RunPhase::Working
                } else {
                    RunPhase::RunningTools
                }
            }
            Event::ModelFailed { .. }
            | Event::ModelCallAbandoned { .. }
            | Event::Compacted { .. } => self.phase = RunPhase::Working,
            Event::ApprovalDecided { .. } | Event::ToolCallStarted { .. } => {
                self.phase = RunPhase::RunningTools
            }
            Event::ApprovalRequested { .. } => self.phase = RunPhase::AwaitingApproval,
            Event::RunPaused { message, .. } => self.paused = Some(message.clone()),
            Event::RunUnpaused => self.paused = None,
            Event::RunFinished { outcome } => {
                self.paused = None;
                self.spent.steps = outcome.steps;
                self.spent.tokens = outcome.usage.input_tokens
                    + outcome.usage.cached_input_tokens
                    + outcome.usage.cache_write_tokens
                    + outcome.usage.output_tokens;
                self.spent.cost_usd = outcome.cost_usd;
                self.phase = RunPhase::Finished {
                    stop: outcome.stop.clone(),
                };
            }
            Event::ToolCallRejected { .. }
            | Event::ToolCallFinished { .. }
            | Event::ToolCallInterrupted { .. }
            | Event::GuardTriggered { .. }
            | Event::CompletionRejected { .. }
            | Event::ModelRetryScheduled { .. }
            | Event::StopHookAsked { .. }
            | Event::StopHookDecided { .. }
            | Event::Suspended
            | Event::Resumed => {}
        }
    }

    fn spend(&mut self, ledger: &Ledger) {
        self.spent = SpentSummary::of(ledger);
    }
}
