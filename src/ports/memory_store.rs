//! An in-memory [`EventStore`]: the reference implementation the store contract tests pin down,
//! used natively and as a fallback when browser storage is unavailable.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use super::{Durability, EventStore, IndexedSession, SessionSummary, StoreError, StoredSnapshot};
use crate::core::{Record, SessionDigest, SnapshotWrite};

/// Logs kept in memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    logs: RefCell<BTreeMap<String, Vec<Record>>>,
    /// When set, appends fail with `QuotaExceeded` once a log would exceed this many records.
    quota_records: Cell<Option<usize>>,
    /// Size and durability of every successful append, for tests that check intent records.
    appends: RefCell<Vec<(usize, Durability)>>,
    /// Fold snapshot heads (records folded, head), per session.
    snapshots: RefCell<BTreeMap<String, (u64, String)>>,
    /// Fold snapshot parts, per session and index.
    snapshot_parts: RefCell<BTreeMap<(String, u64), String>>,
    /// Names given to sessions.
    names: RefCell<BTreeMap<String, String>>,
}

impl MemoryStore {
    /// A store that refuses appends beyond `records` per session (to test full disks).
    pub fn with_quota(records: usize) -> Self {
        let store = Self::default();
        store.quota_records.set(Some(records));
        store
    }

    /// Changes the quota (`None`: unlimited), as when a user frees space.
    pub fn set_quota(&self, records: Option<usize>) {
        self.quota_records.set(records);
    }

    /// Size and durability of every successful append so far.
    pub fn appends(&self) -> Vec<(usize, Durability)> {
        self.appends.borrow().clone()
    }
}

impl EventStore for MemoryStore {
    async fn append(
        &self,
        session: &str,
        records: &[Record],
        durability: Durability,
    ) -> Result<(), StoreError> {
        let mut logs = self.logs.borrow_mut();
        let log = logs.get(session).map_or(&[][..], Vec::as_slice);
        let mut fresh = Vec::new();
        for record in records {
            let len = (log.len() + fresh.len()) as u64;
            match log.get(record.seq as usize) {
                Some(existing) if existing == record => continue,
                Some(_) => return Err(StoreError::Conflict { seq: record.seq }),
                None if record.seq == len => fresh.push(record.clone()),
                None => {
                    return Err(StoreError::Gap {
                        expected: len,
                        found: record.seq,
                    })
                }
            }
        }
        if self
            .quota_records
            .get()
            .is_some_and(|q| log.len() + fresh.len() > q)
        {
            return Err(StoreError::QuotaExceeded(
                "memory store quota reached".into(),
            ));
        }
        self.appends.borrow_mut().push((fresh.len(), durability));
        // A refused or empty append leaves no trace, not even an empty session.
        if !fresh.is_empty() {
            logs.entry(session.to_string()).or_default().extend(fresh);
        }
        Ok(())
    }

    async fn load(&self, session: &str) -> Result<Vec<Record>, StoreError> {
        Ok(self.logs.borrow().get(session).cloned().unwrap_or_default())
    }

    async fn sessions(&self) -> Result<Vec<SessionSummary>, StoreError> {
        Ok(self
            .logs
            .borrow()
            .iter()
            .map(|(session, log)| SessionSummary {
                session: session.clone(),
                records: log.len() as u64,
                updated_at: log.last().map_or(0, |r| r.at),
            })
            .collect())
    }

    async fn delete(&self, session: &str) -> Result<(), StoreError> {
        self.logs.borrow_mut().remove(session);
        self.snapshots.borrow_mut().remove(session);
        self.snapshot_parts
            .borrow_mut()
            .retain(|(owner, _), _| owner != session);
        self.names.borrow_mut().remove(session);
        Ok(())
    }

    async fn index(&self) -> Result<Vec<IndexedSession>, StoreError> {
        let names = self.names.borrow();
        Ok(self
            .logs
            .borrow()
            .iter()
            .map(|(session, log)| IndexedSession {
                session: session.clone(),
                updated_at: log.last().map_or(0, |r| r.at),
                digest: SessionDigest::from_records(log),
                name: names.get(session).cloned(),
            })
            .collect())
    }

    async fn rename(&self, session: &str, name: Option<String>) -> Result<(), StoreError> {
        if !self.logs.borrow().contains_key(session) {
            return Err(StoreError::Unavailable(format!(
                "no session named {session}"
            )));
        }
        let mut names = self.names.borrow_mut();
        match name {
            Some(name) => names.insert(session.to_string(), name),
            None => names.remove(session),
        };
        Ok(())
    }

    async fn snapshot(&self, session: &str) -> Result<Option<StoredSnapshot>, StoreError> {
        let Some((records, head)) = self.snapshots.borrow().get(session).cloned() else {
            return Ok(None);
        };
        let stored = self.snapshot_parts.borrow();
        let parts = (0..)
            .map_while(|index| stored.get(&(session.to_string(), index)).cloned())
            .collect();
        Ok(Some(StoredSnapshot {
            records,
            head,
            parts,
        }))
    }

    async fn save_snapshot(
        &self,
        session: &str,
        snapshot: SnapshotWrite,
    ) -> Result<(), StoreError> {
        let mut stored = self.snapshot_parts.borrow_mut();
        for (index, part) in (snapshot.first_part..).zip(snapshot.parts) {
            stored.insert((session.to_string(), index), part);
        }
        self.snapshots
            .borrow_mut()
            .insert(session.to_string(), (snapshot.records, snapshot.head));
        Ok(())
    }
}
