//! Fold snapshots: an agent's folded state after its first N records, so a long session
//! resumes by folding only the records after them. A snapshot is derived data: versioned, bound
//! to the record it ends with, and thrown away (the log is replayed in full) whenever it does
//! not match the log it claims to summarise.
//!
//! The transcript, which grows with every step, is not rewritten with each snapshot: its
//! messages go out in parts of [`PART_MESSAGES`], each written once, and the snapshot's head
//! holds the rest of the state with only the messages after its last part. So what a session
//! writes for snapshots stays proportional to what it adds, however long it gets.

use serde::{Deserialize, Serialize};

use super::agent::Agent;
use super::compact_messages::Part;
use super::fingerprint::sha256_hex;
use super::log::{Record, SCHEMA_VERSION};
use super::snapshot_migrate;
use super::state::AgentState;
use crate::protocol::json_text;

/// Version of the snapshot layout (the folded state's shape). Bump it whenever a type inside
/// [`AgentState`] changes; older snapshots are then ignored and rebuilt, except layouts 4 and 5,
/// which are read through their migration (5: a run's pause, stop-hook question and resend in
/// flight live in its phase; 6: so does whether a step is open).
pub const SNAPSHOT_VERSION: u32 = 6;

/// How many records a session grows by between two snapshots.
pub const SNAPSHOT_EVERY: u64 = 500;

/// How many records a session must have grown by since its last snapshot for the end of a run
/// to write one. Reading a record is most of opening a session, so a finished session (what a
/// person most often reopens) then opens from its snapshot and at most this many records,
/// not up to [`SNAPSHOT_EVERY`].
pub const SNAPSHOT_AT_REST: u64 = 50;

/// Transcript messages per snapshot part.
pub const PART_MESSAGES: usize = 256;

/// The head of a snapshot: the folded state minus the messages kept in parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Head {
    /// [`SNAPSHOT_VERSION`] of the writer.
    version: u32,
    /// Event schema of the writer.
    schema: u32,
    /// Records folded.
    records: u64,
    /// Hash of the last folded record, which the log must still hold.
    last: String,
    /// Parts holding the transcript's first `parts × PART_MESSAGES` messages.
    parts: u64,
    /// The folded state; its transcript starts after the parts.
    state: AgentState,
}

/// A snapshot to store: its head, replacing the last one, and the parts the store lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotWrite {
    /// Records folded.
    pub records: u64,
    /// The head, serialised.
    pub head: String,
    /// Index of the first part in `parts` (the parts before it are already stored).
    pub first_part: u64,
    /// New parts, serialised, in order.
    pub parts: Vec<String>,
}

fn record_hash(record: &Record) -> Option<String> {
    Some(sha256_hex(&[&json_text(record)]))
}

impl Agent {
    /// This agent's state as a snapshot bound to `last`, the record it has folded last, given
    /// that the store already holds the first `stored_parts` parts of this session's transcript
    /// (written by earlier snapshots of the same log). `None` when `last` is not that record.
    pub fn snapshot(&self, last: &Record, stored_parts: u64) -> Option<SnapshotWrite> {
        if last.seq + 1 != self.state.next_seq {
            return None;
        }
        let messages = self.state.transcript.all();
        let parts = (messages.len() / PART_MESSAGES) as u64;
        let first_part = stored_parts.min(parts);
        let new_parts = messages
            [first_part as usize * PART_MESSAGES..parts as usize * PART_MESSAGES]
            .chunks(PART_MESSAGES)
            .map(|part| json_text(&Part(part.to_vec())))
            .collect::<Vec<_>>();
        let transcript = self
            .state
            .transcript
            .without_first(parts as usize * PART_MESSAGES);
        let head = Head {
            version: SNAPSHOT_VERSION,
            schema: SCHEMA_VERSION,
            records: self.state.next_seq,
            last: record_hash(last)?,
            parts,
            state: self.state.with_transcript(transcript),
        };
        Some(SnapshotWrite {
            records: self.state.next_seq,
            head: json_text(&head),
            first_part,
            parts: new_parts,
        })
    }

    /// An agent from a snapshot head, the session's stored parts (from the first; extra ones
    /// are ignored) and the records from its last folded one on: the same agent
    /// [`Agent::replay`] would build from the whole log. `None` when the snapshot is of another
    /// version, lacks a part, does not end with `tail`'s first record, or the tail has a gap:
    /// then replay the whole log.
    pub fn from_snapshot(head: &str, parts: &[String], tail: &[Record]) -> Option<Agent> {
        Self::from_snapshot_parts(head, parts, tail).map(|(agent, _)| agent)
    }

    /// [`Agent::from_snapshot`], with the number of parts the head stands on (the parts the
    /// store is known to hold, which the next snapshot does not write again).
    pub fn from_snapshot_parts(
        head_text: &str,
        parts: &[String],
        tail: &[Record],
    ) -> Option<(Agent, u64)> {
        let mut head: Head = serde_json::from_str(head_text).ok()?;
        if snapshot_migrate::reads(head.version) {
            // Read back from text, like the current layout: a `from_value` here would build a
            // second reader of the whole head into the wasm (45 KB gzipped) for a path taken
            // once per session that resumes from an older layout.
            let migrated = snapshot_migrate::migrate(head_text, SNAPSHOT_VERSION)?;
            head = serde_json::from_str(&migrated.to_string()).ok()?;
        }
        let (first, rest) = tail.split_first()?;
        let matches = head.version == SNAPSHOT_VERSION
            && head.schema == SCHEMA_VERSION
            && head.state.next_seq == head.records
            && first.seq + 1 == head.records
            && parts.len() as u64 >= head.parts
            && record_hash(first)? == head.last;
        if !matches {
            return None;
        }
        let mut earlier = Vec::with_capacity(head.parts as usize * PART_MESSAGES);
        for part in &parts[..head.parts as usize] {
            let Part(messages) = serde_json::from_str(part).ok()?;
            if messages.len() != PART_MESSAGES {
                return None;
            }
            earlier.extend(messages);
        }
        let mut state = head.state;
        state.transcript.restore_first(earlier);
        for (offset, record) in rest.iter().enumerate() {
            if record.seq != head.records + offset as u64 {
                return None;
            }
            state.apply(record);
        }
        Some((Agent::from_state(state), head.parts))
    }
}
