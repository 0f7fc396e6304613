//! [`TabPlatform`]: how this tab runs a live session, and the one place a session's adapters are
//! named: the model client built from the provider options ([`AnyModel`]), the session's Web
//! Lock, the JS tool host with the model as its MCP sampler, the browser clock, and the
//! visibility and network watches. The driver task starts once this tab holds the lock; until
//! then the tab follows the writer tab (`web::session_follow`).

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use crate::ports::{HostToolSpec, Platform, PlatformError};
use crate::runtime::{drive, Launch, SessionEvent};
use crate::web::any_model::AnyModel;
use crate::web::custom_client;
use crate::web::idb_store::IdbStore;
use crate::web::locks::SessionLock;
use crate::web::network::OnlineWatch;
use crate::web::sampler::Sampler;
use crate::web::session_follow::{announce_writes, catch_up, follow, log_length, new_session_id};
use crate::web::timer::BrowserClock;
use crate::web::tool_host::{registered_tools, JsToolHost};
use crate::web::visibility::VisibilityWatch;

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

impl Platform<Launch> for TabPlatform {
    fn new_session_id(&self) -> String {
        new_session_id()
    }

    fn registered_tools(&self) -> LocalBoxFuture<'_, Result<Vec<HostToolSpec>, PlatformError>> {
        Box::pin(async {
            registered_tools()
                .await
                .map_err(|e| PlatformError::Tools(e.to_string()))
        })
    }

    fn launch(&self, launch: Launch) -> LocalBoxFuture<'_, Result<(), PlatformError>> {
        let store = self.store.clone();
        Box::pin(async move {
            let live = launch.live.clone();
            let session = live.session.clone();
            // Taken before anything can fail, so a page's function never outlives its launch.
            let complete = custom_client::take_offered(&session);
            let first_lock = SessionLock::try_acquire(&session)
                .await
                .map_err(|e| PlatformError::Lock(e.0))?;
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
