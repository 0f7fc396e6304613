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
}

/// What a step added to the evidence the run has gathered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceDelta {
    /// Observations never seen before in this run.
    pub new_observations: u32,
    /// Observations identical to earlier ones.
    pub repeated_observations: u32,
}
