//! The event log as a leaf protocol: [`Record`], [`Event`] and the plain data they carry
//! (configuration, budgets, outcomes, handoff reports, detector and evidence types). Nothing
//! here imports the live fold state; the rest of the core folds these facts.

mod budget;
mod config;
mod event;
mod guard;
mod handoff;
mod outcome;

pub use budget::{BudgetKind, BudgetLimits, Ledger};
pub use config::{
    AgentConfig, ApprovalScope, GuardThresholds, OverdueAction, Permission, Price,
    ReflectivePolicy, ToolDecl, ToolKind,
};
pub use event::{Event, Millis, Record, SCHEMA_VERSION};
pub use guard::{Detector, EvidenceDelta};
pub use handoff::HandoffReport;
pub use outcome::{
    CallPurpose, HumanReason, InterruptCause, PauseReason, Rejection, RunOutcome, StopProposal,
    StopReason, StopVerdict, TransitionReason,
};
