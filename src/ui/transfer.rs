//! Moving logs in and out of the store: export a session as a JSON-lines download, import one
//! from a file (refusing a log from a newer build), and fork a session at a step.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::actions::show_session;
use super::startup::refresh_sessions;
use super::state::AppState;
use crate::core::{parse_jsonl, to_jsonl, Agent};
use crate::ports::{Durability, EventStore};
use crate::web::js_error::JsFailure;
use crate::web::session_handle::{new_session_id, shared_store};
use crate::web::timer::sleep;

fn js(value: JsValue) -> String {
    JsFailure::from_js(&value).message
}

/// Downloads the session on screen as `<session>.jsonl`.
pub fn export(app: AppState) {
    let Some(session) = app.shown.id.get_untracked() else {
        return;
    };
    spawn_local(async move {
        let saved = match shared_store().load(&session).await {
            Ok(records) => download(&format!("{session}.jsonl"), &to_jsonl(&records)).await,
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = saved {
            app.fail(format!("Export failed: {e}"));
        }
    });
}

/// Hands `text` to the browser as a file download through a Blob URL.
async fn download(name: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/x-ndjson");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(js)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let link = document.create_element("a").map_err(js)?;
    link.set_attribute("href", &url).map_err(js)?;
    link.set_attribute("download", name).map_err(js)?;
    link.dyn_into::<web_sys::HtmlElement>()
        .map_err(|_| "cannot click the download link")?
        .click();
    // Give the browser time to start the download before the URL goes away.
    sleep(10_000).await;
    web_sys::Url::revoke_object_url(&url).map_err(js)
}

/// Imports a session from a JSON-lines file and shows it.
pub fn import(app: AppState, file: web_sys::File) {
    app.error.set(None);
    spawn_local(async move {
        match import_file(file).await {
            Ok(session) => {
                refresh_sessions(app);
                show_session(app, session);
            }
            Err(e) => app.fail(format!("Import failed: {e}")),
        }
    });
}

async fn import_file(file: web_sys::File) -> Result<String, String> {
    let text = JsFuture::from(file.text())
        .await
        .map_err(js)?
        .as_string()
        .ok_or("the file is not text")?;
    let records = parse_jsonl(&text).map_err(|e| e.to_string())?;
    let agent = Agent::replay(&records).map_err(|e| e.to_string())?;
    let session = agent.state().session.clone();
    let store = shared_store();
    let existing = store.load(&session).await.map_err(|e| e.to_string())?;
    if !existing.is_empty() {
        return Err(format!("a session named {session} already exists"));
    }
    store
        .append(&session, &records, Durability::Strict)
        .await
        .map_err(|e| e.to_string())?;
    Ok(session)
}

/// Copies the session on screen up to the end of `step` of run `run` into a new session and
/// shows it (a run cut in the middle goes on from there).
pub fn fork(app: AppState, run: u32, step: u32) {
    let Some(session) = app.shown.id.get_untracked() else {
        return;
    };
    spawn_local(async move {
        match fork_session(&session, run, step).await {
            Ok(forked) => {
                refresh_sessions(app);
                show_session(app, forked);
            }
            Err(e) => app.fail(format!("Fork failed: {e}")),
        }
    });
}

async fn fork_session(session: &str, run: u32, step: u32) -> Result<String, String> {
    let store = shared_store();
    let records = store.load(session).await.map_err(|e| e.to_string())?;
    let forked_id = new_session_id();
    let forked = Agent::fork_run(&records, run, step, &forked_id).map_err(|e| e.to_string())?;
    store
        .append(&forked_id, &forked, Durability::Strict)
        .await
        .map_err(|e| e.to_string())?;
    Ok(forked_id)
}
