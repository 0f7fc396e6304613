//! A store that holds appends as IndexedDB queues them, for the driver's pipelining and
//! next-task tests.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};

use futures::executor::LocalPool;
use pretty_assertions::assert_eq;
use tabloop::core::{Event, Record, StopReason};
use tabloop::ports::{Durability, EventStore, MemoryStore, SessionSummary, StoreError};
use tabloop::runtime::Notice;

use super::Rig;

/// A store that behaves as IndexedDB does with appends issued back to back: each is queued
/// when first polled and applied only when the test releases it, strictly in queue order (a
/// later one does not overtake an earlier one still held). `fail_next` makes the next released
/// append fail as a full disk does.
#[derive(Default)]
pub struct QueuedStore {
    pub inner: MemoryStore,
    pub held: Cell<bool>,
    pub fail_next: Cell<bool>,
    /// Appends issued so far (seq of the first record, count, durability), in queue order.
    pub issued: RefCell<Vec<(u64, usize, Durability)>>,
    /// The records stored each time the driver said the log rests.
    pub rested: RefCell<Vec<usize>>,
    pub queue: RefCell<VecDeque<futures::channel::oneshot::Sender<()>>>,
    /// Appends under way, by their last record's seq: who waits to hear whether it was stored.
    pub under_way: RefCell<HashMap<u64, Vec<futures::channel::oneshot::Sender<bool>>>>,
}

impl QueuedStore {
    /// The log as stored so far.
    pub fn log(&self) -> Vec<Record> {
        futures::executor::block_on(self.inner.load("s")).unwrap()
    }

    /// Releases every held append, one by one, until the run has ended; the log it left.
    pub fn run_out(&self, rig: &mut Rig) -> Vec<Record> {
        while self.release_one(&mut rig.pool) {}
        assert_eq!(rig.outcome(), Some(StopReason::Completed));
        self.log()
    }

    /// Whether the append ending at seq `last` is under way: then a receiver of whether it was
    /// stored.
    pub fn watch(&self, last: u64) -> Option<futures::channel::oneshot::Receiver<bool>> {
        let mut under_way = self.under_way.borrow_mut();
        let waiting = under_way.get_mut(&last)?;
        let (sender, receiver) = futures::channel::oneshot::channel();
        waiting.push(sender);
        Some(receiver)
    }

    /// Releases the oldest held append; false if none is held.
    pub fn release_one(&self, pool: &mut LocalPool) -> bool {
        let next = self.queue.borrow_mut().pop_front();
        let released = next.is_some_and(|gate| gate.send(()).is_ok());
        pool.run_until_stalled();
        released
    }
}

impl EventStore for QueuedStore {
    async fn append(
        &self,
        session: &str,
        records: &[Record],
        durability: Durability,
    ) -> Result<(), StoreError> {
        let first = records.first().map_or(0, |r| r.seq);
        self.issued
            .borrow_mut()
            .push((first, records.len(), durability));
        let last = records.last().map(|r| r.seq);
        if let Some(last) = last {
            self.under_way.borrow_mut().insert(last, Vec::new());
        }
        if self.held.get() {
            let (gate, wait) = futures::channel::oneshot::channel();
            self.queue.borrow_mut().push_back(gate);
            let _ = wait.await;
        }
        let result = if self.fail_next.replace(false) {
            Err(StoreError::QuotaExceeded("test disk full".into()))
        } else {
            self.inner.append(session, records, durability).await
        };
        let waiting = last.and_then(|last| self.under_way.borrow_mut().remove(&last));
        for waiter in waiting.unwrap_or_default() {
            let _ = waiter.send(result.is_ok());
        }
        result
    }
    async fn load(&self, session: &str) -> Result<Vec<Record>, StoreError> {
        self.inner.load(session).await
    }
    async fn sessions(&self) -> Result<Vec<SessionSummary>, StoreError> {
        self.inner.sessions().await
    }
    async fn delete(&self, session: &str) -> Result<(), StoreError> {
        self.inner.delete(session).await
    }
    async fn rest(&self, session: &str) -> Result<(), StoreError> {
        let stored = self.inner.load(session).await?.len();
        self.rested.borrow_mut().push(stored);
        Ok(())
    }
}

/// Where in the log `call`'s ToolCallStarted is, if stored.
pub fn started_at(store: &QueuedStore, call: &str) -> Option<usize> {
    store
        .log()
        .iter()
        .position(|r| matches!(&r.event, Event::ToolCallStarted { call: c, .. } if c == call))
}

/// The records the observer has been told are stored, in the order it heard of them.
pub fn announced(rig: &Rig) -> Vec<Record> {
    rig.notices
        .borrow()
        .iter()
        .filter_map(|n| match n {
            Notice::Persisted(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}
