//! What the current (or last) run has spent and may spend, folded from the ledgers its steps
//! persist: the one spend fold of a log. The sessions digest stores it (so a listing shows a
//! run's spend without reading its log) and the budget meters fold it for their per-step chart.

use serde::{Deserialize, Serialize};

use super::event_facts::SpendMove;
use super::log::{BudgetLimits, Event, Ledger};

/// A run's limits and spend, as its log tells them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSpend {
    /// Limits of the run (`None` before the first run).
    pub limits: Option<BudgetLimits>,
    /// Spend so far; a step counts as taken from its start, as the core's ledger charges it.
    pub spent: Ledger,
    /// The step under way or last finished.
    pub step: u32,
    /// Spend when the step under way started (`None` between steps).
    pub step_start: Option<Ledger>,
}

/// What one event did to the spend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpendChange {
    /// Nothing a reader of steps cares about (or the limits or totals moved).
    Same,
    /// A new run started: whatever was kept per step of the last one is stale.
    NewRun,
    /// A step ended, spending the difference between these two ledgers.
    StepDone {
        /// Step number.
        step: u32,
        /// Spend when it started.
        before: Ledger,
        /// Spend when it ended.
        after: Ledger,
    },
}

impl RunSpend {
    /// Folds one event in.
    pub fn apply(&mut self, event: &Event) -> SpendChange {
        self.follow(event.facts().spend)
    }

    /// Takes one move of the event table (for a fold that has read an event's facts already).
    pub fn follow(&mut self, step: SpendMove<'_>) -> SpendChange {
        match step {
            SpendMove::Keep => SpendChange::Same,
            SpendMove::RunStart(limits) => {
                *self = Self {
                    limits: Some(*limits),
                    ..Self::default()
                };
                SpendChange::NewRun
            }
            SpendMove::Limits(limits) => {
                self.limits = Some(*limits);
                SpendChange::Same
            }
            SpendMove::StepStart { step, before } => {
                self.step = step;
                self.spent = *before;
                self.spent.steps = before.steps + 1;
                self.step_start = Some(*before);
                SpendChange::Same
            }
            SpendMove::StepEnd { step, after } => {
                self.spent = *after;
                match self.step_start.take() {
                    Some(before) => SpendChange::StepDone {
                        step,
                        before,
                        after: *after,
                    },
                    None => SpendChange::Same,
                }
            }
            SpendMove::RunEnd(outcome) => {
                self.spent.steps = outcome.steps;
                self.spent.usage = outcome.usage;
                self.spent.cost_usd = outcome.cost_usd;
                SpendChange::Same
            }
        }
    }
}
