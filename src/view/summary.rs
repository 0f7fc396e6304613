//! A session at a glance: its title, whether a run is in flight, what the loop is doing and what
//! the current run has spent. Folded from the log like the timeline, one record at a time.

use crate::core::{BudgetLimits, Event, Ledger, Record, StopReason};

use super::format::LedgerSummary;

/// What the current run is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl RunPhase {
    /// A short label for the status bar.
    pub fn label(&self) -> String {
        match self {
            RunPhase::Idle => "idle".to_string(),
            RunPhase::Working => "working".to_string(),
            RunPhase::CallingModel => "calling the model".to_string(),
            RunPhase::RunningTools => "running tools".to_string(),
            RunPhase::AwaitingApproval => "awaiting approval".to_string(),
            RunPhase::Finished { stop } => format!("stopped: {}", stop.code().replace('_', " ")),
        }
    }
}

/// A session at a glance.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    /// Session id (empty until the log's first record).
    pub session: String,
    /// The first user message, cut to 80 characters.
    pub title: String,
    /// The current or last run, 0 before the first.
    pub run: u32,
    /// A run started (or was continued) and has not finished.
    pub in_flight: bool,
    /// What the run is doing.
    pub phase: RunPhase,
    /// Spend of the current or last run.
    pub spent: LedgerSummary,
    /// Limits of the current or last run.
    pub limits: Option<BudgetLimits>,
    /// Records folded so far.
    pub records: u64,
    /// The run is paused for the user (the provider is unreachable): what they are told.
    pub paused: Option<String>,
}

impl Default for SessionSummary {
    fn default() -> Self {
        Self {
            session: String::new(),
            title: String::new(),
            run: 0,
            in_flight: false,
            phase: RunPhase::Idle,
            spent: LedgerSummary::default(),
            limits: None,
            records: 0,
            paused: None,
        }
    }
}

impl SessionSummary {
    /// The summary of a whole log.
    pub fn from_records(records: &[Record]) -> Self {
        let mut summary = Self::default();
        for record in records {
            summary.push(record);
        }
        summary
    }

    /// Folds one record in; records already seen are ignored.
    pub fn push(&mut self, record: &Record) {
        if record.seq < self.records {
            return;
        }
        self.records = record.seq + 1;
        match &record.event {
            Event::SessionStarted { session, .. } => self.session = session.clone(),
            Event::UserMessage { text } => {
                if self.title.is_empty() {
                    self.title = text.chars().take(80).collect();
                }
            }
            Event::RunStarted { run, budget } => {
                self.run = *run;
                self.in_flight = true;
                self.limits = Some(*budget);
                self.spent = LedgerSummary::default();
                self.phase = RunPhase::Working;
            }
            Event::BudgetExtended { budget } => {
                self.in_flight = true;
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
                self.in_flight = false;
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

    /// The limits for "continue with more budget": every limit of the run doubled, when the
    /// last run stopped because a budget ran out.
    pub fn extended_limits(&self) -> Option<BudgetLimits> {
        let RunPhase::Finished {
            stop: StopReason::BudgetExhausted { .. },
        } = &self.phase
        else {
            return None;
        };
        self.limits.map(|limits| doubled(&limits))
    }

    fn spend(&mut self, ledger: &Ledger) {
        self.spent = LedgerSummary::of(ledger);
    }
}

/// Every limit doubled (unlimited ones stay unlimited; a zero limit becomes one).
pub fn doubled(limits: &BudgetLimits) -> BudgetLimits {
    BudgetLimits {
        max_steps: limits.max_steps.map(|n| n.saturating_mul(2).max(1)),
        max_tool_calls: limits.max_tool_calls.map(|n| n.saturating_mul(2).max(1)),
        max_input_tokens: limits.max_input_tokens.map(|n| n.saturating_mul(2).max(1)),
        max_output_tokens: limits.max_output_tokens.map(|n| n.saturating_mul(2).max(1)),
        max_cost_usd: limits
            .max_cost_usd
            .map(|c| if c > 0.0 { c * 2.0 } else { 0.01 }),
        max_wall_ms: limits.max_wall_ms.map(|n| n.saturating_mul(2).max(1)),
    }
}
