//! What the IndexedDB store keeps of the sessions index between appends: the digest each
//! session's row was last given (the base the next append folds onto) and the index an append
//! hands to the JS side. Plain data, in a file of its own so that the store, which holds the
//! cache, and the index's methods, which fold it, both read it without needing each other.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::core::SessionDigest;

/// The digests a page last wrote or is writing, per session: the base the next append folds
/// onto. Derived data, so two stores over the same database compare equal whatever they cached.
/// Also the order appends are issued in: an append folds its digest and reaches the JS store in
/// its turn, so one issued behind another still in flight folds over that one's digest.
#[derive(Debug, Clone, Default)]
pub struct DigestCache {
    digests: Rc<RefCell<HashMap<String, SessionDigest>>>,
    issue: Rc<futures::lock::Mutex<()>>,
}

impl PartialEq for DigestCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for DigestCache {}

impl DigestCache {
    /// Waits for this append's turn to fold its digest and reach the JS store: appends take
    /// turns in the order they first ask (held until the JS append has been called).
    pub async fn turn(&self) -> futures::lock::MutexGuard<'_, ()> {
        self.issue.lock().await
    }

    /// Remembers the digest of `session` as stored.
    pub fn remember(&self, session: &str, digest: SessionDigest) {
        self.digests
            .borrow_mut()
            .insert(session.to_string(), digest);
    }

    /// Forgets `session` (its stored digest is unknown now).
    pub fn forget(&self, session: &str) {
        self.digests.borrow_mut().remove(session);
    }

    /// Whether the cached digest of `session` has folded record `seq` already.
    pub fn covers(&self, session: &str, seq: u64) -> bool {
        self.digests
            .borrow()
            .get(session)
            .is_some_and(|digest| seq < digest.records)
    }

    /// The cached digest of `session`, if one is known, taken out of the cache: the append
    /// that folds onto it remembers the folded one in its place before it next yields.
    pub fn take(&self, session: &str) -> Option<SessionDigest> {
        self.digests.borrow_mut().remove(session)
    }
}

/// The index an append hands to the JS `append`.
#[derive(Debug)]
pub struct IndexArg {
    /// Records the base digest had folded.
    pub base: u64,
    /// The new digest as JSON.
    pub digest: String,
    /// Its schema.
    pub schema: u32,
    /// The new digest.
    pub folded: SessionDigest,
}
