//! What the playground's controls do with sessions: show one, open it in this tab, run a task,
//! cancel, continue with more budget, decide approvals, retry storage, delete.
//! Every failure lands in the page's alert; nothing here panics.

use super::ui_error::UiError;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::state::{AppState, Role};
use super::stored_sessions::refresh_sessions;
use crate::core::Event;
use crate::runtime::options::AgentOptions;
use crate::runtime::{LiveSession, Notice, Resolved, SessionEvent};
use crate::view::{missing_key, SessionSummary};

/// Shows a stored session; opens it in this tab when its run is in flight.
pub fn show_session(app: AppState, session: String) {
    let role = match app.handle(&session) {
        Some(handle) if handle.is_writer() => Role::Writer,
        Some(_) => Role::Follower,
        None => Role::Viewing,
    };
    app.shown.reset(Some(session.clone()), role);
    app.key_needed.set(None);
    app.settings_open.set(false);
    spawn_local(async move {
        let loaded = match app.service() {
            Ok(service) => service.records(&session).await.map_err(UiError::from),
            Err(e) => Err(e),
        };
        let records = match loaded {
            Ok(records) => records,
            Err(e) => {
                app.fail(format!("Could not load session {session}: {e}"));
                Vec::new()
            }
        };
        if app.shown.id.get_untracked().as_deref() != Some(session.as_str()) {
            return;
        }
        app.shown.loaded(&records);
        if app.handle(&session).is_none() && SessionSummary::from_records(&records).in_flight() {
            if let Err(e) = open_stored(app, &session).await {
                app.fail(format!("Could not resume the session: {e}"));
            }
        }
    });
}

/// A blank new session: the next task opens it with the settings.
pub fn new_session(app: AppState) {
    app.shown.reset(None, Role::Viewing);
    app.settings_open.set(true);
}

/// Opens a session in this tab and listens to it.
async fn open(app: AppState, options: AgentOptions) -> Result<Rc<LiveSession>, UiError> {
    let service = app.service()?;
    let resolved = service.resolve(options).await?;
    launch(app, resolved).await
}

/// Runs a resolved session in this tab and listens to it.
async fn launch(app: AppState, resolved: Resolved) -> Result<Rc<LiveSession>, UiError> {
    let handle = app.service()?.launch(resolved).await?;
    let session = handle.session.clone();
    handle.subscribe(Rc::new(move |event: &SessionEvent| {
        app.shown.on_event(&session, event);
        match event {
            SessionEvent::Failed(message) => {
                app.fail(format!("Session {session}: {message}"));
                // The next action on it opens it afresh.
                app.drop_handle(&session);
            }
            SessionEvent::Notice(notice) => match notice.as_ref() {
                Notice::Finished(_) => refresh_sessions(app),
                // The list says when a run starts, pauses for the person and goes on.
                Notice::Persisted(record)
                    if matches!(
                        record.event,
                        Event::RunStarted { .. } | Event::RunPaused { .. } | Event::RunUnpaused
                    ) =>
                {
                    refresh_sessions(app)
                }
                Notice::Persisted(_)
                | Notice::Delta(_)
                | Notice::ApprovalNeeded { .. }
                | Notice::StorageFailed(_)
                | Notice::StorageRecovered => {}
            },
            SessionEvent::Writer | SessionEvent::Follower => {}
        }
    }));
    app.keep_handle(handle.clone());
    Ok(handle)
}

/// Opens a stored session, unless its remote provider needs a key the settings do not hold:
/// then nothing is sent (`Ok(None)`) and the banner asks for the key. The settings lend only
/// their key; the session keeps the provider it was created with.
pub(super) async fn open_stored(
    app: AppState,
    session: &str,
) -> Result<Option<Rc<LiveSession>>, UiError> {
    let options = app
        .settings
        .get_untracked()
        .key_options(session.to_string());
    let resolved = app.service()?.resolve(options).await?;
    if let Some(why) = missing_key(&resolved.options) {
        if app.shown.id.get_untracked().as_deref() == Some(session) {
            app.key_needed.set(Some(why));
        }
        return Ok(None);
    }
    app.key_needed.set(None);
    launch(app, resolved).await.map(Some)
}

/// Resumes the session on screen once its key was entered (the key banner's button).
pub fn resume(app: AppState) {
    app.error.set(None);
    spawn_local(async move {
        if let Err(e) = ensure_open(app).await {
            app.fail(format!("Could not resume the session: {e}"));
        }
    });
}

/// The handle of the session on screen, opening it (or a new session) first if needed.
async fn ensure_open(app: AppState) -> Result<Rc<LiveSession>, UiError> {
    if let Some(handle) = app.shown_handle() {
        lend_key(app, &handle).await;
        return Ok(handle);
    }
    app.shown.role.set(Role::Opening);
    let opened = match app.shown.id.get_untracked() {
        Some(session) => open_stored(app, &session)
            .await
            .and_then(|handle| handle.ok_or(UiError::KeyNeeded)),
        None => {
            let options = app.settings.get_untracked().to_options(None);
            open(app, options).await.inspect(|handle| {
                // Nothing is stored yet, so the new session is shown as its records arrive.
                app.shown.id.set(Some(handle.session.clone()));
            })
        }
    };
    if opened.is_err() {
        app.shown.role.set(Role::Viewing);
    }
    opened
}

/// Hands the open session the settings' key when it is one for the session's provider (as
/// opening it would): a person who corrected a key the provider refused runs the next task in
/// the same session with the new one.
async fn lend_key(app: AppState, handle: &LiveSession) {
    let options = app
        .settings
        .get_untracked()
        .key_options(handle.session.clone());
    if options
        .provider
        .as_ref()
        .is_none_or(|p| p.api_key.is_none())
    {
        return;
    }
    let Ok(service) = app.service() else { return };
    // Merged with the stored provider: the key stays only if it is for that provider's kind.
    if let Ok(resolved) = service.resolve(options).await {
        if let Some(key) = resolved.options.provider.and_then(|p| p.api_key) {
            handle.set_api_key(key);
        }
    }
}

/// Runs a task in the session on screen (a new one when none is).
pub fn run_task(app: AppState, task: String) {
    app.error.set(None);
    app.busy.set(true);
    app.settings_open.set(false);
    spawn_local(async move {
        let opened = ensure_open(app).await;
        app.busy.set(false);
        let handle = match opened {
            Ok(handle) => handle,
            Err(e) => {
                // Nothing was recorded: the task goes back to the form (unless something new
                // was typed meanwhile), and the settings open, where what is missing is.
                if app.draft.with_untracked(String::is_empty) {
                    app.draft.set(task);
                }
                app.settings_open.set(true);
                return app.fail(format!("Could not open the session: {e}"));
            }
        };
        // The session holds the key now; the form can let go of it.
        if app.settings.with_untracked(|s| s.run.forget_key) {
            app.settings.update(|s| s.api_key.clear());
        }
        match handle.run(task, None).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => app.fail(format!("The run failed: {e}")),
            Err(_) => app.fail("The session stopped before the run ended."),
        }
    });
}

/// Cancels the run on screen.
pub fn cancel(app: AppState) {
    if let Some(handle) = app.shown_handle() {
        if let Err(e) = handle.cancel() {
            app.fail(format!("Could not cancel: {e}"));
        }
    }
}

/// Continues a run stopped by its budget, with every limit doubled.
pub fn continue_with_more_budget(app: AppState) {
    let Some(budget) = app.shown.summary.get_untracked().extended_limits() else {
        return;
    };
    spawn_local(async move {
        match ensure_open(app).await {
            Ok(handle) => {
                if let Err(e) = handle.extend_budget(budget.into()) {
                    app.fail(format!("Could not continue: {e}"));
                }
            }
            Err(e) => app.fail(format!("Could not open the session: {e}")),
        }
    });
}

/// Approves or denies a pending tool call of the session on screen.
pub fn decide(app: AppState, call: String, approved: bool) {
    let decided = match app.shown_handle() {
        Some(handle) => handle.decide(&call, approved, None),
        None => Err(crate::runtime::LiveError::NotOpen),
    };
    if let Err(e) = decided {
        app.fail(format!("Could not record the decision: {e}"));
    }
}

/// Writes the records storage refused before.
pub fn retry_storage(app: AppState) {
    if let Some(handle) = app.shown_handle() {
        if let Err(e) = handle.retry_storage() {
            app.fail(format!("Could not retry: {e}"));
        }
    }
}

/// Goes on after the run paused for its provider or a tool's server: the paused call is sent
/// again.
pub fn retry_paused(app: AppState) {
    if let Some(handle) = app.shown_handle() {
        if let Err(e) = handle.retry_paused() {
            app.fail(format!("Could not retry: {e}"));
        }
    }
}

/// Names a stored session (an empty name gives it back its first message as title).
pub fn rename_session(app: AppState, session: String, name: String) {
    spawn_local(async move {
        let renamed = match app.service() {
            Ok(service) => service.rename(&session, &name).await.map_err(UiError::from),
            Err(e) => Err(e),
        };
        if let Err(e) = renamed {
            app.fail(format!("Could not rename the session: {e}"));
        }
        refresh_sessions(app);
    });
}

/// Deletes a stored session (stopping it first if this tab runs it).
pub fn delete_session(app: AppState, session: String) {
    app.drop_handle(&session);
    spawn_local(async move {
        let deleted = match app.service() {
            Ok(service) => service.delete(&session).await.map_err(UiError::from),
            Err(e) => Err(e),
        };
        if let Err(e) = deleted {
            app.fail(format!("Could not delete the session: {e}"));
        }
        if app.shown.id.get_untracked().as_deref() == Some(session.as_str()) {
            new_session(app);
        }
        refresh_sessions(app);
    });
}
