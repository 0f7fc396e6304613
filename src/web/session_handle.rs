//! How this tab runs a live session: fresh ids, the tools the page registered, and a driver
//! task that starts once this tab holds the session's Web Lock. Until then the tab follows the
//! writer tab, announcing the records it writes.

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::any_model::AnyModel;
use super::custom_client;
use super::idb_store::IdbStore;
use super::locks::SessionLock;
use super::log_channel;
use super::network::OnlineWatch;
use super::sampler::Sampler;
use super::timer::BrowserClock;
use super::tool_host::{registered_tools, JsToolHost};
use super::visibility::VisibilityWatch;
use crate::ports::EventStore;
use crate::runtime::options::HostToolSpec;
use crate::runtime::{drive, Launch, LiveSession, Notice, Platform, SessionEvent};

/// A fresh session id.
pub fn new_session_id() -> String {
    let random = (js_sys::Math::random() * 1e9) as u64;
    format!("s-{}-{random:09}", js_sys::Date::now() as u64)
}

/// The browser platform of the session service.
pub struct TabPlatform {
    store: Rc<IdbStore>,
}

impl TabPlatform {
    /// Runs sessions over `store`.
    pub fn new(store: Rc<IdbStore>) -> Self {
        Self { store }
    }
}

impl Platform for TabPlatform {
    fn new_session_id(&self) -> String {
        new_session_id()
    }

    fn registered_tools(&self) -> LocalBoxFuture<'_, Result<Vec<HostToolSpec>, String>> {
        Box::pin(async { registered_tools().await.map_err(|e| e.to_string()) })
    }

    fn launch(&self, launch: Launch) -> LocalBoxFuture<'_, Result<(), String>> {
        let store = self.store.clone();
        Box::pin(async move {
            let live = launch.live.clone();
            let session = live.session.clone();
            // Taken before anything can fail, so a page's function never outlives its launch.
            let complete = custom_client::take_offered(&session);
            let first_lock = SessionLock::try_acquire(&session).await.map_err(|e| e.0)?;
            let model = Rc::new(AnyModel::from_options(&launch.provider, complete)?);
            if first_lock.is_some() {
                live.holds_lock();
            }
            announce_writes(&live);
            wasm_bindgen_futures::spawn_local(async move {
                let lock = match first_lock {
                    Some(lock) => lock,
                    None => {
                        live.emit(&SessionEvent::Follower);
                        let seen = Rc::new(Cell::new(log_length(&store, &session).await));
                        follow(&live, &store, seen.clone());
                        let lock = match SessionLock::acquire_when_free(&session).await {
                            Ok(lock) => lock,
                            Err(e) => return live.fail(e.0),
                        };
                        // Whatever the old writer wrote last is announced before this tab writes.
                        catch_up(&live, &store, &seen).await;
                        lock
                    }
                };
                live.became_writer();
                // Hidden-tab time is not charged; the watch ends with the driver.
                let visibility = VisibilityWatch::start(&live);
                // A run paused while offline goes on when the network returns.
                let online = OnlineWatch::start(&live);
                let gates = store.commit_gates();
                let name = launch.provider.model.clone().unwrap_or_default();
                let tools = Rc::new(
                    JsToolHost::new(&session, launch.allow_hosts.clone(), gates)
                        .with_sampler(Sampler::new(model.clone(), name)),
                );
                drive(launch, model, store, tools, Rc::new(BrowserClock)).await;
                drop((visibility, online));
                lock.release().await;
            });
            Ok(())
        })
    }
}

/// Tells other tabs about every record this tab writes for the session.
fn announce_writes(live: &Rc<LiveSession>) {
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
async fn log_length(store: &IdbStore, session: &str) -> u64 {
    store.load(session).await.map_or(0, |r| r.len() as u64)
}

/// While another tab writes: on each "log advanced" hint, read the new records from the store
/// and announce them, so a follower tab shows the run as it goes.
fn follow(live: &Rc<LiveSession>, store: &Rc<IdbStore>, seen: Rc<Cell<u64>>) {
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
async fn catch_up(live: &LiveSession, store: &IdbStore, seen: &Cell<u64>) {
    let Ok(records) = store.load(&live.session).await else {
        return;
    };
    for record in records.into_iter().filter(|r| r.seq >= seen.get()) {
        seen.set(record.seq + 1);
        live.emit(&SessionEvent::Notice(Box::new(Notice::Persisted(record))));
    }
}
