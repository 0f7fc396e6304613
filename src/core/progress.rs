//! What a run under the reflective rules knows about its own progress: the guard's memory,
//! the latest finding, steps without new evidence (overall and while todos are open), the
//! reflections it was asked for and what they said. Folded from the log like the rest of
//! [`RunState`](super::RunState).

use serde::{Deserialize, Serialize};

use super::guard::{Finding, Guard, Judgement};
use super::log::{BudgetLimits, Detector, Ledger};
use super::reflection::Reflection;

/// Transient errors in a row that do not count towards the error breaker (a rate limit, a
/// timeout: the retry after one is honest work).
pub const TRANSIENT_GRACE: u32 = 2;

/// Progress bookkeeping of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// The detectors' memory.
    pub guard: Guard,
    /// The strongest finding of the last tool batch, if a detector fired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
    /// Steps in a row whose observations held nothing new.
    pub quiet_steps: u32,
    /// Of those, the steps taken while todos were open (a milestone going overdue).
    pub milestone_quiet: u32,
    /// Forced reflections so far.
    pub reflections: u32,
    /// What asked for the latest reflection (its detector and evidence).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<Finding>,
    /// What the latest reflection said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reflection: Option<Reflection>,
    /// The overdue-milestone reflection was asked.
    pub milestone_reflected: bool,
    /// The budget endgame reflection was asked.
    pub endgame_asked: bool,
    /// The next step must answer (its request offers no tools).
    pub answer_requested: bool,
    /// Transient errors in a row.
    pub transient_errors: u32,
}

impl Progress {
    /// Keeps the stronger of the batch's findings.
    pub fn note(&mut self, judgement: &Judgement) {
        let Some(found) = &judgement.finding else {
            return;
        };
        let stronger = self
            .finding
            .as_ref()
            .is_none_or(|held| found.level > held.level);
        if stronger {
            self.finding = Some(found.clone());
        }
    }

    /// A tool batch ended: whether anything in it was new moves the quiet counters.
    pub fn batch_done(&mut self, any_new: bool, todos_open: bool) {
        if any_new {
            self.quiet_steps = 0;
            self.milestone_quiet = 0;
        } else {
            self.quiet_steps += 1;
            if todos_open {
                self.milestone_quiet += 1;
            }
        }
    }

    /// A reflection step starts for `trigger`.
    pub fn reflection_started(&mut self, trigger: Detector) {
        match trigger {
            Detector::OverdueMilestone => self.milestone_reflected = true,
            Detector::BudgetEndgame => self.endgame_asked = true,
            Detector::Repetition
            | Detector::Thrashing
            | Detector::Stagnation
            | Detector::RepeatedError
            | Detector::RepeatedSuccess
            | Detector::ConsecutiveErrors => {}
        }
        if self
            .trigger
            .as_ref()
            .is_none_or(|held| held.detector != trigger)
        {
            self.trigger = Some(Finding {
                detector: trigger,
                level: super::guard::Level::Diagnose,
                evidence: self.finding.take().map(|f| f.evidence).unwrap_or_default(),
            });
        }
    }

    /// The reflection's answer arrived.
    pub fn reflected(&mut self, reflection: Reflection) {
        self.reflections += 1;
        self.reflection = Some(reflection);
        self.finding = None;
        self.guard.reflected();
    }

    /// Where the run is stuck, for the handoff: the detector's evidence, then what the
    /// reflection said.
    pub fn stuck_on(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let finding = self.finding.as_ref().or(self.trigger.as_ref());
        if let Some(finding) = finding {
            lines.push(format!("{}:", finding.detector.label()));
            lines.extend(finding.evidence.iter().map(|e| format!("  {e}")));
        } else if self.reflection.is_some() {
            // A concession before any detector fired: the latest calls say what was tried.
            let calls = self.guard.recent_calls();
            if !calls.is_empty() {
                lines.push("the latest calls:".into());
                lines.extend(calls.into_iter().map(|c| format!("  {c}")));
            }
        }
        if let Some(reflection) = &self.reflection {
            lines.extend(
                reflection
                    .stuck_on
                    .iter()
                    .map(|s| format!("reflection: {s}")),
            );
        }
        lines
    }
}

/// The largest share of any limit spent, in percent.
pub fn spent_percent(ledger: &Ledger, limits: &BudgetLimits) -> u32 {
    let share = |spent: f64, limit: Option<f64>| match limit {
        Some(limit) if limit > 0.0 => spent / limit,
        Some(_) | None => 0.0,
    };
    let shares = [
        share(f64::from(ledger.steps), limits.max_steps.map(f64::from)),
        share(
            f64::from(ledger.tool_calls),
            limits.max_tool_calls.map(f64::from),
        ),
        share(
            ledger.input_tokens() as f64,
            limits.max_input_tokens.map(|l| l as f64),
        ),
        share(
            ledger.usage.output_tokens as f64,
            limits.max_output_tokens.map(|l| l as f64),
        ),
        share(ledger.cost_usd, limits.max_cost_usd),
        share(
            ledger.active_ms as f64,
            limits.max_wall_ms.map(|l| l as f64),
        ),
    ];
    let most = shares.into_iter().fold(0.0, f64::max);
    (most * 100.0).floor() as u32
}
