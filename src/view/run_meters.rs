//! How far the current run is into each of its budgets, and what each step cost: the data of
//! the budget meters and the per-step chart (with the steps where a loop detector fired), so a
//! runaway run is visible at a glance. Folded from the log one record at a time.

use crate::core::{fold_records, Event, Ledger, Record, RunSpend, SpendChange};

use super::format::{format_cost, format_count};
use super::labels::detector_label;

/// One budget of the run: how much is used of how much.
#[derive(Debug, Clone, PartialEq)]
pub struct Meter {
    /// Stable name (`steps`, `tool_calls`, `input_tokens`, `output_tokens`, `cost`, `time`).
    pub key: &'static str,
    /// What is counted, in words.
    pub label: &'static str,
    /// `12 / 25`, `$0.0100 / $0.50`.
    pub text: String,
    /// Used share of the limit, 0..=1 (capped).
    pub fraction: f64,
}

/// What one step of the run cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepPoint {
    /// Step number.
    pub step: u32,
    /// Tokens (input and output) the step used.
    pub tokens: u64,
    /// Spend of the step in USD.
    pub cost_usd: f64,
}

/// A loop detector that fired, at the step it fired in.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardMark {
    /// Step number.
    pub step: u32,
    /// Which detector, in words.
    pub detector: &'static str,
    /// Whether it stopped the run.
    pub stop: bool,
}

/// Budgets and per-step spend of a session's current (or last) run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunMeters {
    spend: RunSpend,
    points: Vec<StepPoint>,
    guards: Vec<GuardMark>,
    next_seq: u64,
}

impl RunMeters {
    /// The meters of a whole log.
    pub fn from_records(records: &[Record]) -> Self {
        fold_records(records, Self::push)
    }

    /// Folds one record in; records already seen are ignored. The spend is the core's one
    /// spend fold ([`RunSpend`], which the sessions digest stores too); the meters keep what
    /// each finished step cost and where a loop detector fired.
    pub fn push(&mut self, record: &Record) {
        if record.seq < self.next_seq {
            return;
        }
        self.next_seq = record.seq + 1;
        match self.spend.apply(&record.event) {
            SpendChange::Same => {}
            SpendChange::NewRun => {
                self.points.clear();
                self.guards.clear();
            }
            SpendChange::StepDone {
                step,
                before,
                after,
            } => self.points.push(StepPoint {
                step,
                tokens: tokens(&after).saturating_sub(tokens(&before)),
                cost_usd: (after.cost_usd - before.cost_usd).max(0.0),
            }),
        }
        if let Event::GuardTriggered { detector, stop, .. } = &record.event {
            self.guards.push(GuardMark {
                step: self.spend.step,
                detector: detector_label(*detector),
                stop: *stop,
            });
        }
    }

    /// One meter per budget the run has a limit for, in a fixed order.
    pub fn meters(&self) -> Vec<Meter> {
        let Some(limits) = self.spend.limits else {
            return Vec::new();
        };
        let s = &self.spend.spent;
        let count = |key, label, used: u64, limit: Option<u64>| {
            limit.map(|limit| Meter {
                key,
                label,
                text: format!("{} / {}", format_count(used), format_count(limit)),
                fraction: share(used as f64, limit as f64),
            })
        };
        let mut out = Vec::new();
        out.extend(count(
            "steps",
            "Steps",
            u64::from(s.steps),
            limits.max_steps.map(u64::from),
        ));
        out.extend(count(
            "tool_calls",
            "Tool calls",
            u64::from(s.tool_calls),
            limits.max_tool_calls.map(u64::from),
        ));
        out.extend(count(
            "input_tokens",
            "Input tokens",
            s.input_tokens(),
            limits.max_input_tokens,
        ));
        out.extend(count(
            "output_tokens",
            "Output tokens",
            s.usage.output_tokens,
            limits.max_output_tokens,
        ));
        if let Some(limit) = limits.max_cost_usd {
            out.push(Meter {
                key: "cost",
                label: "Cost",
                text: format!("{} / {}", format_cost(s.cost_usd), format_cost(limit)),
                fraction: share(s.cost_usd, limit),
            });
        }
        if let Some(limit) = limits.max_wall_ms {
            out.push(Meter {
                key: "time",
                label: "Time",
                text: format!("{} / {}", seconds(s.active_ms), seconds(limit)),
                fraction: share(s.active_ms as f64, limit as f64),
            });
        }
        out
    }

    /// Spend of each finished step of the run, in order.
    pub fn points(&self) -> &[StepPoint] {
        &self.points
    }

    /// Loop detectors that fired in the run.
    pub fn guards(&self) -> &[GuardMark] {
        &self.guards
    }
}

fn tokens(ledger: &Ledger) -> u64 {
    ledger.input_tokens() + ledger.usage.output_tokens
}

fn share(used: f64, limit: f64) -> f64 {
    if limit <= 0.0 {
        1.0
    } else {
        (used / limit).clamp(0.0, 1.0)
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.0} s", ms as f64 / 1000.0)
}
