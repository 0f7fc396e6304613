//! The one append the driver has in flight without waiting for it: a batch that only
//! reversible work follows (a model call, an idempotent tool). If the tab dies before it
//! commits, resume simply does that work again; anything irreversible waits for it first.

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use crate::core::Record;
use crate::ports::{Durability, EventStore, StoreError};

/// A relaxed append under way, with the records it writes.
pub(super) struct PendingCommit {
    /// The records being written, announced once the append completes.
    pub(super) records: Vec<Record>,
    future: LocalBoxFuture<'static, Result<(), StoreError>>,
}

impl PendingCommit {
    /// Starts writing `records` to `session` (the store is first touched when polled).
    pub(super) fn start<S: EventStore + 'static>(
        store: Rc<S>,
        session: String,
        records: Vec<Record>,
    ) -> Self {
        let batch = records.clone();
        let future =
            Box::pin(async move { store.append(&session, &batch, Durability::Relaxed).await });
        Self { records, future }
    }
}

/// Resolves when the pending commit in `slot` settles; never while there is none. The commit
/// stays in `slot` (take it to read its records).
pub(super) async fn settled(slot: &mut Option<PendingCommit>) -> Result<(), StoreError> {
    match slot {
        Some(pending) => (&mut pending.future).await,
        None => futures::future::pending().await,
    }
}
