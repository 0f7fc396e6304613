//! Moving logs in and out of the store: export a session as a JSON-lines download, import one
//! from a file (refusing a log from a newer build), and fork a session at a step; and taking
//! the files a file picker was given.

use super::ui_error::UiError;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::actions::show_session;
use super::state::AppState;
use super::stored_sessions::refresh_sessions;

/// The message of a browser error (or its text).
fn js(value: JsValue) -> UiError {
    UiError::Browser(
        value
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| value.as_string())
            .unwrap_or_else(|| "the browser refused".to_string()),
    )
}

/// Resolves after `ms` milliseconds.
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Downloads the session on screen as `<session>.jsonl`.
pub fn export(app: AppState) {
    let Some(session) = app.shown.id.get_untracked() else {
        return;
    };
    spawn_local(async move {
        let exported = match app.service() {
            Ok(service) => service.export(&session).await.map_err(UiError::from),
            Err(e) => Err(e),
        };
        let saved = match exported {
            Ok(jsonl) => {
                download(&format!("{session}.jsonl"), &jsonl, "application/x-ndjson").await
            }
            Err(e) => Err(e),
        };
        if let Err(e) = saved {
            app.fail(format!("Export failed: {e}"));
        }
    });
}

/// Hands `text` to the browser as a file download (of MIME type `mime`) through a Blob URL.
pub(super) async fn download(name: &str, text: &str, mime: &str) -> Result<(), UiError> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(js)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| UiError::Browser("no document".into()))?;
    let link = document.create_element("a").map_err(js)?;
    link.set_attribute("href", &url).map_err(js)?;
    link.set_attribute("download", name).map_err(js)?;
    link.dyn_into::<web_sys::HtmlElement>()
        .map_err(|_| UiError::Browser("cannot click the download link".into()))?
        .click();
    // Give the browser time to start the download before the URL goes away.
    sleep(10_000).await;
    web_sys::Url::revoke_object_url(&url).map_err(js)
}

/// Imports a session from a JSON-lines file and shows it.
pub fn import(app: AppState, file: web_sys::File) {
    app.error.set(None);
    spawn_local(async move {
        match import_file(app, file).await {
            Ok(session) => {
                refresh_sessions(app);
                show_session(app, session);
            }
            Err(e) => app.fail(format!("Import failed: {e}")),
        }
    });
}

async fn import_file(app: AppState, file: web_sys::File) -> Result<String, UiError> {
    let text = JsFuture::from(file.text())
        .await
        .map_err(js)?
        .as_string()
        .ok_or_else(|| UiError::Browser("the file is not text".into()))?;
    Ok(app.service()?.import(&text).await?)
}

/// Copies the session on screen up to the end of `step` of run `run` into a new session and
/// shows it (a run cut in the middle goes on from there).
pub fn fork(app: AppState, run: u32, step: u32) {
    let Some(session) = app.shown.id.get_untracked() else {
        return;
    };
    spawn_local(async move {
        match fork_session(app, &session, run, step).await {
            Ok(forked) => {
                refresh_sessions(app);
                show_session(app, forked);
            }
            Err(e) => app.fail(format!("Fork failed: {e}")),
        }
    });
}

/// The fork is named after where it came from ("Fork at step 2: <the session's title>"): with the
/// same first message as its source it would be listed under the same title, and a person could
/// not tell them apart. The name can be changed like any other.
async fn fork_session(
    app: AppState,
    session: &str,
    run: u32,
    step: u32,
) -> Result<String, UiError> {
    let service = app.service()?;
    let forked = service.fork(session, Some(run), step).await?;
    let title = app.sessions.with_untracked(|rows| {
        rows.iter()
            .find(|row| row.session == session)
            .map(|row| row.title())
    });
    let at = if run > 1 {
        format!("run {run}, step {step}")
    } else {
        format!("step {step}")
    };
    let name = match title {
        Some(title) => format!("Fork at {at}: {title}"),
        None => format!("Fork at {at}"),
    };
    // A fork left unnamed is still a fork: it is listed under its first message.
    let _ = service.rename(&forked, &name).await;
    Ok(forked)
}

/// Hands the files picked in the `<input type="file">` that `ev` came from to `take`, then
/// clears the input, so that the same file can be picked again (after a failure, say).
pub(super) fn take_picked(ev: &leptos::ev::Event, take: impl FnOnce(web_sys::FileList)) {
    let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    if let Some(files) = input.files() {
        take(files);
    }
    input.set_value("");
}
