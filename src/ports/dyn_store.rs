//! An [`EventStore`] behind a pointer: the session service holds its store as `Rc<dyn DynStore>`
//! so neither it nor the UI that holds the service names a concrete store.

use futures::future::LocalBoxFuture;

use super::{Durability, EventStore, IndexedSession, SessionSummary, StoreError};
use crate::core::{Record, SnapshotWrite};

/// An [`EventStore`] behind a pointer, so the service names no concrete store.
pub trait DynStore {
    /// See [`EventStore::append`].
    fn append<'a>(
        &'a self,
        session: &'a str,
        records: &'a [Record],
        durability: Durability,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>>;
    /// See [`EventStore::load`].
    fn load<'a>(&'a self, session: &'a str) -> LocalBoxFuture<'a, Result<Vec<Record>, StoreError>>;
    /// See [`EventStore::sessions`].
    fn sessions(&self) -> LocalBoxFuture<'_, Result<Vec<SessionSummary>, StoreError>>;
    /// See [`EventStore::delete`].
    fn delete<'a>(&'a self, session: &'a str) -> LocalBoxFuture<'a, Result<(), StoreError>>;
    /// See [`EventStore::load_range`].
    fn load_range<'a>(
        &'a self,
        session: &'a str,
        from: u64,
        to: Option<u64>,
    ) -> LocalBoxFuture<'a, Result<Vec<Record>, StoreError>>;
    /// See [`EventStore::index`].
    fn index(&self) -> LocalBoxFuture<'_, Result<Vec<IndexedSession>, StoreError>>;
    /// See [`EventStore::rename`].
    fn rename<'a>(
        &'a self,
        session: &'a str,
        name: Option<String>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>>;
    /// See [`EventStore::save_snapshot`].
    fn save_snapshot<'a>(
        &'a self,
        session: &'a str,
        snapshot: SnapshotWrite,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>>;
}

impl<S: EventStore> DynStore for S {
    fn append<'a>(
        &'a self,
        session: &'a str,
        records: &'a [Record],
        durability: Durability,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        Box::pin(EventStore::append(self, session, records, durability))
    }
    fn load<'a>(&'a self, session: &'a str) -> LocalBoxFuture<'a, Result<Vec<Record>, StoreError>> {
        Box::pin(EventStore::load(self, session))
    }
    fn sessions(&self) -> LocalBoxFuture<'_, Result<Vec<SessionSummary>, StoreError>> {
        Box::pin(EventStore::sessions(self))
    }
    fn delete<'a>(&'a self, session: &'a str) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        Box::pin(EventStore::delete(self, session))
    }
    fn load_range<'a>(
        &'a self,
        session: &'a str,
        from: u64,
        to: Option<u64>,
    ) -> LocalBoxFuture<'a, Result<Vec<Record>, StoreError>> {
        Box::pin(EventStore::load_range(self, session, from, to))
    }
    fn index(&self) -> LocalBoxFuture<'_, Result<Vec<IndexedSession>, StoreError>> {
        Box::pin(EventStore::index(self))
    }
    fn rename<'a>(
        &'a self,
        session: &'a str,
        name: Option<String>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        Box::pin(EventStore::rename(self, session, name))
    }
    fn save_snapshot<'a>(
        &'a self,
        session: &'a str,
        snapshot: SnapshotWrite,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        Box::pin(EventStore::save_snapshot(self, session, snapshot))
    }
}
