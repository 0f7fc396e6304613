//! The driver's side of storage: writing batches (behind the append still in flight), taking
//! note of what the store committed, and telling the observer of stored records, off the
//! step's path.

use std::task::Poll;

use futures::pin_mut;

use super::super::commit::{settled, PendingCommit};
use super::super::notice::Notice;
use super::super::resume::{write_snapshot, SnapshotDue};
use super::Driver;
use crate::core::Record;
use crate::ports::{Durability, EventStore, PortSet, StoreError};

impl<P: PortSet> Driver<P> {
    /// Whether unsaved records wait for the next task to be written (`write_soon`).
    pub(super) fn writes_soon(&self) -> bool {
        self.commit.is_none() && !self.unsaved.is_empty() && !self.storage_failed
    }

    /// Starts the relaxed append of the unsaved records that only reversible work follows,
    /// unless one is in flight (they go with the next). Called a task after they were made,
    /// so a strict batch made in the same task takes them along instead: one write, not two.
    pub(super) fn write_soon(&mut self) {
        if self.writes_soon() {
            let records = std::mem::take(&mut self.unsaved);
            let store = self.store.clone();
            self.commit = Some(PendingCommit::start(store, self.session.clone(), records));
        }
    }

    /// Writes what waits to be written soon and waits for the append in flight, if any; false
    /// if it failed (the driver is paused).
    pub(super) async fn settle(&mut self) -> bool {
        self.write_soon();
        if self.commit.is_none() {
            return true;
        }
        let result = settled(&mut self.commit).await;
        let records = self.commit.take().map(|p| p.records).unwrap_or_default();
        self.committed(records, result).await
    }

    /// Writes the unsaved records behind the append in flight, if any, without waiting for it
    /// first: the store applies appends in the order they were first polled, and fails a later
    /// one that no longer continues the log, so both are awaited here (the earlier first) and
    /// nothing that follows runs before both are stored. False if either failed (the driver is
    /// paused, every record not stored queued again in order).
    ///
    /// While they commit, the tool calls waiting on them start in the tool host, to run the
    /// moment the batch is stored (`start_calls_when_stored`); on failure they are dropped,
    /// never having run, and wait again.
    pub(super) async fn append_behind_pending(&mut self, durability: Durability) -> bool {
        let batch = std::mem::take(&mut self.unsaved);
        let last = batch.last().map(|record| record.seq);
        let store = self.store.clone();
        let session = self.session.clone();
        let later = async move {
            let result = store.append(&session, &batch, durability).await;
            (batch, result)
        };
        let mut pending = self.commit.take();
        let behind = pending.is_some();
        let mut started = Vec::new();
        let (earlier, (batch, result)) = {
            let appends = async {
                if behind {
                    // `join` polls the earlier append first, so it is issued before this one.
                    let (earlier, later) = futures::join!(settled(&mut pending), later);
                    (Some(earlier), later)
                } else {
                    (None, later.await)
                }
            };
            pin_mut!(appends);
            // The first poll hands the writes to the store. While they commit the page hears
            // of the records stored before them: work off the step's path, done in its wait.
            match futures::poll!(appends.as_mut()) {
                Poll::Ready(out) => out,
                Poll::Pending => {
                    if let Some(last) = last {
                        started = self.start_calls_when_stored(last).await;
                    }
                    self.announce_pending();
                    appends.await
                }
            }
        };
        if let Some(earlier) = earlier {
            let records = pending.take().map(|p| p.records).unwrap_or_default();
            if earlier.is_err() {
                // Queued again behind the earlier records (`committed` puts those in front).
                self.unsaved = batch;
                self.call_again_later(started);
                let _ = self.committed(records, earlier).await;
                return false;
            }
            self.committed(records, earlier).await;
        }
        match result {
            Ok(()) => {
                self.stored(batch).await;
                if self.storage_failed {
                    self.storage_failed = false;
                    self.announce_pending();
                    (self.observer)(Notice::StorageRecovered);
                }
                true
            }
            Err(error) => {
                self.unsaved = batch;
                self.call_again_later(started);
                self.storage_failed = true;
                self.announce_pending();
                (self.observer)(Notice::StorageFailed(error.to_string()));
                false
            }
        }
    }

    /// Announces committed records, or queues them again in front of the unsaved ones and
    /// pauses when the append failed. Returns whether it succeeded.
    pub(super) async fn committed(
        &mut self,
        records: Vec<Record>,
        result: Result<(), StoreError>,
    ) -> bool {
        match result {
            Ok(()) => {
                self.stored(records).await;
                true
            }
            Err(error) => {
                let mut queued = records;
                queued.append(&mut self.unsaved);
                self.unsaved = queued;
                self.storage_failed = true;
                self.announce_pending();
                (self.observer)(Notice::StorageFailed(error.to_string()));
                false
            }
        }
    }

    /// Takes note of records the store has committed: the fold snapshot is refreshed now, while
    /// the agent is still at the last of them, when the log grew enough; at the end of a run,
    /// once its outcome is out (`write_snapshot_at_rest`). The observer hears of the records
    /// soon after (`announce_pending`).
    pub(super) async fn stored(&mut self, records: Vec<Record>) {
        if let Some(last) = records.last() {
            match SnapshotDue::of(&self.agent, last, self.snapshot) {
                SnapshotDue::Now => {
                    self.snapshot_at_rest = None;
                    self.snapshot = write_snapshot(
                        &*self.store,
                        &self.session,
                        &self.agent,
                        last,
                        self.snapshot,
                    )
                    .await;
                }
                SnapshotDue::AtRest => self.snapshot_at_rest = Some(last.clone()),
                SnapshotDue::No => {}
            }
        }
        self.unannounced.extend(records);
    }

    /// Writes the snapshot a finished run left due, in a task after the one that told the page
    /// its outcome, or as the driver stops. Nothing is written if the agent has moved on
    /// meanwhile (the next run's end will see to it).
    pub(super) async fn write_snapshot_at_rest(&mut self) {
        if let Some(last) = self.snapshot_at_rest.take() {
            self.snapshot = write_snapshot(
                &*self.store,
                &self.session,
                &self.agent,
                &last,
                self.snapshot,
            )
            .await;
        }
    }

    /// Tells the observer of every stored record it has not heard of, in order. Called before
    /// any other notice, so the page hears of records before what follows from them.
    pub(super) fn announce_pending(&mut self) {
        for record in std::mem::take(&mut self.unannounced) {
            (self.observer)(Notice::Persisted(record));
        }
    }
}
