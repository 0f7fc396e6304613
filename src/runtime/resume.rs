//! Opening a session's agent fast: from its fold snapshot plus the records after it when the
//! store keeps a matching one, else by replaying the whole log; and keeping the snapshot fresh
//! as the log grows.

use crate::core::{Agent, AgentConfig, Millis, SNAPSHOT_EVERY};
use crate::ports::{EventStore, StoredSnapshot};

use super::driver::DriverError;

/// The agent of `session`: a new one with `config` when the log is empty, else the stored log
/// folded (from its snapshot when it matches) and resumed at `now`. Also returns how many
/// records the stored snapshot covers (0 when none matched).
pub async fn open_agent<S: EventStore>(
    store: &S,
    session: &str,
    config: AgentConfig,
    now: Millis,
) -> Result<(Agent, u64), DriverError> {
    // A snapshot the store cannot read is as good as none.
    if let Ok(Some(snapshot)) = store.snapshot(session).await {
        if let Some(from) = snapshot.records.checked_sub(1) {
            let tail = store.load_range(session, from, None).await?;
            if let Some(mut agent) = Agent::from_snapshot(&snapshot.json, &tail) {
                agent.resume(now);
                return Ok((agent, snapshot.records));
            }
        }
    }
    let log = store.load(session).await?;
    if log.is_empty() {
        return Ok((Agent::new(session, config, now), 0));
    }
    let mut agent = Agent::replay(&log)?;
    agent.resume(now);
    Ok((agent, 0))
}

/// Writes a fresh snapshot of `agent` when its log grew by [`SNAPSHOT_EVERY`] records since
/// `covered`; `last` is the last persisted record. Returns the records the stored snapshot now
/// covers. A failed write changes nothing: the snapshot is derived data.
pub async fn refresh_snapshot<S: EventStore>(
    store: &S,
    session: &str,
    agent: &Agent,
    last: &crate::core::Record,
    covered: u64,
) -> u64 {
    let records = last.seq + 1;
    if records < covered + SNAPSHOT_EVERY {
        return covered;
    }
    let Some(json) = agent.snapshot_json(last) else {
        return covered;
    };
    match store
        .save_snapshot(session, StoredSnapshot { records, json })
        .await
    {
        Ok(()) => records,
        Err(_) => covered,
    }
}
