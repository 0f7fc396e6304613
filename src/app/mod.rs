//! Composition root: the one place concrete adapters are named and built, and handed out to the
//! JS API and (with the `playground` feature) to the playground through Leptos context:
//! - the IndexedDB event store ([`IdbStore`]) and the tools' file volumes ([`VfsFiles`]), here;
//! - each live session's model client, lock, tool host, sampler, clock and watches, in
//!   [`tab_platform`] (the [`crate::ports::Platform`] the session service runs sessions on);
//! - the browser's model storage for the model list, in [`tab_model_library`].

#[cfg(feature = "playground")]
mod tab_model_library;
mod tab_platform;

use std::rc::Rc;

#[cfg(feature = "playground")]
use leptos::prelude::*;
#[cfg(feature = "playground")]
use wasm_bindgen::JsCast;

use crate::runtime::SessionService;
#[cfg(feature = "playground")]
use crate::ui::{LibraryContext, ModelProgressFeed, Playground, ProgressContext, ServiceContext};
#[cfg(feature = "playground")]
use crate::view::DownloadProgress;

use crate::web::idb_store::IdbStore;
#[cfg(feature = "playground")]
use crate::web::local_shared::on_progress;
use crate::web::vfs_files::VfsFiles;
#[cfg(feature = "playground")]
use tab_model_library::TabModelLibrary;
use tab_platform::TabPlatform;

thread_local! {
    static SERVICE: Rc<SessionService> = {
        let store = Rc::new(IdbStore::default());
        store.warm();
        let platform = Rc::new(TabPlatform::new(store.clone()));
        Rc::new(SessionService::new(store, platform).with_files(Rc::new(VfsFiles)))
    };
}

/// The page's session service (built on first use, once).
pub fn session_service() -> Rc<SessionService> {
    SERVICE.with(Rc::clone)
}

/// Provides the session service and the model's download progress to the components below
/// (call inside the mount closure).
#[cfg(feature = "playground")]
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
                per_second: p.per_second,
                note: p.note.clone(),
            })
        }))
    });
    let progress: ProgressContext = StoredValue::new_local(progress);
    provide_context(progress);
    let library: LibraryContext = StoredValue::new_local(Rc::new(TabModelLibrary));
    provide_context(library);
}

/// Hands the session service to the JS API and, in the playground build, mounts the
/// playground. The library package is built without it and only exports the API.
pub fn start() {
    // The first open waits on the tool registry's modules and the database connection: both
    // start loading now, while the page finishes loading.
    crate::web::tool_host::preload_tools();
    crate::web::api::install(session_service());
    #[cfg(feature = "playground")]
    mount_playground();
}

/// Mounts the playground into `#tabloop-playground` when the page has one. Pages that embed
/// tabloop only for its API have none, and get no UI.
#[cfg(feature = "playground")]
fn mount_playground() {
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
        // A model already in browser storage reads the default prompt prefix while the task is
        // typed (the playground starts on the local model, the one chosen last time).
        let chosen = Some(crate::ui::stored_model_choice()).filter(|url| !url.is_empty());
        leptos::task::spawn_local(async move {
            crate::web::local_warm::warm_cached_model(chosen).await;
        });
    }
}
