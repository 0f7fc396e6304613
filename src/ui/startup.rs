//! What happens on page load: the model's download progress is followed, the stored sessions
//! are listed, and every session with a run in flight is reopened.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::actions::{open_stored, show_session};
use super::state::{AppState, ProgressContext};
use super::stored_sessions::list_sessions;

/// On page load: follows the model's download progress, lists the sessions, reopens every
/// session with a run in flight (so a reload continues it) and shows the most recent of them.
pub fn start(app: AppState) {
    if let Some(feed) = use_context::<ProgressContext>().and_then(|f| f.try_get_value()) {
        feed(Rc::new(move |progress| app.progress.set(Some(progress))));
    }
    spawn_local(async move {
        let rows = match list_sessions(app).await {
            Ok(rows) => rows,
            Err(e) => return app.fail(format!("Could not list the sessions: {e}")),
        };
        app.sessions.set(rows.clone());
        let mut newest = None;
        for row in rows.iter().filter(|r| r.summary.in_flight()) {
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
