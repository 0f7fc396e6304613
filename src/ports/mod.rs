//! The traits the runtime performs effects through. Browser adapters implement them in `web`;
//! tests implement them with scripted models, fake tools and a manual clock. No `Send` bounds:
//! on wasm everything runs on one thread.

mod memory_store;

pub use memory_store::MemoryStore;

use std::future::Future;

use serde::{Deserialize, Serialize};

use crate::core::{Millis, Record, ToolInvocation};
use crate::protocol::{ModelError, ModelReply, ModelRequest, StreamDelta};

/// How hard a storage write must try before it reports success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// Flushed to disk before success (intent records that guard side effects).
    Strict,
    /// Handed to the OS (everything else).
    Relaxed,
}

/// A storage failure. Nothing of a failed append is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The browser's storage quota is exhausted; free space and retry. Holds the browser's
    /// own words, which may be empty.
    #[error("storage is full: the browser's storage quota for this site is used up{}; free space, then retry", detail(.0))]
    QuotaExceeded(String),
    /// A record with this seq exists with other content.
    #[error("record {seq} already exists with different content")]
    Conflict {
        /// The seq.
        seq: u64,
    },
    /// The append does not continue the log.
    #[error("append starts at record {found} but the log has {expected} records")]
    Gap {
        /// Records in the log.
        expected: u64,
        /// First seq of the append.
        found: u64,
    },
    /// Storage could not be reached (closed connection, blocked upgrade, ...).
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// Stored data could not be read back.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
}

fn detail(message: &str) -> String {
    if message.trim().is_empty() {
        String::new()
    } else {
        format!(" ({})", message.trim())
    }
}

/// One session in the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// Session id.
    pub session: String,
    /// Number of records.
    pub records: u64,
    /// Time of the last record.
    pub updated_at: Millis,
}

/// The append-only event log of every session.
pub trait EventStore {
    /// Appends `records` (contiguous, continuing the log) atomically: all or none. Re-appending
    /// a record that is already stored with identical content succeeds (idempotent retries).
    fn append(
        &self,
        session: &str,
        records: &[Record],
        durability: Durability,
    ) -> impl Future<Output = Result<(), StoreError>>;

    /// The whole log of a session in order (empty if unknown).
    fn load(&self, session: &str) -> impl Future<Output = Result<Vec<Record>, StoreError>>;

    /// Every stored session.
    fn sessions(&self) -> impl Future<Output = Result<Vec<SessionSummary>, StoreError>>;

    /// Removes a session's log.
    fn delete(&self, session: &str) -> impl Future<Output = Result<(), StoreError>>;
}

/// A language model. Dropping the returned future aborts the call.
pub trait ModelClient {
    /// Runs one call, streaming deltas to `on_delta`; retries are the client's own business.
    fn complete(
        &self,
        request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> impl Future<Output = Result<ModelReply, ModelError>>;
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Result text (JSON results serialised).
    pub content: String,
    /// Whether the call failed (the model sees it as an error observation).
    pub is_error: bool,
}

/// Executes host tools. Dropping the returned future aborts the call.
pub trait ToolHost {
    /// Runs one validated, permitted call.
    fn call(&self, invocation: &ToolInvocation) -> impl Future<Output = ToolOutput>;
}

/// Time, supplied to the core as data.
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now(&self) -> Millis;
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> impl Future<Output = ()>;
}
