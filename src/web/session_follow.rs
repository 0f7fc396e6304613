//! How a tab follows a session another tab writes: the writer announces each record it writes
//! (over the log channel), a follower reads the new records from the store and tells its
//! listeners, and catches up once more when it takes over. Also fresh session ids.

use std::cell::Cell;
use std::rc::Rc;

use super::idb_store::IdbStore;
use super::log_channel;
use crate::ports::EventStore;
use crate::runtime::{LiveSession, Notice, SessionEvent};

/// A fresh session id.
pub fn new_session_id() -> String {
    let random = (js_sys::Math::random() * 1e9) as u64;
    format!("s-{}-{random:09}", js_sys::Date::now() as u64)
}

/// Tells other tabs about every record this tab writes for the session.
pub fn announce_writes(live: &Rc<LiveSession>) {
    let writer = Rc::downgrade(live);
    live.subscribe(Rc::new(move |event: &SessionEvent| {
        let Some(live) = writer.upgrade() else {
            return;
        };
        if let SessionEvent::Notice(notice) = event {
            if let (Notice::Persisted(record), true) = (notice.as_ref(), live.is_writer()) {
                log_channel::announce(&live.session, record.seq);
            }
        }
    }));
}

/// Records in a stored session's log (0 when unknown).
pub async fn log_length(store: &IdbStore, session: &str) -> u64 {
    store.load(session).await.map_or(0, |r| r.len() as u64)
}

/// While another tab writes: on each "log advanced" hint, read the new records from the store
/// and announce them, so a follower tab shows the run as it goes.
pub fn follow(live: &Rc<LiveSession>, store: &Rc<IdbStore>, seen: Rc<Cell<u64>>) {
    let (live, store) = (live.clone(), store.clone());
    log_channel::listen(Rc::new(move |hint| {
        if hint.session != live.session || live.is_writer() || hint.seq < seen.get() {
            return;
        }
        let (live, store, seen) = (live.clone(), store.clone(), seen.clone());
        wasm_bindgen_futures::spawn_local(async move { catch_up(&live, &store, &seen).await });
    }));
}

/// Announces the stored records from `seen` on (each exactly once).
pub async fn catch_up(live: &LiveSession, store: &IdbStore, seen: &Cell<u64>) {
    let Ok(records) = store.load(&live.session).await else {
        return;
    };
    for record in records.into_iter().filter(|r| r.seq >= seen.get()) {
        seen.set(record.seq + 1);
        live.emit(&SessionEvent::Notice(Box::new(Notice::Persisted(record))));
    }
}
