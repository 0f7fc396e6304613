//! The traits the runtime performs effects through. Browser adapters implement them in `web`;
//! tests implement them with scripted models, fake tools and a manual clock. No `Send` bounds:
//! on wasm everything runs on one thread.

mod dyn_files;
mod dyn_store;
mod files;
mod memory_store;
mod model_library;
mod platform;
mod port_set;
mod tool_spec;

pub use dyn_files::DynFiles;
pub use dyn_store::DynStore;
pub use files::{FileEntry, Files, FilesError, Volume};
pub use memory_store::MemoryStore;
pub use model_library::{
    ByteProgressFn, LibraryError, ModelLibrary, PickedModel, StorageUse, StoreKind, StoredModel,
};
pub use platform::{Platform, PlatformError};
pub use port_set::PortSet;
pub use tool_spec::HostToolSpec;

use std::future::Future;

use serde::{Deserialize, Serialize};

use crate::core::{Millis, Record, SessionDigest, SnapshotWrite, ToolInvocation};
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

/// One session in the sessions index: what a session list shows, without reading its log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexedSession {
    /// Session id.
    pub session: String,
    /// Time of the last record.
    pub updated_at: Millis,
    /// Title, status and spend, folded from the whole log.
    pub digest: SessionDigest,
    /// The name the user gave the session, shown instead of the digest's title. Kept in the
    /// index row, not the log: a rebuilt digest keeps it, an export does not carry it.
    pub name: Option<String>,
}

/// A fold snapshot as stored: derived data the store keeps for fast resume, checked against
/// the log by whoever reads it. Written as a [`SnapshotWrite`]: the head replaces the last one
/// and the new transcript parts join those already stored, in the same transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSnapshot {
    /// Records the snapshot has folded.
    pub records: u64,
    /// The head, serialised.
    pub head: String,
    /// Every transcript part stored for the session, from the first, without gaps.
    pub parts: Vec<String>,
}

/// The append-only event log of every session.
pub trait EventStore {
    /// Appends `records` (contiguous, continuing the log) atomically: all or none. Re-appending
    /// a record that is already stored with identical content succeeds (idempotent retries).
    /// Appends are applied in the order they are first polled, so one may be started while the
    /// one before it is still in flight: if that one fails, the later one no longer continues
    /// the log and fails too (`Gap`).
    fn append(
        &self,
        session: &str,
        records: &[Record],
        durability: Durability,
    ) -> impl Future<Output = Result<(), StoreError>>;

    /// The whole log of a session in order (empty if unknown).
    fn load(&self, session: &str) -> impl Future<Output = Result<Vec<Record>, StoreError>>;

    /// Tells the store that `session`'s writer appends nothing more for now (its run ended or
    /// waits for a person, or the writer stops): a store that indexes lazily while appends
    /// follow each other brings its index up to date. Call it after the last append is stored;
    /// the log is unchanged. The default does nothing.
    fn rest(&self, session: &str) -> impl Future<Output = Result<(), StoreError>> {
        let _ = session;
        async { Ok(()) }
    }

    /// Every stored session.
    fn sessions(&self) -> impl Future<Output = Result<Vec<SessionSummary>, StoreError>>;

    /// Removes a session's log (its index entry and snapshot too).
    fn delete(&self, session: &str) -> impl Future<Output = Result<(), StoreError>>;

    /// Records `from..to` of a session's log (`to: None`: to the end), in order. Stores that
    /// can read a range override this; the default reads the whole log.
    fn load_range(
        &self,
        session: &str,
        from: u64,
        to: Option<u64>,
    ) -> impl Future<Output = Result<Vec<Record>, StoreError>> {
        async move {
            let log = self.load(session).await?;
            Ok(log
                .into_iter()
                .filter(|r| r.seq >= from && to.is_none_or(|to| r.seq < to))
                .collect())
        }
    }

    /// Every stored session with its digest, in the order of [`EventStore::sessions`]. An
    /// indexed store answers from its sessions index (O(sessions)); the default folds every log.
    fn index(&self) -> impl Future<Output = Result<Vec<IndexedSession>, StoreError>> {
        async move {
            let mut out = Vec::new();
            for stored in self.sessions().await? {
                let log = self.load(&stored.session).await?;
                out.push(IndexedSession {
                    session: stored.session,
                    updated_at: stored.updated_at,
                    digest: SessionDigest::from_records(&log),
                    name: None,
                });
            }
            Ok(out)
        }
    }

    /// Names a stored session (`None`: back to its first message). Appends keep the name and a
    /// delete forgets it; a session with no records cannot be named. The default keeps no names.
    fn rename(
        &self,
        session: &str,
        name: Option<String>,
    ) -> impl Future<Output = Result<(), StoreError>> {
        let _ = (session, name);
        async {
            Err(StoreError::Unavailable(
                "this store keeps no session names".into(),
            ))
        }
    }

    /// The session's fold snapshot, if one is kept (the default keeps none).
    fn snapshot(
        &self,
        session: &str,
    ) -> impl Future<Output = Result<Option<StoredSnapshot>, StoreError>> {
        let _ = session;
        async { Ok(None) }
    }

    /// Replaces the session's snapshot head and adds its new parts, at once (the default drops
    /// both).
    fn save_snapshot(
        &self,
        session: &str,
        snapshot: SnapshotWrite,
    ) -> impl Future<Output = Result<(), StoreError>> {
        let _ = (session, snapshot);
        async { Ok(()) }
    }
}

/// A language model. Dropping the returned future aborts the call.
pub trait ModelClient {
    /// Runs one call, streaming deltas to `on_delta`; retries are the client's own business.
    fn complete(
        &self,
        request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> impl Future<Output = Result<ModelReply, ModelError>>;

    /// A new API key for the calls that follow: the person entered the right one after the
    /// provider refused the first. Never recorded. Clients without a key ignore it.
    fn set_api_key(&self, _key: &str) {}
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Result text (JSON results serialised).
    pub content: String,
    /// Whether the call failed (the model sees it as an error observation).
    pub is_error: bool,
    /// Set when the tool could not reach its server because the network is gone: the run
    /// pauses and the call is sent again later, instead of the model seeing `content` as an
    /// error.
    pub unreachable: Option<Unreachable>,
}

impl ToolOutput {
    /// A result the model sees.
    pub fn result(content: String, is_error: bool) -> Self {
        Self {
            content,
            is_error,
            unreachable: None,
        }
    }
}

/// How a tool failed to reach its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreachable {
    /// The browser was offline: the call was refused before it was sent.
    NotSent,
    /// The network went while the call ran: it may have reached its server.
    MaybeSent,
}

/// Executes host tools. Dropping the returned future aborts the call.
pub trait ToolHost {
    /// Runs one validated, permitted call.
    fn call(&self, invocation: &ToolInvocation) -> impl Future<Output = ToolOutput>;
    /// Whether this host sees the store's append whose last record is seq `stored` while it is
    /// under way, so that `call_when_stored` can start a call that waits for it. False by
    /// default: the driver then waits for the append itself before it calls.
    fn sees_append(&self, _stored: u64) -> bool {
        false
    }
    /// Starts `invocation` while the append whose last record is seq `stored` is under way (only
    /// when `sees_append(stored)`): the tool runs the moment that append commits, with no
    /// round trip through the driver, and never if it fails (the call then ends with an error,
    /// which the driver drops before calling again once the records are stored). By default
    /// the call itself.
    fn call_when_stored(
        &self,
        invocation: &ToolInvocation,
        _stored: u64,
    ) -> impl Future<Output = ToolOutput> {
        self.call(invocation)
    }
}

/// Time, supplied to the core as data.
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now(&self) -> Millis;
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> impl Future<Output = ()>;
    /// Resolves once the host has run what it already has queued (in a browser: the next
    /// task), so work that is only due soon waits behind the step's own. At once by default.
    fn soon(&self) -> impl Future<Output = ()> {
        std::future::ready(())
    }
}
