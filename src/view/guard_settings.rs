//! The loop-guard part of the settings form: a field per threshold (when the guard injects a
//! diagnosis, when it stops the run) and the fetch host allow-list, each typed as text and
//! parsed here, so a bad value is an error beside its field, never a silent default.

use super::field_error::FieldError;
use crate::core::{GuardThresholds, ReflectivePolicy};
use crate::runtime::options::GuardOptions;

/// A loop-guard threshold of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardField {
    /// Same action, same state: diagnose.
    RepeatDiagnose,
    /// Same action, same state: stop.
    RepeatStop,
    /// A-B-A-B: diagnose.
    ThrashDiagnose,
    /// A-B-A-B: stop.
    ThrashStop,
    /// Identical observations: diagnose.
    StagnationDiagnose,
    /// Identical observations: stop.
    StagnationStop,
    /// The same error again: diagnose.
    ErrorRepeatDiagnose,
    /// The same error again: stop.
    ErrorRepeatStop,
    /// Forced reflections a run gets at most.
    MaxReflections,
    /// Steps an open todo may go with nothing new before it is overdue.
    MilestoneSteps,
    /// Percent of a budget after which a run with nothing new must finish or give up.
    EndgamePercent,
}

impl GuardField {
    /// Every field, in the form's order (each diagnosis before its stop).
    pub const ALL: [GuardField; 11] = [
        GuardField::RepeatDiagnose,
        GuardField::RepeatStop,
        GuardField::ThrashDiagnose,
        GuardField::ThrashStop,
        GuardField::StagnationDiagnose,
        GuardField::StagnationStop,
        GuardField::ErrorRepeatDiagnose,
        GuardField::ErrorRepeatStop,
        GuardField::MaxReflections,
        GuardField::MilestoneSteps,
        GuardField::EndgamePercent,
    ];

    /// The field's id and test hook.
    pub fn id(self) -> &'static str {
        match self {
            GuardField::RepeatDiagnose => "guard-repeat-diagnose",
            GuardField::RepeatStop => "guard-repeat-stop",
            GuardField::ThrashDiagnose => "guard-thrash-diagnose",
            GuardField::ThrashStop => "guard-thrash-stop",
            GuardField::StagnationDiagnose => "guard-stagnation-diagnose",
            GuardField::StagnationStop => "guard-stagnation-stop",
            GuardField::ErrorRepeatDiagnose => "guard-error-repeat-diagnose",
            GuardField::ErrorRepeatStop => "guard-error-repeat-stop",
            GuardField::MaxReflections => "guard-max-reflections",
            GuardField::MilestoneSteps => "guard-milestone-steps",
            GuardField::EndgamePercent => "guard-endgame-percent",
        }
    }

    /// The field's label.
    pub fn label(self) -> &'static str {
        match self {
            GuardField::RepeatDiagnose => "Same call again: warn at",
            GuardField::RepeatStop => "Same call again: stop at",
            GuardField::ThrashDiagnose => "Back and forth: warn at",
            GuardField::ThrashStop => "Back and forth: stop at",
            GuardField::StagnationDiagnose => "Same result: warn at",
            GuardField::StagnationStop => "Same result: stop at",
            GuardField::ErrorRepeatDiagnose => "Same error: warn at",
            GuardField::ErrorRepeatStop => "Same error: stop at",
            GuardField::MaxReflections => "Reflections: at most",
            GuardField::MilestoneSteps => "Todo overdue after (steps)",
            GuardField::EndgamePercent => "Finish or give up past (% of budget)",
        }
    }

    /// The default the field falls back to when empty (its placeholder).
    pub fn default_value(self) -> u32 {
        let d = GuardThresholds::default();
        let r = ReflectivePolicy::default();
        match self {
            GuardField::RepeatDiagnose => d.repeat_diagnose,
            GuardField::RepeatStop => d.repeat_stop,
            GuardField::ThrashDiagnose => d.thrash_diagnose,
            GuardField::ThrashStop => d.thrash_stop,
            GuardField::StagnationDiagnose => d.stagnation_diagnose,
            GuardField::StagnationStop => d.stagnation_stop,
            GuardField::ErrorRepeatDiagnose => d.error_repeat_diagnose,
            GuardField::ErrorRepeatStop => d.error_repeat_stop,
            GuardField::MaxReflections => r.max_reflections,
            GuardField::MilestoneSteps => r.milestone_steps,
            GuardField::EndgamePercent => r.endgame_percent,
        }
    }

    fn slot(self, guard: &mut GuardOptions) -> &mut Option<u32> {
        match self {
            GuardField::RepeatDiagnose => &mut guard.repeat_diagnose,
            GuardField::RepeatStop => &mut guard.repeat_stop,
            GuardField::ThrashDiagnose => &mut guard.thrash_diagnose,
            GuardField::ThrashStop => &mut guard.thrash_stop,
            GuardField::StagnationDiagnose => &mut guard.stagnation_diagnose,
            GuardField::StagnationStop => &mut guard.stagnation_stop,
            GuardField::ErrorRepeatDiagnose => &mut guard.error_repeat_diagnose,
            GuardField::ErrorRepeatStop => &mut guard.error_repeat_stop,
            GuardField::MaxReflections => &mut guard.max_reflections,
            GuardField::MilestoneSteps => &mut guard.milestone_steps,
            GuardField::EndgamePercent => &mut guard.endgame_percent,
        }
    }

    /// Parses `text` into `guard`: empty keeps the default, else a positive whole number.
    /// Whether each warning still comes before its stop is [`check_guard`]'s question.
    pub fn apply(self, guard: &mut GuardOptions, text: &str) -> Result<(), FieldError> {
        let text = text.trim();
        let value = if text.is_empty() {
            None
        } else {
            match text.parse::<u32>() {
                Ok(n) if n > 0 => Some(n),
                Ok(_) | Err(_) => {
                    return Err(FieldError::NotPositiveWhole {
                        what: "a threshold",
                        text: text.to_string(),
                    })
                }
            }
        };
        *self.slot(guard) = value;
        Ok(())
    }
}

/// Why these thresholds cannot start a run (a warning at or after its stop), if they cannot.
pub fn check_guard(guard: &GuardOptions) -> Option<String> {
    guard
        .over(GuardThresholds::default())
        .err()
        .map(|e| e.to_string())
}

/// The allow-list typed one host per line (or separated by commas or spaces): `example.com`,
/// `*.example.com` for its subdomains, `host:port`, an IP address. A URL, a path or a stray
/// wildcard is refused, naming the entry.
pub fn parse_allow_hosts(text: &str) -> Result<Vec<String>, FieldError> {
    let mut hosts: Vec<String> = Vec::new();
    for entry in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if entry.is_empty() {
            continue;
        }
        let host = entry.to_ascii_lowercase();
        let bare = host.strip_prefix("*.").unwrap_or(&host);
        let allowed =
            |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
        if host.contains("://") || host.contains('/') {
            return Err(FieldError::HostWithPath {
                entry: entry.to_string(),
            });
        }
        if bare.is_empty() || !bare.chars().all(allowed) || bare.starts_with('.') {
            return Err(FieldError::NotAHost {
                entry: entry.to_string(),
            });
        }
        if !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    Ok(hosts)
}
