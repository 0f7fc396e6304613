//! Opening a session's agent fast: from its fold snapshot plus the records after it when the
//! store keeps a matching one, else by replaying the whole log; and keeping the snapshot fresh
//! as the log grows.

use crate::core::{Agent, AgentConfig, Millis, Record, RunState, SNAPSHOT_AT_REST, SNAPSHOT_EVERY};
use crate::ports::EventStore;

use super::driver_error::DriverError;

/// What the stored snapshot of a session is known to hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SnapshotMark {
    /// Records it covers (0: none stored, or none that matched).
    pub records: u64,
    /// Transcript parts stored under it, which the next snapshot does not write again.
    pub parts: u64,
}

/// The agent of `session`: a new one with `config` when the log is empty, else the stored log
/// folded (from its snapshot when it matches) and resumed at `now`. Also returns what the stored
/// snapshot holds (nothing when none matched).
pub async fn open_agent<S: EventStore>(
    store: &S,
    session: &str,
    config: AgentConfig,
    now: Millis,
) -> Result<(Agent, SnapshotMark), DriverError> {
    // A snapshot the store cannot read is as good as none.
    if let Ok(Some(snapshot)) = store.snapshot(session).await {
        if let Some(from) = snapshot.records.checked_sub(1) {
            let tail = store.load_range(session, from, None).await?;
            if let Some((mut agent, parts)) =
                Agent::from_snapshot_parts(&snapshot.head, &snapshot.parts, &tail)
            {
                agent.resume(now);
                let mark = SnapshotMark {
                    records: snapshot.records,
                    parts,
                };
                return Ok((agent, mark));
            }
        }
    }
    let log = store.load(session).await?;
    if log.is_empty() {
        return Ok((Agent::new(session, config, now), SnapshotMark::default()));
    }
    let mut agent = Agent::replay(&log)?;
    agent.resume(now);
    Ok((agent, SnapshotMark::default()))
}

/// When a fresh snapshot of `agent` is due, with `last` its last persisted record and `mark`
/// what the stored snapshot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotDue {
    /// Not yet.
    No,
    /// Now: the log grew by [`SNAPSHOT_EVERY`] records, which a step pays for.
    Now,
    /// Once the run's outcome is out: its run finished and the log grew by
    /// [`SNAPSHOT_AT_REST`], so the next open reads few records. Only the next open gains, so
    /// the run's end does not wait for it.
    AtRest,
}

impl SnapshotDue {
    /// What is due once `last` is stored, `mark` being what the stored snapshot holds.
    pub fn of(agent: &Agent, last: &Record, mark: SnapshotMark) -> Self {
        let grown = (last.seq + 1).saturating_sub(mark.records);
        if grown >= SNAPSHOT_EVERY {
            Self::Now
        } else if grown >= SNAPSHOT_AT_REST && agent.run().is_some_and(RunState::finished) {
            Self::AtRest
        } else {
            Self::No
        }
    }
}

/// Writes a fresh snapshot of `agent`, which must be at `last`, its last persisted record.
/// Returns what the stored snapshot now holds. A failed write changes nothing: the snapshot is
/// derived data.
pub async fn write_snapshot<S: EventStore>(
    store: &S,
    session: &str,
    agent: &Agent,
    last: &Record,
    mark: SnapshotMark,
) -> SnapshotMark {
    let Some(write) = agent.snapshot(last, mark.parts) else {
        return mark;
    };
    let written = SnapshotMark {
        records: write.records,
        parts: write.first_part + write.parts.len() as u64,
    };
    match store.save_snapshot(session, write).await {
        Ok(()) => written,
        Err(_) => mark,
    }
}
