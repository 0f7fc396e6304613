//! The session list and what happens on page load: the model's download progress is followed,
//! the stored sessions are listed, and every session with a run in flight is reopened.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::actions::{open_stored, show_session};
use super::state::{AppState, SessionRow};
use crate::ports::EventStore;
use crate::view::{DownloadProgress, SessionSummary};
use crate::web::local_shared::on_progress;
use crate::web::session_handle::shared_store;

/// Every stored session, most recent first.
async fn list_sessions() -> Result<Vec<SessionRow>, String> {
    let store = shared_store();
    let mut rows = Vec::new();
    for stored in store.sessions().await.map_err(|e| e.to_string())? {
        let records = store
            .load(&stored.session)
            .await
            .map_err(|e| e.to_string())?;
        rows.push(SessionRow {
            session: stored.session,
            summary: SessionSummary::from_records(&records),
            updated_at: stored.updated_at,
        });
    }
    rows.sort_by_key(|row| std::cmp::Reverse(row.updated_at));
    Ok(rows)
}

/// Reloads the session list.
pub fn refresh_sessions(app: AppState) {
    spawn_local(async move {
        match list_sessions().await {
            Ok(rows) => app.sessions.set(rows),
            Err(e) => app.fail(format!("Could not list the sessions: {e}")),
        }
    });
}

/// On page load: follows the model's download progress, lists the sessions, reopens every
/// session with a run in flight (so a reload continues it) and shows the most recent of them.
pub fn start(app: AppState) {
    on_progress(Rc::new(move |p| {
        let progress = DownloadProgress {
            phase: p.phase.clone(),
            loaded: p.loaded,
            total: p.total,
            from_cache: p.from_cache,
        };
        app.progress.set(Some(progress));
    }));
    spawn_local(async move {
        let rows = match list_sessions().await {
            Ok(rows) => rows,
            Err(e) => return app.fail(format!("Could not list the sessions: {e}")),
        };
        app.sessions.set(rows.clone());
        let mut newest = None;
        for row in rows.iter().filter(|r| r.summary.in_flight) {
            // A session waiting for its API key is still shown: the banner asks for the key.
            match open_stored(app, &row.session).await {
                Ok(_) => {
                    newest.get_or_insert_with(|| row.session.clone());
                }
                Err(e) => app.fail(format!("Could not resume session {}: {e}", row.session)),
            }
        }
        if let Some(session) = newest {
            show_session(app, session);
        }
    });
}
