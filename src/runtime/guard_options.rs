//! The loop guard's options as a page passes them (`guard: {...}` in camelCase), laid over the
//! defaults into the core's [`GuardThresholds`], with the reflective rules' policy.

use crate::core::{GuardThresholds, OverdueAction, ReflectivePolicy};
use serde::Deserialize;

use super::options_error::OptionsError;

/// Loop-guard thresholds in the API's camelCase (see `GuardThresholds`); counts of tool
/// observations, each `diagnose` below its `stop`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuardOptions {
    /// Same action, same state, no new evidence: diagnose at this count.
    pub repeat_diagnose: Option<u32>,
    /// ... stop at this count.
    pub repeat_stop: Option<u32>,
    /// A-B-A-B alternation: diagnose after this many observations.
    pub thrash_diagnose: Option<u32>,
    /// ... stop after this many.
    pub thrash_stop: Option<u32>,
    /// Identical observations while actions vary: diagnose at this many.
    pub stagnation_diagnose: Option<u32>,
    /// ... stop at this many.
    pub stagnation_stop: Option<u32>,
    /// The same error again: diagnose at this count.
    pub error_repeat_diagnose: Option<u32>,
    /// ... stop at this count.
    pub error_repeat_stop: Option<u32>,
    /// End the run when the model asks again for the call that just succeeded (default: on
    /// for the local model, off for the others).
    pub end_on_repeated_success: Option<bool>,
    /// `false` keeps the first rules (exact repeats only, no reflection, no `give_up` tool).
    pub reflective: Option<bool>,
    /// Forced reflections a run gets at most.
    pub max_reflections: Option<u32>,
    /// Steps an open todo may go with nothing new before it is overdue (0: never).
    pub milestone_steps: Option<u32>,
    /// `"ask_human"` or `"give_up"`: where an overdue milestone ends.
    pub overdue: Option<OverdueAction>,
    /// Percent of a budget after which a run with nothing new lately must finish or give up
    /// (0: never).
    pub endgame_percent: Option<u32>,
}

impl GuardOptions {
    /// The reflective policy these options ask for over `base` (`None`: the first rules).
    fn reflective_policy(&self, base: Option<ReflectivePolicy>) -> Option<ReflectivePolicy> {
        if self.reflective == Some(false) {
            return None;
        }
        let base = base.unwrap_or_default();
        Some(ReflectivePolicy {
            max_reflections: self.max_reflections.unwrap_or(base.max_reflections),
            milestone_steps: self.milestone_steps.unwrap_or(base.milestone_steps),
            overdue: self.overdue.unwrap_or(base.overdue),
            endgame_percent: self.endgame_percent.unwrap_or(base.endgame_percent),
            ..base
        })
    }

    /// These thresholds over `base`; refuses a pair whose diagnosis would not come first.
    pub fn over(&self, base: GuardThresholds) -> Result<GuardThresholds, OptionsError> {
        let out = GuardThresholds {
            repeat_diagnose: self.repeat_diagnose.unwrap_or(base.repeat_diagnose),
            repeat_stop: self.repeat_stop.unwrap_or(base.repeat_stop),
            thrash_diagnose: self.thrash_diagnose.unwrap_or(base.thrash_diagnose),
            thrash_stop: self.thrash_stop.unwrap_or(base.thrash_stop),
            stagnation_diagnose: self.stagnation_diagnose.unwrap_or(base.stagnation_diagnose),
            stagnation_stop: self.stagnation_stop.unwrap_or(base.stagnation_stop),
            error_repeat_diagnose: self
                .error_repeat_diagnose
                .unwrap_or(base.error_repeat_diagnose),
            error_repeat_stop: self.error_repeat_stop.unwrap_or(base.error_repeat_stop),
            end_on_repeated_success: self
                .end_on_repeated_success
                .unwrap_or(base.end_on_repeated_success),
            reflective: self.reflective_policy(base.reflective),
        };
        if let Some(policy) = out.reflective {
            if policy.endgame_percent > 100 {
                return Err(OptionsError::Invalid(format!(
                    "guard.endgamePercent must be at most 100, got {}",
                    policy.endgame_percent
                )));
            }
        }
        for (name, diagnose, stop) in [
            ("repeat", out.repeat_diagnose, out.repeat_stop),
            ("thrash", out.thrash_diagnose, out.thrash_stop),
            ("stagnation", out.stagnation_diagnose, out.stagnation_stop),
            (
                "errorRepeat",
                out.error_repeat_diagnose,
                out.error_repeat_stop,
            ),
        ] {
            if diagnose == 0 || stop <= diagnose {
                return Err(OptionsError::Invalid(format!(
                    "guard.{name}Diagnose ({diagnose}) must be at least 1 and below guard.{name}Stop ({stop})"
                )));
            }
        }
        Ok(out)
    }
}
