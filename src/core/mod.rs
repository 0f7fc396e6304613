//! The loop core: a sans-IO state machine. It never awaits, reads a clock, makes random ids or
//! touches the browser. Inputs (with the time) go in through [`Agent::handle`], effects come out
//! of [`Agent::poll`], and every decision is an [`Event`] in the log that [`Agent::replay`] folds
//! back into the same state.

mod agent;
mod batch;
mod budget;
mod compact_messages;
mod completion;
mod context;
mod decide;
mod digest;
mod effect;
mod error;
mod event_facts;
mod fingerprint;
mod flight;
mod fold;
pub mod guard;
mod handoff;
mod hygiene;
mod input;
pub mod log;
mod loop_guard;
mod mix64;
mod model_retry;
mod pause;
mod phase;
mod phase_fold;
mod progress;
mod recent_map;
pub mod reflect;
pub mod reflection;
pub mod repeat_success;
mod replay;
mod run;
mod run_phase;
mod schema;
mod snapshot;
mod snapshot_migrate;
mod spend;
mod state;
mod stop_hook;
mod todo;
mod tool_batch;
mod tools;
mod verify;

pub use agent::Agent;
pub use budget::cost_of;
pub use digest::{task_title, SessionDigest, SpentSummary, DIGEST_SCHEMA, TITLE_CHARS};
pub use effect::{Effect, ToolInvocation};
pub use error::{InputError, ReplayError};
pub use event_facts::{ApprovalMove, Ask, EventFacts, FlightMove, PauseMove, SpendMove};
pub use fingerprint::{args_hash, canonical_json};
pub use flight::Flight;
pub use fold::fold_records;
pub use hygiene::strip_control_tokens;
pub use input::Input;
pub use log::{
    AgentConfig, ApprovalScope, BudgetKind, BudgetLimits, CallPurpose, Detector, Event,
    EvidenceDelta, GuardThresholds, HandoffReport, HumanReason, InterruptCause, Ledger, Millis,
    OverdueAction, PauseReason, Permission, Price, Record, ReflectivePolicy, Rejection, RunOutcome,
    StopProposal, StopReason, StopVerdict, ToolDecl, ToolKind, TransitionReason, SCHEMA_VERSION,
};
pub use loop_guard::LoopGuard;
pub use model_retry::{classify, retry_delay_ms, FailureClass, MAX_STREAM_RETRIES};
pub use phase::{ModelRetry, Phase};
pub use phase_fold::PhaseFold;
pub use progress::Progress;
pub use reflection::{give_up_tool, Reflection};
pub use replay::{parse_jsonl, records_as_lines, to_jsonl};
pub use run::RunState;
pub use run_phase::RunPhase;
pub use schema::validate as validate_schema;
pub use snapshot::{
    SnapshotWrite, PART_MESSAGES, SNAPSHOT_AT_REST, SNAPSHOT_EVERY, SNAPSHOT_VERSION,
};
pub use spend::{RunSpend, SpendChange};
pub use state::{AgentState, CONTINUE_PROMPT, MALFORMED_REPLY_CALL};
pub use todo::{TodoItem, TodoStatus};
pub use tool_batch::{
    parse_args, BatchSummary, CallResult, FinishResult, Slot, SlotState, ToolBatch,
};
pub use tools::{finish_tool, todo_tool};
pub use verify::{verify_replay, Divergence, VerifyReport};
