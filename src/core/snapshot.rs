//! Fold snapshots: an agent's folded state after its first N records, so a long session
//! resumes by folding only the records after them. A snapshot is derived data: versioned, bound
//! to the record it ends with, and thrown away (the log is replayed in full) whenever it does
//! not match the log it claims to summarise.

use serde::{Deserialize, Serialize};

use super::agent::Agent;
use super::fingerprint::sha256_hex;
use super::log::{Record, SCHEMA_VERSION};
use super::state::AgentState;

/// Version of the snapshot layout (the folded state's shape). Bump it whenever a type inside
/// [`AgentState`] changes; older snapshots are then ignored and rebuilt.
pub const SNAPSHOT_VERSION: u32 = 2;

/// How many records a session grows by between two snapshots.
pub const SNAPSHOT_EVERY: u64 = 500;

/// A serialised fold of a log prefix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Snapshot {
    /// [`SNAPSHOT_VERSION`] of the writer.
    version: u32,
    /// Event schema of the writer.
    schema: u32,
    /// Records folded.
    records: u64,
    /// Hash of the last folded record, which the log must still hold.
    last: String,
    /// The folded state.
    state: AgentState,
}

fn record_hash(record: &Record) -> Option<String> {
    serde_json::to_string(record)
        .ok()
        .map(|json| sha256_hex(&[&json]))
}

impl Agent {
    /// This agent's state as a snapshot JSON, bound to `last`, the record it has folded last.
    /// `None` when `last` is not that record.
    pub fn snapshot_json(&self, last: &Record) -> Option<String> {
        if last.seq + 1 != self.state.next_seq {
            return None;
        }
        let snapshot = Snapshot {
            version: SNAPSHOT_VERSION,
            schema: SCHEMA_VERSION,
            records: self.state.next_seq,
            last: record_hash(last)?,
            state: self.state.clone(),
        };
        serde_json::to_string(&snapshot).ok()
    }

    /// The number of records a snapshot JSON has folded (where its tail starts), if it is
    /// readable.
    pub fn snapshot_records(json: &str) -> Option<u64> {
        #[derive(Deserialize)]
        struct Head {
            records: u64,
        }
        serde_json::from_str::<Head>(json).ok().map(|h| h.records)
    }

    /// An agent from a snapshot and the records from its last folded one on: the same agent
    /// [`Agent::replay`] would build from the whole log. `None` when the snapshot is of another
    /// version, does not end with `tail`'s first record, or the tail has a gap: then replay
    /// the whole log.
    pub fn from_snapshot(json: &str, tail: &[Record]) -> Option<Agent> {
        let snapshot: Snapshot = serde_json::from_str(json).ok()?;
        let (first, rest) = tail.split_first()?;
        let matches = snapshot.version == SNAPSHOT_VERSION
            && snapshot.schema == SCHEMA_VERSION
            && snapshot.state.next_seq == snapshot.records
            && first.seq + 1 == snapshot.records
            && record_hash(first)? == snapshot.last;
        if !matches {
            return None;
        }
        let mut state = snapshot.state;
        for (offset, record) in rest.iter().enumerate() {
            if record.seq != snapshot.records + offset as u64 {
                return None;
            }
            state.apply(record);
        }
        Some(Agent::from_state(state))
    }
}
