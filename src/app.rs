//! Composition root: the one place concrete adapters are built (the IndexedDB store, and the
//! tab's session platform with its model clients, tool host, locks and clock) and handed out:
//! to the JS API, and to the playground through Leptos context.

use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::runtime::SessionService;
use crate::ui::{ModelProgressFeed, Playground, ProgressContext, ServiceContext};
use crate::view::DownloadProgress;
use crate::web::idb_store::IdbStore;
use crate::web::local_shared::on_progress;
use crate::web::session_handle::TabPlatform;

thread_local! {
    static SERVICE: Rc<SessionService> = {
        let store = Rc::new(IdbStore::default());
        let platform = Rc::new(TabPlatform::new(store.clone()));
        Rc::new(SessionService::new(store, platform))
    };
}

/// The page's session service (built on first use, once).
pub fn session_service() -> Rc<SessionService> {
    SERVICE.with(Rc::clone)
}

/// Provides the session service and the model's download progress to the components below
/// (call inside the mount closure).
pub fn provide_services() {
    let service: ServiceContext = StoredValue::new_local(session_service());
    provide_context(service);
    let progress: ModelProgressFeed = Rc::new(|listener| {
        on_progress(Rc::new(move |p| {
            listener(DownloadProgress {
                phase: p.phase.clone(),
                loaded: p.loaded,
                total: p.total,
                from_cache: p.from_cache,
            })
        }))
    });
    let progress: ProgressContext = StoredValue::new_local(progress);
    provide_context(progress);
}

/// Hands the session service to the JS API and mounts the playground into
/// `#tabloop-playground` when the page has one. Pages that embed tabloop only for its API have
/// none, and get no UI.
pub fn start() {
    crate::web::api::install(session_service());
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("tabloop-playground"))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(root) = root {
        leptos::mount::mount_to(root, || {
            provide_services();
            view! { <Playground/> }
        })
        .forget();
    }
}
