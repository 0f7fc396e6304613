//! The stored sessions the sidebar lists: read from the service, most recent first, and read
//! again after anything that changes them.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::state::{AppState, SessionRow};
use super::ui_error::UiError;

/// Every stored session, most recent first.
pub async fn list_sessions(app: AppState) -> Result<Vec<SessionRow>, UiError> {
    let listed = app.service()?.list().await?;
    let mut rows: Vec<SessionRow> = listed
        .into_iter()
        .map(|s| SessionRow {
            session: s.session,
            summary: s.digest,
            updated_at: s.updated_at,
            name: s.name,
        })
        .collect();
    rows.sort_by_key(|row| std::cmp::Reverse(row.updated_at));
    Ok(rows)
}

/// Reloads the session list.
pub fn refresh_sessions(app: AppState) {
    spawn_local(async move {
        match list_sessions(app).await {
            Ok(rows) => app.sessions.set(rows),
            Err(e) => app.fail(format!("Could not list the sessions: {e}")),
        }
    });
}
