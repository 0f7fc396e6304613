//! What the loop detectors record: which detector fired and the evidence a step added.

use serde::{Deserialize, Serialize};

/// Which loop detector fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detector {
    /// The same action on the same state with no new evidence.
    Repetition,
    /// Two actions alternating (A-B-A-B) with unchanged results.
    Thrashing,
    /// Observations stopped changing while the actions varied.
    Stagnation,
    /// The same error kept coming back.
    RepeatedError,
    /// The call that had just succeeded was asked for again, unchanged (see
    /// `GuardThresholds::end_on_repeated_success`).
    RepeatedSuccess,
    /// Tool calls kept failing (the breaker, asked to reflect first).
    ConsecutiveErrors,
    /// An open todo (a milestone) went on with no new evidence for too many steps.
    OverdueMilestone,
    /// Most of a budget was spent with no new evidence lately.
    BudgetEndgame,
}

/// What a step added to the evidence the run has gathered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceDelta {
    /// Observations never seen before in this run.
    pub new_observations: u32,
    /// Observations identical to earlier ones.
    pub repeated_observations: u32,
    /// The calls whose observations were new evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_calls: Vec<String>,
    /// Steps in a row, this one included, that added no new evidence: the context grows
    /// while what the run knows does not (absent while evidence grows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_steps: Option<u32>,
}
impl Detector {
    /// What fired, in words, for reports and the timeline.
    pub fn label(self) -> &'static str {
        match self {
            Detector::Repetition => "the same call repeated",
            Detector::Thrashing => "calls going round in a cycle",
            Detector::Stagnation => "nothing new while the calls varied",
            Detector::RepeatedError => "the same error again and again",
            Detector::RepeatedSuccess => "the call that had just succeeded asked for again",
            Detector::ConsecutiveErrors => "tool calls failing in a row",
            Detector::OverdueMilestone => "an open todo overdue",
            Detector::BudgetEndgame => "most of the budget spent with nothing new lately",
        }
    }
}
