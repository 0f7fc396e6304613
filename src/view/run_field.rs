//! A number field of the run settings, a budget or a loop-guard threshold: what the form shows
//! for it and how its text enters the settings, the same for both kinds, so one input serves
//! every such field.

use super::field_error::FieldError;
use super::guard_settings::GuardField;
use super::run_settings::{BudgetField, RunSettings};

/// A budget or loop-guard field of the run settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunField {
    /// A budget (empty: no limit set here).
    Budget(BudgetField),
    /// A loop-guard threshold (empty: its default).
    Guard(GuardField),
}

impl RunField {
    /// The field's id and test hook.
    pub fn id(self) -> &'static str {
        match self {
            RunField::Budget(field) => field.id(),
            RunField::Guard(field) => field.id(),
        }
    }

    /// The field's label.
    pub fn label(self) -> &'static str {
        match self {
            RunField::Budget(field) => field.label(),
            RunField::Guard(field) => field.label(),
        }
    }

    /// The soft keyboard it asks for: cost and time take decimals, thresholds are counts.
    pub fn inputmode(self) -> &'static str {
        match self {
            RunField::Budget(_) => "decimal",
            RunField::Guard(_) => "numeric",
        }
    }

    /// What an empty field means.
    pub fn placeholder(self) -> String {
        match self {
            RunField::Budget(_) => "no limit set".to_string(),
            RunField::Guard(field) => field.default_value().to_string(),
        }
    }

    /// Parses `text` into `run` (see [`BudgetField::apply`] and [`GuardField::apply`]).
    pub fn apply(self, run: &mut RunSettings, text: &str) -> Result<(), FieldError> {
        match self {
            RunField::Budget(field) => field.apply(&mut run.budget, text),
            RunField::Guard(field) => field.apply(&mut run.guard, text),
        }
    }
}
